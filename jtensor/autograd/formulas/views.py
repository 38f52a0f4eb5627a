"""Derivatives of views, indexing and copies (reshape, permute, select, split, ``x[key]``,
``x[key] = v``, clone, to, copy_, fill_...).

A view's gradient puts the view's gradient back where the view's elements sit in the input:
for views that do not overlap themselves (select, narrow, diagonal, split...) the backward
writes it into a zero tensor through the same view (``z.select(d, i).copy_(g)``), which is
itself differentiable, so ``create_graph=True`` works with this family's formulas alone.
"""

import numpy as np

from ... import _dispatch, _dtypes
from ..._api import ops as J
from ..._arraymod import sum_rows_into_zeros, ufunc_at
from ..._device import CPU_BACKEND
from ..._tensor import DENSE_CLASSES, Tensor, plain_cpu_floats
from ..._ops.views import reshape_views, sizes_from_args
from ..._registry import OPS
from .._composites import (recorded_broadcast_tensors, recorded_reshape, recorded_tensor_split,
                           setitem_value)
from . import _fast
from ..graph import DECLINED, record_single, record_write
from ._core import derivative, nondifferentiable

_FULL = slice(None)


def _zeros(g, shape):
    return J.zeros(shape, dtype=g.dtype, device=g.device)


def _embed(g, shape, view):
    """A zero tensor of ``shape`` whose ``view(z)`` holds ``g``."""
    z = _zeros(g, shape)
    view(z).copy_(g)
    return z


def _fit_trailing(g, shape):
    """Sum ``g`` to ``shape`` when ``shape`` has extra leading 1s (``x[0] = v[None]``)."""
    shape = tuple(shape)
    if len(shape) > g.dim():
        from ..graph import sum_to

        return sum_to(g, shape[len(shape) - g.dim():]).reshape(shape)
    return g


# ----------------------------------------------------------------------------- reshapes

def _reshape_name(input, shape):
    """PyTorch's node for a reshape: ``view`` of a contiguous input, ``_reshape_alias`` of a
    viewable non-contiguous one, ``clone`` + ``_unsafe_view`` otherwise."""
    if input._contiguous or (input._contiguous is None and input.is_contiguous()):
        return "ViewBackward0"   # (the shape is not needed to tell)
    return "ReshapeAliasBackward0" if reshape_views(input, tuple(shape)) else \
        "UnsafeViewBackward0"


def _reshape_call_name(v):
    return _reshape_name(v["input"], sizes_from_args((v["shape"],)))


def _flatten_call_name(v):
    x = v["input"]
    shape = x._shape
    if not shape or x._contiguous or (x._contiguous is None and x.is_contiguous()):
        return "ViewBackward0"
    from ..._errors import wrap_dim

    start = wrap_dim(v.get("start_dim", 0), len(shape))
    end = wrap_dim(v.get("end_dim", -1), len(shape))
    merged = 1
    for s in shape[start:end + 1]:
        merged *= s
    return _reshape_name(x, shape[:start] + (merged,) + shape[end + 1:])


@derivative("view_as", inputs=("input",), name="ViewBackward0")
@derivative("unflatten", inputs=("input",), name="ViewBackward0")
def reshape_like_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


@derivative("reshape", name=_reshape_call_name)
def reshape_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


@derivative("reshape_as", name=lambda v: _reshape_name(v["input"], v["other"]._shape))
def reshape_as_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


@derivative("flatten", name=_flatten_call_name)
def flatten_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


# A reshape that copies is PyTorch's clone and ``_unsafe_view``, each its node (_composites).
for _name in ("reshape", "reshape_as", "flatten"):
    OPS[_name].backward.composite = recorded_reshape


def _squeeze_name(v):
    dim = v.get("dim")
    if dim is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"


@derivative("squeeze", name=_squeeze_name)
def squeeze_backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


@derivative("unsqueeze")
def unsqueeze_backward(ctx, g):
    return g.squeeze(ctx.dim)


