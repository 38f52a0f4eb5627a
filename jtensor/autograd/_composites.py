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

from .. import _dispatch, _dtypes
from .._api import ops as J
from .._dispatch import OpDef, grad_mode
from .._errors import wrap_dim
from .._layout import broadcast_shapes, contiguous_strides, infer_size
from .._ops.products import (_check_matmul, _check_tensors, check_einsum, einsum_arguments,
                             einsum_steps)
from .._ops.statistics import check_diff
from .._ops.splitting import _split_spec
from .._ops.views import _new_strides, sizes_from_args, tensor_split_bounds
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
    """ATen's ``_unsafe_view``: ``input`` (a contiguous tensor nobody else holds, fresh from
    an op) seen with another shape, as a new tensor rather than a view of it (no base, a
    version counter of its own)."""
    return Tensor._make(input._storage, shape, contiguous_strides(shape), input._offset,
                        input._dtype)


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
    if t.is_contiguous() or _new_strides(t, tuple(shape)) is not None:
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
    n = tensor1.shape[-2] if d1 > 1 else 1
    m1 = tensor1.shape[-1]
    batch1 = tuple(tensor1.shape[:max(d1 - 2, 0)])
    m2 = tensor2.shape[-2] if d2 > 1 else tensor2.shape[0]
    p = tensor2.shape[-1] if d2 > 1 else 1
    batch2 = tuple(tensor2.shape[:max(d2 - 2, 0)])
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad is squeezed away (its gradient then needs no
        # sum over a broadcast batch).
        if batch1[0] == 1 and tensor1.requires_grad:
            return _steps_or_product(tensor1.squeeze(0), tensor2)
        if batch2[0] == 1 and tensor2.requires_grad:
            return _steps_or_product(tensor1, tensor2.squeeze(0))
    output_shape = list(broadcast_shapes(batch1, batch2))
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
    UnsqueezeBackward0``. None for a tensor of repeats (PyTorch's ``index_select``, the op's
    own node) or for arguments the op itself must judge."""
    values = op.backward.bind(args, kwargs)
    input, repeats, dim = values.get("input"), values.get("repeats"), values.get("dim")
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
