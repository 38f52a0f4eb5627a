"""``pixel_shuffle`` and ``pixel_unshuffle`` (``jtensor.nn.functional``, also
``jtensor.pixel_shuffle``/``jtensor.pixel_unshuffle`` as in PyTorch).

``pixel_shuffle`` rearranges ``(*, C * r * r, H, W)`` into ``(*, C, H * r, W * r)``;
``pixel_unshuffle`` is its inverse. Each is one ``autograd.Function`` whose node has
PyTorch's name (``PixelShuffleBackward0``/``PixelUnshuffleBackward0``) and whose backward is
the other one (so it is differentiable to any order). The result is a new tensor,
contiguous or (for a channels_last 4-d input) channels_last, as PyTorch's CPU kernel returns.
"""

import operator

from ..._errors import TensorRuntimeError, TensorTypeError, type_name
from ..._layout import suggest_memory_format
from ..._tensor import as_fresh, channels_last
from ...autograd.function import Function
from ._op import nn_op

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _check_factor(name, what, factor):
    if isinstance(factor, bool) or not hasattr(factor, "__index__"):
        raise TensorTypeError(
            f"{name}(): argument '{what}' (position 2) must be int, not {type_name(factor)}"
        )
    factor = operator.index(factor)
    if factor <= 0:
        raise TensorRuntimeError(f"{name} expects a positive {what}, but got {factor}")
    return factor


def _check_dims(name, input):
    if input.dim() < 3:
        raise TensorRuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got "
            f"input with {input.dim()} dimension(s)"
        )


def _shuffle(x, r):
    """``(*, C*r*r, H, W) -> (*, C, H*r, W*r)`` (a contiguous copy)."""
    *lead, c, h, w = tuple(x.shape)
    oc = c // (r * r)
    n = len(lead)
    y = x.reshape(*lead, oc, r, r, h, w)
    y = y.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return y.contiguous().view(*lead, oc, h * r, w * r)


def _unshuffle(x, r):
    """``(*, C, H*r, W*r) -> (*, C*r*r, H, W)`` (a contiguous copy; an empty input comes
    back as a copy of its own shape, as PyTorch's kernel returns it)."""
    if x.numel() == 0:
        return x.clone()
    *lead, c, h, w = tuple(x.shape)
    oh, ow = h // r, w // r
    n = len(lead)
    y = x.reshape(*lead, c, oh, r, ow, r)
    y = y.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return y.contiguous().view(*lead, c * r * r, oh, ow)


def _rearrange(node_name, kernel):
    """A Function running ``kernel(input, r)`` whose backward is its ``inverse`` Function
    (set below), so it is differentiable to any order."""

    def forward(ctx, input, r):
        ctx.r, ctx.shape = r, tuple(input.shape)
        out = kernel(input, r)
        if (
            input.dim() == 4
            and out.numel()
            and suggest_memory_format(input._shape, input._stride) == "channels_last"
        ):
            # PyTorch's kernel writes the input's memory format
            out = out.contiguous(memory_format=channels_last)
        return as_fresh(out)

    def backward(ctx, grad):
        if grad.numel() == 0:
            return grad.new_zeros(ctx.shape), None
        return cls.inverse.apply(grad, ctx.r), None

    cls = type(
        node_name,
        (Function,),
        {
            "_node_name": node_name,
            "forward": staticmethod(forward),
            "backward": staticmethod(backward),
        },
    )
    return cls


_PixelShuffle = _rearrange("PixelShuffleBackward0", _shuffle)
_PixelUnshuffle = _rearrange("PixelUnshuffleBackward0", _unshuffle)
_PixelShuffle.inverse, _PixelUnshuffle.inverse = _PixelUnshuffle, _PixelShuffle


@nn_op(function=True)
def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C * r^2, H, W)`` into ``(*, C, H * r, W * r)`` (``r =
    upscale_factor``), the sub-pixel convolution step of super-resolution networks.

    >>> import jtensor as torch
    >>> torch.nn.functional.pixel_shuffle(torch.zeros(1, 8, 3, 3), 2).shape
    torch.Size([1, 2, 6, 6])
    """
    r = _check_factor("pixel_shuffle", "upscale_factor", upscale_factor)
    _check_dims("pixel_shuffle", input)
    c = input.shape[-3]
    if c % (r * r):
        raise TensorRuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return _PixelShuffle.apply(input, r)


@nn_op(function=True)
def pixel_unshuffle(input, downscale_factor):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r^2, H, W)`` (``r =
    downscale_factor``): the inverse of ``pixel_shuffle``.

    >>> import jtensor as torch
    >>> torch.nn.functional.pixel_unshuffle(torch.zeros(1, 2, 6, 6), 2).shape
    torch.Size([1, 8, 3, 3])
    """
    r = _check_factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    _check_dims("pixel_unshuffle", input)
    h, w = input.shape[-2], input.shape[-1]
    if h % r:
        raise TensorRuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise TensorRuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    return _PixelUnshuffle.apply(input, r)
