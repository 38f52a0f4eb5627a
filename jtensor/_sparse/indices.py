"""Index bookkeeping on the int64 indices (host-side NumPy): dims wrapped, bounds checked,
row-major linear positions, the distinct positions (sorting, uniqueness), integer arguments
and the plan of a sparse ``index_select`` (which entry goes where, in PyTorch's order)."""

import operator

import numpy as np

from .._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, type_name
from .._tensor import Tensor


def _wrap(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
            f"{max(ndim, 1) - 1}], but got {dim})"
        )
    return dim % max(ndim, 1)


def _indices_np(s):
    """The indices as a host int64 NumPy array (sparse_dim, nnz)."""
    return np.asarray(Tensor._host_array(s._sp_indices), dtype=np.int64)


def _check_in_bounds(idx, sparse_shape):
    for d, size in enumerate(sparse_shape):
        row = idx[d]
        if row.size and (row.min() < 0 or row.max() >= size):
            bad = row[(row < 0) | (row >= size)][0]
            raise TensorRuntimeError(
                f"sparse tensor index {int(bad)} is out of bounds for dim {d} of size {size}: "
                "the tensor violates its invariants (build it with check_invariants=True "
                "to catch this at construction)"
            )


def _linear_index(s):
    """Row-major linear position of each entry over the sparse dims (host int64 array)."""
    idx = _indices_np(s)
    sd = idx.shape[0]
    sparse_shape = s._shape[:sd]
    _check_in_bounds(idx, sparse_shape)
    if sd == 0:
        return np.zeros(idx.shape[1], dtype=np.int64)
    linear = np.zeros(idx.shape[1], dtype=np.int64)
    for d in range(sd):
        linear = linear * sparse_shape[d] + idx[d]
    return linear


def _unique_positions(s):
    """Lexicographic sort of the entries: (inverse, first, count).

    ``inverse[k]`` is the rank of entry k's position among the distinct positions,
    ``first[r]`` the index of one entry holding the r-th distinct position.
    """
    linear = _linear_index(s)
    uniq, first, inverse = np.unique(linear, return_index=True, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), first.astype(np.int64), len(uniq)


def _int_arg(value, name):
    try:
        return operator.index(value)
    except TypeError:
        raise TensorTypeError(
            f"{name} must be an integer, got {type_name(value)} ({value!r})"
        ) from None


def _matches(queries, keys):
    """Every pair (q, k) with ``queries[q] == keys[k]``, ordered by q, then by k."""
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    lo = np.searchsorted(ranked, queries, "left")
    counts = np.searchsorted(ranked, queries, "right") - lo
    q = np.repeat(np.arange(len(queries), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    k = order[np.repeat(lo - starts, counts) + np.arange(int(counts.sum()), dtype=np.int64)]
    return q, k.astype(np.int64)


def _index_select_plan(dim_indices, index, size, sorted_dim0):
    """(entry taken, output position) for each result entry of a sparse index_select, in
    PyTorch's order. Its kernel loops over the index then the entries, or the other way
    round, by a size heuristic (for large inputs PyTorch also weighs its thread count;
    this follows the single-thread choice)."""
    nnz, n = len(dim_indices), len(index)
    limit = 1 << 15
    if nnz <= limit and n <= limit and nnz * n <= limit:
        by_index = nnz >= n  # the brute-force double loop: entries in the inner loop
    elif nnz <= size:
        by_index = nnz <= n or (
            sorted_dim0 and n * np.log2(max(nnz, 1)) <= (nnz + n) * np.log2(max(n, 1))
        )
    else:
        by_index = False  # counting: one pass over the entries
    if by_index:
        out, src = _matches(index, dim_indices)
    else:
        src, out = _matches(dim_indices, index)
    return src, out
