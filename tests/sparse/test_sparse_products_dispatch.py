"""Matrix products with a sparse COO operand through every public form: ``torch.mm``,
``torch.spmm``, ``Tensor.mm``, ``torch.matmul``/``@``/``Tensor.matmul``, ``torch.mv``,
``torch.addmm``/``Tensor.addmm``/``Tensor.addmm_`` and ``torch.sparse.mm``/``addmm``
(``jtensor/_sparse/matmul.py``, reached from the ops' entries by the sparse layout step).

Each case runs once with jtensor and once with PyTorch: the same result (values, dtype, shape,
layout; for a dense result its strides, contiguity and whether it is a view; for a sparse
one its indices, values, nnz and coalesced flag), the same ``requires_grad`` and ``grad_fn``
name, or the same exception type and PyTorch's first sentence. Gradients are compared with
PyTorch's (values, dtype, layout, strides) and checked by float64 finite differences.
"""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor._registry import FUNCTIONS
from jtensor._sparse import SparseCOOTensor
from jtensor.autograd import gradcheck, gradgradcheck
from tests.sparse.test_sparse import _compare, _np, _sp, check, needs_torch

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None


# ---------------------------------------------------------------------- operands
def _s(L, sp, dtype=None):  # (3, 3), uncoalesced: (1, 2) twice
    s = sp([[1, 0, 1, 2], [2, 0, 2, 1]], [1.0, -2.0, 0.5, 3.0], (3, 3))
    return s if dtype is None else s.to(dtype)


def _c(L, sp):  # (3, 4), coalesced
    return sp([[0, 0, 1, 2], [1, 3, 0, 2]], [2.0, -1.0, 4.0, 0.5], (3, 4)).coalesce()


def _b(L, sp):  # (4, 2): sparse right operand of _c
    return sp([[0, 1, 3, 3], [1, 0, 0, 1]], [1.5, -2.0, 3.0, 1.0], (4, 2))


def _e(L, sp):  # (3, 3) without entries
    return sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (3, 3))


def _h(L, sp):  # hybrid: 1 sparse + 1 dense dim
    return sp([[0, 2]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], (3, 3))


def _s3(L, sp):  # 3 sparse dims
    return sp([[0, 1], [1, 2], [2, 0]], [1.0, 2.0], (2, 3, 3))


def _d(L, *shape, dtype=None, seed=0):
    rng = np.random.default_rng(seed)
    t = L.tensor(rng.standard_normal(shape).astype(np.float32))
    return t if dtype is None else t.to(dtype)


def _v(L):
    return L.tensor([1.0, -1.0, 2.0])


# ---------------------------------------------------------------------- comparison
def _meta(t):
    """What a dense result shows beyond its values: strides, contiguity, view or not."""
    return (tuple(t.stride()), t.is_contiguous(), t._base is None, str(t.layout))


def _same_layout(ours, theirs):
    """Beyond ``_compare``: layout and node name, and a dense result's strides, contiguity
    and whether it is a view."""
    pairs = zip(ours, theirs, strict=True) if isinstance(theirs, tuple) else [(ours, theirs)]
    for a, b in pairs:
        assert str(a.layout) == str(b.layout)
        gf = type(b.grad_fn).__name__ if b.grad_fn is not None else None
        assert (type(a.grad_fn).__name__ if a.grad_fn is not None else None) == gf
        if not b.is_sparse:
            assert _meta(a) == _meta(b), f"{_meta(a)} != {_meta(b)}"


def _check(case, message=True):
    check(case, message=message, extra=_same_layout)


