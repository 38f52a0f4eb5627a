"""View ops: new (shape, stride, offset) over the same storage, never a data copy.

Each op computes metadata with PyTorch's rules and hands it to ``_make_view``; the result
shares the storage and the version counter, and its ``_base`` is the root tensor that owns
the memory, exactly as in PyTorch.

Also here: the view-or-alias conveniences ``ravel`` (a copy only for a non-contiguous input,
as PyTorch's), ``atleast_1d/2d/3d``, ``adjoint`` (a conjugated copy for complex tensors),
``resolve_conj`` and ``resolve_neg``, and the argument checks other families share
(``_check_tensor``, ``_tensor_args``, ``_index``).
"""

import builtins
import numbers
import warnings

from .. import _dispatch, _dtypes
from .._dispatch import Post, check_inplace, emit, returned_input
from .._errors import (TensorIndexError, TensorRuntimeError, TensorTypeError,
                       TensorValueError, invalid_combination, stacklevel, wrap_dim, type_name)
from .._layout import contiguous_strides, infer_size, view_strides
from .._argparse import int_arg, int_list_arg
from .._registry import register, renamed
from .._size import Size
from .._tensor import Tensor, valid_array


def make_view(input, shape, stride, offset, dtype=None):
    """A tensor over ``input``'s storage with the given metadata (no op bookkeeping)."""
    base = input._base
    if base is None:
        base = input
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    if stride.__class__ is not tuple:
        stride = tuple(stride)
    # ``Tensor._make`` inlined: every view pays this, and a view's cost is its overhead.
    view = _new_tensor(Tensor)
    storage = view._storage = input._storage
    view._shape = shape
    view._stride = stride
    view._offset = offset
    view._dtype = dtype or input._dtype
    view._cached_array = view._contiguous = None
    view._cached_generation = storage._generation if storage is not None else 0
    view._base = base
    counter = view._version_counter = input._version_counter
    # PyTorch's view bookkeeping: the version the view's history is valid for (a write to
    # the base after this gives it a fresh history when read), and how it was made (a view
    # of a view made under no_grad, or made under no_grad itself, may not be written in
    # place while autograd records).
    view._view_version = counter.value
    meta = input._creation_meta
    if not _grad_mode.enabled:
        meta = "no_grad"
    if meta is not None:
        view._creation_meta = meta
    if base._requires_grad and view._dtype.category >= _FLOATING:
        # It requires grad through its base (a recorded view gets its node right after).
        view._requires_grad = True
        view._derived_grad = True
    return view


_FLOATING = _dtypes.FLOATING


_grad_mode = _dispatch.grad_mode


def mark_multi_output(views):
    """Views made together by one call (split, chunk, unbind): PyTorch refuses to write any
    of them in place while autograd records (their shared node could not be rebased)."""
    if _grad_mode.enabled:
        for v in views:
            v._creation_meta = "multi"
    return views


_new_tensor = object.__new__


def _copied(result, input, *args, **kwargs):
    # reshape-like ops copy when the strides forbid a view: the trace's RESHAPE-COPY pitfall
    return {"copied": True} if result._storage is not input._storage else None


# The event's inputs are the viewed tensor alone (``other`` lends only its shape; a 0-d
# tensor given for an int argument is that int).
_INPUT_ONLY = Post(inputs=("input",))
_COPIES = Post(info=_copied)


_INPUT_ONLY_COPIES = Post(inputs=("input",), info=_copied)


def sizes_from_args(args, name="size"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size([2, 3]))``; a
    lone size may be any integer PyTorch takes as one (an integer tensor of one element, a 0-d
    NumPy array, a NumPy int). A tensor or NumPy array of sizes is refused, as PyTorch
    refuses it."""
    if len(args) == 1 and args[0].__class__ is not int:
        first = args[0]
        if first.__class__ is tuple or first.__class__ is Size or first.__class__ is list:
            args = first
        elif first.__class__ is bool or isinstance(first, (float, str)):
            raise TensorTypeError(f"{name} must be a sequence of ints, not "
                                  f"{type_name(first)} ({first!r})")
        elif isinstance(first, Tensor) or hasattr(first, "ndim"):
            # (a tensor of one element is one int to PyTorch's parser; an array only 0-d)
            if (first.numel() != 1) if isinstance(first, Tensor) else first.ndim:
                raise TensorTypeError(
                    f"{name} must be a tuple of ints, not {type_name(first)} (write "
                    f"tuple({name}.tolist()) to use its values)")
        elif not isinstance(first, numbers.Integral):
            args = first
    for a in args:
        if a.__class__ is not int:
            break
    else:
        return tuple(args)  # plain ints: nothing to convert
    try:
        return tuple(a.__index__() for a in args)
    except (AttributeError, TypeError):
        raise TensorTypeError(
            f"{name} must be a sequence of ints, got {args!r}") from None


# ---------------------------------------------------------------------- reshaping views
@register("view", function=False)  # a method only, as in PyTorch
def view(input, *size, dtype=None):
    """A view with a new shape (or a new dtype); raises when the strides forbid it.

    >>> import jtensor as torch
    >>> torch.arange(6).view(2, 3).stride()
    (3, 1)
    """
    if dtype is None:
        if len(size) == 1:
            first = size[0]
            if first.__class__ is int:   # x.view(-1), the common form
                return _view_shape(input, size)
            if isinstance(first, (_dtypes.dtype, type)):
                dtype = first
            elif not isinstance(first, (list, tuple, numbers.Integral)) \
                    and not hasattr(first, "__index__"):
                # (``x.view(None)``, ``x.view(2.5)``: neither a size nor a dtype)
                raise _view_overloads(size, None)
        elif not size:   # (``x.view()``: neither overload)
            raise _view_overloads(size, None)
        if dtype is None:
            return _view_shape(input, sizes_from_args(size))
    elif size:
        # A size and ``dtype=`` together (``x.view((3, 2), dtype=torch.int32)``): PyTorch
        # has no such overload, and taking one of them would drop the other.
        raise _view_overloads(size, dtype)
    if dtype.__class__ is _dtypes.dtype and dtype.itemsize == input._dtype.itemsize:
        out = make_view(input, input._shape, input._stride, input._offset, dtype)
    else:
        out = _view_dtype(input, _dtypes.to_dtype(dtype))
    # PyTorch's ``view(dtype)`` is not differentiable, not even to the same dtype: the result
    # shares the storage and the version counter, but it is no autograd view (``_base`` is
    # None, ``_is_view()`` False) and never requires grad.
    out._base = None
    out._view_version = None
    out._creation_meta = None
    out._requires_grad = False
    return out


def _view_overloads(size, dtype):
    """``view``'s ``TypeError`` for arguments that fit neither of its overloads."""
    return invalid_combination("view", size, {} if dtype is None else {"dtype": dtype},
                               ("(torch.dtype dtype)", "(tuple of ints size)"))


