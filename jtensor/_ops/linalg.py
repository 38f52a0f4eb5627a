"""``torch.linalg``: norms, determinants, inverses, solvers, decompositions (QR, Cholesky,
eigh, SVD), rank, pseudo-inverse, matrix powers, ``multi_dot``, ``vecdot`` and ``cross``.

Registered as ``linalg_<name>`` with neither method nor top-level function; the public
names live in ``jtensor.linalg``. ``det``, ``logdet``, ``slogdet`` and ``inverse`` are also
top-level functions and Tensor methods, as in PyTorch. Results computed by LAPACK in
PyTorch come back column-major (``stride(-2) == 1``); so do ours, so strides agree.
"""

import builtins
import math

import numpy as np

from .._arraymod import multi_dot
from .. import _dtypes, return_types
from .._C import _LinAlgError
from .._dispatch import check_same_device
from .._errors import (
    TensorIndexError,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorTypeError,
    wrap_dim,
    type_name,
    user_stacklevel,
)
from .._layout import broadcast_shapes
from .._out import resize_output
from .._registry import register
from .._tensor import Tensor
from .reductions import _vector_norm, check_norm_dtype, check_out, quiet, wrap_result, write_out

_FLOAT_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def _xp(t):
    return t._storage._backend.xp


def _check_tensor(name, x, arg="A"):
    if not isinstance(x, Tensor):
        raise TensorTypeError(f"{name}(): argument '{arg}' must be Tensor, not "
                              f"{type_name(x)}")


def _check_float(name, t, half=False):
    ok = _FLOAT_TYPES + ((_dtypes.float16, _dtypes.bfloat16) if half else ())
    if t._dtype not in ok:
        raise TensorRuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{t._dtype._torch_name}")


