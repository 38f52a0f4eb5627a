"""``GradScaler``: dynamic loss scaling, as ``torch.amp.GradScaler``.

``scale(loss)`` multiplies by the scale (a float32 0-dim tensor, made at the first call);
``step(optimizer)`` unscales the gradients (unless ``unscale_`` already did), checks them
for inf/NaN and skips ``optimizer.step()`` when any is found; ``update()`` multiplies the
scale by ``backoff_factor`` after a skipped step, or by ``growth_factor`` after
``growth_interval`` clean steps in a row.
"""

import math
import warnings
from collections import defaultdict
from enum import Enum

from .. import _dtypes
from .._api import ops as J
from .._errors import TensorRuntimeError, TensorValueError
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Loss scaler for mixed-precision training, as ``torch.amp.GradScaler(device='cuda',
    init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
    enabled=True)``. A ``'cuda'`` scaler without a CUDA backend warns and disables itself
    (then ``scale`` returns its input and ``step`` just steps), as PyTorch does.

    >>> import jtensor as torch
    >>> scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    >>> scaler.scale(torch.tensor(1.5))
    tensor(12.)
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = str(device)
        self._enabled = bool(enabled)
        if self._enabled and self._device.startswith("cuda"):
            from .autocast_mode import _cuda_available

            if not _cuda_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            # PyTorch checks these with assert (AssertionError), as below.
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    # ------------------------------------------------------------------ helpers
    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  {fix}"
        assert self._growth_tracker is not None, \
            f"Attempted {funcname} but _growth_tracker is None.  {fix}"
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device):
        self._scale = J.full((), self._init_scale, dtype=_dtypes.float32, device=device)
        self._growth_tracker = J.full((), self._init_growth_tracker, dtype=_dtypes.int32,
                                      device=device)

    # ------------------------------------------------------------------ API
    def scale(self, outputs):
        """Multiply a tensor (or the tensors in a list/tuple/iterable) by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, (list, tuple)):
                out = [apply_scale(v) for v in val]
                return type(val)(out) if isinstance(val, tuple) else out
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise TensorValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = param.grad
                    if (not allow_fp16) and grad.dtype == _dtypes.float16:
                        raise TensorValueError("Attempting to unscale FP16 gradients.")
                    if getattr(grad, "is_sparse", False):
                        grad = grad.coalesce()._values()
                    if not bool(J.isfinite(grad).all()):
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale.to(grad.dtype))
        return {found_inf.device: found_inf}

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (at most once per
        ``update()``), recording whether any is inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise TensorRuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise TensorRuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = J.full((), 0.0, dtype=_dtypes.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet) and call ``optimizer.step(*args, **kwargs)`` unless a
        gradient is inf/NaN; returns what ``step`` returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise TensorRuntimeError(
                "Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise TensorRuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, \
            "No inf checks were recorded for this optimizer."
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Update the scale (backoff after an inf/NaN, growth after ``growth_interval``
        clean steps), or set it to ``new_scale`` (a float or a one-element float32 tensor)."""
        if not self._enabled:
            return
        _, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                assert (isinstance(new_scale, Tensor) and new_scale.dtype == _dtypes.float32
                        and new_scale.numel() == 1 and not new_scale.requires_grad), reason
                self._scale.copy_(new_scale.reshape(()))
        else:
            found_infs = [f for state in self._per_optimizer_states.values()
                          for f in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found = sum(float(f.item()) for f in found_infs)
            if found:
                self._scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                successful = int(tracker.item()) + 1
                if successful == self._growth_interval:
                    grown = float(self._scale.item()) * self._growth_factor
                    if math.isfinite(grown):
                        self._scale.mul_(self._growth_factor)
                    tracker.fill_(0)
                else:
                    tracker.fill_(successful)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else \
                int(self._growth_tracker.item())
        return 0

    def is_enabled(self):
        """Whether this scaler scales (False when built disabled or CUDA is missing)."""
        return self._enabled

    def state_dict(self):
        """``{'scale', 'growth_factor', 'backoff_factor', 'growth_interval',
        '_growth_tracker'}`` (empty when disabled), as PyTorch."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        """Restore from ``state_dict()``."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise TensorRuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
