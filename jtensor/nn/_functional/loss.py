"""Losses of ``jtensor.nn.functional``: cross_entropy, nll_loss, binary_cross_entropy,
binary_cross_entropy_with_logits, mse_loss, l1_loss, smooth_l1_loss, huber_loss, kl_div.

Where PyTorch's autograd shows one node (``NllLossBackward0``, ``MseLossBackward0``...) the
loss is an ``autograd.Function`` with that node name; where PyTorch composes ops (``l1_loss``,
``kl_div``, label smoothing, probability targets) it is composed here too, so the graphs look
the same, edge for edge: ``cross_entropy`` is ``NllLossBackward0 -> LogSoftmaxBackward0``, and
nodes PyTorch records from C++ with a scalar argument (``MulBackward1``, ``DivBackward1``,
``MaskedFillBackward0``, ``FillBackward2``: one edge, no ``(None, 0)``) are small Functions.
The log_softmax and nll_loss of cross_entropy compute on the arrays; their backwards hand the
gradient over sparsely (one non-zero per row) so that a backward costs one pass over the
softmax kept from the forward. With ``create_graph=True`` every backward is written in public
jtensor ops, so it can be differentiated again.

Their common call (issue 18: a training step's loss; plain CPU float32/float64 tensors, int64
targets) takes fast paths that compute every result bit for bit as the general path does
(``tests/nn/test_loss_fast.py`` compares bytes with ``FAST_PATHS = False``): the argument
checks of a 2-D ``cross_entropy``/``nll_loss`` without weight or label smoothing are a few
attribute tests, a bounds check is one unsigned maximum (a negative index is a huge unsigned
one), and where no target is ignored and no weight is given the weights (all ones) are never
built: the total weight is the target count, the losses' product with them is one with 1.0,
the backward's coefficient is one number, and the picked entries are found (and the gradient
scattered) through flat positions. Anything else (an ignored or out-of-range target, a
weight, other dtypes or devices) declines to the general path, which raises the errors.
"""

import math
import warnings

import numpy as np

from ... import _dispatch, _dtypes
from ..._api import broadcast_shapes
from ..._api import ops as J
from ..._device import CPU_BACKEND
from ..._arraymod import exp_rounded_once as _exp
from ..._dispatch import grad_mode
from ..._elementwise import run_quietly
from ..._errors import (TensorIndexError, TensorRuntimeError, TensorValueError,
                        not_implemented, user_stacklevel)
from ..._layout import _contiguous_strides, broadcastable_to
from ..._ops.unary import _sigmoid
from ..._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, fresh_tensor
from ...autograd import graph as _graph
from ...autograd.function import Function
from ._op import nn_op
from .normalization import _listened
from ...autograd._scalar_nodes import DivScalar, MulScalar

__all__ = ["cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "mse_loss", "l1_loss", "smooth_l1_loss",
           "huber_loss", "kl_div"]

_REDUCTIONS = ("none", "mean", "sum")

# Whether the common calls take the fast paths (see the module docstring); the tests switch
# it off to get the general path's results to compare with.
FAST_PATHS = True
# ``ndarray.max``/``ndarray.sum`` call exactly these (without their Python wrappers).
_MAX = np.maximum.reduce
_MIN = np.minimum.reduce
_SUM = np.add.reduce
_UINT64 = np.dtype(np.uint64)
# A float32 sum of up to 2**24 ones is exact (every partial sum is an integer it holds).
_EXACT_COUNT = 2 ** 24


# ------------------------------------------------------------------------ helpers
def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's ``_Reduction.legacy_get_string``: the deprecated ``size_average``/``reduce``
    arguments override ``reduction`` when given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "none" if not reduce else "mean" if size_average else "sum"
    # (naming the reduction the arguments amount to, as PyTorch's warning does)
    # (attributed to jtensor's caller of this function, as PyTorch's to its loss module or
    # functional: under Python's default filter it shows once a process for each)
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{legacy}' instead.", stacklevel=2)
    return legacy


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
            f"broadcasting. Please ensure they have the same size.", stacklevel=user_stacklevel())


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
    if target.dtype not in (_dtypes.int64, _dtypes.uint8):
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
    if FAST_PATHS and xp is np and _in_range(t, n_classes):
        # No index out of bounds (the common case): only the ignored ones to find.
        valid = t != ignore_index
        return valid, xp.where(valid, t, 0)
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise TensorIndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds. "
                               f"(classes are 0..{n_classes - 1})")
    return valid, xp.where(valid, t, 0)


def _in_range(t, n_classes):
    """Whether the int64 array ``t`` is non-empty and every entry is in ``[0, n_classes)``:
    one maximum of its bits read as unsigned (a negative index reads as one >= 2**63)."""
    return t.size != 0 and int(_MAX(t.view(_UINT64), axis=None)) < n_classes


def _plain_cpu(t):
    """Whether ``t`` is a plain strided CPU tensor (its ``_array()`` is its elements)."""
    return t.__class__ in DENSE_CLASSES and t._storage._backend is CPU_BACKEND


def _work_dtype(dtype):
    """The NumPy dtype a loss kernel computes in: float32 for float16/bfloat16 (PyTorch's CPU
    kernels accumulate in float32), else the input's own."""
    return "float32" if dtype.itemsize < 4 else dtype.numpy


