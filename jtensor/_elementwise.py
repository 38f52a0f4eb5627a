"""The shared runner of every element-wise op (TensorIterator's job in PyTorch).

It converts Python numbers, checks devices, promotes dtypes with PyTorch's rules, broadcasts
with PyTorch's errors, picks the output layout PyTorch would pick (a transposed input gives a
transposed output), computes with the backend's array module, and writes ``out=`` or the
in-place target without leaving it half-written when something fails.
"""

import numbers
import warnings

import numpy as np

from . import _dtypes
from ._dispatch import (check_inplace, check_no_internal_overlap, check_no_partial_overlap,
                        check_same_device)
from ._errors import TensorRuntimeError, TensorTypeError, type_name
from ._layout import broadcast_shapes, contiguous_strides, elementwise_output_strides
from ._out import resize_output
from ._size import Size
from ._device import CPU_BACKEND
from ._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, fresh_tensor, new_empty_tensor

# NOTE: PyTorch follows IEEE arithmetic silently (1/0 is inf, 0/0 is nan, overflow is inf).
# NumPy warns about each of those; raised from inside jtensor's kernels, such warnings would
# only confuse, and silencing them per call with np.errstate costs more than a small add.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"jtensor\.")

# dtype rules: how the promoted input type becomes the computation and result types.
PROMOTE = "promote"        # result = promoted inputs (add, mul, maximum...)
FLOAT = "float"            # integers and bools become the default float (div, exp, sqrt...)
BOOL_RESULT = "bool"       # compare in the promoted type, return bool (eq, lt, logical_*)
INTEGRAL_ONLY = "integral"  # bitwise ops: bool or integer inputs only
SAME_AS_INPUT = "same"     # result keeps the first tensor's dtype (clamp with scalars...)

_LOW_PRECISION = (_dtypes.float16, _dtypes.bfloat16)
_NUMBER_TYPES = (bool, int, float, complex)


def _describe(dtype):
    return dtype._torch_name


def result_dtype(inputs):
    """PyTorch's ``result_type`` over tensors and Python numbers."""
    sized, zero_dim, scalars = [], [], []
    for x in inputs:
        if isinstance(x, Tensor):
            (sized if x._shape else zero_dim).append(x._dtype)
        else:
            scalars.append(x)
    return _dtypes.result_type_of(sized, zero_dim, scalars)


def _as_number(x, name):
    if x.__class__ is int:
        _dtypes.check_int_scalar(x)
        return x
    if isinstance(x, _NUMBER_TYPES):
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, numbers.Number):
        return complex(x) if isinstance(x, numbers.Complex) and not isinstance(
            x, numbers.Real) else float(x)
    raise TensorTypeError(
        f"{name}(): expected a Tensor or a number as argument, but got {type_name(x)}")


