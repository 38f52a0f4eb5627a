"""``jtensor.describe(x)``: everything about one tensor's layout and autograd state."""

import gc
import html
import sys

from .._layout import is_contiguous
from .._tensor import Tensor

__all__ = ["describe", "TensorInfo"]

_SMALL = 8  # tensors with at most this many elements show their values


class TensorInfo:
    """What ``describe`` found, as ``fields`` (an ordered dict of name -> text) with a text
    form (``str``/``repr``) and an HTML table (``_repr_html_``)."""

    def __init__(self, title, fields):
        self.title = title
        self.fields = fields

    def to_text(self):
        width = max(len(k) for k in self.fields)
        lines = [self.title]
        lines += [f"  {k + ':':<{width + 1}} {v}" for k, v in self.fields.items()]
        return "\n".join(lines)

    __str__ = __repr__ = to_text

    def _repr_html_(self):
        esc = html.escape
        rows = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(v)}</td></tr>"
                       for k, v in self.fields.items())
        return (f"<div class='jt-describe' style='font-family:monospace;font-size:12px'>"
                f"<b>{esc(self.title)}</b><table>{rows}</table></div>")


def _names_for(namespace):
    by_id = {}
    for name, value in namespace.items():
        if isinstance(name, str) and not name.startswith("_") and isinstance(value, Tensor):
            by_id.setdefault(id(value), []).append(name)
    return {k: min(v, key=lambda n: (len(n), n)) for k, v in by_id.items()}


def describe(x, namespace=None, name=None):
    """Shape, stride, offset, dtype, device, contiguity, storage (size, the other live
    tensors sharing it), version and autograd state of ``x``, in words.

    ``namespace`` (default: the caller's globals and locals) names the tensors found.

    >>> import jtensor as torch
    >>> x = torch.arange(6.)
    >>> y = x.view(2, 3)
    >>> print(torch.describe(y).fields["shares storage with"])
    x [6] (base)
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"describe() expects a jtensor Tensor, got {type(x).__name__}")
    if namespace is None:
        caller = sys._getframe(1)
        namespace = dict(caller.f_globals)
        namespace.update(caller.f_locals)
    names = _names_for(namespace)
    if name is None:
        name = names.get(id(x))
    shape, stride = tuple(x._shape), tuple(x._stride)
    numel = 1
    for n in shape:
        numel *= n
    fields = {}
    fields["shape"] = str(list(shape))
    fields["stride"] = f"{stride} (elements to skip per step in each dimension)"
    fields["offset"] = f"{x._offset} (first element's position in the storage)"
    fields["dtype"] = f"{x._dtype} ({x._dtype.itemsize} bytes per element)"
    fields["device"] = str(x.device)
    layout = "contiguous" if is_contiguous(shape, stride) else "not contiguous"
    if any(s == 0 and n > 1 for n, s in zip(shape, stride, strict=True)):
        layout += "; a stride of 0 repeats elements (expanded)"
    fields["layout"] = layout
    storage = x._storage
    if storage is not None:
        nbytes = storage.nbytes()
        fields["storage"] = (f"{nbytes} bytes ({nbytes // x._dtype.itemsize} elements of "
                             f"{x._dtype}); this tensor reads {numel} of them")
        others = []
        base = x._base
        for obj in gc.get_referrers(storage):
            if isinstance(obj, Tensor) and obj is not x:
                others.append(obj)
        described = []
        for t in others:
            label = names.get(id(t))
            if label is None:
                continue  # unnamed internal aliases (saved tensors, caches) are counted only
            role = " (base)" if t is base else (" (view)" if t._base is not None else "")
            described.append(f"{label} {list(t._shape)}{role}")
        unnamed = len(others) - len(described)
        text = ", ".join(sorted(described))
        if unnamed:
            text += (", " if text else "") + _count(unnamed, "unnamed tensor")
        fields["shares storage with"] = text or "nothing else"
    fields["version"] = f"{x._version_counter.value} (in-place writes seen by its storage)"
    if x._base is not None:
        fields["view of"] = names.get(id(x._base), "an unnamed tensor") + \
            f" {list(x._base._shape)}"
    grad_fn = x._grad_fn
    if grad_fn is not None:
        fields["autograd"] = f"non-leaf, grad_fn={grad_fn.name()}"
    elif x._requires_grad:
        grad = x._grad
        held = f", .grad {list(grad._shape)}" if grad is not None else ", .grad None"
        fields["autograd"] = f"leaf that requires grad{held}"
    else:
        fields["autograd"] = "no gradient tracking (requires_grad=False)"
    if numel <= _SMALL and storage is not None and x.device.type == "cpu":
        fields["values"] = str(x._array().tolist())
    else:
        fields["values"] = f"{numel} elements (not shown)"
    title = f"{name}: tensor" if name else "tensor"
    return TensorInfo(title, fields)


def _count(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")
