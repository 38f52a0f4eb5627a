"""Derivatives of the selection family: index/gather/scatter/masked ops, ``where``, the
ordering ops (sort, topk, kthvalue...) and the ``*_scatter`` ops.

The formulas follow PyTorch's ``derivatives.yaml`` (and the helpers of
``FunctionsManual.cpp``) so that gradients, subgradient conventions (ties of amax/amin
shared evenly, zeros of prod) and node names agree. They use public jtensor ops only, so
``create_graph=True`` differentiates them again.
"""

from ..._api import broadcast_shapes
from ..._api import ops as J
from ..._registry import OPS
from ..._tensor import Tensor
from .._composites import recorded_take_along_dim
from ._core import derivative, nondifferentiable


def _wrap(dim, ndim):
    n = max(ndim, 1)
    return dim + n if dim < 0 else dim


def _zeros(shape, g):
    return J.zeros(shape, dtype=g.dtype, device=g.device)


def _to_shape(t, shape):
    """A gradient holding exactly ``shape``'s elements in another shape (0-dim vs (1,))."""
    if tuple(t.shape) != tuple(shape) and t.numel() == _numel(shape):
        return t.reshape(shape)
    return t


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ----------------------------------------------------------------------------- index_*

@derivative("index_select", save=("index",))
def index_select_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    return _zeros(shape, g).index_add(ctx.dim, ctx.index, g)


@derivative("index_add", inputs=("input", "source"), save=("index",))
def index_add_backward(ctx, g):
    need_self, need_source = ctx.needs_input_grad
    grad_source = None
    if need_source:
        source_shape = ctx.input_meta(1)[0]
        grad_source = g.index_select(ctx.dim, ctx.index) if g.dim() else g
        grad_source = _to_shape(grad_source, source_shape)
        if ctx.alpha != 1:
            grad_source = grad_source * ctx.alpha
    return (g if need_self else None), grad_source


@derivative("index_copy", inputs=("input", "source"), save=("index",))
def index_copy_backward(ctx, g):
    need_self, need_source = ctx.needs_input_grad
    grad_self = g.index_fill(ctx.dim, ctx.index, 0) if need_self else None
    grad_source = None
    if need_source:
        grad_source = g.index_select(ctx.dim, ctx.index) if g.dim() else g
        grad_source = _to_shape(grad_source, ctx.input_meta(1)[0])
    return grad_self, grad_source


def _index_fill_name(values):
    return "IndexFillBackward1" if _is_tensor(values.get("value")) else "IndexFillBackward0"


def _is_tensor(v):
    return isinstance(v, Tensor)


@derivative("index_fill", inputs=("input", "value"), save=("index",), name=_index_fill_name)
def index_fill_backward(ctx, g):
    need_self, need_value = ctx.needs_input_grad
    grad_self = g.index_fill(ctx.dim, ctx.index, 0) if need_self else None
    grad_value = None
    if need_value:
        index = ctx.index.reshape(-1).unique(sorted=False)
        grad_value = g.index_select(ctx.dim, index).sum()
    return grad_self, grad_value


@derivative("index_put", inputs=("input", "values"), save=("indices",))
def index_put_backward(ctx, g):
    need_self, need_values = ctx.needs_input_grad
    indices = tuple(ctx.indices)
    grad_self = None
    if need_self:
        if ctx.accumulate:
            grad_self = g
        else:
            values_shape = ctx.input_meta(1)[0]
            grad_self = g.index_put(indices, _zeros(values_shape, g), False)
    grad_values = g[indices] if need_values else None
    return grad_self, grad_values


@derivative("index_reduce", inputs=("input", "source"),
            save=("input", "source", "index", "result"))
