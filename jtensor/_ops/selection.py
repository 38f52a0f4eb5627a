"""Selection, scattering, joining, reordering and sorting ops with PyTorch's semantics.

Every op computes with the backend's array module (``xp``), allocates its result with the
layout PyTorch gives it (most are contiguous; ``flip``, ``sort`` and the out-of-place forms of
``index_fill``/``index_put`` keep a dense input's layout; ``where`` follows TensorIterator),
validates everything before writing, and ends in ``finish``.
"""

import builtins
import collections

import numpy as np

from .. import _dtypes
from .._dispatch import check_same_device, finish
from .._elementwise import _as_number, elementwise, result_dtype
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError, TensorValueError,
                       wrap_dim)
from .._layout import (broadcast_shapes, contiguous_strides, dense_strides_like,
                       is_channels_last, is_contiguous, channels_last_strides)
from .._registry import register
from .._size import Size
from .._tensor import Tensor, new_empty_tensor
from .advanced_indexing import (apply_slicing, assert_no_overlap, check_scalar_fits,
                                prepare_put)
from .views import make_view


# ---------------------------------------------------------------------- shared helpers
def _return_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "torch.return_types"
    cls.__qualname__ = name

    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    return cls


sort_result = _return_type("sort")
topk_result = _return_type("topk")
kthvalue_result = _return_type("kthvalue")


def _xp(t):
    return t._storage._backend.xp


def _wrap(array, dtype, device, stride=None):
    """A new tensor holding ``array`` with ``stride`` (contiguous by default)."""
    shape = Size(array.shape)
    if stride is None or tuple(stride) == contiguous_strides(shape):
        xp_contig = array if array.flags.c_contiguous else array.copy()
        if xp_contig.dtype != dtype.numpy:
            xp_contig = xp_contig.astype(dtype.numpy)
        out = new_empty_tensor(shape, dtype, device)
        out._array()[...] = xp_contig
        return out
    out = new_empty_tensor(shape, dtype, device, stride=stride)
    out._array()[...] = array
    return out


def _fresh(t, stride=None):
    """A copy of ``t`` with its own storage (contiguous unless ``stride`` is given)."""
    return _wrap(t._array(), t._dtype, t._storage.device, stride)


def _preserve(t):
    return dense_strides_like(tuple(t._shape), t._stride)


def _check_tensor(x, name, arg):
    if not isinstance(x, Tensor):
        raise TensorTypeError(
            f"{name}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _write_out(out, result, name):
    """Copy ``result`` into ``out=``: same dtype required, resized when the shape differs."""
    if not isinstance(out, Tensor):
        raise TensorTypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out._dtype is not result._dtype:
        raise TensorRuntimeError(
            f"Expected out tensor to have dtype {result._dtype}, but got {out._dtype} instead")
    if out._shape != result._shape:
        if out.numel() != 0:
            import warnings

            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out._shape)}, which does not match the required output shape "
                f"{list(result._shape)}. This behavior is deprecated.", UserWarning, stacklevel=3)
        out._storage = new_empty_tensor(result._shape, out._dtype, out._storage.device)._storage
        out._set_metadata(result._shape, contiguous_strides(result._shape), 0)
    out._array()[...] = result._array()
    return out


