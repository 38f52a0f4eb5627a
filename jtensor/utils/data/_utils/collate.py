"""``default_collate`` (samples -> a batch) and ``default_convert`` (NumPy -> tensors), with
PyTorch's type rules (``torch.utils.data._utils.collate``).

>>> from collections import namedtuple
>>> default_collate([0, 1, 2, 3])
tensor([0, 1, 2, 3])
>>> default_collate(["a", "b", "c"])
['a', 'b', 'c']
>>> default_collate([{"A": 0, "B": 1}, {"A": 100, "B": 100}])
{'A': tensor([  0, 100]), 'B': tensor([  1, 100])}
>>> Point = namedtuple("Point", ["x", "y"])
>>> default_collate([Point(0, 0), Point(1, 1)])
Point(x=tensor([0, 1]), y=tensor([0, 1]))
>>> default_collate([(0, 1), (2, 3)])
[tensor([0, 2]), tensor([1, 3])]
"""

import collections
import copy
import re

import numpy as np

from .... import _dtypes
from ...._api import ops as _J
from ...._tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

# NumPy dtypes of strings, bytes and objects: kept as arrays (convert) or rejected (collate).
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _numpy_to_tensor(data):
    # jtensor.as_tensor reads np.float64 scalars as Python floats (-> float32), so go
    # through an array, which keeps the NumPy dtype as PyTorch does.
    if isinstance(data, np.generic):
        data = np.asarray(data)
    return _J.as_tensor(data)


def default_convert(data):
    """Convert every NumPy array / NumPy scalar inside ``data`` (through mappings,
    namedtuples, tuples and sequences) to a tensor; everything else is kept. Tuples become
    lists, as in PyTorch. The default ``collate_fn`` of a ``DataLoader`` without batching.

    >>> import numpy as np
    >>> default_convert(0)
    0
    >>> default_convert([np.array([0, 1]), np.array([2, 3])])
    [tensor([0, 1]), tensor([2, 3])]
    """
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if (elem_type.__module__ == "numpy" and elem_type.__name__ != "str_"
            and elem_type.__name__ != "string_"):
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return _numpy_to_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                # a shallow copy keeps the mapping's type and extra attributes
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples) recursively: an element type found in
    ``collate_fn_map`` (exact type first, then ``isinstance`` in insertion order) uses its
    function; mappings are collated key by key, namedtuples field by field, other
    sequences position by position (they must all have the same length)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch],
                                           collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch],
                                           collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch, strict=False)))  # as PyTorch's
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=True))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors are stacked along a new first dimension (equal sizes required)."""
    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default "
            "collate_fn; please provide a custom collate_fn to handle them appropriately.")
    if getattr(elem, "is_sparse", False) is True or str(getattr(elem, "layout", "torch.strided")) \
            not in ("torch.strided", "strided"):
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default "
            "collate_fn; please provide a custom collate_fn to handle them appropriately.")
    return _J.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays become tensors (same dtype), then are stacked; string/object arrays
    raise ``TypeError``."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_J.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars become one 1-D tensor of their dtype."""
    if all(type(b) is type(batch[0]) for b in batch):
        return _J.as_tensor(np.asarray(batch))
    return _J.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats become a float64 tensor."""
    return _J.tensor(batch, dtype=_dtypes.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints become an int64 tensor (bools a bool tensor)."""
    return _J.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes are kept: the batch is the list of them."""
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn}
default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Merge a list of samples into a batch, as PyTorch's ``default_collate``.

    Tensors are stacked (new first dimension; sizes must match: ``stack expects each tensor
    to be equal size``), NumPy arrays and scalars become tensors, ``float`` -> float64,
    ``int`` -> int64, ``bool`` -> bool, ``str``/``bytes`` are kept as lists, mappings are
    collated per key, namedtuples per field, tuples and lists per position (giving lists).

    >>> import jtensor as torch
    >>> default_collate([torch.zeros(2), torch.ones(2)])
    tensor([[0., 0.],
            [1., 1.]])
    >>> default_collate([1.5, 2.0]).dtype
    torch.float64
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
