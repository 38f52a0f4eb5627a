"""jvp inside vmap through jtensor's fused autograd.Functions (convolution, linear): the primal
and the tangent of every sample, as PyTorch's (the empirical-NTK pattern: vmap of vjp then
jvp over a small CNN)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

IN_DIMS = [(0, None, None), (None, 0, 0), (0, 0, 0), (None, None, 0)]


def conv_jvp(L, in_dims, conv_bias):
    rng = np.random.default_rng(0)
    W = L.tensor(rng.standard_normal((3, 2, 3, 3)), dtype=L.float32)
    b = L.tensor(rng.standard_normal(3), dtype=L.float32)
    X = L.tensor(rng.standard_normal((4, 2, 5, 5)), dtype=L.float32)
    TW = L.tensor(rng.standard_normal((4, 3, 2, 3, 3)), dtype=L.float32)
    TB = L.tensor(rng.standard_normal((4, 3)), dtype=L.float32)

    def one(x, tw, tb):
        def f(w, bias):
            return L.nn.functional.conv2d(x.unsqueeze(0), w, bias if conv_bias else None)

        primal, tangent = L.func.jvp(f, (W, b), (tw, tb))
        return primal, tangent

    args = [a if d == 0 else a[0] for a, d in zip((X, TW, TB), in_dims, strict=True)]
    return [t.cpu().numpy() for t in L.vmap(one, in_dims)(*args)]


@pytest.mark.parametrize("in_dims", IN_DIMS)
@pytest.mark.parametrize("conv_bias", [True, False])
def test_conv_jvp_under_vmap_matches_pytorch(in_dims, conv_bias):
    for mine, theirs in zip(
        conv_jvp(jtensor, in_dims, conv_bias), conv_jvp(torch, in_dims, conv_bias), strict=True
    ):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)


def test_jvp_with_respect_to_a_batched_conv_input():
    def run(L):
        rng = np.random.default_rng(1)
        W = L.tensor(rng.standard_normal((3, 2, 3, 3)), dtype=L.float32)
        X = L.tensor(rng.standard_normal((4, 2, 5, 5)), dtype=L.float32)

        def one(x, tx):
            return L.func.jvp(lambda v: L.nn.functional.conv2d(v, W), (x,), (tx,))[1]

        return L.vmap(one)(X, 2 * X).cpu().numpy()

    np.testing.assert_allclose(run(jtensor), run(torch), rtol=1e-4, atol=1e-5)


def empirical_ntk(L):
    """NTK by vjp then jvp (vmapped over a basis and the second inputs) and by Jacobians."""
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Conv2d(2, 3, 3), L.nn.ReLU(), L.nn.Flatten(), L.nn.Linear(12, 2))
    rng = np.random.default_rng(2)
    x1 = L.tensor(rng.standard_normal((2, 2, 4, 4)), dtype=L.float32)
    x2 = L.tensor(rng.standard_normal((3, 2, 4, 4)), dtype=L.float32)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def f(p, x):
        return L.func.functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)

    def ntk(a, b):
        out, vjp_fn = L.func.vjp(lambda p: f(p, a), params)

        def row(vec):
            return L.func.jvp(lambda p: f(p, b), (params,), vjp_fn(vec))[1]

        return L.vmap(row)(L.eye(out.numel()))

    by_vps = L.vmap(L.vmap(ntk, (None, 0)), (0, None))(x1, x2)
    j1 = [j.flatten(2) for j in L.vmap(L.func.jacrev(f), (None, 0))(params, x1).values()]
    j2 = [j.flatten(2) for j in L.vmap(L.func.jacrev(f), (None, 0))(params, x2).values()]
    by_jac = sum(L.einsum("Naf,Mbf->NMab", a, b) for a, b in zip(j1, j2, strict=True))
    return by_vps.cpu().numpy(), by_jac.cpu().numpy()


def test_empirical_ntk_two_ways_agree_and_match_pytorch():
    with pytest.warns(UserWarning, match="no batching rule"):
        mine = empirical_ntk(jtensor)
    theirs = empirical_ntk(torch)
    np.testing.assert_allclose(mine[0], mine[1], rtol=1e-4, atol=1e-4)
    for m, t in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-4, atol=1e-4)
