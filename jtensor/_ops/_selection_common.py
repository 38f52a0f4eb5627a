"""Helpers shared by the selection op families (``masking``, ``gather_scatter``, ``joining``,
``rearranging``, ``ordering``): selection, scattering, joining, reordering and sorting ops with
PyTorch's semantics.

Every op computes with the backend's array module (``xp``), allocates its result with the
layout PyTorch gives it (most are contiguous; ``flip``, ``sort`` and the out-of-place forms of
``index_fill``/``index_put`` keep a dense input's layout; ``where`` follows TensorIterator),
validates everything before writing, and ends in ``finish``.
"""

import numpy as np

from .. import _dtypes
from .._elementwise import _as_number
from .._dispatch import check_inplace, check_no_internal_overlap
from .._errors import TensorRuntimeError, TensorTypeError, type_name
from .._layout import (
    contiguous_strides,
    dense_strides_like,
)
from .._out import resize_output
from .._size import Size
from .._device import CPU
from .._tensor import Tensor, new_empty_tensor
from .advanced_indexing import check_scalar_fits


def _xp(t):
    return t._storage._backend.xp


def _wrap(array, dtype, device, stride=None, fresh=False):
    """A new tensor holding ``array`` with ``stride`` (contiguous by default). ``fresh``:
    ``array`` was just made by the op and nothing else holds it (``take``'s result), so a
    C-contiguous one of the dtype is the tensor's own, not copied."""
    shape = array.shape
    if device is CPU and (stride is None or tuple(stride) == contiguous_strides(shape)):
        if fresh and array.dtype == dtype.numpy and array.flags.c_contiguous:
            return Tensor._from_array(array, dtype, CPU)
        # (one copy, in C order and in the dtype: the commonest result, issue 18)
        return Tensor._from_array(array.copy() if array.dtype == dtype.numpy
                                  else array.astype(dtype.numpy, order="C"), dtype, CPU)
    shape = Size(shape)
    if stride is None or tuple(stride) == contiguous_strides(shape):
        xp_contig = array if array.flags.c_contiguous else array.copy()
        if xp_contig.dtype != dtype.numpy:
            xp_contig = xp_contig.astype(dtype.numpy)
        out = new_empty_tensor(shape, dtype, device)
        out._array()[...] = xp_contig
        return out
    out = new_empty_tensor(shape, dtype, device, stride=stride)
    out._array()[...] = array
    return out


def _fresh(t, stride=None):
    """A copy of ``t`` with its own storage (contiguous unless ``stride`` is given)."""
    return _wrap(t._array(), t._dtype, t._storage.device, stride)


def _preserve(t):
    return dense_strides_like(tuple(t._shape), t._stride)


def _check_tensor(x, name, arg):
    if not isinstance(x, Tensor):
        raise TensorTypeError(
            f"{name}(): argument '{arg}' must be Tensor, not {type_name(x)}")


def _write_out(out, result, name):
    """Copy ``result`` into ``out=``: same dtype required, resized when the shape differs."""
    if not isinstance(out, Tensor):
        raise TensorTypeError(f"{name}(): argument 'out' must be Tensor, not {type_name(out)}")
    if out._dtype is not result._dtype:
        raise TensorRuntimeError(
            f"Expected out tensor to have dtype {result._dtype}, but got {out._dtype} instead")
    resize_output(out, result._shape)
    out._array()[...] = result._array()
    return out


def _fill_value(value, dtype, name):
    """A number or 0-d tensor fill value, cast to ``dtype`` (refusing overflow)."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise TensorRuntimeError(
                f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s).")
        value = value.item()
    value = _as_number(value, name)
    check_scalar_fits(value, dtype, half_checked=True)
    if isinstance(value, complex) and dtype.category != _dtypes.COMPLEX:
        value = value.real
    if dtype.category == _dtypes.INTEGRAL and isinstance(value, float):
        value = int(value)
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype.numpy)


def _check_writable(t):
    check_inplace(t)
    check_no_internal_overlap(t)
