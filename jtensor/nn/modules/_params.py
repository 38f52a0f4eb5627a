"""Parameter registration shared by the layers: an optional ``bias`` and the optional
affine ``weight``/``bias`` pair of the normalization layers."""

from ..._ops.creation import empty
from .. import init
from ..parameter import Parameter


def _register_bias(module, bias, shape, device, dtype):
    """``module.bias``: an uninitialised Parameter of ``shape`` when ``bias``, else None."""
    if bias:
        module.bias = Parameter(empty(shape, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


def _register_affine(module, affine, bias, shape, device, dtype):
    """``module.weight`` and ``module.bias`` of ``shape`` when ``affine`` (``bias`` False: no
    bias), else both None."""
    if affine:
        module.weight = Parameter(empty(shape, device=device, dtype=dtype))
        _register_bias(module, bias, shape, device, dtype)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module, affine):
    """``weight`` to ones and ``bias`` (when there is one) to zeros, when ``affine``."""
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)
