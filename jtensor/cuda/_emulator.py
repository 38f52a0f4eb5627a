"""The emulated CUDA device: NumPy kernels on a real asynchronous queue.

Each emulated device has one worker thread that runs the kernels launched on it, in launch
order, and a caching allocator that keeps PyTorch's statistics. The host thread queues a
kernel and goes on, exactly as it does with a GPU; it waits only at synchronisation points
(``synchronize``, ``item``, ``tolist``, printing, copies to the host, event and stream waits)
and when host code must read device memory directly. A kernel that fails (an index out of
range) does not raise where it was launched: the error is kept and raised at the next
synchronisation, with the launch site, unless ``CUDA_LAUNCH_BLOCKING=1`` made every launch
wait for its kernel. A device-side assert then leaves the device's context broken, as CUDA
does: every later call on that device raises (see ``KernelQueue.broken``).

Device memory is NumPy buffers that no host array ever shares: moving data between host
and device always copies.
"""

import os
import threading
import time
from collections import deque

import numpy as np

from .. import _dispatch
from .._arraymod import cupy_like_numpy
from .._device import Backend, device
from .._errors import TensorRuntimeError
from ._allocator import CachingAllocator, TrackedMemory
from ._streams import EventBase, StreamBase, current_stream



_NAN = float("nan")


def forked_error():
    return TensorRuntimeError(
        "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
        "must use the 'spawn' start method (CUDA, emulated here, was started in the parent "
        "process; its device queue does not exist in a forked child).")


class AcceleratorError(RuntimeError):
    """``torch.AcceleratorError`` (also ``torch.cuda.AcceleratorError``): a kernel failed on
    the device; raised at the next synchronisation, as CUDA does."""


AcceleratorError.__module__ = "jtensor"  # PyTorch's is torch.AcceleratorError
DeviceSideError = AcceleratorError  # jtensor's earlier name for it


def user_site():
    """``(filename, line)`` of the innermost frame outside the jtensor package."""
    from ._runtime import user_frame

    frame, _ = user_frame(2)
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)


class Kernel:
    """One launch: its name, the stream it went to, and when it was launched, started and
    finished (``time.perf_counter`` seconds; ``None`` until it happened)."""

    __slots__ = ("name", "fn", "stream", "seq", "site", "launch_time", "start_time",
                 "end_time", "skipped", "__weakref__")

    def __init__(self, name, fn, stream, site):
        self.name = name
        self.fn = fn
        self.stream = stream
        self.site = site
        self.seq = 0
        self.launch_time = time.perf_counter()
        self.start_time = None
        self.end_time = None
        self.skipped = False

    # Whether a failure of this kernel breaks the context for good. A kernel that raises
    # IndexError read or wrote out of bounds: on a GPU an assert or an illegal memory access,
    # both sticky (see ``is_sticky``). Class-level, so a launch pays nothing for it.
    sticky = False

    def __repr__(self):
        state = "pending" if self.end_time is None else (
            "skipped" if self.skipped else f"ran {1e3 * (self.end_time - self.start_time):.3f} ms")
        return f"<kernel {self.name} #{self.seq} ({state})>"


class AssertKernel(Kernel):
    """The failing kernel an index check queues (``EmulatedBackend.device_assert``)."""

    __slots__ = ()
    sticky = True


def is_sticky(kernel, exc):
    """Whether the failure ``exc`` of ``kernel`` breaks the device's context for good.

    CUDA's sticky errors are the ones a kernel hits while it runs: a device-side assert
    (``cudaErrorAssert``) and an out-of-bounds access (``cudaErrorIllegalAddress``); after
    them "the process must be terminated and relaunched". Errors in a launch's arguments
    (``cudaErrorInvalidValue``, ``cudaErrorInvalidConfiguration``) are cleared once read. A
    NumPy ``IndexError`` inside an emulated kernel is the out-of-bounds access; any other
    exception stands for what CuPy or PyTorch refuse before the kernel starts."""
    return kernel.sticky or isinstance(exc, IndexError)