def _check_matrix(name, t, square=True):
    if t.dim() < 2:
        raise TensorRuntimeError(
            f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and t._shape[-1] != t._shape[-2]:
        raise TensorRuntimeError(
            f"{name}: A must be batches of square matrices, but they are {t._shape[-2]} by "
            f"{t._shape[-1]} matrices")


def _colmajor(xp, array, dtype, device):
    """A tensor holding ``array`` with each matrix stored column by column (LAPACK layout)."""
    array = xp.asarray(array)
    if array.ndim < 2:
        return wrap_result(xp, array, dtype, device)
    shape = tuple(array.shape)
    swapped = xp.ascontiguousarray(xp.swapaxes(array, -1, -2))
    if swapped.dtype != dtype.numpy:
        swapped = swapped.astype(dtype.numpy)
    t = Tensor._from_array(swapped, dtype, device)
    rows, cols = shape[-2], shape[-1]
    batch = []
    step = rows * cols
    for size in reversed(shape[:-2]):
        batch.append(step)
        step *= size
    t._set_metadata(shape, tuple(reversed(batch)) + (1, builtins.max(rows, 1)), 0)
    return t


# PyTorch's class is ``torch._C._LinAlgError``; tracebacks and ``type(e).__name__`` show
# that name.
LinAlgError = _LinAlgError


def _is_numpy_linalg_error(exc):
    return type(exc).__name__ == "LinAlgError" and not isinstance(exc, TensorRuntimeError)


def _named(name, fields, values):
    """``torch.return_types.<name>(values)``: the type is made once and kept in
    ``jtensor.return_types`` under its name, so results pickle as PyTorch's do."""
    kind = getattr(return_types, name, None)
    if kind is None:
        kind = return_types.return_type(name, fields)
        setattr(return_types, name, kind)
    return kind(tuple(values))


def _linalg_call(name, fn, *args, **kwargs):
    """Run an ``xp.linalg`` routine whose failures were ruled out by the caller's checks; a
    LinAlgError of the backend still never reaches the user: it becomes PyTorch's."""
    try:
        with quiet():
            return fn(*args, **kwargs)
    except Exception as exc:
        if _is_numpy_linalg_error(exc):
            raise LinAlgError(f"{name}: {exc}") from None
        raise


def _batch_error(name, info, batched, message, cls=None):
    """Raise PyTorch's error for the first batch element whose LAPACK ``info`` is not 0:
    ``"<name>: (Batch element i): <message(info)>"`` (no batch part for a single matrix)."""
    flat = info.reshape(-1)
    bad = [i for i, v in enumerate(flat.tolist()) if v != 0]
    if not bad:
        return
    i = bad[0]
    where = f"(Batch element {i}): " if batched else ""
    raise (cls or LinAlgError)(f"{name}: {where}{message(int(flat[i]))}")


def _flat_batch(xp, a):
    """``a`` (..., m, n) as a (B, m, n) copy the kernels may write into."""
    return xp.array(a.reshape((-1,) + tuple(a.shape[-2:])), copy=True)


def _abs1(xp, a):
    """LAPACK's pivot measure (``i?amax``): ``|re| + |im|`` (``|x|`` for real values), with
    NaN ranked below every number, as the reference loop (``if |x| > max``) never picks a NaN
    after the first entry."""
    mag = xp.abs(a.real) + xp.abs(a.imag) if xp.iscomplexobj(a) else xp.abs(a)
    return xp.where(xp.isnan(mag), -1.0, mag)


def _lu_kernel(xp, a):
    """Batched LU with partial pivoting (LAPACK ``getrf``): returns ``(LU, pivots, info)``
    for ``a`` of shape (..., m, n); pivots are 1-based int32 of shape (..., min(m, n)) and
    ``info`` is the 1-based index of the first exactly-zero pivot (0 when none). As LAPACK,
    a zero pivot is recorded and the elimination goes on without dividing by it, and NaN or
    Inf entries flow through the arithmetic (NaN results, never an error)."""
    batch = tuple(a.shape[:-2])
    m, n = a.shape[-2], a.shape[-1]
    k = builtins.min(m, n)
    w = _flat_batch(xp, a)
    nb = w.shape[0]
    piv = xp.empty((nb, k), dtype=xp.int32)
    info = xp.zeros((nb,), dtype=xp.int32)
    rows = xp.arange(nb)
    with quiet():
        for j in range(k):
            p = xp.argmax(_abs1(xp, w[:, j:, j]), axis=-1) + j if nb else xp.zeros(0, int)
            piv[:, j] = p + 1
            swap = p != j
            if bool(swap.any()):
                top = w[rows, j].copy()
                w[rows, j] = w[rows, p]
                w[rows, p] = top
            d = w[:, j, j]
            zero = d == 0
            info[:] = xp.where((info == 0) & zero, j + 1, info)
            if j + 1 < m:
                safe = xp.where(zero, 1, d)[:, None]
                w[:, j + 1:, j] = xp.where(zero[:, None], w[:, j + 1:, j],
                                           w[:, j + 1:, j] / safe)
                if j + 1 < n:
                    w[:, j + 1:, j + 1:] -= w[:, j + 1:, j:j + 1] * w[:, j:j + 1, j + 1:]
    return (w.reshape(batch + (m, n)), piv.reshape(batch + (k,)), info.reshape(batch))


def _permute_rows(xp, b, piv, inverse=False):
    """Apply LAPACK's row interchanges ``piv`` (1-based, (..., k)) to ``b`` (..., n, r), in
    order (``P^T b``, what ``getrs`` does first) or in reverse (``P b``)."""
    b = xp.array(b, copy=True)
    batch = tuple(b.shape[:-2])
    flat = b.reshape((-1,) + tuple(b.shape[-2:]))
    p = xp.broadcast_to(piv, batch + piv.shape[-1:]).reshape(-1, piv.shape[-1]) - 1
    rows = xp.arange(flat.shape[0])
    order = range(p.shape[-1] - 1, -1, -1) if inverse else range(p.shape[-1])
    for j in order:
        pj = p[:, j]
        top = flat[rows, j].copy()
        flat[rows, j] = flat[rows, pj]
        flat[rows, pj] = top
    return flat.reshape(b.shape)


def _tri_solve(xp, T, B, upper, unit=False):
    """``X`` with ``T @ X = B`` for triangular ``T`` (..., n, n) and ``B`` (..., n, k) whose
    batch dims broadcast, by substitution (LAPACK ``trsm``): only ``T``'s ``upper`` (or
    lower) triangle is read, and a zero on the diagonal gives Inf/NaN, never an error."""
    n = T.shape[-1]
    batch = tuple(broadcast_shapes(tuple(T.shape[:-2]), tuple(B.shape[:-2])))
    dtype = xp.result_type(T, B)
    X = xp.zeros(batch + (n, B.shape[-1]), dtype=dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    # trsm skips a solved entry that is exactly zero, so a NaN or Inf of T meeting it adds
    # nothing (a plain product would make 0 * NaN = NaN): the slower masked sum keeps that.
    masked = bool(_nonfinite(xp, T).any())
    with quiet():
        for i in order:
            done = slice(i + 1, n) if upper else slice(0, i)
            if masked:
                terms = T[..., i, done, None] * X[..., done, :]
                terms = xp.where(X[..., done, :] == 0, 0, terms)
                acc = B[..., i, :] - xp.sum(terms, axis=-2)
            else:
                acc = B[..., i, :] - xp.matmul(T[..., i:i + 1, done],
                                               X[..., done, :])[..., 0, :]
            X[..., i, :] = acc if unit else acc / T[..., i, i][..., None]
    return X


def _lu_solve_arrays(xp, LU, piv, B, adjoint=False):
    """Solve ``A X = B`` (``A^H X = B`` when ``adjoint``) from ``getrf``'s factors."""
    if not adjoint:
        Y = _tri_solve(xp, LU, _permute_rows(xp, B, piv), upper=False, unit=True)
        return _tri_solve(xp, LU, Y, upper=True)
    LUh = xp.conj(xp.swapaxes(LU, -1, -2))
    Y = _tri_solve(xp, LUh, B, upper=False)
    Z = _tri_solve(xp, LUh, Y, upper=True, unit=True)
    return _permute_rows(xp, Z, piv, inverse=True)


def _cholesky_kernel(xp, a):
    """Batched lower Cholesky (LAPACK ``potrf``) returning ``(L, info)``: ``info`` is the
    order of the first leading minor that is not positive-definite (a diagonal that is not
    > 0, NaN included); that element's factorization stops there and keeps the partly
    updated values, as LAPACK leaves them. Reads the lower triangle only."""
    batch = tuple(a.shape[:-2])
    n = a.shape[-1]
    w = _flat_batch(xp, a)
    info = xp.zeros((w.shape[0],), dtype=xp.int32)
    with quiet():
        for j in range(n):
            d = w[:, j, j].real if xp.iscomplexobj(w) else w[:, j, j]
            info[:] = xp.where((info == 0) & ~(d > 0), j + 1, info)
            go = info == 0
            s = xp.sqrt(xp.where(go, d, 1))
            w[:, j, j] = xp.where(go, s, w[:, j, j])
            if j + 1 < n:
                col = w[:, j + 1:, j] / s[:, None]
                w[:, j + 1:, j] = xp.where(go[:, None], col, w[:, j + 1:, j])
                upd = col[:, :, None] * xp.conj(col[:, None, :])
                w[:, j + 1:, j + 1:] -= xp.where(go[:, None, None], upd, 0)
    return xp.tril(w).reshape(batch + (n, n)), info.reshape(batch)


def _nonfinite(xp, a):
    """Per matrix of ``a`` (..., m, n): whether any entry is NaN or Inf."""
    with quiet():
        return ~xp.isfinite(a).all(axis=(-2, -1))


def _lapack_faithful(xp, a):
    """Whether ``xp.linalg`` gives LAPACK's (PyTorch's) answer for ``a``. NumPy's LAPACK
    does. cuSOLVER (CuPy) does not for a matrix holding NaN: its ``getrf``/``gesv`` and
    ``geqrf`` return finite numbers where LAPACK's NaN flows through, so there jtensor's
    own kernels run (the emulated device takes them too, which keeps them tested)."""
    if xp is np:
        return True
    with quiet():
        return not bool(xp.isnan(a).any())


def _geqrf_kernel(xp, a):
    """LAPACK's unblocked ``geqr2`` (``larfg``, then ``larf`` on the trailing columns) for
    ``a`` of shape (..., m, n): ``(h, tau)`` as ``geqrf`` leaves them (R on and above the
    diagonal, the Householder vectors below it). NaN flows through the arithmetic as in
    LAPACK, whose ``larf`` leaves alone the rows past the last nonzero of ``v``, the
    columns past the last nonzero one and (``ger``) each column whose ``v^H c`` is 0."""
    batch = tuple(a.shape[:-2])
    m, n = a.shape[-2], a.shape[-1]
    k = builtins.min(m, n)
    w = _flat_batch(xp, a)
    nb = w.shape[0]
    cplx = xp.iscomplexobj(w)
    real = w.real.dtype
    tau = xp.zeros((nb, k), dtype=w.dtype)
    with quiet():
        for j in range(k):
            alpha = w[:, j, j].copy()
            x = w[:, j + 1:, j]
            if x.shape[-1]:
                mag = xp.abs(x)
                big = xp.max(mag, axis=-1)  # NaN when one is NaN
                s = xp.where((big > 0) & xp.isfinite(big), big, 1)
                xnorm = s * xp.sqrt(xp.sum((mag / s[:, None]) ** 2, axis=-1))
            else:
                xnorm = xp.zeros((nb,), dtype=real)
            ar = alpha.real if cplx else alpha
            ai = alpha.imag if cplx else xp.zeros((nb,), dtype=real)
            keep = (xnorm == 0) & (ai == 0)  # H = I (tau = 0)
            # dlapy2/dlapy3 give NaN where an argument is NaN (hypot(inf, nan) is inf)
            norm = xp.hypot(xp.hypot(ar, ai), xnorm)
            norm = xp.where(xp.isnan(ar) | xp.isnan(ai) | xp.isnan(xnorm), xp.nan, norm)
            beta = -xp.copysign(norm, ar)
            t = (beta - ar) / beta
            if cplx:
                t = t + 1j * (-ai / beta)
            tau[:, j] = xp.where(keep, 0, t)
            w[:, j + 1:, j] = xp.where(keep[:, None], x, x * (1 / (alpha - beta))[:, None])
            w[:, j, j] = xp.where(keep, alpha, beta)
            if j + 1 >= n:
                continue
            v = xp.concatenate([xp.ones((nb, 1), dtype=w.dtype), w[:, j + 1:, j]], axis=1)
            w[:, j:, j + 1:] = _larf_left(xp, v, xp.conj(tau[:, j]), w[:, j:, j + 1:])
    return w.reshape(batch + (m, n)), tau.reshape(batch + (k,))


def _larf_left(xp, v, t, C):
    """LAPACK's ``larf`` from the left on a batch: ``C - t v (v^H C)`` for ``v`` (B, L),
    ``t`` (B,), ``C`` (B, L, c), leaving alone (as LAPACK, whatever NaN they would meet) the
    rows past the last nonzero of ``v``, the columns past the last one with a nonzero in
    those rows, each column whose ``v^H c`` is 0 (``ger`` skips it), and all when t is 0."""
    L, nc = v.shape[1], C.shape[2]
    lastv = L - 1 - xp.argmax((v != 0)[:, ::-1], axis=-1)
    rows = xp.arange(L)[None, :] <= lastv[:, None]
    nzc = ((C != 0) & rows[:, :, None]).any(axis=1)
    lastc = xp.where(nzc.any(axis=-1), nc - 1 - xp.argmax(nzc[:, ::-1], axis=-1), -1)
    cols = xp.arange(nc)[None, :] <= lastc[:, None]
    y = xp.sum(xp.where(rows[:, :, None], xp.conj(v)[:, :, None] * C, 0), axis=1)
    go = (t != 0)[:, None, None] & rows[:, :, None] & cols[:, None, :] & (y != 0)[:, None, :]
    return xp.where(go, C + v[:, :, None] * ((-t)[:, None] * y)[:, None, :], C)


def _org2r_kernel(xp, h, tau, cols):
    """LAPACK's unblocked ``org2r`` (``ung2r``): the first ``cols`` columns of
    ``H_1 ... H_k`` from ``geqrf``'s ``(h, tau)`` (``h`` (..., m, >= k), ``cols <= m``),
    built column by column as LAPACK does, so NaN spreads as far as there only."""
    batch = tuple(h.shape[:-2])
    m, k = h.shape[-2], tau.shape[-1]
    q = xp.zeros((h.reshape((-1,) + tuple(h.shape[-2:])).shape[0], m, cols), dtype=h.dtype)
    q[:, :, :k] = h.reshape((-1,) + tuple(h.shape[-2:]))[:, :, :k]
    t = tau.reshape(-1, k)
    for j in range(k, cols):
        q[:, j, j] = 1
    with quiet():
        for i in range(k - 1, -1, -1):
            if i + 1 < cols:
                v = xp.concatenate([xp.ones((q.shape[0], 1), dtype=q.dtype), q[:, i + 1:, i]],
                                   axis=1)
                q[:, i:, i + 1:] = _larf_left(xp, v, t[:, i], q[:, i:, i + 1:])
            q[:, i + 1:, i] *= -t[:, i, None]
            q[:, i, i] = 1 - t[:, i]
            q[:, :i, i] = 0
    return q.reshape(batch + (m, cols))


def _qr_arrays(name, xp, a, mode):
    """``xp.linalg.qr(a, mode)`` ('r', 'reduced' or 'complete'; (Q, R) or R alone), from
    ``_geqrf_kernel`` where the backend would not propagate a NaN as LAPACK does."""
    if _lapack_faithful(xp, a):
        return _linalg_call(name, xp.linalg.qr, a, mode=mode)
    m, n = a.shape[-2], a.shape[-1]
    k = builtins.min(m, n)
    h, tau = _geqrf_kernel(xp, a)
    R = xp.triu(h if mode == "complete" else h[..., :k, :])
    if mode == "r":
        return R
    return _org2r_kernel(xp, h, tau, k if mode == "reduced" else m), R


def _eigh_arrays(name, xp, a, UPLO="L", vectors=True):
    """``xp.linalg.eigh`` (``eigvalsh`` unless ``vectors``) with LAPACK's outcome for a
    matrix holding NaN or Inf in the triangle it reads: NaN eigenvalues and eigenvectors,
    no error. NumPy's LAPACK gives those itself; cuSOLVER's ``syevd`` reports the matrix
    through ``devInfo`` (which CuPy raises), so there it gets a zero matrix instead and
    its results are replaced by NaN."""
    fn = xp.linalg.eigh if vectors else xp.linalg.eigvalsh
    if xp is np:
        return _linalg_call(name, fn, a, UPLO=UPLO)
    off = xp.tril(a, -1) if UPLO == "L" else xp.triu(a, 1)
    with quiet():  # LAPACK reads the real part of the diagonal only
        bad = ~(xp.isfinite(off).all(axis=(-2, -1))
                & xp.isfinite(a.diagonal(0, -2, -1).real).all(axis=-1))
    if not bool(bad.any()):
        return _linalg_call(name, fn, a, UPLO=UPLO)
    res = _linalg_call(name, fn, xp.where(bad[..., None, None], 0, a), UPLO=UPLO)
    if not vectors:
        return xp.where(bad[..., None], xp.nan, res).astype(res.dtype, copy=False)
    w, v = res
    return (xp.where(bad[..., None], xp.nan, w).astype(w.dtype, copy=False),
            xp.where(bad[..., None, None], xp.nan, v).astype(v.dtype, copy=False))


def _check_svd_input(xp, a, batched):
    """PyTorch's SVD (``gesdd``) fails to converge on a NaN and says so; Inf gives NaN."""
    with quiet():
        has_nan = xp.isnan(a).any(axis=(-2, -1))
    _batch_error("linalg.svd", has_nan.astype(xp.int32), batched,
                 lambda _: "The algorithm failed to converge because the input matrix "
                 "contained non-finite values.")


def _backend_svd(xp, a, **kwargs):
    """``xp.linalg.svd``. CuPy factors a batch of small matrices with cuSOLVER's batched
    Jacobi ``gesvdj`` but one matrix with ``gesvd``, which pick other signs for the singular
    vectors (and another basis of a null space); there one matrix is factored as a batch of
    one, so a matrix gets the same factors alone as in a batch (``vmap`` as the loop)."""
    if xp is np or a.ndim != 2:
        return xp.linalg.svd(a, **kwargs)
    res = xp.linalg.svd(a[None], **kwargs)
    return tuple(r[0] for r in res) if isinstance(res, tuple) else res[0]


def _svd_call(xp, a, **kwargs):
    """``xp.linalg.svd`` with PyTorch's outcome on non-finite input: an error for NaN
    (checked first), NaN factors for a matrix holding Inf (the backend may not converge;
    cuSOLVER's ``gesvdj`` returns finite vectors there, so on CuPy Inf goes that way)."""
    _check_svd_input(xp, a, a.ndim > 2)
    if xp is np or not bool(_nonfinite(xp, a).any()):
        try:
            with quiet():
                return _backend_svd(xp, a, **kwargs)
        except Exception as exc:
            if not _is_numpy_linalg_error(exc):
                raise
    # Only Inf can get here: give the matrices holding it NaN factors, the others theirs.
    bad = _nonfinite(xp, a)
    clean = xp.where(bad[..., None, None], 0, a)
    with quiet():
        res = _backend_svd(xp, clean, **kwargs)
    if not isinstance(res, tuple):
        return xp.where(bad[..., None], xp.nan, res)
    u, s, vh = res
    return (xp.where(bad[..., None, None], xp.nan, u), xp.where(bad[..., None], xp.nan, s),
            xp.where(bad[..., None, None], xp.nan, vh))


# ---------------------------------------------------------------------- norms
def _dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(wrap_dim(d, builtins.max(ndim, 1)) for d in dim)


def _norm_dtype(name, x, dtype):
    _check_float(name, x, half=True)
    if dtype is not None:
        dtype = _dtypes.to_dtype(dtype)
        check_norm_dtype(name, x._dtype, dtype)  # PyTorch only widens (no float64 -> 32)
        work = dtype
    else:
        work = x._dtype
    return work, work.to_real()


def _work_array(x, work):
    a = x._array()
    np_work = (_dtypes.float32 if work in (_dtypes.float16, _dtypes.bfloat16) else work).numpy
    return a if a.dtype == np_work else a.astype(np_work)


@register("reduction", name="linalg_vector_norm", method=False, function=False)
def linalg_vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ``ord``-norm of ``x`` over ``dim`` (all dims by default) as a real tensor."""
    x = input
    _check_tensor("linalg_vector_norm", x, "input")
    if not isinstance(ord, (int, float)) or isinstance(ord, bool):
        raise TensorTypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                              f"{type_name(ord)}")
    work, out_dtype = _norm_dtype("linalg.vector_norm", x, dtype)
    axes = _dims(dim, x.dim())
    if x.dim() == 0:
        axes = None
    reduces_empty = axes is None or builtins.any(x._shape[d] == 0 for d in axes)
    if x.numel() == 0 and (ord < 0 or ord == math.inf) and reduces_empty:
        raise TensorRuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
                "the operation does not have an identity")
    xp = _xp(x)
    r = _vector_norm(xp, _work_array(x, work), ord, axes, keepdim)
    return _finish_out(out, wrap_result(xp, r, out_dtype, x.device), "linalg_vector_norm")


def _matrix_norm_array(name, xp, a, ord, dims, keepdim):
    """``a``'s matrix norm over ``dims`` (already wrapped)."""
    d0, d1 = dims
    m = xp.moveaxis(a, (d0, d1), (-2, -1))
    with quiet():
        if ord == "fro":
            r = xp.sqrt(xp.sum(xp.abs(m) ** 2, axis=(-2, -1)))
        elif ord == "nuc":
            r = xp.sum(_svd_call(xp, m, compute_uv=False), axis=-1)
        elif ord in (2, -2):
            s = _svd_call(xp, m, compute_uv=False)
            r = xp.max(s, axis=-1) if ord == 2 else xp.min(s, axis=-1)
        elif ord in (1, -1):
            s = xp.sum(xp.abs(m), axis=-2)
            r = xp.max(s, axis=-1) if ord == 1 else xp.min(s, axis=-1)
        else:  # +-inf
            s = xp.sum(xp.abs(m), axis=-1)
            r = xp.max(s, axis=-1) if ord > 0 else xp.min(s, axis=-1)
    if keepdim:
        for d in sorted((d0, d1)):
            r = xp.expand_dims(r, d)
    return r


def _check_matrix_ord(name, ord):
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise TensorRuntimeError(f"{name}: Order {ord} not supported.")


@register("reduction", name="linalg_matrix_norm", method=False, function=False)
def linalg_matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm (``'fro'``, ``'nuc'``, ``±1``, ``±2``, ``±inf``) over the two ``dim``."""
    A = input
    _check_tensor("linalg_matrix_norm", A, "input")
    name = "linalg.matrix_norm"
    if A.dim() < 2:
        raise TensorRuntimeError(
            f"{name}: The input tensor A must have at least 2 dimensions.")
    _check_matrix_ord(name, ord)
    work, out_dtype = _norm_dtype(name, A, dtype)
    dims = _dims(dim, A.dim())
    if len(dims) != 2 or dims[0] == dims[1]:
        raise TensorRuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    xp = _xp(A)
    r = _matrix_norm_array(name, xp, _work_array(A, work), ord, dims, keepdim)
    return _finish_out(out, wrap_result(xp, r, out_dtype, A.device), "linalg_matrix_norm")


@register("reduction", name="linalg_norm", method=False, function=False)
def linalg_norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``vector_norm`` or ``matrix_norm`` depending on ``dim``/``ord`` and ``A``'s rank."""
    A = input
    _check_tensor("linalg_norm", A, "input")
    name = "linalg.norm"
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise TensorRuntimeError(
                f"{name}: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise TensorRuntimeError(
            f"{name}: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{A.dim()}D.")
    matrix = (dim is not None and len(dim) == 2) or (dim is None and ord is not None
                                                      and A.dim() == 2)
    xp = _xp(A)
    if matrix:
        ord = "fro" if ord is None else ord
        if A.dim() < 2:
            raise TensorRuntimeError(
                f"{name}: The input tensor A must have at least 2 dimensions.")
        _check_matrix_ord(name, ord)
        work, out_dtype = _norm_dtype(name, A, dtype)
        dims = _dims(dim if dim is not None else (-2, -1), A.dim())
        if dims[0] == dims[1]:
            raise TensorRuntimeError(f"{name}: dims must be different. Got ({dims[0]}, "
                                     f"{dims[1]})")
        r = _matrix_norm_array(name, xp, _work_array(A, work), ord, dims, keepdim)
    else:
        ord = 2 if ord is None else ord
        if isinstance(ord, str):
            raise TensorRuntimeError(f"{name}: Order {ord} not supported.")
        work, out_dtype = _norm_dtype(name, A, dtype)
        axes = None if A.dim() == 0 else _dims(dim, A.dim())
        r = _vector_norm(xp, _work_array(A, work), ord, axes, keepdim)
    return _finish_out(out, wrap_result(xp, r, out_dtype, A.device), "linalg_norm")


# ---------------------------------------------------------------------- determinants
def _check_eigh_dtype(A):
    if A._dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"linalg_eigh_cpu\" not implemented for '{A._dtype._torch_name}'")


def _square_float(name, fname, A):
    _check_tensor(fname, A)
    _check_matrix(name, A)
    _check_float(name, A)
    return _xp(A)


def _lu_det_parts(xp, a):
    """``(det, sign, logabsdet)`` of each matrix from its LU factors, as PyTorch computes
    them: a NaN anywhere gives a NaN determinant (and sign 0, as ``sgn(NaN)`` is 0), a zero
    pivot a zero one."""
    LU, piv, _ = _lu_kernel(xp, a)
    d = xp.diagonal(LU, axis1=-2, axis2=-1)
    n = a.shape[-1]
    odd = xp.sum(piv != xp.arange(1, n + 1, dtype=piv.dtype), axis=-1) % 2
    perm = xp.where(odd == 1, -1.0, 1.0).astype(d.real.dtype)
    with quiet():
        det = xp.prod(d, axis=-1) * perm
        if xp.iscomplexobj(d):
            sgn = xp.where(d == 0, 0, d / xp.where(d == 0, 1, xp.abs(d)))
        else:
            sgn = ((d > 0).astype(d.dtype) - (d < 0).astype(d.dtype))
        sign = xp.prod(sgn, axis=-1) * perm
        logabs = xp.sum(xp.log(xp.abs(d)), axis=-1)
    return det, sign, logabs


def _det(name, fname, A):
    xp = _square_float(name, fname, A)
    a = A._array()
    if bool(_nonfinite(xp, a).any()):
        # The backend's getrf may call a NaN pivot singular (det 0.0); PyTorch's gives NaN.
        return xp, _lu_det_parts(xp, a)[0]
    return xp, _linalg_call(name, xp.linalg.det, a)


@register("copy", name="linalg_det", method=False, function=False)
def linalg_det(A, *, out=None):
    """Determinant of each square matrix in ``A`` (batched)."""
    xp, r = _det("linalg.det", "linalg_det", A)
    return _finish_out(out, wrap_result(xp, r, A._dtype, A.device), "linalg_det")


@register("copy")
def det(input):
    """Determinant of each square matrix (``torch.linalg.det``)."""
    xp, r = _det("linalg.det", "det", input)
    return wrap_result(xp, r, input._dtype, input.device)


def _slogdet_arrays(name, xp, a):
    if bool(_nonfinite(xp, a).any()):
        return _lu_det_parts(xp, a)[1:]
    return _linalg_call(name, xp.linalg.slogdet, a)


def _slogdet(name, fname, A):
    xp = _square_float(name, fname, A)
    sign, logabs = _slogdet_arrays(name, xp, A._array())
    return (xp, wrap_result(xp, sign, A._dtype, A.device),
            wrap_result(xp, logabs, A._dtype.to_real(), A.device))


@register("copy", name="linalg_slogdet", method=False, function=False)
def linalg_slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant of each square matrix in ``A``."""
    _, sign, logabs = _slogdet("linalg.slogdet", "linalg_slogdet", A)
    return _finish_out(out, return_types.linalg_slogdet((sign, logabs)), "linalg_slogdet")


@register("copy")
def slogdet(input, *, out=None):
    """``(sign, logabsdet)`` of each determinant (``torch.linalg.slogdet``); ``out=`` is a
    pair of tensors of those dtypes (resized as PyTorch resizes ``out=``)."""
    if out is not None:
        if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
            raise TensorTypeError(
                f"slogdet(): argument 'out' must be tuple of Tensors, not {type_name(out)}")
        if len(out) != 2:
            raise TensorTypeError(f"expected tuple of 2 elements but got {len(out)}")
        if isinstance(input, Tensor):
            check_out(out[0], "slogdet", input._dtype)
            check_out(out[1], "slogdet", input._dtype.to_real())
    _, sign, logabs = _slogdet("linalg.slogdet", "slogdet", input)
    if out is not None:
        for o, r in zip(out, (sign, logabs), strict=True):
            write_out(o, r._array())
        return return_types.slogdet(tuple(out))
    return return_types.slogdet((sign, logabs))


@register("copy")
def logdet(input):
    """Log of each determinant: NaN for a negative real determinant, -inf for zero."""
    xp = _square_float("linalg.slogdet", "logdet", input)
    sign, logabs = _slogdet_arrays("logdet", xp, input._array())
    with quiet():
        if input._dtype.is_complex:
            r = xp.log(sign) + logabs
        else:
            # sign is 0 for a NaN determinant too, whose log stays NaN
            r = xp.where(sign < 0, xp.nan,
                         xp.where((sign == 0) & ~xp.isnan(logabs), -xp.inf, logabs))
    return wrap_result(xp, r, input._dtype, input.device)


# ---------------------------------------------------------------------- inverse, solve
def _inv_arrays(xp, a):
    """``(inverse, info)``: the backend's inverse, or where it finds a zero pivot (or a NaN
    it calls one), the inverse from our LU with LAPACK's ``info`` (Inf/NaN where singular)."""
    if _lapack_faithful(xp, a):
        try:
            with quiet():
                r = xp.linalg.inv(a)
            return r, xp.zeros(a.shape[:-2], dtype=xp.int32)
        except Exception as exc:
            if not _is_numpy_linalg_error(exc):
                raise
    LU, piv, info = _lu_kernel(xp, a)
    n = a.shape[-1]
    eye = xp.broadcast_to(xp.eye(n, dtype=a.dtype), a.shape)
    return _lu_solve_arrays(xp, LU, piv, eye), info


