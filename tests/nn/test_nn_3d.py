"""The 3-d layers and the last issue-15 gaps against PyTorch: modules (repr, parameters,
PyTorch's initial draws, outputs and gradients after copying weights), lazy forms, the
``output_size`` of transposed convolutions, and bad arguments raising PyTorch's types."""

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
from tests.harness.training import assert_same_training

torch = pytest.importorskip("torch")
tnn = torch.nn

pytestmark = pytest.mark.devices


def _error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e)
    return None


def _x(shape, seed=0, grad=True):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=grad)


# ---------------------------------------------------------------------------- modules
MODULE_CASES = [
    ("Conv3d", (3, 4, 3), {}, (2, 3, 5, 6, 5)),
    (
        "Conv3d",
        (4, 6, (3, 2, 2)),
        {"stride": 2, "padding": 1, "dilation": (2, 1, 1), "groups": 2, "bias": False},
        (2, 4, 7, 6, 5),
    ),
    ("Conv3d", (4, 4, 3), {"padding": "same", "padding_mode": "reflect"}, (1, 4, 4, 5, 4)),
    ("Conv3d", (4, 4, (2, 3, 2)), {"padding": "same", "padding_mode": "circular"}, (1, 4, 4, 5, 4)),
    ("Conv3d", (4, 4, 3), {"padding": 1, "padding_mode": "replicate"}, (4, 4, 5, 4)),
    (
        "ConvTranspose3d",
        (4, 2, 3),
        {"stride": 2, "padding": 1, "output_padding": 1},
        (2, 4, 3, 4, 3),
    ),
    (
        "ConvTranspose3d",
        (4, 6, (2, 3, 2)),
        {"groups": 2, "dilation": (1, 2, 1), "bias": False},
        (4, 3, 3, 3),
    ),
    ("MaxPool3d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, (2, 3, 5, 6, 7)),
    ("MaxPool3d", ((2, 3, 2), (1, 2, 1)), {"dilation": (2, 1, 1)}, (3, 6, 6, 5)),
    ("AvgPool3d", (3, 1, 1), {}, (2, 3, 4, 5, 4)),
    ("AvgPool3d", ((2, 3, 2),), {"ceil_mode": True, "count_include_pad": False}, (1, 2, 5, 7, 5)),
    ("AvgPool3d", (2,), {"divisor_override": 3}, (2, 4, 4, 4)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 3, 5, 4, 7)),
    ("AdaptiveAvgPool3d", (1,), {}, (3, 5, 4, 7)),
    ("AdaptiveMaxPool3d", ((3, 2, 1),), {}, (2, 3, 5, 4, 7)),
    ("LPPool3d", (2, 2), {}, (1, 2, 4, 4, 6)),
    ("LPPool3d", (4.0, (2, 1, 2)), {"stride": 1, "ceil_mode": True}, (2, 3, 4, 5)),
    ("FractionalMaxPool2d", (3,), {"output_ratio": 0.5}, (2, 3, 10, 12)),
    ("FractionalMaxPool2d", ((2, 3),), {"output_size": (4, 5)}, (3, 9, 10)),
    ("FractionalMaxPool3d", (2,), {"output_size": 3}, (2, 2, 6, 7, 8)),
    ("FractionalMaxPool3d", ((2, 3, 2),), {"output_ratio": (0.5, 0.6, 0.7)}, (2, 7, 8, 9)),
]


@pytest.mark.parametrize("name,args,kw,shape", MODULE_CASES)
def test_modules_match_pytorch(name, args, kw, shape):
    torch.manual_seed(0)
    t_mod = getattr(tnn, name)(*args, **kw).double()
    jtensor.manual_seed(0)
    j_mod = getattr(jnn, name)(*args, **kw).double()
    assert repr(j_mod) == repr(t_mod)
    for (n1, p), (n2, q) in zip(j_mod.named_parameters(), t_mod.named_parameters(), strict=True):
        assert n1 == n2 and tuple(p.shape) == tuple(q.shape)
        # the same draws as PyTorch (the generators agree)
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-6)
    assert_same_training(j_mod, t_mod, _x(shape), rtol=1e-9, atol=1e-10)


