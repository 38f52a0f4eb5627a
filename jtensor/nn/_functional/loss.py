"""Losses of ``jtensor.nn.functional``: cross_entropy, nll_loss, binary_cross_entropy,
binary_cross_entropy_with_logits, mse_loss, l1_loss, smooth_l1_loss, huber_loss, kl_div.

Where PyTorch's autograd shows one fused node (``NllLossBackward0``, ``MseLossBackward0``...)
the loss is an ``autograd.Function`` with that node name; where PyTorch composes ops
(``l1_loss``, ``kl_div``, label smoothing, probability targets) it is composed here too, so the
graphs look the same. Backwards are written in public jtensor ops, so ``create_graph=True``
differentiates them again; the one exception is cross_entropy's fast path, which computes the
gradient ``(softmax - onehot) * w / N`` directly on the arrays when no graph of the backward
is being recorded.
"""

import warnings

import jtensor as J

from ..._dispatch import grad_mode
from ..._errors import (TensorIndexError, TensorRuntimeError, TensorValueError,
                        not_implemented)
from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "mse_loss", "l1_loss", "smooth_l1_loss",
           "huber_loss", "kl_div"]

_REDUCTIONS = ("none", "mean", "sum")


# ------------------------------------------------------------------------ helpers
def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's ``_Reduction.legacy_get_string``: the deprecated ``size_average``/``reduce``
    arguments override ``reduction`` when given."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='mean' (or 'sum'/'none') instead.", stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _check_reduction(reduction, batchmean=False):
    if reduction not in _REDUCTIONS and not (batchmean and reduction == "batchmean"):
        raise TensorValueError(f"{reduction} is not a valid value for reduction "
                               f"(expected one of 'none', 'mean', 'sum')")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _xp(t):
    return t._storage._backend.xp


def _size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            f"broadcasting. Please ensure they have the same size.", stacklevel=3)


def _grad_scale(grad, reduction, count):
    """The incoming gradient of a reduced loss, spread back over its elements."""
    return grad / count if reduction == "mean" else grad


# ------------------------------------------------------------ class-index targets
def _check_class_target(input, target, weight, ignore_index, name="nll_loss"):
    """PyTorch's checks of ``nll_loss``'s input/target/weight; returns the class count."""
    ndim = input.dim()
    if ndim < 1:
        raise TensorValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim <= 2 and target.dim() > 1:
        raise TensorRuntimeError(
            f"0D or 1D target tensor expected, multi-target not supported (got a target of "
            f"shape {list(target.shape)} for an input of shape {list(input.shape)})")
    target_batch = target.shape[0] if target.dim() else 0
    if ndim >= 2 and input.shape[0] != target_batch:
        raise TensorValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                               f"batch_size ({target_batch}).")
    if ndim == 1 and target.dim() == 1 and target.shape[0] != 1:
        raise TensorValueError(f"For 1D input, 1D target must have size 1, but got target "
                               f"size: {target.shape[0]}")
    if ndim > 2:
        expected = [input.shape[0]] + list(input.shape[2:])
        if list(target.shape) != expected:
            raise TensorRuntimeError(f"Expected target size {expected}, got "
                                     f"{list(target.shape)}")
    if target.dtype not in (J.int64, J.uint8):
        raise TensorRuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype._torch_name}. "
            f"Class-index targets must be integers (use target.long()); probability targets "
            f"must have the input's shape.")
    n_classes = input.shape[1] if ndim >= 2 else input.shape[0]
    if weight is not None and weight.numel() != n_classes:
        raise TensorRuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}")
    return n_classes


def _class_targets(xp, t, n_classes, ignore_index):
    """(valid mask, targets with ignored entries replaced by 0) as arrays; raises PyTorch's
    IndexError for a class index out of range."""
    t = t.astype("int64", copy=False)
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise TensorIndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds. "
                               f"(classes are 0..{n_classes - 1})")
    return valid, xp.where(valid, t, 0)


