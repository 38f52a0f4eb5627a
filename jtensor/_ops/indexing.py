"""Indexing: ``tensor[key]`` and ``tensor[key] = value``.

Keys made only of ints, slices, ``None`` and ``...`` give views (``views.basic_index``);
keys with tensors, lists or bools are advanced indexing and copy.
"""

import numpy as np

from .. import _dtypes
from .._device import CPU_BACKEND
from .._dispatch import Post, check_inplace
from .._errors import TensorIndexError
from .._registry import register
from .._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor
from .views import _VIEW_GEOMETRY, _remembered, basic_index, make_view


_SLICED = 1    # _is_basic: a basic key holding a slice (not hashable before Python 3.12)
_HASHABLE = 2  # a basic key of ints, None and ... only


def _is_basic(key):
    """0 for an advanced key, else ``_SLICED`` or ``_HASHABLE`` (both true)."""
    if isinstance(key, list):
        return 0  # a list is an index tensor, or a tuple in disguise (NumPy's heuristic)
    items = key if isinstance(key, tuple) else (key,)
    found = _HASHABLE
    for k in items:
        if k is None or k is Ellipsis:
            continue
        if isinstance(k, slice):
            found = _SLICED
            continue
        if isinstance(k, (bool, Tensor, list, tuple, np.bool_, np.ndarray)):
            return 0
        if not hasattr(k, "__index__"):
            return 0
    return found


def _tensors_in(key):
    items = key if key.__class__ is tuple else (key,)
    return tuple(k for k in items if isinstance(k, Tensor))


def _getitem_inputs(input, key):
    # The indexed tensor, then the index tensors of an advanced key.
    return (input,) + _tensors_in(key) if key.__class__ is not int else (input,)


def _setitem_inputs(input, key, value):
    return (input,) + ((value,) if isinstance(value, Tensor) else ())


def _setitem_written(result, input, key, value):
    # ``x[False] = v`` selects nothing and writes nothing (no version bump), as PyTorch.
    return None if key is False or (isinstance(key, np.bool_) and not key) else input


# The dtypes of a 0-d tensor that indexes as the int it holds (uint8 and bool index as masks).
_INT_INDEX = (_dtypes.int64, _dtypes.int32, _dtypes.int16, _dtypes.int8)


def _as_int_key(key):
    """A 0-d CPU integer tensor key (``dC[ix]`` with ``ix = X[k, j]``) as the Python int it
    holds: PyTorch's indexing selects with it as with that int (a view, ``SelectBackward0``).
    Any other key as it is."""
    if not key._shape and key._dtype in _INT_INDEX and key._storage._backend is CPU_BACKEND:
        return int(key._array())
    return key


def _check_zero_dim_key(key):
    """PyTorch's errors for a lone integer key of a 0-dim tensor (old code's ``loss.data[0]``):
    0 is "invalid index of a 0-dim tensor", any other the out-of-bounds one. (A tensor key,
    even a 0-d integer one, meets "too many indices"; a slice is ``basic_index``'s.)"""
    if key.__class__ is int or isinstance(key, np.integer):
        if key == 0:
            raise TensorIndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise TensorIndexError(f"index {int(key)} is out of bounds for dimension 0 with size 0")


@register("view", name="__getitem__", method="__getitem__", function=False,
          post=Post(inputs=_getitem_inputs))
def getitem(input, key):
    """Basic keys give a view; advanced keys (tensors, lists, bools) give a copy."""
    if not input._shape:
        _check_zero_dim_key(key)
    if key.__class__ in DENSE_CLASSES:
        key = _as_int_key(key)
    if key.__class__ is int and input._shape and -input._shape[0] <= key < input._shape[0]:
        # x[i], the most common key, without the general key parser.
        offset = input._offset + (key if key >= 0 else key + input._shape[0]) * input._stride[0]
        return make_view(input, input._shape[1:], input._stride[1:], offset)
    if key.__class__ is slice:   # x[a:b], x[::k]: remembered by its bounds (exact ints)
        start, stop, step = key.start, key.stop, key.step
        if (start is None or start.__class__ is int) and (stop is None or stop.__class__ is int) \
                and (step is None or step.__class__ is int):
            bounds = ("slice", input._shape, input._stride, start, stop, step)
            hit = _VIEW_GEOMETRY.get(bounds)
            if hit is None:
                shape, stride, offset = basic_index(input, key)
                hit = _remembered(bounds, tuple, (tuple(shape), tuple(stride),
                                                  offset - input._offset))
            return make_view(input, hit[0], hit[1], input._offset + hit[2])
    basic = _is_basic(key)
    if basic:
        if basic == _SLICED:
            shape, stride, offset = basic_index(input, key)
            return make_view(input, shape, stride, offset)
        # a key of ints, None and ...: remembered geometry
        hit = _VIEW_GEOMETRY.get(("index", input._shape, input._stride, key))
        if hit is None:
            shape, stride, offset = basic_index(input, key)
            shape, stride = tuple(shape), tuple(stride)
            _remembered(("index", input._shape, input._stride, key), tuple,
                        (shape, stride, offset - input._offset))
            return make_view(input, shape, stride, offset)
        return make_view(input, hit[0], hit[1], input._offset + hit[2])
    from .advanced_indexing import advanced_getitem

    return advanced_getitem(input, key)


