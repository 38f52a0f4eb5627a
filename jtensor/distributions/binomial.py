"""``torch.distributions.Binomial``: ``Binomial(total_count=1, probs=None, logits=None)``."""

from .._api import ops as J
from ..autograd.grad_mode import no_grad
from . import constraints
from ._samplers import binomial as _binomial
from .distribution import _EMPTY, Distribution
from .utils import _BinaryParams

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2, as PyTorch's.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryParams, Distribution):
    """``Binomial(total_count=1, probs=None, logits=None, validate_args=None)``: samples
    are ``torch.binomial`` draws (PyTorch's values for the same seed, see ``_samplers``)."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_count_and_param(total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(
            Binomial, batch_shape, _instance, ("total_count", "probs", "logits")
        )

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = J.lgamma(self.total_count + 1)
        log_factorial_k = J.lgamma(value + 1)
        log_factorial_nmk = J.lgamma(self.total_count - value + 1)
        # n * log(1 + exp(logits)) written so that large |logits| stay finite.
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * J.log1p(J.exp(-J.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max())
        if not total_count == self.total_count.min():
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(J.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = J.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
