"""Exercises of notebook 09_grad_modes.ipynb (grad modes).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def propagation_flags():
    x = torch.ones(2, requires_grad=True)
    k = torch.ones(2)
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = a * x
    c = k * a
    return (a.requires_grad, b.requires_grad, c.requires_grad)


Exercise(
    "09-propagation",
    "x = torch.ones(2, requires_grad=True); k = torch.ones(2); under torch.no_grad(): "
    "a = x * 2, and inside a nested torch.enable_grad(): b = a * x; then, outside both, "
    "c = k * a. Answer the tuple (a.requires_grad, b.requires_grad, c.requires_grad).",
    propagation_flags,
    hints=[
        Hint("a was made under no_grad, but b was made with grad mode back on, and one of its "
             "inputs (x) requires grad: that is enough for b.",
             wrong=lambda: (False, False, False)),
        Hint("Under no_grad nothing is recorded, even when x requires grad: a is a plain tensor "
             "(and so is c = k * a, since neither k nor a requires grad).",
             wrong=lambda: (True, True, True)),
        Hint("c = k * a is computed with grad mode on, but neither k nor a requires grad: "
             "no input requires grad, so c does not either.",
             wrong=lambda: (False, True, True)),
    ])


def _weights_and_batch():
    return (torch.tensor([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]], requires_grad=True),
            torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]]))


def predict_scores(w, x):
    with torch.no_grad():
        return x @ w


Exercise(
    "09-no-grad-predict",
    "w (3x2) is a parameter with requires_grad=True, x (2x3) a batch. Write f(w, x) returning "
    "x @ w computed without recording a graph.",
    predict_scores, inputs=_weights_and_batch,
    rules=("type", "shape", "dtype", "values", "requires_grad"),
    hints=[
        Hint("x @ w is recorded because w requires grad: the result carries a graph (and the "
             "tensors saved for backward). Compute it inside with torch.no_grad():.",
             wrong=lambda w, x: x @ w),
    ])


def _small_model():
    # Deeper than the notebook's demonstration model, so that the names it prints there
    # ('4.weight', '4.bias') are not this exercise's answer.
    torch.manual_seed(0)
    return (torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 8), torch.nn.Tanh(),
                                torch.nn.Linear(8, 2)),)


def freeze_all_but_last(model):
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return [n for n, p in model.named_parameters() if p.requires_grad]


def _freeze_only_first(model):
    model[0].requires_grad_(False)
    return [n for n, p in model.named_parameters() if p.requires_grad]


def _freeze_weights_only(model):
    for name, p in model.named_parameters():
        if name.endswith("weight") and not name.startswith(f"{len(model) - 1}."):
            p.requires_grad_(False)
    return [n for n, p in model.named_parameters() if p.requires_grad]


Exercise(
    "09-freeze",
    "model is an nn.Sequential. Write f(model) that freezes every parameter except those of "
    "its last layer, and returns the list of names of the parameters that still require grad.",
    freeze_all_but_last, inputs=_small_model,
    rules=("type", "values"),
    hints=[
        Hint("Only the first layer is frozen: every layer but the last must be, "
             "e.g. model.requires_grad_(False), then model[-1].requires_grad_(True).",
             wrong=_freeze_only_first),
        Hint("The biases still train: freeze every parameter of the other layers, weights "
             "and biases (module.requires_grad_(False) does both).",
             wrong=_freeze_weights_only),
    ])


def quiz_09():
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = w * 2
        with torch.enable_grad():
            inner = torch.is_grad_enabled()
    model = torch.nn.Linear(2, 1)
    model.eval()
    return (y.requires_grad, model.weight.requires_grad, inner)


Exercise(
    "09-quiz",
    "Self-check, w = torch.ones(2, requires_grad=True). (1) Under torch.no_grad(), y = w * 2: "
    "y.requires_grad? (2) After model.eval() on an nn.Linear, does model.weight still require "
    "grad? (3) Inside `with torch.no_grad(): with torch.enable_grad():`, what does "
    "torch.is_grad_enabled() return? Answer a tuple of three bools.",
    quiz_09,
    hints=[
        Hint("(1) no_grad records nothing: its results never require grad.",
             wrong=lambda: (True, True, True)),
        Hint("(2) eval() switches layers like dropout and batch norm to evaluation; it does not "
             "touch requires_grad or grad mode.",
             wrong=lambda: (False, False, True)),
        Hint("(3) The innermost context wins: enable_grad turns grad mode back on.",
             wrong=lambda: (False, True, False)),
    ])
