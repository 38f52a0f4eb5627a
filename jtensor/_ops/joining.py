"""Joining and repeating: ``cat``/``concat``/``concatenate``, ``stack``, ``hstack``,
``vstack``, ``dstack``, ``column_stack``, ``repeat``, ``tile`` and ``repeat_interleave``.

Conventions (layouts, validation before writing, ``finish``): see ``_selection_common``.
"""

import builtins

import numpy as np

from .. import _dtypes
from .._dispatch import check_same_device
from .._errors import TensorRuntimeError, TensorTypeError, TensorValueError, wrap_dim, type_name
from .._layout import channels_last_strides, contiguous_strides, suggests_channels_last
from .._registry import register
from .._size import Size
from .._device import CPU_BACKEND
from .._tensor import DENSE_CLASSES, Tensor, new_empty_tensor
from .views import make_view
from ._selection_common import _wrap, _write_out, _xp


# ---------------------------------------------------------------------- repeat / tile
def _repeat_array(input, sizes):
    from .views import sizes_from_args

    sizes = sizes_from_args(sizes, "repeats")
    if len(sizes) < input.dim():
        raise TensorRuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor")
    if any(s < 0 for s in sizes):
        raise TensorRuntimeError(
            f"Trying to create tensor with negative dimension {builtins.min(sizes)}: "
            f"{list(sizes)}")
    xp = _xp(input)
    array = input._array().reshape((1,) * (len(sizes) - input.dim()) + tuple(input._shape))
    return xp.tile(array, sizes)


@register("copy", function=False)
def repeat(input, *repeats):
    """Tile ``input`` ``repeats[d]`` times along each dim (NOT ``numpy.repeat``):
    ``tensor([1, 2]).repeat(2)`` is ``[1, 2, 1, 2]``."""
    return _wrap(_repeat_array(input, repeats), input._dtype, input._storage.device)


@register("copy")
def tile(input, dims):
    """``repeat`` with missing leading repeats taken as 1."""
    from .views import sizes_from_args

    dims = sizes_from_args((dims,) if isinstance(dims, int) else dims, "dims")
    dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return _wrap(_repeat_array(input, dims), input._dtype, input._storage.device)


