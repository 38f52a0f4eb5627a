"""The regularised lower incomplete gamma function ``P(a, x)`` (``torch.special.gammainc``,
which jtensor's core lacks), for ``Gamma.cdf``.

Cephes' method, as ATen's: the power series of ``P`` when ``x < a + 1`` (or ``x <= 1``),
otherwise ``1 - Q`` with ``Q`` from its continued fraction. The gradient w.r.t. ``x`` is the
gamma density ``x**(a-1) exp(-x) / Gamma(a)``; PyTorch has none w.r.t. ``a`` and neither does
this (backward raises, as PyTorch's does).
"""

import math

import numpy as np

from .._api import ops as J
from .._errors import TensorRuntimeError
from ..autograd.function import Function

__all__ = ["gammainc"]

_MACHEP = 1.11022302462515654042e-16  # 2**-53
_BIG = 4.503599627370496e15
_BIGINV = 2.22044604925031308085e-16
_MAXLOG = 7.09782712893383996843e2


def _prefactor(a, x):
    """``x**a exp(-x) / Gamma(a)``, 0 when it underflows."""
    ax = a * math.log(x) - x - math.lgamma(a)
    return 0.0 if ax < -_MAXLOG else math.exp(ax)


def _lower_series(a, x):
    ax = _prefactor(a, x)
    if ax == 0.0:
        return 0.0
    r, c, total = a, 1.0, 1.0
    while True:
        r += 1.0
        c *= x / r
        total += c
        if c / total <= _MACHEP:
            return total * ax / a


def _upper_fraction(a, x):
    ax = _prefactor(a, x)
    if ax == 0.0:
        return 0.0
    y = 1.0 - a
    z = x + y + 1.0
    c = 0.0
    pkm2, qkm2 = 1.0, x
    pkm1, qkm1 = x + 1.0, z * x
    ans = pkm1 / qkm1
    while True:
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        if qk != 0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = 1.0
        pkm2, pkm1 = pkm1, pk
        qkm2, qkm1 = qkm1, qk
        if abs(pk) > _BIG:  # rescale to keep the recurrences finite
            pkm2 *= _BIGINV
            pkm1 *= _BIGINV
            qkm2 *= _BIGINV
            qkm1 *= _BIGINV
        if t <= _MACHEP:
            return ans * ax


def _gammainc_one(a, x):
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return 1.0 if x > 0 else math.nan
    if x == 0:
        return 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else 0.0
    if math.isinf(x):
        return 1.0
    if x > 1.0 and x > a:
        return 1.0 - _upper_fraction(a, x)
    return _lower_series(a, x)


class _GammaInc(Function):
    """``P(a, x)`` with the gradient w.r.t. ``x``."""

    @staticmethod
    def forward(ctx, a, x):
        a_b, x_b = J.broadcast_tensors(a, x)
        arrays = [np.array(t.detach()._host_array(), dtype=np.float64) for t in (a_b, x_b)]
        flat = [
            _gammainc_one(p, q)
            for p, q in zip(arrays[0].ravel().tolist(), arrays[1].ravel().tolist(), strict=True)
        ]
        out = np.array(flat, dtype=np.float64).reshape(arrays[0].shape).astype(x.dtype.numpy)
        ctx.save_for_backward(a, x)
        return J.as_tensor(out, dtype=x.dtype, device=x.device)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise TensorRuntimeError("derivative for aten::igamma is not implemented")
        density = J.exp((a - 1) * J.log(x) - x - J.lgamma(a))
        return None, grad * density


def gammainc(a, x):
    """The regularised lower incomplete gamma function ``P(a, x)`` element-wise (broadcast),
    differentiable w.r.t. ``x``."""
    return _GammaInc.apply(a, x)
