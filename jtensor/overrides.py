"""``torch.overrides``: the ``__torch_function__`` protocol's helpers.

jtensor dispatches to ``__torch_function__`` as PyTorch does (``_torch_function.py``): tensor
subclasses (``Tensor.__torch_function__`` is the default handler; ``Parameter`` opts out)
and objects that are not tensors. These are the functions library code and the "Extending
torch" notes use around that protocol.
"""

import sys
import types

from . import fft, linalg, special
from ._torch_function import DEFAULT_NOWRAP, NO_OVERRIDE, _overrides, dispatch_to, \
    overloaded_arguments
from ._tensor import Tensor
from .nn import functional as _functional

__all__ = [
    "get_default_nowrap_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
]


def is_tensor_like(inp):
    """Whether ``inp`` is a tensor or an object that takes part in ``__torch_function__``."""
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def has_torch_function(relevant_args):
    """Whether any of ``relevant_args`` takes part in ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(arg):
    return _overrides(arg)


def has_torch_function_variadic(*args):
    return any(_overrides(a) for a in args)


def get_default_nowrap_functions():
    """The functions whose results ``Tensor.__torch_function__`` returns without turning
    them into the subclass (the getter of ``grad``)."""
    return set(DEFAULT_NOWRAP)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """``public_api(*args, **kwargs)`` through the ``__torch_function__`` of the objects
    among ``relevant_args`` that take part (tensor subclasses, objects that are not
    tensors), in PyTorch's order; PyTorch's ``TypeError`` when every one returns
    ``NotImplemented``."""
    overloaded = overloaded_arguments(relevant_args)
    result = dispatch_to(overloaded, public_api, args, kwargs)
    if result is NO_OVERRIDE:
        return public_api(*args, **kwargs)
    return result


def _functions(namespace):
    """The public functions of a module (or the public methods of ``Tensor``)."""
    out = []
    for name in sorted(dir(namespace)):
        if name.startswith("_"):
            continue
        value = getattr(namespace, name, None)
        # (classes, submodules and, on Tensor, properties are not functions)
        if callable(value) and not isinstance(value, (type, types.ModuleType)):
            out.append(value)
    return out


def get_overridable_functions():
    """``{namespace: [functions]}`` for ``torch``, ``torch.nn.functional``,
    ``torch.Tensor`` (its methods; properties are not listed), ``torch.linalg``,
    ``torch.fft`` and ``torch.special``."""
    package = sys.modules[__name__.rpartition(".")[0]]   # (the package, imported by now)
    return {ns: _functions(ns) for ns in (package, _functional, Tensor, linalg, fft, special)}


def get_testing_overrides():
    """``{function: dummy}`` for every overridable function: a dummy takes any arguments and
    returns -1, as PyTorch's testing overrides do."""

    def dummy(*args, **kwargs):
        return -1

    return {f: dummy for fs in get_overridable_functions().values() for f in fs}


def is_tensor_method_or_property(func):
    """Whether ``func`` is a method or property of ``Tensor``."""
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func
