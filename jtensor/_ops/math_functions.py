"""Element-wise math functions: logaddexp, logaddexp2, heaviside, gcd, lcm, nextafter, ldexp,
float_power, frexp, sinc, and the special functions lgamma, digamma, polygamma, mvlgamma, i0.

Binary ops are defined through ``arithmetic.binary_op`` and unary ones through
``unary.unary_op``, so each call goes through the shared element-wise runner and reaches
``_dispatch.finish`` once. The special functions are computed with the backend array module
only (no scipy, no per-element ``math``), following the algorithms PyTorch's CPU kernels use
(Cephes) where it matters for poles, infinities and nan: lgamma by a Lanczos approximation with
the reflection formula, digamma by recurrence plus the asymptotic series, i0 by its power
series and its asymptotic expansion. Float32 and lower precisions are computed in float64 and
rounded, which keeps them within a rounding of PyTorch's values.
"""

import math
from fractions import Fraction

import numpy as np

from .. import _dtypes, return_types
from .._elementwise import FLOAT, INTEGRAL_ONLY, PROMOTE, _write_out, result_dtype
from .._errors import TensorRuntimeError, TensorTypeError, type_name
from .._layout import elementwise_output_strides
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from .arithmetic import (as_operand, binary_op, pow_scalar_exponent, pow_tensor_exponent,
                         refuse_dtypes)
from .unary import _check_tensor, _not_implemented, _run, _supports, unary_op

# ------------------------------------------------------------------------ helpers

def _in_float64(kernel):
    """Run a real kernel in float64 (float32/float16 inputs) and return the input's dtype."""
    def compute(xp, a):
        if a.dtype.kind == "f" and a.dtype.itemsize < 8:
            return kernel(xp, a.astype("float64")).astype(a.dtype)
        return kernel(xp, a)

    return compute


# ------------------------------------------------------------------------ binary ops

def _logaddexp(xp, a, b):
    if a.dtype.kind == "c":
        # PyTorch's complex logaddexp: m + log1p(exp(min - max)) with max by real part.
        swap = a.real < b.real
        hi = xp.where(swap, b, a)
        lo = xp.where(swap, a, b)
        return hi + xp.log1p(xp.exp(lo - hi))
    return xp.logaddexp(a, b)


logaddexp, _ = binary_op(
    "logaddexp", _logaddexp, tensor_other=True, inplace=False,
    check=refuse_dtypes("logaddexp_cpu", bool_=True, integral=True))
logaddexp2, _ = binary_op(
    "logaddexp2", "logaddexp2", tensor_other=True, inplace=False,
    check=refuse_dtypes("logaddexp2_cpu", bool_=True, integral=True, complex_=True))


def _check_heaviside(input, values):
    if input._dtype.category == _dtypes.COMPLEX or values._dtype.category == _dtypes.COMPLEX:
        raise TensorRuntimeError("heaviside is not yet implemented for complex tensors.")
    if input._dtype is not values._dtype:
        raise TensorRuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes: got "
            f"{input._dtype._torch_name} and {values._dtype._torch_name}; convert one of them.")


def _heaviside(xp, a, b):
    # 0 -> values; nan is not > 0, so it gives 0 as in PyTorch.
    return xp.where(a == 0, b, (a > 0).astype(a.dtype))


def _heaviside_args(name, input, values, out=None):
    input = as_operand(name, input, "input", 1, tensor_only=True)
    values = as_operand(name, values, "values", 2, tensor_only=True)
    _check_heaviside(input, values)
    if out is not None and isinstance(out, Tensor) and out._dtype is not input._dtype:
        raise TensorRuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes: out has "
            f"{out._dtype._torch_name}, input {input._dtype._torch_name}.")
    return input, values


@register("elementwise")
def heaviside(input, values, *, out=None):
    """``torch.heaviside``: 0 below zero, 1 above, ``values`` at zero (same dtypes only)."""
    input, values = _heaviside_args("heaviside", input, values, out)
    return _run(heaviside.op, _heaviside, (input, values), out=out, rule=PROMOTE)


@register("inplace", function=False)
def heaviside_(self, values):
    """In-place :func:`heaviside`."""
    self, values = _heaviside_args("heaviside_", self, values)
    return _run(heaviside_.op, _heaviside, (self, values), inplace=self, rule=PROMOTE)

