"""Gradient specs of linear algebra: products, norms, determinants, inverses, solvers and
decompositions. Square-matrix ops get ``3 * I`` added so that every layout variant (an
expanded input is rank one) stays well conditioned; decompositions are checked through
quantities invariant to the signs of eigen/singular vectors."""

import math

import numpy as np

from tests.harness.gradients import G, NonDiff


def _eye(lib, n, m=None):
    return lib.eye(n, n if m is None else m, dtype=lib.float64)


def _wellposed(lib, a, c=3.0):
    """``a + c I`` (batched): far from singular."""
    return a + c * _eye(lib, a.shape[-2], a.shape[-1])


def _spd(lib, a):
    return a.matmul(a.mT) + 3.0 * _eye(lib, a.shape[-1])


def _sym(lib, a):
    return a + a.mT


def _leaf(lib, arr, grad=True):
    return lib.tensor(np.asarray(arr, dtype=np.float64), dtype=lib.float64, requires_grad=grad)


def _matmul_no_grad_a(lib, rng):
    a = _leaf(lib, rng.uniform(-2, 2, (2, 3)), grad=False)
    b = _leaf(lib, rng.uniform(-2, 2, (2, 3, 2)))
    return [a, b]


def _vector_norm_ties(lib, rng):
    return [_leaf(lib, [[1.0, -2.0, 2.0], [0.5, 0.25, -0.5]])]


def _zero_for_norm(lib, rng):
    return [_leaf(lib, [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])]


def _svd(lib, a, full=False):
    u, s, vh = lib.linalg.svd(a, full_matrices=full)
    return u * u, s, vh * vh, u.matmul(s.unsqueeze(-1) * vh)


def _eigh(lib, a, uplo="L"):
    w, v = lib.linalg.eigh(_sym(lib, a), UPLO=uplo)
    return w, v * v


# Second-order opt-outs (``no_second``): only where PyTorch's own gradgradcheck fails on
# the same case (tests/autograd/test_gradients.py checks each against PyTorch).
_NORM_TIES_2ND = (
    "ties (|x| maximal at two entries of each row): the inf-norm's gradient is split between "
    "them, and moving one by eps breaks the tie, so the gradient jumps (finite difference "
    "~1/eps); PyTorch's gradgradcheck fails on these points too")
_NORM_ZERO_2ND = (
    "a zero row: the 2-norm's gradient x / ||x|| is 0 there but a unit vector for any "
    "nonzero row, so its finite difference at the zero row is ~1/eps; PyTorch's "
    "gradgradcheck fails on this row too")


