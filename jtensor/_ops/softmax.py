"""Softmax: ``softmax`` and ``log_softmax`` along a dim.

Signatures, result dtypes, layouts and errors follow PyTorch 2.13. float16/bfloat16 are
computed in float32 and rounded back, as PyTorch's CPU kernels do; softmax subtracts the
row maximum first so huge logits do not overflow. Results are fresh contiguous tensors.
"""

import numpy as np

from .. import _dtypes
from .._device import CPU_BACKEND
from .._errors import TensorTypeError, wrap_dim
from .._registry import register
from .._tensor import ARRAY_FLOATS, Tensor, fresh_tensor
from .products import _not_for, _work
from .reductions import (_xp, check_out, check_tensor, fp_quiet, last_axis_max, wrap_result,
                         write_out)


# ---------------------------------------------------------------------- softmax
_MAX = np.maximum.reduce
_SUM = np.add.reduce


def _softmax_arrays(a, axis, log):
    """The general path's computation below on a float32/float64 host array ``a`` of at
    least one dim and one element, with the ufuncs called directly and the exponentials
    and the quotient written into the shifted array (the same operations, fewer arrays)."""
    top = last_axis_max(a) if axis == a.ndim - 1 else _MAX(a, axis=axis, keepdims=True)
    shifted = np.subtract(a, top)
    if log:
        lse = np.log(_SUM(np.exp(shifted), axis=axis, keepdims=True))
        return np.subtract(shifted, lse, out=shifted)
    np.exp(shifted, out=shifted)
    return np.divide(shifted, _SUM(shifted, axis=axis, keepdims=True), out=shifted)


def _softmax(op, name, log, input, dim, dtype, out=None):
    if out is None and dtype is None and dim.__class__ is int and input.__class__ is Tensor \
            and input._dtype in ARRAY_FLOATS and input._shape \
            and -len(input._shape) <= dim < len(input._shape) \
            and input._storage._backend is CPU_BACKEND and input.numel():
        # The common call (``F.softmax(scores, dim=-1)``), decided in a few checks.
        a = input._array()
        try:
            r = _softmax_arrays(a, dim % len(input._shape), log)
        except RuntimeWarning:   # (warnings made errors: redone quietly, as below)
            with fp_quiet():
                r = _softmax_arrays(a, dim % len(input._shape), log)
        if not r.flags.c_contiguous:   # (the layout of a transposed input)
            r = np.ascontiguousarray(r)
        return fresh_tensor(Tensor, r, input._shape, input._dtype, input._storage.device,
                            CPU_BACKEND)
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
        # (Only floating-point warnings can arise: NumPy's error state silences them, at a
        # fifth of the cost of also resetting the warnings filters.)
        with fp_quiet():
            shifted = a - a.max(axis=axis, keepdims=True)  # stability: exp(<= 0)
            if log:
                # (``shifted`` is ours: the result is written into it, no third array.)
                lse = xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
                r = xp.subtract(shifted, lse, out=shifted) if shifted.ndim else shifted - lse
            else:
                e = xp.exp(shifted)
                r = e / e.sum(axis=axis, keepdims=True)
    if out is not None:
        write_out(out, r)
        return out
    return wrap_result(xp, r, target, input.device)


@register("copy")
def softmax(input, dim, dtype=None, *, out=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (required), optionally computed in ``dtype``."""
    return _softmax(softmax.op, "softmax", False, input, dim, dtype, out)


@register("copy")
def log_softmax(input, dim, dtype=None, *, out=None):
    """``x - logsumexp(x)`` along ``dim`` (required), optionally computed in ``dtype``."""
    return _softmax(log_softmax.op, "log_softmax", True, input, dim, dtype, out)
