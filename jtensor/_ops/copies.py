"""Ops that copy data or write it in place: contiguous, clone, to (and the casts), copy_,
resize_, set_, fill_, zero_, narrow_copy, plus the writer behind basic
``tensor[key] = value``.

The layout of every new tensor is PyTorch's: ``strides_for_format`` turns a memory format
into strides (``preserve_format`` keeps a dense input's strides and otherwise infers a dense
permutation of them, as ``empty_like`` does). Every check runs before the first byte is
written, so a failing op leaves its tensors untouched.
"""

import warnings

import numpy as np

from .. import _dispatch, _dtypes
from .._arraymod import c_copy, copy_into
from .._device import device as _device_type
from .._device import CPU, CPU_BACKEND, is_pinned, to_device
from .._dispatch import (Post, check_inplace, check_no_internal_overlap, notify,
                         returned_input)
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError,
                       stacklevel, wrap_dim, type_name)
from .._layout import (
    broadcast_shapes,
    broadcast_strides,
    channels_last_strides,
    contiguous_strides,
    dense_strides_like,
    is_non_overlapping_and_dense,
    storage_extent,
    suggest_memory_format,
)
from .._out import grow_storage
from .._registry import register
from .._storage import Storage
from .._tensor import (
    DENSE_CLASSES,
    Tensor,
    channels_last,
    channels_last_3d,
    contiguous_format,
    fill_uninitialized,
    fresh_tensor,
    new_empty_tensor,
    preserve_format,
)
from .._tensor import memory_format as _memory_format_type
from ._selection_common import _wrap, _write_out
from .views import _check_tensor, _index

_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.")

_UINT8 = np.dtype(np.uint8)

# The C type PyTorch names in its scalar overflow message.
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>", "bool": "bool"}


# ------------------------------------------------------------------------------ helpers
def cast_array(array, np_dtype):
    """``array`` converted to ``np_dtype`` with PyTorch's C-cast semantics.

    Float to integer truncates toward zero (NaN and out-of-range values give what the C
    cast gives, as PyTorch's CPU kernels do) without NumPy's warnings; complex to real keeps
    the real part and warns as PyTorch does.
    """
    if array.dtype == np_dtype:
        return array
    if array.dtype.kind == "c" and np_dtype.kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=stacklevel(3))
        array = array.real
    if np_dtype == _UINT8 and array.dtype.kind == "f" and type(array) is not np.ndarray:
        # A GPU's float-to-uint8 conversion saturates (-1.0 gives 0); PyTorch's kernels, on
        # CUDA as on the CPU, convert through int64 so that -1.0 wraps to 255.
        array = array.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore"):  # host FP state only, no data touched
        return array.astype(np_dtype)


def _overlaps_itself(t):
    # PyTorch's has_internal_overlap: only a stride-0 dim of size > 1 is a certain overlap.
    if is_non_overlapping_and_dense(t._shape, t._stride):
        return False
    return any(st == 0 and size > 1 for size, st in zip(t._shape, t._stride, strict=True))


def _check_no_partial_overlap(dst, src):
    """PyTorch's ``assert_no_partial_overlap`` (``get_overlap_status``), byte range based."""
    if dst is src or dst._storage is not src._storage:
        return
    if dst.numel() == 0 or src.numel() == 0:
        return
    if not (is_non_overlapping_and_dense(dst._shape, dst._stride)
            and is_non_overlapping_and_dense(src._shape, src._stride)):
        return  # "too hard" to tell: PyTorch does not check either
    a_begin = dst._offset * dst._dtype.itemsize
    a_end = a_begin + dst.numel() * dst._dtype.itemsize
    b_begin = src._offset * src._dtype.itemsize
    b_end = b_begin + src.numel() * src._dtype.itemsize
    if a_begin == b_begin and a_end == b_end:
        if tuple(dst._stride) == tuple(src._stride):
            return
        raise TensorRuntimeError(_PARTIAL_OVERLAP)
    if a_begin < b_end and b_begin < a_end:
        raise TensorRuntimeError(_PARTIAL_OVERLAP)


