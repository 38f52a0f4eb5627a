"""Specs of comparison, logical, bitwise and float-classification ops vs PyTorch."""

import operator

import numpy as np

from tests.harness.conformance import OpSpec, T, arr
from .spec_reductions import case as case34  # make=x34 by default
from .spec_softmax import case as auto  # make=None when the run takes only lib
from .spec_arithmetic import (EDGE_A, EDGE_B, INF, NAN, binary_cases, case, f34, fn, i34,
                              inplace_cases, nz34, zero_d)


def b34(lib, seed=0):
    return T(lib, arr(3, 4, dtype="bool", seed=seed))


def methods(name, *, scalar=True):
    cases = [case(lambda lib: getattr(f34(lib), name)(f34(lib, 1)), name="method")]
    if scalar:
        cases.append(case(lambda lib: getattr(i34(lib), name)(1), name="method-scalar"))
    return cases


def binary_spec(name, *, scalar_first=True, scalar=True, extra=()):
    return OpSpec(name, binary_cases(fn(name), scalar_first=scalar_first)
                  + methods(name, scalar=scalar) + list(extra))


def inplace_spec(name, extra=()):
    return OpSpec(name, inplace_cases(lambda lib, x, y: getattr(x, name)(y)) + list(extra))


def alias_cases(alias):
    return [
        case(lambda lib: getattr(lib, alias)(f34(lib), f34(lib, 1)), name=alias),
        case(lambda lib: getattr(f34(lib), alias)(0.5), name=alias + "-method"),
    ]


def alias_inplace(alias):
    return [case(lambda lib: getattr(f34(lib), alias)(f34(lib, 1)), name=alias)]


MIRRORED = {operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.gt,
            operator.le: operator.ge, operator.gt: operator.lt, operator.ge: operator.le}


def operator_cases(fn_, label):
    # ``1 > t`` runs ``t.__lt__(1)``: the mirrored operator reaches this op reflected. (``t ==
    # None`` runs no op at all: it is tested in test_arithmetic_properties.)
    return [
        case(lambda lib: fn_(f34(lib), f34(lib, 1)), name=f"operator-{label}"),
        case(lambda lib: fn_(i34(lib), 1), name=f"operator-{label}-scalar"),
        case(lambda lib: MIRRORED[fn_](1, i34(lib)), name=f"operator-{label}-reflected"),
        case(lambda lib: fn_(T(lib, np.array([1], dtype="uint8")), -1),
             name=f"operator-{label}-uint8-negative-wraps"),
        case(lambda lib: fn_(T(lib, np.array([1, 2], dtype="int8")), 1000),
             name=f"operator-{label}-int8-big-wraps"),
    ]


COMPARISONS = {"eq": (operator.eq, None), "ne": (operator.ne, "not_equal"),
               "lt": (operator.lt, "less"), "le": (operator.le, "less_equal"),
               "gt": (operator.gt, "greater"), "ge": (operator.ge, "greater_equal")}


def bitwise_operator_cases(binop, label):
    return [
        case(lambda lib: binop(i34(lib), i34(lib, 1)), name=f"operator{label}"),
        case(lambda lib: binop(b34(lib), b34(lib, 1)), name=f"operator{label}-bool"),
        case(lambda lib: binop(b34(lib), 1), name=f"operator{label}-bool-int"),
        case(lambda lib: binop(6, i34(lib)), name=f"reflected{label}"),
        case(lambda lib: binop(True, b34(lib)), name=f"reflected{label}-bool"),
        case(lambda lib: binop(f34(lib), 1), name=f"operator{label}-float"),
        case(lambda lib: binop(i34(lib), 1.5), name=f"operator{label}-float-scalar"),
        case(lambda lib: binop(i34(lib), None), name=f"operator{label}-none"),
    ]


def bitwise_inplace_operator_cases(iop, label):
    return [
        case(lambda lib: (lambda a: (lambda r: (r, r is a))(iop(a, i34(lib, 1))))(i34(lib)),
             name=f"inplace{label}="),
        case(lambda lib: iop(b34(lib), 3), name=f"inplace{label}=-bool-int"),
        case(lambda lib: iop(i34(lib), 1.5), name=f"inplace{label}=-float"),
    ]


