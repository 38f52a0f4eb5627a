"""Attention: ``scaled_dot_product_attention`` (an op) and ``multi_head_attention_forward``
(``jtensor.nn.functional``).

``scaled_dot_product_attention`` is PyTorch's math path composed of public ops: ``q`` and
``k`` each scaled by ``sqrt(scale)``, ``q @ k^T``, plus the mask (a bool mask becomes ``0``
/ ``-inf``; ``is_causal`` a lower-triangular one), a *safe* softmax (a row whose every score
is ``-inf`` gives zeros, not NaN, and no gradient), dropout (``F.dropout``'s draws), then
``@ value``. ``multi_head_attention_forward`` is PyTorch's Python function (what
``nn.MultiheadAttention`` calls), written the same way with the same checks and messages.
"""

import math
import warnings

import numpy as np

from ... import _dispatch
from ..._api import ops as J
from ..._device import CPU_BACKEND
from ..._dtypes import bfloat16, bool_, float16, float32, float64
from ..._errors import TensorRuntimeError
from ..._ops.reductions import fp_quiet
from ..._tensor import DENSE_CLASSES, Tensor
from ...autograd import graph as _graph
from ...autograd.function import Function
from ..._tensortypes import _CPP_NAMES
from .activation import softmax
from .dropout import dropout
from .linear import linear
from .padding import pad
from ._op import nn_op
from ...autograd._scalar_nodes import MulScalar

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _cpp(dtype):
    return _CPP_NAMES.get(dtype, str(dtype).replace("torch.", ""))


# The backends ``torch.nn.attention.sdpa_kernel`` allows (their SDPBackend values; None:
# all). PyTorch's CPU build has two: the fused (flash) kernel, 1, and the math path, 0.
allowed_backends = None
_MATH, _FLASH = 0, 1


def _fused_path(query, key, value, dropout_p):
    """Whether PyTorch's CPU kernel for these inputs is its fused (flash) one, which takes an
    ``attn_mask`` together with ``is_causal`` (both apply): 4-D inputs, no dropout, one head
    size for the three, each last dim of stride 1 (PyTorch's ``sdp_utils`` checks). Its
    reference (math) path, used otherwise and under ``sdpa_kernel(SDPBackend.MATH)``,
    refuses the pair."""
    if allowed_backends is not None and _FLASH not in allowed_backends:
        return False
    return query.dim() == key.dim() == value.dim() == 4 and dropout_p == 0.0 \
        and query.size(-1) == key.size(-1) == value.size(-1) \
        and query.stride(-1) == key.stride(-1) == value.stride(-1) == 1


def _check_backends(query, key, value, dropout_p):
    """Under ``sdpa_kernel``, a CPU call needs one of the CPU build's kernels that fits."""
    if allowed_backends is None or query.device.type != "cpu" or _MATH in allowed_backends:
        return
    if _FLASH not in allowed_backends:
        raise TensorRuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely "
            "due to turning off both the math kernel and the fused kernels.")
    if not _fused_path(query, key, value, dropout_p):  # PyTorch's message, two spaces
        raise TensorRuntimeError("No available kernel.  Aborting execution.")


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal):
    if is_causal and attn_mask is not None and not _fused_path(query, key, value, dropout_p):
        raise TensorRuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if not (query.dtype == key.dtype == value.dtype):
        raise TensorRuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp(query.dtype)} key.dtype: {_cpp(key.dtype)} and value.dtype: "
            f"{_cpp(value.dtype)} instead."
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise TensorRuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            f"instead."
        )
    if attn_mask is not None and not (
        attn_mask.dtype == bool_
        or attn_mask.dtype.is_floating_point
        or attn_mask.dtype == query.dtype
    ):
        raise TensorRuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp(attn_mask.dtype)} and  query.dtype: "
            f"{_cpp(query.dtype)} instead."
        )
    if dropout_p < 0.0 or dropout_p > 1.0:
        raise TensorRuntimeError(
            f"dropout probability has to be between 0 and 1, but got {dropout_p}"
        )


