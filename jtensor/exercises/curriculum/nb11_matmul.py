"""Exercises of notebook 11_matmul.ipynb (matmul).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def fold_slot():
    # batch (4, 1) with (5,) broadcasts to (4, 5): 20 slots, counted row-major (the last batch
    # dim fastest), so slot 13 is batch position (2, 3); a's size-1 dim is read at index 0.
    return (20, (2, 0), (3,))


Exercise(
    "11-fold-slot",
    "a has shape (4, 1, 2, 3) and b has shape (5, 3, 2); a @ b runs one bmm. Answer a tuple: "
    "(the batch size of that bmm, the batch index of a that its slot 13 reads, as a tuple, "
    "the batch index of b that slot 13 reads, as a tuple).",
    fold_slot,
    hints=[
        Hint("a's batch dim of size 1 is stretched (stride 0): every slot reads a[i, 0], "
             "whatever the position along the stretched dim.",
             wrong=lambda: (20, (2, 3), (3,))),
        Hint("The slots are numbered row-major over the broadcast batch shape (4, 5), as "
             "reshape numbers elements: the last batch dim varies fastest, so slot k is "
             "(k // 5, k % 5).",
             wrong=lambda: (20, (1, 0), (3,))),
        Hint("The bmm's batch size is the product of the BROADCAST batch shape, (4, 1) with "
             "(5,) giving (4, 5), not of one operand's.",
             wrong=lambda: (4, (2, 0), (3,))),
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


def _queries_and_keys():
    q = torch.arange(2 * 3 * 4, dtype=torch.float64).reshape(2, 3, 4) / 10
    k = torch.arange(2 * 5 * 4, dtype=torch.float64).reshape(2, 5, 4) / 20 - 1
    return (q, k)


def pairwise_scores(q, k):
    return q @ k.transpose(-2, -1)  # k's rows become columns: a view, no copy


Exercise(
    "11-pairwise-scores",
    "q has shape (2, 3, 4) (2 batches of 3 vectors) and k shape (2, 5, 4) (2 batches of 5 "
    "vectors). Write f(q, k) returning shape (2, 3, 5) with out[b, i, j] = the dot product "
    "of q[b, i] and k[b, j].",
    pairwise_scores, inputs=_queries_and_keys,
    hints=[
        Hint("k.reshape(2, 4, 5) has the right shape but not the right values: reshape keeps "
             "the memory order, so its columns are not k's rows. Swap the last two dims: "
             "k.transpose(-2, -1).",
             wrong=lambda q, k: q @ k.reshape(2, 4, 5)),
        Hint("Rows are q's vectors and columns k's: (2, 3, 5), so q comes first: "
             "q @ k.transpose(-2, -1).",
             wrong=lambda q, k: k @ q.transpose(-2, -1)),
    ])


def quiz_11():
    try:
        torch.bmm(torch.ones(2, 3, 4), torch.ones(1, 4, 5))
        broadcasts = True
    except RuntimeError:
        broadcasts = False
    a = torch.ones(7, 1, 3, 4)
    folded = a.expand(7, 5, 3, 4).reshape(35, 3, 4)
    is_view = folded.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    return (10, broadcasts, is_view)


Exercise(
    "11-quiz",
    "Self-check. (1) The batch size of the one bmm that torch.ones(2, 1, 3, 4) @ "
    "torch.ones(5, 4, 2) runs (an int). (2) Does torch.bmm broadcast batch sizes 2 and 1? "
    "(a bool) (3) For a of shape (7, 1, 3, 4) and b of shape (5, 4, 6), is the 3-D operand "
    "that a @ b folds a into a view of a? (a bool) Answer a tuple of the three.",
    quiz_11,
    hints=[
        Hint("(1) Batch dims (2, 1) and (5,) broadcast to (2, 5): one bmm over 2 * 5 = 10 "
             "matrices.",
             wrong=lambda: (2, False, False)),
        Hint("(2) bmm never broadcasts: both batch sizes must be equal.",
             wrong=lambda: (10, True, False)),
        Hint("(3) a is expanded to (7, 5, 3, 4) with a stride of 0; merging that dim with the "
             "7 cannot be written with one stride, so reshape copies: 5 copies of each "
             "matrix of a.",
             wrong=lambda: (10, False, True)),
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
