"""Reading what the widgets draw: storage identity, element values, the user's names.

Values are read straight from the storage's bytes (the one place the widgets look below the
public API): going through jtensor ops would emit trace events and autograd history, so a
picture drawn inside ``%%tensortrace`` would show up in its own trace. Values are read only
for CPU tensors: reading a CUDA tensor is a synchronisation point, which a picture must not
add behind the learner's back.
"""

import sys

import numpy as np

from .._storage import Storage
from .._tensor import Tensor


def is_tensor(value):
    return isinstance(value, Tensor)


def is_storage(value):
    return isinstance(value, Storage)


def storage_key(tensor_or_storage):
    """A hashable identity of the memory (never shown): tensors share memory exactly when
    their storages have the same device and data pointer."""
    storage = (tensor_or_storage.untyped_storage() if is_tensor(tensor_or_storage)
               else tensor_or_storage)
    pointer = storage.data_ptr()
    if not pointer:   # (every storage of no bytes has the null pointer: none is shared)
        return (str(storage.device), "empty", id(tensor_or_storage))
    return (str(storage.device), pointer)


def storage_length(storage, itemsize):
    """How many whole elements of ``itemsize`` bytes the storage holds."""
    return storage.nbytes() // itemsize


def can_read(storage):
    return str(storage.device) == "cpu"


def storage_values(storage, dtype, start, stop):
    """Elements ``[start, stop)`` of the storage read as ``dtype`` (a NumPy array, a view on
    CPU), or None when the storage is not on the CPU."""
    if not can_read(storage):
        return None
    n = storage_length(storage, dtype.itemsize)
    start, stop = max(0, start), min(stop, n)
    if stop <= start:
        return np.empty(0, dtype=dtype.numpy)
    data = storage._data  # the bytes; see the module docstring for why not an op
    return np.ndarray((stop - start,), dtype.numpy, data, start * dtype.itemsize,
                      (dtype.itemsize,))


def tensor_values(tensor):
    """The tensor's logical elements as a NumPy array over the same memory (CPU only),
    without going through an op; None for a tensor on another device."""
    storage = tensor.untyped_storage()
    if not can_read(storage):
        return None
    itemsize = tensor.dtype.itemsize
    shape = tuple(tensor.shape)
    if 0 in shape:
        return np.empty(shape, dtype=tensor.dtype.numpy)
    strides = tuple(s * itemsize for s in tensor.stride())
    return np.ndarray(shape, tensor.dtype.numpy, storage._data,
                      tensor.storage_offset() * itemsize, strides)


def caller_namespace(depth):
    """The variables visible where the user called us (``depth`` frames up): locals over
    globals, as Python resolves a name there."""
    frame = sys._getframe(depth + 1)
    namespace = dict(frame.f_globals)
    namespace.update(frame.f_locals)
    return namespace


def _visible(name):
    # IPython's output history (_, __, _12, _i3) and private names are not the user's names.
    return not name.startswith("_") and name not in ("In", "Out")


def names_for(objects, namespace):
    """For each object, the first visible name bound to it (by identity) in ``namespace``,
    in the namespace's definition order; None where there is none."""
    wanted = {id(o): i for i, o in enumerate(objects)}
    found = [None] * len(objects)
    for name, value in namespace.items():
        i = wanted.get(id(value))
        if i is not None and found[i] is None and _visible(name) and value is objects[i]:
            found[i] = name
    return found


def tensors_by_name(namespace):
    """Every visible (name, tensor) in the namespace, plus the parameters of visible modules
    as ``model.layer.weight``, in definition order."""
    out = []
    for name, value in namespace.items():
        if not _visible(name):
            continue
        if is_tensor(value):
            out.append((name, value))
        elif hasattr(value, "named_parameters") and hasattr(value, "_modules"):
            try:
                out.extend((f"{name}.{p}", t) for p, t in value.named_parameters())
            except Exception:  # noqa: BLE001 - a half-built module is not ours to report
                pass
    return out


def user_names(tensors, names, depth):
    """Names for the tensors: the ones given, else the caller's variable names, else
    ``tensor 0``, ``tensor 1``... ``depth`` counts frames above our caller."""
    if names is not None:
        names = list(names)
        if len(names) != len(tensors):
            raise ValueError(f"names has {len(names)} entries but {len(tensors)} tensors were "
                             "given; pass one name per tensor (or names=None)")
        return [str(n) for n in names]
    found = names_for(tensors, caller_namespace(depth + 1))
    taken = set()
    result = []
    for i, name in enumerate(found):
        if name is None or name in taken:
            name = f"tensor {i}"
        taken.add(name)
        result.append(name)
    return result
