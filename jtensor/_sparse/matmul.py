"""Matrix products with a sparse COO operand, one implementation for every public form:
``torch.mm``/``torch.spmm``/``Tensor.mm``, ``torch.matmul``/``@``, ``torch.mv``,
``torch.addmm``/``Tensor.addmm_``, ``torch.bmm``/``Tensor.bmm`` (reached from the ops'
entries through the sparse layout step, ``dispatch.py``, and from ``SparseCOOTensor``'s own
methods and operators), and ``torch.sparse.mm``/``addmm`` (re-exported by
``jtensor.sparse``).

They follow ATen's SparseCPU kernels, their checks in their order and their messages:

* sparse @ dense (``addmm_sparse_dense_cpu``): ``_SparseAddmm``, an ``autograd.Function``
  computing ``beta * input + alpha * (S @ D)`` on the arrays, differentiable in ``input``,
  the sparse values and the dense matrix. ``torch.mm`` is that with ``beta=0`` (ATen's
  ``_sparse_mm``), and dense @ sparse is ``(S^T @ D^T)^T``, so its result is column-major as
  PyTorch's. The node is named after the public op: ``MmBackward0``, ``AddmmBackward0``,
  ``SparseAddmmBackward0`` for ``torch.sparse``.
* sparse @ sparse (``sparse_sparse_matmul_cpu``): the products of the entries whose inner
  indices meet, summed by ``coalesce()`` (a coalesced sparse result, zeros kept as PyTorch
  keeps them), differentiable through the values; floating and complex dtypes only.
* ``bmm`` (``bmm_out_sparse_cpu``): a 3-D sparse batch (3 sparse dims, no dense dim) @ a
  3-D dense batch only, dense (contiguous, ``mat2``'s dtype); a sparse ``mat2`` refuses.
  ``_SparseBmm``, one ``BmmBackward0`` node differentiable in the values and the dense batch;
  a leaf sparse batch gets PyTorch's dense gradient ``grad.bmm(mat2^H)``. No alert under
  ``use_deterministic_algorithms(True)``: PyTorch's CPU kernel is deterministic.
* ``matmul``: PyTorch's rank decomposition (``_matmul_impl``) over these: ``mv`` for
  matrix @ vector, the row product for vector @ matrix, a batch folded into rows where
  PyTorch folds (``should_fold``); where PyTorch would broadcast (expand) a sparse operand,
  or reshape one, it refuses as PyTorch.

Gradients: PyTorch's. A sparse operand built from values that need a gradient passes it on
to them (the sparse mask of the dense gradient, as PyTorch's); a *leaf* sparse operand of
``torch.mm``/``addmm``/``matmul``/``mv`` gets the full dense gradient (``grad @ D^H``), of
``torch.sparse.mm``/``addmm`` the sparse mask, as in PyTorch. sparse @ sparse is written
with differentiable ops on the values, so a leaf operand's gradient there is the mask of
PyTorch's (whose sparse product gradient may have entries outside the operand's pattern), as
for a leaf reached through another sparse op (``coalesce()``, ``t()``). Where PyTorch's own
backward fails (``mv(dense, sparse_vector)`` with both operands requiring grad: "Cannot
access data pointer of Tensor that doesn't have storage") this one computes the gradients.
"""

import numpy as np

from .. import _dtypes
from .._errors import TensorNotImplementedError, TensorRuntimeError
from .._ops.creation import tensor as _tensor
from ..autograd._composites import should_fold
from .._tensor import Tensor, new_empty_tensor
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from .autograd_nodes import _named
from .common import _not_supported, write_into
from .indices import _check_in_bounds, _indices_np, _linear_index
from .tensor import SparseCOOTensor

_LOW = (_dtypes.float16, _dtypes.bfloat16)
# sparse_sparse_matmul_cpu dispatches on AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES.
_SPARSE_SPARSE_DTYPES = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def _is_sparse(t):
    return isinstance(t, SparseCOOTensor)


def _layout_name(t):
    return "Sparse" if _is_sparse(t) else "Strided"


def _conj(t):
    return t.conj() if t._dtype.category == _dtypes.COMPLEX else t


def _conj_scalar(s):
    return s.conjugate() if isinstance(s, complex) else s


