"""``autocast``: automatic mixed precision by op policy, as ``torch.autocast``.

Inside ``with jtensor.amp.autocast("cpu"):`` (default dtype bfloat16 on CPU, float16 on
CUDA) ops of the *lower-precision* list run with their floating inputs (all but float64)
cast to the autocast dtype, ops of the *float32* list with their 16-bit inputs cast to
float32, and every other op runs on its inputs unchanged. The lists are PyTorch's:

* CPU, lower precision: ``matmul``/``@``, ``mm``, ``bmm``, ``addmm``, ``baddbmm``,
  ``addbmm``, ``linear``, ``conv1d``, ``conv2d``. CPU, float32: the losses
  (``cross_entropy``, ``nll_loss``, ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``,
  ``huber_loss``, ``binary_cross_entropy(_with_logits)``, ``kl_div``), ``prod``, ``cdist``.
  (PyTorch's CPU autocast leaves ``softmax``, ``log_softmax`` and the norms alone.)
* CUDA adds to the float32 list ``softmax``, ``log_softmax``, ``layer_norm``,
  ``group_norm``, ``norm``, ``sum``, ``cumsum``, ``cumprod``, ``exp``, ``log``, ``log1p``,
  ``pow``, ``reciprocal``, ``rsqrt``...

How it hooks in (jtensor has no dispatcher keys): while at least one thread is inside an
enabled autocast region, the public entry points of those ops -- ``jtensor.<op>``,
``Tensor.<op>``, ``Tensor.__matmul__``/``__rmatmul__`` and ``jtensor.nn.functional.<op>``
(in that namespace and in the module that defines it) -- are replaced by wrappers; the
outermost exit restores the originals (a global depth counter under a lock, so nesting and
threads are safe). A wrapper looks at its thread's autocast state, so other threads are not
affected; ops called *inside* a wrapped op are not cast again (as PyTorch excludes the
autocast key while running one), and a ``backward()`` called inside the region runs without
autocast (the engine's entry point is wrapped too), as in PyTorch. Functions bound under
another name before the region started (``from jtensor import matmul as mm``) are not
wrapped; library code can call ``cast_inputs(kind, *tensors)`` itself
(``jtensor.nn.functional.conv2d`` does).

Casts are differentiable (``ToCopyBackward0``, as in PyTorch); with ``cache_enabled`` the
low-precision copy of a float32 leaf that requires grad (a weight) is made once per region.
"""

import functools
import threading
import warnings

from .._errors import TensorRuntimeError, TensorValueError
from .._tensor import Tensor

__all__ = [
    "autocast",
    "cast_inputs",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "is_autocast_available",
    "is_autocast_enabled",
]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")

_LOWER = ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "conv1d", "conv2d")
_FP32_LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
                "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                "kl_div")
POLICIES = {
    "cpu": {"lower": _LOWER, "fp32": _FP32_LOSSES + ("prod", "cdist")},
    "cuda": {"lower": _LOWER + ("chain_matmul",),
             "fp32": _FP32_LOSSES + ("prod", "cdist", "softmax", "log_softmax", "layer_norm",
                                     "group_norm", "norm", "sum", "cumsum", "cumprod",
                                     "exp", "log", "log10", "log2", "log1p", "pow",
                                     "reciprocal", "rsqrt", "acos", "asin", "cosh", "sinh",
                                     "tan", "erfinv", "expm1", "dist")},
}
_METHOD_ALIASES = {"matmul": ("__matmul__", "__rmatmul__")}


class _State(threading.local):
    depth = 0          # enabled autocast regions entered by this thread
    inside = False     # running a wrapped op (its inner ops are not cast again)
    device = None      # device type of the innermost enabled region
    dtype = None
    cache = None       # id(leaf) -> (leaf, version, cast copy) while caching


_state = _State()
_lock = threading.Lock()
_installed = {"count": 0, "saved": []}


def _default_dtype(device_type):
    from .. import _dtypes

    return _dtypes.bfloat16 if device_type == "cpu" else _dtypes.float16


def _cuda_available():
    from .. import cuda

    return cuda.is_available()


def is_autocast_available(device_type):
    """Whether autocast supports ``device_type`` here (``'cpu'``; ``'cuda'`` with CuPy)."""
    return device_type == "cpu" or (device_type == "cuda" and _cuda_available())


