"""``out=`` tensors that an element-wise op must resize take the layout the result would
have had (TensorIterator's output strides), as in PyTorch; an ``out`` that already has the
right shape keeps its own strides."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _x(L):
    return L.arange(12.0).reshape(3, 4)


CASES = {
    "transposed inputs into an empty out": lambda L: L.add(_x(L).t(), _x(L).t(),
                                                           out=L.empty(0)),
    "a wrong-sized out": lambda L: L.mul(_x(L), 2, out=L.empty(5)),
    "a right-shaped out keeps its strides": lambda L: L.add(_x(L).t(), 1, out=L.empty(4, 3)),
    "unary into an empty out": lambda L: L.exp(_x(L).t(), out=L.empty(0)),
    "broadcast inputs": lambda L: L.add(L.ones(3, 1), L.ones(1, 4), out=L.empty(0)),
    "channels_last inputs": lambda L: L.add(
        L.ones(2, 3, 4, 5).to(memory_format=L.channels_last),
        L.ones(2, 3, 4, 5).to(memory_format=L.channels_last), out=L.empty(0)),
    "a column-major out of the right shape": lambda L: L.sub(
        _x(L), 1, out=L.empty(4, 3).t()),
}


@pytest.mark.parametrize("name", CASES)
def test_resized_out_layout_matches_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = CASES[name](torch)
        got = CASES[name](jtensor)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-6)
