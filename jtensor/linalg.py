"""``torch.linalg``: ``import jtensor as torch; torch.linalg.inv(A)``.

The implementations live in ``jtensor/_ops/linalg.py`` (registered as
``linalg_<name>``); this module gives them torch.linalg's names.
"""

from ._ops import linalg as _impl
from ._ops.linalg import LinAlgError

_NAMES = (
    "cholesky", "cholesky_ex", "cross", "det", "eig", "eigh", "eigvals", "eigvalsh",
    "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex",
    "lu_solve", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
    "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals",
    "vecdot", "vector_norm",
)

# Each public name is the registered op ``linalg_<name>`` itself (its generated entry).
globals().update({name: getattr(_impl, "linalg_" + name) for name in _NAMES})

__all__ = ["LinAlgError", *_NAMES]
