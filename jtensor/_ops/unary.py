"""Unary element-wise math: neg, abs, exp, log, trig, rounding, clamp, nan_to_num, complex parts.

Most ops are defined once through ``unary_op``, which registers the function form
(``torch.exp``), the method (``x.exp``), the in-place method (``x.exp_``) and aliases
(``torch.arcsin``). Everything runs through ``_elementwise.elementwise``, so dtype promotion,
``out=``, in-place checks and the output layout (a transposed input gives a transposed output)
are PyTorch's. ``compute`` is an array-module function name or ``compute(xp, a)``; it must
return a new array (never ``a`` itself, which may be the input's memory).

The dtype rules, checked against PyTorch:

- ``FLOAT``: integer and bool inputs give the default float dtype (exp, log, sqrt, sin,
  sigmoid, erf, ...); float16/bfloat16 stay in their dtype (computed in float32, rounded).
- ``PROMOTE``: the result keeps the input's dtype (neg, abs, sign, floor, round, clamp...);
  these ops also require ``out=`` to have exactly that dtype, as PyTorch does.
"""

import math

import numpy as np

from .. import _dtypes
from .._argparse import int_arg
from .._dispatch import check_inplace
from .._arraymod import exp_rounded_once, tanh_rounded_once
from .._elementwise import (FLOAT, PROMOTE, SAME_AS_INPUT, _as_number, _fast, _number_dtype,
                            fast_unary,
                            bounded, elementwise, number_operand, result_dtype, zero_where)
from .._errors import (TensorNotImplementedError, TensorRuntimeError, TensorTypeError,
                      invalid_combination, type_name)
from .._registry import FUNCTIONS, define, register
from .._tensor import Tensor, new_empty_tensor
from .views import make_view


# ------------------------------------------------------------------------------ helpers

def _not_implemented(kernel, dtype):
    return TensorNotImplementedError(
        f"\"{kernel}\" not implemented for '{dtype._torch_name}'. Convert the input with "
        f".float() (or another supported dtype) first.")


def _supports(kernel, *, bool_=True, integer=True, complex_=True):
    """A check raising PyTorch's ``NotImplementedError`` for the dtype categories left out."""
    refused = {_dtypes.BOOL: bool_, _dtypes.INTEGRAL: integer, _dtypes.COMPLEX: complex_}

    def check(input, inplace):
        if isinstance(input, Tensor) and not refused.get(input._dtype.category, True):
            raise _not_implemented(kernel, input._dtype)

    return check


def _checks(*checks):
    def check(input, inplace):
        for c in checks:
            c(input, inplace)

    return check


def _refuse(category, exc, message):
    """A check raising ``exc(message)`` for inputs of a dtype category (bool, complex)."""

    def check(input, inplace):
        if isinstance(input, Tensor) and input._dtype.category == category:
            raise exc(message)

    return check


def _check_exact_out(out, expected):
    """Ops whose result keeps the input dtype (neg, floor, clamp...) refuse any other out."""
    if out is not None and isinstance(out, Tensor) and out._dtype is not expected:
        raise TensorRuntimeError(
            f"Found dtype {out._dtype._torch_name} but expected {expected._torch_name}: "
            f"pass an out= tensor of dtype {expected}.")


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")


def _run(op, compute, inputs, out=None, inplace=None, rule=PROMOTE, **kwargs):
    # PyTorch computes log(-1) or 1/0 silently; NumPy would warn. (CuPy never warns.)
    tried = out is None and inplace is None and not kwargs
    if tried:
        # The element-wise fast path first: its one array call is ``run_compute``, which
        # warns into jtensor's filter (or, where warnings are errors, is redone silenced),
        # so it needs no error-state switch (a third of a small op's time, issue 18).
        result = _fast(op, compute, inputs, rule)
        if result is not None:
            return result
    with np.errstate(all="ignore"):
        return elementwise(op, compute, inputs, out=out, inplace=inplace, rule=rule,
                           fast=not tried, **kwargs)


def _alias(impl, name, *, method=True, function=True):
    """Expose ``impl`` under a second name (``torch.arcsin`` for ``asin``)."""
    if method:
        setattr(Tensor, name, impl)
    if function:
        FUNCTIONS[name] = impl


def _is_int_or_bool(a):
    return a.dtype.kind in "biu"


def _same(xp, a):
    """The identity as a computation: a fresh array, never the input's memory."""
    return a.copy()


def _empty_like(op, input, rule):
    """The result of an op on an empty input, laid out like ``empty_like(input)``."""
    dtype = input._dtype
    if rule == FLOAT and dtype.category < _dtypes.FLOATING:
        dtype = _dtypes.get_default_dtype()
    return new_empty_tensor(input._shape, dtype, input._storage.device, stride=input._stride)


