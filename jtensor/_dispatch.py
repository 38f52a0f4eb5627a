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
_set = threading.local.__setattr__


def set_modes(enabled, inside):
    """Set both flags (and ``record``) at once, without the Python-level ``__setattr__``:
    the recorder and the engine switch them on every op and every backward pass."""
    _set(grad_mode, "enabled", enabled)
    _set(grad_mode, "inside", inside)
    _set(grad_mode, "record", enabled and not inside)


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


def emit(kind, **info):
    """Report a non-op event (see ``event_hook``) to the active recorder, if there is one."""
    if event_hook is not None:
        event_hook(kind, info)


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
    and an argument requires grad, in which case the autograd layer records the call.

    The entry is generated with ``impl``'s own signature, so the common call (nothing
    requires grad) costs one flag check and direct argument passing, no ``*args`` repacking.
    """
    entry = _generated_entry(op, impl, Tensor)
    if entry is None:
        entry = _generic_entry(op, impl, Tensor)
    entry.__name__ = impl.__name__
    entry.__qualname__ = impl.__qualname__
    entry.__doc__ = impl.__doc__
    entry.__module__ = impl.__module__
    entry.__wrapped__ = impl
    return entry


def _generated_entry(op, impl, Tensor):
    import inspect
    import sys

    try:
        params = list(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return None
    namespace = {"impl": impl, "op": op, "grad_mode": grad_mode, "T": Tensor,
                 "_w": _wants_grad, "_d": sys.modules[__name__]}
    signature, positional, keywords, checks = [], [], [], []
    star_done = False
    var_positional = var_keyword = None
    for i, p in enumerate(params):
        default = ""
        if p.default is not p.empty:
            namespace[f"_d{i}"] = p.default
            default = f"=_d{i}"
        if p.kind is p.POSITIONAL_ONLY:
            return None
        # A view's only differentiable argument is the tensor it views (the others are
        # sizes, dims, a dtype or a tensor whose shape is borrowed): check just that one.
        if op.kind == "view" and positional:
            checked = False
        else:
            checked = True
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            signature.append(p.name + default)
            positional.append(p.name)
            if checked:
                checks.append(f"({p.name}._requires_grad if {p.name}.__class__ is T else "
                              f"({p.name}.__class__ is not int and {p.name} is not None and "
                              f"_w(({p.name},), T)))")
        elif p.kind is p.VAR_POSITIONAL:
            signature.append("*" + p.name)
            star_done = True
            var_positional = p.name
            if checked:
                checks.append(
                    f"({p.name} and {p.name}[0].__class__ is not int and _w({p.name}, T))")
        elif p.kind is p.KEYWORD_ONLY:
            if not star_done:
                signature.append("*")
                star_done = True
            signature.append(p.name + default)
            keywords.append(p.name)
            if checked:
                checks.append(f"({p.name} is not None and {p.name}.__class__ is not int and "
                              f"_w(({p.name},), T))")
        else:
            signature.append("**" + p.name)
            var_keyword = p.name
            checks.append(f"({p.name} and _w({p.name}.values(), T))")
    args = ", ".join(positional + ([f"*{var_positional}"] if var_positional else []))
    call = ", ".join(positional + ([f"*{var_positional}"] if var_positional else [])
                     + [f"{k}={k}" for k in keywords]
                     + ([f"**{var_keyword}"] if var_keyword else []))
    # Keyword-only arguments reach the recorder only when given (a formula's name may
    # depend on whether ``stable=`` was passed), and ``impl`` gets them only when set.
    defaults = {p.name: f"_d{i}" for i, p in enumerate(params) if p.default is not p.empty}
    kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in keywords if k not in defaults) + "}"
    optional = [k for k in keywords if k in defaults]
    if optional:
        kwargs = (f"_kw({kwargs}, " + ", ".join(f"({k!r}, {k}, {defaults[k]})" for k in optional)
                  + ")")
        namespace["_kw"] = _given_keywords
    if var_keyword:
        kwargs = f"dict({kwargs}, **{var_keyword})"
    short_call = ", ".join(positional + ([f"*{var_positional}"] if var_positional else [])
                           + [f"{k}={k}" for k in keywords if k not in defaults])
    unset = " and ".join(f"{k} is {defaults[k]}" for k in optional)
    body = (f"    if {unset}:\n        return impl({short_call})\n" if optional and not var_keyword
            else "")
    source = (f"def entry({', '.join(signature)}):\n"
              f"    if ({' or '.join(checks) or 'False'}) and grad_mode.record:\n"
              f"        return _d.autograd_call(op, impl, ({args}{',' if args else ''}), "
              f"{kwargs})\n"
              + body +
              f"    return impl({call})\n")
    try:
        exec(compile(source, f"<entry of {op.name}>", "exec"), namespace)
    except SyntaxError:
        return None
    return namespace["entry"]


def _given_keywords(kwargs, *triples):
    for name, value, default in triples:
        if value is not default:
            kwargs[name] = value
    return kwargs


def _generic_entry(op, impl, Tensor):
    def entry(*args, **kwargs):
        if grad_mode.record:
            # Inlined for speed: this check runs on every call of every differentiable op.
            for a in args:
                if a.__class__ is Tensor:
                    if a._requires_grad:
                        return autograd_call(op, impl, args, kwargs)
                elif a.__class__ is int:
                    continue
                elif _wants_grad((a,), Tensor):
                    return autograd_call(op, impl, args, kwargs)
            if kwargs and _wants_grad(kwargs.values(), Tensor):
                return autograd_call(op, impl, args, kwargs)
        return impl(*args, **kwargs)

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
        emit("inplace_refused", tensor=tensor, base=base)  # for jtensor.trace's pitfalls
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
    end = start + (1 + sum((n - 1) * s for n, s in zip(t._shape, t._stride))) * itemsize
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
