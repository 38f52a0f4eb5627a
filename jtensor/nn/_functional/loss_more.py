"""More losses of ``jtensor.nn.functional``: cosine_embedding_loss, margin_ranking_loss,
hinge_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
soft_margin_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
poisson_nll_loss, gaussian_nll_loss.

Where PyTorch composes ops (ATen's composite losses and the Python ones) the loss is composed
here the same way, so the graph ends in the same nodes (``MeanBackward0``...). The three
with a kernel of their own in ATen are Functions with its node name
(``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``,
``MultilabelMarginLossBackward0``); their backward is written in public ops.
"""

import math

import numpy as np

from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorValueError
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ._op import nn_op
from ...autograd._scalar_nodes import AddScalar, SubScalar, number_minus
from .activation import logsigmoid
from .distance import pairwise_distance
from .loss import _check_reduction, _legacy_reduction, _reduce

__all__ = [
    "cosine_embedding_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "soft_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
]


def _reduction(size_average, reduce, reduction):
    """The reduction after the deprecated arguments, checked (``ValueError`` as PyTorch's
    ``_Reduction.get_enum``)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return reduction


# ------------------------------------------------------------ composite losses
@nn_op()
def cosine_embedding_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1`` (rows of 2-d inputs with a 1-d target, or 1-d inputs with a 0-d one)."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise TensorRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise TensorRuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise TensorRuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    eps = 1e-12  # ATen's EPSILON: keeps the denominator off zero
    prod = (input1 * input2).sum(dim)
    mag1 = AddScalar.apply((input1 * input1).sum(dim), eps)
    mag2 = AddScalar.apply((input2 * input2).sum(dim), eps)
    cos = prod / (mag1 * mag2).sqrt()
    zeros = J.zeros_like(cos)
    pos = number_minus(1, cos)
    neg = SubScalar.apply(cos, margin).clamp_min(0)
    out = J.where(target == 1, pos, zeros) + J.where(target == -1, neg, zeros)
    return _reduce(out, reduction)


@nn_op()
def margin_ranking_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise TensorRuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
            f"{target.size()} "
        )
    return _reduce(AddScalar.apply(-target * (input1 - input2), margin).clamp_min(0), reduction)


@nn_op()
def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1``."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = J.zeros_like(input)
    margin_clamp = number_minus(margin, input).clamp_min(0)
    out = J.where(target != 1, margin_clamp, zeros) + J.where(target != -1, input, zeros)
    return _reduce(out, reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise TensorRuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


@nn_op()
def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise p-norm distance
    (``swap``: ``d(a, n)`` becomes ``min(d(a, n), d(p, n))``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = J.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    # (PyTorch's C++ adds the margin as a Scalar; the Python loss below does not)
    return _reduce(J.clamp_min(AddScalar.apply(dist_pos, margin) - dist_neg, 0), reduction)


@nn_op()
def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """``triplet_margin_loss`` with any ``distance_function(x, y)`` (default: the pairwise
    Euclidean distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise TensorValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise TensorValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = J.minimum(dist_neg, distance(positive, negative))
    return _reduce(J.clamp_min(margin + dist_pos - dist_neg, 0), reduction)


@nn_op()
def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Per sample, the mean over classes of the binary logistic losses of ``input``
    against the 0/1 ``target`` (``weight`` per class)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise TensorValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction)


@nn_op()
def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """Negative log-likelihood of ``target ~ Poisson(rate)``: ``exp(input) - target * input``
    with ``log_input``, else ``input - target * log(input + eps)``; ``full`` adds Stirling's
    approximation of ``log(target!)`` where ``target > 1``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise TensorValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = J.exp(input) - target * input
    else:
        loss = input - target * J.log(AddScalar.apply(input, eps))
    if full:
        stirling = target * J.log(target) - target + 0.5 * J.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


@nn_op()
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target ~ N(input, var)``: ``0.5 * (log(var) + (input -
    target)**2 / var)`` (+ ``0.5 * log(2 pi)`` with ``full``); ``var`` is clamped to ``eps``
    outside the graph and may have one dimension fewer or one of size 1."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise TensorValueError("var has negative entry/entries")
        var = var * J.ones_like(input)
    elif bool((var < 0).any()):
        raise TensorValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (
            input.dim() == var.dim()
            and sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) == 1
        ):
            raise TensorValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise TensorValueError(f"{reduction} is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (J.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# -------------------------------------------------------- losses with a kernel
def _refuse_grad(function, argument, tensor):
    """PyTorch's error for an argument its kernel has no derivative for."""
    if tensor is not None and tensor.requires_grad and is_grad_enabled():
        raise TensorRuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _scale(grad, reduction, count):
    return grad / count if reduction == "mean" else grad


class _SoftMarginLoss(Function):
    _node_name = "SoftMarginLossBackward0"

    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.reduction = reduction
        ctx.save_for_backward(input, target)
        return _reduce(J.log1p(J.exp(-input * target)), reduction)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        z = J.exp(-target * input)
        g = _scale(grad, ctx.reduction, input.numel())
        return -target * z / (z + 1) * g, None, None


