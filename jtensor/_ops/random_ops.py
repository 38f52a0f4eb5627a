"""Random sampling: factories (rand, randn, randint, randperm, normal...), in-place fills
(uniform_, normal_, random_, exponential_, bernoulli_) and sampling from tensors (bernoulli,
multinomial, poisson).

Samples are drawn on the host from the generator's mt19937 engine with ATen's CPU kernels
(``jtensor/_mt19937.py``): the same seed gives PyTorch's CPU values, draw for draw, in the
order PyTorch's kernels write elements (memory order). They are then moved to the tensor's
device; arithmetic that mixes them with tensor data (``normal(mean, std)``) runs on the
backend's array module.
"""

import math
import warnings

import numpy as np

from .. import _dtypes
from .. import _mt19937 as _mt
from .._device import CPU, _default_device
from .._dispatch import check_inplace
from .._errors import TensorRuntimeError, TensorTypeError, type_name
from .._layout import numel as _numel
from .._registry import register
from .._size import Size
from .._tensor import Tensor, new_empty_tensor, preserve_format
from ..random import _rng
from .creation import (_check_out, _finalize, _place, _resize_out, _scalar_value, _shape_args,
                       _sequence_size, check_pin_memory, check_requires_grad, host_to_device,
                       resolve_device)

# Significand bits (with the implicit one) of each floating dtype: random_() draws integers in
# [0, 2**digits] so that every value is exactly representable, as PyTorch does.
_DIGITS = {_dtypes.float16: 11, _dtypes.bfloat16: 8, _dtypes.float32: 24, _dtypes.float64: 53,
           _dtypes.complex64: 24, _dtypes.complex128: 53}
_C_NAMES = {_dtypes.uint8: "unsigned char", _dtypes.int8: "signed char", _dtypes.int16: "short",
            _dtypes.int32: "int", _dtypes.int64: "int64_t", _dtypes.bool_: "bool",
            _dtypes.float16: "c10::Half", _dtypes.bfloat16: "c10::BFloat16",
            _dtypes.float32: "float", _dtypes.float64: "double"}


def _contig(xp, array):
    """C-contiguous without changing the rank (``ascontiguousarray`` makes 0-d 1-d)."""
    return array if array.flags.c_contiguous else array.copy(order="C")


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype._torch_name}\'')


def _require_floating(kernel, dtype, complex_ok=True):
    ok = (_dtypes.FLOATING, _dtypes.COMPLEX) if complex_ok else (_dtypes.FLOATING,)
    if dtype.category not in ok:
        raise _not_implemented(kernel, dtype)