def _cast_scalar(value, dtype):
    """``Scalar::to<scalar_t>()``: ``value`` in ``dtype`` (an integer dtype truncates)."""
    work = _dtypes.float32 if dtype in _LOW else dtype
    return np.asarray(value).astype(work.numpy)[()]


def _refuse_grad_with_out(name, tensors, out):
    """PyTorch's autograd layer refuses ``out=`` before any kernel runs when a gradient would
    be needed."""
    if is_grad_enabled() and any(t.requires_grad for t in (*tensors, out) if t is not None):
        raise TensorRuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )


def _expand_to(t, shape):
    """ATen's ``expand_size(t, shape)``: ``t`` itself when it has ``shape``, otherwise its
    broadcast view (PyTorch's expand error; a sparse ``t`` cannot be expanded)."""
    if tuple(t._shape) == tuple(shape):
        return t
    if _is_sparse(t):
        raise TensorRuntimeError("expand is unsupported for Sparse tensors")
    return t.expand(*shape)


def _stand_in(shape, like):
    """The tensor ATen's ``_sparse_mm`` adds with ``beta=0`` (``zeros(shape, like's
    options)``): it brings the expand check and the result's dtype; its values are never
    read."""
    return new_empty_tensor(shape, like._dtype, like.device)


# ---------------------------------------------------------------------- sparse @ dense
def _check_sparse_dense(r, t, sparse, dense, beta):
    """``s_addmm_out_sparse_dense_cpu``'s checks for ``r = beta * t + alpha * sparse @ dense``
    (``t`` already expanded; ``r`` is ``out``, ``self`` in place, else a tensor with ``t``'s
    layout and dtype), in its order."""
    if _is_sparse(r):
        raise TensorRuntimeError(
            "addmm_sparse_dense: expected strided result tensor, got tensor with layout Sparse"
        )
    if _is_sparse(t):
        raise TensorRuntimeError(
            "addmm_sparse_dense: expected 't' to have strided layout, got tensor with layout Sparse"
        )
    if not _is_sparse(sparse) or _is_sparse(dense):
        raise TensorRuntimeError(
            "addmm_sparse_dense: expected either 'mat1' to have sparse layout and 'mat2' to "
            f"have strided layout, got 'mat1' with layout {_layout_name(sparse)} and 'mat2' "
            f"with layout {_layout_name(dense)}"
        )
    if sparse.sparse_dim() != 2:
        raise TensorRuntimeError(f"addmm: matrices expected, got {sparse.sparse_dim()}D tensor")
    if sparse.dense_dim() != 0:
        raise TensorRuntimeError(f"addmm: scalar values expected, got {sparse.dense_dim()}D values")
    if dense.dim() != 2:
        raise TensorRuntimeError(f"addmm: matrices expected, got {dense.dim()}D tensor")
    (dim_i, dim_j), dim_k = sparse._shape, dense._shape[1]
    if dense._shape[0] != dim_j:
        raise TensorRuntimeError(
            f"addmm: Argument #3 (dense): Expected dim 0 size {dim_j}, got {dense._shape[0]}"
        )
    for d, want in ((0, dim_i), (1, dim_k)):
        if t.size(d) != want:
            raise TensorRuntimeError(
                f"addmm: Argument #1 (t): Expected dim {d} size {want}, got {t.size(d)}"
            )
    dtype = sparse._dtype
    if dtype is _dtypes.bool_:
        raise TensorNotImplementedError("\"addmm_sparse_dense\" not implemented for 'Bool'")
    if (
        r._dtype.category < _dtypes.FLOATING
        and isinstance(beta, float)
        and _cast_scalar(beta, dtype) not in (0, 1)
    ):
        # beta * t as a Double 0-d tensor times an integer t, written into the integer r
        raise TensorRuntimeError(
            f"result type Double can't be cast to the desired output type {r._dtype._torch_name}"
        )
    for other in (dense, r):  # the kernel reads the dense matrix, then writes the result
        if other._dtype is not dtype:
            raise TensorRuntimeError(
                f"expected scalar type {dtype._torch_name} but found {other._dtype._torch_name}"
            )


