"""Sorting and order statistics: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``,
``unique``, ``unique_consecutive``, and the searches in sorted sequences ``searchsorted``
and ``bucketize``.
``sort``/``topk``/``kthvalue`` return ``jtensor.return_types`` named tuples.

Conventions (layouts, validation before writing, ``finish``): see ``_selection_common``.
"""

import math
import numbers

import numpy as np

from .. import _dtypes, return_types
from .._argparse import int_arg
from .._device import data_dependent_sync
from .._elementwise import result_dtype
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError, not_implemented,
                       wrap_dim, type_name)
from .._layout import contiguous_strides
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from ._selection_common import _fresh, _preserve, _wrap, _write_out, _xp
from ._stl_order import STL_THRESHOLD, sort_positions, topk_positions
from .reductions import _LOW, _emit, check_out, check_tensor
from .views import _check_tensor


# ---------------------------------------------------------------------- sorting
def _sort_arrays(input, dim, descending, xp):
    """Stable sort along ``dim``; NaN sorts as the largest value, as in PyTorch."""
    array = input._array() if input.dim() else input._array().reshape(1)
    if input._dtype.category == _dtypes.COMPLEX:
        raise TensorRuntimeError(f"\"sort\" not implemented for '{input._dtype._torch_name}'")
    work = array.astype(np.float32) if input._dtype is _dtypes.bfloat16 else array
    if descending:
        n = work.shape[dim]
        # (reversed along ``dim`` by a slice: ``flip``'s view, without its Python frames)
        backwards = (slice(None),) * dim + (slice(None, None, -1),)
        order = xp.argsort(work[backwards], axis=dim, kind="stable")[backwards]
        indices = (n - 1) - order
    else:
        indices = xp.argsort(work, axis=dim, kind="stable")
    values = _take_along(xp, array, indices, dim)
    if not input.dim():
        values, indices = values.reshape(()), indices.reshape(())
    return values, indices.astype(np.int64)


# ``_topk_head``: rows at least this long, heads at most this share of them (below, the
# whole sort costs little more than the selection's extra passes).
_HEAD_FROM = 64
_HEAD_SHARE = 8


def _topk_head(input, dim, m, descending):
    """For ``topk``: (values, indices) of ``m`` entries along ``dim`` whose values are the
    first ``m`` of ``_sort_arrays(input, dim, descending, np)`` (NaN the largest), in that
    order, without sorting whole rows: an ``argpartition`` picks them, then they are sorted.
    Which of several equal values it picks, and their order, may differ from the stable
    sort's; ``topk`` asks for one entry more than it reports, and ``_topk_as_libstdcxx``
    replays every row with equal values among those (as PyTorch's kernel decides them), so
    only rows without such ties keep this order, which is then the only one. None where it
    does not pay (short rows, big heads, bool or complex values)."""
    array = input._array()
    n = array.shape[dim]
    if n < _HEAD_FROM or m * _HEAD_SHARE > n:
        return None
    work = array.astype(np.float32) if input._dtype is _dtypes.bfloat16 else array
    if work.dtype.kind not in "fiu":
        return None
    rows = work.swapaxes(dim, -1)
    lead = rows.shape[:-1]
    rows = rows.reshape(-1, n)
    kth = n - m if descending else m - 1
    part = np.argpartition(rows, kth, axis=-1)   # (NaN last, as in the sort)
    picked = part[:, kth:] if descending else part[:, :m]
    heads = np.take_along_axis(rows, picked, axis=-1)
    if descending:
        order = np.argsort(heads[:, ::-1], axis=-1, kind="stable")[:, ::-1]
        indices = np.take_along_axis(picked[:, ::-1], order, axis=-1)
    else:
        indices = np.take_along_axis(picked, np.argsort(heads, axis=-1, kind="stable"), axis=-1)
    values = np.take_along_axis(array.swapaxes(dim, -1).reshape(-1, n), indices, axis=-1)
    shape = lead + (m,)
    values, indices = values.reshape(shape), indices.reshape(shape)
    if dim != array.ndim - 1:
        values = np.ascontiguousarray(values.swapaxes(dim, -1))
        indices = np.ascontiguousarray(indices.swapaxes(dim, -1))
    return values, indices.astype(np.int64, copy=False)


