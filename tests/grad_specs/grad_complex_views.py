"""Gradient specs of the complex views and constructors (jtensor/autograd/formulas/extras.py):
complex outputs are returned with their real and imaginary parts, so gradcheck checks both."""

from tests.harness.gradients import G, NonDiff


def _z(lib, a, b):
    return a + b * lib.tensor(1j, dtype=lib.complex128)


def _parts(y):
    return y, y.real, y.imag


GRADS = [
    G("view_as_real", lambda lib, a, b: lib.view_as_real(_z(lib, a, b)), [(3, 4), (3, 4)]),
    G(
        "view_as_real",
        lambda lib, a, b: lib.view_as_real(_z(lib, a, b).t()[1:]),
        [(3, 4), (3, 4)],
        variants=False,
    ),
    G(
        "view_as_complex",
        lambda lib, a: _parts(lib.view_as_complex(a.reshape(6, 2))),
        [(3, 4)],
        variants=False,
    ),  # a strided leaf cannot be viewed as pairs (as PyTorch)
    G(
        "view_as_complex",
        lambda lib, a: _parts(lib.view_as_complex(a[:, 2:]) ** 2),
        [(3, 4)],
        variants=False,
    ),
    G("complex", lambda lib, a, b: _parts(lib.complex(a, b)), [(3, 4), (3, 4)]),
    G("complex", lambda lib, a, b: _parts(lib.complex(a, b) ** 2), [(3, 4), (4,)]),
    G("polar", lambda lib, a, b: _parts(lib.polar(a, b)), [(3, 4), (3, 4)], low=0.5),
    G("polar", lambda lib, a, b: _parts(lib.polar(a, b) ** 2), [(3, 1), (4,)], low=0.5),
    NonDiff("isreal", "a bool result"),
]
