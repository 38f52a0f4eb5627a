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

How it hooks in: autocast is a step of every listed op's entry point
(``jtensor/_autocast.py``, called from the entries ``jtensor/_argparse.py`` generates), as
PyTorch registers its autocast kernels in the dispatcher: the function, the method, the
operators (``a @ b``) and ``jtensor.nn.functional.<op>`` alike, whatever name they were
bound to. While no region is open anywhere an op pays one integer test. The state is per
thread, so other threads are not affected; ops called *inside* a cast op are not cast again
(as PyTorch excludes the autocast key while running one), and ``backward()`` runs without
autocast, as in PyTorch.

Casts are differentiable (``ToCopyBackward0``, as in PyTorch); with ``cache_enabled`` the
low-precision copy of a float32 leaf that requires grad (a weight) is made once per region.
"""

import functools
import warnings

from .. import _autocast
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

POLICIES = _autocast.POLICIES
cast_inputs = _autocast.cast_inputs
_state = _autocast.state


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
            # (PyTorch 2.13's sentence; it names torch_xla, which jtensor never imports)
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
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
            _autocast.enter()
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
            _autocast.leave()
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
