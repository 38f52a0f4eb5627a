"""NumPy-style splitting and index helpers: ``hsplit``/``vsplit``/``dsplit`` (views, as
``tensor_split`` along dim 1 (0 for 1-D), 0 and 2, with PyTorch's checks of the number of
dims and of equal sections), ``split_with_sizes`` (views), ``row_stack`` (``vstack``
under its other name) and ``unravel_index`` (flat indices to coordinates).
"""

import numpy as np

from .. import _dtypes
from .._errors import TensorRuntimeError, TensorTypeError, TensorValueError, wrap_dim, type_name
from .._registry import register
from .._tensor import Tensor
from .joining import _stack_variant
from .views import _check_tensor, _pieces, _split_int, make_view, mark_multi_output, tensor_split

# name -> (the dim it splits: for 2-D and more, for 1-D; the fewest dims it takes)
_NUMPY_SPLITS = {"hsplit": (1, 0, 1), "vsplit": (0, 0, 2), "dsplit": (2, 2, 3)}


def _split_dim(name, input):
    """The dim ``hsplit``/``vsplit``/``dsplit`` split along, after PyTorch's check of the
    input's number of dims."""
    dim, dim_1d, fewest = _NUMPY_SPLITS[name]
    ndim = input.dim()
    if ndim < fewest:
        raise TensorRuntimeError(
            f"torch.{name} requires a tensor with at least {fewest} dimension, but got a "
            f"tensor with {ndim} dimensions!"
        )
    return dim if ndim > 1 else dim_1d


def _split_spec(name, input, indices, sections):
    """``(dim, sections or index list)`` of a NumPy-style split call, checked: an int
    splits into equal sections (the size must divide), a sequence gives the indices."""
    if (indices is None) == (sections is None):
        raise TensorTypeError(
            f"{name}() takes either an int 'sections' or a sequence of ints 'indices', got "
            f"indices={indices!r}, sections={sections!r}"
        )
    _check_tensor(input, name)
    dim = _split_dim(name, input)
    spec = sections if sections is not None else indices
    if isinstance(spec, (list, tuple)):
        values = [_split_int(i) for i in spec]
        if any(v is None for v in values):
            raise TensorTypeError(f"{name}(): 'indices' must be a sequence of ints, got {spec!r}")
        return dim, values
    n = _split_int(spec)
    if n is None:
        raise TensorTypeError(
            f"{name}(): argument 'sections' must be int or a sequence of "
            f"ints, not {type_name(spec)}"
        )
    size = input._shape[dim]
    if n > 0 and size % n == 0:
        return dim, n
    if n < 0:
        raise TensorRuntimeError(f"number of sections must be larger than 0, got {n}")
    raise TensorRuntimeError(
        f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
        f"{size} is not divisible by the split_size {n}!"
    )


def _numpy_split(name, input, indices, sections):
    dim, spec = _split_spec(name, input, indices, sections)
    return tensor_split.op.impl(input, spec, dim)


@register("view")
def hsplit(input, indices=None, *, sections=None):
    """Split along dim 1 (dim 0 of a 1-D tensor) into ``sections`` equal views, or at the
    listed ``indices`` (a positional int is a number of sections).

    >>> import jtensor as torch
    >>> [p.shape[1] for p in torch.hsplit(torch.zeros(2, 6), [1, 4])]
    [1, 3, 2]
    """
    return _numpy_split("hsplit", input, indices, sections)


@register("view")
def vsplit(input, indices=None, *, sections=None):
    """Split along dim 0 of a tensor of 2 or more dims into ``sections`` equal views, or at
    the listed ``indices``."""
    return _numpy_split("vsplit", input, indices, sections)


@register("view")
def dsplit(input, indices=None, *, sections=None):
    """Split along dim 2 of a tensor of 3 or more dims into ``sections`` equal views, or at
    the listed ``indices``."""
    return _numpy_split("dsplit", input, indices, sections)


@register("view")
def split_with_sizes(input, split_sizes, dim=0):
    """Views of the listed sizes along ``dim`` (they must add up to its size).

    >>> import jtensor as torch
    >>> [p.shape[0] for p in torch.arange(5).split_with_sizes([2, 3])]
    [2, 3]
    """
    _check_tensor(input, "split_with_sizes")
    if isinstance(split_sizes, (int, Tensor)) or not hasattr(split_sizes, "__iter__"):
        raise TensorTypeError(
            "split_with_sizes(): argument 'split_sizes' must be tuple of ints, not "
            f"{type_name(split_sizes)}"
        )
    sizes = [_split_int(s) for s in split_sizes]
    if any(s is None for s in sizes):
        raise TensorTypeError(
            f"split_with_sizes(): argument 'split_sizes' must be tuple of "
            f"ints, got {list(split_sizes)!r}"
        )
    ndim = input.dim()
    if ndim == 0:
        raise TensorRuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, ndim)
    size = input._shape[dim]
    if any(s < 0 for s in sizes):
        raise TensorRuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={sizes}"
        )
    if sum(sizes) != size:
        raise TensorRuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={sizes}"
        )
    return mark_multi_output(_pieces(input, dim, sizes))


@register("copy", method=False)
def row_stack(tensors, *, out=None):
    """``vstack`` under NumPy's older name: join vertically, inputs made at least 2-D
    (PyTorch's messages name ``vstack``, which it calls)."""
    return _stack_variant(row_stack.op, tensors, 0, 2, out, "vstack")


@register("copy", method=False)   # no Tensor method in PyTorch
def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape``: a tuple of int64
    tensors, one per dim (views of one (..., len(shape)) tensor, as PyTorch's). Indices
    outside the shape wrap around (floor division and modulo, as PyTorch computes them).

    >>> import jtensor as torch
    >>> [t.tolist() for t in torch.unravel_index(torch.tensor([4, 7]), (2, 4))]
    [[1, 1], [0, 3]]
    """
    if not isinstance(indices, Tensor):
        raise TensorTypeError(
            f"unravel_index(): 'indices' must be a Tensor, not {type_name(indices)}"
        )
    if indices._dtype.category != _dtypes.INTEGRAL:
        raise TensorTypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, list, tuple)):
        raise TensorTypeError(
            f"expected 'shape' to be int or sequence of ints, but got {type(shape)}"
        )
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TensorTypeError(
                f"expected 'shape' sequence to only contain ints, but got {type(d)}"
            )
    if any(d < 0 for d in dims):
        raise TensorValueError(f"'shape' cannot have negative values, but got {dims}")
    # the place value of each coordinate: the product of the sizes after it
    coefs = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        coefs[i] = coefs[i + 1] * dims[i + 1]
    xp = indices._storage._backend.xp
    flat = indices._array().astype(np.int64)[..., None]
    if dims:
        # Python's floor division and modulo; a zero size leaves 0 where PyTorch's integer
        # division by zero would raise, so check it first
        if 0 in dims and flat.size:
            raise TensorRuntimeError(
                f"unravel_index: cannot unravel indices into the empty shape {dims} (a "
                "dimension of size 0)"
            )
        coords = (flat // xp.asarray(coefs, dtype=np.int64)) % xp.asarray(dims, dtype=np.int64)
    else:
        coords = xp.zeros(flat.shape[:-1] + (0,), dtype=np.int64)
    whole = Tensor._from_array(xp.ascontiguousarray(coords), _dtypes.int64, indices._storage.device)
    last = whole.dim() - 1
    step = whole._stride[last]
    shape_out = whole._shape[:last]
    stride_out = whole._stride[:last]
    return tuple(
        make_view(whole, shape_out, stride_out, i * step) for i in range(whole._shape[last])
    )