def _check_memory_format(memory_format, name):
    if not isinstance(memory_format, _memory_format_type):
        raise TensorTypeError(
            f"{name}(): argument 'memory_format' must be torch.memory_format, not "
            f"{type_name(memory_format)}")


def strides_for_format(input, memory_format, shape=None):
    """Strides of a new dense tensor shaped like ``input`` in ``memory_format``."""
    shape = tuple(input._shape if shape is None else shape)
    if memory_format is contiguous_format:
        return contiguous_strides(shape)
    if memory_format is channels_last:
        if len(shape) != 4:
            raise TensorRuntimeError(
                f"required rank 4 tensor to use channels_last format (got a tensor of rank "
                f"{len(shape)}, shape {list(shape)})")
        return channels_last_strides(shape)
    if memory_format is channels_last_3d:
        if len(shape) != 5:
            raise TensorRuntimeError(
                f"required rank 5 tensor to use channels_last_3d format (got a tensor of rank "
                f"{len(shape)}, shape {list(shape)})")
        return channels_last_strides(shape)
    if memory_format is preserve_format:
        return dense_strides_like(tuple(input._shape), tuple(input._stride))
    raise TensorTypeError(f"memory_format must be a torch.memory_format, got {memory_format!r}")


def copy_with_strides(input, strides, dtype=None, device=None, non_blocking=False):
    """A new tensor with ``input``'s values laid out with ``strides`` (no bookkeeping)."""
    if device is None and input.__class__ in DENSE_CLASSES \
            and input._storage._backend is CPU_BACKEND \
            and (input._contiguous or (input._contiguous is None and input.is_contiguous())) \
            and (dtype is None or not input._dtype.is_complex) \
            and tuple(strides) == contiguous_strides(input._shape):
        # A contiguous copy of a contiguous CPU tensor (``clone()``, ``x.float()``): the
        # array's copy, or its cast, is the result.
        a = input._array()
        dtype = dtype or input._dtype
        return fresh_tensor(Tensor, a.copy() if dtype is input._dtype else cast_array(
            a, dtype.numpy), input._shape, dtype, input._storage.device, CPU_BACKEND)
    dtype = dtype or input._dtype
    device = device or input._storage.device
    if non_blocking and device.type == "cpu" and input._storage.device.type == "cuda":
        # PyTorch copies into pinned memory then, so the copy can be queued.
        out = new_empty_tensor(input._shape, dtype, device, stride=strides, pinned=True)
    else:
        out = new_empty_tensor(input._shape, dtype, device, stride=strides)
    copy_values(out, input, non_blocking)
    return out


def copy_values(out, input, non_blocking=False):
    """Write ``input``'s values into ``out`` (same shape; cast; across devices as CUDA does).

    On one asynchronous device the copy is a queued kernel. Between host and device, a copy
    from pinned host memory (or into it) with ``non_blocking=True`` is queued too; any other
    host/device copy waits for the device, as PyTorch's blocking copies do.
    """
    source_backend = input._storage._backend
    target_backend = out._storage._backend
    if source_backend is target_backend:
        if source_backend.deferred:
            source_backend.launch("copy_", cast_into, out._array_nowait(),
                                  input._array_nowait())
            return
        if source_backend is CPU_BACKEND and out._dtype is input._dtype:
            copy_into(out._array(), input._array())   # (tiled for a transposed matrix)
        else:
            out._array()[...] = cast_array(input._array(), out._dtype.numpy)
        return
    if non_blocking:
        if source_backend.name == "cpu" and is_pinned(input._storage):
            target_backend.copy_async_from_host(out._array_nowait(),
                                                cast_array(input._array(), out._dtype.numpy))
            return
        if target_backend.name == "cpu" and is_pinned(out._storage):
            source_backend.copy_async_to_host(out._array(), input._array_nowait())
            return
    if target_backend.name == "cpu":
        source = input._host_array("cpu")            # device to host: a sync point
    else:
        source = target_backend.from_other(input._array(), source_backend)
    out._array()[...] = cast_array(source, out._dtype.numpy)


