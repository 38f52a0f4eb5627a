"""More pooling and patch ops of ``jtensor.nn.functional``: adaptive_max_pool1d/2d/3d and
fractional_max_pool2d/3d (with indices), lp_pool1d/2d/3d, max_unpool1d/2d/3d, unfold
(im2col) and fold (col2im).

The window ops are gathers at indices computed once on the host (ATen's window bounds; the
fractional pools' pseudo-random intervals from ``_random_samples``), wrapped in Functions
carrying PyTorch's node names. Each backward is the adjoint gather or
scatter written in public ops, so it is itself differentiable: unfold's backward is fold and
fold's is unfold (``Im2ColBackward0``/``Col2ImBackward0``), max pooling's and unpooling's are
a scatter and a gather at the saved indices. ``lp_pool`` composes average pooling as PyTorch.
"""

import math

import numpy as np

from ..._api import ops as J
from ..._dtypes import int64
from ..._tensor import as_fresh
from ..._errors import (
    TensorIndexError,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorValueError,
)
from ...autograd.function import Function
from ._op import nn_op
from .activation import relu
from .padding import pad
from .pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d

__all__ = [
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
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


def _triple(value):
    """PyTorch's ``_triple`` as lp_pool3d unpacks it: a sequence as given, an int thrice
    (a sequence of another length fails the unpacking with PyTorch's ValueError)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 3:
            raise TensorValueError(
                f"not enough values to unpack (expected 3, got {len(value)})"
                if len(value) < 3
                else "too many values to unpack (expected 3)"
            )
        return tuple(int(v) for v in value)
    return (int(value),) * 3


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
    k = int((ends - starts).max()) if out_size else 1
    idx = starts[:, None] + np.arange(k)[None, :]
    return np.minimum(idx, ends[:, None] - 1)


def _candidates(windows, sizes):
    """The flat input index of every window candidate, ``(P, *out, K)``: ``windows[d]`` is
    ``(P, out_d, K_d)`` positions along spatial dim ``d`` (P = 1: the same windows for every
    plane); candidates run row-major over the window, so the first maximum is PyTorch's."""
    n = len(windows)
    flat = 0
    for d, w in enumerate(windows):
        shape = [w.shape[0]] + [1] * n + [1] * n
        shape[1 + d] = w.shape[1]
        shape[1 + n + d] = w.shape[2]
        flat = flat * sizes[d] + w.reshape(shape)
    k = math.prod(w.shape[2] for w in windows)
    return flat.reshape(flat.shape[: 1 + n] + (k,))


def _window_max_function(node_name):
    """A Function taking the maximum of ``input`` over the candidate windows ``table``
    (``_candidates``), returning ``(values, int64 flat indices)``; its backward, a
    scatter-add at the indices written in public ops, is differentiable again."""

    class WindowMax(Function):
        _node_name = node_name

        @staticmethod
        def forward(ctx, input, table):
            n = table.ndim - 2
            lead = tuple(input.shape[:-n])
            plane = math.prod(input.shape[-n:])
            out_sp, k = table.shape[1:-1], table.shape[-1]
            idx = J.tensor(table.reshape(table.shape[0], -1), device=input.device)
            idx = idx.reshape((1,) * (len(lead) - 1) + tuple(idx.shape))
            idx = (
                idx.expand(lead + (idx.shape[-1],))
                if table.shape[0] == 1
                else idx.reshape(lead + (idx.shape[-1],))
            )
            values = input.reshape(lead + (plane,)).gather(-1, idx)
            values = values.reshape(lead + out_sp + (k,))
            # ATen's scan: a value replaces the maximum when greater or NaN, so ties keep
            # the first index and the last NaN of a window wins
            out, local = values.max(-1)
            nans = values.isnan()
            if bool(nans.any()):
                last = (k - 1) - nans.flip(-1).to(int64).argmax(-1)
                local = J.where(nans.any(-1), last, local)
            indices = idx.reshape(lead + out_sp + (k,)).gather(-1, local.unsqueeze(-1))
            indices = indices.squeeze(-1)
            ctx.geometry = (tuple(input.shape), plane, n)
            ctx.save_for_backward(indices)
            ctx.mark_non_differentiable(indices)
            return out, indices

        @staticmethod
        def backward(ctx, grad, _grad_indices):
            (indices,) = ctx.saved_tensors
            shape, plane, n = ctx.geometry
            lead = shape[:-n]
            flat_grad = grad.reshape(lead + (-1,))
            grad_input = J.zeros(lead + (plane,), dtype=grad.dtype, device=grad.device)
            grad_input = grad_input.scatter_add(-1, indices.reshape(lead + (-1,)), flat_grad)
            return grad_input.reshape(shape), None

    WindowMax.__name__ = WindowMax.__qualname__ = "_" + node_name.replace("Backward0", "")
    return WindowMax


_ADAPTIVE_MAX = {n: _window_max_function(f"AdaptiveMaxPool{n}DBackward0") for n in (2, 3)}
_FRACTIONAL_MAX = {n: _window_max_function(f"FractionalMaxPool{n}DBackward0") for n in (2, 3)}


def _adaptive_max(input, out_sp):
    n = len(out_sp)
    sizes = tuple(input.shape[-n:])
    windows = [_adaptive_windows(s, o)[None] for s, o in zip(sizes, out_sp, strict=True)]
    return _ADAPTIVE_MAX[n].apply(input, _candidates(windows, sizes))


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
        # PyTorch's 1-d form runs the 2-d kernel, the 3-d one its "_cpu" kernel
        kernel = "adaptive_max_pool3d_cpu" if n == 3 else "adaptive_max_pool2d"
        raise TensorNotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype._torch_name}'"
        )


