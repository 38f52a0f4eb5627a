"""``torch.accelerator``: the device-agnostic accelerator API of PyTorch 2.6+.

Tutorials pick their device with::

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() \
        else "cpu"

jtensor's only accelerator is CUDA (a real GPU through CuPy, or the emulated device after
``jtensor.cuda.emulate()``), so each function here answers for ``jtensor.cuda``: without it,
``is_available()`` is False, ``current_accelerator()`` is None, ``device_count()`` is 0 and the
functions that need a device raise PyTorch's ``RuntimeError``.
"""

import contextlib

from . import cuda as _cuda
from ._device import device as _device
from ._errors import TensorRuntimeError

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]


def is_available():
    """Whether an accelerator can be used now (in jtensor: ``torch.cuda.is_available()``)."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """``torch.device('cuda')`` when jtensor's CUDA device is there, else None."""
    return _device("cuda") if _cuda.is_available() else None


def device_count():
    """How many accelerator devices there are (0 without one)."""
    return _cuda.device_count() if _cuda.is_available() else 0


def _require():
    if not _cuda.is_available():
        raise TensorRuntimeError("Cannot access accelerator device when none is available.")


def _index(device):
    if device is None:
        return None
    if isinstance(device, int):
        return device
    d = _device(device)
    if d.type != "cuda":
        raise TensorRuntimeError(f"{d.type} doesn't match the current accelerator cuda.")
    return d.index


def current_device_index():
    """The index of the current accelerator device."""
    _require()
    return _cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device):
    """Makes ``device`` (an index, a name or a ``torch.device``) the current one."""
    _require()
    _cuda.set_device(_index(device))


set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device):
    """Within the block, ``device`` is the current accelerator device (None: no change)."""
    if device is None:
        yield
        return
    _require()
    previous = _cuda.current_device()
    _cuda.set_device(_index(device))
    try:
        yield
    finally:
        _cuda.set_device(previous)


def current_stream(device=None):
    _require()
    return _cuda.current_stream(_index(device))


def set_stream(stream):
    _require()
    _cuda.set_stream(stream)


def synchronize(device=None):
    """Waits for the work queued on the accelerator."""
    _require()
    _cuda.synchronize(_index(device))


def empty_cache():
    if _cuda.is_available():
        _cuda.empty_cache()


def _per_device(name):
    """``torch.accelerator.<name>(device_index=None)``, answered by ``torch.cuda.<name>``."""

    def query(device_index=None):
        _require()
        return getattr(_cuda, name)(_index(device_index))

    query.__name__ = query.__qualname__ = name
    query.__doc__ = f"``torch.cuda.{name}`` of the accelerator device (the current one: None)."
    return query


memory_allocated = _per_device("memory_allocated")
max_memory_allocated = _per_device("max_memory_allocated")
memory_reserved = _per_device("memory_reserved")
max_memory_reserved = _per_device("max_memory_reserved")
memory_stats = _per_device("memory_stats")
reset_peak_memory_stats = _per_device("reset_peak_memory_stats")
