"""Double backward through conv1d/conv2d, the pooling ops and pad (issue 14), compared with
PyTorch: with ``create_graph=True`` the gradients are ops of their own
(``ConvolutionBackwardBackward0``, ``MaxPool2DWithIndicesBackwardBackward0``...), so a
gradient penalty or a Hessian-vector product works; without it the raw-array backward runs
and records nothing. (float64 gradgradcheck of the same ops: tests/grad_specs/grad_nn.py.)"""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def F(lib):
    return lib.nn.functional


CASES = {
    "conv2d": (lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
               [(2, 2, 4, 4), (3, 2, 3, 3), (3,)]),
    "conv2d-strided-grouped": (lambda lib, x, w: F(lib).conv2d(x, w, stride=2, dilation=(2, 1),
                                                               groups=2),
                               [(1, 4, 6, 5), (2, 2, 2, 2)]),
    "conv2d-depthwise": (lambda lib, x, w: F(lib).conv2d(x, w, groups=4, stride=(1, 2)),
                         [(2, 4, 5, 5), (8, 1, 2, 3)]),
    "conv2d-channels-last": (lambda lib, x, w: F(lib).conv2d(
        x.to(memory_format=lib.channels_last), w), [(2, 3, 5, 5), (4, 3, 2, 2)]),
    "conv1d": (lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding=1),
               [(2, 2, 7), (3, 2, 3), (3,)]),
    "conv1d-unbatched": (lambda lib, x, w: F(lib).conv1d(x, w, groups=3), [(3, 5), (3, 1, 2)]),
    "max_pool2d": (lambda lib, x: F(lib).max_pool2d(x, 2), [(2, 2, 4, 4)]),
    "max_pool2d-padded": (lambda lib, x: F(lib).max_pool2d(x, 3, stride=2, padding=1,
                                                           ceil_mode=True), [(1, 2, 5, 6)]),
    "max_pool1d": (lambda lib, x: F(lib).max_pool1d(x, 2, stride=1), [(2, 2, 5)]),
    "avg_pool2d": (lambda lib, x: F(lib).avg_pool2d(x, 2), [(2, 2, 4, 4)]),
    "avg_pool2d-padded": (lambda lib, x: F(lib).avg_pool2d(
        x, 3, stride=2, padding=1, count_include_pad=False, ceil_mode=True), [(1, 2, 5, 6)]),
    "avg_pool2d-divisor": (lambda lib, x: F(lib).avg_pool2d(x, 2, divisor_override=3),
                           [(2, 4, 4)]),
    "avg_pool1d": (lambda lib, x: F(lib).avg_pool1d(x, 3, stride=2, padding=1), [(2, 2, 7)]),
    "adaptive_avg_pool2d": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (2, 3)),
                            [(2, 2, 5, 7)]),
    "adaptive_avg_pool1d": (lambda lib, x: F(lib).adaptive_avg_pool1d(x, 3), [(2, 2, 7)]),
    "pad-constant": (lambda lib, x: F(lib).pad(x, (1, 2, 0, 1)), [(2, 3, 4)]),
    "pad-crop": (lambda lib, x: F(lib).pad(x, (-1, 2), value=3.0), [(3, 4)]),
    "pad-reflect": (lambda lib, x: F(lib).pad(x, (2, 1, 1, 1), mode="reflect"),
                    [(1, 2, 4, 5)]),
    "pad-replicate": (lambda lib, x: F(lib).pad(x, (1, 2), mode="replicate"), [(2, 3, 4)]),
    "pad-circular": (lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="circular"),
                     [(1, 2, 3, 4)]),
    "pad-reflect-3d": (lambda lib, x: F(lib).pad(x, (1, 1, 2, 0, 1, 1), mode="reflect"),
                       [(1, 2, 3, 4, 3)]),
}


def _penalty(lib, fn, shapes, seed=0):
    """Gradients of ``sum(fn(*xs) ** 2)`` with a graph, then the gradient of their squared
    norm (a gradient penalty): values and node names."""
    rng = np.random.default_rng(seed)
    xs = [lib.tensor(rng.uniform(-2, 2, s), dtype=lib.float64, requires_grad=True)
          for s in shapes]
    gs = lib.autograd.grad(fn(lib, *xs).pow(2).sum(), xs, create_graph=True)
    penalty = sum((g * g).sum() for g in gs)
    second = lib.autograd.grad(penalty, xs)
    names = [g.grad_fn.name().rsplit(".", 1)[-1] if g.grad_fn is not None else None
             for g in gs]
    return ([g.detach().cpu().numpy() for g in gs], [h.cpu().numpy() for h in second], names)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_penalty_matches_pytorch(name):
    fn, shapes = CASES[name]
    first, second, names = _penalty(jtensor, fn, shapes)
    t_first, t_second, t_names = _penalty(torch, fn, shapes)
    assert names == t_names
    for mine, theirs in zip(first + second, t_first + t_second, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)


