"""Derivatives of linear algebra: products (matmul and its rank cases, mm, bmm, dot, mv,
addmm, einsum, tensordot, kron...), norms, determinants, inverses, solvers and the
decompositions (Cholesky, QR, eigh, SVD), following PyTorch's formulas
(``torch/csrc/autograd/FunctionsManual.cpp``) and its node names.

PyTorch implements several of these ops as compositions (``matmul`` of a batch ends in
``_unsafe_view``, ``einsum`` in ``view``/``mul``/``permute``/``sum``, ``matrix_norm(A, 2)`` in
``amax(svdvals(A))``); the node is named after the op PyTorch shows on the output, and the
gradient is the composition's.

Every formula is written with public jtensor ops so that ``create_graph=True``
differentiates it. Decompositions assume what PyTorch assumes: distinct eigenvalues and
singular values, and a loss invariant to the eigenvectors' signs (phases).
"""

import math

from ... import linalg
from .._composites import (recorded_einsum, recorded_kron, recorded_matmul, recorded_matrix_power,
                           recorded_multi_dot, recorded_outer, recorded_tensordot,
                           recorded_vecdot)
from ..._api import ops as J
from ..grad_mode import is_grad_enabled
from . import _fast
from ._core import Shaped, derivative, nondifferentiable, saved_if
from .reductions import _norm_backward


def _mh(t):
    """The conjugate transpose of the last two dims (``t.mH``)."""
    t = t.transpose(-2, -1)
    return t.conj() if t.is_complex() else t


def _conj(t):
    return t.conj() if t.is_complex() else t


def _output(saved, recompute):
    """The op's saved output, or the output recomputed from the saved inputs when this
    backward is itself recorded (``create_graph=True``) and the saved output carries no
    history to differentiate through."""
    if not is_grad_enabled():
        return saved
    if isinstance(saved, (list, tuple)):
        if all(t is None or t.requires_grad for t in saved):
            return saved
    elif saved.requires_grad:
        return saved
    return recompute()


def _scale(g, s):
    """``g * conj(s)`` for a Python scalar ``s``, skipping the multiplication by 1."""
    if isinstance(s, complex):
        s = s.conjugate()
    return g if s == 1 else g * s


# ---------------------------------------------------------------------- products

def _matmul_name(v):
    a, b = v["input"], v["other"]
    da, db = a.dim(), b.dim()
    if da == 1 and db == 1:
        return "DotBackward0"
    if da == 2 and db == 1:
        return "MvBackward0"
    if da == 1 and db == 2:
        return "SqueezeBackward4"
    if da == 2 and db == 2:
        return "MmBackward0"
    if da == 2 and db >= 3 and a.requires_grad:
        # PyTorch folds (2-D) @ (batch) into one mm on the transposed batch when the matrix
        # requires grad, and copies the transposed result back with ``contiguous()``: a
        # CloneBackward0, unless that transpose is already contiguous.
        n, p = a.shape[0], b.shape[-1]
        if n == 1 or p == 1 or a.shape[0] * b.numel() == 0:
            return "TransposeBackward0"
        return "CloneBackward0"
    return "UnsafeViewBackward0"


# (PyTorch's order for a product of matrices, the common case; a 1-D operand's dot and mv
# save theirs the other way round.)
@derivative("matmul", inputs=("input", "other"), save=("other", "input"), name=_matmul_name,
            save_for={"other": ("input",), "input": ("other",)})
def matmul_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    # Each operand read only for the other's gradient (PyTorch saves them so).
    a = saved_if(ctx, "input", need_b, 0)
    b = saved_if(ctx, "other", need_a, 1)
    da, db = a.dim(), b.dim()
    if da == 1 and db == 1:
        return (g * _conj(b) if need_a else None, g * _conj(a) if need_b else None)
    a2 = a.unsqueeze(0) if da == 1 and need_b else a
    b2 = b.unsqueeze(-1) if db == 1 and need_a else b
    g2 = g
    if da == 1:
        g2 = g2.unsqueeze(-2)
    if db == 1:
        g2 = g2.unsqueeze(-1)
    ga = gb = None
    if need_a:
        ga = g2.matmul(_mh(b2))
        if da == 1:
            ga = ga.squeeze(-2)
    if need_b:
        if max(da, 2) >= 3 and max(db, 2) == 2:
            # ``b`` is shared by every matrix of ``a``'s batch: its gradient is one product
            # over the folded rows, (k, B*m) @ (B*m, n), where BLAS does the sum over the
            # batch (not a batch of products summed afterwards).
            gb = _mh(a2.reshape(-1, a2.shape[-1])).matmul(g2.reshape(-1, g2.shape[-1]))
        else:
            gb = _mh(a2).matmul(g2)
        if db == 1:
            gb = gb.squeeze(-1)
    return ga, gb  # the engine sums broadcast batch dims


def _column_major(meta):
    """Whether a matrix input was column-major (a transposed contiguous matrix, as the
    weight ``w.t()`` of ``linear``): PyTorch's test in mm_mat1/mm_mat2_backward."""
    shape, stride = meta[0], meta[3]
    return len(shape) == 2 and stride[0] == 1 and stride[1] == shape[0]


def _mat1_grad(g, mat2, meta1):
    """``g @ mat2^H``; for a column-major ``mat1``, computed as ``(conj(mat2) @ g^T)^T`` so
    the gradient has ``mat1``'s layout (PyTorch's mm_mat1_backward: BLAS takes the
    transposed operands as they are, and the leaf keeps the gradient without a copy)."""
    return _product_grad(g, mat2, meta1, True)


def _mat2_grad(g, mat1, meta2):
    """``mat1^H @ g``; for a column-major ``mat2`` (``linear``'s ``weight.t()``), computed as
    ``(g^T @ conj(mat1))^T`` (PyTorch's mm_mat2_backward), so ``weight.grad`` comes out
    contiguous."""
    return _product_grad(g, mat1, meta2, False)


def _product_grad(g, other, meta, first):
    """The gradient of a product's first (``first``) or second matrix, in the layout
    ``meta`` records; on the arrays in a plain pass (``_fast.mm_grad``)."""
    fast = _fast.product_grad(g, other, meta, first)
    if fast is not None:
        return fast
    column = _column_major(meta)
    if first:
        return _conj(other).mm(g.t()).t() if column else g.mm(_mh(other))
    return g.t().mm(_conj(other)).t() if column else _mh(other).mm(g)


@derivative("mm", inputs=("input", "mat2"), save=("mat2", "input"),
            save_for={"mat2": ("input",), "input": ("mat2",)})
def mm_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    return (_mat1_grad(g, ctx.mat2, ctx.input_meta(0)) if need_a else None,
            _mat2_grad(g, ctx.input, ctx.input_meta(1)) if need_b else None)


@derivative("bmm", inputs=("input", "mat2"), save=("mat2", "input"),
            save_for={"mat2": ("input",), "input": ("mat2",)})
def bmm_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    return (g.bmm(_mh(ctx.mat2)) if need_a else None,
            _mh(ctx.input).bmm(g) if need_b else None)


@derivative("dot", inputs=("input", "tensor"), save=("input", "tensor"),
            save_for={"tensor": ("input",), "input": ("tensor",)})
def dot_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    return (g * _conj(ctx.tensor) if need_a else None,
            g * _conj(ctx.input) if need_b else None)


@derivative("vdot", inputs=("input", "other"), save=("other", "input"),
            save_for={"other": ("input",), "input": ("other",)})
def vdot_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    return (_conj(g) * ctx.other if need_a else None,
            g * ctx.input if need_b else None)


@derivative("outer", inputs=("input", "vec2"), save=("input", "vec2"), name="MulBackward0")
def outer_backward(ctx, g):
    # PyTorch: input.reshape(-1, 1) * vec2
    need_a, need_b = ctx.needs_input_grad
    return ((g * _conj(ctx.vec2)).sum(1) if need_a else None,
            (g * _conj(ctx.input).unsqueeze(1)).sum(0) if need_b else None)


