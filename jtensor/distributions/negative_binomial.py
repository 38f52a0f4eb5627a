"""``torch.distributions.NegativeBinomial``: successes before ``total_count`` failures."""

from .._api import ops as J
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from . import constraints
from .distribution import _EMPTY, Distribution
from .gamma import Gamma
from .utils import _BinaryParams, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryParams, Distribution):
    """``NegativeBinomial(total_count, probs=None, logits=None, validate_args=None)``:
    samples are Poisson draws with Gamma-distributed rates (PyTorch's draws)."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_count_and_param(total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(
            NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits")
        )

    @property
    def mean(self):
        return self.total_count * J.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / J.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=J.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=_EMPTY):
        with no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return J.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(
            -self.logits
        ) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -J.lgamma(self.total_count + value) + J.lgamma(1.0 + value) + J.lgamma(self.total_count)
        )
        # total_count = value = 0: probability 1, log-normaliser 0 (lgamma(0) is inf).
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