def unary_op(name, compute, rule=FLOAT, *, doc, aliases=(), inplace=True,
             inplace_function=True, inplace_aliases=None, check=None, exact_out=False,
             real_result=False, dtype_fn=None, operator=None, like_input=False):
    """Define ``name`` (function, method, ``out=``) and ``name_`` (in place) from ``compute``.

    ``check(input, inplace)`` raises for unsupported dtypes before anything is computed;
    ``exact_out``: ``out=`` must have the result dtype exactly (PyTorch's "Found dtype");
    ``real_result``: complex inputs give real results (abs, angle); ``dtype_fn(input)``
    overrides the promoted dtype (square of bool is int64); ``operator``: a dunder name;
    ``like_input``: PyTorch allocates the result with ``empty_like`` (deg2rad), which keeps
    the strides of an empty input.
    """

    # Calls that ``_run`` would hand to ``_fast`` with nothing but ``rule`` may take
    # ``fast_unary`` straight away (not ``like_input``: an empty input keeps its strides).
    lane = dtype_fn is None and not like_input

    def options(input):
        kwargs = {"rule": rule}
        if isinstance(input, Tensor):
            if real_result and input._dtype.category == _dtypes.COMPLEX:
                kwargs["real_result"] = True
            if dtype_fn is not None:
                kwargs["result_dtype_override"] = dtype_fn(input)
        return kwargs

    def impl(input, *, out=None):
        if lane and out is None and input.__class__ is Tensor:
            # (the commonest call: a plain tensor, no options, computed at once)
            if check is not None:
                check(input, False)
            if not real_result or input._dtype.category != _dtypes.COMPLEX:
                result = fast_unary(compute, input, rule)
                if result is not None:
                    return result
        else:
            _check_tensor(name, input)
            if check is not None:
                check(input, False)
        kwargs = options(input)
        if like_input and out is None and input.numel() == 0:
            return _empty_like(impl.op, input, rule)
        if exact_out and out is not None and not kwargs.get("real_result"):
            _check_exact_out(out, kwargs.get("result_dtype_override", input._dtype))
        return _run(impl.op, compute, (input,), out=out, **kwargs)

    impl.__doc__ = doc
    impl = define("elementwise", name, impl)
    for alias in aliases:
        _alias(impl, alias)
    if operator:
        setattr(Tensor, operator, impl)
    if not inplace:
        return impl, None

    def impl_inplace(self):
        _check_tensor(name + "_", self)
        if check is not None:
            check(self, True)
        return _run(impl_inplace.op, compute, (self,), inplace=self, **options(self))

    impl_inplace.__doc__ = f"In-place version of :func:`{name}`."
    impl_inplace = define("inplace", name + "_", impl_inplace, function=inplace_function)
    for alias in (aliases if inplace_aliases is None else inplace_aliases):
        _alias(impl_inplace, alias + "_", function=inplace_function)
    return impl, impl_inplace


# ------------------------------------------------------------------------ sign and size

def _neg_bool(input, inplace):
    if input._dtype is _dtypes.bool_:
        raise TensorRuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead.")


neg, neg_ = unary_op(
    "neg", "negative", PROMOTE, aliases=("negative",), check=_neg_bool, exact_out=True,
    operator="__neg__", doc="``-input`` element-wise; integers wrap, bool tensors are refused.")


def _abs_inplace_complex(input, inplace):
    if inplace and input._dtype.category == _dtypes.COMPLEX:
        raise TensorRuntimeError(
            "In-place abs is not supported for complex tensors: use torch.abs(x) (a new real "
            "tensor) instead.")


abs, abs_ = unary_op(
    "abs", "abs", PROMOTE, aliases=("absolute",), inplace_aliases=(),
    check=_checks(_supports("abs_cpu", bool_=False), _abs_inplace_complex), exact_out=True,
    real_result=True, operator="__abs__",
    doc="Absolute value; complex inputs give their magnitude in the matching real dtype.")
_alias(abs_, "absolute_", function=False)


def _sign(xp, a):
    if a.dtype.kind == "b":
        return a.copy()
    # sign(nan) is 0 in PyTorch (NumPy says nan), sign(-0.0) is +0.0.
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


def _sgn(xp, a):
    if a.dtype.kind != "c":
        return _sign(xp, a)
    mag = xp.abs(a)
    return xp.where(mag == 0, xp.zeros((), a.dtype), a / xp.where(mag == 0, 1, mag))


