"""Max pooling whose windows tile the input (``max_pool2d(x, 2)``) takes one element-wise pass
per kernel offset over strided views (issue 18: 17.6 -> 7.3 ms on 64 x 16 x 28 x 28 with an
argmax, less again since): values, indices, layout and gradient must be those of the general
loop and of PyTorch, ties, infinite windows and NaNs included (the last NaN's index wins, as
in PyTorch's loop)."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import pooling

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None


def _input(case):
    gen = np.random.default_rng(3)
    shape = {"odd": (2, 3, 17, 15), "batchless": (3, 8, 6)}.get(case, (2, 3, 8, 8))
    a = gen.standard_normal(shape)
    if case == "ties":
        # many equal maxima in a window: the first one wins (``+ 0.0`` turns the -0.0 of
        # rounding into +0.0, so the maximum pass takes them)
        a = np.round(a) + 0.0
    if case == "minus_inf":
        a[..., :2, :2] = -np.inf
    if case == "nan":
        a[..., 0, 0] = np.nan
        a[..., 1, 1] = np.nan
    if case == "signed_zeros":
        a = np.round(a) * 0.0  # windows of +0.0 and -0.0 only: the first one's bits win
    if case == "relu":
        a = np.maximum(a, 0.0)  # windows of zeros: the first zero's index
    if case == "plus_inf":
        a[..., 2:5, 3:5] = np.inf
    return a


CASES = [
    "plain",
    "odd",
    "batchless",
    "ties",
    "minus_inf",
    "nan",
    "channels_last",
    "k3",
    "signed_zeros",
    "relu",
    "plus_inf",
    "k23",
]


def _run(lib, case, dtype="float32"):
    a = _input(case)
    x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
    src = x
    if case == "channels_last":
        src = x.contiguous(memory_format=lib.channels_last)
    kernel = {"k3": 3, "k23": (2, 3)}.get(case, 2)
    y, idx = lib.nn.functional.max_pool2d(src, kernel, return_indices=True)
    y.backward(lib.ones_like(y))
    values = y.detach().double().numpy()
    return (
        tuple(y.shape),
        y.stride(),
        values.tobytes(),
        idx.numpy().tobytes(),
        x.grad.double().numpy().tobytes(),
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_tiled_max_pool_equals_the_general_loop(case, dtype, monkeypatch):
    fast = _run(jtensor, case, dtype)
    monkeypatch.setattr(pooling, "_tiled_max", lambda *args: None)
    assert _run(jtensor, case, dtype) == fast


@pytest.mark.parametrize("case", CASES)
def test_the_maximum_pass_runs_only_where_it_is_exact(case):
    # NaNs and negative zeros take the loop of masked copies; everything else the maximum.
    a = _input(case)
    assert pooling._nan_or_negative_zero(np, a) == (case in ("nan", "signed_zeros"))


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("case", CASES)
def test_tiled_max_pool_follows_torch(case):
    assert _run(jtensor, case) == _run(torch, case)
