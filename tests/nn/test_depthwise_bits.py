"""Depthwise convolutions (``groups`` = input channels) give PyTorch's bits (corpus 21's
DARTS, MobileNet-style blocks): PyTorch's CPU kernels start each output at the bias and add
the kernel offsets' products in row-major order, fused multiply-adds in float32 (oneDNN,
which adds the bias last when there is a channel multiplier), multiply then add in
float64. Compared bit for bit with PyTorch over dims, dtypes, strides, dilations, padding,
channel multipliers, bias and a channels-last input (float32; a float64 channels-last
convolution is PyTorch's up to rounding)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CASES = [
    # (spatial size, channels, multiplier, kernel, stride, padding, dilation)
    ((8, 8), 16, 1, 3, 1, 1, 1),
    ((15, 15), 8, 1, 3, 2, 1, 1),
    ((16, 16), 8, 1, 3, 1, 2, 2),
    ((12, 12), 8, 1, 5, 1, 2, 1),
    ((12, 12), 8, 2, 3, 1, 1, 1),
    ((13, 11), 6, 3, 3, 2, 0, 1),
    ((32, 32), 32, 1, 7, 1, 3, 1),
    ((30,), 8, 1, 5, 1, 2, 1),
    ((6, 6, 6), 4, 1, 3, 1, 1, 1),
]


def _conv(lib, x, w, b, stride, padding, dilation, groups):
    fn = {3: lib.nn.functional.conv1d, 4: lib.nn.functional.conv2d, 5: lib.nn.functional.conv3d}
    return fn[x.dim()](x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_bits_match_pytorch(case, bias, dtype):
    size, c, mult, k, stride, padding, dilation = case
    gen = np.random.default_rng(len(size) * 100 + c + mult + k)
    x = gen.standard_normal((2, c) + size).astype(dtype)
    w = gen.standard_normal((c * mult, 1) + (k,) * len(size)).astype(dtype)
    b = gen.standard_normal(c * mult).astype(dtype) if bias else None
    results = []
    for lib in (jtensor, torch):
        bt = None if b is None else lib.from_numpy(b.copy())
        out = _conv(
            lib,
            lib.from_numpy(x.copy()),
            lib.from_numpy(w.copy()),
            bt,
            stride,
            padding,
            dilation,
            c,
        )
        results.append(out)
    got, expected = results
    assert tuple(got.shape) == tuple(expected.shape)
    assert tuple(got.stride()) == tuple(expected.stride())
    assert np.array_equal(got.numpy().view(np.uint8), expected.numpy().view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_channels_last_input(dtype):
    gen = np.random.default_rng(5)
    x = gen.standard_normal((2, 16, 9, 9)).astype(dtype)
    w = gen.standard_normal((16, 1, 3, 3)).astype(dtype)
    b = gen.standard_normal(16).astype(dtype)
    results = []
    for lib in (jtensor, torch):
        xt = lib.from_numpy(x.copy()).contiguous(memory_format=lib.channels_last)
        out = lib.nn.functional.conv2d(
            xt, lib.from_numpy(w.copy()), lib.from_numpy(b.copy()), padding=1, groups=16
        )
        results.append((tuple(out.stride()), out.contiguous().numpy()))
    assert results[0][0] == results[1][0]
    if dtype == "float32":
        assert np.array_equal(results[0][1], results[1][1])
    else:
        # PyTorch's float64 channels-last kernel sums in another order (its im2col and
        # matrix product); jtensor keeps its einsum there: equal up to rounding
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-13, atol=1e-13)
