"""Specs of the binary arithmetic ops (and the helpers spec_comparison reuses): dtype
promotion, broadcasting, output layout, out=, in-place errors and edge values vs PyTorch."""

import operator

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr

NAN, INF = float("nan"), float("inf")

# Edge values: signed zeros, infinities, NaN, huge and tiny numbers, exact and inexact halves.
EDGE_A = np.array([0., -0., 1., -1., INF, -INF, NAN, 2.5, -2.5, 1e30, 7., -7.], dtype="float32")
EDGE_B = np.array([0., 0., -0., 3., 2., INF, 1., -INF, NAN, 1e-30, -2., 2.], dtype="float32")


def f34(lib, seed=0):
    return T(lib, arr(3, 4, seed=seed))


def i34(lib, seed=0, dtype="int64"):
    return T(lib, arr(3, 4, dtype=dtype, seed=seed, low=-6, high=7))


def nz34(lib, seed=1, dtype="int64"):
    """Integers without zeros (divisors)."""
    a = arr(3, 4, dtype=dtype, seed=seed, low=-6, high=7)
    return T(lib, np.where(a == 0, 3, a).astype(dtype))


def zero_d(lib, value, dtype):
    """A 0-d tensor (a view of a 1-element tensor, which every backend can build)."""
    return T(lib, np.array([value]), dtype=dtype)[0]


def channels_last(lib):
    return T(lib, arr(2, 3, 4, 5)).contiguous(memory_format=lib.channels_last)


