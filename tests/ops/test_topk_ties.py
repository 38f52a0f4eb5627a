"""``topk`` among equal values against PyTorch's CPU kernel, which selects with libstdc++'s
unstable ``std::partial_sort`` (when ``64 * k <= n``) or ``std::nth_element`` then
``std::sort``: which of the equal elements it reports, and in which order, is what those
algorithms leave where (``nn.utils.prune.l1_unstructured`` zeroes exactly these). jtensor
replays them (``jtensor/_ops/_stl_order.py``) for the rows whose result the ties decide, and
for ``sorted=False`` after ``nth_element``."""

import re

import numpy as np
import pytest

import jtensor
from jtensor._ops import ordering
from tests.harness.conformance import skip_on_cuda
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")


def _both(values, *args, transpose=False, dtype="float32", **kwargs):
    out = []
    for lib in (jtensor, torch):
        x = lib.tensor(values).to(getattr(lib, dtype))
        if transpose:
            x = x.t()
        r = lib.topk(x, *args, **kwargs)
        out.append((r.indices.cpu().tolist(), r.values.double().cpu().numpy()))
    return out


def _same(values, *args, **kwargs):
    (mi, mv), (ti, tv) = _both(values, *args, **kwargs)
    assert mi == ti, (args, kwargs)
    np.testing.assert_array_equal(mv, tv)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [True, False])
@pytest.mark.parametrize("n", [1, 3, 7, 16, 17, 40, 64, 65, 130, 300, 2000])
def test_ties_pick_pytorchs_elements(n, sorted, largest):
    skip_on_cuda("PyTorch's CPU kernel is the oracle")
    rng = np.random.default_rng(n)
    for levels in (1, 2, 5):
        values = rng.integers(0, levels, n).astype(np.float32)
        for k in sorted_ks(n):
            _same(values, k, largest=largest, sorted=sorted)


def sorted_ks(n):
    return sorted(k for k in {1, 2, n // 64, n // 64 + 1, n // 3, n // 2, n - 1, n} if 0 < k <= n)


def test_nans_and_signed_zeros_tie_as_in_pytorch():
    skip_on_cuda("PyTorch's CPU kernel is the oracle")
    nan = float("nan")
    values = [0.0, -0.0, nan, 1.0, nan, -0.0, 0.0, nan, 1.0, -1.0] * 3
    for k in (1, 3, 5, 10, 29):
        for largest in (True, False):
            _same(values, k, largest=largest)
            _same(values, k, largest=largest, sorted=False)


@pytest.mark.parametrize("dtype", ["float64", "int64", "int8", "bfloat16", "float16"])
def test_ties_along_a_dim_of_a_batch(dtype):
    skip_on_cuda("PyTorch's CPU kernel is the oracle")
    values = np.random.default_rng(0).integers(0, 3, (4, 5, 90)).astype(np.float32)
    for dim in (0, 1, 2, -1):
        size = values.shape[dim]
        for k in {1, size // 2, size}:
            _same(values, k, dim, dtype=dtype)
            _same(values, k, dim, largest=False, sorted=False, dtype=dtype)
    _same(values[0], 3, 1, transpose=True, dtype=dtype)  # a non-contiguous input


def test_distinct_values_keep_the_fast_path():
    values = np.random.default_rng(1).permutation(500).astype(np.float32)
    _same(values, 40)
    _same(values, 5, largest=False)
    _same(values, 300, sorted=False)  # the order nth_element leaves


@pytest.mark.parametrize("k", [True, 2.0])
def test_k_must_be_an_int(k):
    for name in ("topk", "kthvalue"):
        msg = f"{name}(): argument 'k' must be int, not {type(k).__name__}"
        for lib in (jtensor, torch):
            with pytest.raises(TypeError, match=re.escape(msg)):
                getattr(lib, name)(lib.ones(3), k=k)
    assert jtensor.topk(jtensor.arange(5.0), k=jtensor.tensor(2)).indices.tolist() == [4, 3]


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_sort_and_topk_along_each_dim_of_a_batch(dim, layout):
    # The values are gathered by the sorted indices along ``dim`` (one indexing of the rows
    # viewed as a matrix): the values, indices, shapes and strides of PyTorch's, ties and
    # signed zeros included.
    gen = np.random.default_rng(5)
    data = gen.integers(-3, 4, (3, 4, 5)).astype("float32")
    data[0, 0, :2] = [0.0, -0.0]
    found = []
    for lib in (jtensor, torch):
        x = lib.from_numpy(data.copy())
        if layout == "permuted":
            x = x.permute(2, 0, 1)
        results = []
        for descending in (False, True):
            s = x.sort(dim=dim, descending=descending, stable=True)
            results += [s.values, s.indices]
        for largest in (False, True):
            t = x.topk(2, dim, largest=largest)
            results += [t.values, t.indices]
        found.append(
            [(tuple(r.shape), r.stride(), np.asarray(r.numpy()).tobytes()) for r in results]
        )
    assert found[0] == found[1]


def _big_rows(dtype, seed):
    """(24, 300) rows, each a permutation of -150..149 (exact in every dtype here); row 1
    ties across a head's cut, row 2 holds NaNs, row 3 signed zeros at the top, row 4 repeats
    its maximum and its minimum (the other rows: distinct values)."""
    gen = np.random.default_rng(seed)
    values = np.stack([gen.permutation(300) for _ in range(24)]).astype(np.float64) - 150.0
    values[1, gen.choice(300, 40, replace=False)] = 120.0
    values[1, gen.choice(300, 40, replace=False)] = -120.0
    if dtype.startswith("float") or dtype == "bfloat16":
        values[2, gen.choice(300, 7, replace=False)] = np.nan
        values[3, :3] = [0.0, -0.0, 0.0]
        values[3, 3:] = -1.0 - np.abs(values[3, 3:])
    values[4, gen.choice(300, 5, replace=False)] = values[4].max()
    values[4, gen.choice(300, 5, replace=False)] = values[4].min()
    return values


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "bfloat16", "float16"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [True, False])
def test_heads_of_long_rows_as_pytorch(dtype, dim, largest, sorted, monkeypatch):
    """Long rows take ``ordering._topk_head`` (a partition, then a sort of the head): the
    elements and order of PyTorch's, ties across the cut, NaNs and signed zeros included."""
    skip_on_cuda("PyTorch's CPU kernel is the oracle")
    taken = fast_path_spy(monkeypatch, ordering, "_topk_head")
    values = _big_rows(dtype, 7)
    values = values if dim == 1 else values.T.copy()
    for k in (1, 5, 30):
        _same(values, k, dim, largest=largest, sorted=sorted, dtype=dtype)
    assert taken and all(taken)
