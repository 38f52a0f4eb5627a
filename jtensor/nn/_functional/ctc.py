"""The connectionist temporal classification loss: ``ctc_loss`` (``jtensor.nn.functional``).

PyTorch's algorithm (Graves et al., 2006), in log space: the target ``l`` is extended with
blanks, ``l' = (blank, l1, blank, l2, ..., blank)``, and the forward variables
``alpha[t, s] = lp[t, l'(s)] + logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2])``
(the last term only between two different labels) give the negative log likelihood
``-logsumexp(alpha[T-1, S'-1], alpha[T-1, S'-2])``. The recursion runs once over time, each
step one whole-array operation (on the backend's arrays) over the batch and the extended
targets (samples of other lengths are masked). The backward computes the backward variables
``beta`` the same way and PyTorch's gradient
``exp(lp) - exp(logsumexp_{s: l'(s) = c}(alpha + beta) + nll - lp)``, which is the
gradient through the ``log_softmax`` that produced ``lp`` (PyTorch's ``CtcLossBackward0``;
it has no derivative of its own). A target holding the blank label is invalid input: there
PyTorch's gradient disagrees with its own loss, jtensor's follows the loss. The math runs in
float64 and is rounded to the input's dtype; the lengths and extended labels are host-side
metadata.

The reductions are composed afterwards as in ATen's ``ctc_loss``: ``zero_infinity`` through
``where``, ``'mean'`` divides each loss by its target length (at least 1) and averages.
"""

import numpy as np

from ..._api import ops as J
from ..._errors import (
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorTypeError,
    type_name,
)
from ..._tensor import Tensor
from ...autograd.function import Function
from ._op import nn_op
from .loss import _check_reduction

__all__ = ["ctc_loss"]


def _logsumexp(xp, *terms):
    """Element-wise log(sum(exp)) of equal-shaped arrays, -inf where all are -inf."""
    stacked = xp.stack(terms)
    top = stacked.max(axis=0)
    safe = xp.where(xp.isfinite(top), top, 0.0)
    return xp.log(xp.exp(stacked - safe).sum(axis=0)) + safe


def _extended(targets, target_lengths, blank, width):
    """``(N, 2*width+1)`` extended labels ``l'`` (blank-padded past each target's end) and
    the mask of the ``s`` where the skip ``s-2 -> s`` is allowed."""
    n = len(target_lengths)
    ext = np.full((n, 2 * width + 1), blank, dtype=np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros(ext.shape, dtype=bool)
    # PyTorch compares the labels only (two blanks are equal), so a label equal to ``blank``
    # inside a target still skips as a label would
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    return ext, skip


def _alphas(xp, lp, meta):
    """``(T, N, S')`` forward variables, the emissions ``lp[t, n, l'(s)]`` (``-inf`` past
    each extended target) and the ``(N,)`` negative log likelihoods."""
    ext, skip, input_lengths, target_lengths = meta
    t_max, n, _ = lp.shape
    s_len = ext.shape[1]
    valid = xp.arange(s_len)[None, :] < (2 * target_lengths + 1)[:, None]
    emit = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (t_max,) + ext.shape), axis=2)
    emit = xp.where(valid[None], emit, -xp.inf)
    alpha = xp.full((t_max, n, s_len), -xp.inf)
    alpha[0, :, 0] = emit[0, :, 0]
    if s_len > 1:
        alpha[0, :, 1] = xp.where(target_lengths > 0, emit[0, :, 1], -xp.inf)
    neg = xp.full((n, 1), -xp.inf)
    for t in range(1, t_max):
        prev = alpha[t - 1]
        one = xp.concatenate([neg, prev[:, :-1]], axis=1)
        two = xp.concatenate([neg, neg, prev[:, :-2]], axis=1)[:, :s_len]
        two = xp.where(skip, two, -xp.inf)
        alpha[t] = emit[t] + _logsumexp(xp, prev, one, two)
    last = alpha[xp.maximum(input_lengths - 1, 0), xp.arange(n)]  # (N, S')
    end = 2 * target_lengths
    a = xp.take_along_axis(last, end[:, None], axis=1)[:, 0]
    b = xp.take_along_axis(last, xp.maximum(end - 1, 0)[:, None], axis=1)[:, 0]
    b = xp.where(target_lengths > 0, b, -xp.inf)
    nll = -_logsumexp(xp, a, b)
    return alpha, emit, nll


