"""Shape helpers and small constructors: ``meshgrid``, ``diag``, ``diag_embed``, ``block_diag``,
``ravel``, ``atleast_1d/2d/3d``, ``narrow_copy``, ``adjoint``, ``resolve_conj``,
``resolve_neg``, ``is_nonzero``, ``is_same_size``, ``Tensor.sum_to_size``, ``triu_indices``,
``tril_indices``, ``cartesian_prod``, ``combinations``, ``vander`` and ``unique_consecutive``.

Views (``meshgrid``, ``ravel`` when possible, ``atleast_*``, ``adjoint``) go through
``make_view`` with PyTorch's strides; everything else computes with the backend's array module
into a fresh tensor. Host-side NumPy only builds index arrays.
"""

import builtins
import itertools
import warnings

import numpy as np

from .. import _dtypes
from .._device import to_device
from .._dispatch import check_same_device, finish
from .._errors import (
    TensorIndexError,
    TensorRuntimeError,
    TensorTypeError,
    not_implemented,
    wrap_dim,
    stacklevel,
)
from .._layout import contiguous_strides, view_strides
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from . import views as _views
from ._selection_common import _wrap, _write_out, _xp
from .views import make_view, sizes_from_args


def _check_tensor(x, name, arg="input", position=1):
    if not isinstance(x, Tensor):
        raise TensorTypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type(x).__name__}")


def _tensor_args(tensors, name):
    """``f(a, b)`` or ``f([a, b])`` -> a list of tensors (TypeError for anything else)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"{name}(): expected Tensor as element {i} in argument 0, but got "
                f"{type(t).__name__}")
    return tensors


def _index(value, name, arg):
    if isinstance(value, bool):
        raise TensorTypeError(f"{name}(): argument '{arg}' must be int, not bool")
    try:
        return value.__index__()
    except AttributeError:
        raise TensorTypeError(
            f"{name}(): argument '{arg}' must be int, not {type(value).__name__}") from None


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
    return finish(meshgrid.op, tuple(tensors), _meshgrid_views(tensors, indexing, "meshgrid"))


# ---------------------------------------------------------------------- diagonals
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
        return finish(diag.op, (input,), _write_out(out, result, "diag"), modified=out)
    return finish(diag.op, (input,), result)


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
    return finish(diag_embed.op, (input,), _wrap(result, input._dtype, input._storage.device))


@register("copy", method=False)
def block_diag(*tensors):
    """A block-diagonal matrix of 0-d/1-d/2-d tensors (1-d as one row); dtypes promote."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"block_diag(): argument 'tensors' (position {i + 1}) must be Tensor, not "
                f"{type(t).__name__}")
    if not tensors:
        out = new_empty_tensor((1, 0), _dtypes.get_default_dtype(), to_device(None))
        return finish(block_diag.op, (), out)
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
    return finish(block_diag.op, tuple(tensors), _wrap(result, dtype, device))


# ---------------------------------------------------------------------- views and aliases
@register("view")
def ravel(input):
    """``input`` flattened: ``input.contiguous().view(-1)`` as in PyTorch, so a view only of
    a contiguous input (a strided input that ``reshape`` could view is copied)."""
    _check_tensor(input, "ravel")
    n = input.numel()
    if input.is_contiguous():
        return finish(ravel.op, (input,), make_view(input, (n,), (1,), input._offset))
    from .copies import contiguous_copy

    copied = contiguous_copy(input)
    copied._set_metadata((n,), (1,), 0)
    return finish(ravel.op, (input,), copied, info={"copied": True})


def _unsqueeze_layout(shape, stride, d):
    # PyTorch's inferUnsqueezeGeometry: the new dim's stride is size*stride of the dim it
    # precedes (1 when appended last).
    new_stride = shape[d] * stride[d] if d < len(shape) else 1
    return shape[:d] + (1,) + shape[d:], stride[:d] + (new_stride,) + stride[d:]


def _atleast_one(t, n):
    if t.dim() >= n:
        return t
    if t.dim() == 0:
        return make_view(t, (1,) * n, (1,) * n, t._offset)
    shape, stride = tuple(t._shape), tuple(t._stride)
    if n == 2 or t.dim() == 1:
        shape, stride = _unsqueeze_layout(shape, stride, 0)
    if n == 3:
        shape, stride = _unsqueeze_layout(shape, stride, len(shape))
    return make_view(t, shape, stride, t._offset)


