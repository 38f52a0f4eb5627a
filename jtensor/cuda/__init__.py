"""``jtensor.cuda``: CUDA devices, as ``torch.cuda``.

On a machine with an NVIDIA GPU and CuPy, ``cuda:N`` is that GPU. Without one, CUDA can be
emulated (``JTENSOR_EMULATE_CUDA=1`` in the environment, or ``jtensor.cuda.emulate()``
before the first CUDA use): NumPy kernels on a real asynchronous queue, with CUDA's sync
points, event timing, deferred kernel errors and caching-allocator statistics. The
emulated device always says so (``get_device_name()``, ``repr(jtensor.cuda)``, a one-time
warning). Nothing here imports CuPy until CUDA starts.
"""

import contextlib
import sys
import types

from .. import _device as _device_layer
from .._device import device as _device_type
from ._allocator import OutOfMemoryError
from ._emulator import AcceleratorError, DeviceSideError
from ._runtime import EmulatedCUDAWarning, runtime as _runtime



# ---------------------------------------------------------------------- availability
def emulate(device_count=1, memory=8 * 1024 ** 3):
    """Run ``cuda`` on the emulated device (``device_count`` devices of ``memory`` bytes).

    Call before the first CUDA use; calling it again with the same arguments does nothing.
    """
    _runtime.emulate(device_count, memory)


def is_emulated():
    """Whether ``cuda`` is the emulated device (starts CUDA if needed)."""
    _runtime.start()
    return _runtime.mode == "emulated"


def is_available():
    """Whether a CUDA device (real, or emulated when asked for) can be used."""
    return _runtime.available()


def is_initialized():
    return _runtime.mode is not None and bool(_runtime.backends)


def init():
    _runtime.require()


def device_count():
    """Number of CUDA devices (0 when none is available)."""
    return len(_runtime.backends) if _runtime.available() else 0


def current_device():
    """Index of the current CUDA device of this thread."""
    return _runtime.current_index()


def set_device(device):
    """Make ``device`` (an index, ``'cuda:N'`` or a device) the current CUDA device."""
    _runtime.set_index(device)


class device:
    """Context manager that makes ``device`` current for its block. ``None`` or a negative
    index changes nothing and starts no CUDA (PyTorch's no-op: ``with
    torch.cuda.device(args.gpu_index)`` where -1 means the CPU); ``with ... as d`` binds
    ``None``, as in PyTorch."""

    def __init__(self, device):
        if device is None or (isinstance(device, int) and not isinstance(device, bool)
                              and device < 0):
            self.idx = device  # PyTorch keeps the negative index as given
        else:
            if isinstance(device, (str, _device_type)):
                dev = device if isinstance(device, _device_type) else _device_type(device)
                if dev.type != "cuda":
                    raise ValueError(f"Expected a cuda device, but got: {dev}")
            self.idx = _runtime.index_of(device)
        self.prev_idx = -1

    def _active(self):
        return self.idx is not None and self.idx >= 0

    def __enter__(self):
        if self._active():
            self.prev_idx = _runtime.current_index()
            _runtime.set_index(self.idx)

    def __exit__(self, *exc):
        if self._active():
            _runtime.set_index(self.prev_idx)
        return False


class device_of(device):
    """``device`` of a tensor's CUDA device (no change for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else None)


def _backend(dev=None):
    return _runtime.backend(_runtime.index_of(dev))


def get_device_name(device=None):
    """The device's name (the emulated one says it is emulated)."""
    return _backend(device).device_name()


def get_device_capability(device=None):
    """``(major, minor)`` compute capability; ``(0, 0)`` for the emulated device."""
    return _backend(device).capability()


class _DeviceProperties:
    def __init__(self, backend):
        self.name = backend.device_name()
        self.total_memory = backend.total_memory()
        self.major, self.minor = backend.capability()
        self.is_emulated = bool(getattr(backend, "emulated", False))

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // 1024 ** 2}MB)")


def get_device_properties(device=None):
    return _DeviceProperties(_backend(device))


def can_device_access_peer(device, peer_device):
    """Whether ``device`` can read ``peer_device``'s memory directly (CUDA peer access).

    Emulated devices live in one process, so any two different ones can; a device is never
    its own peer (as ``cudaDeviceCanAccessPeer``). PyTorch enables peer access by itself
    where it exists and uses it for cross-device copies; ops still need one device."""
    count = device_count()

    def ordinal(dev):
        if isinstance(dev, int) and not isinstance(dev, bool):
            return dev
        dev = dev if isinstance(dev, _device_type) else _device_type(dev)
        if dev.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {dev}")
        return current_device() if dev.index is None else dev.index

    index = current_device() if device is None else ordinal(device)
    peer = ordinal(peer_device)
    if not 0 <= index < count:
        raise AssertionError("Invalid device id")
    if not 0 <= peer < count:
        raise AssertionError("Invalid peer device id")
    return _backend(index).can_access_peer(peer)


