"""Resampling of ``jtensor.nn.functional``: ``interpolate`` (modes nearest, nearest-exact,
linear, bilinear, bicubic, trilinear, area) and the deprecated ``upsample``,
``upsample_nearest``, ``upsample_bilinear``.

Every mode but ``area`` is separable: along each spatial dimension the output is a fixed
linear map of the input, a matrix ``M`` of shape ``(out, in)`` whose rows hold the
interpolation weights (one 1 for nearest, two for linear, four clamped taps for cubic). The
source positions and weights are computed as ATen's CPU kernels do (``UpSample.h``: the
scale, the source index, the clamping, float32 arithmetic for float32 inputs), so the values
are PyTorch's. The forward applies the matrices (nearest gathers with ``index_select``, which
also serves uint8 images); the backward applies their transposes, in public ops, so the
gradient is itself differentiable (a linear map of ``grad``). The node carries PyTorch's name
(``UpsampleBilinear2DBackward0``...). ``area`` is adaptive average pooling, as in PyTorch.
"""

import math
import warnings

import numpy as np

from ... import _dtypes
from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorTypeError, TensorValueError, not_implemented
from ..._errors import TensorNotImplementedError
from ..._layout import suggests_channels_last
from ..._tensor import channels_last, channels_last_3d
from ...autograd.function import Function
from ._op import nn_op
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_LINEAR_MODES = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_NODE_MODE = {
    "nearest": "Nearest",
    "nearest-exact": "NearestExact",
    "linear": "Linear",
    "bilinear": "Bilinear",
    "bicubic": "Bicubic",
    "trilinear": "Trilinear",
}
_CUBIC_A = -0.75  # the cubic convolution's parameter (Keys), as PyTorch


def _scale(in_size, out_size, align_corners, scale, acc):
    """ATen's ``area_pixel_compute_scale`` in the kernel's math type ``acc``."""
    if align_corners:
        return acc(in_size - 1) / acc(out_size - 1) if out_size > 1 else acc(0)
    if scale is not None and scale > 0:
        return acc(1.0 / scale)
    return acc(in_size) / acc(out_size)


def _source(scale, out_size, align_corners, cubic, acc):
    """ATen's ``area_pixel_compute_source_index`` for every output position."""
    dst = np.arange(out_size).astype(acc)
    if align_corners:
        return scale * dst
    src = scale * (dst + acc(0.5)) - acc(0.5)
    return src if cubic else np.maximum(src, acc(0))


def _nearest_index(in_size, out_size, scale, exact):
    """Source index of each output for nearest (``floor(dst * scale)``) and nearest-exact
    (``floor((dst + 0.5) * scale)``), in float32 as ATen computes them."""
    s = (
        np.float32(1.0 / scale)
        if scale is not None and scale > 0
        else np.float32(in_size) / np.float32(out_size)
    )
    dst = np.arange(out_size)
    if exact:
        pos = ((dst + 0.5) * np.float64(s)).astype(np.float32)
    else:
        pos = dst.astype(np.float32) * s
    return np.minimum(np.floor(pos).astype(np.int64), in_size - 1)


def _cubic_weights(t):
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _matrix(mode, in_size, out_size, align_corners, scale, acc):
    """The ``(out, in)`` interpolation matrix of one dimension (NumPy, in ``acc``)."""
    m = np.zeros((out_size, in_size), dtype=acc)
    rows = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        m[rows, _nearest_index(in_size, out_size, scale, mode == "nearest-exact")] = 1
        return m
    s = _scale(in_size, out_size, align_corners, scale, acc)
    src = _source(s, out_size, align_corners, mode == "bicubic", acc)
    if mode == "bicubic":
        base = np.floor(src)
        t = (src - base).astype(acc)
        base = base.astype(np.int64)
        for k, w in enumerate(_cubic_weights(t)):
            # taps outside the input read the border value: their weight goes there
            np.add.at(m, (rows, np.clip(base - 1 + k, 0, in_size - 1)), w.astype(acc))
        return m
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam = np.clip(src - i0.astype(acc), 0, 1).astype(acc)
    i1 = i0 + (i0 < in_size - 1)
    np.add.at(m, (rows, i0), acc(1) - lam)
    np.add.at(m, (rows, i1), lam)
    return m


def _apply(x, matrices, transpose=False):
    """``x`` with matrix ``k`` applied along spatial dimension ``k`` (the last ones)."""
    first = x.dim() - len(matrices)
    for k in reversed(range(len(matrices))):
        m = matrices[k].t() if transpose else matrices[k]
        dim = first + k
        x = J.matmul(x.movedim(dim, -1), m.t()).movedim(-1, dim)
    return x


