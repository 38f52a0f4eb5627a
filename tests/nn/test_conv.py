"""Convolution, pooling and padding (functional and modules): values, gradients, memory
format, grad_fn names and bad input against PyTorch where it is installed; float64
gradchecks and hand-checked values without it."""

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.functional as JF
from jtensor.autograd import gradcheck

try:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF
except ImportError:
    torch = tnn = TF = None

from tests.harness.training import assert_close, assert_same_training

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _pair_inputs(shape, seed, channels_last=False, ties=False):
    x = np.random.default_rng(seed).standard_normal(shape)
    if ties:
        x = np.round(x)
    j, t = jtensor.tensor(x), torch.tensor(x)
    if channels_last:
        j = j.to(memory_format=jtensor.channels_last)
        t = t.to(memory_format=torch.channels_last)
    return j.requires_grad_(), t.requires_grad_()


def _compare(name, x_shape, args=(), kwargs=None, channels_last=False, ties=False,
             weight_shape=None, bias=True, seed=0):
    """Run ``F.<name>`` on the same data in both libraries; compare values, strides,
    indices, grad_fn names and the gradients of every input."""
    kwargs = kwargs or {}
    jx, tx = _pair_inputs(x_shape, seed, channels_last, ties)
    j_in, t_in = [jx], [tx]
    if weight_shape is not None:
        jw, tw = _pair_inputs(weight_shape, seed + 1)
        j_in.append(jw)
        t_in.append(tw)
        if bias:
            jb, tb = _pair_inputs(weight_shape[:1], seed + 2)
        else:
            jb = tb = None
        j_in.append(jb)
        t_in.append(tb)
    j_out = getattr(JF, name)(*j_in, *args, **kwargs)
    t_out = getattr(TF, name)(*t_in, *args, **kwargs)
    if isinstance(t_out, tuple):
        assert_close(j_out[1], t_out[1], what="indices")
        assert j_out[1].stride() == t_out[1].stride()
        j_out, t_out = j_out[0], t_out[0]
    assert_close(j_out, t_out, rtol=1e-10, atol=1e-10)
    assert j_out.stride() == t_out.stride(), (j_out.stride(), t_out.stride())
    assert type(j_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    g = np.random.default_rng(seed + 3).standard_normal(tuple(t_out.shape))
    j_out.backward(jtensor.tensor(g))
    t_out.backward(torch.tensor(g))
    for k, (a, b) in enumerate(zip(j_in, t_in, strict=True)):
        if b is not None:
            assert_close(a.grad, b.grad, rtol=1e-9, atol=1e-10, what=f"grad {k}")
    return j_out


# ---------------------------------------------------------------------------- conv
CONV2D_CASES = [
    ((2, 4, 7, 7), (6, 4, 3, 3), {}),
    ((2, 4, 7, 8), (6, 4, 3, 3), {"stride": 2}),
    ((2, 4, 7, 8), (6, 4, 3, 2), {"stride": (2, 1), "padding": (1, 2)}),
    ((2, 4, 9, 8), (6, 4, 3, 3), {"dilation": (2, 1), "padding": 2}),
    ((2, 4, 7, 8), (6, 2, 3, 2), {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1),
                                  "groups": 2}),
    ((2, 4, 7, 8), (4, 1, 3, 3), {"padding": "same", "groups": 4}),  # depthwise
    ((2, 4, 7, 8), (4, 4, 4, 2), {"padding": "same", "dilation": 2}),  # even kernel
    ((2, 4, 7, 8), (5, 4, 3, 3), {"padding": "valid"}),
    ((4, 7, 8), (5, 4, 3, 3), {"padding": 1}),  # unbatched
    ((1, 3, 5, 5), (2, 3, 5, 5), {}),  # kernel covers the input
    ((2, 6, 6, 6), (6, 2, 1, 1), {"groups": 3, "stride": 3}),
    ((2, 3, 6, 7), (6, 1, 3, 3), {"groups": 3, "padding": 1, "stride": (1, 2)}),  # multiplier
    ((2, 3, 6, 7), (3, 1, 2, 3), {"groups": 3, "dilation": 2}),
]


