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
# Installed by the autograd layer while inference mode is on somewhere: marks outputs.
autograd_hook = None
# Installed by jtensor.autograd: callable(op, impl, args, kwargs) -> result, the slow path of
# an op called with an input that requires grad while grad mode is on.
autograd_call = None
# Differentiable kinds get an entry point that routes calls needing grad to ``autograd_call``.
RECORDED_KINDS = frozenset(("view", "elementwise", "reduction", "copy", "inplace"))


class _GradMode(threading.local):
    enabled = True      # grad mode (no_grad/enable_grad/set_grad_enabled switch it)
    inside = False      # inside an op being recorded: nested ops must not record again
    inference = False   # inside inference_mode: new tensors are inference tensors


grad_mode = _GradMode()


class OpDef:
    """An op's single definition: its name, kind and implementation (and, later, backward).

    ``kind`` is one of ``view``, ``elementwise``, ``reduction``, ``copy`` (a new tensor from
    existing data: indexing, cat, sort, matmul...), ``inplace``, ``factory`` and ``query``
    (returns Python values, not tensors).
    """

    __slots__ = ("name", "kind", "impl", "entry", "backward", "method", "function",
                 "inplace_of", "doc", "__weakref__")

    def __init__(self, name, kind, impl, method, function):
        self.name = name
        self.kind = kind
        self.impl = impl
        self.entry = impl
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
    if autograd_hook is not None:
        autograd_hook(op, inputs, outputs, modified, info)
    if trace_hook is not None:
        trace_hook(op, inputs, outputs, modified, info)
    return outputs


def _wants_grad(values, Tensor):
    for a in values:
        if isinstance(a, Tensor):
            if a._requires_grad:
                return True
        elif a.__class__ is list or a.__class__ is tuple:
            for b in a:
                if isinstance(b, Tensor) and b._requires_grad:
                    return True
    return False


def make_entry(op, impl, Tensor):
    """The public entry point of a differentiable op: ``impl`` itself unless grad mode is on
    and an argument requires grad, in which case the autograd layer records the call."""

    def entry(*args, **kwargs):
        if grad_mode.enabled and not grad_mode.inside and (
                _wants_grad(args, Tensor) or (kwargs and _wants_grad(kwargs.values(), Tensor))):
            return autograd_call(op, impl, args, kwargs)
        return impl(*args, **kwargs)

    entry.__name__ = impl.__name__
    entry.__qualname__ = impl.__qualname__
    entry.__doc__ = impl.__doc__
    entry.__module__ = impl.__module__
    entry.__wrapped__ = impl
    return entry


def check_inplace(tensor):
    """PyTorch's refusals before an in-place write, checked before a single byte changes.

    With grad mode on, writing into a leaf that requires grad, or into a view of one, would
    silently invalidate the gradient it is about to receive (seed 000: ``b = a.view(2, 2);
    b[:, 0] = 5`` fails). Under ``no_grad`` such writes are allowed (the optimizer step).
    """
    if tensor._is_inference and not grad_mode.inference:
        raise TensorRuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed. You can "
            "make a clone to get a normal tensor before doing inplace update.")
    if not grad_mode.enabled:
        return
    if tensor._requires_grad and tensor._grad_fn is None:
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "(Use torch.no_grad() for updates such as optimizer steps, or clone() first.)")
    base = tensor._base
    if base is not None and base._requires_grad and base._grad_fn is None:
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