def _fmt(x):
    """A number as PyTorch's C++ messages print it (``-1``, ``1.5``)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


# ---------------------------------------------------------------------- host sampling
def _real_dtype(dtype):
    return dtype.to_real() if dtype.category == _dtypes.COMPLEX else dtype


def _from_double(values, dtype):
    """``static_cast<scalar_t>(double)``: the half types go through float (c10's constructors
    take a float), the rest convert directly."""
    if dtype in (_dtypes.float16, _dtypes.bfloat16):
        values = values.astype(np.float32)
    with np.errstate(all="ignore"):
        return values.astype(dtype.numpy)


def _uniform_flat(eng, n, dtype, low=0.0, high=1.0):
    """``uniform_(low, high)`` values in kernel order (complex: real and imaginary parts
    interleaved, as PyTorch fills ``view_as_real``)."""
    if dtype.category == _dtypes.COMPLEX:
        real = dtype.to_real()
        v = _mt.uniform(eng, 2 * n, real.numpy, low, high)
        return (v[0::2] + 1j * v[1::2]).astype(dtype.numpy)
    return _mt.uniform(eng, n, dtype.numpy, low, high)


def _normal_flat(eng, n, dtype, mean=0.0, std=1.0, contiguous=True):
    """``normal_(mean, std)`` values in kernel order: the vectorised path for a contiguous
    tensor of at least 16 elements, the scalar (cached Box-Muller) path otherwise. Complex:
    the real view with std / sqrt(2)."""
    if dtype.category == _dtypes.COMPLEX:
        v = _normal_flat(eng, 2 * n, dtype.to_real(), mean, std / math.sqrt(2), contiguous)
        return (v[0::2] + 1j * v[1::2]).astype(dtype.numpy)
    if contiguous and n >= 16:
        return _mt.normal_fill(eng, n, dtype.numpy, mean, std)
    values = _mt.normal_scalar(eng, n, mean, std)
    if dtype is _dtypes.float64:
        return values
    if dtype is _dtypes.float32 and mean == 0.0 and std == 1.0:
        return values.astype(np.float32)  # below 9 in magnitude: no overflow to silence
    return _from_double(values, dtype)


def _shaped(flat, tensor):
    """Values drawn in ``tensor``'s memory order (the order TensorIterator walks it: axes by
    decreasing stride) arranged by index."""
    shape, stride = tuple(tensor._shape), tuple(tensor._stride)
    if tensor.is_contiguous() or len(shape) < 2:
        return flat.reshape(shape)
    # Size-1 axes (any stride) do not change the order of the elements.
    order = sorted(range(len(shape)), key=lambda d: -stride[d])
    arr = flat.reshape([shape[d] for d in order])
    return arr.transpose([order.index(d) for d in range(len(shape))])


def _to_dtype_int(x, dtype):
    """``static_cast<int64_t>(static_cast<scalar_t>(x))`` for a floating ``dtype`` (x86 gives
    the int64 minimum for what does not fit, such as an infinity)."""
    value = float(_from_double(np.array(float(x)), dtype).astype(np.float64))
    return int(value) if abs(value) < 2.0**63 else -(1 << 63)


def _update_from_to(low, high, dtype):
    """PyTorch's ``update_from``/``update_to``: move the bounds inward to the nearest values
    whose cast to ``dtype`` stays inside [low, high)."""
    digits = _DIGITS[dtype]
    if _to_dtype_int(low + 1, dtype) < low:
        n = abs(low + 1).bit_length() - 1
        low = _to_dtype_int(low + 1, dtype) + (1 << (n - digits + 1))
    if _to_dtype_int(high - 1, dtype) >= high:
        n = abs(high - 1).bit_length() - 1
        high = _to_dtype_int(high - 1, dtype) - (1 << (n - digits + 1))
    return low, high


def _integers(eng, n, low, high_exclusive, dtype):
    """``random_(low, high)`` in kernel order, cast to ``dtype``."""
    if dtype.category == _dtypes.FLOATING:
        low, high_exclusive = _update_from_to(low, high_exclusive, dtype)
    v = _mt.random_from_to(eng, n, high_exclusive - low, low)
    return _from_double(v, dtype) if dtype.category == _dtypes.FLOATING else v.astype(
        dtype.numpy, copy=False)


# ---------------------------------------------------------------------- factories
_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)


def _plain_shape(size):
    """``size`` as ``_shape_args`` gives it when it is plain non-negative ints (``f(2, 3)``,
    ``f((2, 3))``, ``f([2, 3])``), without the general parsing; None for anything else."""
    if len(size) == 1 and size[0].__class__ in (tuple, list, Size):
        size = size[0]
    elif not size:
        return None
    for s in size:
        if s.__class__ is not int or s < 0 or s > _INT64_MAX:
            return None
    return Size(tuple(size))


def _random_factory(op, size, sample, dtype, device, requires_grad, out, name):
    """Shared body of rand/randn/...: ``sample(shape, dtype)`` gives a host array."""
    if isinstance(size, Size):
        shape = size
    else:
        shape = _plain_shape(size)
        if shape is None:
            shape = _shape_args(size, name)
    if out is not None:
        _check_out(out, dtype, name)
        dtype = out._dtype
    else:
        dtype = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    check_requires_grad(dtype, requires_grad)
    if out is None and resolve_device(device).type == "meta":
        # No values on the meta device: nothing is drawn or allocated, whatever the size.
        return _finalize(new_empty_tensor(tuple(shape), dtype, resolve_device(device)),
                         requires_grad)
    values = sample(tuple(shape), dtype)
    if out is not None:
        from .._elementwise import _write_into

        _resize_out(out, shape)
        _write_into(out, host_to_device(values, out._storage.device, private=True))
        return _finalize(out, requires_grad)
    if (values.dtype == dtype.numpy and values.flags.c_contiguous
            and resolve_device(device).type == "cpu"):
        # What _place does for a fresh host array of the right dtype on the CPU.
        return _finalize(Tensor._from_array(values, dtype, CPU), requires_grad)
    return _finalize(_place(values, dtype, device, private=True), requires_grad)


@register("factory", method=False)
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples from [0, 1) (floating and complex dtypes)."""
    rng = _rng(generator, device)

    def sample(shape, dt):
        _require_floating("check_uniform_bounds", dt)
        return _uniform_flat(rng, _numel(shape), dt).reshape(shape)

    return _random_factory(rand.op, size, sample, dtype, device, requires_grad, out, "rand")


