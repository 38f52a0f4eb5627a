"""Public entries of a registered op under PyTorch's names where they differ from the op's.

PyTorch names some arguments per entry point: ``swapaxes(input, axis0, axis1)`` is
``transpose(input, dim0, dim1)``, ``Tensor.split(self, split_size)`` is ``torch.split(tensor,
split_size_or_sections)``. ``renamed_entry`` builds such an entry with the argument parser of
every op (``_argparse.make_entry``) from a small function with PyTorch's signature that passes
its arguments on to the op's implementation positionally, so a call stays one call of the op:
one trace event, the op's gradient formula and node name.
"""

from .._argparse import has_method_form, make_entry
from .._registry import FUNCTIONS
from .._tensor import Tensor


def renamed_entry(registered, impl, *, function=True, method=True):
    """Attach ``impl`` (named as the public name) as the function form (``FUNCTIONS``) and/or
    the method of the op behind the entry ``registered``; returns the function entry (or the
    method entry when ``function`` is False)."""
    op = registered.op
    entry = make_entry(op, impl, Tensor)
    entry.op = op
    if function:
        FUNCTIONS[impl.__name__] = entry
    if method:
        method_entry = entry
        if has_method_form(impl):   # methods take no ``out=``
            method_entry = make_entry(op, impl, Tensor, method_form=True)
            method_entry.op = op
        setattr(Tensor, impl.__name__, method_entry)
        if not function:
            return method_entry
    return entry
