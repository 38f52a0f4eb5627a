"""The exceptions jtensor raises: PyTorch's own.

PyTorch raises Python's builtin exceptions (``RuntimeError`` for shapes, views, dtypes and
devices, ``IndexError`` for dims and indices out of range, ``TypeError`` for wrong argument
kinds, ``ValueError``, ``NotImplementedError`` when a kernel lacks a dtype), so jtensor raises
exactly those: a traceback reads ``RuntimeError: ...`` as PyTorch's does, and ``except
RuntimeError`` or ``type(e) is RuntimeError`` behave the same. The names below say, where an
error is raised, which of PyTorch's situations it is.
"""

import contextlib
import math
import os
import re
import sys
import warnings

TensorRuntimeError = RuntimeError
TensorIndexError = IndexError
TensorTypeError = TypeError
TensorValueError = ValueError
TensorNotImplementedError = NotImplementedError


_INT64_MAX = 2 ** 63 - 1


def check_storage_size(shape, itemsize):
    """PyTorch's check before allocating: the byte count of ``shape`` must fit in int64."""
    if math.prod(shape) * itemsize > _INT64_MAX:
        raise TensorRuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)}")


def out_of_memory(exc):
    """NumPy's ``MemoryError`` as PyTorch's CPU allocator reports it (a ``RuntimeError``
    naming the bytes asked for)."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is not None and dtype is not None:
        asked = f"you tried to allocate {math.prod(shape) * dtype.itemsize} bytes"
    else:
        asked = "the allocation failed"
    return TensorRuntimeError(f"DefaultCPUAllocator: can't allocate memory: {asked}. "
                              "Error code 12 (Cannot allocate memory)")


def too_large(exc):
    """NumPy's refusal of an array past its maximum size, or None for another ValueError."""
    if exc.args and isinstance(exc.args[0], str) and (
            "Maximum allowed dimension exceeded" in exc.args[0]
            or "array is too big" in exc.args[0]):
        return TensorRuntimeError(
            "Storage size calculation overflowed: the result would need more bytes than an "
            "int64 can count")
    return None


def not_implemented(kernel, dtype):
    """PyTorch's dispatch error: ``"lshift_cpu" not implemented for 'Float'``, plus the fix."""
    return TensorNotImplementedError(
        f"\"{kernel}\" not implemented for '{dtype._torch_name}'. This op does not accept "
        f"{dtype} inputs; cast them first (for example with .long() or .float()).")


def dim_out_of_range(dim, ndim):
    """PyTorch's message for a dimension outside ``[-ndim, ndim-1]`` (``IndexError``)."""
    low, high = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    return TensorIndexError(
        f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
    )


def wrap_dim(dim, ndim):
    """Normalise a possibly negative ``dim`` for a tensor with ``ndim`` dimensions.

    A 0-d tensor accepts dims 0 and -1, as in PyTorch.
    """
    if dim.__class__ is not int:
        try:
            if isinstance(dim, bool):
                raise AttributeError
            dim = dim.__index__()
        except AttributeError:
            raise TensorTypeError(
                f"dim must be an integer, got {type(dim).__name__} ({dim!r})"
            ) from None
    if 0 <= dim < ndim:  # the common case first
        return dim
    effective = ndim if ndim > 0 else 1
    if dim < -effective or dim >= effective:
        raise dim_out_of_range(dim, ndim)
    return dim + effective if dim < 0 else dim


def type_name(value):
    """The type of ``value`` as PyTorch's messages name it, CPython's ``tp_name``: a class
    written in Python by its name (``Tensor``, ``Fraction``, a user's ``Foo``), a builtin by
    its name (``str``, ``NoneType``), any other type of an extension module with its module
    (``numpy.ndarray``, ``numpy.float64``, ``collections.OrderedDict``)."""
    kind = type(value)
    module = kind.__module__
    if kind.__flags__ & _HEAP_TYPE or module == "builtins":
        return kind.__name__
    return f"{module}.{kind.__name__}"


_HEAP_TYPE = 1 << 9   # (Py_TPFLAGS_HEAPTYPE: a class created at run time, by a class statement)


def signature_type_name(value):
    """The type of ``value`` as PyTorch's "invalid combination of arguments" messages name
    it: ``int``, ``NoneType``, ``Tensor``, ``torch.dtype``, ``torch.Size``."""
    kind = type(value)
    module = kind.__module__
    if module == "builtins" or any(c.__name__ == "Tensor" and c.__module__.startswith("jtensor")
                                   for c in kind.__mro__):
        return kind.__name__   # (a tensor of any class: ``Tensor``, ``Parameter``)
    if module.startswith("jtensor"):
        return f"torch.{kind.__name__}"   # (torch.dtype, torch.device, torch.Size, ...)
    return f"{module}.{kind.__name__}"


def invalid_combination(name, args, kwargs, signatures):
    """PyTorch's ``TypeError`` for a call that matches none of an op's overloads
    (``signatures``: their parameter lists, as PyTorch prints them)."""
    got = [signature_type_name(a) for a in args] + \
        [f"{k}={signature_type_name(v)}" for k, v in kwargs.items()]
    return TensorTypeError(
        f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
        "but expected one of:\n" + "".join(f" * {s}\n" for s in signatures))


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel():
    """A warning's ``stacklevel`` that points at the first frame outside jtensor (the user's
    line, however deep inside jtensor the warning is raised: indexing reached from
    ``__getitem__`` or ``__setitem__``, a factory reached from a legacy constructor)."""
    frame = sys._getframe(1)   # the function about to call warnings.warn: level 1
    k = 1
    while frame.f_back is not None and (frame.f_code.co_filename.startswith(_PACKAGE)
                                        or frame.f_code.co_filename.startswith("<entry of")):
        frame = frame.f_back
        k += 1
    return k


def stacklevel(level):
    """A warning's ``stacklevel`` counted as if the ops' generated entry points (frames of
    ``<entry of ...>`` code, made by ``_argparse``) were not there: ``level`` 2 is the caller
    of the function that warns, with entry frames in between skipped. Use it for every
    warning raised inside an op, so the warning points at the same line however the op was
    reached."""
    frame = sys._getframe(1)   # the function about to call warnings.warn: level 1
    k = counted = 1
    while counted < level and frame.f_back is not None:
        frame = frame.f_back
        k += 1
        if not frame.f_code.co_filename.startswith("<entry of"):
            counted += 1
    while frame.f_code.co_filename.startswith("<entry of") and frame.f_back is not None:
        frame = frame.f_back
        k += 1
    return k


@contextlib.contextmanager
def ignoring_warnings(category=Warning, message=None):
    """Ignore the warnings of ``category`` (whose text starts with ``message``, when given)
    raised inside the block, as ``warnings.catch_warnings()`` with a filter would, without
    making Python forget which warnings it has already shown.

    ``catch_warnings`` and ``simplefilter`` signal that the filters changed, and that signal
    empties every module's record of the warnings shown: a warning the default action prints
    once per line then prints again after every op that silenced NumPy this way (a program
    calling ``torch.tensor(t)`` in a loop saw PyTorch's one copy-construct warning 13 times).
    The filter is put first in the filters list itself for the block: Python reads that list
    on every warning, so it applies, and the records stay valid."""
    entry = ("ignore", None if message is None else re.compile(re.escape(message), re.I),
             category, None, 0)
    filters = warnings.filters
    filters.insert(0, entry)
    try:
        yield
    finally:
        try:
            filters.remove(entry)
        except ValueError:   # (the block replaced the list: catch_warnings restored it)
            pass