def case(run, make=None, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def binary_cases(f, *, scalar_first=True):
    """The shared battery of a binary op ``f(lib, a, b, **kw)`` (function form)."""
    cases = [
        case(lambda lib: f(lib, f34(lib), f34(lib, 1)), name="float"),
        case(lambda lib: f(lib, i34(lib), nz34(lib)), name="int-int"),
        case(lambda lib: f(lib, i34(lib), i34(lib, 1)), name="int-int-with-zeros"),
        case(lambda lib: f(lib, i34(lib), 2.5), name="int-float-scalar"),
        case(lambda lib: f(lib, i34(lib), 3), name="int-int-scalar"),
        case(lambda lib: f(lib, i34(lib), -2), name="int-negative-scalar"),
        case(lambda lib: f(lib, f34(lib), 2), name="float-int-scalar"),
        case(lambda lib: f(lib, i34(lib, dtype="int32"), nz34(lib, dtype="int32")), name="int32"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="uint8", low=1, high=9)),
                           nz34(lib, dtype="int8")), name="uint8-int8"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="uint8", low=1, high=9)), -1),
             name="uint8-negative-scalar-wraps"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="bool")), T(lib, arr(3, 4, dtype="bool",
                                                                            seed=1))),
             name="bool-bool"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="bool")), 2), name="bool-int-scalar"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="bool")), True), name="bool-bool-scalar"),
        case(lambda lib: f(lib, T(lib, arr(3, 4, dtype="bool")), f34(lib)), name="bool-float"),
        case(lambda lib: f(lib, f34(lib).half(), f34(lib, 1).half()), name="float16",
             rtol=2e-3, atol=1e-3),
        case(lambda lib: f(lib, f34(lib).bfloat16(), f34(lib, 1)), name="bfloat16-float32"),
        case(lambda lib: f(lib, f34(lib).bfloat16(), f34(lib, 1).half()),
             name="bfloat16-float16", rtol=2e-3, atol=1e-3),
        case(lambda lib: f(lib, f34(lib).half(), 1.5), name="float16-scalar", rtol=2e-3,
             atol=1e-3),
        case(lambda lib: f(lib, i34(lib, dtype="int32"), zero_d(lib, 1.5, "float64")),
             name="int-sized-0d-float64"),
        case(lambda lib: f(lib, f34(lib), zero_d(lib, 1.5, "float64")),
             name="float32-sized-0d-float64"),
        case(lambda lib: f(lib, zero_d(lib, 2.5, "float64"), f34(lib)), name="0d-first"),
        case(lambda lib: f(lib, zero_d(lib, 3, "int64"), zero_d(lib, 2.5, "float32")),
             name="0d-0d"),
        case(lambda lib: f(lib, zero_d(lib, 3, "uint8"), nz34(lib, dtype="int8")),
             name="0d-uint8-sized-int8"),
        case(lambda lib: f(lib, f34(lib)[:, :1], f34(lib, 1)[0]), name="broadcast-3x1-4"),
        case(lambda lib: f(lib, T(lib, arr(2, 1, 4)), T(lib, arr(3, 1, seed=1))),
             name="broadcast-3d"),
        case(lambda lib: f(lib, f34(lib), T(lib, arr(3, seed=1))), name="broadcast-error"),
        case(lambda lib: f(lib, f34(lib).t(), f34(lib, 1).t()), name="both-transposed"),
        case(lambda lib: f(lib, f34(lib).t(), T(lib, arr(4, 3, seed=1))),
             name="transposed-and-contiguous"),
        case(lambda lib: f(lib, T(lib, arr(4, 3)), f34(lib, 1).t()),
             name="contiguous-and-transposed"),
        case(lambda lib: f(lib, f34(lib)[:, ::2], f34(lib, 1)[:, 1::2]), name="strided"),
        case(lambda lib: f(lib, channels_last(lib), channels_last(lib) * 0.5 + 1),
             name="channels-last"),
        case(lambda lib: f(lib, channels_last(lib), T(lib, arr(5, seed=3))),
             name="channels-last-broadcast"),
        case(lambda lib: f(lib, f34(lib)[:0], f34(lib, 1)[:0]), name="empty"),
        case(lambda lib: f(lib, i34(lib)[:0], 0), name="empty-int-by-zero"),
        case(lambda lib: f(lib, T(lib, EDGE_A), T(lib, EDGE_B)), name="edge-values"),
        case(lambda lib: f(lib, T(lib, EDGE_A).double(), T(lib, EDGE_B).double()),
             name="edge-values-float64"),
        case(lambda lib: f(lib, T(lib, EDGE_A), 0.), name="float-by-zero-scalar"),
        case(lambda lib: f(lib, i34(lib), 0), name="int-by-zero-scalar"),
        case(lambda lib: f(lib, T(lib, np.array([-128, 127, -1, 100], dtype="int8")),
                           T(lib, np.array([-1, 2, 5, 3], dtype="int8"))), name="int8-extremes"),
        case(lambda lib: f(lib, T(lib, arr(4, dtype="complex64")), T(lib, arr(4, seed=1))),
             name="complex"),
        case(lambda lib: f(lib, f34(lib), None), name="none-other"),
        case(lambda lib: f(lib, f34(lib), "2"), name="string-other"),
        # out=
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(0)), name="out-empty"),
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(3, 4)), name="out"),
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(4, 3).t()),
             name="out-transposed-keeps-strides"),
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(3, 4, dtype=lib.int32)),
             name="out-wrong-dtype"),
        case(lambda lib: f(lib, i34(lib), nz34(lib), out=lib.empty(3, 4, dtype=lib.float64)),
             name="out-int-into-float64"),
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(3, 4, dtype=lib.float64)),
             name="out-wider-float"),
        case(lambda lib: f(lib, f34(lib), f34(lib, 1), out=lib.empty(5)), name="out-resized"),
        case(lambda lib: f(lib, f34(lib)[0], f34(lib, 1)[:, :1], out=lib.empty(3, 4)),
             name="out-broadcast"),
    ]
    if scalar_first:
        cases += [
            case(lambda lib: f(lib, 2, i34(lib)), name="scalar-first-int"),
            case(lambda lib: f(lib, 2.5, nz34(lib)), name="scalar-first-float"),
            case(lambda lib: f(lib, -3, f34(lib)), name="scalar-first-float-tensor"),
        ]
    return cases


