"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d and the deprecated functionals
against PyTorch: repr, attributes, outputs, gradients and node names."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

MODULES = [
    ("Upsample", (), {"scale_factor": 2}),
    ("Upsample", (), {"size": (5, 3), "mode": "bilinear"}),
    ("Upsample", (), {"scale_factor": (1.5, 2), "mode": "bicubic", "align_corners": True}),
    (
        "Upsample",
        (),
        {"scale_factor": 1.5, "mode": "nearest-exact", "recompute_scale_factor": True},
    ),
    ("UpsamplingNearest2d", (), {"scale_factor": 3}),
    ("UpsamplingBilinear2d", ((4, 6),), {}),
]


@pytest.mark.parametrize(
    "name,args,kwargs", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)]
)
def test_module_matches_pytorch(name, args, kwargs):
    a = np.random.default_rng(0).standard_normal((2, 3, 3, 4)).astype(np.float32)
    results = []
    for lib in (jtensor, torch):
        m = getattr(lib.nn, name)(*args, **kwargs)
        x = lib.tensor(a, requires_grad=True)
        y = m(x)
        (y * y).sum().backward()
        results.append((repr(m), m.scale_factor, y, x.grad, y.grad_fn.name()))
    (r1, s1, y1, g1, n1), (r2, s2, y2, g2, n2) = results
    assert (r1, s1, n1) == (r2, s2, n2)
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y2.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g1.cpu().numpy(), g2.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "fn,kwargs",
    [
        ("upsample", {"scale_factor": 2, "mode": "bilinear"}),
        ("upsample_nearest", {"size": 5}),
        ("upsample_bilinear", {"scale_factor": 2}),
    ],
)
def test_deprecated_functionals_warn_and_match(fn, kwargs):
    a = np.random.default_rng(1).standard_normal((1, 2, 3, 3)).astype(np.float32)
    with pytest.warns(UserWarning, match="deprecated"):
        mine = getattr(jtensor.nn.functional, fn)(jtensor.tensor(a), **kwargs)
    with pytest.warns(UserWarning):
        theirs = getattr(torch.nn.functional, fn)(torch.tensor(a), **kwargs)
    np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_antialias_is_refused_loudly():
    with pytest.raises(NotImplementedError, match="antialias"):
        jtensor.nn.functional.interpolate(
            jtensor.randn(1, 1, 4, 4), scale_factor=0.5, mode="bilinear", antialias=True
        )
