"""Advanced indexing: keys with integer tensors, lists, bool masks or Python bools.

PyTorch first applies the basic part of the key (ints select, slices narrow, ``None``
unsqueezes) to get a view, and records one index tensor per remaining indexed dim
(``applySlicing``). ``at::index`` then turns masks into ``nonzero`` columns, broadcasts the
index tensors, moves them to the front when they are separated by a slice, and lets
TensorIterator choose the output layout from the (restrided) source and the index tensors.
This module follows those steps literally so that shapes, strides and errors match.
"""

import warnings

import numpy as np

from .._arraymod import ufunc_at
from .. import _dtypes
from .._device import backend_for, data_dependent_sync, index_out_of_range
from .._dispatch import check_inplace
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError, stacklevel,
                       user_stacklevel, type_name)
from .._layout import (broadcast_shapes, broadcastable_to, contiguous_strides,
                       dense_strides_like, elementwise_output_strides,
                       is_non_overlapping_and_dense, view_strides)
from .._size import Size
from .._device import CPU_BACKEND
from .._tensor import DENSE_CLASSES, Tensor, new_empty_tensor
from .creation import is_python_sequence
from .views import make_view

_INDEX_DTYPES = (_dtypes.int64, _dtypes.int32, _dtypes.uint8, _dtypes.bool_)


# ---------------------------------------------------------------------- key normalisation
def _is_long(obj):
    """``THPUtils_checkLong``: a Python or NumPy integer, but not a bool."""
    if isinstance(obj, bool) or isinstance(obj, np.bool_):
        return False
    return isinstance(obj, (int, np.integer))


def _is_sequence(obj):
    """An index item PyTorch reads as a sequence (``PySequence_Check``): text and NumPy
    arrays too."""
    return isinstance(obj, (str, bytes, np.ndarray)) or is_python_sequence(obj)


_NON_TUPLE_SEQUENCE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")


def treat_sequence_as_tuple(key):
    """PyTorch's (and NumPy's old) heuristic: a sequence of fewer than 32 items that holds
    a slice, a tensor, a sequence, ``None`` or ``...`` means a tuple of indices, not one
    index (with PyTorch's deprecation warning). A list, or any sequence (a data set's
    ``Subset``, text); not a tensor or a NumPy array."""
    if isinstance(key, tuple):
        return True
    if isinstance(key, (Tensor, np.ndarray)) or not _is_sequence(key):
        return False
    try:
        n = len(key)
    except TypeError:
        return False
    if n >= 32:
        return False
    for i in range(n):
        obj = key[i]
        if isinstance(obj, (Tensor, slice)) or _is_sequence(obj) or obj is None \
                or obj is Ellipsis:
            warnings.warn(_NON_TUPLE_SEQUENCE, UserWarning, stacklevel=user_stacklevel())
            return True
    return False


def _sequence_to_index(input, seq):
    """A list used as an index: bools give a bool mask, anything else int64 (floats truncate)."""
    from .creation import array_from_data

    try:
        array, dtype = array_from_data(seq)
    except ValueError as exc:   # (its TypeErrors already say what is wrong)
        raise TensorTypeError(f"invalid index {seq!r}: {exc}") from None
    if dtype not in (_dtypes.bool_, _dtypes.uint8):
        with np.errstate(invalid="ignore", over="ignore"):
            array = array.astype(np.int64)
        dtype = _dtypes.int64
    backend = input._storage._backend
    xp_array = array if backend.xp is np else backend.xp.asarray(array)
    return Tensor._from_array(xp_array, dtype, input._storage.device)


def _count_specified(items):
    count = 0
    for obj in items:
        if isinstance(obj, Tensor):
            count += obj.dim() if obj._dtype in (_dtypes.uint8, _dtypes.bool_) else 1
        elif obj is not None and obj is not Ellipsis and not isinstance(obj, (bool, np.bool_)):
            count += 1
    return count