def inplace_cases(g):
    """The battery of an in-place op ``g(lib, self, other)``."""
    return [
        case(lambda lib: g(lib, f34(lib), f34(lib, 1)), name="float"),
        case(lambda lib: g(lib, f34(lib), f34(lib, 1)[0]), name="broadcast-other"),
        case(lambda lib: g(lib, f34(lib)[0], f34(lib, 1)), name="shape-would-grow"),
        case(lambda lib: g(lib, f34(lib)[:, :1], f34(lib, 1)), name="shape-would-grow-2"),
        case(lambda lib: g(lib, i34(lib), f34(lib, 1)), name="int-self-float-other"),
        case(lambda lib: g(lib, i34(lib), 2.5), name="int-self-float-scalar"),
        case(lambda lib: g(lib, i34(lib), nz34(lib)), name="int-int"),
        case(lambda lib: g(lib, i34(lib), i34(lib, 1)), name="int-int-with-zeros"),
        case(lambda lib: g(lib, f34(lib), nz34(lib)), name="float-self-int-other"),
        case(lambda lib: g(lib, f34(lib).half(), f34(lib, 1)), name="half-self-float-other",
             rtol=2e-3, atol=1e-3),
        case(lambda lib: g(lib, T(lib, arr(3, 4, dtype="uint8", low=1, high=9)), -1),
             name="uint8-negative-scalar"),
        case(lambda lib: g(lib, T(lib, arr(3, 4, dtype="bool")),
                           T(lib, arr(3, 4, dtype="bool", seed=1))), name="bool-bool"),
        case(lambda lib: g(lib, T(lib, arr(3, 4, dtype="bool")), 2), name="bool-self-int"),
        case(lambda lib: g(lib, f34(lib).t(), f34(lib, 1).t()), name="transposed-self"),
        case(lambda lib: g(lib, channels_last(lib), T(lib, arr(5))), name="channels-last-self"),
        case(lambda lib: g(lib, f34(lib)[:, ::2], 2.0), name="strided-self"),
        case(lambda lib: g(lib, f34(lib)[0].expand(3, 4), f34(lib, 1)), name="expanded-self"),
        case(lambda lib: g(lib, zero_d(lib, 1.5, "float32"), f34(lib)), name="0d-self-grows"),
        case(lambda lib: g(lib, f34(lib), zero_d(lib, 1.5, "float64")), name="0d-other"),
        case(lambda lib: g(lib, T(lib, EDGE_A), T(lib, EDGE_B)), name="edge-values"),
        case(lambda lib: g(lib, f34(lib), None), name="none-other"),
    ]


def self_in_place(g):
    """A case returning ``self`` after the in-place call (checks the result is ``self``)."""
    return lambda lib, x, y: (lambda r: (r, r is x))(g(lib, x, y))


def method_cases(method):
    return [
        case(lambda lib: getattr(f34(lib), method)(f34(lib, 1)), name="method"),
        case(lambda lib: getattr(i34(lib), method)(3), name="method-scalar"),
    ]


def max_other_cases(name):
    """``torch.max(input, other)`` (positionally or ``other=``) is PyTorch's element-wise
    ``maximum`` (ATen's ``max.other`` calls ``at::maximum``): its cases live here."""
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return [
        case(lambda lib: f(lib, f34(lib), f34(lib, 1)), name=f"{name}-tensor"),
        case(lambda lib: f(lib, f34(lib), other=f34(lib, 1)[0]), name=f"{name}-other"),
        case(lambda lib: getattr(f34(lib), name)(other=f34(lib, 1)), name=f"{name}-other-method"),
        case(lambda lib: f(lib, input=f34(lib), other=f34(lib, 1).t().t(), out=lib.empty(0)),
             name=f"{name}-other-out"),
        case(lambda lib: f(lib, f34(lib), other=f34(lib, 1), out=lib.empty(0, dtype=lib.long)),
             name=f"{name}-other-out-cast-error"),
    ]


def binary_spec(name, fn, *, scalar_first=True, extra=()):
    return OpSpec(name, binary_cases(fn, scalar_first=scalar_first) + method_cases(name)
                  + list(extra))


def inplace_spec(name, extra=()):
    g = (lambda lib, x, y: getattr(x, name)(y))
    returns_self = case(lambda lib: self_in_place(g)(lib, f34(lib), f34(lib, 1)),
                        name="returns-self")
    return OpSpec(name, inplace_cases(g) + [returns_self] + list(extra))


def fn(name):
    return lambda lib, a, b, **kw: getattr(lib, name)(a, b, **kw)


def op(symbol):
    return {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
            "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
            "**": lambda a, b: a ** b}[symbol]