def synchronize(device=None):
    """Wait until every kernel queued on ``device`` (default: the current one) has run."""
    _backend(device).synchronize("synchronize")


def _reset_broken_context(device=None):
    """Repair the context of ``device`` (``None``: every started device) after a device-side
    assert broke it; returns whether one was broken. For tests, so that one test's assert
    does not fail the tests after it: PyTorch has no such call (a real GPU's context stays
    broken until the process ends). Works on the emulated device, and on a GPU only because
    jtensor checks indices on the host, so there the broken state is jtensor's own record."""
    if _runtime.mode not in ("emulated", "cupy"):
        return False  # CUDA not started (or none): nothing can be broken
    backends = _runtime.backends if device is None else [_backend(device)]
    return any([backend.repair() for backend in backends])


def set_launch_blocking(enabled):
    """Make every kernel launch wait for its kernel (what ``CUDA_LAUNCH_BLOCKING=1`` does at
    start-up), so a failing kernel raises where it was launched."""
    _runtime.launch_blocking = bool(enabled)


def is_launch_blocking():
    return _runtime.launch_blocking


# ---------------------------------------------------------------------- streams and events
def _kernel_types():
    _runtime.require()
    if _runtime.mode == "emulated":
        from . import _emulator as impl
    else:
        from . import _cupy as impl
    return impl


def Stream(device=None, priority=0):
    """A new stream on ``device`` (default: the current one)."""
    return _kernel_types().Stream(_backend(device), priority)


def Event(enable_timing=False, blocking=False, interprocess=False):
    """A CUDA event; ``enable_timing=True`` lets ``elapsed_time`` measure between two."""
    return _kernel_types().Event(enable_timing, blocking, interprocess)


def current_stream(device=None):
    """The stream kernels go to on ``device`` in this thread."""
    index = _runtime.index_of(device)
    return _runtime.current_stream(index)


def default_stream(device=None):
    return _runtime.default_streams[_runtime.index_of(device)]


def set_stream(stream):
    _runtime.set_stream(stream)


@contextlib.contextmanager
def stream(stream):
    """Send the block's kernels to ``stream`` (``None``: no change)."""
    if stream is None:
        yield
        return
    previous_stream = _runtime.current_stream(stream.device_index)
    previous_index = _runtime.current_index()
    _runtime.set_index(stream.device_index)
    _runtime.set_stream(stream)
    entered = stream.__enter__() if hasattr(stream, "__enter__") else None
    try:
        yield
    finally:
        if entered is not None:
            stream.__exit__(None, None, None)
        _runtime.set_stream(previous_stream)
        _runtime.set_index(previous_index)


# ---------------------------------------------------------------------- memory
def memory_allocated(device=None):
    """Bytes held by live tensors on ``device`` (blocks rounded as the allocator rounds)."""
    return _backend(device).memory_allocated()


def _peak(device, what):
    backend = _backend(device)
    if hasattr(backend, "allocator"):
        return getattr(backend.allocator, "peak_" + what)
    return max(getattr(backend, "peak_" + what), getattr(backend, "memory_" + what)())


