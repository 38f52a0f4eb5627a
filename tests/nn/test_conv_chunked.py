"""The convolution's products split by sample ranges (``conv._sample_chunks``): where they
are taken, the forward, the input gradient by correlation and the col2im input gradient
give the very bits of the whole-batch products (each checked against the same call with
the split turned off, and against PyTorch where it is installed); where the batch or the
product is too small, or off NumPy, they are not taken."""

import numpy as np
import pytest

import jtensor
import jtensor.nn.functional as JF
from jtensor.nn._functional import conv as conv_mod
from tests.harness.spies import fast_path_spy

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _run(fn, x, w, b, kwargs, dtype, channels_last, seed=0):
    """Output and gradients (as float32 arrays and strides) of ``fn`` on fixed data."""
    rng = np.random.default_rng(seed)
    xt = jtensor.tensor(x).to(dtype)
    if channels_last:
        xt = xt.contiguous(memory_format=jtensor.channels_last)
    xt.requires_grad_()
    wt = jtensor.tensor(w).to(dtype).requires_grad_()
    bt = None if b is None else jtensor.tensor(b).to(dtype).requires_grad_()
    y = fn(xt, wt, bt, **kwargs)
    g = jtensor.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).to(dtype)
    y.backward(g)
    got = [y, xt.grad, wt.grad] + ([] if bt is None else [bt.grad])
    return [(t.float().detach().numpy(), tuple(t.stride())) for t in got], g


def _spy(monkeypatch):
    """Whether each product of the convolution ran by sample ranges."""
    return fast_path_spy(monkeypatch, conv_mod, "_sample_chunks")


def _case(name, fn, xs, ws, kwargs, bias=True, dtype=jtensor.float32, channels_last=False):
    return (name, fn, xs, ws, kwargs, bias, dtype, channels_last)


PAD1 = {"padding": 1}
CASES = [
    _case("pad1", JF.conv2d, (9, 64, 24, 24), (64, 64, 3, 3), PAD1),
    _case("valid", JF.conv2d, (9, 64, 24, 24), (48, 64, 3, 3), {}),
    _case("channels_last", JF.conv2d, (9, 64, 24, 24), (64, 64, 3, 3), PAD1, channels_last=True),
    _case("float64", JF.conv2d, (9, 64, 24, 24), (64, 64, 3, 3), PAD1, False, jtensor.float64),
    _case("float16", JF.conv2d, (9, 64, 24, 24), (64, 64, 3, 3), PAD1, dtype=jtensor.float16),
    # fewer input channels than output ones: the col2im input gradient
    _case("col2im", JF.conv2d, (10, 32, 24, 24), (96, 32, 3, 3), PAD1),
    _case("strided", JF.conv2d, (10, 64, 30, 30), (64, 64, 3, 3), {"padding": 1, "stride": 2}),
    _case("dilated", JF.conv2d, (9, 64, 24, 24), (64, 64, 3, 3), {"padding": 2, "dilation": 2}),
    _case("conv1d", JF.conv1d, (9, 64, 600), (64, 64, 9), {"padding": 4}),
    _case("transpose", JF.conv_transpose2d, (10, 64, 24, 24), (64, 32, 3, 3), PAD1),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_split_products_keep_the_bits(case, monkeypatch):
    _, fn, xs, ws, kwargs, bias, dtype, channels_last = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32)
    b = rng.standard_normal(ws[0] if fn is not JF.conv_transpose2d else ws[1]).astype(np.float32)
    b = b if bias else None
    # ranges as small as the products allow (the inputs stay small)
    monkeypatch.setattr(conv_mod, "_CHUNK_ELEMENTS", 1)
    seen = _spy(monkeypatch)
    split, _ = _run(fn, x, w, b, kwargs, dtype, channels_last)
    assert any(seen)  # the split was taken
    monkeypatch.setattr(conv_mod, "_sample_chunks", lambda *a, **k: None)
    whole, _ = _run(fn, x, w, b, kwargs, dtype, channels_last)
    exact = _blas_splits_exactly()
    for (a, sa), (c, sc) in zip(split, whole, strict=True):
        assert sa == sc
        if exact:
            assert np.array_equal(a, c)
        else:  # (the split rounds as the smaller products do: within rounding)
            tol = 2e-3 if dtype is jtensor.float16 else 1e-5  # (a float16 unit: 1e-3)
            np.testing.assert_allclose(a, c, rtol=tol, atol=tol * np.abs(c).max())


