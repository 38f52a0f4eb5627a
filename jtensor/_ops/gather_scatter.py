"""Integer-index selection and scattering along a dim: ``index_select``/``index_add``/
``index_copy``/``index_fill``/``index_put``/``index_reduce`` (and in-place forms), ``gather``,
``scatter``, ``scatter_add``, ``scatter_reduce`` (and in-place forms), ``take``,
``take_along_dim``, ``put``/``put_`` (flat indices), and ``diagonal_scatter``,
``select_scatter``, ``slice_scatter`` (out-of-place writes into a view's positions; their
results, like ``put``'s, keep the input's layout; ``index_reduce``'s is contiguous).

Conventions (layouts, validation before writing, ``finish``): see ``_selection_common``.
"""

import builtins

import numpy as np

from .. import _dtypes
from .._arraymod import ufunc_at
from .._device import index_out_of_range
from .._dispatch import Post, check_inplace, check_same_device
from .._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, wrap_dim, type_name
from .._layout import broadcast_shapes
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from .advanced_indexing import prepare_put
from .views import _view_geometry
from ._selection_common import (_check_tensor, _check_writable, _fill_value, _fresh, _preserve,
                                _wrap, _write_out, _xp)


def _index_tensor(index, name, allow_int=True):
    if not isinstance(index, Tensor):
        raise TensorTypeError(
            f"{name}(): argument 'index' must be Tensor, not {type_name(index)}")
    allowed = (_dtypes.int64, _dtypes.int32) if allow_int else (_dtypes.int64,)
    if index._dtype not in allowed:
        if allow_int:
            raise TensorRuntimeError(
                f"{name}(): Expected dtype int32 or int64 for index")
        raise TensorRuntimeError(f"{name}(): Expected dtype int64 for index")
    return index


# ---------------------------------------------------------------------- index_* along a dim
def _dim_index(input, dim, index, name, allow_int=True):
    """Validate ``index`` (0-d or 1-d integers) along ``dim``; returns (dim, wrapped array)."""
    _index_tensor(index, name, allow_int)
    dim = wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise TensorIndexError(f"{name}(): Index is supposed to be a vector")
    return dim, index._array().reshape(-1).astype(np.int64)


def _index_vector(index, dim, name, vector_message):
    """PyTorch's first checks of ``index`` along an already wrapped ``dim``: a tensor of at
    most one dim (``IndexError``), then int32/int64; returns it as a flat int64 array."""
    if not isinstance(index, Tensor):
        raise TensorTypeError(
            f"{name}(): argument 'index' must be Tensor, not {type_name(index)}")
    if index.dim() > 1:
        raise TensorIndexError(vector_message() if callable(vector_message) else vector_message)
    return index._array().reshape(-1).astype(np.int64)


def _bounds(tensor, name, idx, bad, size, make_error, write):
    """``idx`` when ``bad`` (its out-of-range mask) holds no True, for a ``write`` with its
    negative indices wrapped. Otherwise the error ``make_error(first bad index)``: raised at
    once on the CPU; on CUDA a device-side assert (``_device.index_out_of_range``), and the
    op goes on reading clamped indices (its values are undefined, as on a GPU) or, for a
    ``write``, writing nothing (``None`` is returned)."""
    xp = _xp(tensor)
    if idx.size and bool(bad.any()):
        first = int(idx[bad].reshape(-1)[0])
        index_out_of_range(tensor._storage._backend, name, make_error(first), size)
        return None if write else xp.clip(idx, -size, size - 1)
    return xp.where(idx < 0, idx + size, idx) if write and idx.size else idx


def _check_index_dtype(index, message):
    """``message``: the error's text, or a function making it (formatted only on failure)."""
    if index._dtype not in (_dtypes.int64, _dtypes.int32):
        raise TensorRuntimeError(message() if callable(message) else message)