gcd, gcd_ = binary_op("gcd", "gcd", INTEGRAL_ONLY, tensor_other=True,
                      check=refuse_dtypes("gcd_cpu", bool_=True, floating=True, complex_=True))


def _lcm(xp, a, b):
    # PyTorch computes |a / g * b| in C++ int (at least 32 bits), then narrows: int8 wraps.
    narrow = a.dtype
    if a.dtype.itemsize < 8:
        a, b = a.astype("int64"), b.astype("int64")
    g = xp.gcd(a, b)
    safe = xp.where(g == 0, xp.ones_like(g), g)
    return xp.where(g == 0, xp.zeros_like(g), xp.abs((a // safe) * b)).astype(narrow)


lcm, lcm_ = binary_op("lcm", _lcm, INTEGRAL_ONLY, tensor_other=True,
                      check=refuse_dtypes("lcm_cpu", bool_=True, floating=True, complex_=True))


def _ldexp(xp, a, b):
    return a * xp.power(xp.asarray(2.0, dtype=b.dtype if b.dtype.kind in "fc" else a.dtype), b)


ldexp, ldexp_ = binary_op("ldexp", _ldexp, FLOAT, tensor_other=True)


# nextafter rounds to the neighbour in the result dtype itself, so float16/bfloat16 cannot go
# through the runner's float32 computation: the kernel is picked per call.
def _nextafter_compute(dtype):
    if dtype in (_dtypes.float16, _dtypes.bfloat16):
        low = dtype.numpy

        def compute(xp, a, b):
            return xp.nextafter(a.astype(low), b.astype(low)).astype(a.dtype)

        return compute
    return "nextafter"


_nextafter_check = refuse_dtypes("nextafter_cpu", bool_=True, integral=True, complex_=True)


@register("elementwise")
def nextafter(input, other, *, out=None):
    """``torch.nextafter``: the next representable value after ``input`` towards ``other``,
    in the promoted floating dtype (both arguments tensors)."""
    input = as_operand("nextafter", input, "input", 1, tensor_only=True)
    other = as_operand("nextafter", other, "other", 2, tensor_only=True)
    _nextafter_check(input, other)
    compute = _nextafter_compute(result_dtype((input, other)))
    return _run(nextafter.op, compute, (input, other), out=out, rule=PROMOTE)


@register("inplace", function=False)
def nextafter_(self, other):
    """In-place :func:`nextafter`."""
    self = as_operand("nextafter_", self, "input", 1, tensor_only=True)
    other = as_operand("nextafter_", other, "other", 2, tensor_only=True)
    _nextafter_check(self, other)
    compute = _nextafter_compute(result_dtype((self, other)))
    return _run(nextafter_.op, compute, (self, other), inplace=self, rule=PROMOTE)


# ------------------------------------------------------------------------ float_power

def _float_power_dtype(base, exponent):
    complex_ = any(isinstance(v, complex) or (isinstance(v, Tensor) and
                                              v._dtype.category == _dtypes.COMPLEX)
                   for v in (base, exponent))
    return _dtypes.complex128 if complex_ else _dtypes.float64


def _float_power_args(name, base, exponent):
    base = as_operand(name, base, "input", 1)
    exponent = as_operand(name, exponent, "exponent", 2)
    if not isinstance(base, Tensor) and not isinstance(exponent, Tensor):
        raise TensorTypeError(f"{name}(): at least one of input and exponent must be a Tensor")
    return base, exponent


def _float_power_kernel(exponent):
    # float_power(Tensor, Scalar) is pow(base.double(), Scalar): the special-cased kernel
    # (``x ** -0.5`` is ``1 / sqrt(x)``); a tensor exponent gives C's pow everywhere.
    return pow_tensor_exponent if isinstance(exponent, Tensor) else pow_scalar_exponent


@register("elementwise")
def float_power(input, exponent, *, out=None):
    """``torch.float_power``: ``input ** exponent`` computed and returned in float64
    (complex128 when either argument is complex)."""
    input, exponent = _float_power_args("float_power", input, exponent)
    dtype = _float_power_dtype(input, exponent)
    if out is not None and isinstance(out, Tensor) and out._dtype is not dtype:
        raise TensorRuntimeError(
            f"the output given to float_power has dtype {out._dtype._torch_name} but the "
            f"operation's result requires dtype {dtype._torch_name}")
    return _run(float_power.op, _float_power_kernel(exponent), (input, exponent), out=out,
                rule=PROMOTE, result_dtype_override=dtype)


@register("inplace", function=False)
def float_power_(self, exponent):
    """In-place :func:`float_power`: ``self`` must already be float64 (complex128)."""
    self, exponent = _float_power_args("float_power_", self, exponent)
    dtype = _float_power_dtype(self, exponent)
    if self._dtype is not dtype:
        raise TensorRuntimeError(
            f"the base given to float_power_ has dtype {self._dtype._torch_name} but the "
            f"operation's result requires dtype {dtype._torch_name}")
    return _run(float_power_.op, _float_power_kernel(exponent), (self, exponent),
                inplace=self, rule=PROMOTE, result_dtype_override=dtype)


# ------------------------------------------------------------------------ frexp

@register("elementwise")
def frexp(input, *, out=None):
    """``torch.frexp``: ``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``;
    the mantissa keeps the input's floating dtype, the exponent is int32."""
    _check_tensor("frexp", input)
    if input._dtype.category != _dtypes.FLOATING:
        raise TensorRuntimeError(
            "torch.frexp() only supports floating-point dtypes, got "
            f"{input._dtype._torch_name}; convert the input with .float() first.")
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2 or \
                not all(isinstance(o, Tensor) for o in out):
            raise TensorTypeError("frexp(): argument 'out' must be a tuple of two Tensors")
        if out[0]._dtype is not input._dtype:
            raise TensorRuntimeError(
                f"torch.frexp() expects mantissa to have dtype {input._dtype._torch_name} but "
                f"got {out[0]._dtype._torch_name}")
        if out[1]._dtype is not _dtypes.int32:
            raise TensorRuntimeError(
                "torch.frexp() expects exponent to have int dtype but got "
                f"{out[1]._dtype._torch_name}")
    xp = input._storage._backend.xp
    a = input._array()
    work = a.astype("float32") if input._dtype is _dtypes.bfloat16 else a
    mantissa, exponent = xp.frexp(work)
    mantissa = mantissa.astype(a.dtype)
    exponent = exponent.astype("int32")
    shape = input._shape
    device = input._storage.device
    if out is not None:
        _write_out(out[0], mantissa, shape, (input,), (input,))
        _write_out(out[1], exponent, shape, (input,), (input,))
        return return_types.frexp(tuple(out))
    stride = elementwise_output_strides(tuple(shape), [(tuple(shape), input._stride)])
    results = []
    for arr, dtype in ((mantissa, input._dtype), (exponent, _dtypes.int32)):
        t = new_empty_tensor(shape, dtype, device, stride=stride)
        t._array()[...] = arr
        results.append(t)
    return return_types.frexp(tuple(results))


# ------------------------------------------------------------------------ sinc

def _sinc(xp, a):
    product = math.pi * a
    with_zero = xp.where(a == 0, xp.ones_like(product), product)
    return xp.where(a == 0, xp.ones_like(product), xp.sin(with_zero) / with_zero)


sinc, sinc_ = unary_op("sinc", _sinc, FLOAT,
                       doc="Normalized sinc: ``sin(pi x) / (pi x)``, 1 at 0.")


# ------------------------------------------------------------------------ lgamma

# Lanczos approximation, g = 7, n = 9 (about 15 significant digits).
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_PI = math.log(math.pi)


def _lgamma_lanczos(xp, x):
    """lgamma for x >= 0.5 (other lanes give garbage, masked out by the caller)."""
    z = x - 1.0
    s = xp.full_like(z, _LANCZOS[0])
    for i in range(1, len(_LANCZOS)):
        s = s + _LANCZOS[i] / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (z + 0.5) * xp.log(t) - t + xp.log(s)


def _lgamma64(xp, x):
    big = x >= 0.5
    # x >= 0.5: Lanczos; 0 < x < 0.5: lgamma(x + 1) - log(x); x <= 0: reflection
    # lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), with sin(pi x) from the exact
    # distance to the nearest integer.
    small_pos = (x > 0) & ~big
    xs = xp.where(big, x, xp.where(small_pos, x + 1.0, 1.0 - x))
    xs = xp.where(xp.isfinite(xs), xs, 2.0)
    core = _lgamma_lanczos(xp, xs)
    frac = x - xp.round(xp.where(xp.isfinite(x), x, 0.0))
    sin_pi = xp.abs(xp.sin(math.pi * frac))
    safe_sin = xp.where(sin_pi == 0, 1.0, sin_pi)
    safe_x = xp.where(small_pos, x, 1.0)
    result = xp.where(big, core, xp.where(small_pos, core - xp.log(safe_x),
                                          _LOG_PI - xp.log(safe_sin) - core))
    pole = (x <= 0) & (frac == 0)
    result = xp.where(pole | xp.isinf(x), math.inf, result)
    # Gamma(1) = Gamma(2) = 1: exactly 0 there, as the C library's lgamma gives (Lanczos
    # leaves about 1e-15, which a float32 result would print as -8.8818e-16).
    result = xp.where((x == 1.0) | (x == 2.0), 0.0, result)
    return xp.where(xp.isnan(x), x, result)


def _lgamma(xp, a):
    return _in_float64(_lgamma64)(xp, a)


_real_special = {"complex_": False}

lgamma, lgamma_ = unary_op(
    "lgamma", _lgamma, FLOAT, inplace_function=False,
    check=_supports("lgamma_vml_cpu", **_real_special),
    doc="Log of the absolute value of the gamma function (inf at the poles 0, -1, -2...).")


# ------------------------------------------------------------------------ digamma

_PSI_10 = 2.25175258906672110764
_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _polevl(xp, z, coefficients):
    result = xp.full_like(z, coefficients[0])
    for c in coefficients[1:]:
        result = result * z + c
    return result


def _digamma_positive(xp, x):
    """PyTorch's calc_digamma for x > 0: recurrence up to 10, then the asymptotic series."""
    result = xp.zeros_like(x)
    for _ in range(10):
        low = x < 10
        result = result - xp.where(low, 1.0 / xp.where(low, x, 1.0), 0.0)
        x = xp.where(low, x + 1.0, x)
    z = 1.0 / (x * x)
    y = xp.where(x < 1.0e17, z * _polevl(xp, z, _PSI_A), 0.0)
    series = result + xp.log(x) - 0.5 / x - y
    return xp.where(x == 10, result + _PSI_10, series)


def _digamma64(xp, x):
    negative = x < 0
    integer = x == xp.trunc(xp.where(xp.isfinite(x), x, 0.0))
    r = x - xp.trunc(xp.where(xp.isfinite(x), x, 0.0))
    positive_x = xp.where(negative, 1.0 - x, x)
    positive_x = xp.where(positive_x > 0, positive_x, 1.0)
    value = _digamma_positive(xp, positive_x)
    reflected = value - math.pi / xp.tan(math.pi * r)
    result = xp.where(negative, reflected, value)
    result = xp.where(negative & integer, math.nan, result)
    result = xp.where(x == math.inf, math.inf, result)
    # digamma(+0) = -inf, digamma(-0) = +inf.
    result = xp.where(x == 0, xp.copysign(math.inf, -x), result)
    return xp.where(xp.isnan(x), x, result)


def _digamma(xp, a):
    return _in_float64(_digamma64)(xp, a)


digamma, digamma_ = unary_op(
    "digamma", _digamma, FLOAT, inplace_function=False,
    check=_supports("digamma", **_real_special),
    doc="The logarithmic derivative of the gamma function (psi).")


# ------------------------------------------------------------------------ polygamma

def _trigamma64(xp, x):
    reflect = x < 0.5
    sin_pi_x = xp.sin(math.pi * x)
    result = xp.where(reflect, -(math.pi * math.pi) / (sin_pi_x * sin_pi_x), 0.0)
    x = xp.where(reflect, 1.0 - x, x)
    for _ in range(6):
        result = result + 1.0 / (x * x)
        x = x + 1.0
    ixx = 1.0 / (x * x)
    result = result + (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (
        1.0 / 42)))) / x
    return xp.where(reflect, -result, result)


def _bernoulli_ratios():
    # (2k)! / B_2k for k = 1..12: Cephes' zeta expansion coefficients.
    numbers = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
               Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
               Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
               Fraction(-236364091, 2730)]
    return tuple(float(math.factorial(2 * k + 2) / b) for k, b in enumerate(numbers))


