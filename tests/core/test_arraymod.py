"""The NumPy features CuPy lacks (``jtensor._arraymod``): each fallback gives NumPy's own
answer, and the emulated CUDA device refuses what CuPy refuses, so the CUDA suite in CI runs
the fallbacks (``multiply.at`` of ``index_reduce``, ``logaddexp.accumulate`` of
``logcumsumexp``, ``linalg.multi_dot``, ``as_strided(writeable=)`` of convolutions: each
failed on an H100 before)."""

import numpy as np
import pytest

from jtensor import _arraymod as am


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_ufunc_at_fallback_is_numpys_to_the_bit(name, layout):
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.standard_normal((5, 4))
        if layout == "transposed":
            a = a.T
        rows = rng.integers(0, a.shape[0], size=9)  # repeats: applied in order
        values = rng.standard_normal((9, a.shape[1]))
        want, got = a.copy(), a.copy()
        getattr(np, name).at(want, (rows,), values)
        am.ufunc_at(np, name, got, (rows,), values, native=False)
        np.testing.assert_array_equal(got, want)
        cols = (slice(None), rng.integers(0, a.shape[1], size=3))
        values = rng.standard_normal((a.shape[0], 3))
        want, got = a.copy(), a.copy()
        getattr(np, name).at(want, cols, values)
        am.ufunc_at(np, name, got, cols, values, native=False)
        np.testing.assert_array_equal(got, want)


def test_ufunc_at_fallback_takes_a_number_and_writes_through_a_view():
    counts = np.zeros(4, dtype=np.int64)
    am.ufunc_at(np, "add", counts, (np.array([1, 1, 3]),), 1, native=False)
    assert counts.tolist() == [0, 2, 0, 1]
    base = np.ones((3, 4))
    am.ufunc_at(np, "multiply", base.T, (np.array([0, 0]),), 2.0, native=False)
    assert base[:, 0].tolist() == [4.0, 4.0, 4.0] and base[:, 1:].sum() == 9