class _Index:
    """One recorded index: a tensor (int64/int32/uint8/bool) or a Python bool."""

    __slots__ = ("tensor", "dim")

    def __init__(self, tensor, dim):
        self.tensor = tensor
        self.dim = dim


def apply_slicing(input, key):
    """``applySlicing``: the basic part of ``key`` as view metadata, plus the index tensors.

    Returns ``(shape, stride, offset, indices)`` where ``indices`` maps a dim of the view to
    the tensor indexing it (masks cover ``mask.dim()`` dims starting there).
    """
    from .views import _new_axis_stride, _slice_bounds  # noqa: F401 - PyTorch's slice rules

    items = key if treat_sequence_as_tuple(key) else (key,)
    items = tuple(items)
    specified = _count_specified(items)
    # Convert sequences and reject junk first, as PyTorch does while it walks the key.
    converted = []
    for obj in items:
        if obj is None or obj is Ellipsis or isinstance(obj, (slice, Tensor)):
            converted.append(obj)
        elif isinstance(obj, (bool, np.bool_)):
            converted.append(bool(obj))
        elif _is_long(obj):
            converted.append(int(obj))
        elif _is_sequence(obj):
            converted.append(_sequence_to_index(
                input, obj if isinstance(obj, (list, tuple, str, bytes, np.ndarray))
                else [obj[i] for i in range(len(obj))]))
        elif hasattr(obj, "__index__"):
            try:
                converted.append(obj.__index__())
            except TypeError:
                raise _invalid_index(obj) from None
        else:
            raise _invalid_index(obj)
    items = converted
    ndim = input.dim()
    if specified > ndim:
        raise TensorIndexError(f"too many indices for tensor of dimension {ndim}")
    shape, stride = list(input._shape), list(input._stride)
    offset = input._offset
    indices = {}
    dim = 0        # position in the view being built
    real_dim = 0   # position in the original tensor (for error messages)
    for obj in items:
        if obj is Ellipsis:
            dim += ndim - specified
            real_dim += ndim - specified
        elif obj is None:
            shape.insert(dim, 1)
            stride.insert(dim, shape[dim + 1] * stride[dim] if dim < len(stride) else 1)
            dim += 1
        elif isinstance(obj, bool):
            _unsqueeze(shape, stride, dim)
            indices[dim] = _bool_index(input, obj)
            dim += 1
        elif isinstance(obj, int):
            offset = _select(shape, stride, offset, dim, obj, real_dim)
            real_dim += 1
        elif isinstance(obj, slice):
            start, stop, step = _slice_bounds(obj, shape[dim])
            shape[dim] = max(0, (stop - start + step - 1) // step)
            offset += start * stride[dim]
            stride[dim] *= step
            dim += 1
            real_dim += 1
        else:  # a tensor
            t = obj
            if t.dim() == 0 and t._dtype.category <= _dtypes.INTEGRAL:
                if t._dtype not in (_dtypes.uint8, _dtypes.bool_):
                    offset = _select(shape, stride, offset, dim, int(t.item()), real_dim)
                    real_dim += 1
                else:
                    _unsqueeze(shape, stride, dim)
                    indices[dim] = _bool_index(input, bool(t.item()))
                    dim += 1
                continue
            indices[dim] = t
            width = t.dim() if t._dtype in (_dtypes.uint8, _dtypes.bool_) else 1
            dim += width
            real_dim += width
    return shape, stride, offset, indices


def _invalid_index(obj):
    return TensorIndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type_name(obj)})")


def _unsqueeze(shape, stride, dim):
    new_stride = shape[dim] * stride[dim] if dim < len(shape) else 1
    shape.insert(dim, 1)
    stride.insert(dim, new_stride)