@register("copy", post=Post(check_devices=("input", "index")))
def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` at positions ``index`` (a vector) along ``dim``: a copy. A 0-d
    ``input`` takes exactly one index (0) and gives a 0-d result."""
    _check_tensor(input, "index_select", "input")
    dim = wrap_dim(dim, input.dim())
    if input._storage._backend.deferred and out is None and input.dim():
        return _launch_index_select(input, dim, index)
    idx = _index_vector(index, dim, "index_select",
                        "index_select(): Index is supposed to be a vector")
    if not input.dim() and idx.size != 1:
        raise TensorRuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    _check_index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    size = input._shape[dim] if input.dim() else 1
    if input.dim() > 1 and size == 0 and idx.size:
        raise TensorRuntimeError(
            f"index_select(): self indexing axis dim should be positive (dim {dim} of shape "
            f"{list(input._shape)} is empty, got {idx.size} indices)")
    def error(first):
        # Negative indices are refused too; the error type follows PyTorch's CPU kernels.
        if input.dim() > 1 and (dim == 1 or input.numel() == 0):
            return TensorRuntimeError(
                f"INDICES element is out of DATA bounds, id={first} axis_dim={size}")
        return TensorIndexError(
            f"index out of range in self: index_select() got index {first} for dim {dim} "
            f"of size {size}")

    idx = _bounds(input, "index_select", idx, (idx >= size) | (idx < 0), size, error, False)
    xp = _xp(input)
    if input.dim():
        values = xp.take(input._array(), idx, axis=dim)
    else:
        values = input._array().copy()
    result = _wrap(values, input._dtype, input._storage.device, fresh=True)
    if out is not None:
        return _write_out(out, result, "index_select")
    return result


def _launch_index_select(input, dim, index):
    """``index_select`` as a kernel on an asynchronous device. The host checks only what it
    knows without reading device memory; an index out of range fails in the kernel, so it is
    reported at the next synchronisation, as a device-side assert is on a GPU."""
    if not isinstance(index, Tensor):
        raise TensorTypeError(
            f"index_select(): argument 'index' must be Tensor, not {type_name(index)}")
    if index.dim() > 1:
        raise TensorIndexError("index_select(): Index is supposed to be a vector")
    _check_index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    device = check_same_device((input, index))
    size = input._shape[dim]
    count = index.numel()
    if input.dim() > 1 and size == 0 and count:
        raise TensorRuntimeError(
            f"index_select(): self indexing axis dim should be positive (dim {dim} of shape "
            f"{list(input._shape)} is empty, got {count} indices)")
    shape = list(input._shape)
    shape[dim] = count
    result = new_empty_tensor(shape, input._dtype, device)
    source, positions, target = (input._array_nowait(), index._array_nowait(),
                                 result._array_nowait())

    def kernel():
        flat = positions.reshape(-1).astype(np.int64)
        bad = (flat >= size) | (flat < 0)
        if bad.any():
            raise TensorIndexError(
                f"index_select(): index {int(flat[bad][0])} is out of bounds for dimension "
                f"{dim} with size {size} (Assertion `srcIndex < srcSelectDimSize` failed)")
        target[...] = np.take(source, flat, axis=dim)

    input._storage._backend.launch("index_select", kernel)
    return result


def _index_add_check(self, dim, index, source, name):
    if name.startswith("index_add"):
        return _index_add_checks(self, dim, index, source, name)
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
    idx = _bounds(self, name, idx, (idx >= size) | (idx < -size), size, lambda bad: err(
        f"{name}(): index {bad} is out of bounds for dimension {dim} with size {size}"), True)
    return dim, idx, expected


def _index_add_checks(self, dim, index, source, name):
    """``index_add``'s checks in PyTorch's order (``index_func_meta_impl``, then the CPU
    kernel's bounds check); a 0-d ``self`` or ``source`` counts as one slice."""
    dim = wrap_dim(dim, self.dim())
    idx = _index_vector(index, dim, name, lambda: (
        f"{name}(): Index is supposed to be a vector, but got dim: "
        f"{index.dim() if isinstance(index, Tensor) else '?'} with size: "
        f"{list(getattr(index, '_shape', ()))}"))
    _check_index_dtype(index, lambda: f"{name}(): Expected dtype int32/int64 for index but "
                                      f"got: {index._dtype._torch_name}")
    _check_tensor(source, name, "source")
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"{name}(): self ({self._dtype._torch_name}) and source "
            f"({source._dtype._torch_name}) must have the same scalar type")
    if dim != 0 and dim >= source.dim():
        raise TensorRuntimeError(
            f"{name}(): Indexing dim {dim} is out of bounds of the source tensor with dim "
            f"{source.dim()}")
    n = idx.size
    if n != (source._shape[dim] if source.dim() else 1):
        if not source.dim():
            # PyTorch fails while writing this message (source.size(0) of a 0-d tensor).
            raise TensorIndexError(
                f"{name}(): Number of indices ({n}) should be equal to the number of source "
                f"slices (1 for a 0-d source); Dimension specified as 0 but tensor has no "
                f"dimensions")
        raise TensorRuntimeError(
            f"{name}(): Number of indices ({n}) should be equal to source.size(dim): "
            f"({source._shape[dim]}), for dim: {dim}")
    self_rest, source_rest = list(self._shape), list(source._shape)
    if self.dim() and source.dim():
        del self_rest[dim], source_rest[dim]
    if self_rest != source_rest:
        raise TensorRuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(self._shape)} source.shape = "
            f"{list(source._shape)}")
    size = self._shape[dim] if self.dim() else 1

    def error(first):
        if self.dim() > 1:
            return TensorRuntimeError(
                f"{name}(): index {first} is out of bounds for dimension {dim} with size "
                f"{size}")
        return TensorIndexError(
            f"index out of range in self: {name}() got index {first} for dim {dim} of size "
            f"{size}")

    if self.numel():
        idx = _bounds(self, name, idx, (idx >= size) | (idx < 0), size, error, True)
    expected = list(self._shape)
    if self.dim():
        expected[dim] = n
    return dim, idx, expected


def _last_writes(xp, positions):
    """Where in the flat ``positions`` the last write to each position is. NumPy (and
    PyTorch's CPU kernels) keep the last of repeated writes; on a GPU the survivor is
    unspecified, so there the writes are cut to these first (CuPy's ``unique`` sorts
    stably: the first occurrence in the reversed order is the last one)."""
    n = positions.size
    _, first = xp.unique(positions.reshape(-1)[::-1], return_index=True)
    return n - 1 - first


def _index_add_into(target, dim, idx, source, alpha, expected):
    if idx is None:  # a device-side assert: nothing written
        return
    xp = _xp(target)
    arr = target._array()
    src = source._array().reshape(expected) if target.dim() else source._array().reshape(1)
    if alpha != 1 and target._dtype is not _dtypes.bool_:
        # A NumPy scalar, not a 0-d NumPy array: CuPy takes scalars but refuses host arrays.
        src = src * np.asarray(alpha).astype(target._dtype.numpy)[()]
    view = arr if target.dim() else arr.reshape(1)
    if dim:
        view, src = xp.moveaxis(view, dim, 0), xp.moveaxis(src, dim, 0)
    ufunc_at(xp, "add", view, idx, src.astype(target._dtype.numpy, copy=False))


@register("copy")
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """A copy of ``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (duplicate indices accumulate)."""
    dim, idx, expected = _index_add_check(input, dim, index, source, "index_add")
    result = _fresh(input)
    _index_add_into(result, dim, idx, source, alpha, expected)
    if out is not None:
        return _write_out(out, result, "index_add")
    return result


@register("inplace", function=False)
def index_add_(self, dim, index, source, *, alpha=1):
    """In-place ``index_add``."""
    dim, idx, expected = _index_add_check(self, dim, index, source, "index_add_")
    _check_writable(self)
    _index_add_into(self, dim, idx, source, alpha, expected)
    return self


def _index_copy_into(target, dim, idx, source, expected):
    if idx is None:  # a device-side assert: nothing written
        return
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    src = xp.moveaxis(
        source._array().reshape(expected) if target.dim() else source._array().reshape(1),
        dim, 0)
    if xp is not np and idx.size > 1:  # repeated indices: the last slice wins, as on NumPy
        last = _last_writes(xp, idx)
        idx, src = idx[last], src[last]
    xp.moveaxis(arr, dim, 0)[idx] = src


@register("copy")
def index_copy(input, dim, index, source, *, out=None):
    """A copy of ``input`` whose slices at ``index`` along ``dim`` are replaced by ``source``."""
    dim, idx, expected = _index_add_check(input, dim, index, source, "index_copy")
    result = _fresh(input)
    _index_copy_into(result, dim, idx, source, expected)
    if out is not None:
        return _write_out(out, result, "index_copy")
    return result


@register("inplace", function=False)
def index_copy_(self, dim, index, source):
    """In-place ``index_copy``."""
    dim, idx, expected = _index_add_check(self, dim, index, source, "index_copy_")
    _check_writable(self)
    _index_copy_into(self, dim, idx, source, expected)
    return self


def _index_fill_check(self, dim, index, value, name):
    dim, idx = _dim_index(self, dim, index, name, allow_int=False)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise TensorRuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.dim()} dimension(s).")
    fill = _fill_value(value, self._dtype, name)
    size = self._shape[dim] if self.dim() else 1
    idx = _bounds(self, name, idx, (idx >= size) | (idx < -size), size,
                  lambda bad: TensorIndexError(
                      f"index {bad} is out of bounds for dimension {dim} with size {size}"),
                  True)
    return dim, idx, fill


def _index_fill_into(target, dim, idx, fill):
    if idx is None:  # a device-side assert: nothing written
        return
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    xp.moveaxis(arr, dim, 0)[idx] = fill


@register("copy")
def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    dim, idx, fill = _index_fill_check(input, dim, index, value, "index_fill")
    result = _fresh(input, _preserve(input))
    _index_fill_into(result, dim, idx, fill)
    return result


@register("inplace", function=False)
def index_fill_(self, dim, index, value):
    """In-place ``index_fill``."""
    dim, idx, fill = _index_fill_check(self, dim, index, value, "index_fill_")
    _check_writable(self)
    _index_fill_into(self, dim, idx, fill)
    return self


def _put_indices(self, indices, values, name):
    if not isinstance(indices, (tuple, list)):
        raise TensorTypeError(
            f"{name}(): argument 'indices' must be tuple of Tensors, not "
            f"{type_name(indices)}")
    _check_tensor(values, name, "values")
    if len(indices) > self.dim():
        raise TensorIndexError(
            f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    recorded = {}
    for d, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"expected Tensor as element {d} in argument 1, but got {type_name(t)}")
        recorded[d] = t
    return recorded


@register("inplace")
def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (``accumulate=True`` adds, summing duplicate indices)."""
    check_inplace(input)
    recorded = _put_indices(input, indices, values, "index_put_")
    if not recorded:
        from .copies import copy_value_into

        copy_value_into(input, values)
        return input
    put = prepare_put(input, recorded, values, accumulate, masked_fill_dispatch=True)
    put()
    return input


@register("copy")
def index_put(input, indices, values, accumulate=False):
    """Out-of-place ``index_put_`` on a copy of ``input`` (which keeps its layout)."""
    recorded = _put_indices(input, indices, values, "index_put")
    result = _fresh(input, _preserve(input))
    if not recorded:
        from .copies import copy_value_into

        copy_value_into(result, values)
        return result
    put = prepare_put(result, recorded, values, accumulate, masked_fill_dispatch=True)
    put()
    return result


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


def _check_gather_bounds(tensor, idx, size, dim, name, write=False):
    return _bounds(tensor, name, idx, (idx < -size) | (idx >= size), size, lambda value:
                   TensorRuntimeError(f"index {value} is out of bounds for dimension {dim} "
                                      f"with size {size}"), write)


@register("copy", post=Post(check_devices=("input", "index")))
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` (for dim 0): values picked along ``dim``."""
    _index_tensor(index, "gather")
    dim = _gather_check(input, dim, index, "gather")
    # A 0-d input or index counts as one element along one dim, as in PyTorch.
    in_shape, index_shape = _nonempty(input._shape), _nonempty(index._shape)
    for d in range(len(in_shape)):
        if d != dim and index_shape[d] > in_shape[d]:
            raise TensorRuntimeError(
                f"Size does not match at dimension {d} expected index {list(index._shape)} to "
                f"be no larger than self {list(input._shape)} apart from dimension {dim}")
    xp = _xp(input)
    idx = index._array().astype(np.int64).reshape(index_shape)
    size = in_shape[dim]
    idx = _check_gather_bounds(input, idx, size, dim, "gather")
    src = input._array().reshape(in_shape)
    idx2 = xp.where(idx < 0, idx + size, idx)
    values = src[_full_index(idx2, dim, xp)] if idx2.size else xp.empty(idx2.shape, src.dtype)
    result = _wrap(values.reshape(index._shape), input._dtype, input._storage.device,
                   fresh=True)
    if out is not None:
        return _write_out(out, result, "gather")
    return result


_SCATTER_REDUCE = {"add": "add", "multiply": "multiply", "sum": "add", "prod": "multiply",
                   "amax": "maximum", "amin": "minimum", "mean": "mean"}


def _nonempty(shape):
    """PyTorch's ``ensure_nonempty_size`` for every dim: a 0-d tensor counts as one element
    along one dim (gather and scatter accept a 0-d index, self or src beside 1-d ones)."""
    return shape if shape else (1,)


def _scatter_check(self, dim, index, src, name, value=None):
    _index_tensor(index, name, allow_int=False)
    ndim = self.dim()
    dim = wrap_dim(dim, ndim)
    self_shape, index_shape = _nonempty(self._shape), _nonempty(index._shape)
    if len(index_shape) != len(self_shape):
        raise TensorRuntimeError(
            "Index tensor must have the same number of dimensions as self tensor")
    src_shape = None
    if src is not None:
        if src._dtype is not self._dtype:
            raise TensorRuntimeError(
                f"{name}(): Expected self.dtype to be equal to src.dtype")
        src_shape = _nonempty(src._shape)
        if len(index_shape) != len(src_shape) and index.numel():
            raise TensorRuntimeError(
                "Index tensor must have the same number of dimensions as src tensor")
    for d in range(len(self_shape)):
        if index_shape[d] > self_shape[d] and d != dim:
            raise TensorRuntimeError(
                f"Expected index {list(index._shape)} to be no larger than self "
                f"{list(self._shape)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._shape) if src is not None else []}")
        if src is not None and index_shape[d] > src_shape[d]:
            raise TensorRuntimeError(
                f"Expected index {list(index._shape)} to be no larger than self "
                f"{list(self._shape)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._shape)}")
    idx = index._array().astype(np.int64).reshape(index_shape)
    return dim, _check_gather_bounds(self, idx, self_shape[dim], dim, name, write=True)


def _scatter_into(target, dim, idx, src_array, reduce, include_self=True):
    xp = _xp(target)
    arr = target._array() if target.dim() else target._array().reshape(1)
    if idx is None or not idx.size:  # None: a device-side assert, nothing written
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
        if xp is not np and values.size > 1:  # repeated positions: the last write wins
            key = xp.broadcast_arrays(*key)
            last = _last_writes(xp, xp.ravel_multi_index(
                tuple(k.reshape(-1) for k in key), arr.shape))
            key = tuple(k.reshape(-1)[last] for k in key)
            values = xp.broadcast_to(values, idx.shape).reshape(-1)[last]
        arr[key] = values
        return
    ufunc = _SCATTER_REDUCE[reduce]
    if ufunc == "mean":
        work = arr.astype(np.float64) if arr.dtype.kind in "iub" else arr
        counts = xp.zeros(arr.shape, dtype=np.int64)
        ufunc_at(xp, "add", counts, key, 1)
        if include_self:
            total = work.copy()
            counts = counts + 1
        else:
            total = xp.where(counts > 0, 0, work).astype(work.dtype)
        ufunc_at(xp, "add", total, key, values.astype(work.dtype))
        safe = xp.maximum(counts, 1)
        if arr.dtype.kind in "iu":
            mean = xp.floor_divide(total, safe)
            # CuPy's where takes no Python bool as its condition
            result = mean if include_self else xp.where(counts > 0, mean, arr)
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
    ufunc_at(xp, ufunc, arr, key, values)


def _scatter_common(op, self, dim, index, src, value, reduce, inplace, name, out=None):
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
    if out is not None:
        return _write_out(out, target, name)
    return target


@register("copy")
def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``."""
    return _scatter_common(scatter.op, input, dim, index, src, value, reduce, False, "scatter",
                           out)


