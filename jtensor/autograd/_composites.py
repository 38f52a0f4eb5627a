"""Ops PyTorch composes from other ops when autograd records, recorded step by step.

PyTorch's ``matmul`` is not one op for autograd (ATen's ``_matmul_impl``): apart from
``dot``, ``mv`` and ``mm`` (1-D @ 1-D, 2-D @ 1-D, 2-D @ 2-D), it calls other ops and each
records its own node. A batched product expands both operands to the broadcast batch,
reshapes them to 3-D, calls ``bmm`` and reshapes the result back with ``_unsafe_view``. A
product whose larger operand can be folded into rows (a batch of matrices with a shared
matrix, or the shared matrix requiring grad) reshapes to 2-D and calls ``mm`` or ``mv``.
1-D @ 2-D unsqueezes, calls ``mm`` and squeezes in place. A ``reshape`` (``flatten``,
``reshape_as``) that cannot view its input clones it and ``_unsafe_view``s the clone.
``einsum`` aligns its operands by diagonals, unsqueezes and permutes, and contracts them
pairwise with ``bmm`` (or ``mul``). ``outer`` is ``input.reshape(-1, 1) * vec2``; ``diff``
joins prepend and append with ``cat`` and subtracts two ``narrow``s per order.

The ``recorded_*`` functions run those steps with the public ops when a call records (the
graph a learner draws is PyTorch's, node for node); the call stays one event in a trace.
Without recording, each op stays one array computation (the same values).
"""

import math
import warnings

from .. import _dispatch, _dtypes
from .._api import ops as J
from .._arraymod import chain_order
from .._dispatch import OpDef, grad_mode
from .._errors import user_stacklevel, wrap_dim
from .._layout import broadcast_shapes, contiguous_strides, infer_size, view_strides
from .._ops.products import (_check_matmul, _check_tensors, check_einsum, einsum_arguments,
                             einsum_steps, kron_shapes)
from .._ops.statistics import DOF_WARNING, check_diff, cov_weights
from .._ops.splitting import _split_spec
from .._ops.indexing import _is_basic
from .._ops.views import (_new_strides, basic_index, reshape_views, sizes_from_args,
                          tensor_split_bounds, view_size_error)
from .._tensor import DENSE_CLASSES, Tensor, contiguous_format
from .graph import Formula, _record_tensors


def mT_geometry(t):
    """(shape, stride) of ``t.mT`` (without making it: a sparse operand's is costly)."""
    shape, stride = tuple(t._shape), tuple(t._stride)
    return shape[:-2] + shape[:-3:-1], stride[:-2] + stride[:-3:-1]


