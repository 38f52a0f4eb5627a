"""``torch.autograd.forward_ad``: forward-mode automatic differentiation.

Inside a ``dual_level()`` a tensor made with ``make_dual(x, v)`` carries the tangent ``v``
and every op propagates it: the output's tangent is the op's Jacobian applied to the
inputs' tangents (a Jacobian-vector product, computed alongside the values, in one pass).
``unpack_dual(y)`` gives ``(primal, tangent)``.

>>> import jtensor as torch
>>> import jtensor.autograd.forward_ad as fwAD
>>> x, v = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, v) ** 2
...     fwAD.unpack_dual(y).tangent
tensor([2., 0.])

How it works: an open level is a function transform of the dispatcher
(``_dispatch.push_transform``); every op call while it is open reaches ``DualLevel.process``,
which runs the op and, when an argument has a tangent at this level, computes the outputs'
tangents with the op's rule (``forward/rules.py``). Tangents are stored on the tensors
(``Tensor._fw_grads``) and dropped when the level exits.

As in PyTorch, the public ``enter_dual_level`` refuses to nest levels. ``_enter_dual_level(
nested=True)`` opens an inner level (what ``torch.func.jvp`` of a ``jvp`` needs): each level
has its own tangents, and the inner level's rules run on the ops of the outer one.
"""

from typing import NamedTuple

from .. import _dispatch
from .._errors import TensorRuntimeError, TensorValueError, type_name
from .. import _tensor as _tensor_module
from .._tensor import Tensor
from .forward import direct as _direct  # noqa: F401 (registers the direct rules)
from .forward import rules as _rules
from .forward import tangents as _tangents
from .grad_mode import _GradModeContext

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


class DualLevel:
    """One open forward-AD level: the transform that processes op calls (see the module
    docstring). ``duals`` holds weak references to the tensors given a tangent at this level,
    so that exiting it can drop them."""

    __slots__ = ("index", "duals", "alive", "__weakref__")

    def __init__(self, index):
        self.index = index
        self.duals = []
        self.alive = True

    def __repr__(self):
        return f"<forward AD level {self.index}>"

    def process(self, op, entry, args, kwargs):
        """Run one op call; propagate tangents when an argument has one at this level."""
        found = None
        for a in args if not kwargs else (*args, *kwargs.values()):
            if a.__class__ is list or a.__class__ is tuple:
                for x in a:
                    if isinstance(x, Tensor):
                        found = _note(self, x, found)
            elif isinstance(a, Tensor):
                found = _note(self, a, found)
        if found is None:
            return entry(*args, **kwargs)
        return _rules.run(self, op, entry, args, kwargs, found)

    def close(self):
        """Drop every tangent of this level."""
        self.alive = False
        for ref in self.duals:
            t = ref()
            if t is not None:
                fw = t.__dict__.get("_fw_grads")
                if fw is not None:
                    fw.pop(self, None)
                    if not fw:
                        del t._fw_grads
        self.duals = []


def _note(level, x, found):
    # The cheap test first: most tensors have never been dual.
    if x._fw_grads is None and (x._base is None or x._base._fw_grads is None):
        return found
    t = _tangents.tangent_of(x, level)
    if t is None:
        return found
    if found is None:
        found = {}
    found[id(x)] = t
    return found


# The open levels, outermost first (``_current_level`` is the index of the last).
_levels = []
_current_level = -1


def _enter_dual_level(nested=False):
    """Open a level and return its index; ``nested=True`` allows one inside another (the
    public ``enter_dual_level`` refuses, as PyTorch's)."""
    global _current_level
    if _levels and not nested:
        raise TensorRuntimeError("Nested forward mode AD is not supported at the moment")
    level = DualLevel(len(_levels))
    _levels.append(level)
    _dispatch.push_transform(level)
    _current_level = level.index
    return level.index


def enter_dual_level():
    """Enter a new forward grad level and return its index (0): ``make_dual``,
    ``unpack_dual`` and ``exit_dual_level`` use it by default. Levels do not nest."""
    return _enter_dual_level()


