"""``torch.distributions.Distribution``: shapes, validation switch, ``repr``."""

from .._size import Size
from .._tensor import Tensor

__all__ = ["Distribution"]

_EMPTY = Size()  # the default sample_shape


class Distribution:
    """The base class: ``batch_shape`` and ``event_shape`` fixed at construction."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_EMPTY, event_shape=_EMPTY, validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=_EMPTY):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=_EMPTY):
        raise NotImplementedError

    def rsample(self, sample_shape=_EMPTY):
        raise NotImplementedError

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    @property
    def stddev(self):
        return self.variance.sqrt()

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for name in names:
            value = self.__dict__[name]
            shown = value if isinstance(value, Tensor) and value.numel() == 1 else value.size()
            parts.append(f"{name}: {shown}")
        return f"{type(self).__name__}({', '.join(parts)})"