# ----------------------------------------------------------------------------- dim shuffles

@derivative("permute")
def permute_backward(ctx, g):
    from ..._ops.views import sizes_from_args

    n = len(ctx.input_meta(0)[0])
    dims = [d % n if n else 0 for d in sizes_from_args((ctx.dims,), "dims")]
    inverse = [0] * n
    for i, d in enumerate(dims):
        inverse[d] = i
    return g.permute(inverse)


@derivative("transpose")
def transpose_backward(ctx, g):
    return g.transpose(ctx.dim0, ctx.dim1)


@derivative("t", name="TBackward0")
def t_backward(ctx, g):
    return g.t()


def _movedim_name(v):
    # PyTorch's movedim of a 0-d tensor is an alias; any other is a permute
    return "AliasBackward0" if v["input"].dim() == 0 else "PermuteBackward0"


@derivative("movedim", name=_movedim_name)
def movedim_backward(ctx, g):
    return g.movedim(ctx.destination, ctx.source)


@derivative("alias")
def alias_backward(ctx, g):
    return g


# ----------------------------------------------------------------------------- expands

@derivative(("expand_as", "broadcast_to"), name="ExpandBackward0")
def expand_like_backward(ctx, g):
    return g  # the engine sums it back to the input's shape


def _outputs_of_inputs_without_grad(values):
    # Each output is its own input expanded: it needs grad only when that input does.
    return [i for i, t in enumerate(values["tensors"]) if not getattr(t, "_requires_grad", False)]


@derivative("broadcast_tensors", inputs=("tensors",), multi_grad=True, name="ExpandBackward0",
            nondiff_outputs=_outputs_of_inputs_without_grad)
def broadcast_tensors_backward(ctx, *grads):
    return (list(grads),)


# ----------------------------------------------------------------------------- sub-ranges

@derivative("select")
def select_backward(ctx, g):
    return _embed(g, ctx.input_meta(0)[0], lambda z: z.select(ctx.dim, ctx.index))


@derivative("narrow", name="SliceBackward0")
def narrow_backward(ctx, g):
    z = _zeros(g, ctx.input_meta(0)[0])
    piece = z.narrow(ctx.dim, ctx.start, ctx.length)
    if type(g) is not type(z):
        # Batched under a transform (tensor_split's pieces in a Hessian): placed out of
        # place, as the multi-view ops' pieces are.
        return _placed_sum(z, [piece], [g])
    piece.copy_(g)
    return z


@derivative("diagonal")
def diagonal_backward(ctx, g):
    return _embed(g, ctx.input_meta(0)[0],
                  lambda z: z.diagonal(ctx.offset, ctx.dim1, ctx.dim2))


@derivative("unfold")
def unfold_backward(ctx, g):
    # Windows may overlap: add every window's gradient at the input positions it read.
    shape = ctx.input_meta(0)[0]
    n = 1
    for s in shape:
        n *= s
    pos = J.arange(n, device=g.device).reshape(shape).unfold(ctx.dimension, ctx.size, ctx.step)
    flat = J.zeros(n, dtype=g.dtype, device=g.device)
    return flat.index_add(0, pos.reshape(-1), g.reshape(-1)).reshape(shape)


def _pieces_backward(ctx, grads, cut):
    """Gradient of an op returning several views of its input (split, chunk, unbind...):
    ``cut(z)`` repeats the forward on a zero tensor, each piece receives its gradient."""
    if all(g is None for g in grads):
        return None
    ref = next(g for g in grads if g is not None)
    z = _zeros(ref, ctx.input_meta(0)[0])
    pieces = cut(z)
    if any(type(g) is not type(z) for g in grads if g is not None):
        # Under a transform (vmap in jacrev, jacfwd of jacrev in hessian) a gradient is
        # batched and the plain pieces cannot take it in place: each gradient is placed into
        # zeros of the input's shape out of place (cat), and the placements are summed.
        return _placed_sum(z, pieces, grads)
    # The engine's buffer stops at the last output that has a gradient.
    for piece, g in zip(pieces, grads, strict=False):
        if g is not None:
            # The pieces are ours: the refusal to write a multi-output view in place
            # (PyTorch's, for users' views) does not apply to them.
            piece._creation_meta = None
            piece.add_(g)  # tensor_split's pieces may overlap (indices [3, 1])
    return z