def _take_along(xp, array, indices, dim):
    """``take_along_axis(array, indices, dim)``: for NumPy, one indexing of the rows viewed
    as (rows, n) (NumPy's function builds its index in Python, several times the cost for
    the small tensors of a sampling loop); a C-contiguous result either way."""
    if xp is not np or array.ndim == 0:
        return xp.take_along_axis(array, indices, axis=dim)
    if array.ndim == 1:
        return array[indices]
    rows = array.swapaxes(dim, -1)
    picks = indices.swapaxes(dim, -1)
    lead = rows.shape[:-1]
    count = math.prod(lead)
    taken = rows.reshape(count, rows.shape[-1])[
        np.arange(count)[:, None], picks.reshape(count, picks.shape[-1])]
    taken = taken.reshape(lead + (picks.shape[-1],))
    return taken if dim == array.ndim - 1 else np.ascontiguousarray(taken.swapaxes(dim, -1))


def _sort_impl(input, dim, descending, stable=True):
    xp = _xp(input)
    dim = wrap_dim(dim, input.dim())
    values, indices = _sort_arrays(input, dim if input.dim() else 0, descending, xp)
    if not stable and input.dim() and input._storage.device.type == "cpu":
        _sort_as_libstdcxx(input._array(), values, indices, dim, descending)
    stride = _preserve(input)
    device = input._storage.device
    return (_wrap(values, input._dtype, device, stride),
            _wrap(indices, _dtypes.int64, device, stride))


# ``_sort_as_libstdcxx`` replays at most this many elements a call (about a quarter of a
# second); beyond it the tied rows keep the stable order.
_REPLAY_MAX = 1 << 18
# PyTorch sorts a 1-D integer tensor (not bool) of at least this many elements ascending
# with fbgemm's radix sort, which is stable (``can_use_radix_sort``: GRAIN_SIZE).
_RADIX_FROM = 32768


def _tied_rows(row_values):
    """Whether each row (the last axis) of sorted values holds equal neighbours (NaNs are
    equal to each other there)."""
    if row_values.dtype == _dtypes.bfloat16.numpy:
        row_values = row_values.astype(np.float32)
    tied = row_values[..., 1:] == row_values[..., :-1]
    if row_values.dtype.kind in "fc":
        nan = np.isnan(row_values)
        if nan.any():
            tied |= nan[..., 1:] & nan[..., :-1]
    return tied.any(axis=-1)


def _ranks(row):
    """Each element's rank among the row's distinct values (NaNs share the largest)."""
    work = row.astype(np.float32) if row.dtype == _dtypes.bfloat16.numpy else row
    return np.unique(work, return_inverse=True)[1].reshape(-1)


def _sort_as_libstdcxx(array, values, indices, dim, descending):
    """Rewrite, in place, the rows of the stable sort (``values``, ``indices``) along
    ``dim`` that hold equal values, in the order PyTorch's CPU ``sort(stable=False)``
    leaves them: its kernel runs libstdc++'s ``std::sort`` (introsort, then insertion sort;
    NaN the largest, equal keys in no guaranteed order) on (value, index) pairs, so rows of
    more than 16 elements with ties come out in another order than the stable one
    (``argsort().argsort()`` ranks of tied scores see it), except a big 1-D integer sort
    (``_RADIX_FROM``). Rows of distinct values are the stable sort's already; rows with
    ties are replayed (``_stl_order``), up to ``_REPLAY_MAX`` elements a call."""
    n = array.shape[dim]
    if n <= STL_THRESHOLD:
        return   # (insertion sort alone: stable)
    if array.ndim == 1 and not descending and n >= _RADIX_FROM and array.dtype.kind in "iu":
        return   # (PyTorch's radix sort then: stable)
    row_values = values.swapaxes(dim, -1)  # views: writes land in values/indices
    tied = _tied_rows(row_values)
    if not tied.any():
        return
    rows = array.swapaxes(dim, -1)
    row_indices = indices.swapaxes(dim, -1)
    budget = _REPLAY_MAX
    for at in np.argwhere(tied):
        budget -= n
        if budget < 0:
            return
        at = tuple(at)
        row = rows[at]
        ranks = _ranks(row)
        order = np.asarray(sort_positions((-ranks if descending else ranks).tolist()),
                           dtype=np.int64)
        row_values[at][:] = row[order]
        row_indices[at][:] = order