def _bool_to_bias(mask, dtype):
    """A bool mask (True: attend) as an additive float one: 0 where True, -inf elsewhere."""
    return J.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
        mask.logical_not(), float("-inf")
    )


def _gqa(query, key, value):
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    if hq % hk or hq % hv:
        # (PyTorch's message, cut short as it is)
        raise TensorRuntimeError(
            "Number of heads in key and value must divide the number of heads in "
        )
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


@nn_op()
def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims, with
    ``scale = 1 / sqrt(E)`` by default. ``attn_mask``: bool (True = may attend) or float
    (added to the scores), broadcast to ``(..., L, S)``; ``is_causal``: a lower-triangular
    mask; ``dropout_p``: dropout of the attention weights (always applied, as PyTorch);
    ``enable_gqa``: key/value heads repeated to the query's head count.

    >>> import jtensor as torch
    >>> q = torch.ones(2, 4, 3, 8)
    >>> torch.nn.functional.scaled_dot_product_attention(q, q, q).shape
    torch.Size([2, 4, 3, 8])
    """
    if hasattr(attn_mask, "_materialize"):  # torch.nn.attention.bias's causal masks
        attn_mask = attn_mask._materialize(query.device)
    _check_backends(query, key, value, dropout_p)
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal)
    L, S = query.size(-2), key.size(-2)
    factor = 1.0 / math.sqrt(query.size(-1)) if scale is None else float(scale)
    root = math.sqrt(abs(factor))
    if _flash_node(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _FlashAttention.apply(query, key, value, (attn_mask, is_causal, factor, scale))
    if enable_gqa:
        key, value = _gqa(query, key, value)
    if (query.dtype in _REDUCED and query.device.type == "cpu" and S <= _KV_BLOCK
            and _fused_path(query, key, value, dropout_p)):
        out = _fused_reduced(query, key, value, attn_mask, is_causal, factor, L, S)
        if out is not None:
            return _in_query_layout(out, query, key, value)
    # (PyTorch's math path scales by a Scalar: MulBackward1 nodes)
    q = MulScalar.apply(query, -root if factor < 0 else root)
    attn = J.matmul(q, MulScalar.apply(key.transpose(-2, -1), root))
    bias = _score_bias(attn_mask, is_causal, L, S, attn.dtype, query.device)
    if bias is not None:
        attn = attn + bias
    attn = _SafeSoftmax.apply(attn, -1)
    if not _fused_path(query, key, value, dropout_p):
        if dropout_p > 0.0:
            attn = dropout(attn, dropout_p, True)
        return J.matmul(attn, value)
    return _in_query_layout(J.matmul(attn, value), query, key, value)


class _SafeSoftmax(Function):
    """PyTorch's ``_safe_softmax`` (``SafeSoftmaxBackward0``), the math path's softmax: a
    row masked everywhere (all -inf) gives zeros instead of NaN, and no gradient."""

    _node_name = "SafeSoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim):
        out = softmax(input, dim)
        dead = (input == float("-inf")).all(dim, keepdim=True)
        if bool(dead.any()):
            out = out.masked_fill(dead, 0.0)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return out * (grad - (grad * out).sum(ctx.dim, keepdim=True)), None


def _flash_node(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Whether the call is one of PyTorch's fused CPU kernel's that records a single
    ``ScaledDotProductFlashAttentionForCpuBackward0`` node (recorded, plain eager autograd):
    ``_fused_path``'s inputs, float32/float64 on the CPU, of one batch size, as many heads
    in each (or, with ``enable_gqa``, as many key as value heads, dividing the query's), no
    mask that requires grad (that one takes PyTorch's math path too). Elsewhere
    the composed ops below record their own nodes, as PyTorch's math path does."""
    if not _dispatch.grad_mode.enabled or _dispatch.transforms.active \
            or not (query._requires_grad or key._requires_grad or value._requires_grad):
        return False
    if not _fused_path(query, key, value, dropout_p):
        return False
    for t in (query, key, value):
        if t.__class__ not in DENSE_CLASSES or t._storage._backend is not CPU_BACKEND \
                or t._dtype is not query._dtype:
            return False
    if query._dtype is not float32 and query._dtype is not float64:
        return False
    if attn_mask is not None and (attn_mask.__class__ not in DENSE_CLASSES
                                  or attn_mask._requires_grad
                                  or attn_mask._storage._backend is not CPU_BACKEND):
        return False
    qs, ks, vs = query._shape, key._shape, value._shape
    if enable_gqa:
        # (key and value of different head counts take PyTorch's math path)
        if ks[1] != vs[1] or ks[1] == 0 or qs[1] % ks[1]:
            return False
    elif not qs[1] == ks[1] == vs[1]:
        return False
    return qs[0] == ks[0] == vs[0] and ks[2] == vs[2]