def should_fold(t1, t2, has_out):
    """ATen's ``should_fold``: whether ``matmul`` folds the batch of the operand with more
    dims into the rows of one ``mm``/``mv`` (a sparse tensor's strides are zeros, as
    PyTorch reports them)."""
    larger = t1.dim() >= t2.dim()
    shape, stride = (tuple(t1._shape), tuple(t1._stride)) if larger else mT_geometry(t2)
    if not (len(shape) >= 3 and (t2 if larger else t1).dim() <= 2):
        return False
    if (t2 if larger else t1).requires_grad and not has_out:
        return True  # PyTorch copies here rather than keep a batch-sized gradient
    if t1.dim() == 2:
        return False
    if 0 in shape:
        return True
    return all(stride[i] == stride[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _unsafe_view_impl(input, shape):
    """ATen's ``_unsafe_view``: ``input`` (most often a tensor nobody else holds, fresh from
    an op) seen with another shape, with ``view``'s strides and error, as a new tensor
    rather than a view of it (no base, a version counter of its own)."""
    if input.is_contiguous():
        stride = contiguous_strides(shape)
    else:
        stride = view_strides(input._shape, input._stride, shape)
        if stride is None:
            raise view_size_error(input._shape, input._stride, shape)
    return Tensor._make(input._storage, shape, tuple(stride), input._offset, input._dtype)


def _unsafe_view_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


# An op of its own for the recorder (not published: PyTorch has no ``torch._unsafe_view``).
_UNSAFE_VIEW = OpDef("_unsafe_view", "copy", _unsafe_view_impl, False, False)
_UNSAFE_VIEW.backward = Formula(_UNSAFE_VIEW, _unsafe_view_backward, ("input",),
                                name="UnsafeViewBackward0")


def unsafe_view(t, shape):
    """``_unsafe_view(t, shape)``, recorded (``UnsafeViewBackward0``) when ``t`` needs it."""
    shape = tuple(shape)
    if t._requires_grad and grad_mode.record:
        return _record_tensors(_UNSAFE_VIEW, _UNSAFE_VIEW.backward, _unsafe_view_impl,
                               (t, shape))
    return _unsafe_view_impl(t, shape)


def reshape_steps(t, shape):
    """PyTorch's ``reshape`` step by step: a view where the strides allow it, else a
    contiguous clone (``CloneBackward0``) and its ``_unsafe_view``."""
    shape = tuple(shape)
    if reshape_views(t, shape):
        return t.reshape(shape)
    return _clone_and_view(t, shape)


def matmul_steps(tensor1, tensor2):
    """``tensor1 @ tensor2`` through the ops PyTorch's ``_matmul_impl`` calls (each
    recording its node); None for the products that are one op (``dot``, ``mv``, ``mm``)."""
    d1, d2 = tensor1.dim(), tensor2.dim()
    if (d1, d2) in ((1, 1), (2, 1), (2, 2)):
        return None
    if d1 == 1 and d2 == 2:
        return tensor1.unsqueeze(0).mm(tensor2).squeeze_(0)
    if should_fold(tensor1, tensor2, False):
        transpose = d2 > d1
        t1 = tensor2.mT if transpose else tensor1
        t2 = (tensor1.t() if d1 == 2 else tensor1) if transpose else tensor2
        sizes = tuple(t1.shape)
        output_shape = list(sizes[:-1])
        folded = reshape_steps(t1, (math.prod(output_shape), sizes[-1]))
        if t2.dim() == 2:
            output = unsafe_view(folded.mm(t2), output_shape + [t2.shape[1]])
            return output.mT.contiguous() if transpose else output
        return unsafe_view(folded.mv(t2), output_shape)
    shape1, shape2 = tensor1._shape, tensor2._shape
    n = shape1[-2] if d1 > 1 else 1
    m1 = shape1[-1]
    batch1 = shape1[:max(d1 - 2, 0)]
    m2 = shape2[-2] if d2 > 1 else shape2[0]
    p = shape2[-1] if d2 > 1 else 1
    batch2 = shape2[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad is squeezed away (its gradient then needs no
        # sum over a broadcast batch).
        if batch1[0] == 1 and tensor1.requires_grad:
            return _steps_or_product(tensor1.squeeze(0), tensor2)
        if batch2[0] == 1 and tensor2.requires_grad:
            return _steps_or_product(tensor1, tensor2.squeeze(0))
    output_shape = list(batch1 if batch1 == batch2 else broadcast_shapes(batch1, batch2))
    count = math.prod(output_shape)
    expanded1 = reshape_steps(tensor1.expand(*output_shape, n, m1), (count, n, m1))
    if d2 == 1:
        expanded2 = reshape_steps(tensor2.expand(*output_shape, m2), (count, m2)).unsqueeze(2)
    else:
        expanded2 = reshape_steps(tensor2.expand(*output_shape, m2, p), (count, m2, p))
    product = expanded1.bmm(expanded2)
    if d1 > 1:
        output_shape.append(n)
    if d2 > 1:
        output_shape.append(p)
    return unsafe_view(product.squeeze(-1) if d2 == 1 else product, output_shape)


def _steps_or_product(tensor1, tensor2):
    result = matmul_steps(tensor1, tensor2)
    return result if result is not None else tensor1.matmul(tensor2)


def recorded_matmul(op, args, kwargs):
    """A recorded ``matmul`` call (``graph.record_call``'s composite): PyTorch's steps,
    each recorded, then one ``matmul`` event for the trace; None (nothing done) for a call
    that is one op (or has ``out=``, which the recorder refuses)."""
    # (The one-op products, 2-D @ 2-D the commonest, leave first: every recorded matmul
    # call asks.)
    if len(args) != 2:
        return None
    tensor1, tensor2 = args
    if tensor1.__class__ not in DENSE_CLASSES or tensor2.__class__ not in DENSE_CLASSES:
        return None
    d1, d2 = len(tensor1._shape), len(tensor2._shape)
    if (d1 <= 2 and d2 <= 2 and not (d1 == 1 and d2 == 2)) or not d1 or not d2 \
            or (kwargs and kwargs.get("out") is not None):
        return None   # (a 0-d operand: the op raises PyTorch's error)
    _check_tensors("matmul", ("input", tensor1), ("other", tensor2))
    _check_matmul(tensor1, tensor2)
    result = _dispatch.untraced(matmul_steps, tensor1, tensor2)
    return _dispatch.notify(op, (tensor1, tensor2), result)


def recorded_einsum(op, args, kwargs):
    """A recorded ``einsum``: ATen's steps (``einsum_steps``: diagonals, unsqueezes,
    permutes, sums, ``bmm`` or ``mul``, views), each recorded, then one ``einsum`` event for
    the trace. None (nothing done) where an operand is not a plain strided tensor."""
    if kwargs:
        return None   # (the op raises its own error)
    equation, operands = einsum_arguments(args)
    if any(t.__class__ not in DENSE_CLASSES for t in operands):
        return None
    eq, parsed, out = check_einsum(equation, operands)
    result = _dispatch.untraced(einsum_steps, operands, parsed, out, "->" in eq)
    return _dispatch.notify(op, operands, result)


def recorded_reshape(op, args, kwargs):
    """A recorded ``reshape``, ``reshape_as`` or ``flatten`` that copies (its input's strides
    allow no view of the new shape): PyTorch's contiguous clone (``CloneBackward0``) and its
    ``_unsafe_view`` (``UnsafeViewBackward0``), then one event for the trace. None (nothing
    done) for a call that views, or whose arguments the op itself must judge."""
    input = args[0] if args else kwargs.get("input")
    if input.__class__ not in DENSE_CLASSES:
        return None
    contiguous = input._contiguous   # (known for most tensors: no call)
    if contiguous or (contiguous is None and input.is_contiguous()):
        return None   # (a view: the op's own node)
    if op.name == "reshape" and not kwargs and len(args) == 2:
        try:
            if reshape_views(input, sizes_from_args((args[1],))):
                return None   # (a view: the op's own node)
        except (RuntimeError, TypeError):
            return None   # (the op raises its own error)
    values = op.backward.bind(args, kwargs)
    try:
        if op.name == "reshape":
            shape = infer_size(tuple(sizes_from_args((values["shape"],))), input.numel())
        elif op.name == "reshape_as":
            shape = values["other"]._shape
        else:   # flatten
            ndim = input.dim()
            start = wrap_dim(values.get("start_dim", 0), ndim)
            end = wrap_dim(values.get("end_dim", -1), ndim)
            if start >= end:
                return None
            shape = input._shape[:start] + (math.prod(input._shape[start:end + 1]),) \
                + input._shape[end + 1:]
    except (RuntimeError, IndexError, TypeError, AttributeError):
        return None   # (the op raises its own error)
    if _new_strides(input, tuple(shape)) is not None:
        return None
    result = _dispatch.untraced(_clone_and_view, input, shape)
    info = op.post.info(result, *args, **kwargs) if op.post is not None \
        and op.post.info is not None else None
    return _dispatch.notify(op, (input,), result, None, info)


def _clone_and_view(input, shape):
    return unsafe_view(input.clone(memory_format=contiguous_format), shape)


def recorded_outer(op, args, kwargs):
    """A recorded ``outer`` (``ger``): PyTorch's ``input.reshape(-1, 1) * vec2`` (a
    ``MulBackward0`` whose first edge goes through the reshape's ``ViewBackward0``)."""
    values = op.backward.bind(args, kwargs)
    input, vec2 = values.get("input"), values.get("vec2")
    if values.get("out") is not None or input.__class__ not in DENSE_CLASSES \
            or vec2.__class__ not in DENSE_CLASSES or input.dim() != 1 or vec2.dim() != 1:
        return None   # (the op raises its own error, or is not PyTorch's composite)
    result = _dispatch.untraced(lambda: input.reshape(-1, 1) * vec2)
    return _dispatch.notify(op, (input, vec2), result)


def recorded_diff(op, args, kwargs):
    """A recorded ``diff``: PyTorch's steps (``cat`` of prepend, input and append; then per
    order ``narrow(1, len) - narrow(0, len)``, a logical xor for bool): a ``SubBackward0``
    over two ``SliceBackward0`` each time. Order 0 is a copy into ``zeros_like``."""
    values = op.backward.bind(args, kwargs)
    input = values.get("input")
    n = values.get("n", 1)
    dim = values.get("dim", -1)
    prepend, append = values.get("prepend"), values.get("append")
    if values.get("out") is not None or input.__class__ not in DENSE_CLASSES:
        return None
    d = check_diff(input, n, dim, prepend, append)
    parts = [p for p in (prepend, input, append) if p is not None]
    result = _dispatch.untraced(_diff_steps, input, parts, n, d)
    return _dispatch.notify(op, tuple(parts), result)


def _diff_steps(input, parts, n, dim):
    if n == 0:   # the input alone, copied into zeros of its layout (``CopyBackwards``)
        return J.zeros_like(input).copy_(input)
    result = parts[0] if len(parts) == 1 else J.cat(parts, dim)
    length = result.shape[dim] - 1
    for _ in range(min(n, result.shape[dim])):
        hi, lo = result.narrow(dim, 1, length), result.narrow(dim, 0, length)
        result = hi.logical_xor(lo) if result.dtype is _dtypes.bool_ else hi - lo
        length -= 1
    return result


def recorded_repeat_interleave(op, args, kwargs):
    """A recorded ``repeat_interleave`` by a number of repeats: PyTorch's steps (``flatten``
    when ``dim`` is None, ``unsqueeze(dim + 1)``, ``expand``, a contiguous clone, then
    ``flatten(dim, dim + 1)``), so ``ViewBackward0 -> CloneBackward0 -> ExpandBackward0 ->
    UnsqueezeBackward0``. A tensor of repeats without ``dim`` flattens first, then takes the
    op's own node (PyTorch's ``index_select``); None for arguments the op must judge."""
    values = op.backward.bind(args, kwargs)
    input, repeats, dim = values.get("input"), values.get("repeats"), values.get("dim")
    if isinstance(repeats, Tensor) and dim is None and input.__class__ in DENSE_CLASSES \
            and input.dim() != 1 and repeats.__class__ in DENSE_CLASSES:
        # A tensor of repeats over the flattened input: ``flatten`` (a view), then the
        # op along dim 0 (its ``index_select`` node).
        size = values.get("output_size")
        return _composed(op, (input,), lambda: J.repeat_interleave(
            input.flatten(), repeats, dim=0, output_size=size))
    if input.__class__ not in DENSE_CLASSES or repeats is None or isinstance(repeats, Tensor) \
            or values.get("output_size") is not None or repeats.__class__ is not int \
            or repeats < 0 or (dim is not None and input.dim() == 0):
        return None
    if dim is not None:
        try:
            dim = wrap_dim(dim, input.dim())
        except (IndexError, TypeError):
            return None   # (the op raises its own error)
    result = _dispatch.untraced(_repeat_steps, input, repeats, dim)
    return _dispatch.notify(op, (input,), result)


def _repeat_steps(input, repeats, dim):
    if dim is None:
        input, dim = input.flatten(), 0
    widened = input.unsqueeze(dim + 1)
    shape = list(widened.shape)
    shape[dim + 1] = repeats
    return widened.expand(shape).clone(memory_format=contiguous_format).flatten(dim, dim + 1)


# ------------------------------------------------ stacking, atleast_*d, ravel, sum_to_size
# PyTorch writes these as composites of other ops: recorded, they leave those ops' nodes.

def _atleast_steps(t, n):
    """``atleast_{n}d`` of one tensor as PyTorch's steps: a 0-d tensor reshaped, a 1-d one
    unsqueezed in front (and, for 3-d, at the end), a 2-d one at the end for 3-d."""
    d = t.dim()
    if d >= n:
        return t
    if d == 0:
        return t.reshape((1,) * n)
    if d == 1:
        t = t.unsqueeze(0)
    return t.unsqueeze(-1) if n == 3 else t


def _plain_list(tensors):
    return isinstance(tensors, (list, tuple)) and tensors \
        and all(t.__class__ in DENSE_CLASSES for t in tensors)


def _composed(op, inputs, body, *args):
    """``body(*args)`` (public ops, each recording its node) out of the trace, which sees
    one event for ``op``; None when a step raises (the op then raises its own error)."""
    try:
        result = _dispatch.untraced(body, *args)
    except Exception:
        return None
    return _dispatch.notify(op, tuple(inputs), result)


def recorded_atleast(op, args, kwargs):
    """A recorded ``atleast_1d``/``2d``/``3d``: ``_atleast_steps`` for each tensor (one
    given, several, or a list)."""
    if kwargs or not args:
        return None
    single = len(args) == 1 and args[0].__class__ in DENSE_CLASSES
    tensors = args if single or not isinstance(args[0], (list, tuple)) else args[0]
    if not _plain_list(tensors):
        return None
    n = int(op.name[-2])
    result = _composed(op, tensors, lambda: tuple(_atleast_steps(t, n) for t in tensors))
    return result if result is None or not single else result[0]


def _stacked(name, tensors):
    if name == "column_stack":
        tensors = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
        name = "hstack"
    n, dim = {"hstack": (1, None), "vstack": (2, 0), "row_stack": (2, 0),
              "dstack": (3, 2)}[name]
    parts = [_atleast_steps(t, n) for t in tensors]
    if dim is None:
        dim = 0 if parts[0].dim() == 1 else 1
    return J.cat(parts, dim)


def recorded_stacking(op, args, kwargs):
    """A recorded ``hstack``/``vstack``/``row_stack``/``dstack``/``column_stack``:
    PyTorch's ``cat`` of the inputs made at least 1-, 2- or 3-d (``column_stack``: 0-d and
    1-d inputs reshaped to columns first), so ``CatBackward0`` over those steps' nodes."""
    tensors = args[0] if args else kwargs.get("tensors")
    if kwargs.get("out") is not None or len(args) > 1 or not _plain_list(tensors):
        return None
    return _composed(op, tensors, _stacked, op.name, tensors)


def recorded_ravel(op, args, kwargs):
    """A recorded ``ravel`` of a non-contiguous tensor: PyTorch's ``contiguous().view(-1)``
    (``CloneBackward0``, then ``ViewBackward0``: a view of the copy)."""
    input = args[0] if args else kwargs.get("input")
    if input.__class__ not in DENSE_CLASSES or input.is_contiguous():
        return None
    return _composed(op, (input,), lambda: input.contiguous().view(-1))


def recorded_sum_to_size(op, args, kwargs):
    """A recorded ``sum_to_size`` that sums: PyTorch's ``sum_to`` (``sum`` over the dims to
    reduce with ``keepdim``, ``SumBackward1``; then ``view`` to drop the leading ones)."""
    input = args[0] if args else None
    if kwargs or input.__class__ not in DENSE_CLASSES or len(args) < 2:
        return None
    try:
        size = tuple(sizes_from_args(args[1:], "size"))
    except (TypeError, RuntimeError):
        return None
    shape = tuple(input._shape)
    lead = len(shape) - len(size)
    if size == shape or lead < 0 or any(s != shape[lead + i] and s != 1
                                        for i, s in enumerate(size)):
        return None
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)

    def steps():
        reduced = input.sum(dims, keepdim=True) if dims else input
        return reduced.view(size) if lead else reduced

    return _composed(op, (input,), steps)


def recorded_broadcast_tensors(op, args, kwargs):
    """A recorded ``broadcast_tensors``: each input not already of the common shape is
    ``expand``ed to it (an ``ExpandBackward0`` each), the others handed back."""
    if kwargs or not _plain_list(args):
        return None
    try:
        shape = tuple(broadcast_shapes(*(t._shape for t in args)))
    except (RuntimeError, ValueError):
        return None
    return _composed(op, args, lambda: tuple(t if tuple(t._shape) == shape else t.expand(shape)
                                             for t in args))


def recorded_meshgrid(op, args, kwargs):
    """A recorded ``meshgrid``: PyTorch's ``view`` of each input along its own dim, then
    ``expand`` to the grid (with ``indexing="xy"`` the first two inputs swap places, and
    their grids swap back)."""
    indexing = kwargs.get("indexing", "ij")
    tensors = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    if set(kwargs) - {"indexing"} or indexing not in ("ij", "xy") or not _plain_list(tensors) \
            or any(t.dim() > 1 for t in tensors):
        return None
    tensors = list(tensors)

    def steps():
        ts = tensors[:]
        swap = indexing == "xy" and len(ts) >= 2
        if swap:
            ts[0], ts[1] = ts[1], ts[0]
        shape = tuple(t.numel() for t in ts)
        grids = []
        for i, t in enumerate(ts):
            view = [1] * len(ts)
            view[i] = -1
            grids.append(t.view(view).expand(shape))
        if swap:
            grids[0], grids[1] = grids[1], grids[0]
        return tuple(grids)

    return _composed(op, tensors, steps)


def recorded_cartesian_prod(op, args, kwargs):
    """A recorded ``cartesian_prod`` of two or more 1-D tensors: ATen's ``meshgrid`` of
    them (``indexing="ij"``), each grid flattened (a copy of the expanded grid), stacked
    along dim 1."""
    if kwargs or len(args) < 2 or not _plain_list(args) or any(t.dim() != 1 for t in args):
        return None

    def steps():
        grids = J.meshgrid(*args, indexing="ij")
        return J.stack([g.flatten() for g in grids], 1)

    return _composed(op, args, steps)


def recorded_combinations(op, args, kwargs):
    """A recorded ``combinations`` of a 1-D tensor: ATen's ``meshgrid`` of ``r`` copies
    of it, each grid's elements where the indices increase (``<=`` with replacement)
    picked by ``masked_select``, the picks stacked along dim 1."""
    values = op.backward.bind(args, kwargs)
    input, r = values.get("input"), values.get("r", 2)
    with_replacement = values.get("with_replacement", False)
    if not _dense(input) or input.dim() != 1 or r.__class__ is not int or r < 1 \
            or with_replacement.__class__ is not bool:
        return None
    n = input.shape[0]

    def steps():
        grids = J.meshgrid(*([input] * r), indexing="ij")
        # (ATen's _triu_mask: integer grids, nothing recorded)
        index = J.meshgrid(*([J.arange(n, device=input.device)] * r), indexing="ij")
        mask = J.ones((n,) * r, dtype=_dtypes.bool_, device=input.device)
        for lower, upper in zip(index, index[1:], strict=False):
            mask &= (lower <= upper) if with_replacement else (lower < upper)
        return J.stack([g.masked_select(mask) for g in grids], 1)

    return _composed(op, (input,), steps)


def recorded_take_along_dim(op, args, kwargs):
    """A recorded ``take_along_dim``: PyTorch's ``gather`` of the input ``expand``ed to the
    broadcast of its shape with the indices' (each at its own size along ``dim``), or, with
    no ``dim``, of both viewed as 1-d."""
    values = op.backward.bind(args, kwargs)
    input, indices, dim = values.get("input"), values.get("indices"), values.get("dim")
    if values.get("out") is not None or input.__class__ not in DENSE_CLASSES \
            or indices.__class__ not in DENSE_CLASSES or indices._dtype is not _dtypes.int64 \
            or (dim is not None and input.dim() != indices.dim()):
        return None

    def steps():
        if dim is None:
            return input.view(-1).gather(0, indices.view(-1))
        d = wrap_dim(dim, input.dim())
        sizes = list(input._shape)
        sizes[d] = indices._shape[d]
        index = indices.expand(broadcast_shapes(tuple(sizes), indices._shape))
        sizes = list(indices._shape)
        sizes[d] = input._shape[d]
        return input.expand(broadcast_shapes(tuple(sizes), input._shape)).gather(d, index)

    return _composed(op, (input, indices), steps)


def recorded_nanmean(op, args, kwargs):
    """A recorded ``nanmean``: PyTorch's ``nansum`` divided by the count of numbers
    (``DivBackward0`` over ``NansumBackward0``)."""
    values = op.backward.bind(args, kwargs)
    input = values.get("input")
    if values.get("out") is not None or input.__class__ not in DENSE_CLASSES \
            or not input.is_floating_point():
        return None
    dim, keepdim, dtype = values.get("dim"), values.get("keepdim", False), values.get("dtype")

    def steps():
        if dim is None:
            count = input.isnan().logical_not().sum()
            return input.nansum(dtype=dtype).div(count)
        count = input.isnan().logical_not().sum(dim, keepdim)
        return input.nansum(dim, keepdim, dtype=dtype).div(count)

    return _composed(op, (input,), steps)


def recorded_diagflat(op, args, kwargs):
    """A recorded ``diagflat``: PyTorch's ``contiguous().view(-1).diag(offset)``."""
    values = op.backward.bind(args, kwargs)
    input, offset = values.get("input"), values.get("offset", 0)
    if input.__class__ not in DENSE_CLASSES or offset.__class__ is not int:
        return None
    return _composed(op, (input,), lambda: input.contiguous().view(-1).diag(offset))


def recorded_vecdot(op, args, kwargs):
    """A recorded ``linalg.vecdot`` of batches: PyTorch's ``(x.conj() * y).sum(dim)``."""
    values = op.backward.bind(args, kwargs)
    x, y, dim = values.get("x"), values.get("y"), values.get("dim", -1)
    if values.get("out") is not None or x.__class__ not in DENSE_CLASSES \
            or y.__class__ not in DENSE_CLASSES or x._dtype is not y._dtype \
            or (x.dim() == 1 and y.dim() == 1):   # (two vectors: vdot, the op's own node)
        return None
    return _composed(op, (x, y), lambda: (x.conj() * y).sum(dim))


def recorded_tensor_split(op, args, kwargs):
    """A recorded ``tensor_split`` (``hsplit``, ``vsplit``, ``dsplit``): PyTorch's pieces,
    each its own ``slice`` of the input (a ``SliceBackward0`` per piece, where ``split`` and
    ``chunk`` share one ``SplitBackward0``)."""
    values = op.backward.bind(args, kwargs)
    input = values.get("input")
    if input.__class__ not in DENSE_CLASSES or _dispatch.transforms.active:
        return None   # (under a transform, the op's one node: its backward is batched)

    def steps():
        if op.name == "tensor_split":
            dim, bounds = tensor_split_bounds(
                input, values.get("tensor_indices_or_sections"), values.get("dim", 0),
                values.get("indices"), values.get("sections"))
        else:
            dim, spec = _split_spec(op.name, input, values.get("indices"), values.get("sections"))
            dim, bounds = tensor_split_bounds(input, spec, dim)
        return tuple(input.narrow(dim, start, length) for start, length in bounds)

    return _composed(op, (input,), steps)


# ---------------------------------------------------------------------- products and integrals
# PyTorch composes these from other ops (ATen's CompositeImplicitAutograd kernels): recorded,
# each step leaves its node. Without recording each op stays one array computation.

def _dense(*tensors):
    return all(t.__class__ in DENSE_CLASSES for t in tensors)


def recorded_kron(op, args, kwargs):
    """A recorded ``kron``: ATen's ``_unsafe_view``s of both inputs (a0, 1, a1, 1, ...) and
    (1, b0, 1, b1, ...), their product, and its ``_unsafe_view`` to the result's shape."""
    values = op.backward.bind(args, kwargs)
    input, other = values.get("input"), values.get("other")
    if values.get("out") is not None or not _dense(input, other):
        return None
    try:
        a_shape, b_shape, result, _ = kron_shapes(input, other)
    except RuntimeError:
        return None   # (the op raises it)
    return _composed(op, (input, other), lambda: unsafe_view(
        unsafe_view(input, a_shape) * unsafe_view(other, b_shape), result))


def tensordot_steps(a, b, dims_a, dims_b):
    """ATen's ``tensordot``: size-1 contracted dims summed first (keepdim), both operands
    permuted (free dims, then contracted ones for ``a``; contracted, then free for ``b``),
    reshaped to matrices, one ``mm``, reshaped to the free dims."""
    t1, t2, csize = a, b, 1
    for d1, d2 in zip(dims_a, dims_b, strict=True):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:
            t1 = t1.sum(d1, True)
        elif s1 == 1:
            t2 = t2.sum(d2, True)
        else:
            csize *= s1
    contracted_a = {wrap_dim(d, a.dim()) for d in dims_a}
    contracted_b = {wrap_dim(d, b.dim()) for d in dims_b}
    free_a = [i for i in range(a.dim()) if i not in contracted_a]
    free_b = [i for i in range(b.dim()) if i not in contracted_b]
    sizes = [t1.shape[i] for i in free_a] + [t2.shape[i] for i in free_b]
    size1 = math.prod(t1.shape[i] for i in free_a)
    size2 = math.prod(t2.shape[i] for i in free_b)
    t1, t2 = t1.permute(free_a + list(dims_a)), t2.permute(list(dims_b) + free_b)
    if size1 == 1 and size2 == 1:
        # A full contraction: one ``dot`` of the flattened operands where both permuted
        # ones are contiguous, else a product of the squeezed ones, summed.
        if t1.is_contiguous() and t2.is_contiguous():
            return reshape_steps(t1.flatten().dot(t2.flatten()), sizes)
        return reshape_steps((t1.squeeze() * t2.squeeze()).sum(dtype=t1.dtype), sizes)
    return reshape_steps(reshape_steps(t1, (size1, csize)).mm(reshape_steps(t2, (csize, size2))),
                         sizes)


def recorded_tensordot(op, args, kwargs):
    """A recorded ``tensordot``: ``tensordot_steps`` with PyTorch's dim lists (an int
    ``dims`` contracts ``a``'s last ``dims`` dims, numbered from the end, with ``b``'s
    first)."""
    values = op.backward.bind(args, kwargs)
    a, b, dims = values.get("a"), values.get("b"), values.get("dims", 2)
    if values.get("out") is not None or not _dense(a, b) or a._dtype is not b._dtype:
        return None
    if dims.__class__ is int:
        if not 0 <= dims <= min(a.dim(), b.dim()):
            return None
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        dims_a, dims_b = ([d] if d.__class__ is int else list(d) for d in dims)
        if len(dims_a) != len(dims_b) or not all(
                x.__class__ is int for x in dims_a + dims_b):
            return None
    else:
        return None
    return _composed(op, (a, b), tensordot_steps, a, b, dims_a, dims_b)


def recorded_inner(op, args, kwargs):
    """A recorded ``inner``: ``input * other`` when one is 0-d, else ATen's
    ``tensordot(input, other, [-1], [-1])``."""
    values = op.backward.bind(args, kwargs)
    input, other = values.get("input"), values.get("other")
    if values.get("out") is not None or not _dense(input, other):
        return None
    if input.dim() == 0 or other.dim() == 0:
        return _composed(op, (input, other), lambda: input * other)
    if input.shape[-1] != other.shape[-1] or input._dtype is not other._dtype:
        return None
    return _composed(op, (input, other), tensordot_steps, input, other, [-1], [-1])


def recorded_matrix_power(op, args, kwargs):
    """A recorded ``matrix_power``/``linalg.matrix_power``: ATen's steps (a contiguous
    clone filled with the identity for ``n = 0``, ``linalg.inv`` first for ``n < 0``, a
    clone for 1, then products by the binary decomposition of ``n``)."""
    from .. import linalg

    values = op.backward.bind(args, kwargs)
    a, n = values.get("input"), values.get("n")
    if values.get("out") is not None or not _dense(a) or n.__class__ is not int \
            or a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        return None

    def steps(a=a, n=n):
        if n == 0:
            eye = J.eye(a.shape[-1], dtype=a.dtype, device=a.device)
            return a.clone(memory_format=contiguous_format).copy_(eye)
        if n == -1:
            return linalg.inv(a)
        if n < 0:
            a, n = linalg.inv(a), -n
        if n == 1:
            return a.clone(memory_format=contiguous_format)
        if n == 2:
            return a.matmul(a)
        if n == 3:
            return a.matmul(a).matmul(a)
        z = result = None
        while n > 0:
            bit, n = n % 2, n // 2
            z = a if z is None else z.matmul(z)
            if bit:
                result = z if result is None else result.matmul(z)
        return result

    return _composed(op, (a,), steps)


def multi_dot_steps(tensors):
    """ATen's ``linalg.multi_dot``: a 1-D first tensor as a row (``unsqueeze(0)``), a 1-D
    last one as a column (``unsqueeze(-1)``), ``mm``s in the cheapest order (three
    matrices by ATen's two-way cost comparison), and a ``view`` to the result's shape."""
    mats = list(tensors)
    shape = []
    if mats[0].dim() == 1:
        mats[0] = mats[0].unsqueeze(0)
    else:
        shape.append(mats[0].shape[0])
    if mats[-1].dim() == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    else:
        shape.append(mats[-1].shape[1])
    if len(mats) == 2:
        return mats[0].mm(mats[1]).view(shape)
    if len(mats) == 3:
        a, b = mats[0].shape[0], mats[1].shape[0]
        c, d = mats[2].shape[0], mats[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            return mats[0].mm(mats[1].mm(mats[2])).view(shape)
        return mats[0].mm(mats[1]).mm(mats[2]).view(shape)
    split = chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])   # (ATen's too)

    def chain(i, j):
        if i == j:
            return mats[i]
        return chain(i, split[i][j]).mm(chain(split[i][j] + 1, j))

    return chain(0, len(mats) - 1).view(shape)


def recorded_multi_dot(op, args, kwargs):
    """A recorded ``linalg.multi_dot`` or ``chain_matmul`` (of two matrices or more):
    ``multi_dot_steps``."""
    values = op.backward.bind(args, kwargs)
    tensors = values.get("tensors", values.get("matrices"))
    if values.get("out") is not None or not _plain_list(tensors) or len(tensors) < 2 \
            or any(t._dtype is not tensors[0]._dtype for t in tensors) \
            or any(t.dim() != 2 for t in tensors[1:-1]) \
            or not 1 <= tensors[0].dim() <= 2 or not 1 <= tensors[-1].dim() <= 2:
        return None
    if op.name == "chain_matmul" and any(t.dim() != 2 for t in tensors):
        return None
    return _composed(op, tensors, multi_dot_steps, tensors)


def trapezoid_steps(y, x, dx, dim, cumulative):
    """ATen's trapezoid rules. With sample points ``x`` (viewed along ``dim`` when 1-D, or
    with leading 1s): ``dx = x[1:] - x[:-1]`` along ``dim``, then ``((left + right) *
    dx).sum(dim) / 2`` (``cumsum`` for the running integral). With a spacing ``dx``:
    ``(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx``, or ``(dx / 2 * (left + right)).cumsum``."""
    from ._scalar_nodes import DivScalar, MulScalar

    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        # (C++'s ``tensor * double``: the Scalar overloads, ``MulBackward1``)
        if cumulative:
            return MulScalar.apply(left + right, dx / 2.0).cumsum(d)
        ends = MulScalar.apply(y.select(d, 0) + y.select(d, -1), 0.5)
        return MulScalar.apply(y.sum(d) - ends, dx)
    if x.dim() == 1:
        sizes = [1] * y.dim()
        sizes[d] = x.shape[0]
        x = x.view(sizes)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    m = x.shape[d]
    spacing = x.narrow(d, 1, m - 1) - x.narrow(d, 0, m - 1)
    product = (left + right) * spacing
    return DivScalar.apply(product.cumsum(d) if cumulative else product.sum(d), 2.0)


def recorded_trapezoid(op, args, kwargs):
    """A recorded ``trapezoid``/``trapz``/``cumulative_trapezoid``: ``trapezoid_steps``
    (the op itself keeps its checks, errors and the empty case)."""
    values = op.backward.bind(args, kwargs)
    y, x, dx, dim = values.get("y"), values.get("x"), values.get("dx"), values.get("dim", -1)
    if not _dense(y) or (x is not None and (not _dense(x) or dx is not None)) \
            or y.dim() == 0 or dim.__class__ is not int or not -y.dim() <= dim < y.dim() \
            or y._dtype is _dtypes.bool_ or (x is not None and x._dtype is _dtypes.bool_):
        return None
    if dx is None:
        dx = 1.0
    if dx.__class__ not in (int, float):
        return None
    cumulative = op.name == "cumulative_trapezoid"
    d = wrap_dim(dim, y.dim())
    if y.shape[d] == 0 or (x is not None and x.dim() == 1 and x.shape[0] != y.shape[d]):
        return None
    return _composed(op, (y,) if x is None else (y, x), trapezoid_steps, y, x, float(dx), d,
                     cumulative)


def cov_steps(input, correction, fweights, aweights):
    """ATen's ``cov`` step by step (the weighted mean, the centred observations, one ``mm``
    with their transpose, divided by the normalisation and squeezed); with PyTorch's
    warning where the degrees of freedom are not positive."""
    from ._scalar_nodes import MulScalar, SubScalar

    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else J.scalar_tensor(n, dtype=_dtypes.int64,
                                                          device=x.device)
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is None:
        norm = J.scalar_tensor(n - correction, dtype=_dtypes.int64, device=x.device)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = SubScalar.apply(w_sum, correction)
    else:
        norm = w_sum - MulScalar.apply((w * aweights).sum(), correction) / w_sum
    if bool(norm.le(0)):
        warnings.warn(DOF_WARNING, UserWarning, stacklevel=user_stacklevel())
        norm = norm.detach().zero_() if norm.requires_grad else norm.zero_()
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t().conj())
    return J.true_divide(c, norm).squeeze()


def recorded_cov(op, args, kwargs):
    """A recorded ``cov`` of real floating observations: ``cov_steps`` (after the op's
    own checks of the weights, which raise its errors)."""
    values = op.backward.bind(args, kwargs)
    input = values.get("input")
    correction = values.get("correction", 1)
    fweights, aweights = values.get("fweights"), values.get("aweights")
    if not _dense(input) or not input.is_floating_point() or input.dim() > 2 \
            or correction.__class__ is not int:
        return None
    for w in (fweights, aweights):
        if w is not None and (not _dense(w) or w.is_complex()):
            return None
    n = input.numel() if input.dim() < 2 else input.shape[1]
    if n == 1 and (fweights is None) != (aweights is None):
        return None   # (ATen zeroes the input there: the op's own node)
    cov_weights("cov", n, fweights, aweights, input._dtype.numpy)   # (the weights' errors)
    return _composed(op, (input,), cov_steps, input, correction, fweights, aweights)


def recorded_corrcoef(op, args, kwargs):
    """A recorded ``corrcoef`` of real floating observations: ATen's ``cov``, divided by
    the standard deviations as a column and as a row, clipped to [-1, 1] (``c / c`` for
    one variable)."""
    values = op.backward.bind(args, kwargs)
    input = values.get("input")
    if not _dense(input) or not input.is_floating_point() or input.dim() > 2:
        return None

    def steps():
        c = J.cov(input)
        if c.dim() == 0:
            return c / c
        std = c.diagonal().sqrt()
        c = c / std.view(-1, 1)
        c = c / std.view(1, -1)
        return c.clip(-1, 1)

    return _composed(op, (input,), steps)


def setitem_value(args):
    """``x[key] = value`` with a basic key, recorded: PyTorch's ``copy_to`` views a value
    of another shape without its leading 1s (``ViewBackward0``) and expands it to the
    selection's shape where they still differ (``ExpandBackward0``) before the copy; a
    value of the selection's shape, or a 0-d one, goes as it is (PyTorch fills from a 0-d
    CPU value, ``FillBackward3``; jtensor's write fills from a 0-d value on any device and
    names its node so). Returns the arguments the write goes on with (the given ones where
    a step would raise: the write raises its own error)."""
    if len(args) != 3:
        return args
    input, key, value = args
    if not isinstance(value, Tensor) or not value._requires_grad or not isinstance(input, Tensor) \
            or not value._shape \
            or (key.__class__ is int and value._shape == input._shape[1:]) or not _is_basic(key):
        return args   # (``x[i] = row``: the value has the selection's shape already)
    shape = value._shape
    try:
        target = tuple(basic_index(input, key)[0])
        if tuple(shape) == target:
            return args
        first = next((i for i, s in enumerate(shape) if s != 1), len(shape))
        viewed = _dispatch.untraced(_view_and_expand, value, shape[first:], target)
    except (RuntimeError, IndexError, TypeError):
        return args
    return input, key, viewed


def _view_and_expand(value, shape, target):
    viewed = value.view(shape)
    return viewed if tuple(viewed._shape) == target else viewed.expand(target)