sign, sign_ = unary_op(
    "sign", _sign, PROMOTE, inplace_function=False, exact_out=True,
    check=_refuse(_dtypes.COMPLEX, TensorNotImplementedError,
                  "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                  "Please use torch.sgn instead."),
    doc="-1, 0 or 1 by the sign of each element (0 for NaN); bool stays bool.")
sgn, sgn_ = unary_op(
    "sgn", _sgn, PROMOTE, inplace_function=False, exact_out=True,
    doc="``sign`` for real inputs; ``z / abs(z)`` (0 at 0) for complex inputs.")


def _square_dtype(input):
    # square is pow(x, 2): a bool tensor with the int 2 promotes to int64.
    return _dtypes.int64 if input._dtype is _dtypes.bool_ else input._dtype


square, square_ = unary_op(
    "square", lambda xp, a: a * a, PROMOTE, dtype_fn=_square_dtype,
    doc="``input * input``; integers stay integers, bool gives int64.")


def _positive_bool(input):
    if input._dtype is _dtypes.bool_:
        raise TensorRuntimeError("The `+` operator, on a bool tensor is not supported.")


@register("view")
def positive(input):
    """``+input``: returns the input itself, as PyTorch does (refused for bool)."""
    _check_tensor("positive", input)
    _positive_bool(input)
    return input


Tensor.__pos__ = positive

# ------------------------------------------------------------------- exponentials, logs

def _sigmoid(xp, a):
    """``1 / (1 + exp(-x))``, the same operations written into one new array (float32's
    ``exp`` rounded once, as PyTorch's vectorised kernel's Sleef ``exp`` nearly always is)."""
    one = _ONES.get(a.dtype) if xp is np and a.ndim else None
    if one is None:
        return 1 / (1 + exp_rounded_once(xp, -a))
    e = np.negative(a)
    exp_rounded_once.into(np, e, e)
    np.add(e, one, out=e)
    return np.divide(one, e, out=e)


def _constants(value, types):
    """Read-only 0-d arrays of ``value``, one per NumPy dtype of ``types`` (an operand of
    the array's own dtype: NumPy converts a Python number on every ufunc call)."""
    table = {}
    for t in types:
        table[np.dtype(t)] = constant = np.full((), value, t)
        constant.flags.writeable = False
    return table


_ONES = _constants(1, (np.float32, np.float64))


_FLOATING_MATH = (
    ("exp", exp_rounded_once, (), "e to the power of each element."),
    ("exp2", "exp2", (), "2 to the power of each element."),
    ("expm1", "expm1", (), "``exp(x) - 1``, accurate for small x."),
    ("log", "log", (), "Natural logarithm (-inf at 0, nan below 0)."),
    ("log2", "log2", (), "Base-2 logarithm."),
    ("log10", "log10", (), "Base-10 logarithm."),
    ("log1p", "log1p", (), "``log(1 + x)``, accurate for small x."),
    ("sqrt", "sqrt", (), "Square root (nan below 0)."),
    ("rsqrt", lambda xp, a: xp.reciprocal(xp.sqrt(a)), (), "``1 / sqrt(x)``."),
    ("reciprocal", lambda xp, a: xp.reciprocal(a), (),
     "``1 / x``; integer inputs give the default float dtype."),
    ("sin", "sin", (), "Sine (radians)."),
    ("cos", "cos", (), "Cosine (radians)."),
    ("tan", "tan", (), "Tangent (radians)."),
    ("asin", "arcsin", ("arcsin",), "Inverse sine (nan outside [-1, 1])."),
    ("acos", "arccos", ("arccos",), "Inverse cosine (nan outside [-1, 1])."),
    ("atan", "arctan", ("arctan",), "Inverse tangent."),
    ("sinh", "sinh", (), "Hyperbolic sine."),
    ("cosh", "cosh", (), "Hyperbolic cosine."),
    ("tanh", tanh_rounded_once, (), "Hyperbolic tangent."),
    ("asinh", "arcsinh", ("arcsinh",), "Inverse hyperbolic sine."),
    ("acosh", "arccosh", ("arccosh",), "Inverse hyperbolic cosine (nan below 1)."),
    ("atanh", "arctanh", ("arctanh",), "Inverse hyperbolic tangent (nan outside [-1, 1])."),
    ("sigmoid", _sigmoid, (), "The logistic ``1 / (1 + exp(-x))``."),
)

for _name, _compute, _aliases, _doc in _FLOATING_MATH:
    globals()[_name], globals()[_name + "_"] = unary_op(
        _name, _compute, FLOAT, aliases=_aliases, doc=_doc)


def _no_complex_angle(kind):
    return _refuse(_dtypes.COMPLEX, TensorRuntimeError,
                   f"{kind} is not supported for complex tensors.")


deg2rad, deg2rad_ = unary_op(
    "deg2rad", lambda xp, a: a * (math.pi / 180), check=_no_complex_angle("deg2rad"),
    like_input=True,
    doc="Degrees to radians; integer inputs give the default float dtype.")
rad2deg, rad2deg_ = unary_op(
    "rad2deg", lambda xp, a: a * (180 / math.pi), check=_no_complex_angle("rad2deg"),
    like_input=True,
    doc="Radians to degrees; integer inputs give the default float dtype.")


def _angle(xp, a):
    if a.dtype.kind == "c":
        return xp.angle(a)
    # Real inputs: pi below zero, 0 otherwise, nan stays nan (as PyTorch).
    zero = xp.zeros((), a.dtype)
    return xp.where(xp.isnan(a), a, xp.where(a < 0, xp.asarray(math.pi, a.dtype), zero))


angle, _ = unary_op(
    "angle", _angle, FLOAT, inplace=False, real_result=True,
    doc="The argument of each element in radians (real inputs: 0 or pi), as a real tensor.")


# ------------------------------------------------------------------- error functions
# NumPy has no erf. These float64 evaluations use array operations only (so CuPy runs
# them). For |x| < 6: a Taylor expansion around the nearest point x0 of a 1/32 grid, whose
# erf/erfc values come from Python's math module (host constants, computed once); the
# derivatives of erf are Hermite polynomials times exp(-x0^2). Beyond 6: a continued
# fraction. erfinv refines a closed-form guess with Halley's method.

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_GRID = 32           # grid points per unit
_GRID_END = 6.0      # erf(6) rounds to 1.0; beyond it erfc comes from the continued fraction
_TAYLOR_TERMS = 13   # |x - x0| <= 1/64: the next term is below 2e-20 of erfc (and erf)
_FRACTION_TERMS = 60  # enough for a relative error below 1e-16 from x = 6
_POINTS = [k / _GRID for k in range(int(_GRID_END * _GRID) + 1)]
_ERF_AT = [math.erf(x0) for x0 in _POINTS]
_ERFC_AT = [math.erfc(x0) for x0 in _POINTS]


def _taylor_table(points, terms):
    """The Taylor coefficients of erf around each grid point x0 of ``points`` (host
    constants, computed once): row ``n - 1`` holds ``erf'(x0) (-1)^(n-1) H_{n-1}(x0) / n!``
    for n = 1 .. ``terms``, H the physicists' Hermite polynomials (erf^(n)(x0) = erf'(x0)
    (-1)^(n-1) H_{n-1}(x0))."""
    table = []
    for x0 in points:
        slope = _TWO_OVER_SQRT_PI * math.exp(-x0 * x0)   # erf'(x0)
        h_prev, h_cur, factorial, column = 0.0, 1.0, 1.0, []
        for n in range(1, terms + 1):
            factorial *= n
            column.append(slope * (-1) ** (n - 1) * h_cur / factorial)
            h_prev, h_cur = h_cur, 2.0 * x0 * h_cur - 2.0 * (n - 1) * h_prev
        table.append(column)
    return [list(row) for row in zip(*table, strict=True)]


_COEFFS = _taylor_table(_POINTS, _TAYLOR_TERMS)
# The tables as arrays of each array module (made once per module: a CuPy one lives on the
# device): ``"coeffs"`` is (terms, points), row ``n - 1`` the coefficients of h^n.
_TABLES = {}


def _table(xp, name):
    tables = _TABLES.get(xp)
    if tables is None:
        tables = _TABLES[xp] = {
            "coeffs": xp.asarray(_COEFFS, dtype=xp.float64),
            "erf": xp.asarray(_ERF_AT, dtype=xp.float64),
            "erfc": xp.asarray(_ERFC_AT, dtype=xp.float64),
        }
    return tables[name]


def _erf_increment(xp, a, terms=_TAYLOR_TERMS):
    """For a >= 0: (k, d) with x0 = k / 32 the nearest grid point and d = erf(a) - erf(x0) =
    sum_{n=1..terms} _COEFFS[n-1][k] h^n, h = a - x0, by Horner's rule. The coefficients of
    every element are gathered in one call ((terms, n): each step reads a contiguous row),
    then each step is a multiply and an add written into the accumulator."""
    shape = a.shape
    a = a.reshape(-1)   # (a 0-d input's arithmetic would give NumPy scalars, not arrays)
    inside = xp.where(a < _GRID_END, a, 0.0)  # nan, inf and the tail index point 0
    k = xp.rint(inside * _GRID).astype(xp.intp)
    h = a - k / _GRID
    c = xp.take(_table(xp, "coeffs")[:terms], k, axis=1)
    total = c[terms - 1]
    for n in range(terms - 1, 0, -1):
        xp.multiply(total, h, out=total)
        xp.add(total, c[n - 1], out=total)
    xp.multiply(total, h, out=total)
    return k.reshape(shape), total.reshape(shape)


# Taylor terms for a float32 or float16 result: with |h| <= 1/64 the next term is below
# 6e-13 of the result, far under the 6e-8 of a float32 rounding (a float64 result, or an
# integer input whose result may be float64, takes all ``_TAYLOR_TERMS``).
_SHORT_TAYLOR_TERMS = 8


def _terms_for(a):
    """The Taylor terms erf/erfc of array ``a`` need for its result's precision."""
    return _SHORT_TAYLOR_TERMS if a.dtype.kind == "f" and a.dtype.itemsize < 8 \
        else _TAYLOR_TERMS


def _erfc_fraction(xp, a):
    # erfc(a) = exp(-a^2) / sqrt(pi) / (a + (1/2) / (a + (2/2) / (a + (3/2) / (a + ...))))
    a = xp.maximum(a, _GRID_END)
    f = a
    for k in range(_FRACTION_TERMS, 0, -1):
        f = a + (0.5 * k) / f
    r = _exp_minus_square(xp, a) / (math.sqrt(math.pi) * f)
    return xp.where(a == math.inf, 0.0, r)


def _exp_minus_square(xp, a):
    """``exp(-a*a)`` without the rounding error of ``a*a`` (which exp would multiply by a^2):
    split a = z + (a - z) with z on a 1/16 grid, so z*z and (a - z) are exact."""
    z = xp.floor(a * 16.0) / 16.0
    return xp.exp(-z * z) * xp.exp(-(a - z) * (a + z))


def _erf64(xp, x, terms=_TAYLOR_TERMS):
    a = xp.abs(x)
    k, d = _erf_increment(xp, a, terms)
    r = xp.where(a < _GRID_END, xp.take(_table(xp, "erf"), k) + d, 1.0)
    r = xp.where(xp.isnan(a), a, r)
    return xp.copysign(r, x)


def _erfc64(xp, x, terms=_TAYLOR_TERMS):
    a = xp.abs(x)
    k, d = _erf_increment(xp, a, terms)
    r = xp.where(a < _GRID_END, xp.take(_table(xp, "erfc"), k) - d, _erfc_fraction(xp, a))
    r = xp.where(xp.isnan(a), a, r)
    return xp.where(x < 0, 2.0 - r, r)


def _as_float64(xp, a):
    return a.astype(xp.float64) if a.dtype != xp.float64 else a


def _erfinv64(xp, y):
    orig = xp.abs(y)
    a = xp.where(orig < 1.0, orig, 0.5)  # keep the iteration finite; fixed up below
    # First guess: Winitzki's closed form (relative error ~2e-3); a Taylor guess near 0,
    # where the closed form cancels.
    w = 0.147
    log_term = xp.log((1.0 - a) * (1.0 + a))
    t = 2.0 / (math.pi * w) + 0.5 * log_term
    guess = xp.sqrt(xp.sqrt(t * t - log_term / w) - t)
    taylor = (math.sqrt(math.pi) / 2) * (a + (math.pi / 12) * a ** 3)
    x = xp.where(a < 0.05, taylor, guess)
    # Halley's method on erf(x) = a near 0, and on erfc(x) = 1 - a in the tail, where
    # 1 - a is exact: the result keeps full relative precision up to a = 1 - 2**-53.
    tail = a >= 0.5
    q = 1.0 - a
    for _ in range(3):
        f = xp.where(tail, q - _erfc64(xp, x), _erf64(xp, x) - a)
        u = f / (_TWO_OVER_SQRT_PI * _exp_minus_square(xp, xp.abs(x)))
        x = x - u / (1.0 + x * u)
    x = xp.where(orig == 0, 0.0, x)
    x = xp.where(orig == 1.0, math.inf, xp.where(orig > 1.0, math.nan, x))
    x = xp.where(xp.isnan(y), math.nan, x)
    return xp.copysign(x, y)


_real_only = {name: _supports(name, complex_=False) for name in ("erf", "erfc", "erfinv")}
# Elements per block when a big host array is evaluated block by block: the ~30 passes of
# the series over one block stay in the CPU's cache instead of streaming the whole array
# through memory each time (2M float32 elements: 73 -> 40 ms with 8192; 32768 costs fewer
# calls per element and still fits: 22 -> 19 ms on the 1/32 grid).
_BLOCK = 1 << 15


def _blockwise(function, float32=None):
    """``function(xp, x, terms)`` applied to ``x`` (any shape) block by block on the host, at
    once on a device (one kernel per pass is what a GPU wants). ``float32(x)``, when given,
    computes a host float32 array's float32 result instead (block by block too)."""
    def run(xp, a):
        if float32 is not None and xp is np and a.dtype == np.float32:
            return _by_blocks(float32, a, np.float32, _BLOCK32)
        terms = _terms_for(a)
        if xp is not np or a.size <= _BLOCK:
            return function(xp, _as_float64(xp, a), terms)
        return _by_blocks(lambda block: function(xp, _as_float64(xp, block), terms), a,
                          np.float64, _BLOCK)

    return run


def _by_blocks(compute, a, dtype, size):
    """``compute`` (an array of ``dtype`` from an array) over ``a`` block by block."""
    if a.size <= size:
        return compute(a)
    flat = a.reshape(-1)
    out = np.empty(flat.shape, dtype)
    for start in range(0, flat.size, size):
        out[start:start + size] = compute(flat[start:start + size])
    return out.reshape(a.shape)


# erf of float32 arrays (GELU's: issue 18). Around the nearest point x0 = k / 1024 of a grid
# on [0, 4] (beyond 3.92 erf rounds to 1 in float32), with h = |x| - x0 (exact in float32,
# |h| <= 1/2048), erf's Taylor series is erf'(x0) h times a series in v = x0 h and w = h^2
# (erf^(n)(x0) = erf'(x0) (-1)^(n-1) H_{n-1}(x0), H the Hermite polynomials):
#     erf(x0 + h) = erf(x0) + erf'(x0) h (1 - v + 2 v^2 / 3 - v^3 / 3 + w (v / 2 - 1 / 3)
#                   + ...),
# the next terms (2 v^4 / 15 - 2 v^2 w / 5 + w^2 / 10) below 6e-15 of the result (w^2 / 10
# at x0 = 0, below 1e-17 from x0 = 1/64 on), the float64 evaluation's own rounding about
# 1e-16 (the old five-term series on a 1/128 grid allowed 1e-14). Rounded once, that is the
# float32 nearest erf's exact value (checked against Python's math.erf on every float32 of
# several ranges, tests/ops/test_erf32.py, and against the float64 series on 37.7 million
# values). Without the v^3 and v w terms the error reached 1e-14 and one value in 37.7
# million rounded the wrong way. Only two numbers per point are gathered (erf(x0) and
# erf'(x0), one complex128 per point) where the earlier Taylor coefficients on a 1/128 grid
# took five gathers: 3.3 -> 2.4 ms for half a million elements.
_GRID32 = 1024
_END32 = np.float32(4.0)
_BLOCK32 = 1 << 14   # (the passes over a block stay in the cache)
_SIGN32 = np.int32(-(1 << 31))
_ABS32 = np.int32(0x7FFFFFFF)
_INF32_BITS = 0x7F800000
# erf(x0) + 1j * erf'(x0) at each grid point
_ERF32_AT = np.array([complex(math.erf(x0), _TWO_OVER_SQRT_PI * math.exp(-x0 * x0))
                      for x0 in (k / _GRID32 for k in range(int(_END32) * _GRID32 + 1))])
_GRID32_F = np.float32(_GRID32)
_STEP32 = np.float32(1 / _GRID32)


def _erf32_wide(a):
    """erf of the float32 array ``a`` (>= 0, at most 4; overwritten), in float64: the value
    ``_erf32`` rounds once (see above)."""
    kf = np.multiply(a, _GRID32_F)
    np.rint(kf, out=kf)
    x0 = np.multiply(kf, _STEP32)
    h = np.subtract(a, x0, out=a).astype(np.float64)   # (exact in float32)
    table = np.take(_ERF32_AT, kf.astype(np.intp))
    v = np.multiply(x0, h, dtype=np.float64)
    p = np.multiply(v, -1.0 / 3.0)
    p += 2.0 / 3.0
    p *= v
    p -= 1.0
    p *= v
    p += 1.0
    q = np.multiply(v, 0.5)
    q -= 1.0 / 3.0
    np.multiply(h, h, out=v)
    q *= v
    p += q                          # 1 - v + 2 v^2 / 3 - v^3 / 3 + w (v / 2 - 1 / 3)
    p *= h
    p *= table.imag
    p += table.real
    return p


def _erf32(x):
    """erf of a float32 array, as float32 (see above)."""
    shape = x.shape
    x = x.reshape(-1)   # (a 0-d one's arithmetic would give NumPy scalars)
    n = x.size
    bits = np.bitwise_and(x.view(np.int32), _ABS32)
    any_nan = n and bits.max() > _INF32_BITS
    a = bits.view(np.float32)
    if any_nan:
        a[np.isnan(a)] = _END32   # (any number will do: the NaNs are put back at the end)
    bounded(np.minimum, _END32, a, out=a)   # |x| up to 4
    r = _erf32_wide(a).astype(np.float32)
    # x's sign onto r (>= +0), on the bits
    rbits = r.view(np.int32)
    np.bitwise_or(rbits, np.bitwise_and(x.view(np.int32), _SIGN32), out=rbits)
    if any_nan:   # (a NaN's payload and sign, quieted, as the float64 path returns it)
        nan = np.isnan(x)
        r[nan] = x[nan].astype(np.float64)
    return r.reshape(shape)


_ERF_COMPUTE = _blockwise(_erf64, _erf32)   # (GELU computes with it too)
erf, erf_ = unary_op("erf", _ERF_COMPUTE,
                     check=_real_only["erf"], doc="The error function.")
erfc, erfc_ = unary_op("erfc", _blockwise(_erfc64),
                       check=_real_only["erfc"], doc="``1 - erf(x)``, accurate in the tail.")
erfinv, erfinv_ = unary_op(
    "erfinv", lambda xp, a: _erfinv64(xp, _as_float64(xp, a)), check=_real_only["erfinv"],
    inplace_function=False,
    doc="Inverse error function: inf at 1, -inf at -1, nan outside [-1, 1].")


# -------------------------------------------------------------------- activations

def _relu_check(input, inplace):
    if input._dtype is _dtypes.bool_:
        raise TensorRuntimeError(
            "Boolean inputs not supported for relu: convert the mask with .float() first.")
    if input._dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("clamp_min_scalar_cpu", input._dtype)


def _relu(xp, a):
    if xp is np and a.ndim and a.dtype.kind in "fi":
        # NumPy's maximum with the zero first returns ``a``'s element wherever the two
        # compare equal or ``a`` is NaN: -0.0 and every NaN's bits are kept, as PyTorch's
        # relu keeps them (checked bit for bit against it), in a third of ``where``'s time.
        return bounded(np.maximum, _ZEROS[a.dtype], a)
    # zero_where (not maximum): nan stays nan and -0.0 stays -0.0, as in PyTorch.
    return zero_where(xp, xp.less(a, 0), a)


_ZEROS = _constants(0, (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
                        np.int64))


@register("elementwise")
def relu(input):
    """``max(x, 0)`` element-wise, in the input's dtype (bool refused); no ``out=``."""
    _check_tensor("relu", input)
    _relu_check(input, False)
    return _run(relu.op, _relu, (input,), rule=PROMOTE)


@register("inplace")
def relu_(input):
    """In-place :func:`relu`."""
    _check_tensor("relu_", input)
    _relu_check(input, True)
    return _run(relu_.op, _relu, (input,), inplace=input, rule=PROMOTE)


def _logit_compute(eps, low_precision):
    def compute(xp, a):
        # float16/bfloat16: PyTorch's kernel keeps the clamp bounds and x / (1 - x) in the
        # low-precision dtype; round them the same way before the float32 log.
        rnd = (lambda v: v.astype(low_precision).astype(a.dtype)) if low_precision else (
            lambda v: v)
        if eps is not None and eps >= 0:
            lo = rnd(xp.asarray(eps, dtype=a.dtype))
            hi = rnd(1 - lo)
            a = xp.where(a < lo, lo, xp.where(a > hi, hi, a))
        return xp.log(rnd(a / rnd(1 - a)))

    return compute


def _logit_dtype_check(input, inplace):
    if input._dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("logit_cpu", input._dtype)


def _low_precision(input):
    return input._dtype.numpy if input._dtype in (_dtypes.float16, _dtypes.bfloat16) else None


def _check_float_arg(name, argname, position, value):
    """PyTorch's argument parser: a float argument may be a Python number or None only."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise TensorTypeError(
            f"{name}(): argument '{argname}' (position {position}) must be float, not "
            f"{type_name(value)}")


@register("elementwise")
def logit(input, eps=None, *, out=None):
    """``log(x / (1 - x))``; with ``eps``, x is first clamped to ``[eps, 1 - eps]``."""
    _check_tensor("logit", input)
    _check_float_arg("logit", "eps", 2, eps)
    _logit_dtype_check(input, False)
    return _run(logit.op, _logit_compute(eps, _low_precision(input)), (input,), out=out,
                rule=FLOAT)


@register("inplace")
def logit_(input, eps=None):
    """In-place :func:`logit`."""
    _check_tensor("logit_", input)
    _check_float_arg("logit_", "eps", 1, eps)
    _logit_dtype_check(input, True)
    return _run(logit_.op, _logit_compute(eps, _low_precision(input)), (input,),
                inplace=input, rule=FLOAT)


# ------------------------------------------------------------------------ rounding

def _keep_integers(fn_name):
    def compute(xp, a):
        return a.copy() if _is_int_or_bool(a) else getattr(xp, fn_name)(a)

    return compute


_ROUNDING = (
    ("floor", "floor", (), "Largest integer not above each element; integers unchanged."),
    ("ceil", "ceil", (), "Smallest integer not below each element; integers unchanged."),
    ("trunc", "trunc", ("fix",), "Rounds toward zero; integers unchanged."),
)
for _name, _fn, _aliases, _doc in _ROUNDING:
    globals()[_name], globals()[_name + "_"] = unary_op(
        _name, _keep_integers(_fn), PROMOTE, aliases=_aliases, exact_out=True,
        check=_supports(f"{_name}_vml_cpu", bool_=False, complex_=False), doc=_doc)

frac, frac_ = unary_op(
    "frac", lambda xp, a: a - xp.trunc(a), PROMOTE, exact_out=True,
    check=_supports("frac_cpu", bool_=False, integer=False, complex_=False),
    doc="``x - trunc(x)`` (floating inputs only; nan for infinities).")


def _round_compute(decimals):
    if not decimals:
        return _keep_integers("rint")  # half to even, like C's nearbyint

    def compute(xp, a):
        # PyTorch's formula, in the computation dtype (float32 for float32 and float16).
        if decimals < 0:
            ten_pow = xp.asarray(10.0 ** -decimals, dtype=a.dtype)
            return xp.rint(a / ten_pow) * ten_pow
        ten_pow = xp.asarray(10.0 ** decimals, dtype=a.dtype)
        return xp.rint(a * ten_pow) / ten_pow

    return compute


def _round_check(input, decimals, name="round"):
    if decimals is not None:
        int_arg(decimals, name, "decimals")  # PyTorch's TypeError for a float or a str
    category = input._dtype.category
    if category in (_dtypes.BOOL, _dtypes.COMPLEX) or (
            decimals is not None and category == _dtypes.INTEGRAL):
        # PyTorch's round(decimals=...) has no integer kernel, even for decimals=0.
        raise _not_implemented("round_cpu", input._dtype)


@register("elementwise")
def round(input, *, decimals=None, out=None):
    """Rounds half to even; ``decimals`` rounds to that many decimal places (floats only)."""
    _check_tensor("round", input)
    _round_check(input, decimals)
    _check_exact_out(out, input._dtype)
    return _run(round.op, _round_compute(decimals), (input,), out=out, rule=PROMOTE)


@register("inplace")
def round_(input, *, decimals=None):
    """In-place :func:`round`."""
    _check_tensor("round_", input)
    _round_check(input, decimals, "round_")
    return _run(round_.op, _round_compute(decimals), (input,), inplace=input, rule=PROMOTE)


# ------------------------------------------------------------------------ clamp

def _clamp_compute(has_min, has_max):
    # min(max(x, lo), hi): when lo > hi every element becomes hi; a NaN element or bound
    # gives NaN. A bound equal to the element leaves the element (PyTorch's kernels keep
    # ``x`` unless ``x < lo``: ``clamp(-0.0, min=0)`` is -0.0): the bound is the first
    # operand, as NumPy's vector loops hand back the second of two equal operands.
    # On the host, ``bounded`` runs NumPy's vector loops for a number bound (issue 18).
    if has_min and has_max:
        return _clamp_both
    if has_min:
        return lambda xp, a, lo: bounded(np.maximum, lo, a) if xp is np else xp.maximum(lo, a)
    return lambda xp, a, hi: bounded(np.minimum, hi, a) if xp is np else xp.minimum(hi, a)


def _clamp_both(xp, a, lo, hi):
    if xp is not np:
        return xp.minimum(hi, xp.maximum(lo, a))
    low = bounded(np.maximum, lo, a)
    # (the second pass into the first's fresh array; a 0-d one stays a NumPy result)
    return bounded(np.minimum, hi, low, out=low if low.ndim else None)


_CLAMP_OVERLOADS = ("(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
                    "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)")


def clamp_bounds(name, input, lo, hi):
    """A clamp's bounds as the overload they call: PyTorch has clamp(Tensor, Tensor?,
    Tensor?) and clamp(Tensor, Number?, Number?) only, and its argument parser takes a 0-d
    tensor that does not require grad for a Number (``clamp(x, 0, c_max)``, ``c_max`` a
    0-d tensor: ClampBackward1, the Number overload). Any other mix is refused."""
    if lo is None or hi is None or isinstance(lo, Tensor) == isinstance(hi, Tensor):
        return lo, hi
    bounds = []
    for bound in (lo, hi):
        if isinstance(bound, Tensor):
            if bound._shape or bound._requires_grad:
                raise invalid_combination(name, (input, lo, hi), {}, _CLAMP_OVERLOADS)
            bound = bound.item()
        bounds.append(bound)
    return tuple(bounds)


def _clamp(op, name, input, lo, hi, out=None, inplace=None):
    _check_tensor(name, input)
    if lo is None and hi is None:
        raise TensorRuntimeError(
            f"torch.{name.rstrip('_')}: At least one of 'min' or 'max' must not be None")
    lo, hi = clamp_bounds(name, input, lo, hi)
    values = [input] + [v if isinstance(v, Tensor) else _as_number(v, name)
                        for v in (lo, hi) if v is not None]
    promoted = result_dtype(values)
    if promoted.category == _dtypes.COMPLEX or input._dtype.category == _dtypes.COMPLEX:
        raise TensorNotImplementedError("clamp is not supported for complex types")
    tensor_bounds = isinstance(lo, Tensor) or isinstance(hi, Tensor)
    if promoted is _dtypes.bool_ and not tensor_bounds:
        # Only the number-bound kernels lack bool; clamp(bool, bool_tensor) works in PyTorch.
        kernel = ("clamp_scalar_cpu" if lo is not None and hi is not None else
                  "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
        raise _not_implemented(kernel, promoted)
    _check_exact_out(out, promoted)
    compute = _clamp_compute(lo is not None, hi is not None)
    if tensor_bounds:   # (``clamp_bounds``: the bounds are all tensors or all numbers)
        return _run(op, compute, tuple(values), out=out, inplace=inplace, rule=PROMOTE)
    for bound in values[1:]:
        # PyTorch converts number bounds to the computation's dtype, checked.
        _dtypes.check_scalar_fits(bound, promoted)
    # PyTorch's Scalar overload is a unary kernel with the bounds as its parameters: the
    # result is laid out as the input alone decides (a number operand of ``add`` takes part
    # in that choice; these do not), in the dtype the bounds promote it to.
    unary = _with_bounds(compute, values[1:], _number_dtype(op, False, promoted))
    if promoted is input._dtype:
        return _run(op, unary, (input,), out=out, inplace=inplace, rule=PROMOTE)
    return _run(op, unary, (input,), out=out, inplace=inplace, rule=PROMOTE,
                result_dtype_override=promoted)


def _with_bounds(compute, bounds, low):
    """``compute(xp, a, *bounds)`` as a unary computation: the number bounds converted to
    the computation's dtype as the element-wise ops convert a number operand (a float one
    beside a float32/float64 array as it is: NumPy rounds it to the array's dtype)."""

    def unary(xp, a):
        if low is None and a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            return compute(xp, a, *bounds)
        return compute(xp, a, *[number_operand(xp, v, a.dtype, low) for v in bounds])

    return unary


