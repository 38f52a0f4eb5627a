"""Exercises of notebook 05_dtypes.ipynb (dtypes & promotion).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def dtype_bool_plus_int_scalar():
    return (torch.tensor([True, False]) + 2).dtype


Exercise(
    "05-bool-plus-python-int",
    "What is the dtype of torch.tensor([True, False]) + 2? Answer a dtype, e.g. torch.float32.",
    dtype_bool_plus_int_scalar,
    hints=[
        Hint("A Python int is in a higher category than bool (integer above boolean), so the "
             "result cannot stay bool.",
             wrong=lambda: torch.bool),
        Hint("A Python number that raises the category brings that category's default dtype: "
             "for integers that is torch.int64, not int32 or uint8.",
             wrong=lambda: torch.int32),
        Hint("The result stays integer: only a Python float (or a floating tensor) moves it to "
             "floating point.",
             wrong=lambda: torch.float32),
    ])


def uint8_plus_zero_dim_int64():
    return (torch.arange(3, dtype=torch.uint8) + torch.tensor(-1)).tolist()


Exercise(
    "05-uint8-plus-0dim-int64",
    "What is (torch.arange(3, dtype=torch.uint8) + torch.tensor(-1)).tolist()? Answer a list of "
    "ints.",
    uint8_plus_zero_dim_int64,
    hints=[
        Hint("A 0-dim int64 tensor is in the same category (integer) as the uint8 operand, so "
             "it does not widen it: the sum is uint8, where 0 - 1 wraps around to 255.",
             wrong=lambda: [-1, 0, 1]),
        Hint("Only the first element wraps: 1 - 1 = 0 and 2 - 1 = 1 fit in uint8.",
             wrong=lambda: [255, 255, 255]),
    ])


def _predictions():
    return (torch.tensor([0, 2, 1, 1, 0]), torch.tensor([0, 1, 1, 1, 2]))


def accuracy(pred, labels):
    return (pred == labels).float().mean()


Exercise(
    "05-accuracy",
    "Write f(pred, labels) (int64 class ids) returning the fraction of correct predictions "
    "as a 0-dim float32 tensor.",
    accuracy, inputs=_predictions,
    hints=[
        Hint("mean() refuses bool and integer tensors (it cannot infer a floating dtype): "
             "convert the comparison with .float() first.",
             wrong=lambda pred, labels: (pred == labels).mean()),
        Hint("sum() of a bool tensor is an int64 count; divide by the number of elements "
             "(or use .float().mean()).",
             wrong=lambda pred, labels: (pred == labels).sum()),
        Hint("Converting to float64 (.double()) gives the right value in the wrong dtype: "
             "use .float().",
             wrong=lambda pred, labels: (pred == labels).double().mean()),
    ])


def quiz_05():
    return (str((torch.tensor([1, 2]) / 2).dtype).split(".")[1],
            (torch.tensor([100], dtype=torch.int8) * 2).item(),
            str((torch.ones(2, dtype=torch.float16) + torch.tensor([1, 2])).dtype).split(".")[1])


Exercise(
    "05-quiz",
    "Self-check. (1) The dtype of torch.tensor([1, 2]) / 2, as a string such as 'int64'. "
    "(2) The value of (torch.tensor([100], dtype=torch.int8) * 2).item() (an int). (3) The "
    "dtype of torch.ones(2, dtype=torch.float16) + torch.tensor([1, 2]) (a string). Answer a "
    "tuple of the three.",
    quiz_05,
    hints=[
        Hint("(1) / is true division: integers give the default float dtype, float32.",
             wrong=lambda: ("int64", -56, "float16")),
        Hint("(2) The Python int 2 does not widen int8: 200 wraps around to 200 - 256.",
             wrong=lambda: ("float32", 200, "float16")),
        Hint("(3) Floating beats integer whatever the width: int64 + float16 is float16.",
             wrong=lambda: ("float32", -56, "float32")),
    ])


def _counts_and_weights():
    return (torch.tensor([[1, 0, 2], [0, 3, 1]]),
            torch.tensor([[0.5, -1.0], [0.25, 2.0], [1.5, 0.0]]))


def weighted_counts(counts, w):
    return counts.float() @ w  # the int64 counts become float32, like w


Exercise(
    "05-debug-matmul-dtype",
    "Debug this: weighted_counts(counts, w) = counts @ w, with int64 counts (2, 3) and float32 "
    "weights w (3, 2), raises RuntimeError (expected m1 and m2 to have the same dtype). Write "
    "the fixed function: a float32 (2, 2) result.",
    weighted_counts, inputs=_counts_and_weights,
    hints=[
        Hint("matmul does not promote: both operands must have one dtype. That is the error "
             "you are fixing: convert counts with .float().",
             wrong=lambda counts, w: counts @ w),
        Hint("w.long() truncates the weights to integers (0.5 becomes 0): convert the counts "
             "to float, not the weights to int.",
             wrong=lambda counts, w: counts @ w.long()),
        Hint("counts.double() is float64 while w is float32: still two dtypes. Use .float().",
             wrong=lambda counts, w: counts.double() @ w),
    ])
