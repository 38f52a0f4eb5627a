"""Complex parameters train as in PyTorch: every optimizer that PyTorch runs through
``view_as_real`` updates the real and imaginary parts as independent reals (Adam's second
moment squares each part), so several steps on the same complex problem give PyTorch's
parameters and state, value for value."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

OPTIMIZERS = {
    "Adam": {"lr": 0.1},
    "Adam-amsgrad": {"lr": 0.1, "amsgrad": True},
    "AdamW": {"lr": 0.1, "weight_decay": 0.1},
    "Adamax": {"lr": 0.1},
    "NAdam": {"lr": 0.1},
    "RAdam": {"lr": 0.1},
    "RMSprop": {"lr": 0.01, "momentum": 0.9, "centered": True},
    "Adagrad": {"lr": 0.1},
    "Adadelta": {"lr": 1.0},
    "ASGD": {"lr": 0.1},
    "Rprop": {"lr": 0.1},
    "SGD": {"lr": 0.1, "momentum": 0.9},
}


def _train(lib, name):
    kind = name.split("-")[0]
    w = lib.nn.Parameter(lib.tensor([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=lib.complex128))
    opt = getattr(lib.optim, kind)([w], **OPTIMIZERS[name])
    target = lib.tensor([0.5 - 1j, 2 + 0j, -1 + 1j], dtype=lib.complex128)
    for _ in range(4):
        opt.zero_grad()
        loss = ((w - target).abs() ** 2).sum() + (w * w).real.sum() * 0.1
        loss.backward()
        opt.step()
    state = {k: v.detach().cpu().numpy() for k, v in opt.state[w].items()
             if isinstance(v, lib.Tensor) and v.dim() > 0}
    return w.detach().cpu().numpy(), state


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_complex_parameters_follow_pytorch(name):
    mine, theirs = _train(jtensor, name), _train(torch, name)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert sorted(mine[1]) == sorted(theirs[1])
    for key in theirs[1]:
        assert mine[1][key].dtype == theirs[1][key].dtype, key
        np.testing.assert_allclose(mine[1][key], theirs[1][key], rtol=1e-12, atol=1e-12,
                                   err_msg=key)
