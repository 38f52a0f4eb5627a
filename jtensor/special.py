"""``torch.special``: ``import jtensor as torch; torch.special.erfcx(x)``.

The functions of its own are registry ops in ``jtensor/_ops/special.py`` (``special_<name>``,
as PyTorch's ``torch._C._special`` names them); the others are PyTorch's aliases of top-level
ops (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``gammainc`` is ``igamma``: the same
call, node and trace event). ``ndtr`` is PyTorch's composite ``(1 + erf(x / sqrt 2)) / 2``.
"""

from ._api import ops as _J
from ._ops.special import (
    special_airy_ai,
    special_bessel_j0,
    special_bessel_j1,
    special_bessel_y0,
    special_bessel_y1,
    special_chebyshev_polynomial_t,
    special_chebyshev_polynomial_u,
    special_chebyshev_polynomial_v,
    special_chebyshev_polynomial_w,
    special_entr,
    special_erfcx,
    special_hermite_polynomial_h,
    special_hermite_polynomial_he,
    special_i0e,
    special_i1,
    special_i1e,
    special_laguerre_polynomial_l,
    special_legendre_polynomial_p,
    special_log_ndtr,
    special_modified_bessel_i0,
    special_modified_bessel_i1,
    special_modified_bessel_k0,
    special_modified_bessel_k1,
    special_ndtri,
    special_scaled_modified_bessel_k0,
    special_scaled_modified_bessel_k1,
    special_shifted_chebyshev_polynomial_t,
    special_shifted_chebyshev_polynomial_u,
    special_shifted_chebyshev_polynomial_v,
    special_shifted_chebyshev_polynomial_w,
    special_spherical_bessel_j0,
    special_xlog1py,
    special_zeta,
)

_SQRT1_2 = 0.7071067811865476

airy_ai = special_airy_ai
bessel_j0 = special_bessel_j0
bessel_j1 = special_bessel_j1
bessel_y0 = special_bessel_y0
bessel_y1 = special_bessel_y1
chebyshev_polynomial_t = special_chebyshev_polynomial_t
chebyshev_polynomial_u = special_chebyshev_polynomial_u
chebyshev_polynomial_v = special_chebyshev_polynomial_v
chebyshev_polynomial_w = special_chebyshev_polynomial_w
entr = special_entr
erfcx = special_erfcx
hermite_polynomial_h = special_hermite_polynomial_h
hermite_polynomial_he = special_hermite_polynomial_he
i0e = special_i0e
i1 = special_i1
i1e = special_i1e
laguerre_polynomial_l = special_laguerre_polynomial_l
legendre_polynomial_p = special_legendre_polynomial_p
log_ndtr = special_log_ndtr
modified_bessel_i0 = special_modified_bessel_i0
modified_bessel_i1 = special_modified_bessel_i1
modified_bessel_k0 = special_modified_bessel_k0
modified_bessel_k1 = special_modified_bessel_k1
ndtri = special_ndtri
scaled_modified_bessel_k0 = special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = special_scaled_modified_bessel_k1
shifted_chebyshev_polynomial_t = special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = special_shifted_chebyshev_polynomial_w
spherical_bessel_j0 = special_spherical_bessel_j0
xlog1py = special_xlog1py
zeta = special_zeta

# PyTorch's aliases of top-level ops.
digamma = psi = _J.digamma
erf = _J.erf
erfc = _J.erfc
erfinv = _J.erfinv
exp2 = _J.exp2
expit = _J.sigmoid
expm1 = _J.expm1
gammainc = _J.igamma
gammaincc = _J.igammac
gammaln = _J.lgamma
i0 = _J.i0
log1p = _J.log1p
logit = _J.logit
logsumexp = _J.logsumexp
multigammaln = _J.mvlgamma
polygamma = _J.polygamma
round = _J.round  # noqa: A001 (torch.special.round)
sinc = _J.sinc
xlogy = _J.xlogy


def ndtr(input, *, out=None):
    """The standard normal CDF, ``(1 + erf(input / sqrt(2))) / 2`` (PyTorch's composite: the
    same ops and values; its node is ``MulBackward0`` where PyTorch's C++ composite records
    ``MulBackward1``)."""
    if out is None:
        return (1 + _J.erf(input * _SQRT1_2)) * 0.5
    return _J.mul(1 + _J.erf(input * _SQRT1_2), 0.5, out=out)


def softmax(input, dim, *, dtype=None):
    """``torch.special.softmax``: :func:`torch.softmax` (``dtype`` by keyword)."""
    return _J.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """``torch.special.log_softmax``: :func:`torch.log_softmax` (``dtype`` by keyword)."""
    return _J.log_softmax(input, dim, dtype=dtype)


__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]
