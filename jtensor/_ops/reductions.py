"""Reductions and scans: sum, mean, max, var, norm, logsumexp, all/any, cumsum, median,
``Tensor.sum_to_size``...

Every op follows PyTorch's signature and rules: ``dim`` may be None, an int or a tuple/list
(an empty tuple means "every dim" except for ``all``/``any``), ``keepdim`` keeps reduced dims
as size 1, results are freshly allocated and contiguous, integer and bool sums/products
become int64, and float16/bfloat16 are accumulated in float32 and rounded back, as PyTorch's
CPU kernels do. The data is read through ``_array()``, so any layout (transposed, sliced,
expanded) works, and computed with the backend's array module (``xp``).
"""

import builtins
import contextlib
import warnings

import numpy as np

from .. import _dtypes, return_types
from .._dispatch import Post
from .._errors import (
    TensorIndexError,
    ignoring_warnings,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorTypeError,
    wrap_dim,
    stacklevel,
    type_name,
)
from .._out import resize_output
from .._registry import OPS, register
from .._size import Size
from .._tensor import Tensor, fresh_tensor, new_empty_tensor
from .views import sizes_from_args

_LOW = (_dtypes.float16, _dtypes.bfloat16)


# ---------------------------------------------------------------------- shared helpers
@contextlib.contextmanager
def quiet():
    """Silence NumPy's warnings for 0/0, log(0)...: the IEEE results are PyTorch's."""
    with ignoring_warnings(RuntimeWarning), np.errstate(all="ignore"):
        yield


def fp_quiet():
    """``quiet()`` for computations whose only warnings are floating-point ones (matrix
    products, sums): NumPy's error state alone silences those, at a fifth of the cost of
    also resetting the warnings filters."""
    return np.errstate(all="ignore")


def check_tensor(x, name, arg="input", position=1):
    if not isinstance(x, Tensor):
        raise TensorTypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type_name(x)}")


def _check_keepdim(keepdim, name):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TensorTypeError(
            f"{name}(): argument 'keepdim' must be bool, not {type_name(keepdim)}")
    return bool(keepdim)


def reduce_dims(input, dim, name, empty_means_all=True):
    """Wrapped, sorted, distinct dims to reduce over (PyTorch's ``dim`` argument rules)."""
    ndim = input.dim()
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list, Size)):
        if len(dim) == 0:
            return tuple(range(ndim)) if empty_means_all else ()
        seen = []
        for d in dim:
            w = wrap_dim(d, ndim)
            if w in seen:
                raise TensorRuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.append(w)
        return tuple(sorted(seen))
    return (wrap_dim(dim, ndim),)


def _axes(input, dims):
    """NumPy axes for ``dims``: a 0-d tensor accepts dim 0/-1 but has no axis."""
    return dims if input.dim() else ()


def _reduced_count(input, dims):
    n = 1
    for d in _axes(input, dims):
        n *= input._shape[d]
    return n


def _describe(dtype):
    return dtype._torch_name


def _work_array(input, dtype=None):
    """``input``'s elements as ``dtype`` (float16/bfloat16 widened to float32)."""
    dtype = dtype or input._dtype
    work = _dtypes.float32 if dtype in _LOW else dtype
    a = input._array()
    return a if a.dtype == work.numpy else a.astype(work.numpy)


def _xp(input):
    return input._storage._backend.xp


def _sum_of(xp):
    """``xp.sum``; for NumPy the ufunc reduction ``np.sum`` calls on an ndarray, without
    its Python wrapper (a microsecond a call)."""
    return np.add.reduce if xp is np else xp.sum


# PyTorch's CPU scans (cumsum, cumprod, logcumsumexp) keep the running value in
# ``acc_type<T, /*is_cuda=*/false>``: double for float32, complex<double> for complex64, and
# round each prefix to the result's type (cumsum of 1000 x 0.1 is 100.0, not 99.99905). Its
# CUDA scans accumulate float32 in float32.
_CPU_SCAN_ACC = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def scan_work_array(input, dtype=None):
    """``_work_array`` for a scan: on the CPU, float32/complex64 widened to PyTorch's
    accumulator (the caller casts the running values back)."""
    a = _work_array(input, dtype)
    acc = _CPU_SCAN_ACC.get(a.dtype) if _xp(input) is np else None
    return a if acc is None else a.astype(acc)


def wrap_result(xp, array, dtype, device):
    """A fresh contiguous tensor holding ``array`` cast to ``dtype``."""
    array = xp.asarray(array)
    if array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    if not array.flags.c_contiguous:
        array = array.copy()
    return Tensor._from_array(array, dtype, device)


def check_out(out, name, dtype=None, message=None):
    """``out=`` must be a tensor (of ``dtype`` when given) on the input's device."""
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TensorTypeError(f"{name}(): argument 'out' must be Tensor, not {type_name(out)}")
    if dtype is not None and out._dtype is not dtype:
        raise TensorRuntimeError(message or (
            f"Expected out tensor to have dtype {_c_name(dtype)}"
            f", but got {_c_name(out._dtype)} instead"))


_c_name = _dtypes.c_name


def write_out(out, array):
    """Write ``array`` into ``out`` (resized as PyTorch does), casting to its dtype."""
    from .._elementwise import _write_into

    resize_output(out, array.shape)
    xp = out._storage._backend.xp
    array = xp.asarray(array)
    if array.dtype != out._dtype.numpy:
        array = array.astype(out._dtype.numpy)
    _write_into(out, array)
    return out