class _NllLoss(Function):
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        xp = _xp(input)
        unbatched = input.dim() == 1
        x = input.unsqueeze(0) if unbatched else input
        tt = target.unsqueeze(0) if unbatched else target
        n_classes = x.shape[1]
        valid, safe = _class_targets(xp, tt._array(), n_classes, ignore_index)
        safe_t = Tensor._from_array(safe, J.int64, input.device)
        w = Tensor._from_array(valid, J.bool, input.device).to(input.dtype)
        if weight is not None:
            w = w * weight.to(input.dtype)[safe_t]
        picked = x.gather(1, safe_t.unsqueeze(1)).squeeze(1)
        loss = -(picked * w)
        total = w.sum()
        ctx.info = (unbatched, reduction)
        ctx.save_for_backward(safe_t, w, total)
        ctx.shape = input.shape
        if reduction == "none":
            return loss.squeeze(0) if unbatched else loss
        if reduction == "sum":
            return loss.sum()
        return loss.sum() / total

    @staticmethod
    def backward(ctx, grad):
        safe_t, w, total = ctx.saved_tensors
        unbatched, reduction = ctx.info
        if reduction == "none" and unbatched:
            grad = grad.unsqueeze(0)
        coef = -w * grad
        if reduction == "mean" and float(total) != 0.0:
            # All targets ignored: PyTorch's gradient is 0 (the loss itself is nan).
            coef = coef / total
        shape = (1,) + tuple(ctx.shape) if unbatched else tuple(ctx.shape)
        g = J.zeros(shape, dtype=coef.dtype, device=coef.device).scatter(
            1, safe_t.unsqueeze(1), coef.unsqueeze(1))
        return (g.squeeze(0) if unbatched else g), None, None, None, None


class _NllLoss2d(_NllLoss):
    _node_name = "NllLoss2DBackward0"


def _nll(input, target, weight, ignore_index, reduction):
    """PyTorch's ``nll_loss_nd``: 4-D inputs go to the 2-D kernel directly, 3-D and >4-D ones
    are viewed as (N, C, 1, -1) first (so the graphs match, ``ViewBackward0`` included)."""
    ndim = input.dim()
    if ndim <= 2:
        return _NllLoss.apply(input, target, weight, ignore_index, reduction)
    if ndim == 4:
        return _NllLoss2d.apply(input, target, weight, ignore_index, reduction)
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if input.numel() > 0:
        x, t = input.contiguous().view(n, c, 1, -1), target.contiguous().view(n, 1, -1)
    else:
        x, t = input.contiguous().view(n, c, 0, 0), target.contiguous().view(n, 0, 0)
    out = _NllLoss2d.apply(x, t, weight, ignore_index, reduction)
    return out.view(out_size) if reduction == "none" else out


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class-index ``target`` under log-probabilities ``input``
    (N, C, d1, ...). ``weight`` weighs classes (a weighted mean divides by the summed weights
    of the non-ignored targets); targets equal to ``ignore_index`` contribute nothing."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_class_target(input, target, weight, ignore_index)
    if input.dim() == 1 and target.dim() == 1:
        target = target.reshape(())  # a 1-element target for one unbatched sample
    return _nll(input, target, weight, ignore_index, reduction)


