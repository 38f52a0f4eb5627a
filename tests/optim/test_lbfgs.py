"""optim.LBFGS (fixed step, PyTorch's default) against PyTorch's: losses, parameters and the
bookkeeping (func_evals, n_iter) step after step; its argument errors."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def run(lib, dtype_name, **options):
    """Four LBFGS steps of a least-squares fit (convex: rounding is not amplified)."""
    lib.manual_seed(0)
    dtype = getattr(lib, dtype_name)
    model = lib.nn.Sequential(lib.nn.Linear(3, 1)).to(dtype)
    x = lib.randn(16, 3, dtype=dtype)
    y = x @ lib.tensor([[1.0], [-2.0], [0.5]], dtype=dtype) + 0.3
    opt = lib.optim.LBFGS(model.parameters(), **options)

    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(4)]
    state = opt.state[model[0].weight]
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    return losses, weights, (state["func_evals"], state["n_iter"])


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lr": 0.8, "max_iter": 6, "history_size": 3},
        {"max_iter": 3, "max_eval": 2},
        {"tolerance_change": 1e-3},
    ],
)
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_lbfgs_follows_pytorch(options, dtype_name):
    mine, theirs = run(jtensor, dtype_name, **options), run(torch, dtype_name, **options)
    rtol = 2e-4 if dtype_name == "float32" else 1e-9
    np.testing.assert_allclose(mine[0], theirs[0], rtol=rtol, atol=rtol / 10)
    for a, b in zip(mine[1], theirs[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)
    assert mine[2] == theirs[2]


def test_a_converged_problem_returns_at_once():
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.tensor([3.0]))
        opt = lib.optim.LBFGS([w])

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = ((w - 3) ** 2).sum()
            loss.backward()
            return loss

        assert opt.step(closure).item() == 0.0
        assert opt.state[w]["func_evals"] == 1 and opt.state[w]["n_iter"] == 0


def test_argument_errors():
    for lib in (jtensor, torch):
        p, q = lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))
        with pytest.raises(ValueError, match="Invalid learning rate"):
            lib.optim.LBFGS([p], lr=-1)
        with pytest.raises(ValueError, match="per-parameter options"):
            lib.optim.LBFGS([{"params": [p]}, {"params": [q]}])
    w = jtensor.nn.Parameter(jtensor.ones(1))
    assert jtensor.optim.LBFGS([w]).defaults["max_eval"] == 25


def test_strong_wolfe_is_refused_plainly():
    w = jtensor.nn.Parameter(jtensor.ones(1))
    opt = jtensor.optim.LBFGS([w], line_search_fn="strong_wolfe")
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        opt.step(lambda: (w * w).sum())