def launch_kernel(op, inputs, shape, dtype, device, compute, info=None):
    """On an asynchronous device (``backend.deferred``: the caller checks), queue
    ``compute(*input_arrays)`` as a kernel writing a new ``shape``/``dtype`` tensor and return
    it, finished. The host knows the result's metadata without waiting."""
    backend = inputs[0]._storage._backend
    result = new_empty_tensor(shape, dtype, device)
    arrays = [t._array_nowait() for t in inputs]
    target, np_dtype = result._array_nowait(), dtype.numpy

    def kernel():
        with np.errstate(all="ignore"):
            value = compute(*arrays)
        target[...] = value if value.dtype == np_dtype else value.astype(np_dtype)

    backend.launch(op.name, kernel)
    return result


def reduced_shape(input, dims, keepdim):
    """The shape of a reduction of ``input`` over ``dims``."""
    axes = _axes(input, dims)
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(input._shape))
    return tuple(s for i, s in enumerate(input._shape) if i not in axes)


def _emit(op, inputs, xp, array, dtype, device, out=None, info=None):
    """Finish a single-output op: wrap ``array`` or write it into ``out``."""
    if out is not None:
        write_out(out, array)
        return out
    return wrap_result(xp, array, dtype, device)


def _emit_pair(op, inputs, xp, arrays, dtypes, device, name, out=None):
    """Finish a (values, indices)-style op as ``torch.return_types.<name>``."""
    cls = getattr(return_types, name)
    if out is not None:
        for o, a in zip(out, arrays, strict=True):
            write_out(o, a)
        return cls(*out)
    return cls(*(wrap_result(xp, a, d, device) for a, d in zip(arrays, dtypes, strict=True)))


def _check_pair_out(out, name, dtypes):
    if out is None:
        return None
    if not isinstance(out, (tuple, list)) or len(out) != 2 or not builtins.all(
            isinstance(o, Tensor) for o in out):
        raise TensorTypeError(f"{name}(): argument 'out' must be tuple of Tensors")
    for o, d in zip(out, dtypes, strict=True):
        check_out(o, name, d)
    return tuple(out)


def _sum_result_dtype(input, dtype, out):
    if dtype is not None:
        return _dtypes.to_dtype(dtype)
    if out is not None:
        return out._dtype
    if input._dtype.category <= _dtypes.INTEGRAL:
        return _dtypes.int64
    return input._dtype


def _not_for(kernel, dtype):
    return TensorNotImplementedError(f"\"{kernel}\" not implemented for '{_describe(dtype)}'")


# ---------------------------------------------------------------------- sum, prod, mean
_FAST_SUM = (_dtypes.float32, _dtypes.float64)
_INT_SUM = (_dtypes.bool_, _dtypes.uint8, _dtypes.int8, _dtypes.int16, _dtypes.int32,
            _dtypes.int64)
_SUMMED = _FAST_SUM + _INT_SUM


def _plain_axes(input, dim, keepdim, dtype, out, dtypes):
    """The array axes of a common reduction call (``loss.sum()``, ``g.sum(0)``,
    ``x.mean(1)``): no ``dtype`` or ``out``, a bool ``keepdim``, no dim or one valid int
    dim, a plain tensor of one of ``dtypes`` with at least one dim, on a backend that
    computes at once. None for any other call (the general path takes it)."""
    if keepdim.__class__ is not bool or dtype is not None or out is not None \
            or input.__class__ is not Tensor or input._dtype not in dtypes \
            or input._storage._backend.deferred:
        return None
    n = len(input._shape)
    if dim is None:
        return tuple(range(n)) if n else None
    if dim.__class__ is int and -n <= dim < n:
        return (dim % n,)
    return None


def _plain_sum(input, axes, keepdim, count=None):
    """The float sum over ``axes`` of a common call (``_plain_axes`` found them), divided by
    ``count`` when given (a mean): NumPy's reduction with no error-state switch (a float sum
    only overflows, a warning jtensor's filter drops; where warnings are errors it is
    redone silenced), a fresh C-contiguous result taken as the tensor's own."""
    a = input._array()
    storage = input._storage
    backend = storage._backend
    xp = backend.xp
    try:
        r = _summed(xp, a, axes, keepdim, count)
    except RuntimeWarning:
        with np.errstate(all="ignore"):
            r = _summed(xp, a, axes, keepdim, count)
    if xp is np:
        if r.__class__ is not np.ndarray:   # (a full reduction: NumPy's scalar, made 0-d)
            r = np.asarray(r)
        if r.flags.c_contiguous:   # (of the input's dtype, which a float sum keeps)
            return fresh_tensor(Tensor, r, r.shape, input._dtype, storage.device, backend)
    return wrap_result(xp, r, input._dtype, storage.device)


def _summed(xp, a, axes, keepdim, count):
    """``_plain_sum``'s arithmetic (NumPy's ``ndarray.sum`` is this reduction behind a
    Python frame)."""
    r = np.add.reduce(a, axes, None, None, keepdim) if xp is np else \
        a.sum(axis=axes, keepdims=keepdim)
    return r if count is None else r / a.dtype.type(count)


def _sum_like(op, name, fn, input, dim, keepdim, dtype, out):
    axes = _plain_axes(input, dim, keepdim, dtype, out, _SUMMED) if name == "sum" else None
    if axes is not None:
        # The common calls, decided in a few checks: the same reduction over the same axes
        # as below. Bools and integers (``(pred == y).sum()``) sum exactly in int64,
        # wrapping as PyTorch's.
        if input._dtype in _INT_SUM:
            return wrap_result(input._storage._backend.xp,
                               input._array().sum(axis=axes, keepdims=keepdim, dtype=np.int64),
                               _dtypes.int64, input.device)
        return _plain_sum(input, axes, keepdim)
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    dims = reduce_dims(input, dim, name)
    check_out(out, name)
    result = _sum_result_dtype(input, dtype, out)
    if name == "nansum" and (input._dtype.is_complex or result.is_complex):
        raise TensorRuntimeError("nansum on CPU does not support complex inputs")
    xp = _xp(input)
    if out is None and input._storage._backend.deferred:
        work = (_dtypes.float32 if result in _LOW else result).numpy
        axes = _axes(input, dims)
        return launch_kernel(op, (input,), reduced_shape(input, dims, keepdim), result,
                             input.device, lambda a: getattr(xp, fn)(
                                 a.astype(work, copy=False), axis=axes, keepdims=keepdim))
    a = _work_array(input, result)
    # Sums only raise floating-point warnings (overflow), which errstate alone silences;
    # ``quiet()`` also resets the warnings filters, which costs more than a small sum.
    with np.errstate(all="ignore"):
        r = getattr(xp, fn)(a, axis=_axes(input, dims), keepdims=keepdim)
    return _emit(op, (input,), xp, r, result, input.device, out)


