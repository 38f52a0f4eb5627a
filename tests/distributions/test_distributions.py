"""torch.distributions' Categorical and Normal against PyTorch: shapes, draws (seeded, draw for
draw), log_prob and entropy with their gradients, and the errors of bad parameters."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

PROBS = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]


def both(fn):
    out = []
    for lib in (jtensor, torch):
        lib.manual_seed(7)
        out.append(fn(lib))
    return out


def close(a, b):
    if isinstance(b, torch.Tensor):
        assert a.dtype.__repr__() == b.dtype.__repr__()
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)
    elif isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            close(x, y)
    else:
        assert a == b


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_categorical_samples_draw_for_draw(shape):
    def run(lib):
        m = lib.distributions.Categorical(lib.tensor(PROBS))
        return m.sample(shape), m.sample()

    close(*both(run))


def test_categorical_from_logits_and_its_lazy_other_parameter():
    def run(lib):
        m = lib.distributions.Categorical(logits=lib.tensor([[1.0, 2.0, -1.0]]))
        n = lib.distributions.Categorical(probs=lib.tensor([0.5, 0.25, 0.25]))
        return m.probs, m.logits, n.logits, n.probs, m.batch_shape, n.batch_shape, m.sample((3,))

    mine, theirs = both(run)
    close(mine[:4], theirs[:4])
    assert tuple(mine[4]) == tuple(theirs[4]) and tuple(mine[5]) == tuple(theirs[5])
    close(mine[6], theirs[6])


def test_categorical_log_prob_entropy_and_gradients():
    def run(lib):
        p = lib.tensor(PROBS, requires_grad=True)
        m = lib.distributions.Categorical(p)
        a = lib.tensor([2, 0])
        lp = m.log_prob(a)
        ent = m.entropy()
        (lp.sum() + ent.sum()).backward()
        return lp, ent, p.grad, m.mode, repr(m)

    close(*both(run))


def test_the_reinforce_update_matches():
    def run(lib):
        lin = lib.nn.Linear(4, 2)
        opt = lib.optim.Adam(lin.parameters(), lr=1e-2)
        losses = []
        for _ in range(3):
            probs = lib.nn.functional.softmax(lin(lib.randn(1, 4)), dim=1)
            m = lib.distributions.Categorical(probs)
            action = m.sample()
            loss = (-m.log_prob(action) * 1.5).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return lib.tensor(losses), lin.weight.detach()

    close(*both(run))


def test_categorical_bad_arguments():
    for fn in (
        lambda lib: lib.distributions.Categorical(lib.tensor([0.5, 0.5]), logits=lib.zeros(2)),
        lambda lib: lib.distributions.Categorical(),
        lambda lib: lib.distributions.Categorical(lib.tensor(0.5)),
        lambda lib: lib.distributions.Categorical(lib.tensor([-0.5, 1.5])),
        lambda lib: lib.distributions.Categorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor(3)),
    ):
        kinds = []
        for lib in (jtensor, torch):
            with pytest.raises(ValueError) as info:
                fn(lib)
            kinds.append(str(info.value).split(" (")[0][:40])
        assert kinds[0] == kinds[1]


def test_normal_sample_rsample_log_prob_entropy():
    def run(lib):
        loc = lib.tensor([0.0, 1.0, -2.0], requires_grad=True)
        scale = lib.tensor([1.0, 0.5, 2.0], requires_grad=True)
        n = lib.distributions.Normal(loc, scale)
        s = n.sample((2,))
        r = n.rsample()
        lp = n.log_prob(lib.tensor([0.3, 0.7, -1.0]))
        (r.sum() + lp.sum() + n.entropy().sum()).backward()
        return s, r, lp, n.entropy(), loc.grad, scale.grad, n.mean, n.stddev, n.variance, repr(n)

    close(*both(run))


def test_normal_with_numbers():
    def run(lib):
        n = lib.distributions.Normal(0.0, 2.0)
        return n.sample(), n.sample((3,)), n.log_prob(lib.tensor(1.0)), tuple(n.batch_shape)

    close(*both(run))
    with pytest.raises(ValueError):
        jtensor.distributions.Normal(jtensor.zeros(2), jtensor.tensor([1.0, -1.0]))


def test_import_forms():
    from jtensor.distributions import Categorical, Normal

    assert Categorical is jtensor.distributions.Categorical
    assert Normal.has_rsample and not Categorical.has_rsample
