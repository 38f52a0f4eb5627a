"""Sparse COO tensors (``jtensor._sparse``, ``jtensor.sparse``) against PyTorch.

Each case is a function ``case(lib, sp)`` run once with jtensor and once with torch; ``sp`` is
the library's ``sparse_coo_tensor``. Sparse results are compared by indices, values, size,
nnz, dtype, coalesced flag and repr; dense results by value/dtype/shape; exceptions by type
(and message where PyTorch's is informative).
"""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.sparse
from jtensor import _sparse

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

J_SPARSE_COO_TENSOR = getattr(jtensor, "sparse_coo_tensor", _sparse.sparse_coo_tensor)


def _sp(lib):
    return J_SPARSE_COO_TENSOR if lib is jtensor else lib.sparse_coo_tensor


def _run(case, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return case(lib, _sp(lib)), None
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return None, e


def _np(t):
    return np.asarray(t.detach().numpy())


def _compare(ours, theirs, what="result"):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), what
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _compare(a, b, f"{what}[{k}]")
        return
    if torch is not None and isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jtensor.Tensor), f"{what}: {type(ours)}"
        assert ours.is_sparse == theirs.is_sparse, f"{what}: is_sparse differs"
        assert str(ours.dtype) == str(theirs.dtype), f"{what}: {ours.dtype} != {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape"
        assert ours.requires_grad == theirs.requires_grad, f"{what}: requires_grad"
        if theirs.is_sparse:
            assert str(ours.layout) == str(theirs.layout)
            assert ours.is_coalesced() == theirs.is_coalesced(), f"{what}: is_coalesced"
            assert ours._nnz() == theirs._nnz(), f"{what}: nnz"
            assert ours.sparse_dim() == theirs.sparse_dim()
            assert ours.dense_dim() == theirs.dense_dim()
            np.testing.assert_array_equal(
                _np(ours._indices()), _np(theirs._indices()), err_msg=f"{what}: indices"
            )
            np.testing.assert_allclose(
                _np(ours._values()),
                _np(theirs._values()),
                rtol=1e-6,
                atol=1e-7,
                err_msg=f"{what}: values",
            )
            assert repr(ours) == repr(theirs), f"{what}: repr\n{ours!r}\n{theirs!r}"
        else:
            np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-6, atol=1e-7, err_msg=what)
            if theirs.grad_fn is not None:
                assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__, what
        return
    assert ours == theirs or str(ours) == str(theirs), f"{what}: {ours!r} != {theirs!r}"


def check(case, message=True, extra=None):
    """Run ``case`` in both libraries; same result or same exception type (and message).
    ``extra(ours, theirs)``: more comparisons of the results."""
    ours, our_err = _run(case, jtensor)
    theirs, their_err = _run(case, torch)
    if their_err is not None:
        assert our_err is not None, f"PyTorch raised {their_err!r}, jtensor returned {ours!r}"
        assert isinstance(our_err, type(their_err)), (
            f"PyTorch raised {type(their_err).__name__}, jtensor {our_err!r}"
        )
        if message:
            first = str(their_err).split("\n")[0].split(" (Triggered")[0]
            assert first.split(".")[0].lower() in str(our_err).lower(), f"{our_err} vs {their_err}"
        return
    assert our_err is None, f"jtensor raised {our_err!r}; PyTorch returned {theirs!r}"
    _compare(ours, theirs)
    if extra is not None:
        extra(ours, theirs)


I2 = [[0, 1, 1], [2, 0, 2]]
V3 = [3.0, 4.0, 5.0]
DUP_I = [[1, 0, 1], [2, 0, 2]]  # (1, 2) twice: uncoalesced
DUP_V = [1.0, 2.0, 3.0]
HYB_I = [[1, 0, 1]]
HYB_V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]

CONSTRUCTION = {
    "inferred_size": lambda L, sp: sp(L.tensor(I2), L.tensor(V3)),
    "explicit_size": lambda L, sp: sp(L.tensor(I2), L.tensor(V3), (2, 3)),
    "list_inputs": lambda L, sp: sp(I2, [3, 4, 5]),
    "dtype_kw": lambda L, sp: sp(I2, [3, 4, 5], dtype=L.float64),
    "int32_values": lambda L, sp: sp(I2, V3, (2, 3), dtype=L.int32),
    "int32_indices": lambda L, sp: sp(L.tensor(I2, dtype=L.int32), L.tensor(V3), (2, 3)),
    "hybrid": lambda L, sp: sp(L.tensor(I2), L.ones(3, 2)),
    "hybrid_1sparse": lambda L, sp: sp(HYB_I, HYB_V, (3, 2)),
    "empty": lambda L, sp: sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)),
    "empty_inferred": lambda L, sp: sp(L.zeros(2, 0, dtype=L.long), L.zeros(0)),
    "larger_size": lambda L, sp: sp(I2, V3, (5, 7)),
    "declared_coalesced": lambda L, sp: sp(I2, V3, (2, 3), is_coalesced=True),
    "single_entry_coalesced": lambda L, sp: sp([[0]], [1.0], (2,)),
    "duplicates_not_coalesced": lambda L, sp: sp([[0, 0], [0, 1]], [1.0, 2.0], (2, 3)),
    "requires_grad": lambda L, sp: sp(I2, V3, (2, 3), requires_grad=True),
    "unchecked_out_of_bounds": lambda L, sp: sp(I2, V3, (2, 2)),
    # invariant violations
    "bad_len_size": lambda L, sp: sp(L.tensor(I2), L.tensor(V3), (2,)),
    "bad_nnz": lambda L, sp: sp(L.tensor(I2), L.tensor(V3[:2]), (2, 3)),
    "bad_1d_indices": lambda L, sp: sp(L.tensor(I2)[0], L.tensor(V3), (2, 3)),
    "bad_3d_indices": lambda L, sp: sp(L.ones(2, 3, 1, dtype=L.long), L.tensor(V3), (2, 3)),
    "bad_dense_size": lambda L, sp: sp(L.tensor(I2), L.ones(3, 2), (2, 3, 4)),
    "bad_dense_len": lambda L, sp: sp(L.tensor(I2), L.ones(3, 2), (2, 3)),
    "bad_negative_inferred": lambda L, sp: sp([[0, -1, 1], [2, 0, 2]], V3),
    "bad_negative_checked": lambda L, sp: sp(
        [[0, -1, 1], [2, 0, 2]], V3, (2, 3), check_invariants=True
    ),
    "bad_out_of_bounds_checked": lambda L, sp: sp(I2, V3, (2, 2), check_invariants=True),
    "bad_scalar_values": lambda L, sp: sp(I2, L.tensor(3.0), (2, 3)),
    "bad_int_requires_grad": lambda L, sp: sp(I2, [1, 2, 3], (2, 3), requires_grad=True),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CONSTRUCTION))
