"""Derivatives of the unary (element-wise, one tensor) family: exp/log, trigonometric and
hyperbolic functions, rounding, clamping, complex parts, special functions.

The formulas follow PyTorch's ``derivatives.yaml`` (and ``FunctionsManual.cpp``) so that
values, subgradient conventions (``abs`` and ``relu`` at 0 give 0, clamp boundaries pass the
gradient) and node names agree. Complex inputs get PyTorch's conjugate Wirtinger convention:
``grad * f'(x).conj()``.
"""

import cmath
import math

from ... import _dtypes
from ..._api import ops as J
from ..._errors import TensorNotImplementedError, TensorRuntimeError
from ..._tensor import Tensor
from . import _fast
from . import _backward_ops
from ._core import conj as _c
from ._core import derivative
from ..._ops.unary import clamp_bounds
from ..._registry import OPS

_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940456
_PI_180 = 0.017453292519943295  # M_PI_180 in PyTorch
_180_PI = 57.295779513082320876798154814105  # M_180_PI
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _zeros(g):
    return J.zeros_like(g)


def _where_zero(mask, g):
    """``g`` where ``mask`` holds, 0 elsewhere (PyTorch's ``where(mask, grad, 0)``)."""
    return J.where(mask, g, J.zeros((), dtype=g.dtype, device=g.device))


# ----------------------------------------------------------------------------- sign, abs

@derivative("neg")
def neg_backward(ctx, g):
    return g.neg()


@derivative("positive", name="AliasBackward0")
def positive_backward(ctx, g):
    return g


@derivative("abs", save=("input",))
def abs_backward(ctx, g):
    return g * ctx.input.sgn()


@derivative(("sign", "floor", "ceil", "trunc"))
def zero_backward(ctx, g):
    return _zeros(g)


@derivative("round", name=("decimals", "RoundBackward0", "RoundBackward1"))
def round_backward(ctx, g):
    return _zeros(g)


@derivative("frac")
def frac_backward(ctx, g):
    return g


@derivative("sgn", save=("input", "result"))
def sgn_backward(ctx, g):
    x = ctx.input
    if not x.is_complex():
        return _zeros(g)
    s = ctx.result
    a = x.abs()
    out = (g - (s * s) * g.conj()) / (2.0 * a)
    return out.masked_fill(a == 0.0, 0.0)


@derivative("square", save=("input",), name="PowBackward0")
def square_backward(ctx, g):
    return g * _c(ctx.input * 2.0)


# ----------------------------------------------------------------------------- exp, log

@derivative("exp", save=("result",))
def exp_backward(ctx, g):
    return g * _c(ctx.result)


@derivative("exp2", save=("result",))
def exp2_backward(ctx, g):
    return g * _c(ctx.result) * _LN2


@derivative("expm1", save=("result",))
def expm1_backward(ctx, g):
    return g * (_c(ctx.result) + 1)


@derivative("log", save=("input",))
def log_backward(ctx, g):
    return g.div(_c(ctx.input))


@derivative("log2", save=("input",))
def log2_backward(ctx, g):
    return g / (_c(ctx.input) * _LN2)


@derivative("log10", save=("input",))
def log10_backward(ctx, g):
    return g / (_c(ctx.input) * _LN10)


@derivative("log1p", save=("input",), name="Log1PBackward0")
def log1p_backward(ctx, g):
    return g / _c(ctx.input + 1)


@derivative("sqrt", save=("result",))
def sqrt_backward(ctx, g):
    return g / (2 * _c(ctx.result))


@derivative("rsqrt", save=("result",))
def rsqrt_backward(ctx, g):
    return -0.5 * g * _c(ctx.result.pow(3))


@derivative("reciprocal", save=("result",))
def reciprocal_backward(ctx, g):
    y = ctx.result
    return -g * _c(y * y)


# ----------------------------------------------------------------------------- trigonometric

@derivative("sin", save=("input",))
def sin_backward(ctx, g):
    return g * _c(ctx.input.cos())


@derivative("cos", save=("input",))
def cos_backward(ctx, g):
    return g * -_c(ctx.input.sin())


@derivative("tan", save=("result",))
def tan_backward(ctx, g):
    return g * _c(1 + ctx.result.pow(2))


@derivative("asin", save=("input",))
def asin_backward(ctx, g):
    x = ctx.input
    return g * _c((-x * x + 1).rsqrt())


@derivative("acos", save=("input",))
def acos_backward(ctx, g):
    x = ctx.input
    return g * -_c((-x * x + 1).rsqrt())


@derivative("atan", save=("input",))
def atan_backward(ctx, g):
    x = ctx.input
    return g / _c(x * x + 1)


@derivative("sinh", save=("input",))
def sinh_backward(ctx, g):
    return g * _c(ctx.input.cosh())