def _inv_message(info):
    return (f"The diagonal element {info} is zero, the inversion could not be completed "
            "because the input matrix is singular.")


def _inv(name, fname, A, check=True):
    xp = _square_float(name, fname, A)
    r, info = _inv_arrays(xp, A._array())
    if check:
        _batch_error(name, info, A.dim() > 2, _inv_message)
    out = _colmajor(xp, r, A._dtype, A.device)
    return (out, wrap_result(xp, info, _dtypes.int32, A.device)) if not check else out


@register("copy", name="linalg_inv", method=False, function=False)
def linalg_inv(A, *, out=None):
    """Inverse of each square matrix; a singular one raises (a RuntimeError)."""
    return _finish_out(out, _inv("linalg.inv", "linalg_inv", A), "linalg_inv")


@register("copy", name="linalg_inv_ex", method=False, function=False)
def linalg_inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: ``info`` is LAPACK's (the first zero pivot, 0 when invertible)
    instead of an error, unless ``check_errors``; a singular matrix's inverse holds Inf/NaN."""
    inv, info = _inv("linalg.inv_ex", "linalg_inv_ex", A, check=False)
    if check_errors:
        _batch_error("linalg.inv_ex", info._array(), A.dim() > 2, _inv_message)
    result = _named("linalg_inv_ex", ("inverse", "info"), (inv, info))
    return _finish_out(out, result, "linalg_inv_ex")


@register("copy")
def inverse(input, *, out=None):
    """Inverse of each square matrix (``torch.linalg.inv``). An ``out=`` of another shape
    is resized to the result's column-major layout (with PyTorch's warning when it held
    elements); one of the right shape keeps its strides."""
    if out is not None and isinstance(input, Tensor):
        check_out(out, "inverse", input._dtype)
    result = _inv("linalg.inv", "inverse", input)
    if out is not None:
        if out._shape != result._shape:
            resize_output(out, result._shape, result._stride)
        out._array()[...] = result._array()
        return out
    return result


@register("copy", name="linalg_solve", method=False, function=False)
def linalg_solve(A, B, *, left=True, out=None):
    """``X`` with ``A @ X = B`` (``X @ A = B`` when ``left=False``); batch dims broadcast and
    ``B`` may be a (batch of) vector(s). A singular ``A`` raises ``LinAlgError``."""
    X, info = _solve("linalg_solve", A, B, left)
    _batch_error("torch.linalg.solve", info, info.ndim > 0, _solve_message)
    return _finish_out(out, X, "linalg_solve")


@register("copy", name="linalg_solve_ex", method=False, function=False)
def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)`` of ``linalg.solve``: LAPACK's ``info`` (the first zero pivot of
    each ``A``) instead of an error unless ``check_errors``."""
    X, info = _solve("linalg_solve_ex", A, B, left)
    if check_errors:
        _batch_error("torch.linalg.solve_ex", info, info.ndim > 0, _solve_message)
    return _finish_out(out, _named("linalg_solve_ex", ("result", "info"),
                  (X, wrap_result(_xp(A), info, _dtypes.int32, A.device))), "linalg_solve_ex")


def _solve_message(info):
    return "The solver failed because the input matrix is singular."


def _solve(fname, A, B, left):
    """The shared body of solve/solve_ex: ``(X, info)`` with ``info`` per batch of A."""
    name = "linalg.solve"
    _check_tensor(fname, A)
    _check_tensor(fname, B, "B")
    device = check_same_device([A, B])
    _check_matrix(name, A)
    _check_float(name, A)
    if A._dtype is not B._dtype:
        raise TensorRuntimeError(
            f"{name}: Expected A and B to have the same dtype, but found A of type "
            f"{A._dtype._torch_name} and B of type {B._dtype._torch_name} instead")
    n = A._shape[-1]
    # As PyTorch: B is a (batch of) vector(s) when 1-D or shaped A.shape[:-1], whatever
    # ``left`` is; it is then a column (k x 1) in the shape checks.
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1
                              and tuple(B._shape) == tuple(A._shape[:-1]))
    b_shape = tuple(B._shape) + (1,) if vector else tuple(B._shape)
    if len(b_shape) < 2:
        raise TensorRuntimeError(f"{name}: The input tensor B must have at least 2 "
                                 "dimensions.")
    if (b_shape[-2] if left else b_shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise TensorRuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation {eq} "
            f"({A._shape[-2]}x{A._shape[-1]} and {b_shape[-2]}x{b_shape[-1]})")
    try:
        batch = tuple(broadcast_shapes(tuple(A._shape[:-2]), b_shape[:-2]))
    except RuntimeError:
        raise TensorRuntimeError(
            f"{name}: shape mismatch: A {list(A._shape)} and B {list(B._shape)} cannot be "
            "broadcast together") from None
    if vector and not left:
        raise TensorRuntimeError(
            f"{name}: Vector broadcasting of the left hand side is not supported for "
            f"left=False (A {list(A._shape)}, B {list(B._shape)}). In this case linalg.solve "
            "is equivalent to B / A.squeeze(-1)")
    xp = _xp(A)
    a, b = A._array(), B._array()
    if vector:
        b = b[..., None]
    elif not left:
        a, b = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    r, info = _solve_arrays(xp, a, b)
    if vector:
        # PyTorch solves a batch of vectors as one column-major matrix per batch row.
        out = _colmajor(xp, r[..., 0], A._dtype, device)
    elif left:
        out = _colmajor(xp, r, A._dtype, device)
    else:
        out = wrap_result(xp, xp.swapaxes(r, -1, -2), A._dtype, device)
    return out, info


def _solve_arrays(xp, a, b):
    """``(X, info)`` for ``a X = b`` (same batch dims): the backend's solver, or our LU where
    it reports a zero pivot (Inf/NaN results with LAPACK's ``info``, as PyTorch's)."""
    if _lapack_faithful(xp, a):
        try:
            with quiet():
                return xp.linalg.solve(a, b), xp.zeros(a.shape[:-2], dtype=xp.int32)
        except Exception as exc:
            if not _is_numpy_linalg_error(exc):
                raise
    LU, piv, info = _lu_kernel(xp, a)
    return _lu_solve_arrays(xp, LU, piv, b), info


# ---------------------------------------------------------------------- decompositions
@register("copy", name="linalg_cholesky", method=False, function=False)
def linalg_cholesky(input, *, upper=False, out=None):
    """Lower (or ``upper``) Cholesky factor of each Hermitian positive-definite matrix; one
    that is not positive-definite (or holds a NaN) raises ``LinAlgError`` naming the order
    of the first failing leading minor."""
    A = input
    name = "linalg.cholesky"
    L, info = _cholesky(name, "linalg_cholesky", A, upper)
    _batch_error(name, info, A.dim() > 2, _cholesky_message)
    return _finish_out(out, L, "linalg_cholesky")


@register("copy", name="linalg_cholesky_ex", method=False, function=False)
def linalg_cholesky_ex(input, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: LAPACK's ``info`` (the order of the first leading minor that is not
    positive-definite, 0 on success) instead of an error unless ``check_errors``."""
    A = input
    name = "linalg.cholesky_ex"
    L, info = _cholesky(name, "linalg_cholesky_ex", A, upper)
    if check_errors:
        _batch_error(name, info, A.dim() > 2, _cholesky_message)
    return _finish_out(out, _named("linalg_cholesky_ex", ("L", "info"),
                  (L, wrap_result(_xp(A), info, _dtypes.int32, A.device))), "linalg_cholesky_ex")


