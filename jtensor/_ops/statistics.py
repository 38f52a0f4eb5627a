"""Statistics: quantile, nanquantile, mode, logcumsumexp, dist, renorm, histogram, histc,
bincount, trapezoid/trapz/cumulative_trapezoid, diff (forward differences), cov and corrcoef.

Values, dtypes, layouts and errors follow PyTorch's CPU kernels: quantile sorts each slice and
interpolates between the two nearest ranks (computed in the input's dtype), its result puts
``q``'s dim first as a transposed view of a ``(..., len(q))`` buffer (PyTorch's strides);
float16/bfloat16 are accumulated in float32 and rounded back.
"""

import builtins
import math
import numbers
import warnings

import numpy as np

from .._arraymod import accumulate, ufunc_at
from .. import _dtypes
from .._dispatch import Post, check_inplace, check_same_device
from .._elementwise import result_dtype
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError,
                      user_stacklevel, wrap_dim, type_name)
from .._layout import (broadcast_shapes, contiguous_strides, dense_strides_like,
                       elementwise_output_strides)
from .._out import resize_output
from .._registry import register
from .._tensor import Tensor
from .products import _name, _with_strides, _work
from .products import _not_for as _not_for_cast
from .reductions import (
    _check_keepdim,
    _check_pair_out,
    _emit,
    _emit_pair,
    _not_for,
    _work_array,
    scan_work_array,
    check_out,
    check_tensor,
    quiet,
    wrap_result,
    write_out,
)
from .views import make_view

_LOW = (_dtypes.float16, _dtypes.bfloat16)


def _xp(t):
    return t._storage._backend.xp


def _is_float(dtype):
    return dtype.is_floating_point


# ---------------------------------------------------------------------- quantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, name, input, q, dim, keepdim, interpolation, out, ignore_nan):
    check_tensor(input, name)
    keepdim = _check_keepdim(keepdim, name)
    if not isinstance(q, (Tensor, numbers.Real)):
        # Argument types are checked before any value, as PyTorch's parser does.
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: q must be float or "
            f"Tensor, not {type_name(q)}")
    if input._dtype not in (_dtypes.float32, _dtypes.float64):
        raise TensorRuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise TensorRuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._dtype is not input._dtype:
            raise TensorRuntimeError(
                f"{name}() q tensor must be same dtype as the input tensor")
    elif not isinstance(q, numbers.Real):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments: q must be float or "
            f"Tensor, not {type_name(q)}")
    if interpolation not in _INTERPOLATIONS:
        raise TensorRuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}")
    if input.numel() == 0:
        raise TensorRuntimeError(f"{name}() input tensor must be non-empty")
    check_out(out, name, input._dtype)
    xp = _xp(input)
    np_dtype = input._dtype.numpy
    if isinstance(q, Tensor):
        qa = q._array().reshape(-1)
        if not bool(xp.all((qa >= 0) & (qa <= 1))):
            raise TensorRuntimeError(f"{name}() q values must be in the range [0, 1]")
        q_scalar = q.dim() == 0
    else:
        if not 0 <= q <= 1:
            raise TensorRuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qa = xp.asarray([q], dtype=np_dtype)
        q_scalar = True
    ndim = input.dim()
    a = input._array()
    if dim is None:
        sorted_ = xp.sort(a.reshape(-1))
        shape = (1,) * ndim if keepdim else ()
    else:
        d = wrap_dim(dim, ndim)
        if ndim == 0:
            sorted_ = a.reshape(1)
            shape = ()
        else:
            sorted_ = xp.sort(xp.moveaxis(a, d, -1), axis=-1)
            if keepdim:
                sorted_ = xp.expand_dims(sorted_, d)
            shape = tuple(input._shape[:d]) + ((1,) if keepdim else ()) + tuple(
                input._shape[d + 1:])
    n = sorted_.shape[-1]
    sorted_ = sorted_.reshape(shape + (n,))
    nan_mask = xp.isnan(sorted_)
    with quiet():
        if ignore_nan:
            count = (~nan_mask).sum(axis=-1, keepdims=True).astype(np_dtype)
            ranks = qa * (count - np_dtype.type(1))
            ranks = xp.where(ranks < 0, np_dtype.type(0), ranks)
        else:
            ranks = xp.broadcast_to(qa * np_dtype.type(n - 1), shape + (qa.shape[0],))
            ranks = xp.where(nan_mask.any(axis=-1, keepdims=True), np_dtype.type(n - 1), ranks)
        if interpolation == "lower":
            ranks = xp.floor(ranks)
        elif interpolation == "higher":
            ranks = xp.ceil(ranks)
        elif interpolation == "nearest":
            ranks = xp.round(ranks)  # half to even, as PyTorch's round
        below = ranks.astype(np.int64)
        result = xp.take_along_axis(sorted_, below, axis=-1)
        if interpolation in ("linear", "midpoint"):
            if interpolation == "midpoint":
                weights = xp.full(ranks.shape, 0.5, dtype=np_dtype)
            else:
                weights = (ranks - below.astype(np_dtype)).astype(np_dtype)
            above = xp.take_along_axis(sorted_, xp.ceil(ranks).astype(np.int64), axis=-1)
            result = _lerp(xp, result, above, weights)
    result = xp.ascontiguousarray(result.astype(np_dtype))
    if out is not None:
        final = result[..., 0] if q_scalar else xp.moveaxis(result, -1, 0)
        write_out(out, final)
        return out
    buffer = Tensor._from_array(result, input._dtype, input.device)
    if q_scalar:
        res = make_view(buffer, shape, contiguous_strides(shape), 0)
    else:
        # PyTorch ends with unsqueeze(0).transpose(0, -1).squeeze(-1): q's dim first, stride 1
        strides = contiguous_strides(buffer._shape)
        res = make_view(buffer, (qa.shape[0],) + shape, (1,) + tuple(strides[:-1]), 0)
    res._base = None
    return res


