"""Transposed convolution layers: ``ConvTranspose1d``, ``ConvTranspose2d`` and
``ConvTranspose3d`` (PyTorch's parameters, init, repr and ``output_size``)."""

from ..._api import ops as J
from ..._errors import TensorValueError
from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from ..parameter import Parameter
from .conv import _ConvNd, _ntuple

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise TensorValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        if groups > 0 and in_channels % groups != 0:
            raise TensorValueError("in_channels must be divisible by groups")
        if groups > 0 and out_channels % groups != 0:
            raise TensorValueError("out_channels must be divisible by groups")
        # The weight is (in_channels, out_channels / groups, *kernel): _ConvNd's with the
        # channel counts swapped (same fan-in, as PyTorch's); the bias is out_channels long,
        # so the draws wait until it is (``_ready``).
        super().__init__(
            out_channels,
            in_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        if bias:
            self.bias = Parameter(J.empty(out_channels, **self._factory(device, dtype)))
        self._ready = True
        self.reset_parameters()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.transposed = True
        self.output_padding = _ntuple(output_padding, self._nd)

    _ready = False

    @staticmethod
    def _factory(device, dtype):
        return {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}

    def reset_parameters(self):
        """PyTorch's init (kaiming-uniform weight, uniform bias from the weight's fan-in)."""
        if self._ready:
            super().reset_parameters()

    def _output_padding(
        self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None
    ):
        if output_size is None:
            return tuple(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise TensorValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got "
                f"{len(output_size)})"
            )
        min_sizes = [
            (input.size(d + non_spatial) - 1) * stride[d]
            - 2 * padding[d]
            + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
            + 1
            for d in range(num_spatial_dims)
        ]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride, strict=True)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes, strict=True):
            if size < lo or size > hi:
                raise TensorValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return tuple(s - m for s, m in zip(output_size, min_sizes, strict=True))

    def forward(self, input, output_size=None):
        """The transposed convolution; ``output_size`` picks the output padding."""
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, self._nd, self.dilation
        )
        conv = (_F.conv_transpose1d, _F.conv_transpose2d, _F.conv_transpose3d)[self._nd - 1]
        return conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution layer, as ``torch.nn.ConvTranspose2d``: weight
    ``(in_channels, out_channels/groups, kh, kw)``, bias ``(out_channels,)``, PyTorch's init.

    >>> import jtensor as torch
    >>> up = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> up(torch.zeros(1, 4, 5, 5)).shape
    torch.Size([1, 2, 10, 10])
    """

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution layer, as ``torch.nn.ConvTranspose3d``: weight
    ``(in_channels, out_channels/groups, kd, kh, kw)``, bias ``(out_channels,)``.

    >>> import jtensor as torch
    >>> torch.nn.ConvTranspose3d(4, 2, 2, stride=2)(torch.zeros(1, 4, 3, 3, 3)).shape
    torch.Size([1, 2, 6, 6, 6])
    """

    _nd = 3


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution layer, as ``torch.nn.ConvTranspose1d`` (weight
    ``(in_channels, out_channels/groups, k)``).

    >>> import jtensor as torch
    >>> torch.nn.ConvTranspose1d(4, 2, 3, stride=2)(torch.zeros(1, 4, 5)).shape
    torch.Size([1, 2, 11])
    """

    _nd = 1