@register("reduction")
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` (all dims by default). Integers and bools sum to int64.

    >>> import jtensor as torch
    >>> torch.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    return _sum_like(sum.op, "sum", "sum", input, dim, keepdim, dtype, out)


@register("reduction")
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``sum`` that treats NaN as zero."""
    return _sum_like(nansum.op, "nansum", "nansum", input, dim, keepdim, dtype, out)


@register("reduction")
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over ``dim`` (one int, or all dims). Integers and bools give int64."""
    check_tensor(input, "prod")
    if isinstance(dim, (tuple, list)):
        raise TensorTypeError(
            f"prod(): argument 'dim' must be int, not {type_name(dim)}")
    return _sum_like(prod.op, "prod", "prod", input, dim, keepdim, dtype, out)


def _mean_dtype(input, dtype, name):
    if dtype is not None:
        dtype = _dtypes.to_dtype(dtype)
        if dtype.category < _dtypes.FLOATING:
            raise TensorRuntimeError(
                f"{name}(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {_describe(dtype)}")
        return dtype
    if input._dtype.category < _dtypes.FLOATING:
        raise TensorRuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_describe(input._dtype)}")
    return input._dtype


@register("reduction")
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean over ``dim``; floating/complex inputs only (or pass ``dtype=``).

    The mean of zero elements is NaN.
    """
    axes = _plain_axes(input, dim, keepdim, dtype, out, _FAST_SUM)
    if axes is not None and input.numel():
        # The common calls (``loss.mean()``, ``x.mean(0)``): the same sum over the same
        # axes and the same division as below.
        count = 1
        for axis in axes:
            count *= input._shape[axis]
        return _plain_sum(input, axes, keepdim, count)
    check_tensor(input, "mean")
    keepdim = _check_keepdim(keepdim, "mean")
    # (PyTorch refuses an integer input before it reads ``dim``)
    result = _mean_dtype(input, dtype, "mean")
    dims = reduce_dims(input, dim, "mean")
    check_out(out, "mean")
    xp = _xp(input)
    if out is None and input._storage._backend.deferred:
        work = (_dtypes.float32 if result in _LOW else result).numpy
        axes, count = _axes(input, dims), _reduced_count(input, dims)
        return launch_kernel(mean.op, (input,), reduced_shape(input, dims, keepdim), result,
                             input.device, lambda a: xp.sum(
                                 a.astype(work, copy=False), axis=axes,
                                 keepdims=keepdim) / np.dtype(work).type(count))
    a = _work_array(input, result)
    with fp_quiet():   # (a sum and a division: floating-point warnings only)
        r = _sum_of(xp)(a, axis=_axes(input, dims), keepdims=keepdim) / a.dtype.type(
            _reduced_count(input, dims))
    return _emit(mean.op, (input,), xp, r, result, input.device, out)


@register("reduction")
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements (NaN where every element is NaN)."""
    check_tensor(input, "nanmean")
    keepdim = _check_keepdim(keepdim, "nanmean")
    dims = reduce_dims(input, dim, "nanmean")
    check_out(out, "nanmean")
    if input._dtype.category < _dtypes.FLOATING:
        raise TensorRuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_describe(input._dtype)}")
    if input._dtype.is_complex:
        raise TensorRuntimeError("nansum on CPU does not support complex inputs")
    result = _dtypes.to_dtype(dtype) if dtype is not None else input._dtype
    xp = _xp(input)
    a = _work_array(input, result)
    axes = _axes(input, dims)
    with quiet():
        count = xp.sum(~xp.isnan(a), axis=axes, keepdims=keepdim)
        r = xp.nansum(a, axis=axes, keepdims=keepdim) / count.astype(a.dtype)
    return _emit(nanmean.op, (input,), xp, r, result, input.device, out)


# ---------------------------------------------------------------------- max / min family
def _no_identity_check(input, dims, name, dim_given):
    """max/amax/argmax... have no identity: reducing over zero elements is an error."""
    if input.numel() != 0:
        return
    if not dim_given:
        raise TensorRuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if input.dim() and input._shape[d] == 0:
            raise TensorIndexError(
                f"{name}(): Expected reduction dim {d} to have non-zero size.")


# dtypes whose max/min along a dim ``_extreme_last_dim`` computes on the array itself
_FAST_EXTREME = (_dtypes.float32, _dtypes.float64, _dtypes.int64, _dtypes.int32)


def pick_last_axis(a, indices):
    """``a``'s element at ``indices`` (``a``'s shape less its last axis) along the last axis
    of the C-contiguous array ``a``, by flat positions (``take_along_axis`` costs three
    times ``argmax``'s search on rows of a few dozen elements)."""
    flat = np.arange(0, a.size, a.shape[-1])
    flat += indices.reshape(-1)
    return a.reshape(-1)[flat].reshape(indices.shape)


def last_axis_max(a):
    """``a.max(axis=-1, keepdims=True)`` of a C-contiguous float array of one element or
    more. Many short rows (attention scores, a batch of logits): ``argmax`` (vectorised) and
    a pick, in about half of NumPy's ``max`` there, which reduces such rows one by one;
    a few rows or long ones: ``max``. Either gives a row's NaN where it has one."""
    n = a.shape[-1]
    if n <= 512 and a.size >= 16 * n and a.flags.c_contiguous:
        return pick_last_axis(a, a.argmax(axis=-1))[..., None]
    return np.maximum.reduce(a, axis=-1, keepdims=True)


def _extreme_last_dim(name, input, dim, keepdim):
    """``max``/``min`` along the last dim of a plain contiguous CPU float32/float64/int
    tensor of at least 2 dims (``out.max(1)`` of a batch of logits): the indices as below,
    the values picked by their flat positions (``take_along_axis`` costs three times the
    search on such sizes). None (nothing done) for anything else."""
    shape = input._shape
    nd = len(shape)
    if nd < 2 or input.__class__ is not Tensor or input._dtype not in _FAST_EXTREME \
            or not (dim == nd - 1 or dim == -1) or not shape[-1] \
            or input._storage._backend.xp is not np \
            or not (input._contiguous or (input._contiguous is None and input.is_contiguous())):
        return None
    a = input._array()
    indices = a.argmax(axis=-1) if name == "max" else a.argmin(axis=-1)
    values = pick_last_axis(a, indices)
    if indices.dtype != np.int64:
        indices = indices.astype(np.int64)
    if keepdim:
        values, indices = values[..., None], indices[..., None]
    device = input._storage.device
    return getattr(return_types, name)(Tensor._from_array(values, input._dtype, device),
                                       Tensor._from_array(indices, _dtypes.int64, device))


def _extreme_with_dim(op, name, input, dim, keepdim, out):
    if out is None and dim.__class__ is int and keepdim.__class__ is bool:
        result = _extreme_last_dim(name, input, dim, keepdim)
        if result is not None:
            return result
    if isinstance(dim, (tuple, list)):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"(dim={dim!r}); 'dim' must be an int")
    keepdim = _check_keepdim(keepdim, name)
    d = wrap_dim(dim, input.dim())
    if input._dtype.is_complex:
        raise TensorRuntimeError(f"{name}(): does not support complex input")
    _no_identity_check(input, (d,), name, True)
    out = _check_pair_out(out, name, (input._dtype, _dtypes.int64))
    xp = _xp(input)
    a = _work_array(input)
    if input.dim() == 0:
        values, indices = a.copy(), xp.zeros((), dtype=np.int64)
    elif input._shape[d] == 0:
        shape = list(input._shape)
        shape[d] = 1
        if not keepdim:
            del shape[d]
        values = xp.empty(tuple(shape), dtype=a.dtype)
        indices = xp.empty(tuple(shape), dtype=np.int64)
    else:
        find = xp.argmax if name == "max" else xp.argmin
        indices = find(a, axis=d, keepdims=True)
        values = xp.take_along_axis(a, indices, axis=d)
        if not keepdim:
            values, indices = xp.squeeze(values, axis=d), xp.squeeze(indices, axis=d)
    return _emit_pair(op, (input,), xp, (values, indices), (input._dtype, _dtypes.int64),
                      input.device, name, out)


def _extreme_binary(name, input, other, out):
    partner = {"max": "maximum", "min": "minimum"}[name]
    target = OPS.get(partner)
    if target is None:
        raise TensorRuntimeError(
            f"torch.{name}(input, other) is the element-wise torch.{partner}(input, other), "
            f"which is not available: no '{partner}' op is registered")
    # the element-wise op's entry: its own event (``maximum``), its version bump of ``out``
    return target.entry(input, other, out=out) if out is not None else target.entry(input, other)


def _extreme(op, name, input, dim, keepdim, out, other=None):
    check_tensor(input, name)
    if other is not None:
        # PyTorch's binary overload ``max(input, other)``: ``other`` is a tensor and no
        # ``dim``/``keepdim`` goes with it.
        if not isinstance(other, Tensor) or dim is not None or keepdim is not False:
            given = ", ".join(
                [type(input).__name__]
                + ([f"dim={type(dim).__name__}"] if dim is not None else [])
                + ([f"keepdim={type(keepdim).__name__}"] if keepdim is not False else [])
                + [f"other={type(other).__name__}"])
            raise TensorTypeError(
                f"{name}() received an invalid combination of arguments - got ({given}), "
                f"but expected one of: (Tensor input), (Tensor input, Tensor other), "
                f"(Tensor input, int dim, bool keepdim)")
        return _extreme_binary(name, input, other, out)
    if isinstance(dim, Tensor):
        if keepdim is not False:
            raise TensorTypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                                  "Tensor (the element-wise form max(input, other) takes no "
                                  "keepdim)")
        return _extreme_binary(name, input, dim, out)
    if dim is not None:
        return _extreme_with_dim(op, name, input, dim, keepdim, out)
    if input._dtype.is_complex:
        raise _not_for(f"{name}_all", input._dtype)
    _no_identity_check(input, (), name, False)
    check_out(out, name, input._dtype)
    xp = _xp(input)
    a = _work_array(input)
    r = xp.max(a) if name == "max" else xp.min(a)
    return _emit(op, (input,), xp, r, input._dtype, input.device, out)


def _elementwise_form(result, input, dim=None, keepdim=False, *, other=None, out=None):
    # ``max(input, other)``: the call is the element-wise op's, whose entry reported it
    return other is not None or isinstance(dim, Tensor)


def _extreme_written(result, input, dim=None, keepdim=False, *, other=None, out=None):
    return None if _elementwise_form(result, input, dim, other=other) else out


# The element-wise overload goes through ``maximum``/``minimum``'s entry (their event, their
# version bump of ``out``), so max/min themselves report nothing then.
_EXTREME = Post(modified=_extreme_written, silent=_elementwise_form)


@register("reduction", post=_EXTREME)
def max(input, dim=None, keepdim=False, *, other=None, out=None):
    """The largest element (0-d), or ``(values, indices)`` along ``dim``.

    ``max(input, other)`` (``other`` a tensor, positionally or by name) is the element-wise
    ``maximum``. NaN propagates; among equal maxima the first index is returned.
    """
    return _extreme(max.op, "max", input, dim, keepdim, out, other)


@register("reduction", post=_EXTREME)
def min(input, dim=None, keepdim=False, *, other=None, out=None):
    """The smallest element (0-d), or ``(values, indices)`` along ``dim``; ``min(input,
    other)`` is the element-wise ``minimum``."""
    return _extreme(min.op, "min", input, dim, keepdim, out, other)


def _amax_like(op, name, kernel, input, dim, keepdim, out):
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    dim_given = dim is not None and not (isinstance(dim, (tuple, list)) and len(dim) == 0)
    dims = reduce_dims(input, dim, name)
    if input._dtype.is_complex:
        raise _not_for(kernel, input._dtype)
    _no_identity_check(input, dims, name, dim_given)
    if out is not None:
        check_out(out, name)
        if out._dtype is not input._dtype:
            raise TensorRuntimeError(
                f"Expected the dtype for input and out to match, but got "
                f"{_describe(input._dtype)} for input's dtype and {_describe(out._dtype)} "
                "for out's dtype.")
    xp = _xp(input)
    a = _work_array(input)
    axes = _axes(input, dims)
    if a.size == 0:
        shape = [1 if i in axes else s for i, s in enumerate(a.shape)] if keepdim else \
            [s for i, s in enumerate(a.shape) if i not in axes]
        r = xp.empty(tuple(shape), dtype=a.dtype)
    else:
        r = (xp.max if name == "amax" else xp.min)(a, axis=axes, keepdims=keepdim)
    return _emit(op, (input,), xp, r, input._dtype, input.device, out)


@register("reduction")
def amax(input, dim=(), keepdim=False, *, out=None):
    """Maximum over one or more dims (values only; NaN propagates)."""
    return _amax_like(amax.op, "amax", "max_values_cpu", input, dim, keepdim, out)


@register("reduction")
def amin(input, dim=(), keepdim=False, *, out=None):
    """Minimum over one or more dims (values only; NaN propagates)."""
    return _amax_like(amin.op, "amin", "min_values_cpu", input, dim, keepdim, out)


@register("reduction")
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` over all elements or along one ``dim``."""
    check_tensor(input, "aminmax")
    keepdim = _check_keepdim(keepdim, "aminmax")
    if dim is not None and not isinstance(dim, int):
        raise TensorTypeError(
            f"aminmax(): argument 'dim' must be int, not {type_name(dim)}")
    dims = reduce_dims(input, dim, "aminmax")
    if input._dtype.is_complex:
        raise _not_for("aminmax_cpu", input._dtype)
    if input.numel() == 0:
        if dim is None:
            raise TensorRuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity.")
        if input.dim() and input._shape[dims[0]] == 0:
            raise TensorIndexError(
                f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    out = _check_pair_out(out, "aminmax", (input._dtype, input._dtype))
    xp = _xp(input)
    a = _work_array(input)
    axes = _axes(input, dims)
    if a.size == 0:
        shape = [1 if i in axes else s for i, s in enumerate(a.shape)] if keepdim else \
            [s for i, s in enumerate(a.shape) if i not in axes]
        lo = hi = xp.empty(tuple(shape), dtype=a.dtype)
    else:
        # keepdim=True without a dim keeps every dim as size 1 ((2, 3) -> (1, 1)), as PyTorch.
        lo = xp.min(a, axis=axes, keepdims=keepdim)
        hi = xp.max(a, axis=axes, keepdims=keepdim)
    return _emit_pair(aminmax.op, (input,), xp, (lo, hi), (input._dtype, input._dtype),
                      input.device, "aminmax", out)


def _arg_extreme(op, name, input, dim, keepdim, out):
    axes = _plain_axes(input, dim, keepdim, None, out, _FAST_EXTREME) \
        if dim is not None else None
    if axes is not None and input._storage._backend.xp is np and input.numel():
        # The common call (``logits.argmax(1)``): the array method along that dim.
        a = input._array()
        r = a.argmax(axis=axes[0], keepdims=keepdim) if name == "argmax" else \
            a.argmin(axis=axes[0], keepdims=keepdim)
        return wrap_result(np, r, _dtypes.int64, input._storage.device)
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    if dim is not None and isinstance(dim, (tuple, list)):
        raise TensorTypeError(f"{name}(): argument 'dim' must be int, not {type_name(dim)}")
    # (PyTorch refuses the dtype before it reads ``dim``)
    if input._dtype is _dtypes.bool_:
        raise TensorRuntimeError(f"{name}(): does not support bool input")
    if input._dtype.is_complex:
        raise TensorRuntimeError(f"{name}(): does not support complex input")
    dims = reduce_dims(input, dim, name)
    if input.numel() == 0:
        if dim is None:
            raise TensorIndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        _no_identity_check(input, dims, name, True)
    check_out(out, name, _dtypes.int64)
    xp = _xp(input)
    a = _work_array(input)
    find = xp.argmax if name == "argmax" else xp.argmin
    if dim is None:
        r = find(a)
        if keepdim:
            r = xp.reshape(xp.asarray(r), (1,) * input.dim())
    elif input.dim() == 0:
        r = xp.zeros((), dtype=np.int64)
    elif a.size == 0:
        shape = list(a.shape)
        shape[dims[0]] = 1
        if not keepdim:
            del shape[dims[0]]
        r = xp.empty(tuple(shape), dtype=np.int64)
    else:
        r = find(a, axis=dims[0], keepdims=keepdim)
    return _emit(op, (input,), xp, r, _dtypes.int64, input.device, out)


@register("reduction")
def argmax(input, dim=None, keepdim=False, *, out=None):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    return _arg_extreme(argmax.op, "argmax", input, dim, keepdim, out)


@register("reduction")
def argmin(input, dim=None, keepdim=False, *, out=None):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    return _arg_extreme(argmin.op, "argmin", input, dim, keepdim, out)


# ---------------------------------------------------------------------- var / std
def _correction(name, dim, unbiased, correction):
    if isinstance(dim, bool):  # var(True): the legacy positional ``unbiased``
        if unbiased is not None:
            raise TensorTypeError(f"{name}(): got 'unbiased' twice")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: pass either "
            f"unbiased={unbiased} or correction={correction}, not both")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var_core(name, input, dim, unbiased, keepdim, correction):
    """(xp, variance array, mean array, result dtype) with PyTorch's ``correction`` rule."""
    check_tensor(input, name)
    dim, correction = _correction(name, dim, unbiased, correction)
    keepdim = _check_keepdim(keepdim, name)
    dims = reduce_dims(input, dim, name)
    if input._dtype.category < _dtypes.FLOATING:
        raise TensorRuntimeError("std and var only support floating point and complex dtypes")
    xp = _xp(input)
    a = _work_array(input)
    if xp is np and a.dtype.kind == "f" and input._dtype.itemsize <= 4:
        # PyTorch's CPU kernel accumulates float16, bfloat16 and float32 in double: the
        # statistics are the float64 ones rounded (std: the float64 square root rounded),
        # which a float32 two-pass computation misses by an ulp about half the time, and
        # overflows past (the std of 1e30s is finite).
        a = a.astype(np.float64)
    axes = _axes(input, dims)
    n = _reduced_count(input, dims)
    dof = builtins.max(0, n - correction)
    if dof <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).", UserWarning,
            stacklevel=stacklevel(4))
    with fp_quiet():   # (sums, differences, products: floating-point warnings only)
        total = _sum_of(xp)
        m = total(a, axis=axes, keepdims=True) / a.dtype.type(n)
        d = a - m
        sq = (d.real * d.real + d.imag * d.imag) if input._dtype.is_complex else d * d
        v = total(sq, axis=axes, keepdims=keepdim) / sq.dtype.type(dof)
        if not keepdim:
            m = xp.squeeze(m, axis=axes) if axes else m
    return xp, v, m, input._dtype.to_real(), dims


