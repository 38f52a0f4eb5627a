"""``cat`` and ``stack`` of plain tensors are recorded by ``graph.lean_list`` (issue 18: a
loop gathering its steps): the node, its edges, input metadata, stored values and the
gradients must be the general path's, and PyTorch's where it shows them; anything else
(views needing a refresh, ``out=``, bad arguments) takes the general path with its errors."""

import numpy as np
import pytest

import jtensor
from jtensor._registry import OPS
from jtensor.autograd import graph

torch = pytest.importorskip("torch")

NAMES = ("cat", "concat", "concatenate", "stack")

CALLS = {
    "cat two leaves": lambda L, a, b, c: L.cat([a, b]),
    "cat a tuple along dim 1": lambda L, a, b, c: L.cat((a, c), 1),
    "cat dim by keyword": lambda L, a, b, c: L.cat([a, b], dim=-1),
    "cat one tensor": lambda L, a, b, c: L.cat([a]),
    "cat the same tensor twice": lambda L, a, b, c: L.cat([a, a]),
    "concat": lambda L, a, b, c: L.concat([c, a]),
    "concatenate": lambda L, a, b, c: L.concatenate([c, a], 1),
    "stack three": lambda L, a, b, c: L.stack([a, b, c]),
    "stack last dim": lambda L, a, b, c: L.stack([a, c], dim=-1),
    "stack a constant first": lambda L, a, b, c: L.stack((b, a), 1),
    "cat a transposed operand": lambda L, a, b, c: L.cat([a.t(), c.t()]),
    "cat a view": lambda L, a, b, c: L.cat([a[0], c[1]]),
}


def _tensors(L):
    rng = np.random.default_rng(3)
    a = L.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = L.tensor(rng.standard_normal((2, 3)))
    c = L.tensor(rng.standard_normal((2, 3)), requires_grad=True) * 2
    return a, b, c


def _describe(L, call):
    a, b, c = _tensors(L)
    out = CALLS[call](L, a, b, c)
    node = out.grad_fn
    edges = [(type(f).__name__ if f is not None else None, k) for f, k in node.next_functions]
    out.backward(L.ones_like(out) * 3)
    return (
        type(node).__name__,
        edges,
        tuple(out.shape),
        out.stride(),
        out._version,
        a.grad.numpy().tobytes(),
        node,
    )


def _internals(node):
    return node._input_meta, dict(node._values), dict(node._saved), node._num_outputs


@pytest.mark.parametrize("call", list(CALLS))
def test_lean_recording_is_the_general_paths(call, monkeypatch):
    lean = _describe(jtensor, call)
    for name in NAMES:
        monkeypatch.setattr(OPS[name].backward, "lean", None)
    general = _describe(jtensor, call)
    assert lean[:6] == general[:6]
    assert _internals(lean[6]) == _internals(general[6])


@pytest.mark.parametrize("call", list(CALLS))
def test_lean_recording_is_pytorchs(call):
    got, expected = _describe(jtensor, call), _describe(torch, call)
    assert got[:5] == expected[:5]
    assert got[5] == expected[5]


def test_the_lean_path_is_taken(monkeypatch):
    calls = []
    real = graph.lean_list

    def spy(*args):
        result = real(*args)
        calls.append(result is not graph.DECLINED)
        return result

    for name in NAMES:
        monkeypatch.setattr(OPS[name].backward, "lean", spy)
    a, b, c = _tensors(jtensor)
    jtensor.cat([a, b], dim=0)
    jtensor.stack([a, c])
    assert calls == [True, True]
    # out= and a list holding a number are the general path's
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        jtensor.cat([a, b], out=jtensor.empty(4, 3))
    with pytest.raises(TypeError):
        jtensor.cat([a, 1.0])
    assert calls[2:] == [False, False]


def test_errors_are_the_ops():
    a, b, c = _tensors(jtensor)
    ta, tb, tc = _tensors(torch)
    for fn in (
        lambda L, x, y: L.cat([x, y.t()]),
        lambda L, x, y: L.stack([x, y[0]]),
        lambda L, x, y: L.cat([x, y], dim=3),
    ):
        with pytest.raises(Exception) as mine:
            fn(jtensor, a, c)
        with pytest.raises(Exception) as theirs:
            fn(torch, ta, tc)
        assert type(mine.value) is type(theirs.value)
