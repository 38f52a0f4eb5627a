"""Specs of the unary element-wise ops (jtensor/_ops/unary.py) against PyTorch.

Each op is checked on float32/float64/integer/bool/float16/bfloat16 (and complex where PyTorch
supports it), on transposed, channels-last, strided and expanded inputs (output strides),
with ``out=`` (castable, uncastable, empty, transposed), in place, and on its domain edges
(log of 0 and of negatives, sqrt(-1), inf, nan).
"""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr

INF, NAN = float("inf"), float("nan")
SPECIAL = np.array([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, INF, -INF, NAN], np.float32)
# Tolerances for the low-precision dtypes: PyTorch and NumPy compute in float32 and may
# differ by one float32 ulp, which can flip the final rounding by one half/bfloat16 ulp.
F16 = dict(rtol=2e-3, atol=1e-3)
BF16 = dict(rtol=1.6e-2, atol=1e-2)
CPLX = dict(rtol=1e-4, atol=1e-5)


def make(*shape, dtype="float32", low=-3, high=3, seed=0, to=None):
    def build(lib):
        return T(lib, arr(*shape, dtype=dtype, low=low, high=high, seed=seed), dtype=to)

    return build


def make_special(dtype=None, values=SPECIAL):
    return lambda lib: T(lib, values, dtype=dtype)


def make_complex(*shape, low=-2, high=2):
    def build(lib):
        data = arr(*shape, low=low, high=high) + 1j * arr(*shape, low=low, high=high, seed=1)
        return T(lib, data.astype(np.complex64))

    return build


def make_channels_last(low=-3, high=3, dtype="float32"):
    return lambda lib: T(lib, arr(2, 3, 4, 5, low=low, high=high, dtype=dtype)).contiguous(
        memory_format=lib.channels_last)


def fn(name, **kw):
    return lambda lib, x: getattr(lib, name)(x, **kw)


def meth(name, **kw):
    return lambda lib, x: getattr(x, name)(**kw)


def C(run, make_, name, **kw):
    return Case(run, make=make_, name=name, **kw)


def layout_cases(name, low, high, dtype="float32"):
    """Output strides follow the input: transposed, channels-last, strided, expanded, 0-d."""
    return [
        C(lambda lib, x: getattr(x.t(), name)(), make(3, 4, low=low, high=high, dtype=dtype),
          "transposed"),
        C(lambda lib, x: getattr(x.permute(2, 0, 1), name)(),
          make(2, 3, 4, low=low, high=high, dtype=dtype), "permuted"),
        C(meth(name), make_channels_last(low, high, dtype), "channels-last"),
        C(lambda lib, x: getattr(x[:, ::2], name)(), make(3, 4, low=low, high=high,
                                                          dtype=dtype), "strided"),
        C(lambda lib, x: getattr(x[:1].expand(3, 4), name)(),
          make(3, 4, low=low, high=high, dtype=dtype), "expanded"),
        C(lambda lib, x: getattr(x[1:, 1:], name)(), make(3, 4, low=low, high=high,
                                                          dtype=dtype), "offset"),
        C(meth(name), make(low=low, high=high, dtype=dtype), "0d"),
        C(meth(name), make(0, 3, low=low, high=high, dtype=dtype), "empty"),
    ]


def float_op_cases(name, low=-3, high=3, ilow=-3, ihigh=4, complex_ok=True, aliases=(),
                   special=True):
    """Cases of an op that gives floats for integer inputs (exp, log, sin, erf...)."""
    cases = [
        C(fn(name), make(3, 4, low=low, high=high), "float32"),
        C(meth(name), make(3, 4, low=low, high=high), "method"),
        C(fn(name), make(3, 4, low=low, high=high, dtype="float64"), "float64"),
        C(fn(name), make(3, 4, low=ilow, high=ihigh, dtype="int64"), "int64-to-float"),
        C(fn(name), make(3, 4, low=ilow, high=ihigh, dtype="int32"), "int32-to-float"),
        C(fn(name), make(3, 4, low=max(ilow, 0), high=max(ihigh, 1), dtype="uint8"), "uint8"),
        C(fn(name), make(3, 4, dtype="bool"), "bool-to-float"),
        C(fn(name), make(3, 4, low=low, high=high, to="float16"), "float16", **F16),
        C(fn(name), make(3, 4, low=low, high=high, to="bfloat16"), "bfloat16", **BF16),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4)), make(3, 4, low=low,
                                                                          high=high), "out"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4, dtype=lib.float64)),
          make(3, 4, low=ilow, high=ihigh, dtype="int64"), "out-int-to-float64"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4, dtype=lib.float16)),
          make(3, 4, low=low, high=high), "out-downcast-float16", **F16),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4, dtype=lib.int64)),
          make(3, 4, low=low, high=high), "out-cast-error"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(0)), make(3, 4, low=low,
                                                                       high=high), "out-empty"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(4, 3).t()),
          make(3, 4, low=low, high=high), "out-transposed"),
        C(lambda lib, x: getattr(lib, name)(x.t(), out=lib.empty(4, 3)),
          make(3, 4, low=low, high=high), "out-from-transposed"),
        C(lambda lib: getattr(lib, name)(2.0), None, "number-input-error"),
    ] + layout_cases(name, low, high)
    if special:
        cases.append(C(fn(name), make_special(), "special-values"))
        cases.append(C(fn(name), make_special("float64"), "special-values-float64"))
    if complex_ok:
        cases.append(C(fn(name), make_complex(3, 4), "complex64", **CPLX))
    for alias in aliases:
        cases.append(C(fn(alias), make(3, 4, low=low, high=high), f"alias-{alias}"))
        cases.append(C(meth(alias), make(3, 4, low=low, high=high), f"alias-method-{alias}"))
    return cases


