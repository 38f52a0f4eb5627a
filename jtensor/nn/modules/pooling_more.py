"""``AdaptiveMaxPool1d/2d/3d``, ``FractionalMaxPool2d/3d``, ``LPPool1d/2d/3d``,
``MaxUnpool1d/2d/3d``, ``Fold`` and ``Unfold`` with PyTorch's attributes and reprs."""

from .. import functional as F  # (looked up per call: a patched F.<name> is seen)
from ..._errors import TensorValueError
from .module import Module

__all__ = [
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
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
        return getattr(F, type(self)._function)(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The maximum over adaptive windows of a ``(N, C, L)`` input (``output_size`` L')."""

    _function = "adaptive_max_pool1d"   # (F.adaptive_max_pool1d, looked up per call)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The maximum over adaptive windows of a ``(N, C, H, W)`` input (``None`` in
    ``output_size`` keeps that input size)."""

    _function = "adaptive_max_pool2d"   # (F.adaptive_max_pool2d, looked up per call)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """The maximum over adaptive windows of a ``(N, C, D, H, W)`` input, as
    ``torch.nn.AdaptiveMaxPool3d``.

    >>> import jtensor as torch
    >>> torch.nn.AdaptiveMaxPool3d((2, None, 1))(torch.ones(1, 2, 5, 4, 3)).shape
    torch.Size([1, 2, 2, 4, 1])
    """

    _function = "adaptive_max_pool3d"   # (F.adaptive_max_pool3d, looked up per call)


class _LPPoolNd(Module):
    _function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, type(self)._function)(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling ``(sum x**p) ** (1/p)`` over windows of a 1-d signal."""

    _function = "lp_pool1d"   # (F.lp_pool1d, looked up per call)


class LPPool2d(_LPPoolNd):
    """Power-average pooling ``(sum x**p) ** (1/p)`` over windows of an image."""

    _function = "lp_pool2d"   # (F.lp_pool2d, looked up per call)


class LPPool3d(_LPPoolNd):
    """Power-average pooling ``(sum x**p) ** (1/p)`` over windows of a volume, as
    ``torch.nn.LPPool3d``.

    >>> import jtensor as torch
    >>> torch.nn.LPPool3d(2, 2)(torch.ones(1, 1, 2, 2, 2))
    tensor([[[[[2.8284]]]]])
    """

    _function = "lp_pool3d"   # (F.lp_pool3d, looked up per call)


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


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d`` (called with its indices), as
    ``torch.nn.MaxUnpool3d``.

    >>> import jtensor as torch
    >>> x = torch.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> out, idx = torch.nn.MaxPool3d(2, return_indices=True)(x)
    >>> torch.nn.MaxUnpool3d(2)(out, idx).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    _n = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class _FractionalMaxPoolNd(Module):
    """PyTorch's checks and attributes of the fractional max pooling layers."""

    _n = 0
    _function = None

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        super().__init__()
        n, name = self._n, type(self).__name__
        sizes = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,)
        if not all(k > 0 for k in sizes):
            raise TensorValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, n) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise TensorValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise TensorValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:n]):
            raise TensorValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return getattr(F, type(self)._function)(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, H, W)`` inputs, as ``torch.nn.FractionalMaxPool2d``
    (``output_size`` or ``output_ratio``; fresh random steps each call unless
    ``_random_samples`` is given).

    >>> import jtensor as torch
    >>> torch.nn.FractionalMaxPool2d(3, output_ratio=0.5)(torch.randn(1, 2, 10, 12)).shape
    torch.Size([1, 2, 5, 6])
    """

    _n = 2
    _function = "fractional_max_pool2d"   # (F.fractional_max_pool2d, looked up per call)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, T, H, W)`` inputs, as
    ``torch.nn.FractionalMaxPool3d``.

    >>> import jtensor as torch
    >>> torch.nn.FractionalMaxPool3d(2, output_size=3)(torch.randn(1, 2, 6, 6, 6)).shape
    torch.Size([1, 2, 3, 3, 3])
    """

    _n = 3
    _function = "fractional_max_pool3d"   # (F.fractional_max_pool3d, looked up per call)


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