@derivative("mv", inputs=("input", "vec"), save=("input", "vec"),
            save_for={"vec": ("input",), "input": ("vec",)})
def mv_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    return (g.unsqueeze(1) * _conj(ctx.vec) if need_a else None,
            _mh(ctx.input).mv(g) if need_b else None)


@derivative("addmm", inputs=("input", "mat1", "mat2"), save=("mat1", "mat2"),
            save_for={"mat1": ("mat2",), "mat2": ("mat1",)})
def addmm_backward(ctx, g):
    need_i, need_1, need_2 = ctx.needs_input_grad
    values = ctx._values
    if "alpha" not in values and "beta" not in values:
        # (alpha and beta 1: every linear layer) on the arrays in a plain pass
        grads = _fast.addmm_grads(ctx, g, need_i, need_1, need_2)
        if grads is not None:
            return grads
    return (_scale(g, ctx.beta) if need_i else None,
            _scale(_mat1_grad(g, ctx.mat2, ctx.input_meta(1)), ctx.alpha) if need_1 else None,
            _scale(_mat2_grad(g, ctx.mat1, ctx.input_meta(2)), ctx.alpha) if need_2 else None)


@derivative("baddbmm", inputs=("input", "batch1", "batch2"), save=("batch1", "batch2"))
def baddbmm_backward(ctx, g):
    need_i, need_1, need_2 = ctx.needs_input_grad
    return (_scale(g, ctx.beta) if need_i else None,
            _scale(g.bmm(_mh(ctx.batch2)), ctx.alpha) if need_1 else None,
            _scale(_mh(ctx.batch1).bmm(g), ctx.alpha) if need_2 else None)


@derivative("trace")
def trace_backward(ctx, g):
    n, m = ctx.input_meta(0)[0]
    return J.eye(n, m, dtype=g.dtype, device=g.device) * g


@derivative("kron", inputs=("input", "other"), save=("input", "other"),
            name="UnsafeViewBackward0")
def kron_backward(ctx, g):
    a, b = ctx.input, ctx.other
    need_a, need_b = ctx.needs_input_grad
    nd = max(a.dim(), b.dim())
    sa = (1,) * (nd - a.dim()) + tuple(a.shape)
    sb = (1,) * (nd - b.dim()) + tuple(b.shape)
    # result[i * sb + j] = a[i] * b[j]: split each dim of g into (a's, b's)
    inter = tuple(x for pair in zip(sa, sb, strict=True) for x in pair)
    g2 = g.reshape(inter)
    a_dims = tuple(range(0, 2 * nd, 2))
    b_dims = tuple(range(1, 2 * nd, 2))
    a_int = a.reshape(tuple(x for s in sa for x in (s, 1)))
    b_int = b.reshape(tuple(x for s in sb for x in (1, s)))
    ga = gb = None
    if need_a:
        ga = (g2 * _conj(b_int)).sum(b_dims).reshape(tuple(a.shape)) if nd else g2 * _conj(b)
    if need_b:
        gb = (g2 * _conj(a_int)).sum(a_dims).reshape(tuple(b.shape)) if nd else g2 * _conj(a)
    return ga, gb


def _tensordot_dims(a, b, dims):
    if hasattr(dims, "tolist"):
        dims = dims.tolist()
    if isinstance(dims, int):
        return list(range(a.dim() - dims, a.dim())), list(range(dims))

    def norm(ds, nd):
        if hasattr(ds, "tolist"):
            ds = ds.tolist()
        if isinstance(ds, int):
            ds = [ds]
        return [d % nd if nd else d for d in ds]

    return norm(dims[0], a.dim()), norm(dims[1], b.dim())


def _argsort(seq):
    return sorted(range(len(seq)), key=lambda i: seq[i])


@derivative("tensordot", inputs=("a", "b"), save=("a", "b"), name="ViewBackward0")
def tensordot_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    a = saved_if(ctx, "a", need_b, 0)
    b = saved_if(ctx, "b", need_a, 1)
    dims_a, dims_b = _tensordot_dims(a, b, ctx.dims)
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    nfa, nfb = len(free_a), len(free_b)
    ga = gb = None
    if need_a:
        ga = J.tensordot(g, _conj(b), dims=(list(range(nfa, nfa + nfb)), free_b))
        order = free_a + [dims_a[dims_b.index(d)] for d in sorted(dims_b)]
        ga = ga.permute(_argsort(order))
        if tuple(ga.shape) != tuple(a.shape):
            ga = _fit_contracted(ga, a.shape)
    if need_b:
        gb = J.tensordot(_conj(a), g, dims=(free_a, list(range(nfa))))
        order = [dims_b[dims_a.index(d)] for d in sorted(dims_a)] + free_b
        gb = gb.permute(_argsort(order))
        if tuple(gb.shape) != tuple(b.shape):
            gb = _fit_contracted(gb, b.shape)
    return ga, gb


def _fit_contracted(g, shape):
    """A contracted dim of size 1 on the other side broadcast: expand it back (the engine
    sums the dims where this input had size 1)."""
    target = [s if gs == 1 else gs for gs, s in zip(g.shape, shape, strict=True)]
    return g.expand(target)


# ---------------------------------------------------------------------- einsum

def _einsum_operands(v):
    ops = v.get("operands") or ()
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    return list(ops)


def _einsum_labels(equation, ops):
    """Explicit labels (one letter per dim, ellipsis dims named too) of each operand and of
    the output, and a source of unused letters."""
    from ..._ops.products import _einsum_parse

    _, parsed, out, _ = _einsum_parse(equation, ops)
    used = {lab for labels, _ in parsed for lab in labels if lab is not None}
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
    ell = 0
    for (labels, _), t in zip(parsed, ops, strict=True):
        if None in labels:
            ell = max(ell, t.dim() - (len(labels) - 1))
    ell_letters = [free.pop(0) for _ in range(ell)]
    explicit = []
    for (labels, _), t in zip(parsed, ops, strict=True):
        row = []
        for lab in labels:
            if lab is None:
                k = t.dim() - (len(labels) - 1)
                row.extend(ell_letters[ell - k:])
            else:
                row.append(lab)
        explicit.append(row)
    out_labels = []
    for lab in out:
        if lab is None:
            out_labels.extend(ell_letters)
        else:
            out_labels.append(lab)
    return explicit, out_labels, free


def _einsum_name(v):
    ops = _einsum_operands(v)
    try:
        explicit, out, _ = _einsum_labels(v["equation"], ops)
    except Exception:  # noqa: BLE001 - the op itself raised the error already
        return "EinsumBackward0"
    contracted = {lab for row in explicit for lab in row} - set(out)
    if len(ops) == 1:
        return "SumBackward1" if contracted else "PermuteBackward0"
    return "ViewBackward0" if contracted else "MulBackward0"


@derivative("einsum", inputs=("operands",), save=("operands",), name=_einsum_name)
def einsum_backward(ctx, g):
    entries = ctx._saved.get("operands")
    if entries.__class__ is list:
        # Each operand read (version-checked) only where another operand's gradient uses
        # it, as PyTorch's: ``einsum("ij,jk", a, w)`` with a constant ``a`` never reads ``w``.
        wanted = [ctx.next_functions[i][0] is not None for i in range(len(entries))]
        needed = [sum(wanted) - w > 0 for w in wanted]
        ops = [e.unpack(ctx) if need else Shaped(ctx.input_meta(i))
               for i, (e, need) in enumerate(zip(entries, needed, strict=True))]
    else:
        ops = list(ctx.operands)
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = list(ops[0])
        wanted = [t.requires_grad for t in ops]
    explicit, out, free = _einsum_labels(ctx.equation, ops)
    sizes = {}
    for row, t in zip(explicit, ops, strict=True):
        for lab, s in zip(row, t.shape, strict=True):
            if sizes.get(lab, 1) == 1:
                sizes[lab] = s
    needs = ctx.needs_input_grad[0]
    grads = []
    for i in range(len(ops)):
        if not needs or not wanted[i]:
            grads.append(None)
            continue
        terms = ["".join(out)]
        operands = [g]
        others = set(out)
        for j, o in enumerate(ops):
            if j == i:
                continue
            full = [sizes[lab] for lab in explicit[j]]
            if list(o.shape) != full:
                o = o.expand(full)
            terms.append("".join(explicit[j]))
            operands.append(_conj(o))
            others.update(explicit[j])
        spare = list(free)
        target = []
        seen = set()
        for lab in explicit[i]:
            if lab in seen:  # a repeated label: the gradient lives on the diagonal
                new = spare.pop(0)
                terms.append(lab + new)
                operands.append(J.eye(sizes[lab], dtype=g.dtype, device=g.device))
                target.append(new)
                continue
            seen.add(lab)
            target.append(lab)
            if lab not in others:  # summed in this operand only: the gradient broadcasts
                terms.append(lab)
                operands.append(J.ones(sizes[lab], dtype=g.dtype, device=g.device))
        spec = ",".join(terms) + "->" + "".join(target)
        grads.append(J.einsum(spec, *operands))
    return (grads,)


