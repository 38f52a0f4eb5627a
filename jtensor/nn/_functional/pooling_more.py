"""More pooling and patch ops of ``jtensor.nn.functional``: adaptive_max_pool1d/2d (with
indices), lp_pool1d/2d, max_unpool1d/2d, unfold (im2col) and fold (col2im).

The window ops are gathers at indices computed once on the host (ATen's window bounds),
wrapped in Functions carrying PyTorch's node names. Each backward is the adjoint gather or
scatter written in public ops, so it is itself differentiable: unfold's backward is fold and
fold's is unfold (``Im2ColBackward0``/``Col2ImBackward0``), max pooling's and unpooling's are
a scatter and a gather at the saved indices. ``lp_pool`` composes average pooling as PyTorch.
"""

import numpy as np

from ..._api import ops as J
from ..._errors import TensorIndexError, TensorRuntimeError, TensorValueError
from ...autograd.function import Function
from ._op import nn_op
from .activation import relu
from .padding import pad
from .pooling import avg_pool1d, avg_pool2d, max_pool1d

__all__ = [
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "max_unpool1d",
    "max_unpool2d",
    "unfold",
    "fold",
    "max_pool1d_with_indices",
]


def _pair(value, name):
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return (int(value[0]),) * 2
        if len(value) != 2:
            raise TensorRuntimeError(f"{name} must be an int or a pair of ints, got {value}")
        return tuple(int(v) for v in value)
    return (int(value),) * 2


def _single(value):
    if isinstance(value, (list, tuple)):
        return int(value[0])
    return int(value)


# ----------------------------------------------------------------- adaptive max pool
def _adaptive_windows(in_size, out_size):
    """``(out, K)`` input positions of each adaptive window (ATen's ``start_index`` /
    ``end_index``), the short ones padded by repeating their last position (a repeat never
    changes a maximum and, coming last, never wins a tie)."""
    starts = (np.arange(out_size) * in_size) // out_size
    ends = -((-(np.arange(out_size) + 1) * in_size) // out_size)
    k = int((ends - starts).max())
    idx = starts[:, None] + np.arange(k)[None, :]
    return np.minimum(idx, ends[:, None] - 1)


class _AdaptiveMaxPool2d(Function):
    _node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, input, out_h, out_w):
        h, w = input.shape[-2:]
        rows = _adaptive_windows(h, out_h)  # (oH, KH)
        cols = _adaptive_windows(w, out_w)  # (oW, KW)
        # the flat (h * W + w) index of every candidate, laid out (oH, oW, KH * KW)
        flat = (rows[:, None, :, None] * w + cols[None, :, None, :]).reshape(out_h, out_w, -1)
        lead = tuple(input.shape[:-2])
        cand = J.tensor(flat.reshape(-1), device=input.device)
        values = input.reshape(lead + (h * w,)).index_select(-1, cand)
        values = values.reshape(lead + (out_h, out_w, flat.shape[-1]))
        # max with the first index among ties, NaN winning (ATen's comparison)
        out, local = values.max(-1)
        table = J.tensor(flat, device=input.device).expand(lead + flat.shape)
        indices = table.gather(-1, local.unsqueeze(-1)).squeeze(-1)
        ctx.geometry = (tuple(input.shape), h * w)
        ctx.save_for_backward(indices)
        ctx.mark_non_differentiable(indices)
        return out, indices

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        (indices,) = ctx.saved_tensors
        shape, hw = ctx.geometry
        lead = shape[:-2]
        flat_grad = grad.reshape(lead + (-1,))
        grad_input = J.zeros(lead + (hw,), dtype=grad.dtype, device=grad.device)
        grad_input = grad_input.scatter_add(-1, indices.reshape(lead + (-1,)), flat_grad)
        return grad_input.reshape(shape), None, None


def _adaptive_size(output_size, input, n):
    sizes = output_size if isinstance(output_size, (list, tuple)) else (output_size,) * n
    if len(sizes) != n:
        raise TensorRuntimeError(
            f"adaptive_max_pool{n}d(): internal error: output_size.size() must be {n}"
        )
    spatial = input.shape[-n:]
    return tuple(spatial[i] if s is None else int(s) for i, s in enumerate(sizes))


def _check_adaptive_input(input, n, name):
    ndim = input.dim()
    if ndim not in (n + 1, n + 2):
        raise TensorRuntimeError(
            f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}"
        )
    for i in range(1, ndim):
        if input.shape[i] == 0:
            raise TensorRuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {i} being empty"
            )
    if not input.dtype.is_floating_point:
        raise TensorRuntimeError(
            f"\"adaptive_max_pool{n}d\" not implemented for '{input.dtype._torch_name}'"
        )


@nn_op()
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``(values, indices)`` of the maximum over adaptive windows (output ``output_size``;
    ``None`` keeps that input size); indices are flat over each input plane."""
    _check_adaptive_input(input, 2, "adaptive_max_pool2d")
    out_h, out_w = _adaptive_size(output_size, input, 2)
    if out_h <= 0 or out_w <= 0:
        raise TensorRuntimeError(
            f"adaptive_max_pool2d(): Expected output_size to be positive, got ({out_h}, {out_w})"
        )
    return _AdaptiveMaxPool2d.apply(input, out_h, out_w)


@nn_op()
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over adaptive windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input (with
    the indices when ``return_indices``)."""
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


