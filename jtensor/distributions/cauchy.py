"""``torch.distributions.Cauchy``: ``Cauchy(loc, scale)``, reparameterisable."""

import math

from .._api import ops as J
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """``Cauchy(loc, scale, validate_args=None)``: ``rsample`` is ``loc + scale * eps``
    with ``cauchy_()`` draws (PyTorch's); the mean is undefined (NaN), the variance
    infinite."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = _batch_shape_of((loc, scale), self.loc)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return J.full(
            self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device
        )

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return J.full(
            self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device
        )

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = J.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return J.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return J.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