def _index_tensor(index, name, allow_int=True):
    if not isinstance(index, Tensor):
        raise TensorTypeError(
            f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    allowed = (_dtypes.int64, _dtypes.int32) if allow_int else (_dtypes.int64,)
    if index._dtype not in allowed:
        if allow_int:
            raise TensorRuntimeError(
                f"{name}(): Expected dtype int32 or int64 for index")
        raise TensorRuntimeError(f"{name}(): Expected dtype int64 for index")
    return index


def _fill_value(value, dtype, name):
    """A number or 0-d tensor fill value, cast to ``dtype`` (refusing overflow)."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise TensorRuntimeError(
                f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s).")
        value = value.item()
    value = _as_number(value, name)
    check_scalar_fits(value, dtype)
    if isinstance(value, complex) and dtype.category != _dtypes.COMPLEX:
        value = value.real
    if dtype.category == _dtypes.INTEGRAL and isinstance(value, float):
        value = int(value)
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype.numpy)


def _check_writable(t):
    for size, st in zip(t._shape, t._stride):
        if st == 0 and size > 1:
            raise TensorRuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation.")


def _suggest_channels_last(t):
    return t.dim() == 4 and is_channels_last(t._shape, t._stride) and \
        not is_contiguous(t._shape, t._stride)


# ---------------------------------------------------------------------- masks
@register("copy")
def masked_select(input, mask, *, out=None):
    """The elements where ``mask`` (bool, broadcast with ``input``) is True, as a 1-D copy."""
    _check_tensor(mask, "masked_select", "mask")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_select: expected BoolTensor for mask, got {mask._dtype._torch_name}")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    values = xp.broadcast_to(input._array(), shape)[xp.broadcast_to(mask._array(), shape)]
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return finish(masked_select.op, (input, mask), _write_out(out, result, "masked_select"),
                      modified=out)
    return finish(masked_select.op, (input, mask), result)


def _masked_fill_into(self, mask, value, name):
    _check_tensor(mask, name, "mask")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_c_type_name(mask._dtype)}")
    fill = _fill_value(value, self._dtype, "masked_fill_")
    shape = broadcast_shapes(self._shape, mask._shape)
    if tuple(shape) != tuple(self._shape):
        raise TensorRuntimeError(
            f"The expanded size of the tensor ({self._shape[-1] if self._shape else 1}) must "
            f"match the existing size ({mask._shape[-1]}) at non-singleton dimension "
            f"{len(shape) - 1}.  Target sizes: {list(self._shape)}.  Tensor sizes: "
            f"{list(mask._shape)}")
    return fill, shape


def _c_type_name(dtype):
    return {"uint8": "unsigned char", "int8": "signed char", "int16": "short",
            "int32": "int", "int64": "long int", "float32": "float", "float64": "double",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(dtype.name, dtype.name)


@register("copy")
def masked_fill(input, mask, value):
    """A copy of ``input`` (broadcast with ``mask``) with ``value`` where ``mask`` is True."""
    _check_tensor(mask, "masked_fill", "mask")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    base = new_empty_tensor(Size(shape), input._dtype, input._storage.device)
    fill, _ = _masked_fill_into(base, mask, value, "masked_fill")
    target = base._array()
    target[...] = xp.broadcast_to(input._array(), shape)
    target[xp.broadcast_to(mask._array(), shape)] = fill
    return finish(masked_fill.op, (input, mask), base)


@register("inplace", function=False)
def masked_fill_(self, mask, value):
    """Write ``value`` into ``self`` where ``mask`` (broadcast to ``self``) is True."""
    fill, shape = _masked_fill_into(self, mask, value, "masked_fill_")
    xp = _xp(self)
    _check_writable(self)
    self._array()[xp.broadcast_to(mask._array(), shape)] = fill
    return finish(masked_fill_.op, (self, mask), self, modified=self)


def _masked_scatter_check(self, mask, source, name):
    _check_tensor(mask, name, "mask")
    _check_tensor(source, name, "source")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{_c_type_name(mask._dtype)}")
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but got "
            f"{self._dtype._torch_name} and {source._dtype._torch_name}")


@register("copy")
def masked_scatter(input, mask, source):
    """A copy of ``input`` whose masked positions take ``source``'s elements in order."""
    _masked_scatter_check(input, mask, source, "masked_scatter")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    m = xp.broadcast_to(mask._array(), shape)
    count = int(m.sum())
    if count > source.numel():
        raise TensorRuntimeError("masked_scatter: expected source to have at least as many "
                                 f"elements as the ones in mask ({count}), got {source.numel()}")
    out = new_empty_tensor(Size(shape), input._dtype, input._storage.device)
    target = out._array()
    target[...] = xp.broadcast_to(input._array(), shape)
    target[m] = source._array().reshape(-1)[:count]
    return finish(masked_scatter.op, (input, mask, source), out)


@register("inplace", function=False)
def masked_scatter_(self, mask, source):
    """Copy ``source``'s elements, in order, into the positions of ``self`` where ``mask``."""
    _masked_scatter_check(self, mask, source, "masked_scatter_")
    shape = broadcast_shapes(self._shape, mask._shape)
    if tuple(shape) != tuple(self._shape):
        raise TensorRuntimeError(
            f"masked_scatter_: mask of shape {list(mask._shape)} cannot be broadcast to self of "
            f"shape {list(self._shape)}")
    xp = _xp(self)
    m = xp.broadcast_to(mask._array(), shape)
    count = int(m.sum())
    if count > source.numel():
        raise TensorRuntimeError("masked_scatter: expected source to have at least as many "
                                 f"elements as the ones in mask ({count}), got {source.numel()}")
    values = source._array().reshape(-1)[:count].copy()
    self._array()[m] = values
    return finish(masked_scatter_.op, (self, mask, source), self, modified=self)


# ---------------------------------------------------------------------- index_* along a dim
def _dim_index(input, dim, index, name, allow_int=True):
    """Validate ``index`` (0-d or 1-d integers) along ``dim``; returns (dim, wrapped array)."""
    _index_tensor(index, name, allow_int)
    dim = wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise TensorIndexError(f"{name}(): Index is supposed to be a vector")
    return dim, index._array().reshape(-1).astype(np.int64)


def _check_range(array, size, message):
    if array.size and (bool((array < -size).any()) if False else False):
        pass
    if array.size and (bool((array >= size).any()) or bool((array < -size).any())):
        raise TensorIndexError(message)


@register("copy")
def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` at positions ``index`` (a vector) along ``dim``: a copy."""
    dim, idx = _dim_index(input, dim, index, "index_select")
    size = input._shape[dim] if input.dim() else 1
    if idx.size and (bool((idx >= size).any()) or bool((idx < -size).any())):
        bad = int(idx[(idx >= size) | (idx < -size)][0])
        raise TensorRuntimeError(
            f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    xp = _xp(input)
    source = input._array() if input.dim() else input._array().reshape(1)
    values = xp.take(source, idx, axis=dim)
    if not input.dim():
        values = values.reshape(index._shape)
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return finish(index_select.op, (input, index),
                      _write_out(out, result, "index_select"), modified=out)
    return finish(index_select.op, (input, index), result)


def _index_add_check(self, dim, index, source, name):
    dim, idx = _dim_index(self, dim, index, name)
    _check_tensor(source, name, "source")
    n = idx.size
    err = TensorIndexError if name.startswith("index_copy") else TensorRuntimeError
    if source.dim() and source._shape[dim if source.dim() > dim else 0] != n and self.dim():
        raise err(
            f"{name}(): Number of indices ({n}) should be equal to source.size(dim) "
            f"({source._shape[dim]})")
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"{name}(): self ({self._dtype._torch_name}) and source "
            f"({source._dtype._torch_name}) must have the same scalar type")
    size = self._shape[dim] if self.dim() else 1
    expected = list(self._shape)
    if self.dim():
        expected[dim] = n
    if source.numel() != builtins.max(1, np.prod(expected, dtype=np.int64)) and \
            tuple(source._shape) != tuple(expected):
        raise TensorRuntimeError(
            f"{name}(): source shape {list(source._shape)} does not match self shape "
            f"{list(self._shape)} with {n} indices along dim {dim}")
    if idx.size and (bool((idx >= size).any()) or bool((idx < -size).any())):
        bad = int(idx[(idx >= size) | (idx < -size)][0])
        raise err(f"{name}(): index {bad} is out of bounds for dimension {dim} with size "
                  f"{size}")
    return dim, np.where(idx < 0, idx + size, idx), expected


def _index_add_into(target, dim, idx, source, alpha, expected):
    xp = _xp(target)
    arr = target._array()
    src = source._array().reshape(expected) if target.dim() else source._array().reshape(1)
    if alpha != 1:
        src = src * np.asarray(alpha).astype(target._dtype.numpy) \
            if target._dtype is not _dtypes.bool_ else src
    view = arr if target.dim() else arr.reshape(1)
    moved = xp.moveaxis(view, dim, 0)
    xp.add.at(moved, idx, xp.moveaxis(src, dim, 0).astype(target._dtype.numpy))


@register("copy")
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """A copy of ``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (duplicate indices accumulate)."""
    dim, idx, expected = _index_add_check(input, dim, index, source, "index_add")
    result = _fresh(input)
    _index_add_into(result, dim, idx, source, alpha, expected)
    if out is not None:
        return finish(index_add.op, (input, index, source), _write_out(out, result, "index_add"),
                      modified=out)
    return finish(index_add.op, (input, index, source), result)


@register("inplace", function=False)
def index_add_(self, dim, index, source, *, alpha=1):
    """In-place ``index_add``."""
    dim, idx, expected = _index_add_check(self, dim, index, source, "index_add_")
    _check_writable(self)
    _index_add_into(self, dim, idx, source, alpha, expected)
    return finish(index_add_.op, (self, index, source), self, modified=self)


def _index_copy_into(target, dim, idx, source, expected):
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    src = source._array().reshape(expected) if target.dim() else source._array().reshape(1)
    xp.moveaxis(arr, dim, 0)[idx] = xp.moveaxis(src, dim, 0)


@register("copy")
def index_copy(input, dim, index, source):
    """A copy of ``input`` whose slices at ``index`` along ``dim`` are replaced by ``source``."""
    dim, idx, expected = _index_add_check(input, dim, index, source, "index_copy")
    result = _fresh(input)
    _index_copy_into(result, dim, idx, source, expected)
    return finish(index_copy.op, (input, index, source), result)


@register("inplace", function=False)
def index_copy_(self, dim, index, source):
    """In-place ``index_copy``."""
    dim, idx, expected = _index_add_check(self, dim, index, source, "index_copy_")
    _check_writable(self)
    _index_copy_into(self, dim, idx, source, expected)
    return finish(index_copy_.op, (self, index, source), self, modified=self)


def _index_fill_check(self, dim, index, value, name):
    dim, idx = _dim_index(self, dim, index, name, allow_int=False)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise TensorRuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.dim()} dimension(s).")
    fill = _fill_value(value, self._dtype, name)
    size = self._shape[dim] if self.dim() else 1
    if idx.size and (bool((idx >= size).any()) or bool((idx < -size).any())):
        bad = int(idx[(idx >= size) | (idx < -size)][0])
        raise TensorIndexError(
            f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return dim, np.where(idx < 0, idx + size, idx), fill


def _index_fill_into(target, dim, idx, fill):
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    xp.moveaxis(arr, dim, 0)[idx] = fill


@register("copy")
def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    dim, idx, fill = _index_fill_check(input, dim, index, value, "index_fill")
    result = _fresh(input, _preserve(input))
    _index_fill_into(result, dim, idx, fill)
    return finish(index_fill.op, (input, index), result)


@register("inplace", function=False)
def index_fill_(self, dim, index, value):
    """In-place ``index_fill``."""
    dim, idx, fill = _index_fill_check(self, dim, index, value, "index_fill_")
    _check_writable(self)
    _index_fill_into(self, dim, idx, fill)
    return finish(index_fill_.op, (self, index), self, modified=self)


def _put_indices(self, indices, values, name):
    if not isinstance(indices, (tuple, list)):
        raise TensorTypeError(
            f"{name}(): argument 'indices' must be tuple of Tensors, not "
            f"{type(indices).__name__}")
    _check_tensor(values, name, "values")
    if len(indices) > self.dim():
        raise TensorIndexError(
            f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    recorded = {}
    for d, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"expected Tensor as element {d} in argument 1, but got {type(t).__name__}")
        recorded[d] = t
    return recorded


@register("inplace")
def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (``accumulate=True`` adds, summing duplicate indices)."""
    recorded = _put_indices(input, indices, values, "index_put_")
    if not recorded:
        from .copies import copy_value_into

        copy_value_into(input, values)
        return finish(index_put_.op, (input, values), input, modified=input)
    put = prepare_put(input, recorded, values, accumulate, masked_fill_dispatch=True)
    put()
    return finish(index_put_.op, (input, values), input, modified=input)


@register("copy")
def index_put(input, indices, values, accumulate=False):
    """Out-of-place ``index_put_`` on a copy of ``input`` (which keeps its layout)."""
    recorded = _put_indices(input, indices, values, "index_put")
    result = _fresh(input, _preserve(input))
    if not recorded:
        from .copies import copy_value_into

        copy_value_into(result, values)
        return finish(index_put.op, (input, values), result)
    put = prepare_put(result, recorded, values, accumulate, masked_fill_dispatch=True)
    put()
    return finish(index_put.op, (input, values), result)


# ---------------------------------------------------------------------- gather / scatter
def _gather_check(input, dim, index, name):
    ndim = input.dim()
    dim = wrap_dim(dim, ndim)
    if index.dim() != ndim and not (builtins.max(index.dim(), 1) == builtins.max(ndim, 1)):
        raise TensorRuntimeError(
            "Index tensor must have the same number of dimensions as input tensor")
    return dim


def _full_index(index_array, dim, xp):
    """Index arrays addressing ``target[..., index, ...]`` for each element of ``index``."""
    shape = index_array.shape
    key = []
    for d in range(len(shape)):
        if d == dim:
            key.append(index_array)
        else:
            r = xp.arange(shape[d]).reshape([-1 if i == d else 1 for i in range(len(shape))])
            key.append(r)
    return tuple(key)


def _check_gather_bounds(idx, size, dim, name="gather"):
    if idx.size:
        bad = (idx < -size) | (idx >= size)
        if bool(bad.any()):
            value = int(idx[bad].reshape(-1)[0])
            raise TensorRuntimeError(
                f"index {value} is out of bounds for dimension {dim} with size {size}")


@register("copy")
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` (for dim 0): values picked along ``dim``."""
    _index_tensor(index, "gather")
    dim = _gather_check(input, dim, index, "gather")
    ndim = input.dim()
    for d in range(ndim):
        if d != dim and index._shape[d] > input._shape[d]:
            raise TensorRuntimeError(
                f"Size does not match at dimension {d} expected index {list(index._shape)} to "
                f"be no larger than self {list(input._shape)} apart from dimension {dim}")
    xp = _xp(input)
    idx = index._array().astype(np.int64)
    size = input._shape[dim] if ndim else 1
    _check_gather_bounds(idx, size, dim)
    src = input._array() if ndim else input._array().reshape(1)
    idx2 = idx if ndim else idx.reshape(-1)
    idx2 = xp.where(idx2 < 0, idx2 + size, idx2)
    values = src[_full_index(idx2, dim, xp)] if idx2.size else xp.empty(idx2.shape, src.dtype)
    result = _wrap(values.reshape(index._shape), input._dtype, input._storage.device)
    if out is not None:
        return finish(gather.op, (input, index), _write_out(out, result, "gather"), modified=out)
    return finish(gather.op, (input, index), result)


_SCATTER_REDUCE = {"add": "add", "multiply": "multiply", "sum": "add", "prod": "multiply",
                   "amax": "maximum", "amin": "minimum", "mean": "mean"}


def _scatter_check(self, dim, index, src, name, value=None):
    _index_tensor(index, name, allow_int=False)
    ndim = self.dim()
    dim = wrap_dim(dim, ndim)
    if index.dim() != ndim and not (builtins.max(index.dim(), 1) == builtins.max(ndim, 1)):
        raise TensorRuntimeError(
            "Index tensor must have the same number of dimensions as self tensor")
    if src is not None:
        if src._dtype is not self._dtype:
            raise TensorRuntimeError(
                f"{name}(): Expected self.dtype to be equal to src.dtype")
        if index.dim() != src.dim() and index.numel():
            raise TensorRuntimeError(
                "Index tensor must have the same number of dimensions as src tensor")
    for d in range(ndim):
        if index._shape[d] > self._shape[d] and d != dim:
            raise TensorRuntimeError(
                f"Expected index {list(index._shape)} to be no larger than self "
                f"{list(self._shape)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._shape) if src is not None else []}")
        if src is not None and index._shape[d] > src._shape[d]:
            raise TensorRuntimeError(
                f"Expected index {list(index._shape)} to be no larger than self "
                f"{list(self._shape)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._shape)}")
    size = self._shape[dim] if ndim else 1
    idx = index._array().astype(np.int64).reshape(index._shape if ndim else (-1,))
    _check_gather_bounds(idx, size, dim)
    idx = np.where(idx < 0, idx + size, idx) if idx.size else idx
    return dim, idx


def _scatter_into(target, dim, idx, src_array, reduce, include_self=True):
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    if not idx.size:
        return
    key = _full_index(xp.asarray(idx), dim, xp)
    if src_array is None:
        return
    if src_array.ndim == 0:
        values = xp.broadcast_to(src_array, idx.shape)
    else:
        values = src_array.reshape(src_array.shape if target.dim() else (-1,))
        values = values[tuple(slice(0, s) for s in idx.shape)]
    values = values.astype(arr.dtype)
    if reduce is None:
        arr[key] = values
        return
    ufunc = _SCATTER_REDUCE[reduce]
    if ufunc == "mean":
        work = arr.astype(np.float64) if arr.dtype.kind in "iub" else arr
        counts = xp.zeros(arr.shape, dtype=np.int64)
        xp.add.at(counts, key, 1)
        if include_self:
            total = work.copy()
            counts = counts + 1
        else:
            total = xp.where(counts > 0, 0, work).astype(work.dtype)
        xp.add.at(total, key, values.astype(work.dtype))
        safe = xp.maximum(counts, 1)
        if arr.dtype.kind in "iu":
            mean = xp.floor_divide(total.astype(np.int64) if False else total, safe)
            result = xp.where(counts > 0 if not include_self else True, mean, arr)
        else:
            result = total / safe
            result = xp.where(counts > 0, result, arr) if not include_self else result
        arr[...] = result.astype(arr.dtype)
        return
    if not include_self:
        touched = xp.zeros(arr.shape, dtype=bool)
        touched[key] = True
        identity = {"add": 0, "multiply": 1}.get(ufunc)
        if identity is None:
            info = (np.finfo(arr.dtype) if arr.dtype.kind in "fc" else
                    (np.iinfo(arr.dtype) if arr.dtype.kind in "iu" else None))
            if arr.dtype.kind == "f":
                identity = -np.inf if ufunc == "maximum" else np.inf
            elif info is not None:
                identity = info.min if ufunc == "maximum" else info.max
            else:
                identity = ufunc == "minimum"
        arr[touched] = identity
    getattr(xp, ufunc).at(arr, key, values)


def _scatter_common(op, self, dim, index, src, value, reduce, inplace, name):
    if reduce is not None and reduce not in ("add", "multiply"):
        raise TensorRuntimeError(
            f"reduce argument must be either add or multiply. Got {reduce}")
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    dim, idx = _scatter_check(self, dim, index, src, name)
    if src is None:
        fill = _fill_value(value, self._dtype, name)
        src_array = _xp(self).asarray(fill)
    else:
        if src._storage is self._storage:
            src_array = src._array().copy()
        else:
            src_array = src._array()
    if inplace:
        _check_writable(self)
        target = self
    else:
        target = _fresh(self)
    _scatter_into(target, dim, idx, src_array, reduce)
    inputs = (self, index) + ((src,) if src is not None else ())
    return finish(op, inputs, target, modified=self if inplace else None)


@register("copy")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``."""
    return _scatter_common(scatter.op, input, dim, index, src, value, reduce, False, "scatter")


@register("inplace", function=False)
def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """In-place ``scatter``; ``reduce='add'``/``'multiply'`` combine instead of overwrite."""
    return _scatter_common(scatter_.op, self, dim, index, src, value, reduce, True, "scatter_")


@register("copy")
def scatter_add(input, dim, index, src):
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (duplicates sum)."""
    _check_tensor(src, "scatter_add", "src")
    dim, idx = _scatter_check(input, dim, index, src, "scatter_add")
    target = _fresh(input)
    _scatter_into(target, dim, idx, src._array(), "add")
    return finish(scatter_add.op, (input, index, src), target)


@register("inplace", function=False)
def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``."""
    _check_tensor(src, "scatter_add_", "src")
    dim, idx = _scatter_check(self, dim, index, src, "scatter_add_")
    _check_writable(self)
    _scatter_into(self, dim, idx, src._array().copy(), "add")
    return finish(scatter_add_.op, (self, index, src), self, modified=self)


def _scatter_reduce_common(op, self, dim, index, src, reduce, include_self, inplace):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise TensorRuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _check_tensor(src, "scatter_reduce", "src")
    dim, idx = _scatter_check(self, dim, index, src, "scatter_reduce")
    if inplace:
        _check_writable(self)
    target = self if inplace else _fresh(self)
    _scatter_into(target, dim, idx, src._array().copy(), reduce, include_self)
    return finish(op, (self, index, src), target, modified=self if inplace else None)


@register("copy")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Scatter ``src`` into a copy of ``input`` combining with sum/prod/mean/amax/amin."""
    return _scatter_reduce_common(scatter_reduce.op, input, dim, index, src, reduce,
                                  include_self, False)


@register("inplace", function=False)
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place ``scatter_reduce``."""
    return _scatter_reduce_common(scatter_reduce_.op, self, dim, index, src, reduce,
                                  include_self, True)


@register("copy")
def take(input, index, *, out=None):
    """``input.flatten()[index]`` with ``index``'s shape."""
    _index_tensor(index, "take", allow_int=False)
    n = input.numel()
    idx = index._array().astype(np.int64)
    if idx.size:
        bad = (idx < -n) | (idx >= n)
        if bool(bad.any()):
            value = int(idx[bad].reshape(-1)[0])
            raise TensorIndexError(
                f"out of range: tried to access index {value} on a tensor of {n} elements.")
    xp = _xp(input)
    flat = input._array().reshape(-1)
    values = flat[xp.where(idx < 0, idx + n, idx)] if idx.size else xp.empty(idx.shape,
                                                                              flat.dtype)
    result = _wrap(values.reshape(index._shape), input._dtype, input._storage.device)
    if out is not None:
        return finish(take.op, (input, index), _write_out(out, result, "take"), modified=out)
    return finish(take.op, (input, index), result)


@register("copy")
def take_along_dim(input, indices, dim=None, *, out=None):
    """Pick values along ``dim`` at ``indices`` (broadcast with ``input`` except on ``dim``);
    ``dim=None`` works on the flattened input."""
    _check_tensor(indices, "take_along_dim", "indices")
    if indices._dtype not in (_dtypes.int64, _dtypes.int32) or \
            indices._dtype is _dtypes.int32:
        raise TensorRuntimeError(
            f"torch.take_along_dim(): dtype of indices should be int64 but got "
            f"{indices._dtype._torch_name}")
    xp = _xp(input)
    if dim is None:
        src = input._array().reshape(-1)
        idx = indices._array().reshape(-1)
        d = 0
        n = src.shape[0]
    else:
        if input.dim() != indices.dim():
            raise TensorRuntimeError(
                f"torch.take_along_dim(): input and indices should have the same number of "
                f"dimensions, but got {input.dim()} dimensions for input, and {indices.dim()} "
                f"dimensions for indices")
        d = wrap_dim(dim, input.dim())
        shape_in, shape_idx = list(input._shape), list(indices._shape)
        shape_in[d] = shape_idx[d] = 1
        b = list(broadcast_shapes(tuple(shape_in), tuple(shape_idx)))
        src_shape, idx_shape = list(b), list(b)
        src_shape[d] = input._shape[d]
        idx_shape[d] = indices._shape[d]
        src = xp.broadcast_to(input._array(), src_shape)
        idx = xp.broadcast_to(indices._array(), idx_shape)
        n = input._shape[d]
    _check_gather_bounds(idx, n, d)
    idx = xp.where(idx < 0, idx + n, idx)
    values = xp.take_along_axis(src, idx, axis=d)
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return finish(take_along_dim.op, (input, indices),
                      _write_out(out, result, "take_along_dim"), modified=out)
    return finish(take_along_dim.op, (input, indices), result)


# ---------------------------------------------------------------------- where / nonzero
def _nonzero_tensor(input):
    """PyTorch's nonzero layout: an (n, ndim) tensor stored column by column (stride (1, n))."""
    coords = _nonzero_array(input)
    n, ndim = coords.shape
    buffer = _wrap(_xp(input).ascontiguousarray(coords.T), _dtypes.int64, input._storage.device)
    return Tensor._make(buffer._storage, Size((n, ndim)), (1, n), 0, _dtypes.int64)


def _nonzero_tuple(input):
    if input.dim() == 0:
        n = _nonzero_array(input).shape[0]
        return (_wrap(_xp(input).zeros(n, dtype=np.int64), _dtypes.int64,
                      input._storage.device),)
    full = _nonzero_tensor(input)
    n = full._shape[0]
    return tuple(Tensor._make(full._storage, Size((n,)), (1,), j * n, _dtypes.int64)
                 for j in range(input.dim()))


def _nonzero_array(input):
    xp = _xp(input)
    array = input._array()
    if array.ndim == 0:
        return xp.zeros((int(bool(array != 0)), 0), dtype=np.int64)
    cols = xp.nonzero(array)
    return xp.stack(cols, axis=1).astype(np.int64) if cols else xp.zeros((0, 0), np.int64)


@register("copy")
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one vector per dim."""
    if as_tuple:
        return finish(nonzero.op, (input,), _nonzero_tuple(input))
    result = _nonzero_tensor(input)
    if out is not None:
        return finish(nonzero.op, (input,), _write_out(out, result, "nonzero"), modified=out)
    return finish(nonzero.op, (input,), result)


@register("copy")
def argwhere(input):
    """``nonzero(input)``: an (n, ndim) tensor of the coordinates of non-zero elements."""
    return finish(argwhere.op, (input,), _nonzero_tensor(input))


@register("copy", method=False)
def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` else ``other`` (promoted, broadcast); with only
    ``condition``, ``nonzero(condition, as_tuple=True)``."""
    _check_tensor(condition, "where", "condition")
    if input is None and other is None:
        return finish(where.op, (condition,), _nonzero_tuple(condition))
    if input is None or other is None:
        raise TensorTypeError("where() missing required argument 'input' or 'other'")
    if condition._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype._torch_name}")
    promoted = result_dtype([input, other])
    np_result = promoted.numpy

    def compute(xp, c, a, b):
        return xp.where(c != 0, a.astype(np_result), b.astype(np_result))

    return elementwise(where.op, compute, (condition, input, other), out=out,
                       result_dtype_override=promoted, rule="where")


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
def repeat(input, *sizes):
    """Tile ``input`` ``sizes[d]`` times along each dim (NOT ``numpy.repeat``):
    ``tensor([1, 2]).repeat(2)`` is ``[1, 2, 1, 2]``."""
    return finish(repeat.op, (input,), _wrap(_repeat_array(input, sizes), input._dtype,
                                             input._storage.device))