def _broadcast_view(t, shape):
    """``t`` expanded to ``shape`` (metadata only, no op recorded)."""
    shape = tuple(shape)
    if tuple(t._shape) == shape:
        return t
    stride = broadcast_strides(shape, tuple(t._shape), t._stride)
    return Tensor._make(t._storage, shape, tuple(stride), t._offset, t._dtype)


def cast_into(target, source):
    """``target[...] = source`` with PyTorch's cast semantics (a copy kernel's body)."""
    target[...] = cast_array(source, target.dtype)


def contiguous_copy(input):
    return copy_with_strides(input, contiguous_strides(input._shape))


def _number_array(xp, value):
    """A Python number as the 0-d array PyTorch wraps it in (bool, int64, double, cdouble)."""
    if isinstance(value, (bool, np.bool_)):
        return xp.asarray(bool(value))
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not -2 ** 63 <= value < 2 ** 63:
            raise OverflowError(f"int too big to convert ({value} does not fit in int64)")
        return xp.asarray(value, dtype=np.int64)
    if isinstance(value, (float, np.floating)):
        return xp.asarray(float(value), dtype=np.float64)
    return xp.asarray(complex(value), dtype=np.complex128)


def _is_number(value):
    return isinstance(value, (bool, int, float, complex, np.bool_, np.number)) and \
        not isinstance(value, np.ndarray)


def _check_int_range(value):
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        raise OverflowError(f"int too big to convert ({value} does not fit in 64 bits)")


def _check_scalar_fits(value, dtype, half_checked=True):
    """PyTorch's ``checked_convert``: a Python number written into ``dtype`` must fit.

    Integers may wrap into unsigned types down to ``-max`` (``uint8`` accepts -1 as 255);
    floats must be finite and in range for integer types; float16/bfloat16 and bool take
    anything; a complex number with a non-zero imaginary part fits complex dtypes only.
    ``half_checked``: whether float16/bfloat16 are range checked too (PyTorch's ``fill_``
    skips that check when it fills a single element, and so does ``t[i] = v``).
    """
    _check_int_range(value)
    if dtype is _dtypes.bool_:
        return
    if dtype in (_dtypes.float16, _dtypes.bfloat16) and not half_checked:
        return
    bad = False
    if isinstance(value, complex):
        if dtype.category != _dtypes.COMPLEX and value.imag != 0:
            bad = True
        else:
            value = value.real
    if not bad and isinstance(value, float) and dtype.category == _dtypes.INTEGRAL:
        info = np.iinfo(dtype.numpy)
        bad = value != value or not info.min <= value <= info.max
    elif not bad and isinstance(value, (int, float)) and dtype.category != _dtypes.INTEGRAL \
            and dtype not in (_dtypes.float64, _dtypes.complex128):
        limit = _dtypes.finfo(dtype).max
        value = float(value)
        bad = value == value and abs(value) != float("inf") and abs(value) > limit
    elif not bad and isinstance(value, int) and not isinstance(value, bool) and \
            dtype.category == _dtypes.INTEGRAL:
        info = np.iinfo(dtype.numpy)
        low = -int(info.max) if info.min == 0 else int(info.min)
        bad = not low <= value <= info.max
    if bad:
        raise TensorRuntimeError(
            f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow "
            f"(got {value!r} for a {dtype} tensor)")


