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
    ],
)
def test_bad_module_arguments_raise_like_pytorch(make):
    expected = _error_of(lambda: make(torch))
    assert expected is not None and _error_of(lambda: make(jtensor)) is expected
