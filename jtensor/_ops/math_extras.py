"""Assorted math ops: softmax, log_softmax, bincount, histc, searchsorted, bucketize, diff,
cross, cdist, inner, isin and chain_matmul.

Signatures, result dtypes, layouts and errors follow PyTorch 2.13. float16/bfloat16 are
computed in float32 and rounded back, as PyTorch's CPU kernels do; softmax subtracts the
row maximum first so huge logits do not overflow. Results are fresh tensors, contiguous
unless PyTorch gives them another layout (``diff`` follows its input's dim order).
"""

import math
import numbers
import warnings

from .. import _dtypes
from .._dispatch import check_same_device, finish
from .._elementwise import _write_into, result_dtype
from .._errors import (TensorNotImplementedError, TensorRuntimeError, TensorTypeError,
                       stacklevel, wrap_dim)
from .._layout import (broadcast_shapes, contiguous_strides, dense_strides_like,
                       elementwise_output_strides)
from .._out import resize_output
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from .products import _work
from .reductions import check_out, check_tensor, quiet, wrap_result, write_out

_LOW = (_dtypes.float16, _dtypes.bfloat16)


def _xp(t):
    return t._storage._backend.xp


def _not_for(kernel, dtype):
    return TensorNotImplementedError(
        f"\"{kernel}\" not implemented for '{dtype._torch_name}'; cast the input to a "
        f"supported dtype first (for example with .float()).")


def _emit(op, inputs, xp, array, dtype, device, out=None):
    if out is not None:
        write_out(out, array)
        return finish(op, inputs, out, modified=out)
    return finish(op, inputs, wrap_result(xp, array, dtype, device))


def _with_strides(xp, array, dtype, device, stride):
    """A fresh tensor holding ``array`` laid out with ``stride`` (PyTorch's layout)."""
    result = new_empty_tensor(array.shape, dtype, device, stride)
    if array.size:
        _write_into(result, array)
    return result


_WARNED = set()


def _warn_once(key, message):
    """A UserWarning the first time per process, as PyTorch's TORCH_WARN_ONCE does."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel(3))


def _c_type(dtype):
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int",
            "int16": "short", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(dtype.name, dtype.name)


# ---------------------------------------------------------------------- softmax
def _softmax(op, name, log, input, dim, dtype, out=None):
    check_tensor(input, name)
    if dim is None:
        raise TensorTypeError(f"{name}(): argument 'dim' must be int, not NoneType")
    ndim = input.dim()
    d = wrap_dim(dim, ndim)
    target = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    # ``out=`` must have the result's dtype exactly (it is resized, with PyTorch's warning
    # when it held elements of another shape).
    check_out(out, name, target)
    if target.category != _dtypes.FLOATING:
        last = "_lastdim" if ndim == 0 or d == ndim - 1 else ""
        raise _not_for(f"{name}{last}_kernel_impl", target)
    xp = _xp(input)
    a = _work(input, target)
    if a.size == 0:
        r = a
    else:
        axis = d if ndim else None
        with quiet():
            shifted = a - xp.max(a, axis=axis, keepdims=True)  # stability: exp(<= 0)
            if log:
                r = shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
            else:
                e = xp.exp(shifted)
                r = e / xp.sum(e, axis=axis, keepdims=True)
    if out is not None:
        write_out(out, r)
        return finish(op, (input,), out, modified=out)
    return finish(op, (input,), wrap_result(xp, r, target, input.device))


@register("copy")
def softmax(input, dim, dtype=None, *, out=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (required), optionally computed in ``dtype``."""
    return _softmax(softmax.op, "softmax", False, input, dim, dtype, out)


@register("copy")
def log_softmax(input, dim, dtype=None, *, out=None):
    """``x - logsumexp(x)`` along ``dim`` (required), optionally computed in ``dtype``."""
    return _softmax(log_softmax.op, "log_softmax", True, input, dim, dtype, out)


