"""The one place every op passes through.

An op's implementation converts its arguments with the shared helpers here
(``elementwise`` does conversion, device check, promotion, broadcasting and layout for every
element-wise op) and hands its result to ``finish``, which bumps versions for in-place ops,
records the autograd graph and emits exactly one trace event. With no recorder installed the
trace costs one ``is None`` check.

Hooks are plain module attributes so the layers above (``jtensor.autograd``,
``jtensor.trace``, the CUDA backend) install themselves without the core importing them.
"""

import threading

from ._errors import TensorRuntimeError

# Installed by jtensor.trace while a recorder is active: callable(op, inputs, outputs, info).
trace_hook = None
# Installed by the autograd layer: callable(op, inputs, outputs, context) -> None.
autograd_hook = None


class _GradMode(threading.local):
    enabled = True


grad_mode = _GradMode()


class OpDef:
    """An op's single definition: its name, kind and implementation (and, later, backward).

    ``kind`` is one of ``view``, ``elementwise``, ``reduction``, ``copy`` (a new tensor from
    existing data: indexing, cat, sort, matmul...), ``inplace``, ``factory`` and ``query``
    (returns Python values, not tensors).
    """

    __slots__ = ("name", "kind", "impl", "backward", "method", "function", "inplace_of",
                 "doc", "__weakref__")

    def __init__(self, name, kind, impl, method, function):
        self.name = name
        self.kind = kind
        self.impl = impl
        self.backward = None
        self.method = method
        self.function = function
        self.doc = impl.__doc__

    def __repr__(self):
        return f"<op {self.name} ({self.kind})>"


def finish(op, inputs, outputs, modified=None, info=None):
    """Bookkeeping every op ends with; returns ``outputs`` unchanged.

    ``inputs``: the tensors the op read; ``outputs``: a tensor or a tuple of tensors;
    ``modified``: the tensor written in place, whose version counter is bumped.
    """
    if modified is not None:
        modified._version_counter.value += 1
    if autograd_hook is not None and grad_mode.enabled:
        autograd_hook(op, inputs, outputs, modified, info)
    if trace_hook is not None:
        trace_hook(op, inputs, outputs, modified, info)
    return outputs


def check_inplace(tensor):
    """PyTorch's refusals before an in-place write, checked before a single byte changes.

    With grad mode on, writing into a leaf that requires grad, or into a view of one, would
    silently invalidate the gradient it is about to receive (seed 000: ``b = a.view(2, 2);
    b[:, 0] = 5`` fails). Under ``no_grad`` such writes are allowed (the optimizer step).
    """
    if not grad_mode.enabled:
        return
    if tensor._requires_grad and tensor.grad_fn is None:
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "(Use torch.no_grad() for updates such as optimizer steps, or clone() first.)")
    base = tensor._base
    if base is not None and base._requires_grad and base.grad_fn is None:
        raise TensorRuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation. (Write into a clone() instead, or under torch.no_grad().)")


def check_no_internal_overlap(tensor):
    """PyTorch refuses to write through a layout that repeats elements (a stride of 0).

    NumPy would let many logical elements race for one memory cell; PyTorch raises instead.
    """
    for size, stride in zip(tensor._shape, tensor._stride):
        if stride == 0 and size > 1:
            raise TensorRuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                f"operation. (The target has shape {list(tensor._shape)} and stride "
                f"{list(tensor._stride)}: a stride of 0 repeats one element.)")


def check_same_device(tensors):
    """PyTorch's cross-device error; 0-d CPU tensors may join tensors on any device."""
    first = None
    for t in tensors:
        dev = t._storage.device
        if first is None:
            first = dev
            first_tensor = t
        elif dev != first:
            if dev.type == "cpu" and not t._shape:
                continue
            if first.type == "cpu" and not first_tensor._shape:
                first, first_tensor = dev, t
                continue
            raise TensorRuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {first} and {dev}!")
    return first