def _placed_sum(z, pieces, grads):
    """The pieces' gradients, each placed into zeros of ``z``'s shape (``cat``), summed."""
    full, strides, base = tuple(z.shape), tuple(z.stride()), z.storage_offset()
    total = None
    for piece, g in zip(pieces, grads, strict=False):
        if g is None:
            continue
        shape, offset = tuple(piece.shape), piece.storage_offset() - base
        if len(shape) < len(full):  # unbind: the dim whose removal leaves the piece
            d = next(k for k in range(len(full))
                     if full[:k] + full[k + 1:] == shape
                     and strides[:k] + strides[k + 1:] == tuple(piece.stride()))
            g, length = g.unsqueeze(d), 1
        else:
            d = next((k for k in range(len(full)) if shape[k] != full[k]), 0)
            length = shape[d]
        start = offset // max(1, strides[d])
        parts = [g]
        if start:
            parts.insert(0, z.new_zeros(full[:d] + (start,) + full[d + 1:]))
        if full[d] - start - length:
            parts.append(z.new_zeros(full[:d] + (full[d] - start - length,) + full[d + 1:]))
        placed = J.cat(parts, d) if len(parts) > 1 else g
        total = placed if total is None else total + placed
    return total


def _split_name(v):
    s = v["split_size_or_sections"] if "split_size_or_sections" in v else v["split_size"]
    return "SplitWithSizesBackward0" if isinstance(s, (list, tuple)) else "SplitBackward0"


@derivative("split", multi_grad=True, name=_split_name)
def split_backward(ctx, *grads):
    # split_copy names the sizes split_size, as PyTorch's signature does
    sizes = getattr(ctx, "split_size_or_sections", None)
    sizes = ctx.split_size if sizes is None else sizes
    return _pieces_backward(ctx, grads, lambda z: z.split(sizes, ctx.dim))


@derivative("chunk", multi_grad=True, name="SplitBackward0")
def chunk_backward(ctx, *grads):
    return _pieces_backward(ctx, grads, lambda z: z.chunk(ctx.chunks, ctx.dim))


@derivative("tensor_split", multi_grad=True,
            save=("tensor_indices_or_sections", "indices", "sections"), name="SliceBackward0")
def tensor_split_backward(ctx, *grads):
    spec = {k: getattr(ctx, k) for k in ("tensor_indices_or_sections", "indices", "sections")}
    spec = {k: v for k, v in spec.items() if v is not None}
    return _pieces_backward(ctx, grads, lambda z: z.tensor_split(dim=ctx.dim, **spec))


@derivative("unbind", multi_grad=True)
def unbind_backward(ctx, *grads):
    return _pieces_backward(ctx, grads, lambda z: z.unbind(ctx.dim))


# ----------------------------------------------------------------------------- indexing

# The classes of a basic key's items that hold no tensor (bool is not ``int``'s class).
_BASIC_ITEMS = frozenset({int, slice, type(None), type(Ellipsis)})