def inplace_cases(name, low=-3, high=3, float_result=True, aliases=(), function=False,
                  ilow=-3, ihigh=4, complex_ok=False):
    """Cases of ``x.name_()``: float32, float16, transposed, int (PyTorch's cast error when the
    result is float), bool, an expanded target (overlap error)."""
    name += "_"
    cases = [
        C(meth(name), make(3, 4, low=low, high=high), "float32"),
        C(meth(name), make(3, 4, low=low, high=high, dtype="float64"), "float64"),
        C(meth(name), make(3, 4, low=low, high=high, to="float16"), "float16", **F16),
        C(meth(name), make(3, 4, low=low, high=high, to="bfloat16"), "bfloat16", **BF16),
        C(lambda lib, x: getattr(x.t(), name)(), make(3, 4, low=low, high=high), "transposed"),
        C(lambda lib, x: getattr(x[:, 1:3], name)(), make(3, 4, low=low, high=high),
          "strided-view"),
        C(meth(name), make_channels_last(low, high), "channels-last"),
        C(meth(name), make(3, 4, low=ilow, high=ihigh, dtype="int64"),
          "int64-cast-error" if float_result else "int64"),
        C(meth(name), make(3, 4, dtype="bool"), "bool"),
        C(lambda lib, x: getattr(x[:1].expand(3, 4), name)(), make(3, 4, low=low, high=high),
          "expanded-error"),
        C(lambda lib, x: (getattr(x, name)(), x._version)[1], make(3, 4, low=low, high=high),
          "bumps-version"),
    ]
    if function:
        cases.append(C(fn(name), make(3, 4, low=low, high=high), "function"))
    if complex_ok:
        cases.append(C(meth(name), make_complex(3, 4), "complex64", **CPLX))
    for alias in aliases:
        cases.append(C(meth(alias + "_"), make(3, 4, low=low, high=high), f"alias-{alias}_"))
    return cases


def same_dtype_cases(name, complex_ok=False, aliases=(), low=-3, high=3):
    """Cases of an op whose result keeps the input dtype (neg, abs, floor, ...): any dtype of
    ``out=`` other than the result's is refused ("Found dtype ... but expected ...")."""
    cases = [
        C(fn(name), make(3, 4, low=low, high=high), "float32"),
        C(meth(name), make(3, 4, low=low, high=high), "method"),
        C(fn(name), make(3, 4, low=low, high=high, dtype="float64"), "float64"),
        C(fn(name), make(3, 4, low=low, high=high, to="float16"), "float16", **F16),
        C(fn(name), make(3, 4, low=low, high=high, to="bfloat16"), "bfloat16", **BF16),
        C(fn(name), make(3, 4, low=-50, high=50, dtype="int64"), "int64"),
        C(fn(name), make(3, 4, low=-50, high=50, dtype="int32"), "int32"),
        C(fn(name), make(3, 4, low=-128, high=127, dtype="int8"), "int8"),
        C(fn(name), make(3, 4, low=0, high=255, dtype="uint8"), "uint8"),
        C(fn(name), make(3, 4, dtype="bool"), "bool"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4)), make(3, 4, low=low,
                                                                          high=high), "out"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(0)), make(3, 4, low=low,
                                                                       high=high), "out-empty"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(4, 3).t()),
          make(3, 4, low=low, high=high), "out-transposed"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4, dtype=lib.float64)),
          make(3, 4, low=low, high=high), "out-other-float-error"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4)),
          make(3, 4, low=-50, high=50, dtype="int64"), "out-int-to-float-error"),
        C(lambda lib, x: getattr(lib, name)(x, out=lib.empty(3, 4, dtype=lib.int64)),
          make(3, 4, low=-50, high=50, dtype="int64"), "out-int64"),
        C(lambda lib: getattr(lib, name)(2.0), None, "number-input-error"),
        C(fn(name), make_special(), "special-values"),
    ] + layout_cases(name, low, high) + layout_cases(name, -50, 50, "int64")[:3]
    if complex_ok:
        cases.append(C(fn(name), make_complex(3, 4), "complex64", **CPLX))
    else:
        cases.append(C(fn(name), make_complex(3, 4), "complex-error"))
    for alias in aliases:
        cases.append(C(fn(alias), make(3, 4, low=low, high=high), f"alias-{alias}"))
        cases.append(C(meth(alias), make(3, 4, low=low, high=high), f"alias-method-{alias}"))
    return cases


