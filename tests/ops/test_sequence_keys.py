"""Objects PyTorch reads as sequences (``PySequence_Check``: any class with ``__getitem__``
other than a dict), such as a ``Subset`` from ``random_split``, a ``deque`` or a user's
class: as an index (read and write, with PyTorch's "tuple of indices" rule for fewer than 32
items and its deprecation warning), and as tensor data. Warnings point at the user's line."""

import warnings
from collections import deque

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


class Seq:
    """A minimal sequence: ``__getitem__`` and ``__len__`` only."""

    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


class NoLen:
    def __getitem__(self, i):
        if i < 3:
            return i
        raise IndexError(i)


def _subset(lib, n, size):
    lib.manual_seed(13)
    first, _ = lib.utils.data.random_split(lib.arange(n), [size, n - size])
    return first


CASES = {
    "subset-read": lambda L, x: x[_subset(L, 3, 2)],
    "subset-long-read": lambda L, x: L.arange(100.0)[_subset(L, 100, 40)],
    "subset-short-tensors": lambda L, x: L.arange(100.0)[_subset(L, 100, 20)],
    "seq-ints": lambda L, x: x[Seq([0, 2])],
    "seq-ints-2d": lambda L, x: x[Seq([0, 2]), Seq([1, 3])],
    "seq-tensors-as-tuple": lambda L, x: x[Seq([L.tensor(0), L.tensor(2)])],
    "seq-slices-as-tuple": lambda L, x: x[Seq([slice(1, None), 2])],
    "seq-40-tensors": lambda L, x: x[Seq([L.tensor(i % 3) for i in range(40)])],
    "deque": lambda L, x: x[deque([0, 1])],
    "list-of-lists": lambda L, x: x[[[0, 1], [1, 0]]],
    "ndarray-2d": lambda L, x: x[np.array([[0, 1], [1, 0]])],
    "no-len": lambda L, x: x[NoLen()],
    "str": lambda L, x: x["ab"],
    "dict": lambda L, x: x[{0: 1}],
    "set": lambda L, x: x[{0, 1}],
    "write-seq": lambda L, x: (x.__setitem__(Seq([0, 2]), -1.0), x)[1],
    "write-subset": lambda L, x: (x.__setitem__(_subset(L, 3, 2), 5.0), x)[1],
    "tensor-seq": lambda L, x: L.tensor(Seq([1, 2])),
    "tensor-seq-of-seq": lambda L, x: L.tensor(Seq([Seq([1.5, 2]), Seq([3, 4])])),
    "tensor-subset": lambda L, x: L.tensor(_subset(L, 10, 4)),
    "as-tensor-seq": lambda L, x: L.as_tensor(Seq([1, 2])),
    "long-tensor-seq": lambda L, x: L.LongTensor(Seq([1, 2])),
    "tensor-no-len": lambda L, x: L.tensor(NoLen()),
    "tensor-dict": lambda L, x: L.tensor({0: 1}),
}


def _observe(lib, case):
    x = lib.arange(12.0).view(3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = CASES[case](lib, x)
            out = ("ok", tuple(r.shape), str(r.dtype).split(".")[-1], r.tolist())
        except Exception as exc:  # the exception type is part of the comparison
            out = ("raises", type(exc).__name__)
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return out, messages


@pytest.mark.parametrize("case", sorted(CASES))
def test_sequence_like_keys_and_data_as_pytorch(case):
    assert _observe(jtensor, case) == _observe(torch, case)


def test_warnings_point_at_the_users_line():
    def run(lib):
        x = lib.arange(12.0).view(3, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x[[[0, 1], [1, 0]]]
            x[[[0, 1], [1, 0]]] = 2.0
        return [(w.filename, w.lineno) for w in caught]

    mine, theirs = run(jtensor), run(torch)
    assert mine == theirs
    assert len(mine) == 2 and all(f == __file__ for f, _ in mine)
