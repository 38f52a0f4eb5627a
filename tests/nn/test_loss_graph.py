"""The autograd graphs of ``cross_entropy`` and ``nll_loss`` are PyTorch's, node for node.

Learners read ``loss.grad_fn.next_functions`` and draw the graph, so for every case below
the node names, the ``(None, 0)`` entries and the ``input_nr`` of each edge must equal
PyTorch's, recursively down to ``AccumulateGrad``; so must the values and the gradients.
Also: the class weight refuses ``requires_grad`` as PyTorch does, float64 gradchecks of the
fast kernels, and the paths of those kernels that a plain backward does not take (a second
backward with ``retain_graph``, hooks that watch the gradient on its way, ``create_graph``).
"""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn.functional as JF
from jtensor.autograd import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = TF = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

RNG = np.random.default_rng(11)
X2 = RNG.standard_normal((6, 5))
T2 = np.array([1, 0, 4, 2, 3, 3])
T2_IGN = np.array([1, -100, 4, 2, -100, 3])
W5 = RNG.random(5) + 0.1
X1 = RNG.standard_normal(5)
X3 = RNG.standard_normal((2, 5, 3))
T3 = RNG.integers(0, 5, (2, 3))
X4 = RNG.standard_normal((2, 5, 3, 2))
T4 = RNG.integers(0, 5, (2, 3, 2))
T4[0, 0, 0] = -100
X5 = RNG.standard_normal((2, 5, 2, 2, 2))
T5 = RNG.integers(0, 5, (2, 2, 2, 2))
P2 = RNG.random((6, 5))
P2 /= P2.sum(1, keepdims=True)
P3 = RNG.random((2, 5, 3))
P1 = RNG.random(5)

# name -> (fn(F, *tensors, reduction), arrays, indices of the arrays that require grad)
CASES = {
    "ce_2d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [X2, T2], (0,)),
    "ce_1d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [X1, np.array(3)], (0,)),
    "ce_3d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [X3, T3], (0,)),
    "ce_4d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [X4, T4], (0,)),
    "ce_5d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [X5, T5], (0,)),
    "ce_weight": (lambda F, x, t, w, r: F.cross_entropy(x, t, weight=w, reduction=r),
                  [X2, T2, W5], (0,)),
    "ce_weight_4d": (lambda F, x, t, w, r: F.cross_entropy(x, t, weight=w, reduction=r),
                     [X4, T4, W5], (0,)),
    "ce_ignore_index": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
                        [X2, T2_IGN], (0,)),
    "ce_ignore_index_2": (lambda F, x, t, r: F.cross_entropy(x, t, ignore_index=2,
                                                             reduction=r), [X2, T2], (0,)),
    "ce_all_ignored": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
                       [X2, np.full(6, -100)], (0,)),
    "ce_uint8": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
                 [X2, T2.astype(np.uint8)], (0,)),
    "ce_empty_batch": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
                       [X2[:0], T2[:0]], (0,)),
    "ce_smoothing": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r,
                                                        label_smoothing=0.1), [X2, T2], (0,)),
    "ce_smoothing_weight_ignore": (lambda F, x, t, w, r: F.cross_entropy(
        x, t, weight=w, reduction=r, label_smoothing=0.2), [X2, T2_IGN, W5], (0,)),
    "ce_smoothing_1d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r,
                                                           label_smoothing=0.3),
                        [X1, np.array(2)], (0,)),
    "ce_smoothing_3d": (lambda F, x, t, r: F.cross_entropy(x, t, reduction=r,
                                                           label_smoothing=0.2), [X3, T3], (0,)),
    "ce_probs": (lambda F, x, p, r: F.cross_entropy(x, p, reduction=r), [X2, P2], (0,)),
    "ce_probs_target_grad": (lambda F, x, p, r: F.cross_entropy(x, p, reduction=r),
                             [X2, P2], (0, 1)),
    "ce_probs_weight_smoothing": (lambda F, x, p, w, r: F.cross_entropy(
        x, p, weight=w, reduction=r, label_smoothing=0.1), [X2, P2, W5], (0,)),
    "ce_probs_1d": (lambda F, x, p, r: F.cross_entropy(x, p, reduction=r), [X1, P1], (0,)),
    "ce_probs_3d": (lambda F, x, p, r: F.cross_entropy(x, p, reduction=r), [X3, P3], (0,)),
    "ce_probs_empty": (lambda F, x, p, r: F.cross_entropy(x, p, reduction=r),
                       [X2[:0], P2[:0]], (0,)),
    "nll_of_log_softmax": (lambda F, x, t, r: F.nll_loss(F.log_softmax(x, 1), t, reduction=r),
                           [X2, T2_IGN], (0,)),
    "nll_leaf": (lambda F, x, t, w, r: F.nll_loss(x, t, weight=w, reduction=r),
                 [X2, T2, W5], (0,)),
    "nll_1d": (lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [X1, np.array(4)], (0,)),
    "nll_3d": (lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [X3, T3], (0,)),
    "nll_4d": (lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [X4, T4], (0,)),
    "nll_5d": (lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [X5, T5], (0,)),
    "nll_of_a_view": (lambda F, x, t, r: F.nll_loss(x[:, 1:] * 2, t, reduction=r),
                      [X2, np.array([0, 3, 2, 1, 0, 3])], (0,)),
}
REDUCTIONS = ("mean", "sum", "none")


