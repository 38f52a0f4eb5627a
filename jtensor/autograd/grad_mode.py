"""Grad mode: whether ops record history. Thread-local, as in PyTorch.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers and as
decorators; ``set_grad_enabled(False)`` called plainly also switches the mode at once.
"""

import functools

from .._dispatch import grad_mode


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
                f"set_grad_enabled() expects a bool, got {type(mode).__name__} ({mode!r})")
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
