"""Spatial transformers: ``grid_sample`` and ``affine_grid`` (``jtensor.nn.functional``), and
PyTorch's ``GRID_SAMPLE_INTERPOLATION_MODES``/``GRID_SAMPLE_PADDING_MODES``.

``grid_sample`` follows PyTorch's CPU kernels step by step, written once for 2 and 3 spatial
dims in public jtensor ops: each grid coordinate is unnormalized (``align_corners`` maps -1
and 1 to the corner pixels' centres, else to the image's edges), moved into the image by the
padding mode (``border`` clips, ``reflection`` reflects then clips; both count the border as
out of bounds for the gradient, as PyTorch does), and the input is read by one gather per
corner (``bilinear``: 4 or 8 corners with weights ``(1 - frac)``/``frac``; ``nearest``: the
round-half-even pixel; ``bicubic``, 2-d only: 4x4 taps with PyTorch's cubic coefficients,
A = -0.75, each tap moved by the padding mode). Corners outside the image read zero.

The op is one ``autograd.Function`` with PyTorch's node name (``GridSampler2DBackward0``,
``GridSampler3DBackward0``); its backward differentiates that same composition (the
gathers' adjoints are scatter-adds, the weights' derivatives PyTorch's analytic ones), so
under ``create_graph=True`` the gradients are differentiable again. ``affine_grid`` is ATen's
composite: a base grid of normalized coordinates times ``theta``'s transpose
(``AffineGridGeneratorBackward0``, whose backward is the transposed product).
"""

import itertools
import warnings

from ..._api import ops as J
from ..._dtypes import int64
from ..._errors import (
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorValueError,
)
from ..._tensor import Tensor
from ...autograd import grad as _autograd_grad
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, no_grad
from ._op import nn_op
from .conv import _creates_graph

__all__ = [
    "GRID_SAMPLE_INTERPOLATION_MODES",
    "GRID_SAMPLE_PADDING_MODES",
    "affine_grid",
    "grid_sample",
]

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


# ------------------------------------------------------------------ coordinates
def _unnormalize(coord, size, align_corners):
    """Grid values in [-1, 1] to pixel coordinates (PyTorch's vectorized kernel's form)."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _clip(coord, size):
    """Clip into [0, size - 1]: NaN goes to 0, and the clipped branches (the border
    included) carry no gradient, as PyTorch's ``clip_coordinates_get_grad``."""
    top = size - 1
    inside = J.where(coord < top, coord, J.full_like(coord, top))
    return J.where(coord > 0, inside, J.zeros_like(coord))


def _reflect(coord, size, align_corners):
    """Reflect into the image (PyTorch's ``reflect_coordinates``): about the corner pixels'
    centres with ``align_corners``, about the image's edges otherwise."""
    if align_corners:
        if size <= 1:
            return J.zeros_like(coord)
        low, span = 0.0, 2.0 * (size - 1)
    else:
        low, span = -0.5, 2.0 * size
    shifted = coord - low
    # |x| written as a where so its derivative is +1 at 0, as PyTorch's
    absolute = J.where(shifted < 0, -shifted, shifted)
    extra = absolute - J.trunc(absolute / span) * span
    flipped = span - extra
    return J.where(extra > flipped, flipped, extra) + low


def _place(coord, size, padding_mode, align_corners):
    """PyTorch's ``compute_coordinates``: the padding mode applied to pixel coordinates."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        return _clip(_reflect(coord, size, align_corners), size)
    return coord


# ----------------------------------------------------------------------- gather
def _read(flat, positions, sizes):
    """Input values at integer pixel ``positions`` (one float tensor ``(N, *out)`` per
    spatial dim), zero outside the image. ``flat`` is the input seen as ``(N, C, P)``."""
    inside = None
    index = None
    for pos, size in zip(positions, sizes, strict=True):
        ok = (pos > -1) & (pos < size)
        inside = ok if inside is None else inside & ok
        safe = J.where(ok, pos, J.zeros_like(pos)).to(int64)
        index = safe if index is None else index * size + safe
    n, c = flat.shape[:2]
    out_shape = tuple(index.shape[1:])
    index = J.where(inside, index, J.zeros_like(index)).reshape(n, 1, -1).expand(n, c, -1)
    values = flat.gather(2, index).reshape((n, c) + out_shape)
    return J.where(inside.unsqueeze(1), values, J.zeros_like(values))


def _cubic_coefficients(t):
    """PyTorch's four cubic convolution weights (A = -0.75) for the fraction ``t``."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    rest = 1 - t
    return far(t + 1), near(t), near(rest), far(rest + 1)


