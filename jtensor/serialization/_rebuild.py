"""PyTorch's names inside a checkpoint (``torch._utils._rebuild_tensor_v2``, ``torch
FloatStorage``, ``torch float32``...) and the jtensor functions that rebuild what they name.

A checkpoint's pickle names PyTorch's globals; jtensor never imports torch, so every name a
file may use is mapped here to jtensor's own class or function. The rebuild functions check
everything a forged file could get wrong (a storage that is not one, a size or stride that
reaches past the storage, an index out of range) and raise ``RuntimeError`` naming it, so no
tensor that fails later is ever made.
"""

import collections
import importlib

from .. import _dtypes
from .._device import device
from .._errors import TensorRuntimeError
from .._size import Size
from .._storage import TypedStorage
from .._tensor import Tensor, sparse_coo, strided


class StorageType:
    """What a checkpoint's ``torch FloatStorage`` (and the other typed storage names) load
    as: the element dtype of the storage a persistent id refers to."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return f"torch.{self.name}"


# dtype <-> the names PyTorch pickles: ``torch float32`` for the dtype, ``torch FloatStorage``
# for a storage of it.
DTYPE_GLOBALS = {f"torch.{d.name}": d for d in _dtypes.ALL}
STORAGE_NAME = {d: f"{d._torch_name}Storage" for d in _dtypes.ALL}
STORAGE_TYPES = {f"torch.{name}": StorageType(name, d) for d, name in STORAGE_NAME.items()}
# An untyped storage counts bytes; PyTorch loads it as a TypedStorage of uint8, as here.
STORAGE_TYPES["torch.storage.UntypedStorage"] = StorageType("UntypedStorage", _dtypes.uint8)
STORAGE_TYPES["torch.UntypedStorage"] = STORAGE_TYPES["torch.storage.UntypedStorage"]
# PyTorch's dtypes that jtensor does not have: allowed in a file (PyTorch's list), refused with
# a clear message when a tensor needs one.
_OTHER_DTYPES = (
    "uint16",
    "uint32",
    "uint64",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "uint5",
    "uint6",
    "uint7",
    "int1",
    "int2",
    "int3",
    "int4",
    "int5",
    "int6",
    "int7",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "complex32",
    "qint8",
    "quint8",
    "qint32",
    "quint4x2",
    "quint2x4",
    "bits8",
    "bits16",
    "bits1x8",
    "bits2x4",
    "bits4x2",
)


class UnsupportedDtype:
    """A PyTorch dtype named in a checkpoint that jtensor has no counterpart for."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


for _name in _OTHER_DTYPES:
    DTYPE_GLOBALS[f"torch.{_name}"] = UnsupportedDtype(_name)


def _dtype(value, what):
    if isinstance(value, _dtypes.dtype):
        return value
    if isinstance(value, UnsupportedDtype):
        raise TensorRuntimeError(
            f"this checkpoint holds a {what} of dtype {value}, which jtensor does not support"
        )
    raise TensorRuntimeError(f"corrupt checkpoint: {value!r} is not a dtype ({what})")


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TensorRuntimeError(f"corrupt checkpoint: {what} is {value!r}, not an int")
    return value


def _ints(values, what):
    if not isinstance(values, (tuple, list)):
        raise TensorRuntimeError(f"corrupt checkpoint: {what} is {values!r}, not a tuple")
    return tuple(_int(v, what) for v in values)


_LIMIT = 2**63  # sizes, strides and offsets are int64 in PyTorch


