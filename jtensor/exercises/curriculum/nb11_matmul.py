"""Exercises of notebook 11_matmul.ipynb (matmul).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def matmul_shape():
    return (10, 3)


Exercise(
    "11-matmul-shape",
    "What is the shape of torch.matmul(A, v) for A of shape (10, 3, 4) and v of shape (4,)? "
    "Answer a tuple.",
    matmul_shape,
    hints=[
        Hint("A 1-D second operand gets a 1 appended for the product and removed after: the "
             "result has no trailing 1.",
             wrong=lambda: (10, 3, 1)),
        Hint("The contracted size 4 disappears; the batch 10 and the rows 3 remain.",
             wrong=lambda: (10, 4)),
    ])


def _four_d():
    a = torch.arange(2 * 3 * 4 * 5, dtype=torch.float64).reshape(2, 3, 4, 5) / 10
    b = torch.arange(2 * 5 * 6 * 7, dtype=torch.float64).reshape(2, 5, 6, 7) / 100
    return (a, b)


def bmm_4d(a, b):
    n, k = a.shape[0], a.shape[-1]
    r = a.reshape(n, -1, k).bmm(b.reshape(n, k, -1))
    return r.reshape(a.shape[:-1] + b.shape[2:])


Exercise(
    "11-bmm-4d",
    "a has shape (2, 3, 4, 5), b has shape (2, 5, 6, 7). Write f(a, b) returning r of shape "
    "(2, 3, 4, 6, 7) with r[n, i, j, k, l] = sum over m of a[n, i, j, m] * b[n, m, k, l], "
    "using one bmm.",
    bmm_4d, inputs=_four_d,
    hints=[
        Hint("a @ b treats the last two dims as matrices and broadcasts the others: (2, 3) "
             "and (2, 5) do not broadcast. Flatten a to (2, 12, 5) and b to (2, 5, 42), bmm, "
             "then reshape.",
             wrong=lambda a, b: a @ b),
        Hint("Reshaping b to (2, 5, 42) must keep m (size 5) as b's dim 1; transposing it "
             "away mixes up the contraction.",
             wrong=lambda a, b: a.reshape(2, -1, 5).bmm(
                 b.transpose(1, 3).reshape(2, 5, -1)).reshape(2, 3, 4, 6, 7)),
    ])


def _rows_and_matrices():
    x = torch.arange(20.0).reshape(4, 5) / 4
    w = torch.arange(120.0).reshape(4, 5, 6) / 8
    return (x, w)


def row_times_matrix(x, w):
    return (x.unsqueeze(1) @ w).squeeze(1)


Exercise(
    "11-row-times-matrix",
    "x has shape (4, 5) and W shape (4, 5, 6). Write f(x, W) returning shape (4, 6) whose "
    "row i is x[i] @ W[i].",
    row_times_matrix, inputs=_rows_and_matrices,
    hints=[
        Hint("x @ W broadcasts the whole (4, 5) matrix against each of the 4 matrices: "
             "shape (4, 4, 6). Make each row a (1, 5) matrix: x.unsqueeze(1) @ W, then "
             "squeeze(1).",
             wrong=lambda x, w: x @ w),
        Hint("The products are right, but keep the shape (4, 6): squeeze the 1 that "
             "unsqueeze(1) added.",
             wrong=lambda x, w: x.unsqueeze(1) @ w),
    ])


def quiz_11():
    try:
        torch.bmm(torch.ones(2, 3, 4), torch.ones(1, 4, 5))
        broadcasts = True
    except RuntimeError:
        broadcasts = False
    return (tuple((torch.ones(3) @ torch.ones(3)).shape), broadcasts,
            tuple((torch.ones(2, 1, 3, 4) @ torch.ones(5, 4, 2)).shape))


Exercise(
    "11-quiz",
    "Self-check. (1) The shape of torch.ones(3) @ torch.ones(3) (a tuple). (2) Does torch.bmm "
    "broadcast batch sizes 2 and 1? (a bool) (3) The shape of torch.ones(2, 1, 3, 4) @ "
    "torch.ones(5, 4, 2) (a tuple). Answer a tuple of the three.",
    quiz_11,
    hints=[
        Hint("(1) 1-D @ 1-D is a dot product: a 0-dim tensor, shape ().",
             wrong=lambda: ((1,), False, (2, 5, 3, 2))),
        Hint("(2) bmm never broadcasts: both batch sizes must be equal.",
             wrong=lambda: ((), True, (2, 5, 3, 2))),
        Hint("(3) Batch dims (2, 1) and (5,) broadcast to (2, 5); then (3, 4) @ (4, 2) is "
             "(3, 2).",
             wrong=lambda: ((), False, (2, 1, 3, 2))),
    ])


def _linear_layer():
    return (torch.arange(15.0).reshape(5, 3) / 10,
            torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [2.0, 0.0, 0.0],
                          [0.0, -1.0, 1.0]]),
            torch.tensor([0.0, 1.0, -1.0, 0.5]))


def linear(x, w, b):
    return x @ w.t() + b  # w is (out, in), as nn.Linear stores it


Exercise(
    "11-debug-linear",
    "Debug this: linear(x, W, b) = x @ W + b with x (5, 3), an nn.Linear-style weight W (4, 3) "
    "(out, in) and bias b (4,) raises RuntimeError (mat1 and mat2 shapes cannot be "
    "multiplied (5x3 and 4x3)). Write the fixed function: a (5, 4) result.",
    linear, inputs=_linear_layer,
    hints=[
        Hint("x @ W pairs x's 3 columns with W's 4 rows: that is the error. nn.Linear computes "
             "x @ W.t() + b.",
             wrong=lambda x, w, b: x @ w + b),
        Hint("W @ x.t() gives the transposed product (4, 5): the bias then cannot broadcast "
             "along the right axis. Keep x first: x @ W.t() + b.",
             wrong=lambda x, w, b: w @ x.t() + b[:, None]),
    ])
