"""Softmax: ``softmax`` and ``log_softmax`` along a dim.

Signatures, result dtypes, layouts and errors follow PyTorch 2.13. float16/bfloat16 are
computed in float32 and rounded back, as PyTorch's CPU kernels do; softmax subtracts the
row maximum first so huge logits do not overflow. Results are fresh contiguous tensors.
"""

from .. import _dtypes
from .._errors import TensorTypeError, wrap_dim
from .._registry import register
from .products import _not_for, _work
from .reductions import _xp, check_out, check_tensor, fp_quiet, wrap_result, write_out


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