@register("reduction")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` with ``correction`` (1 by default: Bessel's; ``unbiased=False``
    is ``correction=0``). Floating and complex inputs only; complex gives a real result."""
    check_out(out, "var")
    xp, v, _m, dtype, _ = _var_core("var", input, dim, unbiased, keepdim, correction)
    return _emit(var.op, (input,), xp, v, dtype, input.device, out)


@register("reduction")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation: the square root of ``var`` with the same arguments."""
    check_out(out, "std")
    xp, v, _m, dtype, _ = _var_core("std", input, dim, unbiased, keepdim, correction)
    return _emit(std.op, (input,), xp, xp.sqrt(v), dtype, input.device, out)


def _pair(op, input, xp, first, m, dtype):
    device = input.device
    return (wrap_result(xp, first, dtype, device), wrap_result(xp, m, input._dtype, device))


@register("reduction", method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` in one pass over the data."""
    xp, v, m, dtype, _ = _var_core("var_mean", input, dim, unbiased, keepdim, correction)
    return _pair(var_mean.op, input, xp, v, m, dtype)


@register("reduction", method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` in one pass over the data."""
    xp, v, m, dtype, _ = _var_core("std_mean", input, dim, unbiased, keepdim, correction)
    return _pair(std_mean.op, input, xp, xp.sqrt(v), m, dtype)