@register("copy")
def tile(input, dims):
    """``repeat`` with missing leading repeats taken as 1."""
    from .views import sizes_from_args

    dims = sizes_from_args((dims,) if isinstance(dims, int) else dims, "dims")
    dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return finish(tile.op, (input,), _wrap(_repeat_array(input, dims), input._dtype,
                                           input._storage.device))


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
        return finish(repeat_interleave.op, (input,),
                      _wrap(values, counts._dtype, input._storage.device))
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
        inputs = (input, repeats)
    else:
        counts = int(repeats)
        if counts < 0:
            raise TensorRuntimeError("repeats can not be negative")
        inputs = (input,)
    values = xp.repeat(source, counts, axis=axis)
    if output_size is not None and values.shape[axis] != output_size:
        raise TensorRuntimeError(
            f"allocated size does not match required size (output_size={output_size}, "
            f"required {values.shape[axis]})")
    return finish(repeat_interleave.op, inputs, _wrap(values, input._dtype,
                                                       input._storage.device))


# ---------------------------------------------------------------------- joining
def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TensorTypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
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
    if all(_suggest_channels_last(t) for _, t in kept):
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


def _cat_impl(op, tensors, dim, out, name):
    tensors = _tensor_list(tensors, name)
    result = _cat_compute(tensors, dim, name)
    if out is not None:
        if out._dtype is not result._dtype:
            result = _wrap(result._array(), out._dtype, result._storage.device)
        return finish(op, tuple(tensors), _write_out(out, result, name), modified=out)
    return finish(op, tuple(tensors), result)


