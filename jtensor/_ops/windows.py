"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``,
``bartlett_window``, ``blackman_window`` and ``kaiser_window``.

Each follows ATen's factory step by step (``TensorFactories.cpp``): an ``arange`` of the
window length (one more when ``periodic``, the last value then dropped), scaled, put
through the cosines, each step rounded to the result's dtype, so float32 and float64
values are PyTorch's to the last bits (float16/bfloat16 steps are computed in float32 and
rounded, as PyTorch's CPU kernels do). ``kaiser_window`` evaluates ``i0`` in float64 and
rounds once.
"""

import math

import numpy as np

from .. import _dtypes
from .._argparse import int_arg
from .._device import resolve_device
from .._errors import TensorNotImplementedError, TensorRuntimeError, TensorTypeError
from .._registry import register
from .._tensor import new_empty_tensor, sparse_coo
from .creation import _finalize, _place, check_pin_memory, check_requires_grad
from .math_functions import _i0_64


def _window_dtype(name, window_length, dtype, layout):
    """PyTorch's checks of a window factory's arguments; returns the result's dtype and the
    length as an int."""
    d = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    window_length = int_arg(window_length, name, "window_length", 1)
    if layout is sparse_coo:
        raise TensorRuntimeError(
            f"{name} is not implemented for sparse types, got layout "
            "torch.sparse_coo (windows are dense tensors)"
        )
    if window_length < 0:
        raise TensorRuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if d.category == _dtypes.COMPLEX:
        # PyTorch's check lets complex through, then its arange refuses it
        raise TensorNotImplementedError(
            f"{name}: \"arange_cpu\" not implemented for '{d._torch_name}' (windows are real: "
            "pass a floating dtype and convert afterwards)"
        )
    if d.category != _dtypes.FLOATING:
        raise TensorRuntimeError(
            f"{name} expects floating point dtypes, got: dtype={d} (pass dtype=torch.float32 "
            "or torch.float64)"
        )
    return d, window_length


class _Steps:
    """Array arithmetic rounded to ``dtype`` after each step (float16/bfloat16 computed in
    float32 in between), with double scalars cast to the computing type first, as
    TensorIterator's CPU kernels take a wrapped number."""

    def __init__(self, dtype):
        self.store = dtype.numpy
        low = dtype in (_dtypes.float16, _dtypes.bfloat16)
        self.work = np.dtype(np.float32) if low else np.dtype(self.store)

    def arange(self, n):
        return np.arange(n, dtype=np.float64).astype(self.store)

    def __call__(self, fn, *arrays):
        with np.errstate(all="ignore"):
            result = fn(
                *(
                    a.astype(self.work) if isinstance(a, np.ndarray) else self.work.type(a)
                    for a in arrays
                )
            )
        return np.asarray(result).astype(self.store)


def _make(name, window_length, periodic, dtype, layout, device, pin_memory, requires_grad, values):
    """The window factory's common path: checks, the trivial lengths, ``values(steps,
    length)`` for the rest, the periodic cut, placement."""
    d, window_length = _window_dtype(name, window_length, dtype, layout)
    check_requires_grad(d, requires_grad)
    dev = resolve_device(device)
    pinned = check_pin_memory(pin_memory, dev, name)
    if window_length <= 1:
        array = np.ones(window_length, dtype=d.numpy)
    else:
        length = window_length + 1 if periodic else window_length
        array = values(_Steps(d), length)[:window_length]
    if pinned:
        out = new_empty_tensor(array.shape, d, dev, pinned=True)
        out._array()[...] = array
    else:
        out = _place(array, d, dev)
    return _finalize(out, requires_grad)


def _overload(name, params):
    """PyTorch's overloads take the optional arguments in order only (``beta`` needs
    ``periodic``): the values with their defaults, or PyTorch's TypeError."""
    values, missing = [], None
    for pname, value, default in params:
        if value is None:
            missing = missing or pname
            value = default
        elif missing is not None:
            raise TensorTypeError(
                f"{name}() received an invalid combination of arguments: '{pname}' was given "
                f"without '{missing}' (PyTorch's overloads take ({', '.join(p[0] for p in params)})"
                " in that order)"
            )
        values.append(value)
    return values


