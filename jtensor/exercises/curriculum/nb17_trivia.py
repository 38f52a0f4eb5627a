"""Exercises of notebook 17_trivia.ipynb (trivia).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""


import jtensor as torch

from .. import Exercise, Hint


def _small():
    return (torch.tensor([1, 2, 3]),)


def like_numpy_repeat(x):
    return x.repeat_interleave(2)


Exercise(
    "17-numpy-repeat",
    "Write f(x) giving what np.repeat(x, 2) gives for a 1-D x: each element twice in a row "
    "([1, 1, 2, 2, 3, 3]).",
    like_numpy_repeat, inputs=_small,
    hints=[
        Hint("Tensor.repeat tiles the whole tensor (like np.tile): [1, 2, 3, 1, 2, 3]. "
             "repeat_interleave repeats each element.",
             wrong=lambda x: x.repeat(2)),
    ])


def _rows():
    return (torch.arange(6).reshape(2, 3),)


def tile_rows(x):
    return x.repeat(2, 1)


Exercise(
    "17-tile-rows",
    "x has shape (2, 3). Write f(x) returning shape (4, 3): x's two rows, then the same two "
    "rows again (like np.tile(x, (2, 1))).",
    tile_rows, inputs=_rows,
    hints=[
        Hint("repeat_interleave(2, dim=0) doubles each row in place (row0, row0, row1, "
             "row1); the whole block twice is x.repeat(2, 1).",
             wrong=lambda x: x.repeat_interleave(2, dim=0)),
        Hint("x.repeat(2) on a 2-D tensor is an error: repeat needs one count per dim, "
             "x.repeat(2, 1).",
             wrong=lambda x: x.repeat(2)),
    ])


def _mask_case():
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, -0.5, 1.5]])
    return (x, x > 1)


def select_masked(x, mask):
    return torch.masked_select(x, mask)


Exercise(
    "17-masked-select",
    "Write f(x, mask) returning the elements of x where mask is True, as a 1-D tensor, "
    "with torch.masked_select.",
    select_masked, inputs=_mask_case,
    hints=[
        Hint("masked_select takes the input first and the mask second: "
             "torch.masked_select(x, mask).",
             wrong=lambda x, mask: torch.masked_select(mask, x)),
        Hint("x * mask keeps the shape and puts zeros where mask is False; masked_select "
             "returns only the selected elements, flattened.",
             wrong=lambda x, mask: x * mask),
    ])


def quiz_17():
    return (torch.tensor([1, 2]).repeat(2).tolist(), "input, mask", False)


Exercise(
    "17-quiz",
    "Self-check. (1) torch.tensor([1, 2]).repeat(2).tolist() (a list). (2) The argument order "
    "of torch.masked_select: 'input, mask' or 'mask, input'? (3) Does "
    "torch.cuda.empty_cache() free memory held by tensors you still use? (a bool) Answer a "
    "tuple of the three.",
    quiz_17,
    hints=[
        Hint("(1) Tensor.repeat tiles the whole tensor, like np.tile.",
             wrong=lambda: ([1, 1, 2, 2], "input, mask", False)),
        Hint("(2) Like most torch functions, the input comes first.",
             wrong=lambda: ([1, 2, 1, 2], "mask, input", False)),
        Hint("(3) empty_cache only returns cached blocks no tensor uses.",
             wrong=lambda: ([1, 2, 1, 2], "input, mask", True)),
    ])


def _table_and_ids():
    return (torch.arange(10.0).reshape(5, 2), torch.tensor([1, 5, 3]))


def lookup_one_based(table, ids):
    return table[ids - 1]  # ids count from 1; rows from 0


Exercise(
    "17-debug-index",
    "Debug this: the ids are numbered from 1 (1 to 5) and lookup(table, ids) = table[ids] with "
    "a (5, 2) table raises IndexError (index 5 is out of bounds for dimension 0 with size 5). "
    "Write the fixed function: the rows of ids 1, 5 and 3.",
    lookup_one_based, inputs=_table_and_ids,
    hints=[
        Hint("Rows are numbered from 0: id 5 is row 4. That out-of-range row is the error you "
             "are fixing: subtract 1.",
             wrong=lambda table, ids: table[ids]),
        Hint("Clamping hides the error but reads the wrong rows (id 1 gives row 1, the second "
             "row): shift every id by one instead.",
             wrong=lambda table, ids: table[ids.clamp(max=table.shape[0] - 1)]),
    ])
