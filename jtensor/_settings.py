"""Process-wide switches PyTorch programs set at the top: determinism, float32 matmul
precision, warn-always, the deprecated default tensor type; and small queries
(``typename``, ``is_storage``, ``is_signed``, ``get_device``).

jtensor's kernels are NumPy's (CuPy's on a GPU): on the CPU every op is deterministic and
matmuls run at full float32 precision whatever is set here. The settings are still kept and
reported exactly as PyTorch does, so reproducibility preambles (``use_deterministic_algorithms
(True)``, ``set_float32_matmul_precision("high")``) run unchanged and read back what they set.
"""

import math
import warnings

from . import _dispatch, _dtypes
from ._errors import TensorRuntimeError, TensorTypeError, type_name
from ._storage import Storage, TypedStorage
from ._tensor import Tensor

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None

_state = {"deterministic": False, "warn_only": False, "precision": "highest",
          "warn_always": False, "fill": True}
_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = ("default", "warn", "error")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms only (``warn_only``: warn instead of raising where an
    op has none). Every jtensor CPU kernel already is deterministic."""
    if not isinstance(mode, bool):
        raise TensorTypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) "
                              f"must be bool, not {type_name(mode)}")
    if not isinstance(warn_only, bool):
        raise TensorTypeError("_set_deterministic_algorithms(): argument 'warn_only' must be "
                              f"bool, not {type_name(warn_only)}")
    _state["deterministic"] = mode
    _state["warn_only"] = warn_only   # kept as given, even with mode False (as PyTorch)
    _sync_fill()


def set_fill_uninitialized_memory(fill):
    """``torch.utils.deterministic.fill_uninitialized_memory = fill``: whether deterministic
    mode fills ``empty``'s memory and ``resize_``'s new elements (NaN, the largest integer,
    True) instead of leaving whatever bytes were there (default True)."""
    if not isinstance(fill, bool):
        raise TensorTypeError(f"expected a bool, but got {type_name(fill)}")
    _state["fill"] = fill
    _sync_fill()


def _sync_fill():
    _dispatch.fill_uninitialized = _state["deterministic"] and _state["fill"]


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic mode only warns (``warn_only=True``)."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """``0``/``"default"``: off; ``1``/``"warn"``: deterministic, warn only;
    ``2``/``"error"``: deterministic, raise."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise TensorRuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise TensorRuntimeError(
                f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TensorTypeError(
            f"debug_mode must be str or int, but got {type_name(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0 (off), 1 (warn only) or 2 (deterministic, raising)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """``"highest"``, ``"high"`` or ``"medium"``: what float32 matmuls may trade for speed on
    hardware that can (TF32, bfloat16 passes). NumPy always computes at full precision; an
    unknown value warns and changes nothing, as in PyTorch."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    _state["precision"] = precision


def get_float32_matmul_precision():
    """The value last set with ``set_float32_matmul_precision`` (``"highest"`` by default)."""
    return _state["precision"]


_warned = set()


def warn_once(key, message, category=UserWarning, stacklevel=3):
    """PyTorch's ``TORCH_WARN_ONCE``: the first time in the process only, unless
    ``set_warn_always(True)``. ``stacklevel`` counts from the caller of this function, as
    ``warnings.warn``'s from its own caller."""
    if key in _warned and not _state["warn_always"]:
        return
    _warned.add(key)
    warnings.warn(message, category, stacklevel=stacklevel)


def set_warn_always(b):
    """Make once-per-process warnings warn every time (``is_warn_always_enabled``)."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled():
    """Whether ``set_warn_always(True)`` is in effect."""
    return _state["warn_always"]


def set_default_tensor_type(t):
    """Deprecated since PyTorch 2.1: the default floating dtype from a tensor type
    (``torch.DoubleTensor`` or ``"torch.DoubleTensor"``)."""
    warn_once("set_default_tensor_type",
              "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
              "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    name = t.rsplit(".", 1)[-1] if isinstance(t, str) else getattr(t, "__name__", None)
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, _dtypes.dtype):
        from . import _tensortypes

        kind = getattr(_tensortypes, name, None) if name else None
        dtype = getattr(kind, "dtype", None)
    if not isinstance(dtype, _dtypes.dtype):
        raise TensorTypeError(f"invalid type: {t!r}")
    if dtype.category != _dtypes.FLOATING:
        raise TensorTypeError("only floating-point types are supported as the default type")
    _dtypes.set_default_dtype(dtype)


def typename(obj):
    """``"torch.FloatTensor"`` for a tensor (by dtype), the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    qualname = type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    if module.startswith("jtensor"):
        module = "torch" + module[len("jtensor"):]
    return f"{module}.{qualname}"


def is_storage(obj):
    """Whether ``obj`` is a storage (typed or untyped)."""
    return isinstance(obj, (Storage, TypedStorage))


def is_signed(input):
    """Whether ``input``'s dtype is signed (every floating and complex dtype is)."""
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"is_signed(): argument 'input' (position 1) must be Tensor, not "
                              f"{type_name(input)}")
    return input.is_signed()


def get_device(input):
    """The CUDA device index of ``input``, -1 on the CPU."""
    return input.get_device()