class _Key:
    """The key of ``x[key]``, kept whole (a tuple key may mix tensors and slices), as PyTorch
    keeps it: a basic key's 0-dim integer tensors as the ints they held (``SelectBackward0``
    stores the index), an advanced key's tensors as saved tensors, so writing one in place
    before backward raises "modified by an inplace operation" instead of giving a gradient
    for other positions (or of another shape)."""

    __slots__ = ("key", "saved")

    def __init__(self, key, advanced, on_node=False):
        self.saved = None
        if _basic_key(key):
            self.key = key   # ints, slices, None, Ellipsis: nothing to save or rebuild
            return
        if key.__class__ in DENSE_CLASSES and advanced and on_node:
            self.key = key   # ``x[idx]``: the node saves the index (``key_tensors``)
            self.saved = "node"
            return
        from ..graph import SavedTensor

        items = key if isinstance(key, (tuple, list)) else (key,)
        if not any(isinstance(k, Tensor) for k in items):
            self.key = key
        elif advanced:
            self.key = key
            # ``on_node``: the node saved them itself (as ``key_tensors``, freed with it)
            self.saved = "node" if on_node else [SavedTensor(k) for k in items
                                                 if isinstance(k, Tensor)]
        else:
            self.key = _rebuild(key, (int(k) for k in items if isinstance(k, Tensor)))

    def unpack(self, node):
        """The key for ``node``'s backward (its saved tensors checked, hooks applied)."""
        if self.saved is None:
            return self.key
        if self.saved == "node":
            return _rebuild(self.key, iter(node.key_tensors))
        return _rebuild(self.key, (t.unpack(node) for t in self.saved))


def _rebuild(key, tensors):
    """``key`` with its tensors replaced, in order, by the items of ``tensors``."""
    if isinstance(key, Tensor):
        return next(tensors)
    if isinstance(key, (tuple, list)):
        return type(key)(next(tensors) if isinstance(k, Tensor) else k for k in key)
    return key


def _is_int(k):
    if k.__class__ is int:
        return True
    if isinstance(k, Tensor):
        # PyTorch indexes with a 0-dim integer tensor as with an int (select).
        return k.dim() == 0 and k._dtype.category == _dtypes.INTEGRAL
    return (hasattr(k, "__index__") and getattr(k, "ndim", 0) == 0
            and not isinstance(k, bool) and type(k).__name__ != "bool_")


def _key_kind(shape, key, setting):
    """(advanced?, the last view op PyTorch applies for a basic key: "Select", "Slice",
    "Unsqueeze" or None when every item is a no-op (``x[...]``, ``x[:, :]``))."""
    if key.__class__ is int:   # ``x[i]`` (a bool is not of this class)
        return False, "Select"
    if isinstance(key, list):
        return True, None
    items = key if isinstance(key, tuple) else (key,)
    for k in items:
        if not (k is None or k is Ellipsis or isinstance(k, slice) or _is_int(k)):
            if setting and key is True:
                return False, "Unsqueeze"  # PyTorch writes x[True] = v through a view
            return True, None
    if isinstance(key, slice) and not setting:
        return False, "Slice"  # a lone slice is always applied when reading
    specified = sum(1 for k in items if k is not None and k is not Ellipsis)
    d = 0
    last = None
    for k in items:
        if k is None:
            last = "Unsqueeze"
        elif k is Ellipsis:
            d += len(shape) - specified
        elif isinstance(k, slice):
            # (``x[-5:, ...]`` or ``empty[1:, ...]`` are sliced: see _noop_slice)
            if not _noop_slice(k, shape[d] if d < len(shape) else 0):
                last = "Slice"
            d += 1
        else:
            last = "Select"
            d += 1
    return False, last


def _noop_slice(k, n):
    """Whether slice ``k`` over a dim of ``n`` is one PyTorch skips when indexing: its own
    start is 0 (not one that clamps to 0), its stop reaches the end and its step is 1."""
    start, stop, step = k.start, k.stop, k.step
    return (start is None or start == 0) and (stop is None or stop >= n) \
        and (step is None or step == 1)


_INDEX_DTYPES = (_dtypes.int64, _dtypes.int32)