_ZETA_A = _bernoulli_ratios()
_MACHEP = 1.11022302462515654042E-16


# Direct-sum steps before a lane far left of zero is shifted right by the recurrence
# instead (ATen would step |q| times there: a bounded amount of work whatever q is).
_ZETA_DIRECT_LIMIT = 4096


def _hurwitz_zeta(xp, x, q):
    """Hurwitz zeta(x, q) in float64, lane by lane, as PyTorch's (Cephes) ``zeta``: nan for
    x < 1 (inf at 1), inf at the poles q = 0, -1, ... (and -inf), nan for q <= 0 with x not
    an integer; else the direct sum while a <= 9 (at least 9 terms), then the
    Euler-Maclaurin tail. ``special.zeta`` and ``polygamma`` both use it."""
    x, q = xp.broadcast_arrays(xp.asarray(x, dtype=xp.float64), q)
    result = xp.full(x.shape, math.nan)
    # A nan x still meets ATen's pole test first (zeta(nan, -2) is inf), then is nan.
    done = xp.isnan(q)
    result = xp.where(~done & (x == 1.0), math.inf, result)
    done = done | (x <= 1.0)
    # As ATen's ``q == floor(q)``: -inf counts as an integer (a pole), +inf for x as well.
    q_int = q == xp.floor(q)
    x_int = x == xp.floor(x)
    pole = ~done & (q <= 0) & q_int
    result = xp.where(pole, math.inf, result)
    done = done | pole | (~done & (q <= 0) & ~x_int)
    far = ~done & (q < -_ZETA_DIRECT_LIMIT)
    if bool(far.any()):
        # zeta(x, q) = sum_{k<n} (q + k)^-x + zeta(x, q + n) with n = ceil(-q); the n
        # negative terms are (-1)^x (zeta(x, r) - zeta(x, r + n)), r = 1 - (q + n): three
        # zetas of positive arguments instead of n steps (x is an integer here).
        xf, qf = x[far], q[far]
        n = xp.ceil(-qf)
        frac = qf + n
        r = 1.0 - frac
        sign = xp.where(xp.fmod(xf, 2.0) == 0, 1.0, -1.0)
        value = sign * (_hurwitz_zeta(xp, xf, r) - _hurwitz_zeta(xp, xf, r + n))
        result = result.copy()
        result[far] = value + _hurwitz_zeta(xp, xf, frac)
        done = done | far
    s = xp.power(q, -x)
    a = q.copy()
    b = xp.zeros_like(q)
    i = 0
    while True:
        active = ~done & ((i < 9) | (a <= 9.0))
        if not bool(active.any()):
            break
        i += 1
        a = xp.where(active, a + 1.0, a)
        b = xp.where(active, xp.power(a, -x), b)
        s = xp.where(active, s + b, s)
        converged = active & (-_MACHEP * s < b) & (b < _MACHEP * s)
        result = xp.where(converged, s, result)
        done = done | converged
    w = a
    s = s + b * w / (x - 1.0) - 0.5 * b
    factor = xp.ones_like(x)
    k = 0.0
    for coefficient in _ZETA_A:
        factor = factor * (x + k)
        b = b / w
        t = factor * b / coefficient
        s = xp.where(done, s, s + t)
        converged = ~done & (xp.abs(t / s) < _MACHEP)
        result = xp.where(converged, s, result)
        done = done | converged
        k += 1.0
        factor = factor * (x + k)
        b = b / w
        k += 1.0
    return xp.where(done, result, s)


