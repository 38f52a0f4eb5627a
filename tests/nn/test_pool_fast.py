"""2-D max pooling takes one element-wise pass per kernel offset over strided views: of the
input where the windows tile it (``max_pool2d(x, 2)``; issue 18: 17.6 -> 7.3 ms on
64 x 16 x 28 x 28 with an argmax, less again since), of a -inf-padded copy for padded,
overlapping, dilated or ceil-mode windows (Inception's 3 x 3 / stride 1 / padding 1). Values,
indices, layout and gradient must be those of the general loop and of PyTorch, ties, infinite
windows and NaNs included (the last NaN's index wins, as in PyTorch's loop; a window of -inf
only takes its first element inside the input)."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import pooling

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None


def _input(case):
    case = case.split()[-1]
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
    # windows that do not tile the input: the -inf-padded views, or the loop
    "k3s1p1",
    "k3s2p1",
    "k2s1",
    "dilated",
    "ceil",
    "k3s1p1 minus_inf",
    "k3s1p1 nan",
    "k3s1p1 relu",
    "k3s1p1 signed_zeros",
    "k3s1p1 ties",
]

GEOMETRY = {  # kernel, stride, padding, dilation, ceil_mode
    "k3": (3, None, 0, 1, False),
    "k23": ((2, 3), None, 0, 1, False),
    "k3s1p1": (3, 1, 1, 1, False),
    "k3s2p1": (3, 2, 1, 1, False),
    "k2s1": (2, 1, 0, 1, False),
    "dilated": (2, 1, 1, 2, False),
    "ceil": (3, 2, 0, 1, True),
}


def _run(lib, case, dtype="float32"):
    a = _input(case)
    x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
    src = x
    if case == "channels_last":
        src = x.contiguous(memory_format=lib.channels_last)
    kernel, stride, padding, dilation, ceil = GEOMETRY.get(case.split()[0], (2, None, 0, 1, False))
    y, idx = lib.nn.functional.max_pool2d(
        src, kernel, stride, padding, dilation, ceil_mode=ceil, return_indices=True
    )
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
    monkeypatch.setattr(pooling, "_fast_max", lambda *args: None)
    assert _run(jtensor, case, dtype) == fast


@pytest.mark.parametrize("case", CASES)
def test_the_maximum_pass_runs_only_where_it_is_exact(case):
    # NaNs and negative zeros take the loop of masked copies; everything else the maximum.
    a = _input(case)
    assert pooling._nan_or_negative_zero(np, a) == (case.split()[-1] in ("nan", "signed_zeros"))


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("case", CASES)
def test_tiled_max_pool_follows_torch(case):
    assert _run(jtensor, case) == _run(torch, case)


@pytest.mark.parametrize(
    "case, taken",
    [
        ("plain", True),
        ("k3s1p1", True),
        ("dilated", True),
        ("ceil", True),
        ("k3s1p1 minus_inf", False),
        ("k3s1p1 nan", False),
        ("nan", True),
    ],
)
def test_which_windows_take_the_views(case, taken):
    """The views serve every window shape of plain data; a padded input with a NaN, a -0.0
    or a window of -inf only goes to the general loop (tiles keep their exact loop)."""
    a = _input(case)
    kernel, stride, padding, dilation, ceil = GEOMETRY.get(case.split()[0], (2, None, 0, 1, False))
    seen = []
    real = pooling._fast_max

    def spy(*args):
        seen.append(real(*args) is not None)
        return real(*args)

    pooling._fast_max = spy
    try:
        jtensor.nn.functional.max_pool2d(
            jtensor.tensor(a, dtype=jtensor.float32),
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode=ceil,
        )
    finally:
        pooling._fast_max = real
    assert seen == [taken]