def view_reinterprets(values):
    """Whether a ``view`` call's arguments (bound by name) ask for a dtype: its output is
    not differentiable."""
    if values.get("dtype") is not None:
        return True
    size = values.get("size")
    return len(size) == 1 and isinstance(size[0], (_dtypes.dtype, type)) if size else False


def _new_strides(input, shape):
    """Strides for viewing ``input`` as ``shape`` (None when impossible); cheap if contiguous."""
    # Exactly row-major strides (size-1 dims included) always reshape to row-major strides.
    if input._stride == contiguous_strides(input._shape) and 0 not in input._shape:
        return contiguous_strides(shape)
    return view_strides(input._shape, input._stride, shape)


# (shape, strides, requested shape) -> (shape, strides) of the view: the arithmetic of a
# view depends on nothing else, and the same views are taken again and again (a model's
# forward), so it is remembered (errors never are).
_VIEW_GEOMETRY = {}


def _remembered(key, compute, *args):
    """``compute(*args)`` (a view's (shape, strides)), remembered under ``key``: a tuple of
    the input's shape and strides and the exact ints, None or tuples the op was given (never a
    float or a bool, which would compare equal to an int)."""
    hit = _VIEW_GEOMETRY.get(key)
    if hit is None:
        hit = compute(*args)
        if len(_VIEW_GEOMETRY) >= 4096:
            _VIEW_GEOMETRY.clear()
        _VIEW_GEOMETRY[key] = hit
    return hit


def reshape_views(input, shape):
    """Whether ``input.reshape(shape)`` (``shape`` a tuple of ints, one may be -1) is a view:
    a remembered view geometry answers at once (``_reshape`` remembers each view it takes);
    an impossible shape is left to the op's error (False)."""
    if (input._shape, input._stride, shape) in _VIEW_GEOMETRY:
        return True
    try:
        shape = infer_size(shape, input.numel())
    except RuntimeError:
        return False
    return _new_strides(input, shape) is not None


def _view_shape(input, shape):
    """``input`` viewed as ``shape`` (a tuple of ints, one may be -1), or PyTorch's error."""
    hit = _VIEW_GEOMETRY.get((input._shape, input._stride, shape))
    if hit is None:
        hit = _remembered((input._shape, input._stride, shape), _view_geometry, input, shape)
    return make_view(input, hit[0], hit[1], input._offset)


def _view_geometry(input, shape):
    shape = infer_size(shape, input.numel())
    stride = _new_strides(input, shape)
    if stride is None:
        emit("view_failed", input=input, shape=tuple(shape))  # for jtensor.trace's pitfalls
        raise view_size_error(input._shape, input._stride, shape)
    return tuple(shape), tuple(stride)


def view_size_error(shape, stride, requested, detail=None):
    """PyTorch's error for a view that strides (shape, stride) cannot give ``requested``
    (``view``, and the ``_unsafe_view`` of ATen's composites), naming the layouts, or
    ``detail`` where the caller can say more."""
    if detail is None:
        detail = (f"input shape {list(shape)}, stride {list(stride)}; requested shape "
                  f"{list(requested)}")
    return TensorRuntimeError(
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead. "
        f"({detail})")