@register("copy")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times (``[1, 2]`` -> ``[1, 1, 2, 2]``); ``dim=None``
    flattens first. ``torch.repeat_interleave(counts)`` gives ``arange`` repeated by counts."""
    xp = _xp(input)
    if repeats is None:
        # repeat_interleave(repeats_tensor): indices 0..n-1 repeated by the counts.
        counts = input
        if counts.dim() > 1:
            raise TensorRuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts._dtype not in (_dtypes.int64, _dtypes.int32):
            raise TensorRuntimeError("repeats has to be Long or Int tensor")
        c = counts._array().reshape(-1)
        if c.size and bool((c < 0).any()):
            raise TensorRuntimeError("repeats can not be negative")
        values = xp.repeat(xp.arange(c.shape[0], dtype=c.dtype), c)
        return _wrap(values, counts._dtype, input._storage.device)
    if dim is None:
        source = input._array().reshape(-1)
        axis = 0
        length = source.shape[0]
    else:
        axis = wrap_dim(dim, input.dim())
        source = input._array() if input.dim() else input._array().reshape(1)
        length = source.shape[axis]
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise TensorRuntimeError("repeat_interleave only accept 1D vector as repeat")
        if repeats._dtype not in (_dtypes.int64, _dtypes.int32):
            raise TensorRuntimeError("repeats has to be Long or Int tensor")
        counts = repeats._array().reshape(-1)
        if counts.shape[0] == 1:
            counts = xp.broadcast_to(counts, (length,))
        elif counts.shape[0] != length:
            raise TensorRuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {counts.shape[0]} and input.size({axis}) = {length}")
        if counts.size and bool((counts < 0).any()):
            raise TensorRuntimeError("repeats can not be negative")
    else:
        counts = int(repeats)
        if counts < 0:
            raise TensorRuntimeError("repeats can not be negative")
    values = xp.repeat(source, counts, axis=axis)
    if output_size is not None and values.shape[axis] != output_size:
        raise TensorRuntimeError(
            f"allocated size does not match required size (output_size={output_size}, "
            f"required {values.shape[axis]})")
    return _wrap(values, input._dtype, input._storage.device)


# ---------------------------------------------------------------------- joining
def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TensorTypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type_name(tensors)}")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    return tensors


def _cat_compute(tensors, dim, name="cat"):
    """Validate and join along ``dim``: returns the result tensor (no bookkeeping)."""
    if not tensors:
        raise TensorValueError(f"torch.{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise TensorRuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    device = check_same_device(tensors)
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t._dtype)
    # Legacy: 1-D empty tensors are skipped whatever the other shapes are.
    kept = [(i, t) for i, t in enumerate(tensors) if not (t.dim() == 1 and t.numel() == 0)]
    if not kept:
        ref = tensors[0]
        dim = wrap_dim(dim, ref.dim())
        return new_empty_tensor(Size((0,)), dtype, device)
    first_i, ref = kept[0]
    dim = wrap_dim(dim, ref.dim())
    for i, t in kept[1:]:
        if t.dim() != ref.dim():
            raise TensorRuntimeError(
                f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for d in range(ref.dim()):
            if d != dim and t._shape[d] != ref._shape[d]:
                raise TensorRuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{ref._shape[d]} but got size {t._shape[d]} for tensor number {i} in the "
                    "list.")
    shape = list(ref._shape)
    shape[dim] = builtins.sum(t._shape[dim] for _, t in kept)
    shape = Size(shape)
    if all(suggests_channels_last(t._shape, t._stride) for _, t in kept):
        stride = channels_last_strides(shape)
    else:
        stride = None
    out = new_empty_tensor(shape, dtype, device, stride=stride)
    target = out._array()
    xp = _xp(out)
    start = 0
    for _, t in kept:
        n = t._shape[dim]
        key = (slice(None),) * dim + (slice(start, start + n),)
        target[key] = t._array().astype(dtype.numpy) if t._dtype is not dtype else t._array()
        start += n
    del xp
    return out


# Whether ``cat`` of plain contiguous CPU tensors of one dtype is one ``np.concatenate`` (a
# loop gathering a step's outputs, issue 18); the tests switch it off to compare.
FAST_CAT = True


def _cat_arrays(tensors, dim):
    """``cat`` as one ``np.concatenate`` when ``tensors`` are plain CPU tensors of one dtype
    and rank (at least 1, no empty 1-D tensor to skip) with standard contiguous strides and
    shapes that agree off ``dim``: the general path's values in a new contiguous tensor.
    None otherwise (it checks and words every error)."""
    first = tensors[0]
    dtype, shape = first._dtype, first._shape
    ndim = len(shape)
    if not ndim or dim.__class__ is not int or not -ndim <= dim < ndim:
        return None
    d = dim % ndim
    arrays = []
    for t in tensors:
        tshape = t._shape
        if t.__class__ not in DENSE_CLASSES or t._storage._backend is not CPU_BACKEND \
                or t._dtype is not dtype or len(tshape) != ndim \
                or t._stride != contiguous_strides(tshape) \
                or (ndim == 1 and not tshape[0]) \
                or tshape[:d] != shape[:d] or tshape[d + 1:] != shape[d + 1:]:
            return None
        arrays.append(t._array())
    return Tensor._from_array(np.concatenate(arrays, axis=d), dtype, first._storage.device)


def _cat_impl(op, tensors, dim, out, name):
    tensors = _tensor_list(tensors, name)
    if out is None and FAST_CAT and tensors:
        fast = _cat_arrays(tensors, dim)
        if fast is not None:
            return fast
    result = _cat_compute(tensors, dim, name)
    if out is not None:
        if out._dtype is not result._dtype:
            result = _wrap(result._array(), out._dtype, result._storage.device)
        return _write_out(out, result, name)
    return result


@register("copy", method=False)
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing ``dim`` (dtypes promote; empty 1-D tensors are skipped)."""
    return _cat_impl(cat.op, tensors, dim, out, "cat")


@register("copy", method=False)
def concat(tensors, dim=0, *, out=None):
    """Alias of ``cat``."""
    return _cat_impl(concat.op, tensors, dim, out, "cat")


@register("copy", method=False)
def concatenate(tensors, dim=0, *, out=None):
    """Alias of ``cat`` (NumPy's name; NumPy's ``axis=`` is accepted for ``dim``)."""
    return _cat_impl(concatenate.op, tensors, dim, out, "cat")


# Whether ``stack`` of plain contiguous CPU tensors of one dtype is one ``np.stack`` (a data
# loader's collate stacks a batch of samples: 64 views and a Python loop otherwise, issue 18);
# the tests switch it off to compare with the general path.
FAST_STACK = True


# Elements per tensor up to which ``_stack_arrays`` gathers rows of one storage by offsets.
_GATHER_MAX = 128