@register("factory", method=False)
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples (complex: each part has variance 1/2)."""
    rng = _rng(generator, device)

    def sample(shape, dt):
        _require_floating("normal_kernel_cpu", dt)
        return _normal_flat(rng, _numel(shape), dt).reshape(shape)

    return _random_factory(randn.op, size, sample, dtype, device, requires_grad, out, "randn")


def _int_arg(value, name, position):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, (bool, float, complex)) or not hasattr(value, "__index__"):
        raise TensorTypeError(
            f"randint(): argument '{name}' (position {position}) must be int, not "
            f"{type_name(value)}")
    return value.__index__()


def _check_random_bounds(low, high, dtype, kernel_name="random_"):
    """PyTorch's random_(from, to) checks: from < to and both inside ``dtype``'s range."""
    if dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("random_kernel_cpu", dtype)
    if high is not None and low >= high:
        raise TensorRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    cname = _C_NAMES.get(dtype, dtype.name)
    if dtype.category in (_dtypes.INTEGRAL, _dtypes.BOOL):
        info = np.iinfo(dtype.numpy) if dtype is not _dtypes.bool_ else None
        lo, hi = (0, 1) if info is None else (int(info.min), int(info.max))
        if not lo <= low <= hi:
            raise TensorRuntimeError(f"from is out of bounds for {cname}")
        if high is not None and not lo <= high - 1 <= hi:
            raise TensorRuntimeError(f"to - 1 is out of bounds for {cname}")
    else:
        # Floats: the bounds moved inward as PyTorch does, then checked against the dtype's
        # range (an error) and the exactly representable integers (a warning).
        digits = _DIGITS[dtype]
        if high is not None:
            low, high = _update_from_to(low, high, dtype)
            if low >= high:
                raise TensorRuntimeError(
                    f"random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={high}")
        top = (1 << digits) if high is None else high - 1
        biggest = float(_dtypes.finfo(dtype).max)
        for value, what in ((low, "from"), (top, "to - 1")):
            if not -biggest <= value <= biggest:
                raise TensorRuntimeError(f"{what} is out of bounds for {cname}")
        for value, what in ((low, "from"), (top, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                warnings.warn(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {cname} can support discrete uniform distribution only within "
                    "this range. This warning will become an error in version 1.7 release, "
                    "please fix the code in advance", UserWarning, stacklevel=4)


def _randint_fast(low, high, size, generator):
    """``randint(low, high, size)`` (plain ints, a tuple of plain ints, int64 on the default
    CPU device) as the general path draws it, without its parsing; None for any other call
    (the general path then checks and draws)."""
    if (low.__class__ is not int or high.__class__ is not int
            or not _INT64_MIN <= low < high <= _INT64_MAX + 1
            or _default_device[0] is not CPU):
        return None
    shape = _plain_shape((size,)) if size.__class__ in (tuple, Size) else None
    if shape is None:
        return None
    rng = _rng(generator)
    values = _mt.random_from_to(rng, _numel(shape), high - low, low).reshape(shape)
    return Tensor._from_array(values, _dtypes.int64, CPU)


@register("factory", method=False)
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Integers uniform in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``.

    The dtype is int64 unless ``dtype=`` says otherwise (floating dtypes are allowed).
    """
    if (len(args) == 3 and low is None and high is None and size is None and out is None
            and dtype is None and device is None and requires_grad is False and layout is None
            and pin_memory is False):
        fast = _randint_fast(args[0], args[1], args[2], generator)
        if fast is not None:
            return fast
    args = list(args)
    if size is None and args and not isinstance(args[-1], (int, float, Tensor)):
        size = args.pop()
    if high is None and args:
        high = args.pop()
    if low is None and args:
        low = args.pop()
    if args or high is None or size is None:
        raise TensorTypeError(
            "randint() received an invalid combination of arguments: expected "
            "(int high, tuple of ints size) or (int low, int high, tuple of ints size)")
    position = 2 if low is not None else 1
    high = _int_arg(high, "high", position)
    low = 0 if low is None else _int_arg(low, "low", 1)
    shape = _sequence_size(size, "randint")
    d = (out._dtype if out is not None else _dtypes.int64) if dtype is None \
        else _dtypes.to_dtype(dtype)
    _check_random_bounds(low, high, d)
    rng = _rng(generator, device)

    def sample(shape, dt):
        return _integers(rng, _numel(shape), low, high, dt).reshape(shape)

    return _random_factory(randint.op, shape, sample, d, device, requires_grad, out, "randint")