def _plain_number(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


# ------------------------------------------------------------------------------ copies
@register("copy", function=False, post=Post(silent=returned_input))
def contiguous(input, memory_format=contiguous_format):
    """``input`` itself when already laid out in ``memory_format``, else a dense copy.

    >>> import jtensor as torch
    >>> x = torch.zeros(2, 3, 4, 5)
    >>> x.contiguous(memory_format=torch.channels_last).stride()
    (60, 1, 15, 3)
    """
    if memory_format is contiguous_format and input.__class__ in DENSE_CLASSES \
            and input._storage._backend is CPU_BACKEND:
        # The common call (``y.transpose(1, 2).contiguous()`` in attention, issue 18):
        # the input itself, or one row-major NumPy copy of its values.
        if input._contiguous or (input._contiguous is None and input.is_contiguous()):
            return input
        return Tensor._from_array(c_copy(input._array()), input._dtype, CPU)
    _check_memory_format(memory_format, "contiguous")
    if memory_format is preserve_format:
        if input.is_contiguous():
            return input
        raise TensorRuntimeError(
            "preserve memory format is unsupported by the contiguous operator; use "
            "torch.contiguous_format or a channels-last format")
    if input.is_contiguous(memory_format=memory_format):
        return input
    out = copy_with_strides(input, strides_for_format(input, memory_format))
    return out


@register("copy")
def clone(input, *, memory_format=preserve_format):
    """A copy with its own storage; keeps a dense input's strides (``preserve_format``).

    >>> import jtensor as torch
    >>> torch.zeros(3, 4).t().clone().stride()
    (1, 4)
    """
    _check_memory_format(memory_format, "clone")
    out = copy_with_strides(input, strides_for_format(input, memory_format))
    return out


def _is_dtype_like(value):
    return isinstance(value, _dtypes.dtype) or value in (float, int, bool, complex)


_TO_SIGNATURES = (
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
)


def _to_type_error(args, kwargs, why):
    got = ", ".join([type(a).__name__ for a in args]
                    + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    return TensorTypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n" + "\n".join(f" * {s}" for s in _TO_SIGNATURES) + f"\n({why})")


def _parse_to_args(args, kwargs):
    """Match PyTorch's three ``to`` signatures; returns (dtype, device, copy, memory_format)."""
    if (args and isinstance(args[0], Tensor)) or "tensor" in kwargs:
        names = ("tensor", "non_blocking", "copy")
    elif args and (_is_dtype_like(args[0]) or isinstance(args[0], (bool, float))):
        # PyTorch's parser reads a bare float or bool *value* as that Python type: x.to(1.5)
        # is x.to(float) (float64) and x.to(True) is x.to(bool).
        if isinstance(args[0], (bool, float)):
            args = (type(args[0]),) + tuple(args[1:])
        names = ("dtype", "non_blocking", "copy")
    else:
        names = ("device", "dtype", "non_blocking", "copy")
    if len(args) > len(names):
        raise _to_type_error(args, kwargs, f"at most {len(names)} positional arguments")
    bound = dict(zip(names, args, strict=False))  # the names past the args: keywords
    memory_format = None
    for key, value in kwargs.items():
        if key == "memory_format":
            memory_format = value
            continue
        if key not in names or key in bound:
            raise _to_type_error(args, kwargs, f"unexpected or repeated argument {key!r}")
        bound[key] = value
    dtype = bound.get("dtype")
    device = bound.get("device")
    if "tensor" in bound:
        other = bound["tensor"]
        if not isinstance(other, Tensor):
            raise _to_type_error(args, kwargs, "'tensor' must be a Tensor")
        dtype, device = other._dtype, other._storage.device
    for flag in ("non_blocking", "copy"):
        if not isinstance(bound.get(flag, False), bool):
            raise _to_type_error(args, kwargs, f"'{flag}' must be bool")
    if dtype is not None and not _is_dtype_like(dtype):
        raise _to_type_error(args, kwargs, "'dtype' must be a torch.dtype")
    if device is not None and (isinstance(device, bool) or not isinstance(
            device, (str, int, _device_type))):
        raise _to_type_error(args, kwargs, "'device' must be a torch.device, a string or an int")
    if memory_format is not None and not isinstance(memory_format, _memory_format_type):
        raise _to_type_error(args, kwargs, "'memory_format' must be a torch.memory_format")
    return dtype, device, bound.get("copy", False), memory_format, bound.get("non_blocking", False)


@register("copy", function=False, post=Post(inputs=("input",), silent=returned_input))
def to(input, *args, **kwargs):
    """Cast and/or move; returns ``input`` itself when nothing would change (unless ``copy``).

    Call forms: ``to(dtype, non_blocking=False, copy=False)``, ``to(device=None, dtype=None,
    non_blocking=False, copy=False)``, ``to(other_tensor, non_blocking=False, copy=False)``,
    each with ``memory_format=`` (default: preserve the input's layout).

    >>> import jtensor as torch
    >>> x = torch.zeros(2, 3)
    >>> x.to(torch.float32) is x, x.to(torch.float32, copy=True) is x
    (True, False)
    """
    if not kwargs and len(args) == 1 and args[0].__class__ is _dtypes.dtype:
        # ``x.to(torch.float32)``, ``x.float()``: the commonest call, decided in few checks.
        if args[0] is input._dtype:
            return input
        if input.__class__ in DENSE_CLASSES and input._storage._backend is CPU_BACKEND:
            # (a contiguous tensor is dense: preserve_format keeps its strides)
            return copy_with_strides(input, input._stride if input._contiguous else
                                     strides_for_format(input, preserve_format), args[0])
    dtype, device, copy, memory_format, non_blocking = _parse_to_args(args, kwargs)
    dtype = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    device = input._storage.device if device is None else to_device(device)
    if device.type == "cuda":
        from .._device import backend_for

        device = backend_for(device).normalize(device)
    if memory_format is None:
        memory_format = preserve_format
    if dtype is input._dtype and device == input._storage.device and not copy and (
            memory_format is preserve_format
            or suggest_memory_format(input._shape, input._stride) == memory_format.name):
        return input  # PyTorch's to_will_alias: nothing to do, no op runs
    out = copy_with_strides(input, strides_for_format(input, memory_format), dtype, device,
                            non_blocking)
    return out


def _cast_method(name, dtype):
    def cast(self, *, memory_format=preserve_format):
        if memory_format is preserve_format:
            return to(self, dtype)
        return to(self, dtype, memory_format=memory_format)

    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"``self.to(torch.{dtype.name}, memory_format=memory_format)``."
    return cast


for _name, _dtype in (("float", _dtypes.float32), ("double", _dtypes.float64),
                      ("half", _dtypes.float16), ("bfloat16", _dtypes.bfloat16),
                      ("int", _dtypes.int32), ("long", _dtypes.int64), ("short", _dtypes.int16),
                      ("char", _dtypes.int8), ("byte", _dtypes.uint8), ("bool", _dtypes.bool_),
                      ("cfloat", _dtypes.complex64), ("cdouble", _dtypes.complex128)):
    setattr(Tensor, _name, _cast_method(_name, _dtype))


def _cpu(self, memory_format=preserve_format):
    """A copy on the CPU (``self`` when it is already there)."""
    return to(self, "cpu", memory_format=memory_format)


def _cuda(self, device=None, non_blocking=False, memory_format=preserve_format):
    """A copy on a CUDA device (``self`` when it is already there)."""
    return to(self, "cuda" if device is None else (
        f"cuda:{device}" if isinstance(device, int) else device),
        non_blocking=non_blocking, memory_format=memory_format)


Tensor.cpu = _cpu
Tensor.cuda = _cuda


def _type_as(self, other):
    """``self.to(other.dtype, other.device)``: ``self`` when those already match."""
    if not isinstance(other, Tensor):
        raise TensorTypeError(
            f"type_as(): argument 'other' (position 1) must be Tensor, not "
            f"{type_name(other)}")
    return to(self, other._storage.device, other._dtype)


Tensor.type_as = _type_as


# ------------------------------------------------------------------------------ in place
@register("inplace", method="copy_", function=False)
def copy_(self, other, non_blocking=False):
    """Write ``other`` (broadcast, cast, maybe from another device) into ``self``.

    ``other`` (PyTorch's name for the source) may be a Python number. Raises when ``self``
    repeats elements (stride 0) or partly overlaps ``other`` in memory, as PyTorch does.
    """
    if not isinstance(non_blocking, bool):
        raise TensorTypeError(
            f"copy_(): argument 'non_blocking' must be bool, not {type_name(non_blocking)}")
    check_inplace(self)
    if isinstance(other, Tensor):
        shape = broadcast_shapes(tuple(self._shape), tuple(other._shape))
        if tuple(shape) != tuple(self._shape):
            raise TensorRuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(shape)}")
        if other is self:
            return self   # PyTorch's copy_ returns at once (still a write: the version bumps)
        check_no_internal_overlap(self)
        _check_no_partial_overlap(self, other)
        if other._storage._backend is not self._storage._backend or \
                self._storage._backend.deferred:
            if other is not self:
                source = contiguous_copy(other) if other._storage is self._storage else other
                copy_values(self, _broadcast_view(source, self._shape), non_blocking)
            return self
        source = other._array()
        if other._storage is self._storage and other is not self:
            source = source.copy()  # overlapping layouts PyTorch does not reject
    elif _is_number(other):
        _check_int_range(_plain_number(other))
        check_no_internal_overlap(self)
        source = _number_array(self._storage._backend.xp, other)
    else:
        raise TensorTypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type_name(other)}")
    if other is not self:
        self._array()[...] = cast_array(source, self._dtype.numpy)
    return self


