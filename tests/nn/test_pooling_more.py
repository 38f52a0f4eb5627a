"""AdaptiveMaxPool1d/2d, LPPool1d/2d, MaxUnpool1d/2d, Fold, Unfold against PyTorch: repr,
outputs, indices, gradients."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

MODULES = [
    ("AdaptiveMaxPool2d", ((3, None),), {}, (2, 3, 7, 5)),
    ("AdaptiveMaxPool2d", (2,), {"return_indices": True}, (2, 3, 7, 5)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("LPPool2d", (2, 2), {}, (2, 3, 6, 4)),
    ("LPPool2d", (1.5, (3, 2)), {"stride": (2, 1), "ceil_mode": True}, (1, 2, 7, 5)),
    ("LPPool1d", (3, 2), {}, (2, 3, 8)),
    ("Unfold", ((2, 3),), {"padding": 1, "stride": 2}, (2, 3, 7, 6)),
    ("Fold", ((4, 5), 2), {}, (2, 12, 12)),
]


@pytest.mark.parametrize(
    "name,args,kwargs,shape", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)]
)
def test_module_matches_pytorch(name, args, kwargs, shape):
    a = np.random.default_rng(0).uniform(0.1, 2, size=shape).astype(np.float32)
    runs = []
    for lib in (jtensor, torch):
        m = getattr(lib.nn, name)(*args, **kwargs)
        x = lib.tensor(a, requires_grad=True)
        out = m(x)
        y = out[0] if isinstance(out, tuple) else out
        (y * y).sum().backward()
        extra = out[1] if isinstance(out, tuple) else None
        runs.append((repr(m), y, extra, x.grad, y.grad_fn.name()))
    (r1, y1, e1, g1, n1), (r2, y2, e2, g2, n2) = runs
    assert r1 == r2 and n1 == n2
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y2.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1.cpu().numpy(), g2.numpy(), rtol=1e-4, atol=1e-5)
    if e1 is not None:
        np.testing.assert_array_equal(e1.cpu().numpy(), e2.numpy())


@pytest.mark.parametrize("n", [1, 2])
def test_max_unpool_inverts_max_pool(n):
    shape = (2, 3, 8) if n == 1 else (2, 3, 6, 4)
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    runs = []
    for lib in (jtensor, torch):
        pool = getattr(lib.nn, f"MaxPool{n}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{n}d")(2)
        x = lib.tensor(a)
        p, i = pool(x)
        runs.append((repr(unpool), unpool(p, i), unpool(p, i, output_size=x.shape)))
    (r1, u1, v1), (r2, u2, v2) = runs
    assert r1 == r2
    np.testing.assert_array_equal(u1.cpu().numpy(), u2.numpy())
    np.testing.assert_array_equal(v1.cpu().numpy(), v2.numpy())


def test_fold_of_unfold_counts_overlaps():
    x = jtensor.ones(1, 1, 4, 4)
    cols = jtensor.nn.functional.unfold(x, 2, stride=1)
    counts = jtensor.nn.functional.fold(cols, 4, 2, stride=1)
    expected = torch.nn.functional.fold(torch.nn.functional.unfold(torch.ones(1, 1, 4, 4), 2), 4, 2)
    np.testing.assert_array_equal(counts.cpu().numpy(), expected.numpy())
