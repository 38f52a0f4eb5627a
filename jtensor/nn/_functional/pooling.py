"""Pooling: ``max_pool1d/2d/3d``, ``avg_pool1d/2d/3d``, ``adaptive_avg_pool1d/2d/3d``.

One implementation for 2 and 3 spatial dims (1-d runs as 2-d with a height of 1). Windows
are strided slices of the (padded) input: a loop over the kernel offsets runs whole-array
operations (no window copy). Max pooling keeps PyTorch's CPU rule: a later element replaces
the running maximum only when it is strictly greater or NaN, so ties go to the first maximum;
padding is never chosen. Its backward sends each gradient to the saved index (one
``bincount``), so overlapping windows accumulate as in PyTorch. Adaptive average pooling is
separable: one averaging matrix per spatial dim (``A_h @ x @ A_w.T`` in 2-d).

Under ``create_graph=True`` each gradient is an op of ``(grad, input)`` of its own (PyTorch's
``*BackwardBackward0`` nodes): linear in ``grad`` (max pooling's derivative gathers at the
indices; the averages' is the pooling itself) and constant in ``input`` (zeros). As in
PyTorch, the nodes save their input.
"""

import itertools
import math
import types

import numpy as np

from ..._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, type_name
from ..._layout import suggests_channels_last
from ..._tensor import Tensor
from ...autograd import function as _function
from ._op import nn_op
from .conv import (
    _window,
    _compute_dtype,
    _creates_graph,
    _name_node,
    _to_last,
    _wrap,
    _wrap_channels_last,
    _xp,
    _zeros_like_input,
)

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "avg_pool1d",
           "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool2d_with_indices",
           "max_pool3d", "max_pool3d_with_indices"]

_COUNT = {2: "two", 3: "three"}


def _tuple2(value, name, default=None, n=2, op="max_pool2d"):
    """An ``n``-tuple of ints from an int or a sequence of 1 or ``n`` ints (``default`` for
    None or an empty sequence)."""
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
        return default
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return (int(value[0]),) * n
        if len(value) != n:
            either = "either " if op.startswith("max") else ""
            raise TensorRuntimeError(f"{op}: {name} must {either}be a single int, or a "
                                     f"tuple of {_COUNT[n]} ints")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _is_cl(t, dims=4):
    """Whether ``t`` is ``dims``-d and suggests channels_last (4-d) or channels_last_3d (5-d):
    the ops whose output then takes that memory format."""
    return t.dim() == dims and suggests_channels_last(t._shape, t._stride)


def _out_size(size, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    num = size + 2 * p - eff
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_input(name, input, n=2):
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                              f"{type_name(input)}")
    if input.dim() not in (n + 1, n + 2) or (n == 2 and any(s == 0 for s in input._shape[-3:])):
        raise TensorRuntimeError(
            f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input, got a "
            f"tensor of size {list(input._shape)}")
    if n == 3 and any(s == 0 for s in input._shape[-4:]):
        dim = next(i for i, s in enumerate(input._shape[-4:]) if s == 0)
        raise TensorRuntimeError(
            f"{name}(): Expected input's non-batch dimensions to have positive length, but "
            f"input has a shape of {list(input._shape)} and non-batch dimension {dim} has "
            f"length zero!")


def _geometry(name, input, kernel_size, stride, padding, dilation, ceil_mode, n=2):
    _check_input(name, input, n)
    kernel = _tuple2(kernel_size, "kernel_size", n=n, op=name)
    stride = _tuple2(stride, "stride", kernel, n=n, op=name)
    padding = _tuple2(padding, "padding", n=n, op=name)
    dilation = _tuple2(dilation, "dilation", n=n, op=name)
    if any(s <= 0 for s in stride) or any(k <= 0 for k in kernel):
        raise TensorRuntimeError("stride should not be zero" if any(s == 0 for s in stride)
                                 else f"kernel size and stride should be greater than zero, "
                                      f"but got kernel_size={kernel} stride={stride}")
    if any(d <= 0 for d in dilation):
        labels = ("T", "H", "W")[-n:]
        raise TensorRuntimeError("dilation should be greater than zero, but got " + " ".join(
            f"dilation{a}: {d}" for a, d in zip(labels, dilation, strict=True)))
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if n == 3 and p < 0:
            raise TensorRuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise TensorRuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}")
    sizes = tuple(input._shape[-n:])
    out = tuple(_out_size(*a, ceil_mode) for a in zip(sizes, kernel, stride, padding, dilation,
                                                       strict=True))
    if any(o < 1 for o in out):
        c = input._shape[-n - 1]
        raise TensorRuntimeError(
            f"Given input size: ({'x'.join(map(str, (c,) + sizes))}). Calculated output size: "
            f"({'x'.join(map(str, (c,) + out))}). Output size is too small")
    return kernel, stride, padding, dilation, out


def _padded(xp, arr, pads, fill, dtype):
    """``arr`` (..., *spatial) padded by ``((before, after), ...)`` per spatial dim with
    ``fill``."""
    if not any(a or b for a, b in pads):
        return arr
    n = len(pads)
    sizes = arr.shape[-n:]
    out = xp.full(arr.shape[:-n] + tuple(s + a + b for s, (a, b) in zip(sizes, pads,
                                                                         strict=True)),
                  fill, dtype=dtype)
    out[_inner(pads, sizes)] = arr
    return out


def _inner(pads, sizes):
    """The slices of a padded (..., *spatial) array that hold the unpadded values."""
    return (Ellipsis,) + tuple(slice(a, a + s) for (a, _), s in zip(pads, sizes, strict=True))


def _pads_for(size, out, k, s, p, d):
    need = (out - 1) * s + d * (k - 1) + 1
    return (p, max(p, need - size - p))


def _finish(xp, arr, channels_last, dtype, device):
    """Wrap an (N, C, *spatial) result in PyTorch's layout for the op (channels_last(_3d) or
    contiguous)."""
    if channels_last:
        return _wrap_channels_last(xp, arr.transpose(_to_last(arr.ndim - 2)), dtype, device)
    return _wrap(xp.ascontiguousarray(arr), dtype, device)


_Pool = types.SimpleNamespace  # a pooling's geometry and index arrays, kept by its node


def _int64():
    from ... import _dtypes

    return _dtypes.int64


