"""``torch.nn.attention``: the backends of ``scaled_dot_product_attention`` and the
``sdpa_kernel`` context that restricts them (``bias`` holds the causal biases).

jtensor computes attention one way on each device; the backends decide what PyTorch's CPU
build would run: FLASH_ATTENTION is its fused kernel (an output in the query's layout, an
``attn_mask`` allowed beside ``is_causal``), MATH its reference path. A CPU call that allows
neither fails as PyTorch's does ("No available kernel")."""

import contextlib
from enum import IntEnum

from .._functional import attention as _sdpa

__all__ = ["SDPBackend", "sdpa_kernel", "bias"]


class SDPBackend(IntEnum):
    """The kernels behind ``scaled_dot_product_attention``."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_REFUSED = "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, ``scaled_dot_product_attention`` may use only ``backends`` (one
    ``SDPBackend`` or a list of them); the previous choice comes back after it."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(_REFUSED + type(backends).__name__)
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = _sdpa.allowed_backends
    _sdpa.allowed_backends = frozenset(int(b) for b in backends if isinstance(b, SDPBackend))
    try:
        yield {}
    finally:
        _sdpa.allowed_backends = previous


from . import bias  # noqa: E402  (its CausalBias is what scaled_dot_product_attention takes)
