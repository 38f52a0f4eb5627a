"""``cuda:N`` on a real GPU through CuPy (imported only when CUDA starts).

CuPy is asynchronous by itself: its array functions enqueue kernels on the current stream
and return, so ops written against ``backend.xp`` get CUDA's semantics unchanged. Memory
comes from CuPy's memory pool through PyTorch's caching-allocator rules (``_allocator``,
shared with the emulated device), so the memory figures are PyTorch's: on an H100 CuPy's own
pool counted ``memory_allocated`` as PyTorch does, but reserved exactly what was allocated
where PyTorch reserves 2 MiB and 20 MiB segments.
"""

import cupy
import numpy as np

from .. import _dispatch
from .._device import Backend, device
from ._allocator import CachingAllocator, OutOfMemoryError, format_size
from ._emulator import AcceleratorError, StickyContext, assert_message, broken_message, user_site
from ._streams import EventBase, StreamBase, current_stream


# CuPy compiles every kernel it generates with ``-ftz=true`` (``cupy/cuda/compiler.py`` adds
# it after the caller's options), so its float32 kernels flush subnormal inputs and results to
# zero: ``x * 1`` of 1e-45 gives 0 and ``x != 0`` is False. PyTorch's CUDA kernels keep IEEE
# subnormals, as its CPU ones do. The two hooks below compile jtensor's process's kernels with
# ``-ftz=false`` instead; the extra define gives them cache keys of their own, so CuPy's disk
# cache never hands a flushing kernel to jtensor or a non-flushing one to plain CuPy elsewhere.
# ``JTENSOR_CUDA_FTZ=1`` keeps CuPy's flushing kernels (faster on subnormals, not PyTorch's).
KEEP_SUBNORMALS = "-DJTENSOR_KEEP_SUBNORMALS"
_FTZ_ON = ("-ftz=true", "--ftz=true")


def keep_subnormals():
    """Make CuPy compile kernels without flush-to-zero; True when that is in force."""
    import os

    if os.environ.get("JTENSOR_CUDA_FTZ") == "1":
        return False
    try:
        from cupy.cuda import compiler
    except ImportError:
        return False
    with_cache = getattr(compiler, "_compile_with_cache_cuda", None)
    program = getattr(compiler, "_NVRTCProgram", None)
    if with_cache is None or program is None or not callable(getattr(program, "compile", None)):
        return False  # a CuPy whose compiler is laid out otherwise: its kernels as they are
    if getattr(with_cache, "keeps_subnormals", False):
        return True
    nvrtc_compile = program.compile

    def compile_with_cache(source, options, *args, **kwargs):
        return with_cache(source, (*options, KEEP_SUBNORMALS), *args, **kwargs)

    def compile(self, options=(), *args, **kwargs):
        if KEEP_SUBNORMALS in options:
            options = tuple("-ftz=false" if o in _FTZ_ON else o for o in options)
        return nvrtc_compile(self, options, *args, **kwargs)

    compile_with_cache.keeps_subnormals = True
    program.compile = compile
    compiler._compile_with_cache_cuda = compile_with_cache
    return True


SUBNORMALS = keep_subnormals()


def device_count():
    return cupy.cuda.runtime.getDeviceCount()