class KernelQueue:
    """A device's in-order execution engine: a worker thread running queued kernels."""

    def __init__(self, index):
        self.index = index
        self._pid = os.getpid()
        self._pending = deque()
        self._cv = threading.Condition()
        self.launched = 0
        self.completed = 0
        self._error = None
        self._thread = None
        # A failed index check (``device_assert``) waits here as a failing kernel until the
        # next launch or synchronisation: the op that found it still reads device memory
        # (host reads do not submit it), so it is reported after the op, as on a GPU.
        self.pending_assert = None
        # After a sticky failure has been reported: (kernel name, launch site, the error,
        # where it was reported). Every later device call raises (``check``) until the
        # process restarts, or a test calls ``jtensor.cuda._reset_broken_context()``.
        self.broken = None

    def _start(self):
        self._thread = threading.Thread(target=self._run, name=f"jtensor-cuda:{self.index}",
                                        daemon=True)
        self._thread.start()

    def check(self):
        """Raise the broken context's error, if a sticky failure was reported before."""
        if self.broken is not None:
            raise AcceleratorError(broken_message(self.index, *self.broken, emulated=True))

    def submit(self, kernel):
        if os.getpid() != self._pid:
            raise forked_error()
        if self.broken is not None:
            self.check()
        if self.pending_assert is not None and kernel is not self.pending_assert:
            self.submit(self.pending_assert)
        with self._cv:
            if kernel is self.pending_assert:
                self.pending_assert = None
            if self._thread is None:
                self._start()
            self.launched += 1
            kernel.seq = self.launched
            self._pending.append(kernel)
            self._cv.notify_all()
        return kernel.seq

    def _run(self):
        cv = self._cv
        while True:
            with cv:
                while not self._pending:
                    cv.wait()
                kernel = self._pending[0]
            if self._error is None:
                kernel.start_time = time.perf_counter()
                try:
                    kernel.fn()
                except BaseException as exc:  # noqa: BLE001 - reported at the next sync
                    self._error = (kernel, exc)
                kernel.end_time = time.perf_counter()
            else:
                # After a device-side failure the rest of the queue is not run (on a GPU
                # the context is broken); the error is reported at the next sync.
                kernel.skipped = True
                kernel.start_time = kernel.end_time = time.perf_counter()
            kernel.fn = None
            with cv:
                self._pending.popleft()
                self.completed = kernel.seq
                cv.notify_all()

    @property
    def busy(self):
        return self.completed != self.launched

    def wait(self, seq=None, where="a synchronisation", host_read=False):
        """Block until kernel ``seq`` (default: the last launched) has run; raise a deferred
        kernel error, if one happened, here."""
        if self._thread is not None and threading.current_thread() is self._thread:
            return
        if os.getpid() != self._pid:
            raise forked_error()
        if self.broken is not None:
            self.check()
        if self.pending_assert is not None and not host_read and seq is None:
            self.submit(self.pending_assert)
        target = self.launched if seq is None else seq
        if self.completed < target:
            with self._cv:
                while self.completed < target:
                    self._cv.wait()
        if self._error is not None:
            self.raise_error(where)

    def raise_error(self, where):
        kernel, exc = self._error
        # Everything after the failure was skipped; the queue is empty again by now.
        with self._cv:
            while self.completed < self.launched:
                self._cv.wait()
            self._error = None
            sticky = is_sticky(kernel, exc)
            if sticky:
                self.broken = (kernel.name, kernel.site, exc, where)
        raise DeviceSideError(assert_message(self.index, kernel.name, kernel.site, exc, where,
                                             emulated=True, sticky=sticky)) from exc

    def repair(self):
        """Forget a broken context and any failure not reported yet (tests only: a real
        GPU's context cannot be repaired). Returns whether the context was broken."""
        was_broken = self.broken is not None
        self.broken = self.pending_assert = None
        try:
            self.wait(where="a reset of the emulated context")  # what is queued runs first
        except AcceleratorError:
            pass  # a failure still queued: dropped with the rest
        self.broken = None
        return was_broken


_FIRST_LINE = "CUDA error: device-side assert triggered"  # PyTorch's, word for word


def _emulated(emulated):
    return "emulated " if emulated else ""


