"""Gradient specs of ``_ops/matrix_extras.py`` (jtensor/autograd/formulas/extras.py):
diagflat, fill_diagonal_, rsub and gradient (the transposed stencils)."""

from tests.harness.gradients import G


def _coords(lib, rng):
    x = lib.tensor(rng.uniform(-2, 2, size=(4, 5)), dtype=lib.float64, requires_grad=True)
    a = lib.tensor([0.0, 1.0, 3.0, 3.5], dtype=lib.float64)
    b = lib.tensor([-1.0, 0.0, 0.25, 2.0, 5.0], dtype=lib.float64)
    return x, a, b


GRADS = [
    G("diagflat", lambda lib, a: lib.diagflat(a), [(2, 3)]),
    G("diagflat", lambda lib, a: lib.diagflat(a, -2), [(4,)]),
    G("fill_diagonal_", lambda lib, a: (a * 1).fill_diagonal_(2.0), [(3, 4)], variants=False),
    G(
        "fill_diagonal_",
        lambda lib, a: (a * 1).fill_diagonal_(0.5, wrap=True),
        [(7, 3)],
        variants=False,
    ),
    G("fill_diagonal_", lambda lib, a: (a * 1).fill_diagonal_(-1), [(3, 3, 3)], variants=False),
    G("rsub", lambda lib, a: lib.rsub(a, 2.5), [(3, 4)]),
    G("rsub", lambda lib, a, b: lib.rsub(a, b, alpha=3), [(3, 4), (4,)]),
    G("gradient", lambda lib, a: lib.gradient(a), [(4, 5)]),
    G("gradient", lambda lib, a: lib.gradient(a, edge_order=2, spacing=0.5), [(4, 5)]),
    G("gradient", lambda lib, a: lib.gradient(a, dim=1, spacing=[2.0]), [(3, 4)]),
    G("gradient", lambda lib, a: lib.gradient(a, spacing=[1, 3], edge_order=2)[1], [(3, 4)]),
    G("gradient", lambda lib, a: lib.gradient(a, dim=0)[0], [(2, 3)]),
    G("gradient", lambda lib, x, a, b: lib.gradient(x, spacing=[a, b]), make=_coords),
    G("gradient", lambda lib, x, a, b: lib.gradient(x, spacing=[a, b], edge_order=2), make=_coords),
]
