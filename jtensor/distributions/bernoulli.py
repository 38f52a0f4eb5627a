"""``torch.distributions.Bernoulli``: ``Bernoulli(probs=None, logits=None)`` over {0, 1}."""

from .._api import ops as J
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from . import constraints
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import _BinaryParams, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_BinaryParams, ExponentialFamily):
    """``Bernoulli(probs=None, logits=None, validate_args=None)``: exactly one of them;
    samples are ``torch.bernoulli`` draws in the parameter's dtype."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return J.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = J.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (J.logit(self.probs),)

    def _log_normalizer(self, x):
        return J.log1p(J.exp(x))
