"""More scattering: ``diagonal_scatter``, ``select_scatter``, ``slice_scatter`` (out-of-place
writes into a view's positions), ``put``/``put_`` (flat indices), ``index_reduce``/
``index_reduce_`` and the Python-callback in-place ops ``Tensor.apply_``/``Tensor.map_``.

The out-of-place forms copy their input keeping its layout (as PyTorch's ``clone``), except
``index_reduce`` whose result is contiguous. Everything is validated before any write.
"""

import builtins

import numpy as np

from .. import _dtypes
from .._dispatch import check_inplace, finish
from .._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, wrap_dim
from .._layout import broadcast_shapes
from .._registry import register
from ._selection_common import (
    _check_tensor,
    _check_writable,
    _fresh,
    _preserve,
    _wrap,
    _write_out,
    _xp,
)


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
    return finish(diagonal_scatter.op, (input, src), result)


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
    return finish(select_scatter.op, (input, src), result)


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
        return finish(slice_scatter.op, (input, src), _write_out(out, result, "slice_scatter"),
                      modified=out)
    return finish(slice_scatter.op, (input, src), result)


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
    if idx.size:
        bad = (idx < -n) | (idx >= n)
        if bool(bad.any()):
            raise TensorIndexError(
                f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} "
                "elements.")
    return np.where(idx < 0, idx + n, idx)


def _put_into(target, idx, source, accumulate):
    """Write ``source`` at the row-major flat positions ``idx`` of ``target`` (any layout)."""
    xp = _xp(target)
    dst = target._array()
    flat = xp.array(dst).reshape(-1)  # a row-major copy, written back in one go
    values = source._array().reshape(-1)
    if accumulate:
        xp.add.at(flat, idx, values)
    else:
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
    return finish(put.op, (input, index, source), result)


@register("inplace", function=False)
def put_(self, index, source, accumulate=False):
    """In-place ``put``."""
    idx = _put_check(self, index, source, "put_")
    _check_writable(self)
    _put_into(self, idx, source, accumulate)
    return finish(put_.op, (self, index, source), self, modified=self)


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
    if idx.size and bool(((idx < -size) | (idx >= size)).any()):
        raise TensorIndexError("index out of range in self")
    return d, np.where(idx < 0, idx + size, idx), tuple(expected)


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
        moved[np.unique(idx)] = _identity(reduce, self._dtype)
    with np.errstate(all="ignore"):
        if reduce == "prod":
            xp.multiply.at(moved, idx, src)
        elif reduce == "amax":
            xp.maximum.at(moved, idx, src)
        elif reduce == "amin":
            xp.minimum.at(moved, idx, src)
        else:
            xp.add.at(moved, idx, src)
            counts = xp.full(moved.shape[0], 1 if include_self else 0, dtype=np.int64)
            xp.add.at(counts, idx, 1)
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
    r = _index_reduce_values(input, d, idx, source, reduce, include_self, expected)
    result = _wrap(r, input._dtype, input._storage.device)
    if out is not None:
        return finish(index_reduce.op, (input, index, source),
                      _write_out(out, result, "index_reduce"), modified=out)
    return finish(index_reduce.op, (input, index, source), result)


@register("inplace", function=False)
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``."""
    d, idx, expected = _index_reduce_check(self, dim, index, source, reduce, "index_reduce_")
    _check_writable(self)
    r = _index_reduce_values(self, d, idx, source, reduce, include_self, expected)
    self._array()[...] = r
    return finish(index_reduce_.op, (self, index, source), self, modified=self)


# ---------------------------------------------------------------------- Python callbacks
def _check_cpu(self, name):
    if self.device.type != "cpu":
        raise TensorTypeError(f"{name} is only implemented on CPU tensors")


def _check_no_grad(self, name, other=None):
    # PyTorch's apply_/map_ run a Python callback autograd can't see: refused outright.
    if self.requires_grad or (other is not None and other.requires_grad):
        raise TensorRuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use "
            f"var.detach().{name}() instead.")


def _store(self, values):
    """Write the callback's Python results into ``self`` (cast as PyTorch's scalar writes)."""
    out = np.array(values, dtype=object).reshape(tuple(self._shape))
    with np.errstate(all="ignore"):
        if self._dtype.category == _dtypes.INTEGRAL:
            out = np.vectorize(int, otypes=[np.int64])(out) if out.size else out
        arr = np.asarray(out.tolist() if out.size else out, dtype=self._dtype.numpy) \
            if self._dtype is not _dtypes.bfloat16 else np.asarray(
                out.tolist(), dtype=np.float32).astype(self._dtype.numpy)
    xp = _xp(self)
    self._array()[...] = xp.asarray(arr.reshape(tuple(self._shape)))


@register("inplace", function=False)
def apply_(self, callable):
    """Replace every element ``x`` by ``callable(x)`` (a Python number). CPU only; slow.
    Refused on a tensor that requires grad, even under ``no_grad`` (as PyTorch)."""
    _check_no_grad(self, "apply_")
    _check_cpu(self, "apply_")
    check_inplace(self)
    values = [callable(v) for v in np.asarray(self._array()).reshape(-1).tolist()]
    _store(self, values)
    return finish(apply_.op, (self,), self, modified=self)


@register("inplace", function=False)
def map_(self, other, callable):
    """Replace every element ``x`` of ``self`` by ``callable(x, y)``, ``y`` from ``other``
    broadcast to ``self``'s shape (same dtype required). CPU only; slow. Refused when
    ``self`` or ``other`` requires grad, even under ``no_grad`` (as PyTorch)."""
    _check_tensor(other, "map_", "other")
    _check_no_grad(self, "map_", other)
    _check_cpu(self, "map_")
    if other._dtype is not self._dtype:
        raise TensorTypeError(
            f"map_: expected torch.{self._dtype._torch_name}Tensor for 'other' (got "
            f"torch.{other._dtype._torch_name}Tensor)")
    shape = tuple(self._shape)
    other_shape = tuple(other._shape)
    try:
        ok = tuple(broadcast_shapes(other_shape, shape)) == shape
    except RuntimeError:
        ok = False
    if not ok:
        mine = (1,) * (len(shape) - len(other_shape)) + other_shape
        for i in range(len(shape) - 1, -1, -1):
            if i < len(mine) and mine[i] != 1 and mine[i] != shape[i]:
                raise TensorRuntimeError(
                    f"The expanded size of the other ({shape[i]}) must match the existing "
                    f"size ({mine[i]}) at non-singleton dimension {i}.  Target sizes: "
                    f"{list(shape)}.  Tensor sizes: {list(other_shape)}")
        raise TensorRuntimeError(
            f"expand: the shape {list(other_shape)} cannot be broadcast to {list(shape)}")
    check_inplace(self)
    xs = np.asarray(self._array()).reshape(-1).tolist()
    ys = np.broadcast_to(np.asarray(other._array()), shape).reshape(-1).tolist()
    _store(self, [callable(x, y) for x, y in zip(xs, ys, strict=True)])
    return finish(map_.op, (self, other), self, modified=self)