# ---------------------------------------------------------------------- norms

def _wrap_dims(dim, nd):
    if dim is None:
        return list(range(nd))
    if isinstance(dim, int):
        dim = [dim]
    return [d % nd if nd else d for d in dim]


def _unsqueeze_dims(t, dims):
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def _vector_norm_grad(x, g, norm, p, dim, keepdim):
    """PyTorch's ``norm_backward`` (shared with ``norm``, ``dist`` and ``renorm``)."""
    return _norm_backward(g, x, p, norm, _wrap_dims(dim, x.dim()), keepdim)


@derivative("linalg_vector_norm", inputs=("input",), save=("input", "result"))
def linalg_vector_norm_backward(ctx, g):
    x = ctx.input
    norm = _output(ctx.result, lambda: linalg.vector_norm(x, ctx.ord, ctx.dim, ctx.keepdim,
                                                             dtype=ctx.dtype))
    return _vector_norm_grad(x, g, norm, ctx.ord, ctx.dim, ctx.keepdim)


def _matrix_norm_name(ord, keepdim):
    if ord == "fro":
        return "LinalgVectorNormBackward0"
    if ord in ("nuc", 2, -2):
        if keepdim:
            return "PermuteBackward0"
        return {"nuc": "SumBackward1", 2: "AmaxBackward0", -2: "AminBackward0"}[ord]
    return "AmaxBackward0" if ord > 0 else "AminBackward0"


def _amax_grad(values, g, dim, largest):
    """Gradient of amax/amin over ``dim`` (kept), shared evenly among the ties."""
    best = values.amax(dim, keepdim=True) if largest else values.amin(dim, keepdim=True)
    mask = values == best
    return g * mask / mask.sum(dim, keepdim=True)


def _matrix_norm_grad(A, g, result, ord, dims, keepdim):
    d0, d1 = dims
    if ord == "fro":
        return _vector_norm_grad(A, g, result, 2, [d0, d1], keepdim)
    if not keepdim:
        g = _unsqueeze_dims(g, [d0, d1])
    if ord in ("nuc", 2, -2):
        Am = A.movedim((d0, d1), (-2, -1))
        gm = g.movedim((d0, d1), (-2, -1)).squeeze(-1)  # (..., 1)
        U, S, Vh = linalg.svd(Am, full_matrices=False)
        if ord == "nuc":
            gS = gm.expand(S.shape)
        else:
            gS = _amax_grad(S, gm, -1, ord == 2)
        gA = (U * gS.unsqueeze(-2)).matmul(Vh)
        return gA.movedim((-2, -1), (d0, d1))
    # +-1: max over columns (d1) of the column sums over d0; +-inf: the other way round
    if math.isinf(ord):
        d0, d1 = d1, d0
    sums = A.abs().sum(d0, keepdim=True)
    return A.sgn() * _amax_grad(sums, g, d1, ord > 0)


@derivative("linalg_matrix_norm", inputs=("input",), save=("input", "result"),
            name=lambda v: _matrix_norm_name(v.get("ord", "fro"), v.get("keepdim", False)))
def linalg_matrix_norm_backward(ctx, g):
    A = ctx.input
    dims = _wrap_dims(ctx.dim, A.dim())
    result = _output(ctx.result, lambda: linalg.matrix_norm(A, ctx.ord, ctx.dim, ctx.keepdim,
                                                               dtype=ctx.dtype))
    return _matrix_norm_grad(A, g, result, ctx.ord, dims, ctx.keepdim)


def _norm_kind(v):
    """('matrix', ord, dim) or ('vector', ord, dim) as linalg.norm decides."""
    A, ord, dim = v["input"], v.get("ord"), v.get("dim")
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    matrix = (dim is not None and len(dim) == 2) or (dim is None and ord is not None
                                                      and A.dim() == 2)
    if matrix:
        return "matrix", ("fro" if ord is None else ord), (dim if dim is not None else (-2, -1))
    return "vector", (2 if ord is None else ord), dim


def _norm_name(v):
    kind, ord, _ = _norm_kind(v)
    if kind == "vector":
        return "LinalgVectorNormBackward0"
    return _matrix_norm_name(ord, v.get("keepdim", False))


@derivative("linalg_norm", inputs=("input",), save=("input", "result"), name=_norm_name)
def linalg_norm_backward(ctx, g):
    A = ctx.input
    kind, ord, dim = _norm_kind({"input": A, "ord": ctx.ord, "dim": ctx.dim})
    result = _output(ctx.result, lambda: linalg.norm(A, ctx.ord, ctx.dim, ctx.keepdim,
                                                        dtype=ctx.dtype))
    if kind == "vector":
        return _vector_norm_grad(A, g, result, ord, dim, ctx.keepdim)
    return _matrix_norm_grad(A, g, result, ord, _wrap_dims(dim, A.dim()), ctx.keepdim)


# ---------------------------------------------------------------------- determinants

def _det_grad(A, det, g):
    """``g conj(det) A^{-H}``. PyTorch 2.13 gives a singular matrix (``det == 0``) a zero
    gradient; the inverse is taken of the identity there instead."""
    n = A.shape[-1]
    if n == 0:
        return J.zeros(tuple(A.shape), dtype=g.dtype, device=g.device)
    scale = (g * _conj(det)).unsqueeze(-1).unsqueeze(-1)
    singular = det == 0
    if bool(singular.any()):
        mask = singular.unsqueeze(-1).unsqueeze(-1)
        A = J.where(mask, _eye_like(n, A), A)
    return scale * _mh(linalg.inv(A))


@derivative("linalg_det", inputs=("A",), save=("A", "result"), name="LinalgDetBackward0")
def linalg_det_backward(ctx, g):
    A = ctx.A
    return _det_grad(A, _output(ctx.result, lambda: linalg.det(A)), g)


@derivative("det", save=("input", "result"), name="LinalgDetBackward0")
def det_backward(ctx, g):
    A = ctx.input
    return _det_grad(A, _output(ctx.result, lambda: linalg.det(A)), g)


def _slogdet_grad(A, g_sign, g_logabs):
    if A.is_complex():
        # d logabs = Re tr(A^-1 dA), d sign = i sign Im tr(A^-1 dA)
        sign, _ = linalg.slogdet(A)
        g = J.zeros((), dtype=A.dtype) if g_logabs is None else g_logabs.to(A.dtype)
        if g_sign is not None:
            g = g - 1j * (g_sign.conj() * sign).imag
        return g.unsqueeze(-1).unsqueeze(-1) * _mh(linalg.inv(A))
    if g_logabs is None:
        return None
    return g_logabs.unsqueeze(-1).unsqueeze(-1) * _mh(linalg.inv(A))


@derivative("linalg_slogdet", inputs=("A",), save=("A",), name="LinalgSlogdetBackward0",
            multi_grad=True)
def linalg_slogdet_backward(ctx, g_sign, g_logabs):
    return _slogdet_grad(ctx.A, g_sign, g_logabs)


