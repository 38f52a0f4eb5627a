"""A basic key of several parts records PyTorch's chain of view nodes, one per part that
does something, left to right (``x[0, 1]``: ``SelectBackward0 -> SelectBackward0``): the
same chain, geometry, base, versions and gradient as PyTorch. Index tensors beside them
join one ``index`` after the view parts (``x[1:, idx]``: ``IndexBackward0 ->
SliceBackward0``)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _chain(t):
    names, fn = [], t.grad_fn
    while fn is not None and type(fn).__name__ != "AccumulateGrad":
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


KEYS = {
    "two ints": (0, 1),
    "three ints": (0, 1, 2),
    "None, full slice, step": (None, slice(None), slice(None, None, 2)),
    "slice, None": (slice(1, None), None),
    "ellipsis, int": (Ellipsis, 0),
    "int, ellipsis, int": (0, Ellipsis, 1),
    "negative int, clamped slice, None": (-1, slice(-5, None), None),
    "full slices only": (slice(None), slice(None)),
    "two Nones, int": (None, None, 0),
    "NumPy int, slice": (np.int64(1), slice(0, 2)),
    "ellipsis, None, slice": (Ellipsis, None, slice(1, 3)),
    "empty slice, int": (slice(0, 0), 1),
    "int, slice, None, ellipsis": (0, slice(1, 2), None, Ellipsis),
    "out of range": (5, 0),
    "too many indices": (0, 0, 0, 0),
    "slice, index": lambda lib: (slice(1, None), lib.tensor([2, 0])),
    "int, index": lambda lib: (0, lib.tensor([2, 0, 2])),
    "index, slice": lambda lib: (lib.tensor([1, 0]), slice(1, 3)),
    "full slice, index": lambda lib: (slice(None), lib.tensor([0, 2])),
    "None, index": lambda lib: (None, lib.tensor([1])),
    "index, None, int": lambda lib: (lib.tensor([1, 0]), None, 2),
    "slice, index, int": lambda lib: (slice(0, 1), lib.tensor([[0, 1]]), 3),
    "index, full slice, index": lambda lib: (lib.tensor([0, 1]), slice(None), lib.tensor([3, 1])),
    "index out of range after a slice": lambda lib: (slice(1, None), lib.tensor([0, 3])),
    "int32 index after an int": lambda lib: (1, lib.tensor([2, 1], dtype=lib.int32)),
}


def _facts(lib, key):
    key = key(lib) if callable(key) else key
    x = lib.arange(24.0, requires_grad=True)
    base = x.reshape(2, 3, 4) * 1
    try:
        y = base[key]
    except IndexError as e:
        return "IndexError", str(e)
    y.pow(2).sum().backward()
    return (
        tuple(y.shape),
        y.stride(),
        y.storage_offset(),
        _chain(y),
        y._base is base,
        y._version,
        x.grad.tolist(),
    )


@pytest.mark.parametrize("name", sorted(KEYS))
def test_chain_matches_pytorch(name):
    assert _facts(jtensor, KEYS[name]) == _facts(torch, KEYS[name])


def test_a_write_through_the_result_reaches_the_base():
    found = []
    for lib in (torch, jtensor):
        x = lib.zeros(2, 3, 4, requires_grad=True)
        base = x * 1
        y = base[1, :, None, 2]
        y.mul_(3)
        base.sum().backward()
        found.append((_chain(y), type(base.grad_fn).__name__, base._version, x.grad.sum().item()))
    assert found[0] == found[1]