def _sparse_dense_product(xp, v, d, rows, cols, n):
    """``S @ d`` for ``S`` given by ``(rows, cols, v)`` with ``n`` rows: a fresh array."""
    m = d.shape[0]
    nnz = v.shape[0]
    use_dense = d.dtype.kind == "f" and n * m <= (1 << 22) and n * m <= 64 * nnz
    if nnz and use_dense:
        # Dense enough: scatter S into a dense matrix (duplicates summed, in float64)
        # and let BLAS multiply; several times faster than any gather/scatter.
        s = xp.bincount(rows * m + cols, weights=v, minlength=n * m)
        return s.astype(d.dtype, copy=False).reshape(n, m) @ d
    out = xp.zeros((n, d.shape[1]), dtype=d.dtype)
    if not nnz:
        return out
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
    return out


class _SparseAddmm(Function):
    """``beta * input + alpha * (S @ D)``, ``S`` given by ``(rows, cols, values)`` with ``n``
    rows, ``D`` dense, ``input`` of the product's shape (its values unread when ``beta`` is
    0, NaN included, as PyTorch's); ``transposed``: the result transposed (a column-major
    array, as ATen's dense @ sparse computes it).

    Differentiable w.r.t. ``input``, the values and ``D``; the index arrays are constants.
    ``leaf``: the sparse operand as the user gave it, a leaf given its own dense gradient
    (``grad @ D^H``, transposed back when ``leaf_transposed``, in the leaf's shape) instead
    of its values', as PyTorch's ``mm``/``addmm``/``mv`` backward gives it. Subclasses carry
    the public op's node name (``_node_name``)."""

    _node_name = "SparseAddmmBackward0"

    @staticmethod
    def forward(
        ctx, input, values, dense, rows, cols, n, beta, alpha, transposed, leaf, leaf_transposed
    ):
        xp = dense._storage._backend.xp
        dtype = dense._dtype
        work = (_dtypes.float32 if dtype in _LOW else dtype).numpy
        v = values._array().astype(work, copy=False)
        out = _sparse_dense_product(xp, v, dense._array().astype(work, copy=False), rows, cols, n)
        a = _cast_scalar(alpha, dtype)
        if a != 1:
            out *= a
        b = _cast_scalar(beta, dtype)
        if b != 0:
            base = input._array().astype(work, copy=False)
            if b != 1:
                # ATen multiplies by the Scalar itself here (truncated into an integer ``r``)
                base = (base * beta).astype(work, copy=False)
            out = out + base
        ctx.save_for_backward(values, dense)
        ctx.rows, ctx.cols, ctx.n, ctx.m = rows, cols, n, dense._shape[0]
        ctx.beta, ctx.alpha, ctx.transposed = beta, alpha, transposed
        ctx.leaf_transposed = leaf_transposed
        ctx.leaf_shape = None if leaf is None else tuple(leaf._shape)
        return Tensor._from_array(out.T if transposed else out, dtype, dense.device)

    @staticmethod
    def backward(ctx, grad):
        values, dense = ctx.saved_tensors
        need_input, need_values, need_dense = ctx.needs_input_grad[:3]
        need_leaf = ctx.needs_input_grad[9]
        need_values = need_values and not need_leaf
        if ctx.transposed:
            grad = grad.t()
        g_input = g_values = g_dense = g_leaf = None
        # Written in public ops so that create_graph=True differentiates them again.
        if need_input:  # PyTorch's maybe_multiply: grad * 0 when beta is 0
            beta = _conj_scalar(ctx.beta)
            g_input = grad if beta == 1 else grad * beta
        # Each product with the gradient, then scaled by alpha (PyTorch's maybe_multiply).
        alpha = _conj_scalar(ctx.alpha)

        def scaled(t):
            return t if alpha == 1 else t * alpha

        if need_values:
            dev = dense.device
            rows = _tensor(ctx.rows, device=dev)
            cols = _tensor(ctx.cols, device=dev)
            g_values = scaled(
                (grad.index_select(0, rows) * _conj(dense).index_select(0, cols)).sum(1)
            )
        if need_dense:
            # S^H @ grad: the same Function with rows and columns swapped.
            t = _stand_in((ctx.m, grad._shape[1]), grad)
            g_dense = scaled(
                _function("MmBackward0").apply(
                    t, _conj(values), grad, ctx.cols, ctx.rows, ctx.m, 0, 1, False, None, False
                )
            )
        if need_leaf:  # grad @ D^H, for the operand as the user gave it (PyTorch's mm)
            if ctx.leaf_transposed:
                g_leaf = _conj(dense).mm(grad.t())
            else:
                g_leaf = grad.mm(_conj(dense).t())
            if tuple(g_leaf._shape) != ctx.leaf_shape:
                g_leaf = g_leaf.reshape(ctx.leaf_shape)  # a vector made a matrix
            g_leaf = scaled(g_leaf)
        return (g_input, g_values, g_dense, None, None, None, None, None, None, g_leaf, None)