# ---------------------------------------------------------------------- norm, logsumexp
def _vector_norm(xp, a, p, axes, keepdim):
    x = xp.abs(a)
    if p == float("inf"):
        return xp.max(x, axis=axes, keepdims=keepdim)
    if p == float("-inf"):
        return xp.min(x, axis=axes, keepdims=keepdim)
    if p == 0:
        return xp.sum(x != 0, axis=axes, keepdims=keepdim).astype(x.dtype)
    if p == 1:
        return xp.sum(x, axis=axes, keepdims=keepdim)
    if p == 2:
        return xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keepdim))
    return xp.sum(x ** x.dtype.type(p), axis=axes, keepdims=keepdim) ** x.dtype.type(1.0 / p)


def check_norm_dtype(name, input_dtype, dtype):
    """PyTorch's checks of a norm's ``dtype=``: floating or complex, of the input's kind
    (real/complex), and only widening (float64 input with dtype=float32 is refused)."""
    if not (dtype.category == _dtypes.FLOATING or dtype.is_complex):
        raise TensorRuntimeError(f"{name}: dtype should be floating point or complex, "
                                 f"but got {dtype._torch_name}")
    if input_dtype.is_complex != dtype.is_complex:
        kind = "complex" if input_dtype.is_complex else "real"
        raise TensorRuntimeError(
            f"{name}: dtype should be {kind} for {kind} inputs, but got {dtype._torch_name}")
    if _dtypes.promote_types(input_dtype, dtype) is not dtype:
        raise TensorRuntimeError(
            f"{name}: the dtype of the input ({input_dtype._torch_name}) should be "
            f"convertible without narrowing to the specified dtype ({dtype._torch_name})")


