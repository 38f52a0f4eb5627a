"""``cuda:N`` on a real GPU through CuPy (imported only when CUDA starts).

CuPy is asynchronous by itself: its array functions enqueue kernels on the current stream
and return, so ops written against ``backend.xp`` get CUDA's semantics unchanged. Memory
comes from CuPy's memory pool, which caches freed blocks as PyTorch's allocator does:
``memory_allocated`` is the pool's used bytes, ``memory_reserved`` its total bytes, and
``empty_cache`` frees the unused blocks.
"""

import weakref

import cupy
import numpy as np

from .. import _dispatch
from .._device import Backend, device
from .._errors import TensorRuntimeError


def device_count():
    return cupy.cuda.runtime.getDeviceCount()


class CupyBackend(Backend):
    name = "cuda"
    xp = cupy
    deferred = False
    tracked = True
    emulated = False

    def __init__(self, index, runtime):
        self.index = index
        self.device = device("cuda", index)
        self.runtime = runtime
        self.pool = cupy.get_default_memory_pool()
        self.peak_allocated = 0
        self.peak_reserved = 0

    def __repr__(self):
        return f"<CuPy CUDA backend cuda:{self.index}>"

    def normalize(self, dev):
        return self.runtime.normalize(dev)

    def current_device(self):
        return device("cuda", self.runtime.current_index())

    def _cuda(self):
        return cupy.cuda.Device(self.index)

    # ------------------------------------------------------------------ memory
    def allocate(self, nbytes):
        with self._cuda():
            return cupy.empty(nbytes, dtype=cupy.uint8)

    def zeros(self, nbytes):
        with self._cuda():
            return cupy.zeros(nbytes, dtype=cupy.uint8)

    def adopt(self, storage):
        self.peak_allocated = max(self.peak_allocated, self.pool.used_bytes())
        self.peak_reserved = max(self.peak_reserved, self.pool.total_bytes())

    @staticmethod
    def view(data, shape, np_dtype, offset_bytes, strides_bytes):
        if offset_bytes >= data.shape[0] and 0 in shape:
            offset_bytes = 0
        return cupy.ndarray(shape, np_dtype, data.data + offset_bytes, strides_bytes)

    view_nowait = view

    @staticmethod
    def data_ptr(data):
        return data.data.ptr

    # ------------------------------------------------------------------ execution
    def launch(self, name, fn, *args):
        with self._cuda():
            fn(*args)
        if self.runtime.launch_blocking:
            self.synchronize("launch")

    def synchronize(self, reason="synchronize"):
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason=reason)
        with self._cuda():
            cupy.cuda.get_current_stream().synchronize()
            cupy.cuda.Device(self.index).synchronize()

    # ------------------------------------------------------------------ copies
    def to_host(self, array, reason="cpu"):
        if _dispatch.event_hook is not None:
            if reason == "cpu":
                _dispatch.emit("transfer", src=str(self.device), dst="cpu",
                               nbytes=int(array.nbytes), non_blocking=False)
            _dispatch.emit("sync", device=str(self.device), reason=reason)
        return cupy.asnumpy(array)

    def from_host(self, array, dev=None, private=False):
        if _dispatch.event_hook is not None and not private:
            _dispatch.emit("transfer", src="cpu", dst=str(self.device),
                           nbytes=int(np.asarray(array).nbytes), non_blocking=False)
        with self._cuda():
            return cupy.array(array)

    def from_other(self, array, other):
        if other is self:
            return array
        if other.name == "cpu":
            return self.from_host(array)
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src=str(other.device), dst=str(self.device),
                           nbytes=int(array.nbytes), non_blocking=False)
        with self._cuda():
            return cupy.array(array)   # peer copy

    def copy_async_from_host(self, dst, host):
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src="cpu", dst=str(self.device), nbytes=int(host.nbytes),
                           non_blocking=True)
        with self._cuda():
            dst.set(np.asarray(host, dtype=dst.dtype), stream=cupy.cuda.get_current_stream())

    def copy_async_to_host(self, host, src):
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src=str(self.device), dst="cpu", nbytes=int(src.nbytes),
                           non_blocking=True)
        with self._cuda():
            src = cupy.ascontiguousarray(src, dtype=host.dtype)
            src.get(stream=cupy.cuda.get_current_stream(), out=host)

    # ------------------------------------------------------------------ statistics
    def memory_allocated(self):
        return self.pool.used_bytes()

    def memory_reserved(self):
        return self.pool.total_bytes()

    def empty_cache(self):
        self.pool.free_all_blocks()

    def pinned_buffer(self, nbytes):
        memory = cupy.cuda.alloc_pinned_memory(max(nbytes, 1))
        return np.frombuffer(memory, np.uint8, nbytes)

    def device_name(self):
        props = cupy.cuda.runtime.getDeviceProperties(self.index)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else name

    def total_memory(self):
        return cupy.cuda.runtime.getDeviceProperties(self.index)["totalGlobalMem"]

    def capability(self):
        props = cupy.cuda.runtime.getDeviceProperties(self.index)
        return props["major"], props["minor"]


class Stream:
    """``torch.cuda.Stream`` over a CuPy stream."""

    def __init__(self, backend, priority=0):
        self.backend = backend
        self.device_index = backend.index
        self.device = backend.device
        self.priority = priority
        with backend._cuda():
            self._stream = cupy.cuda.Stream(non_blocking=True)
        self.id = id(self._stream)

    @classmethod
    def _default(cls, backend):
        stream = object.__new__(cls)
        stream.backend = backend
        stream.device_index = backend.index
        stream.device = backend.device
        stream.priority = 0
        stream._stream = cupy.cuda.Stream.null
        stream.id = 0
        return stream

    def query(self):
        return self._stream.done

    def synchronize(self):
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason="stream")
        self._stream.synchronize()

    def wait_event(self, event):
        if event._event is not None:
            self._stream.wait_event(event._event)

    def wait_stream(self, stream):
        self._stream.wait_event(stream._stream.record())

    def record_event(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __enter__(self):
        self._previous = cupy.cuda.get_current_stream()
        self._stream.use()
        return self

    def __exit__(self, *exc):
        self._previous.use()

    def __eq__(self, other):
        return isinstance(other, Stream) and other._stream == self._stream

    def __hash__(self):
        return hash((self.device_index, self.id))

    def __repr__(self):
        kind = "default stream" if self.id == 0 else "stream"
        return f"<jtensor.cuda.Stream device={self.device} {kind}>"


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._event = None

    def record(self, stream=None):
        from ._runtime import runtime

        if stream is None:
            stream = runtime.current_stream(runtime.current_index())
        self._event = cupy.cuda.Event(block=self.blocking, disable_timing=not self.enable_timing)
        self._event.record(stream._stream)

    def query(self):
        return self._event is None or self._event.done

    def synchronize(self):
        if self._event is not None:
            if _dispatch.event_hook is not None:
                _dispatch.emit("sync", device="cuda", reason="event")
            self._event.synchronize()

    def wait(self, stream=None):
        from ._runtime import runtime

        if stream is None:
            stream = runtime.current_stream(runtime.current_index())
        stream.wait_event(self)

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise TensorRuntimeError(
                "Both events must be created with argument 'enable_timing=True'.")
        if self._event is None or end_event._event is None:
            raise TensorRuntimeError(
                "Both events must be recorded before calculating elapsed time.")
        return cupy.cuda.get_elapsed_time(self._event, end_event._event)

    def __repr__(self):
        return f"<jtensor.cuda.Event ({'not recorded' if self._event is None else 'recorded'})>"


_keep = weakref.WeakSet()