def structure(node):
    """(name, ((child structure, input_nr), ...)) down to AccumulateGrad; None stays None."""
    if node is None:
        return None
    name = type(node).__name__
    if name == "AccumulateGrad":
        return name
    return (name, tuple((structure(child), nr) for child, nr in node.next_functions))


def _make(lib, arrays, grads):
    out = []
    for i, a in enumerate(arrays):
        t = lib.tensor(a)
        out.append(t.requires_grad_() if i in grads else t)
    return out


def _run(lib, name, reduction):
    fn, arrays, grads = CASES[name]
    inputs = _make(lib, arrays, grads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib.nn.functional, *inputs, reduction)
    return inputs, out


def _host(t):
    return t.detach().cpu().numpy()


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_graph_values_and_gradients_match_pytorch(name, reduction):
    j_in, j_out = _run(jtensor, name, reduction)
    t_in, t_out = _run(torch, name, reduction)
    assert structure(j_out.grad_fn) == structure(t_out.grad_fn)
    assert tuple(j_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(_host(j_out), _host(t_out), rtol=1e-10, atol=1e-12)
    seed = np.random.default_rng(5).standard_normal(tuple(t_out.shape))
    j_out.backward(jtensor.tensor(seed))
    t_out.backward(torch.tensor(seed))
    for j, t in zip(j_in, t_in, strict=True):
        if t.requires_grad:
            np.testing.assert_allclose(_host(j.grad), _host(t.grad), rtol=1e-10, atol=1e-12)


@needs_torch
def test_graph_of_a_float32_training_step_matches_pytorch():
    # The float32 (N, C) path is the fast one: the same graph as the float64 cases.
    x = RNG.standard_normal((8, 3)).astype(np.float32)
    w = RNG.standard_normal((4, 3)).astype(np.float32)
    t = np.array([0, 3, 1, 2, 2, 0, 1, 3])
    outs = []
    for lib in (jtensor, torch):
        weight = lib.tensor(w).requires_grad_()
        loss = lib.nn.functional.cross_entropy(lib.tensor(x) @ weight.t(), lib.tensor(t))
        outs.append((structure(loss.grad_fn), _host(loss)))
        loss.backward()
        outs.append(_host(weight.grad))
    assert outs[0][0] == outs[2][0]
    assert outs[0][0][1][0][0][0] == "LogSoftmaxBackward0"
    np.testing.assert_allclose(outs[0][1], outs[2][1], rtol=1e-6)
    np.testing.assert_allclose(outs[1], outs[3], rtol=1e-5, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("call", ["nll_2d", "nll_4d", "ce", "ce_smoothing", "nll_no_input_grad"])
def test_weight_that_requires_grad_is_refused_as_in_pytorch(call):
    def run(lib):
        F = lib.nn.functional
        w = lib.tensor(W5).requires_grad_()
        if call == "nll_2d":
            return F.nll_loss(lib.tensor(X2, requires_grad=True), lib.tensor(T2), weight=w)
        if call == "nll_4d":
            return F.nll_loss(lib.tensor(X4, requires_grad=True), lib.tensor(T4), weight=w)
        if call == "ce":
            return F.cross_entropy(lib.tensor(X2, requires_grad=True), lib.tensor(T2), weight=w)
        if call == "ce_smoothing":
            return F.cross_entropy(lib.tensor(X2, requires_grad=True), lib.tensor(T2),
                                   weight=w, label_smoothing=0.1)
        return F.nll_loss(lib.tensor(X2), lib.tensor(T2), weight=w)

    with pytest.raises(RuntimeError) as theirs:
        run(torch)
    with pytest.raises(RuntimeError) as ours:
        run(jtensor)
    assert str(theirs.value) in str(ours.value)
    with jtensor.no_grad(), torch.no_grad():  # without grad mode both compute
        np.testing.assert_allclose(_host(run(jtensor)), _host(run(torch)), rtol=1e-10)


@needs_torch
def test_weight_of_another_dtype_is_refused_as_in_pytorch():
    def run(lib):
        return lib.nn.functional.nll_loss(lib.tensor(X2), lib.tensor(T2),
                                          weight=lib.tensor(W5.astype(np.float32)))

    with pytest.raises(RuntimeError) as theirs:
        run(torch)
    with pytest.raises(RuntimeError) as ours:
        run(jtensor)
    assert str(theirs.value) in str(ours.value)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", ["2d", "2d_weight_ignore", "1d", "4d", "3d", "smoothing",
                                  "nll"])
