"""``embedding_bag``: sums, means or maxima of bags of embedding rows, without building the
``(n, embedding_dim)`` lookups per bag in Python (``nn.EmbeddingBag``).

Bags come from ``offsets`` (1-d input) or the rows of a 2-d input; the bag of each lookup and
the ``padding_idx`` mask are host-side bookkeeping on the integer indices. One Function
(node ``EmbeddingBagBackward0``) whose backward, written in public ops, sends each bag's
gradient back to its rows (divided by the bag size for ``mean``, to the maximal entries for
``max``, times ``per_sample_weights`` for ``sum``).

Its common call (issue 18) computes on the arrays instead: a plain CPU float32/float64 weight
(and per-sample weights of its dtype), int32/int64 indices and offsets on the CPU, nothing
recording, transforming or listening. The forward (``_array_forward``) and the backward
(``_array_backward``) are the general path's steps as NumPy calls, in the same order, on the
host arrays of the indices, bags and padding mask (no tensors made for them): the same
numbers bit for bit, each bag's and each weight row's sum taken in lookup order by one
unbuffered ``add.at``. A backward the array path cannot take (``create_graph``, anomaly mode,
a hook or profiler listening) builds the general path's tensors from those arrays.
One difference, on purpose: a ``max`` bag whose maximum is a zero held by zeros of both
signs gives the first one's sign, as PyTorch's kernel does (the general path's
``maximum.at`` keeps the last one's).
"""

import numpy as np

from ... import _dtypes
from ..._api import ops as J
from ..._device import CPU_BACKEND
from ..._errors import (
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorValueError,
)
from ..._tensor import ARRAY_FLOATS, Tensor, fresh_tensor
from ...autograd.function import Function
from . import embedding as _embedding
from ._op import nn_op
from .embedding import _embedding_renorm_, add_rows, flat_positions, plain_cpu

__all__ = ["embedding_bag"]

_INDEX_DTYPES = (_dtypes.int64, _dtypes.int32)


class _EmbeddingBag(Function):
    _node_name = "EmbeddingBagBackward0"
    # PyTorch's node: edges for the weight and the per-sample weights (None when absent),
    # none for the indices and offsets.
    _edge_positions = (0, 6)

    @staticmethod
    def forward(ctx, weight, idx, bag_of, keep, n_bags, mode, psw):
        if idx.__class__ is np.ndarray:  # (the body chose the array path: host arrays)
            return _array_forward(ctx, weight, idx, bag_of, keep, n_bags, mode, psw)
        ctx.bags = None
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
        weight, psw = ctx.saved_tensors
        if ctx.bags is None:
            idx, bag_of, keep, mode, shape = ctx.args
            counts, hit = getattr(ctx, "counts", None), getattr(ctx, "hit", None)
        elif (
            grad._dtype is weight._dtype
            and plain_cpu(grad)
            and (psw is None or plain_cpu(psw))
            and _embedding.plain_backward()
        ):
            return _array_backward(ctx, grad, weight, psw)
        else:  # the array forward's state as the general path's tensors
            idx, bag_of, keep, mode, shape, counts, hit = _as_tensors(ctx.bags, weight)
        per_row = grad.index_select(0, bag_of) * keep.unsqueeze(1).to(grad.dtype)
        if mode == "mean":
            per_row = per_row / counts.index_select(0, bag_of).unsqueeze(1)
        elif mode == "max":
            per_row = per_row * hit.to(grad.dtype)
        grad_psw = None
        if psw is not None and ctx.needs_input_grad[6]:
            grad_psw = (per_row * weight.index_select(0, idx)).sum(1)
        if psw is not None:
            per_row = per_row * psw.unsqueeze(1)
        grad_weight = J.zeros(shape, dtype=grad.dtype, device=grad.device).index_add(
            0, idx, per_row
        )
        return grad_weight, None, None, None, None, None, grad_psw