@pytest.mark.parametrize("name", ["maximum", "minimum", "logaddexp"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_accumulate_fallback(name, axis):
    a = np.random.default_rng(3).standard_normal((6, 9)) * 10
    want = getattr(np, name).accumulate(a, axis=axis)
    got = am.accumulate(np, name, a, axis, native=False)
    if name == "logaddexp":  # the doubling scan groups the additions differently
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "shapes",
    [
        [(3,), (3, 4), (4, 5), (5,)],
        [(2, 3), (3, 9), (9, 1), (1, 7)],
        [(3,), (3, 4), (4,)],
        [(10, 2), (2, 10), (10, 3), (3, 8)],
        [(4, 3), (3,)],
        [(2, 3), (3, 4)],
    ],
)
def test_multi_dot_fallback_multiplies_in_numpys_order(shapes):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    want = np.linalg.multi_dot(arrays)
    got = am.multi_dot(np, arrays, native=False)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_the_emulated_device_refuses_what_cupy_refuses():
    from jtensor.cuda._emulator import EmulatedBackend

    xp = EmulatedBackend.xp
    a = np.zeros(3)
    with pytest.raises(NotImplementedError, match="multiply.at"):
        xp.multiply.at(a, [0], 2.0)
    with pytest.raises(NotImplementedError, match="logaddexp.accumulate"):
        xp.logaddexp.accumulate(a)
    with pytest.raises(NotImplementedError, match="maximum.reduceat"):
        xp.maximum.reduceat(a, [0])
    assert not hasattr(xp, "errstate")
    assert not hasattr(xp.linalg, "multi_dot")
    with pytest.raises(TypeError):
        xp.lib.stride_tricks.as_strided(a, (3,), (8,), writeable=False)
    xp.add.at(a, [0, 0], 1.0)  # what CuPy has works
    assert a.tolist() == [2.0, 0.0, 0.0]
    assert xp.add(a, 1).tolist() == [3.0, 1.0, 1.0] and xp.fft is np.fft


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_ufunc_at_of_whole_rows_is_numpys_to_the_bit(name, dtype):
    # Whole rows by one int index each (an embedding's gradient, ``index_add``) go through
    # one flat position per element: every element still takes its values in index order.
    rng = np.random.default_rng(11)
    for _ in range(30):
        shape = (int(rng.integers(1, 9)), *rng.integers(1, 40, int(rng.integers(1, 3))))
        a = (rng.standard_normal(shape) * 3).astype(dtype)
        rows = rng.integers(-shape[0], shape[0], size=int(rng.integers(0, 60)))
        if rng.random() < 0.5:
            rows = rows.astype(np.int32)
        values = (rng.standard_normal((rows.size, *shape[1:])) * 3).astype(dtype)
        if rng.random() < 0.2:
            values = values[:1]  # (broadcast over the rows)
        if rng.random() < 0.2:
            values = np.float32(1.5) if dtype != "int64" else 3
        want, got = a.copy(), a.copy()
        getattr(np, name).at(want, rows, values)
        am.ufunc_at(np, name, got, rows, values)
        assert got.tobytes() == want.tobytes()


def test_ufunc_at_of_rows_out_of_range_raises_numpys_error():
    for bad in (4, -5):
        target = np.zeros((4, 100))
        with pytest.raises(IndexError):
            am.ufunc_at(np, "add", target, np.array([0, bad, 1]), 1.0)


def test_ufunc_at_takes_rows_by_elements_where_it_pays(monkeypatch):
    taken = []
    real = am._at_rows_by_elements
    monkeypatch.setattr(am, "_at_rows_by_elements", lambda *a: taken.append(real(*a)) or taken[-1])
    am.ufunc_at(np, "add", np.zeros((65, 64)), np.arange(256) % 65, 1.0)
    am.ufunc_at(np, "add", np.zeros((65, 1)), np.arange(256) % 65, 1.0)  # one column
    am.ufunc_at(np, "add", np.zeros((5, 3)), np.arange(4), 1.0)  # few elements
    am.ufunc_at(np, "add", np.zeros((64, 65)).T, np.arange(256) % 65, 1.0)  # not C order
    am.ufunc_at(np, "add", np.zeros((65, 64)), (np.arange(4),), 1.0)  # a tuple key
    am.ufunc_at(np, "add", np.zeros((65, 64)), np.arange(4), 1.0, native=False)  # fallback
    assert taken == [True, False, False, False, False]


def _sequential(target, rows, values):
    """``target[rows[k]] += values[k]`` one ``k`` after another (the order index_add and
    PyTorch's embedding backward add in)."""
    for k, r in enumerate(rows.tolist()):
        target[r] += values[k]
    return target


def _row_values(dtype, shape, seed):
    gen = np.random.default_rng(seed)
    v = gen.standard_normal(shape).astype(dtype)
    v[gen.random(shape) < 0.2] = -0.0
    v[:, 0] = -0.0  # (a column of negative zeros: +0.0 from zeros, -0.0 from the first row)
    v[gen.random(shape) < 0.001] = np.nan
    v[gen.random(shape) < 0.001] = np.inf
    return v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "n,m,width",
    [(65, 3000, 64), (3, 200, 400), (10, 40000, 2), (200, 4000, 64)],
    ids=["embedding", "few-rows", "narrow", "many-rows"],
)
def test_sum_rows_into_zeros_is_the_sequential_sum_to_the_bit(dtype, n, m, width):
    rows = np.random.default_rng(n).integers(-n, n, m)
    values = _row_values(dtype, (m, width), m)
    target = np.zeros((n, width), dtype)
    done = am.sum_rows_into_zeros(target, rows, values)
    if not done:
        am.ufunc_at(np, "add", target, rows, values)
    expected = _sequential(np.zeros((n, width), dtype), rows, values)
    bits = np.int32 if dtype == np.float32 else np.int64
    np.testing.assert_array_equal(target.view(bits), expected.view(bits))
    # (grouped where each row takes many values on average, the flat add.at otherwise)
    assert done == (m * width >= am._GROUPED_FROM and m * width >= am._GROUP_ELEMENTS * n)


def test_sum_rows_into_zeros_takes_values_of_any_layout_and_shape():
    rows = np.random.default_rng(1).integers(0, 4, 5000)
    values = np.broadcast_to(np.float32(0.1), (5000, 3, 8))  # (an expanded gradient)
    target = np.zeros((4, 3, 8), np.float32)
    assert am.sum_rows_into_zeros(target, rows, values)
    expected = _sequential(np.zeros((4, 3, 8), np.float32), rows, np.ascontiguousarray(values))
    np.testing.assert_array_equal(target, expected)


def test_sum_rows_into_zeros_declines_what_it_does_not_take():
    rows = np.zeros(100000, np.int64)
    assert not am.sum_rows_into_zeros(np.zeros((4, 1)), rows, np.ones((100000, 1)))  # width 1
    assert not am.sum_rows_into_zeros(np.zeros((4, 8)), rows[:10], np.ones((10, 8)))  # small
    t = np.zeros((8, 4)).T  # not C-contiguous
    assert not am.sum_rows_into_zeros(t, rows, np.ones((100000, 8)))