class _Upsample(Function):
    @staticmethod
    def forward(ctx, input, matrices, indices):
        ctx.matrices = matrices
        if indices is not None:
            out = input
            first = input.dim() - len(indices)
            for k, idx in enumerate(indices):
                out = out.index_select(first + k, idx)
            return out.contiguous()
        return _apply(input, matrices).contiguous()

    @staticmethod
    def backward(ctx, grad):
        return _apply(grad, ctx.matrices, transpose=True), None, None


_NODES = {}


def _node(mode, nd):
    """The Function class of ``mode`` in ``nd`` spatial dimensions, named as PyTorch's."""
    key = (mode, nd)
    if key not in _NODES:
        _NODES[key] = type(
            f"_Upsample{_NODE_MODE[mode]}{nd}d",
            (_Upsample,),
            {"_node_name": f"Upsample{_NODE_MODE[mode]}{nd}DBackward0"},
        )
    return _NODES[key]


def _resample(input, mode, output_size, scales, align_corners):
    nd = len(output_size)
    if mode in ("nearest", "nearest-exact"):
        if not (input.dtype.is_floating_point or input.dtype == _dtypes.uint8):
            raise not_implemented("compute_indices_weights_nearest", input.dtype)
    elif not input.dtype.is_floating_point:
        raise not_implemented(f"upsample_{mode}{nd}d_out_frame", input.dtype)
    for size in output_size:
        if size <= 0:
            raise TensorRuntimeError(
                f"Input and output sizes should be greater than 0, but got input "
                f"({', '.join(map(str, input.shape[2:]))}) output "
                f"({', '.join(map(str, output_size))})"
            )
    acc = np.float64 if input.dtype == _dtypes.float64 else np.float32
    spatial = input.shape[2:]
    mats = [
        _matrix(mode, spatial[k], output_size[k], align_corners, scales[k], acc) for k in range(nd)
    ]
    dtype = input.dtype if input.dtype.is_floating_point else _dtypes.float32
    matrices = [J.tensor(m, dtype=dtype, device=input.device) for m in mats]
    indices = None
    if mode in ("nearest", "nearest-exact"):
        indices = [J.tensor(m.argmax(1), device=input.device) for m in mats]
    out = _node(mode, nd).apply(input, matrices, indices)
    if input.dim() in (4, 5) and suggests_channels_last(input._shape, input._stride):
        # PyTorch's kernels keep a channels-last input's layout
        fmt = channels_last if input.dim() == 4 else channels_last_3d
        out = out.contiguous(memory_format=fmt)
    return out


def _is_integer(x):
    return (
        isinstance(x, (int, np.integer))
        and not isinstance(x, bool)
        or (hasattr(x, "dim") and x.dim() == 0 and not x.dtype.is_floating_point)
    )


@nn_op()
def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resize the spatial dimensions of an ``(N, C, d1, ..., dK)`` input to ``size`` or by
    ``scale_factor`` with ``mode`` nearest | nearest-exact | linear (3-d) | bilinear |
    bicubic (4-d) | trilinear (5-d) | area; ``align_corners`` (linear modes) maps the corner
    pixels' centres onto each other."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise TensorValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise TensorValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = [None] * max(dim, 0)
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise TensorValueError(
                    f"Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    f"format and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TensorTypeError(
                    f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types "
                    f"{[type(x) for x in size]}"
                )
            output_size = [int(x) for x in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise TensorValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    f"(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    f"format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise TensorValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise TensorValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if output_size is None:
        scaled = [float(input.shape[i + 2]) * scales[i] for i in range(dim)]
        if any(not math.isfinite(v) or abs(v) >= 2.0 ** 63 for v in scaled):
            # PyTorch converts the scaled size to int64 with its overflow check
            raise TensorRuntimeError(
                f"value cannot be converted to type int64_t without overflow (input size "
                f"{list(input.shape[2:])} times scale_factor {scales})")
        output_size = [math.floor(v) for v in scaled]
        if recompute_scale_factor:
            scales = [None] * dim
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise TensorValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if antialias:
        raise TensorNotImplementedError(
            "interpolate(antialias=True) is not supported by jtensor yet; resize without "
            "antialias (or blur first, then resize)."
        )
    if mode == "area" and input.dim() == 3:
        return adaptive_avg_pool1d(input, output_size)
    if mode == "area" and input.dim() == 4:
        return adaptive_avg_pool2d(input, output_size)
    if mode in ("nearest", "nearest-exact") and input.dim() in (3, 4, 5):
        return _resample(input, mode, output_size, scales, None)
    if mode in _LINEAR_MODES and input.dim() == _LINEAR_MODES[mode]:
        return _resample(input, mode, output_size, scales, align_corners)
    for m, needs in _LINEAR_MODES.items():
        if mode == m and input.dim() in (3, 4, 5) and mode != "bicubic":
            raise TensorNotImplementedError(
                f"Got {input.dim()}D input, but {mode} mode needs {needs}D input"
            )
    raise TensorNotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
        f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (warns, as PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')`` (warns, as PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)`` (warns, as
    PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