def operator_cases(symbol):
    f = op(symbol)
    return [
        case(lambda lib: f(f34(lib), f34(lib, 1)), name=f"operator{symbol}"),
        case(lambda lib: f(nz34(lib), 2), name=f"operator{symbol}-int-scalar"),
        case(lambda lib: f(3, nz34(lib)), name=f"reflected{symbol}-int"),
        case(lambda lib: f(2.5, f34(lib)), name=f"reflected{symbol}-float"),
        case(lambda lib: f(True, T(lib, arr(3, 4, dtype="bool"))), name=f"reflected{symbol}-bool"),
        case(lambda lib: f(np.float64(1.5), nz34(lib)), name=f"reflected{symbol}-numpy-scalar"),
        case(lambda lib: f(nz34(lib), np.int64(2)), name=f"operator{symbol}-numpy-int"),
        case(lambda lib: f(f34(lib), None), name=f"operator{symbol}-none"),
        case(lambda lib: f(None, f34(lib)), name=f"reflected{symbol}-none"),
    ]


def _reflected(cases, wanted):
    """Split ``operator_cases``: ``number / x`` runs ``x.reciprocal() * number`` in PyTorch
    (its event is ``mul``'s, so those cases live in mul's spec)."""
    return [c for c in cases
            if (c.name.startswith("reflected") and not c.name.endswith("-none")) == wanted]


def inplace_operator_cases(symbol):
    """``a op= b`` (emits the in-place op's event: these go in the ``name_`` spec)."""
    inplace = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
               "/": operator.itruediv, "//": operator.ifloordiv, "%": operator.imod,
               "**": operator.ipow}[symbol]

    def iop(a, b):
        c = inplace(a, b)
        return c, c is a

    return [
        case(lambda lib: iop(f34(lib), f34(lib, 1)), name=f"inplace{symbol}="),
        case(lambda lib: iop(i34(lib), nz34(lib)), name=f"inplace{symbol}=-int"),
        case(lambda lib: iop(i34(lib), 1.5), name=f"inplace{symbol}=-int-float"),
    ]


def with_sign(r):
    """A result and its sign bits (the value comparison doesn't tell -0. from 0.)."""
    return r, r.signbit() & (r == 0)


# PyTorch's pow(Tensor, Scalar) computes 0.5 as sqrt, -0.5 as 1/sqrt, -1 as 1/x, 2/3/-2 by
# products (float, double, bfloat16; half is plain pow); a tensor exponent is always C's pow.
POW_EDGE = np.array([-0., 0., -INF, INF, NAN, -1., 1., -2.5, 2.5], dtype="float32")
POW_SPECIAL_CASES = [
    case(lambda lib, e=e, d=d: with_sign(lib.pow(T(lib, POW_EDGE, dtype=d), e)),
         name=f"special-exponent-{e}-{d}", rtol=1e-2 if d in ("float16", "bfloat16") else 1e-5)
    for e in (0.5, -0.5, -1, 2, 3, -2, 2.0, -1.5) for d in ("float32", "float64", "bfloat16",
                                                             "float16")
] + [
    case(lambda lib: with_sign(T(lib, POW_EDGE) ** -0.5), name="operator-rsqrt-edges"),
    case(lambda lib: with_sign(lib.pow(T(lib, POW_EDGE), lib.tensor(0.5))),
         name="0d-tensor-exponent-half-is-pow"),
    case(lambda lib: with_sign(lib.pow(T(lib, POW_EDGE), lib.tensor(-0.5))),
         name="0d-tensor-exponent-minus-half-is-pow"),
    case(lambda lib: with_sign(lib.pow(T(lib, POW_EDGE.reshape(3, 3)), lib.tensor([0.5]))),
         name="broadcast-tensor-exponent-half-is-pow"),
    case(lambda lib: with_sign(lib.pow(T(lib, POW_EDGE.reshape(3, 3)),
                                       lib.full((3, 1), 0.5))),
         name="column-tensor-exponent-half-is-pow"),
    case(lambda lib: with_sign(lib.pow(T(lib, np.array([-2, 0, 4])), -0.5)),
         name="int-tensor-rsqrt"),
]


def div_mode(mode):
    return lambda lib, a, b, **kw: lib.div(a, b, rounding_mode=mode, **kw)


