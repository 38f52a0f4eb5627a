"""Specs of softmax/log_softmax, bincount, histc, searchsorted, bucketize, diff, cross, cdist,
inner, isin and chain_matmul: dtypes, layouts, stability, defaults and errors."""

import numpy as np

from ..harness import Case, OpSpec, T, arr

NAN = float("nan")
INF = float("inf")


def x34(lib):
    return T(lib, arr(3, 4))


def case(run, make=x34, name="", **kw):
    """A case; a ``run`` that takes only ``lib`` builds its own inputs (no ``make``)."""
    if run.__code__.co_argcount == 1:
        make = None
    return Case(run, make=make, name=name, **kw)


def layouts(run, prefix=""):
    """The same op on transposed, strided, expanded, permuted and offset inputs."""
    return [
        case(run, make=lambda lib: T(lib, arr(4, 3)).t(), name=prefix + "transposed"),
        case(run, make=lambda lib: T(lib, arr(3, 8))[:, ::2], name=prefix + "strided"),
        case(run, make=lambda lib: T(lib, arr(1, 4)).expand(3, 4), name=prefix + "expanded"),
        case(run, make=lambda lib: T(lib, arr(4, 2, 3)).permute(2, 0, 1)[0],
             name=prefix + "permuted"),
        case(run, make=lambda lib: T(lib, arr(5, 6))[1:4, 2:], name=prefix + "offset"),
    ]


def huge(lib):
    return T(lib, np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1e4, -999.0]], "float32"))


def softmax_cases(name):
    fn = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return [
        case(lambda lib, x: fn(lib, x, 1), name="dim1"),
        case(lambda lib, x: fn(lib, x, 0), name="dim0"),
        case(lambda lib, x: fn(lib, x, -1), name="dim-1"),
        case(lambda lib, x: getattr(x, name)(1), name="method"),
        case(lambda lib, x: getattr(x, name)(dim=0, dtype=lib.float64), name="method_dtype"),
        case(lambda lib, x: fn(lib, x, 1, dtype=lib.float64), name="dtype64"),
        case(lambda lib, x: fn(lib, x, 1), make=huge, name="huge_logits"),
        case(lambda lib, x: fn(lib, x, 0), make=huge, name="huge_logits_dim0"),
        case(lambda lib, x: fn(lib, x, 1),
             make=lambda lib: T(lib, np.array([[-INF, 0.0, 1.0], [-INF, -INF, 2.0]], "float32")),
             name="neg_inf"),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, arr(3, 4), dtype="float16"),
             name="float16", atol=1e-3, rtol=1e-3),
        case(lambda lib, x: fn(lib, x, 0), make=lambda lib: T(lib, arr(3, 4), dtype="bfloat16"),
             name="bfloat16", atol=1e-2, rtol=1e-2),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, arr(3, 4, dtype="float64")),
             name="float64"),
        case(lambda lib, x: fn(lib, x, 1, dtype=lib.float16), name="to_float16",
             atol=1e-3, rtol=1e-3),
        case(lambda lib, x: fn(lib, x, 0), make=lambda lib: T(lib, arr(3, 4, dtype="int64")),
             name="int_error"),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, arr(3, 4, dtype="int64")),
             name="int_lastdim_error"),
        case(lambda lib, x: fn(lib, x, 1, dtype=lib.float32),
             make=lambda lib: T(lib, arr(3, 4, dtype="int64")), name="int_with_dtype"),
        case(lambda lib, x: fn(lib, x, 1, dtype=lib.int32), name="int_dtype_error"),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, arr(3, 4, dtype="bool")),
             name="bool_error"),
        case(lambda lib, x: fn(lib, x), name="dim_missing"),
        case(lambda lib, x: getattr(x, name)(), name="method_dim_missing"),
        case(lambda lib, x: fn(lib, x, 2), name="dim_out_of_range"),
        case(lambda lib, x: fn(lib, x, 0), make=lambda lib: T(lib, np.array(2.5, "float32")),
             name="zero_dim"),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, np.zeros((0, 3), "float32")),
             name="empty"),
        case(lambda lib, x: fn(lib, x, 1), make=lambda lib: T(lib, arr(2, 3, 4)).permute(2, 0, 1),
             name="permuted3d"),
    ] + layouts(lambda lib, x: fn(lib, x, 1), "lay_") + layouts(
        lambda lib, x: fn(lib, x, 0), "lay0_")