# ---------------------------------------------------------------------- bincount, histc
@register("copy")
def bincount(input, weights=None, minlength=0):
    """Count (or sum ``weights`` of) each non-negative integer value of the 1-D ``input``."""
    check_tensor(input, "bincount")
    if input._dtype.category != _dtypes.INTEGRAL:
        raise _not_for("bincount_cpu", input._dtype)
    if minlength < 0:
        raise TensorRuntimeError(f"minlength should be >= 0, but got {minlength}")
    xp = _xp(input)
    a = input._array()
    if input.dim() != 1 or (a.size and int(a.min()) < 0):
        raise TensorRuntimeError(
            f"bincount only supports 1-d non-negative integral inputs; got a "
            f"{input.dim()}-d tensor of shape {list(input._shape)}")
    if weights is not None:
        check_tensor(weights, "bincount", "weights", 2)
        check_same_device([input, weights])
        if weights.dim() != 1 or weights._shape[0] != input._shape[0]:
            raise TensorRuntimeError(
                f"weights should be 1-d and have the same length as input; got weights of "
                f"shape {list(weights._shape)} for input of shape {list(input._shape)}")
    a = a.astype("int64")
    if weights is None:
        r = xp.bincount(a, minlength=minlength)
        dtype = _dtypes.int64
    else:
        w = weights._array().astype("float64")
        r = xp.bincount(a, weights=w, minlength=minlength)
        dtype = _dtypes.float32 if weights._dtype is _dtypes.float32 else _dtypes.float64
    inputs = (input,) if weights is None else (input, weights)
    return finish(bincount.op, inputs, wrap_result(xp, r, dtype, input.device))


@register("copy")
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram of ``input`` with ``bins`` equal-width bins over ``[min, max]`` (the data's
    range when both are 0); values outside the range are ignored."""
    check_tensor(input, "histc")
    if input._dtype.category != _dtypes.FLOATING:
        raise _not_for("histogram_cpu", input._dtype)
    if bins <= 0:
        raise TensorRuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                                 f"dimension 0")
    if min > max:
        raise TensorRuntimeError(f"torch.histc: max must be larger than min, got min={min} "
                                 f"and max={max}")
    check_out(out, "histc", input._dtype)
    xp = _xp(input)
    a = _work(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise TensorRuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    # The edges live in the input's dtype, as PyTorch's linear-interpolation kernel has them.
    left = xp.asarray(lo, dtype=a.dtype)
    right = xp.asarray(hi, dtype=a.dtype)
    with quiet():
        kept = a[(a >= left) & (a <= right)]
        pos = ((kept - left) * a.dtype.type(bins) / (right - left)).astype("int64")
    pos = xp.minimum(pos, bins - 1)  # the rightmost edge is inclusive
    r = xp.bincount(pos, minlength=bins)[:bins]
    return _emit(histc.op, (input,), xp, r, input._dtype, input.device, out)


# ---------------------------------------------------------------------- searchsorted
def _search(name, boundaries, values, right, side, sorter, out_int32):
    """Insertion indices of ``values`` into the sorted last dim of ``boundaries``."""
    if side is not None:
        if side not in ("left", "right"):
            raise TensorRuntimeError(
                f"{name}(): side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise TensorRuntimeError(
                f"{name}(): side and right can't be set to opposites, got side of left "
                f"while right was True")
        right = side == "right"
    if boundaries.dim() == 0:
        raise TensorRuntimeError(
            f"{name}(): boundaries tensor should have positive dimension, but got 0 dimension")
    scalar = not isinstance(values, Tensor)
    if scalar:
        if boundaries.dim() != 1:
            raise TensorRuntimeError(
                f"{name}(): input value can be a scalar only when boundaries tensor dimension "
                f"is 1, but we got boundaries tensor dim({boundaries.dim()})")
    elif boundaries.dim() != 1 and (
            boundaries.dim() != values.dim() or
            tuple(boundaries._shape[:-1]) != tuple(values._shape[:-1])):
        raise TensorRuntimeError(
            f"{name}(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
            f"of boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {list(boundaries._shape)} and input value tensor {list(values._shape)}")
    xp = _xp(boundaries)
    b = boundaries._array()
    if sorter is not None:
        check_tensor(sorter, name, "sorter")
        if sorter._dtype is not _dtypes.int64:
            raise TensorRuntimeError(
                f"{name}(): sorter must be a tensor of long dtype but got dtype "
                f"{sorter._dtype._torch_name}")
        if tuple(sorter._shape) != tuple(boundaries._shape):
            raise TensorRuntimeError(
                f"{name}(): boundary and sorter must have the same size, but got boundary "
                f"tensor {list(boundaries._shape)}and got sorter tensor {list(sorter._shape)}")
        s = sorter._array()
        if s.size and (int(s.min()) < 0 or int(s.max()) >= boundaries._shape[-1]):
            raise TensorRuntimeError(f"{name}(): sorter index out of range")
        b = xp.take_along_axis(b, s, axis=-1)
    if scalar:
        dtype = result_dtype([boundaries, values])
        v = xp.asarray(values)
    else:
        dtype = result_dtype([boundaries, values])
        v = values._array()
    work = _dtypes.float32 if dtype in _LOW else dtype
    b = b.astype(work.numpy)
    v = v.astype(work.numpy)
    how = "right" if right else "left"
    if b.ndim == 1:
        r = xp.searchsorted(b, v.reshape(-1), side=how).reshape(v.shape)
    else:
        rows_b = b.reshape(-1, b.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        r = xp.empty(rows_v.shape, dtype="int64")
        for i in range(rows_b.shape[0]):
            r[i] = xp.searchsorted(rows_b[i], rows_v[i], side=how)
        r = r.reshape(v.shape)
    return xp, r, _dtypes.int32 if out_int32 else _dtypes.int64


@register("copy", method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where ``input``'s values would be inserted into the sorted last dim of
    ``sorted_sequence`` (leftmost by default; ``right=True`` or ``side='right'``)."""
    check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    xp, r, dtype = _search("torch.searchsorted", sorted_sequence, input, right, side, sorter,
                           out_int32)
    check_out(out, "searchsorted", dtype)
    inputs = (sorted_sequence,) + ((input,) if isinstance(input, Tensor) else ())
    return _emit(searchsorted.op, inputs, xp, r, dtype, sorted_sequence.device, out)