def _blas_splits_exactly():
    """Whether this machine's OpenBLAS gives a product's columns the same bits when the
    right operand is cut into column blocks (true of its Haswell kernels; on an AVX-512
    machine a block's columns came out rounded differently from the whole product's)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 576)).astype(np.float32)
    b = rng.standard_normal((576, 9 * 576)).astype(np.float32)
    parts = [a @ b[:, i : i + 1152] for i in range(0, b.shape[1], 1152)]
    return np.array_equal(np.concatenate(parts, axis=1), a @ b)


@needs_torch
@pytest.mark.parametrize("channels_last", [False, True])
def test_split_products_match_torch(channels_last, monkeypatch):
    monkeypatch.setattr(conv_mod, "_CHUNK_ELEMENTS", 1)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((10, 32, 24, 24)).astype(np.float32)
    w = (rng.standard_normal((96, 32, 3, 3)) / 17).astype(np.float32)
    b = rng.standard_normal(96).astype(np.float32)
    for wt_arr in (w, w[:24]):  # col2im's and the correlation's input gradients
        assert conv_mod._sample_chunks(np, 10, wt_arr.shape[0], 32 * 9, 576) is not None
        got, g = _run(
            JF.conv2d,
            x,
            wt_arr,
            b[: wt_arr.shape[0]],
            {"padding": 1},
            jtensor.float32,
            channels_last,
        )
        xt = torch.tensor(x)
        if channels_last:
            xt = xt.contiguous(memory_format=torch.channels_last)
        xt.requires_grad_()
        wt = torch.tensor(wt_arr).requires_grad_()
        bt = torch.tensor(b[: wt_arr.shape[0]]).requires_grad_()
        y = TF.conv2d(xt, wt, bt, padding=1)
        y.backward(torch.tensor(g.numpy()))
        for (a, stride), t in zip(got, (y, xt.grad, wt.grad, bt.grad), strict=True):
            assert stride == t.stride()
            ref = t.detach().numpy()
            np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


def test_chunk_conditions():
    big = conv_mod._BLOCKED_GEMM
    # a sample's product big enough alone, its columns big enough alone: one sample a range
    chunks = conv_mod._sample_chunks(np, 5, 64, 1 << 10, 1 << 10)
    assert chunks == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    # ranges of the fewest samples whose product reaches the blocked driver; the last
    # range takes the rest
    per = big // 3 + 1  # three samples a range
    chunks = conv_mod._sample_chunks(np, 8, 1, per, 1)
    assert chunks == [(0, 3), (3, 8)]
    assert all((n1 - n0) * per >= big for n0, n1 in chunks)
    # too small a batch for two ranges: the whole product
    assert conv_mod._sample_chunks(np, 5, 1, per, 1) is None
    # small columns: ranges of at least _CHUNK_ELEMENTS
    chunks = conv_mod._sample_chunks(np, 64, 1 << 20, 8, 1 << 14)
    assert chunks[0] == (0, conv_mod._CHUNK_ELEMENTS // (1 << 17))
    # another array module: the whole product
    assert conv_mod._sample_chunks(object(), 64, 64, 1 << 10, 1 << 10) is None


def test_small_batches_take_the_whole_product(monkeypatch):
    seen = _spy(monkeypatch)
    x = jtensor.randn(2, 8, 10, 10, requires_grad=True)
    w = jtensor.randn(8, 8, 3, 3, requires_grad=True)
    JF.conv2d(x, w, padding=1).sum().backward()
    assert seen and not any(seen)
