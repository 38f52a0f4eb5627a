"""``torch.distributions.RelaxedOneHotCategorical`` (and ``ExpRelaxedCategorical``): the
Concrete / Gumbel-softmax relaxation of a one-hot categorical, reparameterisable."""

from .._api import ops as J
from .._size import Size
from . import constraints
from .categorical import Categorical
from .distribution import _EMPTY, Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import _RelaxedParams, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """``ExpRelaxedCategorical(temperature, probs=None, logits=None)``: the log of a
    ``RelaxedOneHotCategorical`` sample, ``log_softmax((logits + Gumbel) / temperature)``
    with Gumbel noise from ``torch.rand``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(
            batch_shape, self.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(J.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        log_scale = J.full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(
            -(K - 1)
        )
        score = self.logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_RelaxedParams, TransformedDistribution):
    """``RelaxedOneHotCategorical(temperature, probs=None, logits=None,
    validate_args=None)``: points of the simplex that approach one-hot draws as
    ``temperature`` goes to 0 (the Gumbel-softmax trick)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)