def _hvp(lib):
    """A Hessian-vector product of a small CNN's loss with respect to its parameters."""
    rng = np.random.default_rng(3)

    def leaf(*shape):
        return lib.tensor(rng.uniform(-0.5, 0.5, shape), dtype=lib.float64, requires_grad=True)

    w1, b1, w2 = leaf(3, 1, 3, 3), leaf(3), leaf(4, 3 * 2 * 2)
    x = lib.tensor(rng.uniform(-1, 1, (2, 1, 6, 6)), dtype=lib.float64)
    y = lib.tensor([1, 3])
    params = [w1, b1, w2]
    h = F(lib).conv2d(F(lib).pad(x, (1, 1, 1, 1), mode="reflect"), w1, b1)
    h = F(lib).avg_pool2d(F(lib).max_pool2d(h.tanh(), 2, stride=1), 2)
    h = F(lib).adaptive_avg_pool2d(h, 2)
    loss = F(lib).cross_entropy(F(lib).linear(h.flatten(1), w2), y)
    grads = lib.autograd.grad(loss, params, create_graph=True)
    vs = [lib.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=lib.float64) for p in params]
    dot = sum((g * v).sum() for g, v in zip(grads, vs, strict=True))
    return [h.cpu().numpy() for h in lib.autograd.grad(dot, params)]


def test_cnn_hessian_vector_product_matches_pytorch():
    for mine, theirs in zip(_hvp(jtensor), _hvp(torch), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


def _third(lib):
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.uniform(-1, 1, (1, 2, 5, 5)), requires_grad=True)
    w = lib.tensor(rng.uniform(-1, 1, (2, 2, 3, 3)), requires_grad=True)
    (g,) = lib.autograd.grad(F(lib).conv2d(x, w, padding=1).pow(3).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad(g.pow(2).sum(), w, create_graph=True)
    (k,) = lib.autograd.grad(h.pow(2).sum(), x)
    return k.cpu().numpy()


def test_conv_third_derivative_matches_pytorch():
    np.testing.assert_allclose(_third(jtensor), _third(torch), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
                                  "pad-reflect"])
def test_the_gradient_depends_on_the_input_with_a_zero_derivative(name):
    """As PyTorch's ``*BackwardBackward0`` nodes: an edge to the input, carrying zeros."""
    fn, shapes = CASES[name]
    results = []
    for lib in (jtensor, torch):
        x = lib.ones(*shapes[0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x, allow_unused=True)
        results.append(None if h is None else h.cpu().numpy())
    assert results[0] is not None and results[1] is not None
    np.testing.assert_array_equal(results[0], results[1])


def test_without_create_graph_the_fast_backward_records_nothing():
    x = jtensor.randn(1, 2, 6, 6, requires_grad=True)
    w = jtensor.randn(3, 2, 3, 3, requires_grad=True)
    y = F(jtensor).max_pool2d(F(jtensor).pad(F(jtensor).conv2d(x, w), (1, 1)), 2)
    loss = F(jtensor).avg_pool2d(y, 2).sum()
    with jtensor.trace.record() as t:
        gx, gw = jtensor.autograd.grad(loss, (x, w))
    assert not gx.requires_grad and not gw.requires_grad
    assert gx.grad_fn is None and gw.grad_fn is None
    # the backward ran the raw kernels: no op events (not even zeros for the pooling's
    # indices), only the nodes
    assert not t.ops()
    names = [e.name for e in t.backward_steps()][1:]
    assert names == ["AvgPool2DBackward0", "MaxPool2DWithIndicesBackward0",
                     "ConstantPadNdBackward0", "ConvolutionBackward0"]


@pytest.mark.parametrize("fn", [lambda t: F(jtensor).max_pool2d(t, 2),
                                lambda t: F(jtensor).avg_pool2d(t, 2),
                                lambda t: F(jtensor).adaptive_avg_pool2d(t, 3),
                                lambda t: F(jtensor).pad(t, (1, 1, 1, 1), mode="reflect"),
                                lambda t: F(jtensor).conv2d(t, jtensor.ones(1, 1, 2, 2))])
def test_input_modified_after_the_op_is_refused_as_in_pytorch(fn):
    """These nodes save their input, as PyTorch's do (the double backward needs it)."""
    a = jtensor.randn(1, 1, 4, 4, requires_grad=True)
    b = a * 1
    y = fn(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_constant_pad_does_not_save_its_input():
    a = jtensor.randn(1, 1, 4, 4, requires_grad=True)
    b = a * 1
    y = F(jtensor).pad(b, (1, 1, 1, 1))
    b.add_(1)
    y.sum().backward()
    assert a.grad is not None
