"""``torch.bmm`` with a sparse COO operand (``jtensor/_sparse/matmul.py``: ``_bmm``,
``_SparseBmm``), reached from ``torch.bmm`` and ``Tensor.bmm`` by the sparse layout step.

PyTorch has one such kernel: a sparse ``(B, n, k)`` batch (3 sparse dims, no dense dim) times
a dense ``(B, k, p)`` batch, giving a dense contiguous batch in the dense operand's dtype.
Every other arrangement (dense @ sparse, sparse @ sparse, hybrid or 2-D sparse operands) is
refused. Each case runs with jtensor and with PyTorch and compares values, dtype, shape,
strides, layout, ``grad_fn`` name, or the exception type and PyTorch's first sentence;
gradients are compared with PyTorch's (values, layout, strides) and checked by float64 finite
differences.
"""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor._registry import FUNCTIONS
from jtensor._sparse import SparseCOOTensor
from jtensor._sparse import dispatch as sparse_dispatch
from jtensor.autograd import gradcheck, gradgradcheck
from tests.sparse.test_sparse import _compare, _np, _sp, check, needs_torch

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None


# ---------------------------------------------------------------------- operands
# A (2, 3, 4) batch: entries in both batches, (1, 2, 0) stored twice (uncoalesced).
IDX = [[1, 0, 1, 0, 1, 0], [2, 0, 2, 1, 0, 2], [0, 3, 0, 1, 2, 2]]
VALS = [1.5, -2.0, 0.25, 3.0, -1.0, 0.5]


def _s(L, sp, dtype=None):
    s = sp(IDX, VALS, (2, 3, 4))
    return s if dtype is None else s.to(dtype)


def _dense(L, *shape, dtype=None, seed=0):
    rng = np.random.default_rng(seed)
    t = L.tensor(rng.standard_normal(shape).astype(np.float32))
    return t if dtype is None else t.to(dtype)


def _gaps(L, sp):
    """(4, 2, 3): batches 0 and 3 hold nothing, batch 2 one entry."""
    return sp([[1, 1, 2], [0, 1, 1], [2, 0, 1]], [2.0, -1.0, 4.0], (4, 2, 3))


def _empty(L, sp, dtype=None):
    return sp(L.zeros(3, 0, dtype=L.long), L.zeros(0, dtype=dtype or L.float32), (2, 3, 4))


def _wide(L, sp):
    """Few entries in large matrices: the gather kernel (not the dense scatter)."""
    rng = np.random.default_rng(3)
    nnz = 40
    idx = np.stack([rng.integers(0, 3, nnz), rng.integers(0, 200, nnz), rng.integers(0, 300, nnz)])
    return sp(L.tensor(idx), L.tensor(rng.standard_normal(nnz).astype(np.float32)), (3, 200, 300))


def _meta(t):
    return (tuple(t.stride()), t.is_contiguous(), str(t.layout))


def _same_layout(ours, theirs):
    """Beyond ``_compare``: the strides, contiguity and layout of every dense result."""
    pairs = zip(ours, theirs, strict=True) if isinstance(theirs, tuple) else [(ours, theirs)]
    for a, b in pairs:
        if isinstance(b, torch.Tensor):
            assert a.is_sparse == b.is_sparse
            if not b.is_sparse:
                assert _meta(a) == _meta(b), f"{_meta(a)} != {_meta(b)}"


# ---------------------------------------------------------------------- forward
def _out_kept(L, sp):
    out = L.empty(5, 3, 2).permute(2, 1, 0)  # (2, 3, 5), not contiguous: written in place
    r = L.bmm(_s(L, sp), _dense(L, 2, 4, 5), out=out)
    return r, r is out


