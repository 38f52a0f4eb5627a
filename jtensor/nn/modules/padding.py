"""Padding modules: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``; each calls ``F.pad`` with its mode.

An int padding pads every side of the last 1, 2 or 3 dims by that amount; a tuple is given
last dim first (left, right, top, bottom, front, back), as ``F.pad`` takes it.
"""

from .._functional.padding import pad
from .module import Module

__all__ = []


def _expand_padding(padding, dims, name):  # noqa: ARG001
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    return tuple(padding)  # checked by F.pad when used, as PyTorch does


class _PadNd(Module):
    _mode = "constant"
    _dims = 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _expand_padding(padding, self._dims, type(self).__name__)
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return pad(input, self.padding, "constant", self.value)
        return pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding, value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_PadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


def _make(kind, base, mode, dims):
    name = f"{kind}{dims}d"
    cls = type(name, (base,), {"_mode": mode, "_dims": dims, "__module__": __name__,
                               "__doc__": f"``F.pad(input, padding, '{mode}')`` over the "
                                          f"last {dims} dim(s), as a module."})
    globals()[name] = cls
    __all__.append(name)


for _dims in (1, 2, 3):
    _make("ZeroPad", _ZeroPadNd, "constant", _dims)
    _make("ConstantPad", _ConstantPadNd, "constant", _dims)
    _make("ReflectionPad", _PadNd, "reflect", _dims)
    _make("ReplicationPad", _PadNd, "replicate", _dims)
    _make("CircularPad", _PadNd, "circular", _dims)
