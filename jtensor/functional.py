"""``torch.functional``: the module where PyTorch defines some of its tensor functions.

Programs import it (``import torch.functional as F`` in the official "Building Models"
tutorial) and call ``torch.functional.einsum``, ``.split``, ``.norm``, ``.meshgrid``, ... .
Each name here is the same function as ``torch.<name>``; the ones jtensor does not implement yet
(``lu``, ``stft``, ``istft``, ``unravel_index``, ``pca_lowrank``, ``svd_lowrank``) are an
``AttributeError``, as a missing ``torch.<name>`` is.
"""

from ._api import broadcast_shapes  # noqa: F401 (torch.functional.broadcast_shapes)
from ._registry import FUNCTIONS as _FUNCTIONS

# PyTorch 2.13's torch.functional.__all__, in its order.
_PYTORCH_NAMES = (
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "block_diag",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "norm",
    "meshgrid",
    "pca_lowrank",
    "split",
    "stft",
    "svd_lowrank",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
)


def __getattr__(name):
    if name in _PYTORCH_NAMES and name in _FUNCTIONS:
        return _FUNCTIONS[name]
    raise AttributeError(f"module 'torch.functional' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)


__all__ = [n for n in _PYTORCH_NAMES if n == "broadcast_shapes" or n in _FUNCTIONS]