def _view_dtype(input, new):
    old_size, new_size = input._dtype.itemsize, new.itemsize
    shape, stride, offset = list(input._shape), list(input._stride), input._offset
    if old_size == new_size:
        return make_view(input, shape, stride, offset, new)
    if input.dim() == 0:
        raise TensorRuntimeError(
            f"self.dim() cannot be 0 to view {input._dtype._torch_name} as "
            f"{new._torch_name} (different element sizes)")
    if stride[-1] != 1:
        raise TensorRuntimeError(
            f"self.stride(-1) must be 1 to view {input._dtype._torch_name} as "
            f"{new._torch_name} (different element sizes), but got {stride[-1]}")
    if old_size > new_size:
        ratio = old_size // new_size
        shape[-1] *= ratio
        stride = [s * ratio for s in stride[:-1]] + [1]
        return make_view(input, shape, stride, offset * ratio, new)
    ratio = new_size // old_size
    if shape[-1] % ratio:
        raise TensorRuntimeError(
            f"self.size(-1) must be divisible by {ratio} to view {input._dtype._torch_name} as "
            f"{new._torch_name} (different element sizes), but got {shape[-1]}")
    if offset % ratio:
        raise TensorRuntimeError(
            f"self.storage_offset() must be divisible by {ratio} to view "
            f"{input._dtype._torch_name} as {new._torch_name} (different element sizes), "
            f"but got {offset}")
    for s in stride[:-1]:
        if s % ratio:
            raise TensorRuntimeError(
                f"self.stride(i) must be divisible by {ratio} for every dim but the last to view "
                f"{input._dtype._torch_name} as {new._torch_name} (different element sizes), "
                f"but got strides {input._stride}")
    shape[-1] //= ratio
    stride = [s // ratio for s in stride[:-1]] + [1]
    return make_view(input, shape, stride, offset // ratio, new)


@register("view", function=False, post=_INPUT_ONLY)
def view_as(input, other):
    """``input.view(other.size())``."""
    return _view_shape(input, other._shape)


@register("view")
def as_strided(input, size, stride, storage_offset=None):
    """Any (size, stride, offset) over the same storage; may overlap. Checked against bounds."""
    if size.__class__ is tuple and stride.__class__ is tuple:
        # A layout checked once against a storage of this size is remembered (a float that
        # equals an int gives the same layout as its int() would).
        key = ("as_strided", size, stride, storage_offset, input._offset,
               input._dtype.itemsize, input._storage.nbytes())
        hit = _VIEW_GEOMETRY.get(key)
        if hit is None:
            hit = _remembered(key, _strided_layout, input, size, stride, storage_offset)
        return make_view(input, *hit)
    return make_view(input, *_strided_layout(input, size, stride, storage_offset))


def _strided_layout(input, size, stride, storage_offset):
    size, stride = tuple(map(int, size)), tuple(map(int, stride))
    offset = input._offset if storage_offset is None else int(storage_offset)
    check_strided_bounds(input, size, stride, offset, "as_strided")
    return size, stride, offset


def check_strided_bounds(input, size, stride, offset, name):
    if len(size) != len(stride):
        raise TensorRuntimeError(
            f"mismatch in length of strides and shape: size {list(size)} has {len(size)} "
            f"dims but stride {list(stride)} has {len(stride)}")
    last = offset  # index of the last element the layout reaches
    empty = False
    for n, st in zip(size, stride, strict=True):
        if st < 0:
            raise TensorRuntimeError(
                f"{name}: Negative strides are not supported at the moment, got strides: "
                f"{list(stride)}")
        if n <= 0:
            if n < 0:
                raise TensorRuntimeError(
                    f"{name}: negative sizes are not allowed, got {list(size)}")
            empty = True
        last += (n - 1) * st
    if offset < 0:
        raise TensorRuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = input._dtype.itemsize
    needed = 0 if empty else (last + 1) * itemsize
    available = input._storage.nbytes()
    if needed > available:
        raise TensorRuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed} are out of bounds "
            f"for storage of size {available}")


@register("view", post=_COPIES)
def reshape(input, shape):
    """A view when the strides allow it (even for some non-contiguous inputs), else a copy.

    >>> import jtensor as torch
    >>> x = torch.arange(12).view(3, 4)
    >>> x[:, ::2].reshape(-1)._is_view(), x.t().reshape(-1)._is_view()
    (True, False)
    """
    return _reshape(input, sizes_from_args((shape,)))


def _reshape(input, shape):
    key = (input._shape, input._stride, shape)
    hit = _VIEW_GEOMETRY.get(key)   # reshape views exactly where view does
    if hit is not None:
        return make_view(input, hit[0], hit[1], input._offset)
    shape = infer_size(shape, input.numel())
    stride = _new_strides(input, shape)
    if stride is not None:
        _remembered(key, tuple, (shape, stride))
        return make_view(input, shape, stride, input._offset)
    from .copies import contiguous_copy

    copied = contiguous_copy(input)
    copied._set_metadata(shape, view_strides(copied._shape, copied._stride, shape), 0)
    return copied


@register("view", function=False, post=_INPUT_ONLY_COPIES)
def reshape_as(input, other):
    """``input.reshape(other.size())``: a view when possible, else a copy."""
    return _reshape(input, other._shape)


@register("view", post=Post(info=_copied, silent=returned_input))
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (a view when possible, like reshape)."""
    if start_dim.__class__ is int and end_dim.__class__ is int:
        hit = _VIEW_GEOMETRY.get(("flatten", input._shape, input._stride, start_dim, end_dim))
        if hit is not None:
            return make_view(input, hit[0], hit[1], input._offset)
    ndim = input.dim()
    if ndim == 0:
        wrap_dim(start_dim, 0)  # (a 0-d tensor still takes only dims 0 and -1)
        wrap_dim(end_dim, 0)
        return _reshape(input, (1,))
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if start > end:
        raise TensorRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = 1
    for s in input._shape[start:end + 1]:
        merged *= s
    shape = input._shape[:start] + (merged,) + input._shape[end + 1:]
    stride = _new_strides(input, shape)  # the sizes multiply up by construction
    if stride is not None:
        if start_dim.__class__ is int and end_dim.__class__ is int:
            _remembered(("flatten", input._shape, input._stride, start_dim, end_dim), tuple,
                        (shape, stride))
        return make_view(input, shape, stride, input._offset)
    return _reshape(input, shape)


@register("view")
def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one entry may be -1)."""
    dim = wrap_dim(dim, input.dim())
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise TensorRuntimeError("unflatten: sizes must be non-empty")
    inferred = infer_size(sizes, input._shape[dim]) if -1 in sizes else sizes
    known = 1
    for s in inferred:
        known *= s
    if known != input._shape[dim]:
        raise TensorRuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({input._shape[dim]}) in the input tensor")
    return _view_shape(input, input._shape[:dim] + inferred + input._shape[dim + 1:])


# ---------------------------------------------------------------------- dim shuffles
@register("view")
def permute(input, dims):
    """Reorder dims; strides are permuted, data untouched (``x.permute(1, 0)`` or
    ``torch.permute(x, (1, 0))``)."""
    dims = sizes_from_args((dims,), "dims")
    return make_view(input, *_remembered(("permute", input._shape, input._stride, dims),
                                         _permute_layout, input, dims), input._offset)


def _permute_layout(input, dims):
    shape, stride = input._shape, input._stride
    ndim = len(shape)
    if len(dims) != ndim:
        raise TensorRuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
            f"equal to len(dims) = {len(dims)}")
    seen = 0
    new_shape, new_stride = [], []
    for d in dims:
        if not 0 <= d < ndim:
            d = wrap_dim(d, ndim)
        if seen >> d & 1:
            raise TensorRuntimeError(
                f"permute(): duplicate dims are not allowed (got {list(dims)}).")
        seen |= 1 << d
        new_shape.append(shape[d])
        new_stride.append(stride[d])
    return tuple(new_shape), tuple(new_stride)