class CupyBackend(StickyContext, Backend):
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
        # PyTorch's caching-allocator rules over CuPy's memory (as on the emulated device):
        # memory_allocated/memory_reserved/memory_stats give the figures torch.cuda gives for
        # the same allocations, and a freed block is reused by size before CuPy is asked.
        self.allocator = CachingAllocator(
            index, cupy.cuda.runtime.getDeviceProperties(index)["totalGlobalMem"],
            new_buffer=self._new_buffer, name=self.device_name())
        self._fresh = {}
        self._failed = None  # (op, launch site, error) of an index kernel, until reported
        # Once reported: (op, launch site, error, where). jtensor's checks kept the real
        # context sound, but PyTorch's is broken by then, so every later call here refuses
        # to work, as PyTorch's do (``check_context``).
        self._broken = None
        # cuSOLVER reports a singular or non-positive-definite matrix only through its
        # ``devInfo``, which CuPy ignores by default (garbage out, no error). Checked, CuPy
        # raises LinAlgError as NumPy's LAPACK does, and the linalg ops turn that into
        # PyTorch's error or ``info``; the check synchronises, as PyTorch's own does.
        import cupyx

        cupyx.seterr(linalg="raise")

    def __repr__(self):
        return f"<CuPy CUDA backend cuda:{self.index}>"

    def normalize(self, dev):
        return self.runtime.normalize(dev)

    def _cuda(self):
        return cupy.cuda.Device(self.index)

    # ------------------------------------------------------------------ memory
    def _new_buffer(self, size):
        with self._cuda():
            try:
                return cupy.empty(size, dtype=cupy.uint8)
            except cupy.cuda.memory.OutOfMemoryError:
                self.allocator.empty_cache()  # cached blocks first, as PyTorch retries
                self.pool.free_all_blocks()
            try:
                return cupy.empty(size, dtype=cupy.uint8)
            except cupy.cuda.memory.OutOfMemoryError:
                free, total = cupy.cuda.runtime.memGetInfo()
                raise OutOfMemoryError(
                    f"CUDA out of memory. Tried to allocate {format_size(size)}. GPU "
                    f"{self.index} has a total capacity of {format_size(total)} of which "
                    f"{format_size(free)} is free. Of the allocated memory "
                    f"{format_size(self.allocator.allocated)} is allocated by tensors. Free "
                    "tensors you no longer need (del), or use smaller batches.") from None

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
    def check_context(self):
        """Raise the broken context's error, once a device-side assert has been reported."""
        if self._broken is not None:
            raise AcceleratorError(broken_message(self.index, *self._broken, emulated=False))

    def repair(self):
        """Forget a broken context and an assert not reported yet (tests only). Returns
        whether the context was broken."""
        was_broken = self._broken is not None
        self._broken = self._failed = None
        return was_broken

    def launch(self, name, fn, *args):
        self.check_context()
        with self._cuda():
            fn(*args)
        if self.runtime.launch_blocking:
            self.synchronize("launch")

    def synchronize(self, reason="synchronize"):
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason=reason)
        self.check_context()
        with self._cuda():
            cupy.cuda.get_current_stream().synchronize()
            cupy.cuda.Device(self.index).synchronize()
        self._report(f"a synchronisation ({reason})")

    def device_assert(self, name, exc):
        """An index out of range in the op ``name``: jtensor checks indices before CuPy's
        kernel runs (CuPy's would wrap them around), and reports the failure as PyTorch's
        CUDA kernel does: a device-side assert at the next synchronisation."""
        self.check_context()
        if self._failed is None:
            self._failed = (name, user_site(), exc)
        if self.runtime.launch_blocking:
            self._report(f"the launch of '{name}' (CUDA_LAUNCH_BLOCKING=1)")

    def _report(self, where):
        if self._failed is not None:
            name, site, exc = self._failed
            self._failed = None
            self._broken = (name, site, exc, where)
            raise AcceleratorError(
                assert_message(self.index, name, site, exc, where, emulated=False)) from exc

    # ------------------------------------------------------------------ copies
    def to_host(self, array, reason="cpu"):
        if _dispatch.event_hook is not None:
            if reason == "cpu":
                _dispatch.emit("transfer", src=str(self.device), dst="cpu",
                               nbytes=int(array.nbytes), non_blocking=False)
            _dispatch.emit("sync", device=str(self.device), reason=reason)
        self.check_context()
        host = cupy.asnumpy(array)
        self._report(f"a copy to the host ({reason})")
        return host

    def from_host(self, array, dev=None, private=False):
        if _dispatch.event_hook is not None and not private:
            _dispatch.emit("transfer", src="cpu", dst=str(self.device),
                           nbytes=int(np.asarray(array).nbytes), non_blocking=False)
        self.check_context()
        with self._cuda():
            return cupy.array(array)

    def from_other(self, array, other):
        if other is self:
            return array
        if other.name == "cpu":
            return self.from_host(array)
        self.check_context()
        getattr(other, "check_context", self.check_context)()  # either end broken: refused
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src=str(other.device), dst=str(self.device),
                           nbytes=int(array.nbytes), non_blocking=False)
        with self._cuda():
            return cupy.array(array)   # peer copy

    def copy_async_from_host(self, dst, host):
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src="cpu", dst=str(self.device), nbytes=int(host.nbytes),
                           non_blocking=True)
        self.check_context()
        with self._cuda():
            dst.set(np.asarray(host, dtype=dst.dtype), stream=cupy.cuda.get_current_stream())

    def copy_async_to_host(self, host, src):
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src=str(self.device), dst="cpu", nbytes=int(src.nbytes),
                           non_blocking=True)
        self.check_context()
        with self._cuda():
            src = cupy.ascontiguousarray(src, dtype=host.dtype)
            src.get(stream=cupy.cuda.get_current_stream(), out=host)

    # ------------------------------------------------------------------ statistics
    def empty_cache(self):
        self.allocator.empty_cache()
        self.pool.free_all_blocks()  # the bytes the cache let go of, back to the driver

    def pinned_buffer(self, nbytes):
        memory = cupy.cuda.alloc_pinned_memory(max(nbytes, 1))
        return np.frombuffer(memory, np.uint8, nbytes)

    def device_name(self):
        props = cupy.cuda.runtime.getDeviceProperties(self.index)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else name

    def capability(self):
        props = cupy.cuda.runtime.getDeviceProperties(self.index)
        return props["major"], props["minor"]

    def can_access_peer(self, peer):
        return peer != self.index and bool(
            cupy.cuda.runtime.deviceCanAccessPeer(self.index, peer))


