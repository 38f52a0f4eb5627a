"""Exercises of notebook 08_inplace.ipynb (in-place & versions).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def version_after():
    t = torch.zeros(3)
    t.add_(1)
    v = t.view(3, 1)
    v.mul_(2)
    w = t * 2
    w.add_(1)
    return t._version


Exercise(
    "08-version",
    "t = torch.zeros(3); t.add_(1); v = t.view(3, 1); v.mul_(2); w = t * 2; w.add_(1). "
    "What is t._version? Answer an int.",
    version_after,
    hints=[
        Hint("A view shares its base's version counter: v.mul_(2) wrote t's memory and "
             "counts for t too.",
             wrong=lambda: 1),
        Hint("w = t * 2 is a new tensor with its own counter: w.add_(1) does not touch t.",
             wrong=lambda: 3),
    ])


def _parameter():
    return (torch.tensor([2.0, -4.0, 6.0], requires_grad=True),)


def scale_parameter(w):
    with torch.no_grad():
        w.mul_(0.5)
    return w


Exercise(
    "08-scale-parameter",
    "w is a leaf parameter (requires_grad=True). Write f(w) that multiplies w by 0.5 in "
    "place, as an optimizer step does, and returns w.",
    scale_parameter, inputs=_parameter,
    rules=("type", "shape", "dtype", "values", "shares", "requires_grad"),
    hints=[
        Hint("w * 0.5 is a new tensor (and not a leaf): the parameter itself is unchanged. "
             "Update w in place under torch.no_grad(): with torch.no_grad(): w.mul_(0.5).",
             wrong=lambda w: w * 0.5),
        Hint("w.detach() * 0.5 has the right values but is a new tensor cut from the graph: "
             "write into w itself, under torch.no_grad().",
             wrong=lambda w: w.detach() * 0.5),
    ])


def _logits():
    return (torch.tensor([-1.0, 0.0, 2.0], requires_grad=True),)


def shifted_sigmoid(x):
    return x.sigmoid() + 1


def _inplace_shift(x):
    return x.sigmoid().add_(1)


Exercise(
    "08-shifted-sigmoid",
    "Write f(x) returning sigmoid(x) + 1 in a way that backward() through the result "
    "works (x requires grad).",
    shifted_sigmoid, inputs=_logits,
    rules=("type", "shape", "dtype", "values", "backward"),
    hints=[
        Hint("sigmoid saves its output for backward; add_ overwrites it (version 0 -> 1), "
             "so backward() would raise. Add out of place: x.sigmoid() + 1.",
             wrong=_inplace_shift),
    ])


def quiz_08():
    t = torch.zeros(3)
    t[1:].add_(1)
    w = torch.zeros(2, requires_grad=True)
    try:
        w.add_(1)
        leaf_ok = True
    except RuntimeError:
        leaf_ok = False
    x = torch.zeros(2)
    old = x
    x = x + 1
    return (t._version, leaf_ok, old._version)


Exercise(
    "08-quiz",
    "Self-check. (1) t = torch.zeros(3); t[1:].add_(1): what is t._version? (an int) (2) Does "
    "w.add_(1) work on a leaf w with requires_grad=True, outside no_grad? (a bool) (3) x = "
    "torch.zeros(2); old = x; x = x + 1: what is old._version? (an int) Answer a tuple.",
    quiz_08,
    hints=[
        Hint("(1) A view shares its base's version counter: writing through t[1:] bumps t.",
             wrong=lambda: (0, False, 0)),
        Hint("(2) In-place ops on a leaf that requires grad raise under grad mode: use "
             "torch.no_grad().",
             wrong=lambda: (1, True, 0)),
        Hint("(3) x + 1 is out of place: it makes a new tensor and leaves the old one alone.",
             wrong=lambda: (1, False, 1)),
    ])


def _mixed_signs():
    return (torch.tensor([-1.0, 2.0, 0.5], requires_grad=True),)


def shifted_relu(x):
    return x.relu() + 0.5  # out of place: relu's saved result stays as it was


Exercise(
    "08-debug-saved-tensor",
    "Debug this: h = x.relu(); h += 0.5; return h. backward() through the result raises "
    "RuntimeError (one of the variables needed for gradient computation has been modified by "
    "an inplace operation). Write the fixed function: relu(x) + 0.5, differentiable.",
    shifted_relu, inputs=_mixed_signs,
    rules=("type", "shape", "dtype", "values", "backward"),
    hints=[
        Hint("relu saves its result for backward; h += 0.5 overwrites it. Write h = x.relu() + 0.5 "
             "(out of place).",
             wrong=lambda x: x.relu().add_(0.5)),
        Hint("detach() makes the error go away by cutting the graph: the result no longer "
             "requires grad, so nothing can be learnt through it.",
             wrong=lambda x: x.relu().detach() + 0.5),
    ])
