"""Binary arithmetic: add, sub, mul, div, floor_divide, remainder, fmod, pow, atan2,
maximum/minimum, fmax/fmin, hypot, copysign, xlogy, and the ternary lerp, addcmul, addcdiv.

Each binary op is defined once through ``binary_op``, which registers the function form
(``torch.add``), the method (``x.add``), the in-place method (``x.add_``) and the operators.
``compute`` is an array-module function name or ``compute(xp, a, b)``. The checks PyTorch does
before computing (bool subtraction, dtypes a kernel lacks, integer division by zero) raise the
same builtin exception type PyTorch raises, before anything is written.
"""

import functools
import numbers
import warnings

import numpy as np

from .. import _autocast, _dispatch, _dtypes
from .._arraymod import fma32
from .._blas import axpy
from .._elementwise import FLOAT, PROMOTE, SAME_AS_INPUT, elementwise, result_dtype, run_compute
from .._errors import TensorRuntimeError, TensorTypeError, not_implemented, type_name
from .._registry import FUNCTIONS, register, renamed
from .._device import CPU_BACKEND
from .._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, fresh_tensor
from .._torch_function import NO_OVERRIDE, PLAIN_ARGUMENTS, dispatch_subclasses


_TRANSFORMS = _dispatch.transforms  # the function transforms in effect (forward AD, vmap)
_NUMBERS = (bool, int, float, complex)


def is_operand(x):
    """Whether an operator should handle ``x`` (else it returns ``NotImplemented``): a tensor
    or a number (a NumPy scalar included).

    A NumPy array is not one. PyTorch's operators decline it, so Python hands ``t + array``
    to the array's reflected operator: NumPy computes it, with NumPy's promotion, from
    ``t.__array__()`` (which refuses a tensor that requires grad), and ``__array_wrap__``
    makes the result a tensor. ``array + t`` is declined both ways: a ``TypeError``. Only
    ``t == array`` (``binary_op(array_operand=True)``) and ``array / t`` compute."""
    return isinstance(x, (Tensor, numbers.Number, np.generic))


def _array_operand(x):
    """A NumPy array as PyTorch's ``t == array`` takes it: a 0-d one as its number, any
    other as a tensor of its dtype (a copy). None for an array no tensor can hold
    (strings, objects): the operator then declines it."""
    if x.ndim == 0 and x.dtype.kind in "biufc":
        return x.item()
    try:
        return Tensor._from_array(np.array(x))
    except TypeError:
        return None


# The ops PyTorch's argument parser lets take two numbers (its "numbers as tensors" list):
# the first becomes a 0-d tensor of the number's default dtype, which gives the result
# dtype of two wrapped numbers.
_NUMBERS_AS_TENSORS = frozenset({"add", "sub", "mul", "div", "floor_divide"})


def number_tensor(x):
    """A Python number as the 0-d CPU tensor of its default dtype (``torch.tensor(x)``'s)."""
    dtype = promoted(x)
    return Tensor._from_array(np.asarray(x, dtype=dtype.numpy), dtype)


def as_operand(op_name, x, argname, position, tensor_only=False):
    """Validate one argument: a Tensor, or (unless ``tensor_only``) a Python/NumPy number."""
    if isinstance(x, Tensor):
        return x
    if not tensor_only:
        if x.__class__ is int:
            _dtypes.check_int_scalar(x)
            return x
        if isinstance(x, _NUMBERS):
            return x
        if isinstance(x, np.generic) and not isinstance(x, (np.void, np.str_, np.bytes_)):
            return x.item()
        if isinstance(x, numbers.Number):
            return complex(x) if not isinstance(x, numbers.Real) else float(x)
    kind = "Tensor" if tensor_only else "Tensor or Number"
    raise TensorTypeError(
        f"{op_name}(): argument '{argname}' (position {position}) must be {kind}, not "
        f"{type_name(x)}")


def promoted(*values):
    """The dtype PyTorch computes ``values`` (tensors and numbers) in."""
    return result_dtype(values)


def quiet():
    """NumPy floating-point warnings off: PyTorch divides by zero silently (inf/nan)."""
    return np.errstate(all="ignore")


def _call(xp, compute, arrays):
    # No errstate here (it costs more than a small add): see _elementwise.run_compute.
    return run_compute(xp, compute, arrays)