def _view(storage, offset, size, stride, dtype):
    """A tensor on ``storage`` (a ``TypedStorage``), after checking that every element it
    reaches lies inside the storage: PyTorch's ``set_`` check, with its message."""
    if not isinstance(storage, TypedStorage):
        raise TensorRuntimeError(f"corrupt checkpoint: a tensor's storage is {storage!r}")
    offset = _int(offset, "a storage offset")
    size, stride = _ints(size, "a size"), _ints(stride, "a stride")
    if len(size) != len(stride):
        raise TensorRuntimeError(
            f"corrupt checkpoint: size {list(size)} and stride {list(stride)} differ in length"
        )
    if not 0 <= offset < _LIMIT or any(not 0 <= s < _LIMIT for s in size + stride):
        raise TensorRuntimeError(
            f"corrupt checkpoint: a size, stride or offset is negative or past int64 (size "
            f"{list(size)}, stride {list(stride)}, storage offset {offset})"
        )
    itemsize = dtype.itemsize
    available = storage._untyped.nbytes() // itemsize
    if 0 not in size:
        needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
        if needed > available:
            raise TensorRuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {itemsize} requiring a storage size of "
                f"{needed * itemsize} are out of bounds for storage of size "
                f"{available * itemsize} (corrupt checkpoint)"
            )
    elif offset > available:
        raise TensorRuntimeError(
            f"corrupt checkpoint: storage offset {offset} is past the end of a storage of "
            f"{available} elements"
        )
    return Tensor._make(storage._untyped, size, stride, offset, dtype)


