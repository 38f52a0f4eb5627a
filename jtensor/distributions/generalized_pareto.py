"""``torch.distributions.GeneralizedPareto``: location, scale and shape (``concentration``),
the exponential distribution at ``concentration = 0``."""

import math
from numbers import Real

from .._api import ops as J
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """``GeneralizedPareto(loc, scale, concentration, validate_args=None)``: ``rsample``
    inverts the CDF at ``torch.rand`` draws. A concentration close to 0 (``isclose``) takes
    the exponential limit of each formula."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        batch_shape = _batch_shape_of((loc, scale, concentration), self.loc)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(
            GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration")
        )

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        u = J.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _safe_concentration(self, like_pytorch_scores=False):
        # (is the concentration 0, a concentration safe to divide by). PyTorch's log_prob
        # and survival function compare with a float32 zero, so for other dtypes they raise
        # isclose's dtype error: so do they here.
        zero = J.tensor(0.0) if like_pytorch_scores else J.zeros_like(self.concentration)
        eq_zero = J.isclose(self.concentration, zero)
        safe = J.where(eq_zero, J.ones_like(self.concentration), self.concentration)
        return eq_zero, safe

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(like_pytorch_scores=True)
        y = 1 / safe_conc + J.ones_like(z)
        where_nonzero = J.where(y == 0, y, y * J.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - J.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(like_pytorch_scores=True)
        where_nonzero = -J.log1p(safe_conc * z) / safe_conc
        return J.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return J.log1p(-J.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return J.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe_concentration()
        logu = J.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * J.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return J.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = J.where(valid, self.concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return J.where(valid, result, math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = J.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return J.where(valid, result, math.nan)

    def entropy(self):
        ans = J.log(self.scale) + self.concentration + 1
        return J.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = J.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