SHIFT_A = np.array([1, -8, 3, -7, 100, -1, 5, 2], dtype="int64")
SHIFT_B = np.array([1, 1, 70, 70, -1, -1, 63, 64], dtype="int64")


def shift_cases(name):
    return [
        case(lambda lib: getattr(lib, name)(T(lib, SHIFT_A), T(lib, SHIFT_B)), name="edges"),
        case(lambda lib: getattr(lib, name)(T(lib, SHIFT_A.astype("int8")),
                                            T(lib, SHIFT_B.astype("int8"))), name="int8-edges"),
        case(lambda lib: getattr(lib, name)(T(lib, np.array([3, 200, 1], dtype="uint8")),
                                            T(lib, np.array([7, 1, 8], dtype="uint8"))),
             name="uint8-edges"),
        case(lambda lib: getattr(lib, name)(T(lib, np.array([3, -7], dtype="int8")), 300),
             name="int8-scalar-wraps"),
        case(lambda lib: getattr(lib, name)(b34(lib), 1), name="bool-int"),
        case(lambda lib: getattr(lib, name)(T(lib, np.array([1, 2])),
                                            T(lib, np.array([1, 2], dtype="uint8"))),
             name="int64-uint8"),
    ]


PREDICATE_INPUTS = [
    ("float", lambda lib: T(lib, EDGE_A)),
    ("float64", lambda lib: T(lib, EDGE_A).double()),
    ("half", lambda lib: T(lib, EDGE_A).half()),
    # (no NaN: PyTorch's float->bfloat16 cast makes NaN negative, jtensor's positive)
    ("bfloat16", lambda lib: T(lib, EDGE_A[np.isfinite(EDGE_A) | np.isinf(EDGE_A)]).bfloat16()),
    ("int", lambda lib: i34(lib)),
    ("uint8", lambda lib: T(lib, arr(3, 4, dtype="uint8", high=9))),
    ("bool", lambda lib: b34(lib)),
    ("complex", lambda lib: T(lib, np.array([1 + 1j, complex(NAN, 0), complex(0, INF),
                                             complex(-INF, 1)], dtype="complex64"))),
    ("transposed", lambda lib: f34(lib).t()),
    ("channels-last", lambda lib: T(lib, arr(2, 3, 4, 5)).contiguous(
        memory_format=lib.channels_last)),
    ("strided", lambda lib: f34(lib)[:, ::2]),
    ("0d", lambda lib: zero_d(lib, -INF, "float32")),
    ("empty", lambda lib: f34(lib)[:0]),
]


def predicate_spec(name, *, with_out):
    cases = [case(lambda lib, m=m: getattr(lib, name)(m(lib)), name=n)
             for n, m in PREDICATE_INPUTS]
    cases.append(case(lambda lib: getattr(T(lib, EDGE_A), name)(), name="method"))
    cases.append(case(lambda lib: getattr(lib, name)(2.0), name="number-input"))
    if with_out:
        cases += [
            case(lambda lib: getattr(lib, name)(T(lib, EDGE_A), out=lib.empty(0,
                                                                              dtype=lib.bool)),
                 name="out"),
            case(lambda lib: getattr(lib, name)(T(lib, EDGE_A), out=lib.empty(12)),
                 name="out-not-bool"),
        ]
    else:
        cases.append(case(lambda lib: getattr(lib, name)(T(lib, EDGE_A), out=lib.empty(12)),
                          name="no-out"))
    return OpSpec(name, cases)