ADDC_CASES = [
    ("float", lambda lib: (f34(lib), f34(lib, 1), f34(lib, 2))),
    ("int", lambda lib: (i34(lib), nz34(lib), nz34(lib, 2))),
    ("int-input-float-tensors", lambda lib: (i34(lib), f34(lib, 1), nz34(lib, 2))),
    ("bool", lambda lib: (T(lib, arr(3, 4, dtype="bool")),) * 3),
    ("half", lambda lib: (f34(lib).half(), f34(lib, 1).half(), f34(lib, 2).half())),
    ("broadcast", lambda lib: (f34(lib)[:, :1], f34(lib, 1)[0], T(lib, arr(2, 1, 1)))),
    ("transposed", lambda lib: (f34(lib).t(), f34(lib, 1).t(), f34(lib, 2).t())),
    ("0d-float64", lambda lib: (f34(lib), f34(lib, 1), zero_d(lib, 2.0, "float64"))),
    ("mismatch", lambda lib: (f34(lib), f34(lib, 1), T(lib, arr(3)))),
    ("edge", lambda lib: (T(lib, EDGE_A), T(lib, EDGE_B), T(lib, EDGE_A))),
]


def addc_spec(name):
    cases = []
    for label, make in ADDC_CASES:
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib)), name=label))
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib), value=0.5),
                          name=label + "-value-0.5"))
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib), value=-2),
                          name=label + "-value-int"))
    cases += [
        case(lambda lib: getattr(lib, name)(f34(lib), f34(lib, 1), f34(lib, 2), value=1j),
             name="complex-value"),
        case(lambda lib: getattr(lib, name)(f34(lib), 2, f34(lib, 2)), name="scalar-tensor1"),
        case(lambda lib: getattr(lib, name)(f34(lib), f34(lib, 1), f34(lib, 2),
                                            out=lib.empty(0)), name="out"),
        case(lambda lib: getattr(lib, name)(f34(lib), f34(lib, 1), f34(lib, 2),
                                            out=lib.empty(3, 4, dtype=lib.long)),
             name="out-wrong-dtype"),
        case(lambda lib: getattr(f34(lib), name)(f34(lib, 1), f34(lib, 2), value=3),
             name="method"),
    ]
    return OpSpec(name, cases)


def addc_inplace_spec(name):
    def g(lib, a, b, c, **kw):
        return getattr(a, name)(b, c, **kw)

    return OpSpec(name, [
        case(lambda lib: g(lib, f34(lib), f34(lib, 1), f34(lib, 2), value=2), name="float"),
        case(lambda lib: g(lib, i34(lib), nz34(lib), nz34(lib, 2)), name="int"),
        case(lambda lib: g(lib, i34(lib), f34(lib, 1), f34(lib, 2)), name="int-self-float"),
        case(lambda lib: g(lib, f34(lib)[0], f34(lib, 1), f34(lib, 2)), name="would-grow"),
        case(lambda lib: g(lib, f34(lib).t(), f34(lib, 1)[0], f34(lib, 2).t()),
             name="transposed-self"),
        case(lambda lib: g(lib, f34(lib).half(), f34(lib, 1), f34(lib, 2)), name="half-self",
             rtol=2e-3, atol=1e-3),
    ])