def _select(shape, stride, offset, dim, index, real_dim):
    if dim >= len(shape):
        raise TensorIndexError(f"too many indices for tensor of dimension {len(shape)}")
    size = shape[dim]
    if not -size <= index < size:
        raise TensorIndexError(
            f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    if index < 0:
        index += size
    offset += index * stride[dim]
    del shape[dim]
    del stride[dim]
    return offset


def _bool_index(input, value):
    # PyTorch's boolToIndexingTensor: [0] for True, an empty index for False.
    xp = input._storage._backend.xp
    array = xp.zeros(1 if value else 0, dtype=np.int64)
    return Tensor._from_array(array, _dtypes.int64, input._storage.device)


# ---------------------------------------------------------------------- make_info
class IndexInfo:
    """``AdvancedIndex``: the (maybe permuted) source view and its broadcast index arrays."""

    __slots__ = ("perm", "shape", "stride", "before", "count", "after", "arrays",
                 "index_layouts", "bshape", "masks")

    def result_shape(self):
        return (tuple(self.shape[:self.before]) + tuple(self.bshape)
                + tuple(self.shape[self.before + self.count:]))


def make_info(view_shape, view_stride, indices, device, message_shape=None):
    """Validate the index tensors and lay them out as ``at::index`` does (no data is written).

    ``indices``: {view dim: tensor}. Returns an ``IndexInfo``.
    """
    ndim = len(view_shape)
    for t in indices.values():
        if t._dtype not in _INDEX_DTYPES:
            raise TensorIndexError(
                "tensors used as indices must be long, int, byte or bool tensors")
    check_index_devices(indices, device)
    backend = backend_for(device)
    # expandTensors: masks become one int64 column per dim (nonzero), checked against the view.
    per_dim = [None] * ndim
    layouts = [None] * ndim
    shown = list(view_shape) if message_shape is None else list(message_shape)
    for d in sorted(indices):
        t = indices[d]
        if t._dtype in (_dtypes.uint8, _dtypes.bool_):
            if t._dtype is _dtypes.uint8:
                import warnings

                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                              "dtype torch.bool instead.", UserWarning, stacklevel=stacklevel(4))
            for j in range(t.dim()):
                if d + j >= ndim or t._shape[j] != view_shape[d + j]:
                    raise TensorIndexError(
                        f"The shape of the mask {list(t._shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {shown} at index {d + j}")
            xp = t._storage._backend.xp
            data_dependent_sync(t)
            columns = xp.nonzero(t._array())
            k = t.dim()
            count = int(columns[0].shape[0]) if k else 0
            for j in range(k):
                per_dim[d + j] = _on(backend, columns[j].astype(np.int64), t)
                layouts[d + j] = ((count,), (k,))  # nonzero().select(1, j)
        else:
            array = t._array()
            st = t._stride
            if t._dtype is _dtypes.int32:
                # .to(kLong) keeps a dense layout and lays out anything else as preserve_format.
                st = dense_strides_like(tuple(t._shape), t._stride)
                array = array.astype(np.int64)
            per_dim[d] = _on(backend, array, t)
            layouts[d] = (tuple(t._shape), tuple(st))
    present = [d for d in range(ndim) if per_dim[d] is not None]
    shapes = [tuple(per_dim[d].shape) for d in present]
    try:
        bshape = broadcast_shapes(*shapes)
    except TensorRuntimeError:
        raise TensorIndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(s)) for s in shapes)) from None
    # Each index expanded to the broadcast shape (stride 0 where it is repeated).
    for d in present:
        in_shape, in_stride = layouts[d]
        lead = len(bshape) - len(in_shape)
        st = [0] * lead + [0 if s == 1 and b != 1 else x
                           for s, x, b in zip(in_shape, in_stride, bshape[lead:], strict=True)]
        layouts[d] = (tuple(bshape), tuple(st))
    info = IndexInfo()
    adjacent = present == list(range(present[0], present[-1] + 1))
    if adjacent:
        perm = list(range(ndim))
    else:
        perm = present + [d for d in range(ndim) if per_dim[d] is None]
    info.perm = perm
    info.shape = [view_shape[d] for d in perm]
    info.stride = [view_stride[d] for d in perm]
    ordered = [per_dim[d] for d in perm]
    ordered_layouts = [layouts[d] for d in perm]
    first = next(i for i, a in enumerate(ordered) if a is not None)
    info.before = first
    info.count = len(present)
    info.after = ndim - first - len(present)
    info.arrays = [a for a in ordered if a is not None]
    info.index_layouts = [lay for lay in ordered_layouts if lay is not None]
    info.bshape = tuple(bshape)
    indexed_sizes = info.shape[first:first + len(present)]
    if 0 in indexed_sizes and 0 not in bshape:
        error = TensorIndexError("index is out of bounds for dimension with size 0")
        error.raised_by_kernel = True  # (inside at::index: after autograd took the edges)
        raise error
    return info


