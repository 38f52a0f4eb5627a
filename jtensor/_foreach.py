"""``torch._foreach_*``: an op applied to each tensor of a list (PyTorch's optimizers' and
some libraries' "foreach" path, which several choose by ``hasattr(torch, "_foreach_mul_")``).

Each call is the public op on every tensor in turn (its values, its autograd nodes); the
out-of-place forms return a tuple, the in-place ones write each tensor and return the list
given. The second operand is a number, a list of numbers, a list of tensors, or (where
PyTorch takes it) one tensor; lists must match the tensors' count, with PyTorch's errors.
"""

import numbers

from ._api import ops as J
from ._errors import TensorRuntimeError, TensorTypeError, type_name
from ._tensor import Tensor

_UNARY = (
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "floor",
    "frac",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "neg",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
)
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow")
_ALPHA = ("add", "sub")
# (a number as maximum's or minimum's operand: the clamp)
_BOUND = {"maximum": "clamp_min", "minimum": "clamp_max"}
# (no in-place method in PyTorch: written through ``copy_``)
_NO_METHOD = ("maximum", "minimum", "sign")


def _tensors(name, tensors):
    if (
        isinstance(tensors, Tensor)
        or not isinstance(tensors, (list, tuple))
        or not all(isinstance(t, Tensor) for t in tensors)
    ):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type_name(tensors)}), but expected a list or tuple of Tensors"
        )
    if not tensors:
        raise TensorRuntimeError("Tensor list must have at least one tensor.")
    return tensors


def _per_tensor(name, tensors, other):
    """``other`` as one operand per tensor: a number or one tensor for all, or a list of
    numbers or of tensors of the tensors' count (PyTorch's errors otherwise)."""
    n = len(tensors)
    if isinstance(other, (list, tuple)):
        if all(isinstance(o, Tensor) for o in other):
            if len(other) != n:
                raise TensorRuntimeError(
                    f"Tensor lists must have the same number of tensors, got {n} and {len(other)}"
                )
            return list(other)
        if all(isinstance(o, numbers.Number) for o in other):
            if len(other) != n:
                raise TensorRuntimeError(
                    "Tensor list must have same number of elements as scalar list."
                )
            return list(other)
    elif isinstance(other, (Tensor, numbers.Number)):
        return [other] * n
    raise TensorTypeError(
        f"{name}() received an invalid combination of arguments - got (list, "
        f"{type_name(other)}), but expected a number, a list of numbers or of Tensors, or a "
        f"Tensor"
    )


def _write(name, tensors, results):
    for t, r in zip(tensors, results, strict=True):
        t.copy_(r)
    return tensors


def _unary(op):
    def out_of_place(self):
        return tuple(getattr(J, op)(t) for t in _tensors(f"_foreach_{op}", self))

    def in_place(self):
        self = _tensors(f"_foreach_{op}_", self)
        if op in _NO_METHOD:
            return _write(op, self, [getattr(J, op)(t) for t in self])
        for t in self:
            getattr(t, op + "_")()
        return self

    return out_of_place, in_place


def _binary(op):
    def call(method, self, other, alpha):
        kwargs = {} if alpha is None else {"alpha": alpha}
        if op in _BOUND and not isinstance(other, Tensor):  # (a number: a clamp)
            return (
                getattr(J, _BOUND[op])(self, other)
                if method is None
                else getattr(self, _BOUND[op] + "_")(other)
            )
        return (
            getattr(J, op)(self, other, **kwargs)
            if method is None
            else getattr(self, method)(other, **kwargs)
        )

    def out_of_place(self, other, *, alpha=None):
        self = _tensors(f"_foreach_{op}", self)
        others = _per_tensor(f"_foreach_{op}", self, other)
        return tuple(call(None, t, o, alpha) for t, o in zip(self, others, strict=True))

    def in_place(self, other, *, alpha=None):
        self = _tensors(f"_foreach_{op}_", self)
        others = _per_tensor(f"_foreach_{op}_", self, other)
        if op in _NO_METHOD:
            return _write(
                op, self, [call(None, t, o, alpha) for t, o in zip(self, others, strict=True)]
            )
        for t, o in zip(self, others, strict=True):
            call(op + "_", t, o, alpha)
        return self

    if op not in _ALPHA:  # (alpha is add's and sub's)

        def plain(self, other):
            return out_of_place(self, other)

        def plain_(self, other):
            return in_place(self, other)

        return plain, plain_
    return out_of_place, in_place


