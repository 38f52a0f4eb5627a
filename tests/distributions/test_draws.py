"""Samples against PyTorch's, draw for draw with the same seed: every distribution's
sample/rsample in float32 and float64, the gradients of rsample, and the samplers' edge cases.

CPU only (no ``devices`` mark): PyTorch's CUDA generator is Philox, so its CUDA draws are not
its CPU draws, which are what these compare with."""

import pytest

import jtensor

from .test_families import CASES, GRAD_CASES, RSAMPLE_CASES, T, _grad_params, close, np

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samples_draw_for_draw(name, dtype):
    make, _ = CASES[name]
    if name.endswith("Scalars") and dtype == "float64":
        pytest.skip("numbers make default-dtype parameters")

    def run(lib):
        lib.manual_seed(11)
        dist = make(lib, dtype)
        out = [dist.sample(), dist.sample((3, 2))]
        if dist.has_rsample:
            out.append(dist.rsample((2,)))
        # The generator ends in the same state, the cached Box-Muller value included.
        out.append(lib.rand(2))
        out.append(lib.randn(3, dtype=lib.float64))
        return out

    mine, theirs = run(jtensor), run(torch)
    tol = 2e-6 if dtype == "float32" else 1e-12
    close(mine, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", RSAMPLE_CASES)
def test_rsample_and_its_gradients_against_pytorch(name):
    # Same draws, same gradients; for the gamma-based samplers the implicit gradients are
    # ATen's approximations, reproduced.
    make = GRAD_CASES[name]
    grads = []
    for lib in (jtensor, torch):
        lib.manual_seed(5)
        p = _grad_params(lib)
        r = make(lib, p).rsample((4,))
        (r * lib.arange(r.numel(), dtype=r.dtype).reshape(r.shape).cos()).sum().backward()
        grads.append([r] + [x.grad for x in p])
    mine, theirs = grads
    for a, b in zip(mine, theirs, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-9)


def test_sampler_edge_cases_against_pytorch():
    def run(lib):
        lib.manual_seed(9)
        out = [
            lib.distributions.Binomial(T(lib, [0.0, 5.0, 5.0]), T(lib, [0.5, 0.0, 1.0])).sample(
                (2,)
            ),
            lib.distributions.Gamma(T(lib, [1e-3, 1e3]), T(lib, [1.0, 1.0])).sample((3,)),
            lib.distributions.Dirichlet(T(lib, [1e-3, 1e-3])).sample((2,)),
        ]
        return out

    for a, b in zip(run(jtensor), run(torch), strict=True):
        close(a, b, rtol=1e-12)


def test_wishart_draws_and_pytorchs_singular_sample_redraw():
    # PyTorch's Wishart.rsample reads its positive-definiteness check as "singular": it warns
    # and redraws every sample that is fine. The draws (redraws included) are the same here.
    def run(lib):
        lib.manual_seed(8)
        w = lib.distributions.Wishart(T(lib, [3.0, 5.0]), T(lib, [[2.0, 0.3], [0.3, 1.0]]))
        with pytest.warns(UserWarning, match="Singular sample detected"):
            return [w.rsample((3,)), lib.rand(2)]

    close(run(jtensor), run(torch), rtol=1e-10, atol=1e-12)


def test_a_vae_training_step_matches():
    # The VAE pattern: encoder -> Normal(mu, sigma).rsample() -> decoder, loss = Bernoulli
    # log-likelihood + KL to the prior; same seed, same losses and weights.
    def run(lib):
        lib.manual_seed(0)
        enc = lib.nn.Linear(6, 4)
        dec = lib.nn.Linear(2, 6)
        opt = lib.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
        x = lib.rand(5, 6).round()
        prior = lib.distributions.Normal(lib.zeros(2), lib.ones(2))
        losses = []
        for _ in range(3):
            h = enc(x)
            q = lib.distributions.Normal(h[:, :2], lib.nn.functional.softplus(h[:, 2:]))
            z = q.rsample()
            px = lib.distributions.Bernoulli(logits=dec(z))
            kl = lib.distributions.kl_divergence(q, prior).sum(-1)
            loss = (kl - px.log_prob(x).sum(-1)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return [lib.stack(losses), enc.weight.detach(), dec.bias.detach()]

    close(run(jtensor), run(torch), rtol=1e-5, atol=1e-6)