def _atleast(op, name, n, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t = tensors[0]
        return finish(op, (t,), _atleast_one(t, n))
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(tensors[0]).__name__}), but expected one of: (Tensor input) or (tuple of "
            "Tensors tensors)")
    tensors = _tensor_args(tensors, name)
    return finish(op, tuple(tensors), tuple(_atleast_one(t, n) for t in tensors))


@register("view", method=False)
def atleast_1d(*tensors):
    """``input`` viewed with at least 1 dim (0-d -> shape (1,)); a tensor already 1-d or more
    comes back as is. Several tensors (or one list) give a tuple."""
    return _atleast(atleast_1d.op, "atleast_1d", 1, tensors)


@register("view", method=False)
def atleast_2d(*tensors):
    """``input`` viewed with at least 2 dims (1-d ``(n,)`` -> ``(1, n)``)."""
    return _atleast(atleast_2d.op, "atleast_2d", 2, tensors)


@register("view", method=False)
def atleast_3d(*tensors):
    """``input`` viewed with at least 3 dims (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` ->
    ``(m, n, 1)``)."""
    return _atleast(atleast_3d.op, "atleast_3d", 3, tensors)


@register("view")
def adjoint(input):
    """The conjugate transpose of the last two dims (a view for real tensors).

    jtensor has no lazy conjugate bit, so complex inputs get a conjugated copy."""
    _check_tensor(input, "adjoint")
    if input.dim() == 1:
        raise TensorRuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D "
            "tensor.")
    if input.dim() == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=stacklevel(2))
        return finish(adjoint.op, (input,), input)
    shape, stride = list(input._shape), list(input._stride)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    stride[-1], stride[-2] = stride[-2], stride[-1]
    out = make_view(input, shape, stride, input._offset)
    if input._dtype.category == _dtypes.COMPLEX:
        xp = _xp(input)
        out = _wrap(xp.conj(out._array()), input._dtype, input._storage.device)
    return finish(adjoint.op, (input,), out)


@register("view")
def resolve_conj(input):
    """``input`` itself: jtensor materialises conjugation eagerly (no conjugate bit)."""
    _check_tensor(input, "resolve_conj")
    return finish(resolve_conj.op, (input,), input)


@register("view")
def resolve_neg(input):
    """``input`` itself: jtensor has no lazy negative bit to resolve."""
    _check_tensor(input, "resolve_neg")
    return finish(resolve_neg.op, (input,), input)


# ---------------------------------------------------------------------- copies
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
        return finish(narrow_copy.op, (input,), _write_out(out, result, "narrow_copy"),
                      modified=out)
    return finish(narrow_copy.op, (input,), result)


# ---------------------------------------------------------------------- predicates
@register("query")
def is_nonzero(input):
    """``True`` when the single element of ``input`` is not zero (a Python bool); tensors
    with no or several elements raise."""
    _check_tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise TensorRuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise TensorRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    value = input._array().reshape(-1)[0]
    return finish(is_nonzero.op, (input,), bool(value != 0))


@register("query")
def is_same_size(input, other):
    """Whether ``input`` and ``other`` have the same shape."""
    _check_tensor(input, "is_same_size", "input", 1)
    _check_tensor(other, "is_same_size", "other", 1)
    return finish(is_same_size.op, (input, other), tuple(input._shape) == tuple(other._shape))


