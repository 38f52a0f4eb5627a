"""Index tensors kept for backward, against PyTorch: ``x[idx]``, ``x[mask]``,
``x[mask] = v``, ``index_put`` and ``masked_select`` save their boolean/integer indices
with their versions, so writing an index in place before backward raises PyTorch's
"modified by an inplace operation" (not a wrong gradient or a shape error); a 0-dim
integer key is a select whose index is kept by value; untouched indices still give
PyTorch's gradients (and ``saved_tensors_hooks`` see the indices)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices


def _read_mask(lib, x, m, v):
    return x[m]


def _read_index(lib, x, i, v):
    return x[i]


def _read_tuple(lib, x, i, v):
    return x[i, 1:]


def _write_mask(lib, x, m, v):
    y = x.clone()
    y[m] = v
    return y


def _write_index(lib, x, i, v):
    y = x.clone()
    y[(i,)] = v
    return y


def _index_put(lib, x, i, v):
    return x.index_put((i,), v, accumulate=True)


def _masked_select(lib, x, m, v):
    return x.masked_select(m.unsqueeze(-1).expand(4, 3))


CASES = {
    "read_mask": (_read_mask, "mask"),
    "read_index": (_read_index, "index"),
    "read_tuple": (_read_tuple, "index"),
    "write_mask": (_write_mask, "mask"),
    "write_index": (_write_index, "index"),
    "index_put": (_index_put, "index"),
    "masked_select": (_masked_select, "mask"),
}


def _inputs(lib, kind):
    x = lib.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3), requires_grad=True)
    if kind == "mask":
        idx = lib.tensor([True, False, True, False])
    else:
        idx = lib.tensor([0, 2])
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x, idx, v


def _run(lib, name, modify):
    fn, kind = CASES[name]
    x, idx, v = _inputs(lib, kind)
    out = fn(lib, x, idx, v)
    if modify:
        if kind == "mask":
            idx[1] = True
        else:
            idx.add_(1)
    try:
        (out * out).sum().backward()
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e), str(e)
    grads = [t.grad for t in (x, v)]
    return [None if g is None else g.detach().cpu().numpy() for g in grads]


@pytest.mark.parametrize("name", list(CASES))
def test_modified_index_raises_as_in_torch(name):
    mine = _run(jtensor, name, True)
    theirs = _run(torch, name, True)
    assert isinstance(theirs, tuple), theirs
    assert isinstance(mine, tuple), mine
    assert mine[0] is theirs[0] is RuntimeError
    assert "modified by an inplace operation" in mine[1]
    assert "is at version 1; expected version 0" in mine[1]


@pytest.mark.parametrize("name", list(CASES))
def test_untouched_index_gradients_match_torch(name):
    mine = _run(jtensor, name, False)
    theirs = _run(torch, name, False)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b)


def test_zero_dim_integer_key_is_kept_by_value():
    # PyTorch's SelectBackward0 / CopySlices keep the int: a later write is not seen.
    for lib in (jtensor, torch):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        i = lib.tensor(1)
        y = x[i]
        i.fill_(2)
        y.backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), [0.0, 1.0, 0.0, 0.0])
        z = x.clone()
        j = lib.tensor(3)
        z[j] = 5.0
        j.fill_(0)
        x.grad = None
        z.sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), [1.0, 1.0, 1.0, 0.0])


def test_saved_tensor_hooks_see_the_index():
    seen = {}
    for lib in (jtensor, torch):
        packed = []

        def pack(t, packed=packed):
            packed.append(t.dtype)
            return t

        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        i = lib.tensor([2, 0])
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = x[i]
        y.sum().backward()
        seen[lib.__name__] = [str(d).split(".")[-1] for d in packed]
        np.testing.assert_array_equal(x.grad.cpu().numpy(), [1.0, 0.0, 1.0])
    assert seen["jtensor"] == seen["torch"]
