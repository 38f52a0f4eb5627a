"""``LayerNorm``, ``GroupNorm``, ``RMSNorm``."""

import numbers

from ..._errors import TensorValueError
from ..._ops.creation import empty
from .. import init
from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from ..parameter import Parameter
from ._params import _register_affine, _reset_affine
from .module import Module

__all__ = ["GroupNorm", "LayerNorm", "RMSNorm"]


def _as_shape(normalized_shape):
    """``normalized_shape`` as a tuple (an int is one dimension)."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims, then (with
    ``elementwise_affine``) scale by ``weight`` (ones) and shift by ``bias`` (zeros).

    >>> import jtensor as torch
    >>> torch.nn.LayerNorm(10)
    LayerNorm((10,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, elementwise_affine, bias, self.normalized_shape, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """``weight`` to ones, ``bias`` to zeros."""
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return _F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize ``(N, C, *)`` over ``num_groups`` groups of channels; per-channel affine
    ``weight`` (ones) and ``bias`` (zeros).

    >>> import jtensor as torch
    >>> torch.nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise TensorValueError(f"num_channels ({num_channels}) must be divisible by "
                                   f"num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, affine, bias, num_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """``weight`` to ones, ``bias`` to zeros."""
        _reset_affine(self, self.affine)

    def forward(self, input):
        return _F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the trailing ``normalized_shape`` dims
    (``eps=None``: the dtype's machine epsilon).

    >>> import jtensor as torch
    >>> torch.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """``weight`` to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return _F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