@register("factory", method=False)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype=``)."""
    n = _int_arg(n, "n", 1)
    if n < 0:
        raise TensorRuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = (out._dtype if out is not None else _dtypes.int64) if dtype is None \
        else _dtypes.to_dtype(dtype)
    if d is _dtypes.bool_ or d.category == _dtypes.COMPLEX:
        raise _not_implemented("randperm", d)
    if d.category == _dtypes.INTEGRAL and n > 0 and n - 1 > np.iinfo(d.numpy).max:
        raise TensorRuntimeError(
            f"value cannot be converted to type {d.name}_t without overflow (n={n})")
    if d.category == _dtypes.FLOATING and n > (1 << _DIGITS[d]) + 1:
        raise TensorRuntimeError(
            f"n cannot be greater than 2^{_DIGITS[d]}+1 for {d} (got n={n})")
    rng = _rng(generator, device)

    def sample(shape, dt):
        return _mt.randperm(rng, n).astype(dt.numpy)

    return _random_factory(randperm.op, Size((n,)), sample, d, device, requires_grad, out,
                           "randperm")


# ---------------------------------------------------------------------- *_like
def _random_like(op, input, sample, dtype, device, requires_grad, memory_format,
                 pin_memory=False):
    from .._elementwise import _write_into
    from .copies import strides_for_format

    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"{op.name}(): argument 'input' must be Tensor, not {type_name(input)}")
    d = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    check_requires_grad(d, requires_grad)
    dev = input._storage.device if device is None else resolve_device(device)
    pinned = check_pin_memory(pin_memory, dev, op.name)
    out = new_empty_tensor(input._shape, d, dev, stride=strides_for_format(input, memory_format),
                           pinned=pinned)
    # Drawn in the result's memory order, as PyTorch's kernels fill the new tensor.
    values = _shaped(sample(_numel(input._shape), d, out.is_contiguous()), out)
    _write_into(out, host_to_device(values, dev, private=True))
    return _finalize(out, requires_grad)


@register("factory", method=False)
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=preserve_format, pin_memory=False):
    """``rand`` shaped like ``input`` (its dtype, device and dim order by default)."""
    rng = _rng(generator, input.device if device is None else device)

    def sample(n, dt, contiguous):
        _require_floating("check_uniform_bounds", dt)
        return _uniform_flat(rng, n, dt)

    return _random_like(rand_like.op, input, sample, dtype, device, requires_grad, memory_format,
                        pin_memory)


@register("factory", method=False)
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=preserve_format, pin_memory=False):
    """``randn`` shaped like ``input``."""
    rng = _rng(generator, input.device if device is None else device)

    def sample(n, dt, contiguous):
        _require_floating("normal_kernel_cpu", dt)
        return _normal_flat(rng, n, dt, contiguous=contiguous)

    return _random_like(randn_like.op, input, sample, dtype, device, requires_grad,
                        memory_format, pin_memory)


def _randint_like_bounds(args, low, high):
    """``(low, high)`` of ``randint_like(input, high)``, ``randint_like(input, low, high)``
    or their keyword forms (``low`` defaults to 0; ``high`` is required)."""
    if len(args) > 2:
        raise TensorTypeError(f"randint_like() takes from 2 to 3 positional arguments but "
                              f"{len(args) + 1} were given")
    if len(args) == 2:
        if low is not None or high is not None:
            raise TensorTypeError("randint_like() got multiple values for argument "
                                  f"'{'low' if low is not None else 'high'}'")
        low, high = args
    elif len(args) == 1:
        # One positional bound is ``high`` alone, or ``low`` when ``high=`` names the other.
        if high is None:
            if low is not None:
                raise TensorTypeError("randint_like() received an invalid combination of "
                                      "arguments: one positional bound (high) and low=")
            high = args[0]
        elif low is not None:
            raise TensorTypeError("randint_like() got multiple values for argument 'low'")
        else:
            low = args[0]
    if high is None:
        raise TensorTypeError("randint_like() missing required argument 'high' (pos 2)")
    position = 3 if low is not None else 2
    return (0 if low is None else _int_arg(low, "low", 2)), _int_arg(high, "high", position)


@register("factory", method=False)
def randint_like(input, *args, low=None, high=None, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=preserve_format,
                 pin_memory=False):
    """Integers in [low, high) shaped like ``input``, with ``input``'s dtype (floats allowed):
    ``randint_like(input, high)`` or ``randint_like(input, low, high)``, or by keyword."""
    low, high = _randint_like_bounds(args, low, high)
    d = input._dtype if dtype is None else _dtypes.to_dtype(dtype)
    _check_random_bounds(low, high, d)
    rng = _rng(generator, input.device if device is None else device)

    def sample(n, dt, contiguous):
        return _integers(rng, n, low, high, dt)

    return _random_like(randint_like.op, input, sample, dtype, device, requires_grad,
                        memory_format, pin_memory)


# ---------------------------------------------------------------------- normal
def _check_std_tensor(std):
    xp = std._storage._backend.xp
    if std.numel() and bool(xp.any(std._array() < 0)):
        raise TensorRuntimeError("normal expects all elements of std >= 0.0")


def _check_std_scalar(std):
    if std < 0:
        raise TensorRuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


# A "copy" op (not a factory): with a mean or std tensor that requires grad the call is
# recorded (NormalBackward1/2/3, zero gradients: PyTorch's normal is not reparameterised).
@register("copy", method=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal samples: ``normal(mean_tensor, std_tensor)``, ``normal(mean_tensor, std=1.0)``,
    ``normal(mean, std_tensor)`` or ``normal(mean, std, size)``.

    Tensor forms broadcast ``mean`` with ``std`` and take the dtype of the tensor ``mean``
    (else of ``std``).
    """
    from .._elementwise import _write_into
    from .._layout import broadcast_shapes

    rng = _rng(generator, device)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TensorTypeError(
                "normal() received an invalid combination of arguments: with a number mean and "
                "std, pass size= (normal(mean, std, size))")
        mean, std = _scalar_value(mean, "normal"), _scalar_value(std, "normal")
        _check_std_scalar(std)
        shape = _sequence_size(size, "normal")

        def sample(shp, dt):
            _require_floating("normal_kernel_cpu", dt)
            return _normal_flat(rng, _numel(shp), dt, mean, std).reshape(shp)

        return _random_factory(normal.op, shape, sample, dtype, device, requires_grad, out,
                               "normal")
    if size is not None:
        raise TensorTypeError("normal(): size= is accepted only with a number mean and std")
    ref = mean if mean_t else std
    d = ref._dtype
    _require_floating("normal_kernel_cpu", d)
    if mean_t and std_t:
        shape = broadcast_shapes(mean._shape, std._shape)
        _check_std_tensor(std)
    elif mean_t:
        std = _scalar_value(std, "normal")
        _check_std_scalar(std)
        shape = mean._shape
    else:
        mean = _scalar_value(mean, "normal")
        _check_std_tensor(std)
        shape = std._shape
    if out is not None:
        _check_out(out, None, "normal")
    backend = ref._storage._backend
    xp = backend.xp
    if out is not None:
        d = out._dtype
    # PyTorch: a contiguous result filled by normal_(0, std) when std is a number (else
    # normal_(0, 1)), then mul_(std) and add_(mean), each rounded to the result's dtype.
    std_first = 1.0 if std_t else std
    noise = _normal_flat(rng, _numel(shape), d, 0.0, std_first).reshape(tuple(shape))
    values = host_to_device(noise, ref._storage.device, private=True)
    with np.errstate(all="ignore"):
        if std_t:
            s = std._array()
            values = xp.asarray(values * s).astype(d.numpy)
        m = mean._array() if mean_t else xp.asarray(mean).astype(d.numpy)
        values = xp.asarray(values + m).astype(d.numpy)
    if out is not None:
        _resize_out(out, shape)
        _write_into(out, values)
        return out
    return Tensor._from_array(_contig(xp, values), d, ref._storage.device)


