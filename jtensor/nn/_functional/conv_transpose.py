"""Transposed convolutions: ``conv_transpose1d``, ``conv_transpose2d`` and
``conv_transpose3d`` (``jtensor.nn.functional``).

A transposed convolution is the gradient of a convolution with respect to its input, and is
computed by the convolution's own raw-array kernels (``conv.py``): the forward is the
input-gradient kernel (a matmul and a col2im) of the convolution ``x = conv(y, w)`` with
``y`` of the output's shape, the backward that convolution (for ``x``) and its weight
gradient with input and gradient swapped (for ``w``). The node is PyTorch's
``ConvolutionBackward0``; under ``create_graph=True`` the gradients come from conv.py's
differentiable ``_Convolution``/``_ConvolutionBackward``, so every order works.
"""

from ..._dtypes import bfloat16, float16, float32, float64
from ..._errors import TensorRuntimeError
from ..._layout import suggests_channels_last
from .conv import (
    _as4d,
    _compute_dtype,
    _Convolution,
    _conv_backward_arrays,
    _conv_forward_array,
    _ConvolutionBackward,
    _creates_graph,
    _name_node,
    _pair,
    _to_first,
    _to_last,
    _wrap_channels_last,
    _wrap_nchw,
    _xp,
)
from ...autograd import function as _function
from ._op import nn_op

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

_SCALAR_NAMES = {float64: "Double", float32: "Float", float16: "Half", bfloat16: "BFloat16"}


def _hw(name, values, sep=" "):
    """PyTorch's ``name_height: a name_width: b`` (a 1-d convolution has a height of 1; a
    3-d one starts with ``name_depth``)."""
    values = (1 if name == "dilation" or name == "stride" else 0,) * (2 - len(values)) + values
    labels = ("depth", "height", "width")[-len(values) :]
    return sep.join(f"{name}_{lab}: {v}" for lab, v in zip(labels, values, strict=True))


def _check(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    name = f"conv_transpose{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        raise TensorRuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )
    if weight.dim() != nd + 2:
        raise TensorRuntimeError("weight should have at least three dimensions")
    for other in (weight, bias):
        if other is not None and other.dtype != input.dtype:
            raise TensorRuntimeError(
                f"expected scalar type {_SCALAR_NAMES.get(input.dtype, input.dtype)} but found "
                f"{_SCALAR_NAMES.get(other.dtype, other.dtype)}"
            )
    groups = int(groups)
    if groups <= 0:
        raise TensorRuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise TensorRuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise TensorRuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise TensorRuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise TensorRuntimeError(
            f"dilation should be greater than zero, but got {_hw('dilation', dilation, ', ')}"
        )
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation, strict=True)):
        raise TensorRuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"{_hw('output_padding', output_padding)} {_hw('stride', stride)} "
            f"{_hw('dilation', dilation)}"
        )
    wshape = list(weight.shape)
    if wshape[0] % groups:
        raise TensorRuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{wshape}] instead"
        )
    channels = input.shape[-nd - 1]
    if channels != wshape[0]:
        shape = list(input.shape) if input.dim() == nd + 2 else [1] + list(input.shape)
        raise TensorRuntimeError(
            f"Given transposed=1, weight of size {wshape}, expected input{shape} to have "
            f"{wshape[0]} channels, but got {channels} channels instead"
        )
    out_channels = wshape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise TensorRuntimeError(
            f"Given transposed=1, weight of size {wshape}, expected bias to be 1-dimensional "
            f"with {out_channels} elements, but got bias of size {list(bias.shape)} instead"
        )
    sizes = tuple(input.shape[-nd:])
    out = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + o + 1
        for i, s, p, d, k, o in zip(
            sizes, stride, padding, dilation, wshape[2:], output_padding, strict=True
        )
    )
    if any(o <= 0 for o in out):
        pad_to = (1,) * max(0, 2 - nd)
        raise TensorRuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, pad_to + sizes))}). "
            f"Calculated output size per channel: ({' x '.join(map(str, pad_to + out))}). "
            f"Output size is too small"
        )
    return groups