def _cholesky_message(info):
    return ("The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {info} is not positive-definite).")


def _cholesky(name, fname, A, upper):
    """``(factor tensor, info array)``. ``upper`` reads ``A``'s upper triangle (the lower
    one of ``A^H``), as LAPACK's ``uplo='U'``."""
    xp = _square_float(name, fname, A)
    a = A._array()
    if upper:
        a = xp.conj(xp.swapaxes(a, -1, -2))
    L = None
    if not bool(_nonfinite(xp, xp.tril(a)).any()):
        try:
            with quiet():
                L = xp.linalg.cholesky(a)
            info = xp.zeros(a.shape[:-2], dtype=xp.int32)
        except Exception as exc:
            if not _is_numpy_linalg_error(exc):
                raise
    if L is None:
        L, info = _cholesky_kernel(xp, a)
    r = xp.conj(xp.swapaxes(L, -1, -2)) if upper else L
    return _colmajor(xp, r, A._dtype, A.device), info


@register("copy", name="linalg_qr", method=False, function=False)
def linalg_qr(A, mode="reduced", *, out=None):
    """QR decomposition ``A = Q @ R`` (``mode``: 'reduced', 'complete' or 'r', where Q is
    empty)."""
    return _finish_out(out, _qr_impl(A, mode), "linalg_qr")


def _qr_impl(A, mode):
    name = "linalg.qr"
    _check_tensor("linalg_qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise TensorRuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'")
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    xp = _xp(A)
    if mode == "r":
        R = _qr_arrays(name, xp, A._array(), "r")
        Q = wrap_result(xp, xp.zeros((0,), dtype=A._dtype.numpy), A._dtype, A.device)
    else:
        Qa, R = _qr_arrays(name, xp, A._array(), mode)
        Q = _colmajor(xp, Qa, A._dtype, A.device)
    R = _colmajor(xp, R, A._dtype, A.device)
    return return_types.linalg_qr((Q, R))


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise TensorRuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@register("copy", name="linalg_eigh", method=False, function=False)
def linalg_eigh(input, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and eigenvectors (columns) of Hermitian matrices."""
    A = input
    name = "linalg.eigh"
    _check_tensor("linalg_eigh", A)
    _check_matrix(name, A)
    _check_eigh_dtype(A)
    xp = _xp(A)
    _check_uplo(UPLO)
    w, v = _eigh_arrays(name, xp, A._array(), UPLO)
    result = return_types.linalg_eigh((wrap_result(xp, w, A._dtype.to_real(), A.device),
                                       _colmajor(xp, v, A._dtype, A.device)))
    return _finish_out(out, result, "linalg_eigh")


@register("copy", name="linalg_eigvalsh", method=False, function=False)
def linalg_eigvalsh(input, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) of Hermitian matrices."""
    A = input
    name = "linalg.eigvalsh"
    _check_tensor("linalg_eigvalsh", A)
    _check_matrix(name, A)
    _check_eigh_dtype(A)
    xp = _xp(A)
    _check_uplo(UPLO)
    w = _eigh_arrays(name, xp, A._array(), UPLO, vectors=False)
    return _finish_out(out, wrap_result(xp, w, A._dtype.to_real(), A.device), "linalg_eigvalsh")


@register("copy", name="linalg_svd", method=False, function=False)
def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U @ diag(S) @ Vh`` (S descending, real)."""
    name = "linalg.svd"
    _check_tensor("linalg_svd", A)
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    _check_svd_driver(A, driver)
    xp = _xp(A)
    U, S, Vh = _svd_call(xp, A._array(), full_matrices=full_matrices)
    result = return_types.linalg_svd((_colmajor(xp, U, A._dtype, A.device),
                                      wrap_result(xp, S, A._dtype.to_real(), A.device),
                                      _colmajor(xp, Vh, A._dtype, A.device)))
    return _finish_out(out, result, "linalg_svd")


def _check_svd_driver(A, driver):
    """PyTorch takes ``driver=`` (cuSOLVER's gesvd, gesvdj, gesvda) for CUDA inputs only; the
    result does not depend on it here."""
    if driver is None:
        return
    if A.device.type != "cuda":
        raise TensorRuntimeError("torch.linalg.svd: keyword argument `driver=` is only "
                                 "supported on CUDA inputs with cuSOLVER backend.")
    if driver not in ("gesvd", "gesvdj", "gesvda"):
        raise TensorRuntimeError(
            f"torch.linalg.svd: unknown svd driver {driver} in svd_cusolver computation. "
            "Available drivers are gesvd, gesvdj, and gesvda.")


@register("copy", name="linalg_svdvals", method=False, function=False)
def linalg_svdvals(A, *, driver=None, out=None):
    """Singular values of each matrix, descending (real)."""
    name = "linalg.svdvals"
    _check_tensor("linalg_svdvals", A)
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    _check_svd_driver(A, driver)
    xp = _xp(A)
    s = _svd_call(xp, A._array(), compute_uv=False)
    return _finish_out(out, wrap_result(xp, s, A._dtype.to_real(), A.device), "linalg_svdvals")


def _tolerance(xp, s, A, atol, rtol):
    """PyTorch's threshold ``max(atol, rtol * s_max)`` (rtol defaults to eps * max(m, n)
    unless only a positive ``atol`` is given)."""
    def value(v):
        return v._array() if isinstance(v, Tensor) else v

    atol_v = 0.0 if atol is None else value(atol)
    if rtol is None:
        if atol is not None and not isinstance(atol, Tensor) and atol > 0:
            rtol_v = 0.0
        else:
            rtol_v = _dtypes.finfo(A._dtype.to_real()).eps * builtins.max(A._shape[-2:])
    else:
        rtol_v = value(rtol)
    smax = xp.max(s, axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(
        s.shape[:-1] + (1,), s.dtype)
    return xp.maximum(xp.asarray(atol_v)[..., None] if xp.ndim(atol_v) else atol_v,
                      (xp.asarray(rtol_v)[..., None] if xp.ndim(rtol_v) else rtol_v) * smax)


def _singular_values(name, xp, A, hermitian):
    a = A._array()
    if hermitian:
        return xp.abs(_eigh_arrays(name, xp, a, vectors=False))
    return _svd_call(xp, a, compute_uv=False)


@register("reduction", name="linalg_matrix_rank", method=False, function=False)
def linalg_matrix_rank(input, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """Number of singular values above ``max(atol, rtol * largest)`` (int64)."""
    A = input
    name = "linalg.matrix_rank"
    _check_tensor("linalg_matrix_rank", A, "input")
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    if tol is not None:
        atol, rtol = tol, 0.0
    xp = _xp(A)
    s = _singular_values(name, xp, A, hermitian)
    with quiet():
        r = xp.sum(s > _tolerance(xp, s, A, atol, rtol), axis=-1)
    return _finish_out(out, wrap_result(xp, r, _dtypes.int64, A.device), "linalg_matrix_rank")


@register("copy", name="linalg_pinv", method=False, function=False)
def linalg_pinv(input, *, atol=None, rtol=None, hermitian=False, rcond=None, out=None):
    """Moore-Penrose pseudo-inverse (singular values below the tolerance count as 0)."""
    A = input
    result = _pinv_impl(A, atol, rcond if rcond is not None else rtol, hermitian)
    return _finish_out(out, result, "linalg_pinv")


def _pinv_impl(A, atol, rtol, hermitian):
    name = "linalg.pinv"
    _check_tensor("linalg_pinv", A, "input")
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    xp = _xp(A)
    a = A._array()
    with quiet():
        if hermitian:
            w, v = _eigh_arrays(name, xp, a)
            s = xp.abs(w)
            tol = _tolerance(xp, s, A, atol, rtol)
            inv = xp.where(s > tol, 1.0 / xp.where(w == 0, 1, w), 0).astype(w.dtype)
            r = xp.matmul(v * inv[..., None, :], xp.conj(xp.swapaxes(v, -1, -2)))
        else:
            U, s, Vh = _svd_call(xp, a, full_matrices=False)
            tol = _tolerance(xp, s, A, atol, rtol)
            inv = xp.where(s > tol, 1.0 / xp.where(s == 0, 1, s), 0).astype(s.dtype)
            r = xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * inv[..., None, :],
                          xp.conj(xp.swapaxes(U, -1, -2)))
    return wrap_result(xp, r, A._dtype, A.device)


# ---------------------------------------------------------------------- products
@register("copy", name="linalg_matrix_power", method=False, function=False)
def linalg_matrix_power(input, n, *, out=None):
    """``A`` multiplied by itself ``n`` times (identity for 0, the inverse's power for
    negative ``n``)."""
    A = input
    return _finish_out(out, _matrix_power_impl(A, n), "linalg_matrix_power")


def _matrix_power_impl(A, n):
    name = "linalg.matrix_power"
    _check_tensor("linalg_matrix_power", A, "input")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TensorTypeError(f"linalg_matrix_power(): argument 'n' must be int, not "
                              f"{type_name(n)}")
    _check_matrix(name, A)
    if n < 0:
        _check_float("linalg.inv", A)
    elif A._dtype is _dtypes.bool_ and n > 1:
        raise TensorRuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    xp = _xp(A)
    a = A._array()
    with quiet():
        if n < 0:
            a, info = _inv_arrays(xp, a)
            _batch_error("linalg.inv", info, A.dim() > 2, _inv_message)
        r = xp.linalg.matrix_power(a, builtins.abs(n))
        if r is a:  # n == 1 hands back its input; PyTorch returns a copy
            r = r.copy()
    return wrap_result(xp, r, A._dtype, A.device)


@register("copy", name="linalg_multi_dot", method=False, function=False)
def linalg_multi_dot(tensors, *, out=None):
    """Chain of matrix products in the cheapest order; the first and last may be 1-D."""
    name = "multi_dot"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise TensorRuntimeError(
            f"{name}(): expected at least 2 tensors but got {len(tensors)}")
    for t in tensors:
        _check_tensor("linalg_multi_dot", t, "tensors")
    device = check_same_device(tensors)
    last = len(tensors) - 1
    for i, t in enumerate(tensors):
        allowed = (1, 2) if i in (0, last) else (2,)
        if t.dim() not in allowed:
            which = "first" if i == 0 else "last" if i == last else None
            if which:
                raise TensorRuntimeError(
                    f"{name}(): the {which} tensor must be 1D or 2D but got {t.dim()}D")
            raise TensorRuntimeError(
                f"{name}(): tensor {i} must be 2D but got {t.dim()}D")
        if t._dtype is not tensors[0]._dtype:
            raise TensorRuntimeError(
                f"{name}(): all tensors must have the same dtype, but tensor 0 is "
                f"{tensors[0]._dtype._torch_name} and tensor {i} is {t._dtype._torch_name}")
    shapes = [tuple(t._shape) for t in tensors]
    s0 = (1,) + shapes[0] if len(shapes[0]) == 1 else shapes[0]
    cols = s0[-1]
    for i in range(1, len(shapes)):
        s = shapes[i] + (1,) if len(shapes[i]) == 1 else shapes[i]
        if s[0] != cols:
            raise TensorRuntimeError(
                f"{name}(): tensors {i - 1} and {i} with shapes {list(shapes[i - 1])} and "
                f"{list(shapes[i])} cannot be multiplied")
        cols = s[1]
    if tensors[0]._dtype is _dtypes.bool_:
        raise TensorRuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    xp = _xp(tensors[0])
    with quiet():
        r = multi_dot(xp, [t._array() for t in tensors])
    return _finish_out(out, wrap_result(xp, r, tensors[0]._dtype, device), "linalg_multi_dot")


@register("copy", name="linalg_vecdot", method=False, function=False)
def linalg_vecdot(x, y, *, dim=-1, out=None):
    """``sum(x.conj() * y, dim)`` with broadcasting."""
    name = "linalg.vecdot"
    _check_tensor("linalg_vecdot", x, "x")
    _check_tensor("linalg_vecdot", y, "y")
    device = check_same_device([x, y])
    if x._dtype is not y._dtype:
        raise TensorRuntimeError(
            f"{name}: Expected x and y to have the same dtype, but found x of type "
            f"{x._dtype._torch_name} and y of type {y._dtype._torch_name} instead")
    _check_float(name, x)
    shape = tuple(broadcast_shapes(tuple(x._shape), tuple(y._shape)))
    d = wrap_dim(dim, builtins.max(len(shape), 1))
    xp = _xp(x)
    with quiet():
        r = xp.sum(xp.conj(x._array()) * y._array(), axis=d)
    return _finish_out(out, wrap_result(xp, r, x._dtype, device), "linalg_vecdot")


@register("copy", name="linalg_cross", method=False, function=False)
def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim``; the other dims broadcast."""
    name = "linalg.cross"
    _check_tensor("linalg_cross", input, "input")
    _check_tensor("linalg_cross", other, "other")
    device = check_same_device([input, other])
    if input.dim() != other.dim():
        raise TensorRuntimeError(
            f"{name}: inputs must have the same number of dimensions.")
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(
            f"expected scalar type {input._dtype._torch_name} but found "
            f"{other._dtype._torch_name}")
    shape = tuple(broadcast_shapes(tuple(input._shape), tuple(other._shape)))
    d = wrap_dim(dim, builtins.max(len(shape), 1))
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise TensorRuntimeError(
            f"{name}: inputs dimension {dim} must have length 3. Got {input._shape[d]} and "
            f"{other._shape[d]}")
    xp = _xp(input)
    with quiet():
        a = xp.broadcast_to(input._array(), shape)
        b = xp.broadcast_to(other._array(), shape)
        r = xp.cross(a, b, axis=d)
    return _finish_out(out, wrap_result(xp, r, input._dtype, device), "linalg_cross")


# ---------------------------------------------------------------------- LU
_WARNED = set()


def _warn_once(key, message):
    """PyTorch's ``TORCH_WARN_ONCE`` for the deprecated top-level solvers."""
    if key not in _WARNED:
        _WARNED.add(key)
        import warnings

        # At the user's line (PyTorch's C++ warning is attributed to the calling Python
        # line): the first frame outside the package and its generated entry points.
        warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


def _check_lu_input(name, A, pivot=True):
    if A.dim() < 2:
        raise TensorRuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. "
                                 f"Got size: {list(A._shape)} instead")
    if A._dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"lu_cpu\" not implemented for '{A._dtype._torch_name}'")
    if not pivot:
        raise TensorRuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _lu_factor(fname, A, pivot):
    """``(LU tensor, pivots tensor, info array)`` of ``getrf``."""
    _check_tensor(fname, A)
    _check_lu_input("linalg.lu_factor", A, pivot)
    xp = _xp(A)
    LU, piv, info = _lu_kernel(xp, A._array())
    return (_colmajor(xp, LU, A._dtype, A.device), wrap_result(xp, piv, _dtypes.int32, A.device),
            info)