def _gradient(xp, lp, alpha, emit, nll, meta, zero_infinity):
    """PyTorch's ``(T, N, C)`` gradient of the per-sample losses (before ``grad_out``)."""
    ext, skip, input_lengths, target_lengths = meta
    t_max, n, c = lp.shape
    s_len = ext.shape[1]
    end = 2 * target_lengths
    cols = xp.arange(s_len)[None, :]
    beta = xp.full((t_max, n, s_len), -xp.inf)
    neg = xp.full((n, 1), -xp.inf)
    # the step s+2 -> s is allowed where the forward skip s -> s+2 is
    skip_back = xp.concatenate([skip[:, 2:], xp.zeros((n, 2), dtype=bool)], axis=1)
    last_t = input_lengths - 1
    # the two end states of each sample, where beta starts at its last time step
    ends = (cols == end[:, None]) | ((cols == end[:, None] - 1) & (target_lengths[:, None] > 0))
    nxt = xp.full((n, s_len), -xp.inf)
    for t in range(t_max - 1, -1, -1):
        one = xp.concatenate([nxt[:, 1:], neg], axis=1)
        two = xp.concatenate([nxt[:, 2:], neg, neg], axis=1)[:, :s_len]
        two = xp.where(skip_back, two, -xp.inf)
        step = emit[t] + _logsumexp(xp, nxt, one, two)
        init = xp.where(ends, emit[t], -xp.inf)
        beta[t] = xp.where(
            (t == last_t)[:, None], init, xp.where((t < last_t)[:, None], step, -xp.inf)
        )
        nxt = beta[t]
    ab = alpha + beta  # (T, N, S')
    top = ab.max(axis=2, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0.0)
    onehot = xp.zeros((n, s_len, c))
    xp.put_along_axis(onehot, ext[:, :, None], 1.0, axis=2)
    # log of the summed alpha*beta of each class (one max per (t, n) keeps exp in range)
    lcab = xp.log(xp.einsum("tns,nsc->tnc", xp.exp(ab - top), onehot)) + top
    grad = xp.exp(lp) - xp.exp(lcab + nll[None, :, None] - lp)
    live = xp.arange(t_max)[:, None] < input_lengths[None, :]  # (T, N)
    grad = xp.where(live[:, :, None], grad, 0.0)
    if zero_infinity:
        grad = xp.where(xp.isinf(nll)[None, :, None], 0.0, grad)
    return grad


class _CtcLoss(Function):
    """The per-sample negative log likelihoods ``(N,)`` of ``log_probs`` ``(T, N, C)``."""

    _node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        xp = log_probs._storage._backend.xp
        lp = log_probs._array().astype(np.float64)
        ext, skip = _extended(targets, target_lengths, blank, targets.shape[1])
        meta = tuple(xp.asarray(a) for a in (ext, skip, input_lengths, target_lengths))
        with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf is meant
            alpha, emit, nll = _alphas(xp, lp, meta)
        ctx.state = (xp, lp, alpha, emit, nll, meta, zero_infinity)
        ctx.save_for_backward(log_probs)  # as PyTorch: an in-place write is refused later
        out = nll.astype(log_probs._dtype.numpy)
        return Tensor._from_array(out, log_probs._dtype, log_probs.device)

    @staticmethod
    def backward(ctx, grad):
        _ = ctx.saved_tensors  # the version check of log_probs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g = _gradient(*ctx.state)
        g = g * grad._array().astype(np.float64)[None, :, None]
        return (
            Tensor._from_array(g.astype(grad._dtype.numpy), grad._dtype, grad.device),
            None,
            None,
            None,
            None,
            None,
        )


def _lengths(values, name):
    """Host int64 array of a lengths argument (a sequence of ints or an integer tensor)."""
    if isinstance(values, Tensor):
        if values.dtype.is_floating_point or values.dtype.is_complex:
            raise TensorRuntimeError(f"{name} must be integral")
        return np.asarray(values.detach().cpu()._array(), dtype=np.int64).reshape(-1)
    if isinstance(values, (list, tuple)):
        return np.asarray([int(v) for v in values], dtype=np.int64).reshape(-1)
    raise TensorTypeError(
        f"ctc_loss(): argument '{name}' must be a tuple of ints or a Tensor, not "
        f"{type_name(values)}"
    )


