"""More of ``jtensor.nn.functional``: instance_norm, local_response_norm, alpha_dropout,
feature_alpha_dropout, channel_shuffle (native_channel_shuffle).

Each is composed as PyTorch composes it, so values, running statistics, random draws and
graph nodes follow: ``instance_norm`` is ATen's batch norm of the input viewed as ``(1, N*C,
...)`` with the affine parameters and running statistics repeated ``N`` times (the running
statistics are then averaged back over the batch: ``ViewBackward0``); ``local_response_norm``
is PyTorch's average pooling of the squares across channels; the alpha dropouts draw their
mask with ``bernoulli_(1 - p)`` as ATen's ``_dropout_impl``.
"""

import math

from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorValueError
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ._op import nn_op
from .dropout import _check_p
from .normalization import batch_norm
from .padding import pad
from .pooling import avg_pool2d, avg_pool3d

__all__ = [
    "instance_norm",
    "local_response_norm",
    "alpha_dropout",
    "feature_alpha_dropout",
    "channel_shuffle",
    "native_channel_shuffle",
]


def _verify_spatial_size(shape):
    size = 1
    for s in shape[2:]:
        size *= s
    if size == 1:
        raise TensorValueError(
            f"Expected more than 1 spatial element when training, got input size "
            f"torch.Size({list(shape)})"
        )


def _repeat(t, times, dtype=None):
    if t is None:
        return None
    t = t.repeat(times)
    # the running statistics' working copies follow the input's precision (they are copied
    # back, cast, into the caller's buffers)
    return t if dtype is None else t.to(dtype)


@nn_op()
def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each channel of each sample over its spatial positions (``use_input_stats``)
    or with the running statistics; these (if given) are updated with the batch average of
    the per-sample statistics."""
    if use_input_stats:
        _verify_spatial_size(tuple(input.shape))
    if not use_input_stats and (running_mean is None or running_var is None):
        raise TensorRuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    if input.dim() < 2:
        raise TensorRuntimeError(
            f"instance_norm: expected an input of at least 2 dimensions (N, C, ...), got "
            f"{input.dim()}D input"
        )
    b, c = input.shape[0], input.shape[1]
    mean_ = _repeat(running_mean, b, input.dtype)
    var_ = _repeat(running_var, b, input.dtype)
    reshaped = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    out = batch_norm(
        reshaped, mean_, var_, _repeat(weight, b), _repeat(bias, b), use_input_stats, momentum, eps
    )
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)


@nn_op()
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each element by ``(k + alpha * mean of the squares over ``size`` neighbouring
    channels) ** beta`` (AlexNet's normalization)."""
    dim = input.dim()
    if dim < 3:
        raise TensorValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    # The channels as the height (depth) of a one-channel image: an average over a window of
    # ``size`` channels, zero-padded across the channel ends. PyTorch's steps, so its nodes:
    # a 3-d input is unsqueezed and pooled in 2-d, a deeper one viewed as 5-d (a view: a
    # non-contiguous input raises, as there) and pooled in 3-d.
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        shape = tuple(input.shape)
        div = div.view(shape[0], 1, shape[1], shape[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(shape)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


_SELU_ALPHA_SCALED = 1.7580993408473766  # SELU's alpha * scale: where alpha dropout sets


def _alpha_dropout(input, p, training, inplace, feature):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zeros = J.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zeros) if inplace else input * zeros
    if feature:
        if input.dim() < 2:
            raise TensorRuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
        noise = input.new_empty(shape)
    else:
        noise = J.empty_like(input)
    noise.bernoulli_(1 - p)
    alpha = _SELU_ALPHA_SCALED
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p)
    noise.mul_(a)
    if inplace:
        return input.mul_(noise).add_(b)
    return (input * noise).add_(b)


@nn_op(inplace="inplace")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation
    and the result is rescaled to keep zero mean and unit variance."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


@nn_op(inplace="inplace")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels."""
    return _alpha_dropout(input, p, training, inplace, feature=True)


@nn_op(function=True)
def channel_shuffle(input, groups):
    """Interleave the channels of ``groups`` groups: ``(N, g * k, ...)`` viewed as ``(N, g,
    k, ...)``, the two swapped, and flattened back (ShuffleNet)."""
    if input.dim() < 3:
        raise TensorRuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input "
            f"with sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise TensorRuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise TensorRuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    return _ChannelShuffle.apply(input, groups)


def _shuffle(x, groups):
    shape = tuple(x.shape)
    out = x.reshape((shape[0], groups, shape[1] // groups) + shape[2:]).transpose(1, 2)
    return out.reshape(shape)


class _ChannelShuffle(Function):
    _node_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, input, groups):
        ctx.groups = groups
        return _shuffle(input, groups)

    @staticmethod
    def backward(ctx, grad):
        # the inverse permutation: shuffling again with the other factor of the channels
        return _shuffle(grad, grad.shape[1] // ctx.groups), None


@nn_op(function=True)
def native_channel_shuffle(input, groups):
    """``channel_shuffle`` (PyTorch's native kernel has the same result)."""
    return channel_shuffle(input, groups)
