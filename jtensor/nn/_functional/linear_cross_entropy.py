"""``linear_cross_entropy`` (``jtensor.nn.functional``) and ``LinearCrossEntropyOptions``
(``jtensor.nn``): the cross entropy of a linear projection's logits, PyTorch 2.13's API.

Without ``options`` it is PyTorch's reference path, ``cross_entropy(linear(x, W, b), t)``
(K-dimensional weights ``(C, d1, ..., dK, in)`` give logits ``(N, C, d1, ..., dK)``), so
its graph ends in ``NllLossBackward0``. With ``options`` (class-index targets, no label
smoothing, no K-dimensional weight) it is a chunked op, as PyTorch's: the batch is processed
``batch_chunk_size`` rows at a time (PyTorch's chunking heuristics pick the size), so the
``(N, C)`` logits are never held whole; the forward keeps only each row's log-sum-exp, and
the backward recomputes each chunk's softmax to give the input, weight and bias gradients
(first order only, as PyTorch's chunked path). Accumulation runs in ``acc_dtype`` (float32
for 16-bit inputs on the CPU, as PyTorch's ``"auto"``). Unsupported configurations fall back
to the reference path with PyTorch's warning.
"""

import dataclasses
import math
import warnings

import numpy as np

from ..._dtypes import bfloat16, float16, float32, float64, int64
from ..._errors import TensorRuntimeError, TensorValueError
from ..._tensor import Tensor
from ...autograd import forward_ad as _forward_ad
from ...autograd.function import Function
from ._op import nn_op
from .linear import linear
from .loss import _check_reduction, cross_entropy

__all__ = ["linear_cross_entropy"]

