"""Derivatives of the ops of issue 15's families: the complex views and constructors
(``_ops/complex_views.py``), the splitting helpers (``_ops/splitting.py``) and the matrix
extras (``_ops/matrix_extras.py``). Node names are PyTorch's."""

from ..._api import ops as J
from ._core import derivative, nondifferentiable
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
    # PyTorch's are tensor_split, whose pieces are slices
    derivative(_name, multi_grad=True, name="SliceBackward0")(_numpy_split_backward(_name))


@derivative("split_with_sizes", multi_grad=True, name="SplitWithSizesBackward0")
def split_with_sizes_backward(ctx, *grads):
    return _pieces_backward(ctx, grads, lambda z: z.split_with_sizes(ctx.split_sizes, ctx.dim))


# row_stack is vstack under another name: the same node
derivative("row_stack", inputs=("tensors",), name="CatBackward0")(vstack_backward)

nondifferentiable("unravel_index")
