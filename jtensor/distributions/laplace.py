"""``torch.distributions.Laplace``: ``Laplace(loc, scale)``, reparameterisable."""

from .._api import ops as J
from .._dtypes import finfo
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """``Laplace(loc, scale, validate_args=None)``: ``rsample`` inverts the CDF at
    ``uniform_(eps - 1, 1)`` draws (PyTorch's draws)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = _batch_shape_of((loc, scale), self.loc)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        # (eps - 1, 1) keeps log1p(-|u|) finite.
        u = J.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * J.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -J.log(2 * self.scale) - J.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * J.expm1(
            -(value - self.loc).abs() / self.scale
        )

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * (term).sign() * J.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + J.log(2 * self.scale)
