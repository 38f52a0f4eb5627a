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
"""

from collections import namedtuple

from ... import _dtypes
from ..._api import ops as J
from ..._dispatch import grad_mode
from ..._errors import TensorRuntimeError, TensorValueError
from ..._layout import (channels_last_strides, contiguous_strides, dense_strides_like,
                        is_channels_last, is_contiguous, suggest_memory_format)
from ...autograd.function import Function, _node_class
from ._op import nn_op

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

    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def _grad_strides(shape, layout, g):
        return layout.output

    @staticmethod
    def forward(ctx, x, weight, bias, dims, pshape, eps, stats, update=None, layout=None,
                split=None):
        xs = _work_view(x, split, layout)
        if stats is None:
            mean = xs.mean(dims, keepdim=True)
            xhat = xs - mean  # reused: centred values, then normalized in place
            var = (xhat * xhat).mean(dims, keepdim=True)
            if update is not None:  # batch norm's running statistics
                running_mean, running_var, momentum = update
                C = running_mean.numel() if running_mean is not None else running_var.numel()
                n = x.numel() // C
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(
                        mean.reshape(C).to(running_mean.dtype), alpha=momentum)
                if running_var is not None:
                    running_var.mul_(1 - momentum).add_(
                        (var.reshape(C) * (n / (n - 1))).to(running_var.dtype), alpha=momentum)
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
        ctx.save_for_backward(x, weight, mean, rstd, xhat if affine else None)
        ctx.dims, ctx.pshape, ctx.eps, ctx.fixed = dims, pshape, eps, stats is not None
        ctx.param_dims = tuple(d for d in range(len(pshape)) if pshape[d] == 1)
        ctx.split, ctx.layout = split, layout
        ctx.bias_shape = None if bias is None else bias.shape
        return _restride(out, tuple(x.shape), layout.output)

    @staticmethod
    def backward(ctx, g):
        x, weight, mean, rstd, xhat = ctx.saved_tensors
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
        return gx, gw, gb, None, None, None, None, None, None, None


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
    inputs may take float32 parameters. Returns whether to compute in float32 (low-precision
    inputs are normalized in float32 and the result cast back, as PyTorch accumulates)."""
    low = str(input.dtype) in ("torch.float16", "torch.bfloat16")
    for p in params:
        if p is None or p.dtype == input.dtype:
            continue
        if low and str(p.dtype) == "torch.float32":
            continue
        if low:
            raise TensorRuntimeError(
                "mixed dtype (CPU): expect parameter to have scalar type of Float")
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
        scale = (var + eps).rsqrt()
        if weight is not None:
            scale = scale * weight.view(bshape)
        shift = -mean * scale
        if bias is not None:
            shift = shift + bias.view(bshape)
        out = input * scale
        return _restride(out.add_(shift), shape, layout.output)
    return _NativeBatchNorm.apply(input, weight, bias, dims, bshape, eps, (mean, var), None,
                                  layout)


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
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
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
