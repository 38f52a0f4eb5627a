"""Exercises of notebook 11_matmul.ipynb (matmul).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def matmul_shape():
    return (10, 4)


Exercise(
    "11-matmul-shape",
    "What is the shape of torch.matmul(v, A) for v of shape (3,) and A of shape (10, 3, 4)? "
    "Answer a tuple.",
    matmul_shape,
    hints=[
        Hint("A 1-D FIRST operand gets a 1 put in front for the product, and that 1 is removed "
             "after: the result has no (1, 4) matrix rows.",
             wrong=lambda: (10, 1, 4)),
        Hint("v is contracted with A's rows (size 3, the dim before last): the columns (4) "
             "remain, with the batch 10.",
             wrong=lambda: (10, 3)),
    ])


def _four_d():
    a = torch.arange(2 * 5 * 3, dtype=torch.float64).reshape(2, 5, 3) / 10
    b = torch.arange(2 * 5 * 4 * 6, dtype=torch.float64).reshape(2, 5, 4, 6) / 100
    return (a, b)


def bmm_4d(a, b):
    n, m = a.shape[0], a.shape[1]
    # The contracted m must be the LAST dim of the left matrix: transpose a, do not reshape it.
    r = a.transpose(1, 2).bmm(b.reshape(n, m, -1))
    return r.reshape(n, a.shape[2], *b.shape[2:])


def _reshape_instead_of_transpose(a, b):
    return a.reshape(2, 3, 5).bmm(b.reshape(2, 5, -1)).reshape(2, 3, 4, 6)


Exercise(
    "11-bmm-4d",
    "a has shape (2, 5, 3), b has shape (2, 5, 4, 6). Write f(a, b) returning r of shape "
    "(2, 3, 4, 6) with r[n, i, j, k] = sum over m of a[n, m, i] * b[n, m, j, k], using one "
    "bmm (the contracted m is a's dim 1 here, not its last).",
    bmm_4d, inputs=_four_d,
    hints=[
        Hint("a @ b treats the last two dims as matrices and broadcasts the others: batch "
             "(2,) against (2, 5) does not broadcast. Flatten b to (2, 5, 24), bring m last "
             "in a, bmm, then reshape.",
             wrong=lambda a, b: a @ b),
        Hint("reshape(2, 3, 5) keeps a's memory order, so it does not move m to the end: it "
             "mixes values of different m and i. Use a.transpose(1, 2).",
             wrong=_reshape_instead_of_transpose),
    ])


def _matrices_and_rows():
    w = torch.arange(120.0).reshape(4, 6, 5) / 8
    x = torch.arange(20.0).reshape(4, 5) / 4
    return (w, x)


def matrix_times_row(w, x):
    return (w @ x.unsqueeze(-1)).squeeze(-1)  # = torch.einsum("npk,nk->np", w, x)


Exercise(
    "11-matrix-times-row",
    "W has shape (4, 6, 5) and x shape (4, 5). Write f(W, x) returning shape (4, 6) whose "
    "row i is the matrix-vector product W[i] @ x[i].",
    matrix_times_row, inputs=_matrices_and_rows,
    hints=[
        Hint("W @ x.t() broadcasts all 4 vectors against each matrix: shape (4, 6, 4). Make "
             "each row a (5, 1) column of its own matrix: W @ x.unsqueeze(-1), then squeeze.",
             wrong=lambda w, x: w @ x.t()),
        Hint("The products are right, but keep the shape (4, 6): squeeze the 1 that "
             "unsqueeze(-1) added.",
             wrong=lambda w, x: w @ x.unsqueeze(-1)),
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
