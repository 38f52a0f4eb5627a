"""Resizing ``out=`` tensors and growing storages: one implementation for every op."""

import warnings

from ._layout import contiguous_strides
from ._errors import stacklevel
from ._storage import check_resizable


def grow_storage(storage, nbytes):
    """Make ``storage`` at least ``nbytes`` long, keeping its bytes.

    NOTE: the bytes move to a new buffer, as PyTorch's realloc does; the storage's generation
    changes, so every tensor sharing it rebuilds its cached array and sees the new buffer.
    """
    if nbytes > storage.nbytes():
        check_resizable(storage)
        grown = storage._backend.allocate(nbytes)
        grown[:storage.nbytes()] = storage._data
        storage._data = grown


def resize_output(out, shape, stride=None, *, warn=True):
    """Give ``out=`` the result's shape, as PyTorch's ``resize_output`` does.

    A non-empty ``out`` of another shape is still resized, with PyTorch's deprecation
    warning (``warn=False`` for the factories, which resize silently). The new layout is
    contiguous unless ``stride`` is given; the storage grows when it is too small.
    """
    shape = tuple(shape)
    if out._shape == shape and stride is None:
        return
    if warn and out._shape != shape and out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._shape)}, which does not match the required output shape {list(shape)}. "
            "This behavior is deprecated, and in a future PyTorch release outputs will not be "
            "resized unless they have zero elements. You can explicitly reuse an out tensor t "
            "by resizing it, inplace, to zero elements with t.resize_(0).", UserWarning,
            stacklevel=stacklevel(4))
    stride = contiguous_strides(shape) if stride is None else tuple(stride)
    if 0 not in shape:
        last = out._offset + sum((s - 1) * st for s, st in zip(shape, stride, strict=True))
        grow_storage(out._storage, (last + 1) * out._dtype.itemsize)
    out._set_metadata(shape, stride, out._offset)