@register("elementwise", aliases=("clip",))
def clamp(input, min=None, max=None, *, out=None):
    """Limits each element to ``[min, max]`` (numbers or tensors; either may be None).

    The result dtype is PyTorch's promotion of ``input``, ``min`` and ``max``
    (``clamp(int_tensor, 0.5)`` is float32).
    """
    return _clamp(clamp.op, "clamp", input, min, max, out=out)


@register("inplace", aliases=("clip_",))
def clamp_(input, min=None, max=None):
    """In-place :func:`clamp`."""
    return _clamp(clamp_.op, "clamp_", input, min, max, inplace=input)


def _required_bound(name, value, which):
    if value is None:
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, NoneType):"
            f" '{which}' must be a Tensor or a number.")


@register("elementwise")
def clamp_min(input, min, *, out=None):
    """``max(input, min)`` element-wise (``min`` a number or a tensor)."""
    _required_bound("clamp_min", min, "min")
    return _clamp(clamp_min.op, "clamp_min", input, min, None, out=out)


@register("inplace")
def clamp_min_(input, min):
    """In-place :func:`clamp_min`."""
    _required_bound("clamp_min_", min, "min")
    return _clamp(clamp_min_.op, "clamp_min_", input, min, None, inplace=input)


@register("elementwise")
def clamp_max(input, max, *, out=None):
    """``min(input, max)`` element-wise (``max`` a number or a tensor)."""
    _required_bound("clamp_max", max, "max")
    return _clamp(clamp_max.op, "clamp_max", input, None, max, out=out)


