"""Specs of the statistics ops: quantiles, mode, logcumsumexp, dist, renorm, histogram,
trapezoid rules, cov/corrcoef, bincount/histc and diff."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_reductions import layouts
from .spec_softmax import case as auto  # make=None when the run takes only lib

NAN = float("nan")
INF = float("inf")


def R(lib, *shape, dtype="float32", seed=0, **kw):
    if dtype in ("float16", "bfloat16"):
        return T(lib, arr(*shape, seed=seed, **kw), dtype=dtype)
    return T(lib, arr(*shape, dtype=dtype, seed=seed, **kw))


def mk(*shapes, dtype="float32"):
    """A ``make`` building one input per shape (different seeds)."""
    return lambda lib: tuple(R(lib, *s, dtype=dtype, seed=i) for i, s in enumerate(shapes))


def case(run, make, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def x34(lib):
    return R(lib, 3, 4)


def x234(lib):
    return R(lib, 2, 3, 4)


def nan34(lib):
    a = arr(3, 4)
    a[0, 1] = a[2, 3] = a[2, 0] = np.nan
    a[1, :] = np.nan
    return T(lib, a)


def ties(lib):
    return T(lib, np.array([[3, 1, 3, 1, 2], [2, 2, 5, 5, 5], [4, 0, 0, 4, 7]], dtype="int64"))


LAYOUTS = [
    (lambda lib: R(lib, 4, 3).t(), "transposed"),
    (lambda lib: R(lib, 3, 8)[:, ::2], "strided"),
    (lambda lib: R(lib, 1, 4).expand(3, 4), "expanded"),
    (lambda lib: R(lib, 5, 6)[1:4, 2:], "offset"),
]


def quantile_cases(name):
    f = lambda lib, x, *a, **k: getattr(lib, name)(x, *a, **k)
    cases = [
        case(lambda lib, x: f(lib, x, 0.3), x34, "all"),
        case(lambda lib, x: getattr(x, name)(0.3, dim=1), x34, "method-dim"),
        case(lambda lib, x: f(lib, x, 0.3, 0, True), x34, "keepdim"),
        case(lambda lib, x: f(lib, x, 0.7, dim=None, keepdim=True), x34, "none-keepdim"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.1, 0.5, 1.0]), dim=1), x34, "q-tensor"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.1, 0.5]), dim=1, keepdim=True), x234,
             "q-tensor-keepdim-3d"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.1, 0.5]), dim=-2), x234, "q-tensor-dim"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.25, 0.5])), x34, "q-tensor-all"),
        case(lambda lib, x: f(lib, x, lib.tensor(0.4), dim=0), x34, "q-0d"),
        case(lambda lib, x: f(lib, x, 0.4, dim=0), lambda lib: R(lib, 3, 4, dtype="float64"),
             "float64"),
        case(lambda lib, x: f(lib, x, 0.3, dim=0), lambda lib: T(lib, np.array(2.5, "float32")),
             "0d"),
        case(lambda lib, x: f(lib, x, 0.5), lambda lib: R(lib, 3, 4, dtype="int64"),
             "int-error"),
        case(lambda lib, x: f(lib, x, 0.5), lambda lib: R(lib, 3, 4, dtype="float16"),
             "half-error"),
        case(lambda lib, x: f(lib, x, 1.5), x34, "q-range-error"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.5, 1.5])), x34, "q-tensor-range-error"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.5], dtype=lib.float64)), x34,
             "q-dtype-error"),
        case(lambda lib, x: f(lib, x, lib.tensor([[0.5]])), x34, "q-2d-error"),
        case(lambda lib, x: f(lib, x[:0], 0.5), x34, "empty-error"),
        case(lambda lib, x: f(lib, x, 0.5, interpolation="cubic"), x34, "interp-error"),
        case(lambda lib, x: f(lib, x, 0.5, dim=2), x34, "dim-error"),
        case(lambda lib, x: f(lib, x, 0.3, dim=1), nan34, "nan"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.0, 0.3, 1.0]), dim=0), nan34, "nan-dim0"),
        case(lambda lib, x: f(lib, x, 0.5, dim=1, out=lib.empty(0)), x34, "out"),
        case(lambda lib, x: f(lib, x, lib.tensor([]), dim=1), x34, "q-empty"),
        case(lambda lib, x: f(lib, x, 1), x34, "q-int"),
        case(lambda lib, x: f(lib, x, lib.tensor([0.2, 0.6]), dim=1, out=lib.empty(0)), x34,
             "out-q-tensor"),
        case(lambda lib, x: f(lib, x, 0.5, out=lib.empty(0, dtype=lib.float64)), x34,
             "out-dtype-error"),
    ]
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        cases.append(case(lambda lib, x, i=interp: f(lib, x, lib.tensor([0.0, 0.25, 0.5, 0.9]),
                                                     dim=1, interpolation=i),
                          lambda lib: R(lib, 3, 5), "interp-" + interp))
        cases.append(case(lambda lib, x, i=interp: f(lib, x, 0.5, dim=1, interpolation=i),
                          nan34, "nan-interp-" + interp))
    for make, lname in LAYOUTS:
        cases.append(case(lambda lib, x: f(lib, x, lib.tensor([0.3, 0.8]), dim=1), make, lname))
    return cases


def mode_cases():
    cases = [
        case(lambda lib, x: lib.mode(x), ties, "ties"),
        case(lambda lib, x: x.mode(0), ties, "dim0"),
        case(lambda lib, x: lib.mode(x, 1, keepdim=True), ties, "keepdim"),
        case(lambda lib, x: lib.mode(x.float()), ties, "float"),
        case(lambda lib, x: lib.mode(x.t()), ties, "transposed"),
        case(lambda lib, x: lib.mode(x > 2), ties, "bool"),
        case(lambda lib, x: lib.mode(x), lambda lib: R(lib, 3, 4, dtype="int32", low=0, high=3),
             "int32"),
        case(lambda lib, x: lib.mode(x), lambda lib: T(lib, np.array(3.0, "float32")), "0d"),
        case(lambda lib, x: lib.mode(x, 0), lambda lib: T(lib, np.zeros((0, 3), "float32")),
             "empty-dim-error"),
        case(lambda lib, x: lib.mode(x, 0), lambda lib: T(lib, np.zeros((3, 0), "float32")),
             "empty-other"),
        case(lambda lib, x: lib.mode(x), lambda lib: T(lib, np.zeros(0, "float32")),
             "empty-1d-error"),
        case(lambda lib, x: lib.mode(x, 2), ties, "dim-error"),
        case(lambda lib, x: lib.mode(x, 1, out=(lib.empty(0, dtype=lib.int64),
                                                lib.empty(0, dtype=lib.int64))), ties, "out"),
        case(lambda lib, x: lib.mode(x, 1, out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
             ties, "out-dtype-error"),
    ]
    return cases


def logcumsumexp_cases():
    f = lambda lib, x, *a, **k: lib.logcumsumexp(x, *a, **k)
    cases = [
        case(lambda lib, x: f(lib, x, 0), x34, "dim0"),
        case(lambda lib, x: x.logcumsumexp(-1), x34, "method"),
        case(lambda lib, x: f(lib, x * 1000, 1), x34, "stable-large"),
        case(lambda lib, x: f(lib, x - 1000, 1), x34, "stable-small"),
        case(lambda lib, x: f(lib, x, 0),
             lambda lib: T(lib, np.array([-INF, 1.0, INF, 2.0, NAN], "float32")), "inf-nan"),
        case(lambda lib, x: f(lib, x, 0), lambda lib: T(lib, np.array([-INF, -INF], "float32")),
             "all-neg-inf"),
        case(lambda lib, x: f(lib, x, 1), lambda lib: R(lib, 3, 4, dtype="float64"), "float64"),
        case(lambda lib, x: f(lib, x, 1), lambda lib: R(lib, 3, 4, dtype="float16"), "float16",
             atol=1e-2, rtol=1e-2),
        case(lambda lib, x: f(lib, x, 1), lambda lib: R(lib, 3, 4, dtype="bfloat16"),
             "bfloat16", atol=5e-2, rtol=5e-2),
        case(lambda lib, x: f(lib, x, 0), lambda lib: R(lib, 3, 4, dtype="int64"), "int-error"),
        case(lambda lib, x: f(lib, x, 0), lambda lib: T(lib, np.array(2.5, "float32")), "0d"),
        case(lambda lib, x: f(lib, x, 0), lambda lib: T(lib, np.zeros((0, 3), "float32")),
             "empty"),
        case(lambda lib, x: f(lib, x, 2), x34, "dim-error"),
        case(lambda lib, x: f(lib, x, 1, out=lib.empty(0)), x34, "out"),
        case(lambda lib, x: f(lib, x, 1), lambda lib: R(lib, 3, 4).to(lib.complex64) * 1j + 0.5,
             "complex", atol=1e-5),
    ]
    for make, lname in LAYOUTS:
        cases.append(case(lambda lib, x: f(lib, x, 1), make, lname))
    return cases


def dist_cases():
    cases = [case(lambda lib, a, b, p=p: lib.dist(a, b, p), mk((3, 4), (3, 4)), f"p{p}")
             for p in (2, 1, 0, 3, 0.5, INF, -INF)]
    cases += [
        case(lambda lib, a, b: a.dist(b), mk((3, 4), (4,)), "broadcast-method"),
        case(lambda lib, a, b: lib.dist(a, b.double()), mk((3, 4), (3, 4)), "promote"),
        case(lambda lib, a, b: lib.dist(a.t(), b[:, ::2]), mk((4, 3), (3, 8)), "layouts"),
        case(lambda lib, a, b: lib.dist(a, b), mk((3, 4), (3, 4), dtype="int64"), "int-error"),
        case(lambda lib, a, b: lib.dist(a, b), mk((3, 4), (3, 5)), "shape-error"),
        case(lambda lib, a, b: lib.dist(a.half(), b.half()), mk((3, 4), (3, 4)), "float16",
             atol=1e-2, rtol=1e-2),
        case(lambda lib, a, b: lib.dist(a, b * NAN), mk((3, 4), (3, 4)), "nan"),
        case(lambda lib, a, b: lib.dist(a[:0], b[:0]), mk((3,), (3,)), "empty"),
        case(lambda lib, a, b: lib.dist(a[:0], b[:0], INF), mk((3,), (3,)), "empty-inf-error"),
        case(lambda lib, a, b: lib.dist(a[:0], b[:0], -INF), mk((3,), (3,)),
             "empty-neginf-error"),
    ]
    return cases


def renorm_cases():
    cases = [
        case(lambda lib, x: lib.renorm(x, 2, 0, 3.0), x34, "dim0"),
        case(lambda lib, x: x.renorm(1, 1, 2.0), x34, "method-p1"),
        case(lambda lib, x: x.renorm(INF, -1, 1.0), x234, "inf-3d"),
        case(lambda lib, x: lib.renorm(x, 3, 1, 100.0), x34, "no-change"),
        case(lambda lib, x: lib.renorm(x, 2, 0, 0.0), x34, "maxnorm0"),
        case(lambda lib, x: lib.renorm(x, 2, 0, 1.0), lambda lib: R(lib, 3, 4, dtype="float64"),
             "float64"),
        case(lambda lib, x: lib.renorm(x, 2, 0, 1.0), lambda lib: R(lib, 3, 4, dtype="float16"),
             "float16", atol=1e-2, rtol=1e-2),
        case(lambda lib, x: lib.renorm(x, 2, 0, 1.0), lambda lib: R(lib, 3, 4, dtype="int64"),
             "int-error"),
        case(lambda lib, x: lib.renorm(x, 2, 0, 1.0), lambda lib: R(lib, 4), "1d-error"),
        case(lambda lib, x: lib.renorm(x, 0, 0, 1.0), x34, "p-error"),
        case(lambda lib, x: lib.renorm(x, 2, 0, -1.0), x34, "maxnorm-error"),
        case(lambda lib, x: lib.renorm(x, 2, 2, 1.0), x34, "dim-error"),
        case(lambda lib, x: lib.renorm(x, 2, 0, 1.0, out=lib.empty(0)), x34, "out"),
    ]
    for make, lname in LAYOUTS:
        cases.append(case(lambda lib, x: lib.renorm(x, 2, 1, 1.5), make, lname))
    return cases


def renorm__cases():
    return [
        case(lambda lib, x: x.renorm_(2, 0, 3.0), x34, "inplace"),
        case(lambda lib, x: x.renorm_(1, 1, 1.0), lambda lib: R(lib, 4, 3).t(), "transposed"),
        case(lambda lib, x: x.renorm_(2, 0, 1.0), lambda lib: R(lib, 3), "1d-error"),
        case(lambda lib, x: x.renorm_(2, 0, 1.0),
             lambda lib: T(lib, arr(3, 4), requires_grad=True), "leaf-error"),
    ]


def histogram_cases():
    def hist(lib, x, *a, **k):
        return lib.histogram(x, *a, **k)
    return [
        case(lambda lib, x: hist(lib, x), x34, "default"),
        case(lambda lib, x: hist(lib, x, 5), x34, "bins"),
        case(lambda lib, x: x.histogram(7), lambda lib: R(lib, 50, seed=3), "method"),
        case(lambda lib, x: hist(lib, x, 4, range=(-1.0, 2.0)), x34, "range"),
        case(lambda lib, x: hist(lib, x, 4, density=True), x34, "density"),
        case(lambda lib, x: hist(lib, x, 4, weight=x.abs()), x34, "weight"),
        case(lambda lib, x: hist(lib, x, 4, weight=x.abs(), density=True), x34,
             "weight-density"),
        case(lambda lib, x: hist(lib, x, lib.tensor([-3.0, -1.0, 0.0, 0.5, 2.0])), x34,
             "bins-tensor"),
        case(lambda lib, x: hist(lib, x, 3), lambda lib: T(lib, np.full(5, 2.0, "float32")),
             "constant"),
        case(lambda lib, x: hist(lib, x, 3), lambda lib: T(lib, np.array([0., 1., 2., 3.])),
             "edges-exact-f64"),
        case(lambda lib, x: hist(lib, x, 10), lambda lib: R(lib, 200, seed=5, dtype="float64"),
             "float64"),
        case(lambda lib, x: hist(lib, x.t(), 6), lambda lib: R(lib, 5, 4), "transposed"),
        case(lambda lib, x: hist(lib, x, 3), lambda lib: R(lib, 3, 4, dtype="int64"),
             "int-error"),
        case(lambda lib, x: hist(lib, x, 0), x34, "bins0-error"),
        case(lambda lib, x: hist(lib, x, 3, range=(2.0, 1.0)), x34, "range-error"),
        case(lambda lib, x: hist(lib, x, lib.tensor([0.0, 1.0], dtype=lib.float64)), x34,
             "bins-dtype-error"),
        case(lambda lib, x: hist(lib, x, 4, out=(lib.empty(0), lib.empty(0))), x34, "out"),
        case(lambda lib, x: hist(lib, x[:0], 3), x34, "empty"),
        case(lambda lib, x: hist(lib, x[:0], 3, range=(2.0, 2.0)), x34, "empty-point-range"),
        case(lambda lib, x: hist(lib, x, 3), nan34, "nan-error"),
        case(lambda lib, x: hist(lib, x, 3, range=(-1.0, 1.0)), nan34, "nan-with-range"),
        case(lambda lib, x: hist(lib, x, 3, range=(0.0, INF)), x34, "inf-range-error"),
    ]


def trapezoid_cases(name):
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)
    cases = [
        case(lambda lib, y: f(lib, y), x34, "default"),
        case(lambda lib, y: f(lib, y, dim=0), x34, "dim0"),
        case(lambda lib, y: f(lib, y, dx=0.5), x34, "dx"),
        case(lambda lib, y: f(lib, y, dx=2, dim=1), x234, "dx-3d"),
        case(lambda lib, y, x: f(lib, y, x), mk((3, 4), (4,)), "x-1d"),
        case(lambda lib, y, x: f(lib, y, x, dim=0), mk((3, 4), (3,)), "x-1d-dim0"),
        case(lambda lib, y, x: f(lib, y, x), mk((3, 4), (3, 4)), "x-same-shape"),
        case(lambda lib, y, x: f(lib, y, x), mk((3, 4), (1, 4)), "x-broadcast"),
        case(lambda lib, y, x: f(lib, y, x.double()), mk((3, 4), (4,)), "x-promote"),
        case(lambda lib, y: f(lib, y), lambda lib: R(lib, 3, 4, dtype="int64"), "int"),
        case(lambda lib, y: f(lib, y, dx=0.5), lambda lib: R(lib, 3, 4, dtype="int64"),
             "int-float-dx"),
        case(lambda lib, y, x: f(lib, y, x), mk((3, 4), (4,), dtype="int64"), "int-x"),
        case(lambda lib, y: f(lib, y), lambda lib: R(lib, 3, 4, dtype="float64"), "float64"),
        case(lambda lib, y: f(lib, y), lambda lib: R(lib, 3, 4, dtype="float16"), "float16",
             atol=2e-2, rtol=1e-2),
        case(lambda lib, y: f(lib, y.t()), lambda lib: R(lib, 4, 3), "transposed"),
        case(lambda lib, y: f(lib, y[:, ::2]), lambda lib: R(lib, 3, 8), "strided"),
        case(lambda lib, y: f(lib, y), lambda lib: T(lib, np.zeros((3, 0), "float32")),
             "empty-dim"),
        case(lambda lib, y: f(lib, y), lambda lib: R(lib, 3, 1), "single-sample"),
        case(lambda lib, y, x: f(lib, y, x), mk((3, 4), (5,)), "x-size-error"),
        case(lambda lib, y: f(lib, y, dim=2), x34, "dim-error"),
        case(lambda lib, y: f(lib, y), nan34, "nan"),
        # An x with more than one dim but fewer than y gets leading 1s, then is differenced
        # along dim (wrapped for y) and broadcast with y's intervals.
        case(lambda lib, y, x: f(lib, y, x, dim=1), mk((2, 3, 4), (3, 4)), "x-2d-y-3d-dim1"),
        case(lambda lib, y, x: f(lib, y, x, dim=-2), mk((2, 3, 4), (3, 4)), "x-2d-y-3d-dim-2"),
        case(lambda lib, y, x: f(lib, y, x, dim=2), mk((2, 3, 4), (3, 4)), "x-2d-y-3d-dim2"),
        case(lambda lib, y, x: f(lib, y, x, dim=0), mk((2, 3, 4), (3, 4)), "x-2d-y-3d-dim0"),
        case(lambda lib, y, x: f(lib, y, x, dim=1), mk((2, 3, 4), (3, 1)), "x-column-y-3d"),
        case(lambda lib, y, x: f(lib, y, x, dim=1), mk((2, 3, 4), (3, 5)),
             "x-2d-broadcast-error"),
        case(lambda lib, y, x: f(lib, y, x, dim=1), mk((2, 3, 4), (1, 4)),
             "x-2d-one-sample-error"),
        case(lambda lib, y, x: f(lib, y, x, dim=0), mk((3, 4), (2, 3, 4)), "x-more-dims-error"),
        case(lambda lib, y, x: f(lib, y, x, dim=1), mk((2, 0, 4), (0, 4)), "x-2d-no-samples"),
        case(lambda lib, y, x: f(lib, y, x), lambda lib: (R(lib, 3, 0, dtype="int64"),
                                                          R(lib, 4)), "x-no-samples-int"),
        case(lambda lib, y, x: f(lib, y, x > 0), mk((3, 4), (4,)), "x-bool-error"),
        case(lambda lib, y: f(lib, y > 0), x34, "bool-error"),
        case(lambda lib, y: f(lib, y[:, :0] > 0), x34, "bool-no-samples"),
        case(lambda lib, y: f(lib, y, dx=True), x34, "dx-bool-error"),
        case(lambda lib, y: f(lib, y, dx=2j), x34, "dx-complex-error"),
        case(lambda lib, y: f(lib, y[:, :0]), lambda lib: R(lib, 3, 4, dtype="int64"),
             "no-samples-int"),
    ]
    return cases


def cov_cases():
    w4 = lambda lib: lib.tensor([1, 2, 0, 3])
    a4 = lambda lib: lib.tensor([0.5, 1.0, 2.0, 0.25])
    return [
        case(lambda lib, x: lib.cov(x), x34, "default"),
        case(lambda lib, x: x.cov(correction=0), x34, "correction0"),
        case(lambda lib, x: lib.cov(x, correction=2), x34, "correction2"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 5), "1d"),
        case(lambda lib, x: lib.cov(x, fweights=w4(lib)), x34, "fweights"),
        case(lambda lib, x: lib.cov(x, aweights=a4(lib)), x34, "aweights"),
        case(lambda lib, x: lib.cov(x, fweights=w4(lib), aweights=a4(lib)), x34, "both"),
        case(lambda lib, x: lib.cov(x, fweights=w4(lib), aweights=a4(lib), correction=0), x34,
             "both-correction0"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 3, 4, dtype="int64"), "int"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 3, 4, dtype="float64"), "float64"),
        case(lambda lib, x: lib.cov(x.t()), lambda lib: R(lib, 5, 3), "transposed"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 3, 1), "one-obs"),
        # One variable in a (1, n) matrix: the result is squeezed to 0-d.
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 1, 5), "one-row"),
        case(lambda lib, x: lib.cov(x, fweights=w4(lib), aweights=a4(lib)),
             lambda lib: R(lib, 1, 4), "one-row-weights"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 1, 1), "one-row-one-obs"),
        case(lambda lib, x: lib.cov(x), lambda lib: R(lib, 1, 0), "one-row-no-obs"),
        case(lambda lib, x: lib.cov(x), nan34, "nan"),
        case(lambda lib, x: lib.cov(x[:, :0]), x34, "no-obs"),
        case(lambda lib, x: lib.cov(x[:0]), x34, "no-vars"),
        case(lambda lib, x: lib.cov(x, correction=5), lambda lib: R(lib, 3), "dof-negative"),
        case(lambda lib, x: lib.cov(x), x234, "3d-error"),
        case(lambda lib, x: lib.cov(x, fweights=lib.tensor([1.0, 2, 3, 4])), x34,
             "fweights-float-error"),
        case(lambda lib, x: lib.cov(x, fweights=lib.tensor([1, 2, 3])), x34,
             "fweights-size-error"),
        case(lambda lib, x: lib.cov(x, fweights=lib.tensor([1, -2, 3, 1])), x34,
             "fweights-negative-error"),
        case(lambda lib, x: lib.cov(x, aweights=lib.tensor([1, 2, 3, 4])), x34,
             "aweights-int-error"),
        case(lambda lib, x: lib.cov(x, aweights=lib.tensor([1.0, -2, 3, 1])), x34,
             "aweights-negative-error"),
        case(lambda lib, x: lib.cov(x, fweights=lib.tensor([0, 0, 0, 0])), x34,
             "fweights-sum-zero-error"),
        case(lambda lib, x: lib.cov(x, aweights=lib.tensor([0.0, 0.0, 0.0, 0.0])), x34,
             "aweights-sum-zero-error"),
        case(lambda lib, x: lib.cov(x, fweights=w4(lib), aweights=lib.tensor([0.0, 1, 0, 0])),
             x34, "weights-product-zero-error"),
    ]


def corrcoef_cases():
    return [
        case(lambda lib, x: lib.corrcoef(x), x34, "default"),
        case(lambda lib, x: x.corrcoef(), lambda lib: R(lib, 4, 6), "method"),
        case(lambda lib, x: lib.corrcoef(x), lambda lib: R(lib, 5), "1d"),
        case(lambda lib, x: lib.corrcoef(x), lambda lib: R(lib, 3, 4, dtype="int64"), "int"),
        case(lambda lib, x: lib.corrcoef(x), lambda lib: R(lib, 3, 4, dtype="float64"),
             "float64"),
        case(lambda lib, x: lib.corrcoef(x.t()), lambda lib: R(lib, 5, 3), "transposed"),
        case(lambda lib, x: lib.corrcoef(x), nan34, "nan"),
        case(lambda lib, x: lib.corrcoef(x), x234, "3d-error"),
        # One variable in a (1, n) matrix: the result is squeezed to 0-d (c / c).
        case(lambda lib, x: lib.corrcoef(x), lambda lib: R(lib, 1, 5), "one-row"),
        case(lambda lib, x: lib.corrcoef(x), lambda lib: R(lib, 1, 1), "one-row-one-obs"),
        case(lambda lib, x: lib.corrcoef(x[:, ::2]), lambda lib: R(lib, 1, 6, dtype="float64"),
             "one-row-strided"),
    ]


SPECS = [
    OpSpec("quantile", quantile_cases("quantile")),
    OpSpec("nanquantile", quantile_cases("nanquantile")),
    OpSpec("mode", mode_cases()),
    OpSpec("logcumsumexp", logcumsumexp_cases()),
    OpSpec("dist", dist_cases()),
    OpSpec("renorm", renorm_cases()),
    OpSpec("renorm_", renorm__cases()),
    OpSpec("histogram", histogram_cases()),
    OpSpec("trapezoid", trapezoid_cases("trapezoid")),
    OpSpec("trapz", trapezoid_cases("trapz")),
    OpSpec("cumulative_trapezoid", trapezoid_cases("cumulative_trapezoid")),
    OpSpec("cov", cov_cases()),
    OpSpec("corrcoef", corrcoef_cases()),
]


# ---------------------------------------------------------------------- bincount, histc, diff
def idx(values, dtype="int64"):
    return lambda lib: T(lib, np.array(values, dtype))


SPECS += [
    OpSpec("bincount", [
        auto(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5]), name="basic"),
        auto(lambda lib, x: x.bincount(minlength=8), make=idx([1, 2, 2, 5]), name="minlength"),
        auto(lambda lib, x: x.bincount(minlength=2), make=idx([1, 2, 2, 5]),
             name="minlength_small"),
        auto(lambda lib, x: lib.bincount(x, weights=T(lib, np.array([1.0, 2, 3, 4], "float32"))),
             make=idx([1, 2, 2, 5]), name="weights_f32"),
        auto(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0, 2, 3, 4]), dtype="float16")),
             make=idx([1, 2, 2, 5]), name="weights_f16"),
        auto(lambda lib, x: lib.bincount(x, T(lib, np.array([1, 2, 3, 4]))),
             make=idx([1, 2, 2, 5]), name="weights_int"),
        auto(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0, 2, 3, 4]))),
             make=idx([1, 2, 2, 5]), name="weights_f64"),
        auto(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5], "int32"), name="int32"),
        auto(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5], "uint8"), name="uint8"),
        auto(lambda lib, x: lib.bincount(x[::2]), make=idx([1, 2, 2, 5, 7, 0]), name="strided"),
        auto(lambda lib, x: lib.bincount(x, minlength=3), make=idx([]), name="empty"),
        auto(lambda lib, x: lib.bincount(x), make=idx([1, -2, 2]), name="negative_error"),
        auto(lambda lib, x: lib.bincount(x), make=idx([1.0, 2.0], "float32"), name="float_error"),
        auto(lambda lib, x: lib.bincount(x), make=idx([True, False], "bool"), name="bool_error"),
        auto(lambda lib, x: lib.bincount(x), make=idx([[1, 2]]), name="2d_error"),
        auto(lambda lib, x: lib.bincount(x, minlength=-1), make=idx([1]), name="minlength_error"),
        auto(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0]))), make=idx([1, 2]),
             name="weights_len_error"),
    ]),
    OpSpec("histc", [
        auto(lambda lib, x: lib.histc(x, bins=4), name="data_range"),
        auto(lambda lib, x: x.histc(bins=4, min=-1, max=1), name="range"),
        auto(lambda lib, x: lib.histc(x), name="default_bins"),
        auto(lambda lib, x: lib.histc(x, 5, -2.5, 2.5), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="transposed"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, arr(3, 4, dtype="float64")),
             name="float64"),
        auto(lambda lib, x: lib.histc(x, 4, 0, 4),
             make=lambda lib: T(lib, np.array([0.5, 1.5, 2.5, 3.5, 4.0, 5.0, -1.0]), "float16"),
             name="float16"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.ones(3, "float32")),
             name="constant"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.zeros(0, "float32")),
             name="empty"),
        auto(lambda lib, x: lib.histc(x, 4, min=0, max=4),
             make=lambda lib: T(lib, np.array([0.0, 1.0, 2.0, 3.0, 4.0], "float32")),
             name="edges"),
        auto(lambda lib, x: lib.histc(x, 4, out=lib.empty(2)), name="out"),
        auto(lambda lib, x: lib.histc(x, bins=0), name="bins_error"),
        auto(lambda lib, x: lib.histc(x, bins=3, min=2, max=1), name="min_max_error"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.array([1.0, NAN])),
             name="nan_error"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.array([1.0, INF])),
             name="inf_error"),
        auto(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.arange(4)),
             name="int_error"),
    ]),
    OpSpec("diff", [
        auto(lambda lib, x: lib.diff(x), name="default"),
        auto(lambda lib, x: x.diff(n=2, dim=0), name="n2_dim0"),
        auto(lambda lib, x: lib.diff(x, n=5), name="n_too_big"),
        auto(lambda lib, x: lib.diff(x, n=4), name="n_equals_size"),
        auto(lambda lib, x: lib.diff(x, n=0), name="n0"),
        auto(lambda lib, x: lib.diff(x, n=0), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="n0_transposed"),
        # n=0 checks prepend/append, then returns a copy of the input alone.
        auto(lambda lib, x: lib.diff(x, n=0, prepend=T(lib, arr(3, 1, seed=2))),
             name="n0_prepend_ignored"),
        auto(lambda lib, x: lib.diff(x, n=0, prepend=T(lib, arr(3, 1, seed=2), dtype="float64"),
                                     append=T(lib, arr(3, 2, seed=3))), name="n0_both_ignored"),
        auto(lambda lib, x: lib.diff(x, n=0, dim=0, append=T(lib, np.ones((1, 4), "float32"))),
             make=lambda lib: T(lib, arr(4, 3)).t(), name="n0_append_transposed"),
        auto(lambda lib, x: lib.diff(x, n=0, prepend=T(lib, np.ones((3, 1), "float32"))),
             make=lambda lib: T(lib, arr(3, 4, dtype="int64")), name="n0_int_prepend_float"),
        auto(lambda lib, x: lib.diff(x, n=0, append=T(lib, arr(2, 2))), name="n0_append_error"),
        auto(lambda lib, x: lib.diff(x, n=0, prepend=T(lib, arr(3))), name="n0_prepend_dim_error"),
        auto(lambda lib, x: lib.diff(x, out=lib.empty(0)), name="out"),
        auto(lambda lib, x: lib.diff(x, out=lib.empty(3, 3).t()), name="out_transposed"),
        auto(lambda lib, x: lib.diff(x, out=lib.empty(3, 4).t()), name="out_resized"),
        auto(lambda lib, x: lib.diff(x, n=2, dim=0, out=lib.empty(0, dtype=lib.float16)),
             name="out_downcast", atol=1e-2, rtol=1e-2),
        auto(lambda lib, x: lib.diff(x, out=lib.empty(0, dtype=lib.long)), name="out_cast_error"),
        auto(lambda lib, x: lib.diff(x, out=lib.empty(0)), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="out_transposed_input"),
        auto(lambda lib, x: lib.diff(x > 0, out=lib.empty(0)), name="out_bool_xor"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, arr(3, 1, seed=2), dtype="float64"),
                                     out=lib.empty(0, dtype=lib.float64)), name="out_prepend"),
        auto(lambda lib, x: lib.diff(x, n=0, out=lib.empty(0)), name="out_n0"),
        auto(lambda lib, x: lib.diff(x, n=0, out=lib.empty(4, 3).t()), name="out_n0_transposed"),
        auto(lambda lib, x: lib.diff(x, n=0, out=lib.empty(0, dtype=lib.float64)),
             name="out_n0_dtype_error"),
        auto(lambda lib, x: lib.diff(x, n=5), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="n_too_big_transposed"),
        auto(lambda lib, x: lib.diff(x, dim=0), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="transposed_dim0"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, arr(3, 1, seed=2)),
                                     append=T(lib, arr(3, 2, seed=3))), name="prepend_append"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones((3, 1), "float32"))),
             make=lambda lib: T(lib, arr(4, 3)).t(), name="prepend_transposed"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, np.array([2.0], "float32"))),
             make=idx([1, 5]), name="prepend_promotes"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, np.array([True]))), make=idx([1, 5]),
             name="prepend_bool"),
        auto(lambda lib, x: lib.diff(x), make=idx([True, False, False], "bool"), name="bool"),
        auto(lambda lib, x: lib.diff(x, n=2), make=idx([True, False, False], "bool"),
             name="bool_n2"),
        auto(lambda lib, x: lib.diff(x), make=idx([1, 5, 2], "uint8"), name="uint8_wraps"),
        auto(lambda lib, x: lib.diff(x), make=lambda lib: T(lib, arr(3, 4), dtype="float16"),
             name="float16", atol=1e-2),
        auto(lambda lib, x: lib.diff(x, n=3, dim=1), make=lambda lib: T(lib, arr(2, 6, 3)),
             name="3d_n3"),
        auto(lambda lib, x: lib.diff(x, n=-1), name="n_negative_error"),
        auto(lambda lib, x: lib.diff(x), make=lambda lib: T(lib, np.array(1.0)),
             name="zero_dim_error"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones(3))), name="prepend_dim_error"),
        auto(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones((2, 1), "float32"))),
             name="prepend_shape_error"),
        auto(lambda lib, x: lib.diff(x, dim=2), name="dim_error"),
    ] + layouts(lambda lib, x: lib.diff(x), "lay_") + layouts(
        lambda lib, x: lib.diff(x, n=2, dim=0), "lay0_")),
]
