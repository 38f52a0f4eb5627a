"""``torch.distributions.ExponentialFamily``: densities ``h(x) exp(<t(x), theta> - F(theta))``.

Subclasses give their natural parameters ``theta`` (``_natural_params``) and log-normaliser
``F`` (``_log_normalizer``); the entropy and the KL divergence between two members of the
same family then follow from the Bregman divergence of ``F``, with ``F``'s gradient taken by
autograd (as PyTorch does)."""

from ..autograd import grad as _grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of the exponential-family distributions (Normal, Gamma, Beta, Bernoulli, ...)."""

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log-normaliser ``F`` as a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """The expectation of the log carrier measure ``log h(x)``."""
        raise NotImplementedError

    def entropy(self):
        """The entropy from the Bregman divergence of the log-normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = _grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients, strict=True):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
