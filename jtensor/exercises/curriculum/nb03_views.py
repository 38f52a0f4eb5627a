"""Exercises of notebook 03_views.ipynb (views vs copies).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def which_share():
    x = torch.arange(12.).reshape(3, 4)

    def shares(t):
        return t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()

    return tuple(shares(t) for t in (x.t(), x[:, ::2].reshape(-1), x.t().reshape(-1),
                                     x[[0, 1]], x[0:2]))


Exercise(
    "03-shares",
    "x = torch.arange(12.).reshape(3, 4). Which of x.t(), x[:, ::2].reshape(-1), "
    "x.t().reshape(-1), x[[0, 1]], x[0:2] share memory with x? Answer a tuple of five bools.",
    which_share,
    hints=[
        Hint("x[:, ::2] is evenly spaced (stride 2 across the rows too), so reshape(-1) can "
             "return a view: check with untyped_storage().data_ptr().",
             wrong=lambda: (True, False, False, False, True)),
        Hint("A list of indices is advanced indexing, which copies, even when the rows it "
             "picks (0 and 1) happen to be adjacent.",
             wrong=lambda: (True, True, False, True, True)),
        Hint("x.t() is a view, but flattening it needs the column order, which x's memory "
             "does not have: reshape copies there.",
             wrong=lambda: (True, True, True, False, True)),
    ])


def _grid_and_rows():
    return (torch.arange(12.).reshape(4, 3), [0, 2])


def zero_rows(x, rows):
    x[rows] = 0
    return x


def _zero_rows_in_copy(x, rows):
    x[rows][:] = 0
    return x


def _zero_rows_out_of_place(x, rows):
    y = x.clone()
    y[rows] = 0
    return y


Exercise(
    "03-zero-rows",
    "Write f(x, rows) that sets the rows of x listed in rows to 0, in x itself, and returns x.",
    zero_rows, inputs=_grid_and_rows,
    rules=("type", "shape", "dtype", "values", "shares"),
    hints=[
        Hint("x[rows] with a list is a copy, so x[rows][:] = 0 writes into that copy: assign "
             "in one step, x[rows] = 0.",
             wrong=_zero_rows_in_copy),
        Hint("The values are right, but in a copy: write into x itself (x[rows] = 0) and "
             "return x.",
             wrong=_zero_rows_out_of_place),
    ])


def _square():
    return (torch.arange(6.).reshape(2, 3),)


def column_order(x):
    return x.t().reshape(-1)  # = x.t().contiguous().view(-1)


Exercise(
    "03-column-order",
    "Write f(x) returning the elements of the 2-D tensor x column by column, as a 1-D "
    "tensor ([[0, 1], [2, 3]] gives [0, 2, 1, 3]).",
    column_order, inputs=_square,
    rules=("type", "shape", "dtype", "values"),
    hints=[
        Hint("reshape(-1) reads x in row order; transpose first: x.t().reshape(-1).",
             wrong=lambda x: x.reshape(-1)),
    ])


def quiz_03():
    x = torch.zeros(2, 3)
    c = x.t().contiguous()
    v = x[0]
    v.fill_(1)
    try:
        x.t().view(6)
        raises = "reshape"
    except RuntimeError:
        raises = "view"
    return (c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
            x[0, 0].item() == 1, raises)


Exercise(
    "03-quiz",
    "Self-check, x = torch.zeros(2, 3). (1) Does x.t().contiguous() share x's memory? (a bool) "
    "(2) After v = x[0]; v.fill_(1), is x[0, 0] equal to 1? (a bool) (3) Which of 'view' and "
    "'reshape' raises when asked for shape (6,) on x.t()? Answer a tuple of the three.",
    quiz_03,
    hints=[
        Hint("(1) x.t() is not contiguous, so contiguous() must copy into new memory.",
             wrong=lambda: (True, True, "view")),
        Hint("(2) Indexing with an int is a view: writing through v writes into x.",
             wrong=lambda: (False, False, "view")),
        Hint("(3) reshape copies when it must; view never copies, so it is view that refuses.",
             wrong=lambda: (False, True, "reshape")),
    ])


def _wide():
    return (torch.arange(6.0).reshape(2, 3),)


def flatten_columns(x):
    return x.t().reshape(-1)  # x.t().contiguous().view(-1) is the same copy


Exercise(
    "03-debug-view",
    "Debug this: flatten_columns(x) = x.t().view(-1) should list a 2-D x column by column but "
    "raises RuntimeError (view size is not compatible with input tensor's size and stride). "
    "Write the fixed function.",
    flatten_columns, inputs=_wide,
    hints=[
        Hint("x.t() is not contiguous, so view cannot flatten it: that is the error you are "
             "fixing. reshape(-1) copies when it must.",
             wrong=lambda x: x.t().view(-1)),
        Hint("x.view(-1) runs, but it lists x row by row: the transpose is lost. Flatten x.t().",
             wrong=lambda x: x.view(-1)),
    ])
