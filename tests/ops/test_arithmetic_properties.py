"""Property tests of the binary element-wise ops against PyTorch: random shapes (broadcasting),
dtypes (promotion), layouts and scalars; plus the operator fallbacks no op spec can cover."""

import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtensor

from tests.harness.conformance import Case, compare, torch

pytestmark = [pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed"),
              pytest.mark.devices]  # device-independent: also runs with --device cuda

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
OPS = {
    "add": lambda lib, a, b: lib.add(a, b),
    "sub": lambda lib, a, b: lib.sub(a, b),
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "floor_divide": lambda lib, a, b: a // b,
    "remainder": lambda lib, a, b: a % b,
    "pow": lambda lib, a, b: a ** b,
    "maximum": lambda lib, a, b: lib.maximum(a, b) if isinstance(b, lib.Tensor) else a,
    "atan2": lambda lib, a, b: lib.atan2(a, b) if isinstance(b, lib.Tensor) else a,
    "lt": lambda lib, a, b: a < b,
    "eq": lambda lib, a, b: a == b,
    "bitwise_xor": lambda lib, a, b: a ^ b,
    "logical_or": lambda lib, a, b: lib.logical_or(a, b) if isinstance(b, lib.Tensor) else a,
    "lshift": lambda lib, a, b: a << b,
}


@st.composite
def broadcastable_shapes(draw):
    """Two shapes that broadcast: dims dropped from the front or set to 1 on either side."""
    ndim = draw(st.integers(0, 3))
    base = draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    shapes = []
    for _ in range(2):
        drop = draw(st.integers(0, ndim))
        shape = [1 if draw(st.booleans()) and draw(st.booleans()) else s for s in base[drop:]]
        shapes.append(tuple(shape))
    return shapes


def make_array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("uint8",):
        return rng.integers(0, 9, size=shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-8, 9, size=shape).astype(dtype)
    return rng.uniform(-4, 4, size=shape).astype("float32").astype(dtype)


def build(lib, array, dtype, transpose):
    t = lib.tensor(np.asarray(array).copy())
    if t.dim() != len(array.shape):  # keep a 0-d array 0-d in both libraries
        t = t.reshape(array.shape)
    if transpose and t.dim() >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)  # same values, transposed layout
    return t


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(sorted(OPS)), shapes=broadcastable_shapes(),
       dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)),
       transpose=st.tuples(st.booleans(), st.booleans()),
       scalar=st.one_of(st.none(), st.integers(-3, 3), st.floats(-3, 3, width=32),
                        st.booleans()),
       seed=st.integers(0, 1000))
def test_binary_op_matches_torch(op, shapes, dtypes, transpose, scalar, seed):
    """Values, dtype, shape, strides (and the exception type when PyTorch raises)."""
    arrays = [make_array(s, d, seed + i)
              for i, (s, d) in enumerate(zip(shapes, dtypes, strict=True))]

    def run(lib):
        a = build(lib, arrays[0], dtypes[0], transpose[0])
        b = build(lib, arrays[1], dtypes[1], transpose[1]) if scalar is None else scalar
        return OPS[op](lib, a, b)

    case = Case(lambda lib: run(lib), rtol=2e-3, atol=2e-3)
    results = []
    for lib in (jtensor, torch):
        try:
            results.append(run(lib))
        except Exception as exc:  # noqa: BLE001 - compared below
            results.append(exc)
    compare(results[0], results[1], case)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       dtype=st.sampled_from(["int8", "int32", "int64", "float32", "float64"]),
       mode=st.sampled_from([None, "trunc", "floor"]), seed=st.integers(0, 1000))
def test_div_rounding_modes_match_torch(shape, dtype, mode, seed):
    a = make_array(tuple(shape), dtype, seed)
    b = make_array(tuple(shape), dtype, seed + 1)
    b = np.where(b == 0, 3, b).astype(dtype)
    results = [lib.div(lib.tensor(a), lib.tensor(b), rounding_mode=mode)
               for lib in (jtensor, torch)]
    compare(results[0], results[1], Case(lambda lib: None))


@pytest.mark.parametrize("fn", [operator.eq, operator.ne])
@pytest.mark.parametrize("other", [None, "a", [1, 2], object()])
def test_equality_with_non_numbers_falls_back_like_torch(fn, other):
    """``t == None`` is False (Python's fallback after NotImplemented), as in PyTorch."""
    mine = fn(jtensor.tensor([1.0, 2.0]), other)
    theirs = fn(torch.tensor([1.0, 2.0]), other)
    assert type(mine) is type(theirs) and mine == theirs


@pytest.mark.parametrize("fn", [operator.lt, operator.add, operator.and_, operator.pow,
                                operator.truediv, operator.floordiv, operator.mod])
def test_ordering_and_arithmetic_with_non_numbers_raise_type_error(fn):
    for other in (None, "a", object()):
        with pytest.raises(TypeError):
            fn(jtensor.tensor([1, 2]), other)
        if not isinstance(other, str):  # "a" % t is string formatting (t looks like a mapping)
            with pytest.raises(TypeError):
                fn(other, jtensor.tensor([1, 2]))


def test_tensor_stays_hashable_by_identity():
    a, b = jtensor.tensor([1.0]), jtensor.tensor([1.0])
    assert len({a, b}) == 2 and hash(a) == id(a)


def test_failed_inplace_leaves_input_untouched():
    a = jtensor.tensor([5, 6, 7])
    with pytest.raises(RuntimeError):
        a.floor_divide_(jtensor.tensor([1, 0, 2]))
    assert a.tolist() == [5, 6, 7] and a._version == 0


def test_no_numpy_warnings_on_division_by_zero():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = jtensor.tensor([1.0, 0.0, -1.0])
        (x / 0, x // 0, x % 0, jtensor.fmod(x, 0.0), x ** -1, jtensor.xlogy(x, x))


def test_trace_event_once_per_call(monkeypatch):
    from jtensor import _dispatch

    names = []
    x = jtensor.tensor([1.0, 2.0])
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: names.append(op.name))
    x + 1
    x.pow(2)
    x += 1
    jtensor.allclose(x, x)
    jtensor.lerp(x, x, 0.5)
    assert names == ["add", "pow", "add_", "allclose", "lerp"]
