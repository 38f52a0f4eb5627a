"""``torch.distributions.Normal``: ``Normal(loc, scale)``, reparameterisable."""

import math
from numbers import Number

from ..autograd.grad_mode import no_grad
from .._errors import TensorValueError
from .._ops.creation import empty, tensor
from .._ops.random_ops import normal
from .._ops.views import broadcast_tensors
from .._size import Size
from .._tensor import Tensor
from .distribution import _EMPTY, Distribution

__all__ = ["Normal"]


def _broadcast_all(*values):
    """Numbers become tensors of the dtype of the tensor arguments (default dtype: float)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else None
    as_tensors = [v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype) for v in values]
    return broadcast_tensors(*as_tensors)


class Normal(Distribution):
    """``Normal(loc, scale, validate_args=None)``: ``sample`` draws as ``torch.normal``,
    ``rsample`` is ``loc + eps * scale`` (gradients reach ``loc`` and ``scale``)."""

    arg_constraints = {"loc": "real", "scale": "positive"}
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and not bool((self.scale.detach() > 0).all()):
            raise TensorValueError(
                f"Expected parameter scale (Tensor of shape {tuple(self.scale.shape)}) of "
                f"distribution {self!r} to satisfy the constraint GreaterThan(lower_bound=0.0), "
                f"but found invalid values:\n{self.scale}"
            )

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, Number) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