class _LogSoftmax(Function):
    """``log_softmax(input, dim)`` with PyTorch's node (``LogSoftmaxBackward0``, one edge).

    The forward keeps ``exp(x - max)`` and its sum, so the backward
    ``g - softmax * g.sum(dim)`` needs no second ``exp`` (and writes its result into that
    buffer). With ``create_graph`` the backward is written in public ops (from the saved
    result, as PyTorch's formula)."""

    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim):
        if FAST_PATHS and input._dtype in ARRAY_FLOATS and _plain_cpu(input):
            return _log_softmax_fast(ctx, input, dim)
        xp = _xp(input)
        a = input._array()
        work = _work_dtype(input.dtype)
        if a.dtype != work:
            a = a.astype(work)
        shifted = a - a.max(axis=dim, keepdims=True)  # exp(<= 0): no overflow
        e = xp.exp(shifted)
        sumexp = e.sum(axis=dim, keepdims=True)
        shifted -= xp.log(sumexp)
        if shifted.dtype != input.dtype.numpy:
            # PyTorch rounds the log-probabilities to the input's dtype.
            shifted = shifted.astype(input.dtype.numpy)
        out = Tensor._from_array(shifted, input.dtype, input.device)
        ctx.dim = dim
        ctx.fast = (e, sumexp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors  # raises after the graph was freed / an in-place write
        dim = ctx.dim
        if grad_mode.enabled:
            # create_graph: differentiable, from the saved result.
            return grad - result.exp() * grad.sum(dim, keepdim=True), None
        xp = _xp(grad)
        e, sumexp = ctx.fast
        if e is None:
            # A second backward (retain_graph=True): the first one wrote its result into the
            # exp buffer, so the softmax comes back from the saved result.
            r = result._array()
            e = xp.exp(r if r.dtype == sumexp.dtype else r.astype(sumexp.dtype))
            sumexp = xp.ones_like(sumexp)
        else:
            # The first backward writes into the exp buffer: no new (N, C) array.
            ctx.fast = (None, sumexp)
        sparse = ctx.__dict__.pop("sparse_grad", None)
        if sparse is not None and sparse[0] is grad and sparse[1] == grad._version:
            # ``grad`` is exactly what the NllLoss node above returned: one non-zero per row
            # (rows, cols, vals), so its row sums are ``vals`` and the gradient is one pass,
            # ``softmax * -vals``, plus ``vals`` at the targets (the same numbers as below).
            _, _, rows, cols, vals, flat = sparse
            if FAST_PATHS and vals.ndim == 0:
                # One value for every row (``_nll_backward_fast``): the same quotients.
                e *= -vals / sumexp
            else:
                e *= (-vals / sumexp[:, 0])[:, None]
            if flat is not None and e.flags.c_contiguous:
                # (rows, cols) as indices into the flat buffer: the same elements, the same
                # sums, one cheaper indexing.
                e.reshape(-1)[flat] += vals
            else:
                if rows is None:
                    rows = xp.arange(cols.shape[0])
                e[rows, cols] += vals
        else:
            g = grad._array()
            if g.dtype != e.dtype:
                g = g.astype(e.dtype)
            e *= g.sum(axis=dim, keepdims=True) / sumexp
            xp.subtract(g, e, out=e)
        return Tensor._from_array(e.astype(result.dtype.numpy, copy=False), result.dtype,
                                  grad.device), None


def _log_softmax_fast(ctx, input, dim):
    """``_LogSoftmax.forward`` for a plain CPU float32/float64 input: its array calls
    (``ndarray.max``/``sum`` are these reductions, ``-=`` this subtraction), fewer lookups."""
    a = input._array()
    shifted = np.subtract(a, _MAX(a, axis=dim, keepdims=True))  # exp(<= 0): no overflow
    e = np.exp(shifted)
    sumexp = _SUM(e, axis=dim, keepdims=True)
    np.subtract(shifted, np.log(sumexp), out=shifted)
    out = Tensor._from_array(shifted, input._dtype, input._storage.device)
    ctx.dim = dim
    ctx.fast = (e, sumexp)
    ctx.save_for_backward(out)
    return out


def _log_softmax(input, dim):
    """The log-probabilities cross_entropy feeds to nll_loss (``LogSoftmaxBackward0``)."""
    if input.numel() == 0:
        return J.log_softmax(input, dim)
    return _LogSoftmax.apply(input, dim)


class _NllLoss(Function):
    """``nll_loss`` of (N, C) / (C,) / (N, C, H, W) log-probabilities, computed on the arrays.

    ``apply(input, (target, weight), ignore_index, reduction)``: target and weight travel in
    a tuple so that, as in PyTorch, the node has one edge (to ``input``) and no ``(None, 0)``
    entries for them. The backward scatters ``-w[t] * grad (/ total)`` into zeros."""

    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, extra, ignore_index, reduction):
        target, weight = extra
        if FAST_PATHS and weight is None:
            out = _nll_forward_fast(ctx, input, target, ignore_index, reduction)
            if out is not None:
                return out
        xp = _xp(input)
        a = input._array()
        t = target._array()
        if input.dim() == 1:  # one unbatched sample: a batch of one
            a, t = a.reshape(1, -1), t.reshape(1)
        work = _work_dtype(input.dtype)
        if a.dtype != work:
            a = a.astype(work)
        n, c = a.shape[0], a.shape[1]
        valid, safe = _class_targets(xp, t, c, ignore_index)
        if a.ndim == 2:
            picked = a[xp.arange(n), safe]
        else:
            picked = _pick_nd(xp, a, safe)
        if weight is None:
            w = valid.astype(work)
        else:
            w = weight._array().astype(work, copy=False)[safe] * valid
        losses = -(picked * w)
        total = w.sum(dtype=work)
        ctx.fast = (safe, w, total, reduction)
        ctx.flat_index = None  # (``_nll_forward_fast``'s positions of the picked entries)
        ctx.reduction, ctx.ignore_index = reduction, ignore_index
        # PyTorch's node saves self, target, weight and total_weight (0 for "none"), in
        # that order: pack hooks see the same four (three without a weight).
        total_weight = Tensor._from_array(
            xp.asarray(0 if reduction == "none" and input.dim() != 1 else total)
            .astype(input.dtype.numpy),
            input.dtype, input.device)
        ctx.save_for_backward(input, target, weight, total_weight)
        if reduction == "none":
            out = losses.reshape(()) if input.dim() == 1 else losses
        elif reduction == "sum":
            out = losses.sum(dtype=work)
        else:
            out = losses.sum(dtype=work) / total
        return Tensor._from_array(xp.asarray(out).astype(input.dtype.numpy, copy=False),
                                  input.dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        input = ctx.saved_tensors[0]  # raises after the graph was freed / an in-place write
        safe, w, total, reduction = ctx.fast
        if w is None:
            # ``_nll_forward_fast``: no target ignored, no weight, so every weight is 1.
            if FAST_PATHS and not grad_mode.enabled:
                grads = _nll_backward_fast(ctx, input, grad, safe, total, reduction)
                if grads is not None:
                    return grads
            w = np.ones(safe.shape, dtype=total.dtype)
        if grad_mode.enabled:
            # create_graph: a differentiable formula in public ops.
            coef = Tensor._from_array(w, input.dtype, input.device)
            coef = coef * (grad.reshape(coef.shape) if reduction == "none" else grad)
            if reduction == "mean" and total != 0:
                coef = coef / float(total)
            shape = (1,) + tuple(input.shape) if input.dim() == 1 else tuple(input.shape)
            index = Tensor._from_array(safe, _dtypes.int64, input.device).unsqueeze(1)
            g = J.zeros(shape, dtype=input.dtype, device=input.device).scatter(
                1, index, -coef.unsqueeze(1))
            return g.reshape(input.shape), None, None, None
        xp = _xp(grad)
        g = grad._array()
        coef = w * (g.reshape(w.shape) if reduction == "none" else g.reshape(()))
        if reduction == "mean" and total != 0:
            # All targets ignored (or weighted 0): PyTorch's gradient is 0, the loss nan.
            coef = coef / total
        coef = coef.astype(w.dtype, copy=False)
        n = w.shape[0]
        c = input.shape[1] if input.dim() > 1 else input.shape[0]
        if w.ndim == 1:
            rows = xp.arange(n)
            if input.dim() == 2:
                handed = _hand_sparse_grad(ctx, input, rows, safe, -coef)
                if handed is not None:
                    return handed, None, None, None
            out = xp.zeros((n, c), dtype=w.dtype)
            out[rows, safe] = -coef
        else:
            s = math.prod(input.shape[2:])
            out = xp.zeros((n, c, s), dtype=w.dtype)
            out[xp.arange(n)[:, None], safe.reshape(n, s), xp.arange(s)[None, :]] = \
                -coef.reshape(n, s)
        out = out.reshape(input.shape).astype(input.dtype.numpy, copy=False)
        return Tensor._from_array(out, input.dtype, input.device), None, None, None


def _pick_nd(xp, a, safe):
    """``a[n, safe[n, ...], ...]`` for (N, C, d...) log-probabilities: viewed as (N, C, S),
    one class picked per (n, s), in ``safe``'s shape."""
    n, c = a.shape[0], a.shape[1]
    s = math.prod(a.shape[2:])
    a3 = a.reshape(n, c, s)
    picked = a3[xp.arange(n)[:, None], safe.reshape(n, s), xp.arange(s)[None, :]]
    return picked.reshape(safe.shape)


def _nll_forward_fast(ctx, input, target, ignore_index, reduction):
    """``_NllLoss.forward`` without a weight where no target is ignored (``ignore_index``
    is outside ``[0, C)`` and every target inside it) for plain CPU float32/float64
    log-probabilities and int64 targets; None (nothing done) for anything else.

    The general path's weights would be ones: ``picked * w`` is a product with 1.0 (exact,
    but it quiets a signalling NaN and warns as that product does), their sum is the target
    count (exact below 2**24), and the backward reads ``w = None`` as ones. The same saved
    tensors and context as the general path."""
    dtype = input._dtype
    if dtype not in ARRAY_FLOATS or target._dtype is not _dtypes.int64 \
            or ignore_index.__class__ is not int or not _plain_cpu(input) \
            or not _plain_cpu(target):
        return None
    a = input._array()
    t = target._array()
    if a.ndim == 1:  # one unbatched sample: a batch of one
        a, t = a.reshape(1, -1), t.reshape(1)
    n, c = a.shape[0], a.shape[1]
    if 0 <= ignore_index < c or t.size > _EXACT_COUNT or not _in_range(t, c):
        return None  # maybe an ignored target (or one out of range: the general path raises)
    safe = t.copy()  # (the general path's ``where`` copies too: the target may change later)
    flat = None
    if a.ndim == 2:
        if a.flags.c_contiguous:
            # a[arange(n), safe] as positions in the flat buffer (one cheaper indexing; the
            # backward scatters through them too)
            flat = np.arange(0, n * c, c)
            flat += safe
            picked = a.reshape(-1)[flat]
        else:
            picked = a[np.arange(n), safe]
    else:
        picked = _pick_nd(np, a, safe)
    np.multiply(picked, 1.0, out=picked)  # ``picked * w`` (see above)
    losses = np.negative(picked, out=picked)
    work = a.dtype
    total = work.type(safe.size)
    device = input._storage.device
    ctx.fast = (safe, None, total, reduction)
    ctx.flat_index = flat
    ctx.reduction, ctx.ignore_index = reduction, ignore_index
    total_weight = fresh_tensor(
        Tensor, np.zeros((), work) if reduction == "none" and len(input._shape) != 1
        else np.array(total), (), dtype, device, CPU_BACKEND)
    ctx.save_for_backward(input, target, None, total_weight)
    if reduction == "none":
        out = losses.reshape(()) if len(input._shape) == 1 else losses
    elif reduction == "sum":
        out = np.asarray(_SUM(losses, axis=None, dtype=work))
    else:
        out = np.asarray(_SUM(losses, axis=None, dtype=work) / total)
    return Tensor._from_array(out, dtype, device)


def _nll_backward_fast(ctx, input, grad, safe, total, reduction):
    """``_NllLoss.backward`` (no ``create_graph``) after ``_nll_forward_fast`` for a reduced
    loss: every coefficient ``w * g (/ total)`` is the same number, computed once (the same
    float operations on the same values). None (nothing done) for anything else."""
    if reduction == "none" or not _plain_cpu(grad) or input.__class__ not in DENSE_CLASSES:
        return None
    g = grad._array()
    work = total.dtype
    if g.dtype != work:
        return None
    # ``w * g (/ total)`` once, as the ufuncs (NumPy's scalar arithmetic words its
    # floating-point warnings otherwise)
    coef = np.multiply(work.type(1), g.reshape(()))
    if reduction == "mean":
        coef = np.divide(coef, total)  # (total: the target count, never 0 here)
    vals = -coef
    n = safe.shape[0]
    dims = len(input._shape)
    c = input._shape[1] if dims > 1 else input._shape[0]
    if safe.ndim == 1:
        flat = ctx.flat_index
        rows = np.arange(n) if flat is None else None
        if dims == 2:
            handed = _hand_sparse_grad(ctx, input, rows, safe, vals, flat)
            if handed is not None:
                return handed, None, None, None
        out = np.zeros((n, c), dtype=work)
        if flat is not None:
            out.reshape(-1)[flat] = vals
        else:
            out[rows, safe] = vals
    else:
        s = math.prod(input._shape[2:])
        out = np.zeros((n, c, s), dtype=work)
        out[np.arange(n)[:, None], safe.reshape(n, s), np.arange(s)[None, :]] = vals
    out = out.reshape(input._shape).astype(input._dtype.numpy, copy=False)
    return Tensor._from_array(out, input._dtype, input.device), None, None, None


def _hand_sparse_grad(ctx, input, rows, cols, vals, flat=None):
    """The NllLoss gradient ``g`` (zeros, ``vals`` at (rows, cols)) when the node it flows to
    is cross_entropy's ``_LogSoftmax``; None otherwise. ``flat``, when given (then ``rows``
    may be None), holds the same positions as indices into a C-contiguous (N, C) buffer.

    That node is told where the non-zeros are, so its backward is one pass over the softmax
    (no row sums of ``g``). It uses them only if it receives this very tensor, unmodified. When
    nothing can observe ``g`` on its way (the log-probabilities are cross_entropy's own and
    have no other consumer, no hook on either node, no tracer, no anomaly mode), ``g`` is a
    broadcast zero that costs no (N, C) buffer: the receiving node reads only (rows, cols,
    vals). Otherwise ``g`` is the real dense gradient."""
    node = ctx.next_functions[0][0]
    if getattr(node, "_function", None) is not _LogSoftmax or node.dim not in (1, -1) or \
            input.dtype.itemsize < 4:
        return None
    n, c = input.shape
    unobserved = (node.__dict__.get("sole_consumer", False) and not ctx._hooks
                  and not node._pre_hooks and not node._hooks  # post hooks see grad_outputs
                  and not node._tensor_hooks and not node._retain
                  and _dispatch.event_hook is None and not _graph.anomaly.enabled)
    if unobserved:
        zero = Tensor._from_array(_xp(input).zeros((), dtype=vals.dtype), input.dtype,
                                  input.device)
        grad = Tensor._make(zero._storage, (n, c), (0, 0), 0, input.dtype, contiguous=False)
    else:
        out = _xp(input).zeros((n, c), dtype=vals.dtype)
        if flat is not None:
            out.reshape(-1)[flat] = vals
        else:
            out[rows, cols] = vals
        grad = Tensor._from_array(out, input.dtype, input.device)
    node.sparse_grad = (grad, grad._version, rows, cols, vals, flat)
    return grad


class _NllLoss2d(_NllLoss):
    _node_name = "NllLoss2DBackward0"


def _check_nll_weight(input, weight, kernel):
    """PyTorch's checks of the class weight: no gradient flows to it, and it has the input's
    dtype."""
    if weight is None:
        return
    if weight._requires_grad and grad_mode.enabled:
        raise TensorRuntimeError(
            f"The function '{kernel}' is not differentiable with respect to argument "
            f"'weight'. This input cannot have requires_grad True. (Pass weight.detach() to "
            f"use the class weights as constants.)")
    if weight.dtype != input.dtype:
        raise TensorRuntimeError(
            f"expected scalar type {input.dtype._torch_name} but found "
            f"{weight.dtype._torch_name} (the class weight must have the input's "
            f"dtype: use weight.to({input.dtype}))")


def _constant(kernel, name, t):
    """PyTorch's refusal of a gradient for a weight argument its kernel treats as constant."""
    if t is not None and t._requires_grad and grad_mode.enabled:
        raise TensorRuntimeError(
            f"The function '{kernel}' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True. (Pass {name}.detach() to "
            f"use it as a constant.)")


def _nll(input, target, weight, ignore_index, reduction):
    """PyTorch's ``nll_loss_nd``: 4-D inputs go to the 2-D kernel directly, 3-D and >4-D ones
    are viewed as (N, C, 1, -1) first (so the graphs match, ``ViewBackward0`` included)."""
    ndim = input.dim()
    _check_nll_weight(input, weight, "nll_loss_forward" if ndim <= 2 else "nll_loss2d_forward")
    if ndim <= 2:
        return _NllLoss.apply(input, (target, weight), ignore_index, reduction)
    if ndim == 4:
        return _NllLoss2d.apply(input, (target, weight), ignore_index, reduction)
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if input.numel() > 0:
        x, t = input.contiguous().view(n, c, 1, -1), target.contiguous().view(n, 1, -1)
    else:
        x, t = input.contiguous().view(n, c, 0, 0), target.contiguous().view(n, 0, 0)
    out = _NllLoss2d.apply(x, (t, weight), ignore_index, reduction)
    return out.view(out_size) if reduction == "none" else out


@nn_op()
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class-index ``target`` under log-probabilities ``input``
    (N, C, d1, ...). ``weight`` weighs classes (a weighted mean divides by the summed weights
    of the non-ignored targets); targets equal to ``ignore_index`` contribute nothing."""
    if FAST_PATHS and _plain_class_call(input, target, weight, size_average, reduce,
                                        reduction):
        # Every check below passes, and _nll's route is the 2-D kernel's.
        return _NllLoss.apply(input, (target, None), ignore_index, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_class_target(input, target, weight, ignore_index)
    if input.dim() == 1 and target.dim() == 1:
        target = target.reshape(())  # a 1-element target for one unbatched sample
    return _nll(input, target, weight, ignore_index, reduction)


class _MaskedFillZero(Function):
    """``input.masked_fill(mask, 0.0)`` with PyTorch's ``masked_fill.Scalar`` node
    (``MaskedFillBackward0``, one edge: the mask travels in a tuple, so no ``(None, 0)``)."""

    _node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, input, mask):
        ctx.mask = mask[0]
        return input.masked_fill(mask[0], 0.0)

    @staticmethod
    def backward(ctx, grad):
        return grad.masked_fill(ctx.mask, 0.0), None


class _FillScalar(Function):
    """``input.fill_(number)`` on a result, as PyTorch's ``fill_.Scalar`` node
    (``FillBackward2``, one edge; the gradient of a filled tensor is zero)."""

    _node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, input, number):
        return J.full_like(input, number)

    @staticmethod
    def backward(ctx, grad):
        return J.zeros_like(grad), None


def _plain_class_call(input, target, weight, size_average, reduce, reduction):
    """Whether a ``cross_entropy``/``nll_loss`` call is the common one every argument check
    passes for certain: no weight, no legacy arguments, a valid reduction, a non-empty plain
    float32/float64 (N, C) input and a plain int64 (N,) target."""
    if weight is not None or size_average is not None or reduce is not None \
            or reduction not in _REDUCTIONS \
            or input.__class__ not in DENSE_CLASSES or target.__class__ not in DENSE_CLASSES:
        return False
    shape, tshape = input._shape, target._shape
    return (len(shape) == 2 and len(tshape) == 1 and shape[0] == tshape[0] and shape[0] != 0
            and shape[1] != 0 and input._dtype in ARRAY_FLOATS
            and target._dtype is _dtypes.int64)


def _check_label_smoothing(label_smoothing):
    if not 0.0 <= label_smoothing <= 1.0:
        raise TensorRuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


@nn_op()
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, 1), target)`` for logits (N, C, d1, ...) or (C,).

    ``target`` holds class indices (int64/uint8, shape (N, d1, ...)) or class probabilities
    (floating, the input's shape). Supports class ``weight``, ``ignore_index`` (indices only),
    ``reduction`` 'none'|'mean'|'sum' and ``label_smoothing`` in [0, 1], exactly as PyTorch,
    with PyTorch's graph (``NllLossBackward0 -> LogSoftmaxBackward0 -> ...``).
    """
    if FAST_PATHS and label_smoothing.__class__ is float and label_smoothing == 0.0 and \
            _plain_class_call(input, target, weight, size_average, reduce, reduction):
        # Every check below passes, and the route is the class-index one without smoothing.
        logp = _LogSoftmax.apply(input, 1)
        if logp.grad_fn is not None:
            logp.grad_fn.sole_consumer = True  # (see _hand_sparse_grad)
        return _NllLoss.apply(logp, (target, None), ignore_index, reduction)
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
    logp = _log_softmax(input, class_dim)
    if label_smoothing == 0.0:
        if logp.grad_fn is not None:
            # nll_loss is the one consumer of these log-probabilities (see _hand_sparse_grad).
            logp.grad_fn.sole_consumer = True
        return _nll(logp, target, weight, ignore_index, reduction)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    # PyTorch's cross_entropy_loss_label_smoothing, node for node.
    ignore_mask = target == ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        smooth = -(logp * weight.view(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = _MaskedFillZero.apply(smooth, (ignore_mask,))
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
    return (MulScalar.apply(nll, 1 - label_smoothing)
            + MulScalar.apply(ret, label_smoothing / n_classes))


def _cross_entropy_probs(input, target, weight, ignore_index, reduction, label_smoothing,
                         class_dim):
    if not target.dtype.is_floating_point:
        raise TensorRuntimeError(
            f"Expected floating point type for target with class probabilities, got "
            f"{target.dtype._torch_name}")
    if ignore_index >= 0:
        raise TensorRuntimeError("ignore_index is not supported for floating point target")
    n_classes = input.shape[class_dim] if input.dim() else 1
    logp = _log_softmax(input, class_dim)
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
            return -_FillScalar.apply(prod.sum(), float("nan"))
        # PyTorch divides by the integer numel / C as a scalar (div.Scalar: DivBackward1).
        return DivScalar.apply(-prod.sum(), input.numel() // n_classes)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


# ------------------------------------------------------------- binary cross entropy
# The common calls of both binary cross entropies (issue 18: a GAN discriminator's loss,
# logistic regression, a VAE's reconstruction term) compute on the arrays: plain contiguous
# CPU float32/float64 input and target of one shape, weights that broadcast to it, a target
# that needs no gradient, nothing listening (``_bce_fast_args``). ``_bce_loss_arrays``,
# ``_bce_logits_loss_arrays`` and their backward counterparts make the array calls the
# general path's public ops make, in their order, with their operands and dtypes, so every
# value is the general path's bit for bit (``tests/nn/test_bce_upsample_fast.py`` compares
# both with ``FAST_PATHS = False``); the node is the same Function's, with the same saved
# tensors. Anything else (legacy arguments, other dtypes or layouts, a target requiring
# grad, an empty input, a transform, a trace or profiler, anomaly mode, ``create_graph``)
# takes the general path.
_INPUT_RANGE = ("all elements of input should be between 0 and 1 (binary_cross_entropy "
                "takes probabilities; for logits use binary_cross_entropy_with_logits)")
_TARGET_RANGE = ("all elements of target should be between 0 and 1 (targets are "
                 "probabilities: 0 and 1 for hard labels)")


def _expanded(t):
    """Whether ``t``'s strides are standard ones or those of an ``expand()`` of a tensor with
    standard strides (0 along the expanded dims): the weight ``binary_cross_entropy``
    saves."""
    stride = t._stride
    if 0 not in stride:
        return stride == _contiguous_strides(t._shape)
    base = tuple(1 if st == 0 else s for s, st in zip(t._shape, stride, strict=True))
    for st, c in zip(stride, _contiguous_strides(base), strict=True):
        if st and st != c:
            return False
    return True


def _bce_fast_args(input, target, weights, saved=False):
    """Whether a binary cross entropy call may compute on the arrays (see above): the input
    and target plain CPU float32/float64 tensors of one dtype and shape, with at least one
    dim and one element and standard contiguous strides (the general path's results are
    then contiguous too), the target needing no gradient; each weight given a plain tensor
    of that dtype with standard strides that broadcasts to the input's shape and needs no
    gradient where grad mode would refuse it (``saved``: a weight as the node saved it,
    expanded or not); nothing listening, no anomaly mode."""
    dtype = input._dtype
    shape = input._shape
    if dtype not in ARRAY_FLOATS or not shape or target._dtype is not dtype \
            or target._shape != shape or target._requires_grad \
            or input.__class__ not in DENSE_CLASSES or target.__class__ not in DENSE_CLASSES \
            or input._storage._backend is not CPU_BACKEND \
            or target._storage._backend is not CPU_BACKEND:
        return False
    strides = _contiguous_strides(shape)
    if input._stride != strides or target._stride != strides or 0 in shape:
        return False
    for w in weights:
        if w is not None and (
                w.__class__ not in DENSE_CLASSES or w._dtype is not dtype
                or w._storage._backend is not CPU_BACKEND
                or (w._requires_grad and grad_mode.enabled)   # (the general path raises)
                or not (_expanded(w) if saved else w._stride == _contiguous_strides(w._shape))
                or not broadcastable_to(w._shape, shape)):
            return False
    return not (_listened() or _graph.anomaly.enabled)


def _bce_backward_args(ctx, grad, saved):
    """Whether a binary cross entropy node's plain backward (no ``create_graph``) may
    compute on the arrays: the saved tensors (a saved-tensors hook may have replaced them)
    still pass ``_bce_fast_args``, only the input needs a gradient, and the incoming
    gradient is a plain CPU tensor of the dtype: 0-d for a reduced loss; otherwise of the
    input's shape, with standard strides or all strides 0 (``loss.sum().backward()``), where
    the general path's result is contiguous too."""
    x, t = saved[0], saved[1]
    if grad_mode.enabled or ctx.needs_input_grad[1] \
            or not _bce_fast_args(x, t, saved[2:], saved=True) \
            or grad.__class__ not in DENSE_CLASSES or grad._dtype is not x._dtype \
            or grad._storage._backend is not CPU_BACKEND:
        return False
    if ctx.reduction == "none":
        return grad._shape == x._shape and (grad._stride == x._stride or not any(grad._stride))
    return not grad._shape


def _reduced_array(loss, reduction):
    """``_reduce``'s array calls (``loss.mean()``/``loss.sum()`` of a plain contiguous loss:
    ``reductions._plain_sum``): a fresh array of the loss's dtype."""
    if reduction == "none":
        return loss
    r = _SUM(loss, tuple(range(loss.ndim)), None, None, False)
    if reduction == "mean":
        r = r / loss.dtype.type(loss.size)
    return np.asarray(r)


def _bce_loss_arrays(x, t, w, reduction):
    """``_BinaryCrossEntropy.forward``'s array calls: ``log1p(-x).clamp(min=-100) * (t - 1)
    - log(x).clamp(min=-100) * t`` (``* w``), reduced; with the sums of the clamped logs,
    which are NaN exactly where some input is outside [0, 1] or NaN (each clamped log is
    else in [-100, 0])."""
    high = np.log1p(np.negative(x))                        # J.log1p(-input)
    np.maximum(-100, high, out=high)                       # .clamp(min=-100)
    low = np.log(x)                                        # J.log(input)
    np.maximum(-100, low, out=low)                         # .clamp(min=-100)
    checks = _SUM(high, None) + _SUM(low, None)
    loss = np.multiply(high, np.subtract(t, 1), out=high)  # ... * (target - 1)
    np.multiply(low, t, out=low)                           # ... * target
    np.subtract(loss, low, out=loss)
    if w is not None:
        np.multiply(loss, w, out=loss)                     # loss * weight
    return _reduced_array(loss, reduction), checks


def _probability_error(x_bad, t_bad):
    """PyTorch's error for inputs or targets outside [0, 1] (boolean arrays of the bad
    elements): its kernel checks each element's input, then its target, in order, so the
    first bad element names which."""
    either = np.logical_or(x_bad, t_bad).reshape(-1)
    first = int(np.argmax(either))
    return TensorRuntimeError(_INPUT_RANGE if x_bad.reshape(-1)[first] else _TARGET_RANGE)


def _check_probabilities(input, target):
    """The general path's range check, in public ops (any device, any layout)."""
    if not input.numel():
        return
    x_ok = (input >= 0) & (input <= 1)   # (False for NaN)
    t_ok = (target >= 0) & (target <= 1)
    if bool((x_ok & t_ok).all()):
        return
    raise _probability_error((~x_ok).cpu().numpy(), (~t_ok).cpu().numpy())


def _bce_fast(input, target, weight, reduction):
    """``binary_cross_entropy``'s array path (``_bce_fast_args`` passed): the range checks,
    the loss on the arrays, then the general path's node."""
    x, t = input._array(), target._array()
    w = None if weight is None else weight._array()
    out, checks = run_quietly(_bce_loss_arrays, x, t, w, reduction)
    lo, hi = _MIN(t, None), _MAX(t, None)
    if checks != checks or not (lo >= 0 and hi <= 1):   # (NaN compares False)
        with np.errstate(all="ignore"):
            raise _probability_error(~((x >= 0) & (x <= 1)), ~((t >= 0) & (t <= 1)))
    if weight is not None and weight._shape != input._shape:
        weight = weight.expand(input._shape)   # (the general path saves it expanded)
    return _BinaryCrossEntropy.apply(input, target, weight, reduction, computed=out)


def _bce_grad_arrays(g, x, t, w, reduction):
    """``_BinaryCrossEntropy.backward``'s array calls for the input's gradient: ``g (/ n) *
    (x - t) / ((1 - x) * x).clamp(min=1e-12)`` (``* w``)."""
    if reduction == "mean":
        g = np.divide(g, x.dtype.type(x.size))            # grad / count
    num = np.multiply(g, np.subtract(x, t))               # g * (x - t)
    den = np.subtract(1, x)                               # 1 - x
    np.multiply(den, x, out=den)                          # (1 - x) * x
    np.maximum(1e-12, den, out=den)                       # .clamp(min=1e-12)
    np.divide(num, den, out=num)
    if w is not None:
        np.multiply(num, w, out=num)                      # gi * w
    return num


def _fresh_like(array, like):
    """``array`` (of ``like``'s dtype) as a fresh C-contiguous tensor on ``like``'s device."""
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return fresh_tensor(Tensor, array, array.shape, like._dtype, like._storage.device,
                        CPU_BACKEND)


class _BinaryCrossEntropy(Function):
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, reduction, computed=None):
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight)
        if computed is not None:   # (``_bce_fast``: the loss computed on the arrays)
            return _fresh_like(computed, input)
        # PyTorch clamps each log at -100 so 0 * log(0) stays finite. (The input's terms
        # come first: PyTorch's kernel lays the loss out as the input, then the target.)
        loss = J.log1p(-input).clamp(min=-100) * (target - 1) - \
            J.log(input).clamp(min=-100) * target
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors
        x, t, w = saved
        if FAST_PATHS and _bce_backward_args(ctx, grad, saved):
            gi = run_quietly(_bce_grad_arrays, grad._array(), x._array(), t._array(),
                              None if w is None else w._array(), ctx.reduction)
            return _fresh_like(gi, x), None, None, None
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


@nn_op()
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(t * log(x) + (1 - t) * log(1 - x))`` for probabilities ``input`` in [0, 1] (no
    sigmoid inside; each log is clamped at -100 as in PyTorch)."""
    if FAST_PATHS and size_average is None and reduce is None and reduction in _REDUCTIONS \
            and _bce_fast_args(input, target, (weight,)):
        # Every check below but the range one passes for certain.
        return _bce_fast(input, target, weight, reduction)
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
    _check_probabilities(input, target)
    _constant("binary_cross_entropy", "weight", weight)
    if weight is not None:
        weight = weight.expand(broadcast_shapes(target.shape, weight.shape))
    return _BinaryCrossEntropy.apply(input, target, weight, reduction)


def _bce_logits_loss_arrays(x, t, w, pw, reduction):
    """``_BCEWithLogits.forward``'s array calls: ``log_sig = x.clamp(max=0) -
    log1p(exp(-|x|))``, then ``(1 - t) * x - log_sig`` or, with ``pw``, ``(1 - t) * x -
    ((pw - 1) * t + 1) * log_sig`` (``* w``), reduced."""
    e = np.negative(np.abs(x))                            # -input.abs()
    e = _exp(np, e)                                       # J.exp (float32: rounded once)
    np.log1p(e, out=e)                                    # J.log1p
    log_sig = np.minimum(0, x)                            # input.clamp(max=0)
    np.subtract(log_sig, e, out=log_sig)
    loss = np.subtract(1, t)                              # 1 - target
    np.multiply(loss, x, out=loss)                        # (1 - target) * input
    if pw is not None:
        lw = np.multiply(np.subtract(pw, 1), t)           # (pos_weight - 1) * target
        np.add(lw, 1, out=lw)                             # ... + 1
        np.multiply(lw, log_sig, out=log_sig)             # log_weight * log_sig
    np.subtract(loss, log_sig, out=loss)
    if w is not None:
        np.multiply(loss, w, out=loss)                    # loss * weight
    return _reduced_array(loss, reduction)


def _bce_logits_grad_arrays(g, x, t, w, pw, reduction):
    """``_BCEWithLogits.backward``'s array calls for the input's gradient:
    ``sigmoid(x) - t`` or, with ``pw``, ``(1 - t) - ((pw - 1) * t + 1) * sigmoid(-x)``,
    then ``* g`` or ``* w * g`` (``g``: the incoming gradient, divided by the count for a
    mean)."""
    if reduction == "mean":
        g = np.divide(g, x.dtype.type(x.size))            # grad / count
    if pw is not None:
        lw = np.multiply(np.subtract(pw, 1), t)           # (pw - 1) * t
        np.add(lw, 1, out=lw)                             # ... + 1
        np.multiply(lw, _sigmoid(np, np.negative(x)), out=lw)   # ... * J.sigmoid(-x)
        gi = np.subtract(1, t)                            # 1 - t
        np.subtract(gi, lw, out=gi)
    else:
        gi = _sigmoid(np, x)                              # J.sigmoid(x)
        np.subtract(gi, t, out=gi)                        # ... - t
    if w is not None:
        np.multiply(gi, w, out=gi)                        # gi * w
    return np.multiply(gi, g)                             # ... * g


class _BCEWithLogits(Function):
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"
    _edge_positions = (0, 1)   # input and target (weight and pos_weight are constants)

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction, computed=None):
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight, pos_weight)
        if computed is not None:   # (the loss computed on the arrays)
            return _fresh_like(computed, input)
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
        saved = ctx.saved_tensors
        x, t, w, pw = saved
        if FAST_PATHS and _bce_backward_args(ctx, grad, saved):
            gi = run_quietly(_bce_logits_grad_arrays, grad._array(), x._array(),
                              t._array(), None if w is None else w._array(),
                              None if pw is None else pw._array(), ctx.reduction)
            return _fresh_like(gi, x), None, None, None, None
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


@nn_op()
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from logits;
    ``pos_weight`` weighs the positive term (broadcast along the last dimension)."""
    if FAST_PATHS and size_average is None and reduce is None and reduction in _REDUCTIONS \
            and _bce_fast_args(input, target, (weight, pos_weight)):
        # Every check below passes for certain.
        out = run_quietly(_bce_logits_loss_arrays, input._array(), target._array(),
                           None if weight is None else weight._array(),
                           None if pos_weight is None else pos_weight._array(), reduction)
        return _BCEWithLogits.apply(input, target, weight, pos_weight, reduction,
                                    computed=out)
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
    _constant("binary_cross_entropy_with_logits", "weight", weight)
    _constant("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
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
    if kernel is not None and not _dtypes.result_type(input, target).is_floating_point:
        raise not_implemented(kernel, _dtypes.result_type(input, target))
    _size_warning(input, target)
    if input._shape == target._shape and _dispatch.trace_hook is None \
            and _dispatch.profile_hook is None and not _dispatch.transforms.active:
        # Already one shape: broadcast_tensors would hand both back (its call is only
        # shown where someone watches the ops: a trace, a profile).
        return input, target
    return J.broadcast_tensors(input, target)


def _weighted(loss, weight, input, reduction):
    if tuple(weight.shape) != tuple(input.shape):
        raise TensorValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return loss.sum() if reduction == "sum" else loss


@nn_op()
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)**2`` (warns, as PyTorch, when the shapes differ
    and broadcast)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, t = _pair(input, target, "mse_cpu")
    if weight is not None:
        return _weighted((x - t) ** 2, weight, input, reduction)
    return _MseLoss.apply(x, t, reduction, None)


@nn_op()
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, t = _pair(input, target)
    if weight is not None:
        return _weighted((x - t).abs(), weight, input, reduction)
    return _reduce((x - t).abs(), reduction)


@nn_op()
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


@nn_op()
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


@nn_op()
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
    if not _dtypes.result_type(input, target).is_floating_point:
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
