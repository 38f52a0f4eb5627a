"""``torch.distributions.utils``: parameter broadcasting, logits/probs conversions and the
lazily computed attribute that lets a distribution take either ``probs`` or ``logits``."""

from functools import update_wrapper
from numbers import Number

from .._api import ops as J
from .._dtypes import finfo, get_default_dtype
from .._errors import TensorValueError
from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant


def broadcast_all(*values):
    """Tensors broadcast together; numbers become tensors of the first tensor's dtype and
    device (the default dtype when there is none), as PyTorch's distributions do."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise TensorValueError(
            "Input arguments must all be instances of numbers.Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        options = {"dtype": get_default_dtype()} if like is None else \
            {"dtype": like.dtype, "device": like.device}
        values = [v if isinstance(v, Tensor) else J.tensor(v, **options) for v in values]
    return J.broadcast_tensors(*values)


def _batch_shape_of(given, param):
    """The batch shape of a distribution made from the ``given`` arguments: ``Size()`` when
    they are all numbers, else the shape of the broadcast parameter ``param``."""
    if all(isinstance(v, Number) for v in given):
        return Size()
    return param.size()


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape`` (``normal_`` into a fresh tensor: PyTorch's draws)."""
    return J.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    required_shape = value.shape[: value.dim() - dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: ``sigmoid`` for a binary variable, else ``softmax(-1)``."""
    if is_binary:
        return J.sigmoid(logits)
    return J.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped into ``[eps, 1 - eps]`` (eps of its dtype), so logs stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): ``log p - log1p(-p)`` for a binary
    variable, else ``log p``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return J.log(ps_clamped) - J.log1p(-ps_clamped)
    return J.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance (so a
    distribution made from ``probs`` computes ``logits`` only when asked); gradients are
    recorded while it is computed, even under ``no_grad`` callers."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a ``lazy_property`` reads as on the class: also a ``property`` (for documentation
    tools and ``isinstance`` checks)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (from diagonal ``diag``) of the last two dimensions, row by row, as
    a vector."""
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise TensorValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = J.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a lower-triangular matrix from its entries."""
    n = (
        -(1 + 2 * diag)
        + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5
    ) / 2
    eps = finfo(vec.dtype).eps
    if not abs(round(n) - n) < eps:
        raise TensorValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    arange = J.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat


class _BinaryParams:
    """Mixin of the distributions of a binary variable made from exactly one of ``probs``
    and ``logits``: the other one is computed lazily."""

    def _set_probs_or_logits(self, probs, logits):
        """Store the given parameter (a broadcast tensor) as ``probs`` or ``logits`` and
        ``_param``; return the batch shape (``Size()`` for a number)."""
        if (probs is None) == (logits is None):
            raise TensorValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        setattr(self, "probs" if probs is not None else "logits", param)
        self._param = param
        return _batch_shape_of((given,), param)

    def _set_count_and_param(self, total_count, probs, logits):
        """``_set_probs_or_logits`` for the count distributions: ``total_count`` broadcast
        with the parameter and given its dtype."""
        if (probs is None) == (logits is None):
            raise TensorValueError("Either `probs` or `logits` must be specified, but not both.")
        name = "probs" if probs is not None else "logits"
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        setattr(self, name, param)
        self._param = param
        return param.size()

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class _RelaxedParams:
    """Mixin of the relaxed distributions built on a base distribution: their parameters
    are the base's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