def recorded_getitem(op, args, kwargs):
    """A recorded basic key of several parts (``x[0, 1]``, ``x[None, :, ::2]``): PyTorch's
    ``applySlicing``, one view op per part that does something, left to right (``select``
    for an int, the slice for a slice that is no no-op, ``unsqueeze`` for None), so a node
    each: ``SelectBackward0 -> SelectBackward0`` for ``x[0, 1]``. None (the op's own node)
    for a key with at most one such part, a key with tensors, lists or bools, or one the op
    must refuse. Integer index tensors (``x[1:, idx]``, ``x[0, idx]``) join one ``index``
    after the view parts (``IndexBackward0 -> SliceBackward0``), as in PyTorch. One pass
    over the key: every recorded tuple key comes here first."""
    if kwargs or len(args) != 2:
        return None
    input, key = args
    if key.__class__ is not tuple or len(key) < 2 or input.__class__ not in DENSE_CLASSES:
        return None
    shape = input._shape
    steps = []
    indices = []   # (dim after the view parts, index tensor)
    d = 0   # the dim of the result so far that the next part indexes
    source = 0   # the input's dim it came from
    ellipsis = False
    for k in key:
        if k is None:
            steps.append(("unsqueeze", d))
            d += 1
        elif k is Ellipsis:
            if ellipsis:
                return None   # (the op raises its own error)
            ellipsis = True
            specified = sum(1 for k in key if k is not None and k is not Ellipsis)
            skipped = len(shape) - specified
            d += skipped
            source += skipped
        elif source >= len(shape):
            return None   # (too many indices, or an item the op judges)
        elif k.__class__ is slice:
            if not _noop_slice(k, shape[source]):
                steps.append(("slice", d, k))
            d += 1
            source += 1
        elif k.__class__ is int or (_is_int(k) and not isinstance(k, Tensor)):
            i = k.__index__()
            if not -shape[source] <= i < shape[source]:
                return None   # (out of range: the op's IndexError)
            steps.append(("select", d, i))
            source += 1
        elif k.__class__ in DENSE_CLASSES and k._dtype in _INDEX_DTYPES and k._shape \
                and not k._requires_grad:
            # An index tensor: PyTorch keeps it for one ``index`` after the view parts,
            # at the dim it reaches there.
            indices.append((d, k))
            d += 1
            source += 1
        else:
            return None
    if len(steps) < (1 if indices else 2):
        return None
    result = _dispatch.untraced(_index_steps, input, steps, indices)
    return _dispatch.notify(op, (input,), result)


def lean_getitem(op, formula, impl, args, kwargs):
    """How a recorded ``x[key]`` starts (the formula's ``lean``): a basic key of several parts
    that do something is ``recorded_getitem``'s chain of view nodes; one of at most one such
    part (``x[0]``, ``x[:, 1:]``, ``x[None]``, ``x[...]``), on a plain tensor that is no
    view needing a refresh, is the op's own node, recorded by ``record_single`` (issue 18: a
    loop reading ``x[t]`` step by step). ``DECLINED`` for anything else: the general path, with its
    checks and errors."""
    if kwargs or len(args) != 2:
        return DECLINED
    input, key = args
    if key.__class__ is tuple:
        chained = recorded_getitem(op, args, kwargs)
        if chained is not None:
            return chained
    if not _basic_key(key):
        return DECLINED
    if input.__class__ not in DENSE_CLASSES or input._creation_meta is not None:
        return DECLINED
    return record_single(op, formula, impl, args, {"input": input, "key": key})


def _basic_key(key):
    """Whether ``key`` is an int, a slice, None, Ellipsis or a tuple of them."""
    if key.__class__ is tuple:
        for k in key:
            if k.__class__ not in _BASIC_ITEMS:
                return False
        return True
    return key.__class__ in _BASIC_ITEMS


def lean_setitem(op, formula, impl, args, kwargs):
    """A recorded ``x[key] = v`` (the formula's ``lean``, after ``setitem_value`` shaped the
    value) with a basic key, a tensor value of another storage that is no view needing a
    refresh, and a plain floating target that is no view (``out[t] = h``, issue 18):
    ``record_write``. ``DECLINED`` for anything else: the general path."""
    if kwargs or len(args) != 3:
        return DECLINED
    target, key, value = args
    if target.__class__ not in DENSE_CLASSES or target._base is not None \
            or target._creation_meta is not None or target._view_version is not None \
            or target._dtype.category < _dtypes.FLOATING \
            or value.__class__ not in DENSE_CLASSES or value._creation_meta is not None \
            or value._storage is target._storage or not _basic_key(key):
        return DECLINED
    return record_write(op, formula, impl, args, {"input": target, "key": key, "value": value})


