"""Derivatives of ``torch.special``'s own functions and of ``igamma``/``igammac``
(``jtensor/_ops/special.py``), as PyTorch's ``derivatives.yaml`` states them: the Bessel
functions, Airy's Ai and the orthogonal polynomials have none (their results never require
grad); ``zeta`` and the incomplete gammas are differentiable in their second argument only
(the first raises PyTorch's "not implemented" error when reached).
"""

import math

from ..._api import ops as J
from ..._dtypes import finfo
from ..._errors import TensorNotImplementedError
from ..._ops.special import special_i0e, special_i1e, special_xlog1py, special_zeta
from ..._tensor import Tensor
from ._core import derivative, nondifferentiable

_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


@derivative("special_erfcx", save=("input", "result"))
def erfcx_backward(ctx, g):
    return (2.0 * ctx.input * ctx.result - _TWO_OVER_SQRT_PI) * g


@derivative("special_ndtri", save=("result",))
def ndtri_backward(ctx, g):
    return g * _SQRT_2PI * (ctx.result.square() / 2).exp()


@derivative("special_log_ndtr", save=("input", "result"))
def log_ndtr_backward(ctx, g):
    return g / _SQRT_2PI * (ctx.result + ctx.input.pow(2) / 2).neg().exp()


@derivative("special_i0e", save=("input", "result"), name="SpecialI0EBackward0")
def i0e_backward(ctx, g):
    return g * (special_i1e(ctx.input) - ctx.input.sgn() * ctx.result)


def _not_tiny(x):
    """PyTorch's guard of i1/i1e's gradient: |x| above the dtype's epsilon (below it the
    slope is its limit 1/2, and x is replaced by epsilon where the formula would divide)."""
    eps = finfo(x.dtype).eps
    away = x.abs() > eps
    return away, J.where(away, x, J.full_like(x, eps))


@derivative("special_i1", save=("input", "result"))
def i1_backward(ctx, g):
    # i1'(x) = i0(x) - i1(x) / x.
    away, safe = _not_tiny(ctx.input)
    slope = safe.i0() - ctx.result * safe.reciprocal()
    return g * J.where(away, slope, J.full_like(slope, 0.5))


@derivative("special_i1e", save=("input", "result"), name="SpecialI1EBackward0")
def i1e_backward(ctx, g):
    # (exp(-|x|) i1)' = i0e(x) - i1e(x) (sgn(x) + 1/x).
    away, safe = _not_tiny(ctx.input)
    slope = special_i0e(safe) - ctx.result * (safe.sgn() + safe.reciprocal())
    return g * J.where(away, slope, J.full_like(slope, 0.5))


@derivative("special_entr", save=("input",))
def entr_backward(ctx, g):
    return g * -(1 + ctx.input.log())


def _scalar_suffix(values, first="input", second="other"):
    """PyTorch's overload number: 0 for two tensors, 1 for a number first, 2 for second."""
    if not isinstance(values[first], Tensor):
        return 1
    if not isinstance(values[second], Tensor):
        return 2
    return 0


@derivative(
    "special_xlog1py",
    inputs=("input", "other"),
    save=("input", "other"),
    name=lambda v: f"SpecialXlog1PyBackward{_scalar_suffix(v)}",
)
def xlog1py_backward(ctx, g):
    x, y = ctx.input, ctx.other
    gx = gy = None
    if ctx.needs_input_grad[0]:
        gx = special_xlog1py(g, y)
        gx = J.where((x == 0) & (y <= -1), J.zeros_like(gx), gx)
    if ctx.needs_input_grad[1]:
        gy = g * x / (y + 1)
    return gx, gy


@derivative(
    "special_zeta",
    inputs=("input", "other"),
    save=("input", "other"),
    name=lambda v: f"SpecialZetaBackward{_scalar_suffix(v)}",
)
def zeta_backward(ctx, g):
    if ctx.needs_input_grad[0]:
        raise TensorNotImplementedError("the derivative for 'zeta' is not implemented.")
    x, q = ctx.input, ctx.other
    return None, g * -x * special_zeta(x + 1.0, q)


def _igamma_slope(a, x):
    return ((a - 1) * x.log() - x - J.lgamma(a)).exp()


@derivative("igamma", inputs=("input", "other"), save=("input", "other"))
def igamma_backward(ctx, g):
    if ctx.needs_input_grad[0]:
        raise TensorNotImplementedError("the derivative for 'igamma: input' is not implemented.")
    return None, g * _igamma_slope(ctx.input, ctx.other)


@derivative("igammac", inputs=("input", "other"), save=("input", "other"))
def igammac_backward(ctx, g):
    if ctx.needs_input_grad[0]:
        raise TensorNotImplementedError("the derivative for 'igammac: input' is not implemented.")
    return None, -g * _igamma_slope(ctx.input, ctx.other)


nondifferentiable(
    "special_bessel_j0",
    "special_bessel_j1",
    "special_bessel_y0",
    "special_bessel_y1",
    "special_modified_bessel_i0",
    "special_modified_bessel_i1",
    "special_modified_bessel_k0",
    "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1",
    "special_spherical_bessel_j0",
    "special_airy_ai",
    "special_chebyshev_polynomial_t",
    "special_chebyshev_polynomial_u",
    "special_chebyshev_polynomial_v",
    "special_chebyshev_polynomial_w",
    "special_shifted_chebyshev_polynomial_t",
    "special_shifted_chebyshev_polynomial_u",
    "special_shifted_chebyshev_polynomial_v",
    "special_shifted_chebyshev_polynomial_w",
    "special_hermite_polynomial_h",
    "special_hermite_polynomial_he",
    "special_laguerre_polynomial_l",
    "special_legendre_polynomial_p",
)
