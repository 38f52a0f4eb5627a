"""``Storage``: the flat block of bytes that tensors look into."""

from ._device import backend_for


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
        """Address of the first byte; equal for tensors that share this storage."""
        return self._backend.data_ptr(self._data)

    def element_size(self):
        return 1

    def __repr__(self):
        return f"<jtensor.Storage of {self.nbytes()} bytes on {self.device}>"