@register("copy", name="linalg_lu_factor_ex", method=False, function=False)
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: LAPACK's compact LU with partial pivoting of each (m, n)
    matrix; ``info`` is the 1-based index of the first zero on ``U``'s diagonal (0 if
    none). ``check_errors`` raises instead, as ``lu_factor``."""
    LU, piv, info = _lu_factor("linalg_lu_factor_ex", A, pivot)
    return _finish_out(out, _factor_ex("lu_factor_ex", ("LU", "pivots", "info"), A, (LU, piv), info,
                      check_errors, _lu_message), "linalg_lu_factor_ex")


def _factor_ex(name, fields, A, factors, info, check_errors, message):
    """The ``linalg.<name>`` named tuple ``(*factors, info)``; with ``check_errors``, the
    error of the first failing matrix instead (a RuntimeError, as PyTorch's)."""
    if check_errors:
        _batch_error(f"torch.linalg.{name}", info, A.dim() > 2, message, TensorRuntimeError)
    return _named(f"linalg_{name}", fields,
                  (*factors, wrap_result(_xp(A), info, _dtypes.int32, A.device)))


def _lu_message(info):
    return (f"U[{info},{info}] is zero and using it on lu_solve would result in a division by "
            "zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@register("copy", name="linalg_lu_factor", method=False, function=False)
def linalg_lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)``: the compact LU factorization with partial pivoting; a zero on
    ``U``'s diagonal raises (use ``lu_factor_ex`` or ``lu`` to factor singular matrices)."""
    LU, piv, info = _lu_factor("linalg_lu_factor", A, pivot)
    _batch_error("torch.linalg.lu_factor", info, A.dim() > 2, _lu_message, TensorRuntimeError)
    result = _named("linalg_lu_factor", ("LU", "pivots"), (LU, piv))
    return _finish_out(out, result, "linalg_lu_factor")


def _permutation_matrix(xp, piv, m, dtype):
    """The ``P`` of ``A = P L U`` from LAPACK's row interchanges (1-based, (..., k))."""
    batch = tuple(piv.shape[:-1])
    flat = piv.reshape(-1, piv.shape[-1]) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    rows = xp.arange(flat.shape[0])
    for j in range(flat.shape[-1]):
        pj = flat[:, j]
        top = perm[rows, j].copy()
        perm[rows, j] = perm[rows, pj]
        perm[rows, pj] = top
    # (P^T A)[i] = A[perm[i]], so P[perm[i], i] = 1.
    P = xp.zeros((flat.shape[0], m, m), dtype=dtype)
    cols = xp.broadcast_to(xp.arange(m), perm.shape)
    P[rows[:, None], perm, cols] = 1
    return P.reshape(batch + (m, m))


def _unpack(xp, LU, piv, dtype, device, data=True, pivots=True):
    m, n = LU.shape[-2], LU.shape[-1]
    k = builtins.min(m, n)
    empty = wrap_result(xp, xp.zeros((0,), dtype=dtype.numpy), dtype, device)
    P = (wrap_result(xp, _permutation_matrix(xp, piv, m, dtype.numpy), dtype, device)
         if pivots else empty)
    if not data:
        return P, empty, empty
    L = xp.tril(LU[..., :, :k], -1)
    idx = xp.arange(k)
    L[..., idx, idx] = 1
    U = xp.triu(LU[..., :k, :])
    return P, wrap_result(xp, L, dtype, device), wrap_result(xp, U, dtype, device)


@register("copy", name="linalg_lu", method=False, function=False)
def linalg_lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P @ L @ U``: ``L`` unit lower (m, k), ``U`` upper (k, n),
    ``P`` a permutation matrix of ``A``'s dtype. Singular matrices factor without error."""
    _check_tensor("linalg_lu", A)
    _check_lu_input("linalg.lu_factor", A, pivot)
    xp = _xp(A)
    LU, piv, _ = _lu_kernel(xp, A._array())
    result = _named("linalg_lu", ("P", "L", "U"), _unpack(xp, LU, piv, A._dtype, A.device))
    return _finish_out(out, result, "linalg_lu")


@register("copy", method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from ``lu_factor``'s ``(LU, pivots)``; the parts not asked for are
    empty tensors."""
    _check_tensor("lu_unpack", LU_data, "LU_data")
    _check_tensor("lu_unpack", LU_pivots, "LU_pivots")
    if LU_pivots._dtype is not _dtypes.int32:
        raise TensorRuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor")
    if LU_data.dim() < 2:
        raise TensorRuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data._shape)} instead")
    m, n = LU_data._shape[-2], LU_data._shape[-1]
    if tuple(LU_pivots._shape) != tuple(LU_data._shape[:-2]) + (builtins.min(m, n),):
        raise TensorRuntimeError(
            f"torch.lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), "
            f"LU_data.size(-2)), but got {LU_pivots._shape[-1] if LU_pivots.dim() else 0} and "
            f"{builtins.min(m, n)}")
    xp = _xp(LU_data)
    piv = LU_pivots._array()
    if unpack_pivots and piv.size and (int(piv.min()) < 1 or int(piv.max()) > m):
        raise TensorRuntimeError(
            f"torch.lu_unpack: pivots must be in the range [1, {m}] (1-based row indices, as "
            "lu_factor returns them)")
    result = _named("lu_unpack", ("P", "L", "U"),
                    _unpack(xp, LU_data._array(), piv, LU_data._dtype, LU_data.device,
                    unpack_data, unpack_pivots))
    return _finish_out(out, result, "lu_unpack")


def _check_same_dtype(name, a_name, A, b_name, B):
    if A._dtype is not B._dtype:
        raise TensorRuntimeError(
            f"{name}: Expected {a_name} and {b_name} to have the same dtype, but found "
            f"{a_name} of type {A._dtype._torch_name} and {b_name} of type "
            f"{B._dtype._torch_name} instead")


def _check_system(name, A, B, left):
    """PyTorch's shape checks of ``A X = B`` / ``X A = B`` with matrices ``B``; returns the
    broadcast batch shape."""
    if B.dim() < 2:
        raise TensorRuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = A._shape[-1]
    if (B._shape[-2] if left else B._shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise TensorRuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation {eq} "
            f"({A._shape[-2]}x{A._shape[-1]} and {B._shape[-2]}x{B._shape[-1]})")
    try:
        return tuple(broadcast_shapes(tuple(A._shape[:-2]), tuple(B._shape[:-2])))
    except RuntimeError:
        raise TensorRuntimeError(
            f"{name}: shape mismatch: A {list(A._shape)} and B {list(B._shape)} cannot be "
            "broadcast together") from None


def _mh_array(xp, a):
    return xp.conj(xp.swapaxes(a, -1, -2))


@register("copy", name="linalg_lu_solve", method=False, function=False)
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` when ``adjoint``) from
    ``lu_factor``'s ``(LU, pivots)``; batch dims broadcast."""
    return _finish_out(out, _lu_solve_impl(LU, pivots, B, left, adjoint), "linalg_lu_solve")


def _lu_solve_impl(LU, pivots, B, left, adjoint):
    name = "linalg.lu_solve"
    _check_tensor("linalg_lu_solve", LU, "LU")
    _check_tensor("linalg_lu_solve", pivots, "pivots")
    _check_tensor("linalg_lu_solve", B, "B")
    device = check_same_device([LU, pivots, B])
    if LU.dim() < 2:
        raise TensorRuntimeError("torch.linalg.lu_solve: The input tensor A must have at least "
                                 "2 dimensions.")
    if LU._shape[-1] != LU._shape[-2]:
        raise TensorRuntimeError(
            f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
            f"{LU._shape[-2]} by {LU._shape[-1]} matrices")
    _check_float(name, LU)
    _check_same_dtype(name, "LU", LU, "B", B)
    if pivots._dtype is not _dtypes.int32:
        raise TensorRuntimeError(
            f"{name}: pivots should be a Tensor of scalar type torch.int32")
    batch = _check_system(name, LU, B, left)
    xp = _xp(LU)
    lu = xp.broadcast_to(LU._array(), batch + tuple(LU._shape[-2:]))
    piv = xp.broadcast_to(pivots._array(), batch + tuple(pivots._shape[-1:]))
    b = xp.broadcast_to(B._array(), batch + tuple(B._shape[-2:]))
    with quiet():
        if left:
            X = _lu_solve_arrays(xp, lu, piv, b, adjoint=adjoint)
        else:
            # X A = B  <=>  A^H X^H = B^H
            X = _mh_array(xp, _lu_solve_arrays(xp, lu, piv, _mh_array(xp, b),
                                               adjoint=not adjoint))
    if not left:  # PyTorch's result is then the transpose of a column-major one
        return wrap_result(xp, X, LU._dtype, device)
    return _colmajor(xp, X, LU._dtype, device)


@register("copy")
def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """Deprecated ``torch.lu_solve(b, LU, pivots)``: ``linalg.lu_solve(LU, pivots, b)``."""
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and "
               "will be removed in a future PyTorch release.\nNote that torch.linalg.lu_solve "
               "has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
               "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    r = _lu_solve_impl(LU_data, LU_pivots, input, True, False)
    return _write_single_out(out, r, "lu_solve")


def _write_single_out(out, r, name):
    if out is None:
        return r
    check_out(out, name, r._dtype)
    if out._shape != r._shape:
        resize_output(out, r._shape, r._stride)
    out._array()[...] = r._array()
    return out


# ---------------------------------------------------------------------- triangular systems
def _triangular(name, fname, A, B, upper, left, unitriangular):
    _check_tensor(fname, A)
    _check_tensor(fname, B, "B")
    device = check_same_device([A, B])
    _check_matrix(name, A)
    dtype = _dtypes.promote_types(A._dtype, B._dtype)
    if dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"triangular_solve_cpu\" not implemented for '{dtype._torch_name}'")
    batch = _check_system(name, A, B, left)
    xp = _xp(A)
    a = A._array().astype(dtype.numpy, copy=False)
    b = B._array().astype(dtype.numpy, copy=False)
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    with quiet():
        if left:
            X = _tri_solve(xp, a, b, upper, unitriangular)
        else:
            # X A = B  <=>  A^T X^T = B^T (A^T is triangular the other way)
            X = xp.swapaxes(_tri_solve(xp, xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2),
                                       not upper, unitriangular), -1, -2)
    return X, dtype, device, xp


