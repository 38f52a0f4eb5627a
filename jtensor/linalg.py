"""``torch.linalg``: ``import jtensor as torch; torch.linalg.inv(A)``.

The implementations live in ``jtensor/_ops/linalg.py`` (registered as
``linalg_<name>``); this module gives them torch.linalg's names.
"""

from . import _C  # noqa: F401 (torch._C._LinAlgError is torch.linalg.LinAlgError)
from ._ops import linalg as _impl
from ._ops.linalg import LinAlgError

# Each public name is the registered op ``linalg_<name>`` itself (its generated entry).
cholesky = _impl.linalg_cholesky
cholesky_ex = _impl.linalg_cholesky_ex
cross = _impl.linalg_cross
det = _impl.linalg_det
eig = _impl.linalg_eig
eigh = _impl.linalg_eigh
eigvals = _impl.linalg_eigvals
eigvalsh = _impl.linalg_eigvalsh
householder_product = _impl.linalg_householder_product
inv = _impl.linalg_inv
inv_ex = _impl.linalg_inv_ex
ldl_factor = _impl.linalg_ldl_factor
ldl_factor_ex = _impl.linalg_ldl_factor_ex
ldl_solve = _impl.linalg_ldl_solve
lstsq = _impl.linalg_lstsq
lu = _impl.linalg_lu
lu_factor = _impl.linalg_lu_factor
lu_factor_ex = _impl.linalg_lu_factor_ex
lu_solve = _impl.linalg_lu_solve
matrix_exp = _impl.linalg_matrix_exp
matrix_norm = _impl.linalg_matrix_norm
matrix_power = _impl.linalg_matrix_power
matrix_rank = _impl.linalg_matrix_rank
multi_dot = _impl.linalg_multi_dot
norm = _impl.linalg_norm
pinv = _impl.linalg_pinv
qr = _impl.linalg_qr
slogdet = _impl.linalg_slogdet
solve = _impl.linalg_solve
solve_ex = _impl.linalg_solve_ex
solve_triangular = _impl.linalg_solve_triangular
svd = _impl.linalg_svd
svdvals = _impl.linalg_svdvals
vecdot = _impl.linalg_vecdot
vector_norm = _impl.linalg_vector_norm

_NAMES = (
    "cholesky",
    "cholesky_ex",
    "cross",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
)

__all__ = ["LinAlgError", *_NAMES]

# ---------------------------------------------------------------------- compositions
# PyTorch implements these as compositions of other ops (CompositeImplicitAutograd): their
# gradients, graphs and trace events are those of the ops they call, here as there.
import builtins as _builtins  # noqa: E402
import math as _math  # noqa: E402

from ._api import ops as _J  # noqa: E402
from ._dtypes import bool_ as _bool  # noqa: E402
from ._errors import TensorRuntimeError as _RuntimeError, type_name as _type_name  # noqa: E402
from ._tensor import Tensor as _Tensor  # noqa: E402


def _prod(values):
    return _math.prod(int(v) for v in values)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.diagonal(A, offset, dim1, dim2)``: a view of the diagonals of the matrices
    (the last two dims by default)."""
    return _J.diagonal(A, offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """``torch.matmul``: the matrix product with broadcasting and the 1-D cases."""
    if out is None:
        return _J.matmul(input, other)
    return _J.matmul(input, other, out=out)


def vander(x, N=None):
    """The Vandermonde matrix of ``x`` (..., n): columns ``x**0, x**1, ..., x**(N-1)``
    (``N`` defaults to n), as PyTorch builds it (ones, then a cumulative product)."""
    if not isinstance(x, _Tensor):
        raise TypeError(f"linalg_vander(): argument 'x' (position 1) must be Tensor, not "
                        f"{_type_name(x)}")
    if x.dtype is _bool:
        raise _RuntimeError("linalg.vander supports floating point, complex, and integer "
                            "tensors, but got Bool")
    n = (x.shape[-1] if x.dim() else 1) if N is None else N
    if n <= 1:
        raise _RuntimeError("N must be greater than 1.")
    if x.dim() == 0:
        raise _RuntimeError("linalg.vander: x must have at least one dimension.")
    ones = _J.ones_like(x).unsqueeze(-1)
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return _J.cat([ones, powers], -1)


def tensorinv(input, ind=2, *, out=None):
    """The tensor ``X`` with ``tensordot(A, X, ind)`` the identity: the inverse of ``A``
    seen as a matrix (the first ``ind`` dims against the rest), reshaped to
    ``A.shape[ind:] + A.shape[:ind]``."""
    A = input
    if not isinstance(ind, int) or ind <= 0:
        raise _RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise _RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}")
    inverse, info = inv_ex(A.reshape(rows, rows))
    if int(info.item()):
        raise LinAlgError(f"inv: {_impl._inv_message(int(info.item()))}")
    result = inverse.reshape(shape[ind:] + shape[:ind])
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def tensorsolve(input, other, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) == B``: ``A``'s leading ``B.ndim`` dims against
    the rest (after moving ``dims`` of ``A`` to the end) as one linear system."""
    A, B = input, other
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    result_shape = tuple(A.shape)[B.dim():]
    result_prod, other_prod = _prod(result_shape), _prod(B.shape)
    if result_prod != other_prod:
        raise _RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_prod} != {other_prod}")
    result = solve(A.reshape(other_prod, result_prod), B.reshape(-1)).reshape(result_shape)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


_COND_ORDERS = (None, "fro", "nuc", _math.inf, -_math.inf, 1, -1, 2, -2)


def cond(input, p=None, *, out=None):
    """The condition number of each matrix in norm ``p``: the ratio of extreme singular values
    for ``p`` in (None, 2, -2) (any shape), otherwise ``norm(A, p) * norm(inv(A), p)`` for
    square matrices, infinite for a singular one."""
    A = input
    if not isinstance(A, _Tensor):
        raise TypeError(f"linalg_cond(): argument 'input' (position 1) must be Tensor, not "
                        f"{_type_name(A)}")
    if isinstance(p, bool) or not _builtins.any(
            p == q and type(p) is not bool for q in _COND_ORDERS if (q is None) == (p is None)):
        raise _RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise _RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    real = A.dtype.to_real() if A.dtype.is_complex else A.dtype
    if p in (None, 2, -2):
        if A.numel() == 0:
            result = _J.zeros(tuple(A.shape[:-2]), dtype=real, device=A.device)
        else:
            s = svdvals(A)
            big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
            result = (small / big if p == -2 else big / small).squeeze(-1)
    else:
        m, n = A.shape[-2], A.shape[-1]
        if m != n:
            raise _RuntimeError(
                f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                f"{m} by {n} matrices")
        if A.numel() == 0:
            result = _J.zeros(tuple(A.shape[:-2]), dtype=real, device=A.device)
        else:
            inverse, info = inv_ex(A)
            inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), _math.inf)
            result = matrix_norm(A, p) * matrix_norm(inverse, p)
            # 0 * inf (a zero matrix) and NaN inputs count as infinitely ill-conditioned.
            result = result.nan_to_num(_math.inf, _math.inf, -_math.inf)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


__all__ += ["cond", "diagonal", "matmul", "tensorinv", "tensorsolve", "vander"]
