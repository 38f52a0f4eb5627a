"""Every distribution of torch.distributions against PyTorch: log_prob, entropy, cdf/icdf,
mean/mode/variance/stddev, shapes of sample/rsample/expand/enumerate_support, repr, and
float64 gradchecks of log_prob and rsample (the draws themselves: test_draws.py)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def T(lib, values, dtype="float64", requires_grad=False):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


# name -> (make(lib, dtype) -> distribution, value(lib, dtype) -> a tensor in the support)
CASES = {
    "Normal": (
        lambda lib, d: lib.distributions.Normal(
            T(lib, [0.0, 1.0, -2.0], d), T(lib, [1.0, 0.5, 2.0], d)
        ),
        lambda lib, d: T(lib, [0.3, 0.7, -1.0], d),
    ),
    "Uniform": (
        lambda lib, d: lib.distributions.Uniform(T(lib, [0.0, -1.0], d), T(lib, [1.0, 3.0], d)),
        lambda lib, d: T(lib, [0.25, 2.0], d),
    ),
    "Bernoulli": (
        lambda lib, d: lib.distributions.Bernoulli(T(lib, [0.2, 0.5, 0.9], d)),
        lambda lib, d: T(lib, [1.0, 0.0, 1.0], d),
    ),
    "BernoulliLogits": (
        lambda lib, d: lib.distributions.Bernoulli(logits=T(lib, [-1.0, 0.5, 3.0], d)),
        lambda lib, d: T(lib, [1.0, 0.0, 1.0], d),
    ),
    "Categorical": (
        lambda lib, d: lib.distributions.Categorical(T(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], d)),
        lambda lib, d: lib.tensor([2, 0]),
    ),
    "CategoricalLogits": (
        lambda lib, d: lib.distributions.Categorical(logits=T(lib, [[0.2, -1.3, 0.5]], d)),
        lambda lib, d: lib.tensor([1]),
    ),
    "OneHotCategorical": (
        lambda lib, d: lib.distributions.OneHotCategorical(
            T(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], d)
        ),
        lambda lib, d: T(lib, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], d),
    ),
    "Binomial": (
        lambda lib, d: lib.distributions.Binomial(
            T(lib, [5.0, 20.0, 30.0], d), T(lib, [0.3, 0.6, 0.95], d)
        ),
        lambda lib, d: T(lib, [2.0, 11.0, 29.0], d),
    ),
    "BinomialHomogeneous": (
        lambda lib, d: lib.distributions.Binomial(6, logits=T(lib, [0.3, -0.6], d)),
        lambda lib, d: T(lib, [2.0, 5.0], d),
    ),
    "Multinomial": (
        lambda lib, d: lib.distributions.Multinomial(
            7, T(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], d)
        ),
        lambda lib, d: T(lib, [[1.0, 2.0, 4.0], [7.0, 0.0, 0.0]], d),
    ),
    "Poisson": (
        lambda lib, d: lib.distributions.Poisson(T(lib, [0.5, 4.0, 25.0], d)),
        lambda lib, d: T(lib, [0.0, 3.0, 20.0], d),
    ),
    "Exponential": (
        lambda lib, d: lib.distributions.Exponential(T(lib, [0.5, 2.0], d)),
        lambda lib, d: T(lib, [1.5, 0.2], d),
    ),
    "Gamma": (
        lambda lib, d: lib.distributions.Gamma(
            T(lib, [0.5, 2.0, 9.0], d), T(lib, [1.0, 0.5, 3.0], d)
        ),
        lambda lib, d: T(lib, [0.3, 2.0, 4.0], d),
    ),
    "Chi2": (
        lambda lib, d: lib.distributions.Chi2(T(lib, [1.5, 4.0], d)),
        lambda lib, d: T(lib, [0.3, 2.0], d),
    ),
    "Beta": (
        lambda lib, d: lib.distributions.Beta(
            T(lib, [0.5, 2.0, 7.0], d), T(lib, [1.5, 2.0, 8.0], d)
        ),
        lambda lib, d: T(lib, [0.3, 0.6, 0.45], d),
    ),
    "Dirichlet": (
        lambda lib, d: lib.distributions.Dirichlet(T(lib, [[0.5, 1.5, 3.0], [7.0, 8.0, 9.0]], d)),
        lambda lib, d: T(lib, [[0.2, 0.3, 0.5], [0.3, 0.3, 0.4]], d),
    ),
    "Laplace": (
        lambda lib, d: lib.distributions.Laplace(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
        lambda lib, d: T(lib, [0.3, -0.7], d),
    ),
    "LogNormal": (
        lambda lib, d: lib.distributions.LogNormal(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
        lambda lib, d: T(lib, [0.3, 2.7], d),
    ),
    "MultivariateNormalCov": (
        lambda lib, d: lib.distributions.MultivariateNormal(
            T(lib, [0.5, -1.0], d), covariance_matrix=T(lib, [[2.0, 0.3], [0.3, 0.5]], d)
        ),
        lambda lib, d: T(lib, [[0.1, 0.2], [1.0, -2.0]], d),
    ),
    "MultivariateNormalPrec": (
        lambda lib, d: lib.distributions.MultivariateNormal(
            T(lib, [[0.5, -1.0], [0.0, 1.0]], d),
            precision_matrix=T(lib, [[2.0, 0.3], [0.3, 0.5]], d),
        ),
        lambda lib, d: T(lib, [0.1, 0.2], d),
    ),
    "MultivariateNormalTril": (
        lambda lib, d: lib.distributions.MultivariateNormal(
            T(lib, [0.5, -1.0, 0.0], d),
            scale_tril=T(lib, [[1.0, 0.0, 0.0], [0.3, 0.5, 0.0], [-0.2, 0.1, 2.0]], d),
        ),
        lambda lib, d: T(lib, [0.1, 0.2, -0.4], d),
    ),
    "Independent": (
        lambda lib, d: lib.distributions.Independent(
            lib.distributions.Normal(
                T(lib, [[0.0, 1.0], [2.0, 3.0]], d), T(lib, [[1.0, 0.5], [2.0, 0.1]], d)
            ),
            1,
        ),
        lambda lib, d: T(lib, [[0.3, 0.7], [1.0, 3.05]], d),
    ),
    "MixtureSameFamily": (
        lambda lib, d: lib.distributions.MixtureSameFamily(
            lib.distributions.Categorical(T(lib, [0.3, 0.7], d)),
            lib.distributions.Normal(T(lib, [-1.0, 2.0], d), T(lib, [0.5, 1.5], d)),
        ),
        lambda lib, d: T(lib, [0.3, -1.0], d),
    ),
    "MixtureSameFamilyMVN": (
        lambda lib, d: lib.distributions.MixtureSameFamily(
            lib.distributions.Categorical(T(lib, [0.3, 0.7], d)),
            lib.distributions.Independent(
                lib.distributions.Normal(
                    T(lib, [[-1.0, 0.0], [2.0, 1.0]], d), T(lib, [[0.5, 1.0], [1.5, 0.2]], d)
                ),
                1,
            ),
        ),
        lambda lib, d: T(lib, [0.3, -1.0], d),
    ),
    "TransformedTanh": (
        lambda lib, d: lib.distributions.TransformedDistribution(
            lib.distributions.Normal(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
            [
                lib.distributions.transforms.TanhTransform(),
                lib.distributions.transforms.AffineTransform(1.0, 2.0),
            ],
        ),
        lambda lib, d: T(lib, [0.5, 2.5], d),
    ),
    "TransformedSigmoidPower": (
        lambda lib, d: lib.distributions.TransformedDistribution(
            lib.distributions.Normal(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
            [
                lib.distributions.transforms.SigmoidTransform(),
                lib.distributions.transforms.PowerTransform(T(lib, 2.0, d)),
            ],
        ),
        lambda lib, d: T(lib, [0.5, 0.25], d),
    ),
    "RelaxedBernoulli": (
        lambda lib, d: lib.distributions.RelaxedBernoulli(T(lib, 0.5, d), T(lib, [0.2, 0.7], d)),
        lambda lib, d: T(lib, [0.3, 0.9], d),
    ),
    "RelaxedOneHotCategorical": (
        lambda lib, d: lib.distributions.RelaxedOneHotCategorical(
            T(lib, 0.7, d), T(lib, [0.2, 0.3, 0.5], d)
        ),
        lambda lib, d: T(lib, [0.1, 0.3, 0.6], d),
    ),
    "Geometric": (
        lambda lib, d: lib.distributions.Geometric(T(lib, [0.2, 0.7, 1.0], d)),
        lambda lib, d: T(lib, [3.0, 0.0, 0.0], d),
    ),
    "Cauchy": (
        lambda lib, d: lib.distributions.Cauchy(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
        lambda lib, d: T(lib, [0.3, -0.7], d),
    ),
    "StudentT": (
        lambda lib, d: lib.distributions.StudentT(
            T(lib, [0.8, 1.5, 5.0], d), T(lib, [0.0, 1.0, -1.0], d), 2.0
        ),
        lambda lib, d: T(lib, [0.3, -0.7, 2.0], d),
    ),
    "Gumbel": (
        lambda lib, d: lib.distributions.Gumbel(T(lib, [0.0, 1.0], d), T(lib, [1.0, 0.5], d)),
        lambda lib, d: T(lib, [0.3, -0.7], d),
    ),
    "HalfNormal": (
        lambda lib, d: lib.distributions.HalfNormal(T(lib, [1.0, 0.5], d)),
        lambda lib, d: T(lib, [0.3, 0.7], d),
    ),
    "ContinuousBernoulli": (
        lambda lib, d: lib.distributions.ContinuousBernoulli(T(lib, [0.2, 0.4995, 0.9], d)),
        lambda lib, d: T(lib, [0.3, 0.7, 0.95], d),
    ),
    "ContinuousBernoulliLogits": (
        lambda lib, d: lib.distributions.ContinuousBernoulli(logits=T(lib, [-1.0, 0.001, 3.0], d)),
        lambda lib, d: T(lib, [0.3, 0.7, 0.95], d),
    ),
    "Pareto": (
        lambda lib, d: lib.distributions.Pareto(
            T(lib, [1.0, 2.0, 0.5], d), T(lib, [0.8, 1.5, 3.0], d)
        ),
        lambda lib, d: T(lib, [1.3, 2.7, 0.5], d),
    ),
    "Weibull": (
        lambda lib, d: lib.distributions.Weibull(T(lib, [1.0, 2.0], d), T(lib, [0.8, 1.5], d)),
        lambda lib, d: T(lib, [1.3, 2.7], d),
    ),
    "HalfCauchy": (
        lambda lib, d: lib.distributions.HalfCauchy(T(lib, [1.0, 2.0], d)),
        lambda lib, d: T(lib, [1.3, 2.7], d),
    ),
    "NegativeBinomial": (
        lambda lib, d: lib.distributions.NegativeBinomial(
            T(lib, [3.0, 0.0, 10.0], d), T(lib, [0.3, 0.5, 0.8], d)
        ),
        lambda lib, d: T(lib, [2.0, 0.0, 35.0], d),
    ),
    "Kumaraswamy": (
        lambda lib, d: lib.distributions.Kumaraswamy(T(lib, [1.5, 0.5], d), T(lib, [2.0, 3.0], d)),
        lambda lib, d: T(lib, [0.3, 0.7], d),
    ),
    "LogisticNormal": (
        lambda lib, d: lib.distributions.LogisticNormal(
            T(lib, [0.5, -1.0], d), T(lib, [1.0, 2.0], d)
        ),
        lambda lib, d: T(lib, [0.3, 0.6, 0.1], d),
    ),
    "InverseGamma": (
        lambda lib, d: lib.distributions.InverseGamma(
            T(lib, [0.5, 1.5, 3.0], d), T(lib, [1.0, 2.0, 0.5], d)
        ),
        lambda lib, d: T(lib, [0.3, 0.6, 1.1], d),
    ),
    "FisherSnedecor": (
        lambda lib, d: lib.distributions.FisherSnedecor(
            T(lib, [1.5, 3.0, 6.0], d), T(lib, [1.0, 3.0, 5.0], d)
        ),
        lambda lib, d: T(lib, [0.3, 0.6, 1.1], d),
    ),
    "LowRankMultivariateNormal": (
        lambda lib, d: lib.distributions.LowRankMultivariateNormal(
            T(lib, [[0.5, -1.0, 0.0], [1.0, 0.0, 2.0]], d),
            T(lib, [[1.0, 0.2], [0.3, -0.5], [0.0, 1.0]], d),
            T(lib, [0.5, 1.0, 2.0], d),
        ),
        lambda lib, d: T(lib, [0.1, 0.2, -0.4], d),
    ),
    "VonMises": (
        lambda lib, d: lib.distributions.VonMises(
            T(lib, [0.5, -1.0, 3.0], d), T(lib, [1.0, 5.0, 1e-6], d)
        ),
        lambda lib, d: T(lib, [0.3, -0.7, 2.0], d),
    ),
    "GeneralizedPareto": (
        lambda lib, d: lib.distributions.GeneralizedPareto(
            T(lib, [0.5, -1.0, 0.0], d), T(lib, [1.0, 2.0, 0.5], d), T(lib, [0.3, -0.2, 0.0], d)
        ),
        lambda lib, d: T(lib, [1.3, 0.7, 2.0], d),
    ),
    "LKJCholesky": (
        lambda lib, d: lib.distributions.LKJCholesky(3, T(lib, [0.5, 2.0], d)),
        lambda lib, d: T(lib, [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]], d),
    ),
    "Wishart": (
        lambda lib, d: lib.distributions.Wishart(
            T(lib, [3.0, 5.0], d), covariance_matrix=T(lib, [[2.0, 0.3], [0.3, 1.0]], d)
        ),
        lambda lib, d: T(lib, [[1.0, 0.2], [0.2, 3.0]], d),
    ),
    "WishartPrecision": (
        lambda lib, d: lib.distributions.Wishart(
            4.0, precision_matrix=T(lib, [[2.0, 0.3], [0.3, 1.0]], d)
        ),
        lambda lib, d: T(lib, [[1.0, 0.2], [0.2, 3.0]], d),
    ),
    "NormalScalars": (
        lambda lib, d: lib.distributions.Normal(0.0, 2.0),
        lambda lib, d: lib.tensor(0.5),
    ),
    "GammaScalars": (
        lambda lib, d: lib.distributions.Gamma(2.0, 3.0),
        lambda lib, d: lib.tensor(0.5),
    ),
    "BetaScalars": (
        lambda lib, d: lib.distributions.Beta(2.0, 3.0),
        lambda lib, d: lib.tensor(0.5),
    ),
}

QUERIES = ("mean", "mode", "variance", "stddev", "entropy", "log_prob", "cdf", "icdf", "perplexity")


def _query(dist, name, value, lib):
    if name == "log_prob":
        return dist.log_prob(value)
    if name == "cdf":
        return dist.cdf(value)
    if name == "icdf":
        return dist.icdf(T(lib, 0.3, str(dist.mean.dtype).split(".")[-1]).expand(dist.batch_shape))
    if name in ("entropy", "perplexity"):
        return getattr(dist, name)()
    return getattr(dist, name)


def _outcome(fn):
    try:
        return fn()
    except Exception as exc:  # the type is what is compared
        return type(exc)


def close(mine, theirs, rtol=1e-6, atol=1e-8):
    if isinstance(theirs, type):
        assert isinstance(mine, type) and issubclass(mine, theirs.__mro__[0]) or mine is theirs, (
            mine,
            theirs,
        )
        return
    assert not isinstance(mine, type), (mine, theirs)
    if isinstance(theirs, torch.Tensor):
        assert repr(mine.dtype) == repr(theirs.dtype), (mine.dtype, theirs.dtype)
        assert tuple(mine.shape) == tuple(theirs.shape), (mine.shape, theirs.shape)
        if theirs.dtype == torch.float32:
            rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)  # float32 special functions
        np.testing.assert_allclose(
            mine.detach().cpu().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol
        )
    elif isinstance(theirs, (tuple, list)):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            close(a, b, rtol, atol)
    elif isinstance(mine, str):
        # Under --device cuda, tensors in reprs name their device: PyTorch's run is on the CPU.
        assert mine.replace(", device='cuda:0'", "") == theirs, (mine, theirs)
    else:
        assert mine == theirs, (mine, theirs)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("query", QUERIES)
def test_values_against_pytorch(name, query):
    make, value = CASES[name]
    results = []
    for lib in (jtensor, torch):
        results.append(
            _outcome(
                lambda lib=lib: _query(make(lib, "float64"), query, value(lib, "float64"), lib)
            )
        )
    mine, theirs = results
    if isinstance(theirs, type) and issubclass(theirs, NotImplementedError):
        assert isinstance(mine, type) and issubclass(mine, NotImplementedError), mine
        return
    close(mine, theirs, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_repr_and_support_against_pytorch(name):
    make, _ = CASES[name]

    def run(lib):
        dist = make(lib, "float64")
        out = [tuple(dist.batch_shape), tuple(dist.event_shape), repr(dist), dist.has_rsample]
        out.append(dist.has_enumerate_support)
        new_batch = (4,) + tuple(dist.batch_shape)
        big = dist.expand(new_batch)
        out += [tuple(big.batch_shape), tuple(big.event_shape), type(big).__name__]
        out.append(tuple(big.sample((2,)).shape))
        out.append(tuple(dist.sample().shape))
        out.append(_outcome(lambda: repr(dist.support)))
        if dist.has_enumerate_support:
            out.append(_outcome(lambda: dist.enumerate_support()))
            out.append(_outcome(lambda: dist.enumerate_support(expand=False)))
        return out

    mine, theirs = run(jtensor), run(torch)
    close(mine, theirs)


GRAD_CASES = {
    "Normal": lambda lib, p: lib.distributions.Normal(p[0], p[1]),
    "Uniform": lambda lib, p: lib.distributions.Uniform(p[0] - 3, p[1] + 3),
    "Bernoulli": lambda lib, p: lib.distributions.Bernoulli(p[0].sigmoid()),
    "Categorical": lambda lib, p: lib.distributions.Categorical(logits=p[0]),
    "Binomial": lambda lib, p: lib.distributions.Binomial(9, logits=p[0]),
    "Poisson": lambda lib, p: lib.distributions.Poisson(p[1]),
    "Exponential": lambda lib, p: lib.distributions.Exponential(p[1]),
    "Gamma": lambda lib, p: lib.distributions.Gamma(p[1], p[1] * 2 + 1),
    "Beta": lambda lib, p: lib.distributions.Beta(p[1] + 0.5, p[1] * 2),
    "Dirichlet": lambda lib, p: lib.distributions.Dirichlet(p[1] + 0.5),
    "Laplace": lambda lib, p: lib.distributions.Laplace(p[0], p[1]),
    "LogNormal": lambda lib, p: lib.distributions.LogNormal(p[0], p[1]),
    "Cauchy": lambda lib, p: lib.distributions.Cauchy(p[0], p[1]),
    "StudentT": lambda lib, p: lib.distributions.StudentT(p[1] + 2, p[0], p[1]),
    "Gumbel": lambda lib, p: lib.distributions.Gumbel(p[0], p[1]),
    "HalfNormal": lambda lib, p: lib.distributions.HalfNormal(p[1]),
    "Geometric": lambda lib, p: lib.distributions.Geometric(logits=p[0]),
    "MVN": lambda lib, p: lib.distributions.MultivariateNormal(
        p[0], scale_tril=lib.diag_embed(p[1]) + lib.tril(p[0].outer(p[1]), -1)
    ),
    "MVNCov": lambda lib, p: lib.distributions.MultivariateNormal(
        p[0], covariance_matrix=lib.diag_embed(p[1] + 1) + 0.1 * p[0].outer(p[0])
    ),
    "RelaxedBernoulli": lambda lib, p: lib.distributions.RelaxedBernoulli(p[1] + 0.2, logits=p[0]),
    "RelaxedOneHotCategorical": lambda lib, p: lib.distributions.RelaxedOneHotCategorical(
        p[1][0] + 0.2, logits=p[0]
    ),
    "ContinuousBernoulli": lambda lib, p: lib.distributions.ContinuousBernoulli(logits=p[0]),
    "LKJCholesky": lambda lib, p: lib.distributions.LKJCholesky(3, p[1] + 0.5),
    "Wishart": lambda lib, p: lib.distributions.Wishart(
        p[1][0] + 3, scale_tril=lib.diag_embed(p[1]) + lib.tril(p[0].outer(p[1]), -1)
    ),
    "VonMises": lambda lib, p: lib.distributions.VonMises(p[0], p[1]),
    "GeneralizedPareto": lambda lib, p: lib.distributions.GeneralizedPareto(
        p[0] - 2, p[1], p[0] * 0.3
    ),
    "LowRankMVN": lambda lib, p: lib.distributions.LowRankMultivariateNormal(
        p[0], lib.stack([p[0], p[1]], -1), p[1]
    ),
    "Kumaraswamy": lambda lib, p: lib.distributions.Kumaraswamy(p[1], p[1] + 0.5),
    "LogisticNormal": lambda lib, p: lib.distributions.LogisticNormal(p[0], p[1]),
    "InverseGamma": lambda lib, p: lib.distributions.InverseGamma(p[1] + 0.5, p[1]),
    "FisherSnedecor": lambda lib, p: lib.distributions.FisherSnedecor(p[1] + 1, p[1] * 2),
    "Pareto": lambda lib, p: lib.distributions.Pareto(p[1] * 0.1, p[1] + 0.5),
    "Weibull": lambda lib, p: lib.distributions.Weibull(p[1], p[1] + 0.5),
    "HalfCauchy": lambda lib, p: lib.distributions.HalfCauchy(p[1]),
    "NegativeBinomial": lambda lib, p: lib.distributions.NegativeBinomial(p[1] * 3, logits=p[0]),
    "MixtureSameFamily": lambda lib, p: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=p[0]), lib.distributions.Normal(p[0], p[1])
    ),
}

VALUES = {
    "Bernoulli": [1.0, 0.0, 1.0],
    "Categorical": [2],
    "Binomial": [2.0, 9.0, 4.0],
    "Poisson": [0.0, 3.0, 2.0],
    "Beta": [0.2, 0.5, 0.7],
    "Dirichlet": [0.2, 0.5, 0.3],
    "Geometric": [0.0, 3.0, 1.0],
    "Exponential": [0.2, 0.5, 0.7],
    "Gamma": [0.2, 0.5, 0.7],
    "LogNormal": [0.2, 0.5, 0.7],
    "HalfNormal": [0.2, 0.5, 0.7],
    "RelaxedBernoulli": [0.2, 0.5, 0.7],
    "ContinuousBernoulli": [0.2, 0.5, 0.7],
    "LKJCholesky": [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]],
    "Wishart": [[1.0, 0.2, 0.0], [0.2, 3.0, 0.1], [0.0, 0.1, 1.0]],
    "Kumaraswamy": [0.2, 0.5, 0.7],
    "LogisticNormal": [0.2, 0.1, 0.3, 0.4],
    "InverseGamma": [0.2, 0.5, 0.7],
    "FisherSnedecor": [0.2, 0.5, 0.7],
    "Pareto": [0.2, 0.5, 0.7],
    "Weibull": [0.2, 0.5, 0.7],
    "HalfCauchy": [0.2, 0.5, 0.7],
    "NegativeBinomial": [0.0, 3.0, 1.0],
    "RelaxedOneHotCategorical": [0.2, 0.5, 0.3],
    "MixtureSameFamily": [0.3],
}


def _grad_params(lib):
    return (
        T(lib, [0.3, -0.5, 1.2], requires_grad=True),
        T(lib, [0.8, 1.3, 0.6], requires_grad=True),
    )


def test_generalized_pareto_scores_in_float32():
    # PyTorch's GeneralizedPareto.log_prob/cdf compare the concentration with a float32
    # zero: other dtypes raise (tested above); float32 parameters score.
    make, value = CASES["GeneralizedPareto"]
    for query in ("log_prob", "cdf", "icdf", "entropy", "mean", "variance"):
        mine, theirs = (
            _query(make(lib, "float32"), query, value(lib, "float32"), lib)
            for lib in (jtensor, torch)
        )
        close(mine, theirs)


@pytest.mark.parametrize("name", sorted(n for n in GRAD_CASES if n != "GeneralizedPareto"))
def test_log_prob_gradcheck_and_gradients_against_pytorch(name):
    make = GRAD_CASES[name]
    value = VALUES.get(name, [0.1, -0.4, 0.9])

    def f(a, b):
        dist = make(jtensor, (a, b))
        v = T(jtensor, value)
        if name == "Categorical":
            v = jtensor.tensor(value)
        return dist.log_prob(v)

    params = _grad_params(jtensor)
    assert jtensor.autograd.gradcheck(f, params)
    if name not in ("MixtureSameFamily", "MVNCov"):
        assert jtensor.autograd.gradgradcheck(f, params)
    grads = []
    for lib in (jtensor, torch):
        p = _grad_params(lib)
        v = lib.tensor(value) if name == "Categorical" else T(lib, value)
        lp = make(lib, p).log_prob(v)
        lp.sum().backward()
        grads.append([lp] + [x.grad for x in p])
    mine, theirs = grads
    for a, b in zip(mine, theirs, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(
                a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-9
            )


IMPLICIT = (
    "Gamma",
    "Beta",
    "Dirichlet",
    "StudentT",
    "InverseGamma",
    "FisherSnedecor",
    "Wishart",
)  # gamma-based: implicit gradients
RSAMPLE_CASES = [
    "GeneralizedPareto",
    "LowRankMVN",
    "Kumaraswamy",
    "LogisticNormal",
    "InverseGamma",
    "FisherSnedecor",
    "Pareto",
    "Weibull",
    "HalfCauchy",
    "ContinuousBernoulli",
    "Normal",
    "Uniform",
    "Exponential",
    "Laplace",
    "LogNormal",
    "Cauchy",
    "HalfNormal",
    "MVN",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "Gamma",
    "Beta",
    "Dirichlet",
    "StudentT",
]


@pytest.mark.parametrize("name", [n for n in RSAMPLE_CASES if n not in IMPLICIT])
def test_rsample_gradcheck(name):
    # Pathwise derivatives of a differentiable transform of fixed noise.
    make = GRAD_CASES[name]

    def f(a, b):
        jtensor.manual_seed(5)
        return make(jtensor, (a, b)).rsample((2,))

    assert jtensor.autograd.gradcheck(f, _grad_params(jtensor))


def test_wishart_rsample_gradcheck_in_the_scale():
    # The df gradient is the gamma sampler's implicit one (compared with PyTorch's in
    # test_draws.py for Gamma); w.r.t. the scale the sample is a smooth function of it.
    df = T(jtensor, 4.0)

    def f(a, b):
        jtensor.manual_seed(5)
        tril = jtensor.diag_embed(b) + jtensor.tril(a.outer(b), -1)
        return jtensor.distributions.Wishart(df, scale_tril=tril).rsample((2,))

    assert jtensor.autograd.gradcheck(f, _grad_params(jtensor))
