"""``make_tensor``: a random tensor for tests, drawn as PyTorch draws it (``randint`` for
booleans and integers, ``uniform_`` for floating and complex dtypes, in the same order), so
that under the same seed jtensor and PyTorch give the same values."""

import collections.abc
import math
import warnings

from .. import _dtypes
from .._api import ops as J

_INTEGRAL = (_dtypes.uint8, _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64)
_FLOATING = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
_COMPLEX = (_dtypes.complex64, _dtypes.complex128)
_EXACT = (_dtypes.bool_, *_INTEGRAL)


def _interval(dtype, low, high, lowest, highest, default_low, default_high):
    """``[low, high)`` with the defaults filled in, checked and clamped into the dtype's
    range; integers round up (randint's upper bound is exclusive)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or "
            "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
            "`torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low = min(max(low, lowest), highest)
    high = min(max(high, lowest), highest)
    if dtype in _EXACT:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t, low, high):
    # A range wider than the dtype's largest value would overflow: draw half of it, double.
    if high - low >= _dtypes.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    """A tensor of ``shape`` and ``dtype`` on ``device`` filled with values drawn uniformly
    from ``[low, high)``: by default [0, 2) for bool, [0, 10) for uint8, [-9, 10) for the
    signed integers and [-9, 9) for floating and complex dtypes (both parts), bounds clamped
    to the dtype's finite range. ``noncontiguous`` returns every other element of a twice as
    wide tensor (ignored below two elements), ``memory_format`` a copy in that format (the
    two are exclusive), ``exclude_zero`` replaces zeros by 1 (bool, integers) or the dtype's
    smallest normal value; ``requires_grad`` is for floating and complex dtypes only."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    dtype = _dtypes.to_dtype(dtype)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually "
            f"exclusive, but got noncontiguous={noncontiguous} and "
            f"memory_format={memory_format}"
        )
    if requires_grad and dtype in _EXACT:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral "
            f"dtypes, but got dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # Twice as wide, so the elements skipped differ from those kept.
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dtypes.bool_:
        low, high = _interval(dtype, low, high, 0, 2, 0, 2)
        result = J.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = _dtypes.iinfo(dtype)
        highest = info.max + (1 if dtype is not _dtypes.int64 else 0)
        low, high = _interval(dtype, low, high, info.min, highest, -9, 10)
        result = J.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING + _COMPLEX:
        real = dtype.to_real() if dtype in _COMPLEX else dtype
        info = _dtypes.finfo(real)
        low, high = _interval(dtype, low, high, info.min, info.max, -9, 9)
        if dtype in _COMPLEX:
            # PyTorch draws into view_as_real(result): real and imaginary parts interleaved.
            parts = J.empty((*shape, 2), device=device, dtype=real)
            _uniform_(parts, low, high)
            result = parts.view(dtype).squeeze(-1)
        else:
            result = J.empty(shape, device=device, dtype=dtype)
            _uniform_(result, low, high)
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by "
            "torch.testing.make_tensor(). To request support, file an issue at: "
            "https://github.com/pytorch/pytorch/issues"
        )
    if noncontiguous:
        # Starting at 1 also catches code that ignores the storage offset.
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        tiny = (
            1
            if dtype in _EXACT
            else _dtypes.finfo(dtype.to_real() if dtype in _COMPLEX else dtype).tiny
        )
        result[result == 0] = tiny
    if dtype in _FLOATING + _COMPLEX:
        result.requires_grad = requires_grad
    return result


__all__ = ["make_tensor"]