GRADS = [
    # ---------------------------------------------------------------- matmul, every rank case
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(3,), (3,)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 3), (3, 4)]),
    G("matmul", lambda lib, a, b: a @ b, [(2, 3), (3,)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(3,), (3, 2)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 2, 3), (3, 2)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 2, 3), (3,)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(3,), (2, 3, 2)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 2, 3), (2, 3, 2)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 1, 2, 2), (3, 2, 2)]),
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(2, 3), (2, 3, 2)]),  # CloneBackward0
    G("matmul", lambda lib, a, b: lib.matmul(a, b), [(1, 3), (2, 3, 2)]),  # TransposeBackward0
    G("matmul", lambda lib, a, b: lib.matmul(a, b), make=_matmul_no_grad_a),
    G("mm", lambda lib, a, b: lib.mm(a, b), [(2, 3), (3, 4)]),
    G("mm", lambda lib, a, b: lib.spmm(a, b), [(2, 3), (3, 4)]),  # torch.spmm is mm
    G("bmm", lambda lib, a, b: lib.bmm(a, b), [(2, 2, 3), (2, 3, 2)]),
    G("dot", lambda lib, a, b: lib.dot(a, b), [(4,), (4,)]),
    G("vdot", lambda lib, a, b: lib.vdot(a, b), [(4,), (4,)]),
    G("outer", lambda lib, a, b: lib.outer(a, b), [(3,), (2,)]),
    G("mv", lambda lib, a, b: lib.mv(a, b), [(2, 3), (3,)]),
    G("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), [(2, 4), (2, 3), (3, 4)]),
    G("addmm", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
      [(4,), (2, 3), (3, 4)]),
    G("addmm", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0), [(2, 2), (2, 3), (3, 2)]),
    G("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b), [(2, 2, 2), (2, 2, 3), (2, 3, 2)]),
    G("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=-1.5, alpha=0.5),
      [(2, 1), (2, 2, 3), (2, 3, 2)]),
    G("trace", lambda lib, a: lib.trace(a), [(3, 3)]),
    G("trace", lambda lib, a: a.trace(), [(2, 4)]),
    # (layouts: tests/ops/test_kron_layouts.py; PyTorch refuses an overlapping input)
    G("kron", lambda lib, a, b: lib.kron(a, b), [(2, 3), (2, 2)], variants=False),
    G("kron", lambda lib, a, b: lib.kron(a, b), [(3,), (2, 2)]),
    G("tensordot", lambda lib, a, b: lib.tensordot(a, b), [(2, 2, 3), (2, 3, 2)]),
    G("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=([1, 0], [0, 2])),
      [(3, 2), (2, 2, 3)]),
    G("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=0), [(2,), (3,)]),
    G("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=1), [(2, 3), (3, 2)]),
    # ---------------------------------------------------------------- einsum
    G("einsum", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    G("einsum", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), [(2, 2, 3), (2, 3, 2)]),
    G("einsum", lambda lib, a, b: lib.einsum("i,i->", a, b), [(3,), (3,)]),
    G("einsum", lambda lib, a, b: lib.einsum("ij,ij->ij", a, b), [(2, 3), (2, 3)]),
    G("einsum", lambda lib, a, b: lib.einsum("i,j->ij", a, b), [(2,), (3,)]),
    G("einsum", lambda lib, a, b: lib.einsum("ij,jk->i", a, b), [(2, 3), (3, 2)]),
    G("einsum", lambda lib, a, b: lib.einsum("...ij,...jk", a, b), [(2, 2, 3), (3, 2)]),
    G("einsum", lambda lib, a, b, c: lib.einsum("ij,jk,kl->il", a, b, c),
      [(2, 3), (3, 2), (2, 2)]),
    G("einsum", lambda lib, a, b: lib.einsum("ii,i->i", a, b), [(3, 3), (3,)]),
    G("einsum", lambda lib, a: lib.einsum("ii->i", a), [(3, 3)]),
    G("einsum", lambda lib, a: lib.einsum("ij->ji", a), [(2, 3)]),
    G("einsum", lambda lib, a: lib.einsum("ij->", a), [(2, 3)]),
    G("einsum", lambda lib, a: lib.einsum("iji->j", a), [(2, 3, 2)]),
    # ---------------------------------------------------------------- norms
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 1, dim=1), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, math.inf), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, -math.inf, dim=0),
      [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 3, dim=(0,),
                                                                  keepdim=True), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 1.5, dim=-1), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 0.5), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 0), [(2, 3)]),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, math.inf, dim=1),
      make=_vector_norm_ties, no_second=_NORM_TIES_2ND),
    G("linalg_vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 2, dim=1),
      make=_zero_for_norm, no_second=_NORM_ZERO_2ND),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a), [(2, 3)]),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), [(2, 3)],
      variants=False),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, 2), [(3, 2)],
      variants=False),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, -2), [(2, 2, 3)],
      variants=False),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, "nuc", dim=(0, 2),
                                                                  keepdim=True),
      [(2, 2, 3)], variants=False),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, 1), [(2, 3)]),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, -1, keepdim=True),
      [(2, 3)]),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, math.inf), [(2, 3)]),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, -math.inf, dim=(1, 0)),
      [(2, 3)]),
    G("linalg_matrix_norm", lambda lib, a: lib.linalg.matrix_norm(a, "fro", dim=(0, 2)),
      [(2, 2, 3)]),
    G("linalg_norm", lambda lib, a: lib.linalg.norm(a), [(2, 3)]),
    G("linalg_norm", lambda lib, a: lib.linalg.norm(a, dim=1), [(2, 3)]),
    G("linalg_norm", lambda lib, a: lib.linalg.norm(a, 1), [(2, 3)]),
    G("linalg_norm", lambda lib, a: lib.linalg.norm(a, "nuc"), [(3, 2)], variants=False),
    G("linalg_norm", lambda lib, a: lib.linalg.norm(a, 3, dim=0), [(2, 3)]),
    # ---------------------------------------------------------------- determinants
    G("linalg_det", lambda lib, a: lib.linalg.det(_wellposed(lib, a)), [(3, 3)]),
    G("linalg_det", lambda lib, a: lib.linalg.det(_wellposed(lib, a)), [(2, 2, 2)]),
    G("linalg_det", lambda lib, a: lib.linalg.det(a), [(3, 3)], variants=False),
    G("det", lambda lib, a: lib.det(_wellposed(lib, a)), [(3, 3)]),
    G("det", lambda lib, a: a.det(), [(2, 2)], variants=False),
    G("linalg_slogdet", lambda lib, a: tuple(lib.linalg.slogdet(_wellposed(lib, a))),
      [(3, 3)]),
    G("linalg_slogdet", lambda lib, a: lib.linalg.slogdet(a)[1], [(2, 3, 3)],
      variants=False),
    G("slogdet", lambda lib, a: tuple(lib.slogdet(_wellposed(lib, a))), [(3, 3)]),
    G("logdet", lambda lib, a: lib.logdet(_spd(lib, a)), [(3, 3)]),
    G("logdet", lambda lib, a: _spd(lib, a).logdet(), [(2, 2, 2)]),
    # ---------------------------------------------------------------- inverse, solve
    G("linalg_inv", lambda lib, a: lib.linalg.inv(_wellposed(lib, a)), [(3, 3)]),
    G("linalg_inv", lambda lib, a: lib.linalg.inv(_wellposed(lib, a)), [(2, 2, 2)]),
    G("inverse", lambda lib, a: lib.inverse(_wellposed(lib, a)), [(3, 3)]),
    G("linalg_solve", lambda lib, a, b: lib.linalg.solve(_wellposed(lib, a), b),
      [(3, 3), (3, 2)]),
    G("linalg_solve", lambda lib, a, b: lib.linalg.solve(_wellposed(lib, a), b),
      [(3, 3), (3,)]),
    G("linalg_solve", lambda lib, a, b: lib.linalg.solve(_wellposed(lib, a), b),
      [(2, 2, 2), (2, 2)]),
    G("linalg_solve", lambda lib, a, b: lib.linalg.solve(_wellposed(lib, a), b, left=False),
      [(3, 3), (2, 3)]),
    G("linalg_solve", lambda lib, a, b: lib.linalg.solve(_wellposed(lib, a), b),
      [(2, 2), (3, 2, 1)]),
    # ---------------------------------------------------------------- decompositions
    G("linalg_cholesky", lambda lib, a: lib.linalg.cholesky(_spd(lib, a)), [(3, 3)]),
    G("linalg_cholesky", lambda lib, a: lib.linalg.cholesky(_spd(lib, a), upper=True),
      [(2, 2, 2)]),
    G("linalg_qr", lambda lib, a: tuple(lib.linalg.qr(_wellposed(lib, a))), [(3, 2)]),
    G("linalg_qr", lambda lib, a: tuple(lib.linalg.qr(_wellposed(lib, a))), [(3, 3)]),
    G("linalg_qr", lambda lib, a: tuple(lib.linalg.qr(_wellposed(lib, a))), [(2, 4)]),
    G("linalg_qr", lambda lib, a: tuple(lib.linalg.qr(_wellposed(lib, a), mode="complete")),
      [(2, 3)]),
    G("linalg_qr", lambda lib, a: lib.linalg.qr(_wellposed(lib, a))[1], [(2, 3, 2)]),
    G("linalg_eigh", lambda lib, a: _eigh(lib, a), [(3, 3)], variants=False),
    G("linalg_eigh", lambda lib, a: _eigh(lib, a, "U"), [(2, 2, 2)], variants=False),
    G("linalg_eigh", lambda lib, a: _eigh(lib, a)[0], [(3, 3)]),
    G("linalg_eigvalsh", lambda lib, a: lib.linalg.eigvalsh(_sym(lib, a)), [(3, 3)]),
    G("linalg_eigvalsh", lambda lib, a: lib.linalg.eigvalsh(_sym(lib, a), UPLO="U"),
      [(2, 2, 2)], variants=False),
    G("linalg_svd", lambda lib, a: _svd(lib, a), [(3, 2)], variants=False),
    G("linalg_svd", lambda lib, a: _svd(lib, a), [(2, 3)], variants=False),
    G("linalg_svd", lambda lib, a: _svd(lib, a, full=True), [(3, 3)], variants=False),
    G("linalg_svd", lambda lib, a: lib.linalg.svd(a)[1], [(2, 3, 2)], variants=False),
    G("linalg_svd", lambda lib, a: tuple(lib.linalg.svd(a, full_matrices=False)), [(3, 3)],
      variants=False),
    G("linalg_svdvals", lambda lib, a: lib.linalg.svdvals(a), [(3, 2)], variants=False),
    G("linalg_svdvals", lambda lib, a: lib.linalg.svdvals(a), [(2, 2, 3)], variants=False),
    NonDiff("linalg_matrix_rank", "an integer count"),
    G("linalg_pinv", lambda lib, a: lib.linalg.pinv(a), [(3, 2)], variants=False),
    G("linalg_pinv", lambda lib, a: lib.linalg.pinv(a), [(2, 3)], variants=False),
    G("linalg_pinv", lambda lib, a: lib.linalg.pinv(_wellposed(lib, a)), [(3, 3)]),
    G("linalg_pinv", lambda lib, a: lib.linalg.pinv(_sym(lib, _wellposed(lib, a)),
                                                    hermitian=True), [(3, 3)]),
    # ---------------------------------------------------------------- products of many
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 3), [(3, 3)]),
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 2), [(2, 2, 2)]),
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 1), [(3, 3)]),
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 0), [(3, 3)]),
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(_wellposed(lib, a), -1),
      [(3, 3)]),
    G("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(_wellposed(lib, a), -2),
      [(2, 2)]),
    G("linalg_multi_dot", lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
      [(2, 3), (3, 2), (2, 2)]),
    G("linalg_multi_dot", lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
      [(3,), (3, 2), (2,)]),
    G("linalg_multi_dot", lambda lib, a, b: lib.linalg.multi_dot([a, b]), [(2, 3), (3,)]),
    G("linalg_vecdot", lambda lib, a, b: lib.linalg.vecdot(a, b), [(2, 3), (3,)]),
    G("linalg_vecdot", lambda lib, a, b: lib.linalg.vecdot(a, b), [(3,), (3,)]),
    G("linalg_vecdot", lambda lib, a, b: lib.linalg.vecdot(a, b, dim=0), [(3, 2), (3, 1)]),
    G("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b), [(2, 3), (2, 3)]),
    G("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    # ---------------------------------------------------------------- _ex variants
    G("linalg_inv_ex", lambda lib, a: lib.linalg.inv_ex(_wellposed(lib, a)).inverse,
      [(2, 3, 3)]),
    G("linalg_cholesky_ex", lambda lib, a: lib.linalg.cholesky_ex(_spd(lib, a)).L, [(3, 3)]),
    G("linalg_cholesky_ex", lambda lib, a: lib.linalg.cholesky_ex(_spd(lib, a), upper=True)[0],
      [(2, 2, 2)]),
    G("linalg_solve_ex", lambda lib, a, b: lib.linalg.solve_ex(_wellposed(lib, a), b)[0],
      [(3, 3), (3, 2)]),
    G("linalg_solve_ex", lambda lib, a, b: lib.linalg.solve_ex(_wellposed(lib, a), b,
                                                               left=False).result,
      [(2, 3, 3), (2, 4, 3)]),
    # ---------------------------------------------------------------- LU, triangular
    G("linalg_lu_factor_ex", lambda lib, a: lib.linalg.lu_factor_ex(_wellposed(lib, a)).LU,
      [(2, 3, 3)]),
    G("linalg_lu_factor", lambda lib, a: lib.linalg.lu_factor(_wellposed(lib, a))[0], [(3, 3)]),
    G("linalg_lu_factor", lambda lib, a: lib.linalg.lu_factor(_wellposed(lib, a))[0], [(3, 5)],
      variants=False),
    G("linalg_lu_factor", lambda lib, a: lib.linalg.lu_factor(_wellposed(lib, a))[0], [(5, 3)],
      variants=False),
    G("linalg_lu", lambda lib, a: tuple(lib.linalg.lu(_wellposed(lib, a)))[1:], [(3, 3)]),
    G("linalg_lu", lambda lib, a: tuple(lib.linalg.lu(_wellposed(lib, a)))[1:], [(3, 5)],
      variants=False),
    G("linalg_lu", lambda lib, a: lib.linalg.lu(_wellposed(lib, a)).L, [(5, 3)],
      variants=False),
    G("lu_unpack", lambda lib, a: tuple(lib.lu_unpack(a, _pivots(lib, 2, 3, 3)))[1:],
      [(3, 3)]),
    G("lu_unpack", lambda lib, a: lib.lu_unpack(a, _pivots(lib, 2, 4, 3)).L, [(4, 3)]),
    G("linalg_lu_solve", lambda lib, a, b: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(_wellposed(lib, a)), b), [(3, 3), (3, 2)]),
    G("linalg_lu_solve", lambda lib, a, b: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(_wellposed(lib, a)), b, left=False, adjoint=True),
      [(2, 3, 3), (2, 3)]),
    G("linalg_lu_solve", lambda lib, a, b: lib.linalg.lu_solve(
        _wellposed(lib, a), _pivots(lib, 1, 3, 3), b, adjoint=True), [(3, 3), (3, 1)]),
    G("lu_solve", lambda lib, a, b: lib.lu_solve(b, _wellposed(lib, a), _pivots(lib, 2, 2, 3)),
      [(3, 3), (3, 2)]),
    G("linalg_solve_triangular", lambda lib, a, b: lib.linalg.solve_triangular(
        _wellposed(lib, a), b, upper=True), [(3, 3), (3, 2)]),
    G("linalg_solve_triangular", lambda lib, a, b: lib.linalg.solve_triangular(
        _wellposed(lib, a), b, upper=False, left=False, unitriangular=True),
      [(2, 3, 3), (2, 3)]),
    G("triangular_solve", lambda lib, b, a: tuple(lib.triangular_solve(b, _wellposed(lib, a))),
      [(3, 2), (3, 3)]),
    G("triangular_solve", lambda lib, b, a: lib.triangular_solve(
        b, _wellposed(lib, a), upper=False, transpose=True)[0], [(3, 2), (3, 3)]),
    G("cholesky", lambda lib, a: lib.cholesky(_spd(lib, a)), [(3, 3)]),
    G("cholesky_solve", lambda lib, b, a: lib.cholesky_solve(b, _wellposed(lib, a).tril()),
      [(3, 2), (3, 3)]),
    G("cholesky_solve", lambda lib, b, a: lib.cholesky_solve(b, _wellposed(lib, a).triu(),
                                                             upper=True), [(3, 2), (2, 3, 3)]),
    G("cholesky_inverse", lambda lib, a: lib.cholesky_inverse(_wellposed(lib, a).tril()),
      [(3, 3)]),
    G("cholesky_inverse", lambda lib, a: lib.cholesky_inverse(_wellposed(lib, a).triu(), True),
      [(2, 3, 3)]),
    # ---------------------------------------------------------------- exp, eig, lstsq
    G("linalg_matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), [(3, 3)]),
    G("linalg_matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), [(2, 2, 2)]),
    G("matrix_exp", lambda lib, a: lib.matrix_exp(a), [(3, 3)]),
    G("linalg_eigvals", lambda lib, a: lib.linalg.eigvals(a).abs(), [(3, 3)], variants=False),
    G("linalg_eig", lambda lib, a: _eig(lib, a), [(3, 3)], variants=False),
    G("linalg_lstsq", lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    G("linalg_lstsq", lambda lib, a, b: tuple(lib.linalg.lstsq(a, b, driver="gelsd"))[:2],
      [(2, 4, 3), (2, 4, 2)], variants=False),
    G("linalg_lstsq", lambda lib, a, b: lib.linalg.lstsq(a, b).solution, [(2, 3), (2,)],
      variants=False),
    G("linalg_householder_product", lambda lib, a, t: lib.linalg.householder_product(a, t),
      [(4, 3), (2,)]),
    G("linalg_householder_product", lambda lib, a, t: lib.linalg.householder_product(a, t),
      [(2, 3, 3), (2, 3)]),
    G("orgqr", lambda lib, a, t: lib.orgqr(a, t), [(3, 2), (2,)]),
    # ---------------------------------------------------------------- top-level aliases
    G("svd", lambda lib, a: _svd_top(lib, a), [(3, 2)], variants=False),
    G("svd", lambda lib, a: lib.svd(a, compute_uv=False)[1], [(2, 3)], variants=False),
    G("qr", lambda lib, a: tuple(lib.qr(_wellposed(lib, a))), [(3, 2)]),
    G("pinverse", lambda lib, a: lib.pinverse(_wellposed(lib, a)), [(3, 3)]),
    G("matrix_power", lambda lib, a: lib.matrix_power(a, 3), [(3, 3)]),
    G("lu", lambda lib, a: lib.lu(_wellposed(lib, a))[0], [(3, 3)]),
    G("ormqr", lambda lib, a, t, c: lib.ormqr(a, t, c), [(3, 2), (2,), (3, 2)]),
    G("ormqr", lambda lib, a, t, c: lib.ormqr(a, t, c, left=False, transpose=True),
      [(3, 3), (3,), (2, 3)]),
    G("frobenius_norm", lambda lib, a: lib.frobenius_norm(a, (0, 1)), [(3, 2)]),
    G("nuclear_norm", lambda lib, a: lib.nuclear_norm(a), [(3, 2)], variants=False),
    NonDiff("geqrf", "PyTorch's derivative raises 'not implemented'"),
    NonDiff("eig", "removed in PyTorch 1.9: always raises"),
    NonDiff("symeig", "removed in PyTorch 1.9: always raises"),
    NonDiff("solve", "removed in PyTorch 1.9: always raises"),
    NonDiff("lstsq", "removed in PyTorch 1.9: always raises"),
    NonDiff("matrix_rank", "removed in PyTorch 1.9: always raises"),
    NonDiff("linalg_ldl_factor", "PyTorch has no derivative for the LDL factorization"),
    NonDiff("linalg_ldl_factor_ex", "PyTorch has no derivative for the LDL factorization"),
    NonDiff("linalg_ldl_solve", "PyTorch has no derivative for ldl_solve"),
]


def _pivots(lib, *values):
    return lib.tensor(values, dtype=lib.int32)


def _eig(lib, a):
    """Eigenvalues and quantities invariant to each eigenvector's phase."""
    w, v = lib.linalg.eig(a)
    return w, (v * v.conj()).real


def _svd_top(lib, a):
    u, s, v = lib.svd(a)
    return u * u, s, v * v
