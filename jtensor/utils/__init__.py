"""``jtensor.utils``: ``checkpoint``, ``data``, ``deterministic`` and ``swap_tensors``."""

import weakref

from . import data  # noqa: E402,F401 (torch.utils.data.DataLoader after import torch)
from . import deterministic  # noqa: E402,F401 (torch.utils.deterministic.fill_...)
from .._errors import type_name


def swap_tensors(t1, t2):
    """Exchange two tensors in place, as ``torch.utils.swap_tensors``: each object takes the
    other's class, Python attributes and tensor (storage, shape, strides, dtype, autograd
    state), so every reference to ``t1`` now sees what ``t2`` was (an optimizer holding a
    parameter keeps holding the same object). Refused, as in PyTorch, when either has a weak
    reference. (PyTorch also refuses a tensor with other C++ references, which Python code
    cannot hold here.)"""
    from .._errors import TensorRuntimeError
    from .._tensor import Tensor

    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors(): {name} must be a Tensor, not {type_name(t)}")
        if weakref.getweakrefs(t):
            raise TensorRuntimeError(
                f"Cannot swap {name} because it has weakref associated with it")
    # The tensor itself is Tensor's slots; subclasses keep their state in __dict__.
    state = [(slot, getattr(t1, slot, _MISSING), getattr(t2, slot, _MISSING))
             for slot in Tensor.__slots__ if slot not in ("__dict__", "__weakref__")]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot, a, b in state:
        for target, value in ((t1, b), (t2, a)):
            if value is _MISSING:
                delattr(target, slot)
            else:
                setattr(target, slot, value)


_MISSING = object()