def _sample(input, grid, mode, padding_mode, align_corners):
    """The grid sample of ``input`` ``(N, C, *S)`` at ``grid`` ``(N, *out, k)``, composed
    of public ops (so autograd differentiates it as PyTorch's kernels do)."""
    k = grid.shape[-1]
    sizes = tuple(input.shape[2:])
    n, c = input.shape[:2]
    flat = input.reshape(n, c, -1)
    # the grid's last dim lists x (width) first: spatial dim d reads entry k - 1 - d
    coords = [_unnormalize(grid[..., k - 1 - d], sizes[d], align_corners) for d in range(k)]
    if mode == "bicubic":
        floors = [J.floor(x) for x in coords]
        weights = [_cubic_coefficients(x - f) for x, f in zip(coords, floors, strict=True)]
        out = None
        for i, j in itertools.product(range(4), range(4)):
            taps = [floors[0] + (i - 1), floors[1] + (j - 1)]
            taps = [
                _place(t, s, padding_mode, align_corners) for t, s in zip(taps, sizes, strict=True)
            ]
            # a tap coordinate is read as an int (truncated), as PyTorch's kernel does
            value = _read(flat, [J.trunc(t) for t in taps], sizes)
            term = (weights[1][j] * weights[0][i]).unsqueeze(1) * value
            out = term if out is None else out + term
        return out
    coords = [_place(x, s, padding_mode, align_corners) for x, s in zip(coords, sizes, strict=True)]
    if mode == "nearest":
        return _read(flat, [J.round(x) for x in coords], sizes)
    floors = [J.floor(x) for x in coords]
    fracs = [x - f for x, f in zip(coords, floors, strict=True)]
    out = None
    for corner in itertools.product((0, 1), repeat=k):
        weight = None
        for bit, frac in zip(corner, fracs, strict=True):
            w = frac if bit else 1 - frac
            weight = w if weight is None else weight * w
        value = _read(flat, [f + b for f, b in zip(floors, corner, strict=True)], sizes)
        term = value * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _grid_sampler_function(k):
    class GridSampler(Function):
        _node_name = f"GridSampler{k}DBackward0"

        @staticmethod
        def forward(ctx, input, grid, mode, padding_mode, align_corners):
            ctx.options = (mode, padding_mode, align_corners)
            ctx.save_for_backward(input, grid)
            with no_grad():
                return _sample(input, grid, mode, padding_mode, align_corners)

        @staticmethod
        def backward(ctx, grad):
            input, grid = ctx.saved_tensors
            needs = ctx.needs_input_grad[:2]
            create = _creates_graph(grad, input, grid)
            with enable_grad():
                if create:  # differentiate the saved tensors themselves: double backward
                    leaves = [input, grid]
                else:
                    leaves = [
                        t.detach().requires_grad_(need)
                        for t, need in zip((input, grid), needs, strict=True)
                    ]
                out = _sample(*leaves, *ctx.options)
                wanted = [t for t, need in zip(leaves, needs, strict=True) if need]
                found = (
                    _autograd_grad(out, wanted, grad, create_graph=create, allow_unused=True)
                    if wanted
                    else ()
                )
            found = iter(found)
            grads = []
            for t, need in zip(leaves, needs, strict=True):
                g = next(found) if need else None
                if need and g is None:  # nearest: the grid's gradient is zeros
                    g = J.zeros_like(t)
                grads.append(g)
            return grads[0], grads[1], None, None, None

    GridSampler.__name__ = GridSampler.__qualname__ = f"_GridSampler{k}d"
    return GridSampler


_GRID_SAMPLER = {k: _grid_sampler_function(k) for k in (2, 3)}


