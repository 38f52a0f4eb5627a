"""InstanceNorm1d/2d/3d, LocalResponseNorm, AlphaDropout, FeatureAlphaDropout, ChannelShuffle
against PyTorch: repr, parameters and buffers, outputs, gradients, running statistics in
train and eval, PyTorch's random draws."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

MODULES = [
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 5)),
    ("InstanceNorm1d", (3,), {"track_running_stats": True, "momentum": None}, (3, 5)),
    ("InstanceNorm2d", (3,), {"affine": True}, (2, 3, 4, 4)),
    ("InstanceNorm2d", (3,), {"track_running_stats": True}, (3, 4, 4)),
    ("InstanceNorm3d", (2,), {"affine": True, "track_running_stats": True}, (2, 2, 3, 2, 2)),
    ("LocalResponseNorm", (3,), {}, (2, 5, 3, 3)),
    ("LocalResponseNorm", (2, 1e-2, 0.5, 2.0), {}, (2, 4, 6)),
    ("AlphaDropout", (0.3,), {}, (4, 6)),
    ("FeatureAlphaDropout", (0.4,), {}, (3, 4, 2, 2)),
    ("ChannelShuffle", (2,), {}, (2, 4, 3, 3)),
]


@pytest.mark.parametrize(
    "name,args,kwargs,shape", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)]
)
@pytest.mark.parametrize("training", [True, False])
def test_module_matches_pytorch(name, args, kwargs, shape, training):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    runs = []
    for lib in (jtensor, torch):
        lib.manual_seed(5)
        m = getattr(lib.nn, name)(*args, **kwargs)
        m.train(training)
        outs = []
        for step in range(2):  # two steps: the running statistics move
            x = lib.tensor(a * (step + 1), requires_grad=True)
            y = m(x)
            (y * y).sum().backward()
            outs.append((y.detach(), x.grad))
        state = {k: v.clone() for k, v in m.state_dict().items()}
        grads = [p.grad for p in m.parameters()]
        runs.append((repr(m), outs, state, grads, y.grad_fn and y.grad_fn.name()))
    (r1, o1, s1, g1, n1), (r2, o2, s2, g2, n2) = runs
    assert r1 == r2 and n1 == n2
    for (y1, gx1), (y2, gx2) in zip(o1, o2, strict=True):
        np.testing.assert_allclose(y1.cpu().numpy(), y2.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gx1.cpu().numpy(), gx2.numpy(), rtol=1e-4, atol=1e-4)
    assert list(s1) == list(s2)
    for k in s1:
        np.testing.assert_allclose(
            s1[k].cpu().numpy(), s2[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k
        )
    for a1, a2 in zip(g1, g2, strict=True):
        np.testing.assert_allclose(a1.cpu().numpy(), a2.numpy(), rtol=1e-4, atol=1e-4)


def test_instance_norm_checks_input_as_pytorch():
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        jtensor.nn.InstanceNorm2d(3)(jtensor.randn(2, 3))
    with pytest.raises(ValueError, match="to match num_features"):
        jtensor.nn.InstanceNorm1d(4, affine=True)(jtensor.randn(2, 3, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        jtensor.nn.InstanceNorm1d(4)(jtensor.randn(2, 3, 5))


def test_instance_norm_module_moves_with_to():
    m = jtensor.nn.InstanceNorm1d(3, affine=True, track_running_stats=True).double()
    assert m.weight.dtype == jtensor.float64 and m.running_mean.dtype == jtensor.float64
