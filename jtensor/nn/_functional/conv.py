"""Convolutions: ``conv1d``, ``conv2d`` and ``conv3d``.

One implementation for any number of spatial dims (1-d inputs get a height of 1, so they
run as 2-d): the (padded) input is seen channels-last (NHWC, NDHWC), its sliding windows are
an ``as_strided`` view ``(N, *out, *kernel, C)`` (stride- and dilation-aware, no copy), which
is gathered once into columns and multiplied with the weight in a single matmul (batched over
the groups; an einsum for depthwise). The result is computed as ``(N, *out, O)``, so a
``channels_last`` output costs nothing and a contiguous one one transpose-copy: the output
takes PyTorch's memory format (channels_last(_3d) when the input or the weight is).

The op is an ``autograd.Function`` with an explicit backward (``ConvolutionBackward0``, as in
PyTorch): the weight gradient is one matmul with the recomputed columns, the input gradient
one matmul and a col2im of one strided add per kernel offset. float16/bfloat16 are computed
in float32 and rounded (as PyTorch's CPU kernels accumulate). Under ``create_graph=True`` the
same raw-array gradients are the forward of ``_ConvolutionBackward``
(``ConvolutionBackwardBackward0``), whose backward is made of convolutions and convolution
gradients again: derivatives of any order, at the kernels' speed.
"""

import itertools
import math

import numpy as np

from ..._api import ops as J
from ..._dispatch import grad_mode, transforms
from ..._dtypes import c_name
from ..._errors import TensorRuntimeError, TensorTypeError, user_stacklevel, type_name
from ..._layout import channels_last_strides, suggests_channels_last
from ..._settings import warn_once
from ..._tensor import Tensor
from ...autograd import function as _function
from ._op import nn_op

__all__ = ["conv1d", "conv2d", "conv3d"]


def _name_node(fn_cls, name):
    """Give a Function's backward node PyTorch's name (``ConvolutionBackward0``...)."""
    fn_cls._node_name = name
    _function._NODE_CLASSES[fn_cls] = type(name, (_function.BackwardCFunction,),
                                           {"_function": fn_cls})


def _xp(t):
    return t._storage._backend.xp


def _compute_dtype(t):
    """The array dtype the math runs in: float32 for the 16-bit floats."""
    return np.float32 if t._dtype.itemsize == 2 and t._dtype.is_floating_point else \
        t._dtype.numpy


def _pair(value, name, n=2):
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * n
        if len(value) != n:
            raise TensorRuntimeError(f"expected {name} to be a single integer value or a list "
                                     f"of {n} values to match the convolution dimensions, "
                                     f"but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _wrap(arr, dtype, device):
    return Tensor._from_array(arr, dtype, device)


def _to_last(k):
    """The axes that move the channel dim (1) of a ``k``-spatial-dim array last."""
    return (0,) + tuple(range(2, k + 2)) + (1,)


def _to_first(k):
    """The axes that move the last dim of a channels-last array back to dim 1."""
    return (0, k + 1) + tuple(range(1, k + 1))


def _wrap_channels_last(xp, nhwc, dtype, device):
    """A channels_last (N, C, H, W) (or channels_last_3d (N, C, D, H, W)) tensor over the
    channels-last array ``nhwc`` (PyTorch's channels_last strides even where a dim is 1)."""
    t = Tensor._from_array(xp.ascontiguousarray(nhwc), dtype, device)
    shape = (nhwc.shape[0], nhwc.shape[-1]) + tuple(nhwc.shape[1:-1])
    return Tensor._make(t._storage, shape, channels_last_strides(shape), 0, dtype)


def _windows(xp, xh, out_sp, kernel, stride, dilation):
    """(N, *out, *kernel, C) view of the channels-last array ``xh``: the sliding windows."""
    n, c = xh.shape[0], xh.shape[-1]
    st = xh.strides
    sp = st[1:-1]
    # Read-only where the array module can say so (CuPy's as_strided has no ``writeable``).
    extra = {"writeable": False} if xp is np else {}
    return xp.lib.stride_tricks.as_strided(
        xh, (n,) + tuple(out_sp) + tuple(kernel) + (c,),
        (st[0],) + tuple(s * t for s, t in zip(sp, stride, strict=True))
        + tuple(s * d for s, d in zip(sp, dilation, strict=True)) + (st[-1],), **extra)


def _spatial(pads, sizes):
    """The slices of the padded spatial dims that hold the unpadded input."""
    return tuple(slice(a, a + s) for (a, _), s in zip(pads, sizes, strict=True))


def _inner(pads, sizes):
    """The slices of a padded channels-last array that hold the unpadded input."""
    return (slice(None),) + _spatial(pads, sizes) + (slice(None),)


def _window(offsets, dilation, stride, out):
    """The strided slices of a padded array (spatial dims last) seen by kernel offset
    ``offsets``."""
    return (Ellipsis,) + tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in
                               zip(offsets, dilation, stride, out, strict=True))