def _array_forward(ctx, weight, idx, bag_of, keep, n_bags, mode, psw):
    """``_EmbeddingBag.forward`` on the arrays: ``idx`` (int64), ``bag_of`` (each lookup's
    bag) and ``keep`` (False for padding lookups and lookups past the last bag; None when
    all are kept) are host arrays. Each step is the general path's public op as its NumPy
    call: the gather, the products by the per-sample weights and by the mask (left out when
    the mask is all ones: a product by one changes nothing), then the bags' sums in lookup
    order (``index_add``), their counts and the division (``mean``), or the maxima, the
    empty bags' ``-inf`` made zero and the first maximal lookup of each (bag, column)
    (``max``). Saves what the general forward saves."""
    w = weight._array()
    dtype = w.dtype
    d = w.shape[1]
    rows = np.take(w, idx, axis=0)  # (a fresh array: the products below write into it)
    if psw is not None:
        np.multiply(rows, psw._array()[:, None], out=rows)
    if keep is not None:
        np.multiply(rows, keep.astype(dtype)[:, None], out=rows)
    counts = hit = None
    if mode == "max":
        filled = rows if keep is None else np.where(keep[:, None], rows, dtype.type(-np.inf))
        found = _first_maxima(filled, bag_of, n_bags)
        first, out = _max_at(filled, bag_of, n_bags) if found is None else found
        # (a NaN or -inf maximum leaves the general path's hit mask empty)
        hit = (first, (out == out) & (out != -np.inf))
        out[out == -np.inf] = 0
    else:
        out = np.zeros((n_bags, d), dtype=dtype)
        add_rows(out, bag_of, rows)
        if mode == "mean":
            # whole numbers below 2**24 (the body checked): exact in either dtype
            kept = bag_of if keep is None else bag_of[keep]
            counts = np.bincount(kept, minlength=n_bags).astype(dtype)
            np.maximum(counts, 1, out=counts)
            np.true_divide(out, counts[:, None], out=out)
    ctx.bags = (idx, bag_of, keep, mode, weight._shape, counts, hit)
    ctx.save_for_backward(weight, psw)
    storage = weight._storage
    return fresh_tensor(Tensor, out, (n_bags, d), weight._dtype, storage.device, CPU_BACKEND)


def _first_maxima(filled, bag_of, n_bags):
    """For each (bag, column), the lookup holding the bag's maximum, the first of equal
    ones (a NaN counts as the largest, the first NaN, whose value ``maximum.at`` ends on):
    the first element the general path's mask of maximal lookups marks, and PyTorch's
    argmax. ``(first, maxima)``, ``n`` in ``first``
    for an empty bag (its maximum ``-inf``). Bags are runs of consecutive lookups
    (``bag_of`` non-decreasing, the body checked it): bags of one length are a reshape,
    others are laid out in a (bags, longest bag) grid padded with ``-inf``; one ``argmax``
    finds the lookups. None (use ``_max_at``) when the grid would be much larger than the
    lookups (a few long bags among many short ones)."""
    n, d = filled.shape
    lengths = np.bincount(bag_of, minlength=n_bags)
    longest = int(lengths.max())
    if longest * n_bags == n:  # (every bag as long: no padding)
        cube = filled.reshape(n_bags, longest, d)
        best = cube.argmax(axis=1)  # (bags, d): the place in the bag
        maxima = np.take_along_axis(cube, best[:, None, :], axis=1).reshape(n_bags, d)
        best += np.arange(0, n, longest)[:, None]
        return best, maxima
    if n_bags * longest > 2 * n + 64:
        return None
    starts = np.cumsum(lengths) - lengths
    grid = np.full((n_bags, longest), n, dtype=np.intp)
    grid[bag_of, np.arange(n) - starts[bag_of]] = np.arange(n)
    padded = np.concatenate((filled, np.full((1, d), -np.inf, dtype=filled.dtype)))
    cube = padded[grid]
    best = cube.argmax(axis=1)
    maxima = np.take_along_axis(cube, best[:, None, :], axis=1).reshape(n_bags, d)
    return grid[np.arange(n_bags)[:, None], best], maxima


def _max_at(filled, bag_of, n_bags):
    """``_first_maxima`` for any bags, with the general path's ``at`` kernels: the maxima,
    then the first lookup equal to its bag's maximum (``n`` where none is: a NaN maximum).
    ``(first, maxima)``, a maximum being its first lookup's value (the sign of a zero)."""
    n, d = filled.shape
    maxima = np.full((n_bags, d), -np.inf, dtype=filled.dtype)
    places = flat_positions(bag_of, d, n_bags)
    np.maximum.at(maxima.reshape(-1), places, filled.reshape(-1))
    pos = np.where(filled == maxima[bag_of], np.arange(n)[:, None], n)
    first = np.full((n_bags, d), n, dtype=pos.dtype)
    np.minimum.at(first.reshape(-1), places, pos.reshape(-1))
    found = first < n
    maxima[found] = filled[first[found], np.nonzero(found)[1]]
    return first, maxima


def _hit_mask(hit, bag_of, n):
    """The general path's ``(n, d)`` mask of the lookups that take a bag's gradient, from
    ``_array_forward``'s ``hit``: ``(first, ok)``, each (bag, column)'s first maximal lookup
    and whether it takes the gradient."""
    first, ok = hit
    return (np.arange(n)[:, None] == first[bag_of]) & ok[bag_of]