CLOSE_PAIRS = [
    ("float", lambda lib: (f34(lib), f34(lib) + 1e-6)),
    ("float-different", lambda lib: (f34(lib), f34(lib, 1))),
    ("edge", lambda lib: (T(lib, EDGE_A), T(lib, EDGE_B))),
    ("edge-same", lambda lib: (T(lib, EDGE_A), T(lib, EDGE_A))),
    ("half", lambda lib: (T(lib, np.array([1., 1., 100., 0.])).half(),
                          T(lib, np.array([1.001, 1.0005, 100.05, 1e-8])).half())),
    ("bfloat16", lambda lib: (f34(lib).bfloat16(), (f34(lib) * 1.001).bfloat16())),
    ("float64", lambda lib: (f34(lib).double(), f34(lib).double() * (1 + 1e-6))),
    ("int", lambda lib: (T(lib, np.array([10, 100, 0, -5, 2 ** 40])),
                         T(lib, np.array([11, 100, 0, -6, 2 ** 40 + 1])))),
    ("bool", lambda lib: (b34(lib), b34(lib, 1))),
    ("complex", lambda lib: (T(lib, np.array([1 + 1j, complex(NAN, 0)], dtype="complex64")),
                             T(lib, np.array([1 + 1.00001j, complex(NAN, 0)],
                                             dtype="complex64")))),
    ("broadcast", lambda lib: (f34(lib), f34(lib)[0])),
    ("broadcast-error", lambda lib: (f34(lib), T(lib, arr(3)))),
    ("dtype-mismatch", lambda lib: (f34(lib), f34(lib).double())),
    ("transposed", lambda lib: (f34(lib).t(), f34(lib, 1).t())),
    ("0d", lambda lib: (zero_d(lib, 1.0, "float32"), f34(lib))),
]


def close_spec(name):
    cases = []
    for label, make in CLOSE_PAIRS:
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib)), name=label))
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib), equal_nan=True),
                          name=label + "-equal-nan"))
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib), rtol=0.1, atol=0.5),
                          name=label + "-loose"))
        cases.append(case(lambda lib, m=make: getattr(lib, name)(*m(lib), rtol=0, atol=0),
                          name=label + "-exact"))
    cases += [
        case(lambda lib: getattr(lib, name)(f34(lib), f34(lib), rtol=-1), name="negative-rtol"),
        case(lambda lib: getattr(lib, name)(f34(lib), f34(lib), atol=-1), name="negative-atol"),
        case(lambda lib: getattr(lib, name)(f34(lib), 1.0), name="scalar-other"),
        case(lambda lib: getattr(f34(lib), name)(f34(lib) * (1 + 1e-7)), name="method"),
    ]
    return OpSpec(name, cases)


SPECS = []
for _name, (_op, _alias) in COMPARISONS.items():
    SPECS.append(binary_spec(_name, scalar_first=False, extra=operator_cases(_op, _name) + (
        alias_cases(_alias) if _alias else []) + [
        case(lambda lib, n=_name: getattr(lib, n)(i34(lib), 1, out=lib.empty(3, 4)),
             name="out-float"),
        case(lambda lib, n=_name: getattr(lib, n)(f34(lib), 1, out=lib.empty(0, dtype=lib.int32)),
             name="out-int-resized"),
        case(lambda lib, n=_name: getattr(lib, n)(T(lib, np.array([2 ** 40 + 1])), 2 ** 40 + 0.5),
             name="int64-vs-float-scalar"),
    ]))
    SPECS.append(inplace_spec(_name + "_", extra=alias_inplace(_alias + "_") if _alias else ()))

for _name in ("logical_and", "logical_or", "logical_xor"):
    SPECS.append(binary_spec(_name, scalar_first=False, scalar=False, extra=[
        case(lambda lib, n=_name: getattr(lib, n)(f34(lib), T(lib, EDGE_A[:4]).view(1, 4)),
             name="nan-is-true"),
        case(lambda lib, n=_name: getattr(lib, n)(i34(lib), b34(lib), out=lib.empty(3, 4,
                                                                                  dtype=lib.uint8)),
             name="out-uint8"),
        case(lambda lib, n=_name: getattr(i34(lib), n)(1), name="method-scalar-refused"),
    ]))
    SPECS.append(inplace_spec(_name + "_"))

SPECS += [
    OpSpec("logical_not", [case(lambda lib, m=m: lib.logical_not(m(lib)), name=n)
                           for n, m in PREDICATE_INPUTS] + [
        case(lambda lib: lib.logical_not(f34(lib), out=lib.empty(3, 4, dtype=lib.int32)),
             name="out-int"),
        case(lambda lib: i34(lib).logical_not(), name="method"),
        case(lambda lib: lib.logical_not(1), name="number"),
    ]),
    OpSpec("logical_not_", [case(lambda lib, m=m: m(lib).logical_not_(), name=n)
                            for n, m in PREDICATE_INPUTS] + [
        case(lambda lib: f34(lib)[0].expand(3, 4).logical_not_(), name="expanded"),
    ]),
]

