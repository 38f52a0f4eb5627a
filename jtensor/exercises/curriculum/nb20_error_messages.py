"""Exercises of notebook 20_error_messages.ipynb ("debug this": read the error, fix the code).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``. Each broken
function raises one of the notebook's errors; the hints answer the typical wrong fixes.
"""

import numpy as np

import jtensor as torch

from .. import Exercise, Hint

_F = torch.nn.functional


def _logits_and_label_column():
    # Labels read from a table come as a float column (N, 1); the classes are 0..2.
    gen = torch.Generator().manual_seed(20)
    return (torch.randn(4, 3, generator=gen), torch.tensor([[0.0], [2.0], [1.0], [2.0]]))


def classification_loss(logits, labels):
    # cross_entropy wants class indices: int64, one per row, shape (N,).
    return _F.cross_entropy(logits, labels.squeeze(1).long())


Exercise(
    "20-debug-cross-entropy-target",
    "Debug this: loss(logits, labels) = F.cross_entropy(logits, labels) with logits (4, 3) and "
    "labels a float column (4, 1) of class numbers raises RuntimeError (0D or 1D target tensor "
    "expected, multi-target not supported). Write the fixed function: the mean cross-entropy.",
    classification_loss,
    inputs=_logits_and_label_column,
    hints=[
        Hint(
            "The target must be one class index per row: an int64 tensor of shape (N,). "
            ".long() alone keeps the (N, 1) column, .squeeze(1) alone keeps float: do both, "
            "labels.squeeze(1).long().",
            wrong=lambda logits, labels: _F.cross_entropy(logits, labels.long()),
        ),
        Hint(
            "cross_entropy applies log_softmax itself: passing logits.softmax(1) squashes "
            "them twice. Give it the raw logits.",
            wrong=lambda logits, labels: _F.cross_entropy(
                logits.softmax(1), labels.squeeze(1).long()
            ),
        ),
    ],
)


def _predictions_and_targets():
    return (torch.tensor([0.5, 2.0, -1.0, 3.0]), torch.tensor([1.0, 2.0, 0.0, 1.0]))


def mean_squared_error(pred, target):
    per_sample = _F.mse_loss(pred, target, reduction="none")
    return per_sample.mean().item()  # one number: reduce first, then item()


Exercise(
    "20-debug-item",
    "Debug this: mse(pred, target) computes per_sample = F.mse_loss(pred, target, "
    "reduction='none') and returns per_sample.item(), which raises RuntimeError (a Tensor "
    "with 4 elements cannot be converted to Scalar). Write the fixed function: the mean "
    "squared error as a Python float.",
    mean_squared_error,
    inputs=_predictions_and_targets,
    hints=[
        Hint(
            "item() turns a tensor of exactly one element into a Python number; "
            "reduction='none' keeps one loss per sample (4 here). Reduce first: "
            "per_sample.mean().item().",
            wrong=lambda pred, target: _F.mse_loss(pred, target, reduction="none").item(),
        ),
        Hint(
            "That is the sum of the squared errors: the mean divides it by the number of "
            "samples. Use per_sample.mean().item().",
            wrong=lambda pred, target: _F.mse_loss(pred, target, reduction="none").sum().item(),
        ),
        Hint(
            "per_sample[0].item() is the first sample's error only: reduce over all of them "
            "with .mean() before .item().",
            wrong=lambda pred, target: _F.mse_loss(pred, target, reduction="none")[0].item(),
        ),
        Hint(
            "tolist() gives one number per sample: item() needs a single element, so take "
            "the mean first.",
            wrong=lambda pred, target: _F.mse_loss(pred, target, reduction="none").tolist(),
        ),
    ],
)


def _model_and_numpy_batch():
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -1.0, 0.25], [1.0, 0.0, -0.5]]))
        model.bias.copy_(torch.tensor([0.1, -0.2]))
    # NumPy's default float is float64: torch.from_numpy keeps it.
    return (model, np.array([[1.0, 2.0, 3.0], [0.5, -1.5, 2.0]]))


def predict(model, x):
    return model(torch.from_numpy(x).float())  # the batch, not the model, changes dtype


def _predict_with_a_double_model(model, x):
    return model.double()(torch.from_numpy(x))


Exercise(
    "20-debug-linear-dtype",
    "Debug this: predict(model, x) = model(torch.from_numpy(x)) with a float32 nn.Linear(3, 2) "
    "and a NumPy batch x of shape (2, 3) raises RuntimeError (same dtype expected, but got "
    "Double and Float). Write the fixed function: the model's float32 (2, 2) output.",
    predict,
    inputs=_model_and_numpy_batch,
    hints=[
        Hint(
            "model.double() converts the model's parameters to float64, for this call and "
            "every later one (and the optimizer's state): convert the batch instead, "
            "torch.from_numpy(x).float().",
            wrong=_predict_with_a_double_model,
        ),
        Hint(
            "torch.from_numpy keeps NumPy's dtype, float64 (Double), while the layer's "
            "weights are float32 (Float): convert the batch with torch.from_numpy(x).float().",
            wrong=lambda model, x: model(torch.from_numpy(x)),
        ),
    ],
)


def quiz_20():
    # (1) Linear's mat2 is weight.t(), (in_features, out_features): its 10 must become x's 100.
    # (2) Saved at version 1, now at 2: one in-place write since. (3) Asynchronous: later.
    return (100, 1, False)


Exercise(
    "20-quiz",
    "Self-check. (1) nn.Linear(10, 5) applied to x of shape (64, 100) raises 'mat1 and mat2 "
    "shapes cannot be multiplied (64x100 and 10x5)': what in_features must the layer have? "
    "(2) Backward reports 'is at version 2; expected version 1 instead': how many in-place "
    "writes changed that tensor after autograd saved it? (3) Without CUDA_LAUNCH_BLOCKING=1, "
    "is a CUDA device-side assert raised by the line that caused it? (a bool) Answer a tuple "
    "of the three.",
    quiz_20,
    hints=[
        Hint(
            "(1) mat1 is the input (64 rows of 100 features); mat2 is the weight transposed, "
            "(in_features, out_features) = 10x5. The inner numbers must match: in_features is "
            "x's last size.",
            wrong=lambda: (10, 1, False),
        ),
        Hint(
            "(2) The version counter goes up by one per in-place write; the saved version was "
            "1, the current one 2.",
            wrong=lambda: (100, 2, False),
        ),
        Hint(
            "(3) Kernels run asynchronously: the error surfaces at a later sync point (item(), "
            "print, synchronize()), often on an innocent line.",
            wrong=lambda: (100, 1, True),
        ),
    ],
)
