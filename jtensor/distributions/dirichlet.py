"""``torch.distributions.Dirichlet``: ``Dirichlet(concentration)`` on the simplex."""

from .._api import ops as J
from .._errors import TensorValueError
from ..nn import functional as F
from . import constraints
from ._samplers import _Dirichlet
from .distribution import _EMPTY
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """``Dirichlet(concentration, validate_args=None)``: event shape ``concentration.shape[-1:]``.
    ``rsample`` draws with PyTorch's sampler (normalised Marsaglia-Tsang gamma draws, the same
    values for the same seed) and has PyTorch's implicit reparameterisation gradient."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise TensorValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(
            Dirichlet, batch_shape, _instance, ("concentration",), self.event_shape
        )

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        return _Dirichlet.apply(concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            J.xlogy(self.concentration - 1.0, value).sum(-1)
            + J.lgamma(self.concentration.sum(-1))
            - J.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # All concentrations below 1: the mode is a vertex, the largest one's.
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = F.one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            J.lgamma(self.concentration).sum(-1)
            - J.lgamma(a0)
            - (k - a0) * J.digamma(a0)
            - ((self.concentration - 1.0) * J.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - J.lgamma(x.sum(-1))