def exit_dual_level(*, level=None):
    """Exit the current forward grad level (only the last one entered may be exited): every
    tangent of that level is dropped."""
    global _current_level
    if level is None:
        level = _current_level
    if level < 0:
        raise TensorRuntimeError("Dual level must be a positive number.")
    if level != _current_level:
        raise TensorRuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    obj = _levels[level]
    _dispatch.pop_transform(obj)
    _levels.pop()
    obj.close()
    _current_level = level - 1


def _level_object(level, caller):
    if level is None:
        level = _current_level
    if not 0 <= level < len(_levels):
        raise TensorRuntimeError(f"Invalid level given to {caller}")
    return _levels[level]


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a view of ``tensor`` carrying ``tangent`` at ``level`` (the current
    one by default). The tangent is kept as it is when its layout is the tensor's, else
    copied into that layout; it must have the tensor's shape. Backward differentiable."""
    if level is None:
        level = _current_level
    if level < 0:
        raise TensorRuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"make_dual(): argument 'tensor' must be Tensor, not {type_name(tensor)}"
        )
    if not isinstance(tangent, Tensor):
        raise TypeError(
            f"make_dual(): argument 'tangent' must be Tensor, not {type_name(tangent)}"
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise TensorValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise TensorValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    obj = _level_object(level, "_make_dual")
    if _tangents.own_tangent(tensor, obj) is not None:
        raise TensorRuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {level} is not supported."
        )
    if tangent._shape != tensor._shape:
        raise TensorRuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._shape)} while the given forward gradient is of size "
            f"{list(tangent._shape)}."
        )
    if tangent.device != tensor.device:
        raise TensorRuntimeError(
            f"Trying to set a forward gradient on {tensor.device} while the primal is on "
            f"{tangent.device}: the tangent must be on the primal's device "
            f"(tangent.to({str(tensor.device)!r}))."
        )
    # A view of the primal (``ViewBackward0`` when it requires grad, as PyTorch's).
    dual = _without_level(obj, tensor.view_as, tensor)
    _tangents.attach(obj, dual, _without_level(obj, _tangents.with_layout_of, tangent, dual))
    return dual


def _without_level(level, fn, *args):
    """Run ``fn`` with ``level`` off the transform stack when it is the innermost one (its
    ops need no tangents and must not be processed by it)."""
    stack = _dispatch.transforms.stack
    if not stack or stack[-1] is not level:
        return fn(*args)
    _dispatch.pop_transform(level)
    try:
        return fn(*args)
    finally:
        _dispatch.push_transform(level)


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the ``primal`` (a view of the dual tensor, without
    tangent) and its ``tangent`` (None when it has none at the level)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor`` at ``level`` (the current one by default):
    the primal is a view of ``tensor`` with no tangent, the tangent is the one stored (None
    when there is none, or outside any level). Backward differentiable."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    obj = _level_object(level, "_fw_primal")
    # Off the stack (inside a Function's forward) the level's tangents are not visible.
    tangent = _tangents.tangent_of(tensor, obj) if obj in _dispatch.transforms.stack else None
    primal = _without_level(obj, tensor._alias)
    if tangent is not None or _tangents.has_tangent(tensor):
        # An explicit "no tangent": the primal must not read its base's.
        _tangents.attach(obj, primal, None)
    return UnpackedDualTensor(primal, tangent)


def _unpack_for_repr(tensor):
    """``repr``'s view of a dual tensor: ``(primal, tangent)`` at the current level, or
    ``(tensor, None)`` when it has no tangent there."""
    if _current_level < 0 or _levels[_current_level] not in _dispatch.transforms.stack:
        return tensor, None
    primal, tangent = unpack_dual(tensor)
    return (tensor, None) if tangent is None else (primal, tangent)


_tensor_module._hooks["unpack_dual"] = _unpack_for_repr


class dual_level(_GradModeContext):
    """Context manager (or decorator) for forward AD: enters a level on entry, exits it
    (dropping its tangents) on exit. Levels do not nest.

    >>> import jtensor as torch
    >>> import jtensor.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(torch.tensor(3.0), torch.tensor(1.0))
    ...     fwAD.unpack_dual(d.exp()).tangent
    tensor(20.0855)
    """

    def __init__(self):
        pass

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with dual_level():
                return function(*args, **kwargs)

        return wrapper