@register("inplace")
def clamp_max_(input, max):
    """In-place :func:`clamp_max`."""
    _required_bound("clamp_max_", max, "max")
    return _clamp(clamp_max_.op, "clamp_max_", input, None, max, inplace=input)


# ------------------------------------------------------------------------ nan_to_num

def _nan_to_num_compute(dtype, nan, posinf, neginf):
    real = dtype.to_real()
    if real.category != _dtypes.FLOATING:
        return _same
    limits = _dtypes.finfo(real)
    big = limits.max if posinf is None else posinf
    small = limits.min if neginf is None else neginf
    nan_value = 0.0 if nan is None else nan

    def fix(xp, a):
        a = xp.where(xp.isnan(a), xp.asarray(nan_value, a.dtype), a)
        a = xp.where(a == math.inf, xp.asarray(big, a.dtype), a)
        return xp.where(a == -math.inf, xp.asarray(small, a.dtype), a)

    def compute(xp, a):
        if a.dtype.kind != "c":
            return fix(xp, a)
        result = xp.empty_like(a)
        result.real = fix(xp, a.real)
        result.imag = fix(xp, a.imag)
        return result

    return compute


@register("elementwise")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replaces nan by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the
    dtype's largest and smallest finite values); integer and bool tensors are copied."""
    _check_tensor("nan_to_num", input)
    for position, (argname, value) in enumerate(
            (("nan", nan), ("posinf", posinf), ("neginf", neginf)), start=2):
        _check_float_arg("nan_to_num", argname, position, value)
    if out is not None and isinstance(out, Tensor) and out._dtype is not input._dtype:
        raise TensorRuntimeError(
            f"nan_to_num: dtype of out: {out._dtype._torch_name} should be same as input: "
            f"{input._dtype._torch_name}")
    if out is None and input.numel() == 0:
        return _empty_like(nan_to_num.op, input, SAME_AS_INPUT)
    compute = _nan_to_num_compute(input._dtype, nan, posinf, neginf)
    return _run(nan_to_num.op, compute, (input,), out=out, rule=SAME_AS_INPUT)


