"""Derivatives of the shape family: joining (cat, stack, *stack), repeating (repeat, tile,
repeat_interleave), rearranging (flip, roll, rot90, tril/triu), diagonals (diag, diag_embed,
block_diag), grids (meshgrid, cartesian_prod, combinations), the matrices module's vander,
and small view/copy helpers (atleast_*d, ravel, narrow_copy, sum_to_size,
unique_consecutive).

Node names are PyTorch's, which often names the op a composite op ends with (``hstack`` is
``CatBackward0``, ``tile`` is ``RepeatBackward0``, ``cartesian_prod`` is ``StackBackward0``).
"""

import itertools

from ..._api import ops as J
from ..._errors import TensorNotImplementedError, wrap_dim
from ..._ops.views import make_view
from ..._registry import OPS
from ..._tensor import DENSE_CLASSES
from .._composites import (recorded_atleast, recorded_cartesian_prod, recorded_combinations,
                           recorded_meshgrid, recorded_ravel, recorded_repeat_interleave,
                           recorded_stacking, recorded_sum_to_size)
from . import _fast
from ..graph import lean_list
from ._core import derivative


def _formula(names, inputs=("input",), save=(), name=None, multi_grad=False,
             nondiff_outputs=(), flatten=None, nondiff=None):
    """``derivative`` with per-call outputs without history (``nondiff(values)``)."""
    return derivative(names, inputs=inputs, save=save, name=name, multi_grad=multi_grad,
                      nondiff_outputs=nondiff if nondiff is not None else nondiff_outputs)


def _shapes(ctx):
    """Shapes of the tensors of the (single, list-valued) input."""
    return [m[0] if m is not None else None for m in ctx._input_meta]


def _count(ctx):
    return len(ctx._input_meta)


# ----------------------------------------------------------------------------- joining

def _split_cat(g, shapes, cat_shapes, dim):
    """Gradients of ``cat`` inputs (``shapes``) seen as ``cat_shapes`` along ``dim`` (as
    given, wrapped here), skipping PyTorch's legacy empty 1-d tensors."""
    ref = next((s for s in cat_shapes if tuple(s) != (0,)), None)
    if ref is None:
        return [J.zeros(s, dtype=g.dtype, device=g.device) for s in shapes]
    d = wrap_dim(dim, len(ref))
    fast = _fast_pieces(g, shapes, cat_shapes, d)
    if fast is not None:
        return fast
    out = []
    offset = 0
    for shape, cshape in zip(shapes, cat_shapes, strict=True):
        if tuple(cshape) == (0,) and len(ref) != 1:
            out.append(J.zeros(shape, dtype=g.dtype, device=g.device))
            continue
        n = cshape[d]
        piece = g.narrow(d, offset, n)
        offset += n
        if tuple(piece.shape) != tuple(shape):
            piece = piece.reshape(shape)
        out.append(piece)
    return out


def _fast_pieces(g, shapes, cat_shapes, d):
    """``_split_cat``'s narrows made directly as views of ``g`` in a plain pass (the pieces
    of a ``cat`` in a loop, issue 18): the same shapes, strides and offsets as ``narrow``'s.
    None where a piece needs more than a narrow (a legacy empty input, a reshape), or the
    pass records or is transformed."""
    if not _fast.plain() or g.__class__ not in DENSE_CLASSES:
        return None
    gshape, stride = g._shape, g._stride
    if len(gshape) <= d:
        return None
    step = stride[d]
    offset = g._offset
    out = []
    for shape, cshape in zip(shapes, cat_shapes, strict=True):
        if shape is None or len(shape) != len(gshape) or tuple(shape) != tuple(cshape):
            return None
        n = shape[d]
        out.append(make_view(g, gshape[:d] + (n,) + gshape[d + 1:], stride, offset))
        offset += n * step
    return out


@_formula(("cat", "concat", "concatenate"), inputs=("tensors",), name="CatBackward0")
def cat_backward(ctx, g):
    shapes = _shapes(ctx)
    return (_split_cat(g, shapes, shapes, ctx.dim),)


@_formula("stack", inputs=("tensors",), name="StackBackward0")
def stack_backward(ctx, g):
    d = wrap_dim(ctx.dim, g.dim())
    return ([g.select(d, i) for i in range(_count(ctx))],)