def _reversed_dims(self):
    """All dims reversed (for a matrix, the transpose): a ``permute`` view, as in PyTorch."""
    ndim = len(self._shape)
    if ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=stacklevel(2))
    elif ndim > 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.", UserWarning, stacklevel=stacklevel(2))
    if self._requires_grad or _dispatch.trace_hook is not None or _dispatch.transforms.active \
            or _dispatch.profile_hook is not None:
        # Through permute's entry, as PyTorch's numpy_T: recorded (PermuteBackward0), traced,
        # seen by the function transforms (a dual's .T carries the transposed tangent), timed.
        return self.permute(tuple(range(ndim - 1, -1, -1)))
    return make_view(self, self._shape[::-1], self._stride[::-1], self._offset)


Tensor.T = property(_reversed_dims)


def _transpose_layout(input, dim0, dim1):
    ndim = input.dim()
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    shape, stride = list(input._shape), list(input._stride)
    if ndim:
        shape[d0], shape[d1] = shape[d1], shape[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
    return tuple(shape), tuple(stride)


@register("view", aliases=("swapdims",))
def transpose(input, dim0, dim1):
    """Swap two dims (their sizes and strides)."""
    if dim0.__class__ is int and dim1.__class__ is int:
        shape, stride = _remembered(("transpose", input._shape, input._stride, dim0, dim1),
                                    _transpose_layout, input, dim0, dim1)
    else:
        shape, stride = _transpose_layout(input, dim0, dim1)
    return make_view(input, shape, stride, input._offset)


def swapaxes(input, axis0, axis1):
    """``transpose`` under NumPy's name (PyTorch names the dims ``axis0``/``axis1`` here)."""
    return transpose.op.impl(input, axis0, axis1)


swapaxes = renamed(transpose, swapaxes)


def _t_layout(input, name="t"):
    if input.dim() > 2:
        raise TensorRuntimeError(
            f"{name}() expects a tensor with <= 2 dimensions, but self is {input.dim()}D")
    return input._shape[::-1], input._stride[::-1]


@register("view")
def t(input):
    """Transpose a tensor of at most 2 dims (0-d and 1-d come back unchanged, as views)."""
    shape, stride = _t_layout(input)
    view = make_view(input, shape, stride, input._offset)
    if len(shape) == 2:
        array = valid_array(input)
        if array is not None:
            # (``linear``'s ``weight.t()`` is read at once: its array is the transpose)
            view._cached_array = array.T
    return view


def _move_one_dim(input, source, destination):
    ndim = input.dim()
    src, dst = wrap_dim(source, ndim), wrap_dim(destination, ndim)
    if ndim == 0:
        return (), ()  # dims 0 and -1 of a 0-d tensor name no dim to move
    order = [d for d in range(ndim) if d != src]
    order.insert(dst, src)
    return (tuple([input._shape[d] for d in order]), tuple([input._stride[d] for d in order]))


@register("view", aliases=("moveaxis",))
def movedim(input, source, destination):
    """Move dims from ``source`` positions to ``destination`` positions, keeping the rest in
    order."""
    if source.__class__ is int and destination.__class__ is int:  # the common form
        return make_view(input, *_remembered(
            ("movedim", input._shape, input._stride, source, destination), _move_one_dim,
            input, source, destination), input._offset)
    ndim = input.dim()
    source = list(int_list_arg(source, "movedim", "source", 1))
    destination = list(int_list_arg(destination, "movedim", "destination", 2))
    if len(source) != len(destination):
        raise TensorRuntimeError(
            f"movedim: Invalid source or destination dims: source ({source} dims) should "
            f"contain the same number of dims as destination ({destination} dims)")
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise TensorRuntimeError(f"movedim: repeated dim in `source` ({source})")
    if len(set(dst)) != len(dst):
        raise TensorRuntimeError(f"movedim: repeated dim in `destination` ({destination})")
    if ndim == 0:
        return make_view(input, (), (), input._offset)
    order = movedim_order(ndim, src, dst)
    return make_view(input, [input._shape[d] for d in order],
                    [input._stride[d] for d in order], input._offset)


def movedim_order(ndim, source, destination):
    """The permutation ``movedim`` applies: each of ``source`` (wrapped dims) goes to its
    ``destination``, the other dims fill the places left, in order."""
    order = [None] * ndim
    for s, d in zip(source, destination, strict=True):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in source)
    return [o if o is not None else next(rest) for o in order]


# ---------------------------------------------------------------------- adding/removing dims
def _unsqueeze_layout(input, dim):
    ndim = input.dim()
    dim = wrap_dim(dim, ndim + 1)
    shape, stride = list(input._shape), list(input._stride)
    new_stride = 1 if dim >= ndim else shape[dim] * stride[dim]
    shape.insert(dim, 1)
    stride.insert(dim, new_stride)
    return tuple(shape), tuple(stride)


@register("view")
def unsqueeze(input, dim):
    """Insert a size-1 dim; its stride is chosen as PyTorch does (size*stride of the next dim)."""
    if dim.__class__ is int:
        shape, stride = _remembered(("unsqueeze", input._shape, input._stride, dim),
                                    _unsqueeze_layout, input, dim)
    else:
        shape, stride = _unsqueeze_layout(input, dim)
    return make_view(input, shape, stride, input._offset)


def _squeeze_layout(input, dim):
    shape, stride = input._shape, input._stride
    ndim = len(shape)
    if dim is None:
        keep = [d for d in range(ndim) if shape[d] != 1]
    else:
        if isinstance(dim, (tuple, list)):
            dims = {wrap_dim(d, ndim) for d in dim}
        else:
            dims = {wrap_dim(dim, ndim)}
        keep = [d for d in range(ndim) if not (d in dims and shape[d] == 1)]
    return tuple([shape[d] for d in keep]), tuple([stride[d] for d in keep])