def is_autocast_enabled(device_type=None):
    """Whether this thread is inside an enabled autocast region (for ``device_type``;
    without one: for CUDA, as ``torch.is_autocast_enabled()``)."""
    if device_type is None:
        device_type = "cuda"
    return _state.depth > 0 and _state.device == device_type


def get_autocast_dtype(device_type):
    """The dtype autocast uses for ``device_type`` now (its default outside a region)."""
    if _state.depth > 0 and _state.device == device_type:
        return _state.dtype
    return _default_dtype(device_type)


def _cast_one(t, dtype):
    if t._dtype == dtype:
        return t
    cache = _state.cache
    if cache is not None and t._requires_grad and t.is_leaf:
        hit = cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == t._version and hit[2]._dtype == dtype:
            return hit[2]
        out = t.to(dtype)
        cache[id(t)] = (t, t._version, out)
        return out
    return t.to(dtype)


def cast_inputs(kind, *tensors):
    """Cast ``tensors`` for an op of policy ``kind`` (``'lower'`` or ``'fp32'``) when this
    thread is in an enabled autocast region (otherwise return them unchanged). Non-tensors
    and ``None`` pass through. Returns a tuple."""
    if _state.depth == 0 or _state.inside:
        return tensors
    if kind not in ("lower", "fp32"):
        raise TensorValueError(f"cast_inputs: kind must be 'lower' or 'fp32', got {kind!r}")
    from .. import _dtypes

    out = []
    device = _state.device
    for t in tensors:
        # Only tensors on the region's device type are cast (as PyTorch's autocast keys).
        if isinstance(t, Tensor) and t._dtype.is_floating_point and t.device.type == device:
            if kind == "lower" and t._dtype.itemsize != 8:
                t = _cast_one(t, _state.dtype)
            elif kind == "fp32" and t._dtype.itemsize == 2:
                t = _cast_one(t, _dtypes.float32)
        out.append(t)
    return tuple(out)


def _cast_arg(kind, value):
    if isinstance(value, Tensor):
        return cast_inputs(kind, value)[0]
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(cast_inputs(kind, *value))
    return value


def _call_with_state(attr, value, fn, args, kwargs):
    """``fn(*args, **kwargs)`` with this thread's ``_state.<attr>`` set to ``value`` for the
    call (restored after)."""
    st = _state
    previous = getattr(st, attr)
    setattr(st, attr, value)
    try:
        return fn(*args, **kwargs)
    finally:
        setattr(st, attr, previous)