def _adaptive_max_nd(input, output_size, n):
    name = f"adaptive_max_pool{n}d"
    _check_adaptive_input(input, n, name)
    out_sp = _adaptive_size(output_size, input, n)
    if any(o < 0 for o in out_sp):
        shape = list(input.shape[:-n]) + list(out_sp)
        raise TensorRuntimeError(
            f"Trying to create tensor with negative dimension {min(out_sp)}: {shape}"
        )
    return _adaptive_max(input, out_sp)


@nn_op()
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``(values, indices)`` of the maximum over adaptive windows (output ``output_size``;
    ``None`` keeps that input size); indices are flat over each input plane."""
    return _adaptive_max_nd(input, output_size, 2)


@nn_op()
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over adaptive windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input (with
    the indices when ``return_indices``)."""
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


@nn_op()
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``(values, indices)`` of the maximum over adaptive windows of a ``(N, C, D, H, W)``
    or ``(C, D, H, W)`` input; indices are flat over each ``D*H*W`` volume."""
    return _adaptive_max_nd(input, output_size, 3)


@nn_op()
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maximum over adaptive windows of a ``(N, C, D, H, W)`` or ``(C, D, H, W)``
    input (with the indices when ``return_indices``), as
    ``torch.nn.functional.adaptive_max_pool3d``.

    >>> import jtensor as torch
    >>> torch.nn.functional.adaptive_max_pool3d(torch.ones(1, 2, 5, 7, 3), 2).shape
    torch.Size([1, 2, 2, 2, 2])
    """
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


@nn_op()
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d_with_indices`` of a ``(N, C, L)`` or ``(C, L)`` input."""
    _check_adaptive_input(input, 1, "adaptive_max_pool1d")
    (size,) = _adaptive_size(output_size, input, 1)
    out, indices = _adaptive_max(input.unsqueeze(-2), (1, size))
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
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over the window of x**p) ** (1/p)`` over three spatial dims, as
    ``torch.nn.functional.lp_pool3d``: PyTorch's average pooling of the powers, times the
    window volume.

    >>> import jtensor as torch
    >>> torch.nn.functional.lp_pool3d(torch.ones(1, 1, 2, 2, 2), 2, 2)
    tensor([[[[[2.8284]]]]])
    """
    kd, kw, kh = _triple(kernel_size)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (J.sign(out) * relu(J.abs(out))).mul(kd * kw * kh).pow(1.0 / norm_type)


@nn_op()
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool2d`` over one spatial dimension."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (J.sign(out) * relu(J.abs(out))).mul(_single(kernel_size)).pow(1.0 / norm_type)


# ------------------------------------------------------------------------ max unpool
def _max_unpool_function(n):
    """The Function of ``max_unpool{n}d``: a scatter of the values at their flat indices
    over each output plane; its backward, the gather at the same indices, is written in
    public ops (differentiable again)."""

    class MaxUnpool(Function):
        _node_name = f"MaxUnpool{n}DBackward0"

        @staticmethod
        def forward(ctx, input, indices, out_sp):
            lead = tuple(input.shape[:-n])
            flat_idx = indices.reshape(lead + (-1,))
            ctx.save_for_backward(flat_idx)
            ctx.shape = tuple(input.shape)
            out = J.zeros(lead + (math.prod(out_sp),), dtype=input.dtype, device=input.device)
            out = out.scatter(-1, flat_idx, input.reshape(lead + (-1,)))
            return out.reshape(lead + tuple(out_sp))

        @staticmethod
        def backward(ctx, grad):
            (flat_idx,) = ctx.saved_tensors
            lead = ctx.shape[:-n]
            gx = grad.reshape(lead + (-1,)).gather(-1, flat_idx).reshape(ctx.shape)
            return gx, None, None

    MaxUnpool.__name__ = MaxUnpool.__qualname__ = f"_MaxUnpool{n}d"
    return MaxUnpool