@register("reduction", function=False)
def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (a shape ``input`` could be expanded from); returns
    ``input`` itself when the shape already matches."""
    if not size:
        raise TensorTypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = sizes_from_args(size, "size")
    shape = tuple(input._shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == shape[lead + i] or s == 1 for i, s in enumerate(size))
    if not ok:
        raise TensorRuntimeError(
            f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return finish(sum_to_size.op, (input,), input)
    from .reductions import _sum_result_dtype, _work_array, quiet, wrap_result

    dtype = _sum_result_dtype(input, None, None)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    xp = _xp(input)
    with quiet():
        r = xp.sum(_work_array(input, dtype), axis=axes, keepdims=True)
    r = r.reshape(size)
    return finish(sum_to_size.op, (input,), wrap_result(xp, r, dtype, input._storage.device))


# ---------------------------------------------------------------------- index constructors
def _tri_indices(op, name, row, col, offset, dtype, device, layout, pin_memory, requires_grad,
                 upper):
    from .creation import check_requires_grad, host_to_device, resolve_device

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
    return finish(op, (), out)


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
        return finish(cartesian_prod.op, (tensors[0],), tensors[0])
    grids = _meshgrid_views(tensors, "ij", "meshgrid")
    xp = _xp(tensors[0])
    result = xp.stack([g._array().reshape(-1) for g in grids], axis=1)
    return finish(cartesian_prod.op, tuple(tensors),
                  _wrap(result, tensors[0]._dtype, tensors[0]._storage.device))


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
        return finish(combinations.op, (input,),
                      _wrap(a[:0], input._dtype, input._storage.device))
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(make(range(a.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    result = a[xp.asarray(idx)] if idx.size else xp.zeros((0, r), dtype=a.dtype)
    return finish(combinations.op, (input,), _wrap(result, input._dtype, input._storage.device))


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
    return finish(vander.op, (x,), _wrap(xp.ascontiguousarray(result), dtype,
                                        x._storage.device))


# ---------------------------------------------------------------------- unique_consecutive
@register("copy")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``) to one; optionally
    with the inverse mapping and the run lengths. Returns a tensor, or a tuple when either
    flag is set."""
    _check_tensor(input, "unique_consecutive")
    if input._dtype.category == _dtypes.COMPLEX:
        raise not_implemented("unique", input._dtype)
    xp = _xp(input)
    device = input._storage.device
    a = input._array()
    if input._dtype is _dtypes.bfloat16:
        a = a.astype(np.float32)
    i64 = np.int64
    if dim is None:
        flat = a.reshape(-1)
        if flat.shape[0] == 0:
            starts = xp.zeros((0,), dtype=bool)
        else:
            starts = xp.concatenate([xp.ones((1,), dtype=bool), flat[1:] != flat[:-1]])
        values = _wrap(flat[starts], input._dtype, device)
        inverse_shape = tuple(input._shape)
    else:
        if input.dim() == 0:
            raise TensorIndexError(
                f"Dimension specified as {dim} but tensor has no dimensions")
        dim = wrap_dim(dim, input.dim())
        shape = tuple(input._shape)
        if input.numel() == 0:
            if shape[dim] != 0:
                raise TensorRuntimeError(
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot "
                    "be applied")
            if shape.count(0) != 1:
                raise TensorRuntimeError(
                    "Number of zero sized dimensions is more than one, so unique cannot be "
                    "applied")
        moved = xp.moveaxis(a, dim, 0)
        rows = moved.reshape(shape[dim], int(np.prod(moved.shape[1:], dtype=np.int64)))
        if rows.shape[0] == 0:
            starts = xp.zeros((0,), dtype=bool)
        else:
            diff = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else \
                xp.zeros((rows.shape[0] - 1,), dtype=bool)
            starts = xp.concatenate([xp.ones((1,), dtype=bool), diff])
        kept = moved[starts]
        # PyTorch stacks the kept slices along dim 0 and moves that axis back to ``dim``.
        moved_stride = list(contiguous_strides(kept.shape))
        st0 = moved_stride.pop(0)
        moved_stride.insert(dim, st0)
        out_shape = list(kept.shape[1:])
        out_shape.insert(dim, kept.shape[0])
        values = new_empty_tensor(tuple(out_shape), input._dtype, device,
                                  stride=tuple(moved_stride))
        values._array()[...] = xp.moveaxis(kept, 0, dim)
        inverse_shape = (shape[dim],)
    results = [values]
    if return_inverse:
        inverse = (xp.cumsum(starts.astype(i64)) - 1).reshape(inverse_shape) if starts.shape[0] \
            else xp.zeros(inverse_shape, dtype=i64)
        results.append(_wrap(inverse, _dtypes.int64, device))
    if return_counts:
        positions = xp.nonzero(starts)[0]
        last = xp.asarray([starts.shape[0]], dtype=positions.dtype)
        ends = xp.concatenate([positions[1:], last]) if positions.shape[0] else positions
        results.append(_wrap((ends - positions).astype(i64), _dtypes.int64, device))
    if len(results) == 1:
        return finish(unique_consecutive.op, (input,), values)
    return finish(unique_consecutive.op, (input,), tuple(results))
