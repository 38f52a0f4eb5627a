"""``torch.backends.cuda``: the CUDA matmul flags and the attention-kernel switches.

``is_built()`` answers whether jtensor's CUDA device can be used (a GPU through CuPy, or the
emulated device). The flags are plain values a program sets and reads back; jtensor computes
in full precision whatever they say.
"""

from .. import cuda as _cuda

__all__ = [
    "cufft_plan_cache",
    "enable_cudnn_sdp",
    "enable_flash_sdp",
    "enable_math_sdp",
    "enable_mem_efficient_sdp",
    "cudnn_sdp_enabled",
    "flash_sdp_enabled",
    "is_built",
    "math_sdp_enabled",
    "matmul",
    "mem_efficient_sdp_enabled",
    "preferred_linalg_library",
]


def is_built():
    return _cuda.is_available()


class _Matmul:
    """``torch.backends.cuda.matmul``: settable reduced-precision switches."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.allow_fp16_accumulation = False

    def __repr__(self):
        return "<torch.backends.cuda.matmul>"


matmul = _Matmul()
cufft_plan_cache = None

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _switch(kind):
    """The ``<kind>_sdp_enabled()`` / ``enable_<kind>_sdp(enabled)`` pair."""

    def enabled():
        return _sdp[kind]

    def enable(enabled):
        _sdp[kind] = bool(enabled)

    enabled.__name__ = enabled.__qualname__ = f"{kind}_sdp_enabled"
    enable.__name__ = enable.__qualname__ = f"enable_{kind}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _switch("cudnn")


def preferred_linalg_library(backend=None):
    """Kept for code that sets it; jtensor's linear algebra is NumPy's."""
    return "default"
