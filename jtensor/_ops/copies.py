"""Ops that copy data into a fresh storage, choosing its layout: contiguous, clone, to, copy_."""

from .. import _dtypes
from .._device import to_device
from .._dispatch import finish
from .._errors import TensorRuntimeError, TensorTypeError
from .._layout import channels_last_strides, contiguous_strides, dense_strides_like
from .._registry import register
from .._tensor import (Tensor, channels_last, channels_last_3d, contiguous_format,
                       memory_format as _memory_format_type, new_empty_tensor, preserve_format)


def strides_for_format(input, memory_format, shape=None):
    """Strides of a new dense tensor shaped like ``input`` in ``memory_format``."""
    shape = input._shape if shape is None else shape
    if memory_format is contiguous_format:
        return contiguous_strides(shape)
    if memory_format is channels_last:
        if len(shape) != 4:
            raise TensorRuntimeError(
                f"required rank 4 tensor to use channels_last format, got rank {len(shape)}")
        return channels_last_strides(shape)
    if memory_format is channels_last_3d:
        if len(shape) != 5:
            raise TensorRuntimeError(
                f"required rank 5 tensor to use channels_last_3d format, got rank {len(shape)}")
        return channels_last_strides(shape)
    if memory_format is preserve_format:
        return dense_strides_like(tuple(input._shape), input._stride)
    raise TensorTypeError(f"memory_format must be a torch.memory_format, got {memory_format!r}")


def copy_with_strides(input, strides, dtype=None, device=None):
    """A new tensor with ``input``'s values laid out with ``strides`` (no bookkeeping)."""
    dtype = dtype or input._dtype
    device = device or input._storage.device
    out = new_empty_tensor(input._shape, dtype, device, stride=strides)
    source = input._array()
    if device != input._storage.device:
        source = out._storage._backend.from_other(source, input._storage._backend)
    if source.dtype != dtype.numpy:
        source = source.astype(dtype.numpy)
    out._array()[...] = source
    return out


def contiguous_copy(input):
    return copy_with_strides(input, contiguous_strides(input._shape))


@register("copy")
def contiguous(input, memory_format=contiguous_format):
    """``input`` itself when already laid out in ``memory_format``, else a dense copy."""
    if memory_format is preserve_format:
        raise TensorRuntimeError("preserve memory format is unsupported by the contiguous operator")
    if input.is_contiguous(memory_format=memory_format):
        return input
    out = copy_with_strides(input, strides_for_format(input, memory_format))
    return finish(contiguous.op, (input,), out)


@register("copy")
def clone(input, *, memory_format=preserve_format):
    """A copy with its own storage; keeps a dense input's strides (``preserve_format``)."""
    out = copy_with_strides(input, strides_for_format(input, memory_format))
    return finish(clone.op, (input,), out)


@register("inplace", method="copy_", function=False)
def copy_(self, src, non_blocking=False):
    """Write ``src`` (broadcast, cast, maybe from another device) into ``self``."""
    if not isinstance(src, Tensor):
        raise TensorTypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    from .._layout import broadcast_shapes

    shape = broadcast_shapes(self._shape, src._shape)
    if tuple(shape) != tuple(self._shape):
        raise TensorRuntimeError(
            f"output with shape {list(self._shape)} doesn't match the broadcast shape "
            f"{list(shape)}")
    from .._elementwise import _write_into

    source = src._array()
    if src._storage.device != self._storage.device:
        source = self._storage._backend.from_other(source, src._storage._backend)
    if source.dtype != self._dtype.numpy:
        source = source.astype(self._dtype.numpy)
    if src._storage is self._storage:
        source = source.copy()  # the source may overlap the destination
    _write_into(self, source)
    return finish(copy_.op, (self, src), self, modified=self)