@register("copy", name="linalg_solve_triangular", method=False, function=False)
def linalg_solve_triangular(input, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A`` (only its
    ``upper`` or lower triangle is read; ``unitriangular`` takes its diagonal as ones). A
    zero on the diagonal gives Inf/NaN, as LAPACK's ``trsm``: no error."""
    A = input
    X, dtype, device, xp = _triangular("linalg.solve_triangular", "linalg_solve_triangular",
                                       A, B, upper, left, unitriangular)
    return _finish_out(out, _colmajor(xp, X, dtype, device), "linalg_solve_triangular")


@register("copy")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *,
                     out=None):
    """Deprecated ``torch.triangular_solve(b, A)``: ``(solution, cloned_coefficient)`` of
    ``op(A) X = b`` with ``op(A) = A^T`` when ``transpose``."""
    _warn_once("triangular_solve",
               "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
               "torch.linalg.solve_triangular has its arguments reversed and does not return a "
               "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould "
               "be replaced with\nX = torch.linalg.solve_triangular(A, B).")
    _check_tensor("triangular_solve", input)
    _check_tensor("triangular_solve", A, "A")
    if input.dim() < 2:
        raise TensorRuntimeError(
            f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
            f"{input.dim()} dimensions instead")
    if A.dim() < 2:
        raise TensorRuntimeError(
            f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
            f"{A.dim()} dimensions instead")
    _check_same_dtype("triangular_solve", "A", A, "b", input)
    xp = _xp(A)
    a = A._array()
    if transpose:
        a_op = xp.swapaxes(a, -1, -2)
        up = not upper
    else:
        a_op, up = a, upper
    op = Tensor._from_array(xp.ascontiguousarray(a_op), A._dtype, A.device)
    X, dtype, device, xp = _triangular("torch.triangular_solve", "triangular_solve", op, input,
                                       up, True, unitriangular)
    batch = tuple(X.shape[:-2])
    coeff = xp.broadcast_to(a, batch + a.shape[-2:])
    result = _named("triangular_solve", ("solution", "cloned_coefficient"),
                    (_colmajor(xp, X, dtype, device), _colmajor(xp, coeff, A._dtype, A.device)))
    return _finish_out(out, result, "triangular_solve")


# ---------------------------------------------------------------------- Cholesky solvers
@register("copy")
def cholesky(input, upper=False, *, out=None):
    """Deprecated ``torch.cholesky``: ``linalg.cholesky`` (``upper`` gives ``U``)."""
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and "
               "will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
               "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
               "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
               "transform will produce equivalent results for all valid (symmetric positive "
               "definite) inputs.")
    L, info = _cholesky("linalg.cholesky", "cholesky", input, upper)
    _batch_error("cholesky", info, input.dim() > 2, _cholesky_message)
    return _write_single_out(out, L, "cholesky")


def _cholesky_factor_solve(xp, L, b, upper):
    """``(L L^H)^{-1} b`` (``(U^H U)^{-1} b`` when ``upper``) by two triangular solves."""
    if upper:
        Y = _tri_solve(xp, _mh_array(xp, L), b, upper=False)
        return _tri_solve(xp, L, Y, upper=True)
    Y = _tri_solve(xp, L, b, upper=False)
    return _tri_solve(xp, _mh_array(xp, L), Y, upper=True)


@register("copy")
def cholesky_solve(input, input2, upper=False, *, out=None):
    """``X`` with ``A X = B`` given ``B`` (``input``) and ``A``'s Cholesky factor
    (``input2``, lower unless ``upper``); batch dims broadcast."""
    _check_tensor("cholesky_solve", input)
    _check_tensor("cholesky_solve", input2, "input2")
    device = check_same_device([input, input2])
    if input.dim() < 2:
        raise TensorRuntimeError(
            f"b should have at least 2 dimensions, but has {input.dim()} dimensions instead")
    if input2.dim() < 2:
        raise TensorRuntimeError(
            f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead")
    if input._dtype is not input2._dtype:
        raise TensorRuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{input._dtype._torch_name} and A of type {input2._dtype._torch_name} instead.")
    _check_matrix("cholesky_solve", input2)
    _check_float("cholesky_solve", input2)
    batch = _check_system("cholesky_solve", input2, input, True)
    xp = _xp(input)
    L = xp.broadcast_to(input2._array(), batch + tuple(input2._shape[-2:]))
    b = xp.broadcast_to(input._array(), batch + tuple(input._shape[-2:]))
    with quiet():
        X = _cholesky_factor_solve(xp, L, b, upper)
    return _write_single_out(out, _colmajor(xp, X, input._dtype, device), "cholesky_solve")


@register("copy")
def cholesky_inverse(input, upper=False, *, out=None):
    """``(L L^H)^{-1}`` (``(U^H U)^{-1}`` when ``upper``) from a Cholesky factor; a zero on
    its diagonal raises PyTorch's singular-matrix ``LinAlgError``."""
    _check_tensor("cholesky_inverse", input)
    _check_matrix("cholesky_inverse", input)
    _check_float("cholesky_inverse", input)
    xp = _xp(input)
    a = input._array()
    d = xp.diagonal(a, axis1=-2, axis2=-1)
    zero = d == 0
    info = xp.where(zero.any(axis=-1), xp.argmax(zero, axis=-1) + 1, 0).astype(xp.int32)
    _batch_error("cholesky_inverse", info, input.dim() > 2, _inv_message)
    n = input._shape[-1]
    eye = xp.broadcast_to(xp.eye(n, dtype=a.dtype), a.shape)
    with quiet():
        X = _cholesky_factor_solve(xp, a, eye, upper)
    return _write_single_out(out, _colmajor(xp, X, input._dtype, input.device),
                             "cholesky_inverse")


# ---------------------------------------------------------------------- matrix exponential
# Higham (2005), "The scaling and squaring method for the matrix exponential revisited":
# the [13/13] Pade approximant, exact to double precision for ||A||_1 <= theta_13, after
# scaling A by 2^-s and squaring s times. Computed in double precision for every dtype.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _matrix_exp_array(xp, a):
    n = a.shape[-1]
    work = xp.complex128 if xp.iscomplexobj(a) else xp.float64
    a = a.astype(work)
    bad = _nonfinite(xp, a)
    a = xp.where(bad[..., None, None], 0, a)
    with quiet():
        norm = xp.max(xp.sum(xp.abs(a), axis=-2), axis=-1) if n else xp.zeros(a.shape[:-2])
        s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm, 1e-300) / _THETA13))).astype(int)
        a = a / (2.0 ** s)[..., None, None]
        b = _PADE13
        eye = xp.eye(n, dtype=work)
        a2 = a @ a
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4
                 + b[3] * a2 + b[1] * eye)
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
            + b[0] * eye
        r = xp.linalg.solve(v - u, v + u) if n else v
        top = int(s.max()) if s.size else 0
        for i in range(top):
            r = xp.where((s > i)[..., None, None], r @ r, r)
    # PyTorch's exponential of a matrix holding NaN or Inf is NaN everywhere.
    return xp.where(bad[..., None, None], xp.nan, r)


@register("copy", name="linalg_matrix_exp", method=False, function=False)
def linalg_matrix_exp(input):
    """The matrix exponential ``sum_k A^k / k!`` of each square matrix (scaling and squaring
    with a Pade approximant); NaN everywhere for a matrix holding NaN or Inf."""
    A = input
    return _matrix_exp("linalg_matrix_exp", A)


@register("copy")
def matrix_exp(input):
    """``torch.matrix_exp``: ``torch.linalg.matrix_exp``."""
    return _matrix_exp("matrix_exp", input)


def _matrix_exp(fname, A):
    name = "linalg.matrix_exp"
    _check_tensor(fname, A)
    _check_matrix(name, A)
    _check_float(name, A, half=True)
    xp = _xp(A)
    return wrap_result(xp, _matrix_exp_array(xp, A._array()), A._dtype, A.device)


# ---------------------------------------------------------------------- eig
def _eig_arrays(fname, A, vectors=True):
    name = "linalg.eig"
    _check_tensor(fname, A)
    _check_matrix(name, A)
    if A._dtype not in _FLOAT_TYPES:
        raise TensorRuntimeError(f"Unknown Complex ScalarType for {A._dtype._torch_name}")
    xp = _xp(A)
    a = A._array()
    bad = _nonfinite(xp, a)
    if vectors and bool(bad.any()):
        raise TensorRuntimeError("torch.linalg.eig: input tensor should not contain infs or "
                                 "NaNs.")
    cdtype = A._dtype.to_complex()
    # CuPy has no general eigensolver: like PyTorch's CUDA kernel (MAGMA's geev runs on the
    # host), the decomposition is computed on the host and the results moved back.
    host = not hasattr(xp.linalg, "eig")
    lin = np.linalg if host else xp.linalg
    if vectors:
        w, v = _linalg_call(name, lin.eig, a.get() if host else a)
        if host:
            w, v = xp.asarray(w), xp.asarray(v)
        return xp, cdtype, w.astype(cdtype.numpy), v.astype(cdtype.numpy)
    # eigvals does not check: a matrix holding NaN or Inf has NaN eigenvalues.
    a = xp.where(bad[..., None, None], 0, a)
    w = _linalg_call(name, lin.eigvals, a.get() if host else a)
    w = xp.asarray(w)
    w = xp.where(bad[..., None], complex(xp.nan, xp.nan), w.astype(cdtype.numpy))
    return xp, cdtype, w.astype(cdtype.numpy), None


@register("copy", name="linalg_eig", method=False, function=False)
def linalg_eig(input, *, out=None):
    """``(eigenvalues, eigenvectors)`` of each square matrix, always complex (LAPACK's
    ``geev``: unit-norm eigenvectors in the columns)."""
    A = input
    xp, cdtype, w, v = _eig_arrays("linalg_eig", A)
    result = _named("linalg_eig", ("eigenvalues", "eigenvectors"),
                    (wrap_result(xp, w, cdtype, A.device), _colmajor(xp, v, cdtype, A.device)))
    return _finish_out(out, result, "linalg_eig")


@register("copy", name="linalg_eigvals", method=False, function=False)
def linalg_eigvals(input, *, out=None):
    """The (complex) eigenvalues of each square matrix, as ``linalg.eig`` orders them."""
    A = input
    xp, cdtype, w, _ = _eig_arrays("linalg_eigvals", A, vectors=False)
    return _finish_out(out, wrap_result(xp, w, cdtype, A.device), "linalg_eigvals")