@register("copy", method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` given the 1-D sorted ``boundaries``."""
    check_tensor(boundaries, "bucketize", "boundaries", 2)
    if boundaries.dim() != 1:
        raise TensorRuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    xp, r, dtype = _search("torch.searchsorted", boundaries, input, right, None, None,
                           out_int32)
    check_out(out, "bucketize", dtype)
    inputs = ((input,) if isinstance(input, Tensor) else ()) + (boundaries,)
    return _emit(bucketize.op, inputs, xp, r, dtype, boundaries.device, out)


# ---------------------------------------------------------------------- diff
@register("copy")
def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim``, after joining ``prepend`` and
    ``append`` to ``input`` along it (bool inputs use logical xor).

    ``out=`` follows the last step's rules, as PyTorch's: a subtraction's (any dtype the
    result casts to; resized to the result's layout), a copy's for ``n=0`` (same dtype).
    """
    check_tensor(input, "diff")
    check_out(out, "diff")
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise TensorRuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, ndim)
    parts = [input]
    for extra in (prepend, append):
        if extra is None:
            continue
        check_tensor(extra, "diff", "prepend" if extra is prepend else "append")
        if extra.dim() != ndim:
            raise TensorRuntimeError(
                f"diff expects prepend or append to be the same dimension as input; input is "
                f"{ndim}-d, got a {extra.dim()}-d tensor")
        for i in range(ndim):
            if i != d and extra._shape[i] != input._shape[i]:
                raise TensorRuntimeError(
                    f"diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({i}) = "
                    f"{input._shape[i]}, but got tensor.size({i}) = {extra._shape[i]}")
    xp = _xp(input)
    device = check_same_device([p for p in (prepend, input, append) if p is not None])
    if n == 0:
        # PyTorch checks prepend/append, then returns a copy of the input alone (its layout
        # kept), ignoring them.
        if out is not None:
            if out._dtype is not input._dtype:
                raise TensorRuntimeError(
                    f"expected scalar_type {input._dtype._torch_name} but found "
                    f"{out._dtype._torch_name}")
            write_out(out, input._array())
            return finish(diff.op, (input,), out, modified=out)
        result = _with_strides(xp, input._array().copy(), input._dtype, device,
                               dense_strides_like(tuple(input._shape), tuple(input._stride)))
        return finish(diff.op, (input,), result)
    if prepend is None and append is None:
        dtype = input._dtype
        a = input._array()
        stride = tuple(input._stride)
    else:
        parts = [p for p in (prepend, input, append) if p is not None]
        dtype = result_dtype(parts)
        a = xp.concatenate([p._array().astype(dtype.numpy) for p in parts], axis=d)
        stride = None  # the joined tensor is contiguous
    shape = tuple(a.shape)
    if stride is None:
        stride = contiguous_strides(shape)
    n = min(n, shape[d])
    work = _work_array(a, dtype)
    for _ in range(n):
        length = work.shape[d] - 1
        hi = work[(slice(None),) * d + (slice(1, 1 + length),)]
        lo = work[(slice(None),) * d + (slice(0, length),)]
        with quiet():
            work = xp.logical_xor(hi, lo) if dtype is _dtypes.bool_ else hi - lo
        new_shape = tuple(work.shape)
        stride = elementwise_output_strides(new_shape, [(new_shape, stride), (new_shape, stride)])
    inputs = tuple(p for p in (input, prepend, append) if p is not None)
    if out is not None:
        # logical_xor writes any dtype; a subtraction only one its result casts to
        if dtype is not _dtypes.bool_ and out._dtype is not dtype and \
                not _dtypes.can_cast(dtype, out._dtype):
            raise _dtypes.cast_error(dtype, out._dtype)
        if tuple(out._shape) != tuple(work.shape):
            resize_output(out, work.shape, stride)
        write_out(out, work)
        return finish(diff.op, inputs, out, modified=out)
    result = _with_strides(xp, work.astype(dtype.numpy), dtype, device, stride)
    return finish(diff.op, inputs, result)


def _work_array(a, dtype):
    work = _dtypes.float32 if dtype in _LOW else dtype
    return a if a.dtype == work.numpy else a.astype(work.numpy)


# ---------------------------------------------------------------------- cross
@register("copy")
def cross(input, other, dim=None, *, out=None):
    """The 3-D cross product along ``dim`` (default: the first dim of size 3, deprecated)."""
    check_tensor(input, "cross")
    check_tensor(other, "cross", "other", 2)
    device = check_same_device([input, other])
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(f"expected scalar type {_dtypes_name(input._dtype)} but "
                                 f"found {_dtypes_name(other._dtype)}")
    if input.dim() != other.dim():
        raise TensorRuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions; got "
            f"{input.dim()} and {other.dim()}")
    shape = tuple(broadcast_shapes(tuple(input._shape), tuple(other._shape)))
    if dim is None:
        _warn_once("cross",
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.")
        found = [i for i, s in enumerate(shape) if s == 3]
        if not found:
            raise TensorRuntimeError(
                f"no dimension of size 3 in input (shape {list(shape)}); pass dim= explicitly")
        d = found[0]
    else:
        d = wrap_dim(dim, len(shape))
        if input._shape[d] != 3 or other._shape[d] != 3:
            raise TensorRuntimeError(
                f"linalg.cross: inputs dimension {d} must have length 3. Got "
                f"{input._shape[d]} and {other._shape[d]}")
    if input._dtype is _dtypes.bool_:
        raise _not_for("cross", input._dtype)
    check_out(out, "cross", input._dtype)
    xp = _xp(input)
    a = xp.broadcast_to(_work(input), shape)
    b = xp.broadcast_to(_work(other), shape)
    with quiet():
        r = xp.cross(a, b, axis=d)
    return _emit(cross.op, (input, other), xp, r, input._dtype, device, out)


def _dtypes_name(dtype):
    return dtype._torch_name


# ---------------------------------------------------------------------- cdist, inner
@register("copy", method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2`` (batched)."""
    check_tensor(x1, "cdist", "x1")
    check_tensor(x2, "cdist", "x2", 2)
    device = check_same_device([x1, x2])
    for label, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise TensorRuntimeError(
                f"cdist only supports at least 2D tensors, {label} got: {x.dim()}D")
    for label, x in (("X1", x1), ("X2", x2)):
        if x._dtype.category != _dtypes.FLOATING:
            raise TensorRuntimeError(
                f"cdist only supports floating-point dtypes, {label} got: "
                f"{x._dtype._torch_name}")
    if x1._shape[-1] != x2._shape[-1]:
        raise TensorRuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
            f"{x2._shape[-1]}")
    if x1._dtype is not x2._dtype:
        raise TensorRuntimeError(f"expected scalar type {x1._dtype._torch_name} but found "
                                 f"{x2._dtype._torch_name}")
    if not p >= 0:
        raise TensorRuntimeError(f"cdist only supports non-negative p values, got p={p}")
    batch = tuple(broadcast_shapes(tuple(x1._shape[:-2]), tuple(x2._shape[:-2])))
    if x1._dtype in _LOW:
        raise _not_for("cdist", x1._dtype)
    xp = _xp(x1)
    a = xp.broadcast_to(x1._array(), batch + tuple(x1._shape[-2:]))
    b = xp.broadcast_to(x2._array(), batch + tuple(x2._shape[-2:]))
    with quiet():
        diffs = xp.abs(a[..., :, None, :] - b[..., None, :, :])
        if p == 0:
            r = xp.sum(diffs != 0, axis=-1)
        elif p == math.inf:
            r = xp.max(diffs, axis=-1, initial=0) if diffs.shape[-1] else \
                xp.zeros(diffs.shape[:-1], dtype=diffs.dtype)
        elif p == 1:
            r = xp.sum(diffs, axis=-1)
        elif p == 2:
            r = xp.sqrt(xp.sum(diffs * diffs, axis=-1))
        else:
            r = xp.sum(diffs ** p, axis=-1) ** (1.0 / p)
    return finish(cdist.op, (x1, x2), wrap_result(xp, r, x1._dtype, device))


@register("copy")
def inner(input, other, *, out=None):
    """Sum of products over the last dims of ``input`` and ``other`` (a product if either
    is 0-d)."""
    check_tensor(input, "inner")
    check_tensor(other, "inner", "other", 2)
    device = check_same_device([input, other])
    xp = _xp(input)
    if input.dim() == 0 or other.dim() == 0:
        dtype = result_dtype([input, other])
        check_out(out, "inner")
        with quiet():
            r = xp.multiply(_work(input, dtype), _work(other, dtype))
        return _emit(inner.op, (input, other), xp, r, dtype, device, out)
    if input._shape[-1] != other._shape[-1]:
        raise TensorRuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input._shape)} and {list(other._shape)}")
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(
            f"both inputs should have same dtype; got {input._dtype._torch_name} and "
            f"{other._dtype._torch_name}")
    if input._dtype is _dtypes.bool_:
        raise _not_for("addmm_impl_cpu_" if input.dim() > 1 or other.dim() > 1 else "dot",
                       input._dtype)
    check_out(out, "inner")
    with quiet():
        r = xp.tensordot(_work(input), _work(other), axes=([-1], [-1]))
    return _emit(inner.op, (input, other), xp, r, input._dtype, device, out)


# ---------------------------------------------------------------------- isin
def _isin_side(value, scalar, name, scalar_name):
    """One side of ``isin``: the tensor (or positional number) ``value`` or the number
    ``scalar`` given by its scalar overload's name (a 0-d tensor counts as one)."""
    if scalar is None:
        if value is None:
            raise TensorTypeError(f"isin() missing required argument '{name}' (or "
                                  f"'{scalar_name}' for a number)")
        return value
    if value is not None:
        raise TensorTypeError(f"isin() received an invalid combination of arguments - got "
                              f"both '{name}' and '{scalar_name}'")
    if isinstance(scalar, Tensor):
        if scalar._shape:
            raise TensorTypeError(
                f"isin(): argument '{scalar_name}' must be Number, not a "
                f"{len(scalar._shape)}-d Tensor (pass a tensor as '{name}')")
        return scalar.item()
    if not isinstance(scalar, numbers.Number):
        raise TensorTypeError(f"isin(): argument '{scalar_name}' must be Number, not "
                              f"{type(scalar).__name__}")
    return scalar


@register("copy", method=False)
def isin(elements=None, test_elements=None, *, element=None, test_element=None,
         assume_unique=False, invert=False, out=None):
    """Whether each of ``elements`` occurs in ``test_elements`` (negated with ``invert``).

    Either side may be a number: by name ``element=`` (for ``elements``) or
    ``test_element=`` (for ``test_elements``), PyTorch's scalar overloads.
    """
    elements = _isin_side(elements, element, "elements", "element")
    test_elements = _isin_side(test_elements, test_element, "test_elements", "test_element")
    e_tensor, t_tensor = isinstance(elements, Tensor), isinstance(test_elements, Tensor)
    if not (e_tensor or t_tensor):
        raise TensorTypeError(
            f"isin() received an invalid combination of arguments - got "
            f"({type(elements).__name__}, {type(test_elements).__name__}); at least one of "
            f"elements and test_elements must be a Tensor")
    for x in (elements, test_elements):
        if not isinstance(x, (Tensor, numbers.Number)):
            raise TensorTypeError(
                f"isin(): expected a Tensor or a number, but got {type(x).__name__}")
    tensors = [x for x in (elements, test_elements) if isinstance(x, Tensor)]
    device = check_same_device(tensors)
    for x in (elements, test_elements):
        dtype = x._dtype if isinstance(x, Tensor) else _dtypes.scalar_dtype(x)
        if dtype.category in (_dtypes.BOOL, _dtypes.COMPLEX):
            raise TensorRuntimeError(
                f"Unsupported input type encountered for isin(): {dtype._torch_name}")
    dtype = result_dtype([elements, test_elements])
    xp = _xp(tensors[0])
    work = _dtypes.float32 if dtype in _LOW else dtype

    def values(x):
        if isinstance(x, Tensor):
            return x._array().astype(work.numpy)
        return xp.asarray(x, dtype=work.numpy)

    check_out(out, "isin", _dtypes.bool_)
    r = xp.isin(values(elements), values(test_elements), invert=bool(invert))
    return _emit(isin.op, tuple(tensors), xp, r, _dtypes.bool_, device, out)


# ---------------------------------------------------------------------- chain_matmul
@register("copy", method=False)
def chain_matmul(*matrices, out=None):
    """The product of the 2-D ``matrices`` (deprecated: use ``linalg.multi_dot``)."""
    _warn_once("chain_matmul",
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.")
    if not matrices:
        raise TensorRuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        check_tensor(m, "chain_matmul", "matrices", i + 1)
        if m.dim() != 2:
            raise TensorRuntimeError(
                f"Tensor dimension is {m.dim()}, expected 2 instead (matrix {i} has shape "
                f"{list(m._shape)}).")
    device = check_same_device(list(matrices))
    xp = _xp(matrices[0])
    first = matrices[0]
    if len(matrices) == 1:
        check_out(out, "chain_matmul")
        a = first._array()
        if out is not None:
            write_out(out, a)
            return finish(chain_matmul.op, matrices, out, modified=out)
        result = _with_strides(xp, a.copy(), first._dtype, device,
                               dense_strides_like(tuple(first._shape), tuple(first._stride)))
        return finish(chain_matmul.op, matrices, result)
    for i, m in enumerate(matrices[1:], 1):
        if m._dtype is not first._dtype:
            raise TensorRuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_c_type(first._dtype)} and tensor {i} {_c_type(m._dtype)}")
    for i in range(len(matrices) - 1):
        a, b = matrices[i], matrices[i + 1]
        if a._shape[1] != b._shape[0]:
            raise TensorRuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a._shape)} and "
                f"{list(b._shape)} cannot be multiplied")
    if first._dtype is _dtypes.bool_:
        raise _not_for("addmm_impl_cpu_", first._dtype)
    check_out(out, "chain_matmul", first._dtype)
    with quiet():
        r = _work(first)
        for m in matrices[1:]:
            r = xp.matmul(r, _work(m))
    return _emit(chain_matmul.op, matrices, xp, r, first._dtype, device, out)
