"""``device`` objects and the backend boundary.

A backend owns the array module (NumPy for ``cpu``) and the device services: allocation,
building array views over storage bytes, copies and synchronization. Ops call the backend's
``xp`` instead of NumPy directly so that the CUDA backend slots in without touching them.
"""

import re
import weakref

import numpy as np

from ._errors import TensorRuntimeError, TensorTypeError

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
_PLAIN_TYPES = frozenset({"cpu", "cuda", "meta"})   # (jtensor's device types)

# The device types PyTorch's device strings name, in the order its refusal of any other
# lists them; jtensor runs cpu, cuda and meta.
_PYTORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep",
                         "hip", "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta",
                         "hpu", "mtia", "privateuseone")


class device:
    """Where a tensor's storage lives: ``device('cpu')``, ``device('cuda', 0)``,
    ``device('cuda:1')``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TensorTypeError(f"device() expects a string or an int, got {type!r}")
        if type not in _PLAIN_TYPES:
            # PyTorch's grammar: letters and underscores, then ``:`` and an index without a
            # leading zero
            if not type:
                raise TensorRuntimeError("Device string must not be empty")
            parsed = _DEVICE_STRING.fullmatch(type)
            if parsed is None:
                raise TensorRuntimeError(f"Invalid device string: '{type}'")
            if parsed.group(2) is not None:
                if index is not None:
                    raise TensorRuntimeError(
                        f"type (string) must not include an index because index was passed "
                        f"explicitly: {type}")
                index = int(parsed.group(2))
            type = parsed.group(1)
        if type not in _PLAIN_TYPES:
            if type in _PYTORCH_DEVICE_TYPES:
                raise TensorRuntimeError(
                    f"jtensor has no {type} device: its device types are cpu, cuda (through "
                    f"CuPy) and meta (got the device string: {type})")
            raise TensorRuntimeError(
                f"Expected one of {', '.join(_PYTORCH_DEVICE_TYPES)} device type at start of "
                f"device string: {type}")
        if index is not None and index < 0:
            raise TensorRuntimeError(f"Device index must not be negative, got {index}")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with jtensor.device('cuda'):`` makes this the factories' default device."""
        stack = _DEFAULT_STACK.setdefault("stack", [])
        stack.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_DEFAULT_STACK["stack"].pop())
        return False


CPU = device("cpu")
_DEFAULT_STACK = {}


class Backend:
    """What a device provides. ``cpu`` is NumPy; ``cuda:N`` is CuPy, or the emulated device.

    ``xp``: the array module ops compute with. ``deferred``: kernels run later, on a queue
    (the emulated device), so code that reads device memory on the host must wait for them;
    ``view`` does that, ``view_nowait`` (for kernels being queued) does not. ``tracked``:
    every storage is registered with the device's allocator (``adopt``) for its memory
    statistics.
    """

    name = "abstract"
    xp = np
    device = None
    deferred = False
    tracked = False

    def normalize(self, dev):
        return dev


class CPUBackend(Backend):
    """NumPy on the host."""

    name = "cpu"
    xp = np
    device = CPU

    @staticmethod
    def allocate(nbytes):
        return np.empty(nbytes, dtype=np.uint8)

    @staticmethod
    def view(data, shape, np_dtype, offset_bytes, strides_bytes):
        """An array over ``data`` (1-D uint8) with exactly this metadata; never a copy."""
        if offset_bytes >= data.shape[0] and 0 in shape:
            # An empty tensor may sit at (or past) the end of its storage, as in PyTorch;
            # NumPy refuses such an offset, and there is nothing to address anyway.
            offset_bytes = 0
        return np.ndarray(shape, np_dtype, data, offset_bytes, strides_bytes)

    view_nowait = view

    @staticmethod
    def data_ptr(data):
        return data.__array_interface__["data"][0]

    @staticmethod
    def to_host(array, reason=None):
        return array

    @staticmethod
    def from_other(array, other):
        """``array`` (on ``other``'s device) brought to the host."""
        return other.to_host(array, "cpu")

    @staticmethod
    def synchronize():
        pass


CPU_BACKEND = CPUBackend()


def _no_bytes(nbytes, np_dtype=np.uint8, shape=None):
    """An array of ``shape`` (default ``(nbytes,)``) that owns one element: every index reads
    and writes that element (zero strides). A meta storage holds this as its "bytes", so its
    length is right and nothing is allocated."""
    shape = (nbytes,) if shape is None else shape
    return np.ndarray(shape, np_dtype, np.zeros(1, np_dtype), 0, (0,) * len(shape))


class MetaBackend(Backend):
    """The ``meta`` device, as PyTorch's: tensors with a shape, dtype and strides and no data.

    Storages keep only their length. Views get exact metadata from the view ops; an op
    computed on meta tensors runs on stand-in arrays that read as zeros and hands back a
    meta tensor whose computed array is dropped (``adopt``), so the result's shape, dtype and
    strides are the op's and its values are never kept. Reading values (``item``, ``tolist``,
    a copy to another device) raises PyTorch's errors (``to_host``).
    """

    name = "meta"
    xp = np
    device = None   # set below, once META exists
    deferred = False
    tracked = True   # every new storage passes through ``adopt``

    @staticmethod
    def allocate(nbytes):
        return _no_bytes(nbytes)

    @staticmethod
    def adopt(storage):
        """Drop the bytes an op computed for a meta result; keep their count."""
        data = storage._bytes
        nbytes = data.shape[0] if data is not None else storage._source.nbytes
        storage._bytes = _no_bytes(nbytes)
        storage._source = None
        # NaN never equals itself: a tensor never trusts an array cached when it was made
        # (the op's real result) and asks ``view`` for the stand-in each time.
        storage._generation = float("nan")

    @staticmethod
    def view(data, shape, np_dtype, offset_bytes, strides_bytes):
        """A stand-in with the tensor's shape and dtype, owning a single element."""
        return _no_bytes(0, np_dtype, shape)

    view_nowait = view

    @staticmethod
    def data_ptr(data):
        return 0   # PyTorch's meta storages have no address either

    @staticmethod
    def to_host(array, reason=None):
        if reason == "item":
            raise TensorRuntimeError("Tensor.item() cannot be called on meta tensors")
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")

    @staticmethod
    def from_other(array, other):
        """Copying into a meta tensor keeps nothing: the values are not read."""
        return array

    @staticmethod
    def from_host(array, dev=None, private=False):
        return array

    @staticmethod
    def synchronize(reason=None):
        pass


META = device("meta")
MetaBackend.device = META
META_BACKEND = MetaBackend()
# Installed by the CUDA layer (jtensor/cuda/_runtime.py) when it is imported, so that this
# core module never imports the layer above it: index -> that device's backend.
cuda_backend = None
# Installed by jtensor.cuda: (nbytes, device) -> a pinned (page-locked) host Storage.
pinned_storage = None
_PINNED = weakref.WeakSet()   # host storages in pinned memory (pin_memory(), D2H copies)


def is_pinned(storage):
    """Whether ``storage`` is page-locked host memory (queued copies to a GPU may use it)."""
    return storage in _PINNED


def mark_pinned(storage):
    _PINNED.add(storage)
_CUDA_BACKENDS = {}   # cuda:N -> its backend, once resolved (cleared when CUDA is reset)
_BACKENDS = {"cpu": CPU_BACKEND, "meta": META_BACKEND}


def register_backend(device_type, backend):
    """Install the backend used for ``device_type`` (the CUDA layer calls this lazily)."""
    _BACKENDS[device_type] = backend


def backend_for(dev):
    """The backend of a device; ``cuda`` devices are resolved (and CUDA started) lazily."""
    if dev.type == "cpu":
        return CPU_BACKEND
    if dev.type == "cuda":
        backend = _CUDA_BACKENDS.get(dev)
        if backend is None:
            if cuda_backend is None:
                raise TensorRuntimeError(
                    f"no backend is available for device '{dev}': the CUDA layer "
                    "(jtensor.cuda) is not loaded")
            backend = cuda_backend(dev.index)
            if dev.index is not None:
                _CUDA_BACKENDS[dev] = backend
        return backend
    if dev.type == "meta":
        return META_BACKEND
    raise TensorRuntimeError(
        f"no backend is available for device '{dev}': jtensor has cpu, cuda and meta devices")


def index_out_of_range(backend, name, exc, size):
    """An index out of range, found by the kernel of the op ``name`` on ``backend``'s device.

    PyTorch's CPU kernels raise ``exc`` at once. On CUDA the kernel fails with a device-side
    assert that surfaces at the next synchronisation as ``AcceleratorError`` (the call itself
    returns) and then leaves the device's context broken, as CUDA's sticky error does: the
    CUDA backends' ``device_assert`` arranges that, and this function returns,
    after which the op goes on with its indices clamped into ``[-size, size)`` (its values
    are undefined, as on a GPU). An empty dimension (``size`` 0) has no index to clamp to:
    that error is raised at once everywhere."""
    report = getattr(backend, "device_assert", None)
    if report is None or not size:
        raise exc
    report(name, exc)


def data_dependent_sync(tensor):
    """An op whose output size depends on ``tensor``'s values (``nonzero``, a boolean mask,
    ``masked_select``, ``unique``) must wait for a CUDA device to know that size: a sync point,
    as in PyTorch. Nothing happens on the CPU."""
    backend = tensor._storage._backend
    if backend is not CPU_BACKEND:
        backend.synchronize("data-dependent")


# The factories' default device: state of the device layer, read by every factory.
_default_device = [CPU]


def set_default_device(device):
    """Make factories without ``device=`` create tensors on ``device`` (``None``: the CPU)."""
    _default_device[0] = CPU if device is None else resolve_device(device)


def get_default_device():
    """The device factories use when no ``device=`` is given."""
    return _default_device[0]


def resolve_device(device):
    """A concrete device (``cuda`` gets its current index) for a factory's ``device=``
    (``None``: the default device)."""
    if device is None:
        return _default_device[0]
    device = to_device(device)
    if device.type == "meta":
        return META   # ``meta:0`` is not a device PyTorch knows either; one meta device
    if device.type != "cpu":
        device = backend_for(device).normalize(device)
    return device


def to_device(value):
    """Normalise ``None``, a string, an int or a device into a ``device``."""
    if value is None:
        return CPU
    if isinstance(value, device):
        return value
    return device(value)


device.__module__ = "jtensor"   # printed and pickled as the public jtensor.device (torch.device)