@needs_torch
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_shape,w_shape,kw", CONV2D_CASES)
def test_conv2d_matches_pytorch(x_shape, w_shape, kw, bias):
    _compare("conv2d", x_shape, kwargs=kw, weight_shape=w_shape, bias=bias)


@needs_torch
@pytest.mark.parametrize("x_shape,w_shape,kw", [c for c in CONV2D_CASES if len(c[0]) == 4])
def test_conv2d_channels_last_matches_pytorch(x_shape, w_shape, kw):
    out = _compare("conv2d", x_shape, kwargs=kw, weight_shape=w_shape, channels_last=True)
    assert out.is_contiguous(memory_format=jtensor.channels_last)


@needs_torch
def test_conv2d_channels_last_weight_gives_channels_last_output():
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6))
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3))
    j = JF.conv2d(jtensor.tensor(x), jtensor.tensor(w).to(memory_format=jtensor.channels_last))
    t = TF.conv2d(torch.tensor(x), torch.tensor(w).to(memory_format=torch.channels_last))
    assert j.stride() == t.stride()
    assert_close(j, t, rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("x_shape,w_shape,kw", [
    ((2, 4, 9), (6, 4, 3), {}),
    ((2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ((4, 10), (3, 4, 4), {"padding": "same", "dilation": 2}),
])
def test_conv1d_matches_pytorch(x_shape, w_shape, kw):
    _compare("conv1d", x_shape, kwargs=kw, weight_shape=w_shape)


@needs_torch
def test_conv2d_float32_and_non_contiguous_input():
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 9)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
    j = JF.conv2d(jtensor.tensor(x).transpose(2, 3), jtensor.tensor(w), stride=2, padding=1)
    t = TF.conv2d(torch.tensor(x).transpose(2, 3), torch.tensor(w), stride=2, padding=1)
    assert_close(j, t, rtol=1e-5, atol=1e-5)
    assert j.stride() == t.stride()


def test_conv2d_gradcheck():
    rng = np.random.default_rng(0)
    x = jtensor.tensor(rng.standard_normal((2, 4, 6, 5)), requires_grad=True)
    w = jtensor.tensor(rng.standard_normal((6, 2, 3, 2)), requires_grad=True)
    b = jtensor.tensor(rng.standard_normal(6), requires_grad=True)
    assert gradcheck(lambda x, w, b: JF.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
                                               dilation=(1, 2), groups=2), (x, w, b))
    assert gradcheck(lambda x, w: JF.conv2d(x, w, padding="same", groups=2), (x, w))
    wd = jtensor.tensor(rng.standard_normal((8, 1, 3, 3)), requires_grad=True)
    assert gradcheck(lambda x, w, b: JF.conv2d(x, w, b, stride=2, padding=1, groups=4),
                     (x, wd, jtensor.tensor(rng.standard_normal(8), requires_grad=True)))
    xc = jtensor.tensor(rng.standard_normal((2, 4, 5, 5))).to(
        memory_format=jtensor.channels_last).requires_grad_()
    w2 = jtensor.tensor(rng.standard_normal((3, 4, 2, 2)), requires_grad=True)
    assert gradcheck(lambda x, w: JF.conv2d(x, w, stride=2), (xc, w2))
    x1 = jtensor.tensor(rng.standard_normal((2, 3, 7)), requires_grad=True)
    w1 = jtensor.tensor(rng.standard_normal((4, 3, 3)), requires_grad=True)
    assert gradcheck(lambda x, w: JF.conv1d(x, w, stride=2, padding=1), (x1, w1))


def test_conv2d_known_values_without_oracle():
    x = jtensor.arange(16.).reshape(1, 1, 4, 4)
    w = jtensor.ones(1, 1, 2, 2)
    out = JF.conv2d(x, w, jtensor.tensor([1.]), stride=2)
    assert out.tolist() == [[[[11., 19.], [43., 51.]]]]
    assert out.grad_fn is None   # nothing requires grad: nothing recorded
    wg = jtensor.ones(1, 1, 2, 2, requires_grad=True)
    assert type(JF.conv2d(x, wg, stride=2).grad_fn).__name__ == "ConvolutionBackward0"
    out = JF.conv2d(x, w, padding=1)
    assert out.shape == (1, 1, 5, 5) and out[0, 0, 0, 0].item() == 0.0
    assert JF.conv2d(x, w, padding="same").shape == (1, 1, 4, 4)
    assert JF.conv2d(x.to(memory_format=jtensor.channels_last), w).is_contiguous(
        memory_format=jtensor.channels_last)


def _error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


CONV_BAD = [
    lambda L, F: F.conv2d(L.randn(2, 3, 7, 7), L.randn(6, 4, 3, 3)),  # channels
    lambda L, F: F.conv2d(L.randn(7, 7), L.randn(6, 4, 3, 3)),  # rank
    lambda L, F: F.conv2d(L.randn(1, 4, 2, 2), L.randn(6, 4, 3, 3)),  # kernel > input
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), stride=0),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), padding=-1),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), padding="foo"),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), padding="same",
                          stride=2),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), groups=3),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7).double(), L.randn(6, 4, 3, 3)),
    lambda L, F: F.conv2d(L.randn(1, 4, 7, 7), L.randn(6, 4, 3, 3), L.randn(5)),
]