def same_dtype_inplace_cases(name, aliases=(), function=True):
    name += "_"
    cases = [
        C(meth(name), make(3, 4), "float32"),
        C(meth(name), make(3, 4, to="float16"), "float16", **F16),
        C(meth(name), make(3, 4, low=-50, high=50, dtype="int64"), "int64"),
        C(meth(name), make(3, 4, low=0, high=255, dtype="uint8"), "uint8"),
        C(meth(name), make(3, 4, dtype="bool"), "bool"),
        C(lambda lib, x: getattr(x.t(), name)(), make(3, 4), "transposed"),
        C(meth(name), make_channels_last(), "channels-last"),
        C(lambda lib, x: getattr(x[:1].expand(3, 4), name)(), make(3, 4), "expanded-error"),
        C(lambda lib, x: (getattr(x, name)(), x._version)[1], make(3, 4), "bumps-version"),
    ]
    if function:
        cases.append(C(fn(name), make(3, 4), "function"))
    for alias in aliases:
        cases.append(C(meth(alias + "_"), make(3, 4), f"alias-{alias}_"))
    return cases


# ------------------------------------------------------------------ float-valued ops
FLOAT_OPS = [
    # name, low, high, int low, int high, complex, aliases, torch.name_ exists
    ("exp", -3, 3, -3, 4, True, (), True),
    ("exp2", -3, 3, -3, 4, True, (), True),
    ("expm1", -3, 3, -3, 4, True, (), True),
    ("log", 0.1, 5, 0, 10, True, (), True),
    ("log2", 0.1, 5, 0, 10, True, (), True),
    ("log10", 0.1, 5, 0, 10, True, (), True),
    ("log1p", -0.9, 5, 0, 10, True, (), True),
    ("sqrt", 0, 5, 0, 10, True, (), True),
    ("rsqrt", 0.1, 5, 0, 10, True, (), True),
    ("reciprocal", -3, 3, -3, 4, True, (), True),
    ("sin", -3, 3, -3, 4, True, (), True),
    ("cos", -3, 3, -3, 4, True, (), True),
    ("tan", -1.4, 1.4, -3, 4, True, (), True),
    ("asin", -1, 1, -1, 2, True, ("arcsin",), True),
    ("acos", -1, 1, -1, 2, True, ("arccos",), True),
    ("atan", -3, 3, -3, 4, True, ("arctan",), True),
    ("sinh", -3, 3, -3, 4, True, (), True),
    ("cosh", -3, 3, -3, 4, True, (), True),
    ("tanh", -3, 3, -3, 4, True, (), True),
    ("asinh", -3, 3, -3, 4, True, ("arcsinh",), True),
    ("acosh", 1, 5, 1, 10, True, ("arccosh",), True),
    ("atanh", -0.99, 0.99, -1, 2, True, ("arctanh",), True),
    ("sigmoid", -8, 8, -3, 4, True, (), True),
    ("erf", -3, 3, -3, 4, False, (), True),
    ("erfc", -3, 3, -3, 4, False, (), True),
    ("erfinv", -0.999, 0.999, -1, 2, False, (), False),
    ("deg2rad", -360, 360, -360, 360, False, (), True),
    ("rad2deg", -7, 7, -7, 7, False, (), True),
]

SPECS = []
for _name, _low, _high, _ilow, _ihigh, _cplx, _aliases, _fn_inplace in FLOAT_OPS:
    _cases = float_op_cases(_name, _low, _high, _ilow, _ihigh, complex_ok=_cplx,
                            aliases=_aliases)
    if not _cplx:
        _cases.append(C(fn(_name), make_complex(3, 4), "complex-error"))
    SPECS.append(OpSpec(_name, _cases))
    SPECS.append(OpSpec(_name + "_", inplace_cases(
        _name, _low, _high, aliases=_aliases, function=_fn_inplace, ilow=_ilow, ihigh=_ihigh,
        complex_ok=_cplx)))