def _heads(a, heads):
    """``a`` (B, H, S, E) with each head repeated up to ``heads`` (GQA's repeat_interleave)."""
    return a if a.shape[1] == heads else np.repeat(a, heads // a.shape[1], axis=1)


def _sum_heads(a, heads):
    """The gradient of ``_heads``: the repeated heads' gradients summed back to ``heads``."""
    if a is None or a.shape[1] == heads:
        return a
    b, h, s, e = a.shape
    return a.reshape(b, heads, h // heads, s, e).sum(axis=2)


class _FlashAttention(Function):
    """``scaled_dot_product_attention`` on the fused path as one node, PyTorch's
    ``ScaledDotProductFlashAttentionForCpuBackward0`` (edges to query, key and value), on
    the arrays: the math path's numbers (``q`` and ``k`` each scaled by ``sqrt(scale)``,
    the mask added, a safe softmax, ``@ v``) without a node per step. The backward is
    softmax attention's: ``dv = P^T g``, ``ds = P * (g v^T - rowsum(g * out))``,
    ``dq = ds k * scale``, ``dk = ds^T q * scale``. As in PyTorch, that backward has no
    derivative of its own (a double backward raises)."""

    _node_name = "ScaledDotProductFlashAttentionForCpuBackward0"

    @staticmethod
    def forward(ctx, query, key, value, extra):
        attn_mask, is_causal, factor, scale = extra
        L, S = query._shape[2], key._shape[2]
        dtype = query._dtype
        np_dtype = dtype.numpy
        root = math.sqrt(abs(factor))
        sign_root = np_dtype.type(-root if factor < 0 else root)
        heads = query._shape[1]
        q, k, v = query._array(), _heads(key._array(), heads), _heads(value._array(), heads)
        bias = _bias_array(attn_mask, is_causal, L, S, np_dtype)
        with fp_quiet():
            qs = q * sign_root
            ks = k * np_dtype.type(root)
            scores = np.matmul(qs, ks.swapaxes(-1, -2))
            if bias is not None:
                scores += bias
            top = scores.max(axis=-1, keepdims=True)
            dead = top == -np.inf
            masked_rows = bool(dead.any())
            if masked_rows:   # (PyTorch's safe softmax: a row masked everywhere gives zeros)
                scores = np.where(dead, 0, scores)
                top = np.where(dead, 0, top)
            scores -= top
            p = np.exp(scores, out=scores)
            total = p.sum(axis=-1, keepdims=True)
            p /= total
            if masked_rows:
                p = np.where(dead, 0, p)
            out = np.matmul(p, v)
            lse = (top + np.log(total))[..., 0]
            if masked_rows:   # (their logsumexp stays 0, as PyTorch's kernel leaves it)
                lse[dead[..., 0]] = 0
        result = Tensor._from_array(_like_query(out, query, key, value), dtype, query.device)
        ctx.fast = (p, qs, ks, v, sign_root, np_dtype.type(root))
        ctx.dropout_p = 0.0
        ctx.is_causal = bool(is_causal)
        ctx.scale = scale
        logsumexp = Tensor._from_array(lse, dtype, query.device)
        saved_mask = None
        if attn_mask is not None:
            saved_mask = attn_mask if attn_mask._dtype is dtype else \
                Tensor._from_array(_bias_array(attn_mask, False, L, S, np_dtype), dtype,
                                   query.device)
        ctx.save_for_backward(query, key, value, result, logsumexp, saved_mask)
        return result

    @staticmethod
    def backward(ctx, grad):
        query, key, value, out = ctx.saved_tensors[:4]
        need_q, need_k, need_v = ctx.needs_input_grad[:3]
        p, qs, ks, v, sign_root, root = ctx.fast
        g = grad._array()
        if g.dtype != p.dtype:
            g = g.astype(p.dtype)
        with fp_quiet():
            dv = np.matmul(p.swapaxes(-1, -2), g) if need_v else None
            dq = dk = None
            if need_q or need_k:
                ds = np.matmul(g, v.swapaxes(-1, -2))
                ds -= (g * out._array()).sum(axis=-1, keepdims=True)
                ds *= p
                if need_q:
                    dq = np.matmul(ds, ks)
                    dq *= sign_root
                if need_k:
                    dk = np.matmul(ds.swapaxes(-1, -2), qs)
                    dk *= root
        dk, dv = _sum_heads(dk, key._shape[1]), _sum_heads(dv, value._shape[1])
        dtype, device = query._dtype, query.device
        grads = tuple(None if a is None else Tensor._from_array(a, dtype, device)
                      for a in (dq, dk, dv))
        if _dispatch.grad_mode.enabled:
            # create_graph: PyTorch has no derivative of this backward.
            for t in grads:
                if t is not None:
                    _graph.mark_unimplemented(
                        t, "_scaled_dot_product_flash_attention_for_cpu_backward")
        return grads + (None,)


def _bias_array(attn_mask, is_causal, L, S, np_dtype):
    """``_score_bias`` on the arrays: a bool mask as 0 / -inf, a float one in the scores'
    dtype, plus the causal mask; None when there is neither."""
    bias = None
    if attn_mask is not None:
        m = attn_mask._array()
        bias = np.where(m, np_dtype.type(0), np_dtype.type(-np.inf)) if m.dtype == np.bool_ \
            else m.astype(np_dtype, copy=False)
    if is_causal:
        causal = np.where(np.tri(L, S, dtype=bool), np_dtype.type(0), np_dtype.type(-np.inf))
        bias = causal if bias is None else bias + causal
    return bias


def _like_query(out, query, key, value):
    """The output array laid out as ``_in_query_layout`` lays out the composed path's."""
    order = _query_order(out.size, query, key, value)
    if order is None:
        return out
    return np.ascontiguousarray(out.transpose(order)).transpose(
        sorted(range(4), key=order.__getitem__))


def _score_bias(attn_mask, is_causal, L, S, dtype, device):
    """What is added to the scores: the mask (a bool one as 0/-inf) and the causal mask
    (both apply together on the fused path), or None."""
    bias = None
    if attn_mask is not None:
        bias = _bool_to_bias(attn_mask, dtype) if attn_mask.dtype == bool_ else \
            attn_mask.to(dtype)
    if is_causal:
        causal = _bool_to_bias(J.ones((L, S), dtype=bool_, device=device).tril(), dtype)
        bias = causal if bias is None else bias + causal
    return bias


_REDUCED = (bfloat16, float16)
_KV_BLOCK = 512  # the fused CPU kernel's key/value block for long sequences


def _fused_reduced(query, key, value, attn_mask, is_causal, factor, L, S):
    """PyTorch's fused CPU kernel on bfloat16/float16 (one key block, S <= 512): scores
    ``q @ k^T * scale + mask`` in float32, ``p = exp(s - rowmax)`` in float32 and its row
    sum, ``p`` rounded to the input dtype for ``p @ v`` (accumulated in float32), then one
    division by the sum and one rounding at the end. The reference path would round the
    scores, the softmax and the product each to bfloat16. None when a row is masked
    everywhere (that path's safe softmax handles it)."""
    scores = J.matmul(query.float(), key.float().transpose(-2, -1)) * factor
    bias = _score_bias(attn_mask, is_causal, L, S, scores.dtype, query.device)
    if bias is not None:
        scores = scores + bias
    top = scores.amax(-1, keepdim=True)
    if bool((top == float("-inf")).any()):
        return None
    p = (scores - top).exp()
    out = J.matmul(p.to(query.dtype).float(), value.float()) / p.sum(-1, keepdim=True)
    return out.to(query.dtype)


def _in_query_layout(out, query, key, value):
    """PyTorch's fused CPU kernel (4-D inputs, no dropout, one head size, every last dim
    of stride 1) writes its output with the query's dims in the query's stride order: for
    heads split off by ``x.view(B, L, H, D).transpose(1, 2)`` it is (B, L, H, D) in memory, so
    ``out.transpose(1, 2).view(B, L, H * D)`` works (the SDPA tutorial's attention module
    does this). Other calls take the math path, whose output is contiguous."""
    order = _query_order(out.numel(), query, key, value)
    if order is None or query.device.type != "cpu":   # (CUDA's kernels: not checked on a GPU)
        return out
    back = sorted(range(4), key=order.__getitem__)
    return out.permute(order).contiguous().permute(back)


def _query_order(numel, query, key, value):
    """The query's dims from the largest stride down, where the fused kernel's output
    follows them and they are not already row-major; None otherwise."""
    if numel == 0 or query.is_contiguous() or not _fused_path(query, key, value, 0.0) \
            or 0 in query._stride:
        return None
    order = sorted(range(4), key=lambda d: (-query._stride[d], d))
    return None if order == [0, 1, 2, 3] else order


# ----------------------------------------------------------- multi_head_attention_forward


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched; PyTorch's AssertionErrors for the wrong ranks."""
    nd = query.dim()
    if nd not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {nd}-D query tensor"
        )
    kind = "batched (3-D)" if nd == 3 else "unbatched (2-D)"
    if key.dim() != nd or value.dim() != nd:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {nd}-D"
            f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != nd - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {nd - 1}-D"
            f" but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(
            f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
            f" but found {attn_mask.dim()}-D tensor instead"
        )
    if nd == 2 and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return nd == 3


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float one of ``target_type`` (PyTorch's helper)."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            f"for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = J.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _canonical_pair(padding, padding_name, mask, mask_name, dtype):
    """A key-padding mask and an attention mask, both canonical (the modules' first step)."""
    padding = _canonical_mask(
        padding, padding_name, None if mask is None else mask.dtype, mask_name, dtype
    )
    return padding, _canonical_mask(mask, mask_name, None, "", dtype, False)


def _in_projection_packed(q, k, v, w, b):
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv = linear(k, w_kv, b_kv)
        kv = kv.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, w, shape in (
        ("query", w_q, (Eq, Eq)),
        ("key", w_k, (Eq, Ek)),
        ("value", w_v, (Eq, Ev)),
    ):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _static(t, name, bsz, num_heads, head_dim):
    if t.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t


def _mask_shape(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise TensorRuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise TensorRuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )
        return attn_mask
    raise TensorRuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Multi-head attention over ``(L, N, E)`` query and ``(S, N, E)`` key/value (or
    unbatched ``(L, E)``/``(S, E)``): project, split into heads, attend, merge, project out.
    Returns ``(output, weights)``; ``weights`` is ``(N, L, S)`` (head-averaged) or ``(N,
    heads, L, S)`` when ``need_weights``, else None. PyTorch's function, step for step.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask,
        "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype,
        "attn_mask",
        query.dtype,
    )
    if is_causal and attn_mask is None:
        raise TensorRuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the mask is causal: scaled_dot_product_attention builds its own
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        b_q, b_k, b_v = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v
        )
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _mask_shape(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = J.cat([k, bias_k.repeat(1, bsz, 1)])
        v = J.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        k = _static(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        v = _static(static_v, "static_v", bsz, num_heads, head_dim)
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = J.cat([k, J.zeros(zeros, dtype=k.dtype, device=k.device)], dim=1)
        v = J.cat([v, J.zeros(zeros, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = J.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = J.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = J.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None