def _at_least(shape, n):
    shape = tuple(shape)
    if len(shape) >= n:
        return shape
    if not shape:
        return (1,) * n
    if n == 2 or len(shape) == 1:
        shape = (1,) + shape
    if n == 3:
        shape = shape + (1,)
    return shape


@_formula("hstack", inputs=("tensors",), name="CatBackward0")
def hstack_backward(ctx, g):
    shapes = _shapes(ctx)
    cat_shapes = [_at_least(s, 1) for s in shapes]
    dim = 0 if len(cat_shapes[0]) == 1 else 1
    return (_split_cat(g, shapes, cat_shapes, dim),)


@_formula("vstack", inputs=("tensors",), name="CatBackward0")
def vstack_backward(ctx, g):
    shapes = _shapes(ctx)
    return (_split_cat(g, shapes, [_at_least(s, 2) for s in shapes], 0),)


@_formula("dstack", inputs=("tensors",), name="CatBackward0")
def dstack_backward(ctx, g):
    shapes = _shapes(ctx)
    return (_split_cat(g, shapes, [_at_least(s, 3) for s in shapes], 2),)


@_formula("column_stack", inputs=("tensors",), name="CatBackward0")
def column_stack_backward(ctx, g):
    shapes = _shapes(ctx)
    cat_shapes = [tuple(s) if len(s) > 1 else (_numel(s), 1) for s in shapes]
    return (_split_cat(g, shapes, cat_shapes, 1),)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ----------------------------------------------------------------------------- repeating

def _repeat_grad(g, shape, repeats):
    """Gradient of ``x.repeat(*repeats)`` (``len(repeats) >= x.dim()``) for ``x`` of ``shape``:
    each output dim is split into (repeat, size) and the repeat dims summed."""
    shape = tuple(shape)
    lead = len(repeats) - len(shape)
    split = list(repeats[:lead])
    dims = list(range(lead))
    for i, s in enumerate(shape):
        dims.append(len(split))
        split += [repeats[lead + i], s]
    g = g.reshape(split)
    if dims:
        g = g.sum(dims)
    return g.reshape(shape)