# Domain edges PyTorch documents by example.
_EDGE = {
    "log": [-1.0, 0.0, -0.0, 1.0, INF],
    "sqrt": [-1.0, 0.0, -0.0, 4.0, INF],
    "rsqrt": [-1.0, 0.0, -0.0, 4.0, INF],
    "reciprocal": [0.0, -0.0, INF, -INF, 3.0],
    "acosh": [0.5, 1.0, INF],
    "atanh": [-1.0, 1.0, 1.5],
    "asin": [-1.0, 1.0, 1.5, -1.5],
    "erfinv": [-1.0, 1.0, 1.5, -2.0, 0.0, -0.0, 0.5, 0.999999, -0.9999999, 1e-30],
    "erf": [1e-30, 0.1, 1.49, 1.5, 1.51, 5.0, 27.0, -6.0],
    "erfc": [1e-30, 0.1, 1.49, 1.5, 1.51, 5.0, 10.0, 26.5, -6.0],
    "sigmoid": [-1000.0, 1000.0, -88.0, 88.0],
}
for _spec in SPECS:
    if _spec.name in _EDGE:
        _values = np.array(_EDGE[_spec.name])
        _spec.cases.append(C(fn(_spec.name), make_special("float32", _values), "edges"))
        _spec.cases.append(C(fn(_spec.name), make_special("float64", _values), "edges-float64",
                             rtol=1e-12, atol=0))
# float64 accuracy of the NumPy-free special functions against PyTorch.
for _spec in SPECS:
    if _spec.name in ("erf", "erfc", "erfinv"):
        _lo, _hi = (-0.9999, 0.9999) if _spec.name == "erfinv" else (-6, 6)
        _spec.cases.append(C(fn(_spec.name), make(200, low=_lo, high=_hi, dtype="float64"),
                             "float64-accuracy", rtol=1e-13, atol=1e-300))

SPECS += [
    OpSpec("angle", float_op_cases("angle", -3, 3, complex_ok=True) + [
        C(lambda lib, x: lib.angle(x, out=lib.empty(3, 4)), make_complex(3, 4),
          "complex-out-real"),
    ]),
]

# ----------------------------------------------------------------- same-dtype ops
SPECS += [
    OpSpec("neg", same_dtype_cases("neg", complex_ok=True, aliases=("negative",)) + [
        C(lambda lib, x: -x, make(3, 4), "operator"),
        C(lambda lib, x: -x, make(3, 4, dtype="bool"), "operator-bool"),
        C(lambda lib, x: -x.t(), make(3, 4), "operator-transposed"),
        C(lambda lib, x: -x, make(3, 4, low=0, high=255, dtype="uint8"), "uint8-wraps"),
    ]),
    OpSpec("neg_", same_dtype_inplace_cases("neg", aliases=("negative",)) + [
        C(lambda lib, x: lib.negative_(x), make(3, 4), "function-alias"),
    ]),
    OpSpec("abs", same_dtype_cases("abs", complex_ok=True, aliases=("absolute",)) + [
        C(lambda lib, x: abs(x), make(3, 4), "operator"),
        C(lambda lib, x: abs(x), make(3, 4, dtype="bool"), "operator-bool"),
        C(lambda lib, x: lib.abs(x), make_special("int8", np.array([-128, -1, 0, 127])),
          "int8-min-wraps"),
        C(lambda lib, x: lib.abs(x, out=lib.empty(3, 4)), make_complex(3, 4),
          "complex-out-real"),
        C(lambda lib, x: lib.abs(x, out=lib.empty(3, 4, dtype=lib.complex64)),
          make_complex(3, 4), "complex-out-complex"),
        C(lambda lib, x: lib.abs(x.t()), make_complex(3, 4), "complex-transposed"),
    ]),
    OpSpec("abs_", same_dtype_inplace_cases("abs") + [
        C(meth("absolute_"), make(3, 4), "alias-absolute_"),
        C(meth("abs_"), make_complex(3, 4), "complex-error"),
    ]),
    OpSpec("sign", same_dtype_cases("sign") + [
        C(fn("sign"), make_special("float64"), "special-float64"),
    ]),
    OpSpec("sign_", same_dtype_inplace_cases("sign", function=False)),
    OpSpec("sgn", same_dtype_cases("sgn", complex_ok=True) + [
        C(fn("sgn"), lambda lib: T(lib, np.array([3 + 4j, 0j, -2j, 1 + 0j], np.complex64)),
          "complex-zero"),
    ]),
    OpSpec("sgn_", same_dtype_inplace_cases("sgn", function=False) + [
        C(meth("sgn_"), make_complex(3, 4), "complex", **CPLX),
    ]),
    OpSpec("square", float_op_cases("square", complex_ok=True) + [
        C(fn("square"), make(3, 4, low=-50, high=50, dtype="int64"), "int64-stays-int"),
        C(fn("square"), make(3, 4, low=-20, high=20, dtype="int8"), "int8-wraps"),
        C(lambda lib, x: lib.square(x, out=lib.empty(3, 4, dtype=lib.int32)),
          make(3, 4, dtype="bool"), "bool-out-int32"),
    ]),
    OpSpec("square_", inplace_cases("square", float_result=False, function=True)),
    OpSpec("positive", [
        C(fn("positive"), make(3, 4), "float32"),
        C(meth("positive"), make(3, 4, dtype="int64"), "int64"),
        C(lambda lib, x: +x, make(3, 4), "operator"),
        C(lambda lib, x: +x.t(), make(3, 4), "operator-transposed"),
        C(lambda lib, x: lib.positive(x[1:, ::2]), make(3, 4), "strided-alias"),
        C(lambda lib, x: +x, make(3, 4, dtype="bool"), "bool-error"),
        C(fn("positive"), make_complex(3, 4), "complex"),
        C(lambda lib, x: lib.positive(x, out=lib.empty(3, 4)), make(3, 4), "no-out"),
    ]),
]