@nn_op()
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss ``log(1 + exp(-target * input))`` (targets are 1 or -1)."""
    reduction = _reduction(size_average, reduce, reduction)
    _refuse_grad("soft_margin_loss", "target", target)
    return _SoftMarginLoss.apply(input, target, reduction)


def _frames(input, kernel):
    """``(nframe, dim)`` of a multi-class margin loss input (0-d, 1-d or 2-d), checked."""
    nd = input.dim()
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise TensorRuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    return (1 if nd <= 1 else input.shape[0]), (1 if nd == 0 else input.shape[-1])


class _MultiMarginLoss(Function):
    _node_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, input, target, p, margin, weight, reduction, nframe, dim):
        x = input.reshape(nframe, dim)
        t = target.reshape(nframe, 1)
        z = margin - x.gather(1, t) + x
        others = J.arange(dim, device=input.device).unsqueeze(0) != t
        active = others & (z > 0)
        scale = J.ones_like(z) if weight is None else weight.index_select(0, t.reshape(-1))
        scale = scale.reshape(nframe, -1)
        terms = J.where(active, (z if p == 1 else z * z) * scale, J.zeros_like(z))
        per = terms.sum(1) / dim
        # The input is saved, not z: for p == 2 the backward recomputes z from it, so that a
        # double backward sees z's dependence on the input (a saved z would be a constant).
        ctx.save_for_backward(input, active.to(z.dtype), scale)
        ctx.args = (p, margin, reduction, t, input.shape, nframe, dim)
        if reduction == "none":
            return per if target.dim() > 0 else per.reshape(())
        return _reduce(per, reduction)

    @staticmethod
    def backward(ctx, grad):
        input, active, scale = ctx.saved_tensors
        p, margin, reduction, t, shape, nframe, dim = ctx.args
        g = _scale(grad, reduction, nframe).reshape(-1, 1)
        if p == 1:
            d = active * scale / dim * g
        else:
            x = input.reshape(nframe, dim)
            d = active * scale * (2 * (margin - x.gather(1, t) + x)) / dim * g
        gx = d - J.zeros_like(d).scatter(1, t, d.sum(1, keepdim=True))
        return gx.reshape(shape), None, None, None, None, None, None, None


@nn_op()
def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Multi-class hinge loss: per sample ``sum_{i != y} max(0, margin - x[y] + x[i])**p /
    C`` (``p`` 1 or 2, ``weight[y]`` scaling each term)."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise TensorValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise TensorValueError("weight must be one-dimensional")
    nframe, dim = _frames(input, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise TensorRuntimeError(
            f"inconsistent target size, expected {nframe} but got {list(target.shape)}"
        )
    if weight is not None and weight.numel() != dim:
        raise TensorRuntimeError(
            f"inconsistent weight size, expected {dim} but got {list(weight.shape)}"
        )
    _refuse_grad("multi_margin_loss", "weight", weight)
    if target.numel() and (int(target.min()) < 0 or int(target.max()) >= dim):
        raise TensorRuntimeError("target out of range")
    return _MultiMarginLoss.apply(input, target, p, margin, weight, reduction, nframe, dim)


class _MultilabelMarginLoss(Function):
    _node_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, input, target, reduction, nframe, dim, valid, is_target):
        x = input.reshape(nframe, dim)
        idx = target.reshape(nframe, dim).clamp_min(0)
        # z[n, j, i] = 1 - x[n, y_j] + x[n, i], for target j and non-target class i
        z = 1 - x.gather(1, idx).unsqueeze(2) + x.unsqueeze(1)
        active = (valid.unsqueeze(2) & ~is_target.unsqueeze(1) & (z > 0)).to(x.dtype)
        per = (z * active).sum((1, 2)) / dim
        ctx.save_for_backward(active)
        ctx.args = (reduction, idx, input.shape, nframe, dim)
        if reduction == "none":
            return per if target.dim() > 1 else per.reshape(())
        return _reduce(per, reduction)

    @staticmethod
    def backward(ctx, grad):
        (active,) = ctx.saved_tensors
        reduction, idx, shape, nframe, dim = ctx.args
        g = _scale(grad, reduction, nframe).reshape(-1, 1) / dim
        gx = active.sum(1) * g
        gx = gx - J.zeros_like(gx).scatter_add(1, idx, active.sum(2) * g)
        return gx.reshape(shape), None, None, None, None, None, None


@nn_op()
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: ``target`` lists each sample's classes, ended by the first
    -1; per sample ``sum_{j target, i not} max(0, 1 - (x[y_j] - x[i])) / C``."""
    reduction = _reduction(size_average, reduce, reduction)
    nframe, dim = _frames(input, "multilabel_margin_loss")
    if input.dim() <= 1:
        if target.dim() > 1 or target.numel() != dim:
            raise TensorRuntimeError(
                f"inconsistent target size: {list(target.shape)} for input of size: "
                f"{list(input.shape)}"
            )
    elif target.dim() != 2 or target.shape[0] != nframe or target.shape[1] != dim:
        raise TensorRuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    # Which entries are targets (before the first -1) and which classes they name: host-side
    # bookkeeping on the integer target, as ATen's loop.
    host = target.detach().cpu().numpy().reshape(nframe, dim)
    valid = np.cumprod(host >= 0, axis=1).astype(bool)
    if np.any(valid & (host >= dim)):
        raise TensorRuntimeError(
            f"target index is out of bounds: targets must lie in [0, {dim}) or be -1"
        )
    is_target = np.zeros((nframe, dim), dtype=bool)
    rows = np.nonzero(valid)
    is_target[rows[0], host[rows]] = True
    device = input.device
    return _MultilabelMarginLoss.apply(
        input,
        target,
        reduction,
        nframe,
        dim,
        J.tensor(valid, device=device),
        J.tensor(is_target, device=device),
    )
