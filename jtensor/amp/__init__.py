"""``jtensor.amp``: automatic mixed precision (``autocast``) and loss scaling
(``GradScaler``), as ``torch.amp``."""

from . import autocast_mode, grad_scaler
from .autocast_mode import (
                            autocast,
                            custom_bwd,
                            custom_fwd,
                            get_autocast_dtype,
                            is_autocast_available,
                            is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "autocast_mode", "custom_bwd", "custom_fwd",
           "get_autocast_dtype", "grad_scaler", "is_autocast_available", "is_autocast_enabled"]
