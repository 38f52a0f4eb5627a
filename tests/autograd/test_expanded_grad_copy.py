"""A leaf's first gradient that is one value expanded everywhere (``x.sum()``'s) is stored
as a dense tensor of its own: the same values, signed zeros and NaN included, layout and
dtype as PyTorch's."""

import math

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _grad(lib, shape, seed, dtype="float32", transpose=False):
    x = lib.ones(shape, dtype=getattr(lib, dtype))
    if transpose:
        x = x.t()
    x.requires_grad_()
    x.sum().backward(lib.tensor(seed, dtype=getattr(lib, dtype)))
    g = x.grad
    values = [math.copysign(1.0, v) if v == 0 else v for v in g.reshape(-1).tolist()]
    return (
        tuple(g.shape),
        g.stride(),
        str(g.dtype).split(".")[-1],
        g.is_contiguous(),
        [repr(v) for v in values],
        g.data_ptr() != x.data_ptr(),
    )


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 1, 3), (0,), (4, 0)])
@pytest.mark.parametrize("seed", [2.5, -0.0, float("nan"), float("inf")])
def test_sum_gradient_of_a_leaf(shape, seed):
    assert _grad(jtensor, shape, seed) == _grad(torch, shape, seed)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "complex64"])
def test_dtypes(dtype):
    assert _grad(jtensor, (3, 4), 1.5, dtype) == _grad(torch, (3, 4), 1.5, dtype)


def test_transposed_leaf_keeps_its_layout():
    assert _grad(jtensor, (3, 4), 1.5, transpose=True) == _grad(torch, (3, 4), 1.5, transpose=True)