def check_bounds(info, backend, name):
    """Every index within ``[-size, size)``; PyTorch names the indexer, not the tensor dim.

    PyTorch checks the indices inside its kernel, which never runs for an empty result
    (``zeros(1, 0)[[5]]`` is a ``(1, 0)`` tensor), so nothing is checked then either.
    Returns True when every index is in range, False when one is not on a CUDA device (a
    device-side assert, reported at the next synchronisation: ``index_out_of_range``)."""
    if 0 in info.result_shape():
        return True
    sizes = info.shape[info.before:info.before + info.count]
    bad_any = None
    bad = []
    for array, size in zip(info.arrays, sizes, strict=True):
        xp = _xp_of(array)
        b = (array < -size) | (array >= size)
        bad.append(b)
        if bool(b.any()):
            bad_any = True
    if bad_any is None:
        return True
    full = [np.broadcast_to(np.asarray(_host(b)), info.bshape) for b in bad]
    combined = np.zeros(info.bshape, dtype=bool)
    for f in full:
        combined |= f
    position = tuple(int(p[0]) for p in np.nonzero(combined)) if combined.ndim else ()
    for i, (f, array, size) in enumerate(zip(full, info.arrays, sizes, strict=True)):
        if f[position]:
            value = int(np.broadcast_to(np.asarray(_host(array)), info.bshape)[position])
            error = TensorIndexError(
                f"index {value} is out of bounds for dimension {i} with size {size}")
            error.raised_by_kernel = True  # after autograd took the inputs' edges
            index_out_of_range(backend, name, error, size)
            return False
    del xp


def _xp_of(array):
    return np


def _host(array):
    return array.get() if hasattr(array, "get") and not isinstance(array, np.ndarray) else array


def output_strides(info):
    """TensorIterator's layout for the result, from the restrided source and the indices."""
    before, after = info.before, info.after
    b = info.bshape
    src_shape = info.result_shape()
    src_stride = (tuple(info.stride[:before]) + (0,) * len(b)
                  + tuple(info.stride[before + info.count:]))
    operands = [(tuple(src_shape), src_stride)]
    new_shape = (1,) * before + tuple(b) + (1,) * after
    for shape, stride in info.index_layouts:
        st = view_strides(shape, stride, new_shape)
        if st is None:
            st = contiguous_strides(new_shape)
        operands.append((new_shape, tuple(st)))
    return elementwise_output_strides(tuple(src_shape), operands)


def _key_arrays(info, xp):
    """The index tuple for the permuted source array (indices wrapped to be non-negative)."""
    sizes = info.shape[info.before:info.before + info.count]
    arrays = []
    for array, size in zip(info.arrays, sizes, strict=True):
        arrays.append(xp.where(array < 0, array + size, array))
    return (slice(None),) * info.before + tuple(arrays)


def _source_array(view, info):
    array = view._array()
    if info.perm != list(range(len(info.perm))):
        array = array.transpose(info.perm)
    return array


# ---------------------------------------------------------------------- getitem
def gather_index(view, info):
    """The values of ``view[info]`` in a new tensor laid out as PyTorch lays it out."""
    xp = view._storage._backend.xp
    if not check_bounds(info, view._storage._backend, "index"):
        # a device-side assert is pending: the values are undefined, the reads stay in range
        sizes = info.shape[info.before:info.before + info.count]
        info.arrays = [xp.clip(a, -n, n - 1) for a, n in zip(info.arrays, sizes, strict=True)]
    shape = Size(info.result_shape())
    strides = output_strides(info)
    out = new_empty_tensor(shape, view._dtype, view._storage.device, stride=strides)
    if out.numel():
        out._array()[...] = _source_array(view, info)[_key_arrays(info, xp)]
    return out