_ROUNDING = [("floor", ()), ("ceil", ()), ("trunc", ("fix",)), ("round", ())]
for _name, _aliases in _ROUNDING:
    _extra = [C(fn(_name), make(3, 4, low=-3, high=3), "halves")]
    SPECS.append(OpSpec(_name, same_dtype_cases(_name, aliases=_aliases, low=-5, high=5)
                        + _extra))
    SPECS.append(OpSpec(_name + "_", same_dtype_inplace_cases(_name, aliases=_aliases)))

_HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, 1234.5678, -0.0],
                   np.float32)
_round = next(s for s in SPECS if s.name == "round")
_round.cases += [
    C(fn("round"), make_special("float32", _HALVES), "half-to-even"),
    C(fn("round"), make_special("float16", _HALVES), "half-to-even-float16", **F16),
    C(fn("round", decimals=1), make_special("float32", _HALVES), "decimals-1"),
    C(fn("round", decimals=2), make(3, 4, low=-100, high=100), "decimals-2"),
    C(fn("round", decimals=3), make(3, 4, low=-100, high=100, dtype="float64"),
      "decimals-3-float64"),
    C(fn("round", decimals=-1), make_special("float32", _HALVES), "decimals-neg1"),
    C(fn("round", decimals=-2), make(3, 4, low=-1000, high=1000), "decimals-neg2"),
    C(fn("round", decimals=1), make(3, 4, low=-10, high=10, to="float16"), "decimals-float16",
      **F16),
    C(meth("round", decimals=1), make(3, 4), "decimals-method"),
    C(lambda lib, x: x.t().round(decimals=2), make(3, 4), "decimals-transposed"),
    C(lambda lib, x: lib.round(x, decimals=1, out=lib.empty(3, 4)), make(3, 4), "decimals-out"),
    C(fn("round", decimals=1), make(3, 4, dtype="int64"), "decimals-int-error"),
    C(fn("round", decimals=0), make(3, 4, dtype="int64"), "decimals-0-int-error"),
    C(fn("round", decimals=0), make(3, 4), "decimals-0-float"),
]
next(s for s in SPECS if s.name == "round_").cases += [
    C(meth("round_", decimals=2), make(3, 4), "decimals"),
    C(meth("round_", decimals=1), make(3, 4, dtype="int64"), "decimals-int-error"),
]

SPECS += [
    OpSpec("frac", same_dtype_cases("frac", low=-5, high=5)),
    OpSpec("frac_", same_dtype_inplace_cases("frac")),
    OpSpec("relu", [
        C(fn("relu"), make(3, 4), "float32"),
        C(meth("relu"), make(3, 4), "method"),
        C(fn("relu"), make(3, 4, dtype="float64"), "float64"),
        C(fn("relu"), make(3, 4, to="float16"), "float16"),
        C(fn("relu"), make(3, 4, to="bfloat16"), "bfloat16"),
        C(fn("relu"), make(3, 4, dtype="int64"), "int64"),
        C(fn("relu"), make(3, 4, low=0, high=255, dtype="uint8"), "uint8"),
        C(fn("relu"), make(3, 4, dtype="bool"), "bool-error"),
        C(fn("relu"), make_complex(3, 4), "complex-error"),
        C(fn("relu"), make_special(), "special-values"),
        C(lambda lib, x: lib.relu(x, out=lib.empty(3, 4)), make(3, 4), "no-out"),
    ] + layout_cases("relu", -3, 3)),
    OpSpec("relu_", same_dtype_inplace_cases("relu")[:3] + [
        C(meth("relu_"), make(3, 4, dtype="bool"), "bool-error"),
        C(lambda lib, x: x.t().relu_(), make(3, 4), "transposed"),
        C(lambda lib, x: lib.relu_(x), make(3, 4), "function"),
        C(lambda lib, x: (x.relu_(), x._version)[1], make(3, 4), "bumps-version"),
    ]),
    OpSpec("conj_physical", same_dtype_cases("conj_physical", complex_ok=True) + [
        C(lambda lib, x: lib.conj_physical(x.t()), make_complex(3, 4), "complex-transposed"),
    ]),
    OpSpec("conj_physical_", same_dtype_inplace_cases("conj_physical") + [
        C(meth("conj_physical_"), make_complex(3, 4), "complex"),
    ]),
]