@needs_torch
@pytest.mark.parametrize("case", range(len(CONV_BAD)))
def test_conv2d_bad_input_raises_like_pytorch(case):
    expected = _error_of(lambda: CONV_BAD[case](torch, TF))
    assert expected is not None
    got = _error_of(lambda: CONV_BAD[case](jtensor, JF))
    assert got is not None and issubclass(got, expected), (got, expected)


# ---------------------------------------------------------------------------- pooling
POOL_CASES = [
    ("max_pool2d", (2, 3, 7, 7), (2,), {}),
    ("max_pool2d", (2, 3, 7, 7), (3,), {"stride": 2, "padding": 1, "return_indices": True}),
    ("max_pool2d", (2, 3, 7, 8), ((3, 2),), {"stride": (2, 1), "padding": (1, 1),
                                             "dilation": (2, 1), "ceil_mode": True,
                                             "return_indices": True}),
    ("max_pool2d", (3, 7, 8), (3,), {"stride": 2, "ceil_mode": True, "return_indices": True}),
    ("max_pool2d", (2, 3, 6, 6), (3,), {"stride": 1, "return_indices": True}),
    ("max_pool1d", (2, 3, 9), (3,), {"stride": 2, "padding": 1, "return_indices": True}),
    ("avg_pool2d", (2, 3, 7, 7), (2,), {}),
    ("avg_pool2d", (2, 3, 7, 8), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", (2, 3, 7, 8), (3,), {"stride": 2, "padding": 1, "ceil_mode": True,
                                        "count_include_pad": False}),
    ("avg_pool2d", (2, 3, 7, 8), ((3, 2),), {"stride": 2, "padding": 1,
                                             "divisor_override": 5}),
    ("avg_pool2d", (3, 7, 8), ((3, 2),), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 8), (3,), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 8), ((5, None),), {}),
    ("adaptive_avg_pool2d", (3, 7, 8), ((1, 1),), {}),
    ("adaptive_avg_pool2d", (2, 3, 5, 7), ((7, 9),), {}),
    ("avg_pool1d", (2, 3, 9), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool1d", (3, 9), (2,), {"count_include_pad": False, "padding": 1}),
    ("adaptive_avg_pool1d", (2, 3, 9), (4,), {}),
    ("adaptive_avg_pool1d", (3, 9), (1,), {}),
    ("max_pool2d_with_indices", (2, 3, 7, 7), (3,), {"stride": 2, "padding": 1}),
]


@needs_torch
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("name,shape,args,kw", POOL_CASES)
def test_pooling_matches_pytorch(name, shape, args, kw, ties):
    _compare(name, shape, args, kw, ties=ties)


@needs_torch
@pytest.mark.parametrize("name,shape,args,kw",
                         [c for c in POOL_CASES if len(c[1]) == 4])
def test_pooling_channels_last_matches_pytorch(name, shape, args, kw):
    _compare(name, shape, args, kw, channels_last=True, ties=True)