@derivative("cosh", save=("input",))
def cosh_backward(ctx, g):
    return g * _c(ctx.input.sinh())


@derivative("tanh", save=("result",))
def tanh_backward(ctx, g):
    # (its own op, recorded too; a plain pass reads the saved output's values only)
    return _backward_ops.tanh_backward(g, _fast.saved(ctx, "result"))


def asinh_backward(ctx, g):
    return g * _c((ctx.input.pow(2) + 1).rsqrt())


def acosh_backward(ctx, g):
    x = ctx.input
    if x.is_complex():
        return g * ((x + 1).rsqrt() * (x - 1).rsqrt()).conj()
    return g * (x.pow(2) - 1).rsqrt()


def atanh_backward(ctx, g):
    return g / _c(1 - ctx.input.pow(2))


def _no_inplace_derivative(name):
    def backward(ctx, g):
        raise TensorNotImplementedError(
            f"the derivative for 'inplace version of {name}' is not implemented.")

    return backward


# PyTorch records the in-place inverse hyperbolic functions as ``...Backward1`` nodes whose
# backward is not implemented (derivatives.yaml: ``not_implemented("inplace version of")``).
for _name, _fn in (("asinh", asinh_backward), ("acosh", acosh_backward),
                   ("atanh", atanh_backward)):
    derivative(_name, save=("input",))(_fn)
    derivative(_name + "_", name=_name.capitalize() + "Backward1")(
        _no_inplace_derivative(_name))


@derivative("deg2rad", name="Deg2RadBackward0")
def deg2rad_backward(ctx, g):
    return g * _PI_180


@derivative("rad2deg", name="Rad2DegBackward0")
def rad2deg_backward(ctx, g):
    return g * _180_PI


# ----------------------------------------------------------------------------- complex parts

@derivative("angle", save=("input",))
def angle_backward(ctx, g):
    x = ctx.input
    if not x.is_complex():
        return _zeros(x)
    out = g * x / x.abs().pow(2) * 1j
    return J.where(x == 0.0, J.zeros((), dtype=out.dtype, device=out.device), out)


def _complex_part_name(values):
    x = values.get("input")
    return "SelectBackward0" if isinstance(x, Tensor) and x.is_complex() else "AliasBackward0"


@derivative("real", name=_complex_part_name)
def real_backward(ctx, g):
    # The engine casts the real gradient to the input's complex dtype (imaginary part 0).
    return g


@derivative("imag", name=_complex_part_name)
def imag_backward(ctx, g):
    return g * 1j


@derivative("conj", name=lambda v: "ConjBackward0" if v["input"].is_complex()
            else "AliasBackward0")
def conj_backward(ctx, g):
    return _c(g)


@derivative("conj_physical", name=lambda v: "ConjPhysicalBackward0"
            if v["input"].is_complex() else "AliasBackward0")
def conj_physical_backward(ctx, g):
    return g.conj_physical() if g.is_complex() else g


@derivative("conj_physical_", name="ConjPhysicalBackward1")
def conj_physical_inplace_backward(ctx, g):
    return g.conj_physical() if g.is_complex() else g


# ----------------------------------------------------------------------------- erf, relu...

@derivative("erf", save=("input",))
def erf_backward(ctx, g):
    x = ctx.input
    return _TWO_OVER_SQRT_PI * (-(x.pow(2))).exp() * g


@derivative("erfc", save=("input",))
def erfc_backward(ctx, g):
    x = ctx.input
    return -_TWO_OVER_SQRT_PI * (-(x.pow(2))).exp() * g


@derivative("erfinv", save=("input",))
def erfinv_backward(ctx, g):
    return _HALF_SQRT_PI * ctx.input.erfinv().pow(2).exp() * g


@derivative("relu", save=("result",))
def relu_backward(ctx, g):
    # threshold_backward(grad, result, 0): 0 where result <= 0 (NaN passes the gradient).
    if _fast.plain():
        fast = _fast.threshold_grad(g, _fast.saved(ctx, "result"))
        if fast is not None:
            return fast
    return J.where(ctx.result <= 0, J.zeros((), dtype=g.dtype, device=g.device), g)


@derivative("logit", save=("input",))
def logit_backward(ctx, g):
    x = ctx.input
    eps = ctx.eps
    value = g / (x * (1 - x))
    if eps is None:
        outside = (x < 0).logical_or(x > 1)
        fill = J.full((), float("nan"), dtype=value.dtype, device=value.device)
    else:
        outside = (x < eps).logical_or(x > 1 - eps)
        fill = J.zeros((), dtype=value.dtype, device=value.device)
    return J.where(outside, fill, value)


@derivative("nan_to_num", save=("input",))
def nan_to_num_backward(ctx, g):
    return g * ctx.input.isfinite()


