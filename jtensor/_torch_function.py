"""``__torch_function__``: PyTorch's protocol for overriding torch functions (``torch.overrides``).

Two kinds of objects take part:

- **Tensor subclasses.** ``Tensor.__torch_function__`` is PyTorch's default handler: it runs
  the function with subclass dispatch off (``DisableTorchFunctionSubclass``) and turns tensor
  results into the subclass (``as_subclass``, an alias: ``AliasBackward0`` when recorded), so
  ``SubTensor([1.]) + 1`` is a ``SubTensor``. A subclass may override it (a logging tensor);
  ``Parameter``, ``Buffer`` and jtensor's own subclasses opt out with
  ``_disabled_torch_function_impl``, as PyTorch's do. Defining the first subclass that takes
  part sets ``_dispatch.subclass_dispatch``; from then on every op entry (and the operators)
  asks ``dispatch_subclasses`` first. Before, the entries pay one test.
- **Objects that are not tensors** but whose class defines ``__torch_function__`` (the
  ``ScalarTensor`` of PyTorch's "Extending torch" notes). jtensor asks them only when a call
  has failed with a ``TypeError`` (an op's argument check refusing the object), so calls with
  tensors alone pay nothing.

Either way PyTorch's loop then runs as written: the overloaded arguments in order of
appearance (a subclass before its parent), each type's ``__torch_function__(func, types,
args, kwargs)`` until one returns something other than ``NotImplemented``, else PyTorch's
``TypeError``.
"""

import inspect
import threading
import warnings

from . import _dispatch
from ._device import device as _device_class
from ._dtypes import dtype as _dtype_class
from ._size import Size
from ._tensor import Tensor
from ._tensor import _hooks as _tensor_hooks
from ._errors import type_name

NO_OVERRIDE = object()

# Classes of arguments that never take part (plain tensors, numbers, dtypes...): an entry
# whose arguments are all of these skips ``dispatch_subclasses`` without calling it.
# ``Parameter`` and ``Buffer`` add themselves.
PLAIN_ARGUMENTS = {Tensor, int, float, bool, complex, str, type(None), Size, _dtype_class,
                   _device_class}


class _State(threading.local):
    """This thread's switches: ``subclass`` counts the ``DisableTorchFunctionSubclass``
    blocks open, ``everything`` the ``DisableTorchFunction`` ones."""

    def __init__(self):
        self.subclass = 0
        self.everything = 0


_state = _State()


class _Off:
    """A block that counts itself in ``_state.<_field>`` while it is open."""

    _field = None

    def __enter__(self):
        setattr(_state, self._field, getattr(_state, self._field) + 1)
        return self

    def __exit__(self, *exc):
        setattr(_state, self._field, getattr(_state, self._field) - 1)
        return False


class DisableTorchFunctionSubclass(_Off):
    """``torch._C.DisableTorchFunctionSubclass``: inside, tensor subclasses do not dispatch
    (their tensors are handled as plain tensors); other objects still do."""

    _field = "subclass"


class DisableTorchFunction(_Off):
    """``torch._C.DisableTorchFunction``: inside, nothing dispatches to
    ``__torch_function__``."""

    _field = "everything"


def is_torch_function_enabled():
    """``torch._C._is_torch_function_enabled()``: whether tensor subclasses dispatch here."""
    return not (_state.subclass or _state.everything)


class _DisabledTorchFunctionImpl:
    """``torch._C._disabled_torch_function_impl``: the ``__torch_function__`` of classes that
    do not take part (``Parameter``, ``Buffer``, a user's ``__torch_function__ =
    torch._C._disabled_torch_function_impl``). Called, it runs the function with subclass
    dispatch off and returns its result unchanged. Not a method: reading it from an
    instance or a class gives this object itself, as PyTorch's C function."""

    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"

    def __reduce__(self):
        return "_disabled_torch_function_impl"


_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


def _subclass_takes_part(cls):
    """Whether tensors of ``cls`` (a ``Tensor`` subclass) dispatch to its
    ``__torch_function__``."""
    return cls is not Tensor and getattr(cls, "__torch_function__", None) is not \
        _disabled_torch_function_impl


def _overrides(value):
    """Whether ``value`` is an argument that takes over torch functions now: a tensor of a
    subclass that takes part (while subclass dispatch is on), or an object that is no
    tensor and whose class has ``__torch_function__``."""
    if _state.everything:
        return False
    if isinstance(value, Tensor):
        return value.__class__ is not Tensor and not _state.subclass \
            and _subclass_takes_part(value.__class__)
    return getattr(type(value), "__torch_function__", None) is not None


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