def _padded_nhwc(xp, x_arr, pads, ct):
    """Channels-last array of the channels-first array ``x_arr`` with zero padding
    ``((before, after), ...)`` per spatial dim."""
    k = x_arr.ndim - 2
    xh = x_arr.transpose(_to_last(k))
    if xh.dtype != ct:
        xh = xh.astype(ct)
    if any(a or b for a, b in pads):
        sizes = xh.shape[1:-1]
        out = xp.zeros((xh.shape[0],) + tuple(s + a + b for s, (a, b) in
                                              zip(sizes, pads, strict=True)) + (xh.shape[-1],),
                       dtype=ct)
        out[_inner(pads, sizes)] = xh
        return out
    return xh


def _columns(xp, x_arr, meta):
    """(N*prod(out), *kernel, C) columns of the input: the windows gathered in one copy."""
    pads, kernel, stride, dilation, _, out_sp, ct = meta
    xh = _padded_nhwc(xp, x_arr, pads, ct)
    n, c = xh.shape[0], xh.shape[-1]
    win = _windows(xp, xh, out_sp, kernel, stride, dilation)
    return xp.ascontiguousarray(win).reshape((n * math.prod(out_sp),) + tuple(kernel) + (c,))


def _columns_t(xp, x_arr, meta):
    """(prod(kernel)*C, N*prod(out)) columns of the input, rows ordered (kernel offset,
    channel): one copy per kernel offset of a (C, N, *out) strided block of the padded
    channels-first input, each running over whole rows (``_columns`` gathers C elements at a
    time). The weight rows of ``_weight_rows`` multiply them."""
    pads, kernel, stride, dilation, _, out_sp, ct = meta
    k = len(kernel)
    n, c = x_arr.shape[:2]
    xc = x_arr.transpose((1, 0) + tuple(range(2, k + 2)))   # (C, N, *spatial), a view
    if any(a or b for a, b in pads):
        sizes = xc.shape[2:]
        padded = xp.zeros((c, n) + tuple(s + a + b for s, (a, b) in
                                         zip(sizes, pads, strict=True)), dtype=ct)
        padded[(Ellipsis,) + _spatial(pads, sizes)] = xc
    else:
        padded = xc if xc.dtype == ct else xc.astype(ct)
    cols = xp.empty((math.prod(kernel), c, n) + tuple(out_sp), dtype=ct)
    for i, offs in enumerate(itertools.product(*(range(q) for q in kernel))):
        cols[i] = padded[_window(offs, dilation, stride, out_sp)]
    return cols.reshape(math.prod(kernel) * c, -1)


# OpenBLAS serves products of m*n*k below this from its "direct" and small-matrix sgemm/dgemm
# kernels, which round differently from its blocked driver; at or above it every product runs
# that driver, where an output column depends only on its own column of the right operand
# (each element is the same sequence of K-blocked sums). So a product of at least this size,
# cut into column blocks that each are at least this size too, gives the same bits with
# OpenBLAS's Haswell kernels; its AVX-512 kernels round a block's columns apart from the
# whole product's (within rounding: ``tests/nn/test_conv_chunked.py`` probes which).
_BLOCKED_GEMM = 28 * 512 * 512


# The fewest elements a sample range's columns hold (4 MB of float32, within the last-level
# cache): fewer, larger ranges where one sample's columns are small, so that the per-range
# Python steps (one copy per kernel offset) stay few.
_CHUNK_ELEMENTS = 1 << 20