def _addc(op):
    def out_of_place(self, tensor1, tensor2, value=1):
        self = _tensors(f"_foreach_{op}", self)
        ones, twos = (_per_tensor(f"_foreach_{op}", self, t) for t in (tensor1, tensor2))
        values = _scalars(f"_foreach_{op}", self, value)
        return tuple(
            getattr(J, op)(t, a, b, value=v)
            for t, a, b, v in zip(self, ones, twos, values, strict=True)
        )

    def in_place(self, tensor1, tensor2, value=1):
        self = _tensors(f"_foreach_{op}_", self)
        ones, twos = (_per_tensor(f"_foreach_{op}_", self, t) for t in (tensor1, tensor2))
        for t, a, b, v in zip(
            self, ones, twos, _scalars(f"_foreach_{op}_", self, value), strict=True
        ):
            getattr(t, op + "_")(a, b, value=v)
        return self

    return out_of_place, in_place


def _scalars(name, tensors, value):
    """``value`` as one number per tensor: a number, a list of numbers, or a 1-d tensor of
    them (PyTorch's ``Tensor scalars`` form)."""
    if isinstance(value, Tensor):
        value = value.tolist()
        if not isinstance(value, list):
            value = [value] * len(tensors)
    return _per_tensor(name, tensors, value)


def _foreach_lerp(self, tensors1, weight):
    self = _tensors("_foreach_lerp", self)
    ends = _per_tensor("_foreach_lerp", self, tensors1)
    weights = _per_tensor("_foreach_lerp", self, weight)
    return tuple(J.lerp(t, e, w) for t, e, w in zip(self, ends, weights, strict=True))


def _foreach_lerp_(self, tensors1, weight):
    self = _tensors("_foreach_lerp_", self)
    ends = _per_tensor("_foreach_lerp_", self, tensors1)
    for t, e, w in zip(self, ends, _per_tensor("_foreach_lerp_", self, weight), strict=True):
        t.lerp_(e, w)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    from .linalg import vector_norm

    return tuple(vector_norm(t, ord, dtype=dtype) for t in _tensors("_foreach_norm", self))


def _foreach_max(self):
    return tuple(t.max() for t in _tensors("_foreach_max", self))


def _foreach_clone(self):
    return tuple(t.clone() for t in _tensors("_foreach_clone", self))


def _foreach_zero_(self):
    for t in _tensors("_foreach_zero_", self):
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    self = _tensors("_foreach_copy_", self)
    for t, s in zip(self, _per_tensor("_foreach_copy_", self, src), strict=True):
        t.copy_(s, non_blocking=non_blocking)
    return self


def functions():
    """name -> function, every ``_foreach_*`` defined here."""
    table = {}
    for ops, make in ((_UNARY, _unary), (_BINARY, _binary), (("addcmul", "addcdiv"), _addc)):
        for op in ops:
            table[f"_foreach_{op}"], table[f"_foreach_{op}_"] = make(op)
    for fn in (
        _foreach_lerp,
        _foreach_lerp_,
        _foreach_norm,
        _foreach_max,
        _foreach_clone,
        _foreach_zero_,
        _foreach_copy_,
    ):
        table[fn.__name__] = fn
    for name, fn in table.items():
        fn.__name__ = fn.__qualname__ = name
    return table
