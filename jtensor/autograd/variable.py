"""``torch.autograd.Variable``: the pre-0.4 wrapper, kept by PyTorch 2.13 as a thin alias.

``Variable(t)`` is ``t.detach()`` (a new tensor over the same storage, no history) and
``Variable(t, requires_grad=True)`` a leaf that requires grad; ``Variable()`` is an empty float
tensor; ``isinstance(x, Variable)`` holds for every tensor. ``volatile=True`` only warns, as in
PyTorch.
"""

import warnings

from .._errors import TensorTypeError, type_name
from .._tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: ``data`` as a tensor."""

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            from .._ops.creation import empty

            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TensorTypeError(
                f"Variable data has to be a tensor, but got {type_name(data)}"
            )
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


Variable.__module__ = "torch.autograd.variable"
VariableMeta.__module__ = "torch.autograd.variable"
