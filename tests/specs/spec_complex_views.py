"""Specs of the complex views and constructors (``_ops/complex_views.py``): view_as_real,
view_as_complex, complex, polar, isreal, is_conj, is_neg."""

import numpy as np

from tests.harness.conformance import OpSpec, T, arr
from .spec_reductions import case, x34


def c34(lib):
    return T(lib, arr(3, 4) + 1j * arr(3, 4, seed=1), "complex64")


def c34d(lib):
    return T(lib, arr(3, 4) + 1j * arr(3, 4, seed=1), "complex128")


def two(lib):
    return T(lib, arr(3, 4)), T(lib, arr(3, 4, seed=1))


def two_double(lib):
    return T(lib, arr(3, 4), "float64"), T(lib, arr(3, 4, seed=1), "float64")


def mixed_reals(lib):
    values = np.array([1.0, 0.0, -2.0, 3.0], dtype=np.complex64)
    values.imag = [0.0, 1.0, 0.0, -0.0]
    return T(lib, values)


SPECS = [
    OpSpec(
        "view_as_real",
        [
            case(lambda lib, z: lib.view_as_real(z), c34),
            case(lambda lib, z: lib.view_as_real(z[:, 1:]), c34, "offset"),
            case(lambda lib, z: lib.view_as_real(z.t()), c34d, "transposed"),
            case(lambda lib, z: lib.view_as_real(z[:, ::2]), c34d, "strided"),
            case(lambda lib, z: lib.view_as_real(z[0, 1]), c34, "0d"),
            case(lambda lib, z: lib.view_as_real(z[:0]), c34, "empty"),
            case(lambda lib, x: lib.view_as_real(x), x34, "real-error"),
            case(lambda lib, z: lib.view_as_real(z.expand(2, 3, 4)), c34, "expanded"),
        ],
    ),
    OpSpec(
        "view_as_complex",
        [
            case(lambda lib, x: lib.view_as_complex(x.reshape(6, 2))),
            case(lambda lib, x: lib.view_as_complex(x[:, :2]), name="strided"),
            case(lambda lib, x: lib.view_as_complex(x[:, 2:]), name="even-offset"),
            case(lambda lib, x: lib.view_as_complex(x.double().reshape(3, 2, 2)), name="double-3d"),
            case(lambda lib, x: lib.view_as_complex(x[0, :2]), name="to-0d"),
            case(lambda lib, x: lib.view_as_complex(x.reshape(-1, 2)[1]), name="0d-odd-pair"),
            case(lambda lib, x: lib.view_as_complex(x), name="last-dim-error"),
            case(lambda lib, x: lib.view_as_complex(x[:, 1:3]), name="odd-offset-error"),
            case(lambda lib, x: lib.view_as_complex(x[:, ::2][:, :2]), name="last-stride-error"),
            case(lambda lib, x: lib.view_as_complex(x.t()[:, :2]), name="transposed-error"),
            case(
                lambda lib, x: lib.view_as_complex(x.reshape(2, 3, 2)[:, ::2][:1]),
                name="odd-stride-ok",
            ),
            case(
                lambda lib, x: lib.view_as_complex(x.reshape(4, 3)[:, :2].reshape(4, 2)[:, :]),
                name="stride-3-error",
            ),
            case(lambda lib, x: lib.view_as_complex(x.int()[:, :2]), name="int-error"),
            case(lambda lib, x: lib.view_as_complex(x.bfloat16()[:, :2]), name="bfloat16-error"),
            case(lambda lib, x: lib.view_as_complex(x[0, 0]), name="0d-error"),
            case(lambda lib, x: lib.view_as_real(lib.view_as_complex(x[:, :2])), name="round-trip"),
        ],
    ),
    OpSpec(
        "complex",
        [
            case(lambda lib, a, b: lib.complex(a, b), two),
            case(lambda lib, a, b: lib.complex(a, b), two_double, "double"),
            case(lambda lib, a, b: lib.complex(a, b[0]), two, "broadcast"),
            case(lambda lib, a, b: lib.complex(a.t(), b.t()), two, "transposed"),
            case(
                lambda lib, a, b: lib.complex(a, b, out=lib.empty(0, dtype=lib.complex64)),
                two,
                "out",
            ),
            case(lambda lib, a, b: lib.complex(a, b.double()), two, "mixed-error"),
            case(lambda lib, a, b: lib.complex(a.int(), b.int()), two, "int-error"),
            case(lambda lib, a, b: lib.complex(real=a, imag=b), two, "keywords"),
            case(lambda lib, a, b: lib.complex(a, b, out=lib.empty(0)), two, "real-out-error"),
            case(
                lambda lib, a, b: lib.complex(a, b, out=lib.empty(3, 4, dtype=lib.complex128)),
                two,
                "wider-out",
            ),
        ],
    ),
    OpSpec(
        "polar",
        [
            case(lambda lib, a, b: lib.polar(a.abs(), b), two),
            case(lambda lib, a, b: lib.polar(a, b), two_double, "double-negative-abs"),
            case(lambda lib, a, b: lib.polar(a[:1], b), two, "broadcast"),
            case(lambda lib, a, b: lib.polar(abs=a, angle=b), two, "keywords"),
            case(lambda lib, a, b: lib.polar(a, b.double()), two, "mixed-error"),
            case(lambda lib, a, b: lib.polar(a.long(), b.long()), two, "int-error"),
            case(
                lambda lib, a, b: lib.polar(a, b, out=lib.empty(0, dtype=lib.complex64)), two, "out"
            ),
        ],
    ),
    OpSpec(
        "isreal",
        [
            case(lambda lib, z: lib.isreal(z), mixed_reals),
            case(lambda lib, z: z.isreal(), c34, "method"),
            case(lambda lib, x: lib.isreal(x), name="float"),
            case(lambda lib, x: lib.isreal(x.int().t()), name="int-transposed"),
            case(lambda lib, x: lib.isreal(x > 0), name="bool"),
            case(
                lambda lib: lib.isreal(
                    lib.tensor(
                        [complex(1, float("nan")), complex(float("nan"), 0), complex(0, -0.0)]
                    )
                ),
                None,
                "nan-and-negative-zero",
            ),
        ],
    ),
    OpSpec(
        "is_conj",
        [
            case(lambda lib, x: x.is_conj()),
            case(lambda lib, z: lib.is_conj(z.conj().resolve_conj()), c34, "resolved"),
            case(lambda lib, x: x.conj().is_conj(), name="real-conj"),
        ],
    ),
    OpSpec(
        "is_neg",
        [
            case(lambda lib, x: x.is_neg()),
            case(lambda lib, z: lib.is_neg(z), c34, "complex"),
        ],
    ),
]