def test_max_pool2d_ties_go_to_the_first_maximum():
    x = jtensor.tensor([[[[1., 3., 3.], [3., 0., 3.], [2., 2., 2.]]]], requires_grad=True)
    out, idx = JF.max_pool2d(x, 2, stride=1, return_indices=True)
    assert out.tolist() == [[[[3., 3.], [3., 3.]]]]
    assert idx.tolist() == [[[[1, 1], [3, 5]]]]
    assert idx.dtype == jtensor.int64
    out.sum().backward()
    assert x.grad.tolist() == [[[[0., 2., 0.], [1., 0., 1.], [0., 0., 0.]]]]
    assert type(out.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"


def test_pooling_gradcheck():
    rng = np.random.default_rng(0)
    x = jtensor.tensor(rng.standard_normal((2, 2, 7, 6)), requires_grad=True)
    assert gradcheck(lambda x: JF.max_pool2d(x, 3, 2, 1, ceil_mode=True), (x,))
    assert gradcheck(lambda x: JF.max_pool2d(x, (2, 3), 1, dilation=(2, 1)), (x,))
    assert gradcheck(lambda x: JF.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                             count_include_pad=False), (x,))
    assert gradcheck(lambda x: JF.avg_pool2d(x, 2, divisor_override=3), (x,))
    assert gradcheck(lambda x: JF.adaptive_avg_pool2d(x, (3, 4)), (x,))
    assert gradcheck(lambda x: JF.adaptive_avg_pool2d(x, (9, 8)), (x,))


def test_pooling_known_values_without_oracle():
    x = jtensor.arange(16.).reshape(1, 1, 4, 4)
    assert JF.max_pool2d(x, 2).tolist() == [[[[5., 7.], [13., 15.]]]]
    assert JF.avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert JF.adaptive_avg_pool2d(x, 1).tolist() == [[[[7.5]]]]
    assert JF.adaptive_avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert JF.max_pool2d(x, 3, ceil_mode=True).shape == (1, 1, 2, 2)
    assert JF.max_pool2d(x, 3).shape == (1, 1, 1, 1)
    neg = jtensor.full((1, 1, 2, 2), float("-inf"))
    _, idx = JF.max_pool2d(neg, 2, padding=1, return_indices=True)
    assert idx.tolist() == [[[[0, 1], [2, 3]]]]


POOL_BAD = [
    lambda L, F: F.max_pool2d(L.randn(1, 1, 5, 5), 2, padding=2),
    lambda L, F: F.max_pool2d(L.randn(1, 1, 5, 5), 2, stride=0),
    lambda L, F: F.max_pool2d(L.randn(1, 1, 5, 5), 3, dilation=0),
    lambda L, F: F.max_pool2d(L.randn(5, 5), 2),
    lambda L, F: F.max_pool2d(L.randn(1, 1, 1, 1), 2),
    lambda L, F: F.avg_pool2d(L.randn(1, 1, 5, 5), 2, padding=2),
    lambda L, F: F.adaptive_avg_pool2d(L.randn(5), 2),
]


@needs_torch
@pytest.mark.parametrize("case", range(len(POOL_BAD)))
def test_pooling_bad_input_raises_like_pytorch(case):
    expected = _error_of(lambda: POOL_BAD[case](torch, TF))
    assert expected is not None
    got = _error_of(lambda: POOL_BAD[case](jtensor, JF))
    assert got is not None and issubclass(got, expected), (got, expected)


# ---------------------------------------------------------------------------- padding
PAD_CASES = [
    ((2, 3, 4, 5), (1, 2, 2, 1)),
    ((2, 3, 4, 5), (-1, 2, 0, -1)),
    ((2, 3, 4, 5), (2, -1, -2, 1)),
    ((3, 4, 5), (3, 4)),
    ((2, 3, 4, 5), (1, 2, 1, 1, 0, 1)),
]


@needs_torch
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PAD_CASES)
def test_pad_matches_pytorch(shape, pad, mode, channels_last):
    if channels_last and len(shape) != 4:
        pytest.skip("channels_last needs 4 dims")
    _compare("pad", shape, (pad,), {"mode": mode}, channels_last=channels_last)