_INDEX_KINDS = (_dtypes.int64, _dtypes.int32)


def _row_major(t):
    """Whether ``t`` is contiguous (read from the cached flag when it is set)."""
    return t._contiguous if t._contiguous is not None else t.is_contiguous()


def _fast_getitem(input, key):
    """``x[idx]`` with one integer index tensor (rows of a contiguous ``x``: a batch, an
    embedding-style lookup) and ``x[mask]`` with a boolean mask over ``x``'s leading dims,
    on the CPU, decided in a few checks; None (nothing done) for anything else, including
    an index out of range, whose error the general path words. The result is contiguous,
    as PyTorch lays it out for a contiguous source."""
    if key.__class__ not in DENSE_CLASSES or input.__class__ not in DENSE_CLASSES \
            or not key._shape or not input._shape \
            or key._storage._backend is not CPU_BACKEND \
            or input._storage._backend is not CPU_BACKEND or not _row_major(input) \
            or not _row_major(key):   # (a strided index: PyTorch lays the result out like it)
        return None
    kind = key._dtype
    source = input._array()
    if kind is _dtypes.bool_ or kind is _dtypes.uint8:
        if kind is _dtypes.uint8 or key._shape != input._shape[:len(key._shape)]:
            return None   # (uint8 masks warn: the general path)
        values = source[key._array()]
    elif kind is _dtypes.int64 or kind is _dtypes.int32:
        try:
            # (NumPy's bounds are PyTorch's: -rows <= i < rows; an index out of range
            # raises here, and the general path words PyTorch's error)
            values = source.take(key._array(), axis=0)   # (np.take's own call)
        except IndexError:
            return None
    else:
        return None
    return Tensor._from_array(np.ascontiguousarray(values), input._dtype, input.device)


def _fast_tuple_getitem(input, key):
    """``x[:, idx]``, ``x[rows, cols]``, ``x[idx, :]``: a tuple key of full slices around one
    run of integer index tensors (of one or more dims, broadcasting together) over a
    contiguous CPU ``x``, as one NumPy indexing; None (nothing done) for anything else,
    including an index out of range or shapes that do not broadcast (the general path
    words PyTorch's errors). Adjacent index tensors place their dims where they stand, as
    in PyTorch, whose result is contiguous here too."""
    if input.__class__ not in DENSE_CLASSES or input._storage._backend is not CPU_BACKEND \
            or not _row_major(input) or len(key) > len(input._shape):
        return None
    items = []
    run = 0   # 0: before the index tensors, 1: among them, 2: after them
    for k in key:
        if k.__class__ is slice:
            if k.start is not None or k.stop is not None or k.step is not None:
                return None
            if run == 1:
                run = 2
            items.append(k)
        elif k.__class__ in DENSE_CLASSES and k._dtype in _INDEX_KINDS and k._shape \
                and k._storage._backend is CPU_BACKEND and run < 2 and _row_major(k):
            run = 1
            items.append(k._array())
        else:
            return None
    if run == 0:
        return None
    try:
        values = input._array()[tuple(items)]
    except IndexError:
        return None
    return Tensor._from_array(np.ascontiguousarray(values), input._dtype, input.device)


def advanced_getitem(input, key):
    """``input[key]`` for keys with tensors, lists or bools: a copy (or a view when the key
    turns out to hold only 0-d integer tensors, which PyTorch treats as ints)."""
    if key.__class__ in DENSE_CLASSES:
        fast = _fast_getitem(input, key)
        if fast is not None:
            return fast
    elif key.__class__ is tuple:
        fast = _fast_tuple_getitem(input, key)
        if fast is not None:
            return fast
    shape, stride, offset, indices = apply_slicing(input, key)
    view = make_view(input, shape, stride, offset)
    if not indices:
        return view
    info = make_info(shape, stride, indices, input._storage.device)
    return gather_index(view, info)


