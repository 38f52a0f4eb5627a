"""``torch.testing``: ``assert_close`` (with PyTorch's default tolerances and mismatch
report), the deprecated ``assert_allclose``, and ``make_tensor`` (random test tensors drawn
from PyTorch's default ranges, through jtensor's generator, so the same seed gives the same
values as PyTorch)."""

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
