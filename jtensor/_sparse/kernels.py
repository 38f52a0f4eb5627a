"""The arithmetic kernels on sparse COO tensors, PyTorch's: sparse * sparse (the
intersection), sparse * dense, sparse + sparse (the two-pointer merge, or concatenation for
non-contiguous values), dense + sparse (new or in place), and ``sparse_add``/``sparse_add_``,
the one addition behind the operators, autograd's gradient sums and the optimizers."""

import numpy as np

from .. import _dtypes
from .._errors import TensorRuntimeError
from .._ops.creation import ones as _ones, tensor as _tensor, zeros as _zeros
from .._ops.joining import cat as _cat
from .autograd_nodes import _named
from .indices import _indices_np, _linear_index, _matches
from .tensor import SparseCOOTensor


# ---------------------------------------------------------------------- sparse * sparse
# PyTorch accumulates the products of duplicate matches in this type, then rounds once.
_ACC = {
    _dtypes.float32: _dtypes.float64,
    _dtypes.float16: _dtypes.float32,
    _dtypes.bfloat16: _dtypes.float32,
    _dtypes.complex64: _dtypes.complex128,
}


def _mul_sparse(a, b):
    """Element-wise product of two sparse tensors, with PyTorch's result layout.

    Both coalesced (same shape): the common positions only, coalesced. Otherwise PyTorch's
    intersection kernel: the result keeps every entry of one operand (the "source": the
    uncoalesced one, or the one with fewer entries) and multiplies it by the sum of the
    other's entries at that position (0 where it has none); the coalesced flag is the
    source's. Differentiable w.r.t. both operands' values.
    """
    if a.dim() == 0 or b.dim() == 0:
        scalar, other = (a, b) if a.dim() == 0 else (b, a)
        return other._with_values(_named("MulBackward0", other._sp_values * scalar.to_dense()))
    sd = a.sparse_dim()
    if tuple(a._shape) != tuple(b._shape) or sd != b.sparse_dim():
        if a.dim() != b.dim() or sd != b.sparse_dim() or a._shape[:sd] != b._shape[:sd]:
            raise TensorRuntimeError(
                "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal "
                "dimensionality, number of sparse dimensions, and shape of sparse dimensions "
                f"(got sizes {list(a._shape)} with {sd} sparse dims and {list(b._shape)} with "
                f"{b.sparse_dim()})"
            )
        from .._layout import broadcast_shapes

        shape = a._shape[:sd] + tuple(broadcast_shapes(a._shape[sd:], b._shape[sd:]))
        return _intersect_mul(a, b, shape)
    if a._nnz() == 0 or b._nnz() == 0:
        values = a._sp_values.narrow(0, 0, 0) * b._sp_values.narrow(0, 0, 0)
        return SparseCOOTensor._create(
            a._sp_indices.narrow(1, 0, 0).clone(), _named("MulBackward0", values), a._shape, True
        )
    if not (a._sp_coalesced and b._sp_coalesced):
        return _intersect_mul(a, b, a._shape)
    _, ia, ib = np.intersect1d(
        _linear_index(a), _linear_index(b), assume_unique=True, return_indices=True
    )
    ia, ib = _tensor(ia, device=a.device), _tensor(ib, device=a.device)
    values = a._sp_values.index_select(0, ia) * b._sp_values.index_select(0, ib)
    return SparseCOOTensor._create(
        a._sp_indices.index_select(1, ia), _named("MulBackward0", values), a._shape, True
    )


def _mul_sparse_dense(s, d):
    """``sparse * dense`` (either order), as PyTorch: when the dense operand broadcasts to
    the sparse tensor's shape, each stored entry is multiplied by the dense element(s) at its
    position (same indices, nnz and coalesced flag; explicit zeros stay stored); when
    broadcasting enlarges the shape, the dense product is converted back to sparse
    (coalesced, zeros dropped)."""
    from .._layout import broadcast_shapes

    shape = tuple(broadcast_shapes(tuple(s._shape), tuple(d._shape)))
    if shape != tuple(s._shape):
        # The stored positions repeat over the broadcast dims (explicit zeros included):
        # the result is coalesced, with every dim sparse.
        product = s.to_dense() * d
        marks = (
            s._with_values(_ones(s._sp_values._shape, dtype=_dtypes.bool_, device=s.device))
            .to_dense()
            .expand(shape)
        )
        indices = marks.nonzero().t()
        values = product[tuple(indices.unbind(0))]
        return SparseCOOTensor._create(
            indices.contiguous(), _named("MulBackward0", values), shape, True
        )
    sd = s.sparse_dim()
    dense = d.expand(shape)
    if s._nnz() == 0:
        gathered = _zeros((0,) + shape[sd:], dtype=d._dtype, device=d.device)
    else:
        _linear_index(s)  # bounds check before indexing the dense operand
        gathered = dense[tuple(s._sp_indices.unbind(0))]
    return SparseCOOTensor._create(
        s._sp_indices, _named("MulBackward0", s._sp_values * gathered), s._shape, s._sp_coalesced
    )


