"""Rearranging elements into a new tensor: ``flip``, ``fliplr``, ``flipud``, ``roll``,
``rot90``, and the triangles ``tril``/``triu`` (and in-place forms).

Conventions (layouts, validation before writing, ``finish``): see ``_selection_common``.
"""

from .._errors import TensorRuntimeError, wrap_dim
from .._layout import channels_last_strides, suggests_channels_last
from .._argparse import int_list_arg
from .._registry import register
from ._selection_common import _check_writable, _fresh, _preserve, _wrap, _write_out, _xp


# ---------------------------------------------------------------------- reordering
def _dims_arg(dims, fname, name="dims"):
    return int_list_arg(dims, fname, name)


_ALL, _REVERSED = slice(None), slice(None, None, -1)


def _flip_array(input, dims):
    ndim = len(input._shape)
    key = [_ALL] * ndim
    for d in dims:
        d = wrap_dim(d, ndim)
        if key[d] is _REVERSED:   # (checked in order, as PyTorch's dim_list_to_bitset)
            raise TensorRuntimeError(f"dim {d} appears multiple times in the list of dims")
        key[d] = _REVERSED
    array = input._array()
    return array[tuple(key)] if ndim else array


@register("copy")
def flip(input, dims):
    """A copy with the order of elements reversed along ``dims`` (keeps a dense layout)."""
    dims = _dims_arg(dims, "flip")
    flipped = _flip_array(input, dims)
    return _wrap(flipped, input._dtype, input._storage.device,
                 None if input.is_contiguous() else _preserve(input))


@register("copy")
def fliplr(input):
    """Reverse dim 1 (the columns); needs at least 2 dims."""
    if input.dim() < 2:
        raise TensorRuntimeError("Input must be >= 2-d.")
    return _wrap(_flip_array(input, (1,)), input._dtype, input._storage.device, _preserve(input))


@register("copy")
def flipud(input):
    """Reverse dim 0 (the rows); needs at least 1 dim."""
    if input.dim() < 1:
        raise TensorRuntimeError("Input must be >= 1-d.")
    return _wrap(_flip_array(input, (0,)), input._dtype, input._storage.device, _preserve(input))


@register("copy")
def roll(input, shifts, dims=None):
    """Shift elements along ``dims`` cyclically; ``dims=None`` rolls the flattened tensor."""
    xp = _xp(input)
    shifts = _dims_arg(shifts, "roll", "shifts")
    if dims is None:
        if len(shifts) != 1:
            raise TensorRuntimeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        values = xp.roll(input._array().reshape(-1), shifts[0]).reshape(input._shape)
        return _wrap(values, input._dtype, input._storage.device)
    dims = _dims_arg(dims, "roll")
    if len(shifts) != len(dims):
        raise TensorRuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    wrapped = [wrap_dim(d, input.dim()) for d in dims]
    values = xp.roll(input._array(), shifts, axis=tuple(wrapped)) if input.dim() else \
        input._array().copy()
    if input.numel() == 0:
        stride = _preserve(input)
    elif suggests_channels_last(input._shape, input._stride):
        stride = channels_last_strides(input._shape)
    else:
        stride = None
    return _wrap(values, input._dtype, input._storage.device, stride)


@register("copy")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first towards the
    second); the result's layout is that of PyTorch's flip-then-transpose."""
    dims = _dims_arg(dims, "rot90")
    if len(dims) != 2:
        raise TensorRuntimeError(
            f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input.dim()
    if ndim < 2:
        raise TensorRuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise TensorRuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = k % 4
    device = input._storage.device
    if k == 0:
        result = _fresh(input)
    elif k == 2:
        result = _wrap(_flip_array(input, (d0, d1)), input._dtype, device, _preserve(input))
    else:
        flipped = _wrap(_flip_array(input, (d1 if k == 1 else d0,)), input._dtype, device,
                        _preserve(input))
        shape, stride = list(flipped._shape), list(flipped._stride)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
        flipped._set_metadata(shape, stride, 0)
        result = flipped
    return result


def _tri_mask(input, diagonal, lower, xp):
    rows, cols = input._shape[-2], input._shape[-1]
    r = xp.arange(rows).reshape(-1, 1)
    c = xp.arange(cols).reshape(1, -1)
    return (c - r <= diagonal) if lower else (c - r >= diagonal)


def _tri(op, input, diagonal, lower, name, inplace=False, out=None):
    if input.dim() < 2:
        raise TensorRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = _xp(input)
    mask = _tri_mask(input, int(diagonal), lower, xp)
    zero = xp.zeros((), dtype=input._dtype.numpy)
    values = xp.where(mask, input._array(), zero)
    if inplace:
        _check_writable(input)
        input._array()[...] = values
        return input
    result = _wrap(values, input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, name)
    return result


@register("copy")
def tril(input, diagonal=0, *, out=None):
    """The lower triangle of the last two dims (elements with ``col - row <= diagonal``)."""
    return _tri(tril.op, input, diagonal, True, "tril", out=out)


@register("copy")
def triu(input, diagonal=0, *, out=None):
    """The upper triangle of the last two dims (elements with ``col - row >= diagonal``)."""
    return _tri(triu.op, input, diagonal, False, "triu", out=out)


@register("inplace", function=False)
def tril_(self, diagonal=0):
    """In-place ``tril``."""
    return _tri(tril_.op, self, diagonal, True, "tril", inplace=True)


@register("inplace", function=False)
def triu_(self, diagonal=0):
    """In-place ``triu``."""
    return _tri(triu_.op, self, diagonal, False, "triu", inplace=True)
