"""Coordinate grids and index sets: ``meshgrid`` (expanded views, PyTorch's strides),
``cartesian_prod``, ``combinations``, ``triu_indices`` and ``tril_indices``.

Host-side NumPy only builds index arrays; the values are computed with the backend's array
module into fresh tensors.
"""

import itertools
import warnings

import numpy as np

from .. import _dtypes
from .._errors import TensorRuntimeError, not_implemented, stacklevel
from .._layout import view_strides
from .._registry import register
from .._tensor import Tensor
from . import views as _views
from ._selection_common import _wrap, _xp
from .views import _check_tensor, _index, _tensor_args, make_view


# ---------------------------------------------------------------------- meshgrid
_MESHGRID_WARNED = [False]


def _meshgrid_views(tensors, indexing, name):
    """The expanded views of ``meshgrid`` (no bookkeeping); validates like PyTorch."""
    if not tensors:
        raise TensorRuntimeError(f"{name} expects a non-empty TensorList")
    for a, b in itertools.pairwise(tensors):
        if a._dtype is not b._dtype:
            raise TensorRuntimeError("meshgrid expects all tensors to have the same dtype")
        if a._storage.device != b._storage.device:
            raise TensorRuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise TensorRuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise TensorRuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor "
                f"of shape {list(t._shape)}")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = tuple(t.numel() for t in order)
    n = len(order)
    grids = []
    for i, t in enumerate(order):
        # PyTorch: t.view(1, .., -1, .., 1).expand(sizes): strides from its view, then expand.
        flat = (1,) if t.dim() == 0 else tuple(t._shape)
        flat_stride = (1,) if t.dim() == 0 else tuple(t._stride)
        shape = tuple(sizes[i] if d == i else 1 for d in range(n))
        stride = view_strides(flat, flat_stride, shape)
        shaped = make_view(t, shape, stride, t._offset)
        eshape, estride = _views._expand_layout(shaped, sizes)
        grids.append(make_view(t, eshape, estride, t._offset))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@register("view", method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d/1-d tensors as expanded views (``indexing='ij'`` by default,
    with PyTorch's one-time warning when ``indexing`` is not given)."""
    tensors = _tensor_args(tensors, "meshgrid")
    if indexing is None:
        if not _MESHGRID_WARNED[0]:
            _MESHGRID_WARNED[0] = True
            warnings.warn(
                "torch.meshgrid: in an upcoming release, it will be required to pass the "
                "indexing argument.", UserWarning, stacklevel=stacklevel(2))
        indexing = "ij"
    return _meshgrid_views(tensors, indexing, "meshgrid")


def _tri_indices(op, name, row, col, offset, dtype, device, layout, pin_memory, requires_grad,
                 upper):
    from .._device import resolve_device
    from .creation import check_requires_grad, host_to_device

    row = _index(row, name, "row")
    col = _index(col, name, "col")
    offset = _index(offset, name, "offset")
    dtype = _dtypes.int64 if dtype is None else _dtypes.to_dtype(dtype)
    check_requires_grad(dtype, requires_grad)
    if dtype not in (_dtypes.int64, _dtypes.int32):
        raise not_implemented(name, dtype)
    if row < 0:
        raise TensorRuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise TensorRuntimeError(f"col must be non-negative, got{col}")
    # Host-side index construction (row-major order, as PyTorch's kernel).
    if upper:
        r, c = np.triu_indices(row, offset, col)
    else:
        r, c = np.tril_indices(row, offset, col)
    host = np.ascontiguousarray(np.stack([r, c]).astype(dtype.numpy).reshape(2, -1))
    # No ``device=``: the default device, as every factory. The indices are jtensor's own
    # host array (made here, never seen by the user), so on a device they are its values.
    device = resolve_device(device)
    out = Tensor._from_array(host_to_device(host, device, private=True), dtype, device)
    return out


@register("factory", method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False, requires_grad=False):
    """The (2, N) coordinates of the upper triangle (from the ``offset``-th diagonal) of a
    ``row`` x ``col`` matrix, rows first; int64 unless ``dtype=torch.int32``."""
    return _tri_indices(triu_indices.op, "triu_indices", row, col, offset, dtype, device,
                        layout, pin_memory, requires_grad, True)


@register("factory", method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False, requires_grad=False):
    """The (2, N) coordinates of the lower triangle (up to the ``offset``-th diagonal)."""
    return _tri_indices(tril_indices.op, "tril_indices", row, col, offset, dtype, device,
                        layout, pin_memory, requires_grad, False)


def _check_1d(t):
    if t.dim() != 1:
        raise TensorRuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")


@register("copy", method=False)
def cartesian_prod(*tensors):
    """All tuples of one element from each 1-D tensor, as rows of a (N, k) tensor (one tensor:
    returned as is)."""
    # Unlike meshgrid, a single list is not unpacked (PyTorch raises TypeError).
    tensors = _tensor_args((tensors,), "cartesian_prod")
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid_views(tensors, "ij", "meshgrid")
    xp = _xp(tensors[0])
    result = xp.stack([g._array().reshape(-1) for g in grids], axis=1)
    return _wrap(result, tensors[0]._dtype, tensors[0]._storage.device)


@register("copy", method=False)
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements as rows (lexicographic order,
    like ``itertools.combinations``)."""
    _check_tensor(input, "combinations")
    _check_1d(input)
    r = _index(r, "combinations", "r")
    if r < 0:
        raise TensorRuntimeError(f"Expect a non-negative number, but got {r}")
    xp = _xp(input)
    a = input._array()
    if r == 0:
        return _wrap(a[:0], input._dtype, input._storage.device)
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(make(range(a.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    result = a[xp.asarray(idx)] if idx.size else xp.zeros((0, r), dtype=a.dtype)
    return _wrap(result, input._dtype, input._storage.device)