@derivative("slogdet", save=("input",), name="LinalgSlogdetBackward0", multi_grad=True)
def slogdet_backward(ctx, g_sign, g_logabs):
    return _slogdet_grad(ctx.input, g_sign, g_logabs)


@derivative("logdet", save=("input", "result"),
            name=lambda v: "AddBackward0" if v["input"].is_complex() else "WhereBackward0")
def logdet_backward(ctx, g):
    A = ctx.input
    if not A.is_complex():
        # logdet = where(sign == -1, nan, logabsdet): no gradient where the det is negative
        g = J.where(ctx.result.isnan(), J.zeros((), dtype=g.dtype), g)
    return g.unsqueeze(-1).unsqueeze(-1) * _mh(linalg.inv(A))


# ---------------------------------------------------------------------- inverse, solve

def _inv_grad(inv, g):
    ih = _mh(inv)
    return -ih.matmul(g.matmul(ih))


@derivative("linalg_inv", inputs=("A",), save=("A", "result"), name="LinalgInvExBackward0")
def linalg_inv_backward(ctx, g):
    A = ctx.A
    return _inv_grad(_output(ctx.result, lambda: linalg.inv(A)), g)


@derivative("linalg_inv_ex", inputs=("A",), save=("A", "result"), name="LinalgInvExBackward0",
            multi_grad=True, nondiff_outputs=(1,))
def linalg_inv_ex_backward(ctx, g, *_info):
    if g is None:
        return None
    A = ctx.A
    return _inv_grad(_output(ctx.result[0], lambda: linalg.inv(A)), g)


@derivative("inverse", save=("input", "result"), name="LinalgInvExBackward0")
def inverse_backward(ctx, g):
    A = ctx.input
    return _inv_grad(_output(ctx.result, lambda: linalg.inv(A)), g)


@derivative("linalg_solve", inputs=("A", "B"), save=("A", "B", "result"),
            name="LinalgSolveExBackward0")
def linalg_solve_backward(ctx, g):
    A, left = ctx.A, ctx.left
    X = _output(ctx.result, lambda: linalg.solve(A, ctx.B, left=left))
    return _solve_grad(ctx, A, X, g, left)


@derivative("linalg_solve_ex", inputs=("A", "B"), save=("A", "B", "result"),
            name="LinalgSolveExBackward0", multi_grad=True, nondiff_outputs=(1,))
def linalg_solve_ex_backward(ctx, g, *_info):
    if g is None:
        return None, None
    A, left = ctx.A, ctx.left
    X = _output(ctx.result[0], lambda: linalg.solve(A, ctx.B, left=left))
    return _solve_grad(ctx, A, X, g, left)


def _solve_grad(ctx, A, X, g, left):
    """gB = A^{-H} g (from the left or the right), gA = -gB X^H (or -X^H gB)."""
    need_a, need_b = ctx.needs_input_grad
    a_shape = ctx.input_meta(0)[0]
    b_shape = ctx.input_meta(1)[0]
    vector = len(b_shape) == 1 or (left and len(b_shape) == len(a_shape) - 1
                                   and tuple(b_shape) == tuple(a_shape[:-1]))
    gm = g.unsqueeze(-1) if vector else g
    Xm = X.unsqueeze(-1) if vector else X
    gB = linalg.solve(_mh(A), gm, left=left)
    gA = None
    if need_a:
        gA = -gB.matmul(_mh(Xm)) if left else -_mh(Xm).matmul(gB)
    if need_b:
        gB = gB.squeeze(-1) if vector else gB
    else:
        gB = None
    return gA, gB


# ---------------------------------------------------------------------- decompositions

def _eye_like(n, t):
    return J.eye(n, dtype=t.dtype, device=t.device)


@derivative("linalg_cholesky", inputs=("input",), save=("input", "result"),
            name="LinalgCholeskyExBackward0")
def linalg_cholesky_backward(ctx, g):
    L = _output(ctx.result, lambda: linalg.cholesky(ctx.input, upper=ctx.upper))
    return _cholesky_grad(L, g, ctx.upper)


@derivative("linalg_cholesky_ex", inputs=("input",), save=("input", "result"),
            name="LinalgCholeskyExBackward0", multi_grad=True, nondiff_outputs=(1,))
def linalg_cholesky_ex_backward(ctx, g, *_info):
    if g is None:
        return None
    L = _output(ctx.result[0], lambda: linalg.cholesky(ctx.input, upper=ctx.upper))
    return _cholesky_grad(L, g, ctx.upper)


def _cholesky_grad(L, g, upper):
    # Iain Murray (2016), arXiv:1602.07527, as in PyTorch's cholesky_backward
    if upper:
        L = _mh(L)
        g = _mh(g)
    n = L.shape[-1]
    L_inv = linalg.solve(L, _eye_like(n, L).expand(tuple(L.shape)))
    phi = _mh(L).matmul(g).tril()
    phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
    gA = _mh(L_inv).matmul(phi).matmul(L_inv)
    return 0.5 * (gA + _mh(gA))


def _copyltu(M):
    """The Hermitian matrix with ``M``'s strictly lower triangle and the real part of its
    diagonal (R's diagonal is real, so only that part of its phase gauge is fixed)."""
    low = M.tril(-1)
    diag = M.diagonal(0, -2, -1)
    if diag.is_complex():
        diag = diag.real.to(M.dtype)
    return low + _mh(low) + diag.diag_embed()


def _qr_square_grad(gQ, gR, Q, R):
    """gA for A = QR with m >= n: (gQ + Q copyltu(M)) R^{-H}, M = R gR^H - gQ^H Q."""
    M = R.matmul(_mh(gR)) - _mh(gQ).matmul(Q)
    B = gQ + Q.matmul(_copyltu(M))
    return linalg.solve(_mh(R), B, left=False)


@derivative("linalg_qr", inputs=("A",), save=("A", "result"), name="LinalgQrBackward0",
            multi_grad=True)
def linalg_qr_backward(ctx, gQ, gR):
    return _qr_grad(ctx.A, ctx.mode, ctx.result, gQ, gR)


def _qr_grad(A, mode, result, gQ, gR):
    from ..._errors import TensorRuntimeError

    if mode == "r":
        raise TensorRuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr.")
    Q, R = _output(result, lambda: linalg.qr(A, mode=mode))
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise TensorRuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and "
            "nrows > ncols.")
    if gQ is None:
        gQ = J.zeros_like(Q)
    if gR is None:
        gR = J.zeros_like(R)
    if m >= n:
        return _qr_square_grad(gQ, gR, Q, R)
    # A = Q [U | V] with U square: X = A[:, :m] = QU is a square QR; Y = A[:, m:] = QV
    U = R.narrow(-1, 0, m)
    V = R.narrow(-1, m, n - m)
    gU = gR.narrow(-1, 0, m)
    gV = gR.narrow(-1, m, n - m)
    Y = Q.matmul(V)
    gX = _qr_square_grad(gQ + Y.matmul(_mh(gV)), gU, Q, U)
    gY = Q.matmul(gV)
    return J.cat([gX, gY], -1)