# ------------------------------------------------------------------------ logit
_LOGIT_EDGES = np.array([0.0, 0.1, 0.5, 1.0, 1.5, -0.1, 1e-8, NAN], np.float32)
SPECS += [
    OpSpec("logit", float_op_cases("logit", 0.01, 0.99, 0, 2, complex_ok=False) + [
        C(fn("logit"), make_special("float32", _LOGIT_EDGES), "edges"),
        C(fn("logit", eps=1e-6), make_special("float32", _LOGIT_EDGES), "eps"),
        C(fn("logit", eps=0.6), make_special("float32", _LOGIT_EDGES), "eps-bounds-cross"),
        C(fn("logit", eps=-1.0), make_special("float32", _LOGIT_EDGES), "eps-negative"),
        C(fn("logit", eps=0.3), make_special("float16", _LOGIT_EDGES), "eps-float16", **F16),
        C(fn("logit"), make_special("float16", _LOGIT_EDGES), "float16-edges", **F16),
        C(fn("logit", eps=0.25), make_special("int64", np.array([0, 1, 2])), "eps-int"),
        C(meth("logit", eps=0.1), make(3, 4, low=0, high=1), "eps-method"),
        C(lambda lib, x: lib.logit(x, 0.1, out=lib.empty(3, 4)), make(3, 4, low=0, high=1),
          "eps-out"),
        C(fn("logit"), make_complex(3, 4), "complex-error"),
    ]),
    OpSpec("logit_", inplace_cases("logit", 0.01, 0.99, function=True, ilow=0, ihigh=2) + [
        C(meth("logit_", eps=0.2), make(3, 4, low=0, high=1), "eps"),
    ]),
]


# ------------------------------------------------------------------------ clamp
def _x(lib):
    return T(lib, arr(3, 4))


def _xi(lib):
    return T(lib, arr(3, 4, dtype="int64", low=-10, high=10))


def _xs(lib):
    return T(lib, SPECIAL)


def _bounds(lib):
    return (T(lib, arr(3, 4)), T(lib, arr(3, 1, seed=1, low=-1, high=0)),
            T(lib, arr(4, seed=2, low=0, high=1)))