class Stream(StreamBase):
    """``torch.cuda.Stream`` over a CuPy stream."""

    def _open(self):
        with self.backend._cuda():
            self._stream = cupy.cuda.Stream(non_blocking=True)
        self.id = id(self._stream)

    def _open_default(self):
        self._stream = cupy.cuda.Stream.null
        self.id = 0

    def query(self):
        self.backend.check_context()  # cudaStreamQuery returns a broken context's error
        return self._stream.done

    def synchronize(self):
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason="stream")
        self.backend.check_context()
        self._stream.synchronize()

    def wait_event(self, event):
        if event._marker is not None:
            self._stream.wait_event(event._marker)

    def wait_stream(self, stream):
        self._stream.wait_event(stream._stream.record())

    def __enter__(self):
        self._previous = cupy.cuda.get_current_stream()
        self._stream.use()
        return self

    def __exit__(self, *exc):
        self._previous.use()

    def __eq__(self, other):
        return isinstance(other, Stream) and other._stream == self._stream


class Event(EventBase):
    def record(self, stream=None):
        stream = stream if stream is not None else current_stream()
        stream.backend.check_context()
        self._device = stream.device
        self._backend = stream.backend
        self._marker = cupy.cuda.Event(block=self.blocking,
                                       disable_timing=not self.enable_timing)
        self._marker.record(stream._stream)

    def query(self):
        if self._marker is None:
            return True
        self._backend.check_context()
        return self._marker.done

    def synchronize(self):
        if self._marker is not None:
            self._backend.check_context()
            if _dispatch.event_hook is not None:
                _dispatch.emit("sync", device=str(self._device), reason="event")
            self._marker.synchronize()

    def elapsed_time(self, end_event):
        self._check_elapsed(end_event)
        return cupy.cuda.get_elapsed_time(self._marker, end_event._marker)

    def __repr__(self):
        return f"<jtensor.cuda.Event ({'not recorded' if self._marker is None else 'recorded'})>"