def test_gradcheck_float64(case, reduction):
    t2 = jtensor.tensor(T2_IGN)
    w = jtensor.tensor(W5)
    fns = {
        "2d": (lambda x: JF.cross_entropy(x, jtensor.tensor(T2), reduction=reduction), X2),
        "2d_weight_ignore": (lambda x: JF.cross_entropy(x, t2, weight=w, reduction=reduction),
                             X2),
        "1d": (lambda x: JF.cross_entropy(x, jtensor.tensor(1), reduction=reduction), X1),
        "4d": (lambda x: JF.cross_entropy(x, jtensor.tensor(T4), weight=w,
                                          reduction=reduction), X4),
        "3d": (lambda x: JF.cross_entropy(x, jtensor.tensor(T3), reduction=reduction), X3),
        "smoothing": (lambda x: JF.cross_entropy(x, t2, weight=w, reduction=reduction,
                                                 label_smoothing=0.25), X2),
        "nll": (lambda x: JF.nll_loss(x, t2, weight=w, reduction=reduction), X2),
    }
    fn, data = fns[case]
    x = jtensor.tensor(data, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def _grads(x, t, **kwargs):
    x = jtensor.tensor(x, requires_grad=True)
    JF.cross_entropy(x, jtensor.tensor(t), **kwargs).backward()
    return _host(x.grad)


def _expected(x, t, weight=None):
    """softmax - onehot, weighted and divided by the summed weights (mean reduction)."""
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    w = np.ones(len(t)) if weight is None else weight[t]
    p[np.arange(len(t)), t] -= 1
    return p * (w / w.sum())[:, None]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_gradient_is_softmax_minus_onehot(dtype):
    x = X2.astype(dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(_grads(x, T2), _expected(X2, T2), rtol=tol, atol=tol)
    np.testing.assert_allclose(_grads(x, T2, weight=jtensor.tensor(W5.astype(dtype))),
                               _expected(X2, T2, W5), rtol=tol, atol=tol)


def test_second_backward_with_retain_graph_gives_the_same_gradient():
    x = jtensor.tensor(X2, requires_grad=True)
    loss = JF.cross_entropy(x, jtensor.tensor(T2))
    loss.backward(retain_graph=True)
    first = _host(x.grad)
    x.grad = None
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(_host(x.grad), first, rtol=1e-13, atol=1e-16)
    x.grad = None
    loss.backward()
    np.testing.assert_allclose(_host(x.grad), first, rtol=1e-13, atol=1e-16)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_hooks_see_the_real_gradient_of_the_log_probabilities():
    # With a hook watching, the gradient NllLoss hands to LogSoftmax is the dense one:
    # -w[t] / total at each target, 0 elsewhere.
    x = jtensor.tensor(X2, requires_grad=True)
    loss = JF.cross_entropy(x, jtensor.tensor(T2_IGN), weight=jtensor.tensor(W5))
    nll_node = loss.grad_fn
    log_softmax_node = nll_node.next_functions[0][0]
    seen = {}
    # (Both hooks return None: they watch without replacing the gradient.)
    log_softmax_node.register_prehook(lambda grads: seen.__setitem__("pre", _host(grads[0])))
    nll_node.register_hook(lambda gi, go: seen.__setitem__("post", _host(gi[0])))
    loss.backward()
    kept = T2_IGN != -100
    expected = np.zeros((6, 5))
    w = W5[T2_IGN[kept]]
    expected[np.flatnonzero(kept), T2_IGN[kept]] = -w / w.sum()
    np.testing.assert_allclose(seen["pre"], expected, rtol=1e-13)
    np.testing.assert_allclose(seen["post"], expected, rtol=1e-13)
    expected_x = _expected(X2[kept], T2_IGN[kept], W5)
    np.testing.assert_allclose(_host(x.grad)[kept], expected_x, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_host(x.grad)[~kept], 0.0)


def test_a_post_hook_on_log_softmax_sees_the_real_incoming_gradient():
    # A Node hook gets (grad_inputs, grad_outputs): grad_outputs is what NllLoss handed over,
    # so it must be the dense gradient, as in PyTorch (alone, without any other hook).
    x = jtensor.tensor(X2, requires_grad=True)
    loss = JF.cross_entropy(x, jtensor.tensor(T2))
    seen = []
    loss.grad_fn.next_functions[0][0].register_hook(
        lambda gi, go: seen.append(_host(go[0])))
    loss.backward()
    expected = np.zeros((6, 5))
    expected[np.arange(6), T2] = -1 / 6
    np.testing.assert_allclose(seen[0], expected, rtol=1e-13)


def test_a_prehook_that_replaces_the_gradient_is_honoured():
    x = jtensor.tensor(X2, requires_grad=True)
    loss = JF.cross_entropy(x, jtensor.tensor(T2), reduction="sum")
    loss.grad_fn.next_functions[0][0].register_prehook(lambda grads: (grads[0] * 0 + 1,))
    loss.backward()
    # d/dx of sum(log_softmax(x)) is 1 - C * softmax.
    p = np.exp(X2) / np.exp(X2).sum(1, keepdims=True)
    np.testing.assert_allclose(_host(x.grad), 1 - 5 * p, rtol=1e-12, atol=1e-14)


def test_nll_loss_checks_its_saved_input_version():
    x = jtensor.tensor(X2, requires_grad=True)
    logp = JF.log_softmax(x, 1)
    loss = JF.nll_loss(logp, jtensor.tensor(T2))
    logp.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_create_graph_differentiates_the_gradient_again():
    x = jtensor.tensor(X2, requires_grad=True)
    loss = JF.cross_entropy(x, jtensor.tensor(T2_IGN), weight=jtensor.tensor(W5))
    (g,) = jtensor.autograd.grad(loss, x, create_graph=True)
    np.testing.assert_allclose(_host(g)[T2_IGN != -100],
                               _expected(X2[T2_IGN != -100], T2_IGN[T2_IGN != -100], W5),
                               rtol=1e-12, atol=1e-15)
    assert g.requires_grad
    (g * g).sum().backward()
    assert x.grad is not None and np.isfinite(_host(x.grad)).all()


def test_anomaly_mode_and_no_grad():
    x = jtensor.tensor(X2, requires_grad=True)
    with jtensor.autograd.detect_anomaly():
        JF.cross_entropy(x, jtensor.tensor(T2)).backward()
    np.testing.assert_allclose(_host(x.grad), _expected(X2, T2), rtol=1e-12, atol=1e-15)
    with jtensor.no_grad():
        out = JF.cross_entropy(x, jtensor.tensor(T2))
    assert out.grad_fn is None and not out.requires_grad