@nn_op()
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d_with_indices`` of a ``(N, C, L)`` or ``(C, L)`` input."""
    _check_adaptive_input(input, 1, "adaptive_max_pool1d")
    (size,) = _adaptive_size(output_size, input, 1)
    out, indices = _AdaptiveMaxPool2d.apply(input.unsqueeze(-2), 1, size)
    return out.squeeze(-2), indices.squeeze(-2)


@nn_op()
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The maximum over adaptive windows of a ``(N, C, L)`` or ``(C, L)`` input."""
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


# ------------------------------------------------------------------------- lp pool
@nn_op()
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over the window of x**p) ** (1/p)``: PyTorch's average pooling of the powers,
    times the window size."""
    kw, kh = _pair(kernel_size, "kernel_size")
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (J.sign(out) * relu(J.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


@nn_op()
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool2d`` over one spatial dimension."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (J.sign(out) * relu(J.abs(out))).mul(_single(kernel_size)).pow(1.0 / norm_type)


# ------------------------------------------------------------------------ max unpool
class _MaxUnpool2d(Function):
    _node_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, input, indices, out_h, out_w):
        lead = tuple(input.shape[:-2])
        flat_idx = indices.reshape(lead + (-1,))
        ctx.save_for_backward(flat_idx)
        ctx.shape = tuple(input.shape)
        out = J.zeros(lead + (out_h * out_w,), dtype=input.dtype, device=input.device)
        out = out.scatter(-1, flat_idx, input.reshape(lead + (-1,)))
        return out.reshape(lead + (out_h, out_w))

    @staticmethod
    def backward(ctx, grad):
        (flat_idx,) = ctx.saved_tensors
        lead = ctx.shape[:-2]
        return grad.reshape(lead + (-1,)).gather(-1, flat_idx).reshape(ctx.shape), None, None, None


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [
        (input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)
    ]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise TensorValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it "
            f"has a length of '{len(output_size)}'"
        )
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise TensorValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})'
            )
    return output_size


def _max_unpool2d(input, indices, out_h, out_w):
    if indices.dtype.is_floating_point or indices.dtype.is_complex:
        raise TensorRuntimeError(
            f"elements in indices should be type int64 but got: {indices.dtype._torch_name}"
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise TensorRuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= out_h * out_w):
        bad = int(indices.max()) if int(indices.max()) >= out_h * out_w else int(indices.min())
        raise TensorRuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size {out_h}x{out_w}"
        )
    return _MaxUnpool2d.apply(input, indices, out_h, out_w)


@nn_op()
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value goes back to the position its index
    names, zeros elsewhere."""
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None else _pair(stride, "stride")
    size = _unpool_output_size(input, kernel, stride, _pair(padding, "padding"), output_size)
    return _max_unpool2d(input, indices, int(size[0]), int(size[1]))