def _check_sort_args(name, dim, descending, stable):
    """PyTorch's argument parser: ``dim`` an int (not a bool: ``x.sort(True)`` is an error,
    ``stable`` is keyword-only), ``descending`` a bool, ``stable`` a bool or None."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: 'dim' must be int, not "
            f"{type_name(dim)} ({dim!r}); pass stable= and descending= as keywords")
    if not isinstance(descending, bool):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: 'descending' must be "
            f"bool, not {type_name(descending)} ({descending!r})")
    if stable is not None and not isinstance(stable, bool):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: 'stable' must be bool, "
            f"not {type_name(stable)} ({stable!r})")
    return int(dim)


@register("copy")
def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """Sorted values and their original indices along ``dim`` (a ``(values, indices)`` named
    tuple); NaN counts as the largest value. ``stable=True`` keeps equal values in their
    original order; the default leaves them as PyTorch's CPU kernel does
    (``_sort_as_libstdcxx``)."""
    dim = _check_sort_args("sort", dim, descending, stable)
    values, indices = _sort_impl(input, dim, descending, stable)
    return _finish_pair(sort.op, input, values, indices, out)


@register("copy")
def argsort(input, dim=-1, descending=False, *, stable=None, out=None):
    """The indices that sort ``input`` along ``dim`` (``sort``'s: equal values in their
    original order with ``stable=True``, as PyTorch's CPU kernel leaves them otherwise).

    ``out=`` belongs to PyTorch's ``argsort(input, *, stable, dim=-1, descending=False,
    out=None)`` overload, so it needs ``stable=`` given too (None stands for not given).
    """
    if out is not None and stable is None:
        raise TensorTypeError(
            "argsort() received an invalid combination of arguments - got (Tensor, out=Tensor):"
            " argsort with out= takes stable= as well (argsort(input, *, stable, dim=-1, "
            "descending=False, out=None))")
    dim = _check_sort_args("argsort", dim, descending, stable)
    _, indices = _sort_impl(input, dim, descending, bool(stable))
    if out is not None:
        return _write_out(out, indices, "argsort")
    return indices


@register("copy")
def msort(input, *, out=None):
    """``sort(input, dim=0).values``."""
    if input.dim() == 0:
        values = _fresh(input)
    else:
        values, _ = _sort_impl(input, 0, False, False)
    if out is not None:
        return _write_out(out, values, "msort")
    return values


@register("copy")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices."""
    k = int_arg(k, "topk", "k")
    ndim = input.dim()
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim] if ndim else 1
    if not 0 <= k <= size:
        raise TensorRuntimeError("selected index k out of range")
    values, indices = topk_arrays(input, k, dim, largest, sorted)
    device = input._storage.device
    return _finish_pair(topk.op, input, _wrap(values, input._dtype, device),
                        _wrap(indices, _dtypes.int64, device), out)


def topk_arrays(input, k, dim, largest, sorted):
    """``topk``'s (values, indices) arrays for a checked call (``dim`` wrapped, ``k`` in
    range), without the op's entry (multinomial draws with it)."""
    xp = _xp(input)
    ndim = input.dim()
    size = input._shape[dim] if ndim else 1
    # (k + 1 entries: the last tells whether ties decide the k-th; see _topk_head)
    head = _topk_head(input, dim, k + 1, largest) if xp is np and 0 < k < size \
        else None
    values, indices = _sort_arrays(input, dim if ndim else 0, largest, xp) if head is None \
        else head
    if ndim:
        if input._storage.device.type == "cpu" and k:
            # (PyTorch's CPU kernel, replayed on host arrays)
            _topk_as_libstdcxx(input._array(), values, indices, dim, k, largest, sorted)
        key = (slice(None),) * dim + (slice(0, k),)
        values, indices = values[key], indices[key]
    return values, indices


def _topk_as_libstdcxx(array, values, indices, dim, k, largest, sorted):
    """Rewrite, in place, the first ``k`` entries of the stable sort (``values``,
    ``indices``) of each row along ``dim`` where PyTorch's CPU kernel reports others.

    The kernel runs libstdc++'s unstable ``std::partial_sort`` (when ``64 * k <= n``) or
    ``std::nth_element`` then ``std::sort`` of the first ``k - 1`` (``_stl_order``). With
    distinct keys among the first ``k + 1`` sorted ones both give the stable result; equal
    keys there (NaNs are equal to each other) leave the choice and the order to the
    algorithms, and so does ``sorted=False`` after ``nth_element``: such rows are replayed.
    """
    n = array.shape[dim]
    row_values = values.swapaxes(dim, -1)  # views: writes land in values/indices
    if sorted or k * 64 <= n:
        tied = _tied_rows(row_values[..., :k + 1])
        if not tied.any():
            return
        redo = np.argwhere(tied)
    else:
        redo = np.ndindex(row_values.shape[:-1])
    rows = array.swapaxes(dim, -1)
    row_indices = indices.swapaxes(dim, -1)
    for at in redo:
        at = tuple(at)
        row = rows[at]
        ranks = _ranks(row)
        keys = (-ranks if largest else ranks).tolist()
        picked = np.asarray(topk_positions(keys, k, sorted), dtype=np.int64)
        row_values[at][:k] = row[picked]
        row_indices[at][:k] = picked


