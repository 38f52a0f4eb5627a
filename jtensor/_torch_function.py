"""``__torch_function__`` for objects that are not tensors (PyTorch's ``torch.overrides``).

A class that is no ``Tensor`` but defines ``__torch_function__`` (the ``ScalarTensor`` of
PyTorch's "Extending torch" notes, a tensor-like wrapper holding its data elsewhere) takes
over every ``torch.<function>`` call that gets one of its objects. jtensor asks only when a
call has failed with a ``TypeError`` (an op's argument check refusing the object), so calls
with tensors alone pay nothing; PyTorch's protocol then runs as written: the overloaded
arguments in order of appearance (a subclass before its parent), each type's
``__torch_function__(func, types, args, kwargs)`` until one returns something other than
``NotImplemented``, else PyTorch's ``TypeError``.

Tensor subclasses that override ``__torch_function__`` are not dispatched this way: their
calls succeed as jtensor's own, and their result is a plain tensor.
"""

import inspect
import warnings

from ._tensor import Tensor

NO_OVERRIDE = object()


def _overrides(value):
    """Whether ``value`` is an object whose class takes over torch functions."""
    return not isinstance(value, Tensor) and \
        getattr(type(value), "__torch_function__", None) is not None


def overloaded_arguments(values):
    """The arguments with ``__torch_function__`` among ``values`` (lists and tuples looked
    into), one per type, a subclass moved before its parents, as PyTorch orders them."""
    found = []
    for v in values:
        items = v if v.__class__ is list or v.__class__ is tuple else (v,)
        for item in items:
            if not _overrides(item) or any(type(item) is type(f) for f in found):
                continue
            # Before the first argument whose type it subclasses (PyTorch's rule).
            place = len(found)
            for i, f in enumerate(found):
                if issubclass(type(item), type(f)):
                    place = i
                    break
            found.insert(place, item)
    return found


def _as_given(op, args, kwargs):
    """The call's arguments without the trailing positional ones and the keywords that are
    the op's defaults (an entry passes every parameter on; the handler gets what the user
    wrote, as in PyTorch)."""
    try:
        params = list(inspect.signature(op.impl).parameters.values())
    except (TypeError, ValueError):
        return args, kwargs
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    kwargs = {k: v for k, v in kwargs.items() if not (k in defaults and v is defaults[k])}
    args = list(args)
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    while args and len(args) <= len(names) and names[len(args) - 1] in defaults \
            and args[-1] is defaults[names[len(args) - 1]]:
        args.pop()
    return tuple(args), kwargs


def dispatch(op, func, args, kwargs):
    """``func(*args, **kwargs)`` (a call of ``op`` that failed) through the overriding
    arguments' ``__torch_function__``; ``NO_OVERRIDE`` when no argument has one."""
    overloaded = overloaded_arguments(list(args) + list(kwargs.values()))
    if not overloaded:
        return NO_OVERRIDE
    args, kwargs = _as_given(op, args, kwargs)
    return dispatch_to(overloaded, func, args, kwargs)


def dispatch_to(overloaded, func, args, kwargs):
    """PyTorch's loop over ``overloaded`` (``overloaded_arguments``): each type's
    ``__torch_function__(func, types, args, kwargs)`` until one returns something other than
    ``NotImplemented``; ``NO_OVERRIDE`` when ``overloaded`` is empty."""
    if not overloaded:
        return NO_OVERRIDE
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will be "
                "an error in future, please define it as a classmethod.", DeprecationWarning,
                stacklevel=3)
        result = method(func, types, tuple(args), dict(kwargs))
        if result is not NotImplemented:
            return result
    name = f"jtensor.{getattr(func, '__name__', func)}"
    handlers = "".join(f"  - tensor subclass {t}\n" for t in types)
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{handlers}\nFor more information, try "
                    "re-running with TORCH_LOGS=not_implemented")
