"""Structured matrices: ``diag`` (a vector on a diagonal, or a matrix's diagonal),
``diag_embed``, ``block_diag`` and ``vander`` (the Vandermonde matrix).

Each computes with the backend's array module into a fresh contiguous tensor; host-side NumPy
only builds index arrays.
"""

import builtins

import numpy as np

from .. import _dtypes
from .._device import to_device
from .._dispatch import check_same_device
from .._errors import TensorRuntimeError, TensorTypeError, wrap_dim, type_name
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from ._selection_common import _wrap, _write_out, _xp
from .views import _check_tensor, _index


@register("copy")
def diag(input, diagonal=0, *, out=None):
    """1-D input: a square matrix with ``input`` on the ``diagonal``-th diagonal.
    2-D input: a copy of its ``diagonal``-th diagonal (1-D)."""
    _check_tensor(input, "diag")
    k = _index(diagonal, "diag", "diagonal")
    if input.dim() not in (1, 2):
        raise TensorRuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    xp = _xp(input)
    a = input._array()
    if input.dim() == 1:
        n = a.shape[0]
        size = n + builtins.abs(k)
        result = xp.zeros((size, size), dtype=a.dtype)
        idx = np.arange(n)
        result[idx + builtins.max(-k, 0), idx + builtins.max(k, 0)] = a
    else:
        result = xp.diagonal(a, k).copy()
    result = _wrap(result, input._dtype, input._storage.device)
    if out is not None:
        return _write_out(out, result, "diag")
    return result


@register("copy")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (``dim1``, ``dim2``) diagonals (``offset``) hold ``input``'s last dim;
    everything else is 0."""
    _check_tensor(input, "diag_embed")
    offset = _index(offset, "diag_embed", "offset")
    ndim = input.dim() + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise TensorRuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = _xp(input)
    a = input._array()
    n = a.shape[-1]
    length = n + builtins.abs(offset)
    batch = a.shape[:-1]
    nb = len(batch)
    work = xp.zeros(batch + (length, length), dtype=a.dtype)
    idx = np.arange(n)
    work[..., idx + builtins.max(-offset, 0), idx + builtins.max(offset, 0)] = a
    perm, b = [], 0
    for p in range(ndim):
        if p == d1:
            perm.append(nb)
        elif p == d2:
            perm.append(nb + 1)
        else:
            perm.append(b)
            b += 1
    result = xp.ascontiguousarray(work.transpose(perm))
    return _wrap(result, input._dtype, input._storage.device)


@register("copy", method=False)
def block_diag(*tensors):
    """A block-diagonal matrix of 0-d/1-d/2-d tensors (1-d as one row); dtypes promote."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"block_diag(): argument 'tensors' (position {i + 1}) must be Tensor, not "
                f"{type_name(t)}")
    if not tensors:
        out = new_empty_tensor((1, 0), _dtypes.get_default_dtype(), to_device(None))
        return out
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise TensorRuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
                f"has {t.dim()} dimensions")
    device = check_same_device(list(tensors))
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t._dtype)
    blocks = []
    for t in tensors:
        a = t._array()
        if t.dim() == 0:
            a = a.reshape(1, 1)
        elif t.dim() == 1:
            a = a.reshape(1, -1)
        blocks.append(a)
    rows = builtins.sum(b.shape[0] for b in blocks)
    cols = builtins.sum(b.shape[1] for b in blocks)
    xp = _xp(tensors[0])
    result = xp.zeros((rows, cols), dtype=dtype.numpy)
    r = c = 0
    for b in blocks:
        result[r:r + b.shape[0], c:c + b.shape[1]] = b
        r += b.shape[0]
        c += b.shape[1]
    return _wrap(result, dtype, device)


@register("copy", method=False)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x**(N-1) .. x**0`` (or increasing);
    integer and bool inputs give int64."""
    _check_tensor(x, "vander", "x")
    if x.dim() != 1:
        raise TensorRuntimeError("x must be a one-dimensional tensor.")
    n = x._shape[0] if N is None else _index(N, "vander", "N")
    if n < 0:
        raise TensorRuntimeError("N must be non-negative.")
    dtype = _dtypes.promote_types(x._dtype, _dtypes.int64)
    xp = _xp(x)
    # PyTorch builds it with cumprod (accumulating half types in float32, wrapping ints).
    work = _dtypes.float32 if dtype in (_dtypes.float16, _dtypes.bfloat16) else dtype
    a = x._array().astype(work.numpy)
    m = a.shape[0]
    if n == 0:
        result = xp.zeros((m, 0), dtype=work.numpy)
    else:
        cols = xp.empty((m, n), dtype=work.numpy)
        cols[:, 0] = 1
        cols[:, 1:] = a[:, None]
        result = xp.cumprod(cols, axis=1)
        if not increasing:
            result = result[:, ::-1]
    return _wrap(xp.ascontiguousarray(result), dtype, x._storage.device)