def test_construction_matches_torch(name):
    check(CONSTRUCTION[name])


def _dup(L, sp):
    return sp(DUP_I, DUP_V, (2, 3))


def _dup_b(L, sp):
    return sp([[1, 0], [0, 0]], [10.0, 20.0], (2, 3))


def _hyb(L, sp):
    return sp(HYB_I, HYB_V, (3, 2))


def _t_(L, sp):
    s = _dup(L, sp)
    s.t_()
    return s


def _metadata(s):
    return (
        s.sparse_dim(),
        s.dense_dim(),
        s._nnz(),
        tuple(s.shape),
        s.size(1),
        str(s.dtype),
        s.is_sparse,
        str(s.layout),
        s.dim(),
        s.ndim,
        s.numel(),
        len(s),
        s.is_contiguous(),
        str(s.device),
    )


def _twice(s):
    return s + s


def _is_idempotent(c):
    return c.coalesce() is c


METHODS = {
    "metadata": lambda L, sp: _metadata(_dup(L, sp)),
    "hybrid_metadata": lambda L, sp: _metadata(_hyb(L, sp)),
    "to_dense_sums_duplicates": lambda L, sp: _dup(L, sp).to_dense(),
    "to_dense_hybrid": lambda L, sp: _hyb(L, sp).to_dense(),
    "to_dense_empty": lambda L, sp: sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)).to_dense(),
    "to_dense_int": lambda L, sp: sp(DUP_I, [1, 2, 3], (2, 3)).to_dense(),
    "to_dense_bool": lambda L, sp: sp(DUP_I, [True, False, True], (2, 3)).to_dense(),
    "to_dense_float16": lambda L, sp: sp(DUP_I, [1, 2, 3], (2, 3), dtype=L.float16).to_dense(),
    "to_dense_dtype_refused": lambda L, sp: _dup(L, sp).to_dense(dtype=L.float64),
    "coalesce": lambda L, sp: _dup(L, sp).coalesce(),
    "coalesce_hybrid": lambda L, sp: _hyb(L, sp).coalesce(),
    "coalesce_bool": lambda L, sp: sp(DUP_I, [True, False, True], (2, 3)).coalesce(),
    "coalesce_3d": lambda L, sp: sp(
        [[1, 0, 1, 0], [0, 2, 0, 2], [3, 1, 3, 0]], [1.0, 2.0, 3.0, 4.0], (2, 3, 4)
    ).coalesce(),
    "coalesce_empty": lambda L, sp: sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)).coalesce(),
    "coalesce_is_idempotent": lambda L, sp: _is_idempotent(_dup(L, sp).coalesce()),
    "is_coalesced": lambda L, sp: (
        _dup(L, sp).is_coalesced(),
        _dup(L, sp).coalesce().is_coalesced(),
    ),
    "indices_uncoalesced": lambda L, sp: _dup(L, sp).indices(),
    "values_uncoalesced": lambda L, sp: _dup(L, sp).values(),
    "indices_coalesced": lambda L, sp: _dup(L, sp).coalesce().indices(),
    "values_coalesced": lambda L, sp: _dup(L, sp).coalesce().values(),
    "_indices_uncoalesced": lambda L, sp: _dup(L, sp)._indices(),
    "_values_uncoalesced": lambda L, sp: _dup(L, sp)._values(),
    "t": lambda L, sp: _dup(L, sp).t(),
    "t_coalesced": lambda L, sp: _dup(L, sp).coalesce().t(),
    "t_single": lambda L, sp: sp([[1], [2]], [1.0], (2, 3)).t(),
    "t_1d": lambda L, sp: sp([[1, 0, 1]], [1.0, 2.0, 3.0], (2,)).t(),
    "t_hybrid_refused": lambda L, sp: _hyb(L, sp).t(),
    "t_3d_refused": lambda L, sp: sp([[1, 0], [2, 0], [0, 0]], [1.0, 2.0], (2, 3, 1)).t(),
    "t_": _t_,
    "transpose": lambda L, sp: _dup(L, sp).transpose(0, 1),
    "to_sparse": lambda L, sp: L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
    "to_sparse_1": lambda L, sp: L.tensor([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0]]).to_sparse(1),
    "to_sparse_3d": lambda L, sp: (L.arange(24.0).reshape(2, 3, 4) % 5 == 0).float().to_sparse(),
    "to_sparse_3d_2": lambda L, sp: (L.arange(24.0).reshape(2, 3, 4) % 7 == 0).float().to_sparse(2),
    "to_sparse_int": lambda L, sp: L.tensor([[0, 3], [0, 0]]).to_sparse(),
    "to_sparse_0d": lambda L, sp: L.tensor(3.0).to_sparse(),
    "to_sparse_all_zero": lambda L, sp: L.zeros(2, 3).to_sparse(),
    "to_sparse_coalesced": lambda L, sp: (
        L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().is_coalesced()
    ),
    "to_sparse_too_many": lambda L, sp: L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(3),
    "to_sparse_zero": lambda L, sp: L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(0),
    "to_sparse_on_sparse": lambda L, sp: _dup(L, sp).to_sparse(),
    "to_sparse_on_sparse_other_dim": lambda L, sp: _dup(L, sp).to_sparse(1),
    "dense_to_dense": lambda L, sp: L.ones(2, 3).to_dense(),
    "dense_sparse_dim": lambda L, sp: (
        L.ones(2, 3).sparse_dim(),
        L.ones(2, 3).dense_dim(),
        L.ones(2, 3).is_sparse,
        str(L.ones(2).layout),
    ),
    "roundtrip": lambda L, sp: L.tensor([[0.0, 1.5], [-2.0, 0.0]]).to_sparse().to_dense(),
    "double": lambda L, sp: _dup(L, sp).double(),
    "to_dtype": lambda L, sp: _dup(L, sp).to(L.float64),
    "clone": lambda L, sp: _dup(L, sp).clone(),
    "detach": lambda L, sp: _dup(L, sp).detach(),
    "numpy_refused": lambda L, sp: _dup(L, sp).numpy(),
    "bool_ambiguous": lambda L, sp: bool(_dup(L, sp)),
    # arithmetic
    "add_uncoalesced": lambda L, sp: _dup(L, sp) + _dup_b(L, sp),
    "add_mixed": lambda L, sp: _dup(L, sp).coalesce() + _dup_b(L, sp),
    "add_mixed_rev": lambda L, sp: _dup_b(L, sp) + _dup(L, sp).coalesce(),
    "add_coalesced": lambda L, sp: _dup_b(L, sp).coalesce() + _dup(L, sp).coalesce(),
    "add_self": lambda L, sp: _twice(_dup(L, sp)),
    "add_alpha": lambda L, sp: _dup(L, sp).add(_dup_b(L, sp), alpha=2),
    "add_alpha_coalesced": lambda L, sp: (
        _dup(L, sp).coalesce().add(_dup_b(L, sp).coalesce(), alpha=2)
    ),
    "add_promotes": lambda L, sp: sp(I2, V3, (2, 3)) + sp(I2, L.tensor(V3).double(), (2, 3)),
    "add_empty": lambda L, sp: sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)) + _dup(L, sp),
    "add_to_empty": lambda L, sp: _dup(L, sp) + sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)),
    "add_hybrid": lambda L, sp: _hyb(L, sp) + sp([[2]], [[1.0, 1.0]], (3, 2)),
    "add_size_mismatch": lambda L, sp: _dup(L, sp) + sp(I2, V3, (3, 3)),
    "sub": lambda L, sp: _dup(L, sp) - _dup_b(L, sp),
    "add_sparse_dense_refused": lambda L, sp: _dup(L, sp) + L.ones(2, 3),
    "add_dense_sparse": lambda L, sp: L.ones(2, 3) + _dup(L, sp),
    "add_dense_sparse_f64": lambda L, sp: L.ones(2, 3, dtype=L.float64) + _dup(L, sp),
    "add_dense_sparse_no_broadcast": lambda L, sp: L.ones(1, 3) + _dup(L, sp),
    "mul_scalar": lambda L, sp: _dup(L, sp) * 2.5,
    "rmul_scalar": lambda L, sp: 2 * _dup(L, sp),
    "mul_method": lambda L, sp: _dup(L, sp).mul(2),
    "mul_int_by_float": lambda L, sp: sp(I2, [1, 2, 3], (2, 3)) * 2.5,
    "mul_0d": lambda L, sp: _dup(L, sp) * L.tensor(2.0),
    "mul_coalesced": lambda L, sp: _dup(L, sp).coalesce() * 2,
    "div_scalar": lambda L, sp: _dup(L, sp) / 2,
    "neg": lambda L, sp: -_dup(L, sp),
    # reductions
    "sum_all": lambda L, sp: L.sparse.sum(_dup(L, sp)),
    "sum_method": lambda L, sp: _dup(L, sp).sum(),
    "sum_dim0": lambda L, sp: L.sparse.sum(_dup(L, sp), 0),
    "sum_dim1": lambda L, sp: L.sparse.sum(_dup(L, sp), 1),
    "sum_both": lambda L, sp: L.sparse.sum(_dup(L, sp), [0, 1]),
    "sum_empty_dims": lambda L, sp: L.sparse.sum(_dup(L, sp), ()),
    "sum_hybrid_all": lambda L, sp: L.sparse.sum(_hyb(L, sp)),
    "sum_hybrid_sparse_dim": lambda L, sp: L.sparse.sum(_hyb(L, sp), 0),
    "sum_hybrid_dense_dim": lambda L, sp: L.sparse.sum(_hyb(L, sp), 1),
    "sum_hybrid_neg_dim": lambda L, sp: L.sparse.sum(_hyb(L, sp), -1),
    "sum_dtype": lambda L, sp: L.sparse.sum(_hyb(L, sp), dtype=L.float64),
    "sum_int": lambda L, sp: L.sparse.sum(sp([[1, 0, 1]], [1, 2, 3], (3,))),
    "sum_3d_middle": lambda L, sp: L.sparse.sum(
        sp([[1, 0, 1, 0], [0, 2, 0, 2], [3, 1, 3, 0]], [1.0, 2.0, 3.0, 4.0], (2, 3, 4)), 1
    ),
    "sum_bad_dim": lambda L, sp: L.sparse.sum(_dup(L, sp), 2),
    "sum_repeated_dim": lambda L, sp: L.sparse.sum(_dup(L, sp), (0, 0)),
    "sum_dense_refused": lambda L, sp: L.sparse.sum(L.ones(2)),
    # products
    "mm": lambda L, sp: L.sparse.mm(_dup(L, sp), L.arange(6.0).reshape(3, 2)),
    "mm_coalesced": lambda L, sp: L.sparse.mm(_dup(L, sp).coalesce(), L.ones(3, 4)),
    "mm_dense_sparse": lambda L, sp: L.sparse.mm(L.arange(4.0).reshape(2, 2), _dup(L, sp)),
    "mm_dense_dense": lambda L, sp: L.sparse.mm(L.ones(2, 3), L.ones(3, 2)),
    "mm_empty": lambda L, sp: L.sparse.mm(
        sp(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)), L.ones(3, 2)
    ),
    "mm_bad_inner": lambda L, sp: L.sparse.mm(_dup(L, sp), L.ones(2, 2)),
    "mm_bad_dtype": lambda L, sp: L.sparse.mm(_dup(L, sp), L.ones(3, 2, dtype=L.float64)),
    "mm_bad_vector": lambda L, sp: L.sparse.mm(_dup(L, sp), L.ones(3)),
    "addmm": lambda L, sp: L.sparse.addmm(L.ones(2, 2), _dup(L, sp), L.ones(3, 2)),
    "addmm_beta_alpha": lambda L, sp: L.sparse.addmm(
        L.ones(2, 2), _dup(L, sp), L.ones(3, 2), beta=2, alpha=0.5
    ),
    "addmm_broadcast": lambda L, sp: L.sparse.addmm(L.ones(2), _dup(L, sp), L.ones(3, 2)),
    "addmm_beta0_ignores_nan": lambda L, sp: L.sparse.addmm(
        L.full((2, 2), float("nan")), _dup(L, sp), L.ones(3, 2), beta=0
    ),
    # the legacy constructor of the seed
    "legacy_FloatTensor": lambda L, sp: L.sparse.FloatTensor(
        L.tensor([[0, 1, 1], [2, 0, 2]]), L.tensor([3.0, 4.0, 5.0]), L.Size([2, 3])
    ).to_dense(),
    "dense_op_refused": lambda L, sp: _dup(L, sp).exp(),
    "view_refused": lambda L, sp: _dup(L, sp).view(6),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(METHODS))