def binary_op(name, compute, rule=PROMOTE, *, operator=None, reflected=None,
              inplace_operator=None, check=None, alpha=False, inplace=True, aliases=(),
              tensor_other=False, scalar_input=True, extra_operators=(), select=None,
              commutes=False, array_operand=False):
    """Define ``name`` (function and method) and ``name_`` (in place) from one ``compute``.

    ``reflected``: the ``__rop__`` name (computes ``compute(other, self)``); ``alpha``: accept
    ``alpha=`` scaling the second operand, as add and sub do. ``check(a, b)`` raises PyTorch's
    error before anything is computed. ``tensor_other``: ``other`` must be a Tensor (maximum,
    atan2...). ``scalar_input``: the function form accepts a number as ``input`` (``torch.div(
    3, x)``). ``aliases``: other names of the same op (``divide``); they get ``alias_`` too.
    ``select(input, other)``: returns the ``compute`` for these operands, for kernels that
    depend on whether an operand is a number or a tensor (pow); the default is ``compute``.
    ``commutes``: the reflected operator is PyTorch's ``self.op(other)`` (``2 * x`` is
    ``mul(x, 2)``: ``x``'s edge comes first in ``next_functions``, and in the trace event).
    ``array_operand``: the operator computes with a NumPy array operand (``t == array``, the
    only one PyTorch's operators take; see ``is_operand``).
    """

    # ``compute`` goes to the runner as it is (a name or a callable): no wrapper per call.
    run = compute

    def scaled(alpha_value):
        if alpha_value == 1 and not isinstance(alpha_value, bool):
            return run

        # ``a + alpha * b`` is one fused multiply-add an element in PyTorch's kernel (``sub``
        # adds ``-alpha``): BLAS's axpy gives those bits where the operands are two float
        # arrays of one dtype and shape (``_blas``); else ``b * alpha`` then the op.
        fused = alpha_value if compute == "add" else -alpha_value \
            if compute == "subtract" else None

        def fusable(xp, a, b):   # (two NumPy arrays of one shape: axpy checks the rest)
            return fused is not None and xp is np and a.__class__ is np.ndarray \
                and b.__class__ is np.ndarray and a.shape == b.shape

        def with_alpha(xp, a, b):
            if fusable(xp, a, b) and a.flags.c_contiguous and b.flags.c_contiguous:
                r = a.copy()
                if axpy(fused, b, r):
                    return r
            with quiet():
                # ``b`` may arrive as a Python number on the fast path (``add(t, 2, alpha=3)``).
                b = b * xp.asarray(alpha_value).astype(b.dtype) if hasattr(b, "dtype") else \
                    b * alpha_value
            return run_compute(xp, compute, (a, b))

        if type(compute) is str:
            def into(xp, a, b, out):
                # (``self.add_(other, alpha=a)``: ``self`` is ``out``, most often its very
                # array; ``ndarray.ctypes`` and an exact overlap test only where needed)
                if fusable(xp, a, b) and (a is out or (
                        a.shape == out.shape and a.strides == out.strides
                        and a.ctypes.data == out.ctypes.data)) \
                        and not (np.may_share_memory(b, out) and np.shares_memory(b, out)) \
                        and axpy(fused, b, out):
                    return
                b = b * xp.asarray(alpha_value).astype(b.dtype) if hasattr(b, "dtype") else \
                    b * alpha_value
                getattr(xp, compute)(a, b, out=out)

            with_alpha.into = into
        return with_alpha

    def args(input, other, first_is_self):
        input = as_operand(name, input, "input", 1,
                           tensor_only=first_is_self or not scalar_input or tensor_other)
        other = as_operand(name, other, "other", 2, tensor_only=tensor_other)
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            if name not in _NUMBERS_AS_TENSORS:
                raise TensorTypeError(
                    f"{name}() received an invalid combination of arguments: at least one of input "
                    f"and other must be a Tensor, got {type_name(input)} and "
                    f"{type_name(other)}")
            input = number_tensor(input)   # (``torch.add(1.5, 2.5)``: a 0-d result)
        if check is not None:
            check(input, other)
        return input, other

    if alpha:
        def impl(input, other, *, alpha=1, out=None):
            input, other = args(input, other, False)
            _check_alpha(input, other, alpha, name)
            return elementwise(impl.op, scaled(alpha), (input, other), out=out, rule=rule)

        def impl_inplace(self, other, *, alpha=1):
            self, other = args(self, other, True)
            _check_alpha(self, other, alpha, name + "_")
            return elementwise(impl_inplace.op, scaled(alpha), (self, other), inplace=self,
                               rule=rule)
    elif select is not None:
        def impl(input, other, *, out=None):
            input, other = args(input, other, False)
            return elementwise(impl.op, select(input, other), (input, other), out=out,
                               rule=rule)

        def impl_inplace(self, other):
            self, other = args(self, other, True)
            return elementwise(impl_inplace.op, select(self, other), (self, other),
                               inplace=self, rule=rule)
    else:
        def impl(input, other, *, out=None):
            input, other = args(input, other, False)
            return elementwise(impl.op, run, (input, other), out=out, rule=rule)

        def impl_inplace(self, other):
            self, other = args(self, other, True)
            return elementwise(impl_inplace.op, run, (self, other), inplace=self, rule=rule)

    impl.__doc__ = f"``torch.{name}``: element-wise, with PyTorch's promotion and broadcasting."
    impl_inplace.__doc__ = f"In-place ``{name}``: the result must fit ``self``'s shape and dtype."
    impl = _define(name, impl, "elementwise", aliases)
    if inplace:
        impl_inplace = _define(name + "_", impl_inplace, "inplace",
                               tuple(a + "_" for a in aliases), function=False)
    for attr in ((operator,) if operator else ()) + tuple(extra_operators):
        # (an operator's operands need no parsing; the op's check, reading both operands,
        # runs in the operator. Ops whose kernel depends on the operands (pow's ``select``)
        # or that want a tensor ``other`` take their entry.)
        direct = None if tensor_other or select is not None else (compute, rule, check)
        setattr(Tensor, attr, operator_method(impl, direct, array_operand))
    if reflected:
        def reflected_impl(self, other):
            if _dispatch.subclass_dispatch:
                handled = _subclass_handled(reflected_impl, self, other)
                if handled is not NO_OVERRIDE:
                    return handled
            if not is_operand(other):
                return NotImplemented
            other = as_operand(name, other, "other", 1)
            if check is not None:
                check(other, self)
            first, second = (self, other) if commutes else (other, self)
            if self._requires_grad or _TRANSFORMS.active or _dispatch.profile_hook is not None:
                if self._requires_grad and _GRAD_MODE.record and not _TRANSFORMS.active \
                        and _dispatch.profile_hook is None and not _autocast.active \
                        and self.__class__ in DENSE_CLASSES:
                    # Recorded as the entry would record it (``2 - x`` is RsubBackward1),
                    # without parsing again what was checked above (issue 18).
                    if commutes:
                        return _dispatch.autograd_operator(impl.op, reflected_run, first,
                                                           second)
                    return _dispatch.autograd_call(impl.op, reflected_run, (first, second), {})
                # the entry: transformed, timed or cast first
                return impl(first, second)
            return reflected_run(first, second)

        def reflected_run(first, second):
            result = elementwise(impl.op, run if select is None else select(first, second),
                                 (first, second), rule=rule)
            if _dispatch.trace_hook is not None or _dispatch.autograd_hook is not None:
                _dispatch.notify(impl.op, _tensors(first, second), result)
            return result

        setattr(Tensor, reflected, reflected_impl)
    if inplace_operator:
        setattr(Tensor, inplace_operator, operator_method(impl_inplace))
    return impl, (impl_inplace if inplace else None)


