"""``_elementwise.bounded`` (issue 18): ``maximum``/``minimum`` of a big array with a
0-d bound computed against a row of the bound gives exactly the elements of NumPy's call
with the broadcast bound (the path relu and clamp take), ties, signed zeros and every NaN's
bits included, for every length around the row size."""

import numpy as np
import pytest

from jtensor import _elementwise
from jtensor._elementwise import bounded

FLOATS = (np.float16, np.float32, np.float64)
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8)
LENGTHS = (
    _elementwise._ROW_FROM - 1,
    _elementwise._ROW_FROM,
    _elementwise._ROW_FROM + 1,
    3 * _elementwise._ROW + 17,
    4 * _elementwise._ROW,
)


def _float_values(dtype, n, bound):
    """Random values with signed zeros, infinities, the bound itself and NaNs of both signs
    and several payloads sprinkled in."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype)
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    nan = np.array(np.nan, dtype).view(bits)
    sign = bits.type(1) << bits.type(8 * np.dtype(dtype).itemsize - 1)
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, bound, -bound] if np.isfinite(bound) else [0.0, -0.0],
        dtype,
    )
    nans = np.array([nan, nan | sign, nan | 1, nan | sign | 3], bits).view(dtype)
    pool = np.concatenate([specials, nans])
    where = rng.choice(n, size=n // 5, replace=False)
    a[where] = pool[rng.integers(0, len(pool), where.size)]
    return a


def _same_bits(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape
    width = f"u{x.dtype.itemsize}"
    np.testing.assert_array_equal(x.view(width), y.view(width))


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum], ids=["maximum", "minimum"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("bound", [0.0, -0.0, 0.5, -1.0, np.inf, np.nan])
@pytest.mark.parametrize("n", LENGTHS)
def test_float_bits_match_the_broadcast_call(ufunc, dtype, bound, n):
    a = _float_values(dtype, n, bound)
    b = np.array(bound, dtype)
    _same_bits(bounded(ufunc, b, a), ufunc(b, a))


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum], ids=["maximum", "minimum"])
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", LENGTHS)
def test_int_values_match_the_broadcast_call(ufunc, dtype, n):
    info = np.iinfo(dtype)
    a = np.random.default_rng(n).integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = np.array(3, dtype)
    np.testing.assert_array_equal(bounded(ufunc, b, a), ufunc(b, a))


@pytest.mark.parametrize("n", LENGTHS)
def test_out_and_in_place(n):
    a = (
        _float_values(np.float32, n, 0.0).reshape(-1, 1)
        if n % 2
        else _float_values(np.float32, n, 0.0).reshape(2, -1)
    )
    b = np.array(0.0, np.float32)
    expected = np.maximum(b, a)
    out = np.empty_like(a)
    assert bounded(np.maximum, b, a, out=out) is out
    _same_bits(out, expected)
    assert bounded(np.maximum, b, a, out=a) is a
    _same_bits(a, expected)


def test_shapes_and_fresh_result():
    a = _float_values(np.float64, 4 * _elementwise._ROW, 0.0).reshape(8, 4, -1)
    b = np.array(0.0, np.float64)
    r = bounded(np.maximum, b, a)
    assert r.shape == a.shape and r.flags.c_contiguous and not np.shares_memory(r, a)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a[::2],  # strided
        lambda a: a.reshape(2, -1).T,  # transposed
        lambda a: a[:100],  # small
    ],
    ids=["strided", "transposed", "small"],
)
def test_other_layouts_take_the_broadcast_call(make):
    a = make(_float_values(np.float32, 4 * _elementwise._ROW, 0.0))
    b = np.array(0.0, np.float32)
    r = bounded(np.maximum, b, a)
    _same_bits(r, np.maximum(b, a))


def test_bound_of_another_dtype_takes_the_broadcast_call():
    a = _float_values(np.float32, 4 * _elementwise._ROW, 0.0)
    b = np.array(0.25, np.float64)
    r = bounded(np.minimum, b, a)
    assert r.dtype == np.float64
    _same_bits(r, np.minimum(b, a))


def test_rows_are_cached_read_only_and_bounded(monkeypatch):
    monkeypatch.setattr(_elementwise, "_ROWS", {})
    a = np.ones(_elementwise._ROW_FROM, np.float32)
    for k in range(100):
        bounded(np.minimum, np.array(k, np.float32), a)
    assert 0 < len(_elementwise._ROWS) <= 64
    row = next(iter(_elementwise._ROWS.values()))
    assert not row.flags.writeable and row.size == _elementwise._ROW


def test_bounds_that_are_no_0d_array_take_the_broadcast_call():
    a = _float_values(np.float32, 4 * _elementwise._ROW, 0.0)
    full = np.full(a.shape, 0.5, np.float32)
    _same_bits(bounded(np.minimum, full, a), np.minimum(full, a))
    assert bounded(np.minimum, 0.5, a).dtype == np.minimum(0.5, a).dtype
    _same_bits(bounded(np.maximum, np.float32(0.5), a), np.maximum(np.float32(0.5), a))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    "bound",
    [0, 6, -1, 0.5, 0.1, -0.0, 1e-30, 3.4e38, 1e300, -1e300, 2**70, float("inf"), float("nan")],
)
@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum], ids=["maximum", "minimum"])
def test_python_number_bounds_as_numpy_converts_them(dtype, bound, ufunc):
    a = _float_values(dtype, 3 * _elementwise._ROW + 5, 0.0)
    with np.errstate(all="ignore"):
        expected = ufunc(bound, a)
        got = bounded(ufunc, bound, a)
    _same_bits(got, expected)


def test_python_number_bound_beside_an_int_array_takes_the_broadcast_call():
    a = np.arange(3 * _elementwise._ROW, dtype=np.int32)
    np.testing.assert_array_equal(bounded(np.minimum, 7, a), np.minimum(7, a))
    assert bounded(np.minimum, 0.5, a).dtype == np.minimum(0.5, a).dtype
