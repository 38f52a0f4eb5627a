"""Reading files from jtensor's earlier format (a pickled record, not PyTorch's zip).

Earlier jtensor versions wrote ``{"format": "jtensor-save", "version": 1, "storages": {key:
(device, bytes)}, "body": pickle}`` with tensors as ``jtensor.serialization._rebuild_tensor``
calls. Those files still load; ``save`` no longer writes them. ``place`` (where a loaded
storage goes: ``map_location``) serves both formats.
"""

import collections
import io
import pickle

import numpy as np

from .. import _dtypes
from .._device import CPU, device
from .._errors import TensorRuntimeError, TensorTypeError, type_name
from .._size import Size
from .._storage import Storage, TypedStorage
from . import _rebuild

# PyTorch's legacy format starts with its magic number pickled (protocol 2, LONG1).
_TORCH_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)
_FORMAT = "jtensor-save"
_VERSION = 1


def _rebuild_tensor(storage, offset, shape, stride, dtype_name, requires_grad):
    """A tensor of the old format, with the bounds checks of the new one."""
    if dtype_name not in _dtypes._BY_NAME:
        raise TensorRuntimeError(f"corrupt jtensor file: unknown dtype {dtype_name!r}")
    dtype = _dtypes._dtype_by_name(dtype_name)
    if not isinstance(storage, Storage):
        raise TensorRuntimeError(f"corrupt jtensor file: a tensor's storage is {storage!r}")
    loaded = TypedStorage(storage, dtype)
    return _rebuild.rebuild_tensor_v2(loaded, offset, shape, stride, bool(requires_grad), None)


def _rebuild_sparse_coo(indices, values, shape, coalesced):
    """A sparse COO tensor of the old format (checked as a PyTorch one)."""
    return _rebuild.rebuild_sparse_tensor(
        _rebuild.sparse_coo, (indices, values, shape, bool(coalesced))
    )


# Old files name them as jtensor.serialization's, which still exports them.
_rebuild_tensor.__module__ = _rebuild_sparse_coo.__module__ = "jtensor.serialization"

_SAFE_GLOBALS = {
    ("jtensor.serialization", "_rebuild_tensor"): _rebuild_tensor,
    ("jtensor.serialization", "_rebuild_sparse_coo"): _rebuild_sparse_coo,
    ("jtensor._size", "Size"): Size,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storages, weights_only, map_location):
        super().__init__(file)
        self._storages = storages
        self._loaded = {}
        self._weights_only = weights_only
        self._map_location = map_location

    def persistent_load(self, pid):
        if (
            not isinstance(pid, tuple)
            or len(pid) != 2
            or pid[0] != "storage"
            or pid[1] not in self._storages
        ):
            raise TensorRuntimeError(f"corrupt jtensor file: unknown storage reference {pid!r}")
        key = pid[1]
        storage = self._loaded.get(key)
        if storage is None:
            saved_device, raw = self._storages[key]
            data = np.frombuffer(raw, dtype=np.uint8).copy()
            storage = place(Storage(data, CPU), str(saved_device), self._map_location)
            self._loaded[key] = storage
        return storage

    def find_class(self, module, name):
        if self._weights_only:
            found = _SAFE_GLOBALS.get((module, name))
            if found is None:
                raise pickle.UnpicklingError(
                    f"Weights only load failed: {module}.{name} is not an allowed global. "
                    "Pass weights_only=False only for files from a source you trust: it lets "
                    "the file run arbitrary code while loading."
                )
            return found
        if module == "jtensor.serialization":
            return {
                "_rebuild_tensor": _rebuild_tensor,
                "_rebuild_sparse_coo": _rebuild_sparse_coo,
            }.get(name) or super().find_class(module, name)
        return super().find_class(module, name)


class _RecordUnpickler(pickle.Unpickler):
    """The outer record holds only dicts, strings, bytes and ints: refuse any class."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in a jtensor file header")


def load(raw, map_location, weights_only):
    """Load a file of the old format (``raw``: its bytes)."""
    if raw.startswith(_TORCH_LEGACY_MAGIC) or raw[257:262] == b"ustar":
        raise TensorRuntimeError(
            "this is a checkpoint in PyTorch's legacy format (torch.save before 1.6, or "
            "_use_new_zipfile_serialization=False), which jtensor cannot read: load it with "
            "PyTorch and save it again with torch.save's default zip format"
        )
    try:
        record = _RecordUnpickler(io.BytesIO(raw)).load()
    except Exception as exc:  # noqa: BLE001 (any damage to the header: one clear error)
        raise TensorRuntimeError(
            f"not a checkpoint: neither PyTorch's zip format nor a file of jtensor.save's "
            f"earlier format ({type(exc).__name__}: {exc})"
        ) from None
    if (
        not isinstance(record, dict)
        or record.get("format") != _FORMAT
        or not isinstance(record.get("storages"), dict)
        or not isinstance(record.get("body"), bytes)
    ):
        raise TensorRuntimeError(
            "not a checkpoint: neither PyTorch's zip format nor a file "
            "of jtensor.save's earlier format"
        )
    if record.get("version") != _VERSION:
        raise TensorRuntimeError(
            f"this file was written by a newer jtensor (format {record.get('version')})"
        )
    unpickler = _Unpickler(
        io.BytesIO(record["body"]), record["storages"], weights_only, map_location
    )
    try:
        obj = unpickler.load()
    except (RuntimeError, pickle.UnpicklingError):
        raise
    except Exception as exc:  # noqa: BLE001 (a damaged body: named, never a stray error)
        if not weights_only:
            raise
        raise pickle.UnpicklingError(f"corrupt jtensor file: {type(exc).__name__}: {exc}") from None
    return obj


def place(storage, location, map_location):
    """A CPU ``storage`` saved at ``location`` ("cpu", "cuda:0") put where ``map_location``
    says (None: where it was saved; a device or string; a dict from saved location to new
    one; or ``callable(storage, location)`` returning a storage, or None for the default)."""
    where = map_location
    if where is None:
        target = location
    elif isinstance(where, dict):
        target = where.get(location, location)
    elif isinstance(where, (str, device)):
        target = str(where)
    elif callable(where):
        result = where(storage, location)
        if result is None:
            target = location
        elif isinstance(result, Storage):
            return result
        else:
            raise TensorTypeError(f"map_location returned {type(result).__name__}, not a storage")
    else:
        raise TensorTypeError(
            f"map_location should be a str, device, dict or callable, got {type_name(where)}"
        )
    try:
        dev = device(target)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TensorRuntimeError(
            f"don't know how to restore data location {target!r} ({exc})"
        ) from None
    if dev.type == "cpu":
        return storage
    if dev.type == "cuda":
        return _cuda_storage(storage._data, str(dev))
    raise TensorRuntimeError(f"don't know how to restore data location {target!r}")


def _cuda_storage(data, saved_device):
    """A storage of host bytes ``data`` put on ``saved_device`` (a CUDA device), as PyTorch
    restores a storage saved there."""
    from .. import cuda

    if not cuda.is_available():
        raise TensorRuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
            "False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU (or turn on the "
            "emulated CUDA device: JTENSOR_EMULATE_CUDA=1)."
        )
    dev = cuda._runtime.normalize(device(saved_device))
    count = cuda.device_count()
    if dev.index >= count:
        raise TensorRuntimeError(
            f"Attempting to deserialize object on CUDA device {dev.index} but "
            f"torch.cuda.device_count() is {count}. Please use torch.load with map_location to "
            "map your storages to an existing device."
        )
    return Storage(cuda._runtime.backend(dev.index).from_host(data), dev)