_FUNCTIONS = {}


def _function(node):
    """``_SparseAddmm`` whose backward node is called ``node`` (PyTorch's name)."""
    fn = _FUNCTIONS.get(node)
    if fn is None:
        fn = _FUNCTIONS[node] = type(
            node.removesuffix("Backward0"), (_SparseAddmm,), {"_node_name": node}
        )
    return fn


def _is_leaf(t):
    values = t._sp_values
    return values._requires_grad and values._grad_fn is None


def _sparse_addmm(
    t,
    sparse,
    dense,
    beta,
    alpha,
    node,
    r=None,
    expand=True,
    transposed=False,
    operand=(None, False),
):
    """ATen's ``addmm_sparse_dense_cpu`` (``expand=False``: the in-place form, ``t`` is
    ``r``): ``t`` expanded to the product's shape, the checks, then the product as one node
    named ``node``. ``r`` is the tensor written (``out``/``self``); None: a new one.
    ``operand``: ``(the sparse operand as the user gave it, whether ``sparse`` is its
    transpose)``, when a leaf of it gets a dense gradient (the public products;
    ``torch.sparse``'s keep it sparse)."""
    if expand:
        t = _expand_to(t, (sparse.size(0), dense.size(1)))
    _check_sparse_dense(t if r is None else r, t, sparse, dense, beta)
    idx = _indices_np(sparse)
    if idx.shape[1]:
        _linear_index(sparse)  # bounds check: a clear error instead of a wrong result
    xp = dense._storage._backend.xp
    rows, cols = xp.asarray(idx[0]), xp.asarray(idx[1])
    leaf, leaf_transposed = operand
    if leaf is not None and not _is_leaf(leaf):
        leaf = None
    return _function(node).apply(
        t,
        sparse._sp_values,
        dense,
        rows,
        cols,
        sparse._shape[0],
        beta,
        alpha,
        transposed,
        leaf,
        leaf_transposed,
    )


# ---------------------------------------------------------------------- sparse @ sparse
def _sparse_sparse(mat1, mat2, node):
    """``sparse_sparse_matmul_cpu``: a coalesced sparse product (``mat1``'s dtype)."""
    for name, t in (("mat1_", mat1), ("mat2_", mat2)):
        if t.dim() != 2:
            raise TensorRuntimeError(
                f"Expected {name}.dim() == 2 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
    for t in (mat1, mat2):
        if t.dense_dim() != 0:
            raise TensorRuntimeError(
                f"sparse_sparse_matmul_cpu: scalar values expected, got {t.dense_dim()}D values"
            )
    (n, k1), (k2, p) = mat1._shape, mat2._shape
    if k1 != k2:
        raise TensorRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({n}x{k1} and {k2}x{p})"
        )
    if mat1._dtype is not mat2._dtype:
        raise TensorRuntimeError(
            f"mat1 dtype {mat1._dtype._torch_name} does not match mat2 dtype "
            f"{mat2._dtype._torch_name}"
        )
    if mat1._dtype not in _SPARSE_SPARSE_DTYPES:
        raise TensorNotImplementedError(
            f"\"sparse_matmul\" not implemented for '{mat1._dtype._torch_name}'"
        )
    for t in (mat1, mat2):
        if t._nnz():
            _linear_index(t)  # bounds check
    a, b = _indices_np(mat1), _indices_np(mat2)
    # Pair every entry (i, j) of mat1 with the entries (j, l) of mat2 (grouped by row).
    order = np.argsort(b[0], kind="stable")
    b_rows = b[0][order]
    starts = np.searchsorted(b_rows, a[1], side="left")
    counts = np.searchsorted(b_rows, a[1], side="right") - starts
    total = int(counts.sum())
    left = np.repeat(np.arange(a.shape[1], dtype=np.int64), counts)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    right = order[np.repeat(starts, counts) + within]
    dev = mat1.device
    values = mat1._sp_values.index_select(0, _tensor(left, device=dev)) * (
        mat2._sp_values.index_select(0, _tensor(right, device=dev))
    )
    indices = _tensor(np.stack((a[0][left], b[1][right])), device=dev)
    product = SparseCOOTensor._create(indices, values, (n, p), False).coalesce()
    return product._with_values(_named(node, product._sp_values), True)