def assert_message(index, name, site, exc, where, emulated, sticky=True):
    """The message of a kernel failure reported at ``where`` (a later API call); ``sticky``:
    a device-side assert, after which the device's context is broken."""
    filename, line = site
    if sticky:
        first = _FIRST_LINE
        tail = ("\nThis error is sticky, as on a real GPU: the CUDA context of this device is "
                "now unusable, and every later CUDA call on it (launches, new tensors, copies, "
                "synchronize, printing a CUDA tensor) raises this error again. Restart the "
                "process (in a notebook: restart the kernel) to use the device again; CPU "
                "tensors keep working.")
        if not emulated:
            tail += (" (jtensor checked the indices on the host, so the GPU itself is "
                     "unharmed; jtensor refuses further work as PyTorch does.)")
    else:
        # Not an assert: on a GPU a launch error of this kind is cleared once it is read.
        first = f"CUDA error: the kernel '{name}' failed"
        tail = "\nThis error is not sticky: it is reported once and the device works on."
    return (
        f"{first}\n"
        f"The kernel '{name}' launched at {filename}:{line} failed on "
        f"{_emulated(emulated)}device cuda:{index}: {exc}\n"
        f"CUDA kernel errors are reported asynchronously, at a later API call (here: {where}), "
        "so the stack trace below points at that call, not at the launch. Kernels queued after "
        "the failed one were not run.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1 (or call "
        "jtensor.cuda.set_launch_blocking(True)): every launch then waits for its kernel and "
        f"the error is raised where it happens.{tail}")


def broken_message(index, name, site, exc, reported, emulated):
    """The message every device call raises once a device-side assert has broken the
    context: PyTorch's first line, then which kernel broke it and what to do."""
    filename, line = site
    how = ("\nTests can repair this emulated context with jtensor.cuda._reset_broken_context() "
           "(a private helper for tests: a real GPU has no such repair)." if emulated else "")
    return (
        f"{_FIRST_LINE}\n"
        f"The CUDA context of {_emulated(emulated)}device cuda:{index} is unusable: the kernel "
        f"'{name}' launched at {filename}:{line} failed a device-side assert ({exc}), "
        f"reported at {reported}. "
        "After a device-side assert every CUDA call on the device fails with this error, "
        "whatever it is: kernel launches, new CUDA tensors, copies to or from the device, "
        "synchronize, printing a CUDA tensor. CPU tensors keep working.\n"
        "Restart the process (in a notebook: restart the kernel) to use the device again, "
        "then find the bad index with CUDA_LAUNCH_BLOCKING=1 or by running the code on the "
        f"CPU.{how}")


class StickyContext(TrackedMemory):
    """Memory of a device whose context a device-side assert can break (the emulated and the
    CuPy backend): a broken context refuses new tensors, as ``cudaMalloc`` and the kernel that
    fills a new tensor return CUDA's sticky error. ``check_context()`` raises it."""

    def allocate(self, nbytes):
        self.check_context()
        return TrackedMemory.allocate(self, nbytes)

    def adopt(self, storage):
        self.check_context()  # an op's result on a broken device: its kernel failed
        TrackedMemory.adopt(self, storage)