def test_conv_transpose3d_output_size_picks_the_output_padding():
    t_mod = tnn.ConvTranspose3d(2, 3, 3, stride=(2, 3, 2)).double()
    j_mod = jnn.ConvTranspose3d(2, 3, 3, stride=(2, 3, 2)).double()
    x = _x((1, 2, 3, 3, 4))
    for size in [(7, 9, 9), (1, 3, 8, 11, 10)]:
        yt = t_mod(x, output_size=size)
        j_mod.load_state_dict(
            {k: jtensor.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()}
        )
        yj = j_mod(jtensor.tensor(x.detach().numpy()), output_size=size)
        assert tuple(yj.shape) == tuple(yt.shape)
        np.testing.assert_allclose(yj.detach().cpu().numpy(), yt.detach().numpy(), atol=1e-10)
    for lib, mod in ((torch, t_mod), (jtensor, j_mod)):
        assert (
            _error_of(
                lambda lib=lib, mod=mod: mod(
                    lib.zeros(1, 2, 3, 3, 4, dtype=lib.float64), output_size=(12, 9, 9)
                )
            )
            is ValueError
        )


@pytest.mark.parametrize(
    "name,args,kwargs,shape",
    [
        ("LazyConv3d", (4, 3), {"padding": 1}, (1, 2, 4, 5, 5)),
        ("LazyConv3d", (4, 2), {"groups": 2}, (2, 3, 3, 3)),
        ("LazyConvTranspose3d", (3, 2), {"stride": 2}, (1, 2, 3, 3, 3)),
    ],
)
def test_lazy_3d_modules_match_pytorch(name, args, kwargs, shape):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    runs = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(*args, **kwargs)
        before = repr(m)
        y = m(lib.tensor(a))
        runs.append(
            (
                before,
                repr(m),
                type(m).__name__,
                y.detach().cpu().numpy(),
                {k: v.detach().cpu().numpy() for k, v in m.state_dict().items()},
            )
        )
    (b1, r1, c1, y1, s1), (b2, r2, c2, y2, s2) = runs
    assert (b1, r1, c1) == (b2, r2, c2)
    np.testing.assert_allclose(y1, y2, rtol=1e-5, atol=1e-5)
    assert list(s1) == list(s2)
    for k in s1:
        np.testing.assert_allclose(s1[k], s2[k], rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.Conv3d(4, 6, 3, groups=4),
        lambda lib: lib.nn.Conv3d(4, 4, 3, padding="same", stride=2),
        lambda lib: lib.nn.Conv3d(4, 4, 3, padding="full"),
        lambda lib: lib.nn.Conv3d(4, 4, 3, padding_mode="mirror"),
        lambda lib: lib.nn.ConvTranspose3d(4, 4, 3, padding_mode="reflect"),
        lambda lib: lib.nn.ConvTranspose3d(4, 5, 3, groups=2),
        lambda lib: lib.nn.FractionalMaxPool2d(2),
        lambda lib: lib.nn.FractionalMaxPool2d(2, 3, 0.5),
        lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
        lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2),
        lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
        lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.6, 0.7))(
            lib.zeros(1, 1, 8, 8)
        ),
        lambda lib: lib.nn.MaxPool3d(2)(lib.zeros(2, 3)),
        lambda lib: lib.nn.AvgPool3d(2, padding=3)(lib.zeros(1, 1, 4, 4, 4)),
        lambda lib: lib.nn.AdaptiveAvgPool3d((2, 2))(lib.zeros(1, 1, 4, 4, 4)),
        lambda lib: lib.nn.AdaptiveMaxPool3d(2)(lib.zeros(1, 1, 4, 4, 4, dtype=lib.long)),
        lambda lib: lib.nn.LPPool3d(2, (2, 2))(lib.zeros(1, 1, 4, 4, 4)),
    ],
)
def test_bad_module_arguments_raise_like_pytorch(make):
    expected = _error_of(lambda: make(torch))
    assert expected is not None and _error_of(lambda: make(jtensor)) is expected


