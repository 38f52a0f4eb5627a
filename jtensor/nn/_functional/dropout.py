"""Dropout: ``dropout``, ``dropout1d``, ``dropout2d``, ``dropout3d`` (``jtensor.nn.functional``).

Training zeroes each element (or each channel) with probability ``p`` and scales the rest by
``1 / (1 - p)``: ``input * mask`` (``MulBackward0``, as PyTorch on CPU). In evaluation, with
``p == 0`` or an empty input the input itself is returned. The mask is PyTorch's CPU one for
the same seed (``bernoulli_(1 - p)``: a double uniform per element).
"""

import warnings

import numpy as np

from ... import _dispatch
from ... import _mt19937 as _mt
from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorValueError
from ..._tensor import Tensor, fresh_tensor, plain_cpu_floats
from ...random import _rng
from ._op import nn_op

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise TensorValueError(f"dropout probability has to be between 0 and 1, but got {p}")


# Whether ``_noise_fast`` may draw the mask (the tests switch it off to compare).
FAST_NOISE = True


def _noise_fast(input, q):
    """The mask of ``dropout`` with keep probability ``q`` for a plain contiguous CPU
    float32/float64 ``input``, drawn and scaled on the arrays (issue 18: a dropout in a loop
    over small tensors paid for three ops). The same draws from the default generator and
    the same float division as ``empty_like(input).bernoulli_(q).div_(q)``; None when
    anything else applies (a device, another layout, a transform or hook listening)."""
    if not FAST_NOISE or _dispatch.transforms.active or _dispatch.autograd_hook is not None \
            or _dispatch.profile_hook is not None or not plain_cpu_floats(input) \
            or not input.is_contiguous():
        return None
    dtype = input._dtype
    storage = input._storage
    hit = _mt.bernoulli_scalar(_rng(None, storage.device), input.numel(), q)
    noise = hit.astype(dtype.numpy).reshape(input._shape)
    np.true_divide(noise, np.asarray(q, dtype=dtype.numpy), out=noise)
    return fresh_tensor(Tensor, noise, input._shape, dtype, storage.device, storage._backend)


def _apply_noise(input, p, inplace, noise_shape=None):
    """``input * noise`` (in place when ``inplace``): ``noise_shape`` for feature dropout (a
    contiguous mask), else a mask laid out like ``input`` (``empty_like``, as PyTorch: the
    draws follow the input's memory order)."""
    noise = _noise_fast(input, 1.0 - p) if noise_shape is None and p != 1.0 else None
    if noise is None and p == 1.0:
        noise = input.new_zeros(noise_shape if noise_shape is not None else input.shape)
    elif noise is None:
        noise = (J.empty_like(input) if noise_shape is None
                 else input.new_empty(noise_shape)).bernoulli_(1.0 - p)
        noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


@nn_op(inplace="inplace")
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the others by ``1/(1-p)``
    (only when ``training``).

    >>> import jtensor as torch
    >>> x = torch.ones(4)
    >>> torch.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise TensorRuntimeError(f"dropout: expected a floating point input, got {input.dtype}")
    return _apply_noise(input, p, inplace)


def _feature_dropout(input, p, training, inplace):
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise TensorRuntimeError(
            "Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape)
    noise_shape = shape[:2] + (1,) * (len(shape) - 2)
    return _apply_noise(input, p, inplace, noise_shape)


def _unbatched(input, p, training, inplace):
    """Feature dropout of an input without its batch dimension (one is added for the
    call, and taken away after)."""
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(x, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def _warn_deprecated_dim(name, inp_dim, spatial):
    """PyTorch's warning for an input to ``dropout2d``/``dropout3d`` (``spatial`` 2 or 3)
    that has neither ``spatial + 1`` nor ``spatial + 2`` dimensions."""
    warnings.warn(
        f"{name}: Received a {inp_dim}-D input to {name}, which is deprecated and "
        "will result in an error in a future release. To retain the behavior and silence "
        f"this warning, please use dropout instead. Note that {name} exists to provide "
        f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel dimension, "
        f"and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=3)


@nn_op(inplace="inplace")
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p``."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise TensorRuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    if inp_dim == 2:
        return _unbatched(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


@nn_op(inplace="inplace")
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, H, W)`` input with probability ``p``; as PyTorch, a
    3-D input is taken as ``(N, C, L)`` (with a warning)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        _warn_deprecated_dim("dropout2d", inp_dim, 2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


@nn_op(inplace="inplace")
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p``."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        _warn_deprecated_dim("dropout3d", inp_dim, 3)
    if inp_dim != 5:
        return _unbatched(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)
