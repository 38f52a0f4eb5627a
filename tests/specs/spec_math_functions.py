"""Specs of the element-wise math functions (logaddexp, heaviside, gcd, nextafter, ldexp,
float_power, frexp, sinc) and the special functions (lgamma, digamma, polygamma, mvlgamma, i0):
dtypes, float16/bfloat16, layouts, broadcasting, out=, poles/infinities/nan and errors."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_arithmetic import (binary_cases, f34, i34, inplace_cases, nz34, with_sign,
                              zero_d)

NAN, INF = float("nan"), float("inf")

# Poles, signed zeros, infinities, nan, tiny and huge values, negative non-integers.
SPECIAL = np.array([0., -0., -1., -2., -2.5, -0.5, 0.5, 1., 2., 1e-8, -1e-8, 3.7, 10., 11.5,
                    171.6, 1e10, -1e10 - 0.5, 1e17, 1e300, INF, -INF, NAN, 1.4616321449683623,
                    -7.3, 25., 35., 89., 700., 720.], dtype="float64")


def fn(name):
    return lambda lib, a, b, **kw: getattr(lib, name)(a, b, **kw)


def meth(name):
    return lambda lib, a, b: getattr(a, name)(b)


def ints(lib, values, dtype="int64"):
    return T(lib, np.array(values, dtype=dtype))


def c(run, make=None, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def binary_spec(name, extra=()):
    return OpSpec(name, binary_cases(fn(name), scalar_first=True) + [
        c(lambda lib: getattr(f34(lib), name)(f34(lib, 1)), name="method"),
        c(lambda lib: getattr(i34(lib), name)(nz34(lib)), name="method-int"),
    ] + list(extra))


def inplace_spec(name, extra=()):
    g = meth(name)
    return OpSpec(name, inplace_cases(g) + [
        c(lambda lib: (lambda x: x is getattr(x, name)(f34(lib, 1)))(f34(lib)),
          name="returns-self"),
    ] + list(extra))


# ------------------------------------------------------------------------ binary

LOGADDEXP_EDGE = [
    c(lambda lib: lib.logaddexp(T(lib, [INF, -INF, INF, -INF, NAN, 1e30, -1e30]),
                                T(lib, [INF, -INF, -INF, 1., 1., 1e30, -1e30])),
      name="infinities"),
    c(lambda lib: lib.logaddexp(T(lib, arr(3, 4, dtype="complex64")),
                                T(lib, arr(3, 4, dtype="complex64", seed=1))),
      name="complex-complex"),
    c(lambda lib: lib.logaddexp(f34(lib).double(), f34(lib, 1).double()), name="float64",
      rtol=1e-12, atol=1e-12),
]
LOGADDEXP2_EDGE = [
    c(lambda lib: lib.logaddexp2(T(lib, [INF, -INF, INF, -INF, NAN, 1e30, -1e30]),
                                 T(lib, [INF, -INF, -INF, 1., 1., 1e30, -1e30])),
      name="infinities"),
]
HEAVISIDE_EXTRA = [
    c(lambda lib: lib.heaviside(T(lib, [0., -0., -1., 2., NAN, INF, -INF]), T(lib, [0.5])),
      name="zeros-nan-broadcast-values"),
    c(lambda lib: lib.heaviside(ints(lib, [0, -3, 4]), ints(lib, [7, 7, 7])), name="int"),
    c(lambda lib: lib.heaviside(f34(lib), f34(lib, 1).double()), name="different-dtypes"),
    c(lambda lib: lib.heaviside(f34(lib), 0.5), name="scalar-values"),
]
GCD_EXTRA = [
    c(lambda lib: lib.gcd(ints(lib, [0, -4, 6, -9, 0, 12, 7]), ints(lib, [0, 6, -4, -6, 5, 18, 0])),
      name="signs-and-zeros"),
    c(lambda lib: lib.gcd(ints(lib, [12, -8], "int16"), ints(lib, [18, 6], "int8")),
      name="int16-int8"),
    c(lambda lib: lib.gcd(f34(lib), f34(lib, 1)), name="float-refused"),
    c(lambda lib: lib.gcd(i34(lib), i34(lib, 1), out=lib.empty(3, 4, dtype=lib.int64)),
      name="out-int"),
]
LCM_EXTRA = [
    c(lambda lib: lib.lcm(ints(lib, [0, -4, 6, -9, 0, 12, 7]), ints(lib, [0, 6, -4, -6, 5, 18, 0])),
      name="signs-and-zeros"),
    c(lambda lib: lib.lcm(ints(lib, [4, 6], "uint8"), ints(lib, [6, 10], "uint8")), name="uint8"),
]
NEXTAFTER_EXTRA = [
    c(lambda lib: lib.nextafter(T(lib, [0., 1., 1., -0., INF, NAN, 1.]),
                                T(lib, [1., 0., 1., 1., 0., 1., NAN])),
      name="edge", rtol=0, atol=0),
    c(lambda lib: lib.nextafter(T(lib, [0., 1., 1., -0., 2.]).double(),
                                T(lib, [1., 0., 1., 1., INF]).double()),
      name="float64-exact", rtol=0, atol=0),
    c(lambda lib: lib.nextafter(T(lib, [1., 0., 2.]).half(), T(lib, [2., 1., 0.]).half()),
      name="float16-exact", rtol=0, atol=0),
    c(lambda lib: lib.nextafter(T(lib, [1., 0., 2.]).bfloat16(), T(lib, [2., 1., 0.]).bfloat16()),
      name="bfloat16-exact", rtol=0, atol=0),
]
LDEXP_EXTRA = [
    c(lambda lib: lib.ldexp(f34(lib), ints(lib, [1, -2, 3, 0])), name="int-exponent"),
    c(lambda lib: lib.ldexp(f34(lib).half(), ints(lib, [1, -2, 3, 0])), name="half-int-exponent",
      rtol=2e-3, atol=1e-3),
    c(lambda lib: lib.ldexp(T(lib, [1., 0., -1., INF]), ints(lib, [200, 5, -200, 1])),
      name="overflow-underflow"),
    c(lambda lib: lib.ldexp(ints(lib, [1, 2, 3]), ints(lib, [1, 2, 3])), name="int-int"),
]
FLOAT_POWER_EXTRA = [
    c(lambda lib: lib.float_power(f34(lib), 2), name="float-int-scalar-float64"),
    c(lambda lib: lib.float_power(2, i34(lib)), name="scalar-base"),
    c(lambda lib: lib.float_power(T(lib, [-2., 0., 4.]), T(lib, [0.5, -1., 0.5])),
      name="nan-and-inf"),
    c(lambda lib: lib.float_power(T(lib, arr(4, dtype="complex64")), 2), name="complex-scalar"),
    c(lambda lib: lib.float_power(f34(lib), 2.0j), name="complex-exponent"),
    c(lambda lib: lib.float_power(f34(lib), 2, out=lib.empty(3, 4)), name="out-float32-refused"),
    c(lambda lib: lib.float_power(f34(lib), 2, out=lib.empty(3, 4, dtype=lib.float64)),
      name="out-float64"),
    # A number exponent goes through pow's special cases (-0.5 is 1/sqrt); a tensor one not.
    c(lambda lib: with_sign(lib.float_power(
        T(lib, [-0., 0., -INF, INF, NAN, -4.]), -0.5)), name="rsqrt-edges"),
    c(lambda lib: with_sign(lib.float_power(
        T(lib, [-0., 0., -INF, INF, NAN, -4.]), 0.5)), name="sqrt-edges"),
    c(lambda lib: with_sign(lib.float_power(
        T(lib, [-0., 0., -INF, INF, NAN, -4.]), lib.tensor(0.5))), name="0d-tensor-half-is-pow"),
]


# ------------------------------------------------------------------------ unary

def unary_cases(name, *, special=True, complex_=False, tol64=1e-10):
    f = getattr
    cases = [
        c(lambda lib: f(lib, name)(f34(lib)), name="float32"),
        c(lambda lib: f(lib, name)(f34(lib).double()), name="float64", rtol=tol64, atol=1e-12),
        c(lambda lib: f(lib, name)(i34(lib)), name="int64-to-float"),
        c(lambda lib: f(lib, name)(T(lib, arr(3, 4, dtype="uint8", low=0, high=9))),
          name="uint8"),
        c(lambda lib: f(lib, name)(T(lib, arr(3, 4, dtype="bool"))), name="bool"),
        c(lambda lib: f(lib, name)(f34(lib).half()), name="float16", rtol=3e-3, atol=2e-3),
        c(lambda lib: f(lib, name)(f34(lib).bfloat16()), name="bfloat16", rtol=2e-2, atol=2e-2),
        c(lambda lib: f(lib, name)(f34(lib).t()), name="transposed"),
        c(lambda lib: f(lib, name)(f34(lib)[:, ::2]), name="strided"),
        c(lambda lib: f(lib, name)(f34(lib)[:0]), name="empty"),
        c(lambda lib: f(lib, name)(zero_d(lib, 2.5, "float32")), name="0d"),
        c(lambda lib: f(lib, name)(f34(lib), out=lib.empty(3, 4)), name="out"),
        c(lambda lib: f(lib, name)(f34(lib), out=lib.empty(0)), name="out-resized"),
        c(lambda lib: f(lib, name)(f34(lib), out=lib.empty(4, 3).t()), name="out-transposed"),
        c(lambda lib: f(lib, name)(f34(lib), out=lib.empty(3, 4, dtype=lib.int64)),
          name="out-int-refused"),
        c(lambda lib: f(lib, name)(i34(lib), out=lib.empty(3, 4, dtype=lib.float64)),
          name="out-float64"),
        c(lambda lib: getattr(f34(lib), name)(), name="method"),
        c(lambda lib: f(lib, name)(T(lib, arr(4, dtype="complex64"))), name="complex"),
        c(lambda lib: f(lib, name)(3.0), name="number-refused"),
    ]
    if special:
        cases += [
            c(lambda lib: f(lib, name)(T(lib, SPECIAL)), name="special-float64", rtol=tol64,
              atol=1e-12),
            c(lambda lib: f(lib, name)(T(lib, SPECIAL).float()), name="special-float32"),
        ]
    return cases


def unary_inplace_cases(name):
    return [
        c(lambda lib: getattr(f34(lib), name)(), name="float32"),
        c(lambda lib: getattr(f34(lib).double(), name)(), name="float64", rtol=1e-10,
          atol=1e-12),
        c(lambda lib: getattr(f34(lib).t(), name)(), name="transposed"),
        c(lambda lib: getattr(f34(lib).half(), name)(), name="float16", rtol=3e-3, atol=2e-3),
        c(lambda lib: getattr(i34(lib), name)(), name="int-refused"),
        c(lambda lib: (lambda x: x is getattr(x, name)())(f34(lib)), name="returns-self"),
        c(lambda lib: getattr(f34(lib)[0].expand(3, 4), name)(), name="expanded-refused"),
    ]


FREXP_INPUT = np.array([0., -0., 1.5, -3., INF, -INF, NAN, 1e-40, 1e30, 0.1], dtype="float32")

FREXP_CASES = [
    c(lambda lib: lib.frexp(f34(lib)), name="float32"),
    c(lambda lib: lib.frexp(T(lib, FREXP_INPUT)), name="edge"),
    c(lambda lib: lib.frexp(T(lib, FREXP_INPUT).double()), name="edge-float64"),
    c(lambda lib: lib.frexp(f34(lib).half()), name="float16"),
    c(lambda lib: lib.frexp(f34(lib).bfloat16()), name="bfloat16"),
    c(lambda lib: lib.frexp(f34(lib).t()), name="transposed"),
    c(lambda lib: lib.frexp(f34(lib)[:0]), name="empty"),
    c(lambda lib: f34(lib).frexp(), name="method"),
    c(lambda lib: lib.frexp(f34(lib)).mantissa, name="field-mantissa"),
    c(lambda lib: lib.frexp(f34(lib)).exponent, name="field-exponent"),
    c(lambda lib: lib.frexp(i34(lib)), name="int-refused"),
    c(lambda lib: lib.frexp(T(lib, arr(3, dtype="complex64"))), name="complex-refused"),
    c(lambda lib: tuple(lib.frexp(f34(lib), out=(lib.empty(3, 4),
                                                 lib.empty(3, 4, dtype=lib.int32)))),
      name="out"),
    c(lambda lib: lib.frexp(f34(lib), out=(lib.empty(0), lib.empty(0, dtype=lib.int32))),
      name="out-resized"),
    c(lambda lib: lib.frexp(f34(lib), out=(lib.empty(3, 4), lib.empty(3, 4, dtype=lib.int64))),
      name="out-int64-refused"),
    c(lambda lib: lib.frexp(f34(lib), out=(lib.empty(3, 4, dtype=lib.float64),
                                            lib.empty(3, 4, dtype=lib.int32))),
      name="out-float64-refused"),
]

POLY_X = np.array([0., -1., -2.5, 1e-3, INF, -INF, NAN, 5., 0.5, 1., 2.3, 30., -0.3, 1e5],
                  dtype="float64")


def polygamma_cases():
    cases = []
    for n in (0, 1, 2, 3, 5):
        cases += [
            c(lambda lib, n=n: lib.polygamma(n, T(lib, POLY_X)), name=f"n{n}-special",
              rtol=1e-9, atol=1e-12),
            c(lambda lib, n=n: lib.polygamma(n, f34(lib)), name=f"n{n}-float32", rtol=1e-4,
              atol=1e-5),
        ]
    cases += [
        c(lambda lib: lib.polygamma(1, i34(lib).abs()), name="int-to-float", rtol=1e-4),
        c(lambda lib: lib.polygamma(2, f34(lib).half()), name="float16", rtol=3e-3, atol=2e-2),
        c(lambda lib: lib.polygamma(1, f34(lib).t()), name="transposed", rtol=1e-4),
        c(lambda lib: lib.polygamma(2, f34(lib) + 4, out=lib.empty(3, 4)), name="out"),
        c(lambda lib: (f34(lib) + 4).polygamma(3), name="method"),
        c(lambda lib: lib.polygamma(-1, f34(lib)), name="negative-n"),
        c(lambda lib: lib.polygamma(1, T(lib, arr(3, dtype="complex64"))), name="complex"),
        c(lambda lib: lib.polygamma(2, T(lib, [-1e3 - 0.5, -20.25, 1e-5, 1e20]).double()),
          name="far-values", rtol=1e-8, atol=1e-12),
    ]
    return cases


MVLGAMMA_CASES = [
    c(lambda lib: lib.mvlgamma(f34(lib) + 5, 2), name="p2"),
    c(lambda lib: lib.mvlgamma(f34(lib).double() + 5, 4), name="p4-float64", rtol=1e-10),
    c(lambda lib: lib.mvlgamma(i34(lib) + 8, 3), name="int-to-float"),
    c(lambda lib: lib.mvlgamma(f34(lib).abs(), 1), name="p1-is-lgamma"),
    c(lambda lib: lib.mvlgamma(lib.tensor(2.5), 2), name="zero-dim"),
    c(lambda lib: lib.mvlgamma((f34(lib) + 5).t(), 2), name="transposed"),
    c(lambda lib: lib.mvlgamma(f34(lib) + 5, 2, out=lib.empty(3, 4)), name="out"),
    c(lambda lib: (f34(lib) + 5).mvlgamma(2), name="method"),
    c(lambda lib: lib.mvlgamma(f34(lib), 2), name="domain-error"),
    c(lambda lib: lib.mvlgamma(f34(lib) + 5, 0), name="p0-error"),
    c(lambda lib: lib.mvlgamma(T(lib, [True, True]), 1), name="bool-error"),
    c(lambda lib: lib.mvlgamma((f34(lib) + 5).half(), 2), name="float16", rtol=3e-3,
      atol=2e-2),
]

SPECS = [
    binary_spec("logaddexp", LOGADDEXP_EDGE),
    binary_spec("logaddexp2", LOGADDEXP2_EDGE),
    binary_spec("heaviside", HEAVISIDE_EXTRA),
    inplace_spec("heaviside_", [c(lambda lib: f34(lib).heaviside_(T(lib, arr(4, seed=1))),
                                  name="broadcast-values")]),
    binary_spec("gcd", GCD_EXTRA),
    inplace_spec("gcd_", [c(lambda lib: i34(lib).gcd_(nz34(lib)), name="int")]),
    binary_spec("lcm", LCM_EXTRA),
    inplace_spec("lcm_", [c(lambda lib: i34(lib).lcm_(nz34(lib)), name="int")]),
    binary_spec("nextafter", NEXTAFTER_EXTRA),
    inplace_spec("nextafter_"),
    binary_spec("ldexp", LDEXP_EXTRA),
    inplace_spec("ldexp_", [c(lambda lib: f34(lib).ldexp_(ints(lib, [1, 2, 3, 4])),
                              name="int-exponent")]),
    binary_spec("float_power", FLOAT_POWER_EXTRA),
    inplace_spec("float_power_", [
        c(lambda lib: f34(lib).double().float_power_(2), name="float64-self"),
        c(lambda lib: f34(lib).double().float_power_(f34(lib, 1)), name="float64-self-tensor"),
        c(lambda lib: f34(lib).double().float_power_(1j), name="complex-exponent-refused"),
        c(lambda lib: with_sign(
            T(lib, [-0., 0., -INF, INF, NAN, -4.]).double().float_power_(-0.5)),
          name="rsqrt-edges")]),
    OpSpec("frexp", FREXP_CASES),
    OpSpec("sinc", unary_cases("sinc") + [
        c(lambda lib: lib.sinc(T(lib, arr(4, dtype="complex64"))), name="complex-values")]),
    OpSpec("sinc_", unary_inplace_cases("sinc_")),
    OpSpec("lgamma", unary_cases("lgamma")),
    OpSpec("lgamma_", unary_inplace_cases("lgamma_")),
    OpSpec("digamma", unary_cases("digamma")),
    OpSpec("digamma_", unary_inplace_cases("digamma_")),
    OpSpec("i0", unary_cases("i0")),
    OpSpec("i0_", unary_inplace_cases("i0_")),
    OpSpec("polygamma", polygamma_cases()),
    OpSpec("polygamma_", [
        c(lambda lib: f34(lib).polygamma_(1), name="n1", rtol=1e-4),
        c(lambda lib: (f34(lib).double() + 3).polygamma_(3), name="n3-float64", rtol=1e-9),
        c(lambda lib: i34(lib).polygamma_(1), name="int-refused"),
        c(lambda lib: (lambda x: x is x.polygamma_(2))(f34(lib)), name="returns-self"),
    ]),
    OpSpec("mvlgamma", MVLGAMMA_CASES),
    OpSpec("mvlgamma_", [
        c(lambda lib: (f34(lib) + 5).mvlgamma_(2), name="p2"),
        c(lambda lib: f34(lib).mvlgamma_(2), name="domain-error"),
        c(lambda lib: (i34(lib) + 8).mvlgamma_(2), name="int-refused"),
    ]),
]