class _CrossEntropy(Function):
    """log_softmax + nll_loss fused for (N, C) logits and class indices.

    The forward makes one (N, C) buffer: the shifted logits, exponentiated in place; the
    picked log-probabilities come from the shifted logits read before that. The backward is
    ``exp(shifted) * (coef / sumexp) - onehot * coef`` with ``coef = w[t] * grad / total``:
    one pass and one new buffer, no second exp."""

    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        xp = _xp(input)
        a = input._array()
        n, c = a.shape
        valid, safe = _class_targets(xp, target._array(), c, ignore_index)
        low = input.dtype.itemsize < 4
        if low:
            # float16/bfloat16: PyTorch's CPU kernels accumulate in float32.
            a = a.astype("float32")
        rows = xp.arange(n)
        e = a - a.max(axis=1, keepdims=True)
        picked = e[rows, safe]
        xp.exp(e, out=e)
        sumexp = e.sum(axis=1)
        picked = picked - xp.log(sumexp)
        if low:
            # PyTorch rounds the log-probabilities to the input dtype before nll_loss.
            picked = picked.astype(input.dtype.numpy).astype("float32")
        if weight is None:
            w = valid.astype(a.dtype)
        else:
            w = weight.to(input.dtype)._array()[safe].astype(a.dtype) * valid
        losses = -(picked * w)
        total = w.sum(dtype=a.dtype)
        ctx.fast = (e, sumexp, rows, safe, w, total, reduction)
        ctx.save_for_backward(input, target, weight)
        if reduction == "none":
            out = losses
        elif reduction == "sum":
            out = losses.sum(dtype=a.dtype)
        else:
            out = losses.sum(dtype=a.dtype) / total
        return Tensor._from_array(xp.asarray(out, dtype=a.dtype), input.dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        if ctx._freed:
            ctx.saved_tensors  # raises PyTorch's "backward through the graph a second time"
        e, sumexp, rows, safe, w, total, reduction = ctx.fast
        if grad_mode.enabled:
            # create_graph: a differentiable formula from the saved input.
            input, target, weight = ctx.saved_tensors
            sm = J.softmax(input, 1)
            onehot = J.zeros_like(sm).scatter(
                1, Tensor._from_array(safe, J.int64, input.device).unsqueeze(1), 1.0)
            coef = Tensor._from_array(w, input.dtype, input.device) * grad
            if reduction == "mean" and total != 0:
                coef = coef / float(total)
            return (sm - onehot) * coef.unsqueeze(1), None, None, None, None
        g = grad._array()
        coef = w * g if reduction == "none" else w * g[()]
        if reduction == "mean" and total != 0:
            coef = coef / total
        coef = coef.astype(e.dtype, copy=False)
        out = e * (coef / sumexp)[:, None]
        out[rows, safe] -= coef
        dtype = ctx._input_meta[0][1]
        return Tensor._from_array(out, dtype, grad.device), None, None, None, None


def _check_label_smoothing(label_smoothing):
    if not 0.0 <= label_smoothing <= 1.0:
        raise TensorRuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, 1), target)`` for logits (N, C, d1, ...) or (C,).

    ``target`` holds class indices (int64/uint8, shape (N, d1, ...)) or class probabilities
    (floating, the input's shape). Supports class ``weight``, ``ignore_index`` (indices only),
    ``reduction`` 'none'|'mean'|'sum' and ``label_smoothing`` in [0, 1], exactly as PyTorch.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_label_smoothing(label_smoothing)
    if not input.dtype.is_floating_point:
        raise not_implemented("log_softmax_lastdim_kernel_impl", input.dtype)
    class_dim = 0 if input.dim() == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        return _cross_entropy_probs(input, target, weight, ignore_index, reduction,
                                    label_smoothing, class_dim)
    n_classes = _check_class_target(input, target, weight, ignore_index)
    if input.dim() == 1 and target.dim() == 1:
        target = target.reshape(())  # a 1-element target for one unbatched sample
    if input.dim() == 2 and label_smoothing == 0.0 and input.shape[1] > 0:
        return _CrossEntropy.apply(input, target, weight, ignore_index, reduction)
    logp = J.log_softmax(input, class_dim)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    ignore_mask = target == ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        smooth = -(logp * weight.view(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target.masked_select(~ignore_mask).flatten()
            ret = smooth.sum() / weight.gather(0, kept.long()).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def _cross_entropy_probs(input, target, weight, ignore_index, reduction, label_smoothing,
                         class_dim):
    if not target.dtype.is_floating_point:
        raise TensorRuntimeError(
            f"Expected floating point type for target with class probabilities, got "
            f"{target.dtype._torch_name}")
    if ignore_index >= 0:
        raise TensorRuntimeError("ignore_index is not supported for floating point target")
    n_classes = input.shape[class_dim] if input.dim() else 1
    logp = J.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        if weight.numel() != n_classes:
            raise TensorRuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}")
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        prod = prod * weight.view(shape)
    if reduction == "mean":
        if input.numel() == 0:
            return -prod.sum().fill_(float("nan"))
        return -prod.sum() / (input.numel() / n_classes)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


# ------------------------------------------------------------- binary cross entropy
class _BinaryCrossEntropy(Function):
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, reduction):
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight)
        # PyTorch clamps each log at -100 so 0 * log(0) stays finite.
        loss = (target - 1) * J.log1p(-input).clamp(min=-100) - \
            target * J.log(input).clamp(min=-100)
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t, w = ctx.saved_tensors
        g = _grad_scale(grad, ctx.reduction, x.numel())
        gi = gt = None
        if ctx.needs_input_grad[0]:
            gi = g * (x - t) / ((1 - x) * x).clamp(min=1e-12)
            if w is not None:
                gi = gi * w
        if ctx.needs_input_grad[1]:
            gt = g * (J.log1p(-x).clamp(min=-100) - J.log(x).clamp(min=-100))
            if w is not None:
                gt = gt * w
        return gi, gt, None, None


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(t * log(x) + (1 - t) * log(1 - x))`` for probabilities ``input`` in [0, 1] (no
    sigmoid inside; each log is clamped at -100 as in PyTorch)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input.dtype.is_floating_point:
        raise not_implemented("binary_cross_entropy", input.dtype)
    if tuple(target.shape) != tuple(input.shape):
        raise TensorValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:
        raise TensorRuntimeError(
            f"Found dtype {target.dtype._torch_name} but expected {input.dtype._torch_name}: "
            f"the target must have the input's dtype (use target.to(input.dtype)).")
    if input.numel() and bool(((input < 0) | (input > 1)).any()):
        raise TensorRuntimeError("all elements of input should be between 0 and 1 "
                                 "(binary_cross_entropy takes probabilities; for logits use "
                                 "binary_cross_entropy_with_logits)")
    if weight is not None:
        weight = weight.expand(J.broadcast_shapes(target.shape, weight.shape))
    return _BinaryCrossEntropy.apply(input, target, weight, reduction)


