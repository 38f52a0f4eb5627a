"""jtensor: PyTorch's tensor and autograd semantics on NumPy, built to be looked at.

Use it as ``import jtensor as torch``. In Jupyter, ``%load_ext jtensor`` adds the
``%%tensortrace`` magic and the widgets (imported lazily: the core never imports IPython).
"""

# The public API: these names are re-exported (torch.dtype, torch.Tensor, ...), hence F401.
import sys as _sys

from . import _dtypes  # noqa: F401
from ._device import device  # noqa: F401
from ._dtypes import ALIASES as _ALIASES
from ._dtypes import dtype, finfo, get_default_dtype, iinfo, set_default_dtype  # noqa: F401
from ._errors import (TensorIndexError, TensorRuntimeError,  # noqa: F401
                      TensorTypeError, TensorValueError)
from ._size import Size  # noqa: F401
from . import return_types  # noqa: F401 (torch.return_types' named tuples)
from .serialization import load, save  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from .autograd import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402,F401
                       is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._storage import Storage, TypedStorage  # noqa: F401  (TypedStorage: tensor.storage())
from ._tensor import (Tensor, channels_last, channels_last_3d, contiguous_format,  # noqa: F401
                      is_tensor, layout, memory_format, preserve_format, strided)

UntypedStorage = Storage
# torch.float32, torch.float, torch.long, ... (shadowing builtins, as torch does)
globals().update(_ALIASES)


# Importing the op modules registers every op (functions here, methods on Tensor).
from . import _ops  # noqa: E402,F401
from ._ops import surface as _surface_ops  # noqa: E402,F401 (addmm_, cumsum_...: before formulas)
from .autograd import formulas as _formulas  # noqa: E402,F401 (derivatives of the ops)
from . import utils  # noqa: E402,F401 (utils.checkpoint)
import jtensor.utils.checkpoint  # noqa: E402,F401
from . import nn  # noqa: E402,F401 (torch.nn is there after import torch, too)
from . import optim  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import amp  # noqa: E402,F401
from . import cuda  # noqa: E402,F401
from .cuda import AcceleratorError, OutOfMemoryError  # noqa: E402,F401 (torch's, the same classes)
from . import cpu  # noqa: E402,F401 (torch.cpu: the host device, its buffer cache)
from . import accelerator, backends, version  # noqa: E402,F401 (device-selection idioms)
from . import distributions  # noqa: E402,F401 (torch.distributions after import torch)
from . import distributed  # noqa: E402,F401 (torch.distributed after import torch)
from . import func  # noqa: E402,F401 (torch.func)
from . import profiler  # noqa: E402,F401 (torch.profiler)
from . import overrides  # noqa: E402,F401 (torch.overrides: __torch_function__'s helpers)
from . import compiler  # noqa: E402,F401 (torch.compiler; torch.compile is a no-op wrapper)
from .compiler import compile  # noqa: E402,F401
from ._surface import *  # noqa: E402,F401,F403 (torch.dropout, torch.layer_norm, torch.kl_div...)
from .amp import GradScaler  # noqa: E402,F401 (torch.GradScaler is torch.amp's)
legacy_contiguous_format = contiguous_format  # PyTorch's alias of the same memory format
from .func import vmap  # noqa: E402,F401 (torch.vmap is torch.func.vmap)
from ._tensortypes import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor,  # noqa: E402,F401
                           DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
                           ShortTensor, tensortype)
from ._threads import (get_num_interop_threads, get_num_threads,  # noqa: E402,F401
                       set_num_interop_threads, set_num_threads)
from ._device import get_default_device, set_default_device  # noqa: E402,F401
from ._settings import (are_deterministic_algorithms_enabled, e, get_deterministic_debug_mode,  # noqa: E402,F401,E501
                        get_device, get_float32_matmul_precision, inf,
                        is_deterministic_algorithms_warn_only_enabled, is_signed, is_storage,
                        is_warn_always_enabled, nan, newaxis, pi, set_default_tensor_type,
                        set_deterministic_debug_mode, set_float32_matmul_precision,
                        set_warn_always, typename, use_deterministic_algorithms)
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled,  # noqa: E402,F401
                                    is_anomaly_enabled, set_anomaly_enabled)
from .amp import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
from ._sparse import sparse_coo, sparse_coo_tensor  # noqa: E402,F401
from . import _sparse as _sparse_layer  # noqa: E402
from .autograd import engine as _engine  # noqa: E402

# The engine sits below the sparse layer (whose ops record autograd nodes): it accumulates
# sparse gradients with the sparse kernels handed over here.
_engine.install_sparse(_sparse_layer.SparseCOOTensor, _sparse_layer.sparse_add,
                       _sparse_layer.sparse_add_, _sparse_layer.add_dense_sparse_)
del _sparse_layer, _engine
# PyTorch's ``torch.sparse`` and ``torch.nn.functional`` import ``torch`` itself, so old code
# reaches the package through them (``torch.sparse.torch.eye(10)``, a capsule network's).
sparse.torch = nn.functional.torch = _sys.modules[__name__]
from . import linalg  # noqa: E402,F401
from . import testing  # noqa: E402,F401 (torch.testing: assert_close, make_tensor)
from . import fft, special  # noqa: E402,F401 (torch.fft, torch.special)
from ._registry import FUNCTIONS as _FUNCTIONS  # noqa: E402

globals().update(_FUNCTIONS)

from .random import (Generator, default_generator, get_rng_state,  # noqa: E402,F401
                     initial_seed, manual_seed, seed, set_rng_state)
from ._repr import get_printoptions, printoptions, set_printoptions  # noqa: E402,F401

from ._dtypes import can_cast, promote_types, result_type  # noqa: E402,F401
from ._api import broadcast_shapes  # noqa: E402,F401
from . import functional  # noqa: E402,F401 (torch.functional, after every op is registered)
from ._ops.arithmetic import install_deprecated_overloads as _install  # noqa: E402

_install()   # (``p.add_(-lr, grad)``: after every op and layout kernel is registered)
del _install
from ._foreach import functions as _foreach_functions  # noqa: E402

globals().update(_foreach_functions())   # (``torch._foreach_mul_``: private, not in __all__)
del _foreach_functions


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def numel(input):
    return input.numel()


def load_ipython_extension(ipython):
    """``%load_ext jtensor``: registers the magics (IPython is imported only here)."""
    from .magics import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython):
    from .magics import unload_ipython_extension as _unload

    _unload(ipython)


from .version import __version__  # noqa: E402,F401 (PyTorch 2.13.0, jtensor local label)

# Tracing (plain Python; the magics that use it are imported only by %load_ext jtensor).
from . import trace  # noqa: E402,F401
from .trace.describe import describe  # noqa: E402,F401


# Submodules imported on first use: ``jtensor.widgets`` (plain ``import jtensor`` stays
# light), and those only some programs touch (``torch.jit.script``, ``torch.multiprocessing``).
_ON_FIRST_USE = ("widgets", "jit", "onnx", "hub", "multiprocessing")


def __dir__():
    return sorted(set(globals()) | set(_ON_FIRST_USE))


def __getattr__(name):
    if name in _ON_FIRST_USE:
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'jtensor' has no attribute {name!r}")