def _index_steps(t, steps, indices=()):
    for step in steps:
        if step[0] == "unsqueeze":
            t = t.unsqueeze(step[1])
        elif step[0] == "select":
            t = t.select(step[1], step[2])
        else:
            t = t[(slice(None),) * step[1] + (step[2],)]
    if indices:
        key = [slice(None)] * (indices[-1][0] + 1)
        for d, index in indices:
            key[d] = index
        t = t[tuple(key)]   # (``IndexBackward0``)
    return t


def _getitem_name(v):
    key = v["key"]
    advanced, last = _key_kind(v["input"]._shape, key, False)
    v["key_box"] = _Key(key, advanced, on_node=True)
    if advanced:
        # PyTorch's IndexBackward0 saves the indices (a list or a bool becomes a tensor):
        # a second backward without retain_graph finds them freed and raises.
        tensors = [k for k in (key if isinstance(key, (tuple, list)) else (key,))
                   if isinstance(k, Tensor)]
        v["key_tensors"] = tensors or [J.zeros(0, dtype=_dtypes.int64)]
        return "IndexBackward0"
    return (last or "Alias") + "Backward0"


@derivative("__getitem__", name=_getitem_name, save=("key_tensors",))
def getitem_backward(ctx, g):
    shape = ctx.input_meta(0)[0]
    key = ctx.key_box.unpack(ctx)
    advanced, _ = _key_kind(shape, key, False)
    if not advanced and not _dispatch.transforms.active:
        if _fast.FORMULA_ARRAYS and _fast.plain() and plain_cpu_floats(g):
            # A plain pass (issue 18: a loop reading ``x[t]`` step by step): the same zeros
            # and the same write, on the arrays (a basic key indexes NumPy as it does here).
            z = np.zeros(shape, g._dtype.numpy)
            z[key] = g._array()
            return Tensor._from_array(z, g._dtype, g._storage.device)
        z = _zeros(g, shape)
        z[key] = g
        return z
    # Advanced keys may repeat elements: add the gradients at the positions read. (Under a
    # function transform, a basic key too: vmap cannot write a batched gradient into one
    # unbatched tensor in place, and the out-of-place index_add is batched.)
    if advanced and _fast.FORMULA_ARRAYS and _fast.plain() and plain_cpu_floats(g) \
            and _one_index_or_mask(key, shape):
        # ``x[idx]`` or ``x[mask]`` (what the forward's fast path takes) in a plain pass:
        # the same sums in the same order (each position's gradients in index order, added
        # to zero: -0.0 becomes 0.0 as in index_add), on the arrays (rows by one flat
        # position per element: several times faster than NumPy's row-wise ``add.at``).
        z = np.zeros(shape, g._dtype.numpy)
        rows, values = key._array(), g._array()
        if not sum_rows_into_zeros(z, rows, values):   # (a mask's: add.at)
            ufunc_at(np, "add", z, rows, values)
        return Tensor._from_array(z, g._dtype, g._storage.device)
    n = 1
    for s in shape:
        n *= s
    pos = J.arange(n, device=g.device).reshape(shape)[key]
    flat = J.zeros(n, dtype=g.dtype, device=g.device)
    return flat.index_add(0, pos.reshape(-1), g.reshape(-1)).reshape(shape)


def _one_index_or_mask(key, shape):
    """Whether ``key`` is one CPU int64/int32 index tensor, or a bool mask over the leading
    dims of ``shape``: keys NumPy indexes exactly as PyTorch does."""
    if key.__class__ not in DENSE_CLASSES or key._storage._backend is not CPU_BACKEND:
        return False
    kind = key._dtype
    if kind is _dtypes.int64 or kind is _dtypes.int32:
        return bool(shape)
    return kind is _dtypes.bool_ and bool(key._shape) \
        and tuple(key._shape) == tuple(shape[:len(key._shape)])


