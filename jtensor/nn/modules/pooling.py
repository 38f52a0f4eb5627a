"""Pooling layers: ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``."""

from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from .module import Module

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AvgPool1d", "AvgPool2d",
           "AvgPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d"]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling layer, as ``torch.nn.MaxPool2d`` (``stride`` defaults to
    ``kernel_size``; ``return_indices=True`` also returns the argmax indices).

    >>> import jtensor as torch
    >>> torch.nn.MaxPool2d(2)(torch.randn(1, 3, 8, 8)).shape
    torch.Size([1, 3, 4, 4])
    """

    def forward(self, input):
        from ..functional import max_pool2d

        return max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling layer, as ``torch.nn.MaxPool3d`` (the options of ``MaxPool2d``).

    >>> import jtensor as torch
    >>> torch.nn.MaxPool3d(2)(torch.randn(1, 3, 4, 8, 8)).shape
    torch.Size([1, 3, 2, 4, 4])
    """

    def forward(self, input):
        from ..functional import max_pool3d

        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling layer, as ``torch.nn.MaxPool1d``."""

    def forward(self, input):
        from ..functional import max_pool1d

        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AvgPoolKd(_AvgPoolNd):
    """The 2-d and 3-d average pooling layers (``_function`` is the functional)."""

    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(_F, type(self)._function)(input, self.kernel_size, self.stride, self.padding,
                                    self.ceil_mode, self.count_include_pad,
                                    self.divisor_override)


class AvgPool2d(_AvgPoolKd):
    """2-d average pooling layer, as ``torch.nn.AvgPool2d`` (``count_include_pad``,
    ``divisor_override``, ``ceil_mode``).

    >>> import jtensor as torch
    >>> torch.nn.AvgPool2d(2)(torch.ones(1, 1, 4, 4)).shape
    torch.Size([1, 1, 2, 2])
    """

    _function = "avg_pool2d"   # (_F.avg_pool2d, looked up per call)


class AvgPool3d(_AvgPoolKd):
    """3-d average pooling layer, as ``torch.nn.AvgPool3d`` (the options of ``AvgPool2d``).

    >>> import jtensor as torch
    >>> torch.nn.AvgPool3d(2)(torch.ones(1, 1, 4, 4, 4)).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    _function = "avg_pool3d"   # (_F.avg_pool3d, looked up per call)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive 2-d average pooling to ``output_size``, as ``torch.nn.AdaptiveAvgPool2d``.

    >>> import jtensor as torch
    >>> torch.nn.AdaptiveAvgPool2d((1, 1))(torch.ones(2, 3, 5, 5)).shape
    torch.Size([2, 3, 1, 1])
    """

    def forward(self, input):
        from ..functional import adaptive_avg_pool2d

        return adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive 3-d average pooling to ``output_size``, as ``torch.nn.AdaptiveAvgPool3d``.

    >>> import jtensor as torch
    >>> torch.nn.AdaptiveAvgPool3d((1, None, 2))(torch.ones(2, 3, 5, 5, 5)).shape
    torch.Size([2, 3, 1, 5, 2])
    """

    def forward(self, input):
        return _F.adaptive_avg_pool3d(input, self.output_size)


def _single(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling layer, as ``torch.nn.AvgPool1d``.

    >>> import jtensor as torch
    >>> torch.nn.AvgPool1d(3)(torch.ones(1, 2, 9)).shape
    torch.Size([1, 2, 3])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if (stride is not None) else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        from ..functional import avg_pool1d

        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive 1-d average pooling to ``output_size``, as ``torch.nn.AdaptiveAvgPool1d``.

    >>> import jtensor as torch
    >>> torch.nn.AdaptiveAvgPool1d(4)(torch.ones(1, 2, 9)).shape
    torch.Size([1, 2, 4])
    """

    def forward(self, input):
        from ..functional import adaptive_avg_pool1d

        return adaptive_avg_pool1d(input, self.output_size)
