"""``embedding_bag``: sums, means or maxima of bags of embedding rows, without building the
``(n, embedding_dim)`` lookups per bag in Python (``nn.EmbeddingBag``).

Bags come from ``offsets`` (1-d input) or the rows of a 2-d input; the bag of each lookup and
the ``padding_idx`` mask are host-side bookkeeping on the integer indices. One Function
(node ``EmbeddingBagBackward0``) whose backward, written in public ops, sends each bag's
gradient back to its rows (divided by the bag size for ``mean``, to the maximal entries for
``max``, times ``per_sample_weights`` for ``sum``).
"""

import numpy as np

from ..._api import ops as J
from ..._errors import (
    TensorIndexError,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorValueError,
)
from ...autograd.function import Function
from ._op import nn_op
from .embedding import _embedding_renorm_

__all__ = ["embedding_bag"]


class _EmbeddingBag(Function):
    _node_name = "EmbeddingBagBackward0"
    # PyTorch's node: edges for the weight and the per-sample weights (None when absent),
    # none for the indices and offsets.
    _edge_positions = (0, 6)

    @staticmethod
    def forward(ctx, weight, idx, bag_of, keep, n_bags, mode, psw):
        rows = weight.index_select(0, idx)
        if psw is not None:
            rows = rows * psw.unsqueeze(1)
        rows = rows * keep.unsqueeze(1).to(rows.dtype)
        d = weight.shape[1]
        if mode == "max":
            target = bag_of.unsqueeze(1).expand(-1, d)
            filled = J.where(keep.unsqueeze(1), rows, J.full_like(rows, float("-inf")))
            out = J.full((n_bags, d), float("-inf"), dtype=weight.dtype, device=weight.device)
            out = out.scatter_reduce(0, target, filled, "amax")
            out = J.where(J.isinf(out) & (out < 0), J.zeros_like(out), out)
            hit = (filled == out.index_select(0, bag_of)) & keep.unsqueeze(1)
            # ties: only the first maximal lookup of a bag gets the gradient (ATen's argmax)
            pos = J.arange(rows.shape[0], device=rows.device).unsqueeze(1).expand(-1, d)
            big = J.full_like(pos, rows.shape[0])
            first = J.full((n_bags, d), rows.shape[0], dtype=pos.dtype, device=rows.device)
            first = first.scatter_reduce(0, target, J.where(hit, pos, big), "amin")
            ctx.hit = hit & (pos == first.index_select(0, bag_of))
        else:
            out = J.zeros((n_bags, d), dtype=weight.dtype, device=weight.device)
            out = out.index_add(0, bag_of, rows)
            if mode == "mean":
                counts = J.zeros(n_bags, dtype=weight.dtype, device=weight.device).index_add(
                    0, bag_of, keep.to(weight.dtype)
                )
                ctx.counts = counts.clamp_min(1)
                out = out / ctx.counts.unsqueeze(1)
        ctx.args = (idx, bag_of, keep, mode, weight.shape)
        ctx.save_for_backward(weight, psw)
        return out

    @staticmethod
    def backward(ctx, grad):
        idx, bag_of, keep, mode, shape = ctx.args
        weight, psw = ctx.saved_tensors
        per_row = grad.index_select(0, bag_of) * keep.unsqueeze(1).to(grad.dtype)
        if mode == "mean":
            per_row = per_row / ctx.counts.index_select(0, bag_of).unsqueeze(1)
        elif mode == "max":
            per_row = per_row * ctx.hit.to(grad.dtype)
        grad_psw = None
        if psw is not None and ctx.needs_input_grad[6]:
            grad_psw = (per_row * weight.index_select(0, idx)).sum(1)
        if psw is not None:
            per_row = per_row * psw.unsqueeze(1)
        grad_weight = J.zeros(shape, dtype=grad.dtype, device=grad.device).index_add(
            0, idx, per_row
        )
        return grad_weight, None, None, None, None, None, grad_psw


@nn_op(
    inplace=lambda args, kwargs: (
        (args[1] if len(args) > 1 else kwargs.get("weight"))
        if (args[3] if len(args) > 3 else kwargs.get("max_norm")) is not None
        else None
    )
)
def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Per bag, the sum, mean or maximum of the rows of ``weight`` its indices pick (bags:
    the rows of a 2-d ``input``, or ``input`` cut at ``offsets``)."""
    if not weight.dtype.is_floating_point:
        raise TensorValueError(
            f"Expected weight to be a floating point tensor, but got {weight.dtype}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise TensorValueError(
                f"if input is 2D, then offsets has to be None, as input is treated is a "
                f"mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets).__name__}"
            )
        b, n = input.shape
        host_offsets = np.arange(0, b * n, n) if n else np.zeros(b, dtype=np.int64)
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise TensorValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise TensorValueError("offsets has to be a 1D Tensor")
        host_offsets = offsets.detach().cpu().numpy().astype(np.int64)
        flat = input
        psw = per_sample_weights
    else:
        raise TensorValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise TensorValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise TensorNotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            f"GitHub."
        )
    if sparse:
        raise TensorNotImplementedError(
            "embedding_bag(sparse=True) is not supported by jtensor yet; use sparse=False "
            "(a dense weight gradient)"
        )
    if max_norm is not None:
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    n_idx = flat.numel()
    if include_last_offset:
        n_bags = len(host_offsets) - 1
        bounds = host_offsets
    else:
        n_bags = len(host_offsets)
        bounds = np.append(host_offsets, n_idx)
    if len(host_offsets) and host_offsets[0] != 0:
        raise TensorRuntimeError(
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {host_offsets[0]}"
        )
    host_idx = flat.detach().cpu().numpy().astype(np.int64)
    if n_idx and (host_idx.min() < 0 or host_idx.max() >= weight.shape[0]):
        raise TensorIndexError("index out of range in self")
    positions = np.arange(n_idx)
    bag_of = np.clip(np.searchsorted(bounds[1:], positions, side="right"), 0, max(n_bags - 1, 0))
    keep = (
        np.ones(n_idx, dtype=bool)
        if padding_idx is None
        else host_idx != (padding_idx % weight.shape[0])
    )
    # lookups past the last bound (include_last_offset) belong to no bag
    keep &= positions < bounds[-1] if len(bounds) else False
    device = weight.device
    return _EmbeddingBag.apply(
        weight,
        flat.long(),
        J.tensor(bag_of, device=device),
        J.tensor(keep, device=device),
        n_bags,
        mode,
        psw,
    )