def _intersect_mul(x, y, shape):
    if x._sp_coalesced != y._sp_coalesced:
        searched, source = (x, y) if x._sp_coalesced else (y, x)
    else:
        searched, source = (x, y) if x._nnz() >= y._nnz() else (y, x)
        cells = int(np.prod(searched._shape[: searched.sparse_dim()]))
        if cells and searched._nnz() // cells > 50:
            searched = searched.coalesce()  # PyTorch coalesces a heavily duplicated operand
    src, found = _matches(_linear_index(source), _linear_index(searched))
    dtype = _dtypes.promote_types(x._dtype, y._dtype)
    dev = source.device
    sv = source._sp_values.to(dtype).index_select(0, _tensor(src, device=dev))
    pv = searched._sp_values.to(dtype).index_select(0, _tensor(found, device=dev))
    dense_shape = tuple(shape[source.sparse_dim() :])
    slots = _tensor(src, device=dev)
    if dtype is _dtypes.bool_:
        acc = _zeros((source._nnz(),) + dense_shape, dtype=_dtypes.int64, device=dev)
        values = acc.index_add(0, slots, (sv & pv).long()) != 0
    else:
        acc_dtype = _ACC.get(dtype, _dtypes.int64 if dtype.category < 2 else dtype)
        acc = _zeros((source._nnz(),) + dense_shape, dtype=acc_dtype, device=dev)
        values = acc.index_add(0, slots, sv.to(acc_dtype) * pv.to(acc_dtype)).to(dtype)
    return SparseCOOTensor._create(
        source._sp_indices.clone(), _named("MulBackward0", values), shape, source._sp_coalesced
    )


# ---------------------------------------------------------------------- sparse + sparse
def _add_sparse(a, b, alpha, alpha_sign=1):
    if tuple(a._shape) != tuple(b._shape):
        raise TensorRuntimeError(
            f"add: expected sizes of 'self' and 'other' to match, but {list(a._shape)} != "
            f"{list(b._shape)}"
        )
    if a.sparse_dim() != b.sparse_dim():
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same sparse dimensions, but got "
            f"{a.sparse_dim()} and {b.sparse_dim()}"
        )
    if a.dense_dim() != b.dense_dim():
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same dense dimensions, but got "
            f"{a.dense_dim()} and {b.dense_dim()}"
        )
    dtype = _dtypes.promote_types(a._dtype, b._dtype)
    av = a._sp_values if a._dtype is dtype else a._sp_values.to(dtype)
    bv = b._sp_values if b._dtype is dtype else b._sp_values.to(dtype)
    if alpha != 1:
        bv = bv * alpha
    if b._nnz() == 0:  # PyTorch: a copy of ``a`` (checked before ``a``'s emptiness)
        return SparseCOOTensor._create(
            a._sp_indices.clone(),
            av.clone() if av is a._sp_values else av,
            a._shape,
            a._sp_coalesced,
        )
    if a._nnz() == 0:  # ``alpha * b`` on a copy of ``b``'s indices
        return SparseCOOTensor._create(
            b._sp_indices.clone(),
            bv.clone() if bv is b._sp_values else bv,
            a._shape,
            b._sp_coalesced,
        )
    name = "AddBackward0" if alpha_sign >= 0 else "SubBackward0"
    if not (a._sp_values.is_contiguous() and b._sp_values.is_contiguous()):
        # PyTorch's kernel for non-contiguous values (an expanded gradient, a transposed
        # hybrid): concatenate both operands (uncoalesced), then coalesce once the entries
        # outnumber the elements, which bounds the growth of repeated accumulation.
        result = SparseCOOTensor._create(
            _cat([a._sp_indices, b._sp_indices], 1),
            _named(name, _cat([av, bv], 0)),
            a._shape,
            False,
        )
        if result._nnz() > result.numel():
            merged = result.coalesce()
            result = SparseCOOTensor._create(merged._sp_indices, merged._sp_values, a._shape, False)
        return result
    ai, bi = _indices_np(a), _indices_np(b)
    # PyTorch's merge: walk both index lists, emit the lexicographically smaller entry
    # (self first on ties are summed into one). Done exactly, even for unsorted inputs.
    src_a, src_b = _merge_plan(ai, bi, a._shape[: a.sparse_dim()])
    n_out = max(src_a.max(initial=-1), src_b.max(initial=-1)) + 1
    out_idx = np.empty((ai.shape[0], n_out), dtype=np.int64)
    a_pos = np.nonzero(src_a >= 0)[0]
    b_pos = np.nonzero(src_b >= 0)[0]
    out_idx[:, src_b[b_pos]] = bi[:, b_pos]
    out_idx[:, src_a[a_pos]] = ai[:, a_pos]
    dense_shape = tuple(av._shape[1:])
    dev = a.device
    values = _zeros((n_out,) + dense_shape, dtype=dtype, device=dev)
    if dtype is _dtypes.bool_:
        values = (
            values.long()
            .index_add(0, _tensor(src_a, device=dev), av.long())
            .index_add(0, _tensor(src_b, device=dev), bv.long())
        ) != 0
    else:
        values = values.index_add(0, _tensor(src_a, device=dev), av)
        values = values.index_add(0, _tensor(src_b, device=dev), bv)
    values = _named(name, values)
    return SparseCOOTensor._create(
        _tensor(out_idx, device=dev), values, a._shape, a._sp_coalesced and b._sp_coalesced
    )