@register("view")
def squeeze(input, dim=None):
    """Remove size-1 dims (all, one, or a tuple of them); other dims are left alone."""
    if dim is None or dim.__class__ is int:
        shape, stride = _remembered(("squeeze", input._shape, input._stride, dim),
                                    _squeeze_layout, input, dim)
    else:
        shape, stride = _squeeze_layout(input, dim)
    return make_view(input, shape, stride, input._offset)


# ---------------------------------------------------------------------- in-place view ops
def _restride(input, shape, stride, offset):
    """An in-place view op: ``input`` itself takes the new metadata (its data is untouched,
    its version is bumped, as PyTorch does)."""
    check_inplace(input)
    input._set_metadata(shape, stride, offset)
    return input


@register("inplace", function=False)
def t_(input):
    """In-place ``t()``: this tensor's own shape and strides are swapped."""
    shape, stride = _t_layout(input, "t_")
    return _restride(input, shape, stride, input._offset)


@register("inplace", function=False, aliases=("swapdims_",))
def transpose_(input, dim0, dim1):
    """In-place ``transpose``."""
    shape, stride = _transpose_layout(input, dim0, dim1)
    return _restride(input, shape, stride, input._offset)


def swapaxes_(self, axis0, axis1):
    """In-place ``swapaxes`` (``transpose_`` with PyTorch's ``axis0``/``axis1`` names)."""
    return transpose_.op.impl(self, axis0, axis1)


swapaxes_ = renamed(transpose_, swapaxes_, function=False)


@register("inplace", function=False)
def unsqueeze_(input, dim):
    """In-place ``unsqueeze``."""
    shape, stride = _unsqueeze_layout(input, dim)
    return _restride(input, shape, stride, input._offset)


@register("inplace", function=False)
def squeeze_(input, dim=None):
    """In-place ``squeeze``."""
    shape, stride = _squeeze_layout(input, dim)
    return _restride(input, shape, stride, input._offset)


@register("inplace", function=False)
def as_strided_(input, size, stride, storage_offset=None):
    """In-place ``as_strided``: any layout over this tensor's storage, checked against it."""
    size, stride = tuple(map(int, size)), tuple(map(int, stride))
    offset = input._offset if storage_offset is None else int(storage_offset)
    check_strided_bounds(input, size, stride, offset, "as_strided_")
    return _restride(input, size, stride, offset)


@register("view", function=False)  # a method only, as in PyTorch
def expand(input, *size, implicit=False):
    """Broadcast to a bigger shape with stride 0 on the repeated dims (no memory is used).

    ``implicit`` (PyTorch's flag for expansions its tracer inserted) changes nothing here.
    """
    if implicit.__class__ is not bool:
        raise TensorTypeError(f"expand(): argument 'implicit' must be bool, not "
                              f"{type_name(implicit)}")
    return _expand(input, sizes_from_args(size))


def _expand(input, sizes):
    shape, stride = _remembered(("expand", input._shape, input._stride, sizes),
                                _expand_layout, input, sizes)
    return make_view(input, shape, stride, input._offset)


def _expand_layout(input, sizes):
    """(shape, stride) of ``input`` expanded to ``sizes``, or PyTorch's error."""
    ndim = input.dim()
    if len(sizes) < ndim:
        raise TensorRuntimeError(
            f"expand({input.type()}{{{list(input._shape)}}}, size={list(sizes)}): the number of "
            f"sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({ndim})")
    # Right to left, as PyTorch's inferExpandGeometry: a new leading dim of size 1 takes
    # the stride size*stride of the dim after it; any other new or stretched dim gets 0.
    shape, stride = [0] * len(sizes), [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):
        dim = i - (len(sizes) - ndim)
        if dim >= 0:
            size, st = input._shape[dim], input._stride[dim]
        else:
            size = 1
            # (a 0-d tensor has no dim after its last new one: PyTorch gives it stride 0)
            st = shape[i + 1] * stride[i + 1] if i + 1 < len(sizes) else 0
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise TensorRuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1 or target < 0:
                raise TensorRuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(input._shape)}")
            size, st = target, 0
        shape[i], stride[i] = size, st
    return tuple(shape), tuple(stride)