class _BCEWithLogits(Function):
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight, pos_weight)
        # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow at any logit.
        log_sig = input.clamp(max=0) - J.log1p(J.exp(-input.abs()))
        if pos_weight is not None:
            log_weight = (pos_weight - 1) * target + 1
            loss = (1 - target) * input - log_weight * log_sig
        else:
            loss = (1 - target) * input - log_sig
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t, w, pw = ctx.saved_tensors
        g = _grad_scale(grad, ctx.reduction, x.numel())
        gi = gt = None
        if ctx.needs_input_grad[0]:
            if pw is not None:
                gi = (1 - t) - ((pw - 1) * t + 1) * J.sigmoid(-x)
            else:
                gi = J.sigmoid(x) - t
            gi = gi * g if w is None else gi * w * g
        if ctx.needs_input_grad[1]:
            if pw is not None:
                log_sig = x.clamp(max=0) - J.log1p(J.exp(-x.abs()))
                gt = -x - (pw - 1) * log_sig
            else:
                gt = -x
            gt = gt * g if w is None else gt * w * g
        return gi, gt, None, None, None


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from logits;
    ``pos_weight`` weighs the positive term (broadcast along the last dimension)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input.dtype.is_floating_point:
        raise not_implemented("log_sigmoid_cpu", input.dtype)
    if tuple(target.shape) != tuple(input.shape):
        raise TensorValueError(f"Target size ({target.size()}) must be the same as input size "
                               f"({input.size()})")
    if not target.dtype.is_floating_point:
        raise TensorRuntimeError(
            f"result type {input.dtype._torch_name} can't be cast to the desired output type "
            f"{target.dtype._torch_name}: binary_cross_entropy_with_logits needs a floating "
            f"target (use target.float()).")
    return _BCEWithLogits.apply(input, target, weight, pos_weight, reduction)


