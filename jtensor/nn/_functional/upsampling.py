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

Nearest and nearest-exact (issue 18: a GAN generator's or U-Net decoder's ``nn.Upsample``)
gather the input along each dimension, and their backward adds each input element's window
of the gradient in PyTorch's kernel's order (zero, then the window's outputs row-major, in
float32 for float16/bfloat16), PyTorch's bits: with ``index_add`` over the flattened
spatial positions in public ops (differentiable again), and for a plain CPU float32/float64
tensor with nothing listening on the arrays (``_nearest_forward_arrays``,
``_nearest_grad_arrays``: a window of ``k`` outputs per input in every dim is ``k**nd``
adds of strided views; ``FAST_NEAREST = False`` turns the array paths off). In 2-d the
input gradient takes the layout the incoming gradient suggests, as PyTorch's.
"""

import itertools
import math
import warnings

import numpy as np

from ... import _dtypes
from ..._api import ops as J
from ..._device import CPU_BACKEND
from ..._dispatch import grad_mode
from ..._errors import TensorRuntimeError, TensorTypeError, TensorValueError, not_implemented
from ..._errors import TensorNotImplementedError
from ..._layout import suggests_channels_last
from ..._tensor import (ARRAY_FLOATS, DENSE_CLASSES, Tensor, channels_last, channels_last_3d,
                        fresh_tensor)
from ...autograd import graph as _graph
from ...autograd.function import Function
from ._op import nn_op
from .normalization import _listened
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
    def forward(ctx, input, matrices, indices, plan=None, computed=None, layout=None):
        ctx.matrices = matrices
        ctx.plan = plan   # (nearest modes: a ``_NearestPlan``)
        if computed is not None:   # (``_nearest_fast``: gathered on the arrays)
            return fresh_tensor(Tensor, computed, computed.shape, input._dtype,
                                input._storage.device, CPU_BACKEND)
        if indices is not None:
            out = input
            first = input.dim() - len(indices)
            for k, idx in enumerate(indices):
                out = out.index_select(first + k, idx)
        else:
            out = _apply(input, matrices)
        # (``layout``: channels-last, written by the node itself as PyTorch's kernel does)
        return out.contiguous() if layout is None else out.contiguous(memory_format=layout)

    @staticmethod
    def backward(ctx, grad):
        plan = ctx.plan
        if plan is None:
            return _apply(grad, ctx.matrices, transpose=True), None, None
        if FAST_NEAREST and _plain_grad(grad, plan):
            gi = _nearest_grad_arrays(grad._array(), plan)
            if not gi.flags.c_contiguous:
                gi = np.ascontiguousarray(gi)
            return fresh_tensor(Tensor, gi, gi.shape, grad._dtype, grad._storage.device,
                                CPU_BACKEND), None, None
        return _nearest_grad(grad, plan), None, None


# ------------------------------------------------------------------------ nearest modes
# Whether nearest upsampling of plain CPU float32/float64 tensors computes on the arrays
# (see the module docstring); the tests switch it off to compare with the public ops.
FAST_NEAREST = True
_PLANS = {}   # (mode, input sizes, output sizes, scales) -> _NearestPlan; cleared past 4096
# Up to this many gradient elements, windows of unequal widths are added by one ``add.at``
# (about 2 ns an element) rather than one gather per window offset (faster per element, a
# few microseconds per offset).
_ADD_AT_MAX = 1 << 16


class _NearestPlan:
    """What nearest resampling of given spatial sizes needs, worked out once: the source
    index of each output position per dim (``indices``), the window of outputs each input
    position gathers in the backward (``starts``, ``counts`` per dim), ``factors`` when every
    window of a dim is ``k`` outputs wide at ``k * i`` (then the windows are strided views),
    and each output's flat input position (``flat``, for ``index_add``)."""

    __slots__ = ("indices", "in_sizes", "out_sizes", "starts", "counts", "factors", "flat",
                 "_flat_tensor", "_steps", "_flat_all")

    def __init__(self, indices, in_sizes):
        self.indices = indices
        self.in_sizes = tuple(in_sizes)
        self.out_sizes = tuple(len(idx) for idx in indices)
        self.counts = [np.bincount(idx, minlength=n) for idx, n in zip(indices, in_sizes,
                                                                       strict=True)]
        # (the source index never decreases along a dim: each window is one run)
        self.starts = [np.searchsorted(idx, np.arange(n)) for idx, n in zip(indices, in_sizes,
                                                                            strict=True)]
        factors = []
        for idx, n in zip(indices, in_sizes, strict=True):
            k = len(idx) // n
            if k * n != len(idx) or not np.array_equal(idx, np.arange(len(idx)) // k):
                factors = None
                break
            factors.append(k)
        self.factors = factors
        flat = np.zeros(self.out_sizes, dtype=np.int64)
        step = 1
        for k in range(len(indices) - 1, -1, -1):
            shape = [1] * len(indices)
            shape[k] = -1
            flat += (indices[k] * step).reshape(shape)
            step *= in_sizes[k]
        self.flat = flat.reshape(-1)
        self._flat_tensor = None
        self._steps = None
        self._flat_all = {}

    def flat_index(self, device):
        """``flat`` as an int64 tensor on ``device`` (kept for the CPU)."""
        if device.type != "cpu":
            return J.tensor(self.flat, device=device)
        if self._flat_tensor is None:
            self._flat_tensor = J.tensor(self.flat)
        return self._flat_tensor

    def flat_all(self, planes):
        """``flat`` for ``planes`` (N * C) planes at once: each output element's position in
        the flattened input gradient (kept for a few plane counts)."""
        index = self._flat_all.get(planes)
        if index is None:
            size = math.prod(self.in_sizes)
            index = (np.arange(0, planes * size, size)[:, None] + self.flat).reshape(-1)
            if len(self._flat_all) >= 8:
                self._flat_all.clear()
            self._flat_all[planes] = index
        return index

    def window_steps(self):
        """The backward's steps when the windows differ in width: per offset within a
        window (row-major over the widest window of each dim, so each input position meets
        its own window's outputs in row-major order), the flat output position each input
        position adds (``src``), and ``dst``, the flat input positions whose window has that
        offset, or None when all have it."""
        if self._steps is None:
            per_dim = []
            for start, count in zip(self.starts, self.counts, strict=True):
                per_dim.append([(start + d, d < count) for d in range(int(count.max()))])
            out_steps = _contiguous_steps(self.out_sizes)
            steps = []
            for offset in itertools.product(*per_dim):
                src = np.zeros(self.in_sizes, dtype=np.int64)
                valid = np.ones(self.in_sizes, dtype=bool)
                for k, (pos, ok) in enumerate(offset):
                    shape = [1] * len(offset)
                    shape[k] = -1
                    src += (pos * out_steps[k]).reshape(shape)
                    valid &= ok.reshape(shape)
                src, valid = src.reshape(-1), valid.reshape(-1)
                if valid.all():
                    steps.append((src, None))
                else:
                    dst = np.flatnonzero(valid)
                    steps.append((src[dst], dst))
            self._steps = steps
        return self._steps


def _contiguous_steps(sizes):
    steps, step = [], 1
    for n in reversed(sizes):
        steps.append(step)
        step *= n
    return steps[::-1]


def _nearest_plan(mode, in_sizes, out_sizes, scales):
    key = (mode, tuple(in_sizes), tuple(out_sizes), tuple(scales))
    plan = _PLANS.get(key)
    if plan is None:
        exact = mode == "nearest-exact"
        indices = [_nearest_index(in_sizes[k], out_sizes[k], scales[k], exact)
                   for k in range(len(out_sizes))]
        plan = _NearestPlan(indices, in_sizes)
        if len(_PLANS) >= 4096:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _nearest_forward_arrays(a, plan):
    """The gathered output: one ``take`` per spatial dim (a fresh C-contiguous array)."""
    first = a.ndim - len(plan.indices)
    for k, idx in enumerate(plan.indices):
        a = np.take(a, idx, axis=first + k)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a


def _nearest_grad_arrays(g, plan):
    """The input gradient on the arrays, as PyTorch's kernel adds it: each input element
    starts at zero and adds its window's gradients in row-major order of the outputs. With
    ``factors`` the windows are strided views of ``g``; otherwise, for a small gradient,
    one ``add.at`` over the flat positions, and for a larger one each offset within a
    window gathers from the flattened gradient for the input positions whose window has it
    (``_NearestPlan.window_steps``)."""
    nd = len(plan.indices)
    lead = g.shape[:-nd]
    first = len(lead)
    if plan.factors is not None:
        split = lead
        for n, k in zip(plan.in_sizes, plan.factors, strict=True):
            split += (n, k)
        gv = g.reshape(split)
        acc = None
        for offset in itertools.product(*[range(k) for k in plan.factors]):
            view = gv[(Ellipsis,) + tuple(x for d in offset for x in (slice(None), d))]
            if acc is None:
                acc = np.add(view, g.dtype.type(0))
            else:
                np.add(acc, view, out=acc)
        return acc
    if g.size <= _ADD_AT_MAX:
        # One sequential ``add.at`` over every element in order (NumPy's 1-d ``at`` adds
        # each index's values in their order): fewer calls than the steps below.
        planes = math.prod(lead)
        acc = np.zeros(planes * math.prod(plan.in_sizes), dtype=g.dtype)
        np.add.at(acc, plan.flat_all(planes), g.reshape(-1))
        return acc.reshape(lead + plan.in_sizes)
    g2 = g.reshape(lead + (-1,))
    acc = np.zeros(lead + (math.prod(plan.in_sizes),), dtype=g.dtype)
    for src, dst in plan.window_steps():
        if dst is None:
            np.add(acc, np.take(g2, src, axis=first), out=acc)
        else:
            acc[..., dst] += np.take(g2, src, axis=first)
    return acc.reshape(lead + plan.in_sizes)


def _plain_grad(grad, plan):
    """Whether a nearest node's plain backward (no ``create_graph``) may compute on the
    arrays: a plain CPU float32/float64 gradient, not a 4-d one that suggests channels-last
    (the input gradient is then contiguous), nothing listening, no anomaly mode."""
    shape = grad._shape
    return (not grad_mode.enabled and grad.__class__ in DENSE_CLASSES
            and grad._dtype in ARRAY_FLOATS and grad._storage._backend is CPU_BACKEND
            and shape[len(shape) - len(plan.in_sizes):] == plan.out_sizes
            and not (len(shape) == 4 and suggests_channels_last(shape, grad._stride))
            and not (_listened() or _graph.anomaly.enabled))


def _nearest_grad(grad, plan):
    """The input gradient in public ops (differentiable): ``index_add`` of the gradient over
    the flattened spatial positions into zeros, in float32 for float16/bfloat16 (PyTorch's
    kernel accumulates those in float); 2-d resampling lays it out as the gradient suggests
    (channels-last or contiguous), 1-d and 3-d give it contiguous, as PyTorch's kernels."""
    nd = len(plan.in_sizes)
    shape = tuple(grad.shape)
    lead = shape[:-nd]
    work = grad if grad.dtype.itemsize >= 4 else grad.float()
    src = work.reshape(lead + (-1,))
    out = J.zeros(lead + (math.prod(plan.in_sizes),), dtype=work.dtype, device=grad.device)
    out = out.index_add(len(lead), plan.flat_index(grad.device), src)
    out = out.reshape(lead + plan.in_sizes)
    if work is not grad:
        out = out.to(grad.dtype)
    if len(shape) == 4 and suggests_channels_last(grad._shape, grad._stride):
        out = out.contiguous(memory_format=channels_last)
    return out


def _nearest_fast(input, mode, output_size, scales):
    """Nearest resampling of a plain CPU float32/float64 input whose layout does not suggest
    channels-last, with nothing listening: the gather on the arrays, then the node.
    None (nothing done) for anything else."""
    shape = input._shape
    if not FAST_NEAREST or input.__class__ not in DENSE_CLASSES \
            or input._dtype not in ARRAY_FLOATS or input._storage._backend is not CPU_BACKEND \
            or 0 in shape or (len(shape) in (4, 5) and suggests_channels_last(shape,
                                                                           input._stride)) \
            or _listened() or _graph.anomaly.enabled:
        return None
    plan = _nearest_plan(mode, shape[2:], output_size, scales)
    out = _nearest_forward_arrays(input._array(), plan)
    return _node(mode, len(output_size)).apply(input, None, None, plan=plan, computed=out)


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
    if mode in ("nearest", "nearest-exact"):
        out = _nearest_fast(input, mode, output_size, scales)
        if out is not None:
            return out
        plan = _nearest_plan(mode, tuple(input.shape[2:]), output_size, scales)
        indices = [J.tensor(idx, device=input.device) for idx in plan.indices]
        matrices = None
    else:
        acc = np.float64 if input.dtype == _dtypes.float64 else np.float32
        spatial = input.shape[2:]
        mats = [
            _matrix(mode, spatial[k], output_size[k], align_corners, scales[k], acc)
            for k in range(nd)
        ]
        matrices = [J.tensor(m, dtype=input.dtype, device=input.device) for m in mats]
        indices = plan = None
    layout = None
    if input.dim() in (4, 5) and suggests_channels_last(input._shape, input._stride):
        # PyTorch's kernels keep a channels-last input's layout
        layout = channels_last if input.dim() == 4 else channels_last_3d
    return _node(mode, nd).apply(input, matrices, indices, plan=plan, layout=layout)


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
