"""``loss.backward()`` with nobody watching runs the engine's lean loop (``_run_lean``): it
must give what the general loop gives, bit for bit, with the same hook order, releases and
errors."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import engine


def _leaves(seed=0):
    rng = np.random.default_rng(seed)
    a = jtensor.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = jtensor.tensor(rng.standard_normal((4,)), requires_grad=True)
    w = jtensor.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    return a, b, w


def _chain(log):
    a, b, w = _leaves()
    h = (a * b + a).tanh()
    h.register_hook(lambda g: log.append(("h", g.sum().item())))
    u, v = h.split(2, dim=1)  # a node with several outputs
    y = (u * v).sum() + (h @ w).relu().mean()
    y.grad_fn.register_prehook(lambda gs: log.append(("pre", len(gs))))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", len(gi))))
    b.register_post_accumulate_grad_hook(lambda p: log.append(("acc", p.grad.sum().item())))
    y.backward()
    return a, b, w


def _shared_leaf(log):
    a, b, w = _leaves(1)
    a.grad = jtensor.ones_like(a)  # accumulates into an existing gradient
    y = (a * a * a).sum() + a.exp().sum() + (a[:, :2] @ w[:2]).sum()
    y.backward(retain_graph=True)
    y.backward()  # second pass through a retained graph
    return a, b, w


def _retain_grad(log):
    a, b, w = _leaves(2)
    h = a * b
    h.retain_grad()
    y = h.sigmoid().sum()
    y.backward()
    log.append(("h.grad", h.grad.numpy().tobytes()))
    return a, b, w


SCRIPTS = {"chain": _chain, "shared_leaf": _shared_leaf, "retain_grad": _retain_grad}


def _run(script, lean, monkeypatch):
    monkeypatch.setattr(engine, "LEAN", lean)
    calls = []
    real = engine._run_lean

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(engine, "_run_lean", counting)
    log = []
    leaves = SCRIPTS[script](log)
    grads = [
        (t.grad.numpy().tobytes(), t.grad.stride()) if t.grad is not None else None for t in leaves
    ]
    return grads, log, len(calls)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_lean_loop_equals_the_general_one(script, monkeypatch):
    lean, lean_log, lean_calls = _run(script, True, monkeypatch)
    general, general_log, general_calls = _run(script, False, monkeypatch)
    assert lean_calls > 0 and general_calls == 0
    assert lean == general
    assert lean_log == general_log


def test_lean_loop_raises_as_the_general_one(monkeypatch):
    def second_backward():
        a, _, _ = _leaves()
        y = (a * a).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()

    for lean in (True, False):
        monkeypatch.setattr(engine, "LEAN", lean)
        second_backward()


def test_watched_calls_take_the_general_loop(monkeypatch):
    calls = []
    monkeypatch.setattr(engine, "_run_lean", lambda *args: calls.append(1))
    a, b, _ = _leaves()
    (a * b).sum().backward(inputs=[a])
    jtensor.autograd.grad((a * b).sum(), [b])
    (a * b).sum().backward(create_graph=True)
    with jtensor.autograd.detect_anomaly():
        (a * b).sum().backward()
    jtensor.autograd.backward([(a * b).sum(), (a + b).sum()])
    assert calls == []