# ---------------------------------------------------------------------- setitem
def scalar_to_tensor(value, dtype, device, backend, name="__setitem__"):
    """A Python number as a 0-d tensor of ``dtype``, refusing values that overflow it."""
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (bool, int, float, complex)):
        raise TensorTypeError(
            f"can't assign a {type(value).__name__} to a torch.{dtype._torch_name}Tensor")
    check_scalar_fits(value, dtype)
    with np.errstate(all="ignore"):
        if dtype.category == _dtypes.COMPLEX:
            host = np.asarray(complex(value)).astype(dtype.numpy)
        elif isinstance(value, complex):
            host = np.asarray(value.real).astype(dtype.numpy)
        elif dtype.category == _dtypes.INTEGRAL and isinstance(value, float):
            host = np.asarray(int(value)).astype(dtype.numpy)
        else:
            host = np.asarray(value).astype(dtype.numpy)
    array = host if backend.xp is np else backend.xp.asarray(host)
    return Tensor._from_array(array.reshape(()), dtype, device)


def check_scalar_fits(value, dtype, half_checked=False):
    """PyTorch's ``checked_convert``: RuntimeError when ``value`` overflows ``dtype`` (one
    rule with ``fill_``'s: integers wrap into unsigned types down to ``-max``; half types are
    range checked only with ``half_checked``: masked_fill/index_fill do, ``x[i] = v`` not)."""
    from .copies import _check_scalar_fits

    _check_scalar_fits(value, dtype, half_checked=half_checked)


def overlap_status(a, b):
    """PyTorch's ``get_overlap_status``: 'full', 'partial', 'no' or 'too_hard'."""
    if a is b:
        return "full"
    if a.numel() == 0 or b.numel() == 0:
        return "no"
    if not (is_non_overlapping_and_dense(a._shape, a._stride)
            and is_non_overlapping_and_dense(b._shape, b._stride)):
        return "too_hard"
    if a._storage is b._storage:
        ia, ib = a._dtype.itemsize, b._dtype.itemsize
        a_begin, b_begin = a._offset * ia, b._offset * ib
        a_end, b_end = a_begin + a.numel() * ia, b_begin + b.numel() * ib
        if a_begin == b_begin and a_end == b_end:
            return "full" if a._stride == b._stride else "partial"
        if a_begin < b_end and b_begin < a_end:
            return "partial"
    return "no"


def assert_no_overlap(a, b):
    if overlap_status(a, b) in ("full", "partial"):
        raise TensorRuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation.")


def _dtype_message(dst, src):
    return TensorRuntimeError(
        "Index put requires the source and destination dtypes match, got "
        f"{dst._torch_name} for the destination and {src._torch_name} for the source.")


def _value_to_tensor(self, value):
    if isinstance(value, Tensor):
        return value
    return scalar_to_tensor(value, self._dtype, self._storage.device, self._storage._backend)


def check_index_devices(indices, device):
    """PyTorch indexes with tensors on the CPU or on the indexed tensor's own device."""
    for t in indices.values():
        d = t._storage.device
        if d != device and d.type != "cpu":
            raise TensorRuntimeError(
                f"indices should be either on cpu or on the same device as the indexed "
                f"tensor ({device})")


def _on(backend, array, index):
    """``array`` (read from the index tensor ``index``) on the indexed tensor's backend:
    PyTorch takes CPU index tensors for a tensor on any device and copies them over."""
    source = index._storage._backend
    return array if source is backend else backend.from_other(array, source)