@register("view", method=False)
def broadcast_tensors(*tensors):
    """Views of all ``tensors`` expanded to their common broadcast shape (stride 0 where
    a tensor is repeated); a tensor that already has that shape is returned itself.

    >>> import jtensor as torch
    >>> a, b = torch.broadcast_tensors(torch.zeros(2, 1), torch.zeros(3))
    >>> a.shape, a.stride(), b.stride()
    (torch.Size([2, 3]), (1, 0), (0, 1))
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"broadcast_tensors(): expected Tensor as element {i} in argument 0, but got "
                f"{type_name(t)}")
    from .._layout import broadcast_shapes

    shape = broadcast_shapes(*(t._shape for t in tensors))
    outputs = []
    for t in tensors:
        if tuple(t._shape) == tuple(shape):
            outputs.append(t)  # PyTorch hands back an input already of the broadcast shape
            continue
        view_shape, view_stride = _expand_layout(t, shape)
        outputs.append(make_view(t, view_shape, view_stride, t._offset))
    return tuple(outputs)


@register("view", function=False, post=_INPUT_ONLY)
def expand_as(input, other):
    """``input.expand(other.size())``."""
    return _expand(input, tuple(other._shape))


@register("view", method=False)
def broadcast_to(input, size):
    """``input.expand(size)``."""
    return _expand(input, sizes_from_args((size,)))


Tensor.broadcast_to = lambda self, size: broadcast_to(self, size)


# ---------------------------------------------------------------------- sub-ranges
@register("view", post=_INPUT_ONLY)
def select(input, dim, index):
    """Index one position along ``dim``; the dim disappears."""
    ndim = input.dim()
    if ndim == 0:
        raise TensorIndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    index = int(index)
    if not -size <= index < size:
        raise TensorIndexError(
            f"select(): index {index} out of range for tensor of size {list(input._shape)} at "
            f"dimension {dim}")
    if index < 0:
        index += size
    shape = input._shape[:dim] + input._shape[dim + 1:]
    stride = input._stride[:dim] + input._stride[dim + 1:]
    return make_view(input, shape, stride, input._offset + index * input._stride[dim])


@register("view", post=_INPUT_ONLY)
def narrow(input, dim, start, length):
    """``length`` positions from ``start`` along ``dim``."""
    dim, start, length = narrow_range(input, dim, start, length)
    return _slice_view(input, dim, start, start + length, 1)


def narrow_range(input, dim, start, length):
    """PyTorch's argument checks of ``narrow``: ``(dim, start, length)`` wrapped, or its
    errors (also used by sparse tensors, which then refuse the view itself)."""
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = int(start), int(length)
    if length < 0:  # checked before the dim, as PyTorch does
        raise TensorRuntimeError(f"narrow(): length must be non-negative, got {length}.")
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    if not -size <= start <= size:
        raise TensorIndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise TensorRuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return dim, start, length


def _slice_view(input, dim, start, stop, step):
    shape, stride = list(input._shape), list(input._stride)
    shape[dim] = builtins.max(0, (stop - start + step - 1) // step)
    offset = input._offset + start * stride[dim]
    stride[dim] *= step
    return make_view(input, shape, stride, offset)


@register("view")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as a new last dim; its stride is the sum."""
    offset = int_arg(offset, "diagonal", "offset", 1)
    shape, stride = input._shape, input._stride
    ndim = len(shape)
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise TensorRuntimeError(
            f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    start = input._offset
    if offset >= 0:
        length = shape[d2] - offset
        if shape[d1] < length:
            length = shape[d1]
        if length > 0:
            start += offset * stride[d2]
    else:
        length = shape[d1] + offset
        if shape[d2] < length:
            length = shape[d2]
        if length > 0:
            start -= offset * stride[d1]
    if length < 0:
        length = 0
    diag_stride = stride[d1] + stride[d2]
    if ndim == 2:
        return make_view(input, (length,), (diag_stride,), start)
    keep = [d for d in range(ndim) if d != d1 and d != d2]
    return make_view(input, tuple([shape[d] for d in keep] + [length]),
                    tuple([stride[d] for d in keep] + [diag_stride]), start)


@register("view", function=False)  # a method only, as in PyTorch
def unfold(input, dimension, size, step):
    """Sliding windows of ``size`` every ``step`` along ``dimension``: windows may overlap."""
    ndim = input.dim()
    dim = wrap_dim(dimension, ndim)
    dim_size = input._shape[dim] if ndim else 1
    dim_stride = input._stride[dim] if ndim else 1
    if size > dim_size:
        raise TensorRuntimeError(
            f"maximum size for tensor at dimension {dim} is {dim_size} but size is {size}")
    if step <= 0:
        raise TensorRuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise TensorRuntimeError(f"size is {size} but must be >= 0")
    shape, stride = list(input._shape), list(input._stride)
    if ndim:
        shape[dim] = (dim_size - size) // step + 1
        stride[dim] = step * dim_stride
    return make_view(input, shape + [size], stride + [dim_stride], input._offset)


@register("view")
def unbind(input, dim=0):
    """All slices along ``dim`` as a tuple of views."""
    ndim = input.dim()
    if ndim == 0:
        raise TensorIndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, ndim)
    shape = input._shape[:dim] + input._shape[dim + 1:]
    stride = input._stride[:dim] + input._stride[dim + 1:]
    step = input._stride[dim]
    outputs = tuple(make_view(input, shape, stride, input._offset + i * step)
                    for i in range(input._shape[dim]))
    return mark_multi_output(outputs)