def _zeta64(xp, s_exp, q):
    """Hurwitz zeta(s_exp, q) for a number s_exp > 1 (polygamma's), in float64."""
    with np.errstate(all="ignore"):
        return _hurwitz_zeta(xp, float(s_exp), q)


def _polygamma_compute(n):
    if n == 0:
        return _digamma
    if n == 1:
        return _in_float64(_trigamma64)
    factor = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0))

    def kernel(xp, x):
        return factor * _zeta64(xp, n + 1.0, x)

    return _in_float64(kernel)


def _polygamma_check(name, n, input):
    _check_tensor(name, input)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TensorTypeError(f"{name}(): argument 'n' must be int, not {type_name(n)}")
    if n < 0:
        raise TensorRuntimeError(f"polygamma(n, x) does not support negative n, got n={n}.")
    if input._dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("polygamma", input._dtype)


@register("elementwise", method=False)
def polygamma(n, input, *, out=None):
    """``torch.polygamma(n, input)``: the n-th derivative of digamma."""
    _polygamma_check("polygamma", n, input)
    return _run(polygamma.op, _polygamma_compute(n), (input,), out=out, rule=FLOAT)


def _polygamma_method(self, n):
    """``x.polygamma(n)``: :func:`polygamma` with the tensor first."""
    return polygamma(n, self)


