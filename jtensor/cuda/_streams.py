"""What the emulated and the CuPy streams and events share: construction, the default
stream of a device, ``record_event``, ``wait`` and the argument checks of ``elapsed_time``."""

import sys

from .._errors import TensorValueError


def current_stream():
    from ._runtime import runtime

    return runtime.current_stream(runtime.current_index())


class StreamBase:
    """A queue of work on one device (``torch.cuda.Stream``); ``id`` 0 is the default one."""

    note = ""   # " (emulated)" on the emulated device

    def __init__(self, backend, priority=0):
        self._setup(backend, priority)
        self._open()

    @classmethod
    def _default(cls, backend):
        stream = object.__new__(cls)
        stream._setup(backend, 0)
        stream._open_default()
        return stream

    def _setup(self, backend, priority):
        self.backend = backend
        self.device_index = backend.index
        self.device = backend.device
        self.priority = priority

    def record_event(self, event=None):
        """Record ``event`` (a new one when None) on this stream and return it."""
        if event is None:
            # The event type of this stream's kind (emulated or CuPy): the module that
            # defines the stream class defines its Event too.
            event = sys.modules[type(self).__module__].Event(False, False, False)
        event.record(self)
        return event

    def __hash__(self):
        return hash((self.device_index, self.id))

    def __repr__(self):
        kind = "default stream" if self.id == 0 else f"stream {self.id}"
        return f"<jtensor.cuda.Stream device={self.device} {kind}{self.note}>"


class EventBase:
    """A marker in a stream (``torch.cuda.Event``)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._marker = None

    def wait(self, stream=None):
        """Make later work on ``stream`` (default: the current one) wait for this event."""
        (stream if stream is not None else current_stream()).wait_event(self)

    def _check_elapsed(self, end_event):
        # ValueError, as c10's CUDAEvent::elapsed_time (TORCH_CHECK_VALUE; seen on an H100)
        if not (self.enable_timing and end_event.enable_timing):
            raise TensorValueError(
                "Both events must be created with argument 'enable_timing=True'.")
        if self._marker is None or end_event._marker is None:
            raise TensorValueError(
                "Both events must be recorded before calculating elapsed time.")