# ---------------------------------------------------------------------- bernoulli & co
def _check_p_tensor(p):
    xp = p._storage._backend.xp
    arr = p._array()
    if p.numel() and not bool(xp.all((arr >= 0) & (arr <= 1))):
        raise TensorRuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)")


def _check_p_scalar(p, name="bernoulli_"):
    if not 0 <= p <= 1:
        raise TensorRuntimeError(f"{name} expects p to be in [0, 1], but got p={_fmt(p)}")


def _bernoulli_values(rng, shape, p, dtype, device, layout=None):
    """0/1 samples of ``dtype`` on ``device`` of ``shape``, drawn in the memory order of
    ``layout`` (the tensor written; None: a new contiguous one): ``p`` is a number (one double
    uniform per element, ``u < p``: PyTorch's default CPU kernel; its MKL kernel on Intel CPUs
    draws differently) or a tensor broadcast to ``shape`` (double ``p``: a double uniform
    each, other dtypes: a float uniform compared with ``float(p)``)."""
    shape = tuple(shape)
    n = _numel(shape)
    if not isinstance(p, Tensor):
        hit = _mt.bernoulli_scalar(rng, n, p)
        hit = hit.reshape(shape) if layout is None else _shaped(hit, layout)
        return host_to_device(hit.astype(dtype.numpy), device, private=True)
    if p._dtype is not _dtypes.float64:
        u = _mt.uniform(rng, n, np.float32)
        prob = np.broadcast_to(p._host_array().astype(np.float32), shape)
    else:
        u = _mt.uniform(rng, n, np.float64)
        prob = np.broadcast_to(p._host_array(), shape)
    u = u.reshape(shape) if layout is None else _shaped(u, layout)
    return host_to_device((u < prob).astype(dtype.numpy), device, private=True)


