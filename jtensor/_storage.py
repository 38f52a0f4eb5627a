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

    __slots__ = ("_data", "device", "_backend", "__weakref__")

    def __init__(self, data, device):
        self._data = data  # 1-D uint8 backend array
        self.device = device
        self._backend = backend_for(device)

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
