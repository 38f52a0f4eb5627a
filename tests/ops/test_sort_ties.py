"""``sort``/``argsort``/``msort`` with equal values (corpus 21's SAS recommender ranks tied
scores with ``argsort().argsort()``): PyTorch's CPU kernel runs libstdc++'s ``std::sort``
unless ``stable=True``, so rows of more than 16 elements with ties come out in its order,
not the stable one; a big 1-D integer sort takes PyTorch's stable radix sort. Compared with
PyTorch on every case."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _data(kind, shape, seed):
    gen = np.random.default_rng(seed)
    if kind == "ints":
        return gen.integers(-3, 4, shape).astype(np.int64)
    if kind == "small floats":
        return (gen.integers(0, 5, shape) / 4).astype(np.float32)
    if kind == "zeros and nans":
        a = gen.choice(np.array([0.0, -0.0, 1.0, np.nan, -np.inf], np.float32), shape)
        return a
    if kind == "bool":
        return gen.random(shape) < 0.5
    if kind == "halves":
        return (gen.integers(0, 6, shape) / 2).astype(np.float16)
    return gen.standard_normal(shape).astype(np.float64)  # distinct


KINDS = ["ints", "small floats", "zeros and nans", "bool", "halves", "distinct"]


def _both(fn, array):
    j = fn(jtensor, jtensor.from_numpy(array.copy()))
    t = fn(torch, torch.from_numpy(array.copy()))
    return j, t


def _same(j, t):
    if isinstance(t, tuple):
        for a, b in zip(j, t, strict=True):
            _same(a, b)
        return
    assert j.dtype.__repr__().split(".")[-1] == repr(t.dtype).split(".")[-1]
    assert tuple(j.shape) == tuple(t.shape) and tuple(j.stride()) == tuple(t.stride())
    jn, tn = j.numpy(), t.numpy()
    bytes_ = [np.ascontiguousarray(x).view(np.uint8) for x in (jn, tn)]
    assert np.array_equal(*bytes_)  # signed zeros, NaN bits


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [5, 16, 17, 40, 300])
@pytest.mark.parametrize("descending", [False, True])
def test_one_dim(kind, n, descending):
    a = _data(kind, (n,), n)
    j, t = _both(lambda lib, x: lib.sort(x, descending=descending), a)
    _same(tuple(j), tuple(t))
    j, t = _both(lambda lib, x: x.argsort(descending=descending), a)
    _same(j, t)
    j, t = _both(lambda lib, x: x.argsort().argsort(), a)  # ranks
    _same(j, t)


@pytest.mark.parametrize("kind", ["ints", "zeros and nans", "halves"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_rows_and_columns(kind, dim, descending):
    a = _data(kind, (30, 45), 7)
    j, t = _both(lambda lib, x: x.sort(dim=dim, descending=descending), a)
    _same(tuple(j), tuple(t))
    j, t = _both(lambda lib, x: x.t().sort(dim=dim, descending=descending), a)
    _same(tuple(j), tuple(t))


@pytest.mark.parametrize("kind", ["ints", "small floats"])
def test_stable_keeps_the_original_order(kind):
    a = _data(kind, (3, 200), 3)
    j, t = _both(lambda lib, x: x.sort(dim=1, stable=True), a)
    _same(tuple(j), tuple(t))
    j, t = _both(lambda lib, x: x.argsort(dim=1, stable=True, descending=True), a)
    _same(j, t)
    j, _ = _both(lambda lib, x: x.argsort(dim=1, stable=True), a)
    assert np.array_equal(j.numpy(), np.argsort(a, axis=1, kind="stable"))


def test_msort_orders_signed_zeros_as_pytorch():
    a = _data("zeros and nans", (64, 3), 11)
    j, t = _both(lambda lib, x: lib.msort(x), a)
    _same(j, t)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("n", [32767, 32768])
def test_big_integer_sorts_take_the_radix_sort(dtype, n):
    # 1-D, ascending, integers (not bool), 32,768 elements or more: stable in PyTorch
    a = (np.arange(n) % 3).astype(dtype)
    j, t = _both(lambda lib, x: x.argsort(), a)
    _same(j, t)
    j, t = _both(lambda lib, x: x.argsort(descending=True), a[:20000])
    _same(j, t)


def test_pack_padded_sequence_orders_equal_lengths_as_pytorch():
    # enforce_sorted=False sorts the lengths descending with the default (unstable) sort:
    # with more than 16 sequences, equal lengths come in std::sort's order, and so do the
    # packed batches
    lengths = [5, 3, 5, 2, 5, 3, 1, 5, 3, 3, 5, 2, 2, 5, 3, 4, 4, 5, 1, 2]
    data = np.arange(len(lengths) * 5 * 2, dtype=np.float32).reshape(len(lengths), 5, 2)
    got = []
    for lib in (jtensor, torch):
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            lib.from_numpy(data.copy()), lib.tensor(lengths), batch_first=True, enforce_sorted=False
        )
        got.append(
            (packed.sorted_indices.tolist(), packed.unsorted_indices.tolist(), packed.data.tolist())
        )
    assert got[0] == got[1]
