"""Pooling: ``max_pool2d`` (``max_pool1d``), ``avg_pool2d``, ``adaptive_avg_pool2d``.

Windows are strided slices of the (padded) input: a loop over the kh*kw kernel offsets runs
whole-array operations (no window copy). ``max_pool2d`` keeps PyTorch's CPU rule: a later
element replaces the running maximum only when it is strictly greater or NaN, so ties go to
the first maximum; padding is never chosen. Its backward sends each gradient to the saved
index (one ``bincount``), so overlapping windows accumulate as in PyTorch.
``adaptive_avg_pool2d`` is separable: ``A_h @ x @ A_w.T`` with averaging matrices.

Under ``create_graph=True`` each gradient is an op of ``(grad, input)`` of its own (PyTorch's
``*BackwardBackward0`` nodes): linear in ``grad`` (max pooling's derivative gathers at the
indices; the averages' is the pooling itself) and constant in ``input`` (zeros). As in
PyTorch, the nodes save their input.
"""

import types

import numpy as np

from ..._errors import TensorIndexError, TensorRuntimeError, TensorTypeError
from ..._layout import is_channels_last
from ..._tensor import Tensor
from ...autograd import function as _function
from ._op import nn_op
from .conv import (
    _compute_dtype,
    _creates_graph,
    _name_node,
    _wrap,
    _wrap_channels_last,
    _xp,
    _zeros_like_input,
)

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "max_pool1d",
           "max_pool2d", "max_pool2d_with_indices"]


def _tuple2(value, name, default=None):
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
        return default
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return (int(value[0]),) * 2
        if len(value) != 2:
            raise TensorRuntimeError(f"max_pool2d: {name} must either be a single int, or a "
                                     f"tuple of two ints")
        return tuple(int(v) for v in value)
    return (int(value),) * 2


def _is_cl(t):
    return t.dim() == 4 and is_channels_last(t._shape, t._stride) and not t.is_contiguous()


def _out_size(size, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    num = size + 2 * p - eff
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_input(name, input):
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                              f"{type(input).__name__}")
    if input.dim() not in (3, 4) or any(s == 0 for s in input._shape[-3:]):
        raise TensorRuntimeError(
            f"non-empty 3D or 4D (batch mode) tensor expected for input, got a tensor of "
            f"size {list(input._shape)}")


def _geometry(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    _check_input(name, input)
    kernel = _tuple2(kernel_size, "kernel_size")
    stride = _tuple2(stride, "stride", kernel)
    padding = _tuple2(padding, "padding")
    dilation = _tuple2(dilation, "dilation")
    if any(s <= 0 for s in stride) or any(k <= 0 for k in kernel):
        raise TensorRuntimeError("stride should not be zero" if any(s == 0 for s in stride)
                                 else f"kernel size and stride should be greater than zero, "
                                      f"but got kernel_size={kernel} stride={stride}")
    if any(d <= 0 for d in dilation):
        raise TensorRuntimeError(f"dilation should be greater than zero, but got dilationH: "
                                 f"{dilation[0]} dilationW: {dilation[1]}")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise TensorRuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}")
    h, w = input._shape[-2:]
    oh = _out_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    ow = _out_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        c = input._shape[-3]
        raise TensorRuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                                 f"({c}x{oh}x{ow}). Output size is too small")
    return kernel, stride, padding, dilation, (oh, ow)


def _padded(xp, arr, pads, fill, dtype):
    """``arr`` (..., H, W) padded by ``((top, bottom), (left, right))`` with ``fill``."""
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return arr
    h, w = arr.shape[-2:]
    out = xp.full(arr.shape[:-2] + (h + pt + pb, w + pl + pr), fill, dtype=dtype)
    out[..., pt:pt + h, pl:pl + w] = arr
    return out


def _pads_for(size, out, k, s, p, d):
    need = (out - 1) * s + d * (k - 1) + 1
    return (p, max(p, need - size - p))


def _finish(xp, arr, channels_last, dtype, device):
    """Wrap an (N, C, H, W) result in PyTorch's layout for the op (channels_last or
    contiguous)."""
    if channels_last:
        return _wrap_channels_last(xp, arr.transpose(0, 2, 3, 1), dtype, device)
    return _wrap(xp.ascontiguousarray(arr), dtype, device)


