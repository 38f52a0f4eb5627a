"""``pad``: constant, reflect, replicate and circular padding, PyTorch's pad order (the last
dimension first: ``(left, right, top, bottom, front, back)``); negative pads crop.

Constant padding writes the input into a filled array (backward: a slice of the gradient).
The other modes gather along each padded dimension with an index array (reflect: mirror
without repeating the edge; replicate: clamp; circular: wrap) and scatter-add the gradient
back through the same indices. Under ``create_graph=True`` the constant pad's gradient is
the opposite constant pad (``ConstantPadNdBackward0`` again) and an index pad's is an op
whose derivative is the same pad (``ReflectionPad2DBackwardBackward0``...).
"""

import numpy as np

from ..._errors import TensorRuntimeError, TensorTypeError, type_name
from ..._tensor import Tensor
from ...autograd import function as _function
from ._op import nn_op
from .conv import _creates_graph, _name_node, _xp, _zeros_like_input
from .pooling import _finish, _is_cl

__all__ = ["pad"]


def _padded(ctx, xp, out, input, channels_last):
    """The forward's result ``out`` in the op's layout; ``input``'s dtype and device are kept
    on ``ctx`` for the gradient."""
    ctx.dtype, ctx.device = input._dtype, input.device
    return _finish(xp, out, channels_last, input._dtype, input.device)


def _input_grad(ctx, xp, g, channels_last):
    """The gradient array ``g`` of the input, as a tensor of its dtype, device and layout."""
    return _finish(xp, g, channels_last, ctx.dtype, ctx.device)


class _ConstantPad(_function.Function):
    @staticmethod
    def forward(ctx, input, pads, value, channels_last):
        xp = _xp(input)
        x = input._array()
        nd = len(pads)
        lead = x.ndim - nd
        shape = x.shape[:lead] + tuple(s + a + b for s, (a, b)
                                       in zip(x.shape[lead:], pads, strict=True))
        if any(s < 0 for s in shape):
            raise TensorRuntimeError(
                f"pad: the padded size {list(shape)} would be negative for input of size "
                f"{list(x.shape)}; a negative pad can remove at most the whole dimension")
        out = xp.full(shape, value, dtype=x.dtype)
        src = [slice(None)] * lead
        dst = [slice(None)] * lead
        for size, (a, b) in zip(x.shape[lead:], pads, strict=True):
            src.append(slice(max(-a, 0), size - max(-b, 0)))
            dst.append(slice(max(a, 0), max(a, 0) + max(size - max(-a, 0) - max(-b, 0), 0)))
        if all(s.start < s.stop for s in src[lead:]):
            out[tuple(dst)] = x[tuple(src)]
        ctx.slices = (tuple(src), tuple(dst), x.shape, channels_last)
        ctx.pads = pads
        return _padded(ctx, xp, out, input, channels_last)

    @staticmethod
    def backward(ctx, grad):
        if _creates_graph(grad):
            # The gradient is the padding undone (a crop), itself a constant pad: PyTorch's
            # ConstantPadNdBackward0 again, differentiable to any order.
            pads = tuple((-a, -b) for a, b in ctx.pads)
            return (_ConstantPad.apply(grad, pads, 0.0 if grad._dtype.is_floating_point else 0,
                                       ctx.slices[3]), None, None, None)
        xp = _xp(grad)
        src, dst, shape, channels_last = ctx.slices
        g = grad._array()
        gx = xp.zeros(shape, dtype=g.dtype)
        if all(s.start < s.stop for s in src if s.start is not None):
            gx[src] = g[dst]
        return _input_grad(ctx, xp, gx, channels_last), None, None, None


_name_node(_ConstantPad, "ConstantPadNdBackward0")


def _source_index(mode, size, a, b):
    i = np.arange(-a, size + b)
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= size, 2 * (size - 1) - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, size - 1)
    else:  # circular: the wrap reads from the (possibly cropped) inner region
        inner = np.arange(max(-a, 0), size - max(-b, 0))
        i = inner[np.arange(-max(a, 0), len(inner) + max(b, 0)) % len(inner)]
    return i


def _identity_run(idx):
    """The longest run ``[j0, j1)`` of consecutive source indices in ``idx`` (host array)."""
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(idx) != 1) + 1, [len(idx)]))
    k = int(np.argmax(np.diff(bounds)))
    return int(bounds[k]), int(bounds[k + 1])