def _define(name, impl, kind, aliases, function=True):
    impl.__name__ = impl.__qualname__ = name
    return register(kind, name, function=function, aliases=aliases)(impl)


_DIRECT_OPERANDS = (float, int)
_INT_LOW, _INT_HIGH = -(1 << 63), 1 << 64   # (the Python ints a Scalar argument takes)
_GRAD_MODE = _dispatch.grad_mode


def _tensors(a, b):
    return tuple(x for x in (a, b) if isinstance(x, Tensor))


def operator_method(fn, direct=None, array_operand=False):
    """``Tensor.__op__``: numbers and tensors only; anything else gives ``NotImplemented`` so
    Python falls back (``t == None`` is ``False``, ``t + None`` a ``TypeError``).

    ``direct``: ``(compute, rule, check)`` for ops whose arguments need no checks but
    ``check(a, b)`` (None: none), so ``a + b`` with a tensor or a plain number goes straight
    to the element-wise runner (the hottest path there is); the method then ends the call
    as the op's entry does (the hooks, when one listens). ``array_operand``: a NumPy array
    operand is computed with as ``_array_operand`` takes it, not declined.
    """
    if direct is not None:
        compute, rule, check = direct
        op = fn.op
        # The NumPy ufunc of a named kernel whose result keeps a float operand's dtype:
        # ``_same_layout`` may compute a recorded call on the arrays.
        ufunc = getattr(np, compute, None) if compute.__class__ is str and \
            rule in (PROMOTE, SAME_AS_INPUT, FLOAT) else None

        def run(input, other):
            result = elementwise(op, compute, (input, other), rule=rule)
            if _dispatch.trace_hook is not None or _dispatch.autograd_hook is not None:
                _dispatch.notify(op, _tensors(input, other), result)
            return result

        def method(self, other):
            if isinstance(other, Tensor) or other.__class__ in _DIRECT_OPERANDS:
                if other.__class__ is int and not _INT_LOW <= other < _INT_HIGH:
                    _dtypes.check_int_scalar(other)   # (PyTorch's OverflowError)
                if _TRANSFORMS.active or _dispatch.profile_hook is not None:
                    return fn(self, other)  # the entry: transformed or timed
                if _dispatch.subclass_dispatch:
                    handled = _subclass_handled(getattr(Tensor, fn.__name__, fn), self, other)
                    if handled is not NO_OVERRIDE:
                        return handled
                if check is not None:   # (where the op's own checks run: after dispatch)
                    check(self, other)
                if (self._requires_grad or (isinstance(other, Tensor) and other._requires_grad)) \
                        and _GRAD_MODE.record:
                    if _autocast.active:
                        return fn(self, other)   # the op's cast policy first
                    # Recorded as the op's entry would (same node, same saved values), minus
                    # the argument parsing the operator does not need.
                    return _dispatch.autograd_operator(
                        op, run, self, other,
                        None if ufunc is None else _same_layout(ufunc, self, other))
                return run(self, other)
            if not is_operand(other):
                other = _array_operand(other) if array_operand and \
                    isinstance(other, np.ndarray) else None
                if other is None:
                    return NotImplemented
            return fn(self, other)

        method.__name__ = method.__qualname__ = fn.__name__
        method.__doc__ = fn.__doc__
        return method

    def method(self, other):
        if not is_operand(other):
            other = _array_operand(other) if array_operand and isinstance(other, np.ndarray) \
                else None
            if other is None:
                return NotImplemented
        if _dispatch.subclass_dispatch:
            handled = _subclass_handled(getattr(Tensor, fn.__name__, fn), self, other)
            if handled is not NO_OVERRIDE:
                return handled
        return fn(self, other)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _same_layout(ufunc, a, b):
    """A recorded operator's result computed on the arrays (issue 18), where ``_fast``
    would compute it with the same ufunc: two plain contiguous CPU float32/float64 tensors
    of one shape, strides and dtype, and nothing listening (no trace or autograd hook).
    None for anything else (the operator then runs its element-wise path)."""
    if b.__class__ not in DENSE_CLASSES or a.__class__ not in DENSE_CLASSES \
            or not (a._contiguous or (a._contiguous is None and a.is_contiguous())) \
            or not (b._contiguous or (b._contiguous is None and b.is_contiguous())) \
            or a._dtype is not b._dtype or a._dtype not in ARRAY_FLOATS \
            or a._shape != b._shape or a._stride != b._stride \
            or a._storage._backend is not CPU_BACKEND or b._storage._backend is not CPU_BACKEND \
            or a._creation_meta is not None or b._creation_meta is not None \
            or _dispatch.trace_hook is not None or _dispatch.autograd_hook is not None:
        return None
    x, y = a._array(), b._array()
    try:
        r = ufunc(x, y)
    except RuntimeWarning:   # (warnings made errors: redone quietly, as ``run_compute``)
        with np.errstate(all="ignore"):
            r = ufunc(x, y)
    shape = a._shape
    if not shape:
        r = np.asarray(r)   # (a NumPy scalar from a 0-d computation)
    return fresh_tensor(Tensor, r, shape, a._dtype, a._storage.device, CPU_BACKEND)


def _subclass_handled(func, self, other):
    """An operator's call through a tensor subclass's ``__torch_function__`` (once subclasses
    dispatch): ``NO_OVERRIDE`` when neither operand is of a class that may take part. PyTorch
    hands ``x + 1`` to the handler as the method ``Tensor.add``; a ``TypeError`` (every
    handler declined) becomes ``NotImplemented``, so that Python tries the other operand and
    then reports the operator, as PyTorch's operators do."""
    if self.__class__ in PLAIN_ARGUMENTS and other.__class__ in PLAIN_ARGUMENTS:
        return NO_OVERRIDE
    try:
        return dispatch_subclasses(None, func, (self, other), {})
    except TypeError:
        return NotImplemented