@register("reduction")
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector p-norm over ``dim`` (all elements by default); ``'fro'`` is the 2-norm and
    ``'nuc'`` the nuclear norm of matrices. ``p`` may be any number, ``inf`` or ``-inf``."""
    check_tensor(input, "norm")
    keepdim = _check_keepdim(keepdim, "norm")
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    dims = reduce_dims(input, dim, "norm")
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise TensorRuntimeError(f"norm(): unknown norm type {p!r}; use a number, 'fro' "
                                     "or 'nuc'")
    elif not isinstance(p, (int, float)) or isinstance(p, bool):
        raise TensorTypeError(f"norm(): argument 'p' must be a number or str, not "
                              f"{type_name(p)}")
    compute_dtype = _dtypes.to_dtype(dtype) if dtype is not None else input._dtype
    if input._dtype.category < _dtypes.FLOATING:
        raise TensorRuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_describe(input._dtype)}")
    if dtype is not None:
        check_norm_dtype("linalg.matrix_norm" if p == "nuc" else "linalg.vector_norm",
                         input._dtype, compute_dtype)
    result = compute_dtype.to_real()
    check_out(out, "norm")
    xp = _xp(input)
    a = _work_array(input, compute_dtype)
    axes = _axes(input, dims)
    if p == "nuc" or (p == "fro" and dim is not None and len(dim) > 2):
        # torch.norm hands these to linalg.matrix_norm ('fro' over more than two dims too),
        # which names the dims as given (all of them when dim is None)
        given = range(input.dim()) if dim is None else dim
        if len(dims) != 2:
            raise TensorRuntimeError(
                f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, given))}")
        moved = xp.moveaxis(a, dims, (-2, -1))
        r = xp.sum(xp.linalg.svd(moved, compute_uv=False), axis=-1)
        if keepdim:
            r = xp.expand_dims(r, dims)
    else:
        p = 2 if p == "fro" else p
        if builtins.abs(p) == float("inf") and a.size == 0:
            if dim is None:
                raise TensorRuntimeError(
                    "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                    "the operation does not have an identity")
            for bad in axes:
                if a.shape[bad] == 0:
                    raise TensorRuntimeError(
                        f"linalg.vector_norm cannot compute the inf norm on the dimension {bad}"
                        "because this dimension is empty and the operation does not have an "
                        "identity")
        with quiet():
            r = _vector_norm(xp, a, p, axes, keepdim)
    return _emit(norm.op, (input,), xp, r, result, input.device, out)


@register("reduction")
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably (the max is factored out), so
    huge inputs give finite results. Integers are computed in the default float dtype."""
    check_tensor(input, "logsumexp")
    keepdim = _check_keepdim(keepdim, "logsumexp")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        raise TensorRuntimeError(
            "logsumexp(): dim=() is not supported; name the dims to reduce over")
    dims = reduce_dims(input, dim, "logsumexp")
    result = input._dtype if input._dtype.category >= _dtypes.FLOATING else \
        _dtypes.get_default_dtype()
    check_out(out, "logsumexp")
    xp = _xp(input)
    a = _work_array(input, result)
    axes = _axes(input, dims)
    with quiet():
        if builtins.any(a.shape[d] == 0 for d in axes):
            shape = [1 if i in axes else s for i, s in enumerate(a.shape)]
            m = xp.zeros(tuple(shape), dtype=a.real.dtype)
            s = xp.zeros(tuple(shape), dtype=a.dtype)
        else:
            m = xp.max(a.real, axis=axes, keepdims=True)
            m = xp.where(xp.isfinite(m), m, m.dtype.type(0))
            s = xp.sum(xp.exp(a - m), axis=axes, keepdims=True)
        r = xp.log(s) + m
        if not keepdim and axes:
            r = xp.squeeze(r, axis=axes)
    return _emit(logsumexp.op, (input,), xp, r, result, input.device, out)