class _IndexPad(_function.Function):
    @staticmethod
    def forward(ctx, input, indices, channels_last):
        xp = _xp(input)
        out = input._array()
        lead = out.ndim - len(indices)
        for k, idx in enumerate(indices):
            out = xp.take(out, xp.asarray(idx), axis=lead + k)
        ctx.meta = (indices, input._shape, lead, channels_last, input._dtype, input.device)
        if ctx._function._saves_input:  # reflect/replicate: PyTorch saves the input
            ctx.save_for_backward(input)
        return _finish(xp, out, channels_last, input._dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        fn = ctx._function
        input = ctx.saved_tensors[0] if fn._saves_input else None
        if _creates_graph(grad, input):
            return fn._backward.apply(grad, input, ctx.meta, fn), None, None
        return _index_pad_grad(ctx.meta, grad), None, None


def _index_pad_grad(meta, grad):
    """The gradient of an index pad on the arrays: scatter-add through the indices."""
    xp = _xp(grad)
    indices, shape, lead, channels_last, dtype, device = meta
    g = grad._array()
    for k in reversed(range(len(indices))):
        axis = lead + k
        idx = indices[k]
        moved = xp.moveaxis(g, axis, 0)
        acc = xp.zeros((shape[axis],) + moved.shape[1:], dtype=g.dtype)
        # The copied run (idx[j] == idx[j0] + j - j0) goes in one slice add; only the
        # padded positions, usually few, are added one by one.
        j0, j1 = _identity_run(idx)
        if j1 > j0:
            acc[idx[j0]:idx[j0] + j1 - j0] += moved[j0:j1]
        for j in list(range(j0)) + list(range(j1, len(idx))):
            acc[idx[j]] += moved[j]
        g = xp.moveaxis(acc, 0, axis)
    return _finish(xp, g, channels_last, dtype, device)


class _IndexPadBackward(_function.Function):
    """An index pad's gradient as an op of ``(grad, input)`` (``create_graph=True``): linear
    in ``grad``, whose derivative is the same pad (a gather) applied again; constant in
    ``input`` (zeros, as PyTorch's ``ReflectionPad2DBackwardBackward0``)."""

    @staticmethod
    def forward(ctx, grad, input, meta, pad_fn):
        ctx.meta, ctx.pad_fn = meta, pad_fn
        return _index_pad_grad(meta, grad)

    @staticmethod
    def backward(ctx, gg):
        need_g, need_x = ctx.needs_input_grad[:2]
        g_grad = g_input = None
        if need_g:
            g_grad = ctx.pad_fn.apply(gg, ctx.meta[0], ctx.meta[3])
        if need_x:
            g_input = _zeros_like_input(ctx, 1)
        return g_grad, g_input, None, None


_PAD_NAMES = {"reflect": "ReflectionPad", "replicate": "ReplicationPad"}
_INDEX_FUNCTIONS = {}


def _index_function(mode, nd):
    key = (mode, nd)
    fn = _INDEX_FUNCTIONS.get(key)
    if fn is None:
        fn = type(f"_{mode}_pad{nd}d", (_IndexPad,), {})
        # PyTorch's circular mode is a composite of copies into slices (CopySlices), which
        # saves nothing; its gradient's node is SliceBackwardBackward0.
        fn._saves_input = mode in _PAD_NAMES
        name = f"{_PAD_NAMES[mode]}{nd}DBackward0" if mode in _PAD_NAMES else "CopySlices"
        _name_node(fn, name)
        fn._backward = type(f"_{mode}_pad{nd}d_backward", (_IndexPadBackward,), {})
        _name_node(fn._backward, name.replace("Backward0", "BackwardBackward0")
                   if mode in _PAD_NAMES else "SliceBackwardBackward0")
        _INDEX_FUNCTIONS[key] = fn
    return fn


@nn_op()
def pad(input, pad, mode="constant", value=None):
    """Pad ``input``, as ``torch.nn.functional.pad``. ``pad`` lists ``(before, after)``
    pairs starting from the last dimension; ``mode`` is ``'constant'`` (with ``value``,
    default 0), ``'reflect'``, ``'replicate'`` or ``'circular'`` (these pad the last 1, 2
    or 3 dimensions of a batched or unbatched input). Negative pads remove elements.

    >>> import jtensor as torch
    >>> torch.nn.functional.pad(torch.ones(2, 2), (1, 0, 0, 1)).shape
    torch.Size([3, 3])
    """
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                              f"{type_name(input)}")
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise TensorRuntimeError("Padding length must be divisible by 2")
    ndim = input.dim()
    if len(pad) // 2 > ndim:
        raise TensorRuntimeError(
            f"Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {ndim}")
    npairs = len(pad) // 2
    # pairs in dimension order (first padded dim first)
    pairs = tuple((pad[2 * k], pad[2 * k + 1]) for k in reversed(range(npairs)))
    channels_last = _is_cl(input)
    if mode == "constant":
        fill = 0 if value is None else value
        if input._dtype.is_floating_point:
            fill = float(fill)
        elif input._dtype.numpy == np.bool_:
            fill = bool(fill)
        else:
            fill = int(fill)
        return _ConstantPad.apply(input, pairs, fill, channels_last)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise TensorRuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if npairs not in (1, 2, 3) or ndim not in (npairs + 1, npairs + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    shape = input._shape
    lead = ndim - npairs
    indices = []
    for k, (a, b) in enumerate(pairs):
        size = shape[lead + k]
        if mode == "reflect" and (a >= size or b >= size):
            raise TensorRuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({a}, {b}) at dimension {lead + k} of input "
                f"{list(shape)}")
        if mode == "circular" and (a > size or b > size):
            raise TensorRuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and size == 0:
            raise TensorRuntimeError(f"pad(): replicate padding needs a non-empty dimension "
                                     f"{lead + k}, input has size {list(shape)}")
        if size + a + b < 0 or (mode != "constant" and size + a + b < 1):
            raise TensorRuntimeError(
                f"pad(): the padded size of dimension {lead + k} would be {size + a + b} for "
                f"input of size {list(shape)} and padding ({a}, {b})")
        indices.append(_source_index(mode, size, a, b))
    # PyTorch's circular composite writes into a fresh contiguous tensor.
    return _index_function(mode, npairs).apply(input, tuple(indices),
                                               channels_last and mode != "circular")