def rebuild_tensor(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor``: a tensor of the storage's dtype."""
    if not isinstance(storage, TypedStorage):
        raise TensorRuntimeError(f"corrupt checkpoint: a tensor's storage is {storage!r}")
    return _view(storage, storage_offset, size, stride, _dtype(storage.dtype, "tensor"))


def _finish(tensor, requires_grad, backward_hooks):
    if backward_hooks:
        # PyTorch drops the hooks too (they are not saved); a forged value is only refused
        # when it is not a mapping.
        if not isinstance(backward_hooks, dict):
            raise TensorRuntimeError("corrupt checkpoint: backward hooks are not a dict")
    if not isinstance(requires_grad, bool):
        raise TensorRuntimeError(f"corrupt checkpoint: requires_grad is {requires_grad!r}")
    if requires_grad:
        if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
            raise TensorRuntimeError(
                f"only Tensors of floating point and complex dtype can require gradients "
                f"(a {tensor.dtype} tensor in the checkpoint does)"
            )
        tensor.requires_grad_(True)
    return tensor


def rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    """``torch._utils._rebuild_tensor_v2``: a dense tensor from (storage, offset, size,
    stride, requires_grad, backward_hooks)."""
    return _finish(
        rebuild_tensor(storage, storage_offset, size, stride), requires_grad, backward_hooks
    )


def rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    """``torch._utils._rebuild_tensor_v3``: as v2 on an untyped storage, the dtype given."""
    dtype = _dtype(dtype, "tensor")
    return _finish(
        _view(storage, storage_offset, size, stride, dtype), requires_grad, backward_hooks
    )


def _parameter_class():
    # Parameter lives in the training layer, above this one: looked up when a checkpoint
    # needs it (PyTorch's serialization imports torch.nn the same way), never at import.
    return importlib.import_module("jtensor.nn.parameter").Parameter


def rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: an ``nn.Parameter`` over the saved tensor."""
    if not isinstance(data, Tensor) or data.is_sparse:
        raise TensorRuntimeError(f"corrupt checkpoint: a Parameter's data is {data!r}")
    if not isinstance(requires_grad, bool):
        raise TensorRuntimeError(f"corrupt checkpoint: requires_grad is {requires_grad!r}")
    if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
        raise TensorRuntimeError(
            f"only Tensors of floating point and complex dtype can require gradients (a "
            f"{data.dtype} Parameter in the checkpoint does)"
        )
    return _parameter_class()(data, requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a Parameter with extra attributes,
    which jtensor's Parameter cannot hold: refused unless there are none."""
    if state:
        raise TensorRuntimeError(
            "this checkpoint holds an nn.Parameter with extra Python attributes "
            f"({sorted(map(str, state)) if isinstance(state, dict) else state!r}), which "
            "jtensor's Parameter cannot hold"
        )
    return rebuild_parameter(data, requires_grad, backward_hooks)


def get_layout(name):
    """``torch.serialization._get_layout``: the layout named ``torch.sparse_coo`` etc."""
    layouts = {"torch.sparse_coo": sparse_coo, "torch.strided": strided}
    if name not in layouts:
        raise TensorRuntimeError(
            f"this checkpoint uses layout {name!r}, which jtensor does not "
            "support (only torch.strided and torch.sparse_coo)"
        )
    return layouts[name]


def rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor``: a sparse COO tensor from (indices, values,
    size[, is_coalesced]), checked as PyTorch checks a loaded one (indices in range)."""
    from .._sparse import SparseCOOTensor

    if layout is not sparse_coo:
        raise TensorRuntimeError(
            f"this checkpoint holds a sparse tensor of layout {layout!r}, "
            "which jtensor does not support"
        )
    if not isinstance(data, tuple) or len(data) not in (3, 4):
        raise TensorRuntimeError(f"corrupt checkpoint: sparse tensor parts {data!r}")
    indices, values, size = data[:3]
    coalesced = data[3] if len(data) == 4 else False
    if (
        not isinstance(indices, Tensor)
        or not isinstance(values, Tensor)
        or indices.is_sparse
        or values.is_sparse
    ):
        raise TensorRuntimeError(
            "corrupt checkpoint: a sparse tensor without its index and value tensors"
        )
    size = _ints(size, "a sparse tensor's size")
    if indices.dtype is not _dtypes.int64 or indices.dim() != 2:
        raise TensorRuntimeError(
            f"corrupt checkpoint: sparse indices must be a 2-D int64 tensor, got "
            f"{indices.dtype} of shape {list(indices.shape)}"
        )
    sparse_dim, nnz = indices.shape
    if (
        values.dim() < 1
        or values.shape[0] != nnz
        or sparse_dim + values.dim() - 1 != len(size)
        or tuple(values.shape[1:]) != size[sparse_dim:]
        or any(s < 0 for s in size)
    ):
        raise TensorRuntimeError(
            f"corrupt checkpoint: sparse tensor of size {list(size)} with indices of shape "
            f"{list(indices.shape)} and values of shape {list(values.shape)}"
        )
    if nnz:
        host = indices.detach().cpu().numpy()
        for dim in range(sparse_dim):
            low, high = int(host[dim].min()), int(host[dim].max())
            if low < 0 or high >= size[dim]:
                raise TensorRuntimeError(
                    f"size is inconsistent with indices: for dim {dim}, size is {size[dim]} "
                    f"but found index {high if high >= size[dim] else low} (corrupt "
                    "checkpoint)"
                )
    if not isinstance(coalesced, bool):
        raise TensorRuntimeError(f"corrupt checkpoint: is_coalesced is {coalesced!r}")
    return SparseCOOTensor._create(indices, values, size, coalesced)


def rebuild_from_type_v2(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: a tensor rebuilt by ``func``, of class
    ``new_type``, given the Python attributes in ``state`` (what ``nn.Buffer`` and tensors
    with attributes of their own are saved with)."""
    if func not in (
        rebuild_tensor_v2,
        rebuild_tensor_v3,
        rebuild_tensor,
        rebuild_parameter,
        rebuild_sparse_tensor,
        rebuild_parameter_with_state,
    ):
        raise TensorRuntimeError(f"corrupt checkpoint: _rebuild_from_type_v2 with {func!r}")
    if not isinstance(args, tuple):
        raise TensorRuntimeError("corrupt checkpoint: _rebuild_from_type_v2 arguments")
    result = func(*args)
    if new_type is not Tensor and new_type is not type(result):
        raise TensorRuntimeError(
            f"this checkpoint holds a tensor of class {new_type!r}, which jtensor cannot rebuild"
        )
    dict_state, slot_state = (
        state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    )
    for part in (dict_state, slot_state):
        if part:
            _set_attributes(result, part)
    return result


# PyTorch's own private tensor attribute that a checkpoint may carry (nn.Buffer's mark).
_FOREIGN_PRIVATE = ("_is_buffer",)


def _set_attributes(tensor, attributes):
    # jtensor keeps a tensor's internals in private attributes: a file may set public ones
    # (and PyTorch's _is_buffer), never one that would replace jtensor's own.
    if not isinstance(attributes, dict):
        raise TensorRuntimeError(f"corrupt checkpoint: tensor attributes {attributes!r}")
    for key, value in attributes.items():
        if (
            not isinstance(key, str)
            or not key.isidentifier()
            or hasattr(type(tensor), key)
            or (key.startswith("_") and key not in _FOREIGN_PRIVATE)
        ):
            raise TensorRuntimeError(
                f"corrupt checkpoint: a tensor attribute {key!r} would replace jtensor's own"
            )
        setattr(tensor, key, value)


def _size(values=()):
    return Size(
        _ints(
            list(values) if not isinstance(values, (tuple, list)) else values, "a torch.Size entry"
        )
    )


def _device(*args):
    try:
        return device(*args)
    except (TypeError, ValueError) as exc:
        raise TensorRuntimeError(f"corrupt checkpoint: torch.device{args!r}: {exc}") from None


def _encode(text, encoding="utf-8"):
    # PyTorch allows _codecs.encode for the bytes that protocol 2 writes as (str, 'latin1'):
    # only those (a forged codec name could name any codec).
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise TensorRuntimeError(f"corrupt checkpoint: _codecs.encode{(text, encoding)!r}")
    return text.encode("latin1")


def _bytearray(*args):
    # bytearray(n) would allocate n bytes: only the forms pickle writes are allowed.
    if args and not isinstance(args[0], (bytes, str)):
        raise TensorRuntimeError(f"corrupt checkpoint: bytearray{args!r}")
    return bytearray(*args)


def _complex(*args):
    if not all(isinstance(a, (int, float)) for a in args):
        raise TensorRuntimeError(f"corrupt checkpoint: complex{args!r}")
    return complex(*args)


def _set(items=()):
    return set(items)


# Every global PyTorch's weights-only unpickler allows, mapped to jtensor's objects.
ALLOWED = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "torch.serialization._get_layout": get_layout,
    "torch.Size": _size,
    "torch.Tensor": Tensor,
    "torch.device": _device,
    "_codecs.encode": _encode,
    "builtins.bytearray": _bytearray,
    "builtins.set": _set,
    "builtins.complex": _complex,
    "torch._utils._rebuild_tensor": rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
    "torch._utils._rebuild_sparse_tensor": rebuild_sparse_tensor,
    "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
    **DTYPE_GLOBALS,
    **STORAGE_TYPES,
}
# Allowed by PyTorch but describing what jtensor has no counterpart for: the file is refused
# with a message naming it rather than loaded wrongly.
UNSUPPORTED = (
    "torch._utils._rebuild_qtensor",
    "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._utils._rebuild_nested_tensor",
    "torch._utils._rebuild_wrapper_subclass",
    "torch._utils._rebuild_device_tensor_from_numpy",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    "torch.per_tensor_affine",
    "torch.per_tensor_symmetric",
    "torch.per_channel_affine",
    "torch.per_channel_symmetric",
    "torch.per_channel_affine_float_qparams",
)


def torch_global(full_path):
    """jtensor's object for a PyTorch global the file names, or ``None``."""
    found = ALLOWED.get(full_path)
    if found is None and full_path == "torch.nn.parameter.Parameter":
        return _parameter_class()
    if found is None and full_path in UNSUPPORTED:
        raise TensorRuntimeError(
            f"this checkpoint uses {full_path}, which jtensor does not support"
        )
    return found


ALLOWED_NAMES = frozenset(ALLOWED) | {"torch.nn.parameter.Parameter"} | set(UNSUPPORTED)


def check_dtype(value):
    """``value`` as a jtensor dtype, or the error naming what the file holds instead."""
    return _dtype(value, "storage")