_MAX_UNPOOL = {n: _max_unpool_function(n) for n in (2, 3)}


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


def _max_unpool(input, indices, out_sp):
    """The checks and the call of ``max_unpool{2,3}d`` with output sizes ``out_sp``."""
    n = len(out_sp)
    if indices.dtype.is_floating_point or indices.dtype.is_complex:
        raise TensorRuntimeError(
            "elements in indices should be type int64"
            + (f" but got: {indices.dtype._torch_name}" if n == 2 else "")
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise TensorRuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    volume = math.prod(out_sp)
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= volume):
        bad = int(indices.max()) if int(indices.max()) >= volume else int(indices.min())
        raise TensorRuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size "
            f"{'x'.join(map(str, out_sp))}" + (")" if n == 3 else "")
        )
    return _MAX_UNPOOL[n].apply(input, indices, tuple(out_sp))


@nn_op()
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value goes back to the position its index
    names, zeros elsewhere."""
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None else _pair(stride, "stride")
    size = _unpool_output_size(input, kernel, stride, _pair(padding, "padding"), output_size)
    return _max_unpool(input, indices, (int(size[0]), int(size[1])))


def _as_triple(value):
    """PyTorch's ``_triple``: an int thrice, a sequence as given (its length is checked
    against the output size later, as PyTorch does)."""
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    return (int(value),) * 3


@nn_op()
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``: each value goes back to the position its flat
    index names in its ``D*H*W`` volume, zeros elsewhere (``output_size`` picks among the
    sizes that pool to the input's).

    >>> import jtensor as torch
    >>> x = torch.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> out, idx = torch.nn.functional.max_pool3d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool3d(out, idx, 2).sum()
    tensor(7.)
    """
    kernel = _as_triple(kernel_size)
    stride = kernel if stride is None else _as_triple(stride)
    padding = _as_triple(padding)
    lens = {len(kernel), len(stride), len(padding)}
    if lens != {3}:
        raise TensorRuntimeError(
            f"There should be exactly three elements (depth, height, width) in output_size, "
            f"but got {min(lens)} elements."
        )
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    return _max_unpool(input, indices, tuple(int(v) for v in size))