# ---------------------------------------------------------------------- the public forms
def _mm(mat1, mat2, out=None, node="MmBackward0", view=False, operand=None):
    """ATen's ``_sparse_mm``/``_sparse_mm_out`` (``torch.mm``, ``torch.spmm``, ``Tensor.mm``):
    sparse @ dense and dense @ sparse give a dense result, sparse @ sparse a sparse one.
    ``view``: dense @ sparse as a transposed view of the product (``torch.sparse.mm``, whose
    leaf operand keeps a sparse gradient). ``operand``: ``(leaf, transposed)`` when the
    sparse operand stands for another tensor (an unsqueezed vector, a transpose)."""
    if out is not None:
        _refuse_grad_with_out("mm", (mat1, mat2), out)
        # addmm_out(out, zeros({}, mat2's options), mat1, mat2, 0, 1): that 0-d tensor is
        # sparse (and cannot be expanded) unless mat2 is dense.
        shape = (mat1.size(0), mat2.size(1))
        if _is_sparse(mat2):
            raise TensorRuntimeError("expand is unsupported for Sparse tensors")
        product = _sparse_addmm(_stand_in(shape, mat2), mat1, mat2, 0, 1, node, r=out)
        return write_into(out, product)
    if _is_sparse(mat1) and _is_sparse(mat2):
        return _sparse_sparse(mat1, mat2, node)
    shape = (mat1.size(-2), mat2.size(-1))
    if _is_sparse(mat1):
        if operand is None:
            operand = (None, False) if view else (mat1, False)
        return _sparse_addmm(_stand_in(shape, mat2), mat1, mat2, 0, 1, node, operand=operand)
    # dense @ sparse = (sparse^T @ dense^T)^T
    t = _stand_in(shape[::-1], mat1)
    sparse_t = mat2.transpose(-2, -1)
    dense_t = mat1.t() if mat1.dim() == 2 else mat1.transpose(-2, -1)
    if view:
        return _sparse_addmm(t, sparse_t, dense_t, 0, 1, node).transpose(-2, -1)
    return _sparse_addmm(
        t, sparse_t, dense_t, 0, 1, node, transposed=True, operand=operand or (mat2, True)
    )


def _addmm(input, mat1, mat2, beta=1, alpha=1, out=None, node="AddmmBackward0"):
    """``torch.addmm`` with a sparse operand (ATen's ``addmm_sparse_dense_cpu``):
    ``beta * input + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` and a dense ``mat2``
    (``torch.sparse.addmm``'s node keeps a leaf ``mat1``'s gradient sparse)."""
    if out is not None:
        _refuse_grad_with_out("addmm", (input, mat1, mat2), out)
        return write_into(out, _sparse_addmm(input, mat1, mat2, beta, alpha, node, r=out))
    leaf = mat1 if node == "AddmmBackward0" and _is_sparse(mat1) else None
    return _sparse_addmm(input, mat1, mat2, beta, alpha, node, operand=(leaf, False))


def _addmm_(self, mat1, mat2, beta=1, alpha=1):
    """``Tensor.addmm_`` with a sparse operand: ``self`` (not broadcast) takes the result."""
    leaf = mat1 if _is_sparse(mat1) else None
    return self.copy_(
        _sparse_addmm(
            self,
            mat1,
            mat2,
            beta,
            alpha,
            "AddmmBackward0",
            r=self,
            expand=False,
            operand=(leaf, False),
        )
    )