class EmulatedBackend(StickyContext, Backend):
    """``cuda:N`` emulated with NumPy: a kernel queue and a caching allocator."""

    name = "cuda"
    xp = cupy_like_numpy()  # NumPy with CuPy's gaps: what fails on a GPU fails here
    deferred = True
    tracked = True
    emulated = True

    def __init__(self, index, runtime, capacity):
        self.index = index
        self.device = device("cuda", index)
        self.runtime = runtime
        self.queue = KernelQueue(index)
        self.allocator = CachingAllocator(index, capacity)
        self._fresh = {}

    def __repr__(self):
        return f"<emulated CUDA backend cuda:{self.index}>"

    # ------------------------------------------------------------------ devices
    def normalize(self, dev):
        return self.runtime.normalize(dev)

    # ------------------------------------------------------------------ memory
    def check_context(self):
        self.queue.check()

    def repair(self):
        return self.queue.repair()

    def adopt(self, storage):
        StickyContext.adopt(self, storage)
        # NaN never equals itself, so tensors never trust an array cached over these bytes
        # and rebuild it through ``view``, which waits for the kernels queued before.
        storage._generation = _NAN

    def view(self, data, shape, np_dtype, offset_bytes, strides_bytes):
        """Host access to device memory: waits for the kernels queued so far."""
        queue = self.queue
        if queue.busy or queue._error is not None or queue.broken is not None:
            queue.wait(where="host code reading device memory", host_read=True)
        return self.view_nowait(data, shape, np_dtype, offset_bytes, strides_bytes)

    @staticmethod
    def view_nowait(data, shape, np_dtype, offset_bytes, strides_bytes):
        if offset_bytes >= data.shape[0] and 0 in shape:
            offset_bytes = 0
        return np.ndarray(shape, np_dtype, data, offset_bytes, strides_bytes)

    @staticmethod
    def data_ptr(data):
        return data.__array_interface__["data"][0]

    # ------------------------------------------------------------------ execution
    def launch(self, name, fn, *args):
        """Queue ``fn(*args)`` as a kernel on the current stream; returns the kernel."""
        stream = self.runtime.current_stream(self.index)
        kernel = Kernel(name, (lambda: fn(*args)) if args else fn, stream, user_site())
        stream._last = self.queue.submit(kernel)
        if _dispatch.event_hook is not None:
            _dispatch.emit("launch", device=str(self.device), op=name, kernel=kernel)
        if self.runtime.launch_blocking:
            self.queue.wait(kernel.seq, where=f"the launch of '{name}' (CUDA_LAUNCH_BLOCKING=1)")
        return kernel

    def synchronize(self, reason="synchronize"):
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason=reason)
        self.queue.wait(where=f"a synchronisation ({reason})")

    def device_assert(self, name, exc):
        """An index kernel found an index out of range (``_device.index_out_of_range``): a
        kernel that fails, queued at the next launch or synchronisation (not before the op
        that found it has read what it reads) and reported at the synchronisation."""
        self.queue.check()  # an index kernel launched on a broken context fails to launch
        if self.queue.pending_assert is not None:
            return  # the first failure is the one reported

        def kernel():
            raise exc

        stream = self.runtime.current_stream(self.index)
        self.queue.pending_assert = AssertKernel(name, kernel, stream, user_site())
        if self.runtime.launch_blocking:
            self.queue.wait(where=f"the launch of '{name}' (CUDA_LAUNCH_BLOCKING=1)")

    # ------------------------------------------------------------------ statistics
    @staticmethod
    def pinned_buffer(nbytes):
        return np.empty(nbytes, dtype=np.uint8)

    def device_name(self):
        return "Emulated CUDA device (NumPy on the CPU)"

    @staticmethod
    def capability():
        return (0, 0)

    def can_access_peer(self, peer):
        """Emulated devices share one process: any other device is a peer."""
        return peer != self.index

    # ------------------------------------------------------------------ copies
    def to_host(self, array, reason="cpu"):
        """A host copy of device ``array``: waits for the queue (a sync point)."""
        if reason == "cpu":
            self._transfer_event(str(self.device), "cpu", array.nbytes, False)
        self.synchronize(reason)
        return np.array(array)

    def from_host(self, array, dev=None, private=False):
        """Device memory holding host ``array`` (its own copy: device memory is separate).

        A plain copy from pageable host memory waits for the device, as PyTorch's blocking
        copy does. ``private``: the host array is jtensor's own (fresh random numbers), values
        a GPU would make itself: no transfer, no wait.
        """
        if self.queue.broken is not None:
            self.queue.check()  # random numbers too: a GPU makes them with a kernel
        out = np.empty(np.shape(array), np.asarray(array).dtype)
        if private:
            # Fresh memory no kernel can touch yet: filled now, so callers may also read
            # the returned array on the host (bernoulli compares it there) without a race.
            np.copyto(out, array)
        else:
            self._transfer_event("cpu", str(self.device), out.nbytes, False)
            self.queue.wait(where="a copy from the host")
            np.copyto(out, array)
        return out

    def from_other(self, array, other):
        """A copy on this device of ``array``, which lives on ``other`` (host or device)."""
        if other is self:
            return array
        if other.name == "cpu":
            return self.from_host(array)
        other.synchronize("copy between devices")
        self._transfer_event(str(other.device), str(self.device), array.nbytes, False)
        self.queue.wait(where="a copy between devices")
        return np.array(array)

    def copy_async_from_host(self, dst, host):
        """Queue a copy from pinned host memory (read when the kernel runs, not now)."""
        self._transfer_event("cpu", str(self.device), host.nbytes, True)
        from .._ops.copies import cast_into

        self.launch("copy (host to device, non_blocking)", cast_into, dst, host)

    def copy_async_to_host(self, host, src):
        """Queue a copy into pinned host memory: ``host`` holds the values only after a sync."""
        self._transfer_event(str(self.device), "cpu", src.nbytes, True)
        from .._ops.copies import cast_into

        self.launch("copy (device to host, non_blocking)", cast_into, host, src)

    def _transfer_event(self, src, dst, nbytes, non_blocking):
        if _dispatch.event_hook is not None:
            _dispatch.emit("transfer", src=src, dst=dst, nbytes=int(nbytes),
                           non_blocking=non_blocking)