def _merge_keys(ai, bi, sparse_shape):
    """Keys ordering entries lexicographically: linear positions when every index is in
    bounds (integers), tuples otherwise."""
    inside = all(
        (not row.size or (row.min() >= 0 and row.max() < size))
        for idx in (ai, bi)
        for row, size in zip(idx, sparse_shape, strict=True)
    )
    if inside:
        ka = np.zeros(ai.shape[1], dtype=np.int64)
        kb = np.zeros(bi.shape[1], dtype=np.int64)
        for d, size in enumerate(sparse_shape):
            ka = ka * size + ai[d]
            kb = kb * size + bi[d]
        return ka, kb
    return None, None


def _merge_plan(ai, bi, sparse_shape=None):
    """Output slot of each entry of a and of b under PyTorch's two-pointer merge."""
    na, nb = ai.shape[1], bi.shape[1]
    ka = kb = None
    if sparse_shape is not None:
        ka, kb = _merge_keys(ai, bi, sparse_shape)
    if ka is not None:
        if (np.diff(ka) > 0).all() and (np.diff(kb) > 0).all():
            # Both strictly sorted (the usual coalesced case): a vectorised union.
            union = np.concatenate([ka, kb])
            union.sort(kind="stable")  # two sorted runs: a linear merge
            union = union[np.concatenate(([True], union[1:] != union[:-1]))]
            return np.searchsorted(union, ka), np.searchsorted(union, kb)
        ka, kb = ka.tolist(), kb.tolist()
    else:
        ka = [tuple(col) for col in ai.T.tolist()]
        kb = [tuple(col) for col in bi.T.tolist()]
    # The general case (unsorted or duplicated inputs): PyTorch's walk, step by step.
    src_a = np.empty(na, dtype=np.int64)
    src_b = np.empty(nb, dtype=np.int64)
    i = j = r = 0
    while i < na and j < nb:
        x, y = ka[i], kb[j]
        if x < y:
            src_a[i] = r
            i += 1
        elif x > y:
            src_b[j] = r
            j += 1
        else:
            src_a[i] = r
            src_b[j] = r
            i += 1
            j += 1
        r += 1
    if i < na:
        src_a[i:] = np.arange(r, r + na - i)
        r += na - i
    if j < nb:
        src_b[j:] = np.arange(r, r + nb - j)
    return src_a, src_b


def _check_dense_sparse_sizes(dense, sparse):
    if tuple(dense._shape) != tuple(sparse._shape):
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same size, but self has size "
            f"{list(dense._shape)} while other has size {list(sparse._shape)} (FYI: "
            "dense-sparse addition does not currently support broadcasting)"
        )


