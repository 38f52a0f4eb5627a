"""``torch.distributions.Distribution``: shapes, argument validation, ``repr``."""

import warnings

from .._errors import TensorValueError
from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

_EMPTY = Size()  # the default sample_shape


class Distribution:
    """The base class of probability distributions: ``batch_shape`` and ``event_shape``
    fixed at construction; parameters checked against ``arg_constraints`` and values against
    ``support`` when validation is on (the default, as ``assert``: off under ``python -O``)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made without
        ``validate_args``."""
        if value not in [True, False]:
            raise TensorValueError(
                f"set_default_validate_args expects True or False, got {value!r}"
            )
        Distribution._validate_args = value

    def __init__(self, batch_shape=_EMPTY, event_shape=_EMPTY, validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    "Please set `arg_constraints = {}` or initialize the distribution "
                    "with `validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # it depends on other parameters: nothing static to check
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param), lazy_property
                ):
                    continue  # the parameter not given: computed from the other one
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise TensorValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}"
                    )

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch dimensions expanded to ``batch_shape`` (the
        parameters are expanded views; no checks are repeated)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement expand")

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from parameter names to the constraints they satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint the distribution's values satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape=_EMPTY):
        """Samples of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_EMPTY):
        """Reparameterised samples: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """``n`` samples (deprecated in PyTorch: use ``sample((n,))``)."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log of the density / mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution along dimension 0 (shape
        ``(cardinality,) + batch_shape + event_shape``; singleton batch dimensions without
        ``expand``)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=_EMPTY):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Check ``value``'s rightmost shape against the event and batch shapes and its
        entries against the support, with PyTorch's messages."""
        if not isinstance(value, Tensor):
            raise TensorValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise TensorValueError(
                "The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape), strict=False):
            if i != 1 and j != 1 and i != j:
                raise TensorValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                "sample validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise TensorValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _expand_params(self, cls, batch_shape, _instance, names, param_event_shape=()):
        """``expand`` for the common case: a new ``cls`` instance (or ``_instance``) holding
        the parameters ``names`` this one holds (lazily computed ones included), expanded to
        ``batch_shape + param_event_shape``, with this instance's validation setting."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        shape = batch_shape + tuple(param_event_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))
        if "_param" in self.__dict__:
            # The parameter the distribution was made from (logits win, as in PyTorch).
            new._param = new.__dict__.get("logits", new.__dict__.get("probs"))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in param_names:
            value = self.__dict__[p]
            parts.append(f"{p}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