# ---------------------------------------------------------------------- least squares
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@register("copy", name="linalg_lstsq", method=False, function=False)
def linalg_lstsq(input, b, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||_F``.

    Every driver computes the minimum-norm solution from the SVD, singular values at or
    below ``rcond * s_max`` (``rcond`` defaults to ``eps * max(m, n)``) counting as zero;
    what else is returned follows the driver as in PyTorch: ``rank`` for all but 'gels',
    ``singular_values`` for 'gelsd'/'gelss', ``residuals`` (squared column norms of
    ``A X - B``) when m > n, every matrix has full rank and the driver is not 'gelsy'. 'gels'
    (QR) refuses a rank-deficient matrix with PyTorch's ``LinAlgError``."""
    A, B = input, b
    name = "torch.linalg.lstsq"
    _check_tensor("linalg_lstsq", A, "self")
    _check_tensor("linalg_lstsq", B, "b")
    device = check_same_device([A, B])
    if driver is None:
        driver = "gelsy"
    if driver not in _LSTSQ_DRIVERS:
        raise TensorRuntimeError(
            f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._dtype not in _FLOAT_TYPES:
        raise TensorRuntimeError("This function doesn't handle types other than float and "
                                 "double")
    if A.dim() < 2:
        raise TensorRuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A._dtype is not B._dtype:
        raise TensorRuntimeError(
            f"{name}: Expected input and other to have the same dtype, but got input's dtype "
            f"{A._dtype._torch_name} and other's dtype {B._dtype._torch_name}")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise TensorRuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and "
            f"(input.dim() - other.dim()) <= 1 (got {A.dim()} and {B.dim()})")
    vector = B.dim() == A.dim() - 1
    if B.dim() < 1 or (not vector and B.dim() < 2):
        raise TensorRuntimeError(f"{name}: other must have at least 1 dimension.")
    b_shape = tuple(B._shape) + (1,) if vector else tuple(B._shape)
    m, n = A._shape[-2], A._shape[-1]
    if b_shape[-2] != m:
        raise TensorRuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    try:
        batch = tuple(broadcast_shapes(tuple(A._shape[:-2]), b_shape[:-2]))
    except RuntimeError:
        raise TensorRuntimeError(
            f"{name}: shape mismatch: A {list(A._shape)} and B {list(B._shape)} cannot be "
            "broadcast together") from None
    xp = _xp(A)
    a = xp.broadcast_to(A._array(), batch + (m, n))
    b = B._array()[..., None] if vector else B._array()
    b = xp.broadcast_to(b, batch + b_shape[-2:])
    if bool(_nonfinite(xp, a).any()):
        # LAPACK rejects (PyTorch: an internal assert) a matrix holding NaN or Inf.
        raise TensorRuntimeError(f"{name}: the input matrix A contains NaN or Inf values")
    real = A._dtype.to_real()
    if rcond is None:
        rcond = _dtypes.finfo(real).eps * builtins.max(m, n)
    with quiet():
        u, s, vh = _svd_call(xp, a, full_matrices=False)
        smax = s[..., :1] if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,), s.dtype)
        keep = s > rcond * smax
        rank = xp.sum(keep, axis=-1)
        s_inv = xp.where(keep, 1.0 / xp.where(keep, s, 1), 0).astype(s.dtype)
        x = _mh_array(xp, vh) @ (s_inv[..., :, None] * (_mh_array(xp, u) @ b))
    k = builtins.min(m, n)
    if driver == "gels" and k:
        R = _linalg_call(name, xp.linalg.qr, a if m >= n else _mh_array(xp, a), mode="r")
        d = xp.abs(xp.diagonal(R, axis1=-2, axis2=-1))
        # LAPACK's trtrs refuses an exactly zero diagonal of R; the backend's QR rounds
        # differently, so a diagonal at rounding level of R's largest counts as zero too.
        eps = _dtypes.finfo(real).eps
        zero = d <= 4 * eps * xp.max(d, axis=-1, keepdims=True)
        info = xp.where(zero.any(axis=-1), xp.argmax(zero, axis=-1) + 1, 0)
        _batch_error(name, info, len(batch) > 0, lambda i: (
            "The least squares solution could not be computed because the input matrix does "
            f"not have full rank (error code: {i})."))
    full = bool((rank == n).all()) if rank.size else True
    empty = xp.zeros((0,), dtype=real.numpy)
    if m > n and full and driver != "gelsy":
        with quiet():
            # (a vector right-hand side keeps its column: PyTorch's residuals are (*, 1))
            res = xp.sum(xp.abs(a @ x - b) ** 2, axis=-2)
    else:
        res = empty
    # rank and singular values describe A alone: PyTorch returns them over A's own batch
    # dims, not the batch broadcast with B's (A (1, m, n) with B (2, m, k): rank is (1,)).
    own = tuple(A._shape[:-2])
    lead = len(batch) - len(own)
    mine = (0,) * lead + tuple(slice(None) if d == e else slice(0, 1)
                               for d, e in zip(own, batch[lead:], strict=True))
    rank_out = empty.astype(xp.int64) if driver == "gels" else rank[mine].astype(xp.int64)
    sv = s[mine] if driver in ("gelsd", "gelss") else empty
    # LAPACK writes X over B's (max(m, n), k) column-major buffer: X is its first n rows
    # (a vector right-hand side is that buffer with k = 1, its last dim dropped).
    rows = builtins.max(m, n)
    pad = xp.zeros(x.shape[:-2] + (rows, x.shape[-1]), dtype=x.dtype)
    pad[..., :n, :] = x
    sol = _colmajor(xp, pad, A._dtype, device)
    if vector:
        sol._set_metadata(tuple(x.shape[:-1]), sol._stride[:-1], 0)
    else:
        sol._set_metadata(tuple(x.shape), sol._stride, 0)
    return _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"),
                  (sol, wrap_result(xp, res, real, device),
                   wrap_result(xp, rank_out, _dtypes.int64, device),
                   wrap_result(xp, sv, real, device)))


# ---------------------------------------------------------------------- Householder
def _householder_array(xp, a, tau):
    """LAPACK's ``orgqr``: the first n columns of ``H_1 ... H_k`` with
    ``H_i = I - tau_i v_i v_i^H`` and ``v_i = (0, ..., 0, 1, a[i+1:, i])``."""
    m, n = a.shape[-2], a.shape[-1]
    k = tau.shape[-1]
    batch = tuple(a.shape[:-2])
    q = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), batch + (m, n)).copy()
    with quiet():
        for i in range(k - 1, -1, -1):
            v = xp.zeros(batch + (m,), dtype=a.dtype)
            v[..., i] = 1
            v[..., i + 1:] = a[..., i + 1:, i]
            w = xp.matmul(xp.conj(v)[..., None, :], q)  # v^H q, (..., 1, n)
            q = q - tau[..., i, None, None] * v[..., :, None] * w
    return q


@register("copy", name="linalg_householder_product", method=False, function=False)
def linalg_householder_product(input, tau, *, out=None):
    """The first n columns of the product of Householder reflectors stored as ``geqrf``
    leaves them (``A`` below its diagonal, scalars ``tau``)."""
    A = input
    result = _householder("linalg_householder_product", A, tau)
    return _finish_out(out, result, "linalg_householder_product")


@register("copy")
def orgqr(input, input2, *, out=None):
    """``torch.orgqr``: ``torch.linalg.householder_product``."""
    return _finish_out(out, _householder("orgqr", input, input2), "orgqr")


def _householder(fname, A, tau):
    name = "torch.linalg.householder_product"
    _check_tensor(fname, A)
    _check_tensor(fname, tau, "tau")
    device = check_same_device([A, tau])
    if A.dim() < 2:
        raise TensorRuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A._shape[-2] < A._shape[-1]:
        raise TensorRuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() < 1 or A._shape[-1] < tau._shape[-1]:
        raise TensorRuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau._shape[:-1]) != tuple(A._shape[:-2]):
        raise TensorRuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
            f"got {list(tau._shape[:-1])}")
    if tau._dtype is not A._dtype:
        raise TensorRuntimeError(
            f"{name}: tau dtype {tau._dtype._torch_name} does not match input dtype "
            f"{A._dtype._torch_name}")
    if A._dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"orgqr_cpu\" not implemented for '{A._dtype._torch_name}'")
    xp = _xp(A)
    return _colmajor(xp, _householder_array(xp, A._array(), tau._array()), A._dtype, device)


# ---------------------------------------------------------------------- top-level aliases
def _svd_tuple(xp, A, some, compute_uv):
    name = "linalg.svd"
    _check_tensor("svd", A)
    _check_matrix(name, A, square=False)
    _check_float(name, A)
    a = A._array()
    m, n = A._shape[-2], A._shape[-1]
    real = A._dtype.to_real()
    if not compute_uv:
        s = _svd_call(xp, a, compute_uv=False)
        # PyTorch returns zero-filled U and V of the full shapes.
        U = xp.zeros(a.shape[:-2] + (m, m), dtype=a.dtype)
        V = xp.zeros(a.shape[:-2] + (n, n), dtype=a.dtype)
        return (wrap_result(xp, U, A._dtype, A.device), wrap_result(xp, s, real, A.device),
                _colmajor(xp, V, A._dtype, A.device))
    U, s, Vh = _svd_call(xp, a, full_matrices=not some)
    return (_colmajor(xp, U, A._dtype, A.device), wrap_result(xp, s, real, A.device),
            wrap_result(xp, _mh_array(xp, Vh), A._dtype, A.device))


@register("copy")
def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^H`` (``V``, not ``V^H``);
    ``some=False`` gives square ``U`` and ``V``; ``compute_uv=False`` zero-filled ones."""
    result = _named("svd", ("U", "S", "V"), _svd_tuple(_xp(input), input, some, compute_uv))
    return _finish_out(out, result, "svd")


@register("copy")
def qr(input, some=True, *, out=None):
    """Deprecated ``torch.qr``: ``linalg.qr(input, 'reduced' if some else 'complete')``."""
    _warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in "
               "a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
               "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
               "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    Q, R = _qr_impl(input, "reduced" if some else "complete")
    return _finish_out(out, _named("qr", ("Q", "R"), (Q, R)), "qr")


@register("copy")
def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``."""
    return _pinv_impl(input, None, rcond, False)


@register("copy")
def matrix_power(input, n, *, out=None):
    """``torch.matrix_power``: ``linalg.matrix_power``."""
    return _finish_out(out, _matrix_power_impl(input, n), "matrix_power")


@register("copy")
def lu(input, pivot=True, get_infos=False):
    """Deprecated ``torch.lu``: ``(LU, pivots)`` (``+ infos`` with ``get_infos``) of
    ``linalg.lu_factor_ex``; a singular matrix factors without error."""
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
               "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
               "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
               "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, piv, info = _lu_factor("lu", input, pivot)
    if get_infos:
        return LU, piv, wrap_result(_xp(input), info, _dtypes.int32, input.device)
    return LU, piv


@register("copy")
def geqrf(input, *, out=None):
    """``(a, tau)``: LAPACK's compact QR (R on and above the diagonal, the Householder
    vectors below it, their scalars in ``tau``), the input of ``householder_product`` and
    ``ormqr``."""
    name = "geqrf"
    _check_tensor(name, input)
    if input.dim() < 2:
        raise TensorRuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"geqrf_cpu\" not implemented for '{input._dtype._torch_name}'")
    xp = _xp(input)
    a = input._array()
    m, n = a.shape[-2], a.shape[-1]
    batch = a.shape[:-2]
    k = builtins.min(m, n)
    if m and n and not _lapack_faithful(xp, a):
        h, tau = _geqrf_kernel(xp, a)
    else:
        hs, taus = [], []
        for mat in a.reshape((-1, m, n)):
            if m and n:
                h, tau = _linalg_call(name, xp.linalg.qr, mat, mode="raw")
                hs.append(h.T)
                taus.append(tau)
            else:
                hs.append(xp.zeros((m, n), dtype=a.dtype))
                taus.append(xp.zeros((0,), dtype=a.dtype))
        h = xp.stack(hs).reshape(a.shape) if hs else xp.zeros(a.shape, dtype=a.dtype)
        tau = xp.stack(taus).reshape(batch + (k,)) if taus else xp.zeros(batch + (k,), a.dtype)
    result = _named("geqrf", ("a", "tau"), (_colmajor(xp, h, input._dtype, input.device),
                    wrap_result(xp, tau, input._dtype, input.device)))
    return _finish_out(out, result, "geqrf")


@register("copy")
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """``op(Q) @ input3`` (``input3 @ op(Q)`` when not ``left``), ``Q`` the full m x m
    product of the Householder reflectors of ``geqrf`` (``input``, ``input2`` = tau) and
    ``op(Q) = Q^H`` when ``transpose``."""
    name = "torch.ormqr"
    for arg, t in (("input", input), ("input2", input2), ("input3", input3)):
        _check_tensor("ormqr", t, arg)
    device = check_same_device([input, input2, input3])
    if input.dim() < 2:
        raise TensorRuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input3.dim() < 2:
        raise TensorRuntimeError(f"{name}: other must have at least 2 dimensions.")
    m = input3._shape[-2] if left else input3._shape[-1]
    if input._shape[-2] != m:
        raise TensorRuntimeError(
            f"{name}: input.shape[-2] must be equal to other.shape[{-2 if left else -1}]")
    k = builtins.min(input3._shape[-2] if left else input3._shape[-1], input._shape[-1])
    if input2.dim() < 1 or input2._shape[-1] != k:
        raise TensorRuntimeError(
            f"{name}: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
            "input.shape[-1])")
    for other, label in ((input2, "tau"), (input3, "other")):
        if other._dtype is not input._dtype:
            raise TensorRuntimeError(
                f"{name}: Expected input and {label} to have the same dtype, but input has "
                f"dtype {input._dtype._torch_name} and {label} has dtype "
                f"{other._dtype._torch_name}")
    if input._dtype not in _FLOAT_TYPES:
        raise TensorNotImplementedError(
            f"\"ormqr_cpu\" not implemented for '{input._dtype._torch_name}'")
    xp = _xp(input)
    a = input._array()
    pad = xp.zeros(a.shape[:-1] + (m,), dtype=a.dtype)
    pad[..., :a.shape[-1]] = a[..., :m]
    Q = _householder_array(xp, pad, input2._array())
    op = _mh_array(xp, Q) if transpose else Q
    c = input3._array()
    with quiet():
        r = xp.matmul(op, c) if left else xp.matmul(c, op)
    return _finish_out(out, _colmajor(xp, r, input._dtype, device), "ormqr")


@register("reduction", method=False)
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """``torch.frobenius_norm``: the 2-norm of the entries over ``dim``."""
    _check_tensor("frobenius_norm", input)
    xp = _xp(input)
    axes = _dims(dim, input.dim())
    work, out_dtype = _norm_dtype("frobenius_norm", input, None)
    r = _vector_norm(xp, _work_array(input, work), 2, axes, keepdim)
    return _finish_out(out, wrap_result(xp, r, out_dtype, input.device), "frobenius_norm")


@register("reduction", method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """``torch.nuclear_norm``: the sum of the singular values of the matrices over ``dim``
    (the last two by default)."""
    _check_tensor("nuclear_norm", input)
    if input.dim() < 2:
        raise TensorRuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dim is not None:
        # An int for PyTorch's int[2] is repeated: dim=0 is (0, 0).
        given = (dim, dim) if isinstance(dim, int) else tuple(dim)
        if len(given) != 2:
            raise TensorRuntimeError(
                f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, given))}")
        if wrap_dim(given[0], input.dim()) == wrap_dim(given[1], input.dim()):
            raise TensorRuntimeError(
                f"linalg.matrix_norm: dims must be different. Got ({given[0]}, {given[1]})")
    dims = _dims((-2, -1) if dim is None else dim, input.dim())
    work, out_dtype = _norm_dtype("linalg.matrix_norm", input, None)
    xp = _xp(input)
    r = _matrix_norm_array("linalg.matrix_norm", xp, _work_array(input, work), "nuc", dims,
                           keepdim)
    return _finish_out(out, wrap_result(xp, r, out_dtype, input.device), "nuclear_norm")


