"""Reductions, scans, statistics and scaled products: PyTorch's derivative formulas
(``tools/autograd/derivatives.yaml`` / ``FunctionsManual.cpp``), written with public ops so
that ``create_graph=True`` differentiates them.

Ops that PyTorch implements as a composite get the node name of the composite's last op
(``nanmean`` is ``DivBackward0``, ``quantile`` ``SqueezeBackward4``, ``cov``
``SqueezeBackward0``...).
"""

import math

import numpy as np

from ... import _dtypes, linalg
from ..._api import ops as J
from ..._arraymod import exp_rounded_once
from ..._elementwise import run_compute
from ..._tensor import Tensor
from . import _fast
from .._composites import (recorded_corrcoef, recorded_cov, recorded_diff, recorded_inner,
                           recorded_multi_dot, recorded_nanmean, recorded_trapezoid)
from ._core import derivative, nondifferentiable, saved_if


# ----------------------------------------------------------------------------- helpers

def _reduced(dim, ndim, empty_means_all=True):
    """Sorted, wrapped dims a reduction's ``dim`` argument names (all for None / empty)."""
    if ndim == 0:
        return []
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, (tuple, list)) or type(dim).__name__ == "Size":
        if len(dim) == 0:
            return list(range(ndim)) if empty_means_all else []
        return sorted(d % ndim for d in dim)
    return [dim % ndim]


def _restore(g, dims, ndim, keepdim):
    """Re-insert the reduced dims of a non-keepdim result (``unsqueeze_multiple``)."""
    if keepdim or ndim == 0:
        return g
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _zeros(shape, like):
    return J.zeros(tuple(shape), dtype=like.dtype, device=like.device)


def _evenly_distribute(g, x, value):
    """Full max/min/median: the gradient is shared evenly by every element equal to the
    result (NaN results go to the NaN elements)."""
    fast = _fast.evenly_distributed(g, x, value)
    if fast is not None:
        return fast
    mask = (x == value).logical_or(x.isnan().logical_and(value.isnan()))
    return mask * (g / mask.sum())


def _value_selecting(g, dim, indices, shape, keepdim):
    """max/min/median/mode along a dim: the gradient goes to the returned index."""
    if len(shape) == 0:
        return g
    d = dim % len(shape)
    if not keepdim:
        g = g.unsqueeze(d)
        indices = indices.unsqueeze(d)
    return _zeros(shape, g).scatter(d, indices, g)


def _reversed_cumsum(g, dim):
    return g.flip(dim).cumsum(dim).flip(dim)