def _array_backward(ctx, grad, weight, psw):
    """``_EmbeddingBag.backward`` on the arrays for ``_array_forward``'s node: each bag's
    gradient gathered to its lookups, times the mask, divided by the bag's count (``mean``)
    or times the first-maximum mask (``max``); the per-sample weights' gradient as the
    general path's product and row sum; then times the per-sample weights and summed into
    the weight's rows in lookup order."""
    idx, bag_of, keep, mode, shape, counts, hit = ctx.bags
    g = grad._array()
    dtype = g.dtype
    per_row = g[bag_of]  # (a fresh array: the products below write into it)
    if keep is not None:
        np.multiply(per_row, keep.astype(dtype)[:, None], out=per_row)
    if mode == "mean":
        np.true_divide(per_row, counts[bag_of][:, None], out=per_row)
    elif mode == "max":
        if np.isfinite(g).all():
            return _max_backward(ctx, g, hit, grad)
        np.multiply(per_row, _hit_mask(hit, bag_of, idx.shape[0]).astype(dtype), out=per_row)
    device = grad._storage.device
    grad_psw = None
    if psw is not None:
        if ctx.needs_input_grad[6]:
            # ``Tensor.sum(1)``'s reduction
            summed = np.add.reduce(per_row * np.take(weight._array(), idx, axis=0), (1,))
            grad_psw = fresh_tensor(Tensor, summed, summed.shape, grad._dtype, device, CPU_BACKEND)
        np.multiply(per_row, psw._array()[:, None], out=per_row)
    grad_weight = None
    if ctx.needs_input_grad[0]:
        gw = np.zeros(shape, dtype=dtype)
        add_rows(gw, idx, per_row)
        grad_weight = fresh_tensor(Tensor, gw, gw.shape, grad._dtype, device, CPU_BACKEND)
    return grad_weight, None, None, None, None, None, grad_psw


def _max_backward(ctx, g, hit, grad):
    """``max``'s weight gradient from ``_first_maxima``'s lookups: each (bag, column)'s
    gradient added at its maximal lookup's row, bag after bag. The general path adds the
    same values in the same (lookup) order, plus zeros for every other lookup (gradient
    times a zero mask), which change no sum: a sum started at +0 is never -0, and adding +-0
    to anything else leaves it. (A gradient with an infinity or NaN, where those zeros are
    NaNs, takes the general path's steps instead.)"""
    idx = ctx.bags[0]
    first, ok = hit
    shape = ctx.bags[4]
    grad_weight = None
    if ctx.needs_input_grad[0]:
        d = g.shape[1]
        gw = np.zeros(shape, dtype=g.dtype)
        # (bags, d): flat positions in ``gw`` (an empty bag's ``n``, clipped, is not ok)
        places = np.take(idx, first, mode="clip") * d + np.arange(d)
        if ok.all():
            values = np.ascontiguousarray(g)
        else:
            places, values = places[ok], g[ok]  # (in bag order)
        np.add.at(gw.reshape(-1), places.reshape(-1), values.reshape(-1))
        grad_weight = fresh_tensor(
            Tensor, gw, gw.shape, grad._dtype, grad._storage.device, CPU_BACKEND
        )
    return grad_weight, None, None, None, None, None, None


def _as_tensors(bags, weight):
    """``_array_forward``'s host arrays as the general path's tensors (for a backward the
    array path does not take)."""
    idx, bag_of, keep, mode, shape, counts, hit = bags
    device = weight._storage.device
    if keep is None:
        keep = np.ones(idx.shape[0], dtype=bool)

    def tensor(a, dtype):
        return Tensor._from_array(np.ascontiguousarray(a), dtype, device)

    return (
        tensor(idx, _dtypes.int64),
        tensor(bag_of.astype(np.int64), _dtypes.int64),
        tensor(keep, _dtypes.bool_),
        mode,
        shape,
        None if counts is None else tensor(counts, weight._dtype),
        None if hit is None else tensor(_hit_mask(hit, bag_of, idx.shape[0]), _dtypes.bool_),
    )


_INDEX_TYPES = (_dtypes.int64, _dtypes.int32)