@register("view")
def split(input, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` (the last may be smaller) or of the listed sizes; all views."""
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    if isinstance(split_size_or_sections, Tensor) and not split_size_or_sections._shape:
        split_size_or_sections = int_arg(split_size_or_sections, "split", "split_size", 1)
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or (step == 0 and size != 0):
            raise TensorRuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{size}" if step == 0 else
                f"split expects split_size be non-negative, but got split_size={step}")
        count = builtins.max((size + step - 1) // step, 1) if step else 1
        sections = [builtins.min(step, size - i * step) for i in range(count)]
    else:
        sections = [int(s) for s in split_size_or_sections]
        if sum(sections) != size or any(s < 0 for s in sections):
            raise TensorRuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sections}")
    return mark_multi_output(_pieces(input, dim, sections))


# PyTorch's two forms name their arguments differently (both Python functions there):
# ``torch.split(tensor, split_size_or_sections, dim=0)`` and ``Tensor.split(self,
# split_size, dim=0)``.
def _split_function(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size_or_sections`` (an int: equal pieces, the last may be smaller;
    a list: those sizes) along ``dim``; all views."""
    return split.op.impl(tensor, split_size_or_sections, dim)


def _split_method(self, split_size, dim=0):
    """Pieces of ``split_size`` (an int: equal pieces, the last may be smaller; a list:
    those sizes) along ``dim``; all views."""
    return split.op.impl(self, split_size, dim)


_split_function.__name__ = _split_method.__name__ = "split"
_split_function.__qualname__ = _split_method.__qualname__ = "split"
renamed(split, _split_function, method=False)
renamed(split, _split_method, function=False)


def _pieces(input, dim, sections):
    outputs, start = [], 0
    for length in sections:
        shape = list(input._shape)
        shape[dim] = length
        outputs.append(make_view(input, shape, input._stride,
                                 input._offset + start * input._stride[dim]))
        start += length
    return tuple(outputs)


@register("view")
def chunk(input, chunks, dim=0):
    """At most ``chunks`` views of equal size ``ceil(n / chunks)`` (so maybe fewer chunks)."""
    if chunks <= 0:
        raise TensorRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    step = (size + chunks - 1) // chunks
    if step == 0:
        sections = [0] * chunks
    else:
        sections = [builtins.min(step, size - i) for i in range(0, size, step)]
    return mark_multi_output(_pieces(input, dim, sections))


def _split_int(value):
    """``value`` as one int where PyTorch's parser takes one (``int_arg``), else None."""
    if value.__class__ is int:
        return value
    try:
        return int_arg(value, "tensor_split", "sections")
    except TypeError:
        return None


def _tensor_split_spec(input, tensor_indices_or_sections, dim, indices, sections):
    """The one split argument of a ``tensor_split`` call, checked as PyTorch's three
    overloads take it: ``indices`` a sequence of ints, ``sections`` an int,
    ``tensor_indices_or_sections`` a tensor; positionally any of the three."""
    if (tensor_indices_or_sections.__class__ is int and indices is None and sections is None
            and dim.__class__ is int):
        return tensor_indices_or_sections   # x.tensor_split(3): the common call
    named = {"tensor_indices_or_sections": tensor_indices_or_sections, "indices": indices,
             "sections": sections}
    given = {k: v for k, v in named.items() if v is not None}
    spec = next(iter(given.values()), None)
    ok = len(given) == 1 and not isinstance(dim, bool) and isinstance(dim, numbers.Integral)
    if ok and indices is not None:
        ok = isinstance(indices, (list, tuple)) and all(_split_int(i) is not None
                                                        for i in indices)
    elif ok and sections is not None:
        spec = _split_int(sections)
        ok = spec is not None
    elif ok and not isinstance(spec, Tensor):
        # given positionally (by name it must be a tensor; PyTorch's parser cannot tell
        # the two apart here, jtensor neither): one of the three forms
        ok = _split_int(spec) is not None or (
            isinstance(spec, (list, tuple)) and all(_split_int(i) is not None for i in spec))
    if not ok:
        got = ", ".join([type(input).__name__] + [f"{k}={type(v).__name__}"
                                                  for k, v in given.items()]
                        + ([f"dim={type(dim).__name__}"] if dim != 0 else []))
        raise TensorTypeError(
            f"tensor_split() received an invalid combination of arguments - got ({got}), but "
            "expected one of: (Tensor input, tuple of ints indices, int dim), (Tensor input, "
            "Tensor tensor_indices_or_sections, int dim), (Tensor input, int sections, int "
            "dim)")
    if isinstance(spec, (list, tuple)):
        return [_split_int(i) for i in spec]
    return spec if isinstance(spec, Tensor) else _split_int(spec)


@register("view", post=_INPUT_ONLY)
def tensor_split(input, tensor_indices_or_sections=None, dim=0, *, indices=None,
                 sections=None):
    """Split into ``sections`` near-equal views, or at the given ``indices`` (NumPy's
    array_split). Positionally the split argument may be either, or an int64 tensor
    (``tensor_indices_or_sections``): 0-d is a number of sections, 1-d the indices."""
    dim, bounds = tensor_split_bounds(input, tensor_indices_or_sections, dim, indices, sections)
    outputs = []
    for start, length in bounds:
        shape = list(input._shape)
        shape[dim] = length
        outputs.append(make_view(input, shape, input._stride,
                                 input._offset + start * input._stride[dim]))
    return tuple(outputs)


def tensor_split_bounds(input, tensor_indices_or_sections=None, dim=0, indices=None,
                        sections=None):
    """``(dim, [(start, length), ...])``: where each of ``tensor_split``'s pieces starts
    along ``dim`` and how long it is (the op's argument checks and errors included)."""
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    indices_or_sections = _tensor_split_spec(input, tensor_indices_or_sections, dim, indices,
                                             sections)
    if isinstance(indices_or_sections, Tensor):
        split = indices_or_sections
        if split._dtype is not _dtypes.int64:
            raise TensorRuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {split._dtype._torch_name}")
        if split.dim() > 1:
            raise TensorRuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {split.dim()} dims")
        # 0-d: a number of sections; 1-d: the indices.
        values = split._array().tolist()
        indices_or_sections = values if split.dim() else int(values)
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise TensorRuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        lengths = [base + 1] * extra + [base] * (n - extra)
        bounds, start = [], 0
        for length in lengths:
            bounds.append((start, length))
            start += length
        return dim, bounds
    ends = [builtins.min(builtins.max(int(i) if i >= 0 else int(i) + size, 0), size)
            for i in indices_or_sections]
    # Starts may not be monotone; each piece comes from its own bounds.
    return dim, [(s, builtins.max(e - s, 0))
                 for s, e in zip([0] + ends, ends + [size], strict=True)]


@register("view")
def detach(input):
    """Same storage and version counter, no history, ``requires_grad=False``. Not a view."""
    out = Tensor._make(input._storage, input._shape, input._stride, input._offset,
                       input._dtype, version=input._version_counter, array=input._cached_array)
    return out


@register("view", method="_alias", function=False)  # torch.ops.aten.alias: internal
def alias(input):
    return make_view(input, input._shape, input._stride, input._offset)


# ---------------------------------------------------------------------- basic indexing
def basic_index(input, key):
    """Metadata for a key made only of ints, slices, None and Ellipsis.

    Returns ``(shape, stride, offset)``; raises ``IndexError`` like PyTorch for bad keys.
    """
    if key.__class__ is not tuple:
        if key.__class__ is slice:
            # A lone slice is unpacked (its step checked) before the dims are counted.
            _slice_bounds(key, 0)
            if not input._shape:
                raise TensorIndexError("slice() cannot be applied to a 0-dim tensor.")
        key = (key,)
    consumed = 0
    ellipsis_at = -1
    for i, k in enumerate(key):
        if k is Ellipsis:
            if ellipsis_at < 0:
                ellipsis_at = i
        elif k is not None:
            consumed += 1
    in_shape, in_stride = input._shape, input._stride
    ndim = len(in_shape)
    if consumed > ndim:
        raise TensorIndexError(f"too many indices for tensor of dimension {ndim}")
    shape, stride = [], []
    offset = input._offset
    dim = 0
    for k in key:
        if k is Ellipsis:
            # NOTE: PyTorch accepts several ellipses: the first one takes all the unnamed
            # dims (kept whole) and the others stand for none.
            skip = ndim - consumed if ellipsis_at >= 0 else 0
            shape.extend(in_shape[dim:dim + skip])
            stride.extend(in_stride[dim:dim + skip])
            dim += skip
            ellipsis_at = -1  # later ellipses stand for no dims
            continue
        if k is None:
            shape.append(1)
            stride.append(_new_axis_stride(input, dim))
            continue
        size, st = in_shape[dim], in_stride[dim]
        if k.__class__ is slice:
            begin, finish_at, step = _slice_bounds(k, size)
            length = (finish_at - begin + step - 1) // step
            shape.append(length if length > 0 else 0)
            stride.append(st * step)
            offset += begin * st
        else:
            index = k.__index__()
            if not -size <= index < size:
                raise TensorIndexError(
                    f"index {index} is out of bounds for dimension {dim} with size {size}")
            offset += (index + size if index < 0 else index) * st
        dim += 1
    if dim < ndim:  # trailing dims the key did not name are kept whole
        shape.extend(in_shape[dim:])
        stride.extend(in_stride[dim:])
    return shape, stride, offset


def _new_axis_stride(input, dim):
    # PyTorch inserts None through unsqueeze: stride = size * stride of the dim it precedes.
    if dim < input.dim():
        return input._shape[dim] * input._stride[dim]
    return 1




def _slice_bounds(k, size):
    """``(start, stop, step)`` of slice ``k`` over ``size`` elements, clamped as PyTorch does."""
    if k.step is not None and k.step.__index__() < 0:
        raise TensorValueError(
            "step must be greater than zero (negative steps are not supported; "
            "use .flip() to reverse a tensor)")
    start, stop, step = k.indices(size)  # a zero step raises ValueError, as in PyTorch
    return start, max(stop, start), step


# ---------------------------------------- argument checks shared with the other families
def _check_tensor(x, name, arg="input", position=1):
    if not isinstance(x, Tensor):
        raise TensorTypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type_name(x)}")


def _tensor_args(tensors, name):
    """``f(a, b)`` or ``f([a, b])`` -> a list of tensors (TypeError for anything else)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"{name}(): expected Tensor as element {i} in argument 0, but got "
                f"{type_name(t)}")
    return tensors


def _index(value, name, arg):
    if isinstance(value, bool):
        raise TensorTypeError(f"{name}(): argument '{arg}' must be int, not bool")
    try:
        return value.__index__()
    except AttributeError:
        raise TensorTypeError(
            f"{name}(): argument '{arg}' must be int, not {type_name(value)}") from None


# ---------------------------------------- ravel, atleast_*d, adjoint, resolve_conj/neg
@register("view", post=_COPIES)
def ravel(input):
    """``input`` flattened: ``input.contiguous().view(-1)`` as in PyTorch, so a view only of
    a contiguous input (a strided input that ``reshape`` could view is copied)."""
    _check_tensor(input, "ravel")
    n = input.numel()
    if input.is_contiguous():
        return make_view(input, (n,), (1,), input._offset)
    from .copies import contiguous_copy

    copied = contiguous_copy(input)
    copied._set_metadata((n,), (1,), 0)
    return copied


def _unsqueeze_geometry(shape, stride, d):
    # PyTorch's inferUnsqueezeGeometry: the new dim's stride is size*stride of the dim it
    # precedes (1 when appended last).
    new_stride = shape[d] * stride[d] if d < len(shape) else 1
    return shape[:d] + (1,) + shape[d:], stride[:d] + (new_stride,) + stride[d:]


def _atleast_one(t, n):
    if t.dim() >= n:
        return t
    if t.dim() == 0:
        return make_view(t, (1,) * n, (1,) * n, t._offset)
    shape, stride = tuple(t._shape), tuple(t._stride)
    if n == 2 or t.dim() == 1:
        shape, stride = _unsqueeze_geometry(shape, stride, 0)
    if n == 3:
        shape, stride = _unsqueeze_geometry(shape, stride, len(shape))
    return make_view(t, shape, stride, t._offset)


def _atleast(name, n, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t = tensors[0]
        return _atleast_one(t, n)
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        raise TensorTypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(tensors[0]).__name__}), but expected one of: (Tensor input) or (tuple of "
            "Tensors tensors)")
    tensors = _tensor_args(tensors, name)
    return tuple(_atleast_one(t, n) for t in tensors)


@register("view", method=False)
def atleast_1d(*tensors):
    """``input`` viewed with at least 1 dim (0-d -> shape (1,)); a tensor already 1-d or more
    comes back as is. Several tensors (or one list) give a tuple."""
    return _atleast("atleast_1d", 1, tensors)


@register("view", method=False)
def atleast_2d(*tensors):
    """``input`` viewed with at least 2 dims (1-d ``(n,)`` -> ``(1, n)``)."""
    return _atleast("atleast_2d", 2, tensors)


@register("view", method=False)
def atleast_3d(*tensors):
    """``input`` viewed with at least 3 dims (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` ->
    ``(m, n, 1)``)."""
    return _atleast("atleast_3d", 3, tensors)


@register("view")
def adjoint(input):
    """The conjugate transpose of the last two dims (a view for real tensors).

    jtensor has no lazy conjugate bit, so complex inputs get a conjugated copy."""
    _check_tensor(input, "adjoint")
    if input.dim() == 1:
        raise TensorRuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D "
            "tensor.")
    if input.dim() == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=stacklevel(2))
        return input
    shape, stride = list(input._shape), list(input._stride)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    stride[-1], stride[-2] = stride[-2], stride[-1]
    out = make_view(input, shape, stride, input._offset)
    if input._dtype.category == _dtypes.COMPLEX:
        from ._selection_common import _wrap, _xp  # it imports views: not at module level

        xp = _xp(input)
        out = _wrap(xp.conj(out._array()), input._dtype, input._storage.device)
    return out


@register("view")
def resolve_conj(input):
    """``input`` itself: jtensor materialises conjugation eagerly (no conjugate bit)."""
    _check_tensor(input, "resolve_conj")
    return input


@register("view")
def resolve_neg(input):
    """``input`` itself: jtensor has no lazy negative bit to resolve."""
    _check_tensor(input, "resolve_neg")
    return input
