"""Which CUDA jtensor runs on (real through CuPy, emulated, or none) and its per-thread state.

CUDA starts lazily, at the first use of a ``cuda`` device or of a ``jtensor.cuda`` function
that needs one. Emulation is used only when asked for (``JTENSOR_EMULATE_CUDA=1`` in the
environment, or ``jtensor.cuda.emulate()`` before the first CUDA use); otherwise a GPU is
used through CuPy when there is one.
"""

import os
import sys
import threading
import warnings

from .. import _device as _device_layer
from .._device import device
from .._errors import TensorRuntimeError
from ._allocator import GIB


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame(depth=1):
    """``(frame, level)``: the first caller outside jtensor, and how many frames up it is
    from the caller of this function (a warning's ``stacklevel``)."""
    frame, level = sys._getframe(depth + 1), 1
    inside = _INSIDE
    while frame is not None:
        filename = frame.f_code.co_filename
        flag = inside.get(filename)
        if flag is None:
            flag = inside[filename] = filename.startswith("<entry of") or \
                os.path.abspath(filename).startswith(_PACKAGE_DIR)
        if not flag:
            return frame, level
        frame, level = frame.f_back, level + 1
    return None, 1


_INSIDE = {}   # filename -> whether it belongs to jtensor


def _user_stacklevel():
    return user_frame(1)[1]


class EmulatedCUDAWarning(UserWarning):
    """Shown once, when the emulated CUDA device starts."""


class _ThreadState(threading.local):
    index = 0
    streams = None   # device index -> current stream


class Runtime:
    def __init__(self):
        self.mode = None          # None (not started), "emulated", "cupy" or "none"
        self.why_none = ""
        self.backends = []
        self.requested = None     # (device_count, capacity) from emulate()
        self.launch_blocking = os.environ.get("CUDA_LAUNCH_BLOCKING", "0") == "1"
        self.local = _ThreadState()
        self.lock = threading.RLock()
        self.default_streams = []
        self.pid = os.getpid()   # the process CUDA started in (a forked child cannot use it)

    # ------------------------------------------------------------------ start-up
    def emulate(self, device_count=1, memory=8 * GIB):
        with self.lock:
            if self.mode == "emulated":
                if self.requested == (device_count, memory):
                    return
                raise TensorRuntimeError(
                    "jtensor.cuda.emulate() must be called before the first CUDA use: the "
                    f"emulated CUDA already runs with {len(self.backends)} device(s)")
            if self.mode == "cupy":
                raise TensorRuntimeError(
                    "jtensor.cuda.emulate() must be called before the first CUDA use: CUDA "
                    "already runs on the real GPU through CuPy")
            self.requested = (device_count, memory)
            self.mode = None
            self.start()

    def start(self):
        with self.lock:
            if self.mode is not None:
                return
            requested = self.requested
            if requested is None:
                env = os.environ.get("JTENSOR_EMULATE_CUDA", "").strip()
                if env and env not in ("0", "false", "no", "off"):
                    count = int(env) if env.isdigit() and int(env) > 0 else 1
                    requested = (count, 8 * GIB)
            if requested is not None:
                self._start_emulated(*requested)
                return
            self._start_cupy()

    def _start_emulated(self, count, capacity):
        from ._emulator import EmulatedBackend, Stream

        if not isinstance(count, int) or count < 1:
            raise TensorRuntimeError(
                f"emulate(): device_count must be a positive int, got {count!r}")
        self.backends = [EmulatedBackend(i, self, capacity) for i in range(count)]
        self.default_streams = [Stream._default(b) for b in self.backends]
        self.mode, self.pid = "emulated", os.getpid()
        self.requested = (count, capacity)
        warnings.warn(
            f"jtensor: CUDA is EMULATED ({count} device{'s' if count > 1 else ''}, NumPy on "
            "the CPU with an asynchronous kernel queue). The semantics are CUDA's; the speed "
            "is the CPU's.", EmulatedCUDAWarning, stacklevel=_user_stacklevel())

    def _start_cupy(self):
        try:
            from ._cupy import CupyBackend, Stream, device_count
        except ImportError as exc:
            self.mode, self.why_none = "none", f"CuPy is not installed ({exc})"
            return
        try:
            count = device_count()
        except Exception as exc:  # noqa: BLE001 - any driver failure means no GPU
            self.mode, self.why_none = "none", f"CuPy found no usable GPU ({exc})"
            return
        if count == 0:
            self.mode, self.why_none = "none", "CuPy found no GPU"
            return
        self.backends = [CupyBackend(i, self) for i in range(count)]
        self.default_streams = [Stream._default(b) for b in self.backends]
        self.mode, self.pid = "cupy", os.getpid()

    def _reset(self):
        """Forget the started CUDA (tests use it to try several configurations in one
        process): waits for queued kernels first. Tensors already made keep their device."""
        with self.lock:
            for backend in self.backends:
                if getattr(backend, "deferred", False):
                    try:
                        backend.queue.wait()
                    except RuntimeError:
                        pass
            self.mode, self.why_none, self.backends, self.requested = None, "", [], None
            from .. import _device

            _device._CUDA_BACKENDS.clear()
            self.default_streams = []
            self.local = _ThreadState()
            self.launch_blocking = os.environ.get("CUDA_LAUNCH_BLOCKING", "0") == "1"

    # ------------------------------------------------------------------ devices
    def available(self):
        self.start()
        return bool(self.backends)

    def require(self):
        self.start()
        if self.pid != os.getpid() and self.mode in ("emulated", "cupy"):
            from ._emulator import forked_error

            raise forked_error()
        if not self.backends:
            raise TensorRuntimeError(
                "Found no NVIDIA driver on your system: no CUDA device is available "
                f"({self.why_none}). To run CUDA code without a GPU, turn on jtensor's emulated "
                "CUDA device: set JTENSOR_EMULATE_CUDA=1 in the environment, or call "
                "jtensor.cuda.emulate() before the first CUDA use.")

    def index_of(self, dev):
        """The device index ``dev`` (a device, an int, a string or None) names, checked."""
        self.require()
        if dev is None:
            return self.local.index
        if isinstance(dev, int) and not isinstance(dev, bool):
            index = dev
        else:
            dev = dev if isinstance(dev, device) else device(dev)
            if dev.type != "cuda":
                raise TensorRuntimeError(f"Expected a cuda device, but got: {dev}")
            index = self.local.index if dev.index is None else dev.index
        if not 0 <= index < len(self.backends):
            count = len(self.backends)
            from ._emulator import AcceleratorError  # PyTorch raises torch.AcceleratorError

            raise AcceleratorError(
                f"CUDA error: invalid device ordinal: cuda:{index} was asked for, and there "
                f"{'is' if count == 1 else 'are'} {count} CUDA device{'s' if count != 1 else ''}"
                f" (cuda:0{'' if count == 1 else f' to cuda:{count - 1}'})"
                f"{' (emulated)' if self.mode == 'emulated' else ''}")
        return index

    def backend(self, index):
        index = self.index_of(index)   # first: it may start CUDA and fill ``backends``
        return self.backends[index]

    def normalize(self, dev):
        return device("cuda", self.index_of(dev))

    def current_index(self):
        self.require()
        return self.local.index

    def set_index(self, index):
        self.local.index = self.index_of(index)

    # ------------------------------------------------------------------ streams
    def current_stream(self, index):
        streams = self.local.streams
        if streams is not None:
            stream = streams.get(index)
            if stream is not None:
                return stream
        return self.default_streams[index]

    def set_stream(self, stream):
        if self.local.streams is None:
            self.local.streams = {}
        self.local.streams[stream.device_index] = stream


runtime = Runtime()


def backend(index):
    """The backend of ``cuda:index`` (``None``: the current device)."""
    return runtime.backend(index)


_device_layer.cuda_backend = backend   # the device layer resolves cuda:N through this
