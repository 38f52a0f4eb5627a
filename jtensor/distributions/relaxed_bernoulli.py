"""``torch.distributions.RelaxedBernoulli`` (and ``LogitRelaxedBernoulli``): the
Concrete / Gumbel-softmax relaxation of a Bernoulli, reparameterisable."""

from .._api import ops as J
from . import constraints
from .distribution import _EMPTY, Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import _RelaxedParams, _BinaryParams, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_BinaryParams, Distribution):
    """``LogitRelaxedBernoulli(temperature, probs=None, logits=None)``: the logit of a
    ``RelaxedBernoulli`` sample: ``(logit(U) + logits) / temperature`` with ``U`` from
    ``torch.rand``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(
            LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits")
        )
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(J.rand(shape, dtype=probs.dtype, device=probs.device))
        return (
            uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()
        ) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(_RelaxedParams, TransformedDistribution):
    """``RelaxedBernoulli(temperature, probs=None, logits=None, validate_args=None)``:
    values in (0, 1) that approach Bernoulli draws as ``temperature`` goes to 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)