# ---------------------------------------------------------------------- all / any
def _all_any(op, name, input, dim, keepdim, out):
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    dims = reduce_dims(input, dim, name, empty_means_all=False)
    result = _dtypes.uint8 if input._dtype is _dtypes.uint8 else _dtypes.bool_
    if out is not None:
        check_out(out, name)
        if out._dtype not in (_dtypes.bool_, _dtypes.uint8):
            raise TensorRuntimeError(
                f"{name} only supports bool tensor for result, got: {_describe(out._dtype)}")
    xp = _xp(input)
    a = input._array()
    r = getattr(xp, name)(a, axis=_axes(input, dims), keepdims=keepdim)
    return _emit(op, (input,), xp, r, result, input.device, out)


@register("reduction")
def all(input, dim=None, keepdim=False, *, out=None):
    """Whether every element is non-zero (bool; uint8 for uint8 inputs)."""
    return _all_any(all.op, "all", input, dim, keepdim, out)


@register("reduction")
def any(input, dim=None, keepdim=False, *, out=None):
    """Whether some element is non-zero (bool; uint8 for uint8 inputs)."""
    return _all_any(any.op, "any", input, dim, keepdim, out)


@register("reduction")
def count_nonzero(input, dim=None):
    """Number of non-zero elements over ``dim`` (int or tuple; all dims by default)."""
    check_tensor(input, "count_nonzero")
    dims = reduce_dims(input, dim, "count_nonzero")
    xp = _xp(input)
    r = xp.sum(input._array() != 0, axis=_axes(input, dims))
    return _emit(count_nonzero.op, (input,), xp, r, _dtypes.int64, input.device)


# ---------------------------------------------------------------------- scans
def _scan_setup(name, input, dim, dtype, out):
    check_tensor(input, name)
    d = wrap_dim(dim, input.dim())
    check_out(out, name)
    result = _sum_result_dtype(input, dtype, out)
    if result is _dtypes.bool_:
        raise _not_for(f"{name}_out_cpu", result)
    return d, result


@register("reduction")
def cumsum(input, dim, *, dtype=None, out=None):
    """Running sum along ``dim``; integers and bools accumulate in int64."""
    d, result = _scan_setup("cumsum", input, dim, dtype, out)
    xp = _xp(input)
    a = scan_work_array(input, result)
    r = a.copy() if input.dim() == 0 else xp.cumsum(a, axis=d)
    return _emit(cumsum.op, (input,), xp, r, result, input.device, out)


