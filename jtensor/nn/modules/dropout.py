"""Dropout layers: ``Dropout``, ``Dropout1d``, ``Dropout2d``, ``Dropout3d`` (active in training mode
only)."""

from ..._errors import TensorValueError
from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise TensorValueError(
                f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1/(1-p)``; the identity in evaluation mode.

    >>> import jtensor as torch
    >>> torch.nn.Dropout(0.2)
    Dropout(p=0.2, inplace=False)
    """

    def forward(self, input):
        return _F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` inputs in training."""

    def forward(self, input):
        return _F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` inputs in training."""

    def forward(self, input):
        return _F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` inputs in training."""

    def forward(self, input):
        return _F.dropout3d(input, self.p, self.training, self.inplace)
