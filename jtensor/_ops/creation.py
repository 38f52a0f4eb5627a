"""Building tensors: from data (copy vs alias) and from shapes (factories)."""

import warnings

import numpy as np

from .. import _dtypes
from .._device import CPU, backend_for, to_device
from .._dispatch import finish
from .._errors import TensorRuntimeError, TensorTypeError, TensorValueError
from .._registry import register
from .._size import Size
from .._tensor import Tensor, contiguous_format, new_empty_tensor, preserve_format


def _finalize(op, out, requires_grad, inputs=()):
    if requires_grad:
        out.requires_grad_(True)
    return finish(op, inputs, out)


def _nested_dtype(data):
    """The dtype PyTorch infers from nested Python data (bool < int < float < complex)."""
    category = None
    numpy_dtype = None
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, Tensor):
            d = item._dtype
            numpy_dtype = d if numpy_dtype is None else _dtypes.promote_types(numpy_dtype, d)
        elif isinstance(item, np.ndarray):
            d = _dtypes.from_numpy_dtype(item.dtype)
            numpy_dtype = d if numpy_dtype is None else _dtypes.promote_types(numpy_dtype, d)
        elif isinstance(item, np.generic):
            d = _dtypes.from_numpy_dtype(item.dtype)
            numpy_dtype = d if numpy_dtype is None else _dtypes.promote_types(numpy_dtype, d)
        else:
            d = _dtypes.scalar_dtype(item)
            category = d if category is None else _dtypes.promote_types(category, d)
    if category is None and numpy_dtype is None:
        return _dtypes.get_default_dtype()  # an empty list is float, as in PyTorch
    if category is None:
        return numpy_dtype
    if numpy_dtype is None:
        return category
    return _dtypes.promote_types(category, numpy_dtype)


def _to_nested_python(data):
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_to_nested_python(x) for x in data]
    if isinstance(data, np.ndarray):
        return data.tolist()
    return data


def _check_rectangular(data, dim=0):
    if not isinstance(data, (list, tuple)) or not data:
        return
    lengths = {len(x) if isinstance(x, (list, tuple)) else None for x in data}
    if len(lengths) > 1:
        first = len(data[0]) if isinstance(data[0], (list, tuple)) else None
        for x in data:
            n = len(x) if isinstance(x, (list, tuple)) else None
            if n != first:
                raise TensorValueError(
                    f"expected sequence of length {first} at dim {dim + 1} (got {n})")
    for x in data:
        _check_rectangular(x, dim + 1)


def array_from_data(data, dtype=None):
    """A fresh host NumPy array holding ``data`` with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        source = data.detach().cpu()._array()
        dtype = data._dtype if dtype is None else _dtypes.to_dtype(dtype)
        return np.array(source, dtype=dtype.numpy, copy=True), dtype
    if isinstance(data, np.ndarray):
        inferred = _dtypes.from_numpy_dtype(data.dtype)
        dtype = inferred if dtype is None else _dtypes.to_dtype(dtype)
        return np.array(data, dtype=dtype.numpy, copy=True), dtype
    if hasattr(data, "__dlpack__") and not isinstance(data, (list, tuple)):
        return array_from_data(np.from_dlpack(data), dtype)
    if isinstance(data, (str, bytes, dict, set)) or data is None:
        raise TensorTypeError(
            f"new(): invalid data type '{type(data).__name__}'")
    inferred = _nested_dtype(data)
    dtype = inferred if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(data, (list, tuple)):
        _check_rectangular(data)
        for item in _leaves(data):
            if isinstance(item, Tensor) and item.numel() != 1:
                raise TensorValueError("only one element tensors can be converted to Python scalars")
        data = _to_nested_python(data)
    try:
        array = np.array(data, dtype=object if dtype is _dtypes.bfloat16 else None)
    except OverflowError:
        raise TensorRuntimeError(f"Overflow when unpacking long: value out of range for {dtype}") from None
    if array.dtype == object:
        array = array.astype(np.float64) if dtype.category >= _dtypes.FLOATING else array
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(dtype.numpy), dtype


def _leaves(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _leaves(x)
        else:
            yield x


def _place(array, dtype, device):
    device = to_device(device)
    if device.type == "cpu":
        return Tensor._from_array(np.ascontiguousarray(array), dtype, CPU)
    backend = backend_for(device)
    return Tensor._from_array(backend.from_host(np.ascontiguousarray(array), device), dtype,
                              backend.normalize(device))


@register("factory", method=False)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A NEW tensor holding a copy of ``data`` (never shares memory with it).

    >>> import jtensor as torch
    >>> torch.tensor([[1, 2], [3, 4]]).dtype
    torch.int64
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone()."
            "detach() or sourceTensor.clone().detach().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        if device is None:
            device = data._storage.device
    array, dtype = array_from_data(data, dtype)
    return _finalize(tensor.op, _place(array, dtype, device), requires_grad)


@register("factory", method=False)
def as_tensor(data, dtype=None, device=None):
    """Share memory with ``data`` when dtype and device allow it; otherwise copy.

    A NumPy array of a supported dtype is aliased: writes show through both ways.
    """
    if isinstance(data, Tensor):
        target_dtype = data._dtype if dtype is None else _dtypes.to_dtype(dtype)
        return data.to(dtype=target_dtype, device=device if device is not None else data.device)
    if isinstance(data, np.ndarray) and (device is None or to_device(device).type == "cpu"):
        target = None if dtype is None else _dtypes.to_dtype(dtype)
        if target is None or target.numpy == data.dtype:
            return from_numpy(data)
    array, dtype = array_from_data(data, dtype)
    return finish(as_tensor.op, (), _place(array, dtype, device))


@register("factory", method=False)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Like ``as_tensor``; ``copy=True`` forces a copy, ``copy=False`` forbids one."""
    if copy:
        out = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype, device=device)
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and isinstance(obj, np.ndarray) and out._array().base is None:
            raise TensorValueError("asarray(copy=False) cannot avoid a copy for this input")
    if requires_grad:
        out.requires_grad_(True)
    return out