for _name, _binop, _iop, _label in (
        ("bitwise_and", operator.and_, operator.iand, "&"),
        ("bitwise_or", operator.or_, operator.ior, "|"),
        ("bitwise_xor", operator.xor, operator.ixor, "^"),
        ("bitwise_left_shift", operator.lshift, operator.ilshift, "<<"),
        ("bitwise_right_shift", operator.rshift, operator.irshift, ">>")):
    extra = bitwise_operator_cases(_binop, _label)
    if "shift" in _name:
        extra += shift_cases(_name)
    SPECS.append(binary_spec(_name, extra=extra))
    SPECS.append(inplace_spec(_name + "_", extra=bitwise_inplace_operator_cases(_iop, _label)))

SPECS += [
    OpSpec("bitwise_not", [case(lambda lib, m=m: lib.bitwise_not(m(lib)), name=n)
                           for n, m in PREDICATE_INPUTS] + [
        case(lambda lib: ~i34(lib), name="operator"),
        case(lambda lib: ~b34(lib), name="operator-bool"),
        case(lambda lib: ~T(lib, np.array([3, 0, 255], dtype="uint8")), name="operator-uint8"),
        case(lambda lib: ~f34(lib), name="operator-float"),
        case(lambda lib: ~T(lib, np.array([1j])), name="operator-complex"),
        case(lambda lib: ~i34(lib).t(), name="operator-transposed"),
        case(lambda lib: lib.bitwise_not(i34(lib), out=lib.empty(0, dtype=lib.long)),
             name="out"),
        case(lambda lib: lib.bitwise_not(i34(lib), out=lib.empty(3, 4, dtype=lib.int8)),
             name="out-narrower-int"),
    ]),
    OpSpec("bitwise_not_", [case(lambda lib, m=m: m(lib).bitwise_not_(), name=n)
                            for n, m in PREDICATE_INPUTS]),
    predicate_spec("isnan", with_out=False),
    predicate_spec("isinf", with_out=False),
    predicate_spec("isfinite", with_out=False),
    predicate_spec("isposinf", with_out=True),
    predicate_spec("isneginf", with_out=True),
    predicate_spec("signbit", with_out=True),
    close_spec("isclose"),
    close_spec("allclose"),
    OpSpec("equal", [
        case(lambda lib: lib.equal(f34(lib), f34(lib)), name="same"),
        case(lambda lib: lib.equal(f34(lib), f34(lib, 1)), name="different"),
        case(lambda lib: lib.equal(f34(lib), f34(lib)[0]), name="different-shape"),
        case(lambda lib: lib.equal(f34(lib)[:1], f34(lib)[0]), name="broadcastable-not-equal"),
        case(lambda lib: lib.equal(T(lib, EDGE_A), T(lib, EDGE_A)), name="nan-not-equal"),
        case(lambda lib: lib.equal(nz34(lib), nz34(lib).double()), name="dtypes-differ"),
        case(lambda lib: lib.equal(f34(lib).t(), f34(lib).t().contiguous()), name="layouts"),
        case(lambda lib: lib.equal(f34(lib), 1.0), name="scalar-other"),
        case(lambda lib: lib.equal(f34(lib)[:0], f34(lib)[:0]), name="empty"),
        case(lambda lib: f34(lib).equal(f34(lib)), name="method"),
    ]),
]


# ---------------------------------------------------------------------- isin
def ints(lib):
    return T(lib, np.array([[1, 2], [3, 4]])), T(lib, np.array([2, 3]))


