"""Matrix and array helpers that teaching code reaches for: ``diagflat``, ``fill_diagonal_``
(with NumPy's ``wrap`` for tall matrices), ``scalar_tensor``, ``rsub`` (``other - alpha *
input``) and ``gradient`` (finite-difference derivatives along dims, with uniform spacing
or sample coordinates, one- or two-sided edges)."""

import numbers

import numpy as np

from .. import _dispatch, _dtypes
from .._device import resolve_device
from .._dispatch import check_inplace
from .._errors import TensorRuntimeError, TensorTypeError, wrap_dim, type_name
from .._registry import register
from .._tensor import Tensor
from .arithmetic import _check_alpha, _refuse_bool_subtraction, sub
from .copies import _fill_source
from .creation import _finalize, _place, check_pin_memory, check_requires_grad
from .views import _check_tensor, make_view

# ------------------------------------------------------------------------------ diagflat


@register("copy")
def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on its ``offset``-th diagonal (above the
    main one for positive offsets), zeros elsewhere.

    >>> import jtensor as torch
    >>> torch.diagflat(torch.tensor([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    _check_tensor(input, "diagflat")
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise TensorTypeError(
            f"diagflat(): argument 'offset' (position 2) must be int, not {type_name(offset)}"
        )
    offset = int(offset)
    xp = input._storage._backend.xp
    values = input._array().reshape(-1)
    n = values.shape[0]
    side = n + abs(offset)
    out = xp.zeros((side, side), dtype=values.dtype)
    rows = xp.arange(n) + max(-offset, 0)
    out[rows, rows + offset] = values
    return Tensor._from_array(out, input._dtype, input._storage.device)


# ------------------------------------------------------------------------ fill_diagonal_


@register("inplace", function=False)   # a Tensor method only, as in PyTorch
def fill_diagonal_(input, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal (``input[i, i, ...]``; every dim of a tensor
    with more than 2 dims must have one size). ``wrap``: for a matrix taller than wide, the
    diagonal starts again after each ``width + 1`` rows, as NumPy's ``fill_diagonal``.

    >>> import jtensor as torch
    >>> torch.zeros(2, 3).fill_diagonal_(1).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    _check_tensor(input, "fill_diagonal_")
    ndim = input.dim()
    if ndim < 2:
        raise TensorRuntimeError(
            f"fill_diagonal_: dimensions must larger than 1, but got a tensor with {ndim} "
            "dimensions"
        )
    height, width = input._shape[0], input._shape[1]
    if ndim > 2 and any(s != height for s in input._shape[1:]):
        raise TensorRuntimeError(
            "fill_diagonal_: all dimensions of input must be of equal length, but got shape "
            f"{list(input._shape)}"
        )
    check_inplace(input)
    source = _fill_source(input, fill_value, "fill_diagonal_")
    size = min(height, width)
    step = sum(input._stride)
    pieces = [make_view(input, (size,), (step,), input._offset)]
    if wrap and ndim == 2 and height > width + 1:
        # PyTorch places the wrapped part by counting elements in memory order, as NumPy's
        # flat view of a contiguous matrix: it starts ``width + 1`` rows down
        stride = width + 1
        wrap_size = (input.numel() + stride - 1) // stride - size
        pieces.append(
            make_view(input, (wrap_size,), (step,), input._offset + input._stride[0] * (width + 1))
        )
    for piece in pieces:
        piece._array()[...] = source
    return input


# ------------------------------------------------------------------------- scalar_tensor


@register("factory", method=False)
def scalar_tensor(
    s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False
):
    """A 0-d tensor holding the number ``s``, in the default floating dtype unless ``dtype``
    says otherwise (integers and bools too, unlike ``tensor``).

    >>> import jtensor as torch
    >>> torch.scalar_tensor(3)
    tensor(3.)
    """
    if isinstance(s, Tensor):
        if s.numel() != 1:
            raise TensorTypeError(
                "scalar_tensor(): argument 's' (position 1) must be Number, not Tensor (with "
                f"{s.numel()} elements)"
            )
        s = s.item()
    if not isinstance(s, (numbers.Number, np.generic)):
        raise TensorTypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type_name(s)}"
        )
    d = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(s, (complex, np.complexfloating)) and d.category != _dtypes.COMPLEX:
        raise TensorRuntimeError(
            f"value cannot be converted to type {d._torch_name.lower()} without overflow "
            f"({s}); pass a complex dtype"
        )
    check_requires_grad(d, requires_grad)
    check_pin_memory(pin_memory, resolve_device(device), "scalar_tensor")
    with np.errstate(all="ignore"):
        value = np.asarray(s).astype(d.numpy)
    return _finalize(_place(value, d, device), requires_grad)


# ---------------------------------------------------------------------------------- rsub


@register("elementwise", method=False)
def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``sub`` with its operands swapped); ``other`` may be a
    number.

    >>> import jtensor as torch
    >>> torch.rsub(torch.tensor([1, 2]), 10).tolist()
    [9, 8]
    """
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"rsub(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    if isinstance(other, Tensor):
        _refuse_bool_subtraction(other, input)
    _check_alpha(other, input, alpha)
    return sub.op.impl(other, input, alpha=alpha)


# ------------------------------------------------------------------------------ gradient


def _gradient_dims(input, dim):
    """The dims ``gradient`` differentiates along (all for ``None``), wrapped and unique."""
    ndim = input.dim()
    if dim is None:
        return list(range(ndim)), False
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    wrapped = []
    for d in dims:
        w = wrap_dim(int(d), ndim)
        if w in wrapped:
            raise TensorRuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    return wrapped, True


def _gradient_spacings(input, spacing, dims, dim_given):
    """One spacing per dim: a number (uniform steps) or a 1-D array of coordinates."""
    if isinstance(spacing, Tensor) and not spacing._shape:
        spacing = spacing.item()
    if isinstance(spacing, (numbers.Number, np.generic)) and not isinstance(spacing, bool):
        return [spacing] * len(dims)
    if not isinstance(spacing, (list, tuple)):
        raise TensorTypeError(
            "gradient(): argument 'spacing' must be a number, a list of numbers or a list of "
            f"tensors, not {type_name(spacing)}"
        )
    count = len(spacing)
    if not dim_given and count != input.dim():
        raise TensorRuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
            f"a list of length {count}"
        )
    if dim_given and count != len(dims):
        raise TensorRuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{count} and a dim argument of length {len(dims)}."
        )
    # PyTorch's overloads: a list of numbers, or a list of tensors, never both
    tensors = any(isinstance(s, Tensor) for s in spacing)
    for i, s in enumerate(spacing):
        if tensors and not isinstance(s, Tensor):
            raise TensorTypeError(
                f"expected Tensor as element {i} in argument 1, but got {type_name(s)} "
                "(spacing is a list of numbers or a list of coordinate tensors)"
            )
        if not tensors and not isinstance(s, (numbers.Number, np.generic)):
            raise TensorTypeError(
                f"gradient(): each spacing must be a number or a 1-D tensor, not {type_name(s)}"
            )
    out = []
    for s, d in zip(spacing, dims, strict=True):
        if isinstance(s, Tensor):
            if s.dim() != 1:
                raise TensorRuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, "
                    f"but got an element with {s.dim()} dimensions!"
                )
            if s._storage.device != input._storage.device:
                raise TensorRuntimeError(
                    "torch.gradient expected each tensor to be on the same device, but got "
                    f"devices {input.device} and {s.device}!"
                )
            if s._shape[0] != input._shape[d]:
                raise TensorRuntimeError(
                    f"torch.gradient: the coordinates for dim {d} have {s._shape[0]} values, "
                    f"but the input has size {input._shape[d]} there; give one coordinate per "
                    "sample"
                )
        out.append(s)
    return out


def _spacing_dtype(input_dtype, spacing):
    """The dtype PyTorch's arithmetic gives: integers become the default float; a complex
    step or coordinates of a wider floating type widen the result (coordinates are
    dimensioned tensors, so their dtype takes part in promotion)."""
    base = input_dtype if input_dtype.category >= _dtypes.FLOATING else _dtypes.get_default_dtype()
    if isinstance(spacing, Tensor):
        coord = (
            spacing._dtype
            if spacing._dtype.category >= _dtypes.FLOATING
            else _dtypes.get_default_dtype()
        )
        return _dtypes.promote_types(base, coord)
    if isinstance(spacing, (complex, np.complexfloating)) and base.category != _dtypes.COMPLEX:
        return base.to_complex()
    return base


def gradient_coefficients(n, spacing, edge_order):
    """The finite-difference stencil along one dim of ``n`` samples, in float64 (or complex
    for a complex step): ``(first, (a, b, c), last)`` where the interior output ``i`` is
    ``a[i-1] x[i-1] + b[i-1] x[i] + c[i-1] x[i+1]``, and ``first``/``last`` weigh the first
    and last ``len`` samples for the two edge outputs. Used by the backward (the transposed
    stencil)."""
    if isinstance(spacing, Tensor):
        coords = np.asarray(spacing._array().tolist(), dtype=np.float64)
        dx = np.diff(coords)
    else:
        dx = np.full(n - 1, spacing, dtype=np.result_type(type(spacing), np.float64))
    dx1, dx2 = dx[:-1], dx[1:]
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    if edge_order == 1:
        first = np.array([-1.0, 1.0]) / dx[0]
        last = np.array([-1.0, 1.0]) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        first = np.array(
            [-(2.0 * h0 + h1) / (h0 * (h0 + h1)), (h0 + h1) / (h0 * h1), -h0 / (h1 * (h0 + h1))]
        )
        p, q = dx[-2], dx[-1]
        last = np.array([q / (p * (q + p)), -(q + p) / (q * p), (2.0 * q + p) / (q * (q + p))])
    return first, (a, b, c), last


def _along(xp, x, dim, start, stop=None):
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, stop)
    return x[tuple(index)]


def _uniform_gradient(xp, x, dim, h, edge_order):
    """PyTorch's uniform-step kernel, operation by operation (same rounding)."""

    def s(start, stop=None):
        return _along(xp, x, dim, start, stop)

    center = (s(2) - s(0, -2)) / h / 2
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / h
        last = (s(-1) - s(-2, -1)) / h
    else:
        first = (-1.5 * s(0, 1) + 2 * s(1, 2) - 0.5 * s(2, 3)) / h
        last = (0.5 * s(-3, -2) - 2 * s(-2, -1) + 1.5 * s(-1)) / h
    return xp.concatenate([first, center, last], axis=dim)


def _coordinate_gradient(xp, x, dim, coords, edge_order):
    """PyTorch's kernel for sample coordinates: the second-order non-uniform stencil inside,
    one- or two-sided differences at the edges."""
    first_w, (a, b, c), last_w = gradient_coefficients(x.shape[dim], coords, edge_order)
    shape = [1] * x.ndim
    shape[dim] = -1

    def s(start, stop=None):
        return _along(xp, x, dim, start, stop)

    def w(v):
        return xp.asarray(np.asarray(v).reshape(shape)).astype(x.dtype)

    center = w(a) * s(0, -2) + w(b) * s(1, -1) + w(c) * s(2)
    k = len(first_w)
    first = sum(first_w[i].astype(x.dtype) * s(i, i + 1) for i in range(k))
    last = sum(last_w[i].astype(x.dtype) * s(-k + i, -k + i + 1 or None) for i in range(k))
    return xp.concatenate([first, center, last], axis=dim)


@register("copy", method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the derivative of sampled values along each dim (``dim``: one, a list, or
    all by default) with central differences inside and one-sided ones (``edge_order`` 1
    or 2) at the ends. ``spacing``: the step (a number, or one per dim) or the sample
    coordinates (a list of 1-D tensors). Returns a tuple, one tensor per dim.

    >>> import jtensor as torch
    >>> torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]))[0].tolist()
    [3.0, 4.0, 6.0, 7.0]
    """
    _check_tensor(input, "gradient")
    if input._dtype is _dtypes.uint8:
        raise TensorRuntimeError("torch.gradient does not support uint8 input.")
    dims, dim_given = _gradient_dims(input, dim)
    spacings = _gradient_spacings(input, spacing, dims, dim_given)
    if isinstance(edge_order, bool) or edge_order not in (1, 2):
        raise TensorRuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._shape[d] < edge_order + 1:
            raise TensorRuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1, but "
                f"dim {d} has size {input._shape[d]} (edge_order={edge_order})"
            )
    if _dispatch.grad_mode.enabled and any(
        isinstance(c, Tensor) and c._requires_grad for c in spacings
    ):
        # PyTorch's composite differentiates through the coordinates too; jtensor's gradient
        # formula is the transposed stencil for the values only, so say so rather than
        # return a result whose coordinates silently get no gradient
        raise TensorRuntimeError(
            "torch.gradient: jtensor does not differentiate with respect to the coordinate "
            "tensors in spacing, and one of them requires grad; pass detached coordinates "
            "(spacing=[c.detach() for c in coords]) or compute the differences with tensor ops"
        )
    if input._dtype is _dtypes.bool_ and dims:
        _refuse_bool_subtraction(input, input)
    xp = input._storage._backend.xp
    device = input._storage.device
    results = []
    for d, step in zip(dims, spacings, strict=True):
        dtype = _spacing_dtype(input._dtype, step)
        work = _dtypes.float32 if dtype in (_dtypes.float16, _dtypes.bfloat16) else dtype
        x = input._array().astype(work.numpy)
        with np.errstate(all="ignore"):
            if isinstance(step, Tensor):
                value = _coordinate_gradient(xp, x, d, step, edge_order)
            else:
                h = np.asarray(step).astype(work.numpy)[()]
                value = _uniform_gradient(xp, x, d, h, edge_order)
        results.append(
            Tensor._from_array(xp.ascontiguousarray(value.astype(dtype.numpy)), dtype, device)
        )
    return tuple(results)
