"""``AdaptiveMaxPool1d/2d``, ``LPPool1d/2d``, ``MaxUnpool1d/2d``, ``Fold`` and ``Unfold``
with PyTorch's attributes and reprs."""

from .._functional import pooling_more as F
from .module import Module

__all__ = [
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "LPPool1d",
    "LPPool2d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "Fold",
    "Unfold",
]


class _AdaptiveMaxPoolNd(Module):
    _function = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._function(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The maximum over adaptive windows of a ``(N, C, L)`` input (``output_size`` L')."""

    _function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The maximum over adaptive windows of a ``(N, C, H, W)`` input (``None`` in
    ``output_size`` keeps that input size)."""

    _function = staticmethod(F.adaptive_max_pool2d)


class _LPPoolNd(Module):
    _function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._function(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling ``(sum x**p) ** (1/p)`` over windows of a 1-d signal."""

    _function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling ``(sum x**p) ** (1/p)`` over windows of an image."""

    _function = staticmethod(F.lp_pool2d)


def _tuple(value, n):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


class _MaxUnpoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._n)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _tuple(padding, self._n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d`` (called with its indices)."""

    _n = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d`` (called with its indices)."""

    _n = 2

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class Fold(Module):
    """``F.fold``: sum sliding blocks into an image of ``output_size``."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """``F.unfold``: extract sliding blocks as columns."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )
