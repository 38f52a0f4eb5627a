"""Normalization: ``layer_norm``, ``batch_norm``, ``group_norm``, ``rms_norm``,
``normalize`` (``jtensor.nn.functional``).

``layer_norm``, ``batch_norm`` and ``group_norm`` are fused ``autograd.Function``s with
PyTorch's node names (``NativeLayerNormBackward0``, ``NativeBatchNormBackward0``,
``NativeGroupNormBackward0``) and the closed-form backward
(``rstd * (g - mean(g) - xhat * mean(g * xhat))``); the backward is written with public ops
and, under ``create_graph``, recomputes the statistics from the input so that double backward
is exact. The others compose public ops. Running statistics are updated in place without
history.

Layouts are PyTorch's CPU kernels': ``layer_norm``'s output and input gradient are
contiguous; ``group_norm`` computes on the input made contiguous in its suggested memory
format (a channels-last input stays channels-last) and its output and input gradient take
those strides; ``batch_norm``'s output is channels-last for a channels-last input, else
contiguous, and its input gradient depends on the incoming gradient's layout too. A layout
changes which elements later random ops (dropout) draw for, so it must match.

The common calls of layer norm, group norm and batch norm in training (issue 18: GPT-style
code runs layer norm several times a step, CNNs batch norm after every convolution) compute
on the arrays: ``_array_forward`` and ``_array_backward`` run exactly the array calls the
public ops of the general path would, in the same order and dtypes, so every result is the
general path's bit for bit (``tests/nn/test_{layer,group,batch}_norm_fast.py``). They
decline (None) for anything else, and ``ARRAY_PATHS = False`` turns them off. On either
path the output and the input gradient are fresh tensors at version 0, and batch norm's
running statistics are written without moving their version counters, as PyTorch's kernels
do.
"""

from collections import namedtuple

import numpy as np

from ... import _dispatch, _dtypes
from ..._api import ops as J
from ..._device import CPU_BACKEND
from ..._dispatch import grad_mode
from ..._elementwise import run_quietly
from ..._errors import TensorRuntimeError, TensorValueError
from ..._layout import (channels_last_strides, contiguous_strides, dense_strides_like,
                        is_channels_last, is_contiguous, suggest_memory_format)
from ..._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, as_fresh, fresh_tensor
from ...autograd.function import Function, _node_class
from ._op import nn_op
from ...autograd._scalar_nodes import AddScalar

__all__ = ["batch_norm", "group_norm", "layer_norm", "normalize", "rms_norm"]


def _no_grad():
    from ...autograd.grad_mode import no_grad

    return no_grad()


class _NativeNorm(Function):
    """``(x - mean) * rstd * weight + bias`` with the statistics over ``dims``.

    ``stats`` None: the batch statistics (differentiated through), and ``update`` =
    ``(running_mean, running_var, momentum)`` is updated from them (unbiased variance);
    otherwise the fixed ``(mean, var)`` (batch norm in evaluation). ``split``: the shape
    ``x`` is viewed as first (group norm splits the channels into groups), and ``pshape``,
    ``dims`` refer to it; ``pshape`` is the shape weight and bias are viewed as to broadcast.
    ``layout``: a ``_Layout``, the output's strides (the input gradient's too, unless the
    subclass has its own rule: ``_grad_strides``), the caller's input's strides, and whether
    to compute on contiguous copies (NumPy reduces a permuted array's non-adjacent axes
    several times slower than copying it first)."""

    _edge_positions = (0, 1, 2)   # input, weight, bias (a (None, 0) edge when absent)

    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def _grad_strides(shape, layout, g):
        return layout.output

    @staticmethod
    def forward(ctx, x, weight, bias, dims, pshape, eps, stats, update=None, layout=None,
                split=None):
        if ARRAY_PATHS and ctx._function in _ARRAY_NORMS \
                and (split is None) is (ctx._function is not _NativeGroupNorm):
            if stats is None:
                out = _array_forward(ctx, x, weight, bias, dims, pshape, eps, layout, split,
                                     update)
            elif ctx._function is _NativeBatchNorm:
                out = _fixed_forward(ctx, x, weight, bias, dims, pshape, eps, layout, stats)
            else:
                out = None
            if out is not None:
                return out
        xs = _work_view(x, split, layout)
        if stats is None:
            mean = xs.mean(dims, keepdim=True)
            xhat = xs - mean  # reused: centred values, then normalized in place
            var_sum = (xhat * xhat).sum(dims, keepdim=True)
            var = var_sum / _count(xs._shape, dims)   # (the mean of the squares)
            if update is not None:
                _update_running_stats(update, mean, var_sum, x.numel())
        else:
            mean, var = stats
            xhat = xs - mean
        rstd = (var + eps).rsqrt()
        xhat.mul_(rstd)
        affine = weight is not None or bias is not None
        if weight is not None:
            out = xhat * weight.view(pshape)
            if bias is not None:
                out.add_(bias.view(pshape))
        elif bias is not None:
            out = xhat + bias.view(pshape)
        else:
            out = xhat
        # xhat is kept when it is not the (user-visible) output; otherwise recomputed.
        _keep(ctx, x, weight, bias, mean, rstd, xhat if affine else None, dims, pshape, eps,
              stats is not None, split, layout)
        # (group norm's output is viewed back from the split shape, and the steps above
        # write in place: the caller gets a fresh tensor at version 0, as from PyTorch)
        return as_fresh(_restride(out, tuple(x.shape), layout.output))

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors   # (unpacked once: a saved-tensors hook sees one unpack)
        if ARRAY_PATHS and not grad_mode.enabled and ctx._function in _ARRAY_NORMS:
            grads = _array_backward(ctx, g, saved)
            if grads is None and ctx.fixed:
                grads = _fixed_backward(ctx, g, saved)
            if grads is not None:
                return grads
        x, weight, mean, rstd, xhat = saved
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        graph = grad_mode.enabled  # create_graph: build everything out of place, from x
        dims, split, layout = ctx.dims, ctx.split, ctx.layout
        gs = _work_view(g, split, layout)
        if graph and not ctx.fixed:
            xs = _work_view(x, split, layout)
            # the statistics as functions of x, so double backward is exact
            mean = xs.mean(dims, keepdim=True)
            centred = xs - mean
            rstd = ((centred * centred).mean(dims, keepdim=True) + ctx.eps).rsqrt()
            xhat = centred * rstd
        elif graph or xhat is None:
            xhat = (_work_view(x, split, layout) - mean) * rstd
        pdims = ctx.param_dims

        def param_sum(t):
            return t.sum(pdims) if pdims else t

        gw = param_sum(gs * xhat).view(weight.shape) if need_w else None
        gb = param_sum(gs).view(ctx.bias_shape) if need_b else None
        gx = None
        if need_x:
            gxh = gs * weight.view(ctx.pshape) if weight is not None else gs
            if ctx.fixed:
                gx = gxh * rstd
            elif graph:
                gx = (gxh - gxh.mean(dims, keepdim=True)
                      - xhat * (gxh * xhat).mean(dims, keepdim=True)) * rstd
            else:
                proj = (gxh * xhat).mean(dims, keepdim=True)
                gx = gxh - gxh.mean(dims, keepdim=True)
                gx.sub_(xhat * proj)
                gx.mul_(rstd)
            shape = tuple(x.shape)
            gx = _restride(gx, shape, ctx._function._grad_strides(shape, ctx.layout, g))
            if not gx._requires_grad:   # (written in place above: a fresh one)
                gx = as_fresh(gx)
        return gx, gw, gb, None, None, None, None, None, None, None


def _count(shape, dims):
    count = 1
    for d in dims:
        count *= shape[d]
    return count


def _update_running_stats(update, mean, var_sum, numel):
    """Batch norm's running statistics, in place: ``momentum * stat + (1 - momentum) *
    running`` in the buffer's dtype (each product rounded, then the sum: PyTorch's values
    exactly wherever the batch statistics are exact), the unbiased variance being
    ``var_sum / (n - 1)``. The writes leave the buffers' version counters where they were,
    as PyTorch's kernel's do."""
    running_mean, running_var, momentum = update
    C = running_mean.numel() if running_mean is not None else running_var.numel()
    n = numel // C
    unbiased = var_sum / (n - 1)
    for running, stat in ((running_mean, mean), (running_var, unbiased)):
        if running is None:
            continue
        stat = stat.reshape(C).to(running._dtype)
        counter = running._version_counter
        version = counter.value
        if _plain(running, running._dtype) and _plain(stat, stat._dtype):
            r = running._array()
            kind = r.dtype.type
            with np.errstate(all="ignore"):
                np.add(np.multiply(stat._array(), kind(momentum)),
                       np.multiply(r, kind(1 - momentum)), out=r)
        else:
            running.copy_(stat * momentum + running * (1 - momentum))
        counter.value = version


def _keep(ctx, x, weight, bias, mean, rstd, xhat, dims, pshape, eps, fixed, split, layout):
    """What ``_NativeNorm``'s backward reads: the saved tensors (PyTorch's order, ``xhat``
    last or None) and the call's options."""
    ctx.save_for_backward(x, weight, mean, rstd, xhat)
    ctx.dims, ctx.pshape, ctx.eps, ctx.fixed = dims, pshape, eps, fixed
    ctx.param_dims = tuple(d for d in range(len(pshape)) if pshape[d] == 1)
    ctx.split, ctx.layout = split, layout
    ctx.bias_shape = None if bias is None else bias.shape


# ------------------------------------------------------------------ layer norm on arrays
# Whether layer norm may compute on the arrays (``_array_forward``/``_array_backward``); the
# tests switch it off to get the general path's results to compare with.
ARRAY_PATHS = True
_EPS_TYPES = (float, int)   # the numbers the element-wise fast path adds as they are
# The public reductions call ``np.sum``, which for an ndarray is exactly this call (without
# ``np.sum``'s Python wrapper, a microsecond a call).
_SUM = np.add.reduce


def _listened():
    """Whether anything would see (or change) the public ops of the general path: a function
    transform in effect, a trace hook (a plain one sees every op inside a functional), the
    recorder's event hook, inference mode's output hook, a profiler."""
    return (_dispatch.transforms.active or _dispatch.trace_hook is not None
            or _dispatch.event_hook is not None or _dispatch.autograd_hook is not None
            or _dispatch.profile_hook is not None)


def _plain(t, dtype):
    """Whether ``t`` is a plain contiguous CPU tensor of ``dtype`` (its array is what the
    public ops would read, laid out as they would read it)."""
    return (t._dtype is dtype and t.__class__ in DENSE_CLASSES
            and t._storage._backend is CPU_BACKEND
            and (t._contiguous if t._contiguous is not None else t.is_contiguous()))


def _array_forward(ctx, x, weight, bias, dims, pshape, eps, layout, split=None, update=None):
    """Layer norm's, group norm's and batch norm's training forward on the arrays
    (``_forward_on_arrays``); the output, or None (nothing done)."""
    return _forward_on_arrays(ctx, x, weight, bias, dims, pshape, eps, layout, split, update)


def _forward_on_arrays(ctx, x, weight, bias, dims, pshape, eps, layout, split=None,
                       update=None, stats=None):
    """Layer norm's, group norm's (``split``: ``x`` viewed as (N, groups, C / groups, *))
    and batch norm's forward (training; or evaluation recording a node, ``stats`` the
    running ``(mean, var)`` viewed as ``pshape``, plain tensors of ``x``'s dtype) on the
    arrays when nothing listens and every tensor is a plain contiguous CPU float32/float64
    tensor (``x`` with its standard strides, the output's): the array calls of the general
    path's public ops, in their order (``mean`` is a sum divided by the count in the dtype,
    ``rsqrt`` is ``reciprocal(sqrt)``, the in-place ops write into their target; batch
    norm's running statistics take the general path's own update), then the same saved
    tensors and options. Returns the output, or None (nothing done) for anything else."""
    dtype = x._dtype
    if dtype not in ARRAY_FLOATS or eps.__class__ not in _EPS_TYPES \
            or x._stride != layout.output or not _plain(x, dtype) or _listened() \
            or x._stride != contiguous_strides(x._shape):   # (the result's strides)
        return None
    w = b = None
    if weight is not None:
        if not _plain(weight, dtype):
            return None
        w = weight._array().reshape(pshape)
    if bias is not None:
        if not _plain(bias, dtype):
            return None
        b = bias._array().reshape(pshape)
    shape = x._shape
    device = x._storage.device
    if stats is not None:
        return _fixed_arrays(ctx, x, weight, bias, stats, w, b, dims, pshape, eps, layout)
    work = shape if split is None else split
    count = _count(work, dims)
    a = x._array() if split is None else x._array().reshape(split)
    mean, var_sum, var, xhat = run_quietly(_stats_arrays, a, dims, a.dtype.type(count))
    mean = fresh_tensor(Tensor, mean, mean.shape, dtype, device, CPU_BACKEND)
    if update is not None:
        var_sum = fresh_tensor(Tensor, var_sum, var_sum.shape, dtype, device, CPU_BACKEND)
        _update_running_stats(update, mean, var_sum, x.numel())
    rstd, out = run_quietly(_scaled_arrays, xhat, var, w, b, eps)
    rstd = fresh_tensor(Tensor, rstd, rstd.shape, dtype, device, CPU_BACKEND)
    result = fresh_tensor(Tensor, out if split is None else out.reshape(shape), shape, dtype,
                          device, CPU_BACKEND)
    # (xhat is saved when it is not the output, as the general path does)
    xhat = None if out is xhat else fresh_tensor(Tensor, xhat, work, dtype, device,
                                                 CPU_BACKEND)
    _keep(ctx, x, weight, bias, mean, rstd, xhat, dims, pshape, eps, False, split, layout)
    return result


def _fixed_forward(ctx, x, weight, bias, dims, pshape, eps, layout, stats):
    """Batch norm's forward in evaluation with a node recorded (``stats``: the running
    ``(mean, var)`` viewed as ``pshape``) under ``_array_forward``'s conditions, the
    statistics plain tensors of ``x``'s dtype too: ``xs - mean``, then the general path's
    scaling; the running mean view is saved as it is, as there. Returns the output, or
    None (nothing done)."""
    return _forward_on_arrays(ctx, x, weight, bias, dims, pshape, eps, layout, None, None,
                              stats)


def _fixed_arrays(ctx, x, weight, bias, stats, w, b, dims, pshape, eps, layout):
    """``_fixed_forward``'s computation, its tensors checked but the statistics'."""
    mean, var = stats
    dtype = x._dtype
    if not _plain(mean, dtype) or not _plain(var, dtype) or mean._shape != pshape \
            or var._shape != pshape:
        return None
    a = x._array()
    xhat = run_quietly(np.subtract, a, mean._array())              # xs - mean
    rstd, out = run_quietly(_scaled_arrays, xhat, var._array(), w, b, eps)
    device = x._storage.device
    rstd = fresh_tensor(Tensor, rstd, rstd.shape, dtype, device, CPU_BACKEND)
    result = fresh_tensor(Tensor, out, x._shape, dtype, device, CPU_BACKEND)
    xhat = None if out is xhat else fresh_tensor(Tensor, xhat, x._shape, dtype, device,
                                                 CPU_BACKEND)
    _keep(ctx, x, weight, bias, mean, rstd, xhat, dims, pshape, eps, True, None, layout)
    return result


def _stats_arrays(a, dims, count):
    """``_NativeNorm.forward``'s statistics of one array ``a``: ``(mean, sum of squared
    deviations, var, centred)``."""
    mean = _SUM(a, axis=dims, keepdims=True) / count             # xs.mean(dims, keepdim)
    xhat = np.subtract(a, mean)                                   # xs - mean
    var_sum = _SUM(np.multiply(xhat, xhat), axis=dims, keepdims=True)
    return mean, var_sum, var_sum / count, xhat


def _scaled_arrays(xhat, var, w, b, eps):
    """``_NativeNorm.forward``'s output from the centred values ``xhat`` (normalized in
    place) and ``var`` (``w``, ``b``: the weight and bias viewed as ``pshape``, or None):
    ``(rstd, out)``, ``out`` being ``xhat`` itself without weight and bias."""
    rstd = np.reciprocal(np.sqrt(np.add(var, eps)))               # (var + eps).rsqrt()
    np.multiply(xhat, rstd, out=xhat)                             # xhat.mul_(rstd)
    if w is not None:
        out = np.multiply(xhat, w)                                # xhat * weight
        if b is not None:
            np.add(out, b, out=out)                               # .add_(bias)
    elif b is not None:
        out = np.add(xhat, b)                                     # xhat + bias
    else:
        out = xhat
    return rstd, out


def _array_backward(ctx, g, saved):
    """Layer norm's plain backward (no ``create_graph``) on the arrays, under
    ``_array_forward``'s conditions (``saved``: the unpacked saved tensors, which a
    saved-tensors hook may have replaced, checked again), with a weight or bias gradient
    that sums over leading dims: the array calls of the general path's public ops. Returns
    the gradients, or None (nothing done)."""
    if ctx.fixed:
        return None
    return _grads_on_arrays(ctx, g, saved)


def _fixed_backward(ctx, g, saved):
    """``_array_backward`` of batch norm in evaluation (fixed statistics, saved as the
    running statistics' views): ``gxh * rstd`` for the input."""
    return _grads_on_arrays(ctx, g, saved) if ctx.fixed else None


def _grads_on_arrays(ctx, g, saved):
    """The body of ``_array_backward`` and ``_fixed_backward``."""
    x, weight, mean, rstd, xhat = saved
    dtype = g._dtype
    pdims = ctx.param_dims
    shape = g._shape
    split = ctx.split
    work = shape if split is None else split
    if not pdims or dtype not in ARRAY_FLOATS \
            or g.__class__ not in DENSE_CLASSES or g._storage._backend is not CPU_BACKEND \
            or not _plain(mean, dtype) or not _plain(rstd, dtype) \
            or mean._shape != rstd._shape or len(mean._shape) != len(work) or _listened():
        return None
    if ctx._function._grad_strides(shape, ctx.layout, g) != contiguous_strides(shape):
        return None   # (the input gradient is written in another layout)
    if xhat is None:
        if not _plain(x, dtype) or x._shape != shape:
            return None
    elif not _plain(xhat, dtype) or xhat._shape != work:
        return None
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    w = None
    if need_x and weight is not None:
        if not _plain(weight, dtype):
            return None
        w = weight._array().reshape(ctx.pshape)
    gs = g._array()
    if not (g._contiguous if g._contiguous is not None else g.is_contiguous()):
        gs = np.ascontiguousarray(gs)   # g.contiguous()
    dims = ctx.dims
    count = _count(work, dims)
    xa = None
    if xhat is None:
        xa = x._array() if split is None else x._array().reshape(split)
    arrays = (gs if split is None else gs.reshape(split), w, mean._array(), rstd._array(),
              None if xhat is None else xhat._array(), xa, dims, pdims,
              gs.dtype.type(count), need_x, need_w, need_b, ctx.fixed)
    gx, gw, gb = run_quietly(_norm_grad_arrays, *arrays)
    device = g._storage.device
    if gx is not None:
        gx = fresh_tensor(Tensor, gx if split is None else gx.reshape(shape), shape, dtype,
                          device, CPU_BACKEND)
    if gw is not None:
        gw = np.asarray(gw).reshape(weight._shape)
        gw = fresh_tensor(Tensor, gw, gw.shape, dtype, device, CPU_BACKEND)
    if gb is not None:
        gb = np.asarray(gb).reshape(ctx.bias_shape)
        gb = fresh_tensor(Tensor, gb, gb.shape, dtype, device, CPU_BACKEND)
    return gx, gw, gb, None, None, None, None, None, None, None


def _norm_grad_arrays(gs, w, mean, rstd, xhat, x, dims, pdims, count, need_x, need_w,
                      need_b, fixed=False):
    """``_NativeNorm.backward``'s plain gradients on arrays: ``(gx, gw, gb)`` (None where not
    needed; ``gw``/``gb`` before their reshape to the parameters' shapes)."""
    if xhat is None:
        xhat = np.multiply(np.subtract(x, mean), rstd)            # (x - mean) * rstd
    gw = _SUM(np.multiply(gs, xhat), axis=pdims) if need_w else None    # .sum(pdims)
    gb = _SUM(gs, axis=pdims) if need_b else None
    gx = None
    if need_x:
        gxh = np.multiply(gs, w) if w is not None else gs         # gs * weight.view(pshape)
        if fixed:   # (fixed statistics: no path through them)
            return np.multiply(gxh, rstd), gw, gb                 # gxh * rstd
        proj = _SUM(np.multiply(gxh, xhat), axis=dims, keepdims=True) / count
        gx = np.subtract(gxh, _SUM(gxh, axis=dims, keepdims=True) / count)
        np.subtract(gx, np.multiply(xhat, proj), out=gx)          # gx.sub_(xhat * proj)
        np.multiply(gx, rstd, out=gx)                             # gx.mul_(rstd)
    return gx, gw, gb


class _NativeBatchNorm(_NativeNorm):
    _node_name = "NativeBatchNormBackward0"

    @staticmethod
    def _grad_strides(shape, layout, g):
        # PyTorch's batch_norm_backward_cpu: the input's suggested format, unless input and
        # gradient are both dense in one format (then contiguous wins an ambiguous case)
        stride = layout.input
        fmt = suggest_memory_format(shape, stride)
        if (_dense_in_a_format(shape, stride) and _dense_in_a_format(shape, g.stride())
                and suggest_memory_format(shape, g.stride()) == fmt):
            fmt = _format_when_dense(shape, stride)
        return _strides_in(shape, fmt)


class _NativeGroupNorm(_NativeNorm):
    _node_name = "NativeGroupNormBackward0"


_node_class(_NativeNorm).__name__ = "NativeLayerNormBackward0"
_node_class(_NativeBatchNorm).__name__ = "NativeBatchNormBackward0"
_node_class(_NativeGroupNorm).__name__ = "NativeGroupNormBackward0"
# The norms whose common calls compute on the arrays (``_array_forward``/``_array_backward``)
_ARRAY_NORMS = (_NativeNorm, _NativeGroupNorm, _NativeBatchNorm)


# ------------------------------------------------------------------------------ layouts
_Layout = namedtuple("_Layout", "output input contiguous_work")


def _work_view(t, split, layout):
    """``t`` viewed as ``split`` (when given), contiguous when the layout asks for it."""
    t = t if split is None else t.view(split)
    return t.contiguous() if layout.contiguous_work and not t.is_contiguous() else t


def _strides_in(shape, fmt):
    """The strides of a fresh ``shape`` tensor in the memory format named ``fmt``."""
    if fmt == "contiguous_format":
        return contiguous_strides(shape)
    return channels_last_strides(shape)


def _dense_in_a_format(shape, stride):
    """ATen's ``is_contiguous`` of the normalization kernels: contiguous, or channels-last
    contiguous (4-d) / channels-last-3d contiguous (5-d)."""
    return is_contiguous(shape, stride) or is_channels_last(shape, stride)


def _format_when_dense(shape, stride):
    """ATen's ``suggest_memory_format_contig``: contiguous first, then channels-last."""
    if is_contiguous(shape, stride):
        return "contiguous_format"
    return "channels_last_3d" if len(shape) == 5 else "channels_last"


def _restride(t, shape, strides):
    """``t`` (``shape``'s elements in order; its dims may be split) as a ``shape`` tensor
    with exactly ``strides``, where PyTorch's kernel writes its result: a view when one has
    them, else a copy."""
    src = t if tuple(t.shape) == shape else t.reshape(shape)
    if src.stride() == strides:
        return src
    return J.empty_strided(shape, strides, dtype=src.dtype, device=src.device).copy_(src)


def _group_norm_layout(x):
    """``native_group_norm``'s output and input gradient: fresh tensors in ``x``'s
    suggested memory format (channels-last for a channels-last-like 4-d/5-d input)."""
    shape, stride = tuple(x.shape), x.stride()
    return _Layout(_strides_in(shape, suggest_memory_format(shape, stride)), stride, True)


def _batch_norm_layout(x, params):
    """``batch_norm_cpu``'s output: the input's format when everything is dense (contiguous
    winning an ambiguous case), else its suggested format; an empty input's layout is kept
    (ATen returns a clone)."""
    shape, stride = tuple(x.shape), x.stride()
    dense_params = all(p is None or p.is_contiguous() for p in params)
    if x.is_contiguous() and dense_params and x.numel():  # (the common case, quickly)
        out = contiguous_strides(shape)
    elif x.numel() == 0:
        out = dense_strides_like(shape, stride)
    elif _dense_in_a_format(shape, stride) and dense_params:
        out = _strides_in(shape, _format_when_dense(shape, stride))
    else:
        out = _strides_in(shape, suggest_memory_format(shape, stride))
    return _Layout(out, stride, False)  # (reducing a channels-last input's N, H, W is fast)


def _check_dtypes(input, *params):
    """PyTorch's CPU rule: parameters share the input's dtype, except that float16/bfloat16
    inputs may take float32 parameters (its message names Float for a float32 or half input,
    "share same datatype" for any other). Returns whether to compute in float32 (low-precision
    inputs are normalized in float32 and the result cast back, as PyTorch accumulates)."""
    dtype = input.dtype
    low = dtype is _dtypes.float16 or dtype is _dtypes.bfloat16
    for p in params:
        if p is None or p.dtype is dtype:
            continue
        if low and p.dtype is _dtypes.float32:
            continue
        if low or dtype is _dtypes.float32:
            # (PyTorch's message whenever the input is float32 or a half type)
            raise TensorRuntimeError(
                f"mixed dtype (CPU): expect parameter to have scalar type of Float (the input "
                f"is {dtype}, a parameter {p.dtype})")
        raise TensorRuntimeError(
            f"mixed dtype (CPU): all inputs must share same datatype. Got input {input.dtype} "
            f"and a parameter of {p.dtype}; convert them to one dtype.")
    return low


def _f32(t):
    return None if t is None else t.float()


@nn_op()
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims (biased variance), then scale
    by ``weight`` and shift by ``bias`` (both of shape ``normalized_shape``).

    >>> import jtensor as torch
    >>> y = torch.nn.functional.layer_norm(torch.tensor([[1., 2., 3.]]), (3,))
    >>> [round(v, 4) for v in y[0].tolist()]
    [-1.2247, 0.0, 1.2247]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    k = len(normalized_shape)
    shape = tuple(input.shape)
    if k == 0:
        raise TensorRuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise TensorRuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    _check_normalized_shape(shape, normalized_shape, True)
    if _check_dtypes(input, weight, bias):
        out = layer_norm(input.float(), normalized_shape, _f32(weight), _f32(bias), eps)
        return out.to(input.dtype)
    dims = tuple(range(len(shape) - k, len(shape)))
    pshape = (1,) * (len(shape) - k) + normalized_shape
    # (PyTorch's layer_norm_cpu writes a contiguous output and input gradient)
    return _NativeNorm.apply(input, weight, bias, dims, pshape, eps, None, None,
                             _Layout(contiguous_strides(shape), input.stride(), True))


def _verify_batch_size(shape, shown=None):
    """PyTorch's check that training statistics see more than one value: the product of
    ``shape`` without its dim 1. ``shown``: how the message prints the size (batch norm's
    ``torch.Size``; group norm passes its list)."""
    size_prods = shape[0]
    for s in shape[2:]:
        size_prods *= s
    if size_prods == 1:
        raise TensorValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{shown or f'torch.Size({list(shape)})'}")


@nn_op()
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalize each channel (dim 1) of ``input`` over the batch and spatial dims.

    Training: batch mean and biased variance normalize; ``running_mean``/``running_var``
    (if given) become ``(1 - momentum) * running + momentum * batch_stat`` with the unbiased
    batch variance. Evaluation: the running statistics normalize.
    """
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise TensorValueError(
            f"batch_norm: expected an input of at least 2 dimensions (N, C, ...), got "
            f"{len(shape)}D input")
    if training:
        _verify_batch_size(shape)
    C = shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != C:
            raise TensorRuntimeError(f"{name} should contain {C} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        which = "running_mean" if running_mean is None else "running_var"
        raise TensorRuntimeError(f"{which} must be defined in evaluation mode")
    # (the layout of the caller's input, also where a low-precision one is computed in float32)
    layout = _batch_norm_layout(input, (weight, bias, running_mean, running_var))
    if _check_dtypes(input, running_mean, running_var, weight, bias):
        out = _batch_norm(input.float(), running_mean, running_var, _f32(weight), _f32(bias),
                          training, momentum, eps, layout)
        return out.to(input.dtype)
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       layout)


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                layout):
    shape = tuple(input.shape)
    C = shape[1]
    bshape = (1, C) + (1,) * (len(shape) - 2)
    dims = (0,) + tuple(range(2, len(shape)))
    if training:
        update = (running_mean, running_var, momentum) \
            if running_mean is not None or running_var is not None else None
        return _NativeBatchNorm.apply(input, weight, bias, dims, bshape, eps, None, update,
                                      layout)
    mean = running_mean.view(bshape).to(input.dtype)
    var = running_var.view(bshape).to(input.dtype)
    if not (grad_mode.enabled and any(t is not None and t._requires_grad
                                      for t in (input, weight, bias))):
        # inference: one per-channel scale and shift (two passes over the input)
        out = _inference_arrays(input, mean, var, weight, bias, eps, bshape, layout)
        if out is not None:
            return out
        scale = (var + eps).rsqrt()
        if weight is not None:
            scale = scale * weight.view(bshape)
        shift = -mean * scale
        if bias is not None:
            shift = shift + bias.view(bshape)
        return _restride(input * scale + shift, shape, layout.output)   # (a fresh version 0)
    return _NativeBatchNorm.apply(input, weight, bias, dims, bshape, eps, (mean, var), None,
                                  layout)


def _inference_arrays(x, mean, var, weight, bias, eps, bshape, layout):
    """Batch norm's inference branch (no node) on the arrays, under ``_array_forward``'s
    conditions (every tensor a plain contiguous CPU tensor of ``x``'s float dtype, ``x``
    and the output with standard strides, nothing listening): the general path's public
    ops' array calls in their order. Returns the output, or None (nothing done)."""
    dtype = x._dtype
    if not ARRAY_PATHS or dtype not in ARRAY_FLOATS or eps.__class__ not in _EPS_TYPES \
            or not _plain(x, dtype) or x._stride != layout.output \
            or x._stride != contiguous_strides(x._shape) or not _plain(mean, dtype) \
            or not _plain(var, dtype) or _listened():
        return None
    w = b = None
    if weight is not None:
        if not _plain(weight, dtype):
            return None
        w = weight._array().reshape(bshape)
    if bias is not None:
        if not _plain(bias, dtype):
            return None
        b = bias._array().reshape(bshape)
    out = run_quietly(_inference_compute, x._array(), mean._array(), var._array(), w, b, eps)
    return fresh_tensor(Tensor, out, x._shape, dtype, x._storage.device, CPU_BACKEND)


def _inference_compute(a, mean, var, w, b, eps):
    scale = np.reciprocal(np.sqrt(np.add(var, eps)))              # (var + eps).rsqrt()
    if w is not None:
        scale = np.multiply(scale, w)                             # scale * weight
    shift = np.multiply(np.negative(mean), scale)                 # -mean * scale
    if b is not None:
        shift = np.add(shift, b)                                  # shift + bias
    return np.add(np.multiply(a, scale), shift)                   # input * scale + shift


def _check_normalized_shape(shape, normalized_shape, spaced):
    k = len(normalized_shape)
    if len(shape) < k or shape[len(shape) - k:] != normalized_shape:
        sep = ", " if spaced else ""
        raise TensorRuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*{sep}{', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(shape)}")


@nn_op()
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input**2) + eps) * weight`` over the trailing
    ``normalized_shape`` dims; ``eps`` defaults to the dtype's machine epsilon."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    shape = tuple(input.shape)
    _check_normalized_shape(shape, normalized_shape, False)
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise TensorRuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(normalized_shape)}")
    if eps is None:
        eps = _dtypes.finfo(input.dtype).eps
    if _check_dtypes(input, weight):
        return rms_norm(input.float(), normalized_shape, _f32(weight), eps).to(input.dtype)
    dims = tuple(range(len(shape) - len(normalized_shape), len(shape)))
    # (PyTorch's C++ adds eps as a Scalar: AddBackward1)
    out = input * AddScalar.apply(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out


@nn_op()
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize ``(N, C, *)`` over each of ``num_groups`` groups of channels (and the
    spatial dims), then scale and shift per channel. A channels-last input gives a
    channels-last output (PyTorch's CPU kernel)."""
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise TensorRuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    N, C = shape[0], shape[1]
    # torch.nn.functional's own check (a zero num_groups fails in its division, as here)
    grouped_shape = [N * C // num_groups, num_groups, *shape[2:]]
    _verify_batch_size(grouped_shape, grouped_shape)
    if num_groups <= 0:
        raise TensorRuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if C % num_groups != 0:
        raise TensorRuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            # (ATen's message for a bad bias shows the weight's shape, [0] without one)
            shown = t if name == "weight" else weight
            raise TensorRuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {[0] if shown is None else list(shown.shape)}"
                f" and input of shape {list(shape)}")
    layout = _group_norm_layout(input)  # (the caller's input, also at low precision)
    dtype = input.dtype
    low = _check_dtypes(input, weight, bias)
    if low:
        input, weight, bias = input.float(), _f32(weight), _f32(bias)
    split = (N, num_groups, C // num_groups) + shape[2:]
    dims = tuple(range(2, len(split)))
    pshape = (1, num_groups, C // num_groups) + (1,) * (len(shape) - 2)
    out = _NativeGroupNorm.apply(input, weight, bias, dims, pshape, eps, None, None, layout,
                                 split)
    return out.to(dtype) if low else out


@nn_op(inplace="out")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``.

    >>> import jtensor as torch
    >>> torch.nn.functional.normalize(torch.tensor([[3., 4.]], dtype=torch.float64)).tolist()
    [[0.6, 0.8]]
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return J.div(input, denom, out=out)