def _mv(input, vec, out=None):
    """ATen's ``mv_sparse``: ``input @ vec.unsqueeze(-1)`` squeezed, ``MvBackward0``."""
    if out is not None:
        _refuse_grad_with_out("mv", (input, vec), out)
        raise _not_supported("addmv.out")
    if input.dim() != 2 or vec.dim() != 1:
        raise TensorRuntimeError(
            f"mv: two tensor dim should be 2 and 1, but got SparseTensor Dim: {input.dim()}"
            f"Tensor Dim: {vec.dim()}"
        )
    if vec.size(-1) != input.size(-1):
        raise TensorRuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    if _is_sparse(vec):
        product = _mm(input, _column(vec, -1), operand=(vec, True))
    else:
        product = _mm(input, vec.unsqueeze(-1))
    return _as_result(product.squeeze(-1), "MvBackward0")


def _column(vec, dim):
    """A sparse vector with a size-1 dim at ``dim``: its values as they are (the product
    differentiates the vector itself; PyTorch's ``unsqueeze`` of a sparse tensor cannot be
    differentiated)."""
    return vec._unsqueeze(dim, False)


def _as_result(view, node):
    """``view`` as the result of an op that is not a view op (no ``_base``; PyTorch's node
    ``node`` when it records): ``_unsafe_view``, ``mv``."""
    if view._requires_grad and is_grad_enabled():
        return _named(node, view)
    return Tensor._make(
        view._storage,
        view._shape,
        view._stride,
        view._offset,
        view._dtype,
        version=view._version_counter,
    )


def _matmul(input, other, out=None):
    """ATen's ``_matmul_impl`` with a sparse operand (``torch.matmul``, ``@``)."""
    if out is not None:
        _refuse_grad_with_out("matmul", (input, other), out)
    d1, d2 = input.dim(), other.dim()
    if not d1 or not d2:
        raise TensorRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )
    if d1 == 1 and d2 == 1:
        raise _not_supported("dot")
    if d1 == 2 and d2 == 1:
        return _mv(input, other, out)
    if d1 == 1 and d2 == 2:
        if _is_sparse(input):
            return _mm(_column(input, 0), other, out, operand=(input, False)).squeeze_(0)
        return _mm(input.unsqueeze(0), other, out).squeeze_(0)
    if d1 == 2 and d2 == 2:
        return _mm(input, other, out)
    if should_fold(input, other, out is not None):
        transpose = d2 > d1
        t1 = other.transpose(-2, -1) if transpose else input
        t2 = (input.t() if d1 == 2 else input) if transpose else other
        shape = tuple(t1._shape)
        output_shape = shape[:-1] + ((t2._shape[1],) if t2.dim() == 2 else ())
        folded = t1.reshape(int(np.prod(shape[:-1], dtype=np.int64)), shape[-1])
        if out is not None:
            # ATen writes through out reshaped: mm_out/mv_out, which refuse these operands.
            if t2.dim() == 2:
                raise TensorRuntimeError("expand is unsupported for Sparse tensors")
            raise _not_supported("addmv.out")
        if t2.dim() == 2:
            product = _mm(folded, t2, operand=(input, False) if transpose else None)
            output = _as_result(product.view(output_shape), "UnsafeViewBackward0")
            return output.transpose(-2, -1).contiguous() if transpose else output
        return _as_result(_mv(folded, t2).view(output_shape), "UnsafeViewBackward0")
    raise TensorRuntimeError("expand is unsupported for Sparse tensors")


# ---------------------------------------------------------------------- bmm
# bmm_sparse_dense dispatches on AT_DISPATCH_ALL_TYPES_AND_COMPLEX (no Bool, Half, BFloat16).
_BMM_REFUSED = (_dtypes.bool_, _dtypes.float16, _dtypes.bfloat16)


