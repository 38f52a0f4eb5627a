"""Specs of ``torch.special``'s own functions and ``igamma``/``igammac``
(``jtensor/_ops/special.py``): values over wide ranges with their edges (0, +-inf, nan, poles,
branch boundaries), float32 (computed in float32 as PyTorch does) and float64, integer
promotion, the dtypes PyTorch's CPU refuses, ``out=``, layouts and 0-d inputs."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr

INF, NAN = float("inf"), float("nan")
EDGES = [
    -INF,
    -1e3,
    -100.0,
    -30.0,
    -26.7,
    -10.0,
    -6.1,
    -5.0,
    -2.09,
    -2.0,
    -1.0,
    -0.5,
    -1e-6,
    -0.0,
    0.0,
    1e-6,
    0.3,
    0.5,
    1.0,
    2.0,
    2.09,
    5.0,
    8.0,
    8.32,
    10.0,
    30.0,
    50.0,
    100.0,
    103.9,
    1e3,
    INF,
    NAN,
]
F64 = {"atol": 1e-15, "rtol": 1e-13}
F32 = {"atol": 1e-6, "rtol": 2e-5}


def wide(dtype="float64"):
    def make(lib):
        data = np.concatenate([EDGES, arr(60, dtype="float64", low=-12, high=12)])
        return (T(lib, data.astype(dtype)),)

    return make


def unit(dtype="float64"):
    def make(lib):
        data = np.concatenate(
            [
                [0.0, 1.0, -0.1, 1.1, 1e-300, 1 - 1e-16, 0.5, NAN],
                arr(40, dtype="float64", low=0, high=1, seed=3),
                np.exp(-arr(20, dtype="float64", low=2, high=700, seed=4)),
            ]
        )
        return (T(lib, data.astype(dtype)),)

    return make


def unary_cases(name, make=wide, half=True, extra=()):
    def f(lib, *a, **kw):
        return getattr(lib.special, name)(*a, **kw)

    cases = [
        Case(lambda lib, x: f(lib, x), make=make(), name="float64", **F64),
        Case(lambda lib, x: f(lib, x), make=make("float32"), name="float32", **F32),
        Case(lambda lib, x: f(lib, x), make=lambda lib: (lib.arange(-3, 4),), name="int", **F32),
        Case(
            lambda lib, x: f(lib, x.t()),
            make=lambda lib: (T(lib, arr(3, 4)),),
            name="transposed",
            **F32,
        ),
        Case(lambda lib, x: f(lib, x), make=lambda lib: (lib.tensor(0.7),), name="zero-dim", **F32),
        Case(
            lambda lib, x: f(lib, x, out=lib.empty(0)),
            make=lambda lib: (T(lib, arr(5)),),
            name="out",
            **F32,
        ),
        Case(lambda lib, x: f(lib, x), make=lambda lib: (T(lib, arr(2, 0)),), name="empty"),
        Case(
            lambda lib, x: f(lib, x),
            make=lambda lib: (T(lib, arr(4), dtype="complex64"),),
            name="complex-refused",
        ),
        Case(
            lambda lib, x: f(lib, x),
            make=lambda lib: (T(lib, arr(6), dtype="float16"),),
            name="float16",
            atol=2e-3,
            rtol=2e-3,
        ),
        Case(lambda lib, x: f(lib, [1.0]), make=lambda lib: (T(lib, arr(2)),), name="list-refused"),
    ]
    if half:
        cases.append(
            Case(
                lambda lib, x: f(lib, x),
                make=lambda lib: (T(lib, arr(6), dtype="bfloat16"),),
                name="bfloat16",
                atol=2e-2,
                rtol=2e-2,
            )
        )
    return cases + list(extra)


def pair(xs, ns, dtype="float64"):
    def make(lib):
        grid_x, grid_n = np.meshgrid(np.asarray(xs, "float64"), np.asarray(ns, "float64"))
        return (T(lib, grid_x.astype(dtype)), T(lib, grid_n.astype(dtype)))

    return make


POLY_X = [
    -INF,
    -10.0,
    -2.0,
    -1.0,
    -0.999,
    -0.5,
    -1e-3,
    0.0,
    1e-3,
    0.2,
    0.5,
    0.9,
    1.0,
    1.5,
    2.0,
    10.0,
    INF,
]
POLY_N = [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 2.7, NAN, INF]


def binary_cases(name, make64, make32, half=True, names=("input", "other"), tol32=F32, tol64=F64):
    def f(lib, *a, **kw):
        return getattr(lib.special, name)(*a, **kw)

    first, second = names
    cases = [
        Case(lambda lib, x, y: f(lib, x, y), make=make64, name="float64", **tol64),
        Case(lambda lib, x, y: f(lib, x, y), make=make32, name="float32", **tol32),
        Case(
            lambda lib, x, y: f(lib, x, y),
            make=lambda lib: (lib.arange(1, 5), lib.arange(4)),
            name="ints",
            **F32,
        ),
        Case(lambda lib, x, y: f(lib, x[:1], y), make=make32, name="broadcast", **tol32),
        Case(lambda lib, x, y: f(lib, 2.0, y), make=make32, name="number-first", **tol32),
        Case(lambda lib, x, y: f(lib, x, 3), make=make32, name="number-second", **tol32),
        Case(lambda lib, x, y: f(lib, x, y, out=lib.empty(0)), make=make32, name="out", **tol32),
        Case(
            lambda lib, x, y: f(lib, **{first: x, second: y}), make=make32, name="keywords", **tol32
        ),
        Case(lambda lib, x, y: f(lib, x, y.to(lib.complex64)), make=make32, name="complex-refused"),
        Case(lambda lib, x, y: f(lib, 2.0, 3.0), make=make32, name="two-numbers-refused"),
    ]
    if not half:
        cases.append(
            Case(lambda lib, x, y: f(lib, x.half(), y.half()), make=make32, name="float16-refused")
        )
    return cases


def polynomial(name, xs=POLY_X):
    # Large degrees at |x| < 1 go through acos/cos, whose float32 rounding the degree
    # amplifies: a looser float32 tolerance there.
    return OpSpec(
        f"special_{name}",
        binary_cases(
            name,
            pair(xs, POLY_N),
            pair(xs, POLY_N, "float32"),
            half=False,
            names=("x", "n"),
            tol32={"atol": 2e-4, "rtol": 2e-4},
            tol64={"atol": 1e-12, "rtol": 1e-12},
        ),
    )


def zeta_pairs(dtype="float64"):
    def make(lib):
        x = np.concatenate(
            [
                [1.0, 0.5, 2.0, 2.0, 2.0, 3.0, 2.5, 2.0, NAN, INF, 2.0],
                arr(40, dtype="float64", low=1.01, high=12, seed=5),
            ]
        )
        q = np.concatenate(
            [
                [1.0, 1.0, 0.0, -1.0, -1.5, -2.5, -1.5, 1e-3, 1.0, 1.0, INF],
                arr(40, dtype="float64", low=-5, high=20, seed=6),
            ]
        )
        return (T(lib, x.astype(dtype)), T(lib, q.astype(dtype)))

    return make


def gamma_pairs(dtype="float64", near=False):
    """(a, x) pairs; ``near``: a in (20, 200) close to x, where PyTorch's Temme expansion is
    accurate to about 1e-9 only (jtensor's series and fraction are exact there)."""

    def make(lib):
        if near:
            a = arr(30, dtype="float64", low=21, high=190, seed=7)
            x = a * (1 + arr(30, dtype="float64", low=-0.25, high=0.25, seed=8))
        else:
            a = np.concatenate(
                [
                    [0.0, 0.0, 1.0, 1.0, INF, INF, 2.0, -1.0, 1.0, NAN, 0.5, 1e-3, 5.0, 0.7, 3.0],
                    arr(40, dtype="float64", low=0, high=15, seed=7),
                    arr(20, dtype="float64", low=0, high=3, seed=9),
                ]
            )
            x = np.concatenate(
                [
                    [0.0, 1.0, 0.0, INF, 1.0, INF, -1.0, 1.0, NAN, 1.0, 0.3, 0.7, 1e-3, 0.45, 30.0],
                    arr(40, dtype="float64", low=0, high=40, seed=8),
                    arr(20, dtype="float64", low=0, high=3, seed=10),
                ]
            )
        return (T(lib, a.astype(dtype)), T(lib, x.astype(dtype)))

    return make


def gamma_cases(name):
    def f(lib, *a, **kw):
        return getattr(lib, name)(*a, **kw)

    return [
        Case(lambda lib, a, x: f(lib, a, x), make=gamma_pairs(), name="float64", **F64),
        Case(lambda lib, a, x: f(lib, a, x), make=gamma_pairs("float32"), name="float32", **F32),
        Case(
            lambda lib, a, x: f(lib, a, x),
            make=gamma_pairs(near=True),
            name="near-a-float64",
            atol=1e-12,
            rtol=1e-8,
        ),
        Case(
            lambda lib, a, x: a.__getattribute__(name)(x),
            make=gamma_pairs("float32"),
            name="method",
            **F32,
        ),
        Case(
            lambda lib, a, x: f(lib, a, x, out=lib.empty(0)),
            make=gamma_pairs("float32"),
            name="out",
            **F32,
        ),
        Case(
            lambda lib, a, x: f(lib, a.half(), x.half()),
            make=gamma_pairs("float32"),
            name="float16",
            atol=2e-3,
            rtol=2e-3,
        ),
        Case(
            lambda lib, a, x: f(lib, lib.arange(1, 4), lib.arange(3)),
            make=gamma_pairs(),
            name="int-refused",
        ),
        Case(lambda lib, a, x: f(lib, a, 2.0), make=gamma_pairs(), name="number-refused"),
        Case(lambda lib, a, x: f(lib, 2.0, x), make=gamma_pairs(), name="number-first-refused"),
        Case(
            lambda lib, a, x: getattr(lib.special, "gammainc" if name == "igamma" else "gammaincc")(
                a, x
            ),
            make=gamma_pairs("float32"),
            name="special-alias",
            **F32,
        ),
    ]


def gamma_inplace_cases(name):
    return [
        Case(
            lambda lib, a, x: getattr(a.clone(), name)(x), make=gamma_pairs(), name="float64", **F64
        ),
        Case(
            lambda lib, a, x: getattr(a.clone(), name)(x.float()),
            make=gamma_pairs(),
            name="float32-other",
            **F32,
        ),
        Case(
            lambda lib, a, x: getattr(a[:1].clone(), name)(x),
            make=gamma_pairs(),
            name="broadcast-refused",
        ),
    ]


SPECS = [
    OpSpec("special_i0e", unary_cases("i0e")),
    OpSpec("special_i1", unary_cases("i1")),
    OpSpec("special_i1e", unary_cases("i1e")),
    OpSpec("special_erfcx", unary_cases("erfcx", half=False)),
    OpSpec("special_ndtri", unary_cases("ndtri", make=unit, half=False)),
    OpSpec("special_log_ndtr", unary_cases("log_ndtr", half=False)),
    OpSpec("special_entr", unary_cases("entr")),
    OpSpec("special_bessel_j0", unary_cases("bessel_j0", half=False)),
    OpSpec("special_bessel_j1", unary_cases("bessel_j1", half=False)),
    OpSpec("special_bessel_y0", unary_cases("bessel_y0", half=False)),
    OpSpec("special_bessel_y1", unary_cases("bessel_y1", half=False)),
    OpSpec("special_modified_bessel_i0", unary_cases("modified_bessel_i0", half=False)),
    OpSpec("special_modified_bessel_i1", unary_cases("modified_bessel_i1", half=False)),
    OpSpec("special_modified_bessel_k0", unary_cases("modified_bessel_k0", half=False)),
    OpSpec("special_modified_bessel_k1", unary_cases("modified_bessel_k1", half=False)),
    OpSpec(
        "special_scaled_modified_bessel_k0", unary_cases("scaled_modified_bessel_k0", half=False)
    ),
    OpSpec(
        "special_scaled_modified_bessel_k1", unary_cases("scaled_modified_bessel_k1", half=False)
    ),
    OpSpec("special_spherical_bessel_j0", unary_cases("spherical_bessel_j0", half=False)),
    OpSpec("special_airy_ai", unary_cases("airy_ai", half=False)),
    OpSpec(
        "special_xlog1py",
        binary_cases(
            "xlog1py",
            pair([0.0, 1.0, -1.0, 2.5, NAN, -0.3], [NAN, -1.0, -2.0, 0.0, INF, 1.0, 3.5]),
            pair(
                [0.0, 1.0, -1.0, 2.5, NAN, -0.3], [NAN, -1.0, -2.0, 0.0, INF, 1.0, 3.5], "float32"
            ),
        ),
    ),
    OpSpec("special_zeta", binary_cases("zeta", zeta_pairs(), zeta_pairs("float32"), half=False)),
    polynomial("chebyshev_polynomial_t"),
    polynomial("chebyshev_polynomial_u"),
    polynomial("chebyshev_polynomial_v"),
    polynomial("chebyshev_polynomial_w"),
    polynomial("shifted_chebyshev_polynomial_t"),
    polynomial("shifted_chebyshev_polynomial_u"),
    polynomial("shifted_chebyshev_polynomial_v"),
    polynomial("shifted_chebyshev_polynomial_w"),
    polynomial("hermite_polynomial_h"),
    polynomial("hermite_polynomial_he"),
    polynomial("laguerre_polynomial_l"),
    polynomial("legendre_polynomial_p"),
    OpSpec("igamma", gamma_cases("igamma")),
    OpSpec("igammac", gamma_cases("igammac")),
    OpSpec("igamma_", gamma_inplace_cases("igamma_")),
    OpSpec("igammac_", gamma_inplace_cases("igammac_")),
]