@needs_torch
def test_constant_pad_value_dtype_and_many_dims():
    _compare("pad", (2, 3, 4, 5), ((1, 2, 1, 1, 0, 1, 1, 1),), {"value": 2.5})
    _compare("pad", (2, 3), ((1, 2, 1, 1),), {"value": -1.0})
    j = JF.pad(jtensor.arange(4).reshape(2, 2), (1, 1), value=2.5)
    t = TF.pad(torch.arange(4).reshape(2, 2), (1, 1), value=2.5)
    assert j.tolist() == t.tolist() and str(j.dtype) == str(t.dtype)


def test_pad_gradcheck_and_values_without_oracle():
    x = jtensor.arange(5.).reshape(1, 1, 5)
    assert JF.pad(x, (2, 1), mode="reflect").tolist() == [[[2., 1., 0., 1., 2., 3., 4., 3.]]]
    assert JF.pad(x, (2, 1), mode="replicate").tolist() == [[[0., 0., 0., 1., 2., 3., 4., 4.]]]
    assert JF.pad(x, (2, 1), mode="circular").tolist() == [[[3., 4., 0., 1., 2., 3., 4., 0.]]]
    assert JF.pad(x, (-1, 2), mode="circular").tolist() == [[[1., 2., 3., 4., 1., 2.]]]
    assert JF.pad(x, (1, -2), value=9).tolist() == [[[9., 0., 1., 2.]]]
    rng = np.random.default_rng(0)
    t = jtensor.tensor(rng.standard_normal((2, 2, 4, 5)), requires_grad=True)
    for mode in ("constant", "reflect", "replicate", "circular"):
        assert gradcheck(lambda t, mode=mode: JF.pad(t, (1, 2, 3, -1), mode=mode), (t,))


PAD_BAD = [
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (1,)),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), tuple(range(10))),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (4, 4, 0, 0), mode="reflect"),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (5, 5, 0, 0), mode="circular"),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (1, 1), mode="reflect"),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (1, 1, 0, 0), mode="foo"),
    lambda L, F: F.pad(L.randn(1, 2, 3, 4), (1, 1, 1, 1), mode="reflect", value=2),
    lambda L, F: F.pad(L.randn(3), (1, 1), mode="reflect"),
]


@needs_torch
@pytest.mark.parametrize("case", range(len(PAD_BAD)))
def test_pad_bad_input_raises_like_pytorch(case):
    expected = _error_of(lambda: PAD_BAD[case](torch, TF))
    assert expected is not None
    got = _error_of(lambda: PAD_BAD[case](jtensor, JF))
    assert got is not None and issubclass(got, expected), (got, expected)


# ---------------------------------------------------------------------------- modules
MODULE_CASES = [
    ("Conv2d", (3, 4, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "padding": 1, "dilation": (2, 1), "groups": 2,
                                "bias": False}),
    ("Conv2d", (4, 4, 3), {"padding": "same", "padding_mode": "reflect"}),
    ("Conv2d", (4, 4, (2, 4)), {"padding": "same", "padding_mode": "circular"}),
    ("Conv2d", (4, 4, 3), {"padding": 2, "padding_mode": "replicate"}),
    ("Conv2d", (4, 8, 3), {"padding": "valid", "groups": 4}),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 1}),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("MaxPool2d", ((2, 3), (1, 2)), {}),
    ("AvgPool2d", (3, 1, 1), {}),
    ("AvgPool2d", ((2, 3),), {"ceil_mode": True, "count_include_pad": False}),
    ("AdaptiveAvgPool2d", ((2, None),), {}),
    ("AdaptiveAvgPool2d", (3,), {}),
    ("AvgPool1d", (3, 2, 1), {}),
    ("AdaptiveAvgPool1d", (4,), {}),
    ("MaxPool1d", (3,), {"stride": 2}),
]


@needs_torch
@pytest.mark.parametrize("name,args,kw", MODULE_CASES)
def test_modules_match_pytorch(name, args, kw):
    t_mod = getattr(tnn, name)(*args, **kw).double()
    j_mod = getattr(jnn, name)(*args, **kw).double()
    assert repr(j_mod) == repr(t_mod)
    assert [n for n, _ in j_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]
    for (_, p), (_, q) in zip(j_mod.named_parameters(), t_mod.named_parameters(), strict=True):
        assert tuple(p.shape) == tuple(q.shape)
    shape = (2, 4, 11) if name.endswith("1d") else (2, 4, 9, 10)
    if name == "Conv2d" and args[0] == 3:
        shape = (2, 3, 9, 10)
    x = torch.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    assert_same_training(j_mod, t_mod, x, rtol=1e-9, atol=1e-10)