LERP_MAKES = [
    ("float-scalar", lambda lib: (f34(lib), f34(lib, 1), 0.3)),
    ("float-scalar-big", lambda lib: (f34(lib), f34(lib, 1), 0.8)),
    ("float-scalar-int", lambda lib: (f34(lib), f34(lib, 1), 2)),
    ("tensor-weight", lambda lib: (f34(lib), f34(lib, 1), T(lib, arr(3, 4, seed=2, low=-1,
                                                                     high=2)))),
    ("0d-weight-float64", lambda lib: (f34(lib), f34(lib, 1), zero_d(lib, 0.25, "float64"))),
    ("0d-all-float64-weight", lambda lib: (zero_d(lib, 1., "float32"), zero_d(lib, 3., "float32"),
                                           zero_d(lib, 0.25, "float64"))),
    ("0d-weight-int", lambda lib: (f34(lib), f34(lib, 1), zero_d(lib, 1, "int64"))),
    ("half", lambda lib: (f34(lib).half(), f34(lib, 1).half(), 0.3)),
    ("bfloat16-tensor-weight", lambda lib: (f34(lib).bfloat16(), f34(lib, 1).bfloat16(),
                                            f34(lib, 2).bfloat16())),
    ("float64", lambda lib: (f34(lib).double(), f34(lib, 1).double(), 0.7)),
    ("end-dtype-mismatch", lambda lib: (f34(lib), f34(lib, 1).double(), 0.5)),
    ("weight-dtype-mismatch", lambda lib: (f34(lib), f34(lib, 1), f34(lib, 2).double())),
    ("int", lambda lib: (i34(lib), i34(lib, 1), 0.5)),
    ("int-tensor-weight", lambda lib: (i34(lib), i34(lib, 1), i34(lib, 2))),
    ("end-scalar", lambda lib: (f34(lib), 2.0, 0.5)),
    ("complex-weight", lambda lib: (f34(lib), f34(lib, 1), 1j)),
    ("broadcast", lambda lib: (f34(lib)[:, :1], f34(lib, 1)[0], 0.25)),
    ("broadcast-weight", lambda lib: (f34(lib)[0], f34(lib, 1)[0], f34(lib, 2)[:, :1])),
    ("transposed", lambda lib: (f34(lib).t(), f34(lib, 1).t(), 0.5)),
    ("edge", lambda lib: (T(lib, EDGE_A), T(lib, EDGE_B), 0.5)),
    ("mismatch", lambda lib: (f34(lib), T(lib, arr(3)), 0.5)),
]


