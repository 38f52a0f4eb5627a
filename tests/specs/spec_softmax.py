"""Specs of softmax/log_softmax (``_ops/softmax.py``): dtypes, layouts, stability, defaults and
errors. ``case`` here picks the input itself (``make=None``) when a run takes only ``lib``."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_reductions import layouts

NAN = float("nan")
INF = float("inf")


def x34(lib):
    return T(lib, arr(3, 4))


def case(run, make=x34, name="", **kw):
    """A case; a ``run`` that takes only ``lib`` builds its own inputs (no ``make``)."""
    if run.__code__.co_argcount == 1:
        make = None
    return Case(run, make=make, name=name, **kw)


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
        case(lambda lib, x: fn(lib, x, 1, out=lib.empty(0)), name="out"),
        case(lambda lib, x: fn(lib, x, 0, out=lib.empty(4, 3).t()), name="out_transposed"),
        case(lambda lib, x: fn(lib, x, 1, out=lib.empty(5)), name="out_resized"),
        case(lambda lib, x: fn(lib, x, 1, dtype=lib.float64, out=lib.empty(0, dtype=lib.float64)),
             name="out_dtype"),
        case(lambda lib, x: fn(lib, x, 1, out=lib.empty(0, dtype=lib.float64)),
             name="out_dtype_error"),
        case(lambda lib, x: fn(lib, x, 1, out=lib.empty(7)),
             make=lambda lib: T(lib, np.zeros((0, 3), "float32")), name="out_empty"),
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


SPECS = [
    OpSpec("softmax", softmax_cases("softmax")),
    OpSpec("log_softmax", softmax_cases("log_softmax")),
]
