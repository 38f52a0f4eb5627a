"""optim.LBFGS (fixed step, PyTorch's default, and the strong Wolfe line search) against
PyTorch's: losses, parameters and the bookkeeping (func_evals, n_iter) step after step; its
argument errors."""

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


def rosenbrock(lib, dtype_name, steps, **options):
    """LBFGS with the strong Wolfe line search on Rosenbrock's valley from (-1.5, 2)."""
    x = lib.tensor([-1.5, 2.0], dtype=getattr(lib, dtype_name), requires_grad=True)
    opt = lib.optim.LBFGS([x], line_search_fn="strong_wolfe", **options)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    trail = []
    for _ in range(steps):
        loss = opt.step(closure).item()
        state = opt.state[x]
        trail.append(
            (
                loss,
                x.detach().numpy().copy(),
                float(state["t"]),
                state["func_evals"],
                state["n_iter"],
            )
        )
    return trail


def assert_same_trail(mine, theirs, rtol):
    for a, b in zip(mine, theirs, strict=True):
        assert a[3:] == b[3:]  # the same evaluations and iterations: the same branches
        np.testing.assert_allclose(a[0], b[0], rtol=rtol, atol=rtol)
        np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=rtol)
        np.testing.assert_allclose(a[2], b[2], rtol=rtol)


# PyTorch's add(alpha=) fuses the multiply-add and its dot sums in another order, so the
# two-loop recursion differs in the last bit; Rosenbrock's valley amplifies that (in float32
# enough to change a branch after a few steps: float32 is compared on the regression below).
@pytest.mark.parametrize(
    ("options", "steps"),
    [
        ({}, 3),
        ({"max_iter": 5, "history_size": 3}, 6),
        ({"lr": 0.5, "max_iter": 4}, 8),
        ({"max_iter": 7, "max_eval": 9, "tolerance_change": 1e-6}, 5),
    ],
)
def test_strong_wolfe_follows_pytorch_on_rosenbrock(options, steps):
    assert_same_trail(
        rosenbrock(jtensor, "float64", steps, **options),
        rosenbrock(torch, "float64", steps, **options),
        1e-6,
    )


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_strong_wolfe_follows_pytorch_on_a_regression(dtype_name):
    options = {"line_search_fn": "strong_wolfe", "max_iter": 6, "history_size": 4}
    mine, theirs = run(jtensor, dtype_name, **options), run(torch, dtype_name, **options)
    rtol = 2e-4 if dtype_name == "float32" else 1e-11
    np.testing.assert_allclose(mine[0], theirs[0], rtol=rtol, atol=rtol / 10)
    for a, b in zip(mine[1], theirs[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)
    assert mine[2] == theirs[2]


def test_an_unknown_line_search_is_refused():
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.LBFGS([w], line_search_fn="armijo")

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_tensor_lr_stays_a_tensor(line_search_fn):
    results = []
    for lib in (jtensor, torch):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w], lr=lib.tensor(0.7), max_iter=5, line_search_fn=line_search_fn)

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = (w**4).sum() + w[0] * w[1]
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        state = opt.state[w]
        results.append((w.detach().numpy().copy(), type(state["t"]).__name__, state["func_evals"]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    assert results[0][1:] == results[1][1:] == ("Tensor", results[1][2])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_step_warns_no_more_than_pytorch(line_search_fn, recwarn):
    # PyTorch reads the closure's loss under no_grad: no "requires_grad ... to a scalar"
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.LBFGS([w], max_iter=4, line_search_fn=line_search_fn)

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = ((w - 3) ** 4).sum()
            loss.backward()
            return loss

        opt.step(closure)
    assert [str(w.message) for w in recwarn] == []
