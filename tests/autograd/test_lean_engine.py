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


def _summed_gradients(lib, case):
    """Gradients summed in a node's buffer from several edges, in cases where the running
    sum must not be written in place (someone else holds it) and where it may."""
    stash = []
    x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([0.5, 1.5, -1.0], dtype=lib.float64, requires_grad=True)
    seed = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    if case == "a weight used at every step":  # an RNN's weight: a running sum per step
        h = x
        for _ in range(6):
            h = (h * w).tanh() + x
        h.backward(seed)
    elif case == "one gradient to two edges":  # AddBackward hands the same tensor twice
        (x + x).backward(seed)
    elif case == "the caller's gradient passed through":
        y = x * 1.0
        (y + y + y).backward(seed)
    elif case == "a hook keeps the sum":
        t = x + 0.0
        t.register_hook(lambda g: stash.append(g))
        ((t * w) + t + t * 2).backward(seed)
    elif case == "retained graph":
        y = (x * w + x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
    grads = [None if t.grad is None else t.grad.tolist() for t in (x, w)]
    return grads, seed.tolist(), [g.tolist() for g in stash]


@pytest.mark.parametrize(
    "case",
    [
        "a weight used at every step",
        "one gradient to two edges",
        "the caller's gradient passed through",
        "a hook keeps the sum",
        "retained graph",
    ],
)
def test_buffers_summed_in_place_only_when_nobody_else_holds_them(case, monkeypatch):
    torch = pytest.importorskip("torch")
    got = _summed_gradients(jtensor, case)
    monkeypatch.setattr(engine, "_summable_in_place", lambda old, g: False)
    assert got == _summed_gradients(jtensor, case)  # the same sums, bit for bit
    expected = _summed_gradients(torch, case)
    # (tanh's backward rounds as PyTorch's in all but the last bit of some elements)
    for mine, theirs in zip(got[0], expected[0], strict=True):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)
    assert got[1:] == expected[1:]  # what the caller and the hook hold is untouched


def test_a_running_sum_is_added_in_place(monkeypatch):
    taken = []
    real = engine._summable_in_place
    monkeypatch.setattr(
        engine, "_summable_in_place", lambda o, g: taken.append(real(o, g)) or taken[-1]
    )
    _summed_gradients(jtensor, "a weight used at every step")
    assert taken and all(taken)