@register("copy")
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: ``input`` holds the probabilities, or ``p`` gives one for every element."""
    from .._elementwise import _write_into

    rng = _rng(generator, input.device)
    if p is None:
        if input._dtype.category != _dtypes.FLOATING:
            raise _not_implemented("bernoulli_tensor_cpu_p_", input._dtype)
        _check_p_tensor(input)
        prob = input
    else:
        if isinstance(p, Tensor):
            _check_p_tensor(p)
        else:
            p = _scalar_value(p, "bernoulli")
            _check_p_scalar(p)
        if input._dtype.category == _dtypes.COMPLEX:
            raise _not_implemented("bernoulli_scalar_cpu_", input._dtype)
        prob = p
    # PyTorch fills a new contiguous tensor (empty_like with the legacy contiguous format).
    values = _bernoulli_values(rng, input._shape, prob, input._dtype, input._storage.device)
    if out is not None:
        _check_out(out, None, "bernoulli")
        _resize_out(out, input._shape)
        _write_into(out, values)
        return out
    xp = input._storage._backend.xp
    return Tensor._from_array(_contig(xp, values), input._dtype, input._storage.device)


@register("copy")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from each row's (unnormalised) distribution; int64, contiguous.

    Without replacement PyTorch's exponential trick is used (``topk(p / Exp(1))``), so zero
    probability categories are drawn only once the others are exhausted.
    """
    from .._elementwise import _write_into

    if not 1 <= input.dim() <= 2:
        raise TensorRuntimeError(f"prob_dist must be 1 or 2 dim (got {input.dim()} dims)")
    if input._dtype.category != _dtypes.FLOATING:
        raise TensorRuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{input._dtype._torch_name}")
    if out is not None and out._dtype is not _dtypes.int64:
        raise TensorRuntimeError(
            f"multinomial expects Long tensor out, got: {out._dtype._torch_name}")
    num_samples = _int_arg(num_samples, "num_samples", 2)
    if num_samples <= 0:
        raise TensorRuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = input._shape[-1]
    if not replacement and num_samples > n_categories:
        raise TensorRuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {n_categories})")
    if n_categories > 1 << 24:
        raise TensorRuntimeError("number of categories cannot exceed 2^24")
    rows = 1 if input.dim() == 1 else input._shape[0]
    out_shape = (num_samples,) if input.dim() == 1 else (rows, num_samples)
    backend = input._storage._backend
    xp = backend.xp
    probs = xp.asarray(input._array(), dtype=xp.float64).reshape(rows, n_categories)
    if input.numel():
        if not bool(xp.all(xp.isfinite(probs) & (probs >= 0))):
            raise TensorRuntimeError(
                "probability tensor contains either `inf`, `nan` or element < 0")
        if bool(xp.any(probs.sum(axis=1) <= 0)):
            raise TensorRuntimeError(
                "invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator, input.device)
    device = input._storage.device
    if rows == 0:
        result = xp.zeros(out_shape, dtype=xp.int64)
    elif replacement and num_samples > 1:
        acc = np.float64 if input._dtype is _dtypes.float64 else np.float32
        host = input._host_array().reshape(rows, n_categories)
        result = host_to_device(_mt.multinomial_with_replacement(rng, host, num_samples, acc),
                                device, private=True)
    else:
        # PyTorch: q = empty_like(input).exponential_(1); argmax or topk of input / q, in the
        # input's dtype (one draw or without replacement).
        d = input._dtype
        # q is laid out like the input (empty_like): drawn in the input's memory order.
        u = _shaped(_mt.uniform(rng, rows * n_categories, np.float64), input)
        keys = _exponential_keys(u.reshape(rows, n_categories),
                                 input._host_array().reshape(rows, n_categories), d,
                                 num_samples)
        if num_samples == 1:
            result = np.argmax(keys, axis=1).reshape(rows, 1)
        else:
            # PyTorch's topk of the keys: its choice among equal ones (zero probabilities
            # drawn once the others are exhausted) is libstdc++'s, as jtensor's topk's.
            from .ordering import topk_arrays

            keys = Tensor._from_array(keys, _dtypes.float64, CPU)
            result = topk_arrays(keys, num_samples, 1, True, True)[1]
        result = host_to_device(result.astype(np.int64), device, private=True)
    result = result.reshape(out_shape)
    if out is not None:
        _resize_out(out, out_shape)
        _write_into(out, result)
        return out
    return Tensor._from_array(_contig(xp, result), _dtypes.int64, device)


_EXACT_KEYS = 512   # (up to this many, the selection costs more than it saves)


def _exponential_keys(u, probs, dtype, k):
    """multinomial's keys ``probs / q`` (in ``dtype``, as float64), ``q = -log1p(-u)`` as
    the C library computes it and rounded to ``dtype`` (PyTorch's ``exponential_``), for
    the (rows, n) uniforms ``u`` and probabilities ``probs``: exact where the draw can
    depend on them, the ``k`` largest of each row and all that may tie with them; every
    other key is -inf (it is drawn by nobody). NumPy's vector ``log1p`` is within an ulp
    of the C library's, so the keys from it are within a few of ``dtype``'s ulps of the
    exact ones: the elements whose approximate key comes close to the row's ``k``-th
    largest are recomputed with the C library's (Python's ``math.log1p``, one element at a
    time: the whole row's were most of a sampling step's time)."""
    rows, n = u.shape
    if u.size <= _EXACT_KEYS:   # (a character model's row: the C library's for all of it)
        exact = np.empty((rows, n))
        _exact_keys(exact, ..., u, probs, dtype)
        return exact
    with np.errstate(all="ignore"):
        q = _from_double(-np.log1p(-u), dtype)
        keys = (probs / q).astype(dtype.numpy).astype(np.float64)
        top = keys.max(axis=1) if k == 1 else np.partition(keys, n - k, axis=1)[:, n - k]
        # (keys are >= 0; 16 ulps of the dtype cover the approximate keys' error)
        tol = 16 * (2.0**-7 if dtype is _dtypes.bfloat16 else float(np.finfo(dtype.numpy).eps))
        near = keys >= (top * (1 - tol))[:, None]
    unsure = ~np.isfinite(top) | np.isnan(keys).any(axis=1)
    near[unsure] = True   # (a row with NaN or inf keys: all of it exactly)
    exact = np.full((rows, n), -np.inf)
    _exact_keys(exact, near, u, probs, dtype)
    if k > 1 and k < n:
        # Equal keys among a row's k + 1 largest: topk's choice among them depends on every
        # key of the row (libstdc++'s steps), so such a row is computed whole.
        head = -np.partition(-exact, k, axis=1)[:, :k + 1]
        head.sort(axis=1)
        tied = (head[:, 1:] == head[:, :-1]).any(axis=1) & ~near.all(axis=1)
        if tied.any():
            whole = np.zeros_like(near)
            whole[tied] = True
            _exact_keys(exact, whole, u, probs, dtype)
    return exact


def _exact_keys(keys, where, u, probs, dtype):
    """``keys[where] = probs / q`` with ``q`` from the C library's log1p, in ``dtype``
    (``where``: a mask, or ``...`` for every key)."""
    q = _from_double(-_mt.libm(math.log1p, -u[where]), dtype)
    with np.errstate(all="ignore"):
        keys[where] = (probs[where] / q).astype(dtype.numpy).astype(np.float64)


@register("copy", method=False)
def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (same dtype and shape)."""
    _require_floating("poisson_cpu", input._dtype, complex_ok=False)
    xp = input._storage._backend.xp
    rates = input._array()
    if input.numel() and not bool(xp.all(rates >= 0)):
        raise TensorRuntimeError("invalid Poisson rate, expected rate to be non-negative")
    host = np.ascontiguousarray(input._host_array()).astype(np.float64)
    values = _mt.poisson(_rng(generator, input.device), host.reshape(-1)).reshape(host.shape)
    values = values.astype(input._dtype.numpy)
    return Tensor._from_array(
        _contig(xp, host_to_device(values, input._storage.device, private=True)), input._dtype,
        input._storage.device)


# ---------------------------------------------------------------------- in-place fills
def _fill_inplace(self, values):
    from .._elementwise import _write_into

    _write_into(self, host_to_device(values, self._storage.device, private=True))
    return self


def _from_to(args, kwargs, defaults, name):
    """Parse ``(from, to)`` given positionally or as ``from=``/``to=`` keywords."""
    names = ("from", "to")
    values = list(defaults)
    if len(args) > 2:
        raise TensorTypeError(f"{name}() takes at most 2 positional arguments")
    for i, v in enumerate(args):
        values[i] = v
    for key, v in kwargs.items():
        if key in ("from", "from_"):
            values[0] = v
        elif key == "to":
            values[1] = v
        else:
            raise TensorTypeError(f"{name}() got an unexpected keyword argument '{key}'")
    _ = names
    return values


def _bounds_check_float(value, dtype, what):
    finfo_max = float(_dtypes.finfo(_real_dtype(dtype)).max)
    if not -finfo_max <= value <= finfo_max:
        raise TensorRuntimeError(
            f"{what} is out of bounds for {_C_NAMES.get(_real_dtype(dtype), dtype.name)}")


@register("inplace", function=False)
def uniform_(self, *args, generator=None, **kwargs):
    """Fill with uniform samples from [from, to) (defaults 0 and 1)."""
    low, high = _from_to(args, kwargs, (0.0, 1.0), "uniform_")
    _require_floating("check_uniform_bounds", self._dtype)
    low, high = _scalar_value(low, "uniform_"), _scalar_value(high, "uniform_")
    _bounds_check_float(low, self._dtype, "from")
    _bounds_check_float(high, self._dtype, "to")
    if low > high:
        raise TensorRuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > "
            f"to={_fmt(high)}")
    check_inplace(self)
    values = _uniform_flat(_rng(generator, self.device), _numel(self._shape), self._dtype, low,
                           high)
    return _fill_inplace(self, _shaped(values, self))


@register("inplace", function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples (complex: each part with variance std**2 / 2)."""
    _require_floating("normal_kernel_cpu", self._dtype)
    mean, std = _scalar_value(mean, "normal_"), _scalar_value(std, "normal_")
    _check_std_scalar(std)
    check_inplace(self)
    contiguous = self.is_contiguous()
    values = _normal_flat(_rng(generator, self.device), _numel(self._shape), self._dtype, mean,
                          std, contiguous)
    return _fill_inplace(self, _shaped(values, self))


@register("inplace", function=False)
def random_(self, *args, generator=None, **kwargs):
    """Fill with integers: [0, 2**mantissa] for floats and [0, max] for integers by default,
    ``random_(to)`` gives [0, to), ``random_(from, to)`` gives [from, to)."""
    unbounded = not args and not kwargs
    if len(args) == 1 and not kwargs:
        low, high = 0, args[0]
    else:
        low, high = _from_to(args, kwargs, (0, None), "random_")
    d = self._dtype
    low = _int_arg(low, "from", 1)
    high = None if high is None else _int_arg(high, "to", 2)
    _check_random_bounds(low, high, d)
    check_inplace(self)
    eng = _rng(generator, self.device)
    n = _numel(self._shape)
    if d.category == _dtypes.FLOATING:
        top = 1 << _DIGITS[d]
    elif d is _dtypes.bool_:
        top = 1
    else:
        top = int(np.iinfo(d.numpy).max)
    if unbounded:
        # random_kernel: v % (top + 1), random64 for int64 and double, random() otherwise.
        wide = d in (_dtypes.int64, _dtypes.float64)
        flat = _mt.random_default(eng, n, "bool" if d is _dtypes.bool_ else "int", top + 1,
                                  wide)
        flat = _from_double(flat, d) if d.category == _dtypes.FLOATING else flat.astype(
            d.numpy)
    elif high is None and low == -(1 << 63):
        flat = _mt.random_full_64(eng, n).astype(d.numpy)
    else:
        flat = _integers(eng, n, low, top + 1 if high is None else high, d)
    return _fill_inplace(self, _shaped(flat, self))


@register("inplace", function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with exponential samples of rate ``lambd``."""
    if self._dtype.category != _dtypes.FLOATING:
        raise TensorRuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be "
            f"a floating point but you specified {self._dtype._torch_name}")
    lambd = _scalar_value(lambd, "exponential_")
    if not lambd > 0:
        raise TensorRuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    check_inplace(self)
    u = _mt.uniform(_rng(generator, self.device), _numel(self._shape), np.float64)
    # exponential<double>: -1 / lambda * log1p(-u) (the C library's log1p).
    values = (-1.0 / lambd) * _mt.libm(math.log1p, -u)
    return _fill_inplace(self, _shaped(_from_double(values, self._dtype), self))


_TYPEMETA_NAMES = {_dtypes.int64: "long int", _dtypes.int32: "int", _dtypes.int16: "short int",
                   _dtypes.int8: "signed char", _dtypes.uint8: "unsigned char",
                   _dtypes.bool_: "bool"}


def _require_dispatch(kernel, dtype, integral=False):
    """AT_DISPATCH's refusal: floating types (and integers when ``integral``) only."""
    ok = dtype.category == _dtypes.FLOATING or (
        integral and dtype.category == _dtypes.INTEGRAL and dtype is not _dtypes.bool_)
    if not ok:
        raise _not_implemented(kernel, dtype)


@register("inplace", function=False)
def geometric_(self, p, *, generator=None):
    """Fill with geometric samples (trials up to the first success, probability ``p``):
    ``ceil(log(u) / log1p(-p))`` of a double uniform ``u``, as PyTorch's CPU kernel."""
    p = _scalar_value(p, "geometric_")
    if not 0 < p < 1:
        raise TensorRuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    _require_dispatch("geometric_cpu", self._dtype, integral=True)
    check_inplace(self)
    u = _mt.uniform(_rng(generator, self.device), _numel(self._shape), np.float64)
    values = np.ceil(_mt.libm(math.log, u) / math.log1p(-p))
    return _fill_inplace(self, _shaped(_from_double(values, self._dtype), self))


@register("inplace", function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with log-normal samples: ``exp`` of normal(mean, std) samples drawn one by one
    (PyTorch's scalar Box-Muller path, which shares the generator's cached value)."""
    mean, std = _scalar_value(mean, "log_normal_"), _scalar_value(std, "log_normal_")
    if not std > 0:
        raise TensorRuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    _require_dispatch("log_normal_cpu", self._dtype)
    check_inplace(self)
    z = _mt.normal_scalar(_rng(generator, self.device), _numel(self._shape), mean, std)
    values = _mt.libm(_exp, z)
    return _fill_inplace(self, _shaped(_from_double(values, self._dtype), self))


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


@register("inplace", function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy samples: ``median + sigma * tan(pi * (u - 0.5))`` of a double
    uniform ``u``, as PyTorch's CPU kernel."""
    median, sigma = _scalar_value(median, "cauchy_"), _scalar_value(sigma, "cauchy_")
    if self._dtype.category != _dtypes.FLOATING:
        name = _TYPEMETA_NAMES.get(self._dtype, self._dtype._torch_name)
        raise TensorRuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {name}")
    check_inplace(self)
    u = _mt.uniform(_rng(generator, self.device), _numel(self._shape), np.float64)
    t = _mt.libm(math.tan, math.pi * (u - 0.5))
    values = _mt._fma64(t, sigma, median) if sigma != 1.0 or median != 0.0 else t
    return _fill_inplace(self, _shaped(_from_double(values, self._dtype), self))


@register("inplace", function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples: probability ``p`` (a number, or a tensor broadcast to self)."""
    from .._layout import broadcast_shapes

    if self._dtype.category == _dtypes.COMPLEX:
        raise _not_implemented("bernoulli_scalar_cpu_" if not isinstance(p, Tensor)
                               else "bernoulli_tensor_cpu_self_", self._dtype)
    if isinstance(p, Tensor):
        try:
            shape = broadcast_shapes(self._shape, p._shape)
        except TensorRuntimeError:
            shape = None
        if shape is None or tuple(shape) != tuple(self._shape):
            bad = next((i for i in range(1, p.dim() + 1)
                        if i > self.dim() or (p._shape[-i] != 1
                                              and p._shape[-i] != self._shape[-i])), 1)
            existing = p._shape[-bad]
            target = self._shape[-bad] if bad <= self.dim() else 1
            raise TensorRuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({existing}) at non-singleton dimension {self.dim() - bad}.  Target sizes: "
                f"{list(self._shape)}.  Tensor sizes: {list(p._shape)}")
        _check_p_tensor(p)
        prob = p
    else:
        prob = _scalar_value(p, "bernoulli_")
        _check_p_scalar(prob)
    check_inplace(self)
    values = _bernoulli_values(_rng(generator, self.device), self._shape, prob, self._dtype,
                               self._storage.device, layout=self)
    from .._elementwise import _write_into

    _write_into(self, values)
    return self