@register("inplace", function=False)
def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """In-place ``scatter``; ``reduce='add'``/``'multiply'`` combine instead of overwrite."""
    return _scatter_common(scatter_.op, self, dim, index, src, value, reduce, True, "scatter_")


@register("copy")
def scatter_add(input, dim, index, src, *, out=None):
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (duplicates sum)."""
    _check_tensor(src, "scatter_add", "src")
    dim, idx = _scatter_check(input, dim, index, src, "scatter_add")
    target = _fresh(input)
    _scatter_into(target, dim, idx, src._array(), "add")
    if out is not None:
        return _write_out(out, target, "scatter_add")
    return target


@register("inplace", function=False)
def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``."""
    _check_tensor(src, "scatter_add_", "src")
    dim, idx = _scatter_check(self, dim, index, src, "scatter_add_")
    _check_writable(self)
    _scatter_into(self, dim, idx, src._array().copy(), "add")
    return self


def _scatter_reduce_common(op, self, dim, index, src, reduce, include_self, inplace,
                           out=None):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise TensorRuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _check_tensor(src, "scatter_reduce", "src")
    dim, idx = _scatter_check(self, dim, index, src, "scatter_reduce")
    if inplace:
        _check_writable(self)
    target = self if inplace else _fresh(self)
    _scatter_into(target, dim, idx, src._array().copy(), reduce, include_self)
    if out is not None:
        return _write_out(out, target, "scatter_reduce")
    return target


