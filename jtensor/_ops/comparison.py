"""Comparison, logical and bitwise ops, and the float-classification predicates.

eq/ne/lt/le/gt/ge (and PyTorch's aliases greater, less_equal, ...), logical_and/or/xor/not,
bitwise_and/or/xor/not and the shifts, with their operators (``==``, ``&``, ``~``, ``<<``...),
in-place forms (which keep ``self``'s dtype and write 0/1) and ``out=``; isclose, allclose and
equal (Python bools), isnan, isinf, isfinite, isposinf, isneginf and signbit; ``isin``
(membership of each element in a set of values); the Python-bool queries ``is_nonzero`` and
``is_same_size``.
"""

import numbers

from .. import _dtypes
from .._dispatch import Post, check_same_device
from .._elementwise import BOOL_RESULT, elementwise, result_dtype
from .._errors import TensorRuntimeError, TensorTypeError, type_name
from .._layout import broadcast_shapes
from .._registry import register
from .._tensor import Tensor
from .._errors import TensorNotImplementedError, not_implemented
from .arithmetic import as_operand, binary_op, promoted, quiet, refuse_dtypes
from .reductions import _LOW, _emit, _xp, check_out
from .views import _check_tensor

# ------------------------------------------------------------------------- comparisons

eq, eq_ = binary_op("eq", "equal", BOOL_RESULT, operator="__eq__", scalar_input=False,
                    array_operand=True)
ne, ne_ = binary_op("ne", "not_equal", BOOL_RESULT, operator="__ne__", scalar_input=False,
                    aliases=("not_equal",))
lt, lt_ = binary_op("lt", "less", BOOL_RESULT, operator="__lt__", scalar_input=False,
                    aliases=("less",), check=refuse_dtypes("lt_cpu", complex_=True))
le, le_ = binary_op("le", "less_equal", BOOL_RESULT, operator="__le__", scalar_input=False,
                    aliases=("less_equal",), check=refuse_dtypes("le_cpu", complex_=True))
gt, gt_ = binary_op("gt", "greater", BOOL_RESULT, operator="__gt__", scalar_input=False,
                    aliases=("greater",), check=refuse_dtypes("gt_cpu", complex_=True))
ge, ge_ = binary_op("ge", "greater_equal", BOOL_RESULT, operator="__ge__", scalar_input=False,
                    aliases=("greater_equal",), check=refuse_dtypes("ge_cpu", complex_=True))

# ------------------------------------------------------------------------------ logical

def _is_complex(t):
    return t._dtype.category == _dtypes.COMPLEX


def _logical(name):
    """``binary_op``'s ``select`` for ``logical_<name>``: the array module's ufunc, except on
    complex operands, which are first made ``!= 0`` (CuPy's logical ufuncs have no complex
    loops; the values are NumPy's and PyTorch's: NaN is true)."""
    def on_complex(xp, a, b):
        return getattr(xp, name)(a != 0, b != 0)

    def select(input, other):
        return on_complex if _is_complex(input) or _is_complex(other) else name

    return select


logical_and, logical_and_ = binary_op("logical_and", "logical_and", BOOL_RESULT,
                                      tensor_other=True, select=_logical("logical_and"))
logical_or, logical_or_ = binary_op("logical_or", "logical_or", BOOL_RESULT, tensor_other=True,
                                    select=_logical("logical_or"))
logical_xor, logical_xor_ = binary_op("logical_xor", "logical_xor", BOOL_RESULT,
                                      tensor_other=True, select=_logical("logical_xor"))

# PyTorch's cross-device error, checked by the entry before the implementation runs.
_SAME_DEVICE = Post(check_devices=True)


@register("elementwise")
def logical_not(input, *, out=None):
    """``True`` where ``input`` is zero; ``out=`` may have any dtype (gets 0/1)."""
    input = as_operand("logical_not", input, "input", 1, tensor_only=True)
    return elementwise(logical_not.op, _not_kernel(input), (input,), out=out, rule=BOOL_RESULT)


@register("inplace", function=False)
def logical_not_(self):
    """In place: ``self`` keeps its dtype and gets 0/1."""
    return elementwise(logical_not_.op, _not_kernel(self), (self,), inplace=self,
                       rule=BOOL_RESULT)


def _complex_not(xp, a):
    return a == 0  # CuPy's logical_not has no complex loop


def _not_kernel(t):
    return _complex_not if isinstance(t, Tensor) and _is_complex(t) else "logical_not"


# ------------------------------------------------------------------------------ bitwise

def _integral_only(kernel):
    return refuse_dtypes(kernel, floating=True, complex_=True)


