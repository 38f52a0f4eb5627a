"""Mask-driven selection: ``masked_select``/``masked_fill``/``masked_scatter`` (and their
in-place forms), ``where``, ``nonzero`` and ``argwhere``.

Conventions (layouts, validation before writing, ``finish``): see ``_selection_common``.
"""

import warnings

import numpy as np

from .. import _dtypes
from .._device import data_dependent_sync
from .._dispatch import check_inplace, check_no_internal_overlap
from .._elementwise import contiguous_result_shape, elementwise, result_dtype, select
from .._errors import TensorRuntimeError, TensorTypeError, stacklevel
from .._layout import broadcast_shapes
from .._registry import register
from .._size import Size
from .._device import CPU_BACKEND
from .._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, new_empty_tensor
from ._selection_common import (_check_tensor, _check_writable, _fill_value, _wrap, _write_out,
                                _xp)


# ---------------------------------------------------------------------- masks
@register("copy")
def masked_select(input, mask, *, out=None):
    """The elements where ``mask`` (bool, broadcast with ``input``) is True, as a 1-D copy."""
    _check_tensor(mask, "masked_select", "mask")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_select: expected BoolTensor for mask, got {mask._dtype._torch_name}")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    data_dependent_sync(mask)
    values = xp.broadcast_to(input._array(), shape)[xp.broadcast_to(mask._array(), shape)]
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "masked_select")
    return result


def _masked_fill_into(self, mask, value, name):
    _check_tensor(mask, name, "mask")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_c_type_name(mask._dtype)}")
    fill = _fill_value(value, self._dtype, "masked_fill_")
    shape = broadcast_shapes(self._shape, mask._shape)
    if tuple(shape) != tuple(self._shape):
        raise TensorRuntimeError(
            f"The expanded size of the tensor ({self._shape[-1] if self._shape else 1}) must "
            f"match the existing size ({mask._shape[-1]}) at non-singleton dimension "
            f"{len(shape) - 1}.  Target sizes: {list(self._shape)}.  Tensor sizes: "
            f"{list(mask._shape)}")
    return fill, shape


def _c_type_name(dtype):
    return {"uint8": "unsigned char", "int8": "signed char", "int16": "short",
            "int32": "int", "int64": "long int", "float32": "float", "float64": "double",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(dtype.name, dtype.name)


# The largest finite float32: a Python number beyond it overflows a float32 fill.
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INF = float("inf")


def _masked_fill_fast(input, mask, value):
    """``masked_fill`` of a plain CPU float32/float64 tensor with a bool mask of its shape, or
    one broadcasting to it, and a Python number that fits (an attention mask's ``-inf``):
    the general path's values (the input, then the fill where the mask is True) in one array
    call, without its checks, which cannot fail here. None when it does not apply."""
    if input.__class__ not in DENSE_CLASSES or mask.__class__ not in DENSE_CLASSES \
            or mask._dtype is not _dtypes.bool_ or input._dtype not in ARRAY_FLOATS \
            or input._storage._backend is not CPU_BACKEND \
            or mask._storage._backend is not CPU_BACKEND:
        return None
    if value.__class__ is float:
        if input._dtype is _dtypes.float32 and abs(value) > _FLOAT32_MAX \
                and abs(value) != _INF:
            return None   # the general path raises the overflow error
    elif value.__class__ is not int or not -2**63 <= value < 2**63:
        return None   # (a bool, a tensor, a number PyTorch refuses: the general path)
    if mask._shape == input._shape:
        shape = input._shape
    elif len(mask._shape) <= len(input._shape) and all(
            m == 1 or m == i for m, i in zip(mask._shape[::-1], input._shape[::-1],
                                             strict=False)):
        shape = input._shape
    else:
        return None
    dtype = input._dtype.numpy
    out = select(mask._array(), np.asarray(value, dtype), input._array())
    if out.shape != shape or out.dtype != dtype:
        return None
    if not out.flags.c_contiguous:   # (PyTorch's result is row-major whatever the input's)
        out = np.ascontiguousarray(out)
    return Tensor._from_array(out, input._dtype, input._storage.device)


@register("copy")
def masked_fill(input, mask, value):
    """A copy of ``input`` (broadcast with ``mask``) with ``value`` where ``mask`` is True."""
    if isinstance(mask, Tensor) and isinstance(input, Tensor):
        fast = _masked_fill_fast(input, mask, value)
        if fast is not None:
            return fast
    _check_tensor(mask, "masked_fill", "mask")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    base = new_empty_tensor(Size(shape), input._dtype, input._storage.device)
    fill, _ = _masked_fill_into(base, mask, value, "masked_fill")
    target = base._array()
    target[...] = xp.broadcast_to(input._array(), shape)
    target[xp.broadcast_to(mask._array(), shape)] = fill
    return base


@register("inplace", function=False)
def masked_fill_(self, mask, value):
    """Write ``value`` into ``self`` where ``mask`` (broadcast to ``self``) is True."""
    fill, shape = _masked_fill_into(self, mask, value, "masked_fill_")
    xp = _xp(self)
    check_inplace(self)
    try:
        check_no_internal_overlap(self)
    except TensorRuntimeError:
        # PyTorch still writes through a stride-0 layout here (a deprecated use it warns
        # about): the repeated element takes the value wherever the mask selects it.
        warnings.warn(
            "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[mask] = scalar", UserWarning, stacklevel=stacklevel(2))
    self._array()[xp.broadcast_to(mask._array(), shape)] = fill
    return self


def _masked_scatter_check(self, mask, source, name):
    _check_tensor(mask, name, "mask")
    _check_tensor(source, name, "source")
    if mask._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{_c_type_name(mask._dtype)}")
    if source._dtype is not self._dtype:
        raise TensorRuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but got "
            f"{self._dtype._torch_name} and {source._dtype._torch_name}")