def _hamming_values(alpha, beta):
    def values(s, n):
        w = s(lambda a, c: a * c, s.arange(n), math.pi * 2.0 / (n - 1))
        w = s(np.cos, w)
        w = s(lambda a, c: a * c, w, -beta)
        return s(lambda a, c: a + c, w, alpha)

    return values


@register("factory", method=False)
def hamming_window(
    window_length,
    periodic=None,
    alpha=None,
    beta=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The generalised Hamming window ``alpha - beta cos(2 pi n / (N - 1))``; ``periodic``
    (the default) computes ``N + 1`` points and drops the last, for spectral analysis.

    >>> import jtensor as torch
    >>> torch.hamming_window(5, periodic=False, dtype=torch.float64).tolist()
    [0.08000000000000002, 0.54, 1.0, 0.5400000000000001, 0.08000000000000002]
    """
    periodic, alpha, beta = _overload(
        "hamming_window",
        (("periodic", periodic, True), ("alpha", alpha, 0.54), ("beta", beta, 0.46)),
    )
    return _make(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        _hamming_values(alpha, beta),
    )


@register("factory", method=False)
def hann_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``hamming_window`` with alpha =
    beta = 0.5); ``periodic`` computes ``N + 1`` points and drops the last.

    >>> import jtensor as torch
    >>> torch.hann_window(4).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    return _make(
        "hann_window",
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        _hamming_values(0.5, 0.5),
    )


def _bartlett_values(s, n):
    w = s(lambda a, c: a * c, s.arange(n), 2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    # the second half falls back from 1 to 0: 2 - w
    tail = s(lambda a, c: a * c, w[half:], -1.0)
    w[half:] = s(lambda a, c: a + c, tail, 2.0)
    return w


@register("factory", method=False)
def bartlett_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The triangular Bartlett window, rising from 0 to 1 and back; ``periodic`` computes
    ``N + 1`` points and drops the last.

    >>> import jtensor as torch
    >>> torch.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _make(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        _bartlett_values,
    )


def _blackman_values(s, n):
    w = s(lambda a, c: a * c, s.arange(n), math.pi / (n - 1))
    four = s(lambda a, c: a * c, s(np.cos, s(lambda a, c: a * c, w, 4.0)), 0.08)
    two = s(lambda a, c: a * c, s(np.cos, s(lambda a, c: a * c, w, 2.0)), 0.5)
    return s(lambda a, c: a + c, s(lambda a, b: a - b, four, two), 0.42)


@register("factory", method=False)
def blackman_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``;
    ``periodic`` computes ``N + 1`` points and drops the last."""
    return _make(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        _blackman_values,
    )


def _kaiser_values(beta):
    def values(s, n):
        alpha = (n - 1) / 2.0
        x = np.arange(n, dtype=np.float64)
        arg = beta * np.sqrt(np.abs(1.0 - ((x - alpha) / alpha) ** 2))
        return (_i0_64(np, arg) / _i0_64(np, np.float64(beta))).astype(s.store)

    return values


@register("factory", method=False)
def kaiser_window(
    window_length,
    periodic=None,
    beta=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - A) / A)^2)) / I0(beta)`` with ``A = (N -
    1) / 2`` (``I0``: the modified Bessel function of order 0); ``periodic`` computes ``N +
    1`` points and drops the last.

    >>> import jtensor as torch
    >>> torch.kaiser_window(3, periodic=False, beta=0.0).tolist()
    [1.0, 1.0, 1.0]
    """
    periodic, beta = _overload(
        "kaiser_window", (("periodic", periodic, True), ("beta", beta, 12.0))
    )
    return _make(
        "kaiser_window",
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        _kaiser_values(float(beta)),
    )