def _shift_only(kernel):
    return refuse_dtypes(kernel, bool_=True, floating=True, complex_=True)


def _left_shift(xp, a, b):
    # PyTorch: shifting by a negative amount or by >= the bit width gives 0 (C leaves it
    # undefined); negative values shift as their unsigned bit pattern.
    bits = a.dtype.itemsize * 8
    bad = (b < 0) | (b >= bits)
    shifted = xp.left_shift(a, xp.where(bad, 0, b).astype(b.dtype))
    return xp.where(bad, xp.zeros_like(shifted), shifted)


def _right_shift(xp, a, b):
    # PyTorch: an out-of-range shift keeps only the sign (-1 for negatives, else 0).
    bits = a.dtype.itemsize * 8
    bad = (b < 0) | (b >= bits)
    shifted = xp.right_shift(a, xp.where(bad, 0, b).astype(b.dtype))
    sign = xp.where(a < 0, -xp.ones_like(shifted), xp.zeros_like(shifted)) \
        if a.dtype.kind == "i" else xp.zeros_like(shifted)
    return xp.where(bad, sign, shifted)


bitwise_and, bitwise_and_ = binary_op(
    "bitwise_and", "bitwise_and", operator="__and__", reflected="__rand__",
    inplace_operator="__iand__", check=_integral_only("bitwise_and_cpu"))
bitwise_or, bitwise_or_ = binary_op(
    "bitwise_or", "bitwise_or", operator="__or__", reflected="__ror__",
    inplace_operator="__ior__", check=_integral_only("bitwise_or_cpu"))
bitwise_xor, bitwise_xor_ = binary_op(
    "bitwise_xor", "bitwise_xor", operator="__xor__", reflected="__rxor__",
    inplace_operator="__ixor__", check=_integral_only("bitwise_xor_cpu"))
bitwise_left_shift, bitwise_left_shift_ = binary_op(
    "bitwise_left_shift", _left_shift, operator="__lshift__", reflected="__rlshift__",
    inplace_operator="__ilshift__", check=_shift_only("lshift_cpu"))
bitwise_right_shift, bitwise_right_shift_ = binary_op(
    "bitwise_right_shift", _right_shift, operator="__rshift__", reflected="__rrshift__",
    inplace_operator="__irshift__", check=_shift_only("rshift_cpu"))


def _check_bitwise_not(t):
    if t._dtype.category > _dtypes.INTEGRAL:
        raise not_implemented("bitwise_not_cpu", t._dtype)


@register("elementwise")
def bitwise_not(input, *, out=None):
    """Bit inversion of integers (``~``); logical not of bools."""
    input = as_operand("bitwise_not", input, "input", 1, tensor_only=True)
    _check_bitwise_not(input)
    if out is not None and out._dtype is not input._dtype:
        # A unary op's out= must have the input's dtype exactly (no cast), as in PyTorch.
        raise TensorRuntimeError(
            f"Found dtype {out._dtype._torch_name} but expected {input._dtype._torch_name}: "
            "bitwise_not's out= must have the input's dtype.")
    return elementwise(bitwise_not.op, "invert", (input,), out=out)


@register("inplace", function=False)
def bitwise_not_(self):
    """In-place ``bitwise_not``."""
    _check_bitwise_not(self)
    return elementwise(bitwise_not_.op, "invert", (self,), inplace=self)


def _invert(self):
    if self._dtype.category > _dtypes.INTEGRAL:
        raise TensorTypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors "
            f"(got {self._dtype}); use logical_not() or compare with 0 first.")
    return bitwise_not(self)


Tensor.__invert__ = _invert

# ------------------------------------------------------------------- float predicates


def _is_float_kind(a):
    return a.dtype.kind in "fc"


def _isnan(xp, a):
    return xp.isnan(a) if _is_float_kind(a) else xp.zeros(a.shape, dtype=bool)


def _isinf(xp, a):
    return xp.isinf(a) if _is_float_kind(a) else xp.zeros(a.shape, dtype=bool)


def _isfinite(xp, a):
    return xp.isfinite(a) if _is_float_kind(a) else xp.ones(a.shape, dtype=bool)


def _isposinf(xp, a):
    return xp.isinf(a) & (a > 0) if _is_float_kind(a) else xp.zeros(a.shape, dtype=bool)


def _isneginf(xp, a):
    return xp.isinf(a) & (a < 0) if _is_float_kind(a) else xp.zeros(a.shape, dtype=bool)


def _signbit(xp, a):
    if a.dtype.kind == "f":
        return xp.signbit(a)
    return a < 0 if a.dtype.kind == "i" else xp.zeros(a.shape, dtype=bool)


