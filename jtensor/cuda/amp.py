"""``jtensor.cuda.amp``: the deprecated CUDA spellings of ``jtensor.amp`` (as ``torch.cuda.amp``).

Each warns, as PyTorch does, and forwards to ``jtensor.amp`` with ``device_type='cuda'``.
"""

import warnings

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler
from ..amp.autocast_mode import custom_bwd, custom_fwd


class autocast(_autocast_mode.autocast):
    """``jtensor.amp.autocast('cuda', ...)`` under its old name."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        from .. import _dtypes

        super().__init__("cuda", dtype=_dtypes.float16 if dtype is None else dtype,
                         enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``jtensor.amp.GradScaler('cuda', ...)`` under its old name."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