def max_memory_allocated(device=None):
    """Peak of ``memory_allocated`` since start or ``reset_peak_memory_stats``."""
    return _peak(device, "allocated")


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (live blocks plus its cache)."""
    return _backend(device).memory_reserved()


def max_memory_reserved(device=None):
    """Peak of ``memory_reserved`` since start or ``reset_peak_memory_stats``."""
    return _peak(device, "reserved")


def reset_peak_memory_stats(device=None):
    backend = _backend(device)
    if hasattr(backend, "allocator"):
        backend.allocator.reset_peak()
    else:
        backend.peak_allocated = backend.memory_allocated()
        backend.peak_reserved = backend.memory_reserved()


reset_max_memory_allocated = reset_peak_memory_stats


def reset_accumulated_memory_stats(device=None):
    """Start the cumulative counts of ``memory_stats`` ("...allocated", "...freed") again."""
    backend = _backend(device)
    if hasattr(backend, "allocator"):
        backend.allocator.reset_accumulated()


def empty_cache():
    """Give the cached, unused memory of every device back (``memory_reserved`` drops)."""
    if _runtime.mode in ("emulated", "cupy"):
        for backend in _runtime.backends:
            backend.empty_cache()


def memory_stats(device=None):
    backend = _backend(device)
    if hasattr(backend, "allocator"):
        return backend.allocator.stats()
    return {"allocated_bytes.all.current": backend.memory_allocated(),
            "reserved_bytes.all.current": backend.memory_reserved()}


def mem_get_info(device=None):
    """``(free, total)`` bytes of the device."""
    backend = _backend(device)
    total = backend.total_memory()
    return total - backend.memory_reserved(), total


def memory_summary(device=None, abbreviated=False):
    """A short table of the allocator's statistics."""
    from ._allocator import format_size

    index = _runtime.index_of(device)
    backend = _runtime.backends[index]
    rows = [("allocated (live tensors)", backend.memory_allocated(),
             max_memory_allocated(index)),
            ("reserved (allocator total)", backend.memory_reserved(), max_memory_reserved(index))]
    lines = [f"memory summary of cuda:{index}"
             f"{' (emulated)' if _runtime.mode == 'emulated' else ''}",
             f"{'':28}{'current':>12}{'peak':>12}"]
    lines += [f"{name:28}{format_size(cur):>12}{format_size(peak):>12}" for name, cur, peak in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------- random numbers
def manual_seed(seed):
    """Seed the generator of the current CUDA device (lazily, as PyTorch: no error without
    a GPU).

    CUDA generators run PyTorch's CPU engine (mt19937, ATen's CPU samplers), not PyTorch's
    CUDA Philox generator: values drawn on a CUDA device are reproducible for a seed but
    differ from what PyTorch draws on a GPU (CPU values equal PyTorch's)."""
    from .. import random as _random

    _random.cuda_generator(None if _runtime.mode not in ("emulated", "cupy") or
                           not _runtime.backends else _runtime.local.index).manual_seed(seed)


def manual_seed_all(seed):
    from .. import random as _random

    count = len(_runtime.backends) if _runtime.mode in ("emulated", "cupy") else 1
    for index in range(max(count, 1)):
        _random.cuda_generator(index).manual_seed(seed)


def seed():
    from .. import random as _random

    return _random.cuda_generator(None).seed()


def seed_all():
    seed()


def initial_seed():
    from .. import random as _random

    return _random.cuda_generator(None).initial_seed()


def get_rng_state(device="cuda"):
    """The state of ``device``'s generator (default: the current CUDA device) as a CPU
    uint8 tensor, for ``set_rng_state``; starts CUDA, as PyTorch's does."""
    from .. import random as _random

    return _random.cuda_generator(_runtime.index_of(device)).get_state()


def set_rng_state(new_state, device="cuda"):
    """Restore ``device``'s generator from a state ``get_rng_state`` returned."""
    from .. import random as _random

    _random.cuda_generator(_runtime.index_of(device)).set_state(new_state)


def get_rng_state_all():
    """The states of every CUDA device's generator, in device order."""
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states):
    """Restore every CUDA device's generator from ``get_rng_state_all()``'s list."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


# ---------------------------------------------------------------------- pinned memory
def _is_pinned(storage):
    return _device_layer.is_pinned(storage)


def _pin(storage):
    _device_layer.mark_pinned(storage)


def _pinned_storage(nbytes, device):
    """A pinned host Storage of ``nbytes`` (``pin_memory()``, device-to-host copies)."""
    from .._storage import Storage

    storage = Storage(_backend().pinned_buffer(nbytes), device)
    _pin(storage)
    return storage


_device_layer.pinned_storage = _pinned_storage


# ---------------------------------------------------------------------- the module's repr
class _CudaModule(types.ModuleType):
    def __repr__(self):
        mode = _runtime.mode
        if mode == "emulated":
            count = len(_runtime.backends)
            what = f"EMULATED: {count} device{'s' if count > 1 else ''}, NumPy on the CPU"
        elif mode == "cupy":
            what = f"CuPy: {len(_runtime.backends)} GPU(s), {_runtime.backends[0].device_name()}"
        elif mode == "none":
            what = f"no CUDA device: {_runtime.why_none}; jtensor.cuda.emulate() emulates one"
        else:
            what = "not started yet"
        return f"<module 'jtensor.cuda' ({what})>"


sys.modules[__name__].__class__ = _CudaModule

from . import amp  # noqa: E402  (torch.cuda.amp's deprecated names)

__all__ = [
    "AcceleratorError", "DeviceSideError", "EmulatedCUDAWarning", "Event", "OutOfMemoryError",
    "Stream", "amp",
    "can_device_access_peer",
    "current_device", "current_stream", "default_stream", "device", "device_count", "device_of",
    "emulate", "empty_cache", "get_device_capability", "get_device_name",
    "get_device_properties", "get_rng_state", "get_rng_state_all", "init", "initial_seed",
    "is_available", "is_emulated",
    "is_initialized", "is_launch_blocking", "manual_seed", "manual_seed_all",
    "max_memory_allocated", "max_memory_reserved", "mem_get_info", "memory_allocated",
    "memory_reserved", "memory_stats", "memory_summary", "reset_accumulated_memory_stats",
    "reset_max_memory_allocated", "reset_peak_memory_stats", "seed", "seed_all", "set_device",
    "set_launch_blocking", "set_rng_state", "set_rng_state_all",
    "set_stream", "stream", "synchronize",
]
