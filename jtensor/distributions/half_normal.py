"""``torch.distributions.HalfNormal``: ``|Normal(0, scale)|``."""

import math

from .._api import ops as J
from .._size import Size
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class _HalfSymmetric(TransformedDistribution):
    """The absolute value of a distribution symmetric about 0 (``base_dist``): twice its
    density on the non-negative reals."""

    _cast_value = False  # HalfCauchy casts the value to the scale's dtype; HalfNormal not

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        if self._cast_value:
            scale = self.base_dist.scale
            value = J.as_tensor(value, dtype=scale.dtype, device=scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return J.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_HalfSymmetric):
    """``HalfNormal(scale, validate_args=None)``: the absolute value of ``Normal(0, scale)``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return J.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