def _fill_source(self, value, name):
    """The 0-d array ``fill_``/``__setitem__`` write, checked as PyTorch checks it."""
    xp = self._storage._backend.xp
    if isinstance(value, Tensor):
        if value._shape:
            raise TensorRuntimeError(
                f"{name} only supports 0-dimension value tensor but got tensor with "
                f"{len(value._shape)} dimensions.")
        source = value._array()
        if value._storage.device != self._storage.device:
            source = self._storage._backend.from_other(source, value._storage._backend)
        return cast_array(source, self._dtype.numpy)
    if not _is_number(value):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n * (Number value)")
    value = _plain_number(value)
    _check_scalar_fits(value, self._dtype, half_checked=self.numel() != 1)
    return cast_array(_number_array(xp, value), self._dtype.numpy)


@register("inplace")
def fill_(self, value):
    """Set every element to ``value`` (a number, or a 0-d tensor); returns ``self``.

    >>> import jtensor as torch
    >>> torch.zeros(3, dtype=torch.int32).fill_(2.7)
    tensor([2, 2, 2], dtype=torch.int32)
    """
    check_inplace(self)
    source = _fill_source(self, value, "fill_")
    # Filling with a number writes one value everywhere, so PyTorch allows it on expanded
    # tensors too; a tensor value goes through PyTorch's checked copy path, which refuses.
    if isinstance(value, Tensor):
        check_no_internal_overlap(self)
    self._array()[...] = source
    return self


