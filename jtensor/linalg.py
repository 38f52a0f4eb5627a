"""``torch.linalg``: ``import jtensor as torch; torch.linalg.inv(A)``.

The implementations live in ``jtensor/_ops/linalg.py`` (registered as
``linalg_<name>``); this module gives them torch.linalg's names.
"""

from ._ops.linalg import (
                                    LinAlgError,
                                    linalg_cholesky_ex,
                                    linalg_inv_ex,
                                    linalg_solve_ex,
                                    linalg_cholesky,
                                    linalg_cross,
                                    linalg_det,
                                    linalg_eigh,
                                    linalg_eigvalsh,
                                    linalg_inv,
                                    linalg_matrix_norm,
                                    linalg_matrix_power,
                                    linalg_matrix_rank,
                                    linalg_multi_dot,
                                    linalg_norm,
                                    linalg_pinv,
                                    linalg_qr,
                                    linalg_slogdet,
                                    linalg_solve,
                                    linalg_svd,
                                    linalg_svdvals,
                                    linalg_vecdot,
                                    linalg_vector_norm,
)

vector_norm = linalg_vector_norm
matrix_norm = linalg_matrix_norm
norm = linalg_norm
det = linalg_det
slogdet = linalg_slogdet
inv = linalg_inv
solve = linalg_solve
cholesky = linalg_cholesky
qr = linalg_qr
eigh = linalg_eigh
eigvalsh = linalg_eigvalsh
svd = linalg_svd
svdvals = linalg_svdvals
matrix_rank = linalg_matrix_rank
pinv = linalg_pinv
matrix_power = linalg_matrix_power
multi_dot = linalg_multi_dot
vecdot = linalg_vecdot
cross = linalg_cross
cholesky_ex = linalg_cholesky_ex
inv_ex = linalg_inv_ex
solve_ex = linalg_solve_ex

__all__ = [
                                    "LinAlgError",
                                    "cholesky_ex",
                                    "inv_ex",
                                    "solve_ex",
                                    "cholesky",
                                    "cross",
                                    "det",
                                    "eigh",
                                    "eigvalsh",
                                    "inv",
                                    "matrix_norm",
                                    "matrix_power",
                                    "matrix_rank",
                                    "multi_dot",
                                    "norm",
                                    "pinv",
                                    "qr",
                                    "slogdet",
                                    "solve",
                                    "svd",
                                    "svdvals",
                                    "vecdot",
                                    "vector_norm",
]