@derivative("sinc", save=("input",))
def sinc_backward(ctx, g):
    x = ctx.input
    x_pi = x * math.pi
    x2_pi = x * x * math.pi
    out = g * ((x_pi * x_pi.cos()) - x_pi.sin()) / _c(x2_pi)
    return J.where(x2_pi == 0.0, J.zeros((), dtype=out.dtype, device=out.device), out)


# ----------------------------------------------------------------------------- clamp

def _is_tensor(v):
    return isinstance(v, Tensor)


def _tensor_bound(v):
    """Whether a bound of a clamp call is a tensor: ClampBackward0, whose absent bound keeps
    a ``(None, 0)`` edge; else ClampBackward1 (the Scalar overload), whose absent bound, as
    a number, has no edge."""
    return _is_tensor(v.get("min")) or _is_tensor(v.get("max"))


@derivative("clamp", inputs=("input", "min", "max"), save=("input", "min", "max"),
            name=lambda v: "ClampBackward0" if _tensor_bound(v) else "ClampBackward1",
            no_edge_if_absent=lambda v: () if _tensor_bound(v) else ("min", "max"))
def clamp_backward(ctx, g):
    x, lo, hi = ctx.input, ctx.min, ctx.max
    need_x, need_lo, need_hi = ctx.needs_input_grad
    gx = glo = ghi = None
    if lo is not None and hi is not None:
        if need_x:
            gx = _where_zero((x >= lo).logical_and(x <= hi), g)
        if need_lo:
            glo = _where_zero((x < lo).logical_and(lo < hi), g)
        if need_hi:
            ghi = _where_zero((x > hi).logical_or(hi < lo), g)
    elif lo is not None:
        if need_x:
            gx = _where_zero(x >= lo, g)
        if need_lo:
            glo = _where_zero(x < lo, g)
    elif hi is not None:
        if need_x:
            gx = _where_zero(x <= hi, g)
        if need_hi:
            ghi = _where_zero(x > hi, g)
    else:
        gx = g
    return gx, glo, ghi


def _clamp_scalar_bounds(args):
    """A recorded clamp's arguments with a 0-d bound beside a number taken as a number, as
    the op takes them (``clamp_bounds``): the node is the Number overload's."""
    if len(args) < 3:
        return args
    return (args[0], *clamp_bounds("clamp", *args[:3]), *args[3:])


OPS["clamp"].backward.prepare = _clamp_scalar_bounds


@derivative("clamp_min", inputs=("input", "min"), save=("input", "min"),
            name=lambda v: "ClampMinBackward1" if _is_tensor(v.get("min"))
            else "ClampMinBackward0")
def clamp_min_backward(ctx, g):
    x, lo = ctx.input, ctx.min
    need_x, need_lo = ctx.needs_input_grad
    return (_where_zero(x >= lo, g) if need_x else None,
            _where_zero(x < lo, g) if need_lo else None)


@derivative("clamp_max", inputs=("input", "max"), save=("input", "max"),
            name=lambda v: "ClampMaxBackward1" if _is_tensor(v.get("max"))
            else "ClampMaxBackward0")
def clamp_max_backward(ctx, g):
    x, hi = ctx.input, ctx.max
    need_x, need_hi = ctx.needs_input_grad
    return (_where_zero(x <= hi, g) if need_x else None,
            _where_zero(x > hi, g) if need_hi else None)


# ----------------------------------------------------------------------------- special functions

@derivative("lgamma", save=("input",))
def lgamma_backward(ctx, g):
    return g * ctx.input.digamma()


@derivative("digamma", save=("input",))
def digamma_backward(ctx, g):
    return g * J.polygamma(1, ctx.input)


def polygamma_backward(ctx, g):
    return g * J.polygamma(ctx.n + 1, ctx.input)


derivative("polygamma", save=("input",))(polygamma_backward)
derivative("polygamma_", save=("input",), name="PolygammaBackward1")(polygamma_backward)


@derivative("mvlgamma", save=("input",))
def mvlgamma_backward(ctx, g):
    x = ctx.input
    p = ctx.p
    args = J.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device)
    args = args + x.unsqueeze(-1)
    return g * args.digamma().sum(-1)


