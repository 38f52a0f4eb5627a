"""Gradient specs of the NumPy-style splits (jtensor/autograd/formulas/extras.py)."""

from tests.harness.gradients import G, NonDiff

GRADS = [
    G("hsplit", lambda lib, a: lib.hsplit(a, 2), [(3, 4)]),
    G("hsplit", lambda lib, a: lib.hsplit(a, [1, 3]), [(3, 4)]),
    G("hsplit", lambda lib, a: a.hsplit(3, 1)[:2], [(4,)], variants=False),
    G("vsplit", lambda lib, a: lib.vsplit(a, [1]), [(3, 4)]),
    G("vsplit", lambda lib, a: a.vsplit(2)[1], [(4, 3)]),
    G("dsplit", lambda lib, a: lib.dsplit(a, 2), [(2, 2, 4)], variants=False),
    G("split_with_sizes", lambda lib, a: lib.split_with_sizes(a, [1, 2]), [(3, 4)]),
    G("split_with_sizes", lambda lib, a: a.split_with_sizes([3, 0, 1], 1)[2], [(3, 4)]),
    G("row_stack", lambda lib, a, b: lib.row_stack([a, b]), [(3, 4), (4,)]),
    NonDiff("unravel_index", "integer coordinates"),
]