# ------------------------------------------------------------------------------ checks

def _dtype_of(x):
    return x._dtype if isinstance(x, Tensor) else _dtypes.scalar_dtype(x)


def _is_bool(x):
    return x._dtype is _dtypes.bool_ if isinstance(x, Tensor) else isinstance(x, bool)


def _check_alpha(a, b, alpha, name="add"):
    if alpha.__class__ is float and isinstance(a, Tensor) \
            and a._dtype.category >= _dtypes.FLOATING:
        return   # (a floating or complex result, whatever ``b`` is: a float alpha suits it)
    if alpha.__class__ is int:
        if alpha == 1:
            return
        _dtypes.check_int_scalar(alpha)
        if isinstance(a, Tensor) and a._dtype.category != _dtypes.BOOL:
            if not -(1 << 63) <= alpha < 1 << 63:
                # (past int64: PyTorch converts alpha to the result's type, checked)
                _dtypes.check_scalar_fits(alpha, promoted(a, b))
            return  # an int alpha suits every non-bool result
    if not isinstance(alpha, (numbers.Number, Tensor)):
        raise TensorTypeError(
            f"{name}(): argument 'alpha' must be Number, not {type_name(alpha)}")
    result = promoted(a, b)
    if isinstance(alpha, bool):
        if result is not _dtypes.bool_:
            raise TensorRuntimeError("Boolean alpha only supported for Boolean results.")
    elif result.category <= _dtypes.INTEGRAL and isinstance(alpha, (float, complex)):
        raise TensorRuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number.")
    elif result.category == _dtypes.FLOATING and isinstance(alpha, complex):
        raise TensorRuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number.")


def _refuse_bool_subtraction(a, b):
    if _is_bool(a) and _is_bool(b):
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def refuse_dtypes(kernel, *, bool_=False, integral=False, floating=False, complex_=False):
    """A ``check`` raising PyTorch's ``NotImplementedError`` for the promoted dtypes the
    kernel has no implementation for."""
    refused = {_dtypes.BOOL: bool_, _dtypes.INTEGRAL: integral, _dtypes.FLOATING: floating,
               _dtypes.COMPLEX: complex_}

    def check(*values):
        dtype = promoted(*values)
        if refused[dtype.category]:
            raise not_implemented(kernel, dtype)

    return check


def _refuse_complex(name):
    def check(a, b):
        if promoted(a, b).category == _dtypes.COMPLEX:
            raise TensorRuntimeError(f"{name} not implemented for complex tensors.")

    return check


def _zero_division_check(xp, a, b):
    """Integer division by zero is an error in PyTorch (not a silent 0 as in NumPy).

    ``b`` may be a NumPy scalar beside a device array (a number operand, see
    ``_elementwise._scalar_array``): ``.any()`` is the method both have (``cupy.any``
    refuses anything but a CuPy array)."""
    if b.dtype.kind in "iub" and b.size and a.size and bool((b == 0).any()):
        raise TensorRuntimeError(
            "ZeroDivisionError: integer division (or remainder) by zero. Use a float tensor "
            "to get inf/nan instead.")


# --------------------------------------------------------------------- kernels (xp-generic)

def _true_divide(xp, a, b):
    return xp.true_divide(a, b)