def _parse_to_args(input, args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", preserve_format)
    if kwargs:
        raise TensorTypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a._dtype, a._storage.device
        elif isinstance(a, bool):
            non_blocking = a
        elif isinstance(a, _memory_format_type):
            memory_format = a
        elif a is None:
            continue
        else:
            device = a
    return dtype, device, copy, non_blocking, memory_format


@register("copy")
def to(input, *args, **kwargs):
    """Cast and/or move; returns ``input`` itself when nothing would change (unless ``copy``)."""
    dtype, device, copy, _non_blocking, memory_format = _parse_to_args(input, args, dict(kwargs))
    dtype = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    device = input._storage.device if device is None else to_device(device)
    if device.type == "cuda" and device.index is None:
        from .._device import backend_for

        device = backend_for(device).current_device()
    same = dtype is input._dtype and device == input._storage.device
    if same and not copy and (memory_format is preserve_format
                              or input.is_contiguous(memory_format=memory_format)):
        return input
    out = copy_with_strides(input, strides_for_format(input, memory_format), dtype, device)
    return finish(to.op, (input,), out)


def _cast_method(dtype):
    def cast(self, memory_format=preserve_format):
        return to(self, dtype, memory_format=memory_format)

    cast.__doc__ = f"``self.to({dtype})``"
    return cast


for _name, _dtype in (("float", _dtypes.float32), ("double", _dtypes.float64),
                      ("half", _dtypes.float16), ("bfloat16", _dtypes.bfloat16),
                      ("int", _dtypes.int32), ("long", _dtypes.int64), ("short", _dtypes.int16),
                      ("char", _dtypes.int8), ("byte", _dtypes.uint8), ("bool", _dtypes.bool_),
                      ("cfloat", _dtypes.complex64), ("cdouble", _dtypes.complex128)):
    setattr(Tensor, _name, _cast_method(_dtype))


def _cpu(self, memory_format=preserve_format):
    return to(self, "cpu", memory_format=memory_format)


def _cuda(self, device=None, non_blocking=False, memory_format=preserve_format):
    return to(self, "cuda" if device is None else (
        f"cuda:{device}" if isinstance(device, int) else device),
        non_blocking=non_blocking, memory_format=memory_format)


Tensor.cpu = _cpu
Tensor.cuda = _cuda


def _type_as(self, other):
    return to(self, other._dtype)


Tensor.type_as = _type_as


@register("inplace", method="resize_", function=False)
def resize_(self, *sizes, memory_format=contiguous_format):
    """Change the shape in place; grows the storage when needed (new elements uninitialised)."""
    from .views import sizes_from_args

    shape = sizes_from_args(sizes)
    if any(s < 0 for s in shape):
        raise TensorRuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    strides = strides_for_format(self, memory_format, shape)
    needed = (0 if 0 in shape else self._offset + 1 + sum(
        (s - 1) * st for s, st in zip(shape, strides))) * self._dtype.itemsize
    storage = self._storage
    if needed > storage.nbytes():
        backend = storage._backend
        grown = backend.allocate(needed)
        grown[:storage.nbytes()] = storage._data
        storage._data = grown
    self._set_metadata(shape, strides, self._offset)
    return finish(resize_.op, (self,), self, modified=self)


def copy_value_into(target, value):
    """Write a tensor or a Python number into ``target`` (broadcast and cast), no bookkeeping."""
    from .._elementwise import _as_number, _write_into
    from .._layout import broadcast_shapes

    if isinstance(value, Tensor):
        shape = broadcast_shapes(target._shape, value._shape)
        if tuple(shape) != tuple(target._shape):
            raise TensorRuntimeError(
                f"shape mismatch: value tensor of shape {list(value._shape)} cannot be broadcast "
                f"to indexing result of shape {list(target._shape)}")
        source = value._array()
        if value._storage.device != target._storage.device:
            source = target._storage._backend.from_other(source, value._storage._backend)
        if value._storage is target._storage:
            source = source.copy()
    else:
        source = _as_number(value, "__setitem__")
    _write_into(target, target._storage._backend.xp.asarray(source).astype(target._dtype.numpy))
