"""``torch.distributions.Categorical``: a distribution over ``0 .. K-1`` per batch entry."""

import math

from .._dtypes import finfo
from .._errors import TensorValueError
from .._ops.creation import full
from .._ops.random_ops import multinomial
from .._ops.views import broadcast_tensors
from .._size import Size
from .distribution import _EMPTY, Distribution

__all__ = ["Categorical"]


class Categorical(Distribution):
    """``Categorical(probs=None, logits=None, validate_args=None)``: exactly one of them;
    ``probs`` are normalised along the last dimension, ``logits`` shifted by their
    ``logsumexp``. Samples are int64 class indices drawn as ``torch.multinomial`` draws."""

    arg_constraints = {"probs": "simplex", "logits": "real_vector"}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise TensorValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise TensorValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise TensorValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            p = self.probs.detach()
            if bool((p < 0).any()) or not bool(((p.sum(-1) - 1).abs() < 1e-6).all()):
                raise TensorValueError(
                    "Expected parameter probs (Tensor of shape "
                    f"{tuple(self.probs.shape)}) of distribution {self!r} to satisfy the "
                    "constraint Simplex(), but found invalid values"
                )

    def __getattr__(self, name):
        # PyTorch's lazy properties: the parameter not given is computed on first use.
        if name == "logits":
            eps = finfo(self.probs.dtype).eps
            value = self.probs.clamp(min=eps, max=1 - eps).log()
        elif name == "probs":
            value = self.logits.softmax(-1)
        else:
            raise AttributeError(f"'Categorical' object has no attribute {name!r}")
        self.__dict__[name] = value
        return value

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def variance(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    def sample(self, sample_shape=_EMPTY):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            v = value.detach()
            if (
                bool((v < 0).any())
                or bool((v >= self._num_events).any())
                or bool((v != v.floor()).any())
            ):
                raise TensorValueError(
                    f"Expected value argument ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) to be within the support "
                    f"(IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})) of "
                    f"the distribution {self!r}, but found invalid values:\n{value}"
                )
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = finfo(self.logits.dtype).min
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)
