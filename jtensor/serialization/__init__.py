"""``torch.save`` and ``torch.load`` in PyTorch's own file format, and ``torch.serialization``.

``save`` writes PyTorch's zip archive: ``<name>/data.pkl`` (a protocol-2 pickle whose tensors
are ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)``
and whose storages are persistent ids ``('storage', torch.FloatStorage, key, location,
numel)``), one ``<name>/data/<key>`` record of raw little-endian bytes per storage (so a view
saved beside its base loads as a view of one storage again), and ``byteorder``, ``version``,
``.format_version``, ``.storage_alignment`` and ``.data/serialization_id``. The names in the
pickle are PyTorch's: files written here load in PyTorch and files PyTorch writes load here.

``load`` reads them back. ``weights_only=True`` (the default, as PyTorch 2.6+) reads the
pickle with jtensor's own opcode interpreter (``_unpickler``), which only ever calls PyTorch's
allowlisted globals mapped to jtensor's (``_rebuild``) and what ``add_safe_globals`` allowed;
a forged or truncated file fails with ``RuntimeError`` or ``pickle.UnpicklingError`` naming
the problem (``ValueError`` for an unknown byteorder record, as PyTorch). Files from
jtensor's earlier, pickle-only format still load (``_legacy``).
"""

import binascii
import collections
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import warnings
import zipfile
import zlib

import numpy as np

from .._device import CPU, device
from .._dtypes import dtype as _dtype_class
from .._dtypes import uint8
from .._errors import TensorRuntimeError, TensorTypeError, TensorValueError, type_name
from .._size import Size
from .._storage import Storage, TypedStorage
from .._tensor import Tensor, layout
from . import _legacy, _rebuild, _unpickler
from ._legacy import _rebuild_sparse_coo, _rebuild_tensor  # noqa: F401 (old files name them)
from ._unpickler import add_safe_globals, clear_safe_globals  # noqa: F401
from ._unpickler import get_safe_globals, safe_globals  # noqa: F401

DEFAULT_PROTOCOL = 2
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
_FORMAT_VERSION = b"3\n"  # the ``version`` record PyTorch 2.13 writes
_MAX_FORMAT_VERSION = 10  # the newest PyTorch's reader accepts
_ALIGNMENT = 64  # storage records start at multiples of this (PyTorch's, for mmap)


# ------------------------------------------------------------------------------ saving
class _Global:
    """A PyTorch global by name (``torch._utils._rebuild_tensor_v2``), pickled as GLOBAL
    without importing anything: jtensor never imports torch."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        # pickle checks that a reduction's function is callable; this one is only a name.
        raise TensorRuntimeError(f"{self.module}.{self.name} is PyTorch's, not callable here")


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_TENSOR = _Global("torch", "Tensor")
_REBUILD_SPARSE = _Global("torch._utils", "_rebuild_sparse_tensor")
_GET_LAYOUT = _Global("torch.serialization", "_get_layout")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_ORDERED_DICT = _Global("collections", "OrderedDict")
_DTYPE_GLOBALS = {d: _Global("torch", d.name) for d in _rebuild.STORAGE_NAME}
_UNTYPED = _Global("torch.storage", "UntypedStorage")
_STORAGE_GLOBALS = {d: _Global("torch", name) for d, name in _rebuild.STORAGE_NAME.items()}


class _TypedRef:
    """A tensor's storage together with the dtype the tensor reads it as (PyTorch's
    typed storage): what the persistent id describes."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage, self.dtype = storage, dtype


