"""``torch.distributions.HalfCauchy``: ``|Cauchy(0, scale)|``."""

import math

from .._api import ops as J
from . import constraints
from .cauchy import Cauchy
from .half_normal import _HalfSymmetric
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfSymmetric):
    """``HalfCauchy(scale, validate_args=None)``: the absolute value of ``Cauchy(0, scale)``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _cast_value = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return J.full(
            self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def mode(self):
        return J.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance
