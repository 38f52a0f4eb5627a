"""``Storage``: the flat block of bytes that tensors look into."""

import warnings
import weakref

import numpy as np

from ._device import backend_for
from ._errors import TensorRuntimeError, TensorTypeError


# Storages over memory jtensor does not own, or that something outside may hold a pointer
# into: a NumPy array's (``from_numpy``, ``as_tensor``, ``frombuffer``, DLPack), one whose
# array ``numpy()`` handed out, a shared-memory block. As PyTorch's non-resizable storages,
# they never grow: their bytes cannot move away from whoever else reads them.
_FIXED_SIZE = weakref.WeakSet()


def fix_size(storage):
    """Mark ``storage`` as never growing (PyTorch's ``resizable() == False``)."""
    _FIXED_SIZE.add(storage)


def check_resizable(storage):
    if storage in _FIXED_SIZE:
        raise TensorRuntimeError("Trying to resize storage that is not resizable")


class Storage:
    """One 1-D array of bytes on one device. Tensors are (storage, shape, stride, offset, dtype).

    Two tensors share memory exactly when they share a storage, which
    ``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`` tells, as in PyTorch.

    >>> import jtensor as torch
    >>> a = torch.arange(6); b = a.view(2, 3)
    >>> a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    True
    """

    # ``_generation`` changes whenever the bytes are replaced (``resize_`` growing them), so
    # tensors that cached an array over the old bytes know to rebuild it.
    __slots__ = ("_bytes", "_source", "device", "_backend", "_generation", "__weakref__")

    def __init__(self, data, device, source=None, backend=None):
        # Either the bytes (1-D uint8 backend array) or a C-contiguous array to take them from
        # on first use: most op results never need their byte view, so it is made lazily.
        self._bytes = data
        self._source = source
        self.device = device
        backend = self._backend = backend if backend is not None else backend_for(device)
        self._generation = 0
        if backend.tracked:
            backend.adopt(self)   # device memory: counted by its allocator, freed to it

    @property
    def _data(self):
        data = self._bytes
        if data is None:
            data = self._bytes = self._source.reshape(-1).view("uint8")
            self._source = None
        return data

    @_data.setter
    def _data(self, value):
        self._bytes = value
        self._source = None
        self._generation += 1

    def nbytes(self):
        """Size of the storage in bytes."""
        return self._data.shape[0]

    size = nbytes

    def __len__(self):
        return self._data.shape[0]

    def data_ptr(self):
        """Address of the first byte; equal for tensors that share this storage (0 for a
        storage of no bytes, as PyTorch's null pointer)."""
        return self._backend.data_ptr(self._data) if self.nbytes() else 0

    def element_size(self):
        return 1

    def __repr__(self):
        return f"<jtensor.Storage of {self.nbytes()} bytes on {self.device}>"

    # ----------------------------------------------------------- element access (bytes)
    def _elements(self, np_dtype):
        """All of the storage's bytes read as ``np_dtype`` (shares memory)."""
        data = self._data
        count = data.shape[0] // np_dtype.itemsize
        return self._backend.view(data, (count,), np_dtype, 0, (np_dtype.itemsize,))

    def __getitem__(self, index):
        """A byte (an int), or the bytes of a slice as a storage that shares them."""
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise TensorRuntimeError(f"Trying to slice with a step of {step}, but only a "
                                         "step of 1 is supported")
            return Storage(self._data[start:max(start, stop)], self.device,
                           backend=self._backend)
        return _read(self, _UINT8, index, "torch.UntypedStorage")

    def __setitem__(self, index, value):
        _write(self, _UINT8, index, value)

    def tolist(self):
        """The bytes as Python ints."""
        return self._backend.to_host(self._data, "storage.tolist").tolist()

    def __iter__(self):
        return iter(self.tolist())


_UINT8 = np.dtype(np.uint8)


def _position(index, size, what):
    """``index`` (an int, not a bool nor a tensor: PyTorch's rule) as a position in
    ``range(size)``."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TensorTypeError(f"can't index a {what} with {type(index).__name__}")
    if not -size <= index < size:
        raise IndexError(f"index {index} out of range for storage of size {size}")
    return int(index) % size


def _read(storage, np_dtype, index, what):
    elements = storage._elements(np_dtype)
    i = _position(index, elements.shape[0], what)
    return storage._backend.to_host(elements[i:i + 1], "storage[i]").tolist()[0]


def _write(storage, np_dtype, index, value):
    elements = storage._elements(np_dtype)
    if isinstance(index, slice):
        elements[index] = value
        return
    elements[_position(index, elements.shape[0], "torch.UntypedStorage")] = value


_typed_storage_warned = False


def warn_typed_storage_removal(stacklevel=3):
    """PyTorch's deprecation warning of ``tensor.storage()``, once per process as PyTorch."""
    global _typed_storage_warned
    if _typed_storage_warned:
        return
    _typed_storage_warned = True
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
        "the only storage class. This should only matter to you if you are using storages "
        "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
        "of tensor.storage()", UserWarning, stacklevel=stacklevel)


class TypedStorage:
    """What ``tensor.storage()`` returns, as in PyTorch: the tensor's whole storage seen as
    elements of its dtype (``len`` counts elements, ``s[i]`` reads one as a Python number and
    ``s[i] = v`` writes it, visible to every tensor on that storage). Deprecated in PyTorch in
    favour of ``untyped_storage()`` (bytes), and it warns once as PyTorch does.

    >>> import jtensor as torch
    >>> p = torch.tensor([[4.0, 1.0], [5.0, 3.0]])
    >>> s = p.storage()
    >>> s[0], len(s)
    (4.0, 4)
    >>> s[0] = 2.0
    >>> p[0, 0]
    tensor(2.)
    """

    __slots__ = ("_untyped", "dtype")

    def __init__(self, untyped, dtype):
        self._untyped = untyped
        self.dtype = dtype

    @property
    def device(self):
        return self._untyped.device

    def untyped(self):
        """The bytes underneath (``tensor.untyped_storage()``)."""
        return self._untyped

    def __len__(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    def size(self):
        return len(self)

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    def _check_index(self, index):
        # (PyTorch's TypedStorage raises RuntimeError here, and TypeError for a bool.)
        if isinstance(index, slice):
            raise TensorRuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, (int, np.integer)):
            raise TensorRuntimeError(f"can't index a {_TYPED_NAME} with {type(index).__name__}")

    def __getitem__(self, index):
        self._check_index(index)
        return _read(self._untyped, np.dtype(self.dtype.numpy), index, _TYPED_NAME)

    def __setitem__(self, index, value):
        if not isinstance(index, slice):
            self._check_index(index)
        _write(self._untyped, np.dtype(self.dtype.numpy), index, value)

    def tolist(self):
        elements = self._untyped._elements(np.dtype(self.dtype.numpy))
        return self._untyped._backend.to_host(elements, "storage.tolist").tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        head = f"[{_TYPED_NAME}(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        values = "".join(f" {v}\n" for v in self.tolist())
        return values + head

    __str__ = __repr__


_TYPED_NAME = "torch.storage.TypedStorage"
