"""kl_divergence and register_kl, argument validation with PyTorch's messages, constraints,
transforms and biject_to/transform_to, against PyTorch; the gamma, Dirichlet and binomial
samplers checked statistically (moments, and the reparameterised gradient of the mean)."""

import math

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def T(lib, values, dtype="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def same(mine, theirs, rtol=1e-7, atol=1e-10):
    assert repr(mine.dtype) == repr(theirs.dtype)
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        mine.detach().cpu().numpy(), theirs.detach().cpu().numpy(), rtol=rtol, atol=atol
    )


def D(lib):
    return lib.distributions


KL_PAIRS = {
    "Normal": lambda lib: (
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Normal(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "Bernoulli": lambda lib: (
        D(lib).Bernoulli(T(lib, [0.2, 0.0, 1.0, 0.5])),
        D(lib).Bernoulli(T(lib, [0.6, 0.3, 0.5, 0.0])),
    ),
    "Categorical": lambda lib: (
        D(lib).Categorical(T(lib, [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
        D(lib).Categorical(T(lib, [[0.4, 0.4, 0.2], [0.5, 0.5, 0.0]])),
    ),
    "OneHotCategorical": lambda lib: (
        D(lib).OneHotCategorical(T(lib, [0.2, 0.3, 0.5])),
        D(lib).OneHotCategorical(T(lib, [0.4, 0.4, 0.2])),
    ),
    "Beta": lambda lib: (
        D(lib).Beta(T(lib, [0.5, 2.0]), T(lib, [1.5, 3.0])),
        D(lib).Beta(T(lib, [1.0, 4.0]), T(lib, [2.0, 0.5])),
    ),
    "Gamma": lambda lib: (
        D(lib).Gamma(T(lib, [0.5, 2.0]), T(lib, [1.5, 3.0])),
        D(lib).Gamma(T(lib, [1.0, 4.0]), T(lib, [2.0, 0.5])),
    ),
    "Dirichlet": lambda lib: (
        D(lib).Dirichlet(T(lib, [[0.5, 2.0, 1.0]])),
        D(lib).Dirichlet(T(lib, [[1.0, 4.0, 0.3]])),
    ),
    "Exponential": lambda lib: (
        D(lib).Exponential(T(lib, [0.5, 2.0])),
        D(lib).Exponential(T(lib, [1.0, 4.0])),
    ),
    "Laplace": lambda lib: (
        D(lib).Laplace(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Laplace(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "MVN": lambda lib: (
        D(lib).MultivariateNormal(T(lib, [0.0, 1.0]), T(lib, [[2.0, 0.3], [0.3, 1.0]])),
        D(lib).MultivariateNormal(
            T(lib, [[0.5, -1.0], [0.0, 0.0]]), scale_tril=T(lib, [[1.0, 0.0], [0.4, 0.7]])
        ),
    ),
    "Uniform": lambda lib: (
        D(lib).Uniform(T(lib, [0.0, 0.0]), T(lib, [1.0, 2.0])),
        D(lib).Uniform(T(lib, [-1.0, 0.5]), T(lib, [2.0, 3.0])),
    ),
    "Poisson": lambda lib: (D(lib).Poisson(T(lib, [0.5, 2.0])), D(lib).Poisson(T(lib, [1.0, 4.0]))),
    "Independent": lambda lib: (
        D(lib).Independent(D(lib).Normal(T(lib, [[0.0, 1.0]]), T(lib, [[1.0, 2.0]])), 1),
        D(lib).Independent(D(lib).Normal(T(lib, [[0.5, -1.0]]), T(lib, [[0.7, 1.5]])), 1),
    ),
    "Binomial": lambda lib: (
        D(lib).Binomial(T(lib, [10.0, 12.0]), T(lib, [0.3, 0.6])),
        D(lib).Binomial(T(lib, [10.0, 10.0]), T(lib, [0.5, 0.2])),
    ),
    "Geometric": lambda lib: (
        D(lib).Geometric(T(lib, [0.3, 0.6])),
        D(lib).Geometric(T(lib, [0.5, 0.2])),
    ),
    "Gumbel": lambda lib: (
        D(lib).Gumbel(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Gumbel(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "HalfNormal": lambda lib: (
        D(lib).HalfNormal(T(lib, [0.5, 2.0])),
        D(lib).HalfNormal(T(lib, [1.0, 4.0])),
    ),
    "Cauchy": lambda lib: (
        D(lib).Cauchy(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Cauchy(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "LogNormal": lambda lib: (
        D(lib).LogNormal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).LogNormal(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "Normal-Laplace": lambda lib: (
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Laplace(T(lib, [0.5, -1.0]), T(lib, [0.7, 1.5])),
    ),
    "Normal-Gamma": lambda lib: (
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Gamma(T(lib, [0.5, 1.0]), T(lib, [0.7, 1.5])),
    ),
    "Gamma-Normal": lambda lib: (
        D(lib).Gamma(T(lib, [0.5, 1.0]), T(lib, [0.7, 1.5])),
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
    ),
    "Uniform-Normal": lambda lib: (
        D(lib).Uniform(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
    ),
    "Uniform-Beta": lambda lib: (
        D(lib).Uniform(T(lib, [0.1, 0.0]), T(lib, [0.9, 2.0])),
        D(lib).Beta(T(lib, [2.0, 1.0]), T(lib, [1.0, 2.0])),
    ),
    "Beta-Normal": lambda lib: (
        D(lib).Beta(T(lib, [2.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])),
    ),
    "Exponential-Gamma": lambda lib: (
        D(lib).Exponential(T(lib, [2.0, 1.0])),
        D(lib).Gamma(T(lib, [0.5, 1.0]), T(lib, [0.7, 1.5])),
    ),
    "ContinuousBernoulli": lambda lib: (
        D(lib).ContinuousBernoulli(T(lib, [0.2, 0.4999, 0.9])),
        D(lib).ContinuousBernoulli(T(lib, [0.6, 0.3, 0.5])),
    ),
    "ContinuousBernoulli-Normal": lambda lib: (
        D(lib).ContinuousBernoulli(T(lib, [0.2, 0.4999, 0.9])),
        D(lib).Normal(T(lib, [0.6, 0.3, 0.5]), T(lib, [1.0, 2.0, 0.5])),
    ),
    "ContinuousBernoulli-Uniform": lambda lib: (
        D(lib).ContinuousBernoulli(T(lib, [0.2, 0.4999])),
        D(lib).Uniform(T(lib, [-0.1, 0.3]), T(lib, [1.5, 2.0])),
    ),
    "Beta-ContinuousBernoulli": lambda lib: (
        D(lib).Beta(T(lib, [2.0, 1.0]), T(lib, [1.0, 2.0])),
        D(lib).ContinuousBernoulli(T(lib, [0.2, 0.7])),
    ),
    "Normal-ContinuousBernoulli": lambda lib: (
        D(lib).Normal(T(lib, [0.6, 0.3]), T(lib, [1.0, 2.0])),
        D(lib).ContinuousBernoulli(T(lib, [0.2, 0.7])),
    ),
    "Pareto": lambda lib: (
        D(lib).Pareto(T(lib, [1.0, 2.0]), T(lib, [2.5, 3.0])),
        D(lib).Pareto(T(lib, [0.5, 2.5]), T(lib, [1.0, 2.0])),
    ),
    "Pareto-Normal": lambda lib: (
        D(lib).Pareto(T(lib, [1.0, 2.0, 1.0]), T(lib, [2.5, 3.0, 1.5])),
        D(lib).Normal(T(lib, [0.6, 0.3, 0.5]), T(lib, [1.0, 2.0, 0.5])),
    ),
    "Pareto-Gamma": lambda lib: (
        D(lib).Pareto(T(lib, [1.0, 2.0, 1.0]), T(lib, [2.5, 3.0, 0.5])),
        D(lib).Gamma(T(lib, [0.6, 0.3, 0.5]), T(lib, [1.0, 2.0, 0.5])),
    ),
    "Pareto-Exponential": lambda lib: (
        D(lib).Pareto(T(lib, [1.0, 2.0, 1.0]), T(lib, [2.5, 3.0, 0.5])),
        D(lib).Exponential(T(lib, [1.0, 2.0, 0.5])),
    ),
    "Uniform-Pareto": lambda lib: (
        D(lib).Uniform(T(lib, [1.0, 0.5]), T(lib, [2.0, 3.0])),
        D(lib).Pareto(T(lib, [1.0, 2.0]), T(lib, [2.5, 3.0])),
    ),
    "Normal-Pareto": lambda lib: (
        D(lib).Normal(T(lib, [1.0, 0.5]), T(lib, [2.0, 3.0])),
        D(lib).Pareto(T(lib, [1.0, 2.0]), T(lib, [2.5, 3.0])),
    ),
    "LowRankMVN": lambda lib: (
        D(lib).LowRankMultivariateNormal(
            T(lib, [0.0, 1.0]), T(lib, [[1.0], [0.5]]), T(lib, [0.5, 2.0])
        ),
        D(lib).LowRankMultivariateNormal(
            T(lib, [[1.0, 1.0], [0.0, 0.0]]), T(lib, [[0.3], [-0.5]]), T(lib, [1.5, 0.2])
        ),
    ),
    "MVN-LowRankMVN": lambda lib: (
        D(lib).MultivariateNormal(T(lib, [0.0, 1.0]), T(lib, [[2.0, 0.3], [0.3, 1.0]])),
        D(lib).LowRankMultivariateNormal(
            T(lib, [[1.0, 1.0], [0.0, 0.0]]), T(lib, [[0.3], [-0.5]]), T(lib, [1.5, 0.2])
        ),
    ),
    "LowRankMVN-MVN": lambda lib: (
        D(lib).LowRankMultivariateNormal(
            T(lib, [[1.0, 1.0], [0.0, 0.0]]), T(lib, [[0.3], [-0.5]]), T(lib, [1.5, 0.2])
        ),
        D(lib).MultivariateNormal(T(lib, [0.0, 1.0]), T(lib, [[2.0, 0.3], [0.3, 1.0]])),
    ),
    "Bernoulli-Poisson": lambda lib: (
        D(lib).Bernoulli(T(lib, [0.2, 0.7])),
        D(lib).Poisson(T(lib, [0.5, 1.0])),
    ),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence_values(name):
    mine = jtensor.distributions.kl_divergence(*KL_PAIRS[name](jtensor))
    theirs = torch.distributions.kl_divergence(*KL_PAIRS[name](torch))
    same(mine, theirs)


def test_kl_gradients_and_the_bregman_fallback():
    for name in ("Normal", "Gamma", "Beta", "Dirichlet", "MVN"):

        def f(*params, name=name):
            p, q = KL_PAIRS[name](jtensor)
            return jtensor.distributions.kl_divergence(p, q)

        p, q = KL_PAIRS[name](jtensor)
        # The exponential-family fallback (Bregman divergence) agrees with the closed forms.
        if isinstance(p, jtensor.distributions.ExponentialFamily):
            from jtensor.distributions.kl import _kl_expfamily_expfamily

            closed = jtensor.distributions.kl_divergence(p, q)
            np.testing.assert_allclose(
                _kl_expfamily_expfamily(p, q).detach().cpu().numpy(),
                closed.cpu().numpy(),
                rtol=1e-9,
            )
    loc = T(jtensor, [0.3, -0.2]).requires_grad_()
    scale = T(jtensor, [0.8, 1.4]).requires_grad_()

    def kl(loc, scale):
        p = jtensor.distributions.Normal(loc, scale)
        q = jtensor.distributions.Laplace(loc * 2, scale + 1)
        return jtensor.distributions.kl_divergence(p, q)

    assert jtensor.autograd.gradcheck(kl, (loc, scale))
    assert jtensor.autograd.gradgradcheck(kl, (loc, scale))


def test_kl_unregistered_pairs_and_register_kl():
    for lib in (jtensor, torch):
        p = D(lib).Normal(T(lib, [0.0]), T(lib, [1.0]))
        c = D(lib).Categorical(T(lib, [0.5, 0.5]))
        with pytest.raises(NotImplementedError) as info:
            D(lib).kl_divergence(p, c)
        assert str(info.value) == (
            "No KL(p || q) is implemented for p type Normal and q type Categorical"
        )
        # Two different exponential families: the Bregman fallback refuses.
        with pytest.raises(NotImplementedError, match="cross KL-divergence"):
            D(lib).kl_divergence(p, D(lib).Poisson(T(lib, [1.0])))

    class MyNormal(jtensor.distributions.Normal):
        pass

    @jtensor.distributions.register_kl(MyNormal, jtensor.distributions.Normal)
    def _kl_mine(p, q):
        return p.loc * 0 + 42

    p = MyNormal(T(jtensor, [0.0]), T(jtensor, [1.0]))
    q = jtensor.distributions.Normal(T(jtensor, [0.0]), T(jtensor, [1.0]))
    assert jtensor.distributions.kl_divergence(p, q).item() == 42
    # Normal against MyNormal still takes the general (Normal, Normal) implementation.
    assert jtensor.distributions.kl_divergence(q, p).item() == 0
    with pytest.raises(TypeError):
        jtensor.distributions.register_kl(int, jtensor.distributions.Normal)


def _message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


BAD = {
    "normal scale": lambda lib: D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, -1.0])),
    "normal nan loc": lambda lib: D(lib).Normal(T(lib, [math.nan]), T(lib, [1.0])),
    "bernoulli probs": lambda lib: D(lib).Bernoulli(T(lib, [0.5, 1.5])),
    "both probs and logits": lambda lib: D(lib).Bernoulli(T(lib, [0.5]), T(lib, [0.5])),
    "categorical simplex": lambda lib: D(lib).Categorical(T(lib, [-0.5, 1.5])),
    "uniform low >= high": lambda lib: D(lib).Uniform(T(lib, [1.0]), T(lib, [0.0])),
    "gamma": lambda lib: D(lib).Gamma(T(lib, [0.0]), T(lib, [1.0])),
    "dirichlet 0-d": lambda lib: D(lib).Dirichlet(T(lib, 1.0)),
    "dirichlet": lambda lib: D(lib).Dirichlet(T(lib, [1.0, -1.0])),
    "mvn two matrices": lambda lib: D(lib).MultivariateNormal(
        T(lib, [0.0, 0.0]), lib.eye(2, dtype=lib.float64), scale_tril=lib.eye(2, dtype=lib.float64)
    ),
    "mvn not pd": lambda lib: D(lib).MultivariateNormal(
        T(lib, [0.0, 0.0]), T(lib, [[1.0, 2.0], [2.0, 1.0]])
    ),
    "mvn tril": lambda lib: D(lib).MultivariateNormal(
        T(lib, [0.0, 0.0]), scale_tril=T(lib, [[1.0, 1.0], [0.0, 1.0]])
    ),
    "binomial count": lambda lib: D(lib).Binomial(T(lib, [2.5]), T(lib, [0.5])),
    "geometric zero": lambda lib: D(lib).Geometric(T(lib, [0.0, 0.5])),
    "log_prob support": lambda lib: (
        D(lib).Exponential(T(lib, [1.0, 2.0])).log_prob(T(lib, [-1.0, 1.0]))
    ),
    "log_prob categorical": lambda lib: (
        D(lib).Categorical(T(lib, [0.5, 0.5])).log_prob(lib.tensor(3))
    ),
    "log_prob bernoulli": lambda lib: D(lib).Bernoulli(T(lib, [0.5])).log_prob(T(lib, [0.5])),
    "log_prob event shape": lambda lib: (
        D(lib).Dirichlet(T(lib, [1.0, 2.0])).log_prob(T(lib, [0.2, 0.3, 0.5]))
    ),
    "log_prob batch shape": lambda lib: (
        D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 1.0])).log_prob(T(lib, [0.0, 1.0, 2.0]))
    ),
    "log_prob not a tensor": lambda lib: D(lib).Normal(T(lib, [0.0]), T(lib, [1.0])).log_prob(0.5),
    "log_prob simplex": lambda lib: (
        D(lib).Dirichlet(T(lib, [1.0, 2.0])).log_prob(T(lib, [0.2, 0.3]))
    ),
    "cdf support": lambda lib: D(lib).Uniform(T(lib, [0.0]), T(lib, [1.0])).cdf(T(lib, [2.0])),
    "mixture not categorical": lambda lib: D(lib).MixtureSameFamily(
        D(lib).Normal(T(lib, [0.0]), T(lib, [1.0])), D(lib).Normal(T(lib, [0.0]), T(lib, [1.0]))
    ),
    "mixture sizes": lambda lib: D(lib).MixtureSameFamily(
        D(lib).Categorical(T(lib, [0.5, 0.5])), D(lib).Normal(T(lib, [0.0] * 3), T(lib, [1.0] * 3))
    ),
    "independent ndims": lambda lib: D(lib).Independent(
        D(lib).Normal(T(lib, [0.0]), T(lib, [1.0])), 2
    ),
    "transforms not transforms": lambda lib: D(lib).TransformedDistribution(
        D(lib).Normal(T(lib, [0.0]), T(lib, [1.0])), [1]
    ),
    "binomial entropy inhomogeneous": lambda lib: (
        D(lib).Binomial(T(lib, [2.0, 3.0]), T(lib, [0.5, 0.5])).entropy()
    ),
    "multinomial tensor count": lambda lib: D(lib).Multinomial(T(lib, [2.0]), T(lib, [0.5, 0.5])),
    "mean of the base class": lambda lib: D(lib).Distribution(validate_args=False).mean,
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_and_their_messages(case):
    mine = _message(lambda: BAD[case](jtensor))
    theirs = _message(lambda: BAD[case](torch))
    assert mine[0] is theirs[0]
    # Under --device cuda, tensors in messages name their device: PyTorch's run is on the CPU.
    assert mine[1].replace(", device='cuda:0'", "") == theirs[1]


def test_validation_switches():
    try:
        for lib in (jtensor, torch):
            lib.distributions.Distribution.set_default_validate_args(False)
            n = D(lib).Normal(T(lib, [0.0]), T(lib, [-1.0]))  # no check
            assert n.log_prob(T(lib, [1.0])).isnan().all()
            lib.distributions.Distribution.set_default_validate_args(True)
            with pytest.raises(ValueError):
                D(lib).Normal(T(lib, [0.0]), T(lib, [-1.0]))
            D(lib).Normal(T(lib, [0.0]), T(lib, [-1.0]), validate_args=False)
            with pytest.raises(ValueError):
                lib.distributions.Distribution.set_default_validate_args(1.5)
            with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
                lib.distributions.Distribution()
    finally:
        jtensor.distributions.Distribution.set_default_validate_args(True)
        torch.distributions.Distribution.set_default_validate_args(True)


def test_sample_n_warns_and_samples():
    for lib in (jtensor, torch):
        lib.manual_seed(3)
        with pytest.warns(FutureWarning, match="sample_n"):
            s = D(lib).Normal(T(lib, [0.0, 1.0]), T(lib, [1.0, 2.0])).sample_n(4)
        assert tuple(s.shape) == (4, 2)


def test_lazy_probs_logits_and_expand_keep_the_given_parameter():
    for lib in (jtensor, torch):
        b = D(lib).Bernoulli(logits=T(lib, [0.0, 2.0]))
        assert "probs" not in b.__dict__
        e = b.expand((3, 2))
        assert "probs" not in e.__dict__ and e._param is e.logits
        b.probs  # noqa: B018 (computed and cached)
        assert "probs" in b.__dict__
    mine = D(jtensor).Bernoulli(logits=T(jtensor, [0.0, 2.0])).expand((3, 2))
    theirs = D(torch).Bernoulli(logits=T(torch, [0.0, 2.0])).expand((3, 2))
    same(mine.probs, theirs.probs)
    with pytest.raises(NotImplementedError, match="custom .expand"):

        class Mine(jtensor.distributions.Normal):
            def __init__(self):
                super().__init__(T(jtensor, [0.0]), T(jtensor, [1.0]))

        Mine().expand((2,))


# ---------------------------------------------------------------------- constraints
CONSTRAINTS = {
    "real": (lambda C: C.real, [[0.0, math.nan, math.inf]]),
    "positive": (lambda C: C.positive, [[0.0, 1.0, -1.0]]),
    "nonnegative": (lambda C: C.nonnegative, [[0.0, 1.0, -1.0]]),
    "unit_interval": (lambda C: C.unit_interval, [[0.0, 1.0, 1.5]]),
    "interval": (lambda C: C.interval(-1.0, 2.0), [[0.0, 2.0, 2.5]]),
    "half_open_interval": (lambda C: C.half_open_interval(-1.0, 2.0), [[0.0, 2.0, -1.0]]),
    "greater_than": (lambda C: C.greater_than(1.0), [[0.0, 2.0, 1.0]]),
    "greater_than_eq": (lambda C: C.greater_than_eq(1.0), [[0.0, 2.0, 1.0]]),
    "less_than": (lambda C: C.less_than(1.0), [[0.0, 2.0, 1.0]]),
    "boolean": (lambda C: C.boolean, [[0.0, 1.0, 0.5]]),
    "nonnegative_integer": (lambda C: C.nonnegative_integer, [[0.0, 1.0, 0.5, -1.0]]),
    "positive_integer": (lambda C: C.positive_integer, [[0.0, 1.0, 0.5, 3.0]]),
    "integer_interval": (lambda C: C.integer_interval(0, 3), [[0.0, 3.0, 0.5, 4.0]]),
    "simplex": (lambda C: C.simplex, [[0.2, 0.8], [0.5, 0.6], [-0.5, 1.5]]),
    "one_hot": (lambda C: C.one_hot, [[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]),
    "multinomial": (lambda C: C.multinomial(3), [[1.0, 2.0], [2.0, 2.0], [-1.0, 2.0]]),
    "real_vector": (lambda C: C.real_vector, [[0.0, math.nan], [1.0, 2.0]]),
    "independent": (lambda C: C.independent(C.positive, 1), [[1.0, 2.0], [1.0, -2.0]]),
    "lower_triangular": (
        lambda C: C.lower_triangular,
        [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [2.0, 3.0]]],
    ),
    "lower_cholesky": (
        lambda C: C.lower_cholesky,
        [[[1.0, 0.0], [2.0, 3.0]], [[-1.0, 0.0], [2.0, 3.0]]],
    ),
    "corr_cholesky": (
        lambda C: C.corr_cholesky,
        [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [2.0, 3.0]]],
    ),
    "square": (lambda C: C.square, [[[1.0, 0.0], [2.0, 3.0]]]),
    "symmetric": (lambda C: C.symmetric, [[[1.0, 2.0], [2.0, 3.0]], [[1.0, 0.0], [2.0, 3.0]]]),
    "positive_definite": (
        lambda C: C.positive_definite,
        [[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]],
    ),
    "positive_semidefinite": (
        lambda C: C.positive_semidefinite,
        [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]],
    ),
    "cat": (
        lambda C: C.cat([C.positive, C.real], -1, [1, 2]),
        [[1.0, -2.0, 3.0], [-1.0, 2.0, 3.0]],
    ),
    "stack": (lambda C: C.stack([C.positive, C.real], -1), [[1.0, -2.0], [-1.0, 2.0]]),
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraints_against_pytorch(name):
    make, values = CONSTRAINTS[name]
    out = []
    for lib in (jtensor, torch):
        c = make(lib.distributions.constraints)
        r = c.check(T(lib, values))
        out.append((repr(c), c.is_discrete, c.event_dim, r))
    (mr, md, me, mv), (tr, td, te, tv) = out
    assert (mr, md, me) == (tr, td, te)
    assert repr(mv.dtype) == repr(tv.dtype)
    assert mv.cpu().numpy().tolist() == tv.cpu().numpy().tolist()


def test_dependent_constraints():
    for lib in (jtensor, torch):
        C = lib.distributions.constraints
        assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
        with pytest.raises(ValueError, match="Cannot determine validity"):
            C.dependent.check(T(lib, [1.0]))
        with pytest.raises(NotImplementedError):
            C.dependent.event_dim  # noqa: B018
        assert C.dependent(is_discrete=True, event_dim=1).event_dim == 1
        assert C.is_dependent(lib.distributions.Uniform.support)
    reprs = [
        repr(lib.distributions.Binomial(T(lib, [3.0]), T(lib, [0.5])).support)
        for lib in (jtensor, torch)
    ]
    assert reprs[0].replace(", device='cuda:0'", "") == reprs[1]


# ---------------------------------------------------------------------- transforms
TRANSFORMS = {
    "exp": (lambda tr, lib: tr.ExpTransform(), [0.3, -1.2]),
    "sigmoid": (lambda tr, lib: tr.SigmoidTransform(), [0.3, -1.2]),
    "tanh": (lambda tr, lib: tr.TanhTransform(), [0.3, -1.2]),
    "softplus": (lambda tr, lib: tr.SoftplusTransform(), [0.3, -1.2]),
    "affine": (
        lambda tr, lib: tr.AffineTransform(T(lib, [1.0, 2.0]), T(lib, [-0.5, 3.0])),
        [0.3, -1.2],
    ),
    "affine numbers": (lambda tr, lib: tr.AffineTransform(1.0, -3.0), [0.3, -1.2]),
    "affine event": (
        lambda tr, lib: tr.AffineTransform(1.0, T(lib, [2.0, 3.0]), event_dim=1),
        [0.3, -1.2],
    ),
    "power": (lambda tr, lib: tr.PowerTransform(T(lib, 3.0)), [0.3, 1.2]),
    "abs": (lambda tr, lib: tr.AbsTransform(), [0.3, 1.2]),
    "softmax": (lambda tr, lib: tr.SoftmaxTransform(), [0.3, -1.2, 0.5]),
    "stick breaking": (lambda tr, lib: tr.StickBreakingTransform(), [0.3, -1.2, 0.5]),
    "lower cholesky": (lambda tr, lib: tr.LowerCholeskyTransform(), [[0.3, -1.2], [0.5, 0.1]]),
    "compose": (
        lambda tr, lib: tr.ComposeTransform(
            [tr.ExpTransform(), tr.AffineTransform(1.0, 2.0), tr.ExpTransform().inv]
        ),
        [0.3, -1.2],
    ),
    "independent": (lambda tr, lib: tr.IndependentTransform(tr.SigmoidTransform(), 1), [0.3, -1.2]),
    "reshape": (lambda tr, lib: tr.ReshapeTransform((2, 2), (4,)), [[0.3, -1.2], [0.5, 0.1]]),
    "inverse": (lambda tr, lib: tr.SigmoidTransform().inv, [0.3, 0.7]),
    "positive definite": (
        lambda tr, lib: tr.PositiveDefiniteTransform(),
        [[0.3, -1.2], [0.5, 0.1]],
    ),
    "corr cholesky": (
        lambda tr, lib: tr.CorrCholeskyTransform(),
        [[0.3, -1.2, 0.5], [0.1, 0.2, 2.0]],
    ),
    "cat": (
        lambda tr, lib: tr.CatTransform([tr.ExpTransform(), tr.SigmoidTransform()], -1, [1, 2]),
        [[0.3, -1.2, 0.5], [0.1, 0.2, 2.0]],
    ),
    "cat batch dim": (
        lambda tr, lib: tr.CatTransform([tr.ExpTransform(), tr.TanhTransform()], 0, [1, 1]),
        [[0.3, -1.2, 0.5], [0.1, 0.2, 2.0]],
    ),
    "stack": (
        lambda tr, lib: tr.StackTransform([tr.ExpTransform(), tr.SigmoidTransform()], 0),
        [[0.3, -1.2, 0.5], [0.1, 0.2, 2.0]],
    ),
    "cdf": (
        lambda tr, lib: tr.CumulativeDistributionTransform(
            lib.distributions.Normal(T(lib, 0.5), T(lib, 2.0))
        ),
        [0.3, -1.2],
    ),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transforms_against_pytorch(name):
    make, x = TRANSFORMS[name]
    out = []
    for lib in (jtensor, torch):
        t = make(lib.distributions.transforms, lib)
        xv = T(lib, x)
        y = t(xv)
        entry = [y, repr(t), t.bijective, repr(t.domain), repr(t.codomain)]
        entry.append(t.inv(y) if t.bijective or name in ("abs", "softmax") else None)
        try:
            entry.append(t.log_abs_det_jacobian(xv, y))
        except NotImplementedError:
            entry.append(NotImplementedError)
        entry.append(tuple(t.forward_shape(xv.shape)))
        entry.append(tuple(t.inverse_shape(y.shape)))
        entry.append(t.inv.inv is t)
        out.append(entry)
    for a, b in zip(*out, strict=True):
        if isinstance(b, torch.Tensor):
            same(a, b, rtol=1e-10)
        else:
            assert a == b, (a, b)


def test_transform_caching_equality_and_gradients():
    tr = jtensor.distributions.transforms
    t = tr.TanhTransform(cache_size=1)
    x = T(jtensor, [20.0])
    y = t(x)
    assert t.inv(y) is x  # atanh(1.0) would be inf: the cache gives x back
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        tr.ExpTransform(cache_size=2)
    assert tr.ExpTransform() == tr.ExpTransform() and tr.ExpTransform() != tr.SigmoidTransform()
    assert tr.AffineTransform(1.0, 2.0) == tr.AffineTransform(1.0, 2.0)
    assert tr.identity_transform(x) is x
    for t in (
        tr.TanhTransform(),
        tr.SigmoidTransform(),
        tr.StickBreakingTransform(),
        tr.SoftplusTransform(),
    ):
        xs = T(jtensor, [0.3, -1.2, 0.4]).requires_grad_()

        def ladj(v, t=t):
            return t.log_abs_det_jacobian(v, t(v))

        assert jtensor.autograd.gradcheck(ladj, (xs,))
        assert jtensor.autograd.gradcheck(lambda v, t=t: t.inv(t(v)), (xs,))


CONSTRAINT_TARGETS = {
    "positive": lambda C, lib: C.positive,
    "real": lambda C, lib: C.real,
    "unit_interval": lambda C, lib: C.unit_interval,
    "interval": lambda C, lib: C.interval(-2.0, 3.0),
    "greater_than": lambda C, lib: C.greater_than(1.5),
    "less_than": lambda C, lib: C.less_than(1.5),
    "simplex": lambda C, lib: C.simplex,
    "lower_cholesky": lambda C, lib: C.lower_cholesky,
    "real_vector": lambda C, lib: C.real_vector,
    "positive_definite": lambda C, lib: C.positive_definite,
    "corr_cholesky": lambda C, lib: C.corr_cholesky,
    "cat": lambda C, lib: C.cat([C.positive, C.unit_interval], -1, [1, 1]),
    "stack": lambda C, lib: C.stack([C.positive, C.real], 0),
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(CONSTRAINT_TARGETS))
def test_biject_to_and_transform_to(registry, name):
    out = []
    for lib in (jtensor, torch):
        c = CONSTRAINT_TARGETS[name](lib.distributions.constraints, lib)
        try:
            t = getattr(lib.distributions, registry)(c)
        except NotImplementedError:
            out.append(NotImplementedError)
            continue
        if name == "corr_cholesky":  # vectors of D(D-1)/2 entries
            x = T(lib, [[0.3, -1.2, 0.5], [0.1, 0.2, 2.0]])
        else:
            x = T(lib, [[0.3, -1.2], [0.5, 0.1]])
        y = t(x)
        out.append((y, bool(c.check(y).all())))
    if out[1] is NotImplementedError:
        assert out[0] is NotImplementedError
        return
    same(out[0][0], out[1][0], rtol=1e-10)
    assert out[0][1] and out[1][1]


# ---------------------------------------------------------------------- samplers
def test_gamma_sampler_moments_and_reparameterised_mean_gradient():
    # 20000 draws: the standard error of a mean is sqrt(var / n); 5 of them is the tolerance.
    n = 20000
    jtensor.manual_seed(0)
    for alpha in (0.3, 1.0, 4.5, 30.0):
        conc = T(jtensor, [alpha]).requires_grad_()
        x = jtensor.distributions.Gamma(conc, T(jtensor, [2.0])).rsample((n,))
        mean, var = alpha / 2.0, alpha / 4.0
        assert abs(x.mean().item() - mean) < 5 * math.sqrt(var / n)
        assert abs(x.var().item() - var) < 0.1 * var
        x.mean().backward()
        # d E[x] / d alpha = 1 / rate: the pathwise estimate has a small spread.
        assert abs(conc.grad.item() - 0.5) < 0.02


def test_dirichlet_and_beta_sampler_moments_and_gradient():
    n = 20000
    jtensor.manual_seed(1)
    conc = T(jtensor, [0.5, 2.0, 4.0]).requires_grad_()
    x = jtensor.distributions.Dirichlet(conc).rsample((n,))
    a0 = 6.5
    mean = conc.detach().cpu().numpy() / a0
    var = mean * (1 - mean) / (a0 + 1)
    np.testing.assert_allclose(
        x.mean(0).detach().cpu().numpy(), mean, atol=5 * math.sqrt(var.max() / n)
    )
    np.testing.assert_allclose(x.var(0).detach().cpu().numpy(), var, rtol=0.1)
    assert bool((x.sum(-1) - 1).abs().max() < 1e-12)
    x[:, 0].mean().backward()
    # d E[x_0] / d alpha = (a0 - alpha_0, -alpha_0, -alpha_0) / a0**2.
    expected = np.array([a0 - 0.5, -0.5, -0.5]) / a0**2
    np.testing.assert_allclose(conc.grad.cpu().numpy(), expected, atol=0.01)
    b = jtensor.distributions.Beta(T(jtensor, [2.0]), T(jtensor, [5.0])).sample((n,))
    assert abs(b.mean().item() - 2 / 7) < 5 * math.sqrt(10 / (49 * 8) / n)


def test_binomial_sampler_moments():
    n = 20000
    jtensor.manual_seed(2)
    counts = T(jtensor, [5.0, 40.0, 100.0, 30.0])
    probs = T(jtensor, [0.3, 0.4, 0.97, 0.5])
    x = jtensor.distributions.Binomial(counts, probs).sample((n,))
    mean = (counts * probs).cpu().numpy()
    var = (counts * probs * (1 - probs)).cpu().numpy()
    assert bool((x >= 0).all()) and bool((x <= counts).all()) and bool((x == x.floor()).all())
    np.testing.assert_allclose(x.mean(0).cpu().numpy(), mean, atol=5 * math.sqrt(var.max() / n))
    np.testing.assert_allclose(x.var(0).cpu().numpy(), var, rtol=0.1)