# ---------------------------------------------------------------------- removed in PyTorch 1.9
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


@register("copy")
def eig(input, eigenvectors=False):
    """Removed in PyTorch 1.9: raises, pointing at ``torch.linalg.eig``/``eigvals``."""
    raise TensorRuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")


@register("copy")
def symeig(input, eigenvectors=False, upper=True):
    """Removed in PyTorch 1.9: raises, pointing at ``torch.linalg.eigh``/``eigvalsh``."""
    raise TensorRuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should "
        "be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


@register("copy")
def solve(input, A):
    """Removed in PyTorch 1.9: raises, pointing at ``torch.linalg.solve``."""
    raise TensorRuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


@register("copy")
def lstsq(input, A):
    """Removed in PyTorch 1.9: raises, pointing at ``torch.linalg.lstsq``."""
    raise TensorRuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution "
        "in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
        "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
        "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ "
        "= torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
        "torch.linalg.lstsq(A, B).solution")


@register("copy", method=False)
def matrix_rank(input, tol=None, symmetric=False):
    """Removed in PyTorch 1.9: raises, pointing at ``torch.linalg.matrix_rank``."""
    raise TensorRuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'.")


# ---------------------------------------------------------------------- LDL (Bunch-Kaufman)
_BK_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # LAPACK's growth bound for 1x1 versus 2x2 pivots


def _ldl_matrix(xp, a, herm):
    """LAPACK's unblocked ``?sytf2``/``?hetf2`` (lower) on one matrix: ``(LD, pivots, info)``.
    Pivots are 1-based; a negative pair marks a 2x2 block of D. Magnitudes are LAPACK's
    ``|re| + |im|``; the Hermitian variant keeps D's diagonal real and conjugates."""
    A = xp.array(a, copy=True)
    n = A.shape[-1]
    cplx = xp.iscomplexobj(A)
    piv = xp.zeros(n, dtype=xp.int32)
    info = 0

    def mag(x):
        return xp.abs(x.real) + xp.abs(x.imag) if cplx else xp.abs(x)

    def cj(x):
        return xp.conj(x) if herm and cplx else x

    def diag_mag(x):
        return abs(float(x.real)) if herm and cplx else float(mag(x))

    k = 0
    while k < n:
        kstep = 1
        absakk = diag_mag(A[k, k])
        if k + 1 < n:
            col = mag(A[k + 1:, k])
            imax = k + 1 + int(xp.argmax(xp.where(xp.isnan(col), -1.0, col)))
            colmax = float(mag(A[imax, k]))
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            info = info or k + 1
            kp = k
            if herm and cplx:
                A[k, k] = A[k, k].real
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                rowmax = float(xp.max(mag(A[imax, k:imax])))
                if imax + 1 < n:
                    rowmax = max(rowmax, float(xp.max(mag(A[imax + 1:, imax]))))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_mag(A[imax, imax]) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                # Interchange rows and columns kk and kp of the trailing lower triangle.
                if kp + 1 < n:
                    tmp = A[kp + 1:, kk].copy()
                    A[kp + 1:, kk] = A[kp + 1:, kp]
                    A[kp + 1:, kp] = tmp
                tmp = A[kk + 1:kp, kk].copy()
                A[kk + 1:kp, kk] = cj(A[kp, kk + 1:kp])
                A[kp, kk + 1:kp] = cj(tmp)
                if herm and cplx:
                    A[kp, kk] = xp.conj(A[kp, kk])
                t = A[kk, kk].copy()
                A[kk, kk] = A[kp, kp]
                A[kp, kp] = t
                if kstep == 2:
                    if herm and cplx:
                        A[k, k] = A[k, k].real
                    t = A[k + 1, k].copy()
                    A[k + 1, k] = A[kp, k]
                    A[kp, k] = t
            elif herm and cplx:
                A[k, k] = A[k, k].real
                if kstep == 2:
                    A[k + 1, k + 1] = A[k + 1, k + 1].real
            if kstep == 1:
                if k + 1 < n:
                    d = A[k, k].real if herm and cplx else A[k, k]
                    x = A[k + 1:, k].copy()
                    A[k + 1:, k + 1:] -= xp.tril(xp.outer(x, cj(x)) / d)
                    A[k + 1:, k] = x / d
            elif k + 2 < n:
                if herm and cplx:
                    dabs = abs(A[k + 1, k])
                    d11 = A[k + 1, k + 1].real / dabs
                    d22 = A[k, k].real / dabs
                    d21 = A[k + 1, k] / dabs
                    dd = (1.0 / (d11 * d22 - 1.0)) / dabs
                    wk = dd * (d11 * A[k + 2:, k] - d21 * A[k + 2:, k + 1])
                    wkp1 = dd * (d22 * A[k + 2:, k + 1] - xp.conj(d21) * A[k + 2:, k])
                else:
                    d21 = A[k + 1, k]
                    d11 = A[k + 1, k + 1] / d21
                    d22 = A[k, k] / d21
                    d21 = (1.0 / (d11 * d22 - 1.0)) / d21
                    wk = d21 * (d11 * A[k + 2:, k] - A[k + 2:, k + 1])
                    wkp1 = d21 * (d22 * A[k + 2:, k + 1] - A[k + 2:, k])
                upd = xp.outer(A[k + 2:, k], cj(wk)) + xp.outer(A[k + 2:, k + 1], cj(wkp1))
                A[k + 2:, k + 2:] -= xp.tril(upd)
                A[k + 2:, k] = wk
                A[k + 2:, k + 1] = wkp1
                if herm and cplx:
                    idx = xp.arange(k + 2, n)
                    A[idx, idx] = A[idx, idx].real
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return xp.tril(A), piv, info


def _ldl_factor(fname, A, hermitian):
    name = "torch.linalg.ldl_factor_ex"
    _check_tensor(fname, A)
    if A.dim() < 2:
        raise TensorRuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise TensorRuntimeError(
            f"{name}: A must be batches of square matrices, but they are {A._shape[-2]} by "
            f"{A._shape[-1]} matrices")
    _check_float(name, A)
    xp = _xp(A)
    a = A._array()
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    outs = [_ldl_matrix(xp, m, hermitian) for m in flat]
    batch = a.shape[:-2]
    LD = xp.stack([o[0] for o in outs]).reshape(a.shape) if outs else xp.zeros(a.shape, a.dtype)
    piv = (xp.stack([o[1] for o in outs]).reshape(batch + (n,)) if outs
           else xp.zeros(batch + (n,), xp.int32))
    info = xp.asarray([o[2] for o in outs], dtype=xp.int32).reshape(batch)
    return (_colmajor(xp, LD, A._dtype, A.device), wrap_result(xp, piv, _dtypes.int32, A.device),
            info)


def _ldl_message(info):
    # PyTorch reports this through an internal assertion ("Unknown error code"); the cause is
    # an exactly zero 1x1 block of D.
    return (f"D[{info},{info}] is exactly zero: the factorization was completed but D is "
            "singular, so it cannot be used to solve a system. Use ldl_factor_ex to get the "
            "factors and info without an error.")


@register("copy", name="linalg_ldl_factor_ex", method=False, function=False)
def linalg_ldl_factor_ex(input, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the Bunch-Kaufman LDL^T (``LDL^H`` when ``hermitian``)
    factorization of each symmetric matrix, lower triangle read, LAPACK's compact layout."""
    A = input
    LD, piv, info = _ldl_factor("linalg_ldl_factor_ex", A, hermitian)
    result = _factor_ex("ldl_factor_ex", ("LD", "pivots", "info"), A, (LD, piv), info,
       check_errors, _ldl_message)
    return _finish_out(out, result, "linalg_ldl_factor_ex")


@register("copy", name="linalg_ldl_factor", method=False, function=False)
def linalg_ldl_factor(input, *, hermitian=False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; a zero block of D raises a RuntimeError."""
    A = input
    LD, piv, info = _ldl_factor("linalg_ldl_factor", A, hermitian)
    _batch_error("torch.linalg.ldl_factor", info, A.dim() > 2, _ldl_message, TensorRuntimeError)
    result = _named("linalg_ldl_factor", ("LD", "pivots"), (LD, piv))
    return _finish_out(out, result, "linalg_ldl_factor")


def _ldl_solve_matrix(xp, A, piv, B, herm):
    """LAPACK's ``?sytrs``/``?hetrs`` (lower): ``B`` (n, k) overwritten by the solution."""
    n = A.shape[-1]
    cplx = xp.iscomplexobj(A)

    def cj(x):
        return xp.conj(x) if herm and cplx else x

    def swap(i, j):
        if i != j:
            t = B[i].copy()
            B[i] = B[j]
            B[j] = t

    k = 0
    while k < n:  # solve P L D y = b
        if piv[k] > 0:
            swap(k, int(piv[k]) - 1)
            B[k + 1:] -= xp.outer(A[k + 1:, k], B[k])
            B[k] = B[k] / (A[k, k].real if herm and cplx else A[k, k])
            k += 1
        else:
            swap(k + 1, -int(piv[k]) - 1)
            if k + 2 < n:
                B[k + 2:] -= xp.outer(A[k + 2:, k], B[k]) + xp.outer(A[k + 2:, k + 1], B[k + 1])
            akm1k = A[k + 1, k]
            akm1 = A[k, k] / cj(akm1k)
            ak = A[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1 = B[k] / cj(akm1k)
            bk = B[k + 1] / akm1k
            B[k] = (ak * bkm1 - bk) / denom
            B[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # solve L^T P^T x = y
        if piv[k] > 0:
            if k + 1 < n:
                B[k] -= cj(A[k + 1:, k]) @ B[k + 1:]
            swap(k, int(piv[k]) - 1)
            k -= 1
        else:
            if k + 1 < n:
                B[k] -= cj(A[k + 1:, k]) @ B[k + 1:]
                B[k - 1] -= cj(A[k + 1:, k - 1]) @ B[k + 1:]
            swap(k, -int(piv[k]) - 1)
            k -= 2
    return B


@register("copy", name="linalg_ldl_solve", method=False, function=False)
def linalg_ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``; batch dims broadcast."""
    name = "torch.linalg.ldl_solve"
    for arg, t in (("LD", LD), ("pivots", pivots), ("B", B)):
        _check_tensor("linalg_ldl_solve", t, arg)
    device = check_same_device([LD, pivots, B])
    if LD.dim() < 2:
        raise TensorRuntimeError(f"{name}: LD should have at least 2 dimensions, but has "
                                 f"{LD.dim()} dimensions instead")
    if LD._shape[-1] != LD._shape[-2]:
        raise TensorRuntimeError(
            f"{name}: A must be batches of square matrices, but they are {LD._shape[-2]} by "
            f"{LD._shape[-1]} matrices")
    if B.dim() < 2:
        raise TensorIndexError(
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if B._dtype is not LD._dtype:
        raise TensorRuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{B._dtype._torch_name} and A of type {LD._dtype._torch_name} instead.")
    if pivots._dtype is not _dtypes.int32:
        raise TensorRuntimeError(f"{name}: Expected pivots to be integers. Got "
                                 f"{pivots._dtype._torch_name}")
    _check_float(name, LD)
    batch = _check_system(name, LD, B, True)
    xp = _xp(LD)
    n = LD._shape[-1]
    lds = xp.broadcast_to(LD._array(), batch + (n, n)).reshape((-1, n, n))
    pivs = xp.broadcast_to(pivots._array(), batch + (n,)).reshape((-1, n))
    bs = xp.broadcast_to(B._array(), batch + tuple(B._shape[-2:])).reshape(
        (-1,) + tuple(B._shape[-2:]))
    with quiet():
        xs = [_ldl_solve_matrix(xp, lds[i], pivs[i], xp.array(bs[i], copy=True), hermitian)
              for i in range(lds.shape[0])]
    X = (xp.stack(xs) if xs else xp.zeros(bs.shape, bs.dtype)).reshape(
        batch + tuple(B._shape[-2:]))
    return _finish_out(out, _colmajor(xp, X, LD._dtype, device), "linalg_ldl_solve")


def _finish_out(out, result, name):
    """``result``, or with ``out=`` (a tensor, or a tuple for a tuple result) the result
    written into ``out``: dtypes checked first, each resized to its result's layout."""
    if out is None:
        return result
    if not isinstance(result, tuple):
        return _write_single_out(out, result, name)
    if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
        raise TensorTypeError(
            f"{name}(): argument 'out' must be tuple of Tensors, not {type_name(out)}")
    if len(out) != len(result):
        raise TensorTypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for o, r in zip(out, result, strict=True):
        check_out(o, name, r._dtype)
    for o, r in zip(out, result, strict=True):
        _write_single_out(o, r, name)
    return type(result)(tuple(out))