def _sizes(sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = sizes[0]
    return tuple(int(s) for s in sizes)


@derivative("repeat")
def repeat_backward(ctx, g):
    return _repeat_grad(g, ctx.input_meta(0)[0], _sizes(ctx.repeats))


@derivative("tile", name="RepeatBackward0")
def tile_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    dims = _sizes((ctx.dims,)) if not isinstance(ctx.dims, int) else (ctx.dims,)
    if len(dims) < len(shape):
        dims = (1,) * (len(shape) - len(dims)) + dims
    return _repeat_grad(g, shape, dims)


def _is_tensor(x):
    return hasattr(x, "_shape")


@derivative("repeat_interleave", save=("repeats",),
            name=lambda v: "IndexSelectBackward0" if _is_tensor(v.get("repeats"))
            else "ViewBackward0")
def repeat_interleave_backward(ctx, g):
    shape = tuple(ctx.input_meta(0)[0])
    dim = ctx.dim
    flat = dim is None
    base = (_numel(shape),) if flat else shape
    d = 0 if flat else wrap_dim(dim, len(shape))
    repeats = ctx.repeats
    if not _is_tensor(repeats):
        r = int(repeats)
        grad = g.reshape(base[:d] + (base[d], r) + base[d + 1:]).sum(d + 1)
    else:
        n = base[d]
        if repeats.numel() == 1:
            repeats = int(repeats.reshape(-1)[0].item())
        index = J.arange(n, device=g.device).repeat_interleave(repeats)
        zeros = J.zeros(base, dtype=g.dtype, device=g.device)
        grad = zeros.index_add(d, index, g)
    return grad.reshape(shape) if flat else grad


# PyTorch's composites of other ops (their nodes, not one of their own).
J.repeat_interleave.op.backward.composite = recorded_repeat_interleave


# ----------------------------------------------------------------------------- rearranging

def _dims(dims):
    return (dims,) if isinstance(dims, int) else tuple(dims)


@derivative("flip")
def flip_backward(ctx, g):
    return g.flip(_dims(ctx.dims))


@derivative("fliplr", name="FlipBackward0")
def fliplr_backward(ctx, g):
    return g.fliplr()


@derivative("flipud", name="FlipBackward0")
def flipud_backward(ctx, g):
    return g.flipud()


@derivative("roll")
def roll_backward(ctx, g):
    shifts = ctx.shifts
    shifts = -shifts if isinstance(shifts, int) else tuple(-int(s) for s in shifts)
    return g.roll(shifts, ctx.dims)


@derivative("rot90")
def rot90_backward(ctx, g):
    return g.rot90(-ctx.k, tuple(ctx.dims))


@derivative("tril")
def tril_backward(ctx, g):
    return g.tril(ctx.diagonal)


@derivative("triu")
def triu_backward(ctx, g):
    return g.triu(ctx.diagonal)


# ----------------------------------------------------------------------------- diagonals

@derivative("diag", name=lambda v: "DiagEmbedBackward0" if v["input"].dim() == 1
            else "DiagonalBackward0_copy")
def diag_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    k = ctx.diagonal
    if len(shape) == 1:
        return g.diagonal(k)
    return J.zeros(shape, dtype=g.dtype, device=g.device).diagonal_scatter(g, k)


@derivative("diag_embed")
def diag_embed_backward(ctx, g):
    return g.diagonal(ctx.offset, ctx.dim1, ctx.dim2)


@_formula("block_diag", inputs=("tensors",), name="BlockDiagBackward0")
def block_diag_backward(ctx, g):
    grads = []
    r = c = 0
    for shape in _shapes(ctx):
        rows, cols = _at_least(shape, 2) if len(shape) != 1 else (1, shape[0])
        block = g.narrow(0, r, rows).narrow(1, c, cols)
        r += rows
        c += cols
        grads.append(block.reshape(shape) if tuple(block.shape) != tuple(shape) else block)
    return (grads,)


# ----------------------------------------------------------------------------- views

@derivative("ravel", name="ViewBackward0")
def ravel_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


def _atleast_nondiff(n):
    # Tensors that already have n dims come back unchanged: no new history for them.
    def nondiff(values):
        tensors = values.get("tensors") or ()
        return [i for i, t in enumerate(tensors) if _is_tensor(t) and t.dim() >= n]
    return nondiff


def _atleast_name(n):
    def name(values):
        tensors = values.get("tensors") or ()
        dims = [t.dim() for t in tensors if _is_tensor(t) and t.dim() < n]
        return "ViewBackward0" if dims and dims[0] == 0 else "UnsqueezeBackward0"
    return name


def _atleast_backward(ctx, *grads):
    # strict=False: the engine's buffer stops at the last output that has a gradient (the
    # missing trailing ones are None).
    return ([g.reshape(s) if g is not None else None
             for g, s in zip(grads, _shapes(ctx), strict=False)],)


for _n in (1, 2, 3):
    _formula(f"atleast_{_n}d", inputs=("tensors",), name=_atleast_name(_n), multi_grad=True,
             flatten="tensors", nondiff=_atleast_nondiff(_n))(_atleast_backward)


@derivative("adjoint", name=lambda v: "ConjBackward0" if v["input"].is_complex()
            else "TransposeBackward0")
def adjoint_backward(ctx, g):
    return g.adjoint()


# jtensor has no conjugate / negative bits: both hand their input back (no node is recorded).
@derivative("resolve_conj", name="CloneBackward0")
def resolve_conj_backward(ctx, g):
    return g


@derivative("resolve_neg", name="CloneBackward0")
def resolve_neg_backward(ctx, g):
    return g


@_formula("meshgrid", inputs=("tensors",), name="ExpandBackward0", multi_grad=True,
          flatten="tensors")
def meshgrid_backward(ctx, *grads):
    n = _count(ctx)
    swap = ctx.indexing == "xy" and n >= 2
    out = []
    # strict=False: the engine's buffer stops at the last output that has a gradient.
    for k, (g, shape) in enumerate(zip(grads, _shapes(ctx), strict=False)):
        if g is None:
            out.append(None)
            continue
        d = (1 - k if k < 2 else k) if swap else k
        others = [i for i in range(n) if i != d]
        if others:
            g = g.sum(others)
        out.append(g.reshape(shape))
    out += [None] * (n - len(out))
    return (out,)


# ----------------------------------------------------------------------------- copies

@derivative("narrow_copy", save=("start",))  # ``start`` may be a 0-d tensor
def narrow_copy_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    d = wrap_dim(ctx.dim, len(shape))
    start = int(ctx.start)
    if start < 0:
        start += shape[d]
    zeros = J.zeros(shape, dtype=g.dtype, device=g.device)
    return zeros.slice_scatter(g, d, start, start + int(ctx.length))


def _sum_to_size_name(values):
    # PyTorch's sum_to: a full sum() for an empty size, sum(dims, keepdim) then a view when
    # leading dims go away.
    n = len(_sizes(values["size"]))
    if n == 0:
        return "SumBackward0"
    return "ViewBackward0" if n < values["input"].dim() else "SumBackward1"


@derivative("sum_to_size", name=_sum_to_size_name)
def sum_to_size_backward(ctx, g):
    return g.expand(ctx.input_meta(0)[0])


@_formula("cartesian_prod", inputs=("tensors",), name="StackBackward0")
def cartesian_prod_backward(ctx, g):
    sizes = [s[0] for s in _shapes(ctx)]
    n = len(sizes)
    grads = []
    for k in range(n):
        gk = g.select(1, k).reshape(sizes)
        others = [i for i in range(n) if i != k]
        grads.append(gk.sum(others) if others else gk)
    return (grads,)


@_formula("combinations", name="StackBackward0",
          nondiff=lambda v: [0] if int(v.get("r", 2)) == 0 else [])
def combinations_backward(ctx, g):
    n = ctx.input_meta(0)[0][0]
    r = int(ctx.r)
    make = itertools.combinations_with_replacement if ctx.with_replacement else \
        itertools.combinations
    index = [i for combo in make(range(n), r) for i in combo]
    zeros = J.zeros((n,), dtype=g.dtype, device=g.device)
    if not index:
        return zeros
    return zeros.index_add(0, J.tensor(index, device=g.device), g.reshape(-1))


def _vander_n(values):
    x = values["x"]
    n = values.get("N")
    return x.shape[0] if n is None else int(n)


@_formula("vander", inputs=("x",), save=("x",),
          name=lambda v: "torch::autograd::CopySlices" if v.get("increasing") else
          "FlipBackward0",
          nondiff=lambda v: [0] if _vander_n(v) <= 1 else [])
def vander_backward(ctx, g):
    # d/dx x**p = p * x**(p-1): the columns of vander(x, N-1, increasing) weigh g's columns
    # 1..N-1 by their powers.
    n = g.shape[1]
    if not ctx.increasing:
        g = g.flip(1)
    x = ctx.x
    powers = J.arange(1, n, dtype=g.dtype, device=g.device)
    lower = J.vander(x, N=n - 1, increasing=True)
    return (g.narrow(1, 1, n - 1) * (powers * lower).conj()).sum(1)


@derivative("unique_consecutive", multi_grad=True, nondiff_outputs=(1, 2))
def unique_consecutive_backward(ctx, *grads):
    raise TensorNotImplementedError(
        "the derivative for 'unique_consecutive' is not implemented.")


# PyTorch writes these as composites of other ops: recorded, they leave those ops' nodes.
for _name in ("hstack", "vstack", "dstack", "column_stack"):   # (row_stack: extras)
    getattr(J, _name).op.backward.composite = recorded_stacking
for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    getattr(J, _name).op.backward.composite = recorded_atleast
J.ravel.op.backward.composite = recorded_ravel
OPS["sum_to_size"].backward.composite = recorded_sum_to_size
# ``cat`` and ``stack`` of plain tensors record their node without the general path's cases.
for _name in ("cat", "concat", "concatenate", "stack"):
    OPS[_name].backward.lean = lean_list
J.meshgrid.op.backward.composite = recorded_meshgrid
J.cartesian_prod.op.backward.composite = recorded_cartesian_prod
J.combinations.op.backward.composite = recorded_combinations