@register("inplace")
def zero_(self):
    """Set every element to zero; returns ``self``."""
    check_inplace(self)
    self._array()[...] = 0
    return self


@register("inplace", method="resize_", function=False)
def resize_(self, *size, memory_format=None):
    """Change the shape in place; grows the storage when needed (new elements uninitialised).

    Same shape and no ``memory_format``: nothing changes (even the strides). Otherwise the
    strides become contiguous (or ``memory_format``'s) from the current storage offset.
    """
    from .views import sizes_from_args

    return _resize(resize_.op, self, sizes_from_args(size), memory_format)


@register("inplace")
def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_(the_template.shape)``; ``preserve_format`` takes the template's layout
    (channels-last stays channels-last), any other format is passed on to ``resize_``."""
    if not isinstance(the_template, Tensor):
        raise TensorTypeError(
            f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
            f"{type_name(the_template)}")
    if memory_format is preserve_format:
        name = suggest_memory_format(the_template._shape, the_template._stride)
        memory_format = {"channels_last": channels_last,
                         "channels_last_3d": channels_last_3d}.get(name, contiguous_format)
    return _resize(resize_as_.op, input, tuple(the_template._shape), memory_format)


def _resize(op, self, shape, memory_format):
    if any(s < 0 for s in shape):
        raise TensorRuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if memory_format is not None:
        _check_memory_format(memory_format, "resize_")
        if memory_format is preserve_format:
            raise TensorRuntimeError("Unsupported memory formatPreserve (resize_ needs "
                                     "torch.contiguous_format or a channels-last format)")
    if self._requires_grad:
        raise TensorRuntimeError("cannot resize variables that require grad")
    if memory_format is None and tuple(shape) == tuple(self._shape):
        return self
    strides = strides_for_format(self, memory_format or contiguous_format, shape)
    numel = 1
    for s in shape:
        numel *= s
    capacity = self._storage.nbytes() // self._dtype.itemsize - self._offset
    if numel:
        grow_storage(self._storage, (self._offset + numel) * self._dtype.itemsize)
    self._set_metadata(shape, strides, self._offset)
    if _dispatch.fill_uninitialized and numel > capacity:
        fill_uninitialized(self, max(capacity, 0))   # the elements the storage gained
    return self


@register("inplace", function=False)
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make ``self`` look at another tensor's (or a storage's) memory; returns ``self``.

    ``set_()`` gives an empty storage; ``set_(tensor)`` takes its storage, shape, strides
    and offset; ``set_(storage, offset, size, stride)`` any layout over a storage (growing
    it when the layout reaches past its end).
    """
    itemsize = self._dtype.itemsize
    if source is None:
        storage, shape, strides, offset = Storage(
            self._storage._backend.allocate(0), self._storage.device), (0,), (1,), 0
    elif isinstance(source, Tensor):
        if source._dtype is not self._dtype:
            raise TensorRuntimeError(
                f"Could not set tensor of type {self._dtype} to a tensor of type "
                f"{source._dtype}")
        storage, shape, strides, offset = (source._storage, tuple(source._shape),
                                           tuple(source._stride), source._offset)
    elif isinstance(source, Storage):
        storage = source
        if size is None:
            shape, strides, offset = (storage.nbytes() // itemsize,), (1,), 0
        else:
            shape = tuple(int(s) for s in size)
            strides = contiguous_strides(shape) if stride is None else tuple(
                int(s) for s in stride)
            offset = int(storage_offset)
            if len(strides) != len(shape):
                raise TensorRuntimeError(
                    f"mismatch in length of strides and shape (size {list(shape)}, stride "
                    f"{list(strides)})")
            if any(s < 0 for s in shape) or offset < 0:
                raise TensorRuntimeError(
                    f"set_(): negative size or storage offset (size {list(shape)}, offset "
                    f"{offset})")
    else:
        raise TensorTypeError(
            f"set_(): argument 'source' must be Tensor or Storage, not {type_name(source)}")
    check_inplace(self)
    if isinstance(source, Storage) and size is not None:
        grow_storage(storage, storage_extent(shape, strides, offset) * itemsize)
    self._storage = storage
    self._set_metadata(shape, strides, offset)
    return self


@register("query", function=False)
def is_set_to(self, tensor):
    """Whether both look at the same storage with the same offset, shape and strides."""
    if not isinstance(tensor, Tensor):
        raise TensorTypeError(
            f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
            f"{type_name(tensor)}")
    same = (self._storage is tensor._storage and self._offset == tensor._offset
            and tuple(self._shape) == tuple(tensor._shape)
            and tuple(self._stride) == tuple(tensor._stride))
    return same


# ------------------------------------------------------------------------------ setitem
def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def copy_value_into(target, value):
    """Write a tensor or a Python number into ``target`` (broadcast and cast), no bookkeeping.

    This is basic ``tensor[key] = value``: numbers must fit the target's dtype, tensors are
    broadcast (after dropping their leading size-1 dims, as PyTorch does) and cast.
    """
    check_inplace(target)
    if isinstance(value, Tensor):
        vshape = _strip_leading_ones(value._shape)
        tshape = tuple(target._shape)
        if len(vshape) > len(tshape):
            raise TensorRuntimeError(
                f"expand({value.type()}{{{list(value._shape)}}}, size={list(tshape)}): the "
                f"number of sizes provided ({len(tshape)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({len(vshape)})")
        lead = len(tshape) - len(vshape)
        for i, (have, want) in enumerate(zip(vshape, tshape[lead:], strict=True)):
            if have != want and have != 1:
                raise TensorRuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({have}) at non-singleton dimension {lead + i}.  Target sizes: "
                    f"{list(tshape)}.  Tensor sizes: {list(vshape)}")
        check_no_internal_overlap(target)
        # PyTorch copies a same-shape value (checking overlap), fills from a 0-d CPU value
        # (no check: ``x[None] = x`` works for a 0-d ``x``) and copies any other from its
        # expanded view (checked: ``t[0] = t`` on a (1, 1) ``t`` is a partial overlap).
        if tuple(value._shape) == tshape:
            _check_no_partial_overlap(target, value)
        elif value._shape or value.device.type != "cpu":
            from .views import _expand_layout, make_view

            kept = value._stride[len(value._shape) - len(vshape):]
            stripped = make_view(value, vshape, kept, value._offset)
            shape, stride = _expand_layout(stripped, tshape)
            _check_no_partial_overlap(target, make_view(stripped, shape, stride,
                                                        value._offset))
        source = value._array()
        if value._storage.device != target._storage.device:
            source = target._storage._backend.from_other(source, value._storage._backend)
        elif value._storage is target._storage:
            source = source.copy()
        source = source.reshape(vshape)
        target._array()[...] = cast_array(source, target._dtype.numpy)
        return
    if not _is_number(value):
        raise TensorTypeError(
            f"can't assign a {type(value).__name__} to a {target.type()}")
    value = _plain_number(value)
    _check_scalar_fits(value, target._dtype, half_checked=False)
    check_no_internal_overlap(target)
    target._array()[...] = cast_array(_number_array(target._storage._backend.xp, value),
                                      target._dtype.numpy)