SPECS += [
    OpSpec("clamp", [
        C(lambda lib, x: lib.clamp(x, -1, 1), _x, "numbers"),
        C(lambda lib, x: x.clamp(-1, 1), _x, "method"),
        C(lambda lib, x: x.clamp(min=-0.5), _x, "min-only"),
        C(lambda lib, x: x.clamp(max=0.5), _x, "max-only"),
        C(lambda lib, x: lib.clamp(x, min=None, max=0.5), _x, "min-none"),
        C(lambda lib, x: lib.clamp(x), _x, "both-none-error"),
        C(lambda lib, x: x.clamp(min=None, max=None), _x, "both-none-error-kw"),
        C(lambda lib, x: lib.clamp(x, 1, -1), _x, "min-above-max"),
        C(lambda lib, x: lib.clamp(x, -1, 1), _xs, "special-values"),
        C(lambda lib, x: lib.clamp(x, float("nan"), 1), _x, "nan-min"),
        C(lambda lib, x: lib.clamp(x, -1, float("nan")), _x, "nan-max"),
        C(lambda lib, x: lib.clamp(x, -3, 3), _xi, "int-int"),
        C(lambda lib, x: lib.clamp(x, 0.5, 2.5), _xi, "int-float-promotes"),
        C(lambda lib, x: lib.clamp(x, min=0.5), _xi, "int-float-min-only"),
        C(lambda lib, x: lib.clamp(x, 0, 1), make(3, 4, dtype="bool"), "bool-int-promotes"),
        C(lambda lib, x: lib.clamp(x, False, True), make(3, 4, dtype="bool"), "bool-bool-error"),
        C(lambda lib, x: lib.clamp(x, 0, 1), make_complex(3, 4), "complex-error"),
        C(lambda lib, x: lib.clamp(x, -1, 1), make(3, 4, dtype="float64"), "float64"),
        C(lambda lib, x: lib.clamp(x, -1, 1), make(3, 4, to="float16"), "float16"),
        C(lambda lib, x: lib.clamp(x, -1, 1), make(3, 4, to="bfloat16"), "bfloat16"),
        C(lambda lib, x: lib.clamp(x, 0, 100), make(3, 4, low=0, high=255, dtype="uint8"),
          "uint8"),
        C(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), _bounds, "tensor-bounds-broadcast"),
        C(lambda lib, x, lo, hi: lib.clamp(x, min=lo), _bounds, "tensor-min"),
        C(lambda lib, x, lo, hi: lib.clamp(x, max=hi), _bounds, "tensor-max"),
        C(lambda lib, x, lo, hi: lib.clamp(x, lo, 0.5), _bounds, "tensor-and-number"),
        C(lambda lib, x, lo, hi: lib.clamp(x, -0.5, hi), _bounds, "number-and-tensor"),
        C(lambda lib, x, lo, hi: lib.clamp(x[0], lo, hi), _bounds, "bounds-broadcast-up"),
        C(lambda lib, x, lo, hi: lib.clamp(x.t(), hi[:3, None], None), _bounds,
          "transposed-tensor-min"),
        C(lambda lib, x: lib.clamp(x, lib.tensor(0.5, dtype=lib.float64)), _xi,
          "int-0d-double-min"),
        C(lambda lib, x: lib.clamp(x, lib.tensor(0.5, dtype=lib.float64)), _x,
          "float32-0d-double-keeps-float32"),
        C(lambda lib, x: lib.clamp(x, lib.tensor([0.5] * 4, dtype=lib.float64)), _x,
          "float32-1d-double-promotes"),
        C(lambda lib, x: lib.clamp(x, "a"), _x, "bad-type"),
        C(lambda lib, x: lib.clamp(x, np.float64(-1.0), np.int64(1)), _x, "numpy-scalars"),
        C(lambda lib, x: lib.clamp(x, -1, 1, out=lib.empty(3, 4)), _x, "out"),
        C(lambda lib, x: lib.clamp(x, -1, 1, out=lib.empty(0)), _x, "out-empty"),
        C(lambda lib, x: lib.clamp(x, -1, 1, out=lib.empty(3, 4, dtype=lib.float64)), _x,
          "out-other-dtype-error"),
        C(lambda lib, x: lib.clamp(x, 0.5, 2.5, out=lib.empty(3, 4, dtype=lib.int64)), _xi,
          "out-int-for-float-error"),
        C(lambda lib, x: lib.clip(x, -1, 1), _x, "alias-clip"),
        C(lambda lib, x: x.clip(max=0), _x, "alias-clip-method"),
        C(lambda lib, x: lib.clamp(x, -1, 1), make_channels_last(), "channels-last"),
    ] + [C(lambda lib, x: x.clamp(-1, 1), c.make, f"layout-{c.name}")
         for c in layout_cases("abs", -3, 3)]),
    OpSpec("clamp_", [
        C(lambda lib, x: x.clamp_(-1, 1), _x, "numbers"),
        C(lambda lib, x: x.clamp_(min=0), _x, "min-only"),
        C(lambda lib, x: x.t().clamp_(max=0), _x, "transposed"),
        C(lambda lib, x: x.clamp_(-3, 3), _xi, "int"),
        C(lambda lib, x: x.clamp_(0.5, 2.5), _xi, "int-float-cast-error"),
        C(lambda lib, x: x.clamp_(), _x, "both-none-error"),
        C(lambda lib, x, lo, hi: x.clamp_(lo, hi), _bounds, "tensor-bounds"),
        C(lambda lib, x, lo, hi: x[0].clamp_(lo, hi), _bounds, "broadcast-up-error"),
        C(lambda lib, x: x[:1].expand(3, 4).clamp_(0, 1), _x, "expanded-error"),
        C(lambda lib, x: lib.clamp_(x, -1, 1), _x, "function"),
        C(lambda lib, x: x.clip_(-1, 1), _x, "alias-clip_"),
        C(lambda lib, x: lib.clip_(x, -1, 1), _x, "alias-clip_-function"),
        C(lambda lib, x: (x.clamp_(0, 1), x._version)[1], _x, "bumps-version"),
    ]),
]
for _name, _kw in (("clamp_min", "min"), ("clamp_max", "max")):
    SPECS += [
        OpSpec(_name, [
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 0.5), _x, "number"),
            C(lambda lib, x, n=_name: getattr(x, n)(0.5), _x, "method"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, lib.tensor(0.0)), _x, "tensor-0d"),
            C(lambda lib, x, lo, hi, n=_name: getattr(lib, n)(x, lo), _bounds, "tensor"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 2), _xi, "int"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 2.5), _xi, "int-float-promotes"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, None), _x, "none-error"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 0.0), _xs, "special-values"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x.t(), 0.0), _x, "transposed"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 0.0, out=lib.empty(3, 4)), _x, "out"),
            C(lambda lib, x, n=_name: getattr(lib, n)(x, 0, out=lib.empty(3, 4)), _xi,
              "out-dtype-error"),
        ]),
        OpSpec(_name + "_", [
            C(lambda lib, x, n=_name: getattr(x, n + "_")(0.5), _x, "number"),
            C(lambda lib, x, n=_name: getattr(x.t(), n + "_")(0.5), _x, "transposed"),
            C(lambda lib, x, n=_name: getattr(x, n + "_")(2.5), _xi, "int-float-cast-error"),
            C(lambda lib, x, lo, hi, n=_name: getattr(x, n + "_")(lo), _bounds, "tensor"),
            C(lambda lib, x, n=_name: getattr(lib, n + "_")(x, 0.0), _x, "function"),
        ]),
    ]


# ------------------------------------------------------------------------ nan_to_num
def _nan_complex(lib):
    return T(lib, np.array([complex(NAN, INF), complex(-INF, 1.0), 2 + 3j], np.complex64))