class _Pickler(pickle._Pickler):
    """The pure-Python pickler (``save`` is overridden to write PyTorch's names as GLOBAL
    opcodes; the C pickler offers no such hook). Each storage is written once, as a record
    of the archive, and referred to by key."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.records = []  # (key, bytes) in the order PyTorch writes them
        self._storages = {}  # id(storage) -> (key, dtype, location, numel)
        self._kept = []  # keeps those storages alive, so no id is reused while pickling

    def save(self, obj, save_persistent_id=True):
        if type(obj) is _dtype_class:
            obj = _DTYPE_GLOBALS[obj]
        if type(obj) is _Global:
            memoized = self.memo.get(id(obj))
            if memoized is not None:
                self.write(self.get(memoized[0]))
                return
            self.write(pickle.GLOBAL + obj.module.encode() + b"\n" + obj.name.encode() + b"\n")
            self.memoize(obj)
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        # A storage saved on its own is a persistent id too, as in PyTorch: an untyped one
        # counts bytes (``torch.storage.UntypedStorage``), a typed one its elements.
        if type(obj) is Storage:
            obj = _TypedRef(obj, None)
        elif type(obj) is TypedStorage:
            obj = _TypedRef(obj._untyped, obj.dtype)
        elif type(obj) is not _TypedRef:
            return None
        storage, dtype = obj.storage, obj.dtype
        # An untyped storage holds bytes: uint8 for the one-type-per-storage rule.
        element = uint8 if dtype is None else dtype
        known = self._storages.get(id(storage))
        if known is None:
            key = str(len(self._storages))
            data = np.asarray(storage._backend.to_host(storage._data))
            numel = data.shape[0] // element.itemsize
            # native byte order, which the ``byteorder`` record names
            self.records.append((key, data[: numel * element.itemsize].tobytes()))
            location = "cpu" if storage.device.type == "cpu" else str(storage.device)
            known = self._storages[id(storage)] = (key, element, location, numel)
            self._kept.append(storage)
        key, saved, location, numel = known
        if saved is not element:
            raise TensorRuntimeError(
                "Cannot save multiple tensors or storages that view the same data as "
                f"different types ({saved} and {element})"
            )
        storage_type = _UNTYPED if dtype is None else _STORAGE_GLOBALS[dtype]
        return ("storage", storage_type, key, location, numel)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        if type(obj) is device:
            return (_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if type(obj) is Size:
            return (_SIZE, (tuple(obj),))
        if type(obj) is layout:
            return (
                _GET_LAYOUT,
                (f"torch.{obj}" if not str(obj).startswith("torch.") else str(obj),),
            )
        return NotImplemented


def _reduce_tensor(tensor):
    """PyTorch's reduction of a tensor: ``_rebuild_tensor_v2`` over its storage,
    ``_rebuild_parameter`` around that for a Parameter, ``_rebuild_sparse_tensor`` for COO."""
    if tensor.is_sparse:
        # The history is not saved and requires_grad is dropped, as in PyTorch.
        parts = (
            tensor._sp_indices.detach(),
            tensor._sp_values.detach(),
            Size(tensor._shape),
            bool(tensor._sp_coalesced),
        )
        return (_REBUILD_SPARSE, (tensor.layout, parts))
    # nn.Parameter lives in the training layer, above this one: it is only ever found among
    # the objects to save once that layer is imported.
    parameter = sys.modules.get("jtensor.nn.parameter")
    if parameter is not None and isinstance(tensor, parameter._UninitializedMixin):
        return NotImplemented  # no data yet: its own reduction, as PyTorch's
    if parameter is not None and isinstance(tensor, parameter.Parameter):
        data = Tensor._make(
            tensor._storage, tensor._shape, tensor._stride, tensor._offset, tensor._dtype
        )
        return (_REBUILD_PARAMETER, (data, tensor.requires_grad, collections.OrderedDict()))
    if tensor.device.type == "meta":
        raise TensorRuntimeError("jtensor cannot save a tensor on the meta device (it has no data)")
    rebuild = (
        _REBUILD_V2,
        (
            _TypedRef(tensor._storage, tensor._dtype),
            tensor._offset,
            tuple(tensor._shape),
            tuple(tensor._stride),
            tensor.requires_grad,
            collections.OrderedDict(),
        ),
    )
    # Python attributes of the tensor's own (jtensor's internals are the private ones) are
    # saved as PyTorch saves them: the tensor rebuilt, then given its attributes.
    state = {k: v for k, v in vars(tensor).items() if not k.startswith("_")}
    if parameter is not None and isinstance(tensor, parameter.Buffer):
        state["_is_buffer"] = True  # PyTorch's mark on an nn.Buffer
    if not state:
        return rebuild
    return (_REBUILD_FROM_TYPE, (rebuild[0], _TENSOR, rebuild[1], state))


def _archive_name(f):
    # PyTorch names the folder inside the zip after the file (its name without the last
    # extension), or ``archive`` when writing to a file object.
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def _serialization_id(records):
    # PyTorch writes 40 digits: a random 64-bit number and a checksum of the records, each
    # zero-padded to 20 digits.
    crc = 0
    for _, data in records:
        crc = binascii.crc32(data, crc)
    # (drawn from the OS, not Python's ``random``: PyTorch's comes from C++, and a program
    # that seeds ``random`` for its data must see the same stream whether it saves or not)
    return f"{int.from_bytes(os.urandom(8), 'little'):020d}{crc:020d}".encode()


def _write_record(archive, name, data, align):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o600 << 16
    if align:
        # Pad the local header's extra field so the data starts aligned, as PyTorch does.
        start = archive.fp.tell() + 30 + len(name.encode()) + 4
        pad = -start % _ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    archive.writestr(info, data)


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    """Write ``obj`` (tensors, state dicts, containers of them...) to a path or binary file,
    in PyTorch's zip format: ``torch.load`` reads it, and so does ``jtensor.load``.

    >>> import io, jtensor as torch
    >>> a = torch.arange(6.0); buffer = io.BytesIO()
    >>> torch.save({"a": a, "tail": a[2:]}, buffer); _ = buffer.seek(0)
    >>> loaded = torch.load(buffer)
    >>> loaded["tail"].untyped_storage().data_ptr() == loaded["a"].untyped_storage().data_ptr()
    True
    """
    if not _use_new_zipfile_serialization:
        raise TensorRuntimeError(
            "jtensor only writes PyTorch's zip format (_use_new_zipfile_serialization=True); "
            "the legacy format is not supported"
        )
    if pickle_module is not pickle:
        raise TensorTypeError("save(): jtensor pickles with the standard pickle module only")
    if (
        isinstance(pickle_protocol, bool)
        or not isinstance(pickle_protocol, int)
        or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL
    ):
        raise TensorValueError(
            f"pickle protocol must be an int from 2 to "
            f"{pickle.HIGHEST_PROTOCOL}, got {pickle_protocol!r}"
        )
    body = io.BytesIO()
    pickler = _Pickler(body, pickle_protocol)
    pickler.dump(obj)
    name = _archive_name(f)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        _write_record(archive, f"{name}/data.pkl", body.getvalue(), False)
        _write_record(archive, f"{name}/.format_version", b"1", True)
        _write_record(archive, f"{name}/.storage_alignment", str(_ALIGNMENT).encode(), True)
        if not _disable_byteorder_record:
            _write_record(archive, f"{name}/byteorder", sys.byteorder.encode(), True)
        for key, data in pickler.records:
            _write_record(archive, f"{name}/data/{key}", data, True)
        _write_record(archive, f"{name}/version", _FORMAT_VERSION, True)
        _write_record(
            archive, f"{name}/.data/serialization_id", _serialization_id(pickler.records), True
        )
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):
            raise TensorRuntimeError(f"Parent directory {parent} does not exist.")
        try:
            handle = open(f, "wb")  # noqa: SIM115 (closed below; OSError is PyTorch's error)
        except OSError as exc:
            raise TensorRuntimeError(f"cannot open {os.fspath(f)!r} to save: {exc}") from None
        with handle:
            handle.write(buffer.getvalue())
    else:
        f.write(buffer.getvalue())


# ----------------------------------------------------------------------------- loading
# What Python's zipfile raises for a damaged archive (a bad header, a truncated member, bad
# deflate data, an unknown compression method): each becomes PyTorch's RuntimeError.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    ValueError,
    EOFError,
    OSError,
    struct.error,
    NotImplementedError,
)


class _MappedFile:
    """A memory map as the file zipfile reads (Python 3.11's mmap has no ``seekable``)."""

    def __init__(self, mapped):
        self._mapped = mapped

    def seekable(self):
        return True

    def __getattr__(self, name):
        return getattr(self._mapped, name)


class _Archive:
    """The records of a checkpoint's zip archive, with PyTorch's checks and messages."""

    def __init__(self, raw):
        # A memory map is read in place (load(mmap=True)); bytes through a buffer.
        self.mapped = raw if isinstance(raw, _mmap.mmap) else None
        try:
            self._zip = zipfile.ZipFile(
                _MappedFile(raw) if self.mapped is not None else io.BytesIO(raw)
            )
            names = self._zip.namelist()
        except _ZIP_ERRORS as exc:
            raise TensorRuntimeError(
                f"PytorchStreamReader failed reading zip archive: {exc} (the file is "
                "truncated or not a checkpoint)"
            ) from None
        if not names:
            raise TensorRuntimeError(
                "PytorchStreamReader failed reading zip archive: the archive is empty"
            )
        prefix, slash, _ = names[0].partition("/")
        if not slash:
            raise TensorRuntimeError(
                "PytorchStreamReader failed reading zip archive: file in "
                f"archive is not in a subdirectory: {names[0]}"
            )
        self.prefix = prefix
        self._infos = {info.filename: info for info in self._zip.infolist()}

    def has(self, name):
        return f"{self.prefix}/{name}" in self._infos

    def size(self, name):
        return self._infos[f"{self.prefix}/{name}"].file_size

    def mapped_record(self, name):
        """The bytes of a stored (uncompressed) record as an array over the memory map, or
        ``None`` where the file is not mapped or the record is compressed."""
        info = self._infos[f"{self.prefix}/{name}"]
        if self.mapped is None or info.compress_type != zipfile.ZIP_STORED:
            return None
        header = self.mapped[info.header_offset : info.header_offset + 30]
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            return None  # read() names the damage
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        start = info.header_offset + 30 + name_len + extra_len
        if start + info.file_size > len(self.mapped):
            return None
        return np.frombuffer(self.mapped, np.uint8, count=info.file_size, offset=start)

    def read(self, name):
        full = f"{self.prefix}/{name}"
        if full not in self._infos:
            raise TensorRuntimeError(
                f"PytorchStreamReader failed locating file {name}: file "
                "not found (a record of the checkpoint is missing)"
            )
        try:
            return self._zip.read(full)
        except _ZIP_ERRORS as exc:
            raise TensorRuntimeError(
                f"PytorchStreamReader failed reading file {name}: {exc} "
                "(the checkpoint is truncated or corrupt)"
            ) from None


class _StorageLoader:
    """``persistent_load``: each storage record read once, put where ``map_location``
    says, and shared by every tensor that refers to it."""

    def __init__(self, archive, map_location, byteorder):
        self._archive = archive
        self._map_location = map_location
        self._byteorder = byteorder
        self._loaded = {}

    def __call__(self, pid):
        if not isinstance(pid, tuple) or len(pid) != 5:
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r} (corrupt data.pkl)")
        kind, storage_type, key, location, numel = pid
        if kind not in ("storage", b"storage"):
            raise pickle.UnpicklingError(
                f"Only persistent_load of storage is allowed, got {kind!r}"
            )
        if not isinstance(storage_type, _rebuild.StorageType):
            raise TensorRuntimeError(f"corrupt checkpoint: unknown storage type {storage_type!r}")
        if (
            not isinstance(key, str)
            or not isinstance(location, str)
            or isinstance(numel, bool)
            or not isinstance(numel, int)
            or numel < 0
        ):
            raise TensorRuntimeError(f"corrupt checkpoint: persistent id {pid!r}")
        dtype = _rebuild.check_dtype(storage_type.dtype)
        itemsize = dtype.itemsize
        loaded = self._loaded.get(key)
        if loaded is None:
            name = f"data/{key}"
            if "/" in key or not self._archive.has(name):
                raise TensorRuntimeError(
                    f"corrupt checkpoint: storage {key!r} has no record {name} in the archive"
                )
            if self._archive.size(name) != numel * itemsize:
                raise TensorRuntimeError(
                    f"corrupt checkpoint: storage {key!r} should hold {numel} elements of "
                    f"{itemsize} bytes ({numel * itemsize} bytes) but its record has "
                    f"{self._archive.size(name)} bytes"
                )
            data = self._archive.mapped_record(name)
            raw = self._archive.read(name) if data is None else data
            if len(raw) != numel * itemsize:
                raise TensorRuntimeError(
                    f"corrupt checkpoint: storage {key!r} has "
                    f"{len(raw)} bytes, not {numel * itemsize}"
                )
            if data is None:
                data = np.frombuffer(raw, dtype=np.uint8).copy()
            if self._byteorder != sys.byteorder and itemsize > 1:
                data = _byteswap(data, itemsize, dtype)
            loaded = self._loaded[key] = _legacy.place(
                Storage(data, CPU), location, self._map_location
            )
        storage = loaded
        if storage.nbytes() < numel * itemsize:
            raise TensorRuntimeError(
                f"corrupt checkpoint: storage {key!r} is referred to with different sizes"
            )
        return TypedStorage(storage, dtype)


def _byteswap(data, itemsize, dtype):
    # A file from a machine of the other byte order: each element's bytes reversed (a
    # complex number's two halves each on their own).
    unit = itemsize // 2 if dtype.is_complex else itemsize
    return data.view(f"u{unit}").byteswap().view(np.uint8)


class _FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: any global may load (the file is trusted), PyTorch's names
    mapped to jtensor's."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._storage_loader = persistent_load

    def persistent_load(self, pid):
        return self._storage_loader(pid)

    def find_class(self, module, name):
        found = _rebuild.torch_global(f"{module}.{name}")
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            # Never import torch: a PyTorch name jtensor has no counterpart for is refused.
            raise TensorRuntimeError(
                f"this checkpoint uses {module}.{name}, which jtensor does not support"
            )
        return super().find_class(module, name)


def _weights_only_message(message):
    # PyTorch's wording around the unpickler's message.
    if "was not an allowed global by default" in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the "
            f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            f"message.\n\tWeightsUnpickler error: {message}{_DOCS_MESSAGE}"
        )
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        text += (
            "Please file an issue with the following so that we can make "
            "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
        )
    return text + "\n\n" + message + _DOCS_MESSAGE


def _read_all(f, mmap):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            if mmap and os.fstat(handle.fileno()).st_size:
                # Copy-on-write, as PyTorch's default MAP_PRIVATE: storages read the file's
                # pages, and writes to them never reach the file.
                return _mmap.mmap(handle.fileno(), 0, access=_mmap.ACCESS_COPY)
            return handle.read()
    if mmap:
        raise TensorValueError("f must be a file path in order to use the mmap argument")
    if not hasattr(f, "read"):
        raise TensorTypeError(
            f"load(): expected a path or a binary file object, got {type_name(f)}"
        )
    data = f.read()
    if not isinstance(data, bytes):
        raise TensorTypeError("load(): the file must be opened in binary mode")
    return data


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args
):
    """Read a checkpoint written by ``jtensor.save`` or PyTorch's ``torch.save``.

    ``weights_only`` (``True`` unless given, as PyTorch 2.6+) only rebuilds tensors, storages,
    dtypes, devices, ``torch.Size``, numbers, strings, bytes and the built-in containers
    (plus what ``add_safe_globals`` allowed). ``map_location`` moves storages: a device or
    string, a dict from saved location to new one, or ``callable(storage, location)``.
    ``mmap=True`` (a path only) maps the file: storages read its pages in place, copy-on-write.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise TensorRuntimeError(
            "Can not safely load weights when explicit pickle_module is specified"
        )
    unknown = set(pickle_load_args) - {"encoding", "errors", "fix_imports"}
    if unknown:
        raise TensorTypeError(f"load() got unexpected keyword arguments {sorted(unknown)}")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    raw = _read_all(f, mmap)
    if raw[:2] != b"PK":
        if mmap:
            raise TensorRuntimeError(
                "mmap can only be used with files saved with `torch.save(_use_new_zipfile_"
                "serialization=True), please torch.save your checkpoint with this option in "
                "order to use mmap."
            )
        return _legacy.load(raw, map_location, weights_only)
    archive = _Archive(raw)
    if archive.has("constants.pkl"):
        raise TensorRuntimeError(
            "this is a TorchScript archive (torch.jit.save), which jtensor cannot load"
        )
    _check_version(archive)
    byteorder = "little"
    if archive.has("byteorder"):
        byteorder = archive.read("byteorder").decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            raise TensorValueError(f"Unknown endianness type: {byteorder}")  # PyTorch's type
    loader = _StorageLoader(archive, map_location, byteorder)
    data = archive.read("data.pkl")
    if not weights_only:
        return _FullUnpickler(io.BytesIO(data), loader, **pickle_load_args).load()
    try:
        return _unpickler.Unpickler(data, loader).load()
    except (pickle.UnpicklingError, RuntimeError) as exc:
        if isinstance(exc, pickle.UnpicklingError):
            raise pickle.UnpicklingError(_weights_only_message(str(exc))) from None
        raise
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 (an allowed function refused a forged argument)
        raise pickle.UnpicklingError(
            _weights_only_message(f"corrupt data.pkl: {type(exc).__name__}: {exc}")
        ) from None


def _check_version(archive):
    if not archive.has("version"):
        raise TensorRuntimeError(
            "PytorchStreamReader failed locating file version: file not "
            "found (a record of the checkpoint is missing)"
        )
    text = archive.read("version").decode("ascii", "replace").strip()
    if not text.isdigit():
        raise TensorRuntimeError(f"corrupt checkpoint: version record {text!r}")
    if not 1 <= int(text) <= _MAX_FORMAT_VERSION:
        raise TensorRuntimeError(
            f"Attempted to read a PyTorch file with version {int(text)}, but the maximum "
            f"supported version for reading is {_MAX_FORMAT_VERSION}. Your PyTorch "
            "installation may be too old."
        )


def get_unsafe_globals_in_checkpoint(f):
    """The ``module.name`` globals in a checkpoint that ``weights_only=True`` would refuse
    (neither PyTorch's allowlist nor ``add_safe_globals``'), read without loading it."""
    raw = _read_all(f, None)
    if not raw.startswith(b"PK"):
        raise TensorValueError("Expected input to be a checkpoint returned by torch.save")
    archive = _Archive(raw)
    if archive.has("constants.pkl"):
        raise TensorValueError(
            "Expected input to be a checkpoint returned by torch.save but "
            "got a torchscript checkpoint"
        )
    found = _unpickler.globals_in_pickle(archive.read("data.pkl"))
    safe = _rebuild.ALLOWED_NAMES | set(_unpickler.user_allowed())
    return list(found - safe)


__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
]