def _predicate(name, compute, *, with_out, complex_error=None):
    def check(input, out):
        input = as_operand(name, input, "input", 1, tensor_only=True)
        if complex_error is not None and input._dtype.category == _dtypes.COMPLEX:
            raise complex_error(input)
        if out is not None and out._dtype is not _dtypes.bool_:
            raise TensorRuntimeError(
                f"{name} does not support non-boolean outputs (got out= of dtype "
                f"{out._dtype}); pass a torch.bool tensor.")
        return input

    if with_out:
        def impl(input, *, out=None):
            input = check(input, out)
            return elementwise(impl.op, compute, (input,), out=out, rule=BOOL_RESULT)
    else:
        def impl(input):
            input = check(input, None)
            return elementwise(impl.op, compute, (input,), rule=BOOL_RESULT)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"``torch.{name}``: a bool tensor, element by element."
    return register("elementwise", name)(impl)


def _complex_unsupported(name):
    return lambda t: TensorRuntimeError(f"{name} does not support complex inputs.")


isnan = _predicate("isnan", _isnan, with_out=False)
isinf = _predicate("isinf", _isinf, with_out=False)
isfinite = _predicate("isfinite", _isfinite, with_out=False)
isposinf = _predicate("isposinf", _isposinf, with_out=True,
                      complex_error=_complex_unsupported("isposinf"))
isneginf = _predicate("isneginf", _isneginf, with_out=True,
                      complex_error=_complex_unsupported("isneginf"))


def _signbit_complex(t):
    return TensorNotImplementedError("signbit is not implemented for complex tensors.")


signbit = _predicate("signbit", _signbit, with_out=True, complex_error=_signbit_complex)

# ----------------------------------------------------------------------- closeness


def _isclose_args(name, input, other, rtol, atol):
    input = as_operand(name, input, "input", 1, tensor_only=True)
    other = as_operand(name, other, "other", 2, tensor_only=True)
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(
            f"{input._dtype._torch_name} did not match {other._dtype._torch_name}: {name} "
            "needs both tensors of one dtype; cast one with .to(other.dtype).")
    if rtol < 0:
        raise TensorRuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise TensorRuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    return input, other