Tensor.polygamma = _polygamma_method


@register("inplace", function=False)
def polygamma_(self, n):
    """In-place :func:`polygamma` (``x.polygamma_(n)``)."""
    _polygamma_check("polygamma_", n, self)
    return _run(polygamma_.op, _polygamma_compute(n), (self,), inplace=self, rule=FLOAT)


# ------------------------------------------------------------------------ mvlgamma

def _mvlgamma_compute(p):
    constant = p * (p - 1) * _LOG_PI / 4

    def kernel(xp, x):
        total = xp.zeros_like(x)
        for j in range(p):
            total = total + _lgamma64(xp, x - 0.5 * j)
        return total + constant

    return _in_float64(kernel)


def _mvlgamma_check(name, input, p):
    _check_tensor(name, input)
    if isinstance(p, bool) or not isinstance(p, int):  # argument types are checked first
        raise TensorTypeError(f"{name}(): argument 'p' must be int, not {type_name(p)}")
    if input._dtype is _dtypes.bool_:
        raise TensorRuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise TensorRuntimeError(f"p has to be greater than or equal to 1, got p={p}")
    if input._dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("lgamma_vml_cpu", input._dtype)


@register("elementwise")
def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma of dimension ``p``: ``sum_j lgamma(x - j/2) +
    p(p-1)/4 log(pi)`` (PyTorch 2.13 no longer checks that elements exceed ``(p-1)/2``)."""
    _mvlgamma_check("mvlgamma", input, p)
    if out is not None:
        return _run(mvlgamma.op, _mvlgamma_compute(p), (input,), out=out, rule=FLOAT)
    # PyTorch's composite (lgamma over an added dimension, then sum) returns a contiguous
    # tensor whatever the input's layout.
    dtype = input._dtype if input._dtype.category >= _dtypes.FLOATING else \
        _dtypes.get_default_dtype()
    xp = input._storage._backend.xp
    a = input._array()
    work = "float32" if dtype in (_dtypes.float16, _dtypes.bfloat16) else dtype.numpy
    with np.errstate(all="ignore"):
        computed = _mvlgamma_compute(p)(xp, a.astype(work)).astype(dtype.numpy)
    result = Tensor._from_array(computed.copy(order="C"), dtype, input._storage.device)
    return result


@register("inplace", function=False)
def mvlgamma_(self, p):
    """In-place :func:`mvlgamma`."""
    _mvlgamma_check("mvlgamma_", self, p)
    return _run(mvlgamma_.op, _mvlgamma_compute(p), (self,), inplace=self, rule=FLOAT)


# ------------------------------------------------------------------------ i0

_I0_SERIES_TERMS = 80
_I0_ASYMPTOTIC_TERMS = 40


def _i0_64(xp, x):
    """Modified Bessel function of order 0: the power series (all terms positive, so no
    cancellation) below 30, the asymptotic expansion above."""
    ax = xp.abs(x)
    small = ax < 30.0
    xs = xp.where(small, ax, 0.0)
    q = xs * xs / 4.0
    term = xp.ones_like(xs)
    series = xp.ones_like(xs)
    for k in range(1, _I0_SERIES_TERMS):
        term = term * q / (k * k)
        series = series + term
    xl = xp.where(small, 30.0, ax)
    inv = 1.0 / (8.0 * xl)
    term = xp.ones_like(xl)
    asym = xp.ones_like(xl)
    for k in range(1, _I0_ASYMPTOTIC_TERMS):
        term = term * ((2 * k - 1) ** 2) * inv / k
        asym = asym + term
    # exp(x) / sqrt(x) first: inf / inf is nan at infinity, as PyTorch's Cephes kernel gives.
    large = xp.exp(xl) / xp.sqrt(xl) / math.sqrt(2.0 * math.pi) * asym
    return xp.where(small, series, large)


def _i0(xp, a):
    result = _in_float64(_i0_64)(xp, a)
    if a.dtype.kind == "f" and a.dtype.itemsize < 8:
        # PyTorch's float32 kernel overflows in exp(|x|) above ~88.72 (inf, not a finite
        # value just below the float32 maximum).
        overflow = xp.isfinite(a) & xp.isinf(xp.exp(xp.abs(a).astype("float32")))
        result = xp.where(overflow, xp.asarray(math.inf, dtype=result.dtype), result)
    return result


i0, i0_ = unary_op("i0", _i0, FLOAT, check=_supports("i0_vml_cpu", **_real_special),
                   doc="Modified Bessel function of the first kind, order 0.")