def _stack_arrays(tensors, d):
    """``stack`` of equally shaped ``tensors`` along the new dim ``d`` as one ``np.stack``,
    when they are plain CPU tensors of one dtype with standard contiguous strides (what the
    general path computes: the same values in a new contiguous tensor); None otherwise."""
    first = tensors[0]
    dtype, shape = first._dtype, first._shape
    strides = contiguous_strides(shape)
    for t in tensors:
        if t.__class__ not in DENSE_CLASSES or t._storage._backend is not CPU_BACKEND \
                or t._dtype is not dtype or t._stride != strides:
            return None
    if len(shape) == 3:
        row = _unsqueezed(first, d)
        if suggests_channels_last(row._shape, row._stride):
            return None   # (the general path's output would be channels-last)
    storage = first._storage
    count = 1
    for size in shape:
        count *= size
    if d == 0 and count <= _GATHER_MAX and all(t._storage is storage for t in tensors):
        # Small rows of one tensor (``TensorDataset``'s samples): one gather from the
        # storage by the rows' offsets, instead of an array view per row. (Longer rows copy
        # faster through ``np.stack``.)
        data = storage._data
        flat = np.ndarray((data.shape[0] // dtype.itemsize,), dtype.numpy, data)
        offsets = np.fromiter((t._offset for t in tensors), np.intp, len(tensors))
        rows = flat[offsets[:, None] + np.arange(count)].reshape((len(tensors),) + shape)
        return Tensor._from_array(rows, dtype, storage.device)
    return Tensor._from_array(np.stack([t._array() for t in tensors], axis=d), dtype,
                              storage.device)


def _unsqueezed(t, dim):
    shape, stride = list(t._shape), list(t._stride)
    new_stride = shape[dim] * stride[dim] if dim < len(shape) else 1
    shape.insert(dim, 1)
    stride.insert(dim, new_stride)
    return make_view(t, shape, stride, t._offset)


@register("copy", method=False)
def stack(tensors, dim=0, *, out=None):
    """Join equally shaped tensors along a NEW ``dim``."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise TensorRuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != tensors[0]._shape:
            raise TensorRuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._shape)} "
                f"at entry 0 and {list(t._shape)} at entry {i}")
    d = wrap_dim(dim, tensors[0].dim() + 1)
    if out is None and FAST_STACK:
        fast = _stack_arrays(tensors, d)
        if fast is not None:
            return fast
    result = _cat_compute([_unsqueezed(t, d) for t in tensors], d, "stack")
    if out is not None:
        return _write_out(out, result, "stack")
    return result


def _atleast(t, n):
    if t.dim() >= n:
        return t
    if n == 1 or t.dim() == 0:
        shape = (1,) * (n - t.dim()) + tuple(t._shape)
        if n == 3 and t.dim() == 0:
            shape = (1, 1, 1)
    if n == 2:
        shape = (1,) * (2 - t.dim()) + tuple(t._shape)
    if n == 3:
        shape = {0: (1, 1, 1), 1: (1, t.numel(), 1), 2: tuple(t._shape) + (1,)}[t.dim()]
    return make_view(t, shape, contiguous_strides(shape) if t.is_contiguous() else
                     _atleast_strides(t, shape), t._offset)


def _atleast_strides(t, shape):
    from .._layout import view_strides

    return view_strides(t._shape, t._stride, shape)


def _stack_variant(op, tensors, dim, n, out, name):
    tensors = _tensor_list(tensors, name)
    if not tensors:
        raise TensorRuntimeError(f"{name} expects a non-empty TensorList")
    prepared = [_atleast(t, n) for t in tensors]
    if n == 1:
        dim = 0 if prepared[0].dim() == 1 else 1
    result = _cat_compute(prepared, dim, name)
    if out is not None:
        return _write_out(out, result, name)
    return result


@register("copy", method=False)
def hstack(tensors, *, out=None):
    """Join horizontally: along dim 0 for 1-D inputs, else along dim 1."""
    return _stack_variant(hstack.op, tensors, 1, 1, out, "hstack")


@register("copy", method=False)
def vstack(tensors, *, out=None):
    """Join vertically (inputs made at least 2-D, then ``cat`` along dim 0)."""
    return _stack_variant(vstack.op, tensors, 0, 2, out, "vstack")


@register("copy", method=False)
def dstack(tensors, *, out=None):
    """Join depth-wise (inputs made at least 3-D, then ``cat`` along dim 2)."""
    return _stack_variant(dstack.op, tensors, 2, 3, out, "dstack")


@register("copy", method=False)
def column_stack(tensors, *, out=None):
    """Join as columns: 0-D and 1-D inputs become (n, 1) columns, then ``cat`` along dim 1."""
    tensors = _tensor_list(tensors, "column_stack")
    if not tensors:
        raise TensorRuntimeError("column_stack expects a non-empty TensorList")
    prepared = []
    for t in tensors:
        if t.dim() <= 1:
            n = t.numel()
            prepared.append(make_view(t, (n, 1), (t._stride[0] if t.dim() else 1, 1),
                                      t._offset))
        else:
            prepared.append(t)
    result = _cat_compute(prepared, 1, "column_stack")
    if out is not None:
        return _write_out(out, result, "column_stack")
    return result
