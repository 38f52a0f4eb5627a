"""``F.log_softmax`` records cross_entropy's ``LogSoftmaxBackward0`` node where its public op
would record the same (issue 18: a classifier's ``nll_loss(log_softmax(x, 1), y)``): the same
output bits, node, saved values and edges as the public op, gradients that agree with it and
with PyTorch (the node's backward rounds its own way, as cross_entropy's does), and the public
op wherever anything differs (no gradient, a dtype, another layout, a listener, a transform)."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import activation

torch = pytest.importorskip("torch")


def _routed(monkeypatch):
    """The route's decisions, one bool a call."""
    decisions = []
    real = activation._recorded_on_the_arrays

    def spy(*args):
        decisions.append(real(*args))
        return decisions[-1]

    monkeypatch.setattr(activation, "_recorded_on_the_arrays", spy)
    return decisions


def _values(shape, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(np.float32)


def _observe(lib, data, dim, dtype="float32"):
    x = lib.from_numpy(data.astype(dtype)).requires_grad_()
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        lp = lib.nn.functional.log_softmax(x, dim)
    node = lp.grad_fn
    seen = {
        "out": lp.detach().numpy().tobytes(),
        "stride": lp.stride(),
        "version": lp._version,
        "node": node.name(),
        "dim": node._saved_dim,
        "result": node._saved_result.detach().numpy().tobytes(),
        "edges": [type(n).__name__ for n, _ in node.next_functions],
        "packed": len(packed),
    }
    return x, lp, seen


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((6, 9), 1), ((6, 9), -1), ((4, 5, 3), 1), ((7,), 0)])
def test_the_node_is_the_public_ops(shape, dim, dtype, monkeypatch):
    data = _values(shape)
    taken = _routed(monkeypatch)
    _, lp, routed = _observe(jtensor, data, dim, dtype)
    assert taken == [True]
    monkeypatch.setattr(activation, "_recorded_on_the_arrays", lambda *a: False)
    _, _, public = _observe(jtensor, data, dim, dtype)
    assert routed == public
    _, _, theirs = _observe(torch, data, dim, dtype)
    assert {k: routed[k] for k in ("stride", "version", "node", "dim", "edges", "packed")} == {
        k: theirs[k] for k in ("stride", "version", "node", "dim", "edges", "packed")
    }


def _nll_grad(lib, data, labels, dtype):
    x = lib.from_numpy(data.astype(dtype)).requires_grad_()
    y = lib.from_numpy(labels)
    lib.nn.functional.nll_loss(lib.nn.functional.log_softmax(x, 1), y).backward()
    return x.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_agree_with_the_public_op_and_pytorch(dtype, monkeypatch):
    data = _values((64, 300), 1)
    labels = np.random.default_rng(2).integers(0, 300, 64)
    routed = _nll_grad(jtensor, data, labels, dtype)
    monkeypatch.setattr(activation, "_recorded_on_the_arrays", lambda *a: False)
    public = _nll_grad(jtensor, data, labels, dtype)
    theirs = _nll_grad(torch, data, labels, dtype)
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(routed, theirs, rtol=0, atol=tol)
    np.testing.assert_allclose(public, theirs, rtol=0, atol=tol)


def test_another_consumer_retain_graph_and_double_backward():
    data = _values((5, 7), 3)
    labels = np.random.default_rng(4).integers(0, 7, 5)
    results = []
    for lib in (jtensor, torch):
        x = lib.from_numpy(data.astype("float64")).requires_grad_()
        lp = lib.nn.functional.log_softmax(x, 1)
        loss = lib.nn.functional.nll_loss(lp, lib.from_numpy(labels)) + (lp * lp).sum() / 10
        loss.backward(retain_graph=True)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append([t.detach().numpy() for t in (g, gg, x.grad)])
    for mine, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "case",
    ["no-grad", "dtype", "transposed", "half", "trace-hook", "vmap", "empty"],
)
def test_the_public_op_wherever_anything_differs(case, monkeypatch):
    taken = _routed(monkeypatch)
    F = jtensor.nn.functional
    x = jtensor.from_numpy(_values((4, 6))).requires_grad_()
    if case == "no-grad":
        with jtensor.no_grad():
            F.log_softmax(x, 1)
    elif case == "dtype":
        out = F.log_softmax(x, 1, dtype=jtensor.float64)
        assert getattr(out.grad_fn, "_function", None) is None  # (the public op's node)
    elif case == "transposed":
        F.log_softmax(x.t(), 1)
    elif case == "half":
        F.log_softmax(x.half(), 1)
    elif case == "trace-hook":
        monkeypatch.setattr(jtensor._dispatch, "trace_hook", lambda *a, **k: None)
        F.log_softmax(x, 1)
    elif case == "vmap":
        jtensor.func.vmap(lambda r: F.log_softmax(r, 0))(x)
    else:
        F.log_softmax(jtensor.zeros(0, 3, requires_grad=True), 1)
    assert not any(taken)