def index_reduce_backward(ctx, g):
    """PyTorch's ``index_reduce_backward`` (prod with zeros, mean, amax/amin ties)."""
    dim, index, reduce = ctx.dim, ctx.index, ctx.reduce
    self, source = ctx.input, ctx.source
    if reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.index_reduce(dim, index, source, reduce,
                                                      include_self=ctx.include_self)
        grad_self = g * masked_self_result / masked_self
        src_zero = source == 0
        src_num_zeros = J.zeros_like(self).index_add(
            dim, index, src_zero.to(self.dtype)).index_select(dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = source.masked_fill(src_single_zero, 1)
        masked_src_result = self.index_reduce(dim, index, masked_src, reduce,
                                              include_self=ctx.include_self)
        # The output, recomputed from the inputs so that create_graph differentiates it.
        result = self.index_reduce(dim, index, source, reduce, include_self=ctx.include_self)
        grad_source = J.where(src_single_zero,
                              (g * masked_src_result).index_select(dim, index),
                              (g * result).index_select(dim, index)
                              / source.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = J.ones_like(g) if ctx.include_self else J.zeros_like(g)
        n = n.index_add(dim, index, J.ones_like(source))
        n = n.masked_fill(n == 0, 1)
        grad_self = g / n
        grad_source = g.index_select(dim, index) / n.index_select(dim, index)
    elif reduce in ("amax", "amin"):
        result = ctx.result
        self_is_result = (self == result).to(self.dtype)
        source_is_result = (source == result.index_select(dim, index)).to(self.dtype)
        n = self_is_result.index_add(dim, index, source_is_result)
        distributed = g / n
        grad_self = self_is_result * distributed
        grad_source = source_is_result * distributed.index_select(dim, index)
    else:
        raise RuntimeError(f"index_reduce(): unexpected reduce {reduce!r}")
    if not ctx.include_self:
        grad_self = grad_self.index_fill(dim, index, 0)
    need_self, need_source = ctx.needs_input_grad
    return (grad_self if need_self else None), (grad_source if need_source else None)


# ----------------------------------------------------------------------------- gather/scatter

@derivative("gather", save=("index", "input"))
def gather_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    ctx.input  # noqa: B018 (saved as PyTorch saves it: version-checked here as there)
    return _zeros(shape, g).scatter_add(ctx.dim, ctx.index, g)


def _scatter_name(values):
    if values.get("reduce") is not None:
        return "NotImplemented"  # PyTorch: "derivative for aten::scatter is not implemented"
    return "ScatterBackward0" if _is_tensor(values.get("src")) else "ScatterBackward1"


@derivative("scatter", inputs=("input", "src"), save=("index",), name=_scatter_name)
def scatter_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    grad_self = g.scatter(ctx.dim, ctx.index, 0) if need_self else None
    grad_src = g.gather(ctx.dim, ctx.index) if need_src else None
    return grad_self, grad_src


@derivative("scatter_add", inputs=("input", "src"), save=("index",))
def scatter_add_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    return (g if need_self else None), (g.gather(ctx.dim, ctx.index) if need_src else None)


@derivative("scatter_reduce", inputs=("input", "src"),
            save=("input", "src", "index", "result"))
def scatter_reduce_backward(ctx, g):
    """PyTorch's ``scatter_reduce_backward`` (sum, prod with zeros, mean, amax/amin ties)."""
    dim, index, reduce = ctx.dim, ctx.index, ctx.reduce
    self, src = ctx.input, ctx.src
    include_self = ctx.include_self
    if reduce == "sum":
        grad_self = g
        grad_src = g.gather(dim, index)
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self)
        grad_self = g * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = J.zeros_like(self).scatter_add(
            dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce,
                                                include_self=include_self)
        # The output, recomputed from the inputs so that create_graph differentiates it.
        result = self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
        grad_src = J.where(src_single_zero,
                           (g * masked_src_result).gather(dim, index),
                           (g * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = J.ones_like(g) if include_self else J.zeros_like(g)
        n = n.scatter_add(dim, index, J.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        grad_self = g / n
        grad_src = g.gather(dim, index) / n.gather(dim, index)
    elif reduce in ("amax", "amin"):
        result = ctx.result
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        n = self_is_result.scatter_add(dim, index, src_is_result)
        distributed = g / n
        grad_self = self_is_result * distributed
        grad_src = src_is_result * distributed.gather(dim, index)
    else:
        raise RuntimeError(f"scatter_reduce(): unexpected reduce {reduce!r}")
    if not include_self:
        grad_self = grad_self.scatter(dim, index, 0)
    need_self, need_src = ctx.needs_input_grad
    return (grad_self if need_self else None), (grad_src if need_src else None)


@derivative("take", save=("index", "input"))
def take_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    ctx.input  # noqa: B018 (saved as PyTorch saves it: version-checked here as there)
    return _zeros(shape, g).put(ctx.index, g, accumulate=True)


@derivative("take_along_dim", save=("indices", "input"), name="GatherBackward0")
def take_along_dim_backward(ctx, g):
    """PyTorch's take_along_dim is gather on broadcast operands (a ``GatherBackward0``)."""
    shape = ctx.input_meta(0)[0]
    ctx.input  # noqa: B018 (saved as PyTorch's gather saves it: version-checked here too)
    indices = ctx.indices
    if ctx.dim is None:
        flat = _zeros((_numel(shape),), g).scatter_add(0, indices.reshape(-1), g.reshape(-1))
        return flat.reshape(shape)
    dim = _wrap(ctx.dim, len(shape))
    index_shape = tuple(g.shape)
    self_shape = list(index_shape)
    self_shape[dim] = shape[dim]
    return _zeros(tuple(self_shape), g).scatter_add(dim, indices.expand(index_shape), g)


@derivative("put", inputs=("input", "source"), save=("index",))
def put_backward(ctx, g):
    need_self, need_source = ctx.needs_input_grad
    grad_self = None
    if need_self:
        if ctx.accumulate:
            grad_self = g
        else:
            grad_self = g.put(ctx.index, _zeros(ctx.input_meta(1)[0], g), accumulate=False)
    grad_source = g.take(ctx.index).reshape(ctx.input_meta(1)[0]) if need_source else None
    return grad_self, grad_source


# ----------------------------------------------------------------------------- masks, where

@derivative("masked_select", save=("mask", "input"))
def masked_select_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    ctx.input  # noqa: B018 (saved as PyTorch saves it: version-checked here as there)
    mask = ctx.mask
    full = tuple(broadcast_shapes(shape, mask.shape))
    return _zeros(full, g).masked_scatter(mask.expand(full), g)


def _masked_fill_name(values):
    return "MaskedFillBackward1" if _is_tensor(values.get("value")) else "MaskedFillBackward0"


@derivative("masked_fill", inputs=("input", "value"), save=("mask",), name=_masked_fill_name)
def masked_fill_backward(ctx, g):
    need_self, need_value = ctx.needs_input_grad
    mask = ctx.mask
    grad_self = g.masked_fill(mask, 0) if need_self else None
    grad_value = g.masked_select(mask).sum() if need_value else None
    return grad_self, grad_value


@derivative("masked_scatter", inputs=("input", "source"), save=("mask",))
def masked_scatter_backward(ctx, g):
    need_self, need_source = ctx.needs_input_grad
    mask = ctx.mask
    grad_self = g.masked_fill(mask, 0) if need_self else None
    grad_source = None
    if need_source:
        source_shape = ctx.input_meta(1)[0]
        n = _numel(source_shape)
        selected = g.masked_select(mask)
        k = selected.numel()
        if k < n:
            selected = _zeros((n,), g).slice_scatter(selected, 0, 0, k)
        grad_source = selected.reshape(source_shape)
    return grad_self, grad_source


@derivative("where", inputs=("input", "other"), save=("condition",))
def where_backward(ctx, g):
    need_self, need_other = ctx.needs_input_grad
    cond = ctx.condition
    grad_self = J.where(cond, g, 0.0) if need_self else None
    grad_other = J.where(cond, 0.0, g) if need_other else None
    return grad_self, grad_other


# ----------------------------------------------------------------------------- ordering

def _value_selecting_backward(g, dim, indices, shape, keepdim):
    """PyTorch's ``value_selecting_reduction_backward``: scatter ``g`` to where it came from."""
    if not keepdim and shape:
        d = _wrap(dim, len(shape))
        g = g.unsqueeze(d)
        indices = indices.unsqueeze(d)
    return _zeros(shape, g).scatter(dim, indices, g)


def _sort_name(values):
    # PyTorch's ``sort.stable`` overload (any explicit ``stable=``) is SortBackward1.
    stable = "stable" in values or isinstance(values.get("dim"), bool)
    return "SortBackward1" if stable else "SortBackward0"


# (These save the indices only, output 1, as PyTorch's nodes do.)
@derivative("sort", save=("result",), name=_sort_name, multi_grad=True, nondiff_outputs=(1,),
            save_for={"result0": ()})
def sort_backward(ctx, g, *rest):
    shape = ctx.input_meta(0)[0]
    dim = -1 if isinstance(ctx.dim, bool) else ctx.dim
    return _value_selecting_backward(g, dim, ctx.result[1], shape, True)


@derivative("msort", save=("input",), name="SortBackward0")
def msort_backward(ctx, g):
    # PyTorch's msort is sort(dim=0)[0]; the permutation is recomputed from the input.
    x = ctx.input
    if x.dim() == 0:
        return g
    indices = x.detach().sort(dim=0)[1]
    return _value_selecting_backward(g, 0, indices, tuple(x.shape), True)


@derivative("topk", save=("result",), multi_grad=True, nondiff_outputs=(1,),
            save_for={"result0": ()})
def topk_backward(ctx, g, *rest):
    shape = ctx.input_meta(0)[0]
    return _value_selecting_backward(g, ctx.dim, ctx.result[1], shape, True)


@derivative("kthvalue", save=("result",), multi_grad=True, nondiff_outputs=(1,),
            save_for={"result0": ()})
def kthvalue_backward(ctx, g, *rest):
    shape = ctx.input_meta(0)[0]
    return _value_selecting_backward(g, ctx.dim, ctx.result[1], shape, ctx.keepdim)


def _unique_name(values):
    return "UniqueDimBackward0" if values.get("dim") is not None else "Unique2Backward0"


@derivative("unique", name=_unique_name, multi_grad=True, nondiff_outputs=(1, 2))
def unique_backward(ctx, *grads):
    op = "unique_dim" if ctx.dim is not None else "_unique2"
    raise NotImplementedError(f"the derivative for '{op}' is not implemented.")


# ----------------------------------------------------------------------------- *_scatter

@derivative("diagonal_scatter", inputs=("input", "src"))
def diagonal_scatter_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    diag = g.diagonal(ctx.offset, ctx.dim1, ctx.dim2)
    grad_self = None
    if need_self:
        grad_self = g.diagonal_scatter(_zeros(tuple(diag.shape), g), ctx.offset, ctx.dim1,
                                       ctx.dim2)
    return grad_self, (diag if need_src else None)


@derivative("select_scatter", inputs=("input", "src"))
def select_scatter_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    part = g.select(ctx.dim, ctx.index)
    grad_self = None
    if need_self:
        grad_self = g.select_scatter(_zeros(tuple(part.shape), g), ctx.dim, ctx.index)
    return grad_self, (part if need_src else None)


@derivative("slice_scatter", inputs=("input", "src"))
def slice_scatter_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    dim = _wrap(ctx.dim, g.dim())
    key = (slice(None),) * dim + (slice(ctx.start, ctx.end, ctx.step),)
    part = g[key]
    grad_self = None
    if need_self:
        grad_self = g.slice_scatter(_zeros(tuple(part.shape), g), dim, ctx.start, ctx.end,
                                    ctx.step)
    return grad_self, (part if need_src else None)


# ----------------------------------------------------------------------------- no gradient

# Integer results. ``apply_``/``map_`` refuse tensors requiring grad in PyTorch.
nondifferentiable("nonzero", "argwhere", "argsort", "apply_", "map_")

# PyTorch's take_along_dim is expand + gather (or two views + gather).
OPS["take_along_dim"].backward.composite = recorded_take_along_dim