@register("reduction")
def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim``; integers and bools accumulate in int64."""
    d, result = _scan_setup("cumprod", input, dim, dtype, out)
    xp = _xp(input)
    a = scan_work_array(input, result)
    r = a.copy() if input.dim() == 0 else xp.cumprod(a, axis=d)
    return _emit(cumprod.op, (input,), xp, r, result, input.device, out)


def _cum_extreme(op, name, input, dim, out):
    check_tensor(input, name)
    d = wrap_dim(dim, input.dim())
    if input._dtype.is_complex:
        raise _not_for(f"{name}_cpu", input._dtype)
    out = _check_pair_out(out, name, (input._dtype, _dtypes.int64))
    xp = _xp(input)
    a = _work_array(input)
    if input.dim() == 0:
        values, indices = a.copy(), xp.zeros((), dtype=np.int64)
    else:
        a = xp.moveaxis(a, d, 0)
        values = xp.empty(a.shape, dtype=a.dtype)
        indices = xp.empty(a.shape, dtype=np.int64)
        floating = input._dtype.is_floating_point
        better = xp.greater_equal if name == "cummax" else xp.less_equal
        if a.shape[0]:
            values[0], indices[0] = a[0], 0
        for i in range(1, a.shape[0]):
            # PyTorch's rule: take x when x >= running (<= for cummin) or x is NaN, so ties
            # move the index forward and the first NaN sticks (until the next NaN).
            take = better(a[i], values[i - 1])
            if floating:
                take = take | xp.isnan(a[i])
            values[i] = xp.where(take, a[i], values[i - 1])
            indices[i] = xp.where(take, i, indices[i - 1])
        values, indices = xp.moveaxis(values, 0, d), xp.moveaxis(indices, 0, d)
    return _emit_pair(op, (input,), xp, (values, indices), (input._dtype, _dtypes.int64),
                      input.device, name, out)


@register("reduction")
def cummax(input, dim, *, out=None):
    """Running maximum along ``dim`` and the index where it was found."""
    return _cum_extreme(cummax.op, "cummax", input, dim, out)


@register("reduction")
def cummin(input, dim, *, out=None):
    """Running minimum along ``dim`` and the index where it was found."""
    return _cum_extreme(cummin.op, "cummin", input, dim, out)


# ---------------------------------------------------------------------- median
def _median(op, name, input, dim, keepdim, out):
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    ignore_nan = name == "nanmedian"
    if dim is None:
        if input._dtype is _dtypes.bool_ or input._dtype.is_complex:
            raise _not_for("median_cpu", input._dtype)
        check_out(out, name, input._dtype)
    else:
        if isinstance(dim, (tuple, list)):
            raise TensorTypeError(f"{name}(): argument 'dim' must be int, not "
                                  f"{type_name(dim)}")
        d = wrap_dim(dim, input.dim())
        if input._dtype is _dtypes.bool_ or input._dtype.is_complex:
            raise _not_for("median_out", input._dtype)
        if input.dim() and input._shape[d] == 0:
            raise TensorIndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
        out = _check_pair_out(out, name, (input._dtype, _dtypes.int64))
    xp = _xp(input)
    a = _work_array(input)
    if dim is None:
        a = xp.reshape(a, (1, -1))
        axis = 1
    elif input.dim() == 0:
        a = xp.reshape(a, (1,))
        axis = 0
    else:
        axis = d
    n = a.shape[axis]
    if n == 0:  # only reachable without dim: the median of nothing is NaN
        return _emit(op, (input,), xp, xp.asarray(float("nan")), input._dtype,
                     input.device, out)
    order = xp.argsort(a, axis=axis, kind="stable")  # NaNs sort last, in index order
    if input._dtype.is_floating_point:
        nans = xp.sum(xp.isnan(a), axis=axis, keepdims=True)
    else:
        nans = xp.zeros([1 if i == axis else s for i, s in enumerate(a.shape)], dtype=np.int64)
    valid = n - nans
    if ignore_nan:
        k = xp.where(valid > 0, (valid - 1) // 2, 0)
    else:
        k = xp.where(nans > 0, valid, (n - 1) // 2)  # any NaN: the first NaN is the median
    indices = xp.take_along_axis(order, k.astype(np.int64), axis=axis)
    values = xp.take_along_axis(a, indices, axis=axis)
    if dim is None:
        return _emit(op, (input,), xp, values.reshape(()), input._dtype, input.device, out)
    if input.dim() == 0:
        values, indices = values.reshape(()), indices.reshape(())
    elif not keepdim:
        values, indices = xp.squeeze(values, axis=axis), xp.squeeze(indices, axis=axis)
    return _emit_pair(op, (input,), xp, (values, indices), (input._dtype, _dtypes.int64),
                      input.device, name, out)


@register("reduction")
def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median (no averaging): a 0-d tensor, or ``(values, indices)`` along ``dim``.
    NaN propagates: a slice holding NaN has median NaN."""
    return _median(median.op, "median", input, dim, keepdim, out)


@register("reduction")
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """``median`` ignoring NaN (NaN only where every element is NaN)."""
    return _median(nanmedian.op, "nanmedian", input, dim, keepdim, out)


# ---------------------------------------------------------------------- sum_to_size
@register("reduction", function=False)
def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (a shape ``input`` could be expanded from); returns
    ``input`` itself when the shape already matches."""
    if not size:
        raise TensorTypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = sizes_from_args(size, "size")
    shape = tuple(input._shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and builtins.all(s == shape[lead + i] or s == 1 for i, s in enumerate(size))
    if not ok:
        raise TensorRuntimeError(
            f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return input
    dtype = _sum_result_dtype(input, None, None)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    xp = _xp(input)
    with fp_quiet():
        r = xp.sum(_work_array(input, dtype), axis=axes, keepdims=True)
    r = r.reshape(size)
    return wrap_result(xp, r, dtype, input._storage.device)