def _sparse_dense_bmm(xp, v, d, b, i, j, shape):
    """``S @ d`` batch by batch for ``S`` of ``shape`` ``(B, n, k)`` given by ``(b, i, j, v)``
    and ``d`` a ``(B, k, p)`` array: a fresh ``(B, n, p)`` array in ``d``'s dtype."""
    batches, n, k = shape
    p = d.shape[2]
    nnz = v.shape[0]
    if not nnz:
        return xp.zeros((batches, n, p), dtype=d.dtype)
    size = batches * n * k
    if d.dtype.kind == "f" and size <= (1 << 22) and size <= 64 * nnz:
        # Dense enough: scatter S into dense matrices (duplicates summed) and let BLAS
        # multiply each batch.
        s = xp.bincount((b * n + i) * k + j, weights=v, minlength=size)
        return s.astype(d.dtype, copy=False).reshape(batches, n, k) @ d
    # Otherwise one sparse (B*n, B*k) block-diagonal matrix times the stacked batches.
    out = _sparse_dense_product(xp, v, d.reshape(batches * k, p), b * n + i, b * k + j, batches * n)
    return out.reshape(batches, n, p)


class _SparseBmm(Function):
    """``S @ D`` for a sparse batch ``S`` of ``shape`` ``(B, n, k)`` given by its index rows
    ``(b, i, j)`` and its values, ``D`` a dense ``(B, k, p)`` batch: PyTorch's
    ``BmmBackward0``, whose inputs are the sparse operand and ``D``. ``sparse``: the values
    (their gradient is one per entry; the index arrays are constants), or, when ``leaf``,
    the leaf sparse batch as the user gave it, which gets PyTorch's dense gradient
    ``grad.bmm(D^H)``."""

    _node_name = "BmmBackward0"

    @staticmethod
    def forward(ctx, sparse, dense, b, i, j, shape, leaf):
        values = sparse._sp_values if leaf else sparse
        xp = dense._storage._backend.xp
        out = _sparse_dense_bmm(xp, values._array(), dense._array(), b, i, j, shape)
        ctx.save_for_backward(values, dense)
        ctx.b, ctx.i, ctx.j, ctx.shape, ctx.leaf = b, i, j, shape, leaf
        return Tensor._from_array(out, dense._dtype, dense.device)

    @staticmethod
    def backward(ctx, grad):
        values, dense = ctx.saved_tensors
        need_sparse, need_dense = ctx.needs_input_grad[:2]
        batches, n, k = ctx.shape
        g_sparse = g_dense = None
        # Written in public ops (and this Function) so that create_graph=True differentiates
        # them again.
        if need_sparse and ctx.leaf:  # PyTorch's bmm backward: grad @ D^H, dense
            g_sparse = grad.bmm(_conj(dense).transpose(1, 2))
        elif need_sparse:  # grad[b, i, :] . conj(D)[b, j, :] for each entry
            dev, p = dense.device, dense._shape[2]
            rows = _tensor(ctx.b * n + ctx.i, device=dev)
            cols = _tensor(ctx.b * k + ctx.j, device=dev)
            g_sparse = (
                grad.reshape(batches * n, p).index_select(0, rows)
                * _conj(dense).reshape(batches * k, p).index_select(0, cols)
            ).sum(1)
        if need_dense:  # S^H @ grad: the same Function with rows and columns swapped
            g_dense = _SparseBmm.apply(
                _conj(values), grad, ctx.b, ctx.j, ctx.i, (batches, k, n), False
            )
        return g_sparse, g_dense, None, None, None, None, None


def _check_bmm_bounds(idx, shape):
    """The kernel's bounds checks of an entry's row and column (the column first), in the
    order ``coalesce()`` sorts the entries (by ``(b * n + i) * k + j``, whatever the bounds);
    a batch index out of range (which ATen's loop never reaches) is refused with the
    invariants error rather than left out silently."""
    batches, n, k = shape
    _check_in_bounds(idx[:1], (batches,))
    b, i, j = idx
    bad = (i < 0) | (i >= n) | (j < 0) | (j >= k)
    if bad.any():
        order = np.argsort((b * n + i) * k + j, kind="stable")
        first = order[bad[order]][0]
        row, col = int(i[first]), int(j[first])
        if not 0 <= col < k:
            raise TensorRuntimeError(
                f"addmm: index out of column bound: {col} not between 1 and {k}"
            )
        raise TensorRuntimeError(f"addmm: index out of row bound: {row} not between 1 and {n}")