@register("copy")
def masked_scatter(input, mask, source):
    """A copy of ``input`` whose masked positions take ``source``'s elements in order."""
    _masked_scatter_check(input, mask, source, "masked_scatter")
    shape = broadcast_shapes(input._shape, mask._shape)
    xp = _xp(input)
    m = xp.broadcast_to(mask._array(), shape)
    count = int(m.sum())
    if count > source.numel():
        raise TensorRuntimeError("masked_scatter: expected source to have at least as many "
                                 f"elements as the ones in mask ({count}), got {source.numel()}")
    out = new_empty_tensor(Size(shape), input._dtype, input._storage.device)
    target = out._array()
    target[...] = xp.broadcast_to(input._array(), shape)
    target[m] = source._array().reshape(-1)[:count]
    return out


@register("inplace", function=False)
def masked_scatter_(self, mask, source):
    """Copy ``source``'s elements, in order, into the positions of ``self`` where ``mask``."""
    _check_writable(self)
    _masked_scatter_check(self, mask, source, "masked_scatter_")
    shape = broadcast_shapes(self._shape, mask._shape)
    if tuple(shape) != tuple(self._shape):
        raise TensorRuntimeError(
            f"masked_scatter_: mask of shape {list(mask._shape)} cannot be broadcast to self of "
            f"shape {list(self._shape)}")
    xp = _xp(self)
    m = xp.broadcast_to(mask._array(), shape)
    count = int(m.sum())
    if count > source.numel():
        raise TensorRuntimeError("masked_scatter: expected source to have at least as many "
                                 f"elements as the ones in mask ({count}), got {source.numel()}")
    values = source._array().reshape(-1)[:count].copy()
    self._array()[m] = values
    return self


# ---------------------------------------------------------------------- where / nonzero
def _nonzero_tensor(input):
    """PyTorch's nonzero layout: an (n, ndim) tensor stored column by column (stride (1, n))."""
    coords = _nonzero_array(input)
    n, ndim = coords.shape
    buffer = _wrap(_xp(input).ascontiguousarray(coords.T), _dtypes.int64, input._storage.device)
    return Tensor._make(buffer._storage, Size((n, ndim)), (1, n), 0, _dtypes.int64)