def _norm_backward(g, x, p, norm, dims, keepdim):
    """PyTorch's ``norm_backward``: the gradient of a vector p-norm over ``dims``."""
    ndim = x.dim()
    if not keepdim and ndim != 0:
        g = _restore(g, dims, ndim, False)
        norm = _restore(norm, dims, ndim, False)
    p = float(p)
    if p == 0.0:
        return None
    if p == 1.0:
        return x.sgn() * g
    if p == 2.0:
        return g * (x / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        a = x.abs()
        mask = a.eq(norm).logical_or(a.isnan())
        if dims:
            count = mask.sum(dims, keepdim=True)
        else:
            count = mask.sum()
        return x.sgn() * ((g / count) * mask)
    if p < 1.0:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * g * norm.pow(1 - p)
    if p < 2.0:
        scaled = x.sgn() * x.abs().pow(p - 1)
    else:
        scaled = x * x.abs().pow(p - 2)
    scale = (g / norm.pow(p - 1)).masked_fill(norm == 0, 0)
    return scaled * scale


def _var_backward(g, x, dim, correction, keepdim):
    """PyTorch's ``var_backward`` (including its ``dim=()`` quirk: the factor uses a
    reduced size of 1 there, as PyTorch's does)."""
    ndim = x.dim()
    if ndim == 0 or dim is None:
        dof = x.numel() - correction
        if dof <= 0:
            nan_inf = J.where(x == x.mean(), float("nan"), float("inf"))
            return g * nan_inf.to(g.dtype)
        return (2.0 / dof) * g * (x - x.mean())
    dims = _reduced(dim, ndim, empty_means_all=False)
    if not keepdim and ndim > 1:
        g = _restore(g, dims, ndim, False)
    rnumel = _numel(x.shape, dims)
    dof = rnumel - correction
    factor = 2.0 / dof if dof != 0 else math.inf
    return factor * g * (x - x.mean(dims if dims else None, keepdim=True)
                         if dims else x - x.mean())


def _correction(dim, unbiased, correction):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _std_grad(g, result):
    return (g / (result * 2)).masked_fill(result == 0, 0)


# ----------------------------------------------------------------------------- sums, means

@derivative("nansum", save=("input",))
def nansum_backward(ctx, g):
    x = ctx.input
    dims = _reduced(ctx.dim, x.dim())
    g = _restore(g, dims, x.dim(), ctx.keepdim)
    return g.expand(x.shape) * x.isnan().logical_not()


@derivative("mean", name=("dim", "MeanBackward0", "MeanBackward1"))
def mean_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    dims = _reduced(ctx.dim, len(shape))
    g = _restore(g, dims, len(shape), ctx.keepdim)
    n = _numel(shape, dims)
    found = _fast.arrays(g, with_number=True)
    if found is not None and n < 2**53:
        # The expanded gradient divided by the count (``expand`` then ``div``), as arrays.
        q = run_compute(np, "divide", (found[0], np.asarray(n, dtype=found[0].dtype)))
        return _fast.wrap(np.ascontiguousarray(np.broadcast_to(q, shape)), g)
    return g.expand(shape) / n


@derivative("nanmean", save=("input",), name="DivBackward0")
def nanmean_backward(ctx, g):
    x = ctx.input
    dims = _reduced(ctx.dim, x.dim())
    keep = x.isnan().logical_not()
    count = keep.sum(dims, keepdim=True) if dims else keep.sum()
    g = _restore(g, dims, x.dim(), ctx.keepdim)
    return (g / count).expand(x.shape) * keep


@derivative("prod", save=("input", "result"),
            name=("dim", "ProdBackward0", "ProdBackward1"))
def prod_backward(ctx, g):
    x = ctx.input
    if x.dim() == 0:
        return g
    if ctx.dim is None:
        zeros = bool((x == 0).any())
        if not zeros:
            return g * (ctx.result / x).conj()
        flat = x.reshape(-1)
        return (g * _prod_safe_zeros(flat, 0).conj()).reshape(x.shape)
    d = ctx.dim % x.dim()
    result = ctx.result
    if not ctx.keepdim:
        g = g.unsqueeze(d)
        result = result.unsqueeze(d)
    if not bool((x == 0).any()):
        return g * (result / x).conj()
    return g * _prod_safe_zeros(x, d).conj()


def _prod_safe_zeros(x, d):
    """The product of every other element of each slice along ``d`` (zeros allowed)."""
    n = x.shape[d]
    if x.numel() == 0:
        return x
    ones_shape = list(x.shape)
    ones_shape[d] = 1
    ones = J.ones(tuple(ones_shape), dtype=x.dtype, device=x.device)
    before = J.cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    after = J.cat([ones, x.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
    return before * after


# ----------------------------------------------------------------------------- max / min

def _extreme_name(kind):
    def name(v):
        dim = v.get("dim")
        if v.get("other") is not None or type(dim).__name__ == "Tensor" or \
                hasattr(dim, "_storage"):
            return "MaximumBackward0" if kind == "max" else "MinimumBackward0"
        return f"{kind.capitalize()}Backward1" if dim is None else \
            f"{kind.capitalize()}Backward0"
    return name


def _extreme_saves(kind):
    """What each of PyTorch's nodes saves: the indices only for ``max(x, dim)`` (output 1),
    self and result for ``max(x)``, both operands for ``max(x, y)`` (``maximum``)."""
    stem = kind.capitalize()
    return {f"{stem}Backward0": ("result1",), f"{stem}Backward1": ("input", "result"),
            f"{stem}imumBackward0": ("input", "dim", "other")}


# ``other`` is the binary overload's tensor given by name; positionally it arrives as ``dim``.
@derivative("max", inputs=("input", "dim", "other"), save=("input", "dim", "other", "result"),
            name=_extreme_name("max"), save_by_node=_extreme_saves("max"),
            no_edge_if_absent=("dim", "other"))
def max_backward(ctx, g):
    return _extreme_dispatch(ctx, g, True)


@derivative("min", inputs=("input", "dim", "other"), save=("input", "dim", "other", "result"),
            name=_extreme_name("min"), save_by_node=_extreme_saves("min"),
            no_edge_if_absent=("dim", "other"))
def min_backward(ctx, g):
    return _extreme_dispatch(ctx, g, False)


def _extreme_dispatch(ctx, g, is_max):
    dim, other = ctx.dim, ctx.other
    if other is not None or isinstance(dim, Tensor):
        x = ctx.input
        named = other is not None
        if not named:
            other = dim
        greater, less = (x > other), (x < other)
        shared = J.where(x == other, g / 2, g)
        need_a, need_dim, need_other = ctx.needs_input_grad
        need_b = need_other if named else need_dim
        lose_a, lose_b = (less, greater) if is_max else (greater, less)
        grad_b = shared.masked_fill(lose_b, 0) if need_b else None
        return (shared.masked_fill(lose_a, 0) if need_a else None,
                None if named else grad_b, grad_b if named else None)
    if dim is None:
        return _evenly_distribute(g, ctx.input, ctx.result), None, None
    _, indices = ctx.result
    return (_value_selecting(g, dim, indices, ctx.input_meta(0)[0], ctx.keepdim), None,
            None)


def _amax_like_backward(ctx, g):
    x = ctx.input
    dims = _reduced(ctx.dim, x.dim())
    g = _restore(g, dims, x.dim(), ctx.keepdim)
    r = _restore(ctx.result, dims, x.dim(), ctx.keepdim)
    mask = r == x
    count = mask.sum(dims, keepdim=True) if dims else mask.sum()
    return (g / count) * mask


derivative("amax", save=("input", "result"))(_amax_like_backward)
derivative("amin", save=("input", "result"))(_amax_like_backward)


@derivative("aminmax", save=("input", "result"), multi_grad=True)
def aminmax_backward(ctx, g_min, g_max):
    x = ctx.input
    lo, hi = ctx.result
    dim = ctx.dim
    dims = _reduced(dim, x.dim())
    # (judged from the result: a full reduction keeps its dims only in PyTorch, not here yet)
    keepdim = lo.dim() == x.dim() and x.dim() > 0
    out = None
    for g, r in ((g_min, lo), (g_max, hi)):
        if g is None:
            continue
        g = _restore(g, dims, x.dim(), keepdim)
        r = _restore(r, dims, x.dim(), keepdim)
        mask = r == x
        count = mask.sum(dims, keepdim=True) if dims else mask.sum()
        part = (g / count) * mask
        out = part if out is None else out + part
    return out


nondifferentiable("argmax", "argmin", "all", "any", "count_nonzero")


# ----------------------------------------------------------------------------- var / std

@derivative("var", save=("input",))
def var_backward(ctx, g):
    dim, correction = _correction(ctx.dim, ctx.unbiased, ctx.correction)
    return _var_backward(g, ctx.input, dim, correction, ctx.keepdim)


@derivative("std", save=("input", "result"))
def std_backward(ctx, g):
    dim, correction = _correction(ctx.dim, ctx.unbiased, ctx.correction)
    x, result = ctx.input, ctx.result
    fast = _std_backward_arrays(g, x, result, dim, correction, ctx.keepdim)
    if fast is not None:
        return fast
    return _var_backward(_std_grad(g, result), x, dim, correction, ctx.keepdim)


def _std_backward_arrays(g, x, result, dim, correction, keepdim):
    """``std``'s backward over given dims (a batch norm written by hand: ``x.std(0,
    keepdim=True)``) in a plain pass, as the arrays of the public ops below compute it:
    ``g / (result * 2)`` zeroed where the deviation is 0, then ``factor * g * (x - mean)``
    (issue 18: 8 recorded-path ops become array calls). None when it does not apply."""
    ndim = x.dim()
    if ndim == 0 or dim is None:
        return None
    dims = _reduced(dim, ndim, empty_means_all=False)
    dof = _numel(x.shape, dims) - correction
    found = _fast.arrays(g, result) if dims and dof > 0 else None
    xs = _fast.arrays(x) if found is not None else None
    if xs is None or x._dtype is not g._dtype:
        return None
    ga, ra = found
    xa = xs[0]
    doubled = run_compute(np, "multiply", (ra, _fast.number(2, ra)))
    scaled = np.asarray(run_compute(np, "divide", (ga, doubled)))   # (0-d: a NumPy scalar)
    scaled[ra == 0] = 0   # (masked_fill: a fresh array)
    if not keepdim and ndim > 1:
        shape = list(x._shape)
        for d in dims:
            shape[d] = 1
        scaled = scaled.reshape(shape)
    scaled = run_compute(np, "multiply", (scaled, _fast.number(2.0 / dof, ra)))
    centred = run_compute(np, "subtract", (xa, x.mean(dims, keepdim=True)._array()))
    return _fast.wrap(run_compute(np, "multiply", (scaled, centred)), x)


def _mean_part(g, x, dim, keepdim):
    shape = tuple(x.shape)
    dims = _reduced(dim, len(shape))
    g = _restore(g, dims, len(shape), keepdim)
    return g.expand(shape) / _numel(shape, dims)


@derivative("var_mean", save=("input",), multi_grad=True)
def var_mean_backward(ctx, g_var, g_mean):
    dim, correction = _correction(ctx.dim, ctx.unbiased, ctx.correction)
    x = ctx.input
    out = None
    if g_var is not None:
        out = _var_backward(g_var, x, dim, correction, ctx.keepdim)
    if g_mean is not None:
        part = _mean_part(g_mean, x, dim, ctx.keepdim)
        out = part if out is None else out + part
    return out


@derivative("std_mean", save=("input", "result"), multi_grad=True,
            save_for={"result1": ()})   # (PyTorch saves the std, output 0, not the mean)
def std_mean_backward(ctx, g_std, g_mean):
    dim, correction = _correction(ctx.dim, ctx.unbiased, ctx.correction)
    x = ctx.input
    out = None
    if g_std is not None:
        std = ctx.result[0]
        out = _var_backward(_std_grad(g_std, std), x, dim, correction, ctx.keepdim)
    if g_mean is not None:
        part = _mean_part(g_mean, x, dim, ctx.keepdim)
        out = part if out is None else out + part
    return out


# ----------------------------------------------------------------------------- norms

@derivative("norm", save=("input", "result"),
            name=lambda v: ("PermuteBackward0" if v.get("keepdim") else "SumBackward1")
            if v.get("p") == "nuc" else "LinalgVectorNormBackward0")
def norm_backward(ctx, g):
    x = ctx.input
    p = ctx.p
    dim = ctx.dim
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    dims = _reduced(dim, x.dim())
    if p == "nuc":
        a, b = dims
        moved = x.movedim((a, b), (-2, -1))
        u, _, vh = linalg.svd(moved, full_matrices=False)
        gm = g
        if ctx.keepdim:
            gm = gm.squeeze(b).squeeze(a)
        grad = (u @ vh) * gm.unsqueeze(-1).unsqueeze(-1)
        return grad.movedim((-2, -1), (a, b))
    if p == "fro":
        p = 2
    return _norm_backward(g, x, p, ctx.result, dims, ctx.keepdim)


@derivative("dist", inputs=("input", "other"), save=("input", "other", "result"))
def dist_backward(ctx, g):
    diff = ctx.input - ctx.other
    grad = _norm_backward(g, diff, ctx.p, ctx.result, [], False)
    if grad is None:
        return None, None
    need_a, need_b = ctx.needs_input_grad
    return (grad if need_a else None), (-grad if need_b else None)


@derivative("renorm", save=("input",))
def renorm_backward(ctx, g):
    x = ctx.input
    d = ctx.dim % x.dim()
    dims = [i for i in range(x.dim()) if i != d]
    p = ctx.p
    norm = J.norm(x, p, dims, keepdim=True)
    grad_output = (x.conj() * g).sum(dims, keepdim=True)
    nb = _norm_backward(grad_output, x, p, norm, dims, True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * ctx.maxnorm
    if nb is None:
        scaled = factor * g
    else:
        scaled = factor * g - (factor * invnorm) * nb
    return J.where(norm > ctx.maxnorm, scaled, g)


@derivative("logsumexp", save=("input", "result"))
def logsumexp_backward(ctx, g):
    x = ctx.input
    dims = _reduced(ctx.dim, x.dim())
    r = ctx.result
    if not ctx.keepdim and x.dim() != 0:
        g = _restore(g, dims, x.dim(), False)
        r = _restore(r, dims, x.dim(), False)
    return g * (x - r).exp()


# ----------------------------------------------------------------------------- scans

@derivative("cumsum")
def cumsum_backward(ctx, g):
    if g.dim() == 0:
        return g
    return _reversed_cumsum(g, ctx.dim % g.dim())


@derivative("cumprod", save=("input", "result"))
def cumprod_backward(ctx, g):
    x = ctx.input
    if x.numel() <= 1:
        return g
    d = ctx.dim % x.dim()
    n = x.shape[d]
    if n == 1:
        return g
    if not bool((x == 0).any()):
        return _reversed_cumsum(ctx.result.conj() * g, d) / x.conj()
    # With zeros: grad[k] = sum_{j >= k} g[j] * prod_{i <= j, i != k} x[i], computed for
    # every k at once (O(n^2), differentiable again).
    xm = x.movedim(d, -1)
    gm = g.movedim(d, -1)
    eye = J.eye(n, dtype=_dtypes.bool_, device=x.device)
    rows = J.where(eye, J.ones((), dtype=x.dtype, device=x.device),
                   xm.unsqueeze(-2).expand(*xm.shape[:-1], n, n))
    omitted = rows.cumprod(-1)  # row k: running products with x[k] left out
    upper = J.ones((n, n), dtype=_dtypes.bool_, device=x.device).triu()
    grad = (omitted.conj() * gm.unsqueeze(-2) * upper).sum(-1)
    return grad.movedim(-1, d)


def _cum_extreme_backward(ctx, g):
    x_shape = ctx.input_meta(0)[0]
    ctx.input  # noqa: B018 (saved as PyTorch saves it: version-checked here as there)
    _, indices = ctx.result
    if len(x_shape) == 0:
        return g
    numel = 1
    for s in x_shape:
        numel *= s
    if numel == 0:
        return g
    return _zeros(x_shape, g).scatter_add(ctx.dim % len(x_shape), indices, g)


# (PyTorch saves self and the indices, output 1.)
derivative("cummax", save=("input", "result"), nondiff_outputs=(1,),
           save_for={"result0": ()})(_cum_extreme_backward)
derivative("cummin", save=("input", "result"), nondiff_outputs=(1,),
           save_for={"result0": ()})(_cum_extreme_backward)


@derivative("logcumsumexp", save=("input", "result"))
def logcumsumexp_backward(ctx, g):
    x = ctx.input
    if g.dim() == 0 or g.numel() == 0:
        return g
    d = ctx.dim % g.dim()
    r = ctx.result

    def rev_lcse(t):
        return t.flip(d).logcumsumexp(d).flip(d)

    lowest = _dtypes.finfo(g.dtype).min
    log_abs = g.abs().log()
    pos = J.where(g > 0, log_abs, lowest)
    neg = J.where(g < 0, log_abs, lowest)
    return (rev_lcse(pos - r) + x).exp() - (rev_lcse(neg - r) + x).exp()


# ----------------------------------------------------------------------------- median, mode

def _median_name(stem):
    return lambda v: f"{stem}Backward0" if v.get("dim") is None else f"{stem}Backward1"


def _median_backward(ctx, g):
    if ctx.dim is None:
        return _evenly_distribute(g, ctx.input, ctx.result)
    _, indices = ctx.result
    return _value_selecting(g, ctx.dim, indices, ctx.input_meta(0)[0], ctx.keepdim)


# (``median(x)`` saves self and result, ``median(x, dim)`` the indices only.)
derivative("median", save=("input", "result"), nondiff_outputs=(1,),
           name=_median_name("Median"),
           save_by_node={"MedianBackward1": ("result1",)})(_median_backward)
derivative("nanmedian", save=("input", "result"), nondiff_outputs=(1,),
           name=_median_name("Nanmedian"),
           save_by_node={"NanmedianBackward1": ("result1",)})(_median_backward)


@derivative("mode", save=("result",), nondiff_outputs=(1,), save_for={"result0": ()})
def mode_backward(ctx, g):
    _, indices = ctx.result
    return _value_selecting(g, ctx.dim, indices, ctx.input_meta(0)[0], ctx.keepdim)


# ----------------------------------------------------------------------------- quantile

def _quantile_backward(ctx, g, ignore_nan):
    """quantile sorts each slice and interpolates between two ranks: the gradient goes to
    the two sorted elements (weights ``1 - w`` and ``w``), then back through the sort."""
    x = ctx.input.detach()
    shape = tuple(x.shape)
    ndim = len(shape)
    dim = ctx.dim
    q = ctx.q
    if dim is None:
        xs = x.reshape(-1)
    elif ndim == 0:
        xs = x.reshape(1)
    else:
        xs = x.movedim(dim % ndim, -1)
    batch = tuple(xs.shape[:-1])
    n = xs.shape[-1]
    sorted_, order = xs.sort(-1)
    if isinstance(q, Tensor):
        qv = q.detach().reshape(-1).to(x.dtype)
        q_scalar = q.dim() == 0
    else:
        qv = J.tensor([float(q)], dtype=x.dtype, device=x.device)
        q_scalar = True
    nq = qv.shape[0]
    nan = sorted_.isnan()
    if ignore_nan:
        count = nan.logical_not().sum(-1, keepdim=True).to(x.dtype)
        ranks = qv * (count - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        ranks = (qv * (n - 1)).expand(*batch, nq)
        ranks = ranks.masked_fill(nan.any(-1, keepdim=True), n - 1)
    mode = ctx.interpolation
    if mode == "lower":
        ranks = ranks.floor()
    elif mode == "higher":
        ranks = ranks.ceil()
    elif mode == "nearest":
        ranks = ranks.round()
    below = ranks.to(_dtypes.int64)
    # g: (nq, *out) for a 1-D q, else out; out is batch with keepdim's size-1 dims
    if q_scalar:
        gq = g.reshape(*batch, 1)
    else:
        gq = g.movedim(0, -1).reshape(*batch, nq)
    grad_sorted = _zeros(batch + (n,), g)
    if mode in ("linear", "midpoint"):
        w = J.full_like(ranks, 0.5) if mode == "midpoint" else ranks - below.to(ranks.dtype)
        above = ranks.ceil().to(_dtypes.int64)
        w = w.to(g.dtype)
        grad_sorted = grad_sorted.scatter_add(-1, below, gq * (1 - w))
        grad_sorted = grad_sorted.scatter_add(-1, above, gq * w)
    else:
        grad_sorted = grad_sorted.scatter_add(-1, below, gq)
    grad = _zeros(batch + (n,), g).scatter(-1, order, grad_sorted)
    if dim is None or ndim == 0:
        return grad.reshape(shape)
    return grad.movedim(-1, dim % ndim)


@derivative("quantile", save=("input", "q"), name="SqueezeBackward4")
def quantile_backward(ctx, g):
    return _quantile_backward(ctx, g, False)


@derivative("nanquantile", save=("input", "q"), name="SqueezeBackward4")
def nanquantile_backward(ctx, g):
    return _quantile_backward(ctx, g, True)


# ----------------------------------------------------------------------------- histograms

# PyTorch records these with a node whose backward raises "the derivative for ... is not
# implemented" (their outputs require grad but have no derivative).
@derivative("histogram", inputs=("input", "weight"), name="NotImplemented")
def histogram_backward(ctx, g):
    from ..._errors import TensorRuntimeError

    raise TensorRuntimeError("the derivative for 'histogram' is not implemented.")


@derivative("bincount", inputs=("input", "weights"), name="NotImplemented")
def bincount_backward(ctx, g):
    from ..._errors import TensorRuntimeError

    raise TensorRuntimeError("the derivative for 'bincount' is not implemented.")


nondifferentiable("histc", "searchsorted", "bucketize", "isin")


# ----------------------------------------------------------------------------- trapezoid

def _shift(t, d, where):
    """Pad one zero slice along ``d`` before (``where='left'``) or after ``t``."""
    shape = list(t.shape)
    shape[d] = 1
    z = J.zeros(tuple(shape), dtype=t.dtype, device=t.device)
    return J.cat([z, t] if where == "left" else [t, z], d)


def _trapezoid_grads(ctx, gi, d):
    """Gradients of ``sum_i gi[i] * dx[i] * (y[i] + y[i+1]) / 2`` (``gi``: one gradient per
    interval along ``d``); ``x`` is viewed as PyTorch does (1-D: along ``d``; fewer dims:
    leading ones added)."""
    need = ctx.needs_input_grad
    need_y, need_x = need[0], len(need) > 1 and need[1]
    x = ctx.x
    y_shape = ctx.input_meta(0)[0]
    ndim = len(y_shape)
    n = y_shape[d]
    if x is None:
        dx = 1 if ctx.dx is None else ctx.dx
        c = gi * (dx / 2)
        return (_shift(c, d, "left") + _shift(c, d, "right")) if need_y else None, None
    if x.dim() == 1:
        view = [1] * ndim
        view[d] = x.shape[0]
        xv = x.reshape(view)
    elif x.dim() < ndim:
        xv = x.reshape((1,) * (ndim - x.dim()) + tuple(x.shape))
    else:
        xv = x
    dxv = xv.narrow(d, 1, n - 1) - xv.narrow(d, 0, n - 1)
    grad_y = grad_x = None
    if need_y:
        c = gi * dxv / 2
        grad_y = _shift(c, d, "left") + _shift(c, d, "right")
    if need_x:
        y = ctx.y
        gdx = gi * (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
        gx = _shift(gdx, d, "left") - _shift(gdx, d, "right")
        if x.dim() == 1:
            others = [i for i in range(gx.dim()) if i != d]
            gx = gx.sum(others) if others else gx
        grad_x = gx
    return grad_y, grad_x


def _trapezoid_name(v):
    return "MulBackward1" if v.get("x") is None else "DivBackward1"


def _trapezoid_backward(ctx, g):
    y_shape = ctx.input_meta(0)[0]
    d = ctx.dim % len(y_shape)
    n = y_shape[d]
    if n == 0:
        return None, None
    gi = g.unsqueeze(d)
    shape = list(gi.shape)
    shape[d] = n - 1
    return _trapezoid_grads(ctx, gi.expand(*shape), d)


derivative("trapezoid", inputs=("y", "x"), save=("y", "x"),
           name=_trapezoid_name)(_trapezoid_backward)
derivative("trapz", inputs=("y", "x"), save=("y", "x"),
           name=_trapezoid_name)(_trapezoid_backward)


@derivative("cumulative_trapezoid", inputs=("y", "x"), save=("y", "x"),
            name=lambda v: "CumsumBackward0" if v.get("x") is None else "DivBackward1")
def cumulative_trapezoid_backward(ctx, g):
    y_shape = ctx.input_meta(0)[0]
    d = ctx.dim % len(y_shape)
    if g.numel() == 0:
        need = ctx.needs_input_grad
        x_meta = ctx.input_meta(1)
        return (_zeros(y_shape, g) if need[0] else None,
                _zeros(x_meta[0], g) if len(need) > 1 and need[1] else None)
    gd = d if g.dim() == len(y_shape) else d + g.dim() - len(y_shape)
    gi = _reversed_cumsum(g, gd)
    return _trapezoid_grads(ctx, gi, d)


# ----------------------------------------------------------------------------- cov, corrcoef

def _cov_parts(x, correction, fweights, aweights):
    """(centered X (vars x obs), weights or None, normaliser) as ``cov`` computes them."""
    X = x if x.dim() == 2 else x.reshape(1, -1)
    n = X.shape[1]
    w = None
    if fweights is not None:
        w = fweights.reshape(-1).to(X.dtype)
    if aweights is not None:
        aw = aweights.reshape(-1).to(X.dtype)
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = w.sum()
        avg = (X * w).sum(1) / w_sum
    else:
        w_sum = float(n)
        avg = X.mean(1)
    if w is None:
        norm = w_sum - correction
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights.reshape(-1).to(X.dtype)).sum() / w_sum
    if isinstance(norm, Tensor):
        norm = norm.clamp_min(0)
    else:
        norm = max(norm, 0)
    return X - avg.unsqueeze(1), w, norm, w_sum


def _cov_grad_x(gc, xc, w, norm, shape):
    """d cov / d X for a (vars x vars) gradient ``gc``: (G + G^H) (Xc w) / norm (the mean's
    part vanishes because the weighted centered rows sum to zero)."""
    weighted = xc * w if w is not None else xc
    return ((gc + gc.mT.conj()) @ weighted / norm).reshape(shape)


@derivative("cov", inputs=("input", "fweights", "aweights"),
            save=("input", "fweights", "aweights"), name="SqueezeBackward0")
def cov_backward(ctx, g):
    x = ctx.input
    fw, aw = ctx.fweights, ctx.aweights
    correction = ctx.correction
    xc, w, norm, w_sum = _cov_parts(x, correction, fw, aw)
    v = xc.shape[0]
    gc = g.reshape(v, v)
    need_x = ctx.needs_input_grad[0]
    need_aw = ctx.needs_input_grad[2]
    grad_x = _cov_grad_x(gc, xc, w, norm, tuple(x.shape)) if need_x else None
    grad_aw = None
    if need_aw:
        # d cov / d w_n = Xc_n Xc_n^T / norm - cov * d norm / d w_n; w = fw * aw
        fwv = fw.reshape(-1).to(xc.dtype) if fw is not None else 1.0
        awv = aw.reshape(-1).to(xc.dtype)
        c = (xc * w) @ xc.mT.conj() / norm
        direct = ((gc @ xc) * xc.conj()).sum(0) / norm  # sum_ij G_ij Xc_in Xc_jn / norm
        if correction == 0:
            dnorm = fwv * 1.0
        else:
            s = (w * awv).sum()
            dnorm = fwv - correction * (2 * fwv * awv / w_sum - s * fwv / (w_sum * w_sum))
        grad_aw = fwv * direct - (gc * c).sum() * dnorm / norm
        grad_aw = grad_aw.reshape(aw.shape)
    return grad_x, None, grad_aw


@derivative("corrcoef", save=("input",),
            name=lambda v: "DivBackward0" if v["input"].dim() < 2 or v["input"].shape[0] == 1
            else "ClampBackward1")
def corrcoef_backward(ctx, g):
    x = ctx.input
    xc, _, norm, _ = _cov_parts(x, 1, None, None)
    c = xc @ xc.mT.conj() / norm
    if x.dim() < 2 or x.shape[0] == 1:
        # c / c: the derivative is g / c - g * c / c^2 (zero where finite)
        c0 = c.reshape(())
        gc = (g / c0 - g * c0 / (c0 * c0)).reshape(1, 1)
        return _cov_grad_x(gc, xc, None, norm, tuple(x.shape))
    d = c.diagonal()
    s = d.sqrt()
    r = c / s.unsqueeze(1) / s.unsqueeze(0)
    m = g * ((r >= -1) & (r <= 1))  # clamp(-1, 1) passes the gradient inside the bounds
    mr = (m * r).sum(1) + (m * r).sum(0)
    gc = m / (s.unsqueeze(1) * s.unsqueeze(0)) - J.diag_embed(mr / (2 * d))
    return _cov_grad_x(gc, xc, None, norm, tuple(x.shape))


# ----------------------------------------------------------------------------- scaled products

def _scaled(t, s):
    return t if s == 1 else t * s


@derivative("addmv", inputs=("input", "mat", "vec"), save=("mat", "vec"))
def addmv_backward(ctx, g):
    need_i, need_m, need_v = ctx.needs_input_grad
    gi = _scaled(g, ctx.beta) if need_i else None
    gm = _scaled(g.unsqueeze(1) * ctx.vec.conj().unsqueeze(0), ctx.alpha) if need_m else None
    gv = _scaled(ctx.mat.mT.conj() @ g, ctx.alpha) if need_v else None
    return gi, gm, gv


@derivative("addbmm", inputs=("input", "batch1", "batch2"), save=("batch1", "batch2"))
def addbmm_backward(ctx, g):
    need_i, need_1, need_2 = ctx.needs_input_grad
    gi = _scaled(g, ctx.beta) if need_i else None
    g1 = g2 = None
    if need_1:
        b2 = ctx.batch2
        g1 = _scaled(g.unsqueeze(0).expand(b2.shape[0], *g.shape) @ b2.mT.conj(), ctx.alpha)
    if need_2:
        b1 = ctx.batch1
        g2 = _scaled(b1.mT.conj() @ g.unsqueeze(0).expand(b1.shape[0], *g.shape), ctx.alpha)
    return gi, g1, g2


@derivative("addr", inputs=("input", "vec1", "vec2"), save=("vec1", "vec2"))
def addr_backward(ctx, g):
    need_i, need_1, need_2 = ctx.needs_input_grad
    gi = _scaled(g, ctx.beta) if need_i else None
    g1 = _scaled(g @ ctx.vec2.conj(), ctx.alpha) if need_1 else None
    g2 = _scaled(g.mT @ ctx.vec1.conj(), ctx.alpha) if need_2 else None
    return gi, g1, g2


# ----------------------------------------------------------------------------- softmax

@derivative("softmax", save=("result",))
def softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.dim % y.dim() if y.dim() else 0
    if _fast.plain() and y.dim() and g._dtype is y._dtype and g._shape == y._shape \
            and y._dtype in (_dtypes.float32, _dtypes.float64) \
            and g.is_contiguous() and y.is_contiguous():
        # The same four array operations as the ops below, into one fresh buffer (no history
        # is recorded in this pass).
        xp = y._storage._backend.xp
        ya, ga = y._array(), g._array()
        out = xp.multiply(ga, ya)
        total = out.sum(axis=d, keepdims=True)
        xp.subtract(ga, total, out=out)
        xp.multiply(ya, out, out=out)
        return Tensor._from_array(out, y._dtype, y.device)
    return y * (g - (g * y).sum(d, keepdim=True))


@derivative("log_softmax", save=("result",), name="LogSoftmaxBackward0")
def log_softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.dim % y.dim() if y.dim() else 0
    total = g.sum(d, keepdim=True)
    if _fast.plain() and y.dim() and g._dtype is y._dtype and g._shape == y._shape \
            and y._dtype in (_dtypes.float32, _dtypes.float64):
        # On the arrays, into one fresh buffer (no history is recorded in this pass).
        xp = y._storage._backend.xp
        out = exp_rounded_once(xp, y._array())   # (``y.exp()``'s own kernel)
        xp.multiply(out, total._array(), out=out)
        xp.subtract(g._array(), out, out=out)
        return Tensor._from_array(out, y._dtype, y.device)
    return g - y.exp() * total


# ----------------------------------------------------------------------------- diff, cross...

@derivative("diff", inputs=("input", "prepend", "append"),
            save=("input", "prepend", "append"),
            name=lambda v: "CopyBackwards" if v.get("n", 1) == 0 else "SubBackward0",
            # ``n=0`` copies the input alone: prepend/append cannot make it require grad.
            nondiff_outputs=lambda v: [0] if v.get("n", 1) == 0 and not v["input"]._requires_grad
            else [])
def diff_backward(ctx, g):
    x = ctx.input
    d = ctx.dim % x.dim()
    pre, app = ctx.prepend, ctx.append
    n_pre = pre.shape[d] if pre is not None else 0
    n_app = app.shape[d] if app is not None else 0
    total = n_pre + x.shape[d] + n_app
    if ctx.n == 0 and tuple(g.shape) == tuple(x.shape):
        return g, None, None  # PyTorch's diff(n=0) is a copy of the input alone
    n = min(ctx.n, total)
    for _ in range(n):
        # the adjoint of one forward difference: out[i] = g[i-1] - g[i]
        if g.shape[d] == 0:
            shape = list(g.shape)
            shape[d] = 1
            g = _zeros(shape, g)
        else:
            g = _shift(g, d, "left") - _shift(g, d, "right")
    need_x, need_pre, need_app = ctx.needs_input_grad
    gp = g.narrow(d, 0, n_pre) if need_pre else None
    gx = g.narrow(d, n_pre, x.shape[d]) if need_x else None
    ga = g.narrow(d, n_pre + x.shape[d], n_app) if need_app else None
    return gx, gp, ga


@derivative("cross", inputs=("input", "other"), save=("input", "other"),
            name="LinalgCrossBackward0")
def cross_backward(ctx, g):
    dim = ctx.dim
    if dim is None:
        dim = next(i for i, s in enumerate(g.shape) if s == 3)
    need_a, need_b = ctx.needs_input_grad
    a = linalg.cross(ctx.other.conj(), g, dim=dim) if need_a else None
    b = linalg.cross(g, ctx.input.conj(), dim=dim) if need_b else None
    return a, b


def _cdist_uses_mm(v):
    p = v.get("p", 2.0)
    mode = v.get("compute_mode", "use_mm_for_euclid_dist_if_necessary")
    x1, x2 = v["x1"], v["x2"]
    if x1.numel() == 0 or x2.numel() == 0:
        return False
    r1, r2 = x1.shape[-2], x2.shape[-2]
    return p == 2 and (mode == "use_mm_for_euclid_dist" or (
        mode in (None, "use_mm_for_euclid_dist_if_necessary") and (r1 > 25 or r2 > 25)))


@derivative("cdist", inputs=("x1", "x2"), save=("x1", "x2", "result"),
            name=lambda v: "ViewBackward0" if _cdist_uses_mm(v) else "CdistBackward0")
def cdist_backward(ctx, g):
    p = float(ctx.p)
    x1, x2 = ctx.x1, ctx.x2
    need_1, need_2 = ctx.needs_input_grad
    if p == 0.0 or x1.numel() == 0 or x2.numel() == 0:
        return (g.new_zeros(x1.shape) if need_1 else None,
                g.new_zeros(x2.shape) if need_2 else None)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., r1, r2, m)
    dist = ctx.result.unsqueeze(-1)
    gg = g.unsqueeze(-1)
    zero = dist == 0
    if p == 1.0:
        t = diff.sign() * gg
    elif p == 2.0:
        t = (gg * diff / dist).masked_fill(zero, 0)
    elif math.isinf(p):
        t = gg * diff.sign() * (diff.abs() == dist)
    elif p < 2.0:
        bad = zero.logical_or((diff == 0) & (p < 1)) if p < 1 else zero
        t = (diff.sign() * diff.abs().pow(p - 1) * gg / dist.pow(p - 1)).masked_fill(bad, 0)
    else:
        t = (diff * diff.abs().pow(p - 2) * gg / dist.pow(p - 1)).masked_fill(zero, 0)
    return (t.sum(-2) if need_1 else None), (-t.sum(-3) if need_2 else None)


@derivative("inner", inputs=("input", "other"), save=("input", "other"),
            name=lambda v: "MulBackward0" if v["input"].dim() == 0 or v["other"].dim() == 0
            else "ViewBackward0")
def inner_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    a = saved_if(ctx, "input", need_b, 0)   # each read only for the other's gradient
    b = saved_if(ctx, "other", need_a, 1)
    if a.dim() == 0 or b.dim() == 0:
        return (g * b.conj() if need_a else None), (g * a.conj() if need_b else None)
    k = a.shape[-1]
    rows_a, rows_b = math.prod(a.shape[:-1]), math.prod(b.shape[:-1])
    g2 = g.reshape(rows_a, rows_b)
    ga = (g2 @ b.reshape(-1, k).conj()).reshape(a.shape) if need_a else None
    gb = (g2.mT @ a.reshape(-1, k).conj()).reshape(b.shape) if need_b else None
    return ga, gb


@derivative("chain_matmul", inputs=("matrices",), save=("matrices",),
            name=lambda v: "CloneBackward0" if len(v["matrices"]) == 1 else "ViewBackward0")
def chain_matmul_backward(ctx, g):
    ms = ctx.matrices
    k = len(ms)
    if k == 1:
        return ([g],)
    # prefix[i] = m0 @ ... @ m(i-1); suffix[i] = m(i+1) @ ... @ m(k-1)
    prefix = [None] * k
    suffix = [None] * k
    for i in range(1, k):
        prefix[i] = ms[0] if i == 1 else prefix[i - 1] @ ms[i - 1]
    for i in range(k - 2, -1, -1):
        suffix[i] = ms[k - 1] if i == k - 2 else ms[i + 1] @ suffix[i + 1]
    grads = []
    for i in range(k):
        gi = g
        if prefix[i] is not None:
            gi = prefix[i].mT.conj() @ gi
        if suffix[i] is not None:
            gi = gi @ suffix[i].mT.conj()
        grads.append(gi)
    return [grads]


# PyTorch's diff is narrow/sub steps, each recording its node (autograd/_composites).
J.diff.op.backward.composite = recorded_diff

# PyTorch's nanmean is nansum / count.
J.nanmean.op.backward.composite = recorded_nanmean

# ATen composes these from other ops: recorded, each step leaves its node.
for _name in ("trapezoid", "trapz", "cumulative_trapezoid"):
    getattr(J, _name).op.backward.composite = recorded_trapezoid
J.cov.op.backward.composite = recorded_cov
J.corrcoef.op.backward.composite = recorded_corrcoef
J.inner.op.backward.composite = recorded_inner
J.chain_matmul.op.backward.composite = recorded_multi_dot