def _eigh_grad(gL, gV, L, V):
    """PyTorch's linalg_eig_backward for Hermitian input: V (diag(gL) + skew(V^H gV) / E) V^H
    with E_ij = L_j - L_i."""
    if gV is None:
        return (V * gL.unsqueeze(-2).to(V.dtype)).matmul(_mh(V))
    n = L.shape[-1]
    VhgV = _mh(V).matmul(gV)
    VhgV = 0.5 * (VhgV - _mh(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye_like(n, L)
    inner = VhgV / E
    if V.is_complex():
        inner = inner - inner.diagonal(0, -2, -1).diag_embed()
    if gL is not None:
        inner = inner + gL.diag_embed()
    return V.matmul(inner.matmul(_mh(V)))


@derivative("linalg_eigh", inputs=("input",), save=("input", "result"), name="LinalgEighBackward0",
            multi_grad=True)
def linalg_eigh_backward(ctx, gL, gV):
    L, V = _output(ctx.result, lambda: linalg.eigh(ctx.input, UPLO=ctx.UPLO))
    return _eigh_grad(gL, gV, L, V)


@derivative("linalg_eigvalsh", inputs=("input",), save=("input",), name="LinalgEighBackward0")
def linalg_eigvalsh_backward(ctx, g):
    L, V = linalg.eigh(ctx.input, UPLO=ctx.UPLO)
    return _eigh_grad(g, None, L, V)


def _svd_grad(gU, gS, gVh, U, S, Vh):
    """PyTorch's svd_backward (reduced U, Vh; distinct singular values)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        if m >= n:
            return U.matmul(gS.unsqueeze(-1).to(Vh.dtype) * Vh)
        return (U * gS.unsqueeze(-2).to(U.dtype)).matmul(Vh)
    k = S.shape[-1]

    def skew(X):
        return X - _mh(X)

    UhgU = skew(_mh(U).matmul(gU)) if gU is not None else None
    VhgV = skew(Vh.matmul(_mh(gVh))) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye_like(k, S2)
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is None:
        gA = S.unsqueeze(-1) * VhgV / E
    else:
        gA = UhgU * S.unsqueeze(-2) / E
    if gS is not None:
        gA = gA + gS.diag_embed()
    if U.is_complex() and gU is not None:
        gA = gA + (UhgU.diagonal(0, -2, -1) / (2 * S)).diag_embed()
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(_mh(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:
        gA = gA.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - SinvgVh.matmul(_mh(Vh)).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


@derivative("linalg_svd", inputs=("A",), save=("A", "result"), name="LinalgSvdBackward0",
            multi_grad=True)
def linalg_svd_backward(ctx, gU, gS, gVh):
    U, S, Vh = _output(ctx.result,
                       lambda: linalg.svd(ctx.A, full_matrices=ctx.full_matrices))
    if ctx.full_matrices:
        # Only the first k columns of U (rows of Vh) are determined by A
        k = S.shape[-1]
        U = U.narrow(-1, 0, k)
        Vh = Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    return _svd_grad(gU, gS, gVh, U, S, Vh)


@derivative("linalg_svdvals", inputs=("A",), save=("A",), name="LinalgSvdBackward0")
def linalg_svdvals_backward(ctx, g):
    U, S, Vh = linalg.svd(ctx.A, full_matrices=False)
    return _svd_grad(None, g, None, U, S, Vh)


nondifferentiable("linalg_matrix_rank")


@derivative("linalg_pinv", inputs=("input",), save=("input", "result"),
            name="LinalgPinvBackward0")
def linalg_pinv_backward(ctx, g):
    A = ctx.input
    P = _output(ctx.result, lambda: linalg.pinv(A, atol=ctx.atol, rtol=ctx.rtol,
                                                     hermitian=ctx.hermitian, rcond=ctx.rcond))
    return _pinv_grad(A, P, g)


def _pinv_grad(A, P, g):
    """PyTorch's pinv_backward: the gradient through P = pinv(A) (constant rank)."""
    m, n = A.shape[-2], A.shape[-1]
    Ph = _mh(P)
    gh = _mh(g)
    if m <= n:
        K = gh.matmul(P)
        KPh = K.matmul(Ph)
        return (-_mh(P.matmul(K)) + KPh - A.matmul(P).matmul(KPh)
                + Ph.matmul(P).matmul(gh - K.matmul(A)))
    K = P.matmul(gh)
    PhK = Ph.matmul(K)
    return (-_mh(K.matmul(P)) + (gh - A.matmul(K)).matmul(P).matmul(Ph) + PhK
            - PhK.matmul(P).matmul(A))


# ---------------------------------------------------------------------- products of many

def _matrix_power_name(v):
    n = v["n"]
    if n == 0:
        return "torch::autograd::CopyBackwards"
    if n == 1:
        return "CloneBackward0"
    if n == -1:
        return "LinalgInvExBackward0"
    return "MmBackward0" if v["input"].dim() == 2 else "UnsafeViewBackward0"


def _power_grad(B, g, k):
    """Gradient of B^k (k >= 1): sum_j (B^H)^j g (B^H)^(k-1-j)."""
    Bh = _mh(B)
    powers = [None] * k  # powers[j] = (B^H)^j, powers[0] = identity (None)
    for j in range(1, k):
        powers[j] = Bh if j == 1 else powers[j - 1].matmul(Bh)
    total = None
    for j in range(k):
        left, right = powers[j], powers[k - 1 - j]
        term = g
        if left is not None:
            term = left.matmul(term)
        if right is not None:
            term = term.matmul(right)
        total = term if total is None else total + term
    return total


@derivative("linalg_matrix_power", inputs=("input",), save=("input",), name=_matrix_power_name)
def linalg_matrix_power_backward(ctx, g):
    return _matrix_power_grad(ctx.input, ctx.n, g)


@derivative("matrix_power", save=("input",), name=_matrix_power_name)
def matrix_power_backward(ctx, g):
    return _matrix_power_grad(ctx.input, ctx.n, g)


def _matrix_power_grad(A, n, g):
    if n == 0:
        return J.zeros(tuple(A.shape), dtype=g.dtype, device=g.device)
    if n > 0:
        return _power_grad(A, g, n)
    B = linalg.inv(A)
    gB = _power_grad(B, g, -n)
    return _inv_grad(B, gB)


@derivative("linalg_multi_dot", inputs=("tensors",), save=("tensors",), name="ViewBackward0")
def linalg_multi_dot_backward(ctx, g):
    ts = list(ctx.tensors)
    needs = ctx.needs_input_grad[0]
    k = len(ts)
    mats = list(ts)
    if mats[0].dim() == 1:
        mats[0] = mats[0].unsqueeze(0)
    if mats[-1].dim() == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    g2 = g.reshape(mats[0].shape[0], mats[-1].shape[-1])
    # prefix[i] = M0 ... M(i-1); suffix[i] = M(i+1) ... M(k-1)
    prefix = [None] * k
    suffix = [None] * k
    for i in range(1, k):
        prefix[i] = mats[0] if i == 1 else prefix[i - 1].mm(mats[i - 1])
    for i in range(k - 2, -1, -1):
        suffix[i] = mats[k - 1] if i == k - 2 else mats[i + 1].mm(suffix[i + 1])
    grads = []
    for i, t in enumerate(ts):
        if not needs or not t.requires_grad:
            grads.append(None)
            continue
        gi = g2
        if prefix[i] is not None:
            gi = _mh(prefix[i]).mm(gi)
        if suffix[i] is not None:
            gi = gi.mm(_mh(suffix[i]))
        grads.append(gi.reshape(tuple(t.shape)))
    return (grads,)


@derivative("linalg_vecdot", inputs=("x", "y"), save=("x", "y"),
            name=lambda v: ("VdotBackward0" if v["x"].dim() == 1 and v["y"].dim() == 1
                            else "SumBackward1"))
def linalg_vecdot_backward(ctx, g):
    x, y = ctx.x, ctx.y
    need_x, need_y = ctx.needs_input_grad
    nd = max(x.dim(), y.dim())
    d = ctx.dim % nd
    gu = g.unsqueeze(d)
    return (_conj(gu) * y if need_x else None, gu * x if need_y else None)


@derivative("linalg_cross", inputs=("input", "other"), save=("input", "other"))
def linalg_cross_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    d = ctx.dim
    return (linalg.cross(_conj(ctx.other), g, dim=d) if need_a else None,
            linalg.cross(g, _conj(ctx.input), dim=d) if need_b else None)


# ---------------------------------------------------------------------- LU

def _tri_mask(g, upper, unit):
    """Keep only the triangle a triangular solve reads (strictly, when unitriangular)."""
    if upper:
        return g.triu(1 if unit else 0)
    return g.tril(-1 if unit else 0)


def _lu_square_grad(L, U, gL, gU):
    """P^T gA for A = P L U (square): L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}."""
    M = None
    if gL is not None:
        M = _mh(L).matmul(gL).tril(-1)
    if gU is not None:
        t = gU.matmul(_mh(U)).triu()
        M = t if M is None else M + t
    M = linalg.solve_triangular(_mh(L), M, upper=True, unitriangular=True)
    return linalg.solve_triangular(_mh(U), M, upper=False, left=False)


def _lu_grad(P, L, U, gL, gU):
    """gA for A = P L U with L (m, k) unit lower and U (k, n) upper, any m, n.

    Wide (m < n): U = [U1 | U2] and U2 = L^{-1} P^T A2, so A2's gradient is P L^{-H} gU2
    and L gets the extra gradient -L^{-H} gU2 U2^H. Tall (m > n): L = [L1; L2] with
    L2 = B2 U^{-1} (B = P^T A), so B2's gradient is gL2 U^{-H} and U gets the extra
    -L2^H gL2 U^{-H}. The square part is ``_lu_square_grad``."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if gL is None and gU is None:
        return None
    if m == n:
        gB = _lu_square_grad(L, U, gL, gU)
    elif m < n:
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        gU1 = gU.narrow(-1, 0, k) if gU is not None else None
        gL_eff = gL
        gB2 = None
        if gU is not None:
            gU2 = gU.narrow(-1, k, n - k)
            Linv_h_gU2 = linalg.solve_triangular(_mh(L), gU2, upper=True, unitriangular=True)
            extra = -Linv_h_gU2.matmul(_mh(U2))
            gL_eff = extra if gL_eff is None else gL_eff + extra
            gB2 = Linv_h_gU2
        gB1 = _lu_square_grad(L, U1, gL_eff, gU1)
        if gB2 is None:
            gB2 = J.zeros_like(U2)
        gB = J.cat([gB1, gB2], -1)
    else:
        L1, L2 = L.narrow(-2, 0, k), L.narrow(-2, k, m - k)
        gL1 = gL.narrow(-2, 0, k) if gL is not None else None
        gU_eff = gU
        gB2 = None
        if gL is not None:
            gL2 = gL.narrow(-2, k, m - k)
            gB2 = linalg.solve_triangular(_mh(U), gL2, upper=False, left=False)
            extra = -_mh(L2).matmul(gB2)
            gU_eff = extra if gU_eff is None else gU_eff + extra
        gB1 = _lu_square_grad(L1, U, gL1, gU_eff)
        if gB2 is None:
            gB2 = J.zeros_like(L2)
        gB = J.cat([gB1, gB2], -2)
    return P.matmul(gB)


def _lu_factors(LU, pivots):
    P, L, U = J.lu_unpack(LU, pivots)
    return P, L, U


@derivative("linalg_lu_factor_ex", inputs=("A",), save=("A", "result"),
            name="LinalgLuFactorExBackward0", multi_grad=True, nondiff_outputs=(1, 2))
def linalg_lu_factor_ex_backward(ctx, g, *_rest):
    return _lu_factor_grad(ctx, g)


@derivative("linalg_lu_factor", inputs=("A",), save=("A", "result"),
            name="LinalgLuFactorExBackward0", multi_grad=True, nondiff_outputs=(1,))
def linalg_lu_factor_backward(ctx, g, *_rest):
    return _lu_factor_grad(ctx, g)


def _lu_factor_grad(ctx, g):
    if g is None:
        return None
    res = _output(ctx.result[0], lambda: linalg.lu_factor_ex(ctx.A)[0])
    P, L, U = _lu_factors(res, ctx.result[1])
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    # LU holds L's strictly lower part and U's upper part.
    gL = g.narrow(-1, 0, k).tril(-1)
    gU = g.narrow(-2, 0, k).triu()
    return _lu_grad(P, L, U, gL, gU)


@derivative("linalg_lu", inputs=("A",), save=("A", "result"), name="LinalgLuBackward0",
            multi_grad=True, nondiff_outputs=(0,))
def linalg_lu_backward(ctx, *grads):
    gL, gU = grads[-2], grads[-1]
    P, L, U = ctx.result
    if not (L.requires_grad and is_grad_enabled()):
        P, L, U = linalg.lu(ctx.A) if is_grad_enabled() else (P, L, U)
    return _lu_grad(P, L, U, gL, gU)


@derivative("lu_unpack", inputs=("LU_data",), name="LuUnpackBackward0", multi_grad=True,
            nondiff_outputs=(0,))
def lu_unpack_backward(ctx, *grads):
    gL, gU = grads[-2], grads[-1]
    m, n = ctx.input_meta(0)[0][-2:]
    k = min(m, n)
    parts = []
    if gL is not None:
        gL = gL.tril(-1)
        parts.append(gL if n == k else J.cat([gL, J.zeros(tuple(gL.shape[:-1]) + (n - k,),
                                                        dtype=gL.dtype, device=gL.device)], -1))
    if gU is not None:
        gU = gU.triu()
        parts.append(gU if m == k else J.cat([gU, J.zeros(tuple(gU.shape[:-2]) + (m - k, n),
                                                        dtype=gU.dtype, device=gU.device)], -2))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]


def _lu_solve_grads(ctx, LU, pivots, B, X, g, left, adjoint, need_lu, need_b):
    """Gradients of X = op(A)^{-1} B (left) or B op(A)^{-1} with A = P L U from (LU, pivots):
    gB solves with op(A)^H; gA = -gB X^H (or -X^H gB), conjugate-transposed back when
    ``adjoint``; then LU's gradient is A's pulled through A = P L U."""
    gB = linalg.lu_solve(LU, pivots, g, left=left, adjoint=not adjoint)
    gLU = None
    if need_lu:
        g_op = -gB.matmul(_mh(X)) if left else -_mh(X).matmul(gB)
        gA = _mh(g_op) if adjoint else g_op
        P, L, U = J.lu_unpack(LU, pivots)
        PtgA = _mh(P).matmul(gA)
        gLU = PtgA.matmul(_mh(U)).tril(-1) + _mh(L).matmul(PtgA).triu()
    return gLU, (gB if need_b else None)


@derivative("linalg_lu_solve", inputs=("LU", "B"), save=("LU", "pivots", "B", "result"),
            name="LinalgLuSolveBackward0")
def linalg_lu_solve_backward(ctx, g):
    LU, piv, B = ctx.LU, ctx.pivots, ctx.B
    X = _output(ctx.result, lambda: linalg.lu_solve(LU, piv, B, left=ctx.left,
                                                    adjoint=ctx.adjoint))
    need_lu, need_b = ctx.needs_input_grad
    return _lu_solve_grads(ctx, LU, piv, B, X, g, ctx.left, ctx.adjoint, need_lu, need_b)


@derivative("lu_solve", inputs=("input", "LU_data"),
            save=("input", "LU_data", "LU_pivots", "result"), name="LinalgLuSolveBackward0")
def lu_solve_backward(ctx, g):
    LU, piv, B = ctx.LU_data, ctx.LU_pivots, ctx.input
    X = _output(ctx.result, lambda: linalg.lu_solve(LU, piv, B))
    need_b, need_lu = ctx.needs_input_grad
    gLU, gB = _lu_solve_grads(ctx, LU, piv, B, X, g, True, False, need_lu, need_b)
    return gB, gLU


# ---------------------------------------------------------------------- triangular, Cholesky

def _triangular_grads(A, X, g, upper, left, unit, need_a, need_b):
    """X = A^{-1} B (left) or B A^{-1}: gB = A^{-H} g (or g A^{-H}), gA = -gB X^H (or
    -X^H gB) kept to the triangle the solve read."""
    gB = linalg.solve_triangular(_mh(A), g, upper=not upper, left=left, unitriangular=unit)
    gA = None
    if need_a:
        gA = -gB.matmul(_mh(X)) if left else -_mh(X).matmul(gB)
        gA = _tri_mask(gA, upper, unit)
    return gA, (gB if need_b else None)


@derivative("linalg_solve_triangular", inputs=("input", "B"), save=("input", "B", "result"),
            name="LinalgSolveTriangularBackward0")
def linalg_solve_triangular_backward(ctx, g):
    A = ctx.input
    X = _output(ctx.result, lambda: linalg.solve_triangular(
        A, ctx.B, upper=ctx.upper, left=ctx.left, unitriangular=ctx.unitriangular))
    need_a, need_b = ctx.needs_input_grad
    return _triangular_grads(A, X, g, ctx.upper, ctx.left, ctx.unitriangular, need_a, need_b)


@derivative("triangular_solve", inputs=("input", "A"), save=("input", "A", "result"),
            name="TriangularSolveBackward0", multi_grad=True)
def triangular_solve_backward(ctx, g, g_coeff):
    A = ctx.A
    op = A.mT if ctx.transpose else A
    upper = ctx.upper != ctx.transpose
    X = _output(ctx.result[0], lambda: linalg.solve_triangular(
        op, ctx.input, upper=upper, unitriangular=ctx.unitriangular))
    need_b, need_a = ctx.needs_input_grad
    gA, gB = None, None
    if g is not None:
        gA, gB = _triangular_grads(op, X, g, upper, True, ctx.unitriangular, need_a, need_b)
        if gA is not None and ctx.transpose:
            gA = gA.mT
    if need_a and g_coeff is not None:
        gA = g_coeff if gA is None else gA + g_coeff
    return gB, gA


@derivative("cholesky", save=("input", "result"), name="CholeskyBackward0")
def cholesky_backward(ctx, g):
    L = _output(ctx.result, lambda: linalg.cholesky(ctx.input, upper=ctx.upper))
    return _cholesky_grad(L, g, ctx.upper)


@derivative("cholesky_solve", inputs=("input", "input2"),
            save=("input", "input2", "result"), name="CholeskySolveBackward0")
def cholesky_solve_backward(ctx, g):
    # PyTorch's cholesky_solve_backward: gB = cholesky_solve(g, L); with
    # C = gB X^H + (gB X^H)^H, gL = -C L (lower) or -L C (upper).
    L, upper = ctx.input2, ctx.upper
    X = _output(ctx.result, lambda: J.cholesky_solve(ctx.input, L, upper))
    need_b, need_l = ctx.needs_input_grad
    gB = J.cholesky_solve(g, L, upper)
    gL = None
    if need_l:
        C = gB.matmul(_mh(X))
        C = C + _mh(C)
        gL = -L.matmul(C) if upper else -C.matmul(L)
    return (gB if need_b else None), gL


@derivative("cholesky_inverse", save=("input", "result"), name="CholeskyInverseBackward0")
def cholesky_inverse_backward(ctx, g):
    # PyTorch's cholesky_inverse_backward: C = X (g + g^H) X; -L C (upper) or -C L.
    L, upper = ctx.input, ctx.upper
    X = _output(ctx.result, lambda: J.cholesky_inverse(L, upper))
    C = X.matmul((g + _mh(g)).matmul(X))
    return -L.matmul(C) if upper else -C.matmul(L)


# ---------------------------------------------------------------------- exp, eig, lstsq

def _matrix_exp_grad(A, g):
    """PyTorch's differential of exp at A applied adjointly: the upper-right block of
    exp([[A^H, g], [0, A^H]])."""
    n = A.shape[-1]
    Ah = _mh(A)
    top = J.cat([Ah, g], -1)
    bottom = J.cat([J.zeros_like(Ah), Ah], -1)
    big = linalg.matrix_exp(J.cat([top, bottom], -2))
    return big.narrow(-2, 0, n).narrow(-1, n, n)


@derivative("linalg_matrix_exp", inputs=("input",), save=("input",),
            name="LinalgMatrixExpBackward0")
def linalg_matrix_exp_backward(ctx, g):
    return _matrix_exp_grad(ctx.input, g)


@derivative("matrix_exp", save=("input",), name="LinalgMatrixExpBackward0")
def matrix_exp_backward(ctx, g):
    return _matrix_exp_grad(ctx.input, g)


def _eig_grad(A, L, V, gL, gV):
    """PyTorch's linalg_eig_backward for a general matrix: with E_ij = conj(L_j - L_i),
    gA = V^{-H} (diag(gL) + (V^H gV - V^H V diag(Re(V^H gV))) / E) V^H; real A keeps the
    real part."""
    from ..._errors import TensorRuntimeError

    n = L.shape[-1]
    Vh = _mh(V)
    if gV is not None:
        VhgV = Vh.matmul(gV)
        diag = VhgV.diagonal(0, -2, -1)
        if bool((diag.imag.abs() > 1e-2 * (1 + diag.abs())).any()):
            raise TensorRuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined.")
        VhgV = VhgV - Vh.matmul(V * diag.real.to(V.dtype).unsqueeze(-2))
        Lc = L.conj()
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + _eye_like(n, L)
        inner = VhgV / E
        inner = inner - inner.diagonal(0, -2, -1).diag_embed()
        if gL is not None:
            inner = inner + gL.to(V.dtype).diag_embed()
    else:
        inner = gL.to(V.dtype).diag_embed()
    gA = linalg.solve(Vh, inner.matmul(Vh))
    return gA if A.is_complex() else gA.real


@derivative("linalg_eig", inputs=("input",), save=("input", "result"), name="LinalgEigBackward0",
            multi_grad=True)
def linalg_eig_backward(ctx, gL, gV):
    L, V = _output(ctx.result, lambda: linalg.eig(ctx.input))
    return _eig_grad(ctx.input, L, V, gL, gV)


@derivative("linalg_eigvals", inputs=("input",), save=("input",), name="LinalgEigBackward0")
def linalg_eigvals_backward(ctx, g):
    L, V = linalg.eig(ctx.input)
    return _eig_grad(ctx.input, L, V, g, None)


@derivative("linalg_lstsq", inputs=("input", "b"), save=("input", "b", "result"),
            name="LinalgLstsqBackward0", multi_grad=True, nondiff_outputs=(2,))
def linalg_lstsq_backward(ctx, gX, g_res, *rest):
    """Through X = pinv(A) B (PyTorch's linalg_lstsq_backward); the residuals
    r = ||A X - B||^2 per column are stationary in X, so their gradient is the explicit one:
    2 (A X - B) diag(g_r) X^H for A and -2 (A X - B) diag(g_r) for B."""
    A, B = ctx.input, ctx.b
    need_a, need_b = ctx.needs_input_grad
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    X = _output(ctx.result[0], lambda: linalg.lstsq(A, B, ctx.rcond, driver=ctx.driver)[0])
    Xm = X.unsqueeze(-1) if vector else X
    gA = gB = None
    if gX is not None:
        gXm = gX.unsqueeze(-1) if vector else gX
        P = linalg.pinv(A)
        if need_a:
            gA = _pinv_grad(A, P, gXm.matmul(_mh(Bm)))
        if need_b:
            gB = _mh(P).matmul(gXm)
    if g_res is not None and g_res.numel():
        R = A.matmul(Xm) - Bm
        gr = g_res.unsqueeze(-1) if vector else g_res
        Rg = 2 * R * gr.unsqueeze(-2)
        if need_a:
            t = Rg.matmul(_mh(Xm))
            gA = t if gA is None else gA + t
        if need_b:
            gB = -Rg if gB is None else gB - Rg
    if gB is not None and vector:
        gB = gB.squeeze(-1)
    return gA, gB


def _householder_grad(A, tau, g, need_a, need_tau):
    """Reverse mode through Q_i = H_i Q_{i+1} (Q_k = I[:, :n], H_i = I - tau_i v_i v_i^H):
    grad Q_{i+1} = H_i^H G_i, grad tau_i = -sum(G_i conj(v_i w_i)) with w_i = v_i^H Q_{i+1},
    grad v_i = -conj(tau_i) G_i w_i^H - tau_i Q_{i+1} G_i^H v_i (below v_i's unit entry)."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    eye = _eye_like(m, A)
    vs = []
    for i in range(k):
        col = A.narrow(-1, i, 1).squeeze(-1)
        head = J.zeros(tuple(A.shape[:-2]) + (i,), dtype=A.dtype, device=A.device)
        one = J.ones(tuple(A.shape[:-2]) + (1,), dtype=A.dtype, device=A.device)
        vs.append(J.cat([head, one, col.narrow(-1, i + 1, m - i - 1)], -1))
    # Q_{i+1} for every i, built from the right: Qs[i] = H_{i+1} ... H_{k-1} E.
    Qs = [None] * k
    Q = eye.narrow(-1, 0, n).expand(tuple(A.shape[:-2]) + (m, n))
    for i in range(k - 1, -1, -1):
        Qs[i] = Q
        v = vs[i]
        Q = Q - tau.narrow(-1, i, 1).unsqueeze(-1) * v.unsqueeze(-1) * _conj(v).unsqueeze(
            -2).matmul(Q)
    G = g
    gA_cols = []
    g_tau = []
    for i in range(k):
        v, Qn = vs[i], Qs[i]
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        vcol = v.unsqueeze(-1)
        w = _conj(v).unsqueeze(-2).matmul(Qn)
        if need_tau:
            g_tau.append(-(G * _conj(vcol * w)).sum((-2, -1)).unsqueeze(-1))
        if need_a:
            gv = -_conj(t) * G.matmul(_mh(w)) - t * Qn.matmul(_mh(G).matmul(vcol))
            gA_cols.append(gv.squeeze(-1))
        # G_{i+1} = H_i^H G_i
        G = G - _conj(t) * vcol * _conj(v).unsqueeze(-2).matmul(G)
    gA = None
    if need_a:
        cols = []
        for i in range(n):
            if i < k:
                c = gA_cols[i]
                zero = J.zeros(tuple(c.shape[:-1]) + (i + 1,), dtype=c.dtype, device=c.device)
                cols.append(J.cat([zero, c.narrow(-1, i + 1, m - i - 1)], -1))
            else:
                cols.append(J.zeros(tuple(A.shape[:-2]) + (m,), dtype=A.dtype,
                                    device=A.device))
        gA = J.stack(cols, -1)
    gt = J.cat(g_tau, -1) if need_tau else None
    return gA, gt


@derivative("linalg_householder_product", inputs=("input", "tau"), save=("input", "tau"),
            name="LinalgHouseholderProductBackward0")
def linalg_householder_product_backward(ctx, g):
    return _householder_grad(ctx.input, ctx.tau, g, *ctx.needs_input_grad)


@derivative("orgqr", inputs=("input", "input2"), save=("input", "input2"),
            name="LinalgHouseholderProductBackward0")
def orgqr_backward(ctx, g):
    return _householder_grad(ctx.input, ctx.input2, g, *ctx.needs_input_grad)


# ---------------------------------------------------------------------- top-level aliases

@derivative("svd", save=("input", "result"), name="LinalgSvdBackward0", multi_grad=True)
def svd_backward(ctx, gU, gS, gV):
    A = ctx.input
    if not ctx.compute_uv:
        if gS is None:
            return None
        U, S, Vh = linalg.svd(A, full_matrices=False)
        return _svd_grad(None, gS, None, U, S, Vh)
    U, S, V = _output(ctx.result, lambda: tuple(J.svd(A, ctx.some)))
    Vh, gVh = _mh(V), (_mh(gV) if gV is not None else None)
    if not ctx.some:
        k = S.shape[-1]
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    return _svd_grad(gU, gS, gVh, U, S, Vh)


@derivative("qr", save=("input", "result"), name="LinalgQrBackward0", multi_grad=True)
def qr_backward(ctx, gQ, gR):
    return _qr_grad(ctx.input, "reduced" if ctx.some else "complete", ctx.result, gQ, gR)


@derivative("pinverse", save=("input", "result"), name="LinalgPinvBackward0")
def pinverse_backward(ctx, g):
    A = ctx.input
    return _pinv_grad(A, _output(ctx.result, lambda: J.pinverse(A, ctx.rcond)), g)


@derivative("lu", save=("input", "result"), name="LinalgLuFactorExBackward0", multi_grad=True,
            nondiff_outputs=(1, 2))
def lu_backward(ctx, g, *_rest):
    if g is None:
        return None
    LU = _output(ctx.result[0], lambda: linalg.lu_factor_ex(ctx.input)[0])
    P, L, U = J.lu_unpack(LU, ctx.result[1])
    k = min(L.shape[-2], U.shape[-1])
    return _lu_grad(P, L, U, g.narrow(-1, 0, k).tril(-1), g.narrow(-2, 0, k).triu())


@derivative("ormqr", inputs=("input", "input2", "input3"), save=("input", "input2", "input3"),
            name="OrmqrBackward0")
def ormqr_backward(ctx, g):
    """Through ormqr = op(Q) C (or C op(Q)) with Q the full Householder product of the
    input padded to m columns: C's gradient solves with op(Q)^H, Q's goes through
    ``_householder_grad``."""
    A, tau, C = ctx.input, ctx.input2, ctx.input3
    left, transpose = ctx.left, ctx.transpose
    need_a, need_tau, need_c = ctx.needs_input_grad
    m, n = A.shape[-2], A.shape[-1]
    used = min(m, n)
    A_used = A.narrow(-1, 0, used)
    A_pad = A_used if used == m else J.cat(
        [A_used, J.zeros(tuple(A.shape[:-1]) + (m - used,), dtype=A.dtype, device=A.device)], -1)
    Q = linalg.householder_product(A_pad, tau)
    op = _mh(Q) if transpose else Q
    gC = (_mh(op).matmul(g) if left else g.matmul(_mh(op))) if need_c else None
    gA = gtau = None
    if need_a or need_tau:
        if left:
            gQ = C.matmul(_mh(g)) if transpose else g.matmul(_mh(C))
        else:
            gQ = _mh(g).matmul(C) if transpose else _mh(C).matmul(g)
        gA_pad, gtau = _householder_grad(A_pad, tau, gQ, need_a, need_tau)
        if need_a:
            gA = gA_pad.narrow(-1, 0, used)
            if used < n:
                gA = J.cat([gA, J.zeros(tuple(A.shape[:-1]) + (n - used,), dtype=A.dtype,
                                        device=A.device)], -1)
    return gA, gtau, gC


@derivative("frobenius_norm", save=("input", "result"), name="NormBackward1")
def frobenius_norm_backward(ctx, g):
    x = ctx.input
    norm = _output(ctx.result, lambda: J.frobenius_norm(x, ctx.dim, ctx.keepdim))
    return _vector_norm_grad(x, g, norm, 2, ctx.dim, ctx.keepdim)


@derivative("nuclear_norm", save=("input", "result"), name="SumBackward1")
def nuclear_norm_backward(ctx, g):
    A = ctx.input
    dims = _wrap_dims((-2, -1) if ctx.dim is None else ctx.dim, A.dim())
    result = _output(ctx.result, lambda: J.nuclear_norm(A, ctx.dim, ctx.keepdim))
    return _matrix_norm_grad(A, g, result, "nuc", dims, ctx.keepdim)


# geqrf: PyTorch records a node whose backward raises "the derivative for 'geqrf' is not
# implemented."; here its outputs do not require grad (backward raises a RuntimeError too).
nondifferentiable("geqrf", "eig", "symeig", "solve", "lstsq", "matrix_rank")
# PyTorch has no derivative for the LDL factorization and solve either (NotImplemented).
nondifferentiable("linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_solve")


# PyTorch composes these calls from other ops, each recording its node (autograd/_composites).
J.matmul.op.backward.composite = recorded_matmul
J.outer.op.backward.composite = recorded_outer
J.einsum.op.backward.composite = recorded_einsum

# PyTorch's linalg.vecdot is (x.conj() * y).sum(dim).
linalg.vecdot.op.backward.composite = recorded_vecdot

# ATen composes these from other ops: recorded, each step leaves its node.
J.kron.op.backward.composite = recorded_kron
J.tensordot.op.backward.composite = recorded_tensordot
J.matrix_power.op.backward.composite = recorded_matrix_power
linalg.matrix_power.op.backward.composite = recorded_matrix_power
linalg.multi_dot.op.backward.composite = recorded_multi_dot
