"""Exercises of notebook 04_broadcasting.ipynb (broadcasting & expand).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def broadcast_result_shape():
    return tuple((torch.zeros(5, 1, 4) * torch.zeros(3, 1)).shape)


Exercise(
    "04-result-shape",
    "What is the shape of torch.zeros(5, 1, 4) * torch.zeros(3, 1)? Answer a tuple of ints.",
    broadcast_result_shape,
    hints=[
        Hint("Shapes align from the right: (3, 1) becomes (1, 3, 1), then every size 1 "
             "stretches, the 1 of (5, 1, 4) to 3 as well.",
             wrong=lambda: (5, 1, 4)),
        Hint("Align from the right, not the left: the 3 of (3, 1) meets the middle 1, and "
             "its 1 meets the 4.",
             wrong=lambda: (5, 3, 4, 1)),
    ])


def _rows_3x3():
    return (torch.tensor([[1., 2., 3.], [10., 20., 30.], [0., 0., 6.]]),)


def center_rows(x):
    return x - x.mean(dim=1, keepdim=True)


Exercise(
    "04-center-rows",
    "Write f(x) that subtracts from each row of the 2-D tensor x that row's mean.",
    center_rows, inputs=_rows_3x3,
    rules=("type", "shape", "dtype", "values"),
    hints=[
        Hint("x.mean(dim=1) has shape (n,), which broadcasts as a ROW: row means are "
             "subtracted down the columns. Keep the dimension: x.mean(dim=1, keepdim=True) "
             "has shape (n, 1).",
             wrong=lambda x: x - x.mean(dim=1)),
        Hint("x.mean(dim=0) is the mean of each column; each row needs its own mean, "
             "over dim 1.",
             wrong=lambda x: x - x.mean(dim=0)),
    ])


def _pred_target():
    return (torch.tensor([[0.5], [2.0], [2.5], [4.0]]), torch.tensor([1.0, 2.0, 3.0, 4.0]))


def residuals(pred, target):
    return pred.squeeze(1) - target


Exercise(
    "04-residuals",
    "pred has shape (N, 1) and target (N,). Write f(pred, target) returning pred - target "
    "elementwise, with shape (N,).",
    residuals, inputs=_pred_target,
    rules=("type", "shape", "dtype", "values"),
    hints=[
        Hint("(N, 1) minus (N,) broadcasts to (N, N), every prediction against every "
             "target: drop pred's trailing dimension first, pred.squeeze(1).",
             wrong=lambda pred, target: pred - target),
    ])


def quiz_04():
    try:
        torch.zeros(2, 3) + torch.zeros(2)
        works = True
    except RuntimeError:
        works = False
    return (tuple((torch.zeros(3, 1) + torch.zeros(4)).shape), works,
            tuple(torch.zeros(3).expand(2, 3).stride()))


Exercise(
    "04-quiz",
    "Self-check. (1) The shape of torch.zeros(3, 1) + torch.zeros(4) (a tuple). (2) Does "
    "torch.zeros(2, 3) + torch.zeros(2) work? (a bool) (3) The strides of "
    "torch.zeros(3).expand(2, 3) (a tuple). Answer a tuple of the three.",
    quiz_04,
    hints=[
        Hint("(1) Align from the right: (3, 1) and (4,) give (3, 4), the 1 stretches to 4.",
             wrong=lambda: ((3, 1), False, (0, 1))),
        Hint("(2) Shapes align from the RIGHT: 3 against 2 does not match and neither is 1.",
             wrong=lambda: ((3, 4), True, (0, 1))),
        Hint("(3) expand copies nothing: the new dimension reads the same row again, stride 0.",
             wrong=lambda: ((3, 4), False, (3, 1))),
    ])


def _rows_and_weights():
    return (torch.arange(12.0).reshape(3, 4), torch.tensor([1.0, 10.0, 100.0]))


def weight_rows(x, w):
    return x * w[:, None]  # w.unsqueeze(1): shape (3, 1) stretches along the columns


Exercise(
    "04-debug-row-weights",
    "Debug this: weight_rows(x, w) = x * w should multiply row i of x (3, 4) by w[i] (w has "
    "shape (3,)) but raises RuntimeError (the size of tensor a (4) must match the size of "
    "tensor b (3)). Write the fixed function.",
    weight_rows, inputs=_rows_and_weights,
    hints=[
        Hint("(3,) aligns with the LAST dimension of (3, 4): that is the error. Give w a "
             "trailing 1: w[:, None] has shape (3, 1).",
             wrong=lambda x, w: x * w),
        Hint("x.t() * w has the right numbers in the wrong shape (4, 3): transpose back, or "
             "better, reshape w instead of x.",
             wrong=lambda x, w: x.t() * w),
        Hint("w[None, :] has shape (1, 3): still aligned with the columns. The 1 must come "
             "last.",
             wrong=lambda x, w: x * w[None, :]),
    ])
