"""``torch.sparse.mm``/``addmm``: products of a sparse COO matrix and a dense one (an
``autograd.Function`` differentiable in the sparse values and the dense matrix, with
PyTorch's node name ``SparseAddmmBackward0``), re-exported by ``jtensor.sparse``."""

import numpy as np

from .._errors import TensorIndexError, TensorRuntimeError
from .._layout import broadcast_shapes as _broadcast_shapes
from .._ops.creation import tensor as _tensor
from .._tensor import Tensor
from ..autograd.function import Function
from .autograd_nodes import _named
from .indices import _linear_index
from .tensor import SparseCOOTensor


def _check_mm(sparse, dense, name="addmm"):
    if dense.dim() != 2:
        if dense.dim() < 2:
            raise TensorIndexError(
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
            )
        raise TensorRuntimeError(f"{name}: matrices expected, got {dense.dim()}D tensor")
    if sparse.dim() != 2 or sparse.sparse_dim() != 2:
        raise TensorRuntimeError(
            f"{name}: matrices expected, got {sparse.sparse_dim()}D sparse tensor with "
            f"{sparse.dense_dim()} dense dims (only 2-D sparse matrices are supported)"
        )
    if sparse._shape[1] != dense._shape[0]:
        raise TensorRuntimeError(
            f"{name}: Argument #3 (dense): Expected dim 0 size {sparse._shape[1]}, got "
            f"{dense._shape[0]}"
        )
    if sparse._dtype is not dense._dtype:
        raise TensorRuntimeError(
            f"expected scalar type {sparse._dtype._torch_name} but found {dense._dtype._torch_name}"
        )


class _SparseDenseMM(Function):
    """out = S @ D for S given by (rows, cols, values) of shape (n, m); D dense (m, p).

    Differentiable w.r.t. the values and D; the index arrays are constants."""

    @staticmethod
    def forward(ctx, values, dense, rows, cols, n):
        xp = dense._storage._backend.xp
        v = values._array()
        d = dense._array()
        if d.dtype != v.dtype:
            v = v.astype(d.dtype)
        m = d.shape[0]
        nnz = v.shape[0]
        use_dense = d.dtype.kind == "f" and n * m <= (1 << 22) and n * m <= 64 * nnz
        if nnz and use_dense:
            # Dense enough: scatter S into a dense matrix (duplicates summed, in float64)
            # and let BLAS multiply; several times faster than any gather/scatter.
            s = xp.bincount(rows * m + cols, weights=v, minlength=n * m)
            out = s.astype(d.dtype, copy=False).reshape(n, m) @ d
        else:
            out = xp.zeros((n, d.shape[1]), dtype=d.dtype)
        if nnz and not use_dense:
            # Group the entries by row (already grouped when coalesced), then one
            # reduceat over the gathered rows of D: much faster than an unbuffered add.at.
            if rows.shape[0] > 1 and not bool((rows[1:] >= rows[:-1]).all()):
                order = xp.argsort(rows, kind="stable")
                r, c, vv = rows[order], cols[order], v[order]
            else:
                r, c, vv = rows, cols, v
            contrib = xp.take(d, c, axis=0)
            contrib *= vv[:, None]
            starts = xp.flatnonzero(xp.concatenate((xp.ones(1, dtype=bool), r[1:] != r[:-1])))
            counts = xp.diff(xp.append(starts, r.shape[0]))
            most = int(counts.max())
            seg_rows = r[starts]
            if most <= 256:
                # Add the k-th entry of every row that has one, k = 0, 1, ...: each step
                # touches distinct rows, so a plain fancy-indexed += is exact. (reduceat
                # along axis 0 is several times slower on (nnz, p) arrays.)
                for k in range(most):
                    sel = counts > k
                    out[seg_rows[sel]] += contrib[starts[sel] + k]
            else:
                out[seg_rows] = xp.add.reduceat(contrib, starts, axis=0)
        ctx.save_for_backward(values, dense)
        ctx.rows, ctx.cols, ctx.n, ctx.m = rows, cols, n, m
        return Tensor._from_array(out, dense._dtype, dense.device)

    @staticmethod
    def backward(ctx, grad):
        values, dense = ctx.saved_tensors
        dev = dense.device
        rows = _tensor(ctx.rows, device=dev)
        cols = _tensor(ctx.cols, device=dev)
        g_values = g_dense = None
        # Written in public ops so that create_graph=True differentiates them again.
        if ctx.needs_input_grad[0]:
            g_values = (grad.index_select(0, rows) * dense.index_select(0, cols)).sum(1)
        if ctx.needs_input_grad[1]:
            # S^T @ grad: the same Function with rows and columns swapped (so it is
            # differentiable again for create_graph=True).
            g_dense = _mm_function().apply(values, grad, ctx.cols, ctx.rows, ctx.m)
        return g_values, g_dense, None, None, None