def _basic_items_view(shape, key):
    """Whether the basic items of an advanced key (None, ints, bools, slices that are not
    no-ops) make PyTorch index a view rather than the tensor itself."""
    masks = (_dtypes.bool_, _dtypes.uint8)

    items = key if isinstance(key, tuple) else (key,)
    specified = sum(1 for k in items if k is not None and k is not Ellipsis
                    and not isinstance(k, bool))
    d = 0
    for k in items:
        if k is None or isinstance(k, bool) or _is_int(k):
            return True
        if k is Ellipsis:
            d += len(shape) - specified
        elif isinstance(k, slice):
            n = shape[d] if d < len(shape) else 0
            if not ((k.start is None or k.start == 0) and (k.stop is None or k.stop >= n)
                    and (k.step is None or k.step == 1)):
                return True
            d += 1
        else:
            d += k.dim() if isinstance(k, Tensor) and k.dtype in masks else 1
    return False


def _setitem_name(v):
    key = v["key"]
    x = v["input"]
    advanced, last = _key_kind(x._shape, key, True)
    v["key_box"] = _Key(key, advanced)
    if advanced:
        # index_put_ on the tensor itself, or on a view its basic items made (CopySlices)
        return "CopySlices" if _basic_items_view(x._shape, key) else "IndexPutBackward0"
    if last is not None:
        return "CopySlices"
    value = v["value"]
    if isinstance(value, Tensor):
        if value._shape == x._shape or value.dim() != 0:
            return "CopyBackwards"
        return "FillBackward3"
    return "FillBackward3" if x._shape else "CopyBackwards"


@derivative("__setitem__", inputs=("input", "value"), name=_setitem_name)
def setitem_backward(ctx, g):
    need_input, need_value = ctx.needs_input_grad
    key = ctx.key_box.unpack(ctx)
    gi = gv = None
    if need_input:
        gi = g.clone()
        gi[key] = 0
    if need_value:
        gv = _fit_trailing(g[key], ctx.input_meta(1)[0])
    return gi, gv


# ----------------------------------------------------------------------------- copies

@derivative(("clone", "contiguous"), name="CloneBackward0")
def clone_backward(ctx, g):
    return g


@derivative("to", name="ToCopyBackward0")
def to_backward(ctx, g):
    device = ctx.input_meta(0)[2]
    return g if g.device == device else g.to(device)


@derivative("copy_", inputs=("input", "other"), name="CopyBackwards")
def copy_backward(ctx, g):
    need_self, need_src = ctx.needs_input_grad
    gs = _fit_trailing(g, ctx.input_meta(1)[0]) if need_src else None
    return (_zeros(g, g.shape) if need_self else None), gs


def _fill_name(v):
    return "FillBackward3" if isinstance(v["value"], Tensor) else "FillBackward2"


@derivative("fill_", inputs=("input", "value"), name=_fill_name)
def fill_backward(ctx, g):
    need_self, need_value = ctx.needs_input_grad
    return (_zeros(g, g.shape) if need_self else None,
            g.sum() if need_value else None)


@derivative("zero_")
def zero_backward(ctx, g):
    return _zeros(g, g.shape)


@derivative("set_", inputs=("input", "source"), name="NotImplemented")
def set_backward(ctx, g):
    from ..._errors import TensorRuntimeError

    raise TensorRuntimeError("derivative for set_ is not implemented")


nondifferentiable("resize_")
nondifferentiable("resize_as_")


# A basic key of several parts is PyTorch's chain of view ops, one node each (above).
OPS["__getitem__"].backward.lean = lean_getitem
# PyTorch views and expands a written value to the selection first.
OPS["__setitem__"].backward.prepare = setitem_value
OPS["__setitem__"].backward.lean = lean_setitem
OPS["broadcast_tensors"].backward.composite = recorded_broadcast_tensors
OPS["tensor_split"].backward.composite = recorded_tensor_split