SPECS += [
    OpSpec("nan_to_num", [
        C(fn("nan_to_num"), make_special(), "float32"),
        C(fn("nan_to_num"), make_special("float64"), "float64", rtol=0, atol=0),
        C(fn("nan_to_num"), make_special("float16"), "float16"),
        C(fn("nan_to_num"), make_special("bfloat16"), "bfloat16"),
        C(meth("nan_to_num", nan=1.0, posinf=2.0, neginf=-2.0), make_special(), "values"),
        C(lambda lib, x: lib.nan_to_num(x, 5.0), make_special(), "nan-positional"),
        C(fn("nan_to_num", nan=1.5), make(3, 4, dtype="int64"), "int64-copies"),
        C(fn("nan_to_num"), make(3, 4, dtype="bool"), "bool-copies"),
        C(fn("nan_to_num"), _nan_complex, "complex"),
        C(lambda lib, x: lib.nan_to_num(x.view(3, 4).t()), make_special(
            values=np.concatenate([SPECIAL, [7.0]])), "transposed"),
        C(lambda lib, x: lib.nan_to_num(x, out=lib.empty(11)), make_special(), "out"),
        C(lambda lib, x: lib.nan_to_num(x, out=lib.empty(11, dtype=lib.float64)),
          make_special(), "out-dtype-error"),
        C(lambda lib, x: lib.nan_to_num(x, out=lib.empty(3, 4)), make(3, 4, dtype="int64"),
          "out-int-to-float-error"),
    ] + layout_cases("nan_to_num", -3, 3)),
    OpSpec("nan_to_num_", [
        C(meth("nan_to_num_"), make_special(), "float32"),
        C(meth("nan_to_num_", nan=-1.0, posinf=9.0), make_special("float16"), "float16"),
        C(meth("nan_to_num_"), make(3, 4, dtype="int64"), "int64"),
        C(lambda lib, x: lib.nan_to_num_(x), make_special(), "function"),
        C(lambda lib, x: x.view(3, 4).t().nan_to_num_(), make_special(
            values=np.concatenate([SPECIAL, [7.0]])), "transposed"),
    ]),
]


# ------------------------------------------------------------------------ complex parts
def _complex(lib):
    data = arr(3, 4) + 1j * arr(3, 4, seed=1)
    return T(lib, data.astype(np.complex64))


def _complex128(lib):
    data = arr(2, 3, 4, dtype="float64") + 1j * arr(2, 3, 4, seed=1, dtype="float64")
    return T(lib, data)


SPECS += [
    OpSpec("real", [
        C(lambda lib, x: x.real, _complex, "property-view"),
        C(lambda lib, x: lib.real(x), _complex, "function"),
        C(lambda lib, x: x.t().real, _complex, "transposed-view"),
        C(lambda lib, x: x[1:, ::2].real, _complex, "offset-strided-view"),
        C(lambda lib, x: x.permute(2, 0, 1).real, _complex128, "complex128-permuted"),
        C(lambda lib, x: x.real, _x, "real-input-alias"),
        C(lambda lib, x: lib.real(x), _xi, "int-input"),
        C(lambda lib, x: (x.real.add_(1), x)[1], _complex, "writes-through"),
        C(lambda lib, x: (setattr(x, "real", lib.zeros(3, 4)), x)[1], _complex, "setter"),
        C(lambda lib, x: x.real[0, 0], _complex, "0d-select"),
    ]),
    OpSpec("imag", [
        C(lambda lib, x: x.imag, _complex, "property-view"),
        C(lambda lib, x: lib.imag(x), _complex, "function"),
        C(lambda lib, x: x.t().imag, _complex, "transposed-view"),
        C(lambda lib, x: x[1:, ::2].imag, _complex, "offset-strided-view"),
        C(lambda lib, x: x.permute(2, 0, 1).imag, _complex128, "complex128-permuted"),
        C(lambda lib, x: x.imag, _x, "real-input-error"),
        C(lambda lib, x: lib.imag(x), _xi, "int-input-error"),
        C(lambda lib, x: (x.imag.mul_(2), x)[1], _complex, "writes-through"),
        C(lambda lib, x: (setattr(x, "imag", lib.ones(3, 4)), x)[1], _complex, "setter"),
    ]),
    OpSpec("conj", [
        C(lambda lib, x: x.conj(), _x, "real-alias"),
        C(lambda lib, x: lib.conj(x), _xi, "int-alias"),
        C(lambda lib, x: lib.conj(x.t()), _x, "real-transposed"),
        # PyTorch's result is a lazily conjugated view (storage shared, conj bit set);
        # jtensor materialises it, so compare the values through an ordinary op.
        C(lambda lib, x: lib.conj(x).abs(), _complex, "complex-abs-values"),
        C(lambda lib, x: lib.conj(x).angle(), _complex, "complex-angle-values"),
        C(lambda lib, x: lib.conj(x) * 1, _complex, "complex-values"),
    ]),
]