# ---------------------------------------------------------------------- streams and events
class Stream(StreamBase):
    """A queue of work on one device. The emulator runs all streams of a device on its one
    worker in launch order, which is one valid schedule of what a GPU may overlap."""

    note = " (emulated)"
    _count = 0

    def _open(self):
        Stream._count += 1
        self.id = Stream._count
        self._last = 0

    def _open_default(self):
        self.id = 0
        self._last = 0

    def query(self):
        """Whether every kernel launched on this stream has run."""
        queue = self.backend.queue
        queue.check()  # cudaStreamQuery returns a broken context's error too
        return queue.completed >= self._last

    def synchronize(self):
        """Wait for every kernel launched on this stream so far."""
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(self.device), reason="stream")
        self.backend.queue.wait(self._last, where="Stream.synchronize()")

    def wait_event(self, event):
        """Later work on this stream waits for ``event`` (in-order here: already true)."""
        if event._marker is not None and event._marker.seq > self._last:
            self._last = event._marker.seq

    def wait_stream(self, stream):
        """Later work on this stream waits for the work queued on ``stream`` so far."""
        self._last = max(self._last, stream._last)

    def __eq__(self, other):
        return isinstance(other, Stream) and other.backend is self.backend and other.id == self.id


class Event(EventBase):
    """``record`` queues a marker kernel; the event completes when the device runs it."""

    def record(self, stream=None):
        from ._runtime import runtime

        stream = stream if stream is not None else current_stream()
        self._stream = stream
        previous = runtime.current_stream(stream.device_index)
        runtime.set_stream(stream)
        try:
            self._marker = stream.backend.launch("event record", _nothing)
        finally:
            runtime.set_stream(previous)

    def query(self):
        """Whether the device has reached this event (True if it was never recorded)."""
        if self._marker is None:
            return True
        self._stream.backend.queue.check()  # cudaEventQuery: a broken context's error
        return self._marker.end_time is not None

    def synchronize(self):
        """Wait until the device reaches this event."""
        if self._marker is None:
            return
        backend = self._stream.backend
        if _dispatch.event_hook is not None:
            _dispatch.emit("sync", device=str(backend.device), reason="event")
        backend.queue.wait(self._marker.seq, where="Event.synchronize()")

    def elapsed_time(self, end_event):
        """Milliseconds of device time between this event and ``end_event``."""
        self._check_elapsed(end_event)
        if self._marker.end_time is None or end_event._marker.end_time is None:
            raise TensorRuntimeError(
                "CUDA error: device not ready: an event has not completed on the device yet, "
                "so there is no time to read. Call end_event.synchronize() (or "
                "jtensor.cuda.synchronize()) before elapsed_time().")
        return 1e3 * (end_event._marker.end_time - self._marker.end_time)

    def __repr__(self):
        state = "not recorded" if self._marker is None else (
            "completed" if self.query() else "pending")
        return f"<jtensor.cuda.Event ({state}, emulated)>"


def _nothing():
    pass
