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
from ._layout import is_non_overlapping_and_dense

# Installed by jtensor.trace while a recorder is active: callable(op, inputs, outputs, info).
trace_hook = None
# Installed by jtensor.trace while a recorder is active: callable(kind, info) for events that
# are not ops: "sync" (a host wait on a device), "transfer" (bytes between devices), "launch"
# (a kernel queued on an asynchronous device), "backward" (one autograd node run).
event_hook = None
# Installed by the autograd layer while inference mode is on somewhere: marks outputs.
autograd_hook = None
# Installed by jtensor.autograd: callable(op, impl, args, kwargs) -> result, the slow path of
# an op called with an input that requires grad while grad mode is on.
autograd_call = None
# Installed by jtensor.autograd: callable(op, run, a, b) -> result, ``autograd_call`` for a
# Tensor operator's call ``a <op> b`` (its ``run(a, b)`` computes it).
autograd_operator = None
# Installed by jtensor.autograd.profiler while a profiler records: callable(op, entry, args,
# kwargs). Every op entry calls it once it has parsed its arguments (after the transform and
# autocast steps, before autograd); the hook reads the clock, calls ``entry(*args, **kwargs)``
# again, reads the clock and returns that call's result. The re-entered call gets
# ``CONTINUE`` back from the hook and runs the op as usual. Operators that skip their entry
# (``a + b``) take it while the hook is set. Nothing installed: one ``is None`` check per op.
profile_hook = None
CONTINUE = object()
# Set by ``use_deterministic_algorithms(True)`` while
# ``torch.utils.deterministic.fill_uninitialized_memory`` holds: ``empty``-like ops and
# ``resize_``'s new elements are filled with NaN / the largest integer / True
# (``_tensor.fill_uninitialized``) instead of being left as they were.
fill_uninitialized = False

# Set (for good) once a ``Tensor`` subclass that takes part in ``__torch_function__`` is
# defined (``_torch_function``): from then on every op entry asks whether one of its
# arguments is such a subclass's tensor. Until then the entries pay one test.
subclass_dispatch = False


class _Transforms:
    """The function transforms in effect (forward-mode AD levels, ``vmap`` levels), innermost
    last. Every op entry tests ``transforms.active`` (one attribute read, like autocast's) and,
    when it is non-zero, hands the call to ``call_transformed``: the innermost transform
    processes it with itself taken off the stack, so the ops it runs reach the transforms
    below it (or the plain path when none is left)."""

    __slots__ = ("active", "stack", "processing")

    def __init__(self):
        self.active = 0
        self.stack = []
        # (level, op) for each transform processing a call now, in the order they took it
        # (the innermost transform first): what the ops they run are done for (the trace
        # labels its events with it).
        self.processing = []


transforms = _Transforms()


def push_transform(level):
    """Enter a transform: ``level.process(op, entry, args, kwargs)`` gets every op call made
    while it is the innermost one."""
    transforms.stack.append(level)
    transforms.active = len(transforms.stack)


def pop_transform(level):
    """Leave ``level`` (the innermost transform)."""
    if not transforms.stack or transforms.stack[-1] is not level:
        raise TensorRuntimeError("function transforms were exited out of order")
    transforms.stack.pop()
    transforms.active = len(transforms.stack)


def call_transformed(op, entry, args, kwargs):
    """Run one op call under the innermost transform (see ``_Transforms``)."""
    stack = transforms.stack
    level = stack.pop()
    transforms.active = len(stack)
    processing = transforms.processing
    processing.append((level, op))
    try:
        return level.process(op, entry, args, kwargs)
    finally:
        processing.pop()
        stack.append(level)
        transforms.active = len(stack)

# Differentiable kinds get an entry point that routes calls needing grad to ``autograd_call``.
RECORDED_KINDS = frozenset(("view", "elementwise", "reduction", "copy", "inplace"))


class _GradMode(threading.local):
    enabled = True      # grad mode (no_grad/enable_grad/set_grad_enabled switch it)
    inside = False      # inside an op being recorded: nested ops must not record again
    inference = False   # inside inference_mode: new tensors are inference tensors
    record = True       # enabled and not inside: the one flag the op entry points read

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name == "enabled" or name == "inside":
            super().__setattr__("record", self.enabled and not self.inside)


grad_mode = _GradMode()


def set_modes(enabled, inside):
    """Set both flags (and ``record``) at once, without the Python-level ``__setattr__``:
    the recorder and the engine switch them on every op and every backward pass."""
    flags = grad_mode.__dict__   # (this thread's: cheaper than three local setattrs)
    flags["enabled"] = enabled
    flags["inside"] = inside
    flags["record"] = enabled and not inside