@nn_op()
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool2d`` over one spatial dimension."""
    kernel = (_single(kernel_size),)
    stride = kernel if stride is None else (_single(stride),)
    size = _unpool_output_size(input, kernel, stride, (_single(padding),), output_size)
    out = _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), (int(size[0]), 1))
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
        return as_fresh(_im2col(input, kernel, dilation, padding, stride))

    @staticmethod
    def backward(ctx, grad):
        size, kernel, dilation, padding, stride = ctx.args
        return _Col2Im.apply(grad, size, kernel, dilation, padding, stride), None, None, None, None


class _Col2Im(Function):
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, input, output_size, kernel, dilation, padding, stride):
        ctx.args = (kernel, dilation, padding, stride)
        return as_fresh(_col2im(input, output_size, kernel, dilation, padding, stride))

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


# ------------------------------------------------------------------ fractional max pool
def _fractional_intervals(samples, in_size, out_size, pool, dtype):
    """``(P, out)`` window starts of each plane (ATen's ``generate_intervals``), computed in
    the input's floating type as PyTorch's kernel does: ``int((i + u) * alpha) -
    int(u * alpha)`` with ``alpha = (in - pool) / (out - 1)``; the last window ends at the
    input's end."""
    u = np.asarray(samples, dtype=dtype)[:, None]
    starts = np.zeros((u.shape[0], out_size), dtype=np.int64)
    if out_size > 1:
        alpha = dtype(in_size - pool) / dtype(out_size - 1)
        i = np.arange(out_size - 1, dtype=dtype)[None, :]
        starts[:, :-1] = np.trunc((i + u) * alpha).astype(np.int64) - np.trunc(u * alpha).astype(
            np.int64
        )
    if out_size > 0:
        starts[:, -1] = in_size - pool
    return starts


# PyTorch's kernels read a plane's samples in this order: (W, H) in 2-d, (T, H, W) in 3-d
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _fractional(input, kernel_size, output_size, output_ratio, _random_samples, n):
    """``(values, indices)`` of ``fractional_max_pool{n}d`` with PyTorch's checks."""
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise TensorValueError(
            f"{name} requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        if len(output_ratio) > n:  # a number has no len(): PyTorch's TypeError too
            raise TensorValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = tuple(output_ratio) * (n if len(output_ratio) == 1 else 1)
        output_size = [int(input.shape[-n + d] * ratio[d]) for d in range(n)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == n + 1 else input.shape[0]
        _random_samples = J.rand(
            n_batch, input.shape[-n - 1], n, dtype=input.dtype, device=input.device
        )
    kernel = _ints(kernel_size, n, name, "kernel_size")
    out_sp = _ints(output_size, n, name, "output_size")
    if input.dim() not in (n + 1, n + 2) or input.numel() == 0:
        raise TensorRuntimeError(
            f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input, but got: "
            f"{input.dim()}"
        )
    labels = ("time", "height", "width")[-n:]
    sizes = tuple(input.shape[-n:])
    for lab, o, k, s in zip(labels, out_sp, kernel, sizes, strict=True):
        if o + k - 1 > s:
            raise TensorRuntimeError(
                f"{name}(): pool {lab} {k} too large relative to input {lab} {s}"
            )
    samples = _random_samples
    if samples.dtype != input.dtype:
        raise TensorRuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise TensorRuntimeError(
            f"Expect _random_samples to have 3 dimensions, got {samples.dim()}"
        )
    batch = 1 if input.dim() == n + 1 else input.shape[0]
    channels = input.shape[-n - 1]
    if samples.shape[0] < batch:
        raise TensorRuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise TensorRuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise TensorRuntimeError(
            f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}."
        )
    if not input.dtype.is_floating_point:
        raise TensorNotImplementedError(
            f"\"{name}_out_frame\" not implemented for '{input.dtype._torch_name}'"
        )
    # host-side interval arithmetic in the input's precision (float32 rounds as PyTorch's)
    host = samples.detach()[:batch].reshape(batch * channels, n).cpu().numpy()
    dtype = host.dtype.type if host.dtype.itemsize >= 4 else np.float32
    windows = []
    for d in range(n):
        starts = _fractional_intervals(
            host[:, _SAMPLE_OF_DIM[n][d]], sizes[d], out_sp[d], kernel[d], dtype
        )
        windows.append(starts[:, :, None] + np.arange(kernel[d])[None, None, :])
    return _FRACTIONAL_MAX[n].apply(input, _candidates(windows, sizes))


def _ints(value, n, name, what):
    """An ``n``-tuple of ints (an int is repeated), PyTorch's check of its length."""
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,) * n
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise TensorRuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    return tuple(int(v) for v in values)


@nn_op()
def fractional_max_pool2d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """``(values, indices)`` of ``fractional_max_pool2d``."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


@nn_op()
def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """Fractional max pooling (Graham, 2014) over ``(N, C, H, W)`` or ``(C, H, W)``, as
    ``torch.nn.functional.fractional_max_pool2d``: ``kernel_size`` windows whose starts step
    pseudo-randomly so that the output is ``output_size`` (or ``output_ratio`` times the
    input). ``_random_samples`` ``(N, C, 2)`` in [0, 1) fixes the steps (drawn with
    ``torch.rand`` otherwise); indices are flat over each input plane.

    >>> import jtensor as torch
    >>> x = torch.arange(25.).reshape(1, 1, 5, 5)
    >>> torch.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
    ...                                           _random_samples=torch.zeros(1, 1, 2))
    tensor([[[[ 6.,  9.],
              [21., 24.]]]])
    """
    out, indices = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (out, indices) if return_indices else out


@nn_op()
def fractional_max_pool3d_with_indices(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """``(values, indices)`` of ``fractional_max_pool3d``."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


@nn_op()
def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)``, as
    ``torch.nn.functional.fractional_max_pool3d`` (``_random_samples`` ``(N, C, 3)``;
    indices flat over each ``T*H*W`` volume).

    >>> import jtensor as torch
    >>> x = torch.ones(1, 1, 4, 4, 4)
    >>> torch.nn.functional.fractional_max_pool3d(x, 2, output_ratio=(0.5, 0.5, 0.5)).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    out, indices = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (out, indices) if return_indices else out
