"""Binary arithmetic: add, sub, mul and their in-place forms and operators.

Each op is defined once through ``binary_op``, which registers the function form
(``torch.add``), the method (``x.add``), the in-place method (``x.add_``) and the operators.
``compute`` is an array-module function name or ``compute(xp, a, b)``.
"""

from .. import _dtypes
from .._elementwise import PROMOTE, elementwise
from .._errors import TensorRuntimeError
from .._registry import define
from .._tensor import Tensor


def binary_op(name, compute, rule=PROMOTE, *, operator=None, reflected=None,
              inplace_operator=None, check=None, alpha=False):
    """Define ``name`` (function and method) and ``name_`` (in place) from one ``compute``.

    ``reflected``: the ``__rop__`` name (computes ``compute(other, self)``); ``alpha``: accept
    ``alpha=`` scaling the second operand, as add and sub do.
    """

    def scaled(alpha_value):
        if alpha_value == 1:
            return compute
        fn = compute

        def with_alpha(xp, a, b):
            b = b * alpha_value
            return getattr(xp, fn)(a, b) if type(fn) is str else fn(xp, a, b)

        return with_alpha

    if alpha:
        def impl(input, other, *, alpha=1, out=None):
            if check is not None:
                check(input, other)
            return elementwise(impl.op, scaled(alpha), (input, other), out=out, rule=rule)

        def impl_inplace(self, other, *, alpha=1):
            if check is not None:
                check(self, other)
            return elementwise(impl_inplace.op, scaled(alpha), (self, other), inplace=self,
                               rule=rule)
    else:
        def impl(input, other, *, out=None):
            if check is not None:
                check(input, other)
            return elementwise(impl.op, compute, (input, other), out=out, rule=rule)

        def impl_inplace(self, other):
            if check is not None:
                check(self, other)
            return elementwise(impl_inplace.op, compute, (self, other), inplace=self, rule=rule)

    define("elementwise", name, impl)
    define("inplace", name + "_", impl_inplace, function=False)
    if operator:
        setattr(Tensor, operator, impl)
    if reflected:
        def reflected_impl(self, other):
            if check is not None:
                check(other, self)
            return elementwise(impl.op, compute, (other, self), rule=rule)

        setattr(Tensor, reflected, reflected_impl)
    if inplace_operator:
        setattr(Tensor, inplace_operator, impl_inplace)
    return impl, impl_inplace


def _refuse_bool_subtraction(a, b):
    if all((x._dtype is _dtypes.bool_) if isinstance(x, Tensor) else isinstance(x, bool)
           for x in (a, b)):
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead.")


add, add_ = binary_op("add", "add", operator="__add__", reflected="__radd__",
                      inplace_operator="__iadd__", alpha=True)
sub, sub_ = binary_op("sub", "subtract", operator="__sub__", reflected="__rsub__",
                      inplace_operator="__isub__", alpha=True, check=_refuse_bool_subtraction)
mul, mul_ = binary_op("mul", "multiply", operator="__mul__", reflected="__rmul__",
                      inplace_operator="__imul__")