def elementwise(op, compute, inputs, *, out=None, inplace=None, rule=PROMOTE,
                result_dtype_override=None, real_result=False, fast=True):
    """Run ``compute`` element-wise over ``inputs`` (tensors and Python numbers).

    ``compute`` is the name of a function of the backend's array module (``"add"``), or a
    callable ``compute(xp, *arrays)`` for composites: ops never name NumPy directly, so the
    CUDA backend runs them unchanged.

    ``inplace``: the tensor to write into (``a.add_(b)``): it must already have the broadcast
    shape and a dtype the result can be cast to. ``out``: like PyTorch's ``out=``, resized
    when empty and otherwise required to match.

    ``fast=False``: the caller already tried ``_fast`` (unary ops do, before their
    error-state switch).

    Returns the result (``inplace`` or ``out`` when given); the op's entry finishes the call
    (the written tensor's version bump, the trace event).
    """
    if fast and out is None and result_dtype_override is None and not real_result:
        result = _fast(op, compute, inputs, rule) if inplace is None else \
            _fast_inplace(compute, inputs, rule, inplace)
        if result is not None:
            return result
    if inplace is not None:
        check_inplace(inplace)
    tensors = []
    values = []
    for x in inputs:
        if isinstance(x, np.ndarray) and x.ndim:
            x = Tensor._from_array(np.array(x))  # PyTorch treats t + ndarray as t + tensor
        if isinstance(x, Tensor):
            tensors.append(x)
            values.append(x)
        else:
            values.append(_as_number(x, op.name))
    if not tensors:
        raise TensorTypeError(f"{op.name}(): expected at least one Tensor argument")
    if len(tensors) > 1:
        device = check_same_device(tensors)
        backend = tensors[0]._storage._backend
        if backend.device is not device and backend.device != device:
            # a 0-d CPU tensor first: the other tensors' device computes
            backend = next(t._storage._backend for t in tensors if t._storage.device == device)
    else:
        device = tensors[0]._storage.device
        backend = tensors[0]._storage._backend

    # ---- dtypes
    promoted = result_dtype_override or result_dtype(values)
    if rule is FLOAT or rule == FLOAT:
        compute_dtype = (promoted if promoted.category >= _dtypes.FLOATING
                         else _dtypes.get_default_dtype())
        result = compute_dtype
    elif rule == BOOL_RESULT:
        compute_dtype, result = promoted, _dtypes.bool_
    elif rule == INTEGRAL_ONLY:
        if promoted.category > _dtypes.INTEGRAL:
            raise TensorRuntimeError(
                f"\"{op.name}\" is only defined for integer and bool tensors, "
                f"not for '{_describe(promoted)}'")
        compute_dtype = result = promoted
    elif rule == SAME_AS_INPUT:
        compute_dtype = result = tensors[0]._dtype
    else:
        compute_dtype = result = promoted
    if real_result:  # abs/angle: computed in complex, returned in the matching real type
        result = result.to_real()

    target = inplace if inplace is not None else out
    if target is not None and target._dtype is not result and rule != BOOL_RESULT:
        if not _dtypes.can_cast(result, target._dtype):
            raise _dtypes.cast_error(result, target._dtype)

    # ---- shapes and layout
    if len(tensors) == len(values) and len(tensors) == 1:
        shape = tensors[0]._shape
    else:
        shape = Size(broadcast_shapes(*(t._shape for t in tensors)))
    if inplace is not None and shape != inplace._shape:
        raise TensorRuntimeError(
            f"output with shape {list(inplace._shape)} doesn't match the broadcast shape "
            f"{list(shape)}")

    # ---- compute (float16/bfloat16 are computed in float32 and rounded, as on PyTorch's CPU)
    work_dtype = _dtypes.float32 if compute_dtype in _LOW_PRECISION else compute_dtype
    np_work = work_dtype.numpy
    if backend.deferred:
        return _launch(op, compute, tensors, values, np_work, result, shape, inplace, out,
                       backend, device, compute_dtype)
    arrays = []
    for v in values:
        if isinstance(v, Tensor):
            a = v._array()
            if v._storage._backend is not backend:
                a = a[()]  # a 0-d CPU tensor beside a GPU tensor: a number (see _operand)
            arrays.append(a if a.dtype == np_work else a.astype(np_work))
        else:
            arrays.append(_scalar_array(backend, v, np_work,
                                        _number_dtype(op, not arrays, compute_dtype)))
    xp = backend.xp
    np_result = result.numpy
    if inplace is not None and np_work == np_result and inplace._dtype.numpy == np_result:
        # Straight into the target's memory (``p.add_(g, alpha=-lr)`` in an optimizer step):
        # no result array, no copy. Elementwise kernels cannot fail half-way, and NumPy
        # handles operands that overlap the target.
        into = _into_form(compute)
        if into is not None:
            check_no_internal_overlap(inplace)
            check_no_partial_overlap(inplace, tensors)
            _compute_into(xp, into, arrays, inplace._array())
            return inplace
    computed = run_compute(xp, compute, arrays)
    if computed.dtype != np_result:
        computed = computed.astype(np_result)

    # ---- write the result
    if inplace is not None:
        check_no_partial_overlap(inplace, tensors)
        _write_into(inplace, computed)
        return inplace
    if out is not None:
        check_no_partial_overlap(out, tensors)
        _write_out(out, computed, shape, tensors, _layout_operands(op, tensors, values))
        return out
    strides = _output_strides(tensors, _layout_operands(op, tensors, values), shape)
    if computed.shape != tuple(shape):
        computed = backend.xp.broadcast_to(computed, tuple(shape))
    if strides is None or strides == contiguous_strides(shape):
        if not computed.flags.c_contiguous:
            computed = backend.xp.ascontiguousarray(computed)
        output = Tensor._from_array(computed, result, device)
    else:
        itemsize = result.itemsize
        if tuple(s // itemsize for s in computed.strides) == strides and not _has_overlap(computed):
            output = Tensor._from_array(computed, result, device)
        else:
            output = new_empty_tensor(shape, result, device, stride=strides)
            output._array()[...] = computed
    return output


# Ops whose Python-number operands are their kernel's parameters in PyTorch (a unary kernel:
# ``x ** 2``, ``float_power(x, 2)``, ``lerp(a, b, 0.5)``), not operands of its
# TensorIterator: the result is laid out by the tensors alone. (A number beside ``add``'s
# tensor is a wrapped 0-d operand, which takes part in that choice.) A number base
# (``2 ** x``) gives a contiguous result.
_NUMBER_PARAMETERS = frozenset(
    name + suffix for name in ("pow", "float_power", "lerp") for suffix in ("", "_"))


def _layout_operands(op, tensors, values):
    """The operands whose layouts decide a new result's (``_output_strides``' ``values``;
    none: contiguous)."""
    if op.name not in _NUMBER_PARAMETERS or len(tensors) == len(values):
        return values
    return tensors if isinstance(values[0], Tensor) else ()


def _output_strides(tensors, values, shape):
    """The layout of a new result (``None``: contiguous), as TensorIterator picks it."""
    if not values:
        return None
    if len(tensors) == 1 and len(values) == 1 and tensors[0]._shape == shape and \
            tensors[0].is_contiguous():
        return None  # same layout as the only input: contiguous
    return elementwise_output_strides(
        tuple(shape), [(tuple(v._shape), v._stride) if isinstance(v, Tensor) else ((), ())
                       for v in values])


def _launch(op, compute, tensors, values, np_work, result, shape, inplace, out, backend,
            device, compute_dtype=None):
    """The element-wise op as a kernel on an asynchronous device: the host checks, picks the
    output and queues the computation; nothing waits for the device."""
    if inplace is not None:
        check_no_internal_overlap(inplace)
        check_no_partial_overlap(inplace, tensors)
        target = inplace
    elif out is not None:
        check_no_partial_overlap(out, tensors)
        _resize_out(out, shape, tensors, _layout_operands(op, tensors, values))
        check_no_internal_overlap(out)
        target = out
    else:
        target = new_empty_tensor(shape, result, device, stride=_output_strides(
            tensors, _layout_operands(op, tensors, values), shape))
    arrays = [_operand(v, backend) if isinstance(v, Tensor)
              else _scalar_array(backend, v, np_work, _number_dtype(op, i == 0, compute_dtype))
              for i, v in enumerate(values)]
    destination = target._array_nowait()
    xp, np_result = backend.xp, result.numpy

    def kernel():
        computed = run_compute(xp, compute, [a if a.dtype == np_work else a.astype(np_work)
                                             for a in arrays])
        if computed.dtype != np_result:
            computed = computed.astype(np_result)
        destination[...] = computed

    backend.launch(op.name, kernel)
    return target


def run_compute(xp, compute, arrays):
    """``compute`` (an array-module function name or ``compute(xp, *arrays)``) on ``arrays``.

    Floating-point warnings are normally dropped by the module's warnings filter; where the
    user has made warnings errors (``-W error``), the ufunc raises instead, and the pure
    computation is simply redone with NumPy's error state silenced.
    """
    try:
        return getattr(xp, compute)(*arrays) if type(compute) is str else compute(xp, *arrays)
    except RuntimeWarning:
        with np.errstate(all="ignore"):
            return getattr(xp, compute)(*arrays) if type(compute) is str \
                else compute(xp, *arrays)


def run_quietly(compute, *args):
    """``compute(*args)`` for an array path that makes the public ops' array calls itself:
    where the user has made warnings errors, redone with NumPy's error state silenced, as
    ``run_compute`` redoes each op's call."""
    try:
        return compute(*args)
    except RuntimeWarning:
        with np.errstate(all="ignore"):
            return compute(*args)


# The integer type whose bits a float dtype's elements are (``zero_where``'s mask).
_SAME_SIZE_INT = {2: "int16", 4: "int32", 8: "int64"}


def zero_where(xp, mask, a):
    """``where(mask, +0.0, a)`` bit for bit (a NaN or -0.0 of ``a`` kept where ``mask`` is
    false), for ReLU and its backward: on float arrays of a few thousand elements or more,
    one AND of ``a``'s bits with a mask (all ones where ``a`` is kept), in about a third of
    ``where``'s time (below that NumPy's per-call cost dominates: ``where`` makes fewer
    calls)."""
    bits = _SAME_SIZE_INT.get(a.dtype.itemsize) if a.dtype.kind == "f" and a.size >= 2048 \
        else None
    if bits is None:
        return xp.where(mask, a.dtype.type(0), a)
    if not a.flags.c_contiguous:
        a = xp.ascontiguousarray(a)
    keep = keep_mask(xp, mask, bits)   # -1 (all bits set) where ``a`` is kept
    return xp.bitwise_and(a.view(bits), keep, out=keep).view(a.dtype)


def keep_mask(xp, mask, bits):
    """``mask - 1`` as integers of type ``bits`` (``mask`` a bool array): 0 where ``mask``
    holds, -1 (all bits set) where not. On the host the subtraction runs on the mask's bytes
    and the result is widened after, in two thirds of the time of a subtraction that casts
    each element (half for 64-bit masks)."""
    if xp is not np:
        return xp.subtract(mask, 1, dtype=bits)
    return np.subtract(mask.view(np.int8), _INT8_ONE).astype(bits)


_INT8_ONE = np.int8(1)


def select(c, a, b):
    """``np.where(c, a, b)`` bit for bit, for a bool array ``c`` of the result's shape and
    float arrays ``a`` and ``b`` of one dtype broadcasting to it (0-d ones too: a fill value).
    ``where`` copies each element's bits from one operand, so any exact selection is its
    result: from a few thousand elements on, a blend of the bits, ``a ^ ((a ^ b) & keep)``
    with ``keep`` all ones where ``b`` is taken, four passes that cost a tenth of NumPy's
    ``where`` on an unpredictable mask (a million float32: 0.4 against 4 ms, branch misses);
    below that, or for anything else, ``where`` itself. ``zero_where`` is the same idea."""
    bits = _SAME_SIZE_INT.get(a.dtype.itemsize) if a.dtype.kind == "f" else None
    if c.size < 2048 or bits is None or b.dtype != a.dtype or c.dtype != np.bool_ \
            or c.__class__ is not np.ndarray \
            or np.broadcast_shapes(c.shape, a.shape, b.shape) != c.shape:
        return np.where(c, a, b)
    keep = keep_mask(np, c, bits)   # 0 where ``c`` (take ``a``), -1 where not
    a = a.view(bits)
    blend = np.bitwise_xor(a, b.view(bits))
    np.bitwise_and(keep, blend, out=keep)
    np.bitwise_xor(keep, a, out=keep)
    return keep.view(b.dtype)


# ``bounded``: the elements a row of the bound holds, and the fewest elements an array needs
# to take the row path (below it NumPy's per-call cost outweighs the gain).
_ROW = 8192
_ROW_FROM = 1 << 14
_ROWS = {}   # (dtype, the bound's bytes) -> a read-only row of the bound
_FLOAT_MAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def _bound_row(bound):
    key = (bound.dtype, bound.tobytes())
    row = _ROWS.get(key)
    if row is None:
        if len(_ROWS) >= 64:   # (bounds are few: clamp's and hardtanh's constants)
            _ROWS.clear()
        row = np.full(_ROW, bound, bound.dtype)
        row.flags.writeable = False
        _ROWS[key] = row
    return row


def bounded(ufunc, bound, a, out=None):
    """``ufunc(bound, a, out=out)`` for ``np.maximum``/``np.minimum`` and a 0-d ``bound`` of
    ``a``'s dtype (relu's zero, clamp's bounds): on a big C-contiguous array, the bound as a
    row of ``_ROW`` equal elements against ``a`` seen as rows of that length, so NumPy runs
    its vector loop (two contiguous operands), in a third of the time of its loop with a
    broadcast operand. The same elements: the ufunc picks one operand per element (the same
    one, ties and NaNs included, as ``tests/ops/test_bounded.py`` checks bit for bit)."""
    n = a.size
    if (bound.__class__ is float or bound.__class__ is int) and n >= _ROW_FROM \
            and a.__class__ is np.ndarray and a.dtype.kind == "f":
        # A Python number as NumPy converts it beside a float array (rounded to its dtype),
        # where that is a finite number.
        if not -_FLOAT_MAX[a.dtype] <= bound <= _FLOAT_MAX[a.dtype]:
            return ufunc(bound, a, out=out)
        bound = a.dtype.type(bound)
    if n < _ROW_FROM or a.__class__ is not np.ndarray or getattr(bound, "ndim", None) != 0 \
            or bound.dtype != a.dtype \
            or not a.flags.c_contiguous or (out is not None and not out.flags.c_contiguous):
        return ufunc(bound, a, out=out)
    if out is None:
        out = np.empty(a.shape, a.dtype)
    flat, into = a.reshape(-1), out.reshape(-1)
    whole = n - n % _ROW
    ufunc(_bound_row(bound), flat[:whole].reshape(-1, _ROW), out=into[:whole].reshape(-1, _ROW))
    if whole < n:
        ufunc(bound, flat[whole:], out=into[whole:])
    return out


_FAST_FLOATS = ARRAY_FLOATS
_FAST_SCALARS = (float, int)


def _fast_result_table():
    """(rule, input dtype) -> result dtype, for the combinations the fast path may take."""
    table = {}
    for dtype in _dtypes.ALL:
        if dtype in _LOW_PRECISION:
            continue  # computed in float32 and rounded: the general path does that
        table[(PROMOTE, dtype)] = table[(SAME_AS_INPUT, dtype)] = dtype
        table[(BOOL_RESULT, dtype)] = _dtypes.bool_
        if dtype in _FAST_FLOATS:
            table[(FLOAT, dtype)] = dtype
    return table


_FAST_RESULT = _fast_result_table()


def _fast(op, compute, inputs, rule):
    """The common case, decided in a few checks: contiguous operands of one shape and dtype.

    Returns ``None`` (nothing computed) whenever any general rule could matter: mixed
    dtypes or devices, broadcasting, non-contiguous layouts, low-precision floats, Python
    numbers next to integer tensors (whose wrap-around the general path handles).
    """
    first = inputs[0]
    if not isinstance(first, Tensor):
        if len(inputs) == 2 and first.__class__ in _FAST_SCALARS and compute.__class__ is str:
            return _fast_number_first(compute, first, inputs[1], rule)
        return None
    dtype = first._dtype
    result = _FAST_RESULT.get((rule, dtype))
    if result is None:
        return None
    if len(inputs) == 2:
        other = inputs[1]
        if isinstance(other, Tensor) and (
                other._shape != first._shape or other._stride != first._stride):
            # Broadcasting, or operands laid out differently: the pair's layout decides.
            return _fast_pair(compute, first, other, dtype, result)
    contiguous = first._contiguous
    if contiguous is None:
        contiguous = first.is_contiguous()
    shape = first._shape
    # 1-D operands of any stride (a gradient expanded from a sum, a strided slice) give a
    # dense 1-D output whatever TensorIterator would sort: they take the fast path too.
    one_dim = len(shape) == 1
    if not contiguous and not one_dim and not _row_ordered(first):
        return None
    storage = first._storage
    if storage._backend.deferred:
        return None   # kernels are queued by the general path
    count = len(inputs)
    if count == 1:
        computed = run_compute(storage._backend.xp, compute, (first._array(),))
    elif count == 2:
        other = inputs[1]
        if isinstance(other, Tensor):
            if other._dtype is not dtype or other._shape != shape:
                return None
            other_device = other._storage.device
            if other_device is not storage.device and other_device != storage.device:
                return None
            if not (one_dim or other._contiguous or (
                    other._contiguous is None and other.is_contiguous())
                    or _row_ordered(other)):
                return None
            b = other._array()
        elif other.__class__ in _FAST_SCALARS and dtype in _FAST_FLOATS and \
                first._stride == contiguous_strides(shape):
            # (A number makes TensorIterator sort dims by stride, which only agrees with
            # contiguous output strides when size-1 dims carry their standard strides.)
            b = other
        else:
            return None
        xp = storage._backend.xp
        computed = run_compute(xp, compute, (first._array(), b))
    else:
        return None
    return _fast_result(computed, shape, result, storage)


def fast_unary(compute, first, rule):
    """``_fast`` for one plain ``Tensor`` operand (a unary op's call with no options, the
    commonest element-wise call of all), with its checks in the same order and fewer
    frames: a contiguous (or 1-D, or row-ordered) operand of a fast dtype on a backend that
    computes at once; None where ``_fast`` would decline."""
    result = _FAST_RESULT.get((rule, first._dtype))
    if result is None:
        return None
    contiguous = first._contiguous
    if contiguous is None:
        contiguous = first.is_contiguous()
    shape = first._shape
    if not contiguous and len(shape) != 1 and not _row_ordered(first):
        return None
    storage = first._storage
    backend = storage._backend
    if backend.deferred:
        return None
    computed = run_compute(backend.xp, compute, (first._array(),))
    if computed.__class__ is np.ndarray and computed.dtype == result.numpy and shape \
            and computed.shape == shape and computed.flags.c_contiguous:
        return fresh_tensor(Tensor, computed, shape, result, storage.device, backend)
    return _fast_result(computed, shape, result, storage)


def _fast_number_first(compute, number, tensor, rule):
    """``_fast`` for a number then a tensor (``1 - x``: the reflected operators of a
    kernel NumPy names) under the conditions ``_fast`` puts on a number beside a tensor."""
    if not isinstance(tensor, Tensor):
        return None
    dtype = tensor._dtype
    result = _FAST_RESULT.get((rule, dtype))
    shape = tensor._shape
    storage = tensor._storage
    if result is None or dtype not in _FAST_FLOATS or storage._backend.deferred \
            or tensor._stride != contiguous_strides(shape):
        return None
    computed = run_compute(storage._backend.xp, compute, (number, tensor._array()))
    return _fast_result(computed, shape, result, storage)


def _fast_result(computed, shape, result, storage):
    """The tensor of a fast path's computed array: ``result``'s dtype, C-contiguous."""
    if computed.dtype != result.numpy:
        computed = computed.astype(result.numpy)
    if computed.shape != shape:
        computed = storage._backend.xp.broadcast_to(computed, shape)
    if not computed.flags.c_contiguous:
        computed = storage._backend.xp.ascontiguousarray(computed)
    elif not shape and isinstance(computed, np.generic):
        computed = np.asarray(computed)  # a NumPy scalar from a 0-d computation
    return fresh_tensor(Tensor, computed, shape, result, storage.device, storage._backend)


def _fast_inplace(compute, inputs, rule, target):
    """The common in-place call (``x.add_(y, alpha=a)``, ``x.mul_(0.5)``, ``x.sub_(y)``)
    decided in a few checks: a contiguous CPU target whose dtype is the result's (float32,
    float64 or an integer without number operands), tensor operands of its dtype and shape
    that are the target itself or live on other storages (nothing to judge for overlap),
    and Python numbers beside a float target. Computes as the general path does (straight
    into the target where the kernel has an ``into`` form) and returns ``target``; None,
    having done nothing, for anything else."""
    dtype = target._dtype
    if _FAST_RESULT.get((rule, dtype)) is not dtype or target.__class__ not in DENSE_CLASSES:
        return None
    storage = target._storage
    if storage._backend is not CPU_BACKEND or not (
            target._contiguous if target._contiguous is not None else target.is_contiguous()):
        return None
    shape = target._shape
    arrays = []
    for x in inputs:
        if x is target:
            arrays.append(x._array())
        elif isinstance(x, Tensor):
            if x._dtype is not dtype or x._shape != shape or x._storage is storage \
                    or x.__class__ not in DENSE_CLASSES or x._storage._backend is not CPU_BACKEND:
                return None
            arrays.append(x._array())
        elif x.__class__ in _FAST_SCALARS and dtype in _FAST_FLOATS:
            arrays.append(_scalar_array(CPU_BACKEND, x, dtype.numpy))
        else:
            return None
    check_inplace(target)
    into = _into_form(compute)
    if into is not None:
        _compute_into(np, into, arrays, target._array())
        return target
    target._array()[...] = run_compute(np, compute, arrays)
    return target


def _into_form(compute):
    """The form of ``compute`` that writes into an ``out=`` array (a ufunc's name, or the
    callable's ``into``), or None."""
    return compute if type(compute) is str else getattr(compute, "into", None)


def _compute_into(xp, into, arrays, out):
    """Run ``into`` straight into ``out`` with NumPy's warnings silenced: a write into the
    target cannot be redone under ``-W error`` as ``run_compute`` redoes a pure call."""
    with np.errstate(all="ignore"):
        if type(into) is str:
            getattr(xp, into)(*arrays, out=out)
        else:
            into(xp, *arrays, out=out)


# The (shape, stride) of each operand (None for a Python number) -> their broadcast shape
# when TensorIterator gives the result contiguous strides, else False. Errors are never kept;
# cleared past 4096 entries.
_RESULT_LAYOUT = {}


def contiguous_result_shape(*operands):
    """The broadcast shape of ``operands`` (tensors, or None for a number) when their
    element-wise result is contiguous, as the general path's ``_output_strides`` lays it
    out, else None (a permuted layout, or shapes that do not broadcast: the general path
    raises PyTorch's error)."""
    key = tuple(None if t is None else (t._shape, t._stride) for t in operands)
    shape = _RESULT_LAYOUT.get(key)
    if shape is None:
        layouts = [((), ()) if k is None else k for k in key]
        try:
            shape = tuple(broadcast_shapes(*(k[0] for k in layouts)))
        except TensorRuntimeError:
            return None
        if elementwise_output_strides(shape, layouts) != contiguous_strides(shape):
            shape = False
        if len(_RESULT_LAYOUT) >= 4096:
            _RESULT_LAYOUT.clear()
        _RESULT_LAYOUT[key] = shape
    return None if shape is False else shape   # (a 0-d result's shape is (), not None)


def _fast_pair(compute, first, other, dtype, result):
    """``_fast`` for two tensors of one dtype on one CPU-like device whose shapes or strides
    differ (``x - row``, ``x * col``, ``x * scale_0d``, an expanded operand): one array call,
    when the pair's result is contiguous; None otherwise (the general path decides)."""
    if other._dtype is not dtype:
        return None
    storage = first._storage
    if storage._backend.deferred or (other._storage.device is not storage.device
                                     and other._storage.device != storage.device):
        return None
    shape = contiguous_result_shape(first, other)
    if shape is None:
        return None
    xp = storage._backend.xp
    computed = run_compute(xp, compute, (first._array(), other._array()))
    if computed.dtype != result.numpy:
        computed = computed.astype(result.numpy)
    if computed.shape != shape:
        computed = xp.broadcast_to(computed, shape)
    if not computed.flags.c_contiguous:
        computed = xp.ascontiguousarray(computed)
    elif not shape and isinstance(computed, np.generic):
        computed = np.asarray(computed)
    return fresh_tensor(Tensor, computed, shape, result, storage.device, storage._backend)


def _row_ordered(t):
    """Whether ``t``'s strides fall strictly from dim to dim, every size above 1 (a slice of
    the columns of a matrix: an LSTM's gate chunk, ``x[:, ::2]``). TensorIterator keeps the
    dims in order for such an operand, so the result is contiguous, as the fast path makes
    it; anything else (size-1 dims, broadcast or permuted strides) takes the general path."""
    previous = None
    for size, stride in zip(t._shape, t._stride, strict=True):
        if size == 1 or stride <= 0 or (previous is not None and stride >= previous):
            return False
        previous = stride
    return True


def _has_overlap(array):
    return 0 in array.strides and array.size > 1


def _operand(tensor, backend):
    """``tensor``'s array for a kernel being queued on ``backend`` (without waiting for the
    kernels before it). A 0-d CPU tensor beside a GPU tensor is a number to the kernel, as
    PyTorch passes it by value: device array modules refuse host arrays as operands."""
    if tensor._storage._backend is backend:
        return tensor._array_nowait()
    return tensor._array()[()]


# Ops whose CPU kernels use a number after the first operand at its own precision (in
# float32 for float16/bfloat16 tensors: ``original_scalar_value`` in PyTorch's mul, div and
# lerp kernels); every other op casts the number to the tensor's low-precision dtype first.
_ORIGINAL_SCALAR = frozenset(
    name + suffix for name in ("mul", "multiply", "div", "divide", "true_divide",
                               "floor_divide", "lerp") for suffix in ("", "_"))


def _number_dtype(op, first, compute_dtype):
    """The low-precision dtype a number operand of ``op`` is rounded to before the float32
    computation (``_scalar_array``'s ``dtype``), or None."""
    if compute_dtype in _LOW_PRECISION and (first or op.name not in _ORIGINAL_SCALAR):
        return compute_dtype
    return None


def _scalar_array(backend, value, np_dtype, dtype=None):
    """A Python number as an operand of ``np_dtype``, wrapping like a C cast would: a 0-d
    array on the CPU; on a device, a NumPy scalar, which CuPy passes to the kernel as an
    argument (a 0-d device array would cost an allocation and a host-to-device copy)."""
    return number_operand(backend.xp, value, np_dtype, dtype)


def number_operand(xp, value, np_dtype, dtype=None):
    """``_scalar_array`` for the array module ``xp`` (a kernel's number parameter)."""
    if dtype is not None and value.__class__ is not bool:
        # PyTorch casts a wrapped number to the op's dtype first: ``half + 1/3`` adds
        # half(1/3), and ``half % 0.1`` divides by half(0.1) (computed in float32 after).
        with np.errstate(all="ignore"):
            value = np.asarray(value, dtype=dtype.numpy)
    try:
        array = np.asarray(value, dtype=np_dtype)
    except OverflowError:
        with np.errstate(over="ignore"):
            array = np.asarray(value).astype(np_dtype)
    return array if xp is np else array[()]


def _write_into(target, computed):
    """Write a finished result into ``target`` (casting); no partial writes on failure."""
    check_no_internal_overlap(target)
    target._array()[...] = computed


def _write_out(out, computed, shape, tensors, values):
    """Write into ``out=``; an ``out`` PyTorch has to resize gets the layout the result would
    have had (TensorIterator's output strides: ``add(x.t(), x.t(), out=empty(0))`` is
    column-major), one of the right shape keeps its own."""
    _resize_out(out, shape, tensors, values)
    _write_into(out, computed)


def _resize_out(out, shape, tensors, values):
    if tuple(out._shape) != tuple(shape):
        resize_output(out, shape, _output_strides(tensors, values, shape))
