"""``PixelShuffle`` and ``PixelUnshuffle``."""

from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearrange ``(*, C * r^2, H, W)`` into ``(*, C, H * r, W * r)``
    (``r = upscale_factor``).

    >>> import jtensor as torch
    >>> torch.nn.PixelShuffle(2)
    PixelShuffle(upscale_factor=2)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return _F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r^2, H, W)``
    (``r = downscale_factor``): the inverse of ``PixelShuffle``.

    >>> import jtensor as torch
    >>> torch.nn.PixelUnshuffle(2)
    PixelUnshuffle(downscale_factor=2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return _F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