@register("inplace")
def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place :func:`nan_to_num`."""
    _check_tensor("nan_to_num_", input)
    for position, (argname, value) in enumerate(
            (("nan", nan), ("posinf", posinf), ("neginf", neginf)), start=1):
        _check_float_arg("nan_to_num_", argname, position, value)
    compute = _nan_to_num_compute(input._dtype, nan, posinf, neginf)
    return _run(nan_to_num_.op, compute, (input,), inplace=input, rule=SAME_AS_INPUT)


# ------------------------------------------------------------------------ complex parts

def _part_view(input, imaginary):
    """The real or imaginary part of a complex tensor as a view: strides in real elements
    are twice the complex strides, and the imaginary part starts one element later."""
    real_dtype = input._dtype.to_real()
    stride = tuple(2 * s for s in input._stride)
    offset = 2 * input._offset + (1 if imaginary else 0)
    return make_view(input, input._shape, stride, offset, real_dtype)


@register("view", method=False)
def real(input):
    """The real part: a view for complex tensors, the tensor's values for real ones."""
    _check_tensor("real", input)
    if input._dtype.category == _dtypes.COMPLEX:
        result = _part_view(input, False)
    else:
        result = input  # PyTorch returns a real tensor itself
    return result


@register("view", method=False)
def imag(input):
    """The imaginary part of a complex tensor, as a view; real tensors raise."""
    _check_tensor("imag", input)
    if input._dtype.category != _dtypes.COMPLEX:
        raise TensorRuntimeError(
            "imag is not implemented for tensors with non-complex dtypes.")
    return _part_view(input, True)