def test_max_unpool3d_module_inverts_max_pool3d():
    x = _x((2, 3, 4, 6, 5), grad=False)
    outs = []
    for lib in (torch, jtensor):
        pool = lib.nn.MaxPool3d(2, return_indices=True)
        unpool = lib.nn.MaxUnpool3d(2)
        assert repr(pool) == repr(tnn.MaxPool3d(2, return_indices=True))
        assert repr(unpool) == repr(tnn.MaxUnpool3d(2))
        xin = lib.tensor(x.numpy(), requires_grad=True)
        out, idx = pool(xin)
        y = unpool(out, idx, output_size=xin.shape)
        y.sum().backward()
        outs.append((y.detach().cpu().numpy(), idx.cpu().numpy(), xin.grad.cpu().numpy()))
    for a, b in zip(*outs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_fractional_modules_keep_pytorchs_attributes_and_samples():
    for name, n in (("FractionalMaxPool2d", 2), ("FractionalMaxPool3d", 3)):
        t_mod = getattr(tnn, name)(2, output_ratio=0.5, return_indices=True)
        j_mod = getattr(jnn, name)(2, output_ratio=0.5, return_indices=True)
        assert repr(j_mod) == repr(t_mod)
        for attr in ("kernel_size", "output_size", "output_ratio", "return_indices"):
            assert getattr(j_mod, attr) == getattr(t_mod, attr)
        assert j_mod._random_samples is None and "_random_samples" not in j_mod.state_dict()
        # given samples are a buffer and fix the windows
        shape = (2, 3) + (8,) * n
        x = np.random.default_rng(1).standard_normal(shape)
        s = np.random.default_rng(2).random((2, 3, n))
        t_mod = getattr(tnn, name)(2, output_size=3, _random_samples=torch.tensor(s))
        j_mod = getattr(jnn, name)(2, output_size=3, _random_samples=jtensor.tensor(s))
        assert list(j_mod.state_dict()) == list(t_mod.state_dict()) == ["_random_samples"]
        yt, yj = t_mod(torch.tensor(x)), j_mod(jtensor.tensor(x))
        np.testing.assert_array_equal(yj.cpu().numpy(), yt.numpy())
        # without samples: fresh draws per call, the same as PyTorch's under the same seed
        t_mod = getattr(tnn, name)(2, output_size=3)
        j_mod = getattr(jnn, name)(2, output_size=3)
        torch.manual_seed(5)
        jtensor.manual_seed(5)
        for _ in range(2):
            yt, yj = t_mod(torch.tensor(x)), j_mod(jtensor.tensor(x))
            np.testing.assert_array_equal(yj.cpu().numpy(), yt.numpy())


def test_window_max_pools_pick_pytorchs_index_among_nans_and_ties():
    rng = np.random.default_rng(0)
    x = np.round(rng.standard_normal((2, 3, 9, 8)))
    x[rng.random(x.shape) < 0.15] = np.nan
    s = rng.random((2, 3, 2))
    results = []
    for lib in (jtensor, torch):
        t = lib.tensor(x)
        calls = [
            lib.nn.functional.fractional_max_pool2d(
                t, 3, output_size=(4, 3), return_indices=True, _random_samples=lib.tensor(s)
            ),
            lib.nn.functional.adaptive_max_pool2d(t, (4, 3), return_indices=True),
            lib.nn.functional.adaptive_max_pool3d(t[None], (2, 4, 3), return_indices=True),
            lib.nn.functional.max_pool3d(t[None], (1, 3, 2), return_indices=True),
        ]
        results.append([c[1].cpu().numpy() for c in calls])
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)