def _lerp(xp, start, end, weight):
    """PyTorch's lerp: the formula switches at weight 0.5 for accuracy at both ends."""
    diff = end - start
    return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


@register("reduction", post=Post(check_devices=("input", "q")))
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` over ``dim`` (flattened when None).

    ``q`` is a float or a 0-/1-D tensor of ``input``'s dtype; a 1-D ``q`` adds a leading dim.
    A slice holding NaN gives NaN (see ``nanquantile``).
    """
    return _quantile(quantile.op, "quantile", input, q, dim, keepdim, interpolation, out, False)


@register("reduction", post=Post(check_devices=("input", "q")))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile(nanquantile.op, "nanquantile", input, q, dim, keepdim, interpolation, out,
                     True)


# ---------------------------------------------------------------------- mode
@register("reduction")
def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value of each slice along ``dim`` (the smallest one on ties) and the
    index of its last occurrence, as ``torch.return_types.mode(values, indices)``."""
    check_tensor(input, "mode")
    keepdim = _check_keepdim(keepdim, "mode")
    ndim = input.dim()
    d = wrap_dim(dim, ndim)
    out = _check_pair_out(out, "mode", (input._dtype, _dtypes.int64))
    xp = _xp(input)
    a = input._array()
    if ndim == 0:
        values, indices = a.copy(), xp.zeros((), dtype=np.int64)
        return _emit_pair(mode.op, (input,), xp, (values, indices),
                          (input._dtype, _dtypes.int64), input.device, "mode", out)
    n = input._shape[d]
    rest = tuple(input._shape[:d]) + tuple(input._shape[d + 1:])
    if n == 0 and builtins.all(s != 0 for s in rest):
        raise TensorIndexError(
            f"mode(): Expected reduction dim {d} to have non-zero size.")
    moved = xp.moveaxis(a, d, -1).reshape(-1, n)
    rows = moved.shape[0]
    if n == 0 or rows == 0:
        values = xp.zeros((rows,), dtype=a.dtype)
        indices = xp.zeros((rows,), dtype=np.int64)
    else:
        order = xp.argsort(moved, axis=-1, kind="stable")
        s = xp.take_along_axis(moved, order, axis=-1)
        pos = xp.broadcast_to(xp.arange(n), (rows, n))
        change = s[:, 1:] != s[:, :-1]
        starts = xp.concatenate([xp.ones((rows, 1), dtype=bool), change], axis=1)
        ends = xp.concatenate([change, xp.ones((rows, 1), dtype=bool)], axis=1)
        start_pos = accumulate(xp, "maximum", xp.where(starts, pos, 0), 1)
        end_pos = accumulate(xp, "minimum", xp.where(ends, pos, n)[:, ::-1], 1)[:, ::-1]
        counts = end_pos - start_pos + 1
        best = xp.argmax(counts, axis=1)  # first maximum in sorted order: the smallest value
        r = xp.arange(rows)
        last = end_pos[r, best]
        # (the value at the index reported: of equal values, -0.0 and 0.0, the one there)
        values = s[r, last]
        indices = order[r, last].astype(np.int64)
    shape = rest
    if keepdim:
        shape = tuple(input._shape[:d]) + (1,) + tuple(input._shape[d + 1:])
    return _emit_pair(mode.op, (input,), xp, (values.reshape(shape), indices.reshape(shape)),
                      (input._dtype, _dtypes.int64), input.device, "mode", out)


# ---------------------------------------------------------------------- logcumsumexp
@register("reduction")
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (no overflow)."""
    check_tensor(input, "logcumsumexp")
    d = wrap_dim(dim, input.dim())
    if not (_is_float(input._dtype) or input._dtype.is_complex):
        raise _not_for("logcumsumexp_out_cpu", input._dtype)
    check_out(out, "logcumsumexp")
    xp = _xp(input)
    a = scan_work_array(input)
    with quiet():
        if input.dim() == 0:
            r = a.copy()
        elif a.dtype.kind == "c":
            r = _complex_logcumsumexp(xp, a, d)
        else:
            r = accumulate(xp, "logaddexp", a, d)
    return _emit(logcumsumexp.op, (input,), xp, r, input._dtype, input.device, out)


def _complex_logcumsumexp(xp, a, d):
    """Running ``log(exp(acc) + exp(x))``, factoring out the term of larger real part."""
    moved = xp.moveaxis(a, d, 0)
    r = xp.empty_like(moved)
    if moved.shape[0]:
        acc = moved[0]
        r[0] = acc
        for i in range(1, moved.shape[0]):
            x = moved[i]
            big = xp.where(acc.real >= x.real, acc, x)
            small = xp.where(acc.real >= x.real, x, acc)
            acc = xp.where(xp.isneginf(big.real), big,
                           big + xp.log1p(xp.exp(small - big)))
            r[i] = acc
    return xp.moveaxis(r, 0, d)


# ---------------------------------------------------------------------- dist
def _pnorm(xp, d, p, axis=None, keepdims=False):
    """The ``p``-norm of ``d`` over ``axis`` (PyTorch's norm rules for 0, inf and -inf)."""
    d = xp.abs(d)
    if p == 0:
        return (d != 0).sum(axis=axis, keepdims=keepdims).astype(d.dtype)
    if p in (math.inf, -math.inf):
        if d.size == 0:
            raise TensorRuntimeError(
                f"linalg.vector_norm cannot compute the {'' if p > 0 else '-'}inf norm on an "
                "empty tensor because the operation does not have an identity")
        return (d.max if p > 0 else d.min)(axis=axis, keepdims=keepdims)
    if p == 1:
        return d.sum(axis=axis, keepdims=keepdims)
    if p == 2:
        return xp.sqrt((d * d).sum(axis=axis, keepdims=keepdims))
    return (d ** p).sum(axis=axis, keepdims=keepdims) ** (1.0 / p)


@register("reduction")
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-d tensor."""
    check_tensor(input, "dist")
    check_tensor(other, "dist", "other", 2)
    device = check_same_device([input, other])
    dtype = result_dtype([input, other])
    if not (_is_float(dtype) or dtype.is_complex):
        raise TensorRuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_name(dtype)} instead.")
    broadcast_shapes(tuple(input._shape), tuple(other._shape))
    xp = _xp(input)
    p = float(p)
    with quiet():
        diff = _work(input, dtype) - _work(other, dtype)
        r = _pnorm(xp, diff, p)
    real = dtype.to_real() if dtype.is_complex else dtype
    return wrap_result(xp, r, real, device)


# ---------------------------------------------------------------------- renorm
def _renorm_array(name, input, p, dim, maxnorm):
    check_tensor(input, name)
    if input.dim() < 2:
        raise TensorRuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    d = wrap_dim(dim, input.dim())
    if p <= 0:
        raise TensorRuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise TensorRuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if not (_is_float(input._dtype) or input._dtype.is_complex):
        raise _not_for("renorm_out", input._dtype)
    xp = _xp(input)
    a = _work_array(input)
    axes = tuple(i for i in range(input.dim()) if i != d)
    with quiet():
        norms = _pnorm(xp, a, float(p), axis=axes, keepdims=True)
        dt = a.real.dtype.type if a.dtype.kind == "c" else a.dtype.type
        factor = xp.where(norms > dt(maxnorm), dt(maxnorm) / (norms + dt(1e-7)), dt(1))
        return xp, a * factor.astype(norms.dtype)


@register("reduction")
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` is scaled
    down to norm ``maxnorm``; the others are copied unchanged."""
    check_out(out, "renorm")
    xp, r = _renorm_array("renorm", input, p, dim, maxnorm)
    return _emit(renorm.op, (input,), xp, r, input._dtype, input.device, out)


@register("inplace", method="renorm_", function=False)
def renorm_(self, p, dim, maxnorm):
    """In-place ``renorm``."""
    _, r = _renorm_array("renorm", self, p, dim, maxnorm)
    check_inplace(self)
    write_out(self, r)
    return self


# ---------------------------------------------------------------------- histogram
def _linspace(xp, start, end, steps, np_dtype):
    """PyTorch's CPU linspace: from the start in the first half, from the end in the second."""
    t = np_dtype.type
    start, end = t(start), t(end)
    if steps == 1:
        return xp.asarray([start], dtype=np_dtype)
    step = (end - start) / t(steps - 1)
    i = xp.arange(steps)
    half = steps // 2
    lo = start + step * i.astype(np_dtype)
    hi = end - step * (steps - i - 1).astype(np_dtype)
    return xp.where(i < half, lo, hi).astype(np_dtype)