@register("factory", method=False)
def from_numpy(ndarray):
    """A tensor that shares ``ndarray``'s memory; negative strides are refused as in PyTorch."""
    if not isinstance(ndarray, np.ndarray):
        raise TensorTypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtype = _dtypes.from_numpy_dtype(ndarray.dtype)
    itemsize = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise TensorValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) ")
    if any(s % itemsize for s in ndarray.strides):
        raise TensorValueError(
            f"given numpy array strides not a multiple of the element byte size. Copy the numpy "
            f"array to reallocate the memory. (strides {ndarray.strides}, itemsize {itemsize})")
    if not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior.",
            UserWarning, stacklevel=2)
    stride = tuple(s // itemsize for s in ndarray.strides)
    shape = Size(ndarray.shape)
    # The storage spans from the first to the last element the array can reach.
    extent = 0 if ndarray.size == 0 else 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    if ndarray.size == 0:
        flat = np.empty(0, dtype=np.uint8)
    else:
        first = (ndarray.reshape(1) if ndarray.ndim == 0
                 else ndarray[(slice(0, 1),) * ndarray.ndim].reshape(-1))
        flat = np.lib.stride_tricks.as_strided(
            first.view(np.uint8), shape=(extent * itemsize,), strides=(1,),
            writeable=ndarray.flags.writeable)
    from .._storage import Storage

    out = Tensor._make(Storage(flat, CPU), shape, stride, 0, dtype, array=ndarray)
    return finish(from_numpy.op, (), out)


def legacy_tensor_constructor(cls, args, dtype, device):
    """``torch.Tensor(2, 3)`` (uninitialised float) and ``torch.Tensor([1, 2])`` (float data)."""
    dtype = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    if not args:
        return empty(0, dtype=dtype, device=device)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(args[0], dtype=dtype, device=device)
    if len(args) == 1:
        array, dtype = array_from_data(args[0], dtype)
        return _place(array, dtype, device)
    raise TensorTypeError(f"new(): invalid arguments {args!r}")


# ---------------------------------------------------------------------- shape factories
def _shape_args(size, name):
    from .views import sizes_from_args

    shape = sizes_from_args(size, "size")
    for s in shape:
        if s < 0:
            raise TensorRuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return Size(shape)


def _new(shape, dtype, device, memory_format=contiguous_format, fill=None):
    from .copies import strides_for_format

    dtype = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    device = to_device(device)
    stride = None
    if memory_format is not contiguous_format:
        probe = Tensor._make(None, shape, (1,) * len(shape), 0, dtype)
        stride = strides_for_format(probe, memory_format, shape)
    if device.type != "cpu":
        device = backend_for(device).normalize(device)
    out = new_empty_tensor(shape, dtype, device, stride=stride)
    if fill is not None:
        out._array()[...] = fill
    return out


@register("factory", method=False)
def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=contiguous_format,
          pin_memory=False, out=None):
    """Uninitialised memory: whatever bytes were there (read it only after writing)."""
    out_tensor = _new(_shape_args(size, "empty"), dtype, device, memory_format)
    return _finalize(empty.op, out_tensor, requires_grad)


@register("factory", method=False)
def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor filled with 0."""
    return _finalize(zeros.op, _new(_shape_args(size, "zeros"), dtype, device, fill=0),
                     requires_grad)


@register("factory", method=False)
def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor filled with 1."""
    return _finalize(ones.op, _new(_shape_args(size, "ones"), dtype, device, fill=1),
                     requires_grad)


@register("factory", method=False)
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor filled with ``fill_value``; the dtype follows the value (int -> int64)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _dtypes.scalar_dtype(fill_value)
    return _finalize(full.op, _new(_shape_args((size,), "full"), dtype, device, fill=fill_value),
                     requires_grad)


@register("factory", method=False)
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """``[start, end)`` every ``step``; int64 for int arguments, the default float otherwise."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise TensorRuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise TensorRuntimeError(
            f"upper bound and larger bound inconsistent with step sign (start={start}, "
            f"end={end}, step={step})")
    if dtype is None:
        dtype = (_dtypes.int64 if all(isinstance(v, int) for v in values)
                 else _dtypes.get_default_dtype())
    dtype = _dtypes.to_dtype(dtype)
    count = max(0, int(np.ceil((end - start) / step)))
    # PyTorch computes each element as start + i * step in double (or int64) precision.
    if dtype.category == _dtypes.INTEGRAL or all(isinstance(v, int) for v in values):
        array = (start + np.arange(count, dtype=np.int64) * step)
    else:
        array = start + np.arange(count, dtype=np.float64) * step
    out_tensor = _place(array.astype(dtype.numpy), dtype, device)
    return _finalize(arange.op, out_tensor, requires_grad)


_ = (preserve_format,)