def _nonzero_tuple(input):
    if input.dim() == 0:
        n = _nonzero_array(input).shape[0]
        return (_wrap(_xp(input).zeros(n, dtype=np.int64), _dtypes.int64,
                      input._storage.device),)
    full = _nonzero_tensor(input)
    n = full._shape[0]
    return tuple(Tensor._make(full._storage, Size((n,)), (1,), j * n, _dtypes.int64)
                 for j in range(input.dim()))


def _nonzero_array(input):
    xp = _xp(input)
    data_dependent_sync(input)
    array = input._array()
    if array.ndim == 0:
        return xp.zeros((int(bool(array != 0)), 0), dtype=np.int64)
    cols = xp.nonzero(array)
    return xp.stack(cols, axis=1).astype(np.int64) if cols else xp.zeros((0, 0), np.int64)


@register("copy")
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one vector per dim."""
    if as_tuple:
        return _nonzero_tuple(input)
    result = _nonzero_tensor(input)
    if out is not None:
        return _write_out(out, result, "nonzero")
    return result


@register("copy")
def argwhere(input):
    """``nonzero(input)``: an (n, ndim) tensor of the coordinates of non-zero elements."""
    return _nonzero_tensor(input)


@register("copy", method=False)
def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` else ``other`` (promoted, broadcast); with only
    ``condition``, ``nonzero(condition, as_tuple=True)``."""
    _check_tensor(condition, "where", "condition")
    if input is None and other is None:
        return _nonzero_tuple(condition)
    if input is None or other is None:
        raise TensorTypeError("where() missing required argument 'input' or 'other'")
    if condition._dtype is not _dtypes.bool_:
        raise TensorRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype._torch_name}")
    if out is None:
        fast = _where_fast(condition, input, other)
        if fast is not None:
            return fast
    promoted = result_dtype([input, other])
    np_result = promoted.numpy

    def compute(xp, c, a, b):
        if xp is np and c.dtype == np.bool_:   # (the bits blended on a big array: select)
            return select(c, a.astype(np_result, copy=False), b.astype(np_result, copy=False))
        return xp.where(c != 0, a.astype(np_result), b.astype(np_result))

    return elementwise(where.op, compute, (condition, input, other), out=out,
                       result_dtype_override=promoted, rule="where")


def _where_fast(condition, input, other):
    """``where`` of a bool condition and two plain CPU float32/float64 operands of one dtype
    (a tensor and a Python float or int beside it, ``where(mask, x, 0.0)``), whose result is
    contiguous: NumPy's ``where``, the general path's values. None when it does not apply."""
    first = input if isinstance(input, Tensor) else other
    if not isinstance(first, Tensor) or first._dtype not in ARRAY_FLOATS:
        return None
    dtype = first._dtype
    operands = []
    for x in (condition, input, other):
        if isinstance(x, Tensor):
            if x.__class__ not in DENSE_CLASSES or x._storage._backend is not CPU_BACKEND \
                    or x._dtype is not (_dtypes.bool_ if x is condition else dtype):
                return None
            operands.append(x)
        elif x.__class__ is float or (x.__class__ is int and -2**53 <= x <= 2**53):
            operands.append(None)
        else:
            return None
    shape = contiguous_result_shape(*operands)
    if shape is None:
        return None
    np_dtype = dtype.numpy
    arrays = [x._array() if t is not None else np.asarray(x, np_dtype)
              for x, t in zip((condition, input, other), operands, strict=True)]
    computed = select(*arrays)   # (``where``'s values: the bits blended, issue 18)
    if computed.shape != shape or computed.dtype != np_dtype:
        return None
    if not computed.flags.c_contiguous:
        computed = np.ascontiguousarray(computed)
    return Tensor._from_array(computed, dtype, first._storage.device)


def _where_method(self, condition, other):
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``."""
    return where(condition, self, other)


Tensor.where = _where_method