def _mm_function():
    """``_SparseDenseMM`` with its backward node named as PyTorch's (``SparseAddmmBackward0``)."""
    from ..autograd import function as _function

    if _SparseDenseMM not in _function._NODE_CLASSES:
        _function._NODE_CLASSES[_SparseDenseMM] = type(
            "SparseAddmmBackward0", (_function.BackwardCFunction,), {"_function": _SparseDenseMM}
        )
    return _SparseDenseMM


def _sparse_dense_mm(sparse, dense):
    idx = np.asarray(Tensor._host_array(sparse._sp_indices), dtype=np.int64)
    if idx.shape[1]:
        _linear_index(sparse)  # bounds check: a clear error instead of a wrong result
    xp = dense._storage._backend.xp
    rows = xp.asarray(idx[0]) if idx.shape[1] else xp.zeros(0, dtype=np.int64)
    cols = xp.asarray(idx[1]) if idx.shape[1] else xp.zeros(0, dtype=np.int64)
    return _mm_function().apply(sparse._sp_values, dense, rows, cols, sparse._shape[0])


def mm(mat1, mat2, reduce=None):
    """Matrix product with a sparse operand: ``sparse @ dense`` or ``dense @ sparse`` give
    a dense result (differentiable w.r.t. the dense matrix and the sparse values); two
    dense matrices give ``torch.mm``.

    >>> import jtensor as torch
    >>> import jtensor.sparse
    >>> s = torch.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> torch.sparse.mm(torch.ones(1, 2), s)
    tensor([[3., 2.]])
    """
    if reduce is not None:
        raise TensorRuntimeError("torch.sparse.mm: the reduce argument is not supported")
    s1, s2 = isinstance(mat1, SparseCOOTensor), isinstance(mat2, SparseCOOTensor)
    if s1 and s2:
        raise TensorRuntimeError(
            "torch.sparse.mm(sparse, sparse) is not supported; convert one operand with .to_dense()"
        )
    if s1:
        _check_mm(mat1, mat2)
        return _sparse_dense_mm(mat1, mat2)
    if s2:
        if mat1.dim() != 2:
            raise TensorRuntimeError(f"mm: matrices expected, got {mat1.dim()}D tensor")
        if mat1._shape[1] != mat2._shape[0]:
            raise TensorRuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({mat1._shape[0]}x"
                f"{mat1._shape[1]} and {mat2._shape[0]}x{mat2._shape[1]})"
            )
        _check_mm(mat2.t(), mat1.t())
        return _sparse_dense_mm(mat2.t(), mat1.t()).transpose(0, 1)
    return mat1.mm(mat2)


def addmm(mat, mat1, mat2, *, beta=1, alpha=1):
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse and ``mat2`` dense
    (``mat`` broadcasts to the result)."""
    if not isinstance(mat1, SparseCOOTensor):
        raise TensorRuntimeError("torch.sparse.addmm: mat1 must be a sparse COO tensor")
    if mat2.dim() != 2:
        raise TensorRuntimeError(f"addmm: matrices expected, got {mat2.dim()}D tensor")
    _check_mm(mat1, mat2)
    product = _sparse_dense_mm(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # PyTorch ignores mat's values then (nan and inf included)
        _broadcast_shapes(mat.shape, product.shape)
        return product
    return _named("SparseAddmmBackward0", product + (mat if beta == 1 else mat * beta))