def _trunc_divide(xp, a, b):
    if a.dtype.kind in "fc":
        return xp.trunc(a / b)
    _zero_division_check(xp, a, b)
    q = xp.floor_divide(a, b)
    # floor and trunc differ when the division is inexact and the signs differ.
    if a.dtype.kind == "i":
        q = q + ((xp.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(q.dtype)
    return q


def _floor_divide(xp, a, b):
    if a.dtype.kind not in "fc":
        _zero_division_check(xp, a, b)
        return xp.floor_divide(a, b)
    # NumPy's float floor_divide is PyTorch's div_floor_floating (fmod-based, a/b when b == 0);
    # CuPy's is floor(a / b), which differs at inf, nan and signed zeros and where a / b
    # rounds up to an integer (half(435.) // 0.1 is 434., not 435.).
    if xp is np:
        return xp.floor_divide(a, b)
    return div_floor_floating(xp, a, b)


def div_floor_floating(xp, a, b):
    """PyTorch's ``div_floor_floating`` (c10/util/generic_math.h), element-wise with any array
    module: ``(a - fmod(a, b)) / b``, one less where the remainder's sign is not ``b``'s,
    floored (rounded up past .5), a zero signed as ``a / b``; ``a / b`` where ``b == 0``."""
    mod = xp.fmod(a, b)
    div = xp.true_divide(xp.subtract(a, mod), b)
    div = xp.where((mod != 0) & ((mod < 0) != (b < 0)), div - 1, div)
    floordiv = xp.floor(div)
    floordiv = xp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    quotient = xp.true_divide(a, b)
    floordiv = xp.where(div != 0, floordiv, xp.copysign(floordiv, quotient))
    return xp.where(b == 0, quotient, floordiv)


def _remainder(xp, a, b):
    if a.dtype.kind not in "fc":
        _zero_division_check(xp, a, b)
        return xp.remainder(a, b)
    # PyTorch: mod = fmod(a, b), moved into b's sign; a zero keeps fmod's sign (-4 % 2 = -0.).
    mod = xp.fmod(a, b)
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    return xp.where(fix, mod + b, mod)


def _fmod(xp, a, b):
    if a.dtype.kind not in "fc":
        _zero_division_check(xp, a, b)
    return xp.fmod(a, b)


def _pow(xp, a, b):
    kind = a.dtype.kind
    if kind == "b":
        return a | ~b  # x**0 is 1, x**1 is x
    if kind in "iu":
        negative = b < 0  # a NumPy bool when ``b`` is a number: ``.any()``, not ``xp.any``
        if kind == "i" and bool(negative.any()):
            # PyTorch's integer pow: 1 ** -n = 1, (-1) ** -n = +-1, anything else 0.
            r = xp.power(a, xp.where(negative, 0, b).astype(b.dtype))
            one = xp.ones_like(r)
            special = xp.where(a == 1, one,
                               xp.where(a == -1, xp.where(b % 2 == 0, one, -one), 0 * one))
            return xp.where(negative, special, r)
        return xp.power(a, b)
    return xp.power(a, b)


def pow_tensor_exponent(xp, a, b):
    """``pow`` with a tensor exponent: C's ``pow`` for every element, as PyTorch's kernel.

    NumPy computes ``x ** 0.5`` as ``sqrt(x)`` when the exponent repeats along the loop (a
    0-d or broadcast exponent), which differs from ``pow`` at -0. and -inf (``pow(-0., .5)``
    is +0., ``pow(-inf, .5)`` is +inf): those elements are put right.
    """
    r = _pow(xp, a, b)
    if a.dtype.kind == "f" and hasattr(b, "shape") and (
            b.shape != r.shape or 0 in b.strides):
        fix = (b == 0.5) & ((a == 0) | (a == -xp.inf))
        r = xp.where(fix, xp.abs(a), r)
    return r


def pow_scalar_exponent(xp, a, b):
    """``pow`` with a number exponent, computed the way PyTorch's float/double/bfloat16
    kernel does: 0.5 is ``sqrt``, -0.5 ``1 / sqrt``, -1 ``1 / x``, 2 ``x * x``, 3
    ``x * x * x``, -2 ``1 / (x * x)`` (this shows at -0., +-inf: ``(-0.) ** -0.5`` is -inf,
    ``(-inf) ** -0.5`` nan), anything else C's ``pow``."""
    if a.dtype.kind == "f":
        e = float(b)
        if e == 0.5:
            return xp.sqrt(a)
        if e == -0.5:
            return xp.reciprocal(xp.sqrt(a))
        if e == -1.0:
            return xp.reciprocal(a)
        if e == 2.0:
            return a * a
        if e == 3.0:
            return a * a * a
        if e == -2.0:
            return xp.reciprocal(a * a)
    return pow_tensor_exponent(xp, a, b)


_POW_SPECIAL_DTYPES = (_dtypes.float32, _dtypes.float64, _dtypes.bfloat16)


def _pow_half_scalar(xp, a, b):
    """A float16 tensor to a number: PyTorch rounds the exponent to float16 first
    (``half(-1.9) ** 1e-31`` is ``x ** 0 == 1``), then computes in float32."""
    return pow_tensor_exponent(xp, a, xp.asarray(b).astype(np.float16).astype(a.dtype))


def _select_pow(base, exponent):
    # PyTorch's pow(Tensor, Scalar) kernel special-cases some exponents for float, double
    # and bfloat16 (not half); pow(Tensor, Tensor), even with a 0-d exponent, is plain pow.
    if isinstance(exponent, Tensor):
        return pow_tensor_exponent
    if base._dtype is _dtypes.float16 and exponent.__class__ is not complex:
        return _pow_half_scalar
    if base._dtype in _POW_SPECIAL_DTYPES and exponent.__class__ is not complex:
        return pow_scalar_exponent  # a real number keeps a float tensor's dtype
    return pow_scalar_exponent if promoted(base, exponent) in _POW_SPECIAL_DTYPES else \
        pow_tensor_exponent


def _xlogy(xp, x, y):
    r = xp.where(x == 0, xp.zeros_like(x), x * xp.log(y))
    return xp.where(xp.isnan(y), y, r)


def _check_pow(base, exponent):
    if isinstance(exponent, Tensor):  # pow(Tensor, Tensor) and pow(Scalar, Tensor)
        dtype = promoted(base, exponent)
        if dtype is _dtypes.bool_:
            raise not_implemented("pow", dtype)
    elif isinstance(base, Tensor) and exponent.__class__ in (int, float):
        # pow(Tensor, Scalar) converts the exponent, checked, to an integer or half-precision
        # result's dtype (float32/float64 kernels take it as a double).
        dtype = promoted(base, exponent)
        if dtype.category <= _dtypes.INTEGRAL or dtype in (_dtypes.float16, _dtypes.bfloat16):
            _dtypes.check_scalar_fits(exponent, dtype)
    if isinstance(base, Tensor) and not isinstance(exponent, Tensor) and \
            base._dtype.category <= _dtypes.INTEGRAL and isinstance(exponent, int) and \
            not isinstance(exponent, bool) and exponent < 0:
        raise TensorRuntimeError(
            "Integers to negative integer powers are not allowed. Use a float exponent "
            f"(x ** {float(exponent)}) or a float tensor.")


# ------------------------------------------------------------------------------ the ops

add, add_ = binary_op("add", "add", operator="__add__", reflected="__radd__",
                      inplace_operator="__iadd__", alpha=True, commutes=True)
sub, sub_ = binary_op("sub", "subtract", operator="__sub__", reflected="__rsub__",
                      inplace_operator="__isub__", alpha=True, check=_refuse_bool_subtraction,
                      aliases=("subtract",))
mul, mul_ = binary_op("mul", "multiply", operator="__mul__", reflected="__rmul__",
                      inplace_operator="__imul__", aliases=("multiply",), commutes=True)

_DIV_KERNELS = {"trunc": (_trunc_divide, "div_trunc_cpu"), "floor": (_floor_divide,
                                                                    "div_floor_cpu")}


def _div_setup(a, b, rounding_mode):
    if rounding_mode is None:
        return _true_divide, FLOAT
    if rounding_mode not in _DIV_KERNELS:
        raise TensorRuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"{rounding_mode!r}")
    kernel, kernel_name = _DIV_KERNELS[rounding_mode]
    refuse_dtypes(kernel_name, bool_=True, complex_=True)(a, b)
    return (lambda xp, x, y: _call(xp, kernel, (x, y))), PROMOTE


def _quiet_true_divide(xp, a, b):
    return _call(xp, _true_divide, (a, b))


def div(input, other, *, rounding_mode=None, out=None):
    """``torch.div``: true division (float result), or ``rounding_mode='trunc'``/``'floor'``
    (result in the promoted dtype; integer division by zero raises, as in PyTorch)."""
    input = as_operand("div", input, "input", 1)
    other = as_operand("div", other, "other", 2)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = number_tensor(input)   # (``torch.div(3, 2)``: see _NUMBERS_AS_TENSORS)
    compute, rule = _div_setup(input, other, rounding_mode)
    if rounding_mode is None:
        compute = _quiet_true_divide
    return elementwise(div.op, compute, (input, other), out=out, rule=rule)


def div_(self, other, *, rounding_mode=None):
    """In-place ``div``; true division of an integer tensor can't be written back (error)."""
    self = as_operand("div_", self, "self", 0, tensor_only=True)
    other = as_operand("div_", other, "other", 1)
    compute, rule = _div_setup(self, other, rounding_mode)
    if rounding_mode is None:
        compute = _quiet_true_divide
    return elementwise(div_.op, compute, (self, other), inplace=self, rule=rule)


div = _define("div", div, "elementwise", ("divide",))
div_ = _define("div_", div_, "inplace", ("divide_",), function=False)


# ``true_divide`` is ``div`` without ``rounding_mode`` (PyTorch's takes none).
def true_divide(input, other, *, out=None):
    """True division (``div`` with no rounding): the result is floating."""
    return div.op.impl(input, other, out=out)


def true_divide_(self, other):
    """In-place ``true_divide``."""
    return div_.op.impl(self, other)


true_divide = renamed(div, true_divide)
true_divide_ = renamed(div_, true_divide_, function=False)
for _attr in ("__truediv__", "__div__"):
    # (``x / y`` has no rounding mode: true division, the runner's NumPy ufunc)
    setattr(Tensor, _attr, operator_method(div, ("true_divide", FLOAT, None)))
for _attr in ("__itruediv__", "__idiv__"):
    setattr(Tensor, _attr, operator_method(div_))


def _rtruediv(self, other):
    # PyTorch's ``number / x`` is ``x.reciprocal() * number``: two ops, rounded twice, and a
    # graph of MulBackward0 over ReciprocalBackward0.
    if isinstance(other, np.ndarray):
        # ``array / x`` too, where ``*`` declines the array: NumPy multiplies the reciprocal
        # (``is_operand``), and a TypeError of NumPy's declines the division.
        try:
            return FUNCTIONS["reciprocal"](self) * other
        except TypeError:
            return NotImplemented
    if not is_operand(other):
        return NotImplemented
    return mul(FUNCTIONS["reciprocal"](self), other)


Tensor.__rtruediv__ = Tensor.__rdiv__ = _rtruediv

floor_divide, floor_divide_ = binary_op(
    "floor_divide", _floor_divide, operator="__floordiv__", reflected="__rfloordiv__",
    inplace_operator="__ifloordiv__", check=refuse_dtypes("div_floor_cpu", bool_=True,
                                                          complex_=True))
remainder, remainder_ = binary_op(
    "remainder", _remainder, operator="__mod__", reflected="__rmod__",
    inplace_operator="__imod__", check=refuse_dtypes("remainder_cpu", bool_=True,
                                                     complex_=True))
fmod, fmod_ = binary_op("fmod", _fmod, scalar_input=False,
                        check=refuse_dtypes("fmod_cpu", bool_=True, complex_=True))
_pow_impl, _pow_inplace = binary_op("pow", _pow, operator="__pow__", reflected="__rpow__",
                                     inplace_operator="__ipow__", check=_check_pow,
                                     select=_select_pow)


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a number (``torch.pow(2, t)``). Integer tensors
    raised to a negative integer number raise, as in PyTorch (tensor exponents give 0)."""
    return _pow_impl(input, exponent, out=out)


def pow_(self, exponent):
    """In-place ``pow``."""
    return _pow_inplace(self, exponent)


# PyTorch's keyword name is ``exponent=``: these wrappers replace the generated forms under
# the same op entries (one trace event per call still comes from the inner implementation).
def _pow_method(self, exponent):
    """``x.pow(exponent)`` (methods take no ``out=``)."""
    return _pow_impl(self, exponent)


_pow_method.__name__ = _pow_method.__qualname__ = "pow"
for _public, _method, _inner in ((pow, _pow_method, _pow_impl), (pow_, pow_, _pow_inplace)):
    _public.op = _method.op = _inner.op
    _inner.op.impl = _inner.__wrapped__
    _inner.op.entry = _public
    setattr(Tensor, _inner.op.name, _method)
FUNCTIONS["pow"] = pow
atan2, atan2_ = binary_op("atan2", "arctan2", FLOAT, tensor_other=True, aliases=("arctan2",),
                          check=refuse_dtypes("atan2_cpu", complex_=True))
maximum, _ = binary_op("maximum", "maximum", tensor_other=True, inplace=False,
                       check=_refuse_complex("maximum"))
minimum, _ = binary_op("minimum", "minimum", tensor_other=True, inplace=False,
                       check=_refuse_complex("minimum"))
fmax, _ = binary_op("fmax", "fmax", tensor_other=True, inplace=False,
                    check=_refuse_complex("fmax"))
fmin, _ = binary_op("fmin", "fmin", tensor_other=True, inplace=False,
                    check=_refuse_complex("fmin"))
hypot, hypot_ = binary_op("hypot", "hypot", tensor_other=True,
                          check=refuse_dtypes("hypot_cpu", bool_=True, integral=True,
                                              complex_=True))
copysign, copysign_ = binary_op("copysign", "copysign", FLOAT, scalar_input=False,
                                check=refuse_dtypes("copysign_cpu", complex_=True))
xlogy, xlogy_ = binary_op("xlogy", _xlogy, FLOAT,
                          check=refuse_dtypes("xlogy_cpu", complex_=True))


# ------------------------------------------------------------------------ ternary ops

def _lerp_args(name, input, end, weight):
    input = as_operand(name, input, "input", 1, tensor_only=True)
    end = as_operand(name, end, "end", 2, tensor_only=True)
    weight = as_operand(name, weight, "weight", 3)
    # A 0-d weight tensor acts like a number (any dtype; it joins the promotion).
    for argname, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._dtype is not input._dtype and (
                argname == "end" or t._shape):
            raise TensorRuntimeError(
                f"expected dtype {input._dtype} for `{argname}` but got dtype {t._dtype}")
    if input._dtype.category <= _dtypes.INTEGRAL:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise not_implemented(kernel, input._dtype)
    if isinstance(weight, complex) and input._dtype.category != _dtypes.COMPLEX:
        raise TensorRuntimeError(
            f"value cannot be converted to type {input._dtype} without overflow")
    return input, end, weight


def _lerp_rule(weight):
    return PROMOTE if isinstance(weight, Tensor) and not weight._shape else SAME_AS_INPUT


def _lerp(xp, start, end, weight):
    # PyTorch's formula: exact at both ends (weight 0 gives start, weight 1 gives end).
    diff = end - start
    if xp is np and not getattr(weight, "ndim", 0) and start.shape == end.shape \
            and start.flags.c_contiguous and diff.flags.c_contiguous:
        # A number weight: PyTorch's kernel is one fused multiply-add, ``start + w * diff``
        # or ``end + (w - 1) * diff`` (_blas.axpy gives those bits).
        w = float(weight)
        small = abs(w) < 0.5
        r = np.array(start if small else end)
        if axpy(w if small else w - 1, np.asarray(diff), r):   # (0-d: NumPy's scalar)
            return r
    small = xp.abs(weight) < 0.5
    return xp.where(small, start + weight * diff, end - diff * (1 - weight))


def _quiet_lerp(xp, *arrays):
    return _call(xp, _lerp, arrays)


@register("elementwise")
def lerp(input, end, weight, *, out=None):
    """``start + weight * (end - start)``; ``input``, ``end`` (and a tensor ``weight``) must
    share one floating dtype, as in PyTorch."""
    input, end, weight = _lerp_args("lerp", input, end, weight)
    return elementwise(lerp.op, _quiet_lerp, (input, end, weight), out=out,
                       rule=_lerp_rule(weight))


@register("inplace", function=False)
def lerp_(self, end, weight):
    """In-place ``lerp``: ``self`` must already have the broadcast shape."""
    self, end, weight = _lerp_args("lerp_", self, end, weight)
    return elementwise(lerp_.op, _quiet_lerp, (self, end, weight), inplace=self,
                       rule=_lerp_rule(weight))


def _addc_args(name, input, tensor1, tensor2, value, divide):
    input = as_operand(name, input, "input", 1, tensor_only=True)
    tensor1 = as_operand(name, tensor1, "tensor1", 2, tensor_only=True)
    tensor2 = as_operand(name, tensor2, "tensor2", 3, tensor_only=True)
    value = as_operand(name, value, "value", 4)
    if divide and tensor1._dtype.category <= _dtypes.INTEGRAL and \
            tensor2._dtype.category <= _dtypes.INTEGRAL:
        raise TensorRuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    dtype = promoted(input, tensor1, tensor2)
    if dtype is _dtypes.bool_:
        raise not_implemented("addcdiv_cpu_out" if divide else "addcmul_cpu_out", dtype)
    if isinstance(value, complex) and dtype.category != _dtypes.COMPLEX:
        raise TensorRuntimeError(f"value cannot be converted to type {dtype} without overflow")
    return input, tensor1, tensor2, value


def _addc_kernel(value, divide):
    def compute(xp, a, b, c):
        # The scalar is converted to the computation type first (0.5 becomes 0 for ints).
        v = xp.asarray(int(value) if a.dtype.kind in "iu" else value).astype(a.dtype)
        with quiet():
            if divide:
                return a + (v * b) / c
            if xp is np and a.dtype == b.dtype == c.dtype == np.float32:
                # PyTorch's CPU kernel fuses the last step: fma(value * t1, t2, input)
                return fma32(v * b, c, a)
            return a + (v * b) * c

    return compute


def _addc(op, inputs, value, divide, out=None, inplace=None):
    return elementwise(op, _addc_kernel(value, divide), inputs, out=out, inplace=inplace)


@register("elementwise")
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2`` (one op, PyTorch's promotion over all three)."""
    input, tensor1, tensor2, value = _addc_args("addcmul", input, tensor1, tensor2, value, False)
    return _addc(addcmul.op, (input, tensor1, tensor2), value, False, out=out)


@register("inplace", function=False)
def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcmul``."""
    self, tensor1, tensor2, value = _addc_args("addcmul_", self, tensor1, tensor2, value, False)
    return _addc(addcmul_.op, (self, tensor1, tensor2), value, False, inplace=self)


@register("elementwise")
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``; integer ``tensor1``/``tensor2`` are refused, as
    in PyTorch."""
    input, tensor1, tensor2, value = _addc_args("addcdiv", input, tensor1, tensor2, value, True)
    return _addc(addcdiv.op, (input, tensor1, tensor2), value, True, out=out)


@register("inplace", function=False)
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcdiv``."""
    self, tensor1, tensor2, value = _addc_args("addcdiv_", self, tensor1, tensor2, value, True)
    return _addc(addcdiv_.op, (self, tensor1, tensor2), value, True, inplace=self)


# ------------------------------------------------------- PyTorch's deprecated overloads

# Whether a deprecated overload has warned yet: PyTorch's parser warns once a process, for
# the first such call of any of them.
_DEPRECATED_WARNED = []


def _deprecated_overload(entry, name, scalar, tensors):
    """The method ``entry`` that also takes PyTorch's deprecated overload with the number
    first: older code's ``p.data.add_(-lr, grad)`` (``add_(Number alpha, Tensor other)``)
    and ``buf.addcmul_(1 - beta, g, g)``. A call of that form (the number, then the tensors,
    positionally, without the keyword) warns as PyTorch does, once a process, and is the
    current overload's call; any other call goes to ``entry`` unchanged."""
    count = 2 + len(tensors)   # (self, the number, the tensors)
    names = ", ".join(f"Tensor {t}" for t in tensors)
    message = (f"This overload of {name} is deprecated:\n\t{name}(Number {scalar}, {names})\n"
               f"Consider using one of the following signatures instead:\n\t{name}({names}, "
               f"*, Number {scalar} = 1)")
    # (PyTorch's parser takes a number for ``add``'s and ``sub``'s ``other`` there too:
    # ``x.add_(2, 3)`` adds 6; ``addcmul``'s tensors must be tensors)
    loose = len(tensors) == 1

    def call(*args, **kwargs):
        if len(args) == count and scalar not in kwargs and _is_scalar(args[1]) \
                and all(isinstance(t, Tensor) or (loose and _is_number(t)) for t in args[2:]):
            _warn_deprecated(message)
            kwargs[scalar] = _scalar_value(args[1])
            return entry(args[0], *args[2:], **kwargs)
        return entry(*args, **kwargs)

    functools.update_wrapper(call, entry)
    return call


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def _is_scalar(x):
    """What PyTorch's parser takes for a deprecated overload's ``Scalar``: a number, or a
    0-dim tensor that does not require grad (DARTS' ``p.data.add_(R, v)`` with
    ``R = r / v.norm()``)."""
    return _is_number(x) or (isinstance(x, Tensor) and x.dim() == 0 and not x.requires_grad)


def _scalar_value(x):
    return x.item() if isinstance(x, Tensor) else x


# The products with ``beta``/``alpha``: their tensors' names.
_BETA_ALPHA = {"addmm": ("mat1", "mat2"), "baddbmm": ("batch1", "batch2"),
               "addbmm": ("batch1", "batch2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2")}


def _warn_deprecated(message):
    """PyTorch's warning for a deprecated overload, once a process (for any of them), at the
    caller of the method wrapper that calls this."""
    if not _DEPRECATED_WARNED:
        _DEPRECATED_WARNED.append(True)
        warnings.warn(message, UserWarning, stacklevel=3)


def _deprecated_beta_alpha(entry, name):
    """The method ``entry`` of ``name`` (one of ``_BETA_ALPHA``'s or its in-place form) that
    also takes PyTorch's deprecated number-first overloads ``(beta, alpha, t1, t2)`` and
    ``(beta, t1, t2)`` (older code's ``distmat.addmm_(1, -2, x, centers.t())``): such a call
    warns as PyTorch does (once a process, with add's and addcmul's) and is the current
    overload's call. (The functions' forms, ``torch.addmm(beta, input, alpha, ...)``, are
    not taken: the function entries carry their layout step for sparse inputs.)"""
    t1, t2 = _BETA_ALPHA[name.rstrip("_")]
    pair = f"Tensor {t1}, Tensor {t2}"

    def message(alpha):
        numbers_ = "Number beta, " + ("Number alpha, " if alpha else "")
        return (f"This overload of {name} is deprecated:\n\t{name}({numbers_}{pair})\n"
                f"Consider using one of the following signatures instead:\n"
                f"\t{name}({pair}, *, Number beta = 1, Number alpha = 1)")

    def call(*args, **kwargs):
        rest = args[1:]
        if "beta" not in kwargs and "alpha" not in kwargs and len(rest) in (3, 4) \
                and all(_is_scalar(r) for r in rest[:-2]) \
                and all(isinstance(t, Tensor) for t in rest[-2:]):
            _warn_deprecated(message(len(rest) == 4))
            kwargs["beta"] = _scalar_value(rest[0])
            if len(rest) == 4:
                kwargs["alpha"] = _scalar_value(rest[1])
            return entry(args[0], *rest[-2:], **kwargs)
        return entry(*args, **kwargs)

    functools.update_wrapper(call, entry)
    return call


def install_deprecated_overloads():
    """Give the methods ``add``, ``sub``, ``addcmul``, ``addcdiv``, the beta/alpha products
    (``_BETA_ALPHA``) and their in-place forms PyTorch's deprecated number-first overloads
    (called once every op and layout kernel is registered). The entry, compiled now, names
    the wrapper as itself (``_self``): it is what ``__torch_function__`` handlers receive as
    ``func``, so ``func is Tensor.add_`` holds, as in PyTorch. A layout kernel arriving
    later rebuilds the method (``_registry._build``), which then takes the current overloads
    only."""
    from .._argparse import _compile_now

    for name in _BETA_ALPHA:
        for method in (name, name + "_"):
            entry = getattr(Tensor, method)
            _compile_now(entry)
            wrapper = _deprecated_beta_alpha(entry, method)
            entry.__globals__["_self"] = wrapper
            setattr(Tensor, method, wrapper)
    for name, scalar, tensors in (("add", "alpha", ("other",)), ("sub", "alpha", ("other",)),
                                  ("addcmul", "value", ("tensor1", "tensor2")),
                                  ("addcdiv", "value", ("tensor1", "tensor2"))):
        for method in (name, name + "_"):
            entry = getattr(Tensor, method)
            _compile_now(entry)
            wrapper = _deprecated_overload(entry, method, scalar, tensors)
            entry.__globals__["_self"] = wrapper
            setattr(Tensor, method, wrapper)