@nn_op()
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) at the normalized
    locations of ``grid`` ``(N, H_out, W_out, 2)`` (or ``(N, D_out, H_out, W_out, 3)``;
    ``(x, y[, z])`` in [-1, 1]), as ``torch.nn.functional.grid_sample``. ``mode``:
    ``'bilinear'`` (trilinear in 3-d), ``'nearest'`` or ``'bicubic'`` (4-d only);
    ``padding_mode``: ``'zeros'``, ``'border'`` or ``'reflection'``; ``align_corners``
    (default False, with PyTorch's warning): whether -1 and 1 are the corner pixels'
    centres rather than the image's edges. Differentiable in both input and grid.

    >>> import jtensor as torch
    >>> img = torch.arange(4.).reshape(1, 1, 2, 2)
    >>> torch.nn.functional.grid_sample(img, torch.zeros(1, 1, 1, 2), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise TensorValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise TensorValueError(
            f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    _check_grid_sampler(input, grid, mode)
    k = grid.dim() - 2
    return _GRID_SAMPLER[k].apply(input, grid, mode, padding_mode, bool(align_corners))


def _check_grid_sampler(input, grid, mode):
    """ATen's ``grid_sampler`` checks, with its messages."""
    if input.device != grid.device:
        raise TensorRuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but input is on "
            f"{input.device} and grid is on {grid.device}"
        )
    if input.dim() != grid.dim():
        raise TensorRuntimeError(
            f"grid_sampler(): expected grid and input to have same number of dimensions, but "
            f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.dim() not in (4, 5):
        raise TensorRuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of "
            f"dimensions, but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise TensorRuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    k = input.dim() - 2
    if grid.shape[-1] != k:
        raise TensorRuntimeError(
            f"grid_sampler(): expected grid to have size {k} in last dimension, but got grid "
            f"with sizes {list(grid.shape)}"
        )
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise TensorRuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {d} being empty"
            )
    if mode == "bicubic" and k != 2:
        raise TensorRuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        raise TensorNotImplementedError(
            f"\"grid_sampler_{k}d_cpu_kernel_impl\" not implemented for '{input.dtype._torch_name}'"
        )
    if grid.dtype != input.dtype:
        raise TensorRuntimeError(
            f"expected scalar type {input.dtype._torch_name} but found {grid.dtype._torch_name}"
        )


# ------------------------------------------------------------------ affine grid
def _linspace_from_neg_one(theta, steps, align_corners):
    """ATen's normalized coordinates of ``steps`` pixels (0 for a single pixel)."""
    if steps <= 1:
        return J.zeros((), dtype=theta.dtype, device=theta.device)
    line = J.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return line if align_corners else line * (steps - 1) / steps


def _base_grid(theta, spatial, align_corners):
    """``(*spatial, k + 1)`` homogeneous coordinates ``(x, y[, z], 1)`` of every output
    pixel (x along the last spatial dim)."""
    k = len(spatial)
    base = J.ones(tuple(spatial) + (k + 1,), dtype=theta.dtype, device=theta.device)
    for d in range(k):  # entry d is the coordinate along spatial dim k - 1 - d
        axis = k - 1 - d
        line = _linspace_from_neg_one(theta, spatial[axis], align_corners)
        shape = [1] * k
        if line.dim():
            shape[axis] = -1
        base[..., d] = line.reshape(shape).expand(tuple(spatial))
    return base


class _AffineGrid(Function):
    """``base @ theta^T`` per sample: the grid of ``affine_grid``; the backward is
    ``grad^T @ base`` (ATen's ``affine_grid_generator_backward``), in public ops."""

    _node_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, spatial, align_corners):
        base = _base_grid(theta, spatial, align_corners)
        ctx.base = base
        n, k = theta.shape[0], len(spatial)
        flat = base.reshape(1, -1, k + 1).expand(n, -1, -1)
        return flat.bmm(theta.transpose(1, 2)).reshape((n,) + tuple(spatial) + (k,))

    @staticmethod
    def backward(ctx, grad):
        base = ctx.base
        k = base.shape[-1] - 1
        n = grad.shape[0]
        flat = base.reshape(1, -1, k + 1).expand(n, -1, -1)
        g = grad.reshape(n, -1, k)
        return g.transpose(1, 2).bmm(flat), None, None


@nn_op()
def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 4-d ``size``
    ``(N, C, H, W)``, ``(N, 3, 4)`` for a 5-d one): each output pixel's normalized
    coordinates ``(x, y[, z], 1)`` times ``theta``'s transpose, as
    ``torch.nn.functional.affine_grid`` (feed it to ``grid_sample``).

    >>> import jtensor as torch
    >>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    >>> torch.nn.functional.affine_grid(theta, [1, 1, 2, 2], align_corners=True)[0, 0]
    tensor([[-1., -1.],
            [ 1., -1.]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    if not isinstance(theta, Tensor) or not theta.dtype.is_floating_point:
        dtype = theta.dtype if isinstance(theta, Tensor) else type(theta).__name__
        raise TensorValueError(f"Expected theta to have floating point type, but got {dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise TensorValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                f"{theta.shape}."
            )
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise TensorValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                f"{theta.shape}."
            )
    else:
        raise TensorNotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=3,
        )
    elif min(size) <= 0:
        raise TensorValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise TensorRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {theta.shape[2]}] but got: [{theta.shape[0]}, {theta.shape[2]}]."
        )
    return _AffineGrid.apply(theta, tuple(spatial), bool(align_corners))