# PyTorch's per-(device type, dtype) picks for the "auto" sentinels, and the fallback.
_AUTO_DEFAULTS = {
    ("cpu", bfloat16): ("accurate", "aspect_ratio"),
    ("cpu", float16): ("accurate", "aspect_ratio"),
    ("cuda", bfloat16): ("compact", "aspect_ratio:2"),
    ("cuda", float16): ("compact", "aspect_ratio:2"),
}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")
_ACC_DTYPES = (float16, bfloat16, float32, float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Options of the chunked ``linear_cross_entropy``, as ``torch.nn.LinearCrossEntropyOptions``
    (a frozen dataclass, checked on construction): ``allow_retain_graph``,
    ``batch_chunk_size`` (rows per chunk; None: one chunk or the heuristic),
    ``chunking_method`` (``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or None),
    ``acc_policy`` (``"auto"``, ``"accurate"``, ``"balanced"``, ``"compact"``) and
    ``acc_dtype`` (the accumulation dtype; None picks it per call).

    >>> import jtensor as torch
    >>> torch.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise TensorValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise TensorValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise TensorValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise TensorValueError(
                f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically."
            )

    def _resolved(self, rows, in_features, classes, dtype, device_type):
        """``(batch_chunk_size, acc_dtype)`` for one call: PyTorch's resolution of the
        ``"auto"`` sentinels and of the ``aspect_ratio`` heuristic."""
        method = self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None  # an explicit size wins over the automatic pick
        if method == "auto":
            method = _AUTO_DEFAULTS.get((device_type, dtype), _AUTO_FALLBACK)[1]
        size = rows if self.batch_chunk_size is None else min(self.batch_chunk_size, rows)
        if method is not None:
            factor = int(method.split(":", 1)[1]) if ":" in method else 1
            target = -(-rows // -(-classes // max(in_features, 1)))
            picked = min((1 << max(target - 1, 0).bit_length()) // factor, rows)
            if self.batch_chunk_size is not None and self.batch_chunk_size != picked:
                raise TensorValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{method}') give different chunk sizes ({self.batch_chunk_size} vs "
                    f"{picked}); pass only one."
                )
            size = picked
        acc = self.acc_dtype
        if acc is None:
            # "auto" accumulates 16-bit inputs in float32 on the CPU (and on CUDA, where
            # the mixed-precision product exists); otherwise in the input's dtype
            half = dtype in (float16, bfloat16) and device_type in ("cpu", "cuda")
            acc = float32 if self.acc_policy == "auto" and half else dtype
        return max(1, size), acc


def _chunk_rows(xp, x, w, b, rows, ct):
    """The logits of ``rows`` of ``x`` in the accumulation dtype ``ct``."""
    logits = xp.matmul(x[rows].astype(ct, copy=False), w.astype(ct, copy=False).T)
    if b is not None:
        logits += b.astype(ct, copy=False)
    return logits


def _chunked_function(node_name):
    class ChunkedLinearCrossEntropy(Function):
        """Per-row losses (``'none'``) or their weighted sum/mean, chunk by chunk."""

        _node_name = node_name

        @staticmethod
        def forward(
            ctx,
            input,
            weight_t,
            target,
            bias,
            class_weight,
            reduction,
            ignore,
            chunk,
            acc,
            allow_retain_graph,
        ):
            xp = input._storage._backend.xp
            ct = acc.numpy
            x, w = input._array(), weight_t._array()
            b = None if bias is None else bias._array()
            t = target._array()
            n = x.shape[0]
            keep = t != ignore
            safe_t = xp.where(keep, t, 0)
            if class_weight is None:
                row_w = keep.astype(ct)
            else:
                row_w = xp.where(keep, class_weight._array().astype(ct)[safe_t], 0)
            losses = xp.zeros(n, dtype=ct)
            for start in range(0, n, chunk):
                rows = slice(start, min(n, start + chunk))
                logits = _chunk_rows(xp, x, w, b, rows, ct)
                top = logits.max(axis=1, keepdims=True)
                lse = xp.log(xp.exp(logits - top).sum(axis=1)) + top[:, 0]
                picked = xp.take_along_axis(logits, safe_t[rows, None], axis=1)[:, 0]
                losses[rows] = (lse - picked) * row_w[rows]
            ctx.state = (reduction, ignore, chunk, ct, row_w, safe_t)
            # PyTorch's scalar reductions consume their gradient buffers: a second backward
            # through the same node is refused unless allow_retain_graph
            ctx.once = reduction != "none" and not allow_retain_graph
            ctx.used = False
            ctx.save_for_backward(input, weight_t, bias)
            if reduction == "none":
                out = losses
            elif reduction == "sum":
                out = losses.sum()
            else:  # cross_entropy's weighted mean
                out = losses.sum() / row_w.sum()
            return Tensor._from_array(
                xp.asarray(out.astype(input._dtype.numpy)), input._dtype, input.device
            )

        @staticmethod
        def backward(ctx, grad):
            input, weight_t, bias = ctx.saved_tensors
            if ctx.once and ctx.used:
                raise TensorRuntimeError(
                    "linear_cross_entropy chunked backward called twice; retain_graph=True / "
                    "double backward are not supported."
                )
            ctx.used = True
            reduction, _, chunk, ct, row_w, safe_t = ctx.state
            xp = input._storage._backend.xp
            x, w = input._array(), weight_t._array()
            b = None if bias is None else bias._array()
            n = x.shape[0]
            g = grad._array().astype(ct)
            if reduction == "mean":
                g = g / row_w.sum()
            scale = row_w * g  # (N,) per-row factors (broadcast for the scalar reductions)
            need_x, need_w, _, need_b = ctx.needs_input_grad[:4]
            gx = xp.zeros(x.shape, dtype=ct) if need_x else None
            gw = xp.zeros(w.shape, dtype=ct) if need_w else None
            gb = xp.zeros(w.shape[0], dtype=ct) if need_b and b is not None else None
            for start in range(0, n, chunk):
                rows = slice(start, min(n, start + chunk))
                logits = _chunk_rows(xp, x, w, b, rows, ct)
                probs = xp.exp(logits - logits.max(axis=1, keepdims=True))
                probs /= probs.sum(axis=1, keepdims=True)
                xp.put_along_axis(
                    probs,
                    safe_t[rows, None],
                    xp.take_along_axis(probs, safe_t[rows, None], axis=1) - 1,
                    axis=1,
                )
                dlogits = probs * scale[rows, None]
                if gx is not None:
                    gx[rows] = xp.matmul(dlogits, w.astype(ct, copy=False))
                if gw is not None:
                    gw += xp.matmul(dlogits.T, x[rows].astype(ct, copy=False))
                if gb is not None:
                    gb += dlogits.sum(axis=0)

            def wrap(arr, like):
                if arr is None:
                    return None
                return Tensor._from_array(arr.astype(like._dtype.numpy), like._dtype, like.device)

            return (
                wrap(gx, input),
                wrap(gw, weight_t),
                None,
                wrap(gb, bias),
                None,
                None,
                None,
                None,
                None,
                None,
            )

    return ChunkedLinearCrossEntropy


_PREFIX = "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked"
_CHUNKED = _chunked_function(f"{_PREFIX}_defaultBackward")
_CHUNKED_NONE = _chunked_function(f"{_PREFIX}_no_reduction_defaultBackward")


@nn_op()
def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction="mean",
    ignore_index=None,
    label_smoothing=0.0,
    options=None,
):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, as
    ``torch.nn.functional.linear_cross_entropy``: ``input`` ``(N, in)`` or ``(in,)``,
    ``linear_weight`` ``(C, in)`` or ``(C, d1, ..., dK, in)``; ``ignore_index`` None means
    -100 for class-index targets (and must stay None for class probabilities).
    ``options`` (a ``LinearCrossEntropyOptions``) selects the chunked computation, which
    never holds the whole ``(N, C)`` logits.

    >>> import jtensor as torch
    >>> x, w = torch.zeros(2, 3), torch.zeros(4, 3)
    >>> torch.nn.functional.linear_cross_entropy(x, w, torch.tensor([0, 3]))
    tensor(1.3863)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise TensorRuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise TensorRuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise TensorRuntimeError(
            f"expected equal input and linear_weight last dimensions (in_features), got "
            f"{in_features} and {linear_weight.shape[-1]}, respectively"
        )
    classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise TensorRuntimeError(
            f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if out_features and not batches:
        raise TensorRuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise TensorRuntimeError(
            "ignore_index cannot be specified when target contains probabilities"
        )
    ignore_index = -100 if ignore_index is None else ignore_index
    chunked = (
        reduction in {"mean", "sum", "none"}
        and label_smoothing == 0.0
        and target.dtype == int64
        and not out_features
    )
    if options is not None and not chunked:
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
            f"out_features == (). Got reduction={reduction!r}, label_smoothing="
            f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}, "
            f"tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
            stacklevel=3,
        )
    if options is not None and chunked:
        _check_reduction(reduction)
        return _chunked(
            input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options
        )
    if out_features:
        flat = math.prod(out_features) * classes
        linear_weight = linear_weight.reshape(flat, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
    )