def _i1(x):
    """The modified Bessel function I1 from public ops (so it has derivatives itself).

    ``I1(x) = (1/pi) * integral_0^pi exp(x cos t) cos t dt``; the trapezoidal rule is exact
    to rounding for this periodic analytic integrand once the number of nodes ``n`` exceeds
    about ``sqrt(80 |x|)`` (the aliased terms are ``I_n(x) / I_1(x)``). Pairing the nodes
    ``t`` and ``pi - t`` gives ``(1/n) sum_k w_k 2 cos(t_k) sinh(x cos(t_k))`` over
    ``t_k < pi/2``: exactly odd, exactly 0 at 0, and no cancellation for small ``x``.
    Infinite inputs give NaN, as PyTorch's ``special_i1``.
    """
    big = float(x.detach().abs().nan_to_num(0.0, 0.0, 0.0).max()) if x.numel() else 0.0
    n = 2 * (16 + math.ceil(math.sqrt(20.0 * min(big, 1000.0))))
    half = n // 2
    nodes = (J.arange(half, dtype=_dtypes.float64, device=x.device) * (math.pi / n)).cos()
    weights = J.ones(half, dtype=_dtypes.float64, device=x.device) * 2.0
    weights[0] = 1.0
    nodes = nodes.to(x.dtype)
    weights = (weights * nodes / n).to(x.dtype)
    out = ((x.unsqueeze(-1) * nodes).sinh() * weights).sum(-1)
    return J.where(x.isinf(), J.full((), float("nan"), dtype=out.dtype, device=out.device),
                   out)


@derivative("i0", save=("input",), name="I0Backward0")
def i0_backward(ctx, g):
    return g * _i1(ctx.input)


@derivative("frexp", save=("result",), multi_grad=True, nondiff_outputs=(1,))
def frexp_backward(ctx, g_mantissa, g_exponent=None):
    if g_mantissa is None:
        return None
    exponent = ctx.result[1]
    return g_mantissa / exponent.exp2()


# ----------------------------------------------------------------------------- binary oddities

@derivative("heaviside", inputs=("input", "values"), name="NotImplemented")
def heaviside_backward(ctx, g):
    raise TensorRuntimeError("derivative for aten::heaviside is not implemented")


@derivative("nextafter", inputs=("input", "other"), save=("input", "other"))
def nextafter_backward(ctx, g):
    # PyTorch: the gradient passes to ``input`` except where input == other (the result is
    # ``other`` itself there); ``other`` gets zeros.
    need_x, need_o = ctx.needs_input_grad
    gx = go = None
    if need_x:
        gx = J.where(ctx.input == ctx.other, J.zeros((), dtype=g.dtype, device=g.device), g)
    if need_o:
        go = _zeros(g)
    return gx, go


def _float_power_name(values):
    if not _is_tensor(values.get("input")):
        return "PowBackward2"
    if _is_tensor(values.get("exponent")):
        return "PowBackward1"
    return "PowBackward0"


def _log_scalar(b):
    """``log`` of a Python number as PyTorch's ``std::log``: -inf at 0, NaN below 0."""
    if isinstance(b, complex):
        return cmath.log(b) if b != 0 else complex(float("-inf"), 0.0)
    return math.log(b) if b > 0 else (float("nan") if b < 0 else float("-inf"))


@derivative(("float_power", "float_power_"), inputs=("input", "exponent"),
            save=("input", "exponent", "result"), name=_float_power_name,
            save_by_node={"PowBackward0": ("input",), "PowBackward2": ("exponent", "result")})
def float_power_backward(ctx, g):
    # float_power is pow computed in float64 (complex128): PyTorch's pow_backward* formulas
    # on the promoted operands (its nodes save what pow's do: ``x ** 2`` self only).
    need_x, need_e = ctx.needs_input_grad
    x, e = ctx.input, ctx.exponent
    complex_result = any(v.is_complex() if _is_tensor(v) else isinstance(v, complex)
                         for v in (x, e))
    dtype = _dtypes.complex128 if complex_result else _dtypes.float64
    if _is_tensor(x) and x.dtype is not dtype:
        x = x.to(dtype)
    if _is_tensor(e) and e.dtype is not dtype:
        e = e.to(dtype)
    zero = J.zeros((), dtype=g.dtype, device=g.device)
    gx = ge = None
    if _is_tensor(x) and not _is_tensor(e):
        # PowBackward0: a scalar exponent.
        if need_x:
            gx = _zeros(g) if e == 0 else g * _c(e * x.pow(e - 1))
        return gx, None
    if _is_tensor(x):
        # PowBackward1: both tensors.
        if need_x:
            gx = J.where(e == 0.0, zero, g * _c(e * x.pow(e - 1)))
        if need_e:
            if e.is_complex():
                real_exp = (e.imag == 0).logical_and(e.real >= 0)
            else:
                real_exp = e >= 0
            cond = (x == 0).logical_and(real_exp)
            ge = g * J.where(cond, zero, _c(ctx.result * x.log()))
        return gx, ge
    # PowBackward2: a scalar base.
    if need_e:
        base = complex(x) if e.is_complex() and not isinstance(x, complex) else x
        term = _c(ctx.result * _log_scalar(base))
        if base == 0:
            # 0 ** e: no gradient where e is real and >= 0 (log(0) = -inf elsewhere).
            real_exp = ((e.imag == 0).logical_and(e.real >= 0) if e.is_complex()
                        else e >= 0)
            term = J.where(real_exp, zero, term)
        ge = g * term
    return None, ge