def _wrap(kind, fn, name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        st = _state
        if st.depth == 0 or st.inside or name not in POLICIES[st.device][kind]:
            return fn(*args, **kwargs)
        args = tuple(_cast_arg(kind, a) for a in args)
        kwargs = {k: _cast_arg(kind, v) for k, v in kwargs.items()}
        return _call_with_state("inside", True, fn, args, kwargs)

    wrapper._autocast_original = fn
    return wrapper


def _targets():
    """(namespace, attribute, policy kind, op name) of every entry point to wrap."""
    import sys

    import jtensor

    try:
        from ..nn import functional as F
    except ImportError:  # pragma: no cover - nn is part of the package
        F = None
    out = []
    for kind in ("lower", "fp32"):
        names = set()
        for device in ("cpu", "cuda") if _cuda_available() else ("cpu",):
            names.update(POLICIES[device][kind])
        for name in sorted(names):
            if name in ("conv1d", "conv2d"):  # they call cast_inputs themselves
                continue
            if hasattr(jtensor, name) and callable(getattr(jtensor, name)):
                out.append((jtensor, name, kind, name))
            if hasattr(Tensor, name):
                out.append((Tensor, name, kind, name))
            for alias in _METHOD_ALIASES.get(name, ()):
                if hasattr(Tensor, alias):
                    out.append((Tensor, alias, kind, name))
            if F is not None and hasattr(F, name):
                fn = getattr(F, name)
                out.append((F, name, kind, name))
                home = sys.modules.get(getattr(fn, "__module__", None) or "")
                if home is not None and home is not F and getattr(home, name, None) is fn:
                    out.append((home, name, kind, name))
    return out


def _install():
    with _lock:
        _installed["count"] += 1
        if _installed["count"] > 1:
            return
        saved = []
        for owner, attr, kind, name in _targets():
            original = owner.__dict__.get(attr) if isinstance(owner, type) else \
                getattr(owner, attr)
            if original is None or hasattr(original, "_autocast_original"):
                continue
            saved.append((owner, attr, original))
            setattr(owner, attr, _wrap(kind, original, name))
        # Backward runs outside autocast (PyTorch's engine runs it without the autocast
        # state): the formulas call public ops, which must not be cast.
        from ..autograd import functional as _autograd_functional

        original = _autograd_functional.run_backward
        saved.append((_autograd_functional, "run_backward", original))
        _autograd_functional.run_backward = _without_autocast(original)
        _installed["saved"] = saved


def _without_autocast(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return _call_with_state("depth", 0, fn, args, kwargs)

    wrapper._autocast_original = fn
    return wrapper


def _uninstall():
    with _lock:
        _installed["count"] -= 1
        if _installed["count"] > 0:
            return
        for owner, attr, original in reversed(_installed["saved"]):
            setattr(owner, attr, original)
        _installed["saved"] = []


# PyTorch's warnings for a ``dtype`` autocast does not support on the device.
_UNSUPPORTED_DTYPE = {
    "cpu": "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
           "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
    "cuda": "In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
            "CUDA Autocast only supports dtypes of torch.float16 and torch.bfloat16 currently.",
}


class autocast:
    """Context manager and decorator for mixed precision, as ``torch.autocast``:
    ``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``. On CPU only
    ``bfloat16`` (default) and ``float16`` are supported (another dtype warns and disables
    autocast, as PyTorch); ``'cuda'`` without a CUDA backend warns and disables it.

    >>> import jtensor as torch
    >>> a, b = torch.ones(2, 3), torch.ones(3, 2)
    >>> with torch.amp.autocast("cpu"):
    ...     (a @ b).dtype
    torch.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise TensorValueError(
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEVICE_TYPES:
            raise TensorRuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                f"string: {device_type}")
        self.device = device_type
        self.fast_dtype = _default_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if enabled and device_type == "cuda" and not _cuda_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. "
                          "Disabling", stacklevel=2)
            enabled = False
        elif enabled and device_type not in ("cpu", "cuda"):
            warnings.warn(f"User provided device_type of '{device_type}', but autocast "
                          f"supports only 'cpu' and 'cuda' here. Disabling", stacklevel=2)
            enabled = False
        if enabled:
            from .. import _dtypes

            if self.fast_dtype not in (_dtypes.bfloat16, _dtypes.float16):
                warnings.warn(_UNSUPPORTED_DTYPE[device_type], stacklevel=2)
                enabled = False
        self._enabled = enabled
        self._saved = []

    def __enter__(self):
        st = _state
        self._saved.append((st.depth, st.device, st.dtype, st.cache, st.inside))
        if self._enabled:
            _install()
            st.depth += 1
            st.device = self.device
            st.dtype = self.fast_dtype
            if self._cache_enabled and st.cache is None:
                st.cache = {}
            st.inside = False
        else:
            # A disabled region switches autocast off for its body (nested or not).
            st.depth = 0
        return self

    def __exit__(self, exc_type, exc, tb):
        st = _state
        depth, device, dtype, cache, inside = self._saved.pop()
        st.depth, st.device, st.dtype, st.cache, st.inside = depth, device, dtype, cache, inside
        if self._enabled:
            _uninstall()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``Function.forward`` (as ``torch.amp.custom_fwd``): with
    ``cast_inputs`` set, inside an autocast region the floating tensors are cast to it and
    the forward runs with autocast off."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type,
                                 cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)

        def cast(v):
            if isinstance(v, Tensor) and v._dtype.is_floating_point:
                return v.to(cast_inputs)
            return v

        with autocast(device_type, enabled=False):
            return fwd(*[cast(a) for a in args], **{k: cast(v) for k, v in kwargs.items()})

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``Function.backward`` (as ``torch.amp.custom_bwd``); the
    backward runs with autocast off here (the engine does not run inside the region)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type, enabled=False):
            return bwd(*args, **kwargs)

    return decorate_bwd