# ------------------------------------------------------------------------------ pinned memory
def _pin_memory(self, device=None):
    """A copy in page-locked host memory (``self`` when already pinned), so copies to and
    from a CUDA device with ``non_blocking=True`` can be queued instead of waited for."""
    from ..cuda import _runtime

    if self._storage.device.type != "cpu":
        raise TensorRuntimeError(
            f"cannot pin '{self.type()}' only dense CPU tensors can be pinned (this tensor is "
            f"on {self._storage.device})")
    _runtime.require()
    if is_pinned(self._storage):
        return self
    out = new_empty_tensor(self._shape, self._dtype, self._storage.device,
                           stride=strides_for_format(self, preserve_format), pinned=True)
    out._array()[...] = self._array()
    return notify(to.op, (self,), out)   # not an op of its own: reported as ``to``


def _is_pinned(self, device=None):
    """Whether this tensor lives in pinned (page-locked) host memory."""
    return self._storage.device.type == "cpu" and is_pinned(self._storage)


Tensor.pin_memory = _pin_memory
Tensor.is_pinned = _is_pinned


# ---------------------------------------------------------------------- narrow_copy
@register("copy")
def narrow_copy(input, dim, start, length, *, out=None):
    """A contiguous copy of ``input.narrow(dim, start, length)``."""
    _check_tensor(input, "narrow_copy")
    if input.dim() == 0:
        raise TensorRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _index(dim, "narrow_copy", "dim")
    if dim >= input.dim():
        raise TensorRuntimeError(
            f"narrow_copy(): dim {dim} is out of range for a tensor with {input.dim()} dims "
            "(Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.)")
    dim = wrap_dim(dim, input.dim())
    start = _index(start, "narrow_copy", "start")
    length = _index(length, "narrow_copy", "length")
    size = input._shape[dim]
    if start < -size or start > size:
        raise TensorIndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got "
            f"{start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise TensorRuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = (slice(None),) * dim + (slice(start, start + length),)
    result = _wrap(input._array()[key], input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "narrow_copy")
    return result