_Pool = types.SimpleNamespace  # a pooling's geometry and index arrays, kept by its node


def _int64():
    from ... import _dtypes

    return _dtypes.int64


class _MaxPool2d(_function.Function):
    @staticmethod
    def forward(ctx, input, geometry, channels_last):
        xp = _xp(input)
        kernel, stride, padding, dilation, (oh, ow) = geometry
        x = input._array()
        h, w = x.shape[-2:]
        pads = (_pads_for(h, oh, kernel[0], stride[0], padding[0], dilation[0]),
                _pads_for(w, ow, kernel[1], stride[1], padding[1], dilation[1]))
        dt = x.dtype
        if input._dtype.is_floating_point:
            low = -np.inf
        elif input._dtype.numpy == np.bool_:
            low = False
        else:
            low = np.iinfo(dt).min
        xpad = _padded(xp, x, pads, low, dt)
        best = xp.full(x.shape[:-2] + (oh, ow), low, dtype=dt)
        arg = xp.full(best.shape, -1, dtype=np.int64)
        eh, ew = stride[0] * (oh - 1) + 1, stride[1] * (ow - 1) + 1
        floating = input._dtype.is_floating_point
        for i in range(kernel[0]):
            r0 = i * dilation[0]
            for j in range(kernel[1]):
                c0 = j * dilation[1]
                s = xpad[..., r0:r0 + eh:stride[0], c0:c0 + ew:stride[1]]
                upd = s > best
                if floating:
                    upd |= xp.isnan(s)
                xp.copyto(best, s, where=upd)
                xp.copyto(arg, i * kernel[1] + j, where=upd)
        # Window offsets -> flat input index; windows that found nothing (all -inf) take
        # their first in-bounds element, as PyTorch does.
        hs = np.arange(oh) * stride[0] - padding[0]
        ws = np.arange(ow) * stride[1] - padding[1]
        hs0 = hs + (-(-np.maximum(-hs, 0) // dilation[0])) * dilation[0]
        ws0 = ws + (-(-np.maximum(-ws, 0) // dilation[1])) * dilation[1]
        ki = arg // kernel[1]
        kj = arg % kernel[1]
        rows = xp.asarray(hs)[:, None] + ki * dilation[0]
        cols = xp.asarray(ws)[None, :] + kj * dilation[1]
        none = arg < 0
        if none.any():
            rows = xp.where(none, xp.asarray(hs0)[:, None], rows)
            cols = xp.where(none, xp.asarray(ws0)[None, :], cols)
        indices = rows * w + cols
        # What the gradient needs, apart from the node (a double-backward node keeps it).
        ctx.pool = _Pool(indices=indices, in_shape=x.shape, dtype=input._dtype,
                         device=input.device, channels_last=channels_last)
        out = _finish(xp, best, channels_last, input._dtype, input.device)
        idx = _finish(xp, indices, channels_last, _int64(), input.device)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(input)  # as PyTorch: the input's version is checked
        ctx.set_materialize_grads(False)  # no zeros for the indices' (absent) gradient
        return out, idx

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        (input,) = ctx.saved_tensors
        if grad is None:
            return None, None, None
        if _creates_graph(grad, input):
            return _MaxPool2dBackward.apply(grad, input, ctx.pool), None, None
        return _max_pool_scatter(ctx.pool, grad), None, None


def _max_pool_scatter(pool, grad):
    """The gradient of max pooling on the arrays: each gradient to its saved index (one
    ``bincount``, so overlapping windows accumulate)."""
    xp = _xp(grad)
    shape = pool.in_shape
    h, w = shape[-2:]
    planes = int(np.prod(shape[:-2], dtype=np.int64))
    idx = pool.indices.reshape(planes, -1)
    offsets = (xp.arange(planes, dtype=np.int64) * (h * w))[:, None] + idx
    g = grad._array()
    gx = xp.bincount(offsets.ravel(), weights=g.reshape(planes, -1).ravel(),
                     minlength=planes * h * w).reshape(shape)
    return _finish(xp, gx, pool.channels_last, pool.dtype, pool.device)


class _MaxPool2dBackward(_function.Function):
    """Max pooling's gradient as an op of ``(grad, input)`` (``create_graph=True``): linear
    in ``grad`` (its derivative gathers at the saved indices, PyTorch's
    ``max_pool_double_backward``), constant in ``input`` (zeros)."""

    @staticmethod
    def forward(ctx, grad, input, pool):
        ctx.pool = pool
        ctx.out_shape = tuple(grad._shape)
        return _max_pool_scatter(pool, grad)

    @staticmethod
    def backward(ctx, gg):
        pool = ctx.pool
        need_g, need_x = ctx.needs_input_grad[:2]
        g_grad = g_input = None
        if need_g:
            shape = pool.in_shape
            planes = int(np.prod(shape[:-2], dtype=np.int64))
            index = _wrap(pool.indices.reshape(planes, -1), _int64(), pool.device)
            g_grad = gg.reshape(planes, -1).gather(1, index).reshape(ctx.out_shape)
        if need_x:
            g_input = _zeros_like_input(ctx, 1)
        return g_grad, g_input, None


_name_node(_MaxPool2dBackward, "MaxPool2DWithIndicesBackwardBackward0")


_name_node(_MaxPool2d, "MaxPool2DWithIndicesBackward0")


@nn_op(function=True)  # also torch.max_pool2d
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over ``input`` ``(N, C, H, W)`` or ``(C, H, W)``, as
    ``torch.nn.functional.max_pool2d``. ``stride`` defaults to ``kernel_size``; padding is
    never selected (it must be at most half the effective kernel); ``ceil_mode`` allows a
    last partial window that starts inside the input. With ``return_indices=True`` also
    returns the int64 flat index (``h * W + w``) of each maximum; ties go to the first.

    >>> import jtensor as torch
    >>> torch.nn.functional.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    geometry = _geometry("max_pool2d", input, kernel_size, stride, padding, dilation,
                         ceil_mode)
    out, idx = _MaxPool2d.apply(input, geometry, _is_cl(input))
    return (out, idx) if return_indices else out


@nn_op(function=True)  # also torch.max_pool1d
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over ``input`` ``(N, C, L)`` or ``(C, L)`` (``max_pool2d`` on a
    height of 1), as ``torch.nn.functional.max_pool1d``."""
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise TensorRuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got "
            f"{list(input.shape) if isinstance(input, Tensor) else type(input).__name__}")

    def one(v, default):
        if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
            return default
        return (1, int(v[0] if isinstance(v, (list, tuple)) else v))

    k = one(kernel_size, None)
    result = max_pool2d(input.unsqueeze(-2), k, one(stride, k), (0, one(padding, 0)[1]),
                        one(dilation, 1), ceil_mode, True)
    out, idx = result[0].squeeze(-2), result[1].squeeze(-2)
    return (out, idx) if return_indices else out


class _AvgPool2d(_function.Function):
    @staticmethod
    def forward(ctx, input, geometry, count_include_pad, divisor_override, channels_last):
        xp = _xp(input)
        kernel, stride, padding, _, (oh, ow) = geometry
        x = input._array()
        h, w = x.shape[-2:]
        floating = input._dtype.is_floating_point
        ct = _compute_dtype(input) if floating else np.float64
        pads = (_pads_for(h, oh, kernel[0], stride[0], padding[0], 1),
                _pads_for(w, ow, kernel[1], stride[1], padding[1], 1))
        xpad = _padded(xp, x, pads, 0, x.dtype)
        total = xp.zeros(x.shape[:-2] + (oh, ow), dtype=ct)
        eh, ew = stride[0] * (oh - 1) + 1, stride[1] * (ow - 1) + 1
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                total += xpad[..., i:i + eh:stride[0], j:j + ew:stride[1]]
        div = _divisor(h, w, geometry, count_include_pad, divisor_override)
        out = total / xp.asarray(div, dtype=ct)
        if not floating:
            out = xp.trunc(out)
        ctx.pool = _Pool(meta=(geometry, pads, x.shape, div, channels_last, ct),
                         options=(count_include_pad, divisor_override),
                         dtype=input._dtype, device=input.device)
        ctx.save_for_backward(input)  # as PyTorch: the input's version is checked
        return _finish(xp, out.astype(x.dtype, copy=False), channels_last, input._dtype,
                       input.device)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        if _creates_graph(grad, input):
            return _AvgPool2dBackward.apply(grad, input, ctx.pool), None, None, None, None
        return _avg_pool_spread(ctx.pool, grad), None, None, None, None


def _avg_pool_spread(pool, grad):
    """The gradient of average pooling on the arrays: each window's gradient, divided by
    its divisor, added back over the window (the padding cut off)."""
    xp = _xp(grad)
    geometry, pads, shape, div, channels_last, ct = pool.meta
    kernel, stride, _, _, (oh, ow) = geometry
    h, w = shape[-2:]
    g = grad._array().astype(ct, copy=False) / xp.asarray(div, dtype=ct)
    (pt, pb), (pl, pr) = pads
    gx = xp.zeros(shape[:-2] + (h + pt + pb, w + pl + pr), dtype=ct)
    eh, ew = stride[0] * (oh - 1) + 1, stride[1] * (ow - 1) + 1
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            gx[..., i:i + eh:stride[0], j:j + ew:stride[1]] += g
    gx = gx[..., pt:pt + h, pl:pl + w]
    return _finish(xp, gx, channels_last, pool.dtype, pool.device)


def _linear_pool_backward(spread, pool_again, name):
    """A linear pooling's gradient as an op of ``(grad, input)`` for ``create_graph=True``:
    ``spread(pool, grad)`` is the adjoint of the pooling, so its own derivative in ``grad``
    is the pooling again (``pool_again(gg, pool)``); it is constant in ``input``."""

    class Backward(_function.Function):
        @staticmethod
        def forward(ctx, grad, input, pool):
            ctx.pool = pool
            return spread(pool, grad)

        @staticmethod
        def backward(ctx, gg):
            need_g, need_x = ctx.needs_input_grad[:2]
            g_grad = pool_again(gg, ctx.pool) if need_g else None
            g_input = _zeros_like_input(ctx, 1) if need_x else None
            return g_grad, g_input, None

    _name_node(Backward, name)
    return Backward


_AvgPool2dBackward = _linear_pool_backward(
    _avg_pool_spread,
    lambda gg, pool: _AvgPool2d.apply(gg, pool.meta[0], *pool.options, False),
    "AvgPool2DBackwardBackward0")


_name_node(_AvgPool2d, "AvgPool2DBackward0")


def _divisor(h, w, geometry, count_include_pad, divisor_override):
    """(OH, OW) divisors with PyTorch's rules (NumPy, host side)."""
    kernel, stride, padding, _, (oh, ow) = geometry
    if divisor_override:
        return np.full((oh, ow), float(divisor_override))
    sizes = []
    for size, out, k, s, p in zip((h, w), (oh, ow), kernel, stride, padding, strict=True):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, size + p)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, size) - np.maximum(start, 0))
    return np.outer(sizes[0], sizes[1]).astype(np.float64)


@nn_op()
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling, as ``torch.nn.functional.avg_pool2d``: zero padding counts in
    the divisor when ``count_include_pad`` (not the extra ``ceil_mode`` border);
    ``divisor_override`` replaces the divisor.

    >>> import jtensor as torch
    >>> torch.nn.functional.avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    if isinstance(input, Tensor) and input.dim() < 3:  # PyTorch reads size(-3) first
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of [{-max(input.dim(), 1)}, "
            f"{max(input.dim(), 1) - 1}], but got -3)")
    geometry = _geometry("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and int(divisor_override) == 0:
        raise TensorRuntimeError("divisor must be not zero")
    return _AvgPool2d.apply(input, geometry, bool(count_include_pad), divisor_override,
                            _is_cl(input))


def _adaptive_matrix(size, out):
    """(out, size) averaging matrix with PyTorch's bins: [floor(i*n/o), ceil((i+1)*n/o))."""
    m = np.zeros((out, size))
    for i in range(out):
        a = (i * size) // out
        b = -(-((i + 1) * size) // out)
        m[i, a:b] = 1.0 / (b - a)
    return m


class _AdaptiveAvgPool2d(_function.Function):
    @staticmethod
    def forward(ctx, input, out_hw, channels_last):
        xp = _xp(input)
        x = input._array()
        ct = _compute_dtype(input)
        ah = xp.asarray(_adaptive_matrix(x.shape[-2], out_hw[0]), dtype=ct)
        aw = xp.asarray(_adaptive_matrix(x.shape[-1], out_hw[1]), dtype=ct)
        out = xp.matmul(xp.matmul(ah, x.astype(ct, copy=False)), aw.T)
        ctx.pool = _Pool(mats=(ah, aw), out_hw=out_hw, dtype=input._dtype,
                         device=input.device, channels_last=channels_last)
        ctx.save_for_backward(input)  # as PyTorch: the input's version is checked
        return _finish(xp, out, channels_last, input._dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        if _creates_graph(grad, input):
            return _AdaptiveAvgPool2dBackward.apply(grad, input, ctx.pool), None, None
        return _adaptive_spread(ctx.pool, grad), None, None


def _adaptive_spread(pool, grad):
    """The gradient of adaptive average pooling on the arrays: ``A_h.T @ g @ A_w``."""
    xp = _xp(grad)
    ah, aw = pool.mats
    g = grad._array().astype(ah.dtype, copy=False)
    gx = xp.matmul(xp.matmul(ah.T, g), aw)
    return _finish(xp, gx, pool.channels_last, pool.dtype, pool.device)


_AdaptiveAvgPool2dBackward = _linear_pool_backward(
    _adaptive_spread, lambda gg, pool: _AdaptiveAvgPool2d.apply(gg, pool.out_hw, False),
    "AdaptiveAvgPool2DBackwardBackward0")


_name_node(_AdaptiveAvgPool2d, "AdaptiveAvgPool2DBackward0")


@nn_op()
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (an int, or a pair where ``None`` keeps
    that input size), as ``torch.nn.functional.adaptive_avg_pool2d``: output cell ``i``
    averages input rows ``floor(i*H/OH)`` to ``ceil((i+1)*H/OH)``.

    >>> import jtensor as torch
    >>> torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 5, 7), 1).shape
    torch.Size([1, 2, 1, 1])
    """
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"adaptive_avg_pool2d(): argument 'input' (position 1) must be "
                              f"Tensor, not {type(input).__name__}")
    if input.dim() not in (3, 4):
        raise TensorRuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                                 f"{list(input._shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 2:
            raise TensorRuntimeError("adaptive_avg_pool2d: output_size must be 2")
        out_hw = tuple(input._shape[-2 + i] if v is None else int(v)
                       for i, v in enumerate(output_size))
    else:
        out_hw = (int(output_size),) * 2
    if any(s == 0 for s in input._shape[-2:]):
        raise TensorRuntimeError(
            f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(input._shape)} with dimension "
            f"{input.dim() - 2} being empty")
    if any(o < 0 for o in out_hw):
        raise TensorRuntimeError(f"adaptive_avg_pool2d: elements of output_size must be "
                                 f"greater than or equal to 0 but received {out_hw}")
    if not input._dtype.is_floating_point:
        raise TensorRuntimeError(f"adaptive_avg_pool2d: expected a floating-point input, got "
                                 f"{input.dtype}")
    if out_hw == (1, 1):  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return _AdaptiveAvgPool2d.apply(input, out_hw, _is_cl(input))



@nn_op()
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool2d`` returning ``(values, indices)``, as
    ``torch.nn.functional.max_pool2d_with_indices``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _one(value, default=None):
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
        return default
    return int(value[0] if isinstance(value, (list, tuple)) else value)


def _check_1d(name, input):
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                              f"{type(input).__name__}")
    if input.dim() not in (2, 3):
        raise TensorRuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {name})")


@nn_op(function=True)  # also torch.avg_pool1d
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling over ``(N, C, L)`` or ``(C, L)``, as
    ``torch.nn.functional.avg_pool1d`` (``avg_pool2d`` on a height of 1)."""
    _check_1d("avg_pool1d", input)
    k = _one(kernel_size)
    s = _one(stride, k)
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, 0)), ceil_mode,
                     count_include_pad)
    return out.squeeze(-2)


@nn_op(function=True)  # also torch.adaptive_avg_pool1d
def adaptive_avg_pool1d(input, output_size):
    """Adaptive 1-d average pooling over ``(N, C, L)`` or ``(C, L)``, as
    ``torch.nn.functional.adaptive_avg_pool1d``."""
    _check_1d("adaptive_avg_pool1d", input)
    size = _one(output_size)
    if size == 1:
        return input.unsqueeze(-2).mean((-1, -2), keepdim=True).squeeze(-2)
    return _AdaptiveAvgPool2d.apply(input.unsqueeze(-2), (1, size), False).squeeze(-2)
