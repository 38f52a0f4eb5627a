"""``autograd.grad(..., is_grads_batched=True)`` against PyTorch: each grad_output's first
dim is a batch of vectors, and one backward pass under ``vmap`` gives every
vector-Jacobian product (the rows of a Jacobian when the vectors are the identity's)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _cases():
    def elementwise(L):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        y = x**2 * x.sin()
        return (y,), (x,), (L.eye(3, dtype=L.float64),), {}

    def matrix_and_slice(L):
        w = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        x = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)
        z = (w @ x[:2]).tanh()
        return (z,), (w, x), (L.eye(2, dtype=L.float64),), {}

    def advanced_index_and_unused(L):
        x = L.tensor([0.5, -1.0, 2.0, 4.0], dtype=L.float64, requires_grad=True)
        u = L.tensor([1.0], dtype=L.float64, requires_grad=True)
        y = x[[0, 2, 2]].exp()
        return (y,), (x, u), (L.eye(3, dtype=L.float64) * 2,), {"allow_unused": True}

    def two_outputs_one_unbatched(L):
        x = L.tensor([0.5, -1.0], dtype=L.float64, requires_grad=True)
        a = (x * 3).cos()
        b = (x * x).sum()
        grads = (
            L.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=L.float64),
            L.ones(3, dtype=L.float64),
        )
        return (a, b), (x,), grads, {}

    def through_a_module(L):
        L.manual_seed(0)
        lin = L.nn.Linear(3, 2).double()
        x = L.tensor([[0.5, -1.0, 2.0]], dtype=L.float64, requires_grad=True)
        y = L.nn.functional.softplus(lin(x))
        return (y,), (x, lin.weight), (L.eye(2, dtype=L.float64).reshape(2, 1, 2),), {}

    return [
        elementwise,
        matrix_and_slice,
        advanced_index_and_unused,
        two_outputs_one_unbatched,
        through_a_module,
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("create_graph", [False, True])
def test_batched_grad_matches_pytorch(case, create_graph):
    results = {}
    for L in (jtensor, torch):
        outs, ins, grads, kw = case(L)
        got = L.autograd.grad(
            outs, ins, grads, is_grads_batched=True, create_graph=create_graph, **kw
        )
        results[L.__name__] = [
            None if g is None else (tuple(g.shape), g.requires_grad, g.detach().numpy())
            for g in got
        ]
    ours, theirs = results["jtensor"], results["torch"]
    assert [r and r[:2] for r in ours] == [r and r[:2] for r in theirs]
    for a, b in zip(ours, theirs, strict=True):
        if a is not None:  # (the products' summation order differs by an ulp)
            np.testing.assert_allclose(a[2], b[2], rtol=1e-12, atol=1e-15)


def test_batched_grad_size_mismatch_is_pytorchs_error():
    for L in (jtensor, torch):
        x = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="is_grads_batched=True.*batch dimension"):
            L.autograd.grad(x * 2, x, L.ones(2, 2), is_grads_batched=True)
    x = jtensor.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"grad_output\[0\] has a shape of torch.Size\(\[2, 2\]\)"
    ):
        jtensor.autograd.grad(x * 2, x, jtensor.ones(2, 2), is_grads_batched=True)


def test_vmap_over_autograd_grad_is_batched():
    # The engine's raw-array fast paths must not run under a transform (they saw only the
    # first sample, giving every row the first row's answer).
    x = jtensor.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x.exp()
    rows = jtensor.vmap(lambda v: jtensor.autograd.grad(y, x, v, retain_graph=True)[0])(
        jtensor.eye(3)
    )
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    expected = torch.autograd.functional.jacobian(lambda t: t * t.exp(), tx)
    assert rows.flatten().tolist() == pytest.approx(expected.flatten().tolist())
