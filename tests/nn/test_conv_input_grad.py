"""The input gradient of a stride-1 convolution with at least as many input channels as
output channels is computed as a convolution of the padded output gradient with the flipped
kernel (``conv._input_grad_by_correlation``); other convolutions add one strided block per
kernel offset (``_col2im``). Both must give PyTorch's gradients, and the same ones as each
other, for every padding, dilation and dimensionality they take."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import conv as conv_module
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")

CONFIGS = {
    "2d-same-channels": ("conv2d", (2, 4, 6, 5), (4, 4, 3, 3), {"padding": 1}),
    "2d-fewer-outputs": ("conv2d", (2, 5, 6, 5), (3, 5, 3, 2), {"padding": (1, 0)}),
    "2d-more-outputs": ("conv2d", (2, 2, 6, 5), (5, 2, 3, 3), {"padding": 1}),
    "2d-dilated": ("conv2d", (1, 3, 7, 7), (3, 3, 3, 3), {"padding": 2, "dilation": 2}),
    "2d-no-padding": ("conv2d", (1, 3, 6, 6), (2, 3, 3, 3), {}),
    "2d-padding-beyond-reach": ("conv2d", (1, 3, 4, 4), (2, 3, 2, 2), {"padding": 2}),
    "2d-same-even": ("conv2d", (1, 3, 5, 5), (3, 3, 2, 4), {"padding": "same"}),
    "2d-strided": ("conv2d", (1, 3, 7, 7), (3, 3, 3, 3), {"padding": 1, "stride": 2}),
    "1d": ("conv1d", (2, 4, 9), (2, 4, 3), {"padding": 1}),
    "3d": ("conv3d", (1, 3, 4, 5, 4), (2, 3, 2, 3, 2), {"padding": (1, 1, 0)}),
}


def _grads(lib, name):
    fn, xs, ws, kw = CONFIGS[name]
    rng = np.random.default_rng(4)
    x = lib.tensor(rng.standard_normal(xs), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(rng.standard_normal(ws), dtype=lib.float64, requires_grad=True)
    out = getattr(lib.nn.functional, fn)(x, w, **kw)
    g = lib.tensor(rng.standard_normal(tuple(out.shape)), dtype=lib.float64)
    out.backward(g)
    return x.grad.numpy(), w.grad.numpy(), tuple(x.grad.stride())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_input_gradient_matches_pytorch(name):
    ours, theirs = _grads(jtensor, name), _grads(torch, name)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_both_ways_agree(name, monkeypatch):
    calls = fast_path_spy(monkeypatch, conv_module, "_input_grad_by_correlation")
    by_correlation = _grads(jtensor, name)
    expected = name in (
        "2d-same-channels",
        "2d-fewer-outputs",
        "2d-dilated",
        "2d-no-padding",
        "2d-same-even",
        "1d",
        "3d",
    )
    assert calls and all(calls) == expected
    monkeypatch.setattr(conv_module, "_input_grad_by_correlation", lambda *args: None)
    by_blocks = _grads(jtensor, name)
    np.testing.assert_allclose(by_correlation[0], by_blocks[0], rtol=1e-13, atol=1e-13)
    assert by_correlation[2] == by_blocks[2]