@register("copy")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Scatter ``src`` into a copy of ``input`` combining with sum/prod/mean/amax/amin."""
    return _scatter_reduce_common(scatter_reduce.op, input, dim, index, src, reduce,
                                  include_self, False, out)


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
    idx = _bounds(input, "take", idx, (idx < -n) | (idx >= n), n, lambda value: TensorIndexError(
        f"out of range: tried to access index {value} on a tensor of {n} elements."), False)
    xp = _xp(input)
    flat = input._array().reshape(-1)
    values = flat[xp.where(idx < 0, idx + n, idx)] if idx.size else xp.empty(idx.shape,
                                                                              flat.dtype)
    result = _wrap(values.reshape(index._shape), input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "take")
    return result


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
        # PyTorch views both as 1-d: a layout no view can flatten raises, as there.
        _view_geometry(input, (-1,))
        _view_geometry(indices, (-1,))
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
    idx = _check_gather_bounds(input, idx, n, d, "take_along_dim")
    idx = xp.where(idx < 0, idx + n, idx)
    values = xp.take_along_axis(src, idx, axis=d)
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "take_along_dim")
    return result


# ---------------------------------------------- writes into a view's positions, put, index_reduce
def _src_mismatch(src, expected):
    return TensorRuntimeError(
        f"expected src to have a size equal to the slice of self. src size = "
        f"{list(src._shape)}, slice size = {list(expected)}")


def _src_array(src, dtype, expected):
    a = src._array()
    return a if a.dtype == dtype.numpy else a.astype(dtype.numpy)


# ---------------------------------------------------------------------- *_scatter
def _diagonal_positions(shape, offset, d1, d2):
    """Row and column indices of the ``offset`` diagonal of the (d1, d2) planes."""
    if offset >= 0:
        length = builtins.max(0, builtins.min(shape[d1], shape[d2] - offset))
        rows = np.arange(length)
        cols = rows + offset
    else:
        length = builtins.max(0, builtins.min(shape[d1] + offset, shape[d2]))
        cols = np.arange(length)
        rows = cols - offset
    return rows, cols, length


@register("copy")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written on its ``diagonal(offset, dim1, dim2)``."""
    _check_tensor(input, "diagonal_scatter", "input")
    _check_tensor(src, "diagonal_scatter", "src")
    ndim = input.dim()
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise TensorRuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape = tuple(input._shape)
    rows, cols, length = _diagonal_positions(shape, offset, d1, d2)
    expected = tuple(s for i, s in enumerate(shape) if i not in (d1, d2)) + (length,)
    if tuple(src._shape) != expected:
        raise _src_mismatch(src, expected)
    result = _fresh(input, _preserve(input))
    xp = _xp(input)
    moved = xp.moveaxis(result._array(), (d1, d2), (-2, -1))
    moved[..., rows, cols] = _src_array(src, input._dtype, expected)
    return result


