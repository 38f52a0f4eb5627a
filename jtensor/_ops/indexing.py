"""Indexing: ``tensor[key]`` and ``tensor[key] = value``.

Keys made only of ints, slices, ``None`` and ``...`` give views (``views.basic_index``);
keys with tensors, lists or bools are advanced indexing and copy.
"""

import numpy as np

from .._dispatch import finish
from .._registry import register
from .._tensor import Tensor
from .views import basic_index, make_view


def _is_basic(key):
    if isinstance(key, list):
        return False  # a list is an index tensor, or a tuple in disguise (NumPy's heuristic)
    items = key if isinstance(key, tuple) else (key,)
    for k in items:
        if k is None or k is Ellipsis or isinstance(k, slice):
            continue
        if isinstance(k, (bool, Tensor, list, tuple, np.bool_, np.ndarray)):
            return False
        if not hasattr(k, "__index__"):
            return False
    return True


@register("view", name="__getitem__", method="__getitem__", function=False)
def getitem(input, key):
    """Basic keys give a view; advanced keys (tensors, lists, bools) give a copy."""
    if key.__class__ is int and input._shape and -input._shape[0] <= key < input._shape[0]:
        # x[i], the most common key, without the general key parser.
        offset = input._offset + (key if key >= 0 else key + input._shape[0]) * input._stride[0]
        return finish(getitem.op, (input,),
                      make_view(input, input._shape[1:], input._stride[1:], offset))
    if _is_basic(key):
        shape, stride, offset = basic_index(input, key)
        return finish(getitem.op, (input,), make_view(input, shape, stride, offset))
    from .advanced_indexing import advanced_getitem

    return advanced_getitem(input, key)


@register("inplace", name="__setitem__", method="__setitem__", function=False)
def setitem(input, key, value):
    """Write ``value`` (broadcast, cast) into the selected elements of ``input``."""
    if _is_basic(key):
        shape, stride, offset = basic_index(input, key)
        target = make_view(input, shape, stride, offset)
        from .copies import copy_value_into

        copy_value_into(target, value)
        finish(setitem.op, (input,), input, modified=input)
        return
    from .advanced_indexing import advanced_setitem

    advanced_setitem(input, key, value)
