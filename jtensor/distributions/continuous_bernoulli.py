"""``torch.distributions.ContinuousBernoulli``: the continuous relaxation of a Bernoulli on
[0, 1] (Loaiza-Ganem and Cunningham, 2019), density ``C(p) p^x (1-p)^(1-x)``."""

import math
from numbers import Number

from .._api import ops as J
from .._errors import TensorValueError
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from . import constraints
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import (
    _BinaryParams,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_BinaryParams, ExponentialFamily):
    """``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501),
    validate_args=None)``: near ``p = 0.5`` (inside ``lims``) the closed forms are unstable
    and Taylor expansions are used, as PyTorch does. ``rsample`` inverts the CDF at
    ``torch.rand`` draws."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise TensorValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            # PyTorch checks here (only when validate_args is given), then clamps.
            if validate_args is not None and not bool(
                self.arg_constraints["probs"].check(self.probs).all()
            ):
                raise TensorValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        batch_shape = () if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return J.max(J.le(self.probs, self._lims[0]), J.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return J.where(
            self._outside_unstable_region(), self.probs, self._lims[0] * J.ones_like(self.probs)
        )

    def _cont_bern_log_norm(self):
        """The log normalising constant ``log C(p)``."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = J.where(J.le(cut_probs, 0.5), cut_probs, J.zeros_like(cut_probs))
        cut_probs_above_half = J.where(J.ge(cut_probs, 0.5), cut_probs, J.ones_like(cut_probs))
        log_norm = J.log(J.abs(J.log1p(-cut_probs) - J.log(cut_probs))) - J.where(
            J.le(cut_probs, 0.5),
            J.log1p(-2.0 * cut_probs_below_half),
            J.log(2.0 * cut_probs_above_half - 1.0),
        )
        x = J.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return J.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (J.log1p(-cut_probs) - J.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * J.pow(x, 2)) * x
        return J.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return J.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / J.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / J.pow(
            J.log1p(-cut_probs) - J.log(cut_probs), 2
        )
        x = J.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return J.where(self._outside_unstable_region(), variances, taylor)

    def sample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        u = J.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        u = J.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (
            -F.binary_cross_entropy_with_logits(logits, value, reduction="none")
            + self._cont_bern_log_norm()
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (J.pow(cut_probs, value) * J.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0) / (
            2.0 * cut_probs - 1.0
        )
        unbounded_cdfs = J.where(self._outside_unstable_region(), cdfs, value)
        return J.where(
            J.le(value, 0.0),
            J.zeros_like(value),
            J.where(J.ge(value, 1.0), J.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return J.where(
            self._outside_unstable_region(),
            (J.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - J.log1p(-cut_probs))
            / (J.log(cut_probs) - J.log1p(-cut_probs)),
            value,
        )

    def entropy(self):
        log_probs0 = J.log1p(-self.probs)
        log_probs1 = J.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalising constant as a function of the natural parameter."""
        out_unst_reg = J.max(J.le(x, self._lims[0] - 0.5), J.gt(x, self._lims[1] - 0.5))
        cut_nat_params = J.where(out_unst_reg, x, (self._lims[0] - 0.5) * J.ones_like(x))
        log_norm = J.log(J.abs(J.expm1(cut_nat_params))) - J.log(J.abs(cut_nat_params))
        taylor = 0.5 * x + J.pow(x, 2) / 24.0 - J.pow(x, 4) / 2880.0
        return J.where(out_unst_reg, log_norm, taylor)
