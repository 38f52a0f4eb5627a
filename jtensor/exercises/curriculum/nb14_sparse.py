"""Exercises of notebook 14_sparse.ipynb (sparse COO).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def coalesce_counts():
    d = torch.sparse_coo_tensor(torch.tensor([[2, 0, 2, 2]]), torch.tensor([1., 2., 3., 4.]), (4,))
    return (d._nnz(), d.coalesce()._nnz(), d.to_dense().tolist())


Exercise(
    "14-coalesce",
    "d = torch.sparse_coo_tensor(torch.tensor([[2, 0, 2, 2]]), torch.tensor([1., 2., 3., 4.]), "
    "(4,)). Answer the tuple (d._nnz(), d.coalesce()._nnz(), d.to_dense().tolist()).",
    coalesce_counts,
    hints=[
        Hint("coalesce() merges the entries that share a coordinate: three entries sit at "
             "position 2, so the coalesced tensor keeps one for position 2 and one for 0.",
             wrong=lambda: (4, 4, [2.0, 0.0, 8.0, 0.0])),
        Hint("Entries at the same coordinate are summed, not overwritten: position 2 holds "
             "1 + 3 + 4.",
             wrong=lambda: (4, 2, [2.0, 0.0, 4.0, 0.0])),
        Hint("_nnz() counts stored entries, duplicates included, until you coalesce.",
             wrong=lambda: (2, 2, [2.0, 0.0, 8.0, 0.0])),
    ])


def _a_sparse_matrix():
    i = torch.tensor([[0, 1, 1, 3], [2, 0, 2, 1]])
    return (torch.sparse_coo_tensor(i, torch.tensor([3.0, 4.0, 5.0, 6.0]), (4, 7)),)


def coo_bytes(s):
    idx, val = s._indices(), s._values()
    return idx.numel() * idx.element_size() + val.numel() * val.element_size()


Exercise(
    "14-coo-bytes",
    "Write f(s) for a sparse COO tensor s: return how many bytes its indices and values "
    "take together.",
    coo_bytes, inputs=_a_sparse_matrix,
    hints=[
        Hint("That is the dense size (every position, zeros included). Count only what the "
             "COO tensor stores: s._indices() and s._values().",
             wrong=lambda s: s.numel() * s.element_size()),
        Hint("The coordinates cost memory too: add s._indices() (int64, 8 bytes each, "
             "sparse_dim of them per entry).",
             wrong=lambda s: s._values().numel() * s._values().element_size()),
        Hint("Indices are int64 (8 bytes each), whatever the values' dtype: use "
             "s._indices().element_size(), not the values' element size.",
             wrong=lambda s: (s._indices().numel() + s._values().numel()) * s.element_size()),
    ])


def quiz_14():
    s = torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 1]]), torch.tensor([1.0, 2.0]),
                                (3, 4))
    merged = s.coalesce().values().tolist() == [3.0]
    t = torch.zeros(3, 4)
    t[0, :] = 1
    t[1, 0] = 1
    return (str(s._indices().dtype).split(".")[1], "sum" if merged else "keep last",
            tuple(t.to_sparse()._indices().shape))


Exercise(
    "14-quiz",
    "Self-check. (1) The dtype of a COO tensor's indices (a string such as 'int32'). (2) What "
    "coalesce() does with duplicate coordinates: 'sum', 'keep first' or 'keep last'? (3) The "
    "shape of the indices of a (3, 4) tensor with 5 nonzeros, made sparse with to_sparse() "
    "(a tuple). Answer a tuple of the three.",
    quiz_14,
    hints=[
        Hint("(1) COO indices are always int64.",
             wrong=lambda: ("int32", "sum", (2, 5))),
        Hint("(2) Duplicates add up: that is what makes uncoalesced tensors useful.",
             wrong=lambda: ("int64", "keep last", (2, 5))),
        Hint("(3) indices is (sparse_dim, nnz): one row per dimension, one column per nonzero.",
             wrong=lambda: ("int64", "sum", (5, 2))),
    ])