# --------------------------------------------------------------------- regression
class _PointwiseLoss(Function):
    """Shared shape of MSE/SmoothL1/Huber: ``loss(d)`` of ``d = input - target`` and its
    derivative ``dloss(d)``."""

    @staticmethod
    def forward(ctx, input, target, reduction, param):
        ctx.reduction = reduction
        ctx.param = param
        ctx.save_for_backward(input, target)
        cls = ctx._function
        return _reduce(cls.loss(input - target, param), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        d = x - t
        g = _grad_scale(grad, ctx.reduction, d.numel()) * ctx._function.dloss(d, ctx.param)
        return (g if ctx.needs_input_grad[0] else None,
                -g if ctx.needs_input_grad[1] else None, None, None)


class _MseLoss(_PointwiseLoss):
    _node_name = "MseLossBackward0"

    @staticmethod
    def loss(d, param):
        return d * d

    @staticmethod
    def dloss(d, param):
        return d * 2


class _SmoothL1Loss(_PointwiseLoss):
    _node_name = "SmoothL1LossBackward0"

    @staticmethod
    def loss(d, beta):
        z = d.abs()
        return J.where(z < beta, z * z * (0.5 / beta), z - 0.5 * beta)

    @staticmethod
    def dloss(d, beta):
        return J.where(d < -beta, -1.0, J.where(d > beta, 1.0, d / beta)).to(d.dtype)


class _HuberLoss(_PointwiseLoss):
    _node_name = "HuberLossBackward0"

    @staticmethod
    def loss(d, delta):
        z = d.abs()
        return J.where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta)

    @staticmethod
    def dloss(d, delta):
        return d.clamp(-delta, delta)


def _pair(input, target, kernel=None):
    if kernel is not None and not J.result_type(input, target).is_floating_point:
        raise not_implemented(kernel, J.result_type(input, target))
    _size_warning(input, target)
    return J.broadcast_tensors(input, target)


def _weighted(loss, weight, input, reduction):
    if tuple(weight.shape) != tuple(input.shape):
        raise TensorValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return loss.sum() if reduction == "sum" else loss


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)**2`` (warns, as PyTorch, when the shapes differ
    and broadcast)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, t = _pair(input, target, "mse_cpu")
    if weight is not None:
        return _weighted((x - t) ** 2, weight, input, reduction)
    return _MseLoss.apply(x, t, reduction, None)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, t = _pair(input, target)
    if weight is not None:
        return _weighted((x - t).abs(), weight, input, reduction)
    return _reduce((x - t).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta=0`` is
    ``l1_loss``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise TensorRuntimeError(
            f"smooth_l1_loss does not support negative values for beta (got {beta}).")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    x, t = _pair(input, target, "smooth_l1_cpu")
    return _SmoothL1Loss.apply(x, t, reduction, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d**2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 delta)``."""
    _check_reduction(reduction)
    if delta <= 0:
        raise TensorRuntimeError(
            f"huber_loss does not support non-positive values for delta (got {delta}).")
    x, t = _pair(input, target, "huber_cpu")
    if weight is not None:
        return _weighted(_HuberLoss.loss(x - t, delta), weight, input, reduction)
    return _HuberLoss.apply(x, t, reduction, float(delta))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    """Kullback-Leibler divergence ``target * (log(target) - input)`` with ``input`` given as
    log-probabilities (``log_target=True``: target as log-probabilities too).
    ``reduction='batchmean'`` divides the sum by the batch size (the KL definition)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, batchmean=True)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", stacklevel=2)
    if not J.result_type(input, target).is_floating_point:
        raise TensorRuntimeError("kl_div: Integral inputs not supported. Pass log-probabilities "
                                 "as a floating tensor (for example input.float()).")
    if log_target:
        pointwise = J.exp(target) * (target - input)
    else:
        pointwise = J.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = pointwise.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _reduce(pointwise, reduction)
