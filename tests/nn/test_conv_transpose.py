"""``ConvTranspose1d/2d`` and ``F.conv_transpose1d/2d`` against PyTorch: fresh weights for the
same seed, ``state_dict`` keys, ``repr``, outputs and gradients in float64 (stride, padding,
output_padding, groups, dilation, unbatched, ``output_size``), errors, float64 gradchecks."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck, gradgradcheck
from tests.harness.training import assert_same_error

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CONFIGS = [
    {},
    {"stride": 2, "padding": 1, "output_padding": 1},
    {
        "stride": (2, 3),
        "padding": (1, 0),
        "groups": 2,
        "dilation": (2, 1),
        "output_padding": (1, 0),
    },
    {"stride": 3, "bias": False, "dilation": 2, "output_padding": 2},
]


def _kw(kw, nd):
    return {k: v[:nd] if isinstance(v, tuple) else v for k, v in kw.items()}


def _np(t):
    return t.detach().cpu().numpy()


def _modules(nd, kw, dtype="float32", seed=0):
    built = []
    for lib in (torch, jtensor):
        lib.manual_seed(seed)
        cls = getattr(lib.nn, f"ConvTranspose{nd}d")
        built.append(cls(4, 6, 3, dtype=getattr(lib, dtype), **_kw(kw, nd)))
    return built[::-1]  # (jtensor's, PyTorch's)


@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_fresh_modules_have_pytorchs_weights_keys_and_repr(nd, kw):
    jm, tm = _modules(nd, kw)
    assert repr(jm) == repr(tm)
    js, ts = jm.state_dict(), tm.state_dict()
    assert list(js) == list(ts)
    for name in ts:
        np.testing.assert_array_equal(_np(js[name]), _np(ts[name]), err_msg=name)


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_forward_and_backward_match_pytorch(nd, kw, batched):
    jm, tm = _modules(nd, kw, "float64")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(((2,) if batched else ()) + (4,) + (5, 4)[:nd])
    results = []
    for lib, m in ((jtensor, jm), (torch, tm)):
        t = lib.tensor(x, requires_grad=True)
        out = m(t)
        out.backward(lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape))))
        results.append([out, t.grad] + [p.grad for p in m.parameters()])
        results[-1].append(type(out.grad_fn).__name__)
    assert results[0][-1] == results[1][-1]
    for a, b in zip(results[0][:-1], results[1][:-1], strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("size", [(11, 11), (12, 12), [1, 6, 12, 11]], ids=str)
def test_output_size_matches_pytorch(size):
    jm, tm = _modules(2, {"stride": 2}, "float64")
    x = np.random.default_rng(2).standard_normal((1, 4, 5, 5))
    ours = jm(jtensor.tensor(x), output_size=size)
    theirs = tm(torch.tensor(x), output_size=size)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.ConvTranspose2d(4, 2, 3, padding_mode="reflect"),
        lambda lib: lib.nn.ConvTranspose2d(4, 2, 3, groups=3),
        lambda lib: lib.nn.ConvTranspose2d(4, 3, 3, groups=2),
        lambda lib: lib.nn.ConvTranspose2d(4, 2, 3, stride=2)(
            lib.zeros(1, 4, 5, 5), output_size=(13, 13)
        ),
        lambda lib: lib.nn.ConvTranspose1d(4, 2, 3)(lib.zeros(1, 4, 5), output_size=(1, 2, 3, 4)),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 4, 5, 5), lib.zeros(4, 2, 3, 3), stride=2, output_padding=2
        ),
        lambda lib: lib.nn.functional.conv_transpose1d(
            lib.zeros(1, 4, 5), lib.zeros(4, 2, 3), stride=2, output_padding=2
        ),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 3, 5, 5), lib.zeros(4, 2, 3, 3)
        ),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 4, 5, 5), lib.zeros(4, 2, 3, 3), groups=3
        ),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 4, 5, 5), lib.zeros(4, 2, 3, 3), padding=5
        ),
        lambda lib: lib.nn.functional.conv_transpose1d(
            lib.zeros(1, 4, 5), lib.zeros(4, 2, 3), padding=-1
        ),
        lambda lib: lib.nn.functional.conv_transpose1d(
            lib.zeros(1, 4, 5), lib.zeros(4, 2, 3), dilation=0
        ),
        lambda lib: lib.nn.functional.conv_transpose2d(lib.zeros(5, 5), lib.zeros(4, 2, 3, 3)),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 4, 5, 5), lib.zeros(4, 2, 3, 3), lib.zeros(3)
        ),
        lambda lib: lib.nn.functional.conv_transpose2d(
            lib.zeros(1, 4, 5, 5).double(), lib.zeros(4, 2, 3, 3)
        ),
    ],
    ids=range(15),
)
def test_errors_match_pytorch(call):
    assert_same_error(call)


def test_gradcheck_float64_to_second_order():
    x = jtensor.randn(1, 2, 3, 3, dtype=jtensor.float64, requires_grad=True)
    w = jtensor.randn(2, 2, 2, 2, dtype=jtensor.float64, requires_grad=True)

    def f(x, w):
        return jtensor.nn.functional.conv_transpose2d(
            x, w, stride=2, padding=1, output_padding=1, groups=2
        )

    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


def test_gradient_penalty_matches_pytorch():
    rng = np.random.default_rng(0)
    arrays = (
        rng.standard_normal((2, 4, 5, 5)),
        rng.standard_normal((4, 3, 3, 3)),
        rng.standard_normal(3),
    )
    results = []
    for lib in (jtensor, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        y = lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
        gx, gw = lib.autograd.grad((y**2).sum(), (x, w), create_graph=True)
        penalty = (gx**2).sum() + (gw**3).sum()
        penalty.backward()
        results.append([penalty, x.grad, w.grad, b.grad])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10)