def _sample_chunks(xp, n, r, kc, p, work=None):
    """``[(n0, n1), ...]`` sample ranges covering ``range(n)`` for an (r, kc) @ (kc, n*p)
    product split by samples (p columns each): every range's product at least
    ``_BLOCKED_GEMM`` (so every block, and the whole product, takes OpenBLAS's blocked driver
    and the split changes no bit) and its working array (``work`` elements a sample, the
    (kc, p) columns by default) at least ``_CHUNK_ELEMENTS``; None when the batch is too
    small for two such ranges, or off NumPy."""
    if xp is not np:
        return None
    per_sample = max(r * kc * p, 1)
    work = kc * p if work is None else work
    nb = max(-(-_BLOCKED_GEMM // per_sample), -(-_CHUNK_ELEMENTS // max(work, 1)))
    if n < 2 * nb:
        return None
    starts = list(range(0, n - nb + 1, nb))
    return list(zip(starts, starts[1:] + [n], strict=True))   # the last one takes the rest


def _chunk_columns(xp, x_arr, meta, chunks):
    """For each sample range ``(n0, n1)`` of ``chunks``: ``(n0, n1, cols)``, ``cols`` the
    columns ``n0*P:n1*P`` of ``_columns_t`` (P = prod(out)), built in a padded-input buffer
    and a columns buffer reused from one range to the next (cache-sized, where the whole
    columns are a fresh array of every sample's)."""
    pads, kernel, stride, dilation, _, out_sp, ct = meta
    k = len(kernel)
    c = x_arr.shape[1]
    sizes = tuple(x_arr.shape[2:])
    most = max(n1 - n0 for n0, n1 in chunks)
    kk, p = math.prod(kernel), math.prod(out_sp)
    padded = any(a or b for a, b in pads)
    if padded:   # (samples, C, *padded): the borders stay zero from one range to the next
        pbuf = xp.zeros((most, c) + tuple(s + a + b for s, (a, b) in
                                          zip(sizes, pads, strict=True)), dtype=ct)
        inner = (slice(None), slice(None)) + _spatial(pads, sizes)
    cbuf = xp.empty(kk * c * most * p, dtype=ct)
    windows = [_window(offs, dilation, stride, out_sp)
               for offs in itertools.product(*(range(q) for q in kernel))]
    to_cn = (1, 0) + tuple(range(2, k + 2))
    for n0, n1 in chunks:
        size = n1 - n0
        if padded:
            src = pbuf[:size]
            src[inner] = x_arr[n0:n1]
        else:
            src = x_arr[n0:n1]
        src = src.transpose(to_cn)   # (C, size, *padded)
        cols = cbuf[:kk * c * size * p].reshape((kk, c, size) + tuple(out_sp))
        for i, window in enumerate(windows):
            cols[i] = src[window]
        yield n0, n1, cols.reshape(kk * c, size * p)


def _chunked_product(xp, rows, x_arr, meta, chunks, channels_last, bias=None):
    """``rows @ _columns_t(x_arr, meta)`` (plus ``bias[:, None]``) computed one sample range
    at a time (bit for bit the same, see ``_sample_chunks``) straight into a fresh
    (N, R, *out) array, or (N, *out, R) when ``channels_last``; returned as an (N, *out, R)
    view."""
    out_sp, ct = meta[5], meta[6]
    n, r, p = x_arr.shape[0], rows.shape[0], math.prod(out_sp)
    out = xp.empty((n, p, r) if channels_last else (n, r, p), dtype=ct)
    for n0, n1, cols in _chunk_columns(xp, x_arr, meta, chunks):
        size = n1 - n0
        direct = size == 1 and not channels_last
        res = xp.matmul(rows, cols, out=out[n0] if direct else None)
        if bias is not None:
            res += bias
        if channels_last:
            out[n0:n1] = res.reshape(r, size, p).transpose(1, 2, 0)
        elif not direct:
            out[n0:n1] = res.reshape(r, size, p).transpose(1, 0, 2)
    if channels_last:
        return out.reshape((n,) + tuple(out_sp) + (r,))
    return out.reshape((n, r) + tuple(out_sp)).transpose(_to_last(len(out_sp)))


def _grouped_cols(xp, cols, groups):
    """(groups, M, prod(kernel)*Cg) contiguous columns of each group."""
    m, c = cols.shape[0], cols.shape[-1]
    g = cols.reshape(m, -1, groups, c // groups).transpose(2, 0, 1, 3)
    return xp.ascontiguousarray(g).reshape(groups, m, -1)


def _grouped_weight(xp, w_arr, groups, ct):
    """(groups, Og, kh*kw*Cg) contiguous weight rows of each group."""
    o = w_arr.shape[0]
    return _weight_rows(xp, w_arr, 0, o, ct).reshape(groups, o // groups, -1)


def _weight_rows(xp, w_arr, gi, og, ct):
    """(Og, prod(kernel)*Cg) weight rows of group ``gi``, columns ordered like
    ``_columns``."""
    wg = w_arr[gi * og:(gi + 1) * og].transpose(_to_last(w_arr.ndim - 2))
    return xp.ascontiguousarray(wg, dtype=ct).reshape(og, -1)


def _as4d(arr, squeeze):
    """conv1d's (N, C, L) arrays seen as (N, C, 1, L)."""
    return arr[:, :, None, :] if squeeze else arr


def _conv_forward_array(xp, x_arr, w_arr, b_arr, meta, channels_last=False):
    """(N, *out, O) array (compute dtype) of the convolution of the channels-first arrays
    (a view of a contiguous channels-last array when ``channels_last`` and it is made by
    sample ranges, of a channels-first one otherwise)."""
    groups, out_sp, ct = meta[4:]
    n, c = x_arr.shape[:2]
    o = w_arr.shape[0]
    if groups == 1:
        kc, p = c * math.prod(meta[1]), math.prod(out_sp)
        chunks = _sample_chunks(xp, n, o, kc, p)
        if chunks is not None:
            bias = None if b_arr is None else b_arr.astype(ct, copy=False)[:, None]
            return _chunked_product(xp, _weight_rows(xp, w_arr, 0, o, ct), x_arr, meta,
                                    chunks, channels_last, bias)
        # (O, M) = weight rows @ columns: the output comes out channels-first, returned as
        # an (N, *out, O) view of it.
        out = xp.matmul(_weight_rows(xp, w_arr, 0, o, ct), _columns_t(xp, x_arr, meta))
        if b_arr is not None:
            out += b_arr.astype(ct, copy=False)[:, None]
        k = len(out_sp)
        return out.reshape((o, n) + tuple(out_sp)).transpose(tuple(range(1, k + 2)) + (0,))
    if groups == c and xp is np and x_arr.dtype == ct and ct in _DEPTHWISE_DTYPES \
            and not (channels_last and ct == np.float64):
        return _depthwise_as_pytorch(x_arr, w_arr, b_arr, meta, channels_last)
    cols = _columns(xp, x_arr, meta)  # (M, kh, kw, C)
    # Matmuls on C-contiguous operands (NumPy hands those to BLAS): one product batched
    # over the groups.
    if groups == c:  # depthwise: one input channel per group, no gather needed
        out = xp.einsum("mkg,gok->mgo", cols.reshape(cols.shape[0], -1, c),
                        _grouped_weight(xp, w_arr, groups, ct)).reshape(cols.shape[0], o)
    else:
        out = xp.matmul(_grouped_cols(xp, cols, groups),
                        _grouped_weight(xp, w_arr, groups, ct).transpose(0, 2, 1).copy())
        out = out.transpose(1, 0, 2).reshape(cols.shape[0], o)
    if b_arr is not None:
        out += b_arr.astype(ct, copy=False)
    return out.reshape((n,) + tuple(out_sp) + (o,))


_DEPTHWISE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _depthwise_as_pytorch(x_arr, w_arr, b_arr, meta, channels_last):
    """The (N, *out, O) output of a depthwise convolution (``groups`` = channels, O a
    multiple of them) of host float32 or float64 arrays, with PyTorch's bits: its CPU
    kernels start each output at the bias (oneDNN's float32 kernel adds it last for a
    channel multiplier, a channels-last output or three spatial dims) and add the kernel
    offsets' products in row-major order of the offsets (a float64 channels-last one sums in
    another order and is left to the einsum). In float32 (oneDNN's kernel) each step is a
    fused multiply-add (one rounding): here the product is exact in float64 and the sum is
    rounded once to float64, then to float32, which is the fused result unless the exact
    sum lies within 2^-29 of a float32 rounding boundary (not once in the tests' outputs).
    In float64 each step rounds the product, then the sum. (About 10% slower than the
    einsum, which matched PyTorch on about half of the float32 outputs.)"""
    pads, kernel, stride, dilation, _, out_sp, ct = meta
    n, c = x_arr.shape[:2]
    o = w_arr.shape[0]
    mult = o // c
    bias_last = b_arr is not None and ct == np.float32 and (
        mult > 1 or channels_last or len(out_sp) == 3)
    bias = None if b_arr is None or bias_last else b_arr.reshape(c, mult).astype(np.float64)
    steps = _depthwise_steps(_padded_nhwc(np, x_arr, pads, ct),
                             w_arr.reshape(c, mult, -1).astype(np.float64), bias, meta)
    acc = product = None
    for k, (window, weight, start) in enumerate(steps):
        if k == 0:
            product = np.multiply(window, weight, dtype=np.float64)
            acc = np.empty(product.shape, ct)
            if start is None:
                acc[...] = product
            else:
                np.add(product, start, out=acc, casting="same_kind")
            continue
        np.multiply(window, weight, out=product)
        np.add(acc, product, out=acc, casting="same_kind")
    out = acc.reshape((n,) + tuple(out_sp) + (o,))
    if bias_last:
        out += b_arr
    return out


def _depthwise_steps(xh, weight, bias, meta):
    """``_depthwise_as_pytorch``'s operands, one ``(window, weight, start)`` per kernel
    offset in row-major order (``start``: what the first step adds, the bias or None), for
    the padded channels-last input ``xh`` and the float64 ``weight`` (C, mult, offsets):
    shaped (N, *out, C, mult). With one channel per group and unit stride along the last
    dim, each window is instead rows of (last output dim x channels) contiguous elements of
    the input, the weight and bias repeated to match (a faster loop than channel-long
    rows; the same products)."""
    _, kernel, stride, dilation, _, out_sp, _ = meta
    c, mult = weight.shape[:2]
    offsets_all = list(itertools.product(*(range(s) for s in kernel)))
    if mult == 1 and stride[-1] == 1:
        rows = np.ascontiguousarray(xh).reshape(xh.shape[:-2] + (-1,))
        width = out_sp[-1] * c
        repeated = np.tile(weight[:, 0, :].T, (1, out_sp[-1]))   # (offsets, width)
        start = None if bias is None else np.tile(bias[:, 0], out_sp[-1])
        for k, offs in enumerate(offsets_all):
            last = offs[-1] * dilation[-1] * c
            key = (slice(None),) + tuple(
                slice(i * d, i * d + s * (q - 1) + 1, s) for i, d, s, q in
                zip(offs[:-1], dilation[:-1], stride[:-1], out_sp[:-1], strict=True)) \
                + (slice(last, last + width),)
            yield rows[key], repeated[k], start
        return
    windows = _windows(np, xh, out_sp, kernel, stride, dilation)
    lead = (slice(None),) * (1 + len(out_sp))
    for k, offs in enumerate(offsets_all):
        yield windows[lead + offs][..., None], weight[:, :, k], bias


def _conv_backward_arrays(xp, g_arr, x_arr, w_arr, x_shape, meta, need_x, need_w, need_b):
    """Raw-array gradients of the convolution (channels-first arrays, compute dtype): the
    input's (N, C, *spatial), the weight's (O, C/groups, *kernel) and the bias's (O,), None
    where not needed. ``x_arr`` is read only for the weight's gradient, ``w_arr`` only for
    the input's."""
    pads, kernel, stride, dilation, groups, out_sp, ct = meta
    k = len(kernel)
    n, c = x_shape[:2]
    o = g_arr.shape[1]
    og, cg = o // groups, c // groups
    m = n * math.prod(out_sp)
    if groups == 1:
        # The gradient as (O, M) rows (a copy of whole rows of the channels-first array),
        # so the input's gradient columns come out as (K*C, M) rows: each kernel offset's
        # block contiguous, and col2im's strided adds run over whole rows of the input.
        gt = xp.ascontiguousarray(g_arr.transpose((1, 0) + tuple(range(2, k + 2))),
                                  dtype=ct).reshape(o, m)
        gw = dx = gb = None
        if need_w:
            # (as (columns @ g^T)^T: BLAS takes the long inner dim better this way round)
            gw = xp.matmul(_columns_t(xp, x_arr, meta), gt.T).T
            gw = gw.reshape((o,) + tuple(kernel) + (c,)).transpose(_to_first(k))
        if need_x:
            dx = _input_grad_by_correlation(xp, g_arr, w_arr, x_shape, meta)
            if dx is None:
                rows_t = _weight_rows(xp, w_arr, 0, o, ct).T   # (K*C, O)
                p = math.prod(out_sp)
                chunks = _sample_chunks(xp, n, rows_t.shape[0], o, p, rows_t.shape[0] * p)
                if chunks is None:
                    dcols = xp.matmul(rows_t, gt)   # (K*C, M)
                    dx = _col2im(xp, dcols.reshape((-1, c, n) + tuple(out_sp)), x_shape,
                                 meta, True)
                else:   # by sample ranges (the same bits, see _sample_chunks)
                    dx = xp.empty(tuple(x_shape), dtype=ct)
                    for n0, n1 in chunks:
                        dcols = xp.matmul(rows_t, gt[:, n0 * p:n1 * p])
                        size = n1 - n0
                        dx[n0:n1] = _col2im(xp, dcols.reshape((-1, c, size) + tuple(out_sp)),
                                            (size, c) + tuple(x_shape[2:]), meta, True)
        if need_b:
            gb = gt.sum(axis=1)
        return dx, gw, gb
    gm = xp.ascontiguousarray(g_arr.transpose(_to_last(k)), dtype=ct).reshape(m, o)
    dx = gw = gb = None
    if need_w:
        cols = _columns(xp, x_arr, meta)
        if groups == c:
            gw = xp.einsum("mgo,mkg->gok", gm.reshape(m, groups, og), cols.reshape(m, -1, c))
        else:
            gmt = xp.ascontiguousarray(gm.reshape(m, groups, og).transpose(1, 2, 0))
            gw = xp.matmul(gmt, _grouped_cols(xp, cols, groups))
        gw = gw.reshape((o,) + tuple(kernel) + (cg,)).transpose(_to_first(k))
    if need_x:
        if groups == c:
            dcols = xp.einsum("mgo,gok->mkg", gm.reshape(m, groups, og),
                              _grouped_weight(xp, w_arr, groups, ct))
        else:
            gmg = xp.ascontiguousarray(gm.reshape(m, groups, og).transpose(1, 0, 2))
            dcols = xp.matmul(gmg, _grouped_weight(xp, w_arr, groups, ct))  # (g, M, K*Cg)
            dcols = dcols.reshape(groups, m, -1, cg).transpose(1, 2, 0, 3)
        dcols = dcols.reshape((n,) + tuple(out_sp) + tuple(kernel) + (c,))
        lead = (slice(None),) * (k + 1)
        dcols = [dcols[lead + offs] for offs in itertools.product(*(range(q) for q in kernel))]
        dx = _col2im(xp, dcols, x_shape, meta, False)
    if need_b:
        gb = gm.sum(axis=0)
    return dx, gw, gb


def _input_grad_by_correlation(xp, g_arr, w_arr, x_shape, meta):
    """The input's gradient of a stride-1 convolution (groups 1) as a convolution itself:
    the output gradient, padded by the kernel's reach less the forward padding on each
    side, correlated with the kernel flipped in space and with its two channel axes swapped
    (the same dilation). One column build and one product, where ``_col2im`` adds a strided
    block per kernel offset. An (N, C, *spatial) view; None for strides other than 1, a
    padding beyond the kernel's reach or fewer input channels than output channels
    (``_col2im`` then)."""
    pads, kernel, stride, dilation, _, _, ct = meta
    n, c = x_shape[:2]
    if any(s != 1 for s in stride) or c < g_arr.shape[1]:
        return None   # (fewer input channels than output ones: col2im's product is smaller)
    grad_pads = []
    for (a, b), q, d in zip(pads, kernel, dilation, strict=True):
        reach = (q - 1) * d
        if a > reach or b > reach:
            return None
        grad_pads.append((reach - a, reach - b))
    k = len(kernel)
    spatial = tuple(x_shape[2:])
    flipped = w_arr[(slice(None), slice(None)) + (slice(None, None, -1),) * k]
    rows = _weight_rows(xp, flipped.swapaxes(0, 1), 0, c, ct)   # (C, K*O)
    g_meta = (tuple(grad_pads), kernel, (1,) * k, dilation, 1, spatial, ct)
    chunks = _sample_chunks(xp, n, c, rows.shape[1], math.prod(spatial))
    if chunks is not None:   # by sample ranges (the same bits, see _sample_chunks)
        return _chunked_product(xp, rows, g_arr, g_meta, chunks, False).transpose(_to_first(k))
    cols = _columns_t(xp, g_arr, g_meta)
    dx = xp.matmul(rows, cols)   # (C, N * prod(spatial))
    return dx.reshape((c, n) + spatial).transpose((1, 0) + tuple(range(2, k + 2)))


def _col2im(xp, per_offset, x_shape, meta, channels_first):
    """The input's gradient (an (N, C, *spatial) view) from the gradient columns of each
    kernel offset (``per_offset[i]``, offsets in row-major order), one strided add per
    offset into the zero-padded input: blocks (C, N, *out) when ``channels_first``, else
    (N, *out, C)."""
    pads, kernel, stride, dilation = meta[:4]
    k = len(kernel)
    n, c = x_shape[:2]
    sizes = tuple(x_shape[2:])
    padded = tuple(s + a + b for s, (a, b) in zip(sizes, pads, strict=True))
    dxp = xp.zeros(((c, n) + padded) if channels_first else ((n,) + padded + (c,)),
                   dtype=meta[6])
    out_sp = meta[5]
    for i, offs in enumerate(itertools.product(*(range(q) for q in kernel))):
        window = _window(offs, dilation, stride, out_sp)   # (Ellipsis, *spatial slices)
        dxp[window if channels_first else (slice(None),) + window[1:]] += per_offset[i]
    if channels_first:
        return dxp[(Ellipsis,) + _spatial(pads, sizes)].transpose((1, 0) + tuple(range(2, k + 2)))
    return dxp[_inner(pads, sizes)].transpose(_to_first(k))


def _wrap_nchw(xp, arr, like, squeeze):
    """The channels-first array ``arr`` as a contiguous tensor of ``like``'s dtype and device
    (conv1d: without its height of 1)."""
    if squeeze:
        arr = arr[:, :, 0, :]
    return _wrap(xp.ascontiguousarray(arr), like._dtype, like.device)


def _creates_graph(*tensors):
    """Whether a backward runs under ``create_graph=True`` with something to differentiate
    again: then its gradient is a Function of its own (double backward works), else the
    raw-array kernel runs. Under a function transform it is always a Function: the raw
    kernel would read one sample of a cotangent batched by ``vmap`` (``jacrev``), while the
    Function's call reaches the vmap level."""
    return grad_mode.enabled and (
        transforms.active > 0 or any(t is not None and t._requires_grad for t in tensors)
    )


def _zeros_like_input(ctx, i):
    """Zeros shaped like the ``i``-th tensor argument of the Function whose node is ``ctx``
    (the derivative of a pooling or padding gradient in that op's input, as in PyTorch)."""
    shape, dtype, device = ctx._input_meta[i]
    return J.zeros(shape, dtype=dtype, device=device)


class _Convolution(_function.Function):
    _edge_positions = (0, 1, 2)   # input, weight, bias (a (None, 0) edge when absent)

    @staticmethod
    def forward(ctx, input, weight, bias, meta, squeeze, batched, channels_last):
        ctx.meta = meta
        ctx.shape_info = (squeeze, batched)
        ctx.save_for_backward(input, weight)
        ctx.has_bias = bias is not None
        if input.device.type == "meta":
            # Shapes only, as PyTorch's meta kernel: nothing to convolve, so no columns of a
            # possibly huge input are made (the "reasoning about shapes" recipe).
            shape = [input.shape[0], weight.shape[0], *meta[5]]
            if squeeze:  # conv1d ran as a 2-d convolution of height 1
                del shape[2]
            # contiguous even for channels_last operands: PyTorch's meta kernel (2.13) does
            # not follow their layout, where its CPU kernel does
            return J.empty(shape, dtype=input.dtype, device="meta")
        xp = _xp(input)
        x_arr = _as4d(input._array(), squeeze)
        w_arr = _as4d(weight._array(), squeeze)
        out = _conv_forward_array(xp, x_arr, w_arr, None if bias is None else bias._array(),
                                  meta, channels_last and not squeeze)
        if channels_last and not squeeze:
            return _wrap_channels_last(xp, out, input._dtype, input.device)
        out = out.transpose(_to_first(out.ndim - 2))
        if squeeze:
            out = out[:, :, 0, :]
        return _wrap(xp.ascontiguousarray(out), input._dtype, input.device)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        squeeze = ctx.shape_info[0]
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        need_b = need_b and ctx.has_bias
        if _creates_graph(grad, input, weight):
            # create_graph: the gradients are themselves a differentiable op of (grad,
            # input, weight), as PyTorch's ConvolutionBackwardBackward0.
            gx, gw, gb = _ConvolutionBackward.apply(grad, input, weight, ctx.meta, squeeze,
                                                    need_x, need_w, need_b)
            return gx, gw, gb, None, None, None, None
        xp = _xp(input)
        x_arr = _as4d(input._array(), squeeze)
        dx, gw, gb = _conv_backward_arrays(
            xp, _as4d(grad._array(), squeeze), x_arr, _as4d(weight._array(), squeeze),
            x_arr.shape, ctx.meta, need_x, need_w, need_b)
        return (None if dx is None else _wrap_nchw(xp, dx, input, squeeze),
                None if gw is None else _wrap_nchw(xp, gw, weight, squeeze),
                None if gb is None else _wrap(gb, input._dtype, input.device),
                None, None, None, None)


_name_node(_Convolution, "ConvolutionBackward0")


class _ConvolutionBackward(_function.Function):
    """The convolution's gradients ``(grad_input, grad_weight, grad_bias)`` as an op of
    ``(grad, input, weight)``, for ``create_graph=True``: the forward is the raw-array
    backward; its own backward uses that grad_input is bilinear in (grad, weight),
    grad_weight in (input, grad) and grad_bias linear in grad, so every derivative is a
    convolution or a convolution gradient again (PyTorch's ``_convolution_double_backward``),
    to any order."""

    @staticmethod
    def forward(ctx, grad, input, weight, meta, squeeze, need_x, need_w, need_b):
        xp = _xp(grad)
        x_arr = _as4d(input._array(), squeeze)
        dx, gw, gb = _conv_backward_arrays(
            xp, _as4d(grad._array(), squeeze), x_arr, _as4d(weight._array(), squeeze),
            x_arr.shape, meta, need_x, need_w, need_b)
        ctx.meta, ctx.squeeze = meta, squeeze
        ctx.save_for_backward(grad, input, weight)
        ctx.set_materialize_grads(False)
        return (None if dx is None else _wrap_nchw(xp, dx, input, squeeze),
                None if gw is None else _wrap_nchw(xp, gw, weight, squeeze),
                None if gb is None else _wrap(gb, input._dtype, input.device))

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        grad, input, weight = ctx.saved_tensors
        meta, squeeze = ctx.meta, ctx.squeeze
        need_g, need_x, need_w = ctx.needs_input_grad[:3]
        g_grad = g_input = g_weight = None
        if need_g:
            terms = []
            if ggx is not None:
                terms.append(_Convolution.apply(ggx, weight, None, meta, squeeze, True, False))
            if ggw is not None:
                terms.append(_Convolution.apply(input, ggw, None, meta, squeeze, True, False))
            if ggb is not None:
                terms.append(ggb.view((1, -1) + (1,) * (grad.dim() - 2)))
            for t in terms:
                g_grad = t if g_grad is None else g_grad + t
            if g_grad is not None and tuple(g_grad.shape) != tuple(grad.shape):
                g_grad = g_grad.expand(grad.shape)  # only the bias term: broadcast
        if need_x and ggw is not None:  # grad_input's formula, with ggw as the weight
            g_input = _ConvolutionBackward.apply(grad, input, ggw, meta, squeeze,
                                                 True, False, False)[0]
        if need_w and ggx is not None:  # grad_weight's formula, with ggx as the input
            g_weight = _ConvolutionBackward.apply(grad, ggx, weight, meta, squeeze,
                                                  False, True, False)[1]
        return g_grad, g_input, g_weight, None, None, None, None, None


_name_node(_ConvolutionBackward, "ConvolutionBackwardBackward0")


def _check_and_run(input, weight, bias, stride, padding, dilation, groups, nd):
    name = f"conv{nd}d"
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"{name}() argument 'input' (position 1) must be Tensor, not "
                              f"{type_name(input)}")
    if not isinstance(weight, Tensor):
        raise TensorTypeError(f"{name}() argument 'weight' (position 2) must be Tensor, not "
                              f"{type_name(weight)}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TensorTypeError(f"{name}() argument 'bias' (position 3) must be Tensor, not "
                              f"{type_name(bias)}")
    dim = input.dim()
    if dim not in (nd + 1, nd + 2):
        raise TensorRuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input._shape)}")
    if weight.dim() != nd + 2:
        raise TensorRuntimeError(
            f"weight should have at least three dimensions and be {nd + 2}-D for {name}, but "
            f"got weight of size {list(weight._shape)}")
    # (PyTorch's CPU kernel compares the bias first, then the weight, in these words)
    if bias is not None and bias._dtype != input._dtype:
        raise TensorRuntimeError(f"Input type ({c_name(input._dtype)}) and bias type "
                                 f"({c_name(bias._dtype)}) should be the same")
    if input._dtype != weight._dtype:
        raise TensorRuntimeError(f"expected scalar type {input._dtype._torch_name} but found "
                                 f"{weight._dtype._torch_name}")
    if not input._dtype.is_floating_point:
        raise TensorRuntimeError(f"{name}: expected a floating-point input, got {input.dtype}; "
                                 f"convert it with .float()")
    if input.device != weight.device:
        raise TensorRuntimeError(f"Input ({input.device}) and weight ({weight.device}) must be "
                                 f"on the same device")
    batched = dim == nd + 2
    if not batched:  # PyTorch adds the batch dim and squeezes it (SqueezeBackward1)
        return _check_and_run(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                              groups, nd).squeeze(0)
    groups = int(groups)
    if groups <= 0:
        raise TensorRuntimeError("non-positive groups is not supported")
    stride = _pair(stride, "stride", nd)
    dilation = _pair(dilation, "dilation", nd)
    if any(s <= 0 for s in stride):
        raise TensorRuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise TensorRuntimeError("dilation should be greater than zero")
    shape = tuple(input._shape) if batched else (1,) + tuple(input._shape)
    wshape = tuple(weight._shape)
    kernel = wshape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise TensorRuntimeError(
                    "padding='same' is not supported for strided convolutions")
            pads = []
            for k, d in zip(kernel, dilation, strict=True):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            pads = tuple(pads)
            if any(a != b for a, b in pads):
                # PyTorch's _convolution_mode: one more on the right as a zero-padded copy
                # of the input (ConstantPadNdBackward0), then symmetric padding.
                warn_once("conv-same-asymmetric",
                          "Using padding='same' with even kernel lengths and odd dilation may "
                          "require a zero-padded copy of the input be created",
                          stacklevel=user_stacklevel() + 1)
                extra = []
                for a, b in reversed(pads):
                    extra += [0, b - a]
                from .padding import pad   # (padding.py imports this module)

                input = pad(input, extra, mode="constant", value=0.0)
                shape = tuple(input._shape)
                pads = tuple((a, a) for a, _ in pads)
        else:
            raise TensorRuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _pair(padding, "padding", nd)
        if any(v < 0 for v in p):
            raise TensorRuntimeError("negative padding is not supported")
        pads = tuple((v, v) for v in p)
    if wshape[0] % groups:
        raise TensorRuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size {list(wshape)} instead")
    if shape[1] != wshape[1] * groups:
        raise TensorRuntimeError(
            f"Given groups={groups}, weight of size {list(wshape)}, expected input"
            f"{list(input._shape)} to have {wshape[1] * groups} channels, but got {shape[1]} "
            f"channels instead")
    if bias is not None and (bias.dim() != 1 or bias._shape[0] != wshape[0]):
        raise TensorRuntimeError(
            f"Given weight of size {list(wshape)}, expected bias to be 1-dimensional with "
            f"{wshape[0]} elements, but got bias of size {list(bias._shape)} instead")
    spatial = shape[2:]
    padded = [s + a + b for s, (a, b) in zip(spatial, pads, strict=True)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    if any(p < e for p, e in zip(padded, eff, strict=True)):
        dims = " x ".join(str(p) for p in padded)
        raise TensorRuntimeError(
            f"Calculated padded input size per channel: ({dims}). Kernel size: "
            f"({' x '.join(str(e) for e in eff)}). Kernel size can't be greater than actual "
            f"input size")
    out = tuple((p - e) // s + 1 for p, e, s in zip(padded, eff, stride, strict=True))
    if nd == 1:  # conv1d runs as a 2-d convolution of height 1
        pads = ((0, 0),) + pads
        kernel = (1,) + tuple(kernel)
        stride = (1,) + stride
        dilation = (1,) + dilation
        out = (1,) + out
    channels_last = nd >= 2 and any(
        suggests_channels_last(t._shape, t._stride) for t in (input, weight))
    ct = _compute_dtype(input)
    meta = (pads, tuple(kernel), stride, dilation, groups, out, ct)
    return _Convolution.apply(input, weight, bias, meta, nd == 1, batched, channels_last)


@nn_op(function=True)  # also torch.conv2d
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation) of ``input`` ``(N, C, H, W)`` or ``(C, H, W)``
    with ``weight`` ``(O, C/groups, kh, kw)``, as ``torch.nn.functional.conv2d``.

    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as large as the
    input; stride 1 only; an odd total is padded one more on the right/bottom). The output is
    ``channels_last`` when the input or the weight is.

    >>> import jtensor as torch
    >>> torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 2, 2])
    """
    return _check_and_run(input, weight, bias, stride, padding, dilation, groups, 2)


@nn_op(function=True)  # also torch.conv3d
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of ``input`` ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with ``weight``
    ``(O, C/groups, kd, kh, kw)``, as ``torch.nn.functional.conv3d`` (same options as
    ``conv2d``; the output is ``channels_last_3d`` when the input or the weight is).

    >>> import jtensor as torch
    >>> torch.nn.functional.conv3d(torch.ones(1, 1, 3, 3, 3), torch.ones(1, 1, 2, 2, 2)).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    return _check_and_run(input, weight, bias, stride, padding, dilation, groups, 3)


@nn_op(function=True)  # also torch.conv1d
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution of ``input`` ``(N, C, L)`` or ``(C, L)`` with ``weight``
    ``(O, C/groups, k)``, as ``torch.nn.functional.conv1d`` (same options as ``conv2d``).

    >>> import jtensor as torch
    >>> torch.nn.functional.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 3)).shape
    torch.Size([1, 1, 3])
    """
    return _check_and_run(input, weight, bias, stride, padding, dilation, groups, 1)