def _finish_pair(op, input, values, indices, out):
    """Return (values, indices) as ``torch.return_types.<op>``, or write them into ``out``."""
    result_type = getattr(return_types, op.name)
    if out is None:
        return result_type(values, indices)
    _write_out(out[0], values, op.name)
    _write_out(out[1], indices, op.name)
    return result_type(out[0], out[1])


@register("copy")
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` (1-based) and its index."""
    k = int_arg(k, "kthvalue", "k")
    ndim = input.dim()
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim] if ndim else 1
    if size == 0:
        raise TensorIndexError(
            f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
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
    return _finish_pair(kthvalue.op, input, _wrap(values, input._dtype, device),
                        _wrap(indices, _dtypes.int64, device), out)


@register("copy")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), optionally with the inverse mapping and the counts;
    with ``dim``, the distinct slices along ``dim``."""
    xp = _xp(input)
    device = input._storage.device
    data_dependent_sync(input)
    array = input._array()
    if dim is None:
        flat = array.reshape(-1)
        if input._dtype is _dtypes.bfloat16:
            flat = flat.astype(np.float32)
        # Each NaN is its own value, as in PyTorch (NumPy merges them by default).
        try:
            values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True,
                                                equal_nan=False)
        except TypeError:   # an array module without equal_nan keeps NumPy's old behaviour
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
    return result


# ---------------------------------------------------------------------- searchsorted
def _search(name, boundaries, values, right, side, sorter, out_int32):
    """Insertion indices of ``values`` into the sorted last dim of ``boundaries``."""
    if side is not None:
        if side not in ("left", "right"):
            raise TensorRuntimeError(
                f"{name}(): side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise TensorRuntimeError(
                f"{name}(): side and right can't be set to opposites, got side of left "
                f"while right was True")
        right = side == "right"
    if boundaries.dim() == 0:
        raise TensorRuntimeError(
            f"{name}(): boundaries tensor should have positive dimension, but got 0 dimension")
    scalar = not isinstance(values, Tensor)
    if scalar:
        if boundaries.dim() != 1:
            raise TensorRuntimeError(
                f"{name}(): input value can be a scalar only when boundaries tensor dimension "
                f"is 1, but we got boundaries tensor dim({boundaries.dim()})")
    elif boundaries.dim() != 1 and (
            boundaries.dim() != values.dim() or
            tuple(boundaries._shape[:-1]) != tuple(values._shape[:-1])):
        raise TensorRuntimeError(
            f"{name}(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
            f"of boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {list(boundaries._shape)} and input value tensor {list(values._shape)}")
    xp = _xp(boundaries)
    b = boundaries._array()
    if sorter is not None:
        check_tensor(sorter, name, "sorter")
        if sorter._dtype is not _dtypes.int64:
            raise TensorRuntimeError(
                f"{name}(): sorter must be a tensor of long dtype but got dtype "
                f"{sorter._dtype._torch_name}")
        if tuple(sorter._shape) != tuple(boundaries._shape):
            raise TensorRuntimeError(
                f"{name}(): boundary and sorter must have the same size, but got boundary "
                f"tensor {list(boundaries._shape)}and got sorter tensor {list(sorter._shape)}")
        s = sorter._array()
        if s.size and (int(s.min()) < 0 or int(s.max()) >= boundaries._shape[-1]):
            raise TensorRuntimeError(f"{name}(): sorter index out of range")
        b = xp.take_along_axis(b, s, axis=-1)
    if scalar:
        dtype = result_dtype([boundaries, values])
        v = xp.asarray(values)
    else:
        dtype = result_dtype([boundaries, values])
        v = values._array()
    work = _dtypes.float32 if dtype in _LOW else dtype
    b = b.astype(work.numpy)
    v = v.astype(work.numpy)
    how = "right" if right else "left"
    if b.ndim == 1:
        r = xp.searchsorted(b, v.reshape(-1), side=how).reshape(v.shape)
    else:
        rows_b = b.reshape(-1, b.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        r = xp.empty(rows_v.shape, dtype="int64")
        for i in range(rows_b.shape[0]):
            r[i] = xp.searchsorted(rows_b[i], rows_v[i], side=how)
        r = r.reshape(v.shape)
    return xp, r, _dtypes.int32 if out_int32 else _dtypes.int64


@register("copy", method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where ``input``'s values would be inserted into the sorted last dim of
    ``sorted_sequence`` (leftmost by default; ``right=True`` or ``side='right'``)."""
    check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    xp, r, dtype = _search("torch.searchsorted", sorted_sequence, input, right, side, sorter,
                           out_int32)
    check_out(out, "searchsorted", dtype)
    inputs = (sorted_sequence,) + ((input,) if isinstance(input, Tensor) else ())
    return _emit(searchsorted.op, inputs, xp, r, dtype, sorted_sequence.device, out)


@register("copy", method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` given the 1-D sorted ``boundaries``."""
    check_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries.dim() != 1:
        raise TensorRuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    xp, r, dtype = _search("torch.searchsorted", boundaries, input, right, None, None,
                           out_int32)
    check_out(out, "bucketize", dtype)
    inputs = ((input,) if isinstance(input, Tensor) else ()) + (boundaries,)
    return _emit(bucketize.op, inputs, xp, r, dtype, boundaries.device, out)


# ---------------------------------------------------------------------- unique_consecutive
@register("copy")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``) to one; optionally
    with the inverse mapping and the run lengths. Returns a tensor, or a tuple when either
    flag is set."""
    _check_tensor(input, "unique_consecutive")
    if input._dtype.category == _dtypes.COMPLEX:
        raise not_implemented("unique", input._dtype)
    xp = _xp(input)
    device = input._storage.device
    a = input._array()
    if input._dtype is _dtypes.bfloat16:
        a = a.astype(np.float32)
    i64 = np.int64
    if dim is None:
        flat = a.reshape(-1)
        if flat.shape[0] == 0:
            starts = xp.zeros((0,), dtype=bool)
        else:
            starts = xp.concatenate([xp.ones((1,), dtype=bool), flat[1:] != flat[:-1]])
        values = _wrap(flat[starts], input._dtype, device)
        inverse_shape = tuple(input._shape)
    else:
        if input.dim() == 0:
            raise TensorIndexError(
                f"Dimension specified as {dim} but tensor has no dimensions")
        dim = wrap_dim(dim, input.dim())
        shape = tuple(input._shape)
        if input.numel() == 0:
            if shape[dim] != 0:
                raise TensorRuntimeError(
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot "
                    "be applied")
            if shape.count(0) != 1:
                raise TensorRuntimeError(
                    "Number of zero sized dimensions is more than one, so unique cannot be "
                    "applied")
        moved = xp.moveaxis(a, dim, 0)
        rows = moved.reshape(shape[dim], int(np.prod(moved.shape[1:], dtype=np.int64)))
        if rows.shape[0] == 0:
            starts = xp.zeros((0,), dtype=bool)
        else:
            diff = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else \
                xp.zeros((rows.shape[0] - 1,), dtype=bool)
            starts = xp.concatenate([xp.ones((1,), dtype=bool), diff])
        kept = moved[starts]
        # PyTorch stacks the kept slices along dim 0 and moves that axis back to ``dim``.
        moved_stride = list(contiguous_strides(kept.shape))
        st0 = moved_stride.pop(0)
        moved_stride.insert(dim, st0)
        out_shape = list(kept.shape[1:])
        out_shape.insert(dim, kept.shape[0])
        values = new_empty_tensor(tuple(out_shape), input._dtype, device,
                                  stride=tuple(moved_stride))
        values._array()[...] = xp.moveaxis(kept, 0, dim)
        inverse_shape = (shape[dim],)
    results = [values]
    if return_inverse:
        inverse = (xp.cumsum(starts.astype(i64)) - 1).reshape(inverse_shape) if starts.shape[0] \
            else xp.zeros(inverse_shape, dtype=i64)
        results.append(_wrap(inverse, _dtypes.int64, device))
    if return_counts:
        positions = xp.nonzero(starts)[0]
        last = xp.asarray([starts.shape[0]], dtype=positions.dtype)
        ends = xp.concatenate([positions[1:], last]) if positions.shape[0] else positions
        results.append(_wrap((ends - positions).astype(i64), _dtypes.int64, device))
    if len(results) == 1:
        return values
    return tuple(results)