def test_method_matches_torch(name):
    check(
        METHODS[name],
        message=not name.endswith("refused")
        or name in ("add_sparse_dense_refused", "to_dense_dtype_refused", "sum_dense_refused"),
    )


# ---------------------------------------------------------------------- autograd
@needs_torch
def test_sparse_mm_gradients_match_torch():
    rng = np.random.default_rng(0)
    d = rng.standard_normal((3, 4))
    g = rng.standard_normal((2, 4))
    grads = {}
    for L in (jtensor, torch):
        v = L.tensor(DUP_V, requires_grad=True)
        S = _sp(L)(L.tensor(DUP_I), v, (2, 3))
        assert S.requires_grad
        D = L.tensor(d, dtype=L.float32, requires_grad=True)
        out = L.sparse.mm(S, D)
        assert out.requires_grad
        out.backward(L.tensor(g, dtype=L.float32))
        grads[L.__name__] = (_np(out), _np(v.grad), _np(D.grad))
    for a, b in zip(grads["jtensor"], grads["torch"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@needs_torch
def test_leaf_sparse_grad_matches_torch():
    res = {}
    for L in (jtensor, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            S = _sp(L)(DUP_I, DUP_V, (2, 3), requires_grad=True)
        assert S.is_leaf and S.grad is None
        D = L.arange(6.0).reshape(3, 2)
        L.sparse.mm(S, D).sum().backward()
        res[L.__name__] = S.grad
    _compare(res["jtensor"], res["torch"])


@needs_torch
def test_to_dense_to_sparse_and_sum_gradients_match_torch():
    res = {}
    for L in (jtensor, torch):
        x = L.tensor([[0.0, 1.5], [-2.0, 0.0]], requires_grad=True)
        v = L.tensor(DUP_V, requires_grad=True)
        S = _sp(L)(DUP_I, v, (2, 3))
        y = (x.to_sparse().to_dense() * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum()
        z = (S.coalesce() * 3).to_dense() * L.arange(6.0).reshape(2, 3)
        w = L.sparse.sum(S) + L.sparse.sum(S, 1).to_dense().sum() * 2
        (y + z.sum() + w).backward()
        res[L.__name__] = (x.grad, v.grad)
    _compare(res["jtensor"], res["torch"])


@needs_torch
def test_dense_plus_sparse_gradient_matches_torch():
    res = {}
    for L in (jtensor, torch):
        x = L.ones(2, 3, requires_grad=True)
        v = L.tensor(DUP_V, requires_grad=True)
        out = x + _sp(L)(DUP_I, v, (2, 3))
        (out * L.arange(6.0).reshape(2, 3)).sum().backward()
        res[L.__name__] = (out, x.grad, v.grad)
    _compare(res["jtensor"], res["torch"])


def test_sparse_mm_gradcheck():
    from jtensor.autograd import gradcheck

    idx = jtensor.tensor([[1, 0, 1, 2], [2, 0, 2, 1]])
    v = jtensor.tensor([1.0, -2.0, 0.5, 3.0], dtype=jtensor.float64, requires_grad=True)
    d = jtensor.randn(3, 2, dtype=jtensor.float64, requires_grad=True)

    def f(values, dense):
        return jtensor.sparse.mm(J_SPARSE_COO_TENSOR(idx, values, (3, 3)), dense)

    assert gradcheck(f, (v, d))

    def g(values, dense):  # dense @ sparse goes through the same Function
        return jtensor.sparse.mm(dense.t(), J_SPARSE_COO_TENSOR(idx, values, (3, 3)))

    assert gradcheck(g, (v, d))


def test_sparse_ops_gradcheck():
    from jtensor.autograd import gradcheck

    idx = jtensor.tensor([[1, 0, 1], [2, 0, 2]])
    v = jtensor.tensor([1.0, -2.0, 0.5], dtype=jtensor.float64, requires_grad=True)

    def f(values):
        s = J_SPARSE_COO_TENSOR(idx, values, (2, 3))
        t = (s.coalesce() * 2 + s).t()
        return t.to_dense() + jtensor.sparse.sum(s, 0).to_dense().sum()

    assert gradcheck(f, (v,))


def test_sparse_mm_double_backward():
    from jtensor.autograd import gradgradcheck

    idx = jtensor.tensor([[1, 0, 1], [2, 0, 2]])
    v = jtensor.tensor([1.0, -2.0, 0.5], dtype=jtensor.float64, requires_grad=True)
    d = jtensor.randn(3, 2, dtype=jtensor.float64, requires_grad=True)
    assert gradgradcheck(
        lambda a, b: jtensor.sparse.mm(J_SPARSE_COO_TENSOR(idx, a, (2, 3)), b), (v, d)
    )


# ---------------------------------------------------------------------- jtensor-only checks
def test_jtensor_only_basics():
    sp = J_SPARSE_COO_TENSOR
    s = sp(DUP_I, DUP_V, (2, 3))
    assert isinstance(s, jtensor.Tensor) and jtensor.is_tensor(s)
    assert s.is_sparse and s.layout is _sparse.sparse_coo and repr(s.layout) == "torch.sparse_coo"
    assert not s.is_coalesced()
    with pytest.raises(RuntimeError, match="uncoalesced"):
        s.indices()
    with pytest.raises(RuntimeError, match="uncoalesced"):
        s.values()
    c = s.coalesce()
    assert c.is_coalesced()
    assert c.indices().tolist() == [[0, 1], [0, 2]]
    assert c.values().tolist() == [2.0, 4.0]  # duplicates summed
    assert s.to_dense().tolist() == [[2.0, 0.0, 0.0], [0.0, 0.0, 4.0]]
    assert (s.to_dense() == c.to_dense()).all()
    with pytest.raises(RuntimeError, match="len\\(size\\) == sparse_dim \\+ dense_dim"):
        sp(I2, V3, (2,))
    with pytest.raises(RuntimeError, match="same nnz"):
        sp(I2, V3[:2], (2, 3))
    with pytest.raises(RuntimeError, match="negative index"):
        sp([[0, -1]], [1.0, 2.0])
    with pytest.raises(RuntimeError, match="size is inconsistent"):
        sp([[0, 3]], [1.0, 2.0], (3,), check_invariants=True)
    with (
        jtensor.sparse.check_sparse_tensor_invariants(),
        pytest.raises(RuntimeError, match="size is inconsistent"),
    ):
        sp([[0, 3]], [1.0, 2.0], (3,))
    assert not jtensor.sparse.check_sparse_tensor_invariants.is_enabled()
    # Unchecked invalid indices give a clear error when used, not a wrong answer.
    with pytest.raises(RuntimeError, match="out of bounds"):
        sp([[0, 3]], [1.0, 2.0], (3,)).to_dense()
    with pytest.raises(NotImplementedError):
        s.exp()


def test_seed_examples(monkeypatch):
    monkeypatch.setattr(jtensor.sparse, "_WARNED", set())  # (PyTorch warns once a form)
    i = jtensor.tensor([[0, 1, 1], [2, 0, 2]])
    v = jtensor.tensor([3.0, 4.0, 5.0])
    with pytest.warns(UserWarning, match="deprecated"):
        s = jtensor.sparse.FloatTensor(i, v, jtensor.Size([2, 3]))
    assert s.to_dense().tolist() == [[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]]
    # The seed's invariants.
    h = J_SPARSE_COO_TENSOR([[1, 0, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2))
    assert h.sparse_dim() + h.dense_dim() == len(h.shape)
    assert tuple(h._indices().shape) == (h.sparse_dim(), h._nnz())
    assert tuple(h._values().shape) == (h._nnz(),) + tuple(h.shape[h.sparse_dim() :])
    assert h.sparse_dim() >= 1


def test_coalesce_random_against_numpy():
    rng = np.random.default_rng(1)
    for _ in range(20):
        shape = tuple(int(k) for k in rng.integers(1, 5, size=3))
        nnz = int(rng.integers(0, 30))
        idx = np.stack([rng.integers(0, s, size=nnz) for s in shape[:2]]).astype(np.int64)
        vals = rng.standard_normal((nnz, shape[2]))
        s = J_SPARSE_COO_TENSOR(jtensor.tensor(idx), jtensor.tensor(vals), shape)
        dense = np.zeros(shape)
        np.add.at(dense, (idx[0], idx[1]), vals)
        np.testing.assert_allclose(s.to_dense().numpy(), dense)
        c = s.coalesce()
        ci = c.indices().numpy()
        keys = ci[0] * shape[1] + ci[1]
        assert (np.diff(keys) > 0).all()
        np.testing.assert_allclose(c.to_dense().numpy(), dense)
        d = rng.standard_normal((shape[1], 3))
        if shape[2] == 1:
            pass
        s2 = J_SPARSE_COO_TENSOR(jtensor.tensor(idx), jtensor.tensor(vals[:, 0]), shape[:2])
        np.testing.assert_allclose(
            jtensor.sparse.mm(s2, jtensor.tensor(d)).numpy(),
            dense[..., 0] @ d,
            rtol=1e-10,
            atol=1e-12,
        )
        np.testing.assert_allclose((s + s).to_dense().numpy(), 2 * dense)
        np.testing.assert_allclose((c + s).to_dense().numpy(), 2 * dense)


MATMUL = {
    "matmul_op": lambda L, sp: _dup(L, sp) @ L.arange(6.0).reshape(3, 2),
    "rmatmul_op": lambda L, sp: L.arange(4.0).reshape(2, 2) @ _dup(L, sp),
    "mm_method": lambda L, sp: _dup(L, sp).mm(L.ones(3, 2)),
    "matmul_vector": lambda L, sp: _dup(L, sp) @ L.arange(3.0),
    "vector_matmul": lambda L, sp: L.arange(2.0) @ _dup(L, sp),
    "values_alias_not_differentiable": lambda L, sp: (
        sp(DUP_I, L.tensor(DUP_V, requires_grad=True), (2, 3))._values().requires_grad
    ),
    "values_differentiable": lambda L, sp: (
        sp(DUP_I, L.tensor(DUP_V, requires_grad=True), (2, 3)).coalesce().values().requires_grad
    ),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(MATMUL))
def test_matmul_matches_torch(name):
    check(MATMUL[name])


def _ma(L, sp):
    return sp([[0, 2], [0, 2]], [1.0, 2.0], (3, 3))


def _mb(L, sp):
    return sp([[1, 0], [1, 1]], [10.0, 20.0], (3, 3))


def _ma3(L, sp):
    return sp([[0, 2, 0], [0, 2, 0]], [1.0, 2.0, 3.0], (3, 3))


MERGE = {  # cases that tell PyTorch's two-pointer merge apart from concatenation
    "ab": lambda L, sp: _ma(L, sp) + _mb(L, sp),
    "ca_b": lambda L, sp: _ma(L, sp).coalesce() + _mb(L, sp),
    "a_cb": lambda L, sp: _ma(L, sp) + _mb(L, sp).coalesce(),
    "a3_b": lambda L, sp: _ma3(L, sp) + _mb(L, sp),
    "b_a3": lambda L, sp: _mb(L, sp) + _ma3(L, sp),
    "a3_a3": lambda L, sp: _twice(_ma3(L, sp)),
    "ca3_cb": lambda L, sp: _ma3(L, sp).coalesce() + _mb(L, sp).coalesce(),
    "out_of_bounds_unchecked": lambda L, sp: sp([[0, 5], [0, 2]], [1.0, 2.0], (3, 3)) + _mb(L, sp),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(MERGE))
def test_add_merge_order_matches_torch(name):
    check(MERGE[name])


@pytest.mark.parametrize("shape,nnz", [((40, 50), 30), ((6, 5), 40), ((300, 200), 500)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_sparse_mm_both_kernels_against_numpy(shape, nnz, dtype):
    # Few entries in a large matrix take the gather/reduceat kernel, many take the
    # scatter-to-dense + BLAS kernel: both must agree with NumPy (duplicates included).
    rng = np.random.default_rng(2)
    n, m = shape
    idx = np.stack([rng.integers(0, n, nnz), rng.integers(0, m, nnz)])
    vals = (rng.standard_normal(nnz) * 4).astype(dtype)
    d = (rng.standard_normal((m, 7)) * 4).astype(dtype)
    dense = np.zeros((n, m), dtype=dtype)
    np.add.at(dense, (idx[0], idx[1]), vals)
    s = J_SPARSE_COO_TENSOR(jtensor.tensor(idx), jtensor.tensor(vals), shape)
    for sp in (s, s.coalesce()):
        out = jtensor.sparse.mm(sp, jtensor.tensor(d))
        assert str(out.dtype) == "torch." + dtype
        np.testing.assert_allclose(out.numpy(), dense @ d, rtol=1e-5, atol=1e-4)
        out2 = jtensor.sparse.mm(jtensor.tensor(d.T), sp.t())
        np.testing.assert_allclose(out2.numpy(), (dense @ d).T, rtol=1e-5, atol=1e-4)


def test_sparse_mm_gradcheck_gather_kernel():
    from jtensor.autograd import gradcheck, gradgradcheck

    rng = np.random.default_rng(3)
    idx = jtensor.tensor(np.stack([rng.integers(0, 20, 5), rng.integers(0, 30, 5)]))
    v = jtensor.tensor(rng.standard_normal(5), requires_grad=True)
    d = jtensor.tensor(rng.standard_normal((30, 3)), requires_grad=True)

    def f(values, dense):
        return jtensor.sparse.mm(J_SPARSE_COO_TENSOR(idx, values, (20, 30)), dense)

    assert gradcheck(f, (v, d))
    assert gradgradcheck(f, (v, d))


def _grad_s(L, sp):
    return sp(DUP_I, L.tensor(DUP_V, requires_grad=True), (2, 3))


GRAD_FN_NAMES = {
    "construction": lambda L, S: S,
    "to_dense": lambda L, S: S.to_dense(),
    "coalesce": lambda L, S: S.coalesce(),
    "values": lambda L, S: S.coalesce().values(),
    "to_sparse": lambda L, S: L.tensor([[0.0, 1.0]], requires_grad=True).to_sparse(),
    "t": lambda L, S: S.t(),
    "transpose": lambda L, S: S.transpose(0, 1),
    "add": lambda L, S: S + S,
    "sub": lambda L, S: S - S,
    "neg": lambda L, S: -S,
    "mul": lambda L, S: S * 2,
    "div": lambda L, S: S / 2,
    "clone": lambda L, S: S.clone(),
    "sum_all": lambda L, S: L.sparse.sum(S),
    "sum_dim": lambda L, S: L.sparse.sum(S, 0),
    "sum_dims": lambda L, S: L.sparse.sum(S, [0, 1]),
    "sparse_mm": lambda L, S: L.sparse.mm(S, L.ones(3, 2)),
    "dense_sparse_mm": lambda L, S: L.sparse.mm(L.ones(1, 2), S),
    "addmm": lambda L, S: L.sparse.addmm(L.ones(2, 1), S, L.ones(3, 1)),
    "matmul": lambda L, S: S @ L.ones(3, 1),
    "mm_method": lambda L, S: S.mm(L.ones(3, 1)),
    "mv": lambda L, S: S @ L.ones(3),
    "rmatmul": lambda L, S: L.ones(1, 2) @ S,
    "dense_plus_sparse": lambda L, S: L.ones(2, 3) + S,
}


@needs_torch
@pytest.mark.parametrize("name", sorted(GRAD_FN_NAMES))
def test_grad_fn_names_match_torch(name):
    names = []
    for L in (jtensor, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = GRAD_FN_NAMES[name](L, _grad_s(L, _sp(L)))
        assert out.requires_grad
        names.append(type(out.grad_fn).__name__)
        assert out.is_leaf is False
    assert names[0] == names[1]


def _c(L, sp):
    return _dup(L, sp).coalesce()


INPLACE = {
    "mul_": lambda L, sp: _dup(L, sp).mul_(2),
    "mul_coalesced_clears_flag": lambda L, sp: _c(L, sp).mul_(2),
    "mul_0d": lambda L, sp: _c(L, sp).mul_(L.tensor(3.0)),
    "div_": lambda L, sp: _c(L, sp).div_(2),
    "add_": lambda L, sp: _dup(L, sp).add_(sp([[0], [1]], [7.0], (2, 3))),
    "add_coalesced": lambda L, sp: _c(L, sp).add_(sp([[0], [1]], [7.0], (2, 3)).coalesce()),
    "sub_alpha": lambda L, sp: _c(L, sp).sub_(sp([[0], [1]], [7.0], (2, 3)), alpha=2),
    "add_dense_refused": lambda L, sp: _c(L, sp).add_(L.ones(2, 3)),
    "zero_": lambda L, sp: _dup(L, sp).zero_(),
    "zero_hybrid": lambda L, sp: _hyb(L, sp).zero_(),
    "size_only": lambda L, sp: sp((2, 3)),
    "size_kw": lambda L, sp: sp(size=(2, 3), dtype=L.float64),
    "mul_0d_keeps_flag": lambda L, sp: _c(L, sp) * L.tensor(2.0),
    "rmul_0d": lambda L, sp: L.tensor(2.0) * _c(L, sp),
    "mul_0d_f64": lambda L, sp: _c(L, sp) * L.tensor(2.0, dtype=L.float64),
    "div_0d": lambda L, sp: _c(L, sp) / L.tensor(2.0),
    "neg_coalesced": lambda L, sp: -_c(L, sp),
    "clone_coalesced": lambda L, sp: _c(L, sp).clone(),
    "double_coalesced": lambda L, sp: _c(L, sp).double(),
    "detach_coalesced": lambda L, sp: _c(L, sp).detach(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_and_flags_match_torch(name):
    check(INPLACE[name])


@needs_torch
def test_hybrid_mm_refused_like_torch():
    check(lambda L, sp: L.sparse.mm(_hyb(L, sp), L.ones(2, 2)), message=False)


MASK = {
    "uncoalesced": lambda L, sp: L.arange(6.0).reshape(2, 3).sparse_mask(_dup(L, sp)),
    "coalesced": lambda L, sp: L.arange(6.0).reshape(2, 3).sparse_mask(_c(L, sp)),
    "hybrid": lambda L, sp: (
        L.arange(6.0).reshape(2, 3).sparse_mask(sp([[1, 0]], [[1.0, 2, 3], [4, 5, 6]], (2, 3)))
    ),
    "float64": lambda L, sp: L.arange(6.0).reshape(2, 3).double().sparse_mask(_dup(L, sp)),
    "empty": lambda L, sp: L.ones(2, 3).sparse_mask(sp((2, 3))),
    "bad_size": lambda L, sp: L.ones(2, 3).sparse_mask(sp([[0]], [1.0], (3,))),
    "dense_mask_refused": lambda L, sp: L.ones(2, 3).sparse_mask(L.ones(2, 3)),
    "grad": lambda L, sp: _mask_grad(L, sp),
}


def _mask_grad(L, sp):
    x = L.arange(6.0).reshape(2, 3).requires_grad_()
    r = x.sparse_mask(_dup(L, sp))
    (r.to_dense() * L.arange(6.0).reshape(2, 3)).sum().backward()
    return r, x.grad


@needs_torch
@pytest.mark.parametrize("name", sorted(MASK))
def test_sparse_mask_matches_torch(name):
    check(MASK[name], message=name != "dense_mask_refused")


def test_hybrid_gradcheck():
    from jtensor.autograd import gradcheck

    idx = jtensor.tensor([[1, 0, 1, 2]])
    v = jtensor.randn(4, 3, dtype=jtensor.float64, requires_grad=True)
    x = jtensor.randn(4, 3, dtype=jtensor.float64, requires_grad=True)

    def f(values, dense):
        s = J_SPARSE_COO_TENSOR(idx, values, (4, 3))  # hybrid: 1 sparse + 1 dense dim
        return (
            s.to_dense().sum(0)
            + jtensor.sparse.sum(s, 1).to_dense().sum()
            + jtensor.sparse.sum(s, 0)
            + dense.to_sparse(1).to_dense().sum(0)
            + dense.sparse_mask(s).to_dense().sum(0)
        )

    assert gradcheck(f, (v, x))


def test_sparse_mm_row_with_many_entries():
    # One row holding 300 entries takes the reduceat branch of the gather kernel.
    rng = np.random.default_rng(4)
    nnz = 300
    idx = np.stack(
        [np.where(np.arange(nnz) < 290, 7, rng.integers(0, 1000, nnz)), rng.integers(0, 1000, nnz)]
    )
    vals = rng.standard_normal(nnz)
    d = rng.standard_normal((1000, 5))
    dense = np.zeros((1000, 1000))
    np.add.at(dense, (idx[0], idx[1]), vals)
    s = J_SPARSE_COO_TENSOR(jtensor.tensor(idx), jtensor.tensor(vals), (1000, 1000))
    np.testing.assert_allclose(
        jtensor.sparse.mm(s, jtensor.tensor(d)).numpy(), dense @ d, rtol=1e-10, atol=1e-10
    )


LEGACY_FORMS = {
    "jtensor.sparse.DoubleTensor(i, v.double(), jtensor.Size([2, 2]))": (
        "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please "
        "use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=)."
    ),
    "jtensor.sparse.FloatTensor(2, 3)": (
        "torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
        "torch.sparse_coo_tensor(shape, dtype=, device=)."
    ),
    "jtensor.sparse.FloatTensor(i, v)": (
        "torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please use "
        "torch.sparse_coo_tensor(indices, values, dtype=, device=)."
    ),
    "jtensor.sparse.FloatTensor()": (
        "torch.sparse.SparseTensor() is deprecated.  Please use "
        "torch.sparse_coo_tensor((0,), dtype=)."
    ),
}


def test_legacy_constructors_warn_once_a_form(monkeypatch):
    # PyTorch's messages name the generic form the arguments fit, whatever the typed class,
    # once a process for each form (the second call of a form is silent).
    import warnings

    monkeypatch.setattr(jtensor.sparse, "_WARNED", set())
    operands = {
        "jtensor": jtensor,
        "i": jtensor.tensor([[0, 1], [1, 0]]),
        "v": jtensor.tensor([1.0, 2.0]),
    }
    for _ in range(2):
        for call, message in LEGACY_FORMS.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                eval(call, operands)
            texts = [str(w.message) for w in caught]
            assert texts == ([message] if _ == 0 else [])
    assert tuple(jtensor.sparse.FloatTensor(jtensor.Size([2, 3])).shape) == (2, 3)
    assert tuple(jtensor.sparse.FloatTensor().shape) == (0,)
    with pytest.raises(TypeError, match="only accepts sizes"):
        jtensor.sparse.FloatTensor((2, 3))