SPECS += [
    OpSpec("isin", [
        auto(lambda lib, e, t: lib.isin(e, t), make=ints, name="basic"),
        auto(lambda lib, e, t: lib.isin(e, t, invert=True), make=ints, name="invert"),
        auto(lambda lib, e, t: lib.isin(e, t, assume_unique=True), make=ints, name="unique"),
        auto(lambda lib, e, t: lib.isin(e, 2), make=ints, name="scalar_test"),
        auto(lambda lib, e, t: lib.isin(elements=e, test_elements=t), make=ints, name="keywords"),
        auto(lambda lib, e, t: lib.isin(e, test_element=2), make=ints, name="test_element"),
        auto(lambda lib, e, t: lib.isin(elements=e, test_element=3.0, invert=True), make=ints,
             name="test_element_invert"),
        auto(lambda lib, e, t: lib.isin(element=3, test_elements=e), make=ints, name="element"),
        auto(lambda lib, e, t: lib.isin(element=t[0], test_elements=e), make=ints,
             name="element_0d"),
        auto(lambda lib, e, t: lib.isin(element=t[:1], test_elements=e), make=ints,
             name="element_1d_tensor_error"),
        auto(lambda lib, e, t: lib.isin(element=t, test_elements=e), make=ints,
             name="element_tensor_error"),
        auto(lambda lib, e, t: lib.isin(e, test_element=True), make=ints,
             name="test_element_bool_error"),
        auto(lambda lib, e, t: lib.isin(e, test_element=2, out=lib.empty(0, dtype=lib.bool)),
             make=ints, name="test_element_out"),
        auto(lambda lib, e, t: lib.isin(2, e), make=ints, name="scalar_element"),
        auto(lambda lib, e, t: lib.isin(2.0, e), make=ints, name="float_scalar_element"),
        auto(lambda lib, e, t: lib.isin(e, T(lib, np.array([2.5, 3.0]))), make=ints,
             name="promotes"),
        auto(lambda lib, e, t: lib.isin(e.float(), t), make=ints, name="float_elements"),
        auto(lambda lib, e, t: lib.isin(e.t(), t), make=ints, name="transposed"),
        auto(lambda lib, e, t: lib.isin(e, t.reshape(2, 1)), make=ints, name="2d_test"),
        auto(lambda lib, e, t: lib.isin(e[:, ::2], T(lib, np.array([3, 2, 1]))[::2]), make=ints,
             name="strided"),
        auto(lambda lib, e, t: lib.isin(T(lib, np.array([NAN, 1.0])), T(lib, np.array([NAN]))),
             make=ints, name="nan"),
        auto(lambda lib, e, t: lib.isin(e.half(), t), make=ints, name="half"),
        auto(lambda lib, e, t: lib.isin(e[0, 0], t), make=ints, name="zero_dim"),
        auto(lambda lib, e, t: lib.isin(e, t, out=lib.empty(0, dtype=lib.bool)), make=ints,
             name="out"),
        auto(lambda lib, e, t: lib.isin(e, T(lib, np.array([True]))), make=ints,
             name="bool_error"),
        auto(lambda lib, e, t: lib.isin(e.bool(), T(lib, np.array([True]))), make=ints,
             name="bool_elements_error"),
        auto(lambda lib, e, t: lib.isin(e, t.to(lib.complex64)), make=ints,
             name="complex_error"),
        auto(lambda lib: lib.isin(2, 3), name="two_scalars_error"),
    ]),
]


# ------------------------------------------------------------ is_nonzero, is_same_size
SPECS += [
    OpSpec("is_nonzero", [
        case34(lambda lib, x: x[0, 0].is_nonzero(), name="0d"),
        case34(lambda lib: lib.tensor(0.0).is_nonzero(), None, "zero"),
        case34(lambda lib: lib.tensor(-0.0).is_nonzero(), None, "negative-zero"),
        case34(lambda lib: lib.tensor(float("nan")).is_nonzero(), None, "nan"),
        case34(lambda lib: lib.tensor([[True]]).is_nonzero(), None, "bool-2d"),
        case34(lambda lib: lib.is_nonzero(lib.tensor([3])), None, "int"),
        case34(lambda lib: lib.tensor(0j).is_nonzero(), None, "complex-zero"),
        case34(lambda lib, x: x.is_nonzero(), name="many"),
        case34(lambda lib, x: x[1:2, 2:3].bfloat16().is_nonzero(), name="bfloat16"),
        case34(lambda lib, x: x[:0].is_nonzero(), name="empty"),
    ]),
    OpSpec("is_same_size", [
        case34(lambda lib, x: x.is_same_size(x.clone())),
        case34(lambda lib, x: lib.is_same_size(x, x.t()), name="different"),
        case34(lambda lib, x: x.is_same_size(x.int()), name="dtype-irrelevant"),
        case34(lambda lib, x: x.is_same_size(3), name="not-tensor"),
    ]),
]