@nn_op()
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool2d`` over one spatial dimension."""
    kernel = (_single(kernel_size),)
    stride = kernel if stride is None else (_single(stride),)
    size = _unpool_output_size(input, kernel, stride, (_single(padding),), output_size)
    out = _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), int(size[0]), 1)
    return out.squeeze(-1)


# ---------------------------------------------------------------------- fold / unfold
def _patch_index(padded_hw, kernel, dilation, stride):
    """``(kh*kw, L)`` flat positions in the padded plane of each kernel offset at each
    output location, and the output grid ``(oH, oW)``."""
    (hp, wp), (kh, kw), (dh, dw), (sh, sw) = padded_hw, kernel, dilation, stride
    oh = (hp - (dh * (kh - 1) + 1)) // sh + 1
    ow = (wp - (dw * (kw - 1) + 1)) // sw + 1
    ki, kj = np.meshgrid(np.arange(kh) * dh, np.arange(kw) * dw, indexing="ij")
    oi, oj = np.meshgrid(np.arange(max(oh, 0)) * sh, np.arange(max(ow, 0)) * sw, indexing="ij")
    rows = ki.reshape(-1, 1) + oi.reshape(1, -1)
    cols = kj.reshape(-1, 1) + oj.reshape(1, -1)
    return rows * wp + cols, (oh, ow)


def _im2col(x, kernel, dilation, padding, stride):
    n, c, h, w = x.shape
    ph, pw = padding
    padded = pad(x, (pw, pw, ph, ph)) if ph or pw else x
    idx, _ = _patch_index((h + 2 * ph, w + 2 * pw), kernel, dilation, stride)
    flat = padded.reshape(n, c, -1).index_select(2, J.tensor(idx.reshape(-1), device=x.device))
    return flat.reshape(n, c * idx.shape[0], idx.shape[1])


def _col2im(cols, output_size, kernel, dilation, padding, stride):
    n = cols.shape[0]
    (h, w), (ph, pw) = output_size, padding
    hp, wp = h + 2 * ph, w + 2 * pw
    idx, _ = _patch_index((hp, wp), kernel, dilation, stride)
    c = cols.shape[1] // idx.shape[0]
    out = J.zeros((n, c, hp * wp), dtype=cols.dtype, device=cols.device)
    out = out.index_add(2, J.tensor(idx.reshape(-1), device=cols.device), cols.reshape(n, c, -1))
    out = out.reshape(n, c, hp, wp)
    return out[:, :, ph : ph + h, pw : pw + w].contiguous() if ph or pw else out


class _Im2Col(Function):
    _node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, input, kernel, dilation, padding, stride):
        ctx.args = (tuple(input.shape[-2:]), kernel, dilation, padding, stride)
        return _im2col(input, kernel, dilation, padding, stride)

    @staticmethod
    def backward(ctx, grad):
        size, kernel, dilation, padding, stride = ctx.args
        return _Col2Im.apply(grad, size, kernel, dilation, padding, stride), None, None, None, None


class _Col2Im(Function):
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, input, output_size, kernel, dilation, padding, stride):
        ctx.args = (kernel, dilation, padding, stride)
        return _col2im(input, output_size, kernel, dilation, padding, stride)

    @staticmethod
    def backward(ctx, grad):
        kernel, dilation, padding, stride = ctx.args
        return _Im2Col.apply(grad, kernel, dilation, padding, stride), None, None, None, None, None


def _check_patch_args(kernel, dilation, padding, stride):
    if min(kernel) <= 0:
        raise TensorRuntimeError(
            f"kernel size should be greater than zero, but got "
            f"kernel_height: {kernel[0]} kernel_width: {kernel[1]}"
        )
    if min(dilation) <= 0:
        raise TensorRuntimeError(
            f"dilation should be greater than zero, but got "
            f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
        )
    if min(padding) < 0:
        raise TensorRuntimeError(
            f"padding should be non-negative, but got pad_height: "
            f"{padding[0]} pad_width: {padding[1]}"
        )
    if min(stride) <= 0:
        raise TensorRuntimeError(
            f"stride should be greater than zero, but got "
            f"stride_height: {stride[0]} stride_width: {stride[1]}"
        )


@nn_op("im2col")  # ``unfold`` names Tensor.unfold; PyTorch's F.unfold calls im2col
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks (im2col): ``(N, C, H, W)`` -> ``(N, C * kh * kw, L)`` with one
    column per block position (unbatched ``(C, H, W)`` inputs too)."""
    args = [
        _pair(v, n)
        for v, n in (
            (kernel_size, "kernel_size"),
            (dilation, "dilation"),
            (padding, "padding"),
            (stride, "stride"),
        )
    ]
    _check_patch_args(*args)
    if input.dim() < 3:
        # PyTorch reads the size of dimension 2 first
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of "
            f"[-{max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 2)"
        )
    if input.dim() not in (3, 4):
        raise TensorRuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    kernel, dilation, padding, stride = args
    h, w = input.shape[-2:]
    _, (oh, ow) = _patch_index((h + 2 * padding[0], w + 2 * padding[1]), kernel, dilation, stride)
    if oh < 1 or ow < 1:
        raise TensorRuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({kernel[0]}, "
            f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
            f"{padding[1]}), calculated shape of the array of sliding blocks as ({oh}, {ow}), "
            f"but its components must be at least one."
        )
    if input.dim() == 3:
        return _Im2Col.apply(input.unsqueeze(0), kernel, dilation, padding, stride).squeeze(0)
    return _Im2Col.apply(input, kernel, dilation, padding, stride)


@nn_op("col2im")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image (col2im): ``(N, C * kh * kw, L)`` ->
    ``(N, C, *output_size)``, overlapping blocks adding up (unfold's adjoint)."""
    args = [
        _pair(v, n)
        for v, n in (
            (kernel_size, "kernel_size"),
            (dilation, "dilation"),
            (padding, "padding"),
            (stride, "stride"),
        )
    ]
    _check_patch_args(*args)
    kernel, dilation, padding, stride = args
    size = _pair(output_size, "output_size")
    if input.dim() not in (2, 3):
        raise TensorRuntimeError(
            f"Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    blocks = kernel[0] * kernel[1]
    if x.shape[1] % blocks:
        raise TensorRuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={x.shape[1]} and kernel_size=({kernel[0]}, "
            f"{kernel[1]})"
        )
    _, (oh, ow) = _patch_index(
        (size[0] + 2 * padding[0], size[1] + 2 * padding[1]), kernel, dilation, stride
    )
    if oh * ow != x.shape[2]:
        raise TensorRuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
            f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
            f"{padding[1]}), stride=({stride[0]}, {stride[1]}), expected size of input's "
            f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = "
            f"{oh * ow}, but got input.size(2)={x.shape[2]}."
        )
    out = _Col2Im.apply(x, size, kernel, dilation, padding, stride)
    return out if batched else out.squeeze(0)


@nn_op()
def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """``(values, indices)`` of ``max_pool1d``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)
