"""The fast paths of ``x[idx]`` and ``x[mask]`` (issue 18: 28 -> 5 us), and of tuple keys of
full slices around integer index tensors (``x[:, idx]``, ``x[rows, cols]``: 55 -> 15 us):
over a contiguous tensor they must give what the general path and PyTorch give (values,
shape, strides, a fresh tensor, the gradient), and leave every other key, and every error,
to the general path."""

import numpy as np
import pytest

import jtensor
from jtensor._ops import advanced_indexing

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None


def _source(lib, requires_grad=False):
    x = lib.arange(24.0, dtype=lib.float64).reshape(4, 6) ** 1.5
    return x.requires_grad_() if requires_grad else x


KEYS = {
    "rows": lambda lib, x: lib.tensor([2, 0, 3, 0]),
    "negative": lambda lib, x: lib.tensor([-1, -4, 1]),
    "int32": lambda lib, x: lib.tensor([1, 3], dtype=lib.int32),
    "matrix_of_rows": lambda lib, x: lib.tensor([[1, 2], [3, 0], [2, 2]]),
    "empty": lambda lib, x: lib.tensor([], dtype=lib.int64),
    "full_mask": lambda lib, x: x > 20,
    "row_mask": lambda lib, x: lib.tensor([True, False, True, True]),
    "no_true": lambda lib, x: x < -1,
    "too_big": lambda lib, x: lib.tensor([0, 4]),
    "too_small": lambda lib, x: lib.tensor([-5]),
    "float_index": lambda lib, x: lib.tensor([0.0, 1.0]),
    "mask_of_wrong_shape": lambda lib, x: lib.tensor([True, False]),
    "transposed_source": lambda lib, x: lib.tensor([1, 0]),
    "column_index": lambda lib, x: (slice(None), lib.tensor([5, 0, 2, 5])),
    "rows_and_columns": lambda lib, x: (lib.tensor([0, 1, 3]), lib.tensor([5, -6, 0])),
    "index_then_full_slice": lambda lib, x: (lib.tensor([1, 0]), slice(None)),
    "broadcast_pair": lambda lib, x: (lib.tensor([[0], [3]]), lib.tensor([1, 2, 4])),
    "int32_column_matrix": lambda lib, x: (slice(None), lib.tensor([[1], [2]], dtype=lib.int32)),
    "pair_out_of_range": lambda lib, x: (lib.tensor([0]), lib.tensor([6])),
    "pair_not_broadcasting": lambda lib, x: (lib.tensor([0, 1]), lib.tensor([1, 2, 3])),
    "partial_slice_index": lambda lib, x: (slice(1, None), lib.tensor([0, 1])),
    "column_index_transposed_source": lambda lib, x: (slice(None), lib.tensor([1, 0])),
    # A strided index: PyTorch lays the result out like it (the general path's layout).
    "transposed_index": lambda lib, x: lib.tensor([[1, 2], [3, 0], [2, 2]]).t(),
    "column_transposed_index": lambda lib, x: (slice(None), lib.tensor([[1, 2], [3, 0]]).t()),
}


def _run(lib, name, requires_grad=False):
    leaf = _source(lib, requires_grad)
    x = leaf.t() if name.endswith("transposed_source") else leaf
    key = KEYS[name](lib, x)
    try:
        y = x[key]
    except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
        return type(exc).__name__, str(exc)
    meta = (tuple(y.shape), y.stride(), y.is_contiguous(), y._base is None, y.tolist())
    if requires_grad:
        (y * y).sum().backward()
        meta += (type(y.grad_fn).__name__, leaf.grad.tolist())
    return meta


@pytest.mark.parametrize("name", sorted(KEYS))
def test_fast_getitem_equals_the_general_path(name, monkeypatch):
    fast = _run(jtensor, name)
    monkeypatch.setattr(advanced_indexing, "_fast_getitem", lambda *args: None)
    monkeypatch.setattr(advanced_indexing, "_fast_tuple_getitem", lambda *args: None)
    assert _run(jtensor, name) == fast


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", sorted(KEYS))
def test_fast_getitem_follows_torch(name, requires_grad):
    mine, theirs = _run(jtensor, name, requires_grad), _run(torch, name, requires_grad)
    if isinstance(theirs[0], str):
        assert mine[0] == theirs[0]  # the same exception type
    else:
        assert mine[:4] == theirs[:4]
        np.testing.assert_allclose(np.asarray(mine[4], float), np.asarray(theirs[4], float))
        if requires_grad:
            assert mine[5] == theirs[5]
            np.testing.assert_allclose(mine[6], theirs[6])


def test_fast_getitem_result_owns_its_memory():
    x = jtensor.arange(6.0).reshape(3, 2)
    y = x[jtensor.tensor([0, 0])]
    y[0, 0] = 100.0
    assert x[0, 0].item() == 0.0 and y[1, 0].item() == 0.0


ZERO_DIM_KEYS = {
    "0": 0,
    "1": 1,
    "-2": -2,
    "numpy 0": np.int64(0),
    "tuple": (0,),
    "slice": slice(None),
    "slice from 1": slice(1, None),
    "step 0": slice(None, None, 0),
    "tensor 0": "tensor",
    "True": True,
    "None": None,
    "ellipsis": Ellipsis,
}


@pytest.mark.parametrize("name", list(ZERO_DIM_KEYS))
@pytest.mark.parametrize("op", ["get", "set"])
def test_keys_of_a_zero_dim_tensor_fail_as_in_pytorch(name, op):
    """Old code's ``loss.data[0]`` meets PyTorch's "invalid index of a 0-dim tensor" (use
    ``item()``); other ints the out-of-bounds error, slices "slice() cannot be applied", a
    tensor key or a tuple "too many indices"."""
    torch = pytest.importorskip("torch")
    found = []
    for lib in (jtensor, torch):
        t = lib.tensor(2.5)
        key = ZERO_DIM_KEYS[name]
        key = lib.tensor(0) if isinstance(key, str) else key
        try:
            if op == "get":
                t[key]
            else:
                t[key] = 1.0
            found.append("ok")
        except Exception as e:  # noqa: BLE001 (the type and words are compared)
            found.append((type(e).__name__, str(e)))
    assert found[0] == found[1]
