"""``torch.utils.deterministic``: ``fill_uninitialized_memory`` (default True), whether
``use_deterministic_algorithms(True)`` also fills the memory that ``empty``, ``empty_like``,
``empty_strided``, ``new_empty`` and ``resize_`` leave uninitialised: NaN for floating
dtypes, the largest value for integers, True for bool, so a program that reads such memory
by mistake gets the same, visible, values on every run.

>>> import jtensor as torch
>>> torch.utils.deterministic.fill_uninitialized_memory
True
"""

import sys
import types

from .. import _settings


class _Deterministic(types.ModuleType):
    """The module, with ``fill_uninitialized_memory`` as a property over jtensor's setting
    (as PyTorch's module class does)."""

    @property
    def fill_uninitialized_memory(self):
        """Whether deterministic mode fills uninitialised memory (default True)."""
        return _settings._state["fill"]

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, fill):
        _settings.set_fill_uninitialized_memory(fill)


sys.modules[__name__].__class__ = _Deterministic