def _bmm(input, mat2, out=None):
    """ATen's ``bmm_sparse_cpu``/``bmm_out_sparse_cpu`` (``torch.bmm``, ``Tensor.bmm``):
    a sparse ``(B, n, k)`` batch with 3 sparse dims times a dense ``(B, k, p)`` batch is a
    dense ``(B, n, p)`` batch in ``mat2``'s dtype (``out``'s when given). Its checks in its
    order: a sparse ``mat2`` (dense @ sparse and sparse @ sparse included), the dims, the
    sizes, a sparse ``out``; then, only when there are entries, the values' dtype (no Bool,
    Half, BFloat16) and the dense and result dtypes (equal to the values')."""
    if out is not None:
        _refuse_grad_with_out("bmm", (input, mat2), out)
    if _is_sparse(mat2):
        raise TensorRuntimeError("bmm_sparse: Tensor 'mat2' must be dense")
    if input.dense_dim() != 0:
        raise TensorRuntimeError(
            f"bmm_sparse: Tensor 'self' must have 0 dense dims, but has {input.dense_dim()}"
        )
    if input.sparse_dim() != 3:
        raise TensorRuntimeError(
            f"bmm_sparse: Tensor 'self' must have 3 sparse dims, but has {input.sparse_dim()}"
        )
    if mat2.dim() != 3:
        raise TensorRuntimeError(
            f"bmm_sparse: Tensor 'mat2' must have 3 dims, but has {mat2.dim()}"
        )
    for d_self, d_mat2 in ((0, 0), (2, 1)):
        if input.size(d_self) != mat2.size(d_mat2):
            raise TensorRuntimeError(
                f"bmm_sparse: 'self.size({d_self})' and 'mat2.size({d_mat2})' must match"
            )
    if out is not None and _is_sparse(out):
        raise _not_supported("resize_")  # the kernel resizes its result first
    shape = tuple(input._shape)
    if input._nnz():
        dtype = input._dtype
        if dtype in _BMM_REFUSED:
            raise TensorNotImplementedError(
                f"\"bmm_sparse_dense\" not implemented for '{dtype._torch_name}'"
            )
        # The kernel reads the dense batch, then writes the result, both as the values' type.
        for other in (mat2, mat2 if out is None else out):
            if other._dtype is not dtype:
                raise TensorRuntimeError(
                    f"expected scalar type {dtype._torch_name} but found {other._dtype._torch_name}"
                )
    idx = _indices_np(input).reshape(3, -1)
    if idx.shape[1]:
        _check_bmm_bounds(idx, shape)
    xp = mat2._storage._backend.xp
    b, i, j = (xp.asarray(row) for row in idx)
    leaf = _is_leaf(input)
    sparse = input if leaf else input._sp_values
    product = _SparseBmm.apply(sparse, mat2, b, i, j, shape, leaf)
    return product if out is None else write_into(out, product)


# ---------------------------------------------------------------------- torch.sparse
def mm(mat1, mat2, reduce=None):
    """Matrix product with a sparse operand: ``sparse @ dense`` or ``dense @ sparse`` give
    a dense result (differentiable w.r.t. the dense matrix and the sparse values, whose
    leaf gets a sparse gradient), ``sparse @ sparse`` a sparse one; two dense matrices give
    ``torch.mm``.

    >>> import jtensor as torch
    >>> import jtensor.sparse
    >>> s = torch.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> torch.sparse.mm(torch.ones(1, 2), s)
    tensor([[3., 2.]])
    """
    if reduce is not None:
        raise _not_supported("_sparse_mm_reduce_impl")
    if not _is_sparse(mat1) and not _is_sparse(mat2):
        return mat1.mm(mat2)
    if _is_sparse(mat1) and _is_sparse(mat2):
        return _sparse_sparse(mat1, mat2, "SparseSparseMatmulBackward0")
    return _mm(mat1, mat2, node="SparseAddmmBackward0", view=True)


def addmm(mat, mat1, mat2, *, beta=1, alpha=1):
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse and ``mat2`` dense
    (``mat`` broadcasts to the result); three dense matrices give ``torch.addmm``."""
    if not any(_is_sparse(t) for t in (mat, mat1, mat2)):
        return mat.addmm(mat1, mat2, beta=beta, alpha=alpha)
    return _addmm(mat, mat1, mat2, beta, alpha, node="SparseAddmmBackward0")