# op -> (its parameters' defaults, its positional parameters' names), for ``_as_given``.
_SIGNATURES = {}


def _signature(op):
    known = _SIGNATURES.get(op)
    if known is None:
        try:
            params = list(inspect.signature(op.impl).parameters.values())
        except (TypeError, ValueError):
            known = None, None
        else:
            known = ({p.name: p.default for p in params if p.default is not p.empty},
                     [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        _SIGNATURES[op] = known
    return known


def _as_given(op, args, kwargs):
    """The call's arguments without the trailing positional ones and the keywords that are
    the op's defaults (an entry passes every parameter on; the handler gets what the user
    wrote, as in PyTorch)."""
    defaults, names = _signature(op)
    if defaults is None:
        return args, kwargs
    kwargs = {k: v for k, v in kwargs.items() if not (k in defaults and v is defaults[k])}
    args = list(args)
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


def dispatch_subclasses(op, func, args, kwargs):
    """What an op entry asks before running once subclass dispatch is on: the call through
    the ``__torch_function__`` of its arguments' tensor subclasses (and of any other
    overriding objects beside them), or ``NO_OVERRIDE`` when none of its tensors is of a
    subclass that takes part. ``op`` None: ``args``/``kwargs`` are what the user gave."""
    if _state.subclass or _state.everything:
        return NO_OVERRIDE
    for v in args:
        if v.__class__ is not Tensor and (isinstance(v, Tensor) or v.__class__ is list
                                          or v.__class__ is tuple):
            break
    else:
        if not kwargs or all(v.__class__ is Tensor or not isinstance(v, (Tensor, list, tuple))
                             for v in kwargs.values()):
            return NO_OVERRIDE
    overloaded = overloaded_arguments(list(args) + list(kwargs.values()))
    if not any(isinstance(a, Tensor) for a in overloaded):
        return NO_OVERRIDE   # (objects that are not tensors dispatch when the op refuses them)
    if op is not None:
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


def convert(ret, cls):
    """PyTorch's ``_convert``: tensors in ``ret`` (itself, or the items of a tuple or list,
    a named tuple included) that are not ``cls`` instances become ``cls`` aliases."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [convert(r, cls) for r in ret]
        ret = ret._make(items) if hasattr(ret, "_make") else type(ret)(items)
    return ret


# ``torch.overrides.get_default_nowrap_functions()``: what the default handler returns as it
# is, the getter of ``grad`` (PyTorch's ``_base`` and ``_grad`` getters are plain attributes
# here).
DEFAULT_NOWRAP = frozenset({Tensor.grad.__get__})


def __torch_function__(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__``, PyTorch's default handler: ``func`` run with subclass
    dispatch off, its tensor results turned into ``cls`` (``NotImplemented`` when one of
    ``types`` is not ``cls`` or a parent of it)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in DEFAULT_NOWRAP:
            return ret
        return convert(ret, cls)


def _init_subclass(cls, **kwargs):
    """``Tensor.__init_subclass__``: the first subclass that takes part in
    ``__torch_function__`` turns subclass dispatch on."""
    super(Tensor, cls).__init_subclass__(**kwargs)
    if not _dispatch.subclass_dispatch and _subclass_takes_part(cls):
        _dispatch.subclass_dispatch = True


def _make_subclass(cls, data, require_grad=False, **kwargs):
    """``Tensor._make_subclass(cls, data, require_grad=False)``: a ``cls`` tensor sharing
    ``data``'s storage, metadata and version counter, with no history (a leaf), requiring
    grad as asked (what ``Parameter.__new__`` does in PyTorch)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"cls must be a type (got {type_name(cls)})")
    if not isinstance(data, Tensor):
        raise TypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
            f"{type_name(data)}")
    out = data.detach()
    out.__class__ = cls
    if require_grad:
        out.requires_grad_(True)
    return out


def _data_class(tensor):
    """The class of ``tensor.data``: ``tensor``'s own while it takes part in
    ``__torch_function__`` (PyTorch's default handler converts the getter's result), else
    ``Tensor``."""
    return tensor.__class__ if _overrides(tensor) else Tensor


_tensor_hooks["data_class"] = _data_class
Tensor.__torch_function__ = classmethod(__torch_function__)
Tensor.__init_subclass__ = classmethod(_init_subclass)
Tensor._make_subclass = staticmethod(_make_subclass)
