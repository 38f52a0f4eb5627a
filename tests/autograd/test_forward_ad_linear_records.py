"""Forward AD through linear layers whose parameters require grad: the tangent is recorded by
reverse mode as PyTorch's (its formula adds a term per factor, zero tangents included)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CASES = {
    "linear with bias": lambda L, x, W, b: L.nn.functional.linear(x, W, b),
    "linear": lambda L, x, W, b: L.nn.functional.linear(x, W),
    "matmul": lambda L, x, W, b: x @ W.t(),
    "addmm": lambda L, x, W, b: L.addmm(b, x, W.t()),
    "add": lambda L, x, W, b: b + x,
    "mul": lambda L, x, W, b: W * 3,
}


def run(L, name, dual_weight, dual_bias, weight_grad):
    fw = L.autograd.forward_ad
    rng = np.random.default_rng(0)
    x = L.tensor(rng.standard_normal((4, 5)))
    W = L.tensor(rng.standard_normal((5, 5)), requires_grad=weight_grad)
    b = L.tensor(rng.standard_normal(5), requires_grad=True)
    tW, tb = L.tensor(rng.standard_normal((5, 5))), L.tensor(rng.standard_normal(5))
    with fw.dual_level():
        W_in = fw.make_dual(W, tW) if dual_weight else W
        b_in = fw.make_dual(b, tb) if dual_bias else b
        out = CASES[name](L, x, W_in, b_in)
        tangent = fw.unpack_dual(out).tangent
        if tangent is None:
            return None
        return (
            tangent.requires_grad,
            type(tangent.grad_fn).__name__,
            tangent.detach().cpu().numpy(),
        )


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dual_weight", [True, False])
@pytest.mark.parametrize("weight_grad", [True, False])
def test_tangent_recording_matches_pytorch(name, dual_weight, weight_grad):
    mine = run(jtensor, name, dual_weight, True, weight_grad)
    theirs = run(torch, name, dual_weight, True, weight_grad)
    if theirs is None:
        assert mine is None
        return
    assert mine[:2] == theirs[:2]
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-12)


def test_reverse_over_forward_through_a_recorded_tangent():
    def grads(L):
        fw = L.autograd.forward_ad
        rng = np.random.default_rng(1)
        x = L.tensor(rng.standard_normal((3, 4)))
        W = L.tensor(rng.standard_normal((2, 4)), requires_grad=True)
        b = L.tensor(rng.standard_normal(2), requires_grad=True)
        with fw.dual_level():
            out = L.nn.functional.linear(x, W, fw.make_dual(b, L.ones(2)))
            tangent = fw.unpack_dual(out).tangent
            (tangent * out).sum().backward()
        return W.grad.cpu().numpy(), b.grad.cpu().numpy()

    for m, t in zip(grads(jtensor), grads(torch), strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-12)