SPECS = [
    binary_spec("add", fn("add"), extra=operator_cases("+") + [
        case(lambda lib: lib.add(f34(lib), nz34(lib), alpha=2), name="alpha"),
        case(lambda lib: lib.add(f34(lib), nz34(lib), alpha=0.5), name="alpha-float"),
        case(lambda lib: lib.add(i34(lib), nz34(lib), alpha=0.5), name="alpha-float-int"),
        case(lambda lib: lib.add(f34(lib), nz34(lib), alpha=True), name="alpha-bool"),
        case(lambda lib: lib.add(T(lib, arr(3, 4, dtype="bool")), True, alpha=True),
             name="alpha-bool-bool"),
    ]),
    inplace_spec("add_", extra=inplace_operator_cases("+") + [
        case(lambda lib: f34(lib).add_(f34(lib, 1), alpha=-1.5), name="alpha"),
        case(lambda lib: (lambda a: a[1:].add_(a[:-1]))(f34(lib)), name="partial-overlap"),
        case(lambda lib: (lambda a: a.add_(a.t()))(f34(lib)[:3, :3].contiguous()),
             name="overlap-transposed"),
        case(lambda lib: (lambda a: a[0].add_(a[2], alpha=2))(f34(lib)), name="disjoint-rows"),
        case(lambda lib: (lambda a: lib.add(a[:2], 1, out=a[1:3]))(f34(lib)),
             name="out-overlaps-input"),
    ]),
    binary_spec("sub", fn("sub"), extra=operator_cases("-") + [
        case(lambda lib: lib.subtract(f34(lib), nz34(lib), alpha=2), name="subtract-alpha"),
        case(lambda lib: lib.sub(i34(lib), True), name="int-minus-bool-scalar"),
        case(lambda lib: 1 - T(lib, arr(3, 4, dtype="bool")), name="rsub-bool"),
    ]),
    inplace_spec("sub_", extra=inplace_operator_cases("-") + [
        case(lambda lib: f34(lib).subtract_(f34(lib, 1), alpha=2), name="subtract_"),
    ]),
    binary_spec("mul", fn("mul"), extra=operator_cases("*")
                + _reflected(operator_cases("/"), True) + [
        case(lambda lib: T(lib, np.array([5, 6])).__rtruediv__(2), name="rtruediv"),
        case(lambda lib: lib.multiply(f34(lib), 3), name="multiply"),
        case(lambda lib: T(lib, arr(3, 4, dtype="int8")) * 1000, name="int8-overflow-wraps"),
    ]),
    inplace_spec("mul_", extra=inplace_operator_cases("*") + [
        case(lambda lib: f34(lib).multiply_(2), name="multiply_")]),
    binary_spec("div", fn("div"), extra=_reflected(operator_cases("/"), False) + [
        c for mode in ("trunc", "floor") for c in binary_cases(div_mode(mode))
        if c.name in ("float", "int-int", "int-int-with-zeros", "int-float-scalar", "bool-bool",
                      "float16", "uint8-int8", "edge-values", "edge-values-float64",
                      "int-by-zero-scalar", "float-by-zero-scalar", "int8-extremes",
                      "complex", "out-wrong-dtype", "both-transposed", "empty-int-by-zero")
    ] + [
        case(lambda lib: lib.div(f34(lib), 2, rounding_mode="bad"), name="bad-mode"),
        case(lambda lib: lib.divide(nz34(lib), 4, rounding_mode="trunc"), name="divide-trunc"),
        case(lambda lib: lib.true_divide(nz34(lib), 4), name="true_divide"),
        case(lambda lib: lib.true_divide(i34(lib), nz34(lib).t().t(), out=lib.empty(0)),
             name="true_divide-out"),
        case(lambda lib: i34(lib).true_divide(other=3), name="true_divide-method"),
        case(lambda lib: lib.true_divide(f34(lib), 2, rounding_mode="floor"),
             name="true_divide-rounding-mode-error"),
        case(lambda lib: f34(lib).true_divide(2, rounding_mode="trunc"),
             name="true_divide-method-rounding-mode-error"),
        case(lambda lib: lib.div(T(lib, np.array([5, -5, 7, -7])), T(lib, np.array([2, 2, -2, -2])),
                                 rounding_mode="trunc"), name="trunc-signs"),
        case(lambda lib: lib.div(T(lib, np.array([5, -5, 7, -7])), T(lib, np.array([2, 2, -2, -2])),
                                 rounding_mode="floor"), name="floor-signs"),
        case(lambda lib: nz34(lib).div(3, rounding_mode="floor"), name="method-floor"),
    ]),
    inplace_spec("div_", extra=inplace_operator_cases("/") + [
        case(lambda lib: i34(lib).div_(nz34(lib), rounding_mode="floor"), name="int-floor"),
        case(lambda lib: i34(lib).div_(nz34(lib), rounding_mode="trunc"), name="int-trunc"),
        case(lambda lib: i34(lib).div_(0, rounding_mode="trunc"), name="int-trunc-zero"),
        case(lambda lib: f34(lib).divide_(3), name="divide_"),
        case(lambda lib: f34(lib).true_divide_(3), name="true_divide_"),
        case(lambda lib: f34(lib).true_divide_(3, rounding_mode="floor"),
             name="true_divide_-rounding-mode-error"),
        case(lambda lib: i34(lib).true_divide_(3), name="true_divide_-int-error"),
        case(lambda lib: f34(lib).div_(3, rounding_mode="floor"), name="float-floor"),
    ]),
    binary_spec("floor_divide", fn("floor_divide"), extra=operator_cases("//")),
    inplace_spec("floor_divide_", extra=inplace_operator_cases("//")),
    binary_spec("remainder", fn("remainder"), extra=operator_cases("%") + [
        case(lambda lib: lib.remainder(T(lib, np.array([-4., 4., -5., 5.])),
                                       T(lib, np.array([2., -2., 3., -3.]))), name="signs"),
        case(lambda lib: lib.remainder(T(lib, np.array([5], dtype="int8")), 256),
             name="scalar-wraps-to-zero"),
    ]),
    inplace_spec("remainder_", extra=inplace_operator_cases("%")),
    binary_spec("fmod", fn("fmod"), scalar_first=False, extra=[
        case(lambda lib: lib.fmod(3, f34(lib)), name="scalar-first-refused"),
    ]),
    inplace_spec("fmod_"),
    binary_spec("pow", fn("pow"), extra=operator_cases("**") + [
        case(lambda lib: lib.pow(f34(lib).half(), 1.4716e-31), name="half-tiny-exponent"),
        case(lambda lib: lib.pow(f34(lib).half(), 1e-3), name="half-exponent-rounded"),
        case(lambda lib: lib.pow(f34(lib).bfloat16(), 1e-3), name="bfloat16-small-exponent"),
        case(lambda lib: i34(lib) ** -1, name="int-negative-int-exponent"),
        case(lambda lib: zero_d(lib, 2, "int64") ** -2, name="0d-int-negative-exponent"),
        case(lambda lib: T(lib, arr(3, 4, dtype="bool")) ** -1, name="bool-negative-exponent"),
        case(lambda lib: i34(lib) ** -1.0, name="int-negative-float-exponent"),
        case(lambda lib: T(lib, np.array([1, -1, 2, -1, 0, 3])) **
             T(lib, np.array([-1, -1, -2, -2, 2, 40])), name="int-tensor-exponents"),
        case(lambda lib: lib.pow(-1, T(lib, np.array([-1, -2, 3]))), name="scalar-base-negative"),
        case(lambda lib: lib.pow(f34(lib), exponent=2), name="exponent-keyword"),
        case(lambda lib: f34(lib) ** 0.5, name="sqrt"),
        case(lambda lib: f34(lib) ** -2, name="negative-float"),
        case(lambda lib: T(lib, arr(3, 4, dtype="bool")) ** False, name="bool-scalar"),
        case(lambda lib: T(lib, np.array([3])) ** 40, name="int-overflow-wraps"),
    ] + POW_SPECIAL_CASES),
    inplace_spec("pow_", extra=inplace_operator_cases("**") + [
        case(lambda lib: i34(lib).pow_(-1), name="int-negative"),
        case(lambda lib: with_sign(T(lib, POW_EDGE, dtype="float64").pow_(-0.5)),
             name="rsqrt-edges"),
        case(lambda lib: with_sign(T(lib, POW_EDGE).pow_(lib.tensor(0.5))),
             name="0d-tensor-exponent-half-is-pow")]),
    binary_spec("atan2", fn("atan2"), extra=[
        case(lambda lib: lib.arctan2(f34(lib), f34(lib, 1)), name="arctan2"),
    ]),
    inplace_spec("atan2_", extra=[case(lambda lib: f34(lib).arctan2_(f34(lib, 1)),
                                       name="arctan2_")]),
    binary_spec("maximum", fn("maximum"), extra=max_other_cases("max")),
    binary_spec("minimum", fn("minimum"), extra=max_other_cases("min")),
    binary_spec("fmax", fn("fmax")),
    binary_spec("fmin", fn("fmin")),
    binary_spec("hypot", fn("hypot")),
    inplace_spec("hypot_"),
    binary_spec("copysign", fn("copysign"), scalar_first=False, extra=[
        case(lambda lib: lib.copysign(T(lib, EDGE_A), -0.0), name="negative-zero-scalar"),
    ]),
    inplace_spec("copysign_"),
    binary_spec("xlogy", fn("xlogy"), extra=[
        case(lambda lib: lib.xlogy(T(lib, np.array([0., 0., 0., 1.])),
                                   T(lib, np.array([NAN, 0., -1., 0.]))), name="zero-times"),
        case(lambda lib: lib.xlogy(2., 3.), name="two-scalars"),
    ]),
    inplace_spec("xlogy_"),
    OpSpec("lerp", [case(lambda lib, m=m: lib.lerp(*m(lib)), name=n) for n, m in LERP_MAKES] + [
        case(lambda lib: lib.lerp(f34(lib), f34(lib, 1), 0.5, out=lib.empty(0)), name="out"),
        case(lambda lib: lib.lerp(f34(lib), f34(lib, 1), 0.5, out=lib.empty(3, 4,
                                                                           dtype=lib.long)),
             name="out-wrong-dtype"),
        case(lambda lib: f34(lib).lerp(f34(lib, 1), 0.5), name="method"),
    ]),
    OpSpec("lerp_", [
        case(lambda lib: f34(lib).lerp_(f34(lib, 1), 0.3), name="float"),
        case(lambda lib: f34(lib).lerp_(f34(lib, 1)[0], f34(lib, 2)), name="broadcast"),
        case(lambda lib: f34(lib)[0].lerp_(f34(lib, 1), 0.3), name="would-grow"),
        case(lambda lib: f34(lib).t().lerp_(f34(lib, 1).t(), 0.9), name="transposed"),
        case(lambda lib: f34(lib).lerp_(f34(lib, 1), zero_d(lib, 0.5, "float64")),
             name="0d-weight"),
        case(lambda lib: i34(lib).lerp_(i34(lib, 1), 0.5), name="int"),
    ]),
    addc_spec("addcmul"),
    addc_inplace_spec("addcmul_"),
    addc_spec("addcdiv"),
    addc_inplace_spec("addcdiv_"),
]