@register("copy")
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``select(dim, index)``."""
    _check_tensor(input, "select_scatter", "input")
    _check_tensor(src, "select_scatter", "src")
    ndim = input.dim()
    if ndim == 0:
        raise TensorIndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, ndim)
    size = input._shape[d]
    if index < -size or index >= size:
        raise TensorIndexError(
            f"select(): index {index} out of range for tensor of size {list(input._shape)} "
            f"at dimension {d}")
    expected = tuple(s for i, s in enumerate(input._shape) if i != d)
    if tuple(src._shape) != expected:
        raise _src_mismatch(src, expected)
    result = _fresh(input, _preserve(input))
    xp = _xp(input)
    xp.moveaxis(result._array(), d, 0)[index % size] = _src_array(src, input._dtype, expected)
    return result


@register("copy")
def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """A copy of ``input`` with ``src`` written at ``input[..., start:end:step, ...]`` (on
    ``dim``)."""
    _check_tensor(input, "slice_scatter", "input")
    _check_tensor(src, "slice_scatter", "src")
    ndim = input.dim()
    d = wrap_dim(dim, builtins.max(ndim, 1))
    if step <= 0:
        raise TensorRuntimeError("slice step must be positive")
    size = input._shape[d] if ndim else 1
    lo, hi, st = slice(start, end, step).indices(size)
    positions = range(lo, hi, st)
    expected = list(input._shape)
    if ndim:
        expected[d] = len(positions)
    expected = tuple(expected)
    if tuple(src._shape) != expected:
        raise _src_mismatch(src, expected)
    result = _fresh(input, _preserve(input))
    xp = _xp(input)
    if ndim:
        xp.moveaxis(result._array(), d, 0)[lo:hi:st] = xp.moveaxis(
            _src_array(src, input._dtype, expected), d, 0)
    else:
        result._array()[...] = _src_array(src, input._dtype, expected)
    if out is not None:
        return _write_out(out, result, "slice_scatter")
    return result


# ---------------------------------------------------------------------- put
def _put_check(self, index, source, name):
    _check_tensor(index, name, "index")
    _check_tensor(source, name, "source")
    if index._dtype is not _dtypes.int64:
        raise TensorRuntimeError(
            f"put_(): Expected a long tensor for index, but got {index._dtype._torch_name}")
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{self._dtype._torch_name} and source.dtype = {source._dtype._torch_name}")
    if source.numel() != index.numel():
        raise TensorIndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    idx = index._array().reshape(-1).astype(np.int64)
    return _bounds(self, name, idx, (idx < -n) | (idx >= n), n, lambda value: TensorIndexError(
        f"out of range: tried to access index {value} on a tensor of {n} elements."), True)


def _put_into(target, idx, source, accumulate):
    """Write ``source`` at the row-major flat positions ``idx`` of ``target`` (any layout);
    nothing when ``idx`` is None (a device-side assert)."""
    if idx is None:
        return
    xp = _xp(target)
    dst = target._array()
    flat = xp.array(dst).reshape(-1)  # a row-major copy, written back in one go
    values = source._array().reshape(-1)
    if accumulate:
        ufunc_at(xp, "add", flat, idx, values)
    else:
        if xp is not np and idx.size > 1:  # repeated positions: the last write wins
            last = _last_writes(xp, idx)
            idx, values = idx[last], values[last]
        flat[idx] = values
    dst[...] = flat.reshape(dst.shape)


@register("copy")
def put(input, index, source, accumulate=False):
    """A copy of ``input`` (keeping its layout) with ``source`` written at the flat (row-major)
    positions ``index``; ``accumulate=True`` adds, summing duplicates."""
    _check_tensor(input, "put", "input")
    idx = _put_check(input, index, source, "put")
    result = _fresh(input, _preserve(input))
    _put_into(result, idx, source, accumulate)
    return result


@register("inplace", function=False)
def put_(self, index, source, accumulate=False):
    """In-place ``put``."""
    idx = _put_check(self, index, source, "put_")
    _check_writable(self)
    _put_into(self, idx, source, accumulate)
    return self


# ---------------------------------------------------------------------- index_reduce
_REDUCES = ("prod", "mean", "amax", "amin")


def _index_reduce_check(self, dim, index, source, reduce, name):
    _check_tensor(index, name, "index")
    _check_tensor(source, name, "source")
    if reduce not in _REDUCES:
        raise TensorRuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}.")
    if index._dtype not in (_dtypes.int64, _dtypes.int32):
        raise TensorRuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                                 f"{index._dtype._torch_name}")
    if index.dim() > 1:
        raise TensorIndexError(f"{name}(): Index is supposed to be a vector")
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"index_reduce_(): self ({self._dtype._torch_name}) and source "
            f"({source._dtype._torch_name}) must have the same scalar type")
    n = index.numel()
    src_size = source._shape[d] if source.dim() else 1
    if src_size != n:
        raise TensorRuntimeError(
            f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
            f"({src_size}), for dim: {d}")
    expected = list(self._shape) if self.dim() else [1]
    expected[d] = n
    if source.numel() != int(np.prod(expected, dtype=np.int64)):
        raise TensorRuntimeError(
            f"index_reduce_(): source shape {list(source._shape)} does not match self shape "
            f"{list(self._shape)} with {n} indices along dim {d}")
    size = self._shape[d] if self.dim() else 1
    idx = index._array().reshape(-1).astype(np.int64)
    idx = _bounds(self, name, idx, (idx < -size) | (idx >= size), size,
                  lambda value: TensorIndexError("index out of range in self"), True)
    return d, idx, tuple(expected)


def _identity(reduce, dtype):
    if reduce in ("prod",):
        return 1
    if reduce == "mean":
        return 0
    if dtype.category == _dtypes.FLOATING:
        return -np.inf if reduce == "amax" else np.inf
    if dtype is _dtypes.bool_:
        return reduce == "amin"
    info = np.iinfo(dtype.numpy)
    return info.min if reduce == "amax" else info.max


def _index_reduce_values(self, d, idx, source, reduce, include_self, expected):
    """The reduced array (a new array in ``self``'s dtype, ``self``'s shape)."""
    xp = _xp(self)
    base = xp.array(self._array()).reshape(expected[:d] + (
        self._shape[d] if self.dim() else 1,) + expected[d + 1:])
    moved = xp.moveaxis(base, d, 0)
    src = xp.moveaxis(source._array().reshape(expected), d, 0)
    if not include_self and idx.size:
        moved[idx] = _identity(reduce, self._dtype)
    with np.errstate(all="ignore"):
        if reduce == "prod":
            ufunc_at(xp, "multiply", moved, idx, src)
        elif reduce == "amax":
            ufunc_at(xp, "maximum", moved, idx, src)
        elif reduce == "amin":
            ufunc_at(xp, "minimum", moved, idx, src)
        else:
            ufunc_at(xp, "add", moved, idx, src)
            counts = xp.full(moved.shape[0], 1 if include_self else 0, dtype=np.int64)
            ufunc_at(xp, "add", counts, idx, 1)
            counts = xp.where(counts == 0, 1, counts).reshape((-1,) + (1,) * (moved.ndim - 1))
            if self._dtype.category in (_dtypes.FLOATING, _dtypes.COMPLEX):
                moved[...] = moved / counts.astype(moved.dtype)
            else:
                moved[...] = xp.floor_divide(moved, counts)
    return base.reshape(tuple(self._shape))


@register("copy")
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Reduce ``source``'s slices into ``input``'s slices at ``index`` along ``dim`` with
    ``reduce`` ('prod', 'mean', 'amax', 'amin'); ``include_self=False`` leaves the current
    values of the indexed slices out."""
    _check_tensor(input, "index_reduce", "input")
    d, idx, expected = _index_reduce_check(input, dim, index, source, reduce, "index_reduce_")
    r = (input._array().copy() if idx is None else  # None: a device-side assert
         _index_reduce_values(input, d, idx, source, reduce, include_self, expected))
    result = _wrap(r, input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "index_reduce")
    return result


@register("inplace", function=False)
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``."""
    d, idx, expected = _index_reduce_check(self, dim, index, source, reduce, "index_reduce_")
    _check_writable(self)
    if idx is None:  # a device-side assert: nothing written
        return self
    r = _index_reduce_values(self, d, idx, source, reduce, include_self, expected)
    self._array()[...] = r
    return self
