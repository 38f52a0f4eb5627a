"""The first formulas: a seed the families build on (add, mul, sum, views, sigmoid...)."""

from ..._api import ops as J
from ..._ops.views import view_reinterprets
from . import _fast
from . import _backward_ops
from ._core import conj, derivative, nondifferentiable


@derivative("add", inputs=("input", "other"))
def add_backward(ctx, g):
    alpha = ctx.alpha
    return g, (g if alpha == 1 else g * alpha)


@derivative("mul", inputs=("input", "other"), save=("other", "input"),
            save_for={"other": ("input",), "input": ("other",)})
def mul_backward(ctx, g):
    need_a, need_b = ctx.needs_input_grad
    # Each saved operand unpacked (version-checked) once, and only where its gradient is
    # needed: ``x * w`` with a constant ``x`` never touches ``w``.
    other = ctx.other if need_a else g
    input = ctx.input if need_b else g
    if _fast.plain() and _fast.same_kind(g, other, input):
        return (_fast.mul(g, other) if need_a else None,
                _fast.mul(g, input) if need_b else None)
    a = g * conj(other) if need_a else None
    b = g * conj(input) if need_b else None
    return a, b


@derivative("sum", name=("dim", "SumBackward0", "SumBackward1"))
def sum_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    dim = ctx.dim
    if dim is not None and not ctx.keepdim and shape:
        dims = [dim] if isinstance(dim, int) else list(dim)
        for d in sorted(x % len(shape) for x in dims):
            g = g.unsqueeze(d)
    if _fast.plain():
        return _fast.expand(g, shape)
    return g.expand(shape)


@derivative("sigmoid", save=("result",))
def sigmoid_backward(ctx, g):
    # (its own op, recorded too; a plain pass reads the saved output's values only)
    return _backward_ops.sigmoid_backward(g, _fast.saved(ctx, "result"))


@derivative("view", nondiff_outputs=lambda values: (0,) if view_reinterprets(values) else ())
def view_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


nondifferentiable("detach")


@derivative("expand")
def expand_backward(ctx, g):
    return g  # the engine sums the gradient back to the input's shape


@derivative("as_strided")
def as_strided_backward(ctx, g):
    from ..graph import _base_from_view_grad

    shape, _, _, stride, offset = ctx.input_meta(0)
    size = tuple(ctx.size)
    out_stride = tuple(ctx.stride)
    out_offset = offset if ctx.storage_offset is None else ctx.storage_offset
    return _base_from_view_grad(g, (shape, stride, offset), (size, out_stride, out_offset), J)