class OpDef:
    """An op's single definition: its name, kind and implementation (and, later, backward).

    ``kind`` is one of ``view``, ``elementwise``, ``reduction``, ``copy`` (a new tensor from
    existing data: indexing, cat, sort, matmul...), ``inplace``, ``factory`` and ``query``
    (returns Python values, not tensors).
    """

    __slots__ = ("name", "kind", "impl", "entry", "backward", "method", "function",
                 "inplace_of", "doc", "post", "__weakref__")

    def __init__(self, name, kind, impl, method, function, post=None):
        self.name = name
        self.kind = kind
        self.impl = impl
        self.entry = impl
        self.backward = None
        self.method = method
        self.function = function
        self.doc = impl.__doc__
        # How the op's entry finishes a call (a ``Post``), or None: the implementation calls
        # ``finish`` itself (registered with ``post=False``: ``nn_op``).
        self.post = post

    def __repr__(self):
        return f"<op {self.name} ({self.kind})>"


# ``Post.modified`` when the call writes nothing (an in-place kind that only sets a flag).
NOTHING = "nothing"


class Post:
    """What the entry of an op does after the implementation returned (``finish``'s
    arguments, declared once per op instead of computed by hand in every implementation).

    The default (every field None) is the common case: ``inputs`` are the tensors among
    the call's arguments (a list of tensors counts element by element; ``out``, sizes, dims
    and the typed arguments never count), ``modified`` is ``self`` for the ``inplace`` kind
    and ``out`` when given. Otherwise:

    - ``inputs``: a tuple of parameter names (the tensors among those arguments), or a
      callable taking the call's arguments as the implementation does and returning the
      tensors;
    - ``modified``: a parameter name, ``NOTHING``, or a callable ``(result, *args,
      **kwargs)`` returning the written tensor or None;
    - ``info``: a callable ``(result, *args, **kwargs)`` returning the event's ``info``
      dict (or None). Called only while a hook listens.
    - ``outputs``: a callable ``(result, *args, **kwargs)`` giving the event's outputs when
      they are not the result (``__setitem__`` returns None but reports the written tensor).
    - ``silent``: a callable ``(result, *args, **kwargs)``, true when the call ran no op and
      reports nothing (``contiguous()``/``to()`` handing back their input, as PyTorch).
    - ``check_devices``: parameter names whose tensors must share a device (PyTorch's
      cross-device error, raised before the implementation runs).
    """

    __slots__ = ("inputs", "modified", "info", "outputs", "silent", "check_devices")

    def __init__(self, inputs=None, modified=None, info=None, outputs=None, silent=None,
                 check_devices=None):
        self.inputs = inputs
        self.modified = modified
        self.info = info
        self.outputs = outputs
        self.silent = silent
        self.check_devices = check_devices


def finished(op, inputs, outputs, modified=None, info=None):
    """``finish``'s bookkeeping, whatever ``op.post`` says: what an entry's finishing runner
    ends with (the recorder finds the user's frame past any jtensor frames above it)."""
    if modified is not None:
        modified._version_counter.value += 1
    if autograd_hook is not None:
        autograd_hook(op, inputs, outputs, modified, info)
    if trace_hook is not None:
        trace_hook(op, inputs, outputs, modified, info)
    return outputs


def returned_input(result, input, *args, **kwargs):
    """A ``Post.silent``: the call handed its input back, so no op ran (no event)."""
    return result is input


def untraced(body, *args, **kwargs):
    """``body(*args, **kwargs)`` with this thread's trace recorder detached: a call that the
    trace shows as one op (an nn functional, a composite ``matmul``) keeps the ops it is
    made of out of it. A recorder of another thread keeps listening to its own thread, and
    this recorder keeps counting the ops of other threads meanwhile (``_others_only``)."""
    global trace_hook
    hook = trace_hook
    if hook is None or getattr(getattr(hook, "__self__", hook), "_thread", None) \
            != threading.get_ident():
        return body(*args, **kwargs)
    trace_hook = _others_only(hook)
    try:
        return body(*args, **kwargs)
    finally:
        trace_hook = hook


def _others_only(hook):
    """``hook`` for the ops of every thread but the one that called (the recording thread,
    inside an ``untraced`` body). The wrapper has no ``_thread``: an ``untraced`` nested in
    the body runs its body as it is."""
    thread = threading.get_ident()
    get_ident = threading.get_ident

    def others(op, inputs, outputs, modified=None, info=None):
        if get_ident() != thread:
            hook(op, inputs, outputs, modified, info)

    return others


def notify(op, inputs, outputs, modified=None, info=None):
    """``finish`` without the version bump (the entry bumped it): the hooks' half."""
    if autograd_hook is not None:
        autograd_hook(op, inputs, outputs, modified, info)
    if trace_hook is not None:
        trace_hook(op, inputs, outputs, modified, info)
    return outputs


