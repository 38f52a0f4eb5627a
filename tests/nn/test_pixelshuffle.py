"""``PixelShuffle``/``PixelUnshuffle`` and their functional forms against PyTorch: values,
gradients, errors, ``repr``, a float64 gradcheck."""

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
from jtensor.autograd import gradcheck, gradgradcheck
from tests.harness.training import assert_close, assert_same_error, to_jt, to_torch

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _pair(*shape, seed=0):
    arr = np.random.default_rng(seed).standard_normal(shape)
    return to_jt(jtensor.tensor(arr), True), to_torch(jtensor.tensor(arr), True)


@pytest.mark.parametrize(
    "shape, r", [((2, 8, 3, 3), 2), ((18, 2, 1), 3), ((2, 3, 4, 2, 2), 2), ((0, 4, 2, 2), 2)]
)
def test_shuffle_and_unshuffle_match_pytorch(shape, r):
    jx, tx = _pair(*shape)
    jm, tm = jnn.PixelShuffle(r), torch.nn.PixelShuffle(r)
    assert repr(jm) == repr(tm)
    assert repr(jnn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))
    assert list(jm.state_dict()) == list(tm.state_dict()) == []
    jy, ty = jm(jx), tm(tx)
    assert_close(jy, ty)
    assert type(jy.grad_fn).__name__ == type(ty.grad_fn).__name__
    ju, tu = jnn.PixelUnshuffle(r)(jy), torch.nn.PixelUnshuffle(r)(ty)
    assert_close(ju, tu)
    if not ty.numel():  # (PyTorch's own backward of an empty shuffle fails)
        return
    g = np.random.default_rng(1).standard_normal(tuple(ty.shape))
    jy.backward(jtensor.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(jx.grad, tx.grad)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(2, 3, 3, 3), 2),
        lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(3, 3), 2),
        lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(1, 4, 2, 2), 0),
        lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(1, 4, 2, 2), 1.5),
        lambda lib: lib.nn.PixelUnshuffle(2)(lib.zeros(1, 3, 5, 4)),
        lambda lib: lib.nn.PixelUnshuffle(2)(lib.zeros(1, 3, 4, 5)),
        lambda lib: lib.nn.PixelUnshuffle(-1)(lib.zeros(1, 4, 2, 2)),
    ],
)
def test_errors_match_pytorch(call):
    assert_same_error(call)


def test_gradcheck_float64_to_second_order():
    x = jtensor.randn(2, 8, 2, 3, dtype=jtensor.float64, requires_grad=True)
    assert gradcheck(lambda t: jnn.functional.pixel_shuffle(t, 2), (x,))
    assert gradgradcheck(lambda t: jnn.functional.pixel_unshuffle(t, 2), (x[:, :2, :, :2],))
