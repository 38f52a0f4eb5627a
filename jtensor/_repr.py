"""``repr``/``str`` of tensors, character for character as PyTorch prints them.

This is a port of ``torch/_tensor_str.py`` (the dense CPU/CUDA path) working on host NumPy
arrays: the same formatter choices (integer mode ``1.``, fixed precision, scientific notation
when the magnitudes span more than 1000x or leave [1e-4, 1e8]), the same column widths, line
wrapping at ``linewidth``, ``...`` summaries above ``threshold`` elements and the same
``dtype=``/``device=``/``grad_fn=`` suffixes.
"""

import contextlib
import dataclasses
import math

import numpy as np

from . import _dtypes
from . import _tensor as _tensor_module


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print (as ``torch.set_printoptions``).

    ``profile`` is ``"default"``, ``"short"`` or ``"full"``; ``sci_mode`` True/False forces
    scientific notation on or off, None lets the formatter choose.

    >>> import jtensor as torch
    >>> torch.set_printoptions(precision=2); torch.tensor([1.12345])
    tensor([1.12])
    >>> torch.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
        elif profile == "short":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
        elif profile == "full":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (``set_printoptions(**opts)`` restores them)."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------- formatting
def _py(value):
    """A NumPy scalar as the Python number ``tensor.item()`` would give."""
    return value.item() if hasattr(value, "item") else value


