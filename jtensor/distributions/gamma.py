"""``torch.distributions.Gamma`` (and ``Chi2``): shape ``concentration``, ``rate``."""

from .._api import ops as J
from .._dtypes import finfo
from . import constraints
from ._samplers import _StandardGamma
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """``Gamma(concentration, rate, validate_args=None)``: ``rsample`` draws standard gamma
    variates with PyTorch's sampler (Marsaglia-Tsang, the same values for the same seed) and
    divides by ``rate``; the gradient w.r.t. ``concentration`` is the implicit
    reparameterisation gradient PyTorch uses (see ``_samplers``)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = _batch_shape_of((concentration, rate), self.concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        value = _StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        # Keep samples off 0 (log_prob would be -inf), in place so the graph stays.
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = J.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            J.xlogy(self.concentration, self.rate)
            + J.xlogy(self.concentration - 1, value)
            - self.rate * value
            - J.lgamma(self.concentration)
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return J.igamma(self.concentration, self.rate * value)  # torch.special.gammainc

    def entropy(self):
        return (
            self.concentration
            - J.log(self.rate)
            + J.lgamma(self.concentration)
            + (1.0 - self.concentration) * J.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return J.lgamma(x + 1) + (x + 1) * J.log(-y.reciprocal())
