"""``torch.distributions.Uniform``: ``Uniform(low, high)`` on ``[low, high)``."""

from .._api import ops as J
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """``Uniform(low, high, validate_args=None)``: ``rsample`` is ``low + rand * (high -
    low)`` with ``torch.rand``'s draws."""

    @property
    def arg_constraints(self):
        # Each bound is checked against the other one (low < high).
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    has_rsample = True

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = _batch_shape_of((low, high), self.low)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        rand = J.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return J.log(lb.mul(ub)) - J.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return J.log(self.high - self.low)