FORWARD = {
    # sparse @ dense: every form
    "mm": lambda L, sp: L.mm(_s(L, sp), _d(L, 3, 2)),
    "spmm": lambda L, sp: L.spmm(_s(L, sp), _d(L, 3, 2)),
    "method_mm": lambda L, sp: _s(L, sp).mm(_d(L, 3, 2)),
    "matmul": lambda L, sp: L.matmul(_s(L, sp), _d(L, 3, 2)),
    "operator": lambda L, sp: _s(L, sp) @ _d(L, 3, 2),
    "method_matmul": lambda L, sp: _s(L, sp).matmul(_d(L, 3, 2)),
    "coalesced": lambda L, sp: L.mm(_c(L, sp), _d(L, 4, 5)),
    "no_entries": lambda L, sp: L.mm(_e(L, sp), _d(L, 3, 2)),
    "transposed_dense": lambda L, sp: L.mm(_s(L, sp), _d(L, 2, 3).t()),
    "sliced_dense": lambda L, sp: L.mm(_s(L, sp), _d(L, 3, 4)[:, ::2]),
    "float64": lambda L, sp: L.mm(_s(L, sp, L.float64), _d(L, 3, 2, dtype=L.float64)),
    "int64": lambda L, sp: L.mm(_s(L, sp, L.int64), _d(L, 3, 2, dtype=L.int64)),
    "complex64": lambda L, sp: L.mm(_s(L, sp, L.complex64), _d(L, 3, 2, dtype=L.complex64)),
    "eye_example": lambda L, sp: (
        L.mm(L.eye(3).to_sparse(), L.ones(3, 2)),
        L.matmul(L.eye(3).to_sparse(), L.ones(3, 2)),
        L.spmm(L.eye(3).to_sparse(), L.ones(3, 2)),
        L.eye(3).to_sparse().mm(L.ones(3, 2)),
    ),
    # dense @ sparse: a column-major result, not a view (a view for torch.sparse.mm)
    "dense_sparse_mm": lambda L, sp: L.mm(_d(L, 2, 3), _s(L, sp)),
    "dense_sparse_spmm": lambda L, sp: L.spmm(_d(L, 2, 3), _s(L, sp)),
    "dense_sparse_method": lambda L, sp: _d(L, 2, 3).mm(_s(L, sp)),
    "dense_sparse_matmul": lambda L, sp: L.matmul(_d(L, 2, 3), _s(L, sp)),
    "dense_sparse_operator": lambda L, sp: _d(L, 2, 3) @ _s(L, sp),
    "dense_sparse_int": lambda L, sp: L.mm(_d(L, 2, 3, dtype=L.int64), _s(L, sp, L.int64)),
    "sparse_mm_dense_sparse": lambda L, sp: L.sparse.mm(_d(L, 2, 3), _s(L, sp)),
    # sparse @ sparse: sparse, coalesced (entries that cancel are kept)
    "sparse_sparse_mm": lambda L, sp: L.mm(_c(L, sp), _b(L, sp)),
    "sparse_sparse_operator": lambda L, sp: _c(L, sp) @ _b(L, sp),
    "sparse_sparse_spmm": lambda L, sp: L.spmm(_s(L, sp), _s(L, sp)),
    "sparse_sparse_torch_sparse": lambda L, sp: L.sparse.mm(_c(L, sp), _b(L, sp)),
    "sparse_sparse_cancel": lambda L, sp: L.mm(
        L.tensor([[1.0, 1.0]]).to_sparse(), L.tensor([[1.0], [-1.0]]).to_sparse()
    ),
    "sparse_sparse_empty": lambda L, sp: L.mm(_e(L, sp), _s(L, sp)),
    "sparse_sparse_float64": lambda L, sp: L.mm(_s(L, sp, L.float64), _s(L, sp, L.float64)),
    # matmul's ranks
    "matmul_matrix_vector": lambda L, sp: L.matmul(_s(L, sp), _v(L)),
    "operator_matrix_vector": lambda L, sp: _s(L, sp) @ _v(L),
    "matmul_vector_matrix": lambda L, sp: L.matmul(_v(L), _s(L, sp)),
    "operator_vector_matrix": lambda L, sp: _v(L) @ _s(L, sp),
    "matmul_sparse_vector_right": lambda L, sp: L.matmul(_d(L, 2, 3), _v(L).to_sparse()),
    "matmul_sparse_vector_left": lambda L, sp: L.matmul(_v(L).to_sparse(), _d(L, 3, 2)),
    "matmul_batch_dense": lambda L, sp: L.matmul(_d(L, 2, 4, 3), _s(L, sp)),
    "matmul_batch_dense_4d": lambda L, sp: L.matmul(_d(L, 2, 1, 2, 3), _s(L, sp)),
    "matmul_batch_empty": lambda L, sp: L.matmul(_d(L, 0, 2, 3), _s(L, sp)),
    "matmul_batch_vector": lambda L, sp: L.matmul(_d(L, 2, 2, 3), _v(L).to_sparse()),
    "mv": lambda L, sp: L.mv(_s(L, sp), _v(L)),
    "method_mv": lambda L, sp: _s(L, sp).mv(_v(L)),
    "mv_dense_sparse_vector": lambda L, sp: L.mv(_d(L, 2, 3), _v(L).to_sparse()),
    # addmm
    "addmm": lambda L, sp: L.addmm(_d(L, 3, 2, seed=1), _s(L, sp), _d(L, 3, 2)),
    "addmm_broadcast": lambda L, sp: L.addmm(_d(L, 2, seed=1), _s(L, sp), _d(L, 3, 2)),
    "addmm_scaled": lambda L, sp: L.addmm(
        _d(L, 1, 2, seed=1), _s(L, sp), _d(L, 3, 2), beta=0.5, alpha=-2.0
    ),
    "addmm_beta0_ignores_nan": lambda L, sp: L.addmm(
        L.full((3, 2), float("nan")), _s(L, sp), _d(L, 3, 2), beta=0
    ),
    "addmm_int": lambda L, sp: L.addmm(
        L.ones(3, 2, dtype=L.long), _s(L, sp, L.int64), L.arange(6).reshape(3, 2), alpha=2
    ),
    "addmm_int_fraction_alpha": lambda L, sp: L.addmm(
        L.ones(3, 2, dtype=L.long), _s(L, sp, L.int64), L.arange(6).reshape(3, 2), alpha=0.5
    ),
    "addmm_int_fraction_beta": lambda L, sp: L.addmm(
        L.full((3, 2), 3, dtype=L.long), _s(L, sp, L.int64), L.arange(6).reshape(3, 2), beta=2.5
    ),
    "method_addmm": lambda L, sp: _d(L, 3, 2, seed=1).addmm(_s(L, sp), _d(L, 3, 2)),
    "addmm_inplace": lambda L, sp: _d(L, 3, 2, seed=1).addmm_(_s(L, sp), _d(L, 3, 2), beta=2),
    "sparse_addmm": lambda L, sp: L.sparse.addmm(_d(L, 3, 2, seed=1), _s(L, sp), _d(L, 3, 2)),
    "sparse_addmm_dense": lambda L, sp: L.sparse.addmm(_d(L, 2, 2), _d(L, 2, 3), _d(L, 3, 2)),
    # out=
    "mm_out": lambda L, sp: L.mm(_s(L, sp), _d(L, 3, 2), out=L.empty(0)),
    "mm_out_resized": lambda L, sp: L.mm(_s(L, sp), _d(L, 3, 2), out=L.empty(7)),
    "matmul_out": lambda L, sp: L.matmul(_s(L, sp), _d(L, 3, 2), out=L.empty(0)),
    "matmul_sparse_vector_out": lambda L, sp: L.matmul(
        _v(L).to_sparse(), _d(L, 3, 2), out=L.empty(0)
    ),
    "addmm_out": lambda L, sp: L.addmm(_d(L, 2, seed=1), _s(L, sp), _d(L, 3, 2), out=L.empty(0)),
    "spmm_dense": lambda L, sp: L.spmm(_d(L, 2, 3), _d(L, 3, 2)),
}

