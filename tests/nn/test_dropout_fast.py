"""Dropout's mask drawn on the arrays (issue 18: a dropout in a loop over small tensors paid
for three ops to make its mask).

``dropout._noise_fast`` draws the mask of a plain contiguous CPU float32/float64 input in one
pass. It must be the general path's mask bit for bit (``empty_like(x).bernoulli_(q)``, then
``div_(q)``): the same draws from the default generator, which must be left in the same
state, and the same float division. The output, its node and the gradient follow from the
mask. The general path is had by ``FAST_NOISE = False``. The fast path must decline wherever
the general path's ops would be seen or draw otherwise."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import dropout as dropout_module
from tests.harness.spies import fast_path_spy

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

SHAPES = [(), (7,), (1, 59), (3, 4), (2, 3, 5)]
PROBS = [1e-9, 0.1, 0.25, 1 / 3, 0.5, 0.9, 0.999]
DTYPES = ["float32", "float64"]


def _run(lib, shape, p, dtype, fast, inplace=False, seed=5):
    """Seeded dropout of a random input that requires grad (through a clone when in place),
    its backward with a fixed upstream gradient; returns (output, input grad, state after,
    the mask its node saved)."""
    dropout_module.FAST_NOISE = fast
    try:
        lib.manual_seed(seed)
        x = lib.randn(shape, dtype=getattr(lib, dtype), requires_grad=True)
        source = x.clone() if inplace else x
        y = lib.nn.functional.dropout(source, p, training=True, inplace=inplace)
        mask = y.grad_fn._saved_other
        g = lib.linspace(-2.0, 3.0, y.numel(), dtype=y.dtype).reshape(shape)
        y.backward(g)
        return y, x.grad, lib.random.get_rng_state(), mask
    finally:
        dropout_module.FAST_NOISE = True


def _same(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
    np.testing.assert_array_equal(a, b)
    # signed zeros too: a dropped negative element is -0.0 in both
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", PROBS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("inplace", [False, True], ids=["out", "inplace"])
def test_fast_mask_is_the_general_one(monkeypatch, shape, p, dtype, inplace):
    taken = fast_path_spy(monkeypatch, dropout_module, "_noise_fast")
    y_fast, g_fast, state_fast, mask_fast = _run(jtensor, shape, p, dtype, True, inplace)
    assert taken == [True]
    y_slow, g_slow, state_slow, mask_slow = _run(jtensor, shape, p, dtype, False, inplace)
    assert taken == [True, False]  # (switched off: declined)
    _same(y_fast, y_slow)
    _same(g_fast, g_slow)
    _same(mask_fast, mask_slow)
    assert jtensor.equal(state_fast, state_slow)
    assert y_fast.grad_fn.name() == y_slow.grad_fn.name() == "MulBackward0"


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("shape", [(1, 59), (2, 3, 5)], ids=str)
def test_fast_mask_is_pytorchs(monkeypatch, shape, p, dtype):
    taken = fast_path_spy(monkeypatch, dropout_module, "_noise_fast")
    y, g, _, mask = _run(jtensor, shape, p, dtype, True)
    assert taken == [True]
    ty, tg, _, tmask = _run(torch, shape, p, dtype, True)
    np.testing.assert_array_equal(mask.numpy(), tmask.numpy())
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(g.numpy(), tg.numpy())
    assert y.grad_fn.name() == ty.grad_fn.name()


def test_module_in_a_loop_keeps_the_stream(monkeypatch):
    """Several draws in a row (a recurrent loop): each mask follows the previous one in the
    generator's stream, as the general path's."""

    def run(fast):
        dropout_module.FAST_NOISE = fast
        try:
            jtensor.manual_seed(11)
            layer = jtensor.nn.Dropout(0.2)
            h = jtensor.ones(1, 9, requires_grad=True)
            outs = []
            for _ in range(4):
                h = layer(h * 1.5)
                outs.append(h.detach().clone())
            return outs
        finally:
            dropout_module.FAST_NOISE = True

    taken = fast_path_spy(monkeypatch, dropout_module, "_noise_fast")
    for a, b in zip(run(True), run(False), strict=True):
        _same(a, b)
    assert taken[:4] == [True] * 4


DECLINED = {
    "transposed": lambda: jtensor.nn.functional.dropout(jtensor.ones(3, 4).t(), 0.5),
    "float16": lambda: jtensor.nn.functional.dropout(jtensor.ones(5, dtype=jtensor.float16), 0.5),
    "inference_mode": lambda: _in_inference(),
    "profiler": lambda: _in_profiler(),
}


def _in_inference():
    with jtensor.inference_mode():
        return jtensor.nn.functional.dropout(jtensor.ones(6), 0.5)


def _in_profiler():
    with jtensor.autograd.profiler.profile():
        return jtensor.nn.functional.dropout(jtensor.ones(6), 0.5)


@pytest.mark.parametrize("case", sorted(DECLINED))
def test_declines(monkeypatch, case):
    taken = fast_path_spy(monkeypatch, dropout_module, "_noise_fast")
    DECLINED[case]()
    assert taken and not any(taken)


def test_not_asked_for_other_masks(monkeypatch):
    """Feature dropout (a mask per channel) and p=1 (all zeros) draw no element mask."""
    taken = fast_path_spy(monkeypatch, dropout_module, "_noise_fast")
    jtensor.nn.functional.dropout2d(jtensor.ones(2, 3, 4, 4), 0.5)
    jtensor.nn.functional.dropout(jtensor.ones(4), 1.0)
    jtensor.nn.functional.dropout(jtensor.ones(4), 0.5, training=False)
    assert taken == []


@pytest.mark.parametrize("randomness", ["different", "same"])
def test_under_vmap(randomness):
    """vmap hands dropout on to the batch as one plain call (where the fast path may draw
    the mask): the same masks as the general path, in either randomness mode."""

    def run(fast):
        dropout_module.FAST_NOISE = fast
        try:
            jtensor.manual_seed(3)
            f = jtensor.func.vmap(
                lambda r: jtensor.nn.functional.dropout(r, 0.5), randomness=randomness
            )
            return f(jtensor.ones(3, 4, dtype=jtensor.float64))
        finally:
            dropout_module.FAST_NOISE = True

    _same(run(True), run(False))
