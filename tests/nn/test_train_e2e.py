"""End to end: a small MLP trained with SGD on data made here reaches a fixed accuracy, and
from identical initial weights its loss curve equals PyTorch's step for step."""

import numpy as np
import pytest

import jtensor

try:
    import torch
except ImportError:
    torch = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def _data(n=256, seed=0):
    """Two interleaved moons' worth of points: 2-D inputs, 3 classes by angle sector."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 2)).astype(np.float32)
    angle = np.arctan2(x[:, 1], x[:, 0])
    y = ((angle + np.pi) / (2 * np.pi / 3)).astype(np.int64) % 3
    return x, y


def _model(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 3))


def _train(lib, model, x, y, steps=60, lr=0.5, batch=64):
    F = lib.nn.functional
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    xs, ys = lib.tensor(x), lib.tensor(y)
    losses = []
    for step in range(steps):
        i = (step * batch) % len(x)
        xb, yb = xs[i:i + batch], ys[i:i + batch]
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with lib.no_grad():
        accuracy = (model(xs).argmax(1) == ys).float().mean().item()
    return losses, accuracy


def test_mlp_learns():
    x, y = _data()
    jtensor.manual_seed(0)
    losses, accuracy = _train(jtensor, _model(jtensor), x, y)
    assert losses[-1] < losses[0] / 2
    assert accuracy >= 0.9


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_loss_curve_matches_pytorch_step_for_step():
    x, y = _data()
    torch.manual_seed(0)
    t_model = _model(torch)
    j_model = _model(jtensor)
    j_model.load_state_dict({k: jtensor.tensor(v.detach().cpu().numpy())
                             for k, v in t_model.state_dict().items()})
    t_losses, t_acc = _train(torch, t_model, x, y)
    j_losses, j_acc = _train(jtensor, j_model, x, y)
    np.testing.assert_allclose(j_losses, t_losses, rtol=1e-4, atol=1e-5)
    assert j_acc == t_acc
