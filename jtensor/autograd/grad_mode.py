"""Grad mode: whether ops record history. Thread-local, as in PyTorch.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers and as
decorators; ``set_grad_enabled(False)`` called plainly also switches the mode at once.
"""

import functools

from .._dispatch import grad_mode
from .._errors import type_name


def is_grad_enabled():
    """Whether grad mode is on in this thread (it is, unless switched off)."""
    return grad_mode.enabled


class _GradModeContext:
    """Sets grad mode to ``_target`` inside a ``with`` block or a decorated function."""

    _target = True

    def __enter__(self):
        self._previous = grad_mode.enabled
        grad_mode.enabled = self._target
        return None

    def __exit__(self, *exc_info):
        grad_mode.enabled = self._previous
        return False

    def __call__(self, function):
        target = self._target

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            # A fresh context per call, so recursion and threads each restore their own mode.
            context = _GradModeContext()
            context._target = target
            with context:
                return function(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Ops inside record no history: outputs do not require grad, and leaves that require
    grad may be updated in place (the optimizer-step idiom).

    >>> import jtensor as torch
    >>> with torch.no_grad():
    ...     torch.is_grad_enabled()
    False
    """

    _target = False

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if callable(orig_func):  # used as ``@no_grad`` without parentheses
            return self(orig_func)
        return self

    def __init__(self, orig_func=None):
        pass


class enable_grad(_GradModeContext):
    """Switch grad mode back on inside a ``no_grad`` region."""

    _target = True

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if callable(orig_func):
            return self(orig_func)
        return self

    def __init__(self, orig_func=None):
        pass


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(mode)``: switches at once; as a context manager, restores on exit.

    >>> import jtensor as torch
    >>> with torch.set_grad_enabled(False):
    ...     torch.is_grad_enabled()
    False
    >>> torch.is_grad_enabled()
    True
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(
                f"set_grad_enabled() expects a bool, got {type_name(mode)} ({mode!r})")
        self._previous = grad_mode.enabled
        self._target = mode
        grad_mode.enabled = mode

    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        grad_mode.enabled = self._previous
        return False

    def __call__(self, function):
        grad_mode.enabled = self._previous  # as a decorator it must not switch at definition

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self._target):
                return function(*args, **kwargs)

        return wrapper


_inference_depth = [0]


def _mark_inference(op, inputs, outputs, modified, info):
    if not grad_mode.inference or modified is not None:
        return
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    if op.kind == "view":
        # A view keeps its input's kind: a view of an inference tensor is one; a view of a
        # normal tensor stays normal and keeps requires_grad (as a leaf, as in PyTorch).
        source = inputs[0] if inputs else None
        if source is not None:
            for o in outs:
                if hasattr(o, "_is_inference"):
                    if source._is_inference:
                        o._is_inference = True
                    elif source._requires_grad:
                        o._requires_grad = True
        return
    for o in outs:
        if hasattr(o, "_is_inference"):
            o._is_inference = True


def is_inference_mode_enabled():
    """Whether this thread is inside ``inference_mode()``."""
    return grad_mode.inference


class inference_mode:
    """Like ``no_grad``, and stricter: tensors created inside are *inference tensors*, which
    can never be saved for backward nor written in place outside inference mode (that is
    what lets PyTorch skip version counting for them).

    >>> import jtensor as torch
    >>> with torch.inference_mode():
    ...     x = torch.ones(2) * 2
    >>> x.is_inference(), x.requires_grad
    (True, False)
    """

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            if callable(mode):  # used as ``@inference_mode`` without parentheses
                self.mode = True
                self._fn = mode
                return
            raise TypeError(f"inference_mode() expects a bool, got {type_name(mode)}")
        self.mode = mode
        self._fn = None

    def __enter__(self):
        from .. import _dispatch

        self._prev = (grad_mode.enabled, grad_mode.inference)
        if self.mode:
            grad_mode.enabled = False
            grad_mode.inference = True
            _inference_depth[0] += 1
            _dispatch.autograd_hook = _mark_inference
        else:
            grad_mode.inference = False
        return None

    def __exit__(self, *exc):
        from .. import _dispatch

        grad_mode.enabled, grad_mode.inference = self._prev
        if self.mode:
            _inference_depth[0] -= 1
            if _inference_depth[0] == 0:
                _dispatch.autograd_hook = None
        return False

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            with inference_mode(True):
                return self._fn(*args, **kwargs)
        function = args[0]
        mode = self.mode

        @functools.wraps(function)
        def wrapper(*a, **k):
            with inference_mode(mode):
                return function(*a, **k)

        return wrapper

    def clone(self):
        return inference_mode(self.mode)