def _plain_call(input, weight, offsets, psw):
    """Whether the call may take the array path (see the module docstring): a plain CPU
    float32/float64 weight, int32/int64 CPU indices and offsets, per-sample weights of the
    weight's dtype on the CPU, nothing listening."""
    return (
        _embedding.ARRAY_PATHS
        and weight._dtype in ARRAY_FLOATS
        and plain_cpu(weight)
        and input._dtype in _INDEX_TYPES
        and plain_cpu(input)
        and (offsets is None or (offsets._dtype in _INDEX_TYPES and plain_cpu(offsets)))
        and (psw is None or (psw._dtype is weight._dtype and plain_cpu(psw)))
        and not _embedding.listened()
    )


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
    for t in (input, offsets):
        if t is not None and t.dtype not in _INDEX_DTYPES:
            # (PyTorch names the indices whichever of the two is wrong)
            raise TensorRuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following "
                f"scalar types: Long, Int; but got {t.type()} instead (while checking "
                "arguments for embedding_bag)"
            )
    dims = input.dim()
    arrays = False  # (the array path: the host arrays are read without op calls)
    if dims == 2:
        if offsets is not None:
            raise TensorValueError(
                f"if input is 2D, then offsets has to be None, as input is treated is a "
                f"mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets).__name__}"
            )
        b, n = input._shape
        host_offsets = np.arange(0, b * n, n) if n else np.zeros(b, dtype=np.int64)
        arrays = _plain_call(input, weight, None, per_sample_weights)
        flat = None if arrays and max_norm is None else input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif dims == 1:
        if offsets is None:
            raise TensorValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise TensorValueError("offsets has to be a 1D Tensor")
        arrays = _plain_call(input, weight, offsets, per_sample_weights)
        if arrays:
            host_offsets = offsets._array().astype(np.int64)
        else:
            host_offsets = offsets.detach().cpu().numpy().astype(np.int64)
        flat = input
        psw = per_sample_weights
    else:
        raise TensorValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {dims}"
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
    n_idx = input.numel()
    if include_last_offset:
        n_bags = len(host_offsets) - 1
        bounds = host_offsets
    else:
        n_bags = len(host_offsets)
        bounds = np.concatenate((host_offsets, (n_idx,)))
    if len(host_offsets) and host_offsets[0] != 0:
        raise TensorRuntimeError(
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {host_offsets[0]}"
        )
    if arrays:
        host_idx = input._array().reshape(-1).astype(np.int64)
    else:
        host_idx = flat.detach().cpu().numpy().astype(np.int64)
    if len(host_offsets) and host_offsets[-1] > n_idx:
        raise TensorRuntimeError(
            f"offsets[-1] can not be greater than input's length {n_idx} but got "
            f"offsets[-1] of {host_offsets[-1]}"
        )
    # (read as unsigned, a negative index is one >= 2**63: one reduction)
    rows = weight.shape[0]
    if n_idx and int(host_idx.view(np.uint64).max()) >= rows:
        at = int(np.argmax(host_idx.view(np.uint64) >= rows))
        raise TensorRuntimeError(
            f"Index {at} of input takes value {int(host_idx[at])} which is not in the valid "
            f"range [0, {rows})"
        )
    positions = np.arange(n_idx)
    bag_of = np.searchsorted(bounds[1:], positions, side="right")
    np.minimum(bag_of, max(n_bags - 1, 0), out=bag_of)  # (a lookup past the last bound)
    # The array path takes bags of consecutive lookups (offsets that never decrease nor pass
    # the end) and leaves to the general path calls with no bags or no lookups and counts
    # past 2**24, which the general path's float32 counts would not hold.
    if (
        arrays
        and n_bags > 0
        and 0 < n_idx < 1 << 24
        and bounds[-1] <= n_idx
        and (len(bounds) < 3 or (bounds[1:] >= bounds[:-1]).all())
    ):
        # the mask below, None where it keeps every lookup
        keep = None if padding_idx is None else host_idx != (padding_idx % weight.shape[0])
        if bounds[-1] < n_idx:
            past = positions < bounds[-1]
            keep = past if keep is None else keep & past
        if keep is not None and keep.all():
            keep = None
        return _EmbeddingBag.apply(weight, host_idx, bag_of, keep, n_bags, mode, psw)
    keep = (
        np.ones(n_idx, dtype=bool)
        if padding_idx is None
        else host_idx != (padding_idx % weight.shape[0])
    )
    # lookups past the last bound (include_last_offset) belong to no bag
    keep &= positions < bounds[-1] if len(bounds) else False
    if flat is None:
        flat = input.reshape(-1)
    if n_bags == 0 and n_idx:
        # (``include_last_offset`` with one offset: no bag, so no lookup is read; the
        # result is (0, embedding_dim) and the weight's gradient zero)
        flat, bag_of, keep = flat[:0], bag_of[:0], keep[:0]
        psw = None if psw is None else psw[:0]
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