FORWARD = {
    "function": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 5)),
    "method": lambda L, sp: _s(L, sp).bmm(_dense(L, 2, 4, 5)),
    "coalesced": lambda L, sp: L.bmm(_s(L, sp).coalesce(), _dense(L, 2, 4, 5)),
    "to_sparse": lambda L, sp: L.bmm(
        (_dense(L, 2, 3, 4, seed=2) * (_dense(L, 2, 3, 4, seed=3) > 0)).to_sparse(),
        _dense(L, 2, 4, 2),
    ),
    "empty_batches": lambda L, sp: L.bmm(_gaps(L, sp), _dense(L, 4, 3, 2)),
    "no_entries": lambda L, sp: L.bmm(_empty(L, sp), _dense(L, 2, 4, 5)),
    "zero_batch": lambda L, sp: L.bmm(L.zeros(0, 3, 4).to_sparse(), _dense(L, 0, 4, 5)),
    "zero_inner": lambda L, sp: L.bmm(L.zeros(2, 3, 0).to_sparse(), _dense(L, 2, 0, 5)),
    "zero_columns": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 0)),
    "transposed_dense": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 5, 4).transpose(1, 2)),
    "sliced_dense": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 9)[:, :, ::2]),
    "expanded_dense": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 1, 4, 3).expand(2, 4, 3)),
    "batch_major_dense": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 4, 2, 5).transpose(0, 1)),
    "wide_gather_kernel": lambda L, sp: L.bmm(_wide(L, sp), _dense(L, 3, 300, 4)),
    "float64": lambda L, sp: L.bmm(_s(L, sp, L.float64), _dense(L, 2, 4, 5, dtype=L.float64)),
    "int64": lambda L, sp: L.bmm(_s(L, sp, L.int64), L.arange(40).reshape(2, 4, 5)),
    "int32": lambda L, sp: L.bmm(_s(L, sp, L.int32), L.arange(40, dtype=L.int32).reshape(2, 4, 5)),
    "uint8": lambda L, sp: L.bmm(_s(L, sp, L.uint8), L.arange(40, dtype=L.uint8).reshape(2, 4, 5)),
    "complex64": lambda L, sp: L.bmm(
        _s(L, sp, L.complex64) * (1 - 2j), _dense(L, 2, 4, 5, dtype=L.complex64) * 1j
    ),
    # Without entries the kernel returns zeros before it looks at any dtype.
    "no_entries_half": lambda L, sp: L.bmm(
        _empty(L, sp, L.float16), _dense(L, 2, 4, 5, dtype=L.float16)
    ),
    "no_entries_bool": lambda L, sp: L.bmm(
        L.zeros(2, 3, 4, dtype=L.bool).to_sparse(), L.ones(2, 4, 5, dtype=L.bool)
    ),
    "no_entries_dtype_mismatch": lambda L, sp: L.bmm(_empty(L, sp, L.float64), _dense(L, 2, 4, 5)),
    "out": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 5), out=L.empty(2, 3, 5)),
    "out_resized": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 5), out=L.empty(0)),
    "out_strides_kept": _out_kept,
    "out_no_entries_other_dtype": lambda L, sp: L.bmm(
        _empty(L, sp), _dense(L, 2, 4, 5), out=L.full((2, 3, 5), 7.0, dtype=L.float64)
    ),
    "eye_batch": lambda L, sp: L.bmm(L.eye(3).expand(2, 3, 3).to_sparse(), _dense(L, 2, 3, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    check(FORWARD[name], extra=_same_layout)


REFUSED = {
    # layouts: PyTorch's only kernel is sparse @ dense
    "dense_sparse": lambda L, sp: L.bmm(_dense(L, 2, 5, 2), _s(L, sp)),
    "dense_sparse_method": lambda L, sp: _dense(L, 2, 5, 2).bmm(_s(L, sp)),
    "sparse_sparse": lambda L, sp: L.bmm(_s(L, sp), _dense(L, 2, 4, 5).to_sparse()),
    "sparse_sparse_before_dims": lambda L, sp: L.bmm(
        L.ones(3, 4).to_sparse(), L.ones(2, 4, 5).to_sparse()
    ),
    "hybrid_one_dense_dim": lambda L, sp: L.bmm(_dense(L, 2, 3, 4).to_sparse(2), L.ones(2, 4, 5)),
    "hybrid_two_dense_dims": lambda L, sp: L.bmm(_dense(L, 2, 3, 4).to_sparse(1), L.ones(2, 4, 5)),
    "sparse_2d": lambda L, sp: L.bmm(_dense(L, 3, 4).to_sparse(), L.ones(2, 4, 5)),
    "sparse_4d": lambda L, sp: L.bmm(_dense(L, 1, 2, 3, 4).to_sparse(), L.ones(2, 4, 5)),
    "dense_2d": lambda L, sp: L.bmm(_s(L, sp), L.ones(4, 5)),
    "batch_mismatch": lambda L, sp: L.bmm(_s(L, sp), L.ones(3, 4, 5)),
    "inner_mismatch": lambda L, sp: L.bmm(_s(L, sp), L.ones(2, 3, 5)),
    # dtypes (only looked at when there are entries)
    "double_float": lambda L, sp: L.bmm(_s(L, sp, L.float64), L.ones(2, 4, 5)),
    "float_double": lambda L, sp: L.bmm(_s(L, sp), L.ones(2, 4, 5, dtype=L.float64)),
    "long_float": lambda L, sp: L.bmm(_s(L, sp, L.int64), L.ones(2, 4, 5)),
    "half": lambda L, sp: L.bmm(_s(L, sp, L.float16), L.ones(2, 4, 5, dtype=L.float16)),
    "bfloat16": lambda L, sp: L.bmm(_s(L, sp, L.bfloat16), L.ones(2, 4, 5, dtype=L.bfloat16)),
    "bool": lambda L, sp: L.bmm(_s(L, sp, L.bool), L.ones(2, 4, 5, dtype=L.bool)),
    "half_before_mismatch": lambda L, sp: L.bmm(_s(L, sp, L.float16), L.ones(2, 4, 5)),
    "shape_before_dtype": lambda L, sp: L.bmm(_s(L, sp), L.ones(2, 3, 5, dtype=L.float64)),
    # out=
    "out_dtype": lambda L, sp: L.bmm(
        _s(L, sp), L.ones(2, 4, 5), out=L.empty(2, 3, 5, dtype=L.float64)
    ),
    "out_dense_dtype_first": lambda L, sp: L.bmm(
        _s(L, sp), L.ones(2, 4, 5, dtype=L.float64), out=L.empty(0, dtype=L.int64)
    ),
    "out_sparse": lambda L, sp: L.bmm(_s(L, sp), L.ones(2, 4, 5), out=_empty(L, sp)),
    "out_sparse_after_shapes": lambda L, sp: L.bmm(_s(L, sp), L.ones(2, 5, 5), out=_empty(L, sp)),
    "out_requires_grad": lambda L, sp: L.bmm(
        _s(L, sp), L.ones(2, 4, 5, requires_grad=True), out=L.empty(0)
    ),
    # indices outside the matrices (built without the invariants check)
    "column_out_of_bounds": lambda L, sp: L.bmm(
        sp([[0], [0], [7]], [1.0], (2, 3, 4)), L.ones(2, 4, 5)
    ),
    "row_out_of_bounds": lambda L, sp: L.bmm(
        sp([[1], [3], [0]], [1.0], (2, 3, 4)), L.ones(2, 4, 5)
    ),
    "negative_column": lambda L, sp: L.bmm(sp([[0], [0], [-1]], [1.0], (2, 3, 4)), L.ones(2, 4, 5)),
    "row_and_column_of_one_entry": lambda L, sp: L.bmm(
        sp([[0], [3], [9]], [1.0], (2, 3, 4)), L.ones(2, 4, 5)
    ),
    "coalesced_order_of_errors": lambda L, sp: L.bmm(
        sp([[1, 0], [3, 9], [0, 9]], [1.0, 2.0], (2, 3, 4)), L.ones(2, 4, 5)
    ),
    # matmul of a 3-D sparse operand and the batched products without a sparse kernel
    "matmul_3d_3d": lambda L, sp: L.matmul(_s(L, sp), L.ones(2, 4, 5)),
    "operator_3d_3d": lambda L, sp: _s(L, sp) @ L.ones(2, 4, 5),
    "operator_dense_sparse_3d": lambda L, sp: L.ones(2, 5, 3) @ _s(L, sp),
    "matmul_3d_2d": lambda L, sp: L.matmul(_s(L, sp), L.ones(4, 5)),
    "baddbmm": lambda L, sp: L.baddbmm(L.ones(2, 3, 5), _s(L, sp), L.ones(2, 4, 5)),
    "baddbmm_sparse_input": lambda L, sp: L.baddbmm(
        L.ones(2, 3, 5).to_sparse(), L.ones(2, 3, 4), L.ones(2, 4, 5)
    ),
    "baddbmm_": lambda L, sp: L.ones(2, 3, 5).baddbmm_(_s(L, sp), L.ones(2, 4, 5)),
    "addbmm": lambda L, sp: L.addbmm(L.ones(3, 5), _s(L, sp), L.ones(2, 4, 5)),
    "addbmm_": lambda L, sp: L.ones(3, 5).addbmm_(L.ones(2, 3, 4), _s(L, sp).transpose(1, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_torch(name):
    check(REFUSED[name])


def test_batch_index_out_of_range_is_an_error():
    """PyTorch's loop never reaches an entry whose batch index is out of range (it is left
    out silently, an invariants violation); jtensor refuses it with a RuntimeError."""
    s = jtensor.sparse_coo_tensor([[5], [0], [0]], [1.0], (2, 3, 4))
    with pytest.raises(RuntimeError, match="out of bounds for dim 0"):
        jtensor.bmm(s, jtensor.ones(2, 4, 5))


def test_bmm_carries_the_sparse_layout_step():
    """``torch.bmm`` reaches the sparse kernel from its entry, and ``SparseCOOTensor.bmm`` is
    the installed kernel, not a refusal."""
    assert FUNCTIONS["bmm"].__globals__.get("_L0") is SparseCOOTensor
    assert SparseCOOTensor.__dict__["bmm"] is sparse_dispatch.bmm
    s = _s(jtensor, jtensor.sparse_coo_tensor)
    d = _dense(jtensor, 2, 4, 5)
    np.testing.assert_allclose(s.bmm(d).numpy(), s.to_dense().bmm(d).numpy(), rtol=1e-6, atol=1e-6)


def test_kernels_agree_with_the_dense_product():
    """The dense-scatter kernel (dense enough operands) and the gather kernel (few entries
    in large matrices) both give the dense ``bmm`` of ``to_dense()``."""
    for make, dense_shape in ((_s, (2, 4, 6)), (_wide, (3, 300, 4))):
        s = make(jtensor, jtensor.sparse_coo_tensor).to(jtensor.float64)
        d = _dense(jtensor, *dense_shape, dtype=jtensor.float64)
        np.testing.assert_allclose(
            jtensor.bmm(s, d).numpy(), np.matmul(s.to_dense().numpy(), d.numpy()), rtol=1e-12
        )


# ---------------------------------------------------------------------- autograd
def _grad_meta(g):
    if g is None:
        return None
    if g.is_sparse:
        return ("sparse", str(g.dtype), tuple(g.shape))
    return ("strided", str(g.dtype), tuple(g.shape), tuple(g.stride()))


def _node_names(out):
    fn = out.grad_fn
    nexts = [None if f is None else type(f).__name__ for f, _ in fn.next_functions]
    return type(fn).__name__, nexts


def _leaf(L, sp, dtype=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _s(L, sp, dtype).detach().requires_grad_()


def _upstream(L, shape, dtype=None):
    g = L.tensor(np.linspace(-1.0, 2.0, int(np.prod(shape))).astype(np.float32)).reshape(shape)
    return g if dtype is None else g.to(dtype)


def _gradients_leaf(L, sp, dtype=None, dense=None):
    S = _leaf(L, sp, dtype)
    D = (dense or (lambda L: _dense(L, 2, 4, 5)))(L)
    D = (D if dtype is None else D.to(dtype)).detach().requires_grad_()
    out = L.bmm(S, D)
    out.backward(_upstream(L, out.shape, dtype))
    return out, _node_names(out), S.grad, D.grad


def _gradients_values(L, sp):
    v = L.tensor(VALS, requires_grad=True)
    S = sp(L.tensor(IDX), v, (2, 3, 4))
    D = _dense(L, 2, 4, 5).requires_grad_()
    out = S.bmm(D)
    out.backward(_upstream(L, out.shape))
    return out, type(out.grad_fn).__name__, v.grad, D.grad


GRADIENTS = {
    "leaf": _gradients_leaf,
    "leaf_coalesced": lambda L, sp: _gradients_leaf(L, lambda *a: sp(*a).coalesce().detach()),
    "leaf_float64": lambda L, sp: _gradients_leaf(L, sp, L.float64),
    "leaf_complex128": lambda L, sp: _gradients_leaf(L, sp, L.complex128),
    "leaf_transposed_dense": lambda L, sp: _gradients_leaf(
        L, sp, dense=lambda L: _dense(L, 2, 5, 4).transpose(1, 2)
    ),
    "values": _gradients_values,
}


@needs_torch
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_torch(name):
    """A leaf sparse batch gets PyTorch's dense (contiguous) gradient ``grad @ D^H``; values
    that build the batch get one gradient per stored entry (duplicates included); the dense
    batch gets ``S^H @ grad``. The node is ``BmmBackward0`` with PyTorch's inputs."""
    res = {}
    for L in (jtensor, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res[L.__name__] = GRADIENTS[name](L, _sp(L))
    ours, theirs = res["jtensor"], res["torch"]
    _compare(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    for mine, their in zip(ours[2:], theirs[2:], strict=True):
        assert _grad_meta(mine) == _grad_meta(their)
        np.testing.assert_allclose(_np(mine), _np(their), rtol=1e-5, atol=1e-6)


@needs_torch
def test_leaf_without_entries_gets_a_dense_gradient_like_torch():
    res = {}
    for L in (jtensor, torch):
        S = _empty(L, _sp(L)).requires_grad_()
        D = _dense(L, 2, 4, 5).requires_grad_()
        out = L.bmm(S, D)
        out.backward(_upstream(L, out.shape))
        res[L.__name__] = (out, type(out.grad_fn).__name__, S.grad, D.grad)
    ours, theirs = res["jtensor"], res["torch"]
    _compare(ours[0], theirs[0])
    assert ours[1] == theirs[1] == "BmmBackward0"
    for mine, their in zip(ours[2:], theirs[2:], strict=True):
        assert _grad_meta(mine) == _grad_meta(their)
        np.testing.assert_allclose(_np(mine), _np(their), rtol=1e-6)


@needs_torch
def test_double_backward_matches_torch():
    """``create_graph=True`` through a leaf sparse batch and the dense batch."""
    res = {}
    for L in (jtensor, torch):
        S = _leaf(L, _sp(L))
        D = _dense(L, 2, 4, 5).requires_grad_()
        gS, gD = L.autograd.grad(L.bmm(S, D).pow(2).sum(), (S, D), create_graph=True)
        (gS.pow(2).sum() + gD.pow(2).sum()).backward()
        res[L.__name__] = (gS, gD, D.grad)
    _compare(res["jtensor"], res["torch"])


def _values64(seed=0):
    rng = np.random.default_rng(seed)
    return jtensor.tensor(rng.standard_normal(len(VALS)), dtype=jtensor.float64, requires_grad=True)


def _dense64(*shape, seed=1):
    rng = np.random.default_rng(seed)
    return jtensor.tensor(rng.standard_normal(shape), dtype=jtensor.float64, requires_grad=True)


def _bmm64(v, d):
    return jtensor.bmm(jtensor.sparse_coo_tensor(jtensor.tensor(IDX), v, (2, 3, 4)), d)


def test_gradcheck_values_and_dense():
    """float64 finite differences w.r.t. the values (duplicated position included) and the
    dense batch, and again through the first derivatives."""
    v, d = _values64(), _dense64(2, 4, 3)
    assert gradcheck(_bmm64, (v, d))
    assert gradgradcheck(_bmm64, (v, d))


def test_gradcheck_transposed_dense_and_complex():
    v, d = _values64(seed=2), _dense64(2, 3, 4, seed=3)
    assert gradcheck(lambda v, d: _bmm64(v, d.transpose(1, 2)), (v, d))

    def complex_product(v, d):
        vc = v.to(jtensor.complex128) * (0.5 + 1.5j)
        return jtensor.view_as_real(_bmm64(vc, d.to(jtensor.complex128) * (1 - 1j)))

    assert gradcheck(complex_product, (v, d.transpose(1, 2)))


def test_gradcheck_gather_kernel():
    """Few entries in large matrices (the gather kernel), values and dense batch."""
    rng = np.random.default_rng(5)
    nnz = 12
    idx = jtensor.tensor(
        np.stack([rng.integers(0, 2, nnz), rng.integers(0, 40, nnz), rng.integers(0, 60, nnz)])
    )
    v = jtensor.tensor(rng.standard_normal(nnz), dtype=jtensor.float64, requires_grad=True)
    d = _dense64(2, 60, 2, seed=6)

    def fn(v, d):
        return jtensor.bmm(jtensor.sparse_coo_tensor(idx, v, (2, 40, 60)), d)

    assert gradcheck(fn, (v, d))


def test_leaf_gradient_is_the_dense_product_gradient():
    """Without the oracle: a leaf sparse batch's gradient equals the gradient of the same
    product of its dense form."""
    S = _leaf(jtensor, jtensor.sparse_coo_tensor)
    dense = S.detach().to_dense().requires_grad_()
    D = _dense(jtensor, 2, 4, 5)
    g = _upstream(jtensor, (2, 3, 5))
    jtensor.bmm(S, D).backward(g)
    jtensor.bmm(dense, D).backward(g)
    assert S.grad.layout == jtensor.strided
    np.testing.assert_allclose(S.grad.numpy(), dense.grad.numpy(), rtol=1e-6)


# ---------------------------------------------------------------------- determinism
def _deterministic(L, sp, warn_only):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        L.use_deterministic_algorithms(True, warn_only=warn_only)
        try:
            S = _leaf(L, sp)
            D = _dense(L, 2, 4, 5).requires_grad_()
            out = L.bmm(S, D)
            out.sum().backward()
            state = (
                L.are_deterministic_algorithms_enabled(),
                L.is_deterministic_algorithms_warn_only_enabled(),
            )
        finally:
            L.use_deterministic_algorithms(False)
    messages = [str(w.message) for w in caught if "invariant" not in str(w.message)]
    return out, S.grad, D.grad, state, messages


@needs_torch
@pytest.mark.parametrize("warn_only", [False, True])
def test_deterministic_mode_neither_raises_nor_warns_like_torch(warn_only):
    """PyTorch's CPU kernel for sparse ``bmm`` is deterministic: no alert, forward or
    backward, in either deterministic mode (its CUDA kernel alerts; jtensor's are the CPU
    kernels)."""
    ours = _deterministic(jtensor, _sp(jtensor), warn_only)
    theirs = _deterministic(torch, _sp(torch), warn_only)
    assert ours[4] == theirs[4] == []
    assert ours[3] == theirs[3] == (True, warn_only)
    _compare(ours[:3], theirs[:3])
    assert not jtensor.are_deterministic_algorithms_enabled()