class _MaxPool2d(_function.Function):
    @staticmethod
    def forward(ctx, input, geometry, channels_last):
        xp = _xp(input)
        kernel, stride, padding, dilation, out_sp = geometry
        n = len(kernel)
        x = input._array()
        sizes = x.shape[-n:]
        pads = tuple(_pads_for(*a) for a in zip(sizes, out_sp, kernel, stride, padding, dilation,
                                                strict=True))
        dt = x.dtype
        fast = _fast_max(xp, x, kernel, stride, padding, dilation, out_sp, pads) \
            if input._dtype.is_floating_point else None
        if fast is not None:
            best, indices = fast
            return _MaxPool2d._done(ctx, input, xp, x, best, indices, channels_last, n)
        if input._dtype.is_floating_point:
            low = -np.inf
        elif input._dtype.numpy == np.bool_:
            low = False
        else:
            low = np.iinfo(dt).min
        xpad = _padded(xp, x, pads, low, dt)
        best = xp.full(x.shape[:-n] + tuple(out_sp), low, dtype=dt)
        arg = xp.full(best.shape, -1, dtype=np.int64)
        floating = input._dtype.is_floating_point
        for flat, offs in enumerate(itertools.product(*(range(k) for k in kernel))):
            s = xpad[_window(offs, dilation, stride, out_sp)]
            upd = s > best
            if floating:
                upd |= xp.isnan(s)
            xp.copyto(best, s, where=upd)
            xp.copyto(arg, flat, where=upd)
        # Window offsets -> flat input index; windows that found nothing (all -inf) take
        # their first in-bounds element, as PyTorch does.
        none = arg < 0
        indices = 0
        rest = arg
        for d in range(n):
            inner = math.prod(kernel[d + 1:])
            kd, rest = rest // inner, rest % inner
            start = np.arange(out_sp[d]) * stride[d] - padding[d]
            first = start + (-(-np.maximum(-start, 0) // dilation[d])) * dilation[d]
            shape = [1] * n
            shape[d] = -1
            pos = xp.asarray(start.reshape(shape)) + kd * dilation[d]
            if none.any():
                pos = xp.where(none, xp.asarray(first.reshape(shape)), pos)
            indices = indices * sizes[d] + pos
        return _MaxPool2d._done(ctx, input, xp, x, best, indices, channels_last, n)

    @staticmethod
    def _done(ctx, input, xp, x, best, indices, channels_last, n):
        # What the gradient needs, apart from the node (a double-backward node keeps it).
        ctx.pool = _Pool(indices=indices, in_shape=x.shape, dtype=input._dtype,
                         device=input.device, channels_last=channels_last, n=n)
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
            return _MAX_BACKWARD[ctx.pool.n].apply(grad, input, ctx.pool), None, None
        return _max_pool_scatter(ctx.pool, grad), None, None


def _fast_max(xp, x, kernel, stride, padding, dilation, out_sp, pads):
    """2-D max pooling as the general loop computes it, PyTorch's ``val > max || isnan(val)``
    in window order (the first maximum; the last NaN): (values, flat input indices), over
    one strided view of the input per kernel offset. Windows that tile the input
    (``max_pool2d(x, 2)``) are views of the input itself; others (padding, overlapping
    windows, dilation) of a copy padded with -inf. None where the general loop must decide:
    not 2-D, or a padded input with a NaN, a -0.0 or a window whose maximum is -inf (the loop
    then takes the window's first element inside the input)."""
    if len(kernel) != 2 or not all(out_sp):
        return None
    (kh, kw), (ho, wo) = kernel, out_sp
    height, width = x.shape[-2:]
    count = kh * kw
    tiles = tuple(stride) == tuple(kernel) and not any(padding) \
        and all(d == 1 for d in dilation) and ho * kh <= height and wo * kw <= width
    if tiles:
        region = x[..., :ho * kh, :wo * kw]
        windows = region.reshape(x.shape[:-2] + (ho, kh, wo, kw))
        views = [windows[..., :, k // kw, :, k % kw] for k in range(count)]
        exact = count > 1 and x.dtype in _EXACT_MAXIMUM and not _nan_or_negative_zero(xp, region)
    else:
        if count < 2 or count > 255 or x.dtype not in _EXACT_MAXIMUM \
                or _nan_or_negative_zero(xp, x):
            return None
        padded = _padded(xp, x, pads, -np.inf, x.dtype)
        views = [padded[_window((k // kw, k % kw), dilation, stride, out_sp)]
                 for k in range(count)]
        exact = True
    if exact:
        # Without NaNs and negative zeros, ``maximum`` gives the loop's values (its only
        # choices between equal values are between identical bits), and the loop's index is
        # the first offset whose element equals the maximum: a count of the offsets that
        # miss it before the first hit. Element-wise passes over the views, no selects
        # (NumPy's masked copies and ``where`` cost ten times a ``maximum``).
        best = xp.maximum(views[0], views[1])
        for v in views[2:]:
            xp.maximum(best, v, out=best)
        if not tiles and bool((best == -np.inf).any()):
            return None
        missing = xp.not_equal(views[0], best)
        arg = missing.astype(np.uint8)
        for v in views[1:-1]:
            missing &= xp.not_equal(v, best)
            arg += missing
    else:   # (tiles only: every offset is inside the input)
        best = views[0].copy()
        arg = xp.zeros(best.shape, np.int64)
        for k in range(1, count):
            v = views[k]
            take = xp.greater(v, best)
            take |= xp.isnan(v)
            xp.copyto(best, v, where=take)
            xp.copyto(arg, k, where=take)
    # The flat input index of each window's first offset, plus that of the chosen offset.
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    starts = xp.asarray((np.arange(ho) * sh - ph)[:, None] * width + (np.arange(wo) * sw - pw))
    offsets = xp.asarray(np.array([(k // kw) * dh * width + (k % kw) * dw
                                   for k in range(count)]))
    return best, xp.add(starts, offsets.take(arg))


# The dtypes whose ``maximum`` agrees with the pooling loop once NaNs and negative zeros
# are ruled out (half floats are widened elsewhere).
_EXACT_MAXIMUM = (np.dtype(np.float32), np.dtype(np.float64))


def _nan_or_negative_zero(xp, a):
    """Whether ``a`` holds a NaN or a -0.0 (where ``maximum`` and the pooling loop may pick
    different bits)."""
    if xp.isnan(a).any():
        return True
    negative_zero = xp.signbit(a)
    negative_zero &= a == 0
    return bool(negative_zero.any())


class _MaxPool3d(_MaxPool2d):
    """``_MaxPool2d`` under PyTorch's 3-d node name (the kernels are N-d)."""


def _max_pool_scatter(pool, grad):
    """The gradient of max pooling on the arrays: each gradient to its saved index (one
    ``bincount``, so overlapping windows accumulate)."""
    xp = _xp(grad)
    shape = pool.in_shape
    plane = math.prod(shape[-pool.n:])
    planes = int(np.prod(shape[:-pool.n], dtype=np.int64))
    idx = pool.indices.reshape(planes, -1)
    offsets = (xp.arange(planes, dtype=np.int64) * plane)[:, None] + idx
    g = grad._array()
    gx = xp.bincount(offsets.ravel(), weights=g.reshape(planes, -1).ravel(),
                     minlength=planes * plane).reshape(shape)
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
            planes = int(np.prod(shape[:-pool.n], dtype=np.int64))
            index = _wrap(pool.indices.reshape(planes, -1), _int64(), pool.device)
            g_grad = gg.reshape(planes, -1).gather(1, index).reshape(ctx.out_shape)
        if need_x:
            g_input = _zeros_like_input(ctx, 1)
        return g_grad, g_input, None


class _MaxPool3dBackward(_MaxPool2dBackward):
    """``_MaxPool2dBackward`` under PyTorch's 3-d node name."""


_MAX_BACKWARD = {2: _MaxPool2dBackward, 3: _MaxPool3dBackward}
for _n, _cls in ((2, _MaxPool2d), (3, _MaxPool3d)):
    _name_node(_MAX_BACKWARD[_n], f"MaxPool{_n}DWithIndicesBackwardBackward0")
    _name_node(_cls, f"MaxPool{_n}DWithIndicesBackward0")


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


@nn_op(function=True)  # also torch.max_pool3d
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as
    ``torch.nn.functional.max_pool3d`` (the options of ``max_pool2d``; indices are flat
    over each ``D*H*W`` volume; a channels_last_3d input gives a channels_last_3d output).

    >>> import jtensor as torch
    >>> torch.nn.functional.max_pool3d(torch.arange(8.).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[7.]]]]])
    """
    geometry = _geometry("max_pool3d", input, kernel_size, stride, padding, dilation,
                         ceil_mode, n=3)
    out, idx = _MaxPool3d.apply(input, geometry, _is_cl(input, 5))
    return (out, idx) if return_indices else out


@nn_op()
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool3d`` returning ``(values, indices)``, as
    ``torch.nn.functional.max_pool3d_with_indices``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


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
        kernel, stride, padding, _, out_sp = geometry
        n = len(kernel)
        x = input._array()
        sizes = x.shape[-n:]
        floating = input._dtype.is_floating_point
        ct = _compute_dtype(input) if floating else np.float64
        pads = tuple(_pads_for(*a, 1) for a in zip(sizes, out_sp, kernel, stride, padding,
                                                   strict=True))
        xpad = _padded(xp, x, pads, 0, x.dtype)
        total = xp.zeros(x.shape[:-n] + tuple(out_sp), dtype=ct)
        ones = (1,) * n
        for offs in itertools.product(*(range(k) for k in kernel)):
            total += xpad[_window(offs, ones, stride, out_sp)]
        div = _divisor(sizes, geometry, count_include_pad, divisor_override)
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
        n = len(ctx.pool.meta[0][0])
        if _creates_graph(grad, input):
            return _AVG_BACKWARD[n].apply(grad, input, ctx.pool), None, None, None, None
        return _avg_pool_spread(ctx.pool, grad), None, None, None, None


class _AvgPool3d(_AvgPool2d):
    """``_AvgPool2d`` under PyTorch's 3-d node name (the kernels are N-d)."""


def _avg_pool_spread(pool, grad):
    """The gradient of average pooling on the arrays: each window's gradient, divided by
    its divisor, added back over the window (the padding cut off)."""
    xp = _xp(grad)
    geometry, pads, shape, div, channels_last, ct = pool.meta
    kernel, stride, _, _, out_sp = geometry
    n = len(kernel)
    sizes = shape[-n:]
    g = grad._array().astype(ct, copy=False) / xp.asarray(div, dtype=ct)
    gx = xp.zeros(shape[:-n] + tuple(s + a + b for s, (a, b) in zip(sizes, pads, strict=True)),
                  dtype=ct)
    ones = (1,) * n
    for offs in itertools.product(*(range(k) for k in kernel)):
        gx[_window(offs, ones, stride, out_sp)] += g
    return _finish(xp, gx[_inner(pads, sizes)], channels_last, pool.dtype, pool.device)


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


_AVG = {2: _AvgPool2d, 3: _AvgPool3d}
_AVG_BACKWARD = {
    n: _linear_pool_backward(
        _avg_pool_spread,
        lambda gg, pool, n=n: _AVG[n].apply(gg, pool.meta[0], *pool.options, False),
        f"AvgPool{n}DBackwardBackward0")
    for n in (2, 3)
}
for _n in (2, 3):
    _name_node(_AVG[_n], f"AvgPool{_n}DBackward0")


def _divisor(sizes, geometry, count_include_pad, divisor_override):
    """(*out) divisors with PyTorch's rules (NumPy, host side)."""
    kernel, stride, padding, _, out_sp = geometry
    if divisor_override:
        return np.full(tuple(out_sp), float(divisor_override))
    div = np.ones(())
    for size, out, k, s, p in zip(sizes, out_sp, kernel, stride, padding, strict=True):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, size + p)
        if count_include_pad:
            count = end - start
        else:
            count = np.minimum(end, size) - np.maximum(start, 0)
        div = np.multiply.outer(div, count)
    return div.astype(np.float64)


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


@nn_op()
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as
    ``torch.nn.functional.avg_pool3d`` (the options of ``avg_pool2d``; the output is
    contiguous, as PyTorch's CPU kernel makes it).

    >>> import jtensor as torch
    >>> torch.nn.functional.avg_pool3d(torch.arange(8.).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    geometry = _geometry("avg_pool3d", input, kernel_size, stride, padding, 1, ceil_mode, n=3)
    if divisor_override is not None and int(divisor_override) == 0:
        raise TensorRuntimeError("divisor must be not zero")
    return _AvgPool3d.apply(input, geometry, bool(count_include_pad), divisor_override, False)


def _adaptive_matrix(size, out):
    """(out, size) averaging matrix with PyTorch's bins: [floor(i*n/o), ceil((i+1)*n/o))."""
    m = np.zeros((out, size))
    for i in range(out):
        a = (i * size) // out
        b = -(-((i + 1) * size) // out)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _along(xp, x, mats, transpose=False):
    """``x`` (..., *spatial) with each averaging matrix applied along its spatial dim (the
    transposed matrices for the gradient)."""
    k = len(mats)
    for i, m in enumerate(mats):
        axis = x.ndim - k + i
        moved = xp.moveaxis(x, axis, -2) if axis != x.ndim - 1 else x[..., None]
        y = xp.matmul(m.T if transpose else m, moved)
        x = xp.moveaxis(y, -2, axis) if axis != x.ndim - 1 else y[..., 0]
    return x


class _AdaptiveAvgPool2d(_function.Function):
    @staticmethod
    def forward(ctx, input, out_sp, channels_last):
        xp = _xp(input)
        x = input._array()
        ct = _compute_dtype(input)
        k = len(out_sp)
        mats = tuple(xp.asarray(_adaptive_matrix(size, o), dtype=ct)
                     for size, o in zip(x.shape[-k:], out_sp, strict=True))
        out = _along(xp, x.astype(ct, copy=False), mats)
        ctx.pool = _Pool(mats=mats, out_hw=out_sp, dtype=input._dtype,
                         device=input.device, channels_last=channels_last)
        ctx.save_for_backward(input)  # as PyTorch: the input's version is checked
        return _finish(xp, out, channels_last, input._dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        if _creates_graph(grad, input):
            bwd = _ADAPTIVE_BACKWARD[len(ctx.pool.out_hw)]
            return bwd.apply(grad, input, ctx.pool), None, None
        return _adaptive_spread(ctx.pool, grad), None, None


class _AdaptiveAvgPool3d(_AdaptiveAvgPool2d):
    """``_AdaptiveAvgPool2d`` under PyTorch's 3-d node name."""


def _adaptive_spread(pool, grad):
    """The gradient of adaptive average pooling on the arrays: each averaging matrix
    transposed along its dim (``A_h.T @ g @ A_w`` in 2-d)."""
    xp = _xp(grad)
    g = grad._array().astype(pool.mats[0].dtype, copy=False)
    gx = _along(xp, g, pool.mats, transpose=True)
    return _finish(xp, gx, pool.channels_last, pool.dtype, pool.device)


_ADAPTIVE = {2: _AdaptiveAvgPool2d, 3: _AdaptiveAvgPool3d}
_ADAPTIVE_BACKWARD = {
    n: _linear_pool_backward(
        _adaptive_spread,
        lambda gg, pool, n=n: _ADAPTIVE[n].apply(gg, pool.out_hw, False),
        f"AdaptiveAvgPool{n}DBackwardBackward0")
    for n in (2, 3)
}
for _n in (2, 3):
    _name_node(_ADAPTIVE[_n], f"AdaptiveAvgPool{_n}DBackward0")


def _adaptive_avg(name, input, output_size, n):
    """The checks and the call of ``adaptive_avg_pool{n}d`` (n = 2 or 3)."""
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"{name}(): argument 'input' (position 1) must be "
                              f"Tensor, not {type_name(input)}")
    if input.dim() not in (n + 1, n + 2):
        raise TensorRuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got "
                                 f"{list(input._shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != n:
            raise TensorRuntimeError(f"{name}: output_size must be {n}")
        out_sp = tuple(input._shape[-n + i] if v is None else int(v)
                       for i, v in enumerate(output_size))
    else:
        out_sp = (int(output_size),) * n
    if any(s == 0 for s in input._shape[-n:]):
        raise TensorRuntimeError(
            f"{name}(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(input._shape)} with dimension "
            f"{input.dim() - n + next(i for i, s in enumerate(input._shape[-n:]) if s == 0)} "
            f"being empty")
    if any(o < 0 for o in out_sp):
        raise TensorRuntimeError(f"{name}: elements of output_size must be "
                                 f"greater than or equal to 0 but received {out_sp}")
    if not input._dtype.is_floating_point:
        if n == 3:  # PyTorch's 3-d kernel has no integer dispatch
            raise NotImplementedError(
                f'"{name}_cpu" not implemented for \'{input.dtype._torch_name}\'')
        raise TensorRuntimeError(f"{name}: expected a floating-point input, got "
                                 f"{input.dtype}")
    if out_sp == (1,) * n:  # PyTorch takes the mean here (MeanBackward1)
        out = input.mean(tuple(range(-1, -n - 1, -1)), keepdim=True)
        if _is_cl(input, n + 2):  # ...restrided in place, channels-last (AsStridedBackward1)
            c = input._shape[1]
            out = out.as_strided_(out.shape, (c, 1) + (c,) * n)
        return out
    # PyTorch keeps channels_last for 2-d; its 3-d CPU kernel returns a contiguous output
    return _ADAPTIVE[n].apply(input, out_sp, n == 2 and _is_cl(input))


@nn_op()
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (an int, or a pair where ``None`` keeps
    that input size), as ``torch.nn.functional.adaptive_avg_pool2d``: output cell ``i``
    averages input rows ``floor(i*H/OH)`` to ``ceil((i+1)*H/OH)``.

    >>> import jtensor as torch
    >>> torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 5, 7), 1).shape
    torch.Size([1, 2, 1, 1])
    """
    return _adaptive_avg("adaptive_avg_pool2d", input, output_size, 2)


@nn_op()
def adaptive_avg_pool3d(input, output_size):
    """Average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to a fixed ``output_size``
    (an int, or a triple where ``None`` keeps that input size), as
    ``torch.nn.functional.adaptive_avg_pool3d`` (PyTorch's bins along each dim).

    >>> import jtensor as torch
    >>> torch.nn.functional.adaptive_avg_pool3d(torch.ones(1, 2, 5, 7, 3), (2, None, 1)).shape
    torch.Size([1, 2, 2, 7, 1])
    """
    return _adaptive_avg("adaptive_avg_pool3d", input, output_size, 3)


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
                              f"{type_name(input)}")
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