def finish(op, inputs, outputs, modified=None, info=None):
    """Bookkeeping an op registered with ``post=False`` ends with; returns ``outputs``
    unchanged. For an op whose entry finishes (``op.post`` set) it does nothing, so a
    helper shared with such ops may still call it.

    ``inputs``: the tensors the op read; ``outputs``: a tensor or a tuple of tensors;
    ``modified``: the tensor written in place, whose version counter is bumped.
    """
    if op.post is not None:
        return outputs
    return finished(op, inputs, outputs, modified, info)


def emit(kind, **info):
    """Report a non-op event (see ``event_hook``) to the active recorder, if there is one."""
    if event_hook is not None:
        event_hook(kind, info)


def view_rebase_error(view, indirect):
    """PyTorch's refusal to write through (or after a write to the base of) a view made under
    no_grad or by a multi-output view op: autograd could not give it a correct history."""
    fn = view._grad_fn
    name = None
    if fn is not None:
        name = fn.name().rsplit("::", 1)[-1]
        name = name[:name.rfind("Backward")] if "Backward" in name else name
    modified = ("its base or another view of its base has been" if indirect
                else "is being")
    if view._creation_meta == "no_grad" or fn is None:
        prefix = (f"Output {view._output_nr} of {name} is a view of a view which was created in"
                  if fn is not None else "A view was created in")
        return TensorRuntimeError(
            f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled. "
            "Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
            "you want the inplace to be tracked).")
    return TensorRuntimeError(
        f"Output {view._output_nr} of {name} is a view and {modified} modified inplace. This "
        "view is the output of a function that returns multiple views. Such functions do not "
        "allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one (or clone() the view first).")


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
    # A view PyTorch cannot rebase (made under no_grad, or one of several views made by one
    # call), written while the write is recorded: inside a recorded call, or the view
    # requiring grad through its base.
    if tensor._creation_meta is not None and tensor._base is not None and (
            grad_mode.inside or tensor.requires_grad):
        raise view_rebase_error(tensor, indirect=False)
    base = tensor._base
    if tensor._requires_grad and tensor._grad_fn is None and not tensor._derived_grad:
        if base is not None:  # a view given requires_grad_() itself: PyTorch names the view
            raise TensorRuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.")
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.")
    if base is not None and base._requires_grad and base._grad_fn is None:
        emit("inplace_refused", tensor=tensor, base=base)  # for jtensor.trace's pitfalls
        raise TensorRuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation.")


def check_no_internal_overlap(tensor):
    """PyTorch refuses to write through a layout that repeats elements (a stride of 0).

    NumPy would let many logical elements race for one memory cell; PyTorch raises instead.
    An empty tensor has no element to repeat (PyTorch writes it: nothing happens).
    """
    if 0 in tensor._shape:
        return
    for size, stride in zip(tensor._shape, tensor._stride, strict=True):
        if stride == 0 and size > 1:
            raise TensorRuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                f"operation. (The target has shape {list(tensor._shape)} and stride "
                f"{list(tensor._stride)}: a stride of 0 repeats one element.)")


def check_no_partial_overlap(target, inputs):
    """PyTorch's refusal to write into memory that an input reads differently.

    Writing ``a[1:]`` from ``a[:-1]`` would read elements already overwritten (NumPy copies
    to hide it; PyTorch refuses). As in ATen's ``get_overlap_status``: the same elements with
    the same strides are fine (``a.add_(a)``), disjoint ranges are fine, and layouts that are
    not dense are not judged at all.
    """
    storage = target._storage
    for t in inputs:
        if t is target or t._storage is not storage:
            continue
        if not target.numel() or not t.numel():
            continue
        if not (is_non_overlapping_and_dense(target._shape, target._stride)
                and is_non_overlapping_and_dense(t._shape, t._stride)):
            continue
        a0, a1 = _span(target)
        b0, b1 = _span(t)
        if (a0 == b0 and a1 == b1 and t._stride == target._stride
                and t._shape == target._shape) or a1 <= b0 or b1 <= a0:
            continue
        raise TensorRuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            f"performing the operation. (Written: shape {list(target._shape)}, stride "
            f"{list(target._stride)}, offset {target._offset}; read: shape {list(t._shape)}, "
            f"stride {list(t._stride)}, offset {t._offset}.)")


def _span(t):
    itemsize = t._dtype.itemsize
    start = t._offset * itemsize
    extent = 1 + sum((n - 1) * s for n, s in zip(t._shape, t._stride, strict=True))
    end = start + extent * itemsize
    return start, end


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