def _set_part(getter):
    def setter(self, value):
        getter(self).copy_(value)  # the assignment writes through the view, as in PyTorch

    return setter


Tensor.real = property(real, _set_part(real), doc="The real part (a view for complex).")
Tensor.imag = property(imag, _set_part(imag), doc="The imaginary part (a view; complex only).")


def _conj(xp, a):
    return xp.conj(a) if a.dtype.kind == "c" else a.copy()


@register("view")
def conj(input):
    """The complex conjugate. Real tensors: the input's values (an alias).

    PyTorch returns a lazily conjugated view for complex tensors; jtensor has no conjugate
    bit, so complex inputs get a new conjugated tensor (as ``conj_physical``).
    """
    _check_tensor("conj", input)
    if input._dtype.category == _dtypes.COMPLEX:
        return _run(conj.op, _conj, (input,), rule=PROMOTE)
    return input  # real tensors: the tensor itself, as PyTorch


@register("elementwise")
def conj_physical(input, *, out=None):
    """The complex conjugate computed into a new tensor; real tensors: the input's values
    (an alias, as in PyTorch; ``out=`` gets a copy)."""
    _check_tensor("conj_physical", input)
    _check_exact_out(out, input._dtype)
    if out is None and input._dtype.category != _dtypes.COMPLEX:
        return input  # the tensor itself, as PyTorch
    return _run(conj_physical.op, _conj, (input,), out=out, rule=PROMOTE)


@register("inplace")
def conj_physical_(input):
    """In-place :func:`conj_physical` (nothing to change for real tensors)."""
    _check_tensor("conj_physical_", input)
    check_inplace(input)
    if input._dtype.category != _dtypes.COMPLEX:
        return input
    return _run(conj_physical_.op, _conj, (input,), inplace=input, rule=PROMOTE)
