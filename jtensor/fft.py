"""``torch.fft``: ``import jtensor as torch; torch.fft.rfft(signal)``.

The transforms live in ``jtensor/_ops/spectral.py`` (registered as ``fft_<name>``, as
PyTorch's ``torch._C._fft`` names them); this module gives them torch.fft's names.
``fftshift``/``ifftshift`` are rolls, as in PyTorch (their node is ``RollBackward0``).
"""

from ._api import ops as _J
from ._errors import TensorTypeError as _TypeError, type_name as _type_name
from ._ops.spectral import (
    fft,
    fft2,
    fft_fftfreq,
    fft_rfftfreq,
    fftn,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)
from ._tensor import Tensor as _Tensor

fftfreq = fft_fftfreq
rfftfreq = fft_rfftfreq


def _shift(name, input, dim, sign):
    if not isinstance(input, _Tensor):
        raise _TypeError(
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
            f"{_type_name(input)}"
        )
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    shape = input.shape
    shifts = [sign * (shape[d] // 2) for d in dims]
    return _J.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the middle: a roll by ``size // 2`` along each dim of
    ``dim`` (all by default) (``torch.fft.fftshift``)."""
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """Inverse of :func:`fftshift`: a roll by ``-(size // 2)`` (``torch.fft.ifftshift``)."""
    return _shift("ifftshift", input, dim, -1)


__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]