def _scatter_plan(dense, sparse):
    """(rows, linear, values): the dense tensor's shape flattened over the sparse dims and
    each stored entry's row there (a host int64 array turned into a tensor)."""
    sd = sparse.sparse_dim()
    n = 1
    for size in dense._shape[:sd]:
        n *= size
    rows = (n,) + tuple(dense._shape[sd:])
    return rows, _tensor(_linear_index(sparse), device=dense.device)


def add_dense_sparse(dense, sparse, alpha=1):
    """``dense + alpha * sparse`` -> a new dense tensor, as PyTorch's kernel: a copy of
    ``dense`` (in the promoted dtype) to which the stored entries are added one after the
    other (duplicates are not summed first). No broadcasting, as in PyTorch."""
    _check_dense_sparse_sizes(dense, sparse)
    dtype = _dtypes.promote_types(dense._dtype, sparse._dtype)
    base = dense if dense._dtype is dtype else dense.to(dtype)
    if sparse._nnz() == 0:
        return _named("AddBackward0", base.clone(memory_format=_contiguous_format()))
    values = sparse._sp_values if sparse._dtype is dtype else sparse._sp_values.to(dtype)
    rows, linear = _scatter_plan(dense, sparse)
    if dtype is _dtypes.bool_:  # index_add has no bool kernel: add as integers, then test
        flat = base.reshape(rows).long().index_add(0, linear, values.long(), alpha=alpha) != 0
    else:
        flat = base.reshape(rows).index_add(0, linear, values, alpha=alpha)
    return _named("AddBackward0", flat.view(dense._shape))


def _contiguous_format():
    from .._tensor import contiguous_format

    return contiguous_format


def add_dense_sparse_(dense, sparse, alpha=1, op="add"):
    """In place ``dense += alpha * sparse`` (PyTorch's ``add_``/``sub_`` with a sparse
    ``other``): the stored entries are added one after the other, ``dense`` keeps its
    strides and its version counter is bumped once."""
    from .._dispatch import grad_mode

    _check_dense_sparse_sizes(dense, sparse)
    dtype = _dtypes.promote_types(dense._dtype, sparse._dtype)
    if dtype is not dense._dtype and not _dtypes.can_cast(dtype, dense._dtype):
        raise TensorRuntimeError(
            f"Can't convert result type {dtype._torch_name} to output "
            f"{dense._dtype._torch_name} in {op} operation"
        )
    if grad_mode.enabled and dense._requires_grad and dense.is_leaf:
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    if sparse._nnz() == 0:
        dense._version_counter.value += 1  # PyTorch counts the (empty) write all the same
        return dense
    values = sparse._sp_values
    if values._dtype is not dense._dtype:
        values = values.to(dense._dtype)
    rows, linear = _scatter_plan(dense, sparse)
    if dense._dtype is _dtypes.bool_:
        flat = dense.reshape(rows).long().index_add(0, linear, values.long(), alpha=alpha)
        dense.copy_((flat != 0).view(dense._shape))
    elif dense.is_contiguous():
        dense.view(rows).index_add_(0, linear, values, alpha=alpha)
    else:
        dense.copy_(
            dense.reshape(rows).index_add(0, linear, values, alpha=alpha).view(dense._shape)
        )
    return dense


def sparse_add(t, src, alpha=1):
    """``t + alpha * src`` when either operand is sparse COO, by PyTorch's rules: sparse +
    sparse (``_add_sparse``), dense + sparse (a new dense tensor), sparse + dense refused.
    The one implementation behind ``s + t``, ``torch.add``, autograd's gradient sums and the
    optimizers."""
    if t.__class__ is SparseCOOTensor:
        if src.__class__ is SparseCOOTensor:
            return _add_sparse(t, src, alpha)
        raise TensorRuntimeError(
            "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
        )
    return add_dense_sparse(t, src, alpha)


def sparse_add_(t, src, alpha=1):
    """In place ``t += alpha * src`` (``t`` keeps its identity): sparse += sparse replaces
    ``t``'s indices and values by the sum; dense += sparse adds in place."""
    if t.__class__ is SparseCOOTensor:
        return t.add_(src, alpha=alpha)
    return add_dense_sparse_(t, src, alpha)