REFUSED = {
    # shapes
    "mm_inner_mismatch": lambda L, sp: L.mm(_s(L, sp), L.ones(2, 2)),
    "mm_dense_sparse_mismatch": lambda L, sp: L.mm(L.ones(2, 2), _s(L, sp)),
    "mm_vector": lambda L, sp: L.mm(_s(L, sp), L.ones(3)),
    "mm_dense_vector_left": lambda L, sp: L.mm(L.ones(3), _s(L, sp)),
    "mm_dense_3d": lambda L, sp: L.mm(_s(L, sp), L.ones(2, 3, 2)),
    "mm_dense_3d_square": lambda L, sp: _s(L, sp).mm(L.ones(2, 3, 3)),
    "mm_dense_3d_left": lambda L, sp: L.mm(L.ones(2, 2, 3), _s(L, sp)),
    "mm_sparse_3d": lambda L, sp: L.mm(_s3(L, sp), L.ones(3, 2)),
    "mm_sparse_3d_right": lambda L, sp: L.mm(L.ones(2, 3), _s3(L, sp)),
    "mm_sparse_vector": lambda L, sp: L.mm(_v(L).to_sparse(), L.ones(3, 2)),
    "mm_hybrid": lambda L, sp: L.mm(_h(L, sp), L.ones(3, 2)),
    "mm_hybrid_right": lambda L, sp: L.mm(L.ones(2, 3), _h(L, sp)),
    "sparse_sparse_mismatch": lambda L, sp: L.mm(_c(L, sp), _s(L, sp)),
    "sparse_sparse_3d": lambda L, sp: L.mm(_s(L, sp), _s3(L, sp)),
    "sparse_sparse_3d_left": lambda L, sp: L.mm(_s3(L, sp), _s(L, sp)),
    "sparse_sparse_hybrid": lambda L, sp: L.mm(_s(L, sp), _h(L, sp)),
    # dtypes
    "mm_dtype": lambda L, sp: L.mm(_s(L, sp), L.ones(3, 2, dtype=L.float64)),
    "mm_dtype_int_float": lambda L, sp: L.mm(_s(L, sp, L.int64), L.ones(3, 2)),
    "mm_dense_sparse_dtype": lambda L, sp: L.mm(L.ones(2, 3, dtype=L.float64), _s(L, sp)),
    "mm_bool": lambda L, sp: L.mm(_s(L, sp, L.bool), L.ones(3, 2, dtype=L.bool)),
    "mm_bool_before_dtype": lambda L, sp: L.mm(_s(L, sp, L.bool), L.ones(3, 2)),
    "mm_shape_before_dtype": lambda L, sp: L.mm(_s(L, sp), L.ones(2, 2, dtype=L.float64)),
    "sparse_sparse_dtype": lambda L, sp: L.mm(_s(L, sp), _s(L, sp, L.float64)),
    "sparse_sparse_int": lambda L, sp: L.mm(_s(L, sp, L.int64), _s(L, sp, L.int64)),
    "sparse_sparse_half": lambda L, sp: L.mm(_s(L, sp, L.float16), _s(L, sp, L.float16)),
    # matmul
    "matmul_vector_vector": lambda L, sp: L.matmul(_v(L).to_sparse(), _v(L)),
    "matmul_0d": lambda L, sp: L.matmul(L.tensor(1.0).to_sparse(), _s(L, sp)),
    "matmul_sparse_3d": lambda L, sp: L.matmul(_s3(L, sp), L.ones(3, 2)),
    "matmul_sparse_3d_vector": lambda L, sp: L.matmul(_s3(L, sp), _v(L)),
    "matmul_vector_sparse_3d": lambda L, sp: L.matmul(_v(L), _s3(L, sp)),
    "matmul_sparse_dense_3d": lambda L, sp: L.matmul(_s(L, sp), L.ones(2, 3, 2)),
    "matmul_sparse_sparse_3d": lambda L, sp: L.matmul(_s3(L, sp), _s3(L, sp)),
    "matmul_unfoldable_batch": lambda L, sp: L.matmul(L.ones(2, 3, 2).transpose(1, 2), _s(L, sp)),
    "matmul_batch_mismatch": lambda L, sp: L.matmul(L.ones(2, 3, 2), _s(L, sp)),
    "matmul_vector_mismatch": lambda L, sp: L.matmul(L.ones(2), _s(L, sp)),
    "matmul_matrix_vector_mismatch": lambda L, sp: L.matmul(_s(L, sp), L.ones(2)),
    "mv_2d_vector": lambda L, sp: L.mv(_s(L, sp), L.ones(3, 1)),
    # out=
    "mm_dense_sparse_out": lambda L, sp: L.mm(L.ones(2, 3), _s(L, sp), out=L.empty(0)),
    "mm_sparse_sparse_out": lambda L, sp: L.mm(_s(L, sp), _s(L, sp), out=L.empty(0)),
    "mm_out_dtype": lambda L, sp: L.mm(_s(L, sp), L.ones(3, 2), out=L.empty(0, dtype=L.float64)),
    "mm_out_sparse": lambda L, sp: L.mm(_s(L, sp), L.ones(3, 2), out=_e(L, sp)),
    "matmul_dense_sparse_out": lambda L, sp: L.matmul(L.ones(2, 3), _s(L, sp), out=L.empty(0)),
    "matmul_vector_out": lambda L, sp: L.matmul(_s(L, sp), _v(L), out=L.empty(0)),
    "matmul_batch_out": lambda L, sp: L.matmul(L.ones(2, 2, 3), _s(L, sp), out=L.empty(0)),
    "mm_out_requires_grad": lambda L, sp: L.mm(
        _s(L, sp), L.ones(3, 2, requires_grad=True), out=L.empty(0)
    ),
    "addmm_out_requires_grad": lambda L, sp: L.addmm(
        L.ones(3, 2), _s(L, sp), L.ones(3, 2, requires_grad=True), out=L.empty(0)
    ),
    "matmul_out_requires_grad": lambda L, sp: L.matmul(
        _s(L, sp), L.ones(3, 2, requires_grad=True), out=L.empty(0)
    ),
    # addmm's layouts and shapes
    "addmm_dense_sparse": lambda L, sp: L.addmm(L.ones(2, 3), L.ones(2, 3), _s(L, sp)),
    "addmm_sparse_sparse": lambda L, sp: L.addmm(L.ones(3, 3), _s(L, sp), _s(L, sp)),
    "addmm_sparse_input": lambda L, sp: L.addmm(_e(L, sp), L.ones(3, 3), L.ones(3, 3)),
    "addmm_sparse_input_expanded": lambda L, sp: L.addmm(_e(L, sp), _s(L, sp), L.ones(3, 2)),
    "addmm_bad_input": lambda L, sp: L.addmm(L.ones(4), _s(L, sp), L.ones(3, 2)),
    "addmm_dtype": lambda L, sp: L.addmm(L.ones(3, 2, dtype=L.float64), _s(L, sp), L.ones(3, 2)),
    "addmm_vector": lambda L, sp: L.addmm(L.ones(3, 2), _s(L, sp), L.ones(3)),
    "addmm_mismatch": lambda L, sp: L.addmm(L.ones(3, 2), _s(L, sp), L.ones(2, 2)),
    "addmm_out_sparse_input": lambda L, sp: L.addmm(
        _e(L, sp), _s(L, sp), L.ones(3, 3), out=L.empty(0)
    ),
    "addmm_inplace_broadcast": lambda L, sp: L.ones(2).addmm_(_s(L, sp), L.ones(3, 2)),
    "addmm_inplace_dense_sparse": lambda L, sp: L.ones(2, 3).addmm_(L.ones(2, 3), _s(L, sp)),
    "sparse_addmm_dense_sparse": lambda L, sp: L.sparse.addmm(
        L.ones(2, 3), L.ones(2, 3), _s(L, sp)
    ),
    "sparse_mm_reduce": lambda L, sp: L.sparse.mm(_s(L, sp), L.ones(3, 2), reduce="sum"),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    _check(FORWARD[name])


# PyTorch's messages that name its own internals: the type is compared, not the words.
_OWN_WORDS = {"matmul_vector_vector", "matmul_vector_out", "sparse_mm_reduce"}


@needs_torch
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_torch(name):
    _check(REFUSED[name], message=name not in _OWN_WORDS)


def test_every_form_carries_the_sparse_layout_step():
    """The functions reach the sparse implementation from their entries (no patching):
    ``torch.spmm`` is ``mm`` under PyTorch's other name, with no method form."""
    for name in ("mm", "spmm", "matmul", "mv", "addmm"):
        assert FUNCTIONS[name].__globals__.get("_L0") is SparseCOOTensor, name
    assert FUNCTIONS["spmm"].op is FUNCTIONS["mm"].op
    assert not hasattr(jtensor.Tensor, "spmm")
    if torch is not None:
        assert not hasattr(torch.Tensor, "spmm")
    for attr in ("addmm", "addmm_", "mv"):  # installed kernels, not refusals
        assert attr in SparseCOOTensor.__dict__, attr


# ---------------------------------------------------------------------- autograd
def _grad_meta(g):
    if g is None:
        return None
    if g.is_sparse:
        return ("sparse", str(g.dtype), tuple(g.shape), g.is_coalesced())
    return ("strided", str(g.dtype), tuple(g.shape), tuple(g.stride()))


def _from_values(L, sp):
    """S built from values that require grad (S is not a leaf), and a dense D."""
    v = L.tensor([1.0, -2.0, 0.5, 3.0], requires_grad=True)
    s = sp(L.tensor([[1, 0, 1, 2], [2, 0, 2, 1]]), v, (3, 3))
    return v, s


def _leaf(L, sp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sp([[1, 0, 1, 2], [2, 0, 2, 1]], [1.0, -2.0, 0.5, 3.0], (3, 3), requires_grad=True)


PRODUCTS = {
    "mm": lambda L, S, D, c: L.mm(S, D),
    "spmm": lambda L, S, D, c: L.spmm(S, D),
    "method_mm": lambda L, S, D, c: S.mm(D),
    "matmul": lambda L, S, D, c: L.matmul(S, D),
    "operator": lambda L, S, D, c: S @ D,
    "dense_sparse_mm": lambda L, S, D, c: L.mm(D.t(), S),
    "dense_sparse_operator": lambda L, S, D, c: D.t() @ S,
    "dense_sparse_spmm": lambda L, S, D, c: L.spmm(D.t(), S),
    "matrix_vector": lambda L, S, D, c: L.matmul(S, D[:, 0]),
    "mv": lambda L, S, D, c: L.mv(S, D[:, 1]),
    "vector_matrix": lambda L, S, D, c: L.matmul(D[:, 0], S),
    "batch_fold": lambda L, S, D, c: L.matmul(D.t().expand(2, 2, 3).contiguous(), S),
    "batch_fold_transposed": lambda L, S, D, c: L.matmul(S, D.expand(2, 3, 2)),
    "addmm": lambda L, S, D, c: L.addmm(c, S, D),
    "addmm_scaled": lambda L, S, D, c: L.addmm(c, S, D, beta=-0.5, alpha=3.0),
    "addmm_beta0": lambda L, S, D, c: L.addmm(c, S, D, beta=0),
    "sparse_mm": lambda L, S, D, c: L.sparse.mm(S, D),
    "sparse_mm_dense_sparse": lambda L, S, D, c: L.sparse.mm(D.t(), S),
    "sparse_addmm": lambda L, S, D, c: L.sparse.addmm(c, S, D, alpha=2.0),
    "sparse_sparse": lambda L, S, D, c: L.mm(S, S),
    "sparse_sparse_coalesced": lambda L, S, D, c: S.coalesce() @ S,
    "sparse_sparse_torch_sparse": lambda L, S, D, c: L.sparse.mm(S, S.t()),
}


def _backward(L, out):
    g = L.tensor(np.linspace(-1.0, 2.0, max(out.numel(), 1)).astype(np.float32))
    if out.is_sparse:
        (L.sparse.sum(out * 1.5)).backward()
    else:
        out.backward(g.reshape(out.shape))


def _run_gradients(name, leaf):
    res = {}
    for L in (jtensor, torch):
        sp = _sp(L)
        if leaf:
            S = _leaf(L, sp)
            v = None
        else:
            v, S = _from_values(L, sp)
        D = L.arange(6.0).reshape(3, 2).requires_grad_()
        c = L.tensor([0.5, -1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = PRODUCTS[name](L, S, D, c)
            _backward(L, out)
        grads = {
            "D": D.grad,
            "c": c.grad,
            "values": v.grad if v is not None else None,
            "S": S.grad if leaf else None,
        }
        res[L.__name__] = (out, grads)
    return res


@needs_torch
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_gradients_through_values_match_torch(name):
    """A sparse operand made from values that need a gradient: the output's ``grad_fn``
    name and layout, and every gradient (values, dtype, layout, strides) are PyTorch's."""
    res = _run_gradients(name, leaf=False)
    (ours, mine), (theirs, their) = res["jtensor"], res["torch"]
    _compare(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    if not theirs.is_sparse:
        assert _meta(ours) == _meta(theirs)
    for key in ("D", "c", "values"):
        assert _grad_meta(mine[key]) == _grad_meta(their[key]), key
        if their[key] is not None:
            np.testing.assert_allclose(
                _np(mine[key]), _np(their[key]), rtol=1e-5, atol=1e-5, err_msg=key
            )


# sparse @ sparse is written with ops on the values, so its leaf operand gets the sparse
# mask of PyTorch's gradient (a sparse product, whose entries may leave the operand's
# pattern), with the coalesced flag unset.
_LEAF_MASKED = {"sparse_sparse", "sparse_sparse_coalesced", "sparse_sparse_torch_sparse"}


@needs_torch
@pytest.mark.parametrize("name", sorted(set(PRODUCTS) - _LEAF_MASKED))
def test_leaf_sparse_operand_gradient_matches_torch(name):
    """A leaf sparse operand: ``torch.mm``/``addmm``/``matmul``/``mv`` give it PyTorch's full
    dense gradient, ``torch.sparse.mm``/``addmm`` a sparse one."""
    res = _run_gradients(name, leaf=True)
    (ours, mine), (theirs, their) = res["jtensor"], res["torch"]
    _compare(ours, theirs)
    for key in ("D", "c", "S"):
        assert _grad_meta(mine[key]) == _grad_meta(their[key]), key
        if their[key] is not None:
            np.testing.assert_allclose(
                _np(mine[key].to_dense()),
                _np(their[key].to_dense()),
                rtol=1e-5,
                atol=1e-5,
                err_msg=key,
            )


@needs_torch
@pytest.mark.parametrize("name", sorted(_LEAF_MASKED))
def test_leaf_sparse_sparse_gradient_is_the_mask_of_torch(name):
    res = _run_gradients(name, leaf=True)
    mine, their = res["jtensor"][1]["S"], res["torch"][1]["S"]
    assert mine.is_sparse and their.is_sparse
    pattern = _leaf(torch, torch.sparse_coo_tensor).detach().coalesce().to_dense() != 0
    np.testing.assert_allclose(_np(mine.to_dense()), _np(their.to_dense() * pattern), rtol=1e-5)


def test_leaf_dense_gradient_is_the_dense_products():
    """Without the oracle: a leaf's dense gradient from ``torch.mm`` equals the gradient of
    the same product of its dense form, and sums with a sparse gradient from another use."""
    S = _leaf(jtensor, jtensor.sparse_coo_tensor)
    dense = S.detach().to_dense().requires_grad_()
    D = jtensor.arange(6.0).reshape(3, 2)
    (jtensor.mm(S, D).sum() + jtensor.sparse.sum(S * 2)).backward()
    (jtensor.mm(dense, D).sum() + (dense * 2 * (dense != 0)).sum()).backward()
    assert S.grad.layout == jtensor.strided
    np.testing.assert_allclose(S.grad.numpy(), dense.grad.numpy())
    (g,) = jtensor.autograd.grad((S @ D).sum(), S)
    np.testing.assert_allclose(g.numpy(), np.ones((3, 2)) @ D.numpy().T)
    S.grad = None
    assert S.grad is None


# ---------------------------------------------------------------------- finite differences
IDX = [[1, 0, 1, 2, 2], [2, 0, 2, 1, 0]]


def _sparse64(values, shape=(3, 3)):
    return jtensor.sparse_coo_tensor(jtensor.tensor(IDX), values, shape)


def _f64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return jtensor.tensor(rng.standard_normal(shape), dtype=jtensor.float64, requires_grad=True)


GRADCHECK = {
    "mm": (lambda v, d, c: jtensor.mm(_sparse64(v), d), (3, 2)),
    "spmm": (lambda v, d, c: jtensor.spmm(_sparse64(v), d), (3, 2)),
    "operator": (lambda v, d, c: _sparse64(v) @ d, (3, 4)),
    "dense_sparse": (lambda v, d, c: jtensor.mm(d.t(), _sparse64(v)), (3, 2)),
    "dense_sparse_operator": (lambda v, d, c: d.t() @ _sparse64(v), (3, 2)),
    "matrix_vector": (lambda v, d, c: jtensor.matmul(_sparse64(v), d[:, 0]), (3, 2)),
    "mv": (lambda v, d, c: jtensor.mv(_sparse64(v), d[:, 1]), (3, 2)),
    "vector_matrix": (lambda v, d, c: d[:, 0] @ _sparse64(v), (3, 2)),
    "batch_fold": (lambda v, d, c: jtensor.matmul(d.reshape(2, 1, 3), _sparse64(v)), (3, 2)),
    "batch_fold_transposed": (lambda v, d, c: _sparse64(v) @ d.expand(2, 3, 2), (3, 2)),
    "addmm": (lambda v, d, c: jtensor.addmm(c, _sparse64(v), d, beta=0.5, alpha=-1.5), (3, 2)),
    "addmm_beta0": (lambda v, d, c: jtensor.addmm(c, _sparse64(v), d, beta=0), (3, 2)),
    "sparse_addmm": (lambda v, d, c: jtensor.sparse.addmm(c, _sparse64(v), d), (3, 2)),
    "sparse_sparse": (lambda v, d, c: (_sparse64(v) @ _sparse64(v * d.sum())).to_dense(), (3, 2)),
    "complex": (
        lambda v, d, c: jtensor.view_as_real(
            jtensor.mm(_sparse64(v.to(jtensor.complex128) * (1 + 2j)), d.to(jtensor.complex128))
        ),
        (3, 2),
    ),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, dshape = GRADCHECK[name]
    v = jtensor.tensor([1.0, -2.0, 0.5, 3.0, 0.25], dtype=jtensor.float64, requires_grad=True)
    d = _f64(*dshape)
    c = _f64(dshape[1], seed=1)
    assert gradcheck(fn, (v, d, c))


@pytest.mark.parametrize("name", ["mm", "dense_sparse", "addmm", "vector_matrix", "sparse_sparse"])
def test_gradgradcheck(name):
    fn, dshape = GRADCHECK[name]
    v = jtensor.tensor([1.0, -2.0, 0.5, 3.0, 0.25], dtype=jtensor.float64, requires_grad=True)
    assert gradgradcheck(fn, (v, _f64(*dshape), _f64(dshape[1], seed=1)))


DOUBLE = {
    "sparse_dense": lambda L, S, D: L.mm(S, D),
    "dense_sparse": lambda L, S, D: L.mm(D.t(), S),
    "operator": lambda L, S, D: S @ D,
}


@needs_torch
@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_double_backward_through_a_leaf_matches_torch(name):
    """``create_graph=True`` through a leaf sparse operand: the first-order gradients (their
    nodes) and the second-order gradient of the dense operand are PyTorch's."""
    res = {}
    for L in (jtensor, torch):
        S = _leaf(L, _sp(L))
        D = L.arange(6.0).reshape(3, 2).requires_grad_()
        gS, gD = L.autograd.grad(DOUBLE[name](L, S, D).pow(2).sum(), (S, D), create_graph=True)
        (gS.sum() + gD.pow(2).sum()).backward()
        res[L.__name__] = (gS, gD, D.grad)
    _compare(res["jtensor"], res["torch"])


# ---------------------------------------------------------------------- a teaching program
@needs_torch
def test_gcn_layer_trains_like_torch():
    """pytorch/examples' GCN layer: ``torch.mm(adj, support)`` with a sparse adjacency, a
    few SGD steps; losses and weights as PyTorch's."""
    rng = np.random.default_rng(0)
    n, f, h = 6, 4, 3
    edges = np.array([[0, 1, 1, 2, 3, 4, 5, 0, 2, 5], [1, 0, 2, 1, 4, 3, 0, 5, 2, 5]])
    x = rng.standard_normal((n, f)).astype(np.float32)
    w0 = rng.standard_normal((f, h)).astype(np.float32)
    target = rng.standard_normal((n, h)).astype(np.float32)
    res = {}
    for L in (jtensor, torch):
        adj = L.sparse_coo_tensor(L.tensor(edges), L.ones(edges.shape[1]), (n, n))
        weight = L.nn.Parameter(L.tensor(w0))
        opt = L.optim.SGD([weight], lr=0.1)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            out = L.mm(adj, L.mm(L.tensor(x), weight))
            loss = ((L.relu(out) - L.tensor(target)) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        res[L.__name__] = (losses, weight.detach().numpy().copy())
    np.testing.assert_allclose(res["jtensor"][0], res["torch"][0], rtol=1e-5)
    np.testing.assert_allclose(res["jtensor"][1], res["torch"][1], rtol=1e-5, atol=1e-6)