class _ConvTranspose(_function.Function):
    """``y = conv_transpose(x, w) + b`` with the convolution's own kernels: ``y`` is the
    input-gradient (col2im) of the convolution ``x = conv(y, w)`` whose ``meta`` this holds;
    the backward is that convolution (for ``x``) and its weight gradient with the roles of
    input and gradient swapped (for ``w``). Under ``create_graph`` the same gradients come
    from the differentiable ``_Convolution``/``_ConvolutionBackward`` (any order)."""

    _edge_positions = (0, 1, 2)   # input, weight, bias (a (None, 0) edge when absent)

    @staticmethod
    def forward(ctx, input, weight, bias, meta, out_shape, squeeze, channels_last):
        xp = _xp(input)
        x_arr = _as4d(input._array(), squeeze)
        k = x_arr.ndim - 2
        dx = _conv_backward_arrays(
            xp,
            x_arr,
            None,
            _as4d(weight._array(), squeeze),
            out_shape,
            meta,
            True,
            False,
            False,
        )[0]
        if bias is not None:
            b = bias._array().astype(dx.dtype, copy=False)
            dx = dx + b.reshape((1, -1) + (1,) * k)
        ctx.meta, ctx.out_shape, ctx.squeeze = meta, out_shape, squeeze
        ctx.has_bias = bias is not None
        ctx.save_for_backward(input, weight)
        if channels_last:  # PyTorch's output format: channels_last as the input or weight
            return _wrap_channels_last(xp, dx.transpose(_to_last(k)), input._dtype, input.device)
        return _wrap_nchw(xp, dx, input, squeeze)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        meta, squeeze = ctx.meta, ctx.squeeze
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        gx = gw = gb = None
        if need_b and ctx.has_bias:
            gb = grad.sum((0,) + tuple(range(2, grad.dim())))
        if _creates_graph(grad, input, weight):
            if need_x:
                gx = _Convolution.apply(grad, weight, None, meta, squeeze, True, False)
            if need_w:
                gw = _ConvolutionBackward.apply(
                    input, grad, weight, meta, squeeze, False, True, False
                )[1]
            return gx, gw, gb, None, None, None, None
        xp = _xp(grad)
        g_arr = _as4d(grad._array(), squeeze)
        if need_x:
            out = _conv_forward_array(xp, g_arr, _as4d(weight._array(), squeeze), None, meta)
            gx = _wrap_nchw(xp, out.transpose(_to_first(out.ndim - 2)), input, squeeze)
        if need_w:
            w = _conv_backward_arrays(
                xp,
                _as4d(input._array(), squeeze),
                g_arr,
                None,
                g_arr.shape,
                meta,
                False,
                True,
                False,
            )[1]
            gw = _wrap_nchw(xp, w, weight, squeeze)
        return gx, gw, gb, None, None, None, None


_name_node(_ConvTranspose, "ConvolutionBackward0")


def _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    stride, padding = _pair(stride, "stride", nd), _pair(padding, "padding", nd)
    output_padding = _pair(output_padding, "output_padding", nd)
    dilation = _pair(dilation, "dilation", nd)
    groups = _check(input, weight, bias, stride, padding, output_padding, groups, dilation, nd)
    if input.dim() == nd + 1:  # unbatched: PyTorch adds the batch dim and squeezes it
        return _transposed(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation, nd
        ).squeeze(0)
    kernel = tuple(weight.shape[2:])
    sizes = tuple(input.shape[2:])
    out = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + o + 1
        for i, s, p, d, k, o in zip(
            sizes, stride, padding, dilation, kernel, output_padding, strict=True
        )
    )
    lead = (1,) * (nd == 1)  # conv1d runs as a 2-d convolution of height 1
    pads = ((0, 0),) * (nd == 1) + tuple((p, p) for p in padding)
    # The convolution x = conv(y, w) whose input gradient y is: its meta (conv.py's layout).
    meta = (
        pads,
        lead + kernel,
        lead + stride,
        lead + dilation,
        groups,
        lead + sizes,
        _compute_dtype(input),
    )
    out_shape = (input.shape[0], weight.shape[1] * groups) + lead + out
    channels_last = nd >= 2 and any(
        suggests_channels_last(t._shape, t._stride) for t in (input, weight)
    )
    return _ConvTranspose.apply(input, weight, bias, meta, out_shape, nd == 1, channels_last)


@nn_op(function=True)  # also torch.conv_transpose2d
def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """2-d transposed convolution ("deconvolution") of ``input`` ``(N, C_in, H, W)`` or
    ``(C_in, H, W)`` with ``weight`` ``(C_in, C_out/groups, kh, kw)``: the output is
    ``(H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1`` high.

    >>> import jtensor as torch
    >>> x, w = torch.ones(1, 4, 5, 5), torch.ones(4, 2, 3, 3)
    >>> torch.nn.functional.conv_transpose2d(x, w, stride=2, padding=1).shape
    torch.Size([1, 2, 9, 9])
    """
    return _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@nn_op(function=True)  # also torch.conv_transpose3d
def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """3-d transposed convolution of ``input`` ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``
    with ``weight`` ``(C_in, C_out/groups, kd, kh, kw)`` (the options of
    ``conv_transpose2d``).

    >>> import jtensor as torch
    >>> x, w = torch.ones(1, 4, 3, 3, 3), torch.ones(4, 2, 2, 2, 2)
    >>> torch.nn.functional.conv_transpose3d(x, w, stride=2).shape
    torch.Size([1, 2, 6, 6, 6])
    """
    return _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


@nn_op(function=True)  # also torch.conv_transpose1d
def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """1-d transposed convolution of ``input`` ``(N, C_in, L)`` or ``(C_in, L)`` with
    ``weight`` ``(C_in, C_out/groups, k)`` (the options of ``conv_transpose2d``).

    >>> import jtensor as torch
    >>> torch.nn.functional.conv_transpose1d(torch.ones(1, 4, 5), torch.ones(4, 2, 3)).shape
    torch.Size([1, 2, 7])
    """
    return _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)