@needs_torch
def test_conv_modules_and_return_indices_repr():
    assert repr(jnn.MaxPool2d(2, return_indices=True)) == repr(tnn.MaxPool2d(
        2, return_indices=True))
    out = jnn.MaxPool2d(2, return_indices=True)(jtensor.randn(1, 1, 4, 4))
    assert isinstance(out, tuple) and out[1].dtype == jtensor.int64
    seq_j = jnn.Sequential(jnn.Conv2d(3, 4, 3), jnn.MaxPool2d(2), jnn.AvgPool2d(2))
    seq_t = tnn.Sequential(tnn.Conv2d(3, 4, 3), tnn.MaxPool2d(2), tnn.AvgPool2d(2))
    assert repr(seq_j) == repr(seq_t)


def test_conv_init_is_pytorchs_distribution():
    jtensor.manual_seed(0)
    m = jnn.Conv2d(6, 64, 3, groups=2)
    bound = 1 / (3 * 3 * 3) ** 0.5
    w = m.weight.detach().cpu().numpy()
    assert m.weight.shape == (64, 3, 3, 3) and m.bias.shape == (64,)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.mean()) < 0.02 and abs(w.std() - bound / 3 ** 0.5) < 0.01
    assert np.abs(m.bias.detach().cpu().numpy()).max() <= bound
    assert m.weight.requires_grad and isinstance(m.weight, jnn.Parameter)
    assert jnn.Conv2d(2, 2, 3, bias=False).bias is None
    assert jnn.Conv2d(2, 2, 3, dtype=jtensor.float64).weight.dtype == jtensor.float64


CONV_MODULE_BAD = [
    lambda nn: nn.Conv2d(3, 4, 3, groups=2),
    lambda nn: nn.Conv2d(4, 3, 3, groups=2),
    lambda nn: nn.Conv2d(3, 4, 3, padding_mode="foo"),
    lambda nn: nn.Conv2d(3, 4, 3, padding="bad"),
    lambda nn: nn.Conv2d(3, 4, 3, padding="same", stride=2),
    lambda nn: nn.Conv2d(3, 4, 3, groups=0),
]


@needs_torch
@pytest.mark.parametrize("case", range(len(CONV_MODULE_BAD)))
def test_conv_module_bad_arguments_raise_like_pytorch(case):
    expected = _error_of(lambda: CONV_MODULE_BAD[case](tnn))
    got = _error_of(lambda: CONV_MODULE_BAD[case](jnn))
    assert expected is not None and got is not None and issubclass(got, expected)


@needs_torch
def test_small_cnn_trains_like_pytorch():
    """Conv -> ReLU -> MaxPool -> AdaptiveAvgPool -> Linear, 5 SGD steps, same weights."""
    import jtensor.optim as optim

    def build(nn):
        return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 4, 3, padding="same", groups=2), nn.ReLU(),
                             nn.AdaptiveAvgPool2d((2, 2)), nn.Flatten(), nn.Linear(16, 3))

    torch.manual_seed(0)
    t_net = build(tnn).double()
    j_net = build(jnn).double()
    j_net.load_state_dict({k: jtensor.tensor(v.numpy()) for k, v in t_net.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 2, 8, 8))
    y = rng.integers(0, 3, 8)
    t_opt = torch.optim.SGD(t_net.parameters(), lr=0.1, momentum=0.9)
    j_opt = optim.SGD(j_net.parameters(), lr=0.1, momentum=0.9)
    for _ in range(5):
        t_opt.zero_grad()
        j_opt.zero_grad()
        tl = TF.cross_entropy(t_net(torch.tensor(x)), torch.tensor(y))
        jl = JF.cross_entropy(j_net(jtensor.tensor(x)), jtensor.tensor(y))
        assert abs(tl.item() - jl.item()) < 1e-9
        tl.backward()
        jl.backward()
        t_opt.step()
        j_opt.step()
