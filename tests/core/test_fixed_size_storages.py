"""Storages that may not grow, as PyTorch's non-resizable ones: memory jtensor does not own
(``from_numpy``, ``as_tensor`` of an array, ``frombuffer``, DLPack) and storages whose bytes
something else points into (``numpy()`` was called, shared memory). Growing one is PyTorch's
RuntimeError; shrinking, or a size that fits, is allowed. (A NumPy array taken from a tensor
keeps aliasing it: before, ``resize_`` moved the tensor's bytes away from the array.)"""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CASES = {
    "from_numpy grows": lambda L: L.from_numpy(np.zeros(3, np.float32)).resize_(10),
    "from_numpy shrinks": lambda L: L.from_numpy(np.zeros(3, np.float32)).resize_(2),
    "from_numpy same size": lambda L: L.from_numpy(np.zeros(3, np.float32)).resize_(3),
    "as_tensor of an array grows": lambda L: L.as_tensor(np.zeros(3, np.float32)).resize_(10),
    "a fresh tensor grows": lambda L: L.tensor([1.0, 2.0]).resize_(10),
    "a view of a fresh tensor grows": lambda L: L.zeros(3)[:2].resize_(10),
    "an out= over an array grows": lambda L: L.add(
        L.ones(5), 1, out=L.from_numpy(np.zeros(3, np.float32))
    ),
    "after numpy()": lambda L: (lambda t: (t.numpy(), t.resize_(10))[1])(L.zeros(3)),
    "after a discarded numpy()": lambda L: (lambda t: (t.numpy(), t)[1])(L.zeros(3)).resize_(8),
    "frombuffer grows": lambda L: L.frombuffer(bytearray(12), dtype=L.float32).resize_(10),
    "from_dlpack of an array": lambda L: L.from_dlpack(np.zeros(3, np.float32)).resize_(10),
    "resize_as_ over an array": lambda L: L.from_numpy(np.zeros(2)).resize_as_(L.ones(4)),
}


def _outcome(L, name):
    try:
        result = CASES[name](L)
    except RuntimeError as e:
        return "RuntimeError", str(e)
    return tuple(result.shape)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(CASES))
def test_growing_as_pytorch(name):
    assert _outcome(jtensor, name) == _outcome(torch, name)


def test_a_shared_storage_does_not_grow():
    # (PyTorch 2.13 crashes the process here; its check's message is the one above)
    t = jtensor.zeros(3).share_memory_()
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(10)
    assert t.is_shared() and t.shape == (3,)


def test_the_array_keeps_aliasing():
    t = jtensor.zeros(3)
    a = t.numpy()
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(10)
    t.fill_(7.0)
    assert a.tolist() == [7.0, 7.0, 7.0]