@register("reduction")
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram of ``input``'s values: ``bins`` equal-width bins over ``range`` (default
    the data's min..max) or the given increasing edges tensor; returns
    ``torch.return_types.histogram(hist, bin_edges)``. The last bin includes its right edge.
    """
    check_tensor(input, "histogram")
    if not _is_float(input._dtype):
        raise _not_for("histogram_cpu", input._dtype)
    if input._dtype in _LOW:
        raise _not_for("histogram_cpu", input._dtype)
    inputs = [input]
    xp = _xp(input)
    np_dtype = input._dtype.numpy
    x = input._array().reshape(-1)
    if isinstance(bins, Tensor):
        if range is not None:
            raise TensorTypeError(
                "histogram() received an invalid combination of arguments - got (Tensor, "
                "bins=Tensor, range=...)")
        if bins._dtype is not input._dtype:
            raise TensorRuntimeError(
                f"torch.histogramdd: input tensor and bins tensors should have the same "
                f"dtype, but got input {_name(input._dtype)} and bins {_name(bins._dtype)}")
        if bins.dim() != 1:
            raise TensorRuntimeError(
                f"torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins.dim()} dimensions in the bins tensor")
        if bins.numel() == 0:
            raise TensorRuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                "elements in the bins tensor")
        edges = bins._array().astype(np_dtype)
        inputs.append(bins)
    else:
        if not isinstance(bins, numbers.Integral) or isinstance(bins, bool):
            raise TensorTypeError(
                f"histogram(): argument 'bins' must be int or Tensor, not "
                f"{type_name(bins)}")
        if bins <= 0:
            raise TensorRuntimeError(
                f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.size:
            lo, hi = float(x.min()), float(x.max())
        else:
            lo, hi = 0.0, 1.0  # PyTorch's range for no data
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise TensorRuntimeError(
                f"torch.histogramdd: dimension 0's range [{_g(lo)}, {_g(hi)}] is not finite")
        if lo > hi:
            raise TensorRuntimeError(
                f"torch.histogramdd: expected leftmost edge ({lo}) to be less than or equal "
                f"to the rightmost edge ({hi}) for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _linspace(xp, lo, hi, bins + 1, np_dtype)
    if weight is not None:
        check_tensor(weight, "histogram", "weight")
        if tuple(weight._shape) != tuple(input._shape):
            raise TensorRuntimeError(
                "torch.histogramdd: if weight tensor is provided, it should have the same "
                "shape as the input tensor excluding its innermost dimension, but got input "
                f"with shape {list(input._shape)} and weight with shape {list(weight._shape)}")
        if weight._dtype is not input._dtype:
            raise TensorRuntimeError(
                "torch.histogramdd: if weight tensor is provided, it should have the same "
                f"dtype as the input tensor, but got input tensor with dtype "
                f"{_name(input._dtype)} and weight tensor with dtype {_name(weight._dtype)}")
        inputs.append(weight)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TensorTypeError("histogram(): argument 'out' must be tuple of Tensors")
        for o in out:
            check_out(o, "histogram", input._dtype)
    nbins = edges.shape[0] - 1
    with quiet():
        if nbins <= 0:
            hist = xp.zeros((0,), dtype=np_dtype)
        else:
            left, right = edges[0], edges[-1]
            inside = (x >= left) & (x <= right)
            pos = xp.searchsorted(edges, x, side="right") - 1
            pos = xp.where(x == right, nbins - 1, pos)
            pos = xp.clip(pos, 0, nbins - 1)
            w = weight._array().reshape(-1).astype(np_dtype) if weight is not None else \
                xp.ones(x.shape, dtype=np_dtype)
            w = xp.where(inside, w, np_dtype.type(0))
            hist = xp.zeros((nbins,), dtype=np_dtype)
            ufunc_at(xp, "add", hist, pos[inside], w[inside])
            if density:
                widths = edges[1:] - edges[:-1]
                hist = hist / (hist.sum() * widths)
    hist = hist.astype(np_dtype)
    edges = xp.array(edges, dtype=np_dtype, copy=True)
    dt = input._dtype
    return _emit_pair(histogram.op, tuple(inputs), xp, (hist, edges), (dt, dt), input.device,
                      "histogram", tuple(out) if out is not None else None)


def _g(v):
    return f"{v:g}"


# ---------------------------------------------------------------------- trapezoid
def _trapz_float(dtype):
    return dtype if (_is_float(dtype) or dtype.is_complex) else _dtypes.float32


def _trapezoid_common(name, y, x, dx, dim, cumulative):
    check_tensor(y, name, "y")
    d = wrap_dim(dim, y.dim()) if y.dim() else None
    if y.dim() == 0:
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
    xp = _xp(y)
    n = y._shape[d]
    inputs = [y]
    if x is not None:
        check_tensor(x, name, "x")
        inputs.append(x)
        if n == 0 and not cumulative:
            # No samples: PyTorch returns zeros of y's dtype before looking at x.
            shape = tuple(s for i, s in enumerate(y._shape) if i != d)
            return xp, xp.zeros(shape, dtype=y._dtype.numpy), y._dtype, inputs
        if y._dtype is _dtypes.bool_ or x._dtype is _dtypes.bool_:
            raise TensorRuntimeError(
                f"{name}: received a bool input for `x` or `y`, but bool is not supported")
        dtype = result_dtype([y, x])
        out_dtype = dtype if (_is_float(dtype) or dtype.is_complex) else _dtypes.float32
        if x.dim() == 1 and x._shape[0] != n:
            raise TensorRuntimeError(
                f"{name}: There must be one `x` value for each sample point (x has "
                f"{x._shape[0]} values, y has {n} along dim {d})")
        ya = _work_array(y, out_dtype)
        xa = _work_array(x, out_dtype)
        # As PyTorch: a 1-D x lies along dim; an x with fewer dims than y gets leading 1s;
        # then x is differenced along dim (the index wrapped for y) and broadcast with y.
        if x.dim() == 1:
            xa = xa.reshape(tuple(n if i == d else 1 for i in range(y.dim())))
        elif x.dim() < y.dim():
            xa = xa.reshape((1,) * (y.dim() - x.dim()) + tuple(x._shape))
        dxa = xp.diff(xa, axis=d)
        ym = xp.moveaxis(ya, d, -1)
        with quiet():
            avg = xp.moveaxis(ym[..., 1:] + ym[..., :-1], -1, d)
        broadcast_shapes(tuple(avg.shape), tuple(dxa.shape))  # PyTorch's error on a clash
        with quiet():
            prod = dxa * avg
            if cumulative:
                r = xp.cumsum(prod, axis=d) / 2
            else:
                r = prod.sum(axis=d) / 2
        return xp, r.astype(out_dtype.numpy, copy=False), out_dtype, inputs
    if n == 0 and not cumulative:
        shape = tuple(s for i, s in enumerate(y._shape) if i != d)
        return xp, xp.zeros(shape, dtype=y._dtype.numpy), y._dtype, inputs
    if y._dtype is _dtypes.bool_:
        raise TensorRuntimeError(
            f"{name}: received a bool input for `y`, but bool is not supported")
    if dx is None:
        dx = 1
    if isinstance(dx, (bool, complex)):
        raise TensorRuntimeError(
            f"{name}: Currently, we only support dx as a real number, got {dx!r}.")
    # integer samples integrate in the default float dtype, whatever dx is
    out_dtype = _trapz_float(y._dtype)
    ya = _work_array(y, out_dtype)
    with quiet():
        ym = xp.moveaxis(ya, d, -1)
        if cumulative:
            r = xp.cumsum((ym[..., 1:] + ym[..., :-1]) * dx, axis=-1) / 2
            r = xp.moveaxis(r, -1, d)
        else:
            if n == 0:
                r = xp.zeros(ym.shape[:-1], dtype=ym.dtype)
            else:
                r = (ym.sum(axis=-1) - (ym[..., 0] + ym[..., -1]) * 0.5) * dx
    return xp, r, out_dtype, inputs


@register("reduction", method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Trapezoidal rule along ``dim``: with sample points ``x`` (1-D, or broadcasting with
    ``y``) or a constant spacing ``dx`` (default 1)."""
    if x is not None and dx is not None:
        raise TensorTypeError("trapezoid() received an invalid combination of arguments")
    xp, r, dtype, inputs = _trapezoid_common("trapezoid", y, x, dx, dim, False)
    return wrap_result(xp, r, dtype, y.device)


