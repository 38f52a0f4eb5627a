"""Distances of ``jtensor.nn.functional``: pairwise_distance, cosine_similarity, pdist (also
``jtensor.<name>``, as PyTorch has them).

``pairwise_distance`` is ATen's ``norm(x1 - x2 + eps, p, last dim)``: one ``NormBackward1``
node; ``pdist`` one ``PdistBackward0`` node; both are Functions whose backward is the p-norm's
derivative written in public ops (``_norm_grad``), so it can be differentiated again.
``cosine_similarity`` composes public ops as ATen does (each vector divided by its norm,
clamped to ``eps``, then the product summed: ``SumBackward1``).
"""

import math

from ... import _dtypes
from ... import linalg as _linalg
from ..._api import broadcast_shapes
from ..._api import ops as J
from ..._errors import TensorRuntimeError
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ._op import nn_op
from ...autograd._scalar_nodes import AddScalar

__all__ = ["pairwise_distance", "cosine_similarity", "pdist"]


def _pnorm(x, p, dim, keepdim=False):
    """``||x||_p`` along ``dim`` (p = 0 counts non-zeros, p = inf takes the largest)."""
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    return _linalg.vector_norm(x, p, dim=dim, keepdim=keepdim)


def _norm_grad(x, norm, grad, p, dim, split_ties=True):
    """The gradient of ``norm = ||x||_p`` (along ``dim``, kept) times ``grad`` (kept dim), as
    ATen's ``norm_backward``: 0 where the norm is 0; for ``p = inf`` the gradient goes to
    the largest entries (shared among ties when ``split_ties``, as ``norm``; whole to each,
    as ``pdist``)."""
    zero = J.zeros_like(x)
    if p == 0:
        return zero
    if p == 1:
        return J.sgn(x) * grad
    if math.isinf(p):
        hit = (x.abs() == norm).to(x.dtype)
        if split_ties:
            hit = hit / hit.sum(dim, keepdim=True)
        return J.sgn(x) * hit * grad
    safe = J.where(norm == 0, J.ones_like(norm), norm)
    if p == 2:
        scaled = x * (grad / safe)
    elif p < 2:
        mag = J.where(x == 0, zero, x.abs().pow(p - 1))
        scaled = J.sgn(x) * mag * (grad / safe.pow(p - 1))
    else:
        scaled = x * x.abs().pow(p - 2) * (grad / safe.pow(p - 1))
    return J.where(norm == 0, zero, scaled)


class _Norm(Function):
    """``||x||_p`` along ``dim`` as ATen's ``norm`` (node ``NormBackward1``)."""

    _node_name = "NormBackward1"

    @staticmethod
    def forward(ctx, x, p, dim, keepdim):
        ctx.args = (p, dim, keepdim)
        out = _pnorm(x, p, dim, keepdim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        p, dim, keepdim = ctx.args
        if not keepdim:
            grad, out = grad.unsqueeze(dim), out.unsqueeze(dim)
        return _norm_grad(x, out, grad, p, dim), None, None, None


@nn_op(function=True)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dimension (inputs broadcast)."""
    ndim = max(x1.dim(), x2.dim())
    diff = AddScalar.apply(x1 - x2, eps)   # (PyTorch's C++ adds eps as a Scalar)
    if ndim == 0:
        return _Norm.apply(diff.reshape(1), p, 0, False).reshape(())
    return _Norm.apply(diff, p, ndim - 1, keepdim)


@nn_op(function=True)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (inputs broadcast);
    each input is divided by its own norm first, as PyTorch, which keeps the result within
    [-1, 1]."""
    common = _dtypes.result_type_of([x1.dtype, x2.dtype], [], [])
    if not common.is_floating_point:
        raise TensorRuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common._torch_name}"
        )
    a = x1 if x1.dtype.is_floating_point else x1.to(common)
    b = x2 if x2.dtype.is_floating_point else x2.to(common)
    if a.shape != b.shape:   # (PyTorch's expand_outplace: both expanded, or neither)
        shape = broadcast_shapes(a.shape, b.shape)
        a, b = a.expand(shape), b.expand(shape)
    na = _linalg.vector_norm(a, 2, dim=dim, keepdim=True).clone()
    nb = _linalg.vector_norm(b, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        # The clamp is outside the graph: the gradient flows as if the norm were unclamped.
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


class _Pdist(Function):
    _node_name = "PdistBackward0"

    @staticmethod
    def forward(ctx, input, p):
        n = input.shape[0]
        rows, cols = J.triu_indices(n, n, 1, device=input.device)
        ctx.p = p
        diff = input.index_select(0, rows) - input.index_select(0, cols)
        out = _pnorm(diff, p, 1)
        ctx.save_for_backward(input, out)
        ctx.pairs = (rows, cols)
        return out

    @staticmethod
    def backward(ctx, grad):
        input, out = ctx.saved_tensors
        rows, cols = ctx.pairs
        diff = input.index_select(0, rows) - input.index_select(0, cols)
        g = _norm_grad(diff, out.unsqueeze(1), grad.unsqueeze(1), ctx.p, 1, split_ties=False)
        result = J.zeros_like(input).index_add(0, rows, g)
        return result.index_add(0, cols, -g), None


@nn_op(function=True)
def pdist(input, p=2):
    """The p-norm distances between the rows of an ``(N, M)`` input, pair ``(i, j)`` with
    ``i < j`` in row-major order: ``N * (N - 1) / 2`` values."""
    if input.dim() != 2:
        raise TensorRuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise TensorRuntimeError(
            f"pdist only supports floating-point dtypes, got {input.dtype._torch_name}"
        )
    if p < 0:
        raise TensorRuntimeError("pdist only supports non-negative p values")
    return _Pdist.apply(input, p)
