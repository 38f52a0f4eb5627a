"""Exercises of notebook 02_storage.ipynb (storage, shape, stride).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def address_of_element():
    m = torch.arange(24.).reshape(2, 3, 4)
    v = m[1, 1:, ::3]
    return v.storage_offset() + 1 * v.stride(0) + 1 * v.stride(1)


Exercise(
    "02-address",
    "m = torch.arange(24.).reshape(2, 3, 4) and v = m[1, 1:, ::3]. Which storage cell holds "
    "v[1, 1]? Answer an int.",
    address_of_element,
    hints=[
        Hint("1*4 + 1*3 counts the steps inside v but forgets where v starts: v's offset is "
             "1*12 + 1*4 = 16 (m[1, 1, 0]).",
             wrong=lambda: 7),
        Hint("The column stride of v is 3 (every third column of a stride-1 dimension), not "
             "1: offset 16 + 1*4 + 1*3.",
             wrong=lambda: 21),
    ])


def _signal():
    return (torch.arange(5.),)


def sliding_pairs(x):
    return torch.as_strided(x, (x.numel() - 1, 2), (1, 1))  # or x.unfold(0, 2, 1)


Exercise(
    "02-sliding-pairs",
    "x is a contiguous 1-D tensor of length n. Write f(x) returning a view of shape (n - 1, 2) "
    "whose row k is (x[k], x[k + 1]), without copying.",
    sliding_pairs, inputs=_signal,
    rules=("type", "shape", "dtype", "values", "shares"),
    hints=[
        Hint("torch.stack builds the pairs from two slices but copies them into new memory: "
             "the same layout as a view is stride (1, 1), e.g. x.unfold(0, 2, 1).",
             wrong=lambda x: torch.stack([x[:-1], x[1:]], dim=1)),
        Hint("A row stride of 2 makes the pairs disjoint ((x0, x1), (x2, x3), ...); sliding "
             "windows move by one element: stride (1, 1).",
             wrong=lambda x: torch.as_strided(x, (x.numel() - 1, 2), (2, 1))),
    ])


def _six():
    return (torch.arange(6.),)


def column_major(x):
    return x.view(3, 2).t()  # = torch.as_strided(x, (2, 3), (1, 2))


Exercise(
    "02-column-major",
    "x is torch.arange(6.). Write f(x) returning a (2, 3) view of x whose columns are "
    "consecutive in memory: [[x0, x2, x4], [x1, x3, x5]].",
    column_major, inputs=_six,
    rules=("type", "shape", "dtype", "values", "stride", "shares"),
    hints=[
        Hint("x.view(2, 3) is row-major: its ROWS are consecutive. Lay x out as (3, 2) "
             "and transpose: x.view(3, 2).t(), strides (1, 2).",
             wrong=lambda x: x.view(2, 3)),
        Hint("contiguous() copies into a fresh row-major storage: the values are right but "
             "it no longer shares x's memory. Drop it.",
             wrong=lambda x: x.view(3, 2).t().contiguous()),
    ])


def quiz_02():
    return (tuple(torch.zeros(2, 3, 4).stride()), torch.zeros(3, 4).t().is_contiguous(),
            torch.arange(10)[3:].storage_offset())


Exercise(
    "02-quiz",
    "Self-check. (1) The strides of torch.zeros(2, 3, 4) (a tuple). (2) Is "
    "torch.zeros(3, 4).t() contiguous? (a bool) (3) The storage_offset() of "
    "torch.arange(10)[3:] (an int). Answer a tuple of the three.",
    quiz_02,
    hints=[
        Hint("(1) Row-major strides: the last dimension has stride 1, each other the product "
             "of the sizes to its right.",
             wrong=lambda: ((1, 2, 6), False, 3)),
        Hint("(2) t() swaps the strides without moving data: (1, 4) is not row-major.",
             wrong=lambda: ((12, 4, 1), True, 3)),
        Hint("(3) A slice starts later in the same storage: its offset is where it starts.",
             wrong=lambda: ((12, 4, 1), False, 0)),
    ])