@register("reduction", method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """The old name of ``trapezoid``."""
    if x is not None and dx is not None:
        raise TensorTypeError("trapz() received an invalid combination of arguments")
    if isinstance(dx, bool):
        dx = float(dx)  # trapz's dx is a float argument (True is 1.0), unlike trapezoid's
    elif isinstance(dx, complex):
        raise TensorTypeError(
            f"trapz(): argument 'dx' must be float, not complex ({dx!r})")
    xp, r, dtype, inputs = _trapezoid_common("trapezoid", y, x, dx, dim, False)
    return wrap_result(xp, r, dtype, y.device)


@register("reduction", method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal integral along ``dim`` (one element fewer than ``y``)."""
    if x is not None and dx is not None:
        raise TensorTypeError(
            "cumulative_trapezoid() received an invalid combination of arguments")
    xp, r, dtype, inputs = _trapezoid_common("cumulative_trapezoid", y, x, dx, dim, True)
    return wrap_result(xp, r, dtype, y.device)


# ---------------------------------------------------------------------- cov, corrcoef
def _cov_weights(weights, kind, name, num_obs, xp):
    """``cov``'s checks of ``fweights`` (integers) or ``aweights`` (floats), in PyTorch's
    order; returns the weights as a flat array."""
    check_tensor(weights, name, kind)
    if weights.dim() > 1:
        raise TensorRuntimeError(
            f"cov(): expected {kind} to have one or fewer dimensions but got {kind} "
            f"with {weights.dim()} dimensions")
    if kind == "fweights":
        if weights._dtype.category != _dtypes.INTEGRAL or weights._dtype is _dtypes.bool_:
            raise TensorRuntimeError(
                f"cov(): expected fweights to have integral dtype but got fweights with "
                f"{_name(weights._dtype)} dtype")
    elif not _is_float(weights._dtype):
        raise TensorRuntimeError(
            f"cov(): expected aweights to have floating point dtype but got aweights "
            f"with {_name(weights._dtype)} dtype")
    if weights.numel() != num_obs:
        raise TensorRuntimeError(
            f"cov(): expected {kind} to have the same numel as there are observations "
            f"in the input but got {weights.numel()} != {num_obs}")
    array = weights._array().reshape(-1)
    if num_obs and bool(xp.any(array < 0)):
        raise TensorRuntimeError(f"cov(): {kind} cannot be negative")
    return array


DOF_WARNING = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
               "number of observations.")


def cov_weights(name, num_obs, fweights, aweights, dtype):
    """``cov``'s weights (their checks and errors, in PyTorch's order): the product of
    ``fweights`` and ``aweights`` as a flat array of the observations' real ``dtype``, or
    None without weights."""
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, "fweights", name, num_obs, _xp(fweights))
    if aweights is not None:
        aw = _cov_weights(aweights, "aweights", name, num_obs, _xp(aweights))
        w = aw if w is None else w * aw
    if w is None:
        return None
    w = w.astype(np.dtype(dtype).type(0).real.dtype)
    if not bool(w.sum() != 0):
        raise TensorRuntimeError("cov(): weights sum to zero, can't be normalized")
    return w


def _cov_array(name, input, correction, fweights, aweights):
    check_tensor(input, name)
    if input.dim() > 2:
        raise TensorRuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions")
    xp = _xp(input)
    dtype = input._dtype if (_is_float(input._dtype) or input._dtype.is_complex) else \
        _dtypes.float32
    a = _work_array(input, dtype)
    if a.ndim < 2:
        a = a.reshape(1, -1)
    num_obs = a.shape[1]
    w = cov_weights(name, num_obs, fweights, aweights, a.dtype)
    inputs = [input] + [t for t in (fweights, aweights) if t is not None]
    with quiet():
        if w is not None:
            w_sum = w.sum()
            avg = (a * w).sum(axis=1) / w_sum
        else:
            w_sum = a.real.dtype.type(num_obs)
            avg = a.sum(axis=1) / a.real.dtype.type(num_obs) if num_obs else \
                xp.full(a.shape[0], np.nan, dtype=a.dtype)
        if w is None:
            norm = w_sum - correction
        elif correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            aw_ = aweights._array().reshape(-1).astype(w.dtype)
            norm = w_sum - correction * (w * aw_).sum() / w_sum
        if not isinstance(norm, (int, float, np.generic)):
            norm = norm.item()  # CuPy's sums are 0-d device arrays, not NumPy scalars
        if norm <= 0:   # (not a NaN: PyTorch's ``le(0)`` is false there, and it warns not)
            warnings.warn(DOF_WARNING, UserWarning, stacklevel=user_stacklevel())
            norm = 0
        centered = a - avg[:, None]
        weighted = centered * w if w is not None else centered
        c = xp.matmul(centered, xp.conj(weighted).T) / a.real.dtype.type(norm)
    if c.shape == (1, 1):
        c = c.reshape(())  # PyTorch squeezes: one variable, (1, n) included, gives a 0-d result
    return xp, c.astype(a.dtype), dtype, inputs


@register("reduction")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in ``input``'s rows (observations in columns),
    with optional integer frequency weights and float observation weights."""
    xp, c, dtype, inputs = _cov_array("cov", input, correction, fweights, aweights)
    return wrap_result(xp, c, dtype, input.device)


@register("reduction")
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (clipped to [-1, 1])."""
    xp, c, dtype, _ = _cov_array("corrcoef", input, 1, None, None)
    with quiet():
        if c.ndim == 0:
            c = c / c
        else:
            std = xp.sqrt(xp.diagonal(c))
            c = c / std[:, None]
            c = c / std[None, :]
            if c.dtype.kind == "c":
                c = xp.clip(c.real, -1, 1) + 1j * xp.clip(c.imag, -1, 1)
            else:
                c = xp.clip(c, -1, 1)
    return wrap_result(xp, c, dtype, input.device)


# ---------------------------------------------------------------------- bincount, histc
@register("copy", post=Post(check_devices=("input", "weights")))
def bincount(input, weights=None, minlength=0):
    """Count (or sum ``weights`` of) each non-negative integer value of the 1-D ``input``."""
    check_tensor(input, "bincount")
    if input._dtype.category != _dtypes.INTEGRAL:
        raise _not_for_cast("bincount_cpu", input._dtype)
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
    return wrap_result(xp, r, dtype, input.device)


@register("copy")
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram of ``input`` with ``bins`` equal-width bins over ``[min, max]`` (the data's
    range when both are 0); values outside the range are ignored."""
    check_tensor(input, "histc")
    if input._dtype.category != _dtypes.FLOATING:
        raise _not_for_cast("histogram_cpu", input._dtype)
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


def check_diff(input, n, dim, prepend, append):
    """PyTorch's checks of a ``diff`` call (also the recorded composite's, which runs its
    steps as ops); returns ``dim`` wrapped."""
    check_tensor(input, "diff")
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise TensorRuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, ndim)
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
    return d


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
    d = check_diff(input, n, dim, prepend, append)
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
            return out
        result = _with_strides(xp, input._array().copy(), input._dtype, device,
                               dense_strides_like(tuple(input._shape), tuple(input._stride)))
        return result
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
    work = _work_array_of(a, dtype)
    for _ in range(n):
        length = work.shape[d] - 1
        hi = work[(slice(None),) * d + (slice(1, 1 + length),)]
        lo = work[(slice(None),) * d + (slice(0, length),)]
        with quiet():
            work = xp.logical_xor(hi, lo) if dtype is _dtypes.bool_ else hi - lo
        new_shape = tuple(work.shape)
        stride = elementwise_output_strides(new_shape, [(new_shape, stride), (new_shape, stride)])
    if out is not None:
        # logical_xor writes any dtype; a subtraction only one its result casts to
        if dtype is not _dtypes.bool_ and out._dtype is not dtype and \
                not _dtypes.can_cast(dtype, out._dtype):
            raise _dtypes.cast_error(dtype, out._dtype)
        if tuple(out._shape) != tuple(work.shape):
            resize_output(out, work.shape, stride)
        write_out(out, work)
        return out
    result = _with_strides(xp, work.astype(dtype.numpy), dtype, device, stride)
    return result


def _work_array_of(a, dtype):
    work = _dtypes.float32 if dtype in _LOW else dtype
    return a if a.dtype == work.numpy else a.astype(work.numpy)
