"""Derivatives of the ops of issue 15's families: the complex views and constructors
(``_ops/complex_views.py``), the splitting helpers (``_ops/splitting.py``) and the matrix
extras (``_ops/matrix_extras.py``). Node names are PyTorch's."""

from ..._api import ops as J
from ..._tensor import Tensor
from ._core import conj, derivative, nondifferentiable
from .._composites import recorded_diagflat, recorded_stacking, recorded_tensor_split
from .shapes import vstack_backward
from .views import _pieces_backward

# ------------------------------------------------------------------------ complex views


@derivative("view_as_real", name="ViewAsRealBackward0")
def view_as_real_backward(ctx, g):
    # pairs of reals back to complex numbers: the same bytes, once contiguous
    return J.view_as_complex(g.contiguous())


@derivative("view_as_complex", name="ViewAsComplexBackward0")
def view_as_complex_backward(ctx, g):
    return J.view_as_real(g.contiguous())


@derivative("complex", inputs=("real", "imag"), name="ComplexBackward0")
def complex_backward(ctx, g):
    if not g.is_complex():
        return g, None
    return g.real, g.imag


@derivative("polar", inputs=("abs", "angle"), save=("result",), name="PolarBackward0")
def polar_backward(ctx, g):
    # PyTorch's rule: d/d abs is sgn(result) (the unit phase), d/d angle is 1j * result;
    # each gradient is the real part of conj(g) times it (real inputs, complex output).
    z = ctx.result
    gc = g.conj()
    grad_abs = (gc * J.sgn(z)).real if ctx.needs_input_grad[0] else None
    grad_angle = (gc * (z * 1j)).real if ctx.needs_input_grad[1] else None
    return grad_abs, grad_angle


nondifferentiable("isreal")

# ------------------------------------------------------------------------------ splitting


def _numpy_split_backward(name):
    def backward(ctx, *grads):
        def cut(z):
            return getattr(J, name)(z, ctx.indices, sections=ctx.sections)

        return _pieces_backward(ctx, grads, cut)

    backward.__name__ = f"{name}_backward"
    return backward


for _name in ("hsplit", "vsplit", "dsplit"):
    # PyTorch's are tensor_split, whose pieces are slices (recorded: one node each)
    derivative(_name, multi_grad=True, name="SliceBackward0")(_numpy_split_backward(_name))
    getattr(J, _name).op.backward.composite = recorded_tensor_split


@derivative("split_with_sizes", multi_grad=True, name="SplitWithSizesBackward0")
def split_with_sizes_backward(ctx, *grads):
    return _pieces_backward(ctx, grads, lambda z: z.split_with_sizes(ctx.split_sizes, ctx.dim))


# row_stack is vstack under another name: the same node
derivative("row_stack", inputs=("tensors",), name="CatBackward0")(vstack_backward)
J.row_stack.op.backward.composite = recorded_stacking

nondifferentiable("unravel_index")

# -------------------------------------------------------------------------- matrix extras


@derivative("diagflat", name="DiagEmbedBackward0")
def diagflat_backward(ctx, g):
    return g.diagonal(ctx.offset).reshape(ctx.input_meta(0)[0])


@derivative("fill_diagonal_", name="CopySlices")
def fill_diagonal_backward(ctx, g):
    # the written positions take no gradient back to what was there before
    return g.clone().fill_diagonal_(0, bool(ctx.wrap))


def _rsub_name(v):
    return "RsubBackward0" if isinstance(v.get("other"), Tensor) else "RsubBackward1"


@derivative("rsub", inputs=("input", "other"), name=_rsub_name)
def rsub_backward(ctx, g):
    need_input, need_other = ctx.needs_input_grad
    alpha = ctx.alpha
    grad_input = None
    if need_input:
        grad_input = -g if alpha == 1 else g * (-conj(alpha))
    return grad_input, (g if need_other else None)


def _transposed_stencil(g, dim, n, step, edge_order):
    """The adjoint of ``gradient`` along one dim: each output's gradient goes back to the
    samples its stencil read, with the same weights."""
    from ..._ops.matrix_extras import gradient_coefficients

    first, (a, b, c), last = gradient_coefficients(n, step, edge_order)
    shape = [1] * g.dim()
    shape[dim] = -1

    def weights(v):
        t = J.tensor(v, device=g.device)
        return t.to(g.dtype if g.is_complex() or not t.is_complex() else t.dtype).reshape(shape)

    def zeros(k):
        size = list(g.shape)
        size[dim] = k
        return J.zeros(size, dtype=g.dtype, device=g.device)

    inner = g.narrow(dim, 1, n - 2)
    total = (
        J.cat([weights(a) * inner, zeros(2)], dim)
        + J.cat([zeros(1), weights(b) * inner, zeros(1)], dim)
        + J.cat([zeros(2), weights(c) * inner], dim)
    )
    k = len(first)
    head = weights(first) * g.narrow(dim, 0, 1)
    tail = weights(last) * g.narrow(dim, n - 1, 1)
    return total + J.cat([head, zeros(n - k)], dim) + J.cat([zeros(n - k), tail], dim)


@derivative("gradient", multi_grad=True, save=("spacing",), name="CatBackward0")
def gradient_backward(ctx, *grads):
    from ..._ops.matrix_extras import _gradient_dims, _gradient_spacings

    meta = ctx.input_meta(0)
    shape = meta[0]

    class _Shape:  # what the argument checks read of the input
        _shape = tuple(shape)
        _storage = None

        @staticmethod
        def dim():
            return len(shape)

    dims, dim_given = _gradient_dims(_Shape, ctx.dim)
    # arguments left at their defaults read as None here
    spacing = 1 if ctx.spacing is None else ctx.spacing
    edge_order = ctx.edge_order or 1
    if isinstance(spacing, (list, tuple)) and any(isinstance(s, Tensor) for s in spacing):
        spacings = list(spacing)
    else:
        spacings = _gradient_spacings(_Shape, spacing, dims, dim_given)
    total = None
    for d, step, g in zip(dims, spacings, grads, strict=False):
        if g is None:
            continue
        piece = _transposed_stencil(g, d, shape[d], step, edge_order)
        total = piece if total is None else total + piece
    return total

# PyTorch's diagflat is contiguous().view(-1).diag(offset).
J.diagflat.op.backward.composite = recorded_diagflat