@register("copy", method=False)
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing ``dim`` (dtypes promote; empty 1-D tensors are skipped)."""
    return _cat_impl(cat.op, tensors, dim, out, "cat")


@register("copy", method=False)
def concat(tensors, dim=0, *, out=None):
    """Alias of ``cat``."""
    return _cat_impl(concat.op, tensors, dim, out, "cat")


@register("copy", method=False)
def concatenate(tensors, axis=0, *, out=None):
    """Alias of ``cat`` (NumPy's name; ``axis`` is ``dim``)."""
    return _cat_impl(concatenate.op, tensors, axis, out, "cat")


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
    result = _cat_compute([_unsqueezed(t, d) for t in tensors], d, "stack")
    if out is not None:
        return finish(stack.op, tuple(tensors), _write_out(out, result, "stack"), modified=out)
    return finish(stack.op, tuple(tensors), result)


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
        return finish(op, tuple(tensors), _write_out(out, result, name), modified=out)
    return finish(op, tuple(tensors), result)


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
        return finish(column_stack.op, tuple(tensors), _write_out(out, result, "column_stack"),
                      modified=out)
    return finish(column_stack.op, tuple(tensors), result)


# ---------------------------------------------------------------------- reordering
def _dims_arg(dims, name="dims"):
    if isinstance(dims, int):
        return (dims,)
    return tuple(int(d) for d in dims)


def _flip_array(input, dims):
    ndim = input.dim()
    wrapped = [wrap_dim(d, ndim) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise TensorRuntimeError(f"dims has duplicates, original flip dims size={len(dims)}, "
                                 f"but unique flip dims size={len(set(wrapped))}")
    array = input._array()
    key = [slice(None)] * ndim
    for d in wrapped:
        key[d] = slice(None, None, -1)
    return array[tuple(key)] if ndim else array


@register("copy")
def flip(input, dims):
    """A copy with the order of elements reversed along ``dims`` (keeps a dense layout)."""
    dims = _dims_arg(dims)
    flipped = _flip_array(input, dims)
    return finish(flip.op, (input,), _wrap(flipped, input._dtype, input._storage.device,
                                           _preserve(input)))


@register("copy")
def fliplr(input):
    """Reverse dim 1 (the columns); needs at least 2 dims."""
    if input.dim() < 2:
        raise TensorRuntimeError("Input must be >= 2-d.")
    return finish(fliplr.op, (input,), _wrap(_flip_array(input, (1,)), input._dtype,
                                             input._storage.device, _preserve(input)))


@register("copy")
def flipud(input):
    """Reverse dim 0 (the rows); needs at least 1 dim."""
    if input.dim() < 1:
        raise TensorRuntimeError("Input must be >= 1-d.")
    return finish(flipud.op, (input,), _wrap(_flip_array(input, (0,)), input._dtype,
                                             input._storage.device, _preserve(input)))


@register("copy")
def roll(input, shifts, dims=None):
    """Shift elements along ``dims`` cyclically; ``dims=None`` rolls the flattened tensor."""
    xp = _xp(input)
    shifts = _dims_arg(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise TensorRuntimeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        values = xp.roll(input._array().reshape(-1), shifts[0]).reshape(input._shape)
        return finish(roll.op, (input,), _wrap(values, input._dtype, input._storage.device))
    dims = _dims_arg(dims)
    if len(shifts) != len(dims):
        raise TensorRuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    wrapped = [wrap_dim(d, input.dim()) for d in dims]
    values = xp.roll(input._array(), shifts, axis=tuple(wrapped)) if input.dim() else \
        input._array().copy()
    if input.numel() == 0:
        stride = _preserve(input)
    elif _suggest_channels_last(input):
        stride = channels_last_strides(input._shape)
    else:
        stride = None
    return finish(roll.op, (input,), _wrap(values, input._dtype, input._storage.device,
                                           stride))


@register("copy")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first towards the
    second); the result's layout is that of PyTorch's flip-then-transpose."""
    dims = _dims_arg(dims)
    if len(dims) != 2:
        raise TensorRuntimeError(
            f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input.dim()
    if ndim < 2:
        raise TensorRuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise TensorRuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = k % 4
    device = input._storage.device
    if k == 0:
        result = _fresh(input)
    elif k == 2:
        result = _wrap(_flip_array(input, (d0, d1)), input._dtype, device, _preserve(input))
    else:
        flipped = _wrap(_flip_array(input, (d1 if k == 1 else d0,)), input._dtype, device,
                        _preserve(input))
        shape, stride = list(flipped._shape), list(flipped._stride)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
        flipped._set_metadata(shape, stride, 0)
        result = flipped
    return finish(rot90.op, (input,), result)


def _tri_mask(input, diagonal, lower, xp):
    rows, cols = input._shape[-2], input._shape[-1]
    r = xp.arange(rows).reshape(-1, 1)
    c = xp.arange(cols).reshape(1, -1)
    return (c - r <= diagonal) if lower else (c - r >= diagonal)


def _tri(op, input, diagonal, lower, name, inplace=False, out=None):
    if input.dim() < 2:
        raise TensorRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = _xp(input)
    mask = _tri_mask(input, int(diagonal), lower, xp)
    zero = xp.zeros((), dtype=input._dtype.numpy)
    values = xp.where(mask, input._array(), zero)
    if inplace:
        _check_writable(input)
        input._array()[...] = values
        return finish(op, (input,), input, modified=input)
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return finish(op, (input,), _write_out(out, result, name), modified=out)
    return finish(op, (input,), result)


@register("copy")
def tril(input, diagonal=0, *, out=None):
    """The lower triangle of the last two dims (elements with ``col - row <= diagonal``)."""
    return _tri(tril.op, input, diagonal, True, "tril", out=out)


@register("copy")
def triu(input, diagonal=0, *, out=None):
    """The upper triangle of the last two dims (elements with ``col - row >= diagonal``)."""
    return _tri(triu.op, input, diagonal, False, "triu", out=out)


@register("inplace", function=False)
def tril_(self, diagonal=0):
    """In-place ``tril``."""
    return _tri(tril_.op, self, diagonal, True, "tril", inplace=True)


@register("inplace", function=False)
def triu_(self, diagonal=0):
    """In-place ``triu``."""
    return _tri(triu_.op, self, diagonal, False, "triu", inplace=True)


# ---------------------------------------------------------------------- sorting
def _sort_arrays(input, dim, descending, xp):
    """Stable sort along ``dim``; NaN sorts as the largest value, as in PyTorch."""
    array = input._array() if input.dim() else input._array().reshape(1)
    if input._dtype.category == _dtypes.COMPLEX:
        raise TensorRuntimeError(f"\"sort\" not implemented for '{input._dtype._torch_name}'")
    work = array.astype(np.float32) if input._dtype is _dtypes.bfloat16 else array
    if descending:
        n = work.shape[dim]
        rev = xp.flip(work, axis=dim)
        order = xp.argsort(rev, axis=dim, kind="stable")
        order = xp.flip(order, axis=dim)
        indices = (n - 1) - order
    else:
        indices = xp.argsort(work, axis=dim, kind="stable")
    values = xp.take_along_axis(array, indices, axis=dim)
    if not input.dim():
        values, indices = values.reshape(()), indices.reshape(())
    return values, indices.astype(np.int64)


def _sort_impl(input, dim, descending):
    xp = _xp(input)
    dim = wrap_dim(dim, input.dim())
    values, indices = _sort_arrays(input, dim if input.dim() else 0, descending, xp)
    stride = _preserve(input)
    device = input._storage.device
    return (_wrap(values, input._dtype, device, stride),
            _wrap(indices, _dtypes.int64, device, stride))


@register("copy")
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """Sorted values and their original indices along ``dim`` (a ``(values, indices)`` named
    tuple). jtensor always sorts stably; NaN counts as the largest value."""
    if isinstance(dim, bool):
        # sort(input, stable, dim=..., descending=...) keyword-style overload
        dim = -1
    values, indices = _sort_impl(input, dim, descending)
    if out is not None:
        _write_out(out[0], values, "sort")
        _write_out(out[1], indices, "sort")
        return finish(sort.op, (input,), sort_result(out[0], out[1]), modified=out[0])
    return finish(sort.op, (input,), sort_result(values, indices))


@register("copy")
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along ``dim``."""
    _, indices = _sort_impl(input, dim, descending)
    return finish(argsort.op, (input,), indices)


@register("copy")
def msort(input, *, out=None):
    """``sort(input, dim=0).values``."""
    if input.dim() == 0:
        values = _fresh(input)
    else:
        values, _ = _sort_impl(input, 0, False)
    if out is not None:
        return finish(msort.op, (input,), _write_out(out, values, "msort"), modified=out)
    return finish(msort.op, (input,), values)


@register("copy")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices."""
    ndim = input.dim()
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim] if ndim else 1
    if not 0 <= k <= size:
        raise TensorRuntimeError("selected index k out of range")
    xp = _xp(input)
    values, indices = _sort_arrays(input, dim if ndim else 0, largest, xp)
    key = (slice(None),) * dim + (slice(0, k),)
    if ndim:
        values, indices = values[key], indices[key]
    device = input._storage.device
    v = _wrap(values, input._dtype, device)
    i = _wrap(indices, _dtypes.int64, device)
    if out is not None:
        _write_out(out[0], v, "topk")
        _write_out(out[1], i, "topk")
        return finish(topk.op, (input,), topk_result(out[0], out[1]), modified=out[0])
    return finish(topk.op, (input,), topk_result(v, i))


@register("copy")
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` (1-based) and its index."""
    ndim = input.dim()
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim] if ndim else 1
    if not 1 <= k <= size:
        raise TensorRuntimeError(
            f"kthvalue(): selected number k out of range for dimension {dim}")
    xp = _xp(input)
    values, indices = _sort_arrays(input, dim if ndim else 0, False, xp)
    if ndim:
        key = (slice(None),) * dim + (slice(k - 1, k),)
        values, indices = values[key], indices[key]
        if not keepdim:
            values = xp.squeeze(values, axis=dim)
            indices = xp.squeeze(indices, axis=dim)
    device = input._storage.device
    v = _wrap(values, input._dtype, device)
    i = _wrap(indices, _dtypes.int64, device)
    if out is not None:
        _write_out(out[0], v, "kthvalue")
        _write_out(out[1], i, "kthvalue")
        return finish(kthvalue.op, (input,), kthvalue_result(out[0], out[1]), modified=out[0])
    return finish(kthvalue.op, (input,), kthvalue_result(v, i))


@register("copy")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), optionally with the inverse mapping and the counts;
    with ``dim``, the distinct slices along ``dim``."""
    xp = _xp(input)
    device = input._storage.device
    array = input._array()
    if dim is None:
        flat = array.reshape(-1)
        if input._dtype is _dtypes.bfloat16:
            flat = flat.astype(np.float32)
        values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True)
        values = values.astype(input._dtype.numpy)
        inverse = inverse.reshape(input._shape)
    else:
        d = wrap_dim(dim, input.dim())
        moved = xp.moveaxis(array, d, 0)
        n = moved.shape[0]
        rows = moved.reshape(n, -1)
        if rows.shape[1] == 0 and n:
            values = moved[:1]
            inverse = xp.zeros(n, dtype=np.int64)
            counts = xp.asarray([n])
        else:
            order = xp.lexsort(rows.T[::-1]) if rows.shape[1] else xp.arange(n)
            srt = rows[order]
            if n:
                change = xp.concatenate([xp.asarray([True]),
                                         (srt[1:] != srt[:-1]).any(axis=1)])
            else:
                change = xp.zeros(0, dtype=bool)
            group = xp.cumsum(change) - 1
            firsts = order[change]
            values = moved[firsts]
            inverse = xp.empty(n, dtype=np.int64)
            inverse[order] = group
            counts = xp.bincount(group, minlength=int(change.sum())) if n else \
                xp.zeros(0, dtype=np.int64)
        values = xp.moveaxis(values, 0, d)
    out_values = _wrap(values, input._dtype, device)
    outputs = [out_values]
    if return_inverse:
        outputs.append(_wrap(inverse.astype(np.int64), _dtypes.int64, device))
    if return_counts:
        outputs.append(_wrap(counts.astype(np.int64), _dtypes.int64, device))
    result = outputs[0] if len(outputs) == 1 else tuple(outputs)
    return finish(unique.op, (input,), result)


_ = (TensorValueError, apply_slicing, assert_no_overlap)


def _where_method(self, condition, other):
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``."""
    return where(condition, self, other)


Tensor.where = _where_method