_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INF = float("inf")


def _fast_fill(input, i, value):
    """``x[i] = 0.5`` (an element, or a row filled) into a plain contiguous CPU float32 or
    float64 tensor that is no view and needs no gradient, decided in a few checks: one NumPy
    write, after ``check_inplace`` (an inference tensor's refusal). False (nothing written)
    for anything else, an index out of range and a value float32 cannot hold included (the
    general path raises PyTorch's errors, a leaf's or a view's included)."""
    dtype = input._dtype
    if input.__class__ not in DENSE_CLASSES or dtype not in ARRAY_FLOATS \
            or input._requires_grad or input._base is not None \
            or input._storage._backend is not CPU_BACKEND or not input._shape \
            or not -input._shape[0] <= i < input._shape[0] \
            or not (input._contiguous if input._contiguous is not None
                    else input.is_contiguous()) \
            or (dtype is _dtypes.float32 and abs(value) > _FLOAT32_MAX and value != _INF
                and value != -_INF):   # (a finite value float32 cannot hold: the error)
        return False
    check_inplace(input)
    input._array()[i] = value
    return True


def _fast_row_copy(input, i, value):
    """``x[i] = v`` (``outputs[t] = output`` in a decoder loop) where ``x`` is a plain
    contiguous CPU tensor that is no view, no leaf requiring grad and not ``v``'s storage,
    and ``v`` a plain CPU tensor of its dtype and exactly the row's shape: one NumPy write
    after ``check_inplace``, as the general path's copy (no broadcast, cast or overlap to
    check). False (nothing written) for anything else, and where ``i`` is out of range."""
    shape = input._shape
    if value.__class__ not in DENSE_CLASSES or input.__class__ not in DENSE_CLASSES \
            or not shape or not -shape[0] <= i < shape[0] or value._shape != shape[1:] \
            or value._dtype is not input._dtype or input._base is not None \
            or input._creation_meta is not None \
            or (input._requires_grad and input._grad_fn is None) \
            or input._storage._backend is not CPU_BACKEND \
            or value._storage._backend is not CPU_BACKEND \
            or not (input._contiguous if input._contiguous is not None
                    else input.is_contiguous()):
        return False
    if value._storage is input._storage:
        # ``x[i] += v``: Python writes the row view back onto itself. Nothing to copy (the
        # version still moves, as PyTorch's copy onto the same memory bumps it); any other
        # view of the same storage takes the general path's overlap checks.
        if value._offset != input._offset + (i % shape[0]) * input._stride[0] \
                or value._stride != input._stride[1:]:
            return False
        check_inplace(input)
        return True
    check_inplace(input)
    input._array()[i] = value._array()
    return True


@register("inplace", name="__setitem__", method="__setitem__", function=False,
          post=Post(inputs=_setitem_inputs, modified=_setitem_written,
                    outputs=lambda result, input, key, value: input))
def setitem(input, key, value):
    """Write ``value`` (broadcast, cast) into the selected elements of ``input``."""
    if not input._shape:
        _check_zero_dim_key(key)
    if key.__class__ in DENSE_CLASSES:
        key = _as_int_key(key)
    if key.__class__ is int and (_fast_fill(input, key, value) if value.__class__ is float
                                 else _fast_row_copy(input, key, value)):
        return
    if _is_basic(key):
        shape, stride, offset = basic_index(input, key)
        target = make_view(input, shape, stride, offset)
        from .copies import copy_value_into

        copy_value_into(target, value)
        return
    from .advanced_indexing import advanced_setitem

    advanced_setitem(input, key, value)
