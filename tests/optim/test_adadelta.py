"""optim.Adadelta against PyTorch's: the same parameters, state and errors step after step."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def trajectories(**options):
    """Eight steps of Adadelta on a small quadratic-plus-cubic loss, in both libraries."""
    rng = np.random.default_rng(0)
    start = [
        rng.standard_normal((3, 2)).astype(np.float32),
        rng.standard_normal(4).astype(np.float32),
    ]
    out = []
    for lib in (jtensor, torch):
        params = [lib.nn.Parameter(lib.tensor(a)) for a in start]
        opt = lib.optim.Adadelta(params, **options)
        seen = []
        for _ in range(8):
            opt.zero_grad()
            loss = sum((p * p).sum() + (p**3).sum() * 0.1 for p in params)
            loss.backward()
            opt.step()
            seen.append([p.detach().numpy().copy() for p in params])
        state = opt.state[params[0]]
        seen.append(
            [
                state["square_avg"].numpy().copy(),
                state["acc_delta"].numpy().copy(),
                np.array(state["step"].item()),
            ]
        )
        out.append(seen)
    return out


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lr": 0.5, "rho": 0.5},
        {"eps": 1e-3, "weight_decay": 0.1},
        {"maximize": True},
        {"lr": 2.0, "rho": 0.0},
        {"rho": 1.0},
    ],
)
def test_adadelta_follows_pytorch(options):
    mine, theirs = trajectories(**options)
    for a_step, b_step in zip(mine, theirs, strict=True):
        for a, b in zip(a_step, b_step, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_defaults_and_state_dict_match():
    groups = []
    for lib in (jtensor, torch):
        opt = lib.optim.Adadelta([lib.nn.Parameter(lib.ones(2))])
        groups.append({k: v for k, v in opt.param_groups[0].items() if k != "params"})
    assert groups[0] == groups[1]


@pytest.mark.parametrize(
    "options",
    [
        {"lr": -1.0},
        {"rho": 1.5},
        {"rho": -0.1},
        {"eps": -1.0},
        {"weight_decay": -1.0},
    ],
)
def test_bad_hyperparameters_raise_pytorchs_value_error(options):
    messages = []
    for lib in (jtensor, torch):
        with pytest.raises(ValueError) as info:
            lib.optim.Adadelta([lib.nn.Parameter(lib.ones(2))], **options)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_closure_loss_is_returned():
    w = jtensor.nn.Parameter(jtensor.tensor([1.0]))
    opt = jtensor.optim.Adadelta([w])

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 1.0