def _chunked(input, linear_weight, target, bias, weight, reduction, ignore_index, options):
    """The chunked op: PyTorch's option resolution, then one Function call."""
    unbatched = input.dim() == 1
    if unbatched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    if target.shape[0] != input.shape[0] or target.dim() != 1:
        raise TensorValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.dim() else 1})."
        )
    classes = linear_weight.shape[0]
    t = np.asarray(target.detach().cpu()._array())
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if bad.any():
        raise TensorRuntimeError(f"Target {int(t[bad][0])} is out of bounds.")
    chunk, acc = options._resolved(
        input.shape[0], input.shape[1], classes, input.dtype, input.device.type
    )
    fn = _CHUNKED_NONE if reduction == "none" else _CHUNKED
    if _forward_ad._current_level >= 0:
        # PyTorch's chunked path has no forward-mode formula and drops tangents: its result
        # is never dual (unpack_dual gives None), so it runs on the primals here too.
        input, linear_weight = (_forward_ad.unpack_dual(t).primal for t in (input, linear_weight))
        if bias is not None:
            bias = _forward_ad.unpack_dual(bias).primal
    out = fn.apply(
        input,
        linear_weight,
        target,
        bias,
        weight,
        reduction,
        ignore_index,
        chunk,
        acc,
        options.allow_retain_graph,
    )
    return out.squeeze(0) if unbatched and reduction == "none" else out