def prepare_put(view, indices, value, accumulate, *, masked_fill_dispatch):
    """Validate an ``index_put_`` into ``view`` and return a closure that performs it.

    Nothing is written until the closure runs, so a failing put leaves ``view`` untouched.
    """
    check_index_devices(indices, view._storage.device)
    if masked_fill_dispatch and not accumulate and value.numel() == 1:
        masks = [d for d, t in indices.items()]
        if len(masks) == 1 and indices[masks[0]]._dtype in (_dtypes.uint8, _dtypes.bool_):
            d = masks[0]
            mask = indices[d]
            for j in range(mask.dim()):
                if d + j >= view.dim() or mask._shape[j] != view._shape[d + j]:
                    raise TensorIndexError(
                        f"The shape of the mask {list(mask._shape)} at index {j} does not match "
                        f"the shape of the indexed tensor {list(view._shape)} at index {d + j}")
            if mask._dtype is _dtypes.uint8:
                raise TensorRuntimeError(
                    "masked_fill_ only supports boolean masks, but got mask with dtype "
                    "unsigned char")
            fill = value._host_array().reshape(-1)[0]

            def do_fill():
                xp = view._storage._backend.xp
                target = view._array()
                with np.errstate(all="ignore"):
                    cast = xp.asarray(fill).astype(view._dtype.numpy)
                target[(slice(None),) * d + (_on(view._storage._backend, mask._array(),
                                                 mask),)] = cast

            return do_fill
    assert_no_overlap(view, value)
    info = make_info(tuple(view._shape), view._stride, indices, view._storage.device)
    result_shape = info.result_shape()
    stripped = tuple(value._shape)
    while stripped and stripped[0] == 1:
        stripped = stripped[1:]
    if not _expandable(stripped, result_shape):
        raise TensorRuntimeError(
            f"shape mismatch: value tensor of shape {list(stripped)} cannot be broadcast to "
            f"indexing result of shape {list(result_shape)}")
    if value._dtype is not view._dtype:
        raise _dtype_message(view._dtype, value._dtype)
    if value._storage.device != view._storage.device and value.dim() != 0:
        raise TensorRuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, "
            f"{view._storage.device} and {value._storage.device}!")
    in_range = check_bounds(info, view._storage._backend, "index_put_")

    def do_put():
        if 0 in result_shape or not in_range:
            # PyTorch's kernel does not run (empty), or fails on the device: nothing written
            return
        xp = view._storage._backend.xp
        target = _source_array(view, info)
        source = value._array().reshape(stripped)
        if value._storage.device != view._storage.device:
            source = view._storage._backend.from_other(source, value._storage._backend)
        source = xp.broadcast_to(source, result_shape)
        key = _key_arrays(info, xp)
        if accumulate:
            ufunc_at(xp, "add", target, key, source)
        else:
            target[key] = source

    return do_put


_expandable = broadcastable_to


def advanced_setitem(input, key, value):
    """``input[key] = value`` for advanced keys; validates everything before writing."""
    if key is False or (isinstance(key, np.bool_) and not key):
        # PyTorch returns at once: nothing is selected and nothing is written.
        return
    # PyTorch reads the key and the value before its in-place checks (a bad key is an
    # IndexError even on a leaf that requires grad).
    shape, stride, offset, indices = apply_slicing(input, key)
    value_t = _value_to_tensor(input, value)
    check_inplace(input)
    if (tuple(shape), tuple(stride), offset) == (input._shape, input._stride, input._offset):
        # No basic item changed anything: PyTorch writes into ``input`` itself, so
        # ``x[[0]] = x`` is a full overlap even when ``x`` is empty.
        view = input
    else:
        view = make_view(input, shape, stride, offset)
    if not indices:
        from .copies import copy_value_into

        copy_value_into(view, value_t)
        return
    if value_t._shape and value_t._shape[0] == 1:
        # PyTorch views the value without its leading size-1 dims first (``slicePrefix1sDims``):
        # another tensor, so an empty value is no longer "the same tensor" as ``input``.
        lead = 0
        while lead < len(value_t._shape) and value_t._shape[lead] == 1:
            lead += 1
        value_t = make_view(value_t, value_t._shape[lead:], value_t._stride[lead:],
                            value_t._offset)
    put = prepare_put(view, indices, value_t, False, masked_fill_dispatch=True)
    put()