def _isclose_kernel(dtype, rtol, atol, equal_nan):
    """PyTorch's isclose, step by step: each intermediate is rounded to the input dtype (the
    ops PyTorch composes it of each round), and integers measure their error in float32."""
    low = dtype in (_dtypes.float16, _dtypes.bfloat16)
    default = _dtypes.get_default_dtype().numpy

    def compute(xp, a, b):
        def rnd(x):
            return x.astype(dtype.numpy).astype(x.dtype) if low else x

        close = a == b
        if equal_nan and dtype.category >= _dtypes.FLOATING:
            close = close | (xp.isnan(a) & xp.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        if dtype is _dtypes.bool_:
            a, b = a.astype(default), b.astype(default)
        if a.dtype.kind in "iu":
            f = xp.asarray(rtol).astype(default) * b.astype(default)
            allowed = xp.asarray(atol).astype(default) + xp.abs(f)
            actual = xp.abs(a - b).astype(default)
            return close | (actual <= allowed)
        real = a.real.dtype
        allowed = rnd(xp.asarray(atol).astype(real) + xp.abs(rnd(xp.asarray(rtol).astype(real)
                                                                 * b)))
        actual = xp.abs(rnd(a - b))
        return close | (xp.isfinite(actual) & (actual <= allowed))

    def quiet_compute(xp, a, b):
        with quiet():
            return compute(xp, a, b)

    return quiet_compute


@register("elementwise")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` element-wise (plus exact equality, and
    NaN == NaN with ``equal_nan``); both tensors must share a dtype."""
    input, other = _isclose_args("isclose", input, other, rtol, atol)
    return elementwise(isclose.op, _isclose_kernel(input._dtype, rtol, atol, equal_nan),
                       (input, other), rule=BOOL_RESULT)


def _work_arrays(*tensors, dtype):
    work = _dtypes.float32 if dtype in (_dtypes.float16, _dtypes.bfloat16) else dtype
    arrays = []
    for t in tensors:
        a = t._array()
        arrays.append(a if a.dtype == work.numpy else a.astype(work.numpy))
    return arrays


@register("query", post=_SAME_DEVICE)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds everywhere (after broadcasting): a Python bool."""
    input, other = _isclose_args("allclose", input, other, rtol, atol)
    broadcast_shapes(input._shape, other._shape)  # PyTorch's broadcast error
    a, b = _work_arrays(input, other, dtype=input._dtype)
    xp = input._storage._backend.xp
    close = _isclose_kernel(input._dtype, rtol, atol, equal_nan)(xp, a, b)
    return bool(xp.all(close))


@register("query", post=_SAME_DEVICE)
def equal(input, other):
    """``True`` when both tensors have the same shape and equal values (NaN != NaN); dtypes
    may differ (compared after promotion)."""
    input = as_operand("equal", input, "input", 1, tensor_only=True)
    other = as_operand("equal", other, "other", 2, tensor_only=True)
    if input._shape != other._shape:
        result = False
    else:
        a, b = _work_arrays(input, other, dtype=promoted(input, other))
        result = bool(input._storage._backend.xp.all(a == b))
    return result


# ---------------------------------------------------------------------- isin
def _isin_side(value, scalar, name, scalar_name):
    """One side of ``isin``: the tensor (or positional number) ``value`` or the number
    ``scalar`` given by its scalar overload's name (a 0-d tensor counts as one)."""
    if scalar is None:
        if value is None:
            raise TensorTypeError(f"isin() missing required argument '{name}' (or "
                                  f"'{scalar_name}' for a number)")
        return value
    if value is not None:
        raise TensorTypeError(f"isin() received an invalid combination of arguments - got "
                              f"both '{name}' and '{scalar_name}'")
    if isinstance(scalar, Tensor):
        if scalar._shape:
            raise TensorTypeError(
                f"isin(): argument '{scalar_name}' must be Number, not a "
                f"{len(scalar._shape)}-d Tensor (pass a tensor as '{name}')")
        return scalar.item()
    if not isinstance(scalar, numbers.Number):
        raise TensorTypeError(f"isin(): argument '{scalar_name}' must be Number, not "
                              f"{type_name(scalar)}")
    return scalar


@register("copy", method=False)
def isin(elements=None, test_elements=None, *, element=None, test_element=None,
         assume_unique=False, invert=False, out=None):
    """Whether each of ``elements`` occurs in ``test_elements`` (negated with ``invert``).

    Either side may be a number: by name ``element=`` (for ``elements``) or
    ``test_element=`` (for ``test_elements``), PyTorch's scalar overloads.
    """
    elements = _isin_side(elements, element, "elements", "element")
    test_elements = _isin_side(test_elements, test_element, "test_elements", "test_element")
    e_tensor, t_tensor = isinstance(elements, Tensor), isinstance(test_elements, Tensor)
    if not (e_tensor or t_tensor):
        raise TensorTypeError(
            f"isin() received an invalid combination of arguments - got "
            f"({type(elements).__name__}, {type(test_elements).__name__}); at least one of "
            f"elements and test_elements must be a Tensor")
    for x in (elements, test_elements):
        if not isinstance(x, (Tensor, numbers.Number)):
            raise TensorTypeError(
                f"isin(): expected a Tensor or a number, but got {type_name(x)}")
    tensors = [x for x in (elements, test_elements) if isinstance(x, Tensor)]
    device = check_same_device(tensors)
    for x in (elements, test_elements):
        dtype = x._dtype if isinstance(x, Tensor) else _dtypes.scalar_dtype(x)
        if dtype.category in (_dtypes.BOOL, _dtypes.COMPLEX):
            raise TensorRuntimeError(
                f"Unsupported input type encountered for isin(): {dtype._torch_name}")
    dtype = result_dtype([elements, test_elements])
    xp = _xp(tensors[0])
    work = _dtypes.float32 if dtype in _LOW else dtype

    def values(x):
        if isinstance(x, Tensor):
            return x._array().astype(work.numpy)
        return xp.asarray(x, dtype=work.numpy)

    check_out(out, "isin", _dtypes.bool_)
    r = xp.isin(values(elements), values(test_elements), invert=bool(invert))
    return _emit(isin.op, tuple(tensors), xp, r, _dtypes.bool_, device, out)


# ---------------------------------------------------------------------- is_nonzero, is_same_size
@register("query")
def is_nonzero(input):
    """``True`` when the single element of ``input`` is not zero (a Python bool); tensors
    with no or several elements raise."""
    _check_tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise TensorRuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise TensorRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    value = input._array().reshape(-1)[0]
    return bool(value != 0)


@register("query")
def is_same_size(input, other):
    """Whether ``input`` and ``other`` have the same shape."""
    _check_tensor(input, "is_same_size", "input", 1)
    _check_tensor(other, "is_same_size", "other", 1)
    return tuple(input._shape) == tuple(other._shape)
