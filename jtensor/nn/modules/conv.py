"""Convolution layers: ``Conv1d``, ``Conv2d`` and ``Conv3d`` (PyTorch's parameters, init and
repr)."""

import math

from ..._api import ops as J
from ..._errors import TensorValueError
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise TensorValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise TensorValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise TensorValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise TensorValueError(f"Invalid padding string {padding!r}, should be one of "
                                       f"{{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, nd)):
                raise TensorValueError(
                    "padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise TensorValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                                   f"padding_mode={padding_mode!r}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride = _ntuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        self.dilation = _ntuple(dilation, nd)
        self.transposed = False
        self.output_padding = (0,) * nd
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            pads = [0, 0] * nd
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size,
                                   range(nd - 1, -1, -1), strict=True):
                    total = d * (k - 1)
                    left = total // 2
                    pads[2 * i] = left
                    pads[2 * i + 1] = total - left
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = tuple(
                p for p in reversed(self.padding) for _ in range(2))
        kw = {"dtype": dtype} if dtype is not None else {}
        if device is not None:
            kw["device"] = device
        self.weight = Parameter(J.empty((out_channels, in_channels // groups)
                                        + self.kernel_size, **kw))
        if bias:
            self.bias = Parameter(J.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's init: ``kaiming_uniform_(a=sqrt(5))`` for the weight (bound
        ``1/sqrt(fan_in)``) and ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` for the bias."""
        fan_in = self.weight._shape[1] * math.prod(self.weight._shape[2:])
        gain = math.sqrt(2.0 / (1 + 5))
        bound = gain * math.sqrt(3.0 / fan_in) if fan_in else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                b = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                self.bias.uniform_(-b, b)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias):
        from ..functional import conv1d, conv2d, conv3d, pad

        conv = (conv1d, conv2d, conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            return conv(pad(input, self._reversed_padding_repeated_twice,
                            mode=self.padding_mode),
                        weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-d convolution layer, as ``torch.nn.Conv2d``: weight ``(out_channels,
    in_channels/groups, kh, kw)`` and bias ``(out_channels,)`` drawn from
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``; ``padding`` an int, a pair, ``'same'`` or
    ``'valid'``; ``padding_mode`` ``'zeros'``, ``'reflect'``, ``'replicate'`` or
    ``'circular'``.

    >>> import jtensor as torch
    >>> torch.nn.Conv2d(3, 8, 3, padding=1)(torch.randn(2, 3, 5, 5)).shape
    torch.Size([2, 8, 5, 5])
    """

    _nd = 2


class Conv3d(_ConvNd):
    """3-d convolution layer, as ``torch.nn.Conv3d``: weight ``(out_channels,
    in_channels/groups, kd, kh, kw)``, bias ``(out_channels,)``, the options of ``Conv2d``.

    >>> import jtensor as torch
    >>> torch.nn.Conv3d(2, 4, 3, padding=1)(torch.randn(1, 2, 4, 5, 5)).shape
    torch.Size([1, 4, 4, 5, 5])
    """

    _nd = 3


class Conv1d(_ConvNd):
    """1-d convolution layer, as ``torch.nn.Conv1d`` (weight ``(out, in/groups, k)``).

    >>> import jtensor as torch
    >>> torch.nn.Conv1d(3, 8, 3)(torch.randn(2, 3, 10)).shape
    torch.Size([2, 8, 8])
    """

    _nd = 1