class _Formatter:
    """Chooses the notation and the column width from the values that will be shown."""

    def __init__(self, array, floating):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = array.reshape(-1)
        if not floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        absolute = np.abs(finite.astype(np.float64))
        fmin, fmax = float(absolute.min()), float(absolute.max())
        values = finite.tolist()
        if not np.all(finite == np.ceil(finite)):
            self.int_mode = False
        precision = PRINT_OPTS.precision
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = fmax / fmin > 1000.0 or fmax > 1.0e8 or fmin < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        if self.int_mode:
            if self.sci_mode:
                for value in values:
                    self.max_width = max(self.max_width, len(f"{value:.{precision}e}"))
            else:
                for value in values:
                    self.max_width = max(self.max_width, len(f"{value:.0f}") + 1)
        else:
            fmt = f".{precision}e" if self.sci_mode else f".{precision}f"
            for value in values:
                self.max_width = max(self.max_width, len(format(value, fmt)))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(value, formatter1, formatter2):
    real_str = formatter1.format(value.real)
    imag_str = (formatter2.format(value.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _val(value, formatter1, formatter2):
    if formatter2 is not None:
        return _complex_str(complex(value), formatter1, formatter2)
    return formatter1.format(value)


def _vector_str(array, indent, summarize, formatter1, formatter2=None):
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        element_length += formatter2.width() + 1
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and array.shape[0] > 2 * edge:
        data = ([_val(v, formatter1, formatter2) for v in array[:edge].tolist()] + [" ..."]
                + [_val(v, formatter1, formatter2) for v in array[-edge:].tolist()])
    else:
        data = [_val(v, formatter1, formatter2) for v in array.tolist()]
    lines = [", ".join(data[i:i + elements_per_line])
             for i in range(0, len(data), elements_per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(array, indent, summarize, formatter1, formatter2=None):
    dim = array.ndim
    if dim == 0:
        value = array.item()
        return _val(value, formatter1, formatter2)
    if dim == 1:
        return _vector_str(array, indent, summarize, formatter1, formatter2)
    edge = PRINT_OPTS.edgeitems
    if summarize and array.shape[0] > 2 * edge:
        slices = ([_tensor_str_with_formatter(array[i], indent + 1, summarize, formatter1,
                                              formatter2) for i in range(edge)]
                  + ["..."]
                  + [_tensor_str_with_formatter(array[i], indent + 1, summarize, formatter1,
                                                formatter2)
                     for i in range(array.shape[0] - edge, array.shape[0])])
    else:
        slices = [_tensor_str_with_formatter(array[i], indent + 1, summarize, formatter1,
                                             formatter2) for i in range(array.shape[0])]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(array):
    """Only the elements that a summarised print shows (they decide the formatter)."""
    dim = array.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return array
    if dim == 1:
        if array.shape[0] > 2 * edge:
            return np.concatenate((array[:edge], array[-edge:]))
        return array
    if not edge:
        return array[(slice(0, 0),) * dim]
    if array.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(array.shape[0] - edge, array.shape[0]))
    else:
        rows = range(array.shape[0])
    parts = [_summarized_data(array[i]) for i in rows]
    return np.stack(parts) if parts else array


def _host_values(t):
    """The tensor's values on the host, half types widened (exactly) to float32."""
    array = np.asarray(t._host_array("print"))
    if t._dtype in (_dtypes.float16, _dtypes.bfloat16):
        array = array.astype(np.float32)
    return array


def _tensor_str(t, indent):
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > PRINT_OPTS.threshold
    array = _host_values(t)
    if t._dtype.category == _dtypes.COMPLEX:
        real, imag = array.real, array.imag
        real_formatter = _Formatter(_summarized_data(real) if summarize else real, True)
        imag_formatter = _Formatter(_summarized_data(imag) if summarize else imag, True)
        return _tensor_str_with_formatter(array, indent, summarize, real_formatter,
                                          imag_formatter)
    floating = t._dtype.category == _dtypes.FLOATING
    formatter = _Formatter(_summarized_data(array) if summarize else array, floating)
    return _tensor_str_with_formatter(array, indent, summarize, formatter)


def _add_suffixes(tensor_str, suffixes, indent, force_newline):
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _grad_fn_name(grad_fn):
    name = getattr(grad_fn, "name", None)
    name = name() if callable(name) else type(grad_fn).__name__
    return str(name).rsplit("::", 1)[-1]


def _dual_parts(t):
    """``(primal, tangent)`` of ``t`` at the current forward-AD level (``forward_ad``
    registers the lookup), or ``(t, None)``: a dual tensor prints its primal's values and
    ends with ``tangent=...``, as PyTorch's."""
    if t._fw_grads is None and (t._base is None or t._base._fw_grads is None):
        return t, None
    unpack = _tensor_module._hooks.get("unpack_dual")
    return (t, None) if unpack is None else unpack(t)


def tensor_repr(t):
    """``repr(t)``: PyTorch's text for a dense tensor, suffixes included."""
    inp = t
    t, tangent = _dual_parts(inp)
    # A subclass's tensor prints under its class's name (``SubTensor([1., 2.])``), as
    # PyTorch's; the plain classes (``Parameter`` adds its own heading; PyTorch's ``Buffer(t)``
    # is a plain tensor) print ``tensor(...)``.
    prefix = "tensor(" if inp.__class__ in _tensor_module.DENSE_CLASSES \
        else inp.__class__.__name__ + "("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append("device='" + str(t.device) + "'")
    default = _dtypes.get_default_dtype()
    has_default_dtype = t._dtype in (default, _dtypes.default_complex_dtype(), _dtypes.int64,
                                     _dtypes.bool_)
    if t.device.type == "meta":
        # No values to show: the size, and the dtype unless it is the default float.
        suffixes.append("size=" + str(tuple(t._shape)))
        if t._dtype is not default:
            suffixes.append("dtype=" + str(t._dtype))
        tensor_str = "..."
    elif t.numel() == 0:
        # Print the shape unless it is (0,), as NumPy does; an empty tensor shows its dtype
        # unless it is the default float (there are no values to tell int64 apart).
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t._shape)))
        if t._dtype is not default:
            suffixes.append("dtype=" + str(t._dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(t._shape)))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(t._dtype))
        tensor_str = _tensor_str(t, indent)
    # The dual tensor's own node (its primal is a history-free alias).
    grad_fn = inp.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif inp._requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        # ``format``: a 0-d tangent prints as its number (``tangent=2.0``), as in PyTorch.
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)


_tensor_module._hooks["repr"] = tensor_repr   # Tensor.__repr__