def _flat_targets(targets, target_lengths, batch):
    """``(N, max_len)`` padded targets (host int64) from padded or concatenated ones, with
    PyTorch's shape checks."""
    where = "for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"
    arr = np.asarray(targets.detach().cpu()._array()).astype(np.int64)
    width = int(target_lengths.max()) if batch else 0
    if targets.dim() == 1:  # concatenated
        total = int(target_lengths.sum())
        if arr.shape[0] != total:
            raise TensorRuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size "
                f"{arr.shape[0]} {where}"
            )
        out = np.zeros((batch, width), dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        for b in range(batch):
            out[b, : target_lengths[b]] = arr[starts[b] : starts[b] + target_lengths[b]]
        return out
    if arr.shape[1] < width:
        raise TensorRuntimeError(
            f"Expected tensor to have size at least {width} at dimension 1, but got size "
            f"{arr.shape[1]} {where}"
        )
    out = arr[:batch, :width].copy()
    for b in range(batch):  # past a target's length the entries are not read
        out[b, target_lengths[b] :] = 0
    return out


@nn_op()
def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """The CTC loss of ``log_probs`` ``(T, N, C)`` (or unbatched ``(T, C)``; log-softmax
    outputs) against ``targets``, padded ``(N, S)`` or concatenated ``(sum(target_lengths),)``
    class indices (never ``blank``), as ``torch.nn.functional.ctc_loss``. ``input_lengths``
    and ``target_lengths`` (ints or integer tensors) give each sample's lengths.
    ``reduction='mean'`` divides each loss by its target length, then averages;
    ``zero_infinity`` zeroes infinite losses (impossible alignments) and their gradients.

    >>> import jtensor as torch
    >>> lp = torch.full((3, 1, 2), 0.5).log()
    >>> torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), [3], [1], reduction="sum")
    tensor(0.2877)
    """
    _check_reduction(reduction)
    if log_probs.dim() not in (2, 3):
        raise TensorRuntimeError(
            f"ctc_loss(): expected log_probs to be 2-D (unbatched) or 3-D, but got a tensor "
            f"of size {list(log_probs.shape)}"
        )
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    t_max, batch, classes = lp.shape
    if not (0 <= int(blank) < classes):
        raise TensorRuntimeError("blank must be in label range")
    if not lp.dtype.is_floating_point:
        raise TensorNotImplementedError(
            f"\"ctc_loss_cpu\" not implemented for '{lp.dtype._torch_name}'"
        )
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        # PyTorch's two overloads take both lengths as tensors or both as int sequences
        raise TensorTypeError(
            f"ctc_loss(): input_lengths and target_lengths must both be tuples of ints or "
            f"both Tensors, got {type_name(input_lengths)} and "
            f"{type(target_lengths).__name__}"
        )
    in_len = _lengths(input_lengths, "input_lengths")
    tg_len = _lengths(target_lengths, "target_lengths")
    if in_len.shape[0] != batch:
        raise TensorRuntimeError("input_lengths must be of size batch_size")
    if tg_len.shape[0] != batch:
        raise TensorRuntimeError("target_lengths must be of size batch_size")
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    for name, values in (("target_lengths", tg_len), ("input_lengths", in_len)):
        if values.size and values.min() < 0:
            raise TensorRuntimeError(
                f"Expected {name} to have value at least 0, but got value {values.min()} {where}"
            )
    if in_len.size and in_len.max() > t_max:
        raise TensorRuntimeError(
            f"Expected input_lengths to have value at most {t_max}, but got value "
            f"{in_len.max()} {where}"
        )
    # (an unbatched 1-d target is read as concatenated, as PyTorch does)
    padded = _flat_targets(targets, tg_len, batch)
    res = _CtcLoss.apply(lp, padded, in_len, tg_len, int(blank), bool(zero_infinity))
    if zero_infinity:
        res = J.where(res == float("inf"), J.zeros((), dtype=res.dtype, device=res.device), res)
    if reduction == "mean":
        lengths = J.tensor(tg_len.tolist(), dtype=res.dtype, device=res.device).clamp_min(1)
        return (res / lengths).mean()
    if reduction == "sum":
        return res.sum()
    return res if batched else res.squeeze(0)