def idx(values, dtype="int64"):
    return lambda lib: T(lib, np.array(values, dtype))


BOUNDS = [1.0, 3.0, 5.0, 7.0, 9.0]
VALUES = [[3.0, 6.0, 9.0], [0.0, 10.0, 5.0]]


def sv(lib):
    return T(lib, np.array(BOUNDS, "float32")), T(lib, np.array(VALUES, "float32"))


def a43(lib):
    return T(lib, arr(4, 3)), T(lib, arr(4, 3, seed=1))


def c32(lib):
    return T(lib, arr(3, 2)), T(lib, arr(4, 2, seed=1))


def ints(lib):
    return T(lib, np.array([[1, 2], [3, 4]])), T(lib, np.array([2, 3]))


SPECS = [
    OpSpec("softmax", softmax_cases("softmax")),
    OpSpec("log_softmax", softmax_cases("log_softmax")),
    OpSpec("bincount", [
        case(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5]), name="basic"),
        case(lambda lib, x: x.bincount(minlength=8), make=idx([1, 2, 2, 5]), name="minlength"),
        case(lambda lib, x: x.bincount(minlength=2), make=idx([1, 2, 2, 5]),
             name="minlength_small"),
        case(lambda lib, x: lib.bincount(x, weights=T(lib, np.array([1.0, 2, 3, 4], "float32"))),
             make=idx([1, 2, 2, 5]), name="weights_f32"),
        case(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0, 2, 3, 4]), dtype="float16")),
             make=idx([1, 2, 2, 5]), name="weights_f16"),
        case(lambda lib, x: lib.bincount(x, T(lib, np.array([1, 2, 3, 4]))),
             make=idx([1, 2, 2, 5]), name="weights_int"),
        case(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0, 2, 3, 4]))),
             make=idx([1, 2, 2, 5]), name="weights_f64"),
        case(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5], "int32"), name="int32"),
        case(lambda lib, x: lib.bincount(x), make=idx([1, 2, 2, 5], "uint8"), name="uint8"),
        case(lambda lib, x: lib.bincount(x[::2]), make=idx([1, 2, 2, 5, 7, 0]), name="strided"),
        case(lambda lib, x: lib.bincount(x, minlength=3), make=idx([]), name="empty"),
        case(lambda lib, x: lib.bincount(x), make=idx([1, -2, 2]), name="negative_error"),
        case(lambda lib, x: lib.bincount(x), make=idx([1.0, 2.0], "float32"), name="float_error"),
        case(lambda lib, x: lib.bincount(x), make=idx([True, False], "bool"), name="bool_error"),
        case(lambda lib, x: lib.bincount(x), make=idx([[1, 2]]), name="2d_error"),
        case(lambda lib, x: lib.bincount(x, minlength=-1), make=idx([1]), name="minlength_error"),
        case(lambda lib, x: lib.bincount(x, T(lib, np.array([1.0]))), make=idx([1, 2]),
             name="weights_len_error"),
    ]),
    OpSpec("histc", [
        case(lambda lib, x: lib.histc(x, bins=4), name="data_range"),
        case(lambda lib, x: x.histc(bins=4, min=-1, max=1), name="range"),
        case(lambda lib, x: lib.histc(x), name="default_bins"),
        case(lambda lib, x: lib.histc(x, 5, -2.5, 2.5), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="transposed"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, arr(3, 4, dtype="float64")),
             name="float64"),
        case(lambda lib, x: lib.histc(x, 4, 0, 4),
             make=lambda lib: T(lib, np.array([0.5, 1.5, 2.5, 3.5, 4.0, 5.0, -1.0]), "float16"),
             name="float16"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.ones(3, "float32")),
             name="constant"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.zeros(0, "float32")),
             name="empty"),
        case(lambda lib, x: lib.histc(x, 4, min=0, max=4),
             make=lambda lib: T(lib, np.array([0.0, 1.0, 2.0, 3.0, 4.0], "float32")),
             name="edges"),
        case(lambda lib, x: lib.histc(x, 4, out=lib.empty(2)), name="out"),
        case(lambda lib, x: lib.histc(x, bins=0), name="bins_error"),
        case(lambda lib, x: lib.histc(x, bins=3, min=2, max=1), name="min_max_error"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.array([1.0, NAN])),
             name="nan_error"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.array([1.0, INF])),
             name="inf_error"),
        case(lambda lib, x: lib.histc(x, 3), make=lambda lib: T(lib, np.arange(4)),
             name="int_error"),
    ]),
    OpSpec("searchsorted", [
        case(lambda lib, s, v: lib.searchsorted(s, v), make=sv, name="left"),
        case(lambda lib, s, v: lib.searchsorted(s, v, right=True), make=sv, name="right"),
        case(lambda lib, s, v: lib.searchsorted(s, v, side="right"), make=sv, name="side"),
        case(lambda lib, s, v: lib.searchsorted(s, v, side="left"), make=sv, name="side_left"),
        case(lambda lib, s, v: lib.searchsorted(s, v, out_int32=True), make=sv, name="int32"),
        case(lambda lib, s, v: lib.searchsorted(s, 5), make=sv, name="scalar"),
        case(lambda lib, s, v: lib.searchsorted(s, 5.5, right=True), make=sv, name="scalar_right"),
        case(lambda lib, s, v: lib.searchsorted(s, v.t()), make=sv, name="transposed_values"),
        case(lambda lib, s, v: lib.searchsorted(s[::2], v), make=sv, name="strided_bounds"),
        case(lambda lib, s, v: lib.searchsorted(s.long(), v), make=sv, name="mixed_dtypes"),
        case(lambda lib, s, v: lib.searchsorted(s, v.long()), make=sv, name="int_values"),
        case(lambda lib, s, v: lib.searchsorted(s.double(), v), make=sv, name="float64"),
        case(lambda lib, s, v: lib.searchsorted(
            s, T(lib, np.array([NAN, 2.0, 1.0], "float32")), right=True), make=sv, name="nan"),
        case(lambda lib, s, v: lib.searchsorted(T(lib, np.array([1.0, 2, 2, 2, 3])),
                                                T(lib, np.array([2.0])), right=True),
             make=sv, name="ties"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([[1.0, 3, 5], [2, 4, 6]])),
                                          T(lib, np.array([[3.0], [3.0]]))), name="batched"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2, 0]))), make=None,
             name="sorter"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2]))), make=None,
             name="sorter_size_error"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2, 5]))), make=None,
             name="sorter_range_error"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1.0, 2, 0]))), make=None,
             name="sorter_dtype_error"),
        case(lambda lib: lib.searchsorted(T(lib, np.array([[1.0, 3, 5], [2, 4, 6]])),
                                          T(lib, np.array([[3.0]]))), make=None,
             name="batch_mismatch_error"),
        case(lambda lib, s, v: lib.searchsorted(s, v, side="left", right=True), make=sv,
             name="opposite_error"),
        case(lambda lib, s, v: lib.searchsorted(s, v, side="foo"), make=sv, name="side_error"),
        case(lambda lib, s, v: lib.searchsorted(s[0], v), make=sv, name="zero_dim_error"),
        case(lambda lib, s, v: lib.searchsorted(s, v, out=lib.empty(0, dtype=lib.int64)),
             make=sv, name="out"),
    ]),
    OpSpec("bucketize", [
        case(lambda lib, s, v: lib.bucketize(v, s), make=sv, name="left"),
        case(lambda lib, s, v: lib.bucketize(v, s, right=True), make=sv, name="right"),
        case(lambda lib, s, v: lib.bucketize(v, s, right=True, out_int32=True), make=sv,
             name="int32"),
        case(lambda lib, s, v: lib.bucketize(4, s), make=sv, name="scalar"),
        case(lambda lib, s, v: lib.bucketize(v.t(), s), make=sv, name="transposed"),
        case(lambda lib, s, v: lib.bucketize(v.long(), s), make=sv, name="int_values"),
        case(lambda lib, s, v: lib.bucketize(v, s[1::2]), make=sv, name="strided_bounds"),
        case(lambda lib, s, v: lib.bucketize(v, s.reshape(1, 5)), make=sv, name="2d_error"),
        case(lambda lib, s, v: lib.bucketize(v, s, out=lib.empty(6, dtype=lib.int64)), make=sv,
             name="out"),
    ]),
    OpSpec("diff", [
        case(lambda lib, x: lib.diff(x), name="default"),
        case(lambda lib, x: x.diff(n=2, dim=0), name="n2_dim0"),
        case(lambda lib, x: lib.diff(x, n=5), name="n_too_big"),
        case(lambda lib, x: lib.diff(x, n=4), name="n_equals_size"),
        case(lambda lib, x: lib.diff(x, n=0), name="n0"),
        case(lambda lib, x: lib.diff(x, n=0), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="n0_transposed"),
        case(lambda lib, x: lib.diff(x, n=5), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="n_too_big_transposed"),
        case(lambda lib, x: lib.diff(x, dim=0), make=lambda lib: T(lib, arr(4, 3)).t(),
             name="transposed_dim0"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, arr(3, 1, seed=2)),
                                     append=T(lib, arr(3, 2, seed=3))), name="prepend_append"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones((3, 1), "float32"))),
             make=lambda lib: T(lib, arr(4, 3)).t(), name="prepend_transposed"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, np.array([2.0], "float32"))),
             make=idx([1, 5]), name="prepend_promotes"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, np.array([True]))), make=idx([1, 5]),
             name="prepend_bool"),
        case(lambda lib, x: lib.diff(x), make=idx([True, False, False], "bool"), name="bool"),
        case(lambda lib, x: lib.diff(x, n=2), make=idx([True, False, False], "bool"),
             name="bool_n2"),
        case(lambda lib, x: lib.diff(x), make=idx([1, 5, 2], "uint8"), name="uint8_wraps"),
        case(lambda lib, x: lib.diff(x), make=lambda lib: T(lib, arr(3, 4), dtype="float16"),
             name="float16", atol=1e-2),
        case(lambda lib, x: lib.diff(x, n=3, dim=1), make=lambda lib: T(lib, arr(2, 6, 3)),
             name="3d_n3"),
        case(lambda lib, x: lib.diff(x, n=-1), name="n_negative_error"),
        case(lambda lib, x: lib.diff(x), make=lambda lib: T(lib, np.array(1.0)),
             name="zero_dim_error"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones(3))), name="prepend_dim_error"),
        case(lambda lib, x: lib.diff(x, prepend=T(lib, np.ones((2, 1), "float32"))),
             name="prepend_shape_error"),
        case(lambda lib, x: lib.diff(x, dim=2), name="dim_error"),
    ] + layouts(lambda lib, x: lib.diff(x), "lay_") + layouts(
        lambda lib, x: lib.diff(x, n=2, dim=0), "lay0_")),
    OpSpec("cross", [
        case(lambda lib, a, b: lib.cross(a, b, dim=1), make=a43, name="dim1"),
        case(lambda lib, a, b: lib.cross(a, b), make=a43, name="default_dim"),
        case(lambda lib, a, b: a.cross(b, -1), make=a43, name="method"),
        case(lambda lib, a, b: lib.cross(a.t(), b.t(), dim=0), make=a43, name="transposed"),
        case(lambda lib, a, b: lib.cross(a, b[:1], dim=1), make=a43, name="broadcast"),
        case(lambda lib, a, b: lib.cross(a[::2], b[1::2], dim=1), make=a43, name="strided"),
        case(lambda lib: lib.cross(T(lib, arr(3, 3, 4)), T(lib, arr(3, 3, 4, seed=1))),
             name="default_first_dim"),
        case(lambda lib, a, b: lib.cross(a.double(), b.double(), dim=1), make=a43,
             name="float64"),
        case(lambda lib, a, b: lib.cross(a.long(), b.long(), dim=1), make=a43, name="int64"),
        case(lambda lib, a, b: lib.cross(a.half(), b.half(), dim=1), make=a43, name="float16",
             atol=1e-2, rtol=1e-2),
        case(lambda lib, a, b: lib.cross(a, b, dim=1, out=lib.empty(0)), make=a43, name="out"),
        case(lambda lib: lib.cross(T(lib, arr(4, 5)), T(lib, arr(4, 5))), name="no_size3_error"),
        case(lambda lib, a, b: lib.cross(a, b, dim=0), make=a43, name="dim_size_error"),
        case(lambda lib, a, b: lib.cross(a, b[0], dim=1), make=a43, name="ndim_error"),
        case(lambda lib, a, b: lib.cross(a, b.double(), dim=1), make=a43, name="dtype_error"),
        case(lambda lib, a, b: lib.cross(a.bool(), b.bool(), dim=1), make=a43, name="bool_error"),
        case(lambda lib, a, b: lib.cross(a, b, dim=5), make=a43, name="dim_range_error"),
    ]),
    OpSpec("cdist", [
        case(lambda lib, a, b: lib.cdist(a, b), make=c32, name="p2"),
        case(lambda lib, a, b: lib.cdist(a, b, p=1), make=c32, name="p1"),
        case(lambda lib, a, b: lib.cdist(a, b, p=0), make=c32, name="p0"),
        case(lambda lib, a, b: lib.cdist(a, b, p=3.5), make=c32, name="p3.5"),
        case(lambda lib, a, b: lib.cdist(a, b, p=0.5), make=c32, name="p0.5", rtol=1e-4),
        case(lambda lib, a, b: lib.cdist(a, b, p=float("inf")), make=c32, name="pinf"),
        case(lambda lib, a, b: lib.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
             make=c32, name="compute_mode"),
        case(lambda lib: lib.cdist(T(lib, arr(2, 3, 2)), T(lib, arr(4, 2, seed=1))),
             name="batch_error_2d"),
        case(lambda lib: lib.cdist(T(lib, arr(2, 3, 2)), T(lib, arr(1, 4, 2, seed=1))),
             name="batch_broadcast"),
        case(lambda lib: lib.cdist(T(lib, arr(2, 3)).t(), T(lib, arr(2, 4, seed=1)).t()),
             name="transposed"),
        case(lambda lib, a, b: lib.cdist(a.double(), b.double()), make=c32, name="float64"),
        case(lambda lib: lib.cdist(T(lib, arr(0, 2)), T(lib, arr(4, 2))), name="empty_rows"),
        case(lambda lib: lib.cdist(T(lib, arr(3, 0)), T(lib, arr(4, 0))), name="empty_cols"),
        case(lambda lib: lib.cdist(T(lib, arr(3, 2)), T(lib, arr(4, 3))), name="cols_error"),
        case(lambda lib, a, b: lib.cdist(a, b, p=-1), make=c32, name="p_error"),
        case(lambda lib, a, b: lib.cdist(a.long(), b.long()), make=c32, name="int_error"),
        case(lambda lib, a, b: lib.cdist(a, b.double()), make=c32, name="dtype_error"),
        case(lambda lib, a, b: lib.cdist(a.half(), b.half()), make=c32, name="half_error"),
        case(lambda lib, a, b: lib.cdist(a[0], b[0]), make=c32, name="1d_error"),
    ]),
    OpSpec("inner", [
        case(lambda lib, a, b: lib.inner(a, b), make=c32, name="2d"),
        case(lambda lib, a, b: a.inner(b), make=c32, name="method"),
        case(lambda lib, a, b: lib.inner(a[0], b), make=c32, name="1d_2d"),
        case(lambda lib, a, b: lib.inner(a[0], b[0]), make=c32, name="1d_1d"),
        case(lambda lib, a, b: lib.inner(a[0, 0], b), make=c32, name="scalar"),
        case(lambda lib, a, b: lib.inner(T(lib, np.array(2)), b), make=c32, name="int_scalar"),
        case(lambda lib, a, b: lib.inner(a.t().contiguous().t(), T(lib, arr(2, 4)).t()),
             make=c32, name="noncontig"),
        case(lambda lib: lib.inner(T(lib, arr(3, 2, 5)), T(lib, arr(4, 5, seed=1))),
             name="3d"),
        case(lambda lib: lib.inner(T(lib, arr(5, 3)).t(), T(lib, arr(4, 5, seed=1))),
             name="transposed"),
        case(lambda lib, a, b: lib.inner(a.long(), b.long()), make=c32, name="int64"),
        case(lambda lib, a, b: lib.inner(a, b, out=lib.empty(0)), make=c32, name="out"),
        case(lambda lib: lib.inner(T(lib, arr(3, 2)), T(lib, arr(4, 3))), name="shape_error"),
        case(lambda lib, a, b: lib.inner(a, b.double()), make=c32, name="dtype_error"),
        case(lambda lib, a, b: lib.inner(a.long(), b), make=c32, name="int_float_error"),
        case(lambda lib, a, b: lib.inner(a.bool(), b.bool()), make=c32, name="bool_error"),
    ]),
    OpSpec("isin", [
        case(lambda lib, e, t: lib.isin(e, t), make=ints, name="basic"),
        case(lambda lib, e, t: lib.isin(e, t, invert=True), make=ints, name="invert"),
        case(lambda lib, e, t: lib.isin(e, t, assume_unique=True), make=ints, name="unique"),
        case(lambda lib, e, t: lib.isin(e, 2), make=ints, name="scalar_test"),
        case(lambda lib, e, t: lib.isin(2, e), make=ints, name="scalar_element"),
        case(lambda lib, e, t: lib.isin(2.0, e), make=ints, name="float_scalar_element"),
        case(lambda lib, e, t: lib.isin(e, T(lib, np.array([2.5, 3.0]))), make=ints,
             name="promotes"),
        case(lambda lib, e, t: lib.isin(e.float(), t), make=ints, name="float_elements"),
        case(lambda lib, e, t: lib.isin(e.t(), t), make=ints, name="transposed"),
        case(lambda lib, e, t: lib.isin(e, t.reshape(2, 1)), make=ints, name="2d_test"),
        case(lambda lib, e, t: lib.isin(e[:, ::2], T(lib, np.array([3, 2, 1]))[::2]), make=ints,
             name="strided"),
        case(lambda lib, e, t: lib.isin(T(lib, np.array([NAN, 1.0])), T(lib, np.array([NAN]))),
             make=ints, name="nan"),
        case(lambda lib, e, t: lib.isin(e.half(), t), make=ints, name="half"),
        case(lambda lib, e, t: lib.isin(e[0, 0], t), make=ints, name="zero_dim"),
        case(lambda lib, e, t: lib.isin(e, t, out=lib.empty(0, dtype=lib.bool)), make=ints,
             name="out"),
        case(lambda lib, e, t: lib.isin(e, T(lib, np.array([True]))), make=ints,
             name="bool_error"),
        case(lambda lib, e, t: lib.isin(e.bool(), T(lib, np.array([True]))), make=ints,
             name="bool_elements_error"),
        case(lambda lib, e, t: lib.isin(e, t.to(lib.complex64)), make=ints,
             name="complex_error"),
        case(lambda lib: lib.isin(2, 3), name="two_scalars_error"),
    ]),
    OpSpec("chain_matmul", [
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3, 4, seed=1)),
                                          T(lib, arr(4, 1, seed=2))), name="three"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(4, 3, seed=1)).t()),
             name="transposed"),
        case(lambda lib, x: lib.chain_matmul(x), name="one"),
        case(lambda lib, x: lib.chain_matmul(x.t()), name="one_transposed"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3, dtype="int64")),
                                          T(lib, arr(3, 2, dtype="int64", seed=1))),
             name="int64"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3, dtype="float64")),
                                          T(lib, arr(3, 2, dtype="float64", seed=1)),
                                          out=lib.empty(0, dtype=lib.float64)), name="out"),
        case(lambda lib: lib.chain_matmul(), name="none_error"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(3))), name="1d_error"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3))),
             name="1d_second_error"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(4, 1))),
             name="shape_error"),
        case(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3, 1, dtype="float64"))),
             name="dtype_error"),
    ]),
]
