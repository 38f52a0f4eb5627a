"""The autograd graph: nodes, saved tensors, and recording an op call into the graph.

Every differentiable op has a ``Formula`` (see ``jtensor/autograd/formulas``). When an op is
called with an input that requires grad while grad mode is on, ``record_call`` runs the op
and builds one ``Node`` for the call: its class is named like PyTorch's (``MulBackward0``),
its ``next_functions`` point at the nodes that made the inputs (``AccumulateGrad`` for
leaves), and it keeps only what the formula asked to save, each saved tensor with the
version it had, so that an in-place write before ``backward()`` is detected.

In-place ops on views rewrite the history of the view's base (``CopySlices``), and views of
that base regenerate their own node lazily (``AsStridedBackward0``), as PyTorch does.
"""

import inspect
import itertools
import traceback
import weakref

from .. import _dispatch, _dtypes
from .._api import ops as J
from .._dispatch import grad_mode, set_modes
from .._errors import TensorRuntimeError
from .._layout import broadcastable_to
from .._tensor import DENSE_CLASSES, Tensor, contiguous_format, valid_array

_sequence = itertools.count()

# Set by anomaly_mode: when True, each node keeps the stack of the forward call.
anomaly = type("AnomalyState", (), {"enabled": False, "check_nan": True})()


# ----------------------------------------------------------------------------- saved tensors

# The (pack, unpack) pairs of the active ``saved_tensors_hooks`` contexts, innermost last.
saved_hooks = []


class saved_tensors_hooks:
    """Inside this context every tensor saved for backward goes through ``pack_hook`` (its
    result is stored instead) and comes back through ``unpack_hook`` when backward needs it.
    Non-reentrant checkpointing is built on this."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        self.pair = (self.pack_hook, self.unpack_hook)
        saved_hooks.append(self.pair)
        return self

    def __exit__(self, *exc):
        saved_hooks.remove(self.pair)
        return False


class save_on_cpu(saved_tensors_hooks):
    """Inside this context, tensors saved for backward are kept on the CPU (in pinned memory
    with ``pin_memory=True``, where the device ``device_type`` names is available) and copied
    back to their own device when backward needs them: GPU memory traded for copies. A tensor
    already on the CPU is kept as it is (``tensor.cpu()`` hands it back), unless pinning asked
    for a copy."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        module = _device_module(device_type)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            if tensor.is_sparse:
                return (tensor.device, tensor.to("cpu", copy=True))
            pinnable = bool(module.is_available())
            # (``empty_like``: jtensor's ``empty`` takes ``pin_memory`` without pinning)
            packed = J.empty_like(tensor, device="cpu", pin_memory=pinnable,
                                  memory_format=contiguous_format)
            packed.copy_(tensor, non_blocking=pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def _device_module(device_type):
    """``torch.<device_type>``, or ``torch.cuda`` where the package has no such module (as
    ``save_on_cpu`` looks it up)."""
    import importlib

    try:
        return importlib.import_module(f"..{device_type}", __package__)
    except ImportError:
        return importlib.import_module("..cuda", __package__)


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved (PyTorch's
    ``torch._C._autograd.SavedTensor``: ``node._raw_saved_<name>``).

    Inputs are kept as they are (their history is upstream, so no cycle); an op's own output
    is kept as a history-free alias sharing storage and version counter, and gets its node
    back when unpacked (so ``create_graph=True`` differentiates through it). Under
    ``saved_tensors_hooks`` (or after ``register_hooks``) only ``pack``'s result is kept;
    unpacking gives ``unpack``'s result, with the saved tensor's history when it had one.
    """

    __slots__ = ("tensor", "version", "is_output", "output_nr", "requires_grad",
                 "packed", "unpack_hook", "had_history", "grad_fn", "accumulator")

    def __init__(self, tensor, is_output=False, output_nr=0):
        self.unpack_hook = None
        if tensor._is_inference:
            raise TensorRuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.version = tensor._version_counter.value
        self.is_output = is_output
        self.output_nr = output_nr
        self.requires_grad = tensor._requires_grad
        if saved_hooks:
            # saved_tensors_hooks: keep whatever ``pack`` returns instead of the tensor.
            self._remember_history(tensor)
            pack, unpack = saved_hooks[-1]
            self.tensor = None
            self.packed = _call_pack(pack, tensor)
            self.unpack_hook = unpack
            return
        if is_output:
            self.had_history = False
            self.tensor = Tensor._make(tensor._storage, tensor._shape, tensor._stride,
                                       tensor._offset, tensor._dtype,
                                       version=tensor._version_counter,
                                       array=valid_array(tensor), contiguous=tensor._contiguous)
        else:
            # A non-view input with a history (only those can be detached in place).
            self.had_history = tensor._grad_fn is not None and tensor._base is None
            self.tensor = tensor

    def _remember_history(self, tensor):
        """What unpacking a hook's result gives back to it: the saved input's node (or its
        leaf's accumulator), so that gradients through it reach the same places. (A saved
        output gets the node that saved it, at unpack time.)"""
        self.grad_fn = None
        self.accumulator = None
        if self.requires_grad and not self.is_output:
            fn, nr = edge_of(tensor)
            if fn.__class__ is AccumulateGrad:
                self.accumulator = fn
            else:
                self.grad_fn = fn
                self.output_nr = nr

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook`` (which gets it without history) and
        keep only the result; ``unpack_hook(result)`` gives it back whenever backward (or
        ``node._saved_<name>``) reads it. Once per saved tensor, before the graph is freed."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {self!r}, {pack_hook!r}, {unpack_hook!r}")
        if self.unpack_hook is not None:
            raise TensorRuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time.")
        t = self.tensor
        if t is None:
            raise TensorRuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        self._remember_history(t)
        # The hook sees the values without their history (PyTorch passes ``data.detach()``).
        plain = Tensor._make(t._storage, t._shape, t._stride, t._offset, t._dtype,
                             version=t._version_counter)
        self.packed = _call_pack(pack_hook, plain)
        self.unpack_hook = unpack_hook
        self.tensor = None

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {id(self):#x}>"

    def unpack(self, node):
        if self.unpack_hook is not None:
            return self._unpack_hooked(node)
        t = self.values(node)
        if self.is_output and self.requires_grad:
            alias = Tensor._make(t._storage, t._shape, t._stride, t._offset, t._dtype,
                                 version=t._version_counter, array=valid_array(t),
                                 contiguous=t._contiguous)
            alias._requires_grad = True
            alias._grad_fn = node
            alias._output_nr = self.output_nr
            if t._fw_grads is not None:
                # Forward AD gave the output a tangent (on this alias too): the formula
                # sees it, so a double backward under a dual level carries tangents.
                alias._fw_grads = t._fw_grads
            return alias
        return t

    def values(self, node):
        """The saved tensor for a formula that only reads its values (a backward that
        records nothing): ``unpack``'s checks, without the alias that gives a saved output
        its node back (an unpack hook's result as ``unpack`` gives it)."""
        if self.unpack_hook is not None:
            return self._unpack_hooked(node)
        t = self.tensor
        if self.had_history and t._grad_fn is None:
            raise TensorRuntimeError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with "
                f".detach_(): a [{_type_name(t)} {list(t._shape)}] saved by {node.name()} "
                "lost its history after it was saved. This is not supported, please use "
                "out-of-place `.detach()` instead")
        if t._version_counter.value != self.version:
            # As PyTorch: a saved output names the node that saved it, a saved input its
            # current history (the in-place op that wrote into it, when it has one).
            producer = node if self.is_output else t.grad_fn
            made_by = (f", which is output {self.output_nr if self.is_output else t._output_nr}"
                       f" of {_forward_name(producer)}," if producer is not None else "")
            raise TensorRuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_name(t)} {list(t._shape)}]{made_by} is at version "
                f"{t._version_counter.value}; expected version {self.version} instead. Hint: "
                "enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False). "
                f"(It was saved by {node.name()} for backward; an in-place op wrote into it "
                "afterwards. Use an out-of-place op, or clone() before writing.)")
        return t

    def _unpack_hooked(self, node):
        """``unpack_hook``'s tensor, given the saved tensor's history as PyTorch does (a new
        tensor on its data when the saved one required grad: the node, or the leaf's
        accumulator, that gradients through it must reach)."""
        data = self.unpack_hook(self.packed)
        if not isinstance(data, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(data).__name__}")
        if not self.requires_grad:
            return data
        alias = Tensor._make(data._storage, data._shape, data._stride, data._offset,
                             data._dtype, version=data._version_counter)
        alias._requires_grad = True
        if self.is_output:
            alias._grad_fn = node
            alias._output_nr = self.output_nr
        elif self.grad_fn is not None:
            alias._grad_fn = self.grad_fn
            alias._output_nr = self.output_nr
        elif self.accumulator is not None:
            # A leaf: the alias is a leaf whose gradient goes to the saved leaf's accumulator.
            alias._accumulator = weakref.ref(self.accumulator)
        return alias


SavedTensor.__module__ = "torch._C._autograd"


def _call_pack(pack, tensor):
    """``pack(tensor)``, refusing a hook that writes into the tensor (PyTorch's check)."""
    version = tensor._version_counter.value
    packed = pack(tensor)
    if tensor._version_counter.value != version:
        raise TensorRuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as "
            "input to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")
    return packed


def _type_name(t):
    return t.type()  # torch.FloatTensor, as PyTorch names it in this message


def _forward_name(node):
    name = node.name()
    for suffix in ("Backward0", "Backward1", "Backward2", "Backward3", "Backwards"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


# ----------------------------------------------------------------------------- nodes

_QUALIFIED = frozenset(("NotImplemented", "CopyBackwards", "CopySlices", "AccumulateGrad",
                        "Error", "DelayedError"))


class Node:
    """One recorded op call (``grad_fn``). ``next_functions`` are ``(node, output_nr)`` pairs,
    one per differentiable input, ``(None, 0)`` where the input needs no gradient."""

    # Hot fields in slots; rarely set ones (hooks, anomaly stack) default at class level.
    __slots__ = ("next_functions", "_formula", "_values", "_saved", "_input_meta",
                 "_seq", "_num_outputs", "_freed", "__dict__", "__weakref__")

    _pre_hooks = None
    _hooks = None
    _tensor_hooks = None
    _retain = None
    _stack = None

    def __init__(self, formula=None):
        self._freed = False
        self._formula = formula
        self._seq = next(_sequence)
        self._saved = None
        self._values = None
        self._input_meta = ()
        self._num_outputs = 1
        if anomaly.enabled:
            self._stack = "".join(traceback.format_stack()[:-3])

    def _sequence_nr(self):
        """The order this node was recorded in (the engine runs later nodes first)."""
        return self._seq

    @property
    def metadata(self):
        """A dict for the user's notes about this node (as PyTorch's)."""
        return self.__dict__.setdefault("_metadata", {})

    def name(self):
        name = type(self).__name__
        # PyTorch's hand-written nodes answer name() with their C++ namespace.
        return "torch::autograd::" + name if name in _QUALIFIED else name

    def __repr__(self):
        # As PyTorch prints it, address included (nbval's shipped sanitizer masks it).
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # ctx-style access for formulas: saved tensors (checked) and the op's other arguments.
    # The names a formula knows are ``_Field``s of its node class (found without a failed
    # lookup); any other name ends here.
    def __getattr__(self, key):
        if key[:1] == "_":
            if key.startswith("__"):
                raise AttributeError(key)
            if key.startswith(("_saved_", "_raw_saved_")):
                # PyTorch's view of what the node saved (``y.grad_fn._saved_self``).
                return _saved_attributes().attribute(self, key)
        return _ctx_value(self, key)

    def __dir__(self):
        # (Not the slot ``_saved``, jtensor's own store, which PyTorch's nodes do not have.)
        names = set(super().__dir__()) | set(_saved_attributes().names(self))
        names.discard("_saved")
        return sorted(names)

    @property
    def needs_input_grad(self):
        return self._values["__needs__"]

    def input_meta(self, i):
        """(shape, dtype, device, stride, offset) of the i-th differentiable input tensor."""
        return self._input_meta[i]

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after the node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before the node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        return _Handle(self._pre_hooks, fn)

    def _release(self):
        if self._saved:
            self._saved = None
            self._freed = True

    def apply(self, grads):
        formula = self._formula
        if self._freed:
            raise _freed_error()
        result = formula.backward(self, *grads) if formula.multi_grad else \
            formula.backward(self, grads[0])
        if result.__class__ is not tuple and result.__class__ is not list:
            result = (result,)
        return _flatten_grads(self, result)


def _saved_attributes():
    """The ``saved_attributes`` module (imported on first use: it imports this one)."""
    from . import saved_attributes

    return saved_attributes


def _ctx_value(node, key):
    """``ctx.<key>`` in a formula: a saved tensor (unpacked, version-checked), else the
    call's argument, else the op's default for it."""
    saved = node._saved
    if saved is not None and key in saved:
        entry = saved[key]
        if entry.__class__ is list:
            return [e.unpack(node) if e is not None else None for e in entry]
        return entry.unpack(node) if entry is not None else None
    formula = node._formula
    if node._freed and formula is not None and key in formula.save:
        raise _freed_error()
    values = node._values
    if values is not None and key in values:
        return values[key]
    if formula is not None and key in formula.defaults:
        return formula.defaults[key]
    raise AttributeError(f"{node.name()} has no saved value {key!r}")


class _Field:
    """``ctx.<key>`` as an attribute of the node class (issue 18): Python reaches
    ``Node.__getattr__`` only after a failed lookup, which costs four times the read itself.
    Not a data descriptor: a value set on a node instance still wins, as before."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __get__(self, node, owner=None):
        if node is None:
            return self
        saved = node._saved
        if saved is not None:
            # (the commonest reads, a saved tensor or an argument of the call, without
            # ``_ctx_value``'s call: its order, a saved name first)
            key = self.key
            entry = saved.get(key, _NOT_SAVED)
            if entry.__class__ is SavedTensor:
                return entry.unpack(node)
            if entry is _NOT_SAVED:
                values = node._values
                if values is not None:
                    entry = values.get(key, _NOT_SAVED)
                    if entry is not _NOT_SAVED:
                        return entry
        return _ctx_value(node, self.key)


_NOT_SAVED = object()


def _give_fields(cls, names):
    """Make ``names`` (a formula's argument and saved names) ``_Field``s of node class
    ``cls``, where the class has no attribute of that name already."""
    for key in names:
        if not key.startswith("_") and not hasattr(cls, key):
            setattr(cls, key, _Field(key))


def _freed_error():
    return TensorRuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
        "you need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.")


class _Handle:
    """A removable hook handle (``handle.remove()``)."""

    _ids = itertools.count()

    def __init__(self, hooks, fn):
        self.id = next(self._ids)
        self._hooks = hooks
        self._fn = fn
        hooks.append(fn)

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


RemovableHandle = _Handle


def _flatten_grads(node, result):
    """Formula results (one per declared input; a list for a list input) -> one per edge,
    each summed to its input's shape and cast to its dtype."""
    formula = node._formula
    meta = node._input_meta
    values = node._values
    if formula is not None and formula.list_input is None and len(result) <= len(meta):
        # The common shape of a result: one gradient per tensor input, most already of the
        # input's shape and dtype (kept as they are: no copy, no cast); a result where all
        # fit is handed on as it is.
        k = 0
        for g in result:
            if g is not None:
                m = meta[k]
                if g.__class__ is not Tensor or m is None or g._shape != m[0] \
                        or g._dtype is not m[1]:
                    break
            k += 1
        else:
            out = result
            if values is None or "__kept__" not in values:
                return out
            return _on_edges(values, out)
        out = list(result[:k])
        for i in range(k, len(result)):
            g = result[i]
            m = meta[i]
            out.append(g if g is None or (g.__class__ is Tensor and m is not None
                                          and g._shape == m[0] and g._dtype is m[1])
                       else _fit(g, m, node, i))
        if values is None or "__kept__" not in values:
            return out
        return _on_edges(values, out)
    out = []
    k = 0
    for i, g in enumerate(result):
        if formula is not None and i == formula.list_input:
            for gi in (g if g is not None else [None] * node._values["__list_len__"]):
                m = meta[k]
                # (``cat``'s pieces already fit, the common case: no call)
                out.append(gi if gi is None or (
                    m is not None and gi.__class__ is Tensor and gi._shape == m[0]
                    and gi._dtype is m[1] and gi._storage.device is m[2])
                    else _fit(gi, m, node, k))
                k += 1
            continue
        if g is None or k >= len(meta):
            out.append(None)
        else:
            m = meta[k]
            # Already fitting (the common case) skips the call.
            out.append(g if m is not None and g.__class__ is Tensor and g._shape == m[0]
                       and g._dtype is m[1] and g._storage.device is m[2]
                       else _fit(g, m, node, k))
        k += 1
    return _on_edges(values, out)


def _on_edges(values, per_input):
    """``per_input`` (one entry per declared input) reduced to the node's edges: a Scalar
    overload's number argument has none (``values["__kept__"]`` lists the inputs that do)."""
    if values is None or "__kept__" not in values:
        return per_input
    return [per_input[i] for i in values["__kept__"] if i < len(per_input)]


def kept_input_meta(node):
    """``node._input_meta`` for its edges only (without the Scalar arguments' entries)."""
    return tuple(_on_edges(node._values, node._input_meta))


def _fit(g, meta, node=None, index=0):
    """Sum a broadcast gradient to the input's shape and cast it to the input's dtype."""
    if meta is None:
        return None
    shape, dtype = meta[0], meta[1]
    if not isinstance(g, Tensor):
        return g
    if g._shape != shape:
        fitted = _fast_sum_to(g, shape)   # (on the arrays in a plain pass, else None)
        if fitted is None:
            fitted = sum_to(g, shape) if broadcastable_to(shape, g._shape) else g
        if fitted._shape != shape:
            raise TensorRuntimeError(
                f"Function {node.name() if node is not None else 'backward'} returned an "
                f"invalid gradient at index {index} - got {list(g._shape)} but expected shape "
                f"compatible with {list(shape)}")
        g = fitted
    if g._dtype is not dtype:
        if g._dtype.category == _dtypes.COMPLEX and dtype.category != _dtypes.COMPLEX:
            g = g.real
        g = g.to(dtype)
    if g._storage.device != meta[2]:
        # A 0-d CPU tensor that joined a CUDA op gets its gradient back on the CPU (PyTorch's
        # engine moves 0-d gradients to their input's device); any other mismatch is a bug.
        if g._shape:
            raise TensorRuntimeError(
                f"Function {node.name() if node is not None else 'backward'} returned an "
                f"invalid gradient at index {index} - expected device {meta[2]} but got "
                f"{g._storage.device}")
        g = g.to(meta[2])
    return g


def _fast_sum_to(g, shape):
    """``formulas._fast.sum_to`` (bound on first use: the formulas package imports this
    module)."""
    global _fast_sum_to
    from .formulas._fast import sum_to

    _fast_sum_to = sum_to
    return sum_to(g, shape)


def sum_to(g, shape):
    """Reduce a gradient of a broadcast result to ``shape`` (PyTorch's ``sum_to_size``)."""
    if g._shape == shape:
        return g
    lead = len(g._shape) - len(shape)
    if lead < 0:
        return g.reshape(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and g._shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


class AccumulateGrad(Node):
    """The node that adds a gradient into a leaf's ``.grad``."""

    __slots__ = ("variable",)

    # What every accumulator has, as class attributes (no per-node work: one is made for
    # each leaf of each recorded graph). The sequence number is PyTorch's UINT64_MAX: the
    # engine runs an accumulator as soon as its gradient is complete.
    _seq = 2 ** 64 - 1
    next_functions = ()
    _formula = None
    _values = None
    _saved = None
    _input_meta = ()
    _num_outputs = 1

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __init__(self, variable):  # noqa: D107
        self._freed = False
        self.variable = variable
        if anomaly.enabled:
            self._stack = "".join(traceback.format_stack()[:-1])


def accumulator_of(leaf):
    ref = leaf._accumulator
    if ref is not None:
        node = ref()
        if node is not None:
            return node
    # No constructor call (one per leaf per recorded op whose graph died: ``a + b`` in a
    # loop makes two).
    node = object.__new__(AccumulateGrad)
    node._freed = False
    node.variable = leaf
    if anomaly.enabled:
        node._stack = "".join(traceback.format_stack()[:-1])
    leaf._accumulator = weakref.ref(node)
    return node


def edge_of(t):
    """The ``(node, output_nr)`` a gradient for ``t`` flows into, or ``(None, 0)``."""
    if not t._requires_grad:
        return _NO_EDGE
    # Only a recorded view can be stale; the property refreshes it.
    fn = t._grad_fn if t._view_version is None else t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._derived_grad:
        # A view requiring grad only through its base has no accumulator (PyTorch's
        # grad_accumulator needs the tensor's own flag): the edge leads nowhere.
        return _NO_EDGE
    return (accumulator_of(t), 0)


# ----------------------------------------------------------------------------- formulas

_CLASSES = {}


def node_class(name):
    cls = _CLASSES.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": ()})
        _CLASSES[name] = cls
    return cls


class Formula:
    """How to differentiate one op.

    ``inputs``: the parameter names of the differentiable tensor arguments, in order (one of
    them may hold a list of tensors, as ``cat``'s ``tensors``). ``save``: names whose values
    the backward needs (``"result"`` is the op's output). ``backward(ctx, grad)`` returns one
    gradient per input name (``None`` for none); ``ctx.<name>`` gives saved tensors and every
    non-tensor argument. ``name``: the node's class name, or ``name(ctx)`` choosing per call.
    """

    def __init__(self, op, backward, inputs, save=(), name=None, multi_grad=False,
                 nondiff_outputs=(), save_for=None, save_by_node=None, no_edge_if_absent=()):
        self.op = op
        # ``composite(op, args, kwargs)``: for an op PyTorch composes from other ops when
        # autograd records (``matmul``), the call made of those ops, each recording its own
        # node (None: this call is the op's own node).
        self.composite = None
        # ``prepare(args)``: the arguments a recorded call goes on with, after steps PyTorch
        # records before the op's own node (``x[key] = v`` views and expands ``v`` to the
        # selection first); None for most ops.
        self.prepare = None
        # ``lean(op, formula, impl, args, kwargs)``: for an op whose general recording path
        # is long, its commonest calls recorded directly (``x[0]`` through ``record_single``,
        # ``out[t] = h`` through ``record_write``); ``DECLINED`` for any other call, which
        # then takes the general path.
        self.lean = None
        # Inputs that get no edge at all when they are absent (None): parameters of another
        # of PyTorch's overloads (``max(x)`` has one edge, not one per ``dim``/``other``).
        # Given as names, or as ``no_edge_if_absent(values)`` choosing per call
        # (``clamp(x, max=1)`` is the Scalar overload); kept as a function of the call's
        # values, or None. Others keep a ``(None, 0)`` edge, as an absent ``Tensor?``
        # argument does in PyTorch.
        if no_edge_if_absent and not callable(no_edge_if_absent):
            names = frozenset(no_edge_if_absent)
            no_edge_if_absent = lambda values: names  # noqa: E731
        self.no_edge_if_absent = no_edge_if_absent or None
        self.backward = backward
        self.inputs = tuple(inputs)
        self.save = frozenset(save)
        # The order PyTorch's generated code saves in (which pack hooks see): the inputs
        # sorted by PyTorch's names (``self`` for ``input``), then the outputs.
        self.save_order = pytorch_save_order(save)
        # Saved name -> the inputs whose gradients read it (see ``unneeded``). A name
        # ``result<i>`` that no input lists is output ``i`` of several, never saved.
        self.save_for = {k: frozenset(v) for k, v in (save_for or {}).items()}
        # Node name -> the only names a node of that name saves (one formula standing for
        # several of PyTorch's nodes: ``max(x)`` saves self and result, ``max(x, 0)`` the
        # indices only).
        self.save_by_node = {k: frozenset(v) for k, v in (save_by_node or {}).items()}
        self.selective = bool(self.save_for or self.save_by_node)
        self._unneeded = {}
        self._plans = {}   # (needs, node class) -> ``save_plan``
        self._number_plans = {}   # (needs of the tensor, node class) -> ``_number_plan``
        if self.save_by_node:
            self.unneeded = self._unneeded_by_node
        self.multi_grad = multi_grad
        # A set of output indices, or ``nondiff_outputs(values)`` choosing them per call
        # (``atleast_1d(a, b)`` hands an already 1-d ``b`` back without history).
        self.nondiff_outputs = nondiff_outputs if callable(nondiff_outputs) else \
            frozenset(nondiff_outputs)
        if name is None:
            name = "".join(p.capitalize() for p in op.name.strip("_").split("_")) + "Backward0"
        # ``name`` may also be ``(option, name_if_none, name_otherwise)``: the node's name
        # depends only on whether that argument is None (``sum(x)`` is SumBackward0,
        # ``sum(x, 0)`` SumBackward1), which the recorder reads from the call's options
        # without binding it (issue 18).
        self.name_option = None
        if name.__class__ is tuple:
            option, if_none, otherwise = name
            self.name_option = option
            self.option_classes = (node_class(otherwise), node_class(if_none))
            name = lambda values: if_none if values.get(option) is None else otherwise  # noqa: E731
        self.name = name
        self.cls = node_class(name) if isinstance(name, str) else None
        impl = op.impl
        sig = inspect.signature(impl)
        self.positional = []
        self.var_positional = None
        self.defaults = {}
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                self.positional.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                self.var_positional = p.name
            if p.default is not p.empty:
                self.defaults[p.name] = p.default
        self.field_names = (frozenset(sig.parameters) | self.save | frozenset(self.inputs)
                            | {"result"})
        self._fielded = set()   # the node classes given those names (``_new_node``)
        for cls in ((self.cls,) if self.cls is not None else
                    self.option_classes if self.name_option is not None else ()):
            _give_fields(cls, self.field_names)
            self._fielded.add(cls)
        if op.kind == "inplace" and self.positional:
            # In-place forms name their first argument ``self``; formulas say ``input``.
            self.self_name = self.positional[0]
        else:
            self.self_name = None
        self.list_input = None
        # Worked out once per op rather than per call (issue 18): the input names where a
        # Python number is PyTorch's Scalar overload (no edge at all, see record_call), and
        # whether binding needs more than pairing names with arguments.
        wraps = op.name.rstrip("_") in _WRAPS_NUMBERS
        self.scalar_names = frozenset(
            n for n in self.inputs if not wraps or (n == "input" and op.name == "sub"))
        # The inputs where PyTorch wraps a number into a saved 0-d tensor (see _split_values).
        self.wrapped = frozenset(self.inputs) - self.scalar_names
        self.plain_bind = self.var_positional is None and self.self_name in (None, "input")
        self.saves_result = "result" in self.save
        # Whether the op may hand its input back, and whether its argument errors come
        # before the stale-view check (see record_call): decided once, not per call.
        self.hands_back = op.name in _MAY_RETURN_INPUT
        self.checks_arguments_first = self.hands_back or op.name in _CHECKS_ARGUMENTS_FIRST
        # Whether a call may take ``_record_plain`` (the common case, issue 18): an
        # out-of-place op whose node class, outputs and argument order need no per-call
        # decision. A call that meets a list of tensors turns it off (``cat``).
        self.plain = (op.kind in ("elementwise", "reduction", "copy", "view")
                      and self.plain_bind and not self.hands_back
                      and not self.checks_arguments_first
                      and not callable(self.nondiff_outputs) and not self.nondiff_outputs)
        # How many arguments a call passes when they are exactly the (one to three) tensor
        # inputs, in order (``_record_tensors`` records such a call); 0 when none can be.
        self.tensor_call = len(self.inputs) if (
            self.plain and 1 <= len(self.inputs) <= 3
            and self.inputs == tuple(self.positional[:len(self.inputs)])
            and self.save <= {*self.inputs, "result"}) else 0
        # An op taking its sizes as ``*args`` (``view``, ``expand``, ``repeat``): a call of
        # one plain tensor and integer sizes records as a one-tensor call does
        # (``_tensor_args``, ``record_result``), its sizes bound as ``bind`` binds them. (Integer
        # sizes never ask ``view`` for a dtype: its output is then differentiable.)
        self.sizes_call = (self.var_positional is not None and self.self_name is None
                           and self.positional == ["input"] and self.inputs == ("input",)
                           and op.kind in ("view", "copy") and not self.hands_back
                           and not self.checks_arguments_first
                           and self.save <= {"input", "result"})
        if self.sizes_call:
            self.tensor_call = 1
        # Per number of positional arguments, a function pairing them with their names
        # (made on first use): a third of ``dict(zip(...))``'s cost on every recorded call.
        self._binders = {}
        # ``save_plan``'s answer when it depends on nothing (no input's need decides what is
        # saved): read without the call on the recording fast path.
        self.fixed_plan = None if self.selective else (
            tuple(k for k in self.save_order if k != "result"), self.saves_result)

    def unneeded(self, needs, node=None):
        """The saved names no gradient of this call reads (``needs``: whether each input
        needs one): PyTorch's generated code saves a value only when a gradient that uses
        it will be computed (``x * 2`` saves nothing; ``x * c`` with a constant ``c`` saves
        ``c`` only), which saved-tensor hooks, memory and in-place checks all see. (A
        formula with ``save_by_node`` answers by ``_unneeded_by_node``, per node too.)"""
        if not self.selective:
            return ()
        skip = self._unneeded.get(needs)
        if skip is None:
            skip = self._unneeded[needs] = frozenset(self._skipped(needs))
        return skip

    def save_plan(self, needs, node):
        """``(names, result)``: the inputs a call with ``needs`` saves, in ``save_order``,
        and whether it saves its result (``unneeded`` applied once per needs and node
        class, not per call)."""
        key = (needs, node.__class__)
        plan = self._plans.get(key)
        if plan is None:
            skip = self.unneeded(needs, node)
            plan = self._plans[key] = (
                tuple(k for k in self.save_order if k != "result" and k not in skip),
                self.saves_result and "result" not in skip)
        return plan

    def _unneeded_by_node(self, needs, node=None):
        """``unneeded`` for a formula standing for several of PyTorch's nodes that save
        different values (``save_by_node``): also what the node's kind does not save."""
        cls = node.__class__ if node is not None else None
        key = (needs, cls)
        skip = self._unneeded.get(key)
        if skip is None:
            skip = self._skipped(needs)
            kept = self.save_by_node.get(cls.__name__) if cls is not None else None
            if kept is not None:
                skip.update(k for k in self.save if k not in kept)
                outputs = [k for k in kept if k.startswith("result") and k != "result"]
                if outputs:
                    # Some of several outputs (``result<i>``): the others are skipped.
                    skip.discard("result")
                    skip.update(k for k in _OUTPUT_NAMES if k not in kept)
            skip = self._unneeded[key] = frozenset(skip)
        return skip

    def _skipped(self, needs):
        wanted = {name for name, need in zip(self.inputs, needs, strict=True) if need}
        return {k for k, users in self.save_for.items() if not users & wanted}

    def _binder(self, count):
        # (More arguments than parameters: the first ones are named, as zip would; the
        # implementation raises its TypeError.)
        names = self.positional[:count]
        pairs = ", ".join(f"{name!r}: args[{i}]" for i, name in enumerate(names))
        binder = self._binders[count] = eval(f"lambda args: {{{pairs}}}")  # noqa: S307
        return binder

    def var_rest(self, args):
        """The arguments a call passes to the ``*args`` parameter: one list or tuple of
        them stands for them all (``meshgrid([a, b])`` is ``meshgrid(a, b)``)."""
        rest = args[len(self.positional):]
        if len(rest) == 1 and (rest[0].__class__ is list or rest[0].__class__ is tuple):
            rest = rest[0]
        return rest

    def bind(self, args, kwargs):
        """The call's arguments by parameter name (``input`` for an in-place op's ``self``)."""
        if self.plain_bind:
            binder = self._binders.get(len(args))
            if binder is None:
                binder = self._binder(len(args))
            values = binder(args)
            if kwargs:
                values.update(kwargs)
            return values
        # strict=False: fewer args than parameters (defaults) or more (*args, taken below).
        values = dict(zip(self.positional, args, strict=False))
        if self.var_positional is not None:
            values[self.var_positional] = self.var_rest(args)
        if kwargs:
            values.update(kwargs)
        if self.self_name is not None and self.self_name != "input":
            values["input"] = values.get(self.self_name)
        return values


def pytorch_save_order(save):
    """``save`` (a formula's saved names) in PyTorch's saving order: its generated code saves
    the inputs sorted by name, then the outputs (``mul``: other, self; ``pow(x, y)``:
    exponent, self, result). Formulas name ``self`` ``input``."""
    names = tuple(dict.fromkeys(save))
    inputs = sorted((n for n in names if n != "result"),
                    key=lambda n: "self" if n == "input" else n)
    return tuple(inputs) + (("result",) if "result" in names else ())


# ``result<i>``: output ``i`` of an op with several (see ``Formula.unneeded``).
_OUTPUT_NAMES = tuple(f"result{i}" for i in range(10))
NONDIFF = "nondifferentiable"
# In-place ops that change only the metadata of their input (in-place views).
METADATA_INPLACE = frozenset(("t_", "transpose_", "swapaxes_", "swapdims_", "unsqueeze_",
                              "squeeze_", "as_strided_"))
_NO_EDGE = (None, 0)
_NUMBERS = frozenset((bool, int, float, complex))
# Ops whose number arguments PyTorch wraps into a 0-d tensor (their schema takes a Tensor):
# the number keeps its ``(None, 0)`` edge, as in ``(b + 1).grad_fn.next_functions``. A number
# as ``sub``'s first operand is a Scalar overload again (``2 - b`` is ``rsub(b, 2)``).
_WRAPS_NUMBERS = frozenset(("add", "sub", "mul", "div", "true_divide", "subtract", "multiply",
                            "divide", "where"))
_EMPTY = frozenset()


def _diff_dtype(t):
    return t._dtype.category >= _dtypes.FLOATING


# Ops that return their input itself when there is nothing to do (PyTorch answers those
# calls before autograd sees them): ``to``/``type``/``double()``... to the same dtype and
# device, ``contiguous``, ``flatten`` of a 1-d tensor, ``conj``/``real``/``resolve_*`` of a
# real tensor, ``atleast_*d``, ``sum_to_size`` to the same size.
_MAY_RETURN_INPUT = frozenset((
    "to", "contiguous", "flatten", "conj", "real", "resolve_conj", "resolve_neg",
    "atleast_1d", "atleast_2d", "atleast_3d", "sum_to_size",
))

# Ops whose argument errors PyTorch raises before autograd sees the call (indexing parses
# its key first: ``t[0]`` on a 0-d ``t`` is an IndexError even for a stale no_grad view).
_CHECKS_ARGUMENTS_FIRST = frozenset(("__getitem__",))


def _indexing_ran_an_op_first(t, key):
    """Whether PyTorch, indexing ``t`` with ``key``, calls a view op (and so takes ``t``'s
    edge) before it meets the item that is out of range: after counting the key's dims, it
    applies the items left to right, an int as ``select`` (range checked just before),
    ``None`` as ``unsqueeze``, a slice as ``slice`` (skipped when it keeps everything)."""
    if key.__class__ is slice:
        return True   # its fast path calls slice() on any tensor, a 0-d one too
    if key.__class__ is not tuple:
        return False
    specified = 0
    for item in key:
        if item is None or item is Ellipsis or isinstance(item, bool):
            continue
        if isinstance(item, Tensor) and item._dtype is _dtypes.bool_:
            specified += max(item.dim(), 1)
        else:
            specified += 1
    if specified > len(t._shape):
        return False   # "too many indices", checked before any item is applied
    shape = list(t._shape)
    dim = 0
    ran = False
    for item in key:
        if item is None:
            ran = True
        elif item is Ellipsis:
            dim = len(shape) - sum(1 for k in key if k is not None and k is not Ellipsis
                                   and not isinstance(k, bool))
        elif isinstance(item, bool):
            ran = True
        elif isinstance(item, int):
            if dim >= len(shape) or not -shape[dim] <= item < shape[dim]:
                return ran
            ran = True
            shape.pop(dim)
        elif item.__class__ is slice:
            if dim >= len(shape):
                return ran
            if item != slice(None) and item != slice(0, None, 1):
                ran = True
            dim += 1
        else:
            return ran   # advanced indices: applied after the basic items
    return ran


def _check_stale_views(args):
    for a in args:
        if isinstance(a, Tensor) and a._creation_meta is not None and \
                a._view_version is not None and a._view_version != a._version_counter.value:
            a.grad_fn  # noqa: B018 (raises, or refreshes)


def _input_edges(formula, values, pre_meta, early_edges, lists=True):
    """The differentiable inputs of a call, flattened: their edges, their metadata, whether
    each needs a gradient, and the positions of numbers that are PyTorch's Scalar
    arguments (or None). ``pre_meta``: an in-place op's ``input`` as it was before the
    write; ``early_edges``: edges taken before the op ran, by id. Without ``lists``, None
    when an input is a list of tensors."""
    scalars = None
    edges = []
    meta = []
    needs = []
    for i, name in enumerate(formula.inputs):
        v = values.get(name)
        if isinstance(v, Tensor) and (pre_meta is None or name != "input"):
            # The common case first: a tensor input (edge_of inlined for one that needs no
            # gradient, which gets no node work at all).
            if early_edges is not None and id(v) in early_edges:
                e = early_edges[id(v)]
                edges.append(e)
                needs.append(e[0] is not None)
            elif v._requires_grad:
                edges.append(_grad_edge(v))
                needs.append(True)
            else:
                edges.append(_NO_EDGE)
                needs.append(False)
            meta.append((v._shape, v._dtype, v._storage.device, v._stride, v._offset))
        elif v.__class__ is list or v.__class__ is tuple:
            if not lists:
                return None
            formula.list_input = i
            values["__list_len__"] = len(v)
            any_needs = False
            for t in v:
                if isinstance(t, Tensor):
                    e = edge_of(t)
                    edges.append(e)
                    meta.append((t._shape, t._dtype, t.device, t._stride, t._offset))
                    any_needs = any_needs or e[0] is not None
                else:
                    edges.append((None, 0))
                    meta.append(None)
            needs.append(any_needs)
        elif isinstance(v, Tensor):
            e = edge_of(v)
            edges.append(e)
            if name == "input" and pre_meta is not None:
                meta.append(pre_meta)
            else:
                meta.append((v._shape, v._dtype, v._storage.device, v._stride, v._offset))
            needs.append(e[0] is not None)
        else:
            if (v.__class__ in _NUMBERS and name in formula.scalar_names) or (
                    v is None and formula.no_edge_if_absent is not None
                    and name in formula.no_edge_if_absent(values)):
                # A number argument is PyTorch's Scalar overload (``b ** 2``, ``2 - b``,
                # ``clamp(b, 0, 1)``), an absent one may belong to another overload: that
                # node has no edge for it at all.
                if scalars is None:
                    scalars = []
                scalars.append(len(edges))
            edges.append(_NO_EDGE)
            meta.append(None)
            needs.append(False)
    return edges, meta, needs, scalars


def _grad_edge(v):
    """The edge of a tensor that requires grad (``edge_of`` for that case): a non-view's
    node, or its leaf's accumulator."""
    fn = v._grad_fn if v._view_version is None else v.grad_fn
    if fn is not None:
        return (fn, v._output_nr)
    if v._derived_grad:
        return _NO_EDGE
    ref = v._accumulator   # (accumulator_of's common case inlined: the leaf's live node)
    node = ref() if ref is not None else None
    return (node if node is not None else accumulator_of(v), 0)


def record_operator(op, run, a, b, result=None):
    """``record_call`` for ``a <op> b`` from a Tensor operator (issue 18): with two tensors,
    ``_record_tensors`` records it without parsing or binding; anything else (a number
    operand) takes ``record_call``. ``result``: the operator computed it already, on the
    arrays of two plain tensors of one layout (only the node is left to make)."""
    formula = op.backward
    if b.__class__ in DENSE_CLASSES and formula.__class__ is Formula \
            and formula.tensor_call == 2 \
            and not anomaly.enabled and a._creation_meta is None and b._creation_meta is None:
        if result is not None:
            return record_result(op, formula, (a, b), result)
        return _record_tensors(op, formula, run, (a, b))
    return record_call(op, run, (a, b), {})


def _tensor_args(formula, args):
    """Whether ``_record_tensors`` may record a call of ``formula``'s op with ``args``: its
    tensor inputs first (no view whose history may need a refresh), then at most as many
    options as the op has parameters, none of them a tensor or a list of tensors."""
    if formula.sizes_call:
        return _sizes_args(args)
    n = formula.tensor_call
    if len(args) < n or len(args) > len(formula.positional):
        return False
    for i, v in enumerate(args):
        if i < n:
            # (plain strided tensors: parameters and buffers too, not sparse or batched)
            if v.__class__ not in DENSE_CLASSES or v._creation_meta is not None:
                return False
        elif isinstance(v, Tensor) or ((v.__class__ is list or v.__class__ is tuple)
                                       and any(isinstance(x, Tensor) for x in v)):
            return False
    return True


def _sizes_args(args):
    """``_tensor_args`` for a ``Formula.sizes_call`` op: a plain strided tensor, then integer
    sizes (or one list or tuple of them, a ``Size`` too)."""
    if not args:
        return False
    v = args[0]
    if v.__class__ not in DENSE_CLASSES or v._creation_meta is not None:
        return False
    rest = args[1:]
    if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
        rest = rest[0]
    for n in rest:
        if n.__class__ is not int:
            return False
    return True


def _run_unrecorded(impl, args):
    """``impl(*args)`` with recording off for the ops it calls (``_run_inside``, with this
    thread's flags set in its own dict of the thread-local: ``record`` was on to get here,
    so grad mode was enabled and ``inside`` off; an op never leaves grad mode switched)."""
    flags = grad_mode.__dict__
    flags["inside"] = True
    flags["record"] = False
    try:
        return impl(*args)
    finally:
        flags["inside"] = False
        flags["record"] = grad_mode.enabled


def _record_tensors(op, formula, impl, args):
    """``_record_plain`` for a call whose arguments are its formula's one or two tensor
    inputs, in order, then options that are no tensors (``x.sum()``, ``x.exp()``, ``a * b``,
    ``x.sum(0, False)``: the commonest calls, issue 18), with no keywords: the same node,
    edges, saved tensors and history, without the general binding and loops over
    parameters. ``_tensor_args`` checked the arguments."""
    result = _run_unrecorded(impl, args)
    return record_result(op, formula, args, result)


_OPERAND_NUMBERS = (int, float)


def _record_number(op, formula, impl, args):
    """``_record_plain`` for a binary op's call with a plain tensor and a Python number
    (``x * 2.0``, ``x ** 2``, ``loss / n``): the same node, edges and saved values, the
    number's edge (or, for PyTorch's Scalar overloads, its absence) known without a pass
    over the inputs."""
    a, b = args
    values = formula.bind(args, None)
    need_a = a._requires_grad
    edges = [_grad_edge(a) if need_a else _NO_EDGE, _NO_EDGE]
    meta = [(a._shape, a._dtype, a._storage.device, a._stride, a._offset), None]
    scalars = [1] if formula.inputs[1] in formula.scalar_names else None
    result = _run_unrecorded(impl, args)
    if result.__class__ is not Tensor or result is a:
        return _finish_plain(op, formula, args, values, edges, meta, [need_a, False],
                             scalars, result)
    # One new tensor (the common case): ``_finish_plain``'s node, stored values and saved
    # tensors, with what to save looked up once per needs and node class (the only tensor
    # is ``a``; every other value is the number or a default, so the same names are saved
    # on every such call).
    node = _new_node(formula, values, edges, meta, (need_a, False), scalars)
    key = (need_a, node.__class__)
    plan = formula._number_plans.get(key)
    if plan is None:
        plan = formula._number_plans[key] = _number_plan(formula, values, node)
    names, saves_result = plan
    stored = {}
    first = formula.inputs[0]
    for k, v in values.items():
        if k != first:
            stored[k] = v
    node._values = stored
    saved = node._saved = {}
    for k in names:   # (the tensor's name, or the wrapped number's marker)
        saved[k] = SavedTensor(a) if k == first else None
    if result._dtype.category >= _dtypes.FLOATING:
        _give_history(result, node, op.kind == "view")
    if saves_result:
        saved["result"] = SavedTensor(result, is_output=True)
    return result


def _number_plan(formula, values, node):
    """``(names, saves result)`` of a ``_record_number`` call: the keys ``_split_values``
    saves for a tensor and a number with these needs and node class, in its order (the
    tensor's name, or ``__wrapped__`` for a number PyTorch wraps in a tensor)."""
    skip = formula.unneeded(values["__needs__"], node)
    # (names only: nothing is saved, so no pack hook sees the tensor here)
    saved, _ = _split_values(values, formula.save_order, None, skip, formula.wrapped,
                             keep=_not_kept)
    return (tuple(saved), formula.saves_result and "result" not in skip)


def _not_kept(tensor):
    return None


def record_single(op, formula, impl, args, values):
    """``record_call`` for a call whose one tensor argument is ``values["input"]``, a plain
    strided tensor that is no view needing a refresh, for an op whose formula saves no
    tensor of such a call and names its node from ``values`` (a basic ``x[key]``, issue 18):
    the same node, edge, stored values and history as the general path, taken as it takes
    them (after the op ran), without its per-call cases."""
    input = values["input"]
    result = _run_unrecorded(impl, args)
    if result is input:   # (an input handed back keeps its own history)
        return result
    need = input._requires_grad
    node = _make_node(formula, formula.cls or _class_for(formula, values),
                      ((input._shape, input._dtype, input._storage.device, input._stride,
                        input._offset),))
    node.next_functions = (_grad_edge(input) if need else _NO_EDGE,)
    stored = {}
    for k, v in values.items():
        if v is not input:
            stored[k] = v
    stored["__needs__"] = (need,)
    node._values = stored
    node._saved = {}
    if result._dtype.category >= _dtypes.FLOATING:
        _give_history(result, node, op.kind == "view")
    return result


def lean_list(op, formula, impl, args, kwargs):
    """A formula's ``lean`` for an op whose one differentiable input is a list of tensors
    and whose other arguments are options (``torch.cat([a, b], dim=1)``,
    ``torch.stack(hs)``: a loop gathering its steps, issue 18), for plain strided tensors
    that are no views needing a refresh and a formula that saves nothing: the general
    path's node (one edge and one ``_input_meta`` entry per tensor, one ``__needs__`` for
    the list), stored values and history, without its per-call cases. ``DECLINED`` for any
    other call: the general path, with its checks and errors."""
    if not args or (kwargs and (len(args) != 1 or kwargs.keys() != {"dim"})) \
            or formula.fixed_plan != ((), False) or formula.cls is None:
        return DECLINED
    tensors = args[0]
    if (tensors.__class__ is not list and tensors.__class__ is not tuple) or not tensors:
        return DECLINED
    for t in tensors:
        if t.__class__ not in DENSE_CLASSES or t._creation_meta is not None:
            return DECLINED
    values = formula.bind(args, kwargs)
    if kwargs:   # (``dim=`` is the second positional parameter of both)
        args = (tensors, kwargs["dim"])
    edges = []
    meta = []
    any_needs = False
    for t in tensors:
        if t._requires_grad:
            edges.append(_grad_edge(t))
            any_needs = True
        else:
            edges.append(_NO_EDGE)
        meta.append((t._shape, t._dtype, t._storage.device, t._stride, t._offset))
    result = _run_unrecorded(impl, args)
    if result.__class__ is not Tensor:
        return result
    for t in tensors:
        if result is t:   # (an input handed back keeps its own history)
            return result
    formula.list_input = 0
    node = _make_node(formula, formula.cls, tuple(meta))
    node.next_functions = tuple(edges)
    # (``_input_edges``, ``_new_node`` and ``_split_values``' entries, in their order: the
    # list itself is not kept)
    first = formula.inputs[0]
    stored = {}
    for k, v in values.items():
        stored[k] = None if k == first else v
    stored["__list_len__"] = len(tensors)
    stored["__needs__"] = (any_needs,)
    node._values = stored
    node._saved = {}
    if result._dtype.category >= _dtypes.FLOATING:
        _give_history(result, node, False)
    return result


def record_write(op, formula, impl, args, values):
    """``record_call`` for an in-place write of the tensor ``values["value"]`` into
    ``values["input"]`` (a basic ``x[key] = v``, issue 18: a loop filling ``out[t]`` step by
    step), for a formula that saves nothing: the target is a plain floating tensor that is no
    view, the value a plain tensor of another storage that is no view needing a refresh. The
    same node, edges (taken after the write, as the general path takes them), stored values
    and history as the general path's in-place case, without its per-call cases."""
    target, value = values["input"], values["value"]
    before = (target._shape, target._dtype, target._storage.device, target._stride,
              target._offset)
    result = _run_unrecorded(impl, args)
    edge = edge_of(target)
    need = value._requires_grad
    node = _make_node(formula, formula.cls or _class_for(formula, values),
                      (before, (value._shape, value._dtype, value._storage.device,
                                value._stride, value._offset)))
    node.next_functions = (edge, _grad_edge(value) if need else _NO_EDGE)
    stored = {}
    for k, v in values.items():
        if v is not target and v is not value:
            stored[k] = v
    stored["__needs__"] = (edge[0] is not None, need)
    node._values = stored
    node._saved = {}
    _set_history(target, node, 0)
    return result


def record_result(op, formula, args, result):
    """The node of a ``_record_tensors`` call that has run (``args`` as there), or of an
    operator whose result was computed on the arrays. The inputs' edges are taken after
    the op ran: it is out of place and the inputs are no views that need a refresh
    (``_creation_meta`` is None), so their history is what it was before. (The node's
    fields are set here, as ``_new_node`` sets them: this is the hottest path of
    recording.)"""
    if result.__class__ is not Tensor:   # (several outputs: ``x.sort()``)
        return _record_results(op, formula, args, result)
    for v in args:
        if result is v:
            return result
    count = formula.tensor_call
    a = args[0]
    need_a = a._requires_grad
    meta_a = (a._shape, a._dtype, a._storage.device, a._stride, a._offset)
    if count == 1:
        edges = (_grad_edge(a) if need_a else _NO_EDGE,)
        meta = (meta_a,)
        needs = (need_a,)
    else:
        b = args[1]
        need_b = b._requires_grad
        meta_b = (b._shape, b._dtype, b._storage.device, b._stride, b._offset)
        if count == 2:
            edges = (_grad_edge(a) if need_a else _NO_EDGE,
                     _grad_edge(b) if need_b else _NO_EDGE)
            meta = (meta_a, meta_b)
            needs = (need_a, need_b)
        else:   # (3: ``bias.addmm(x, w.t())``, a linear layer)
            c = args[2]
            need_c = c._requires_grad
            edges = (_grad_edge(a) if need_a else _NO_EDGE,
                     _grad_edge(b) if need_b else _NO_EDGE,
                     _grad_edge(c) if need_c else _NO_EDGE)
            meta = (meta_a, meta_b,
                    (c._shape, c._dtype, c._storage.device, c._stride, c._offset))
            needs = (need_a, need_b, need_c)
    stored = {}
    if formula.sizes_call:
        stored[formula.var_positional] = formula.var_rest(args)
    elif len(args) > count:
        for name, v in zip(formula.positional[count:], args[count:], strict=False):
            stored[name] = v
    cls = formula.cls
    if cls is None and formula.name_option is not None:   # (``sum``'s: by one option)
        cls = formula.option_classes[stored.get(formula.name_option) is None]
    elif cls is None:   # (a node name that depends on the call: ``reshape``'s)
        values = dict(zip(formula.inputs, args, strict=False))
        values.update(stored)
        cls = _class_for(formula, values)
    node = _make_node(formula, cls, meta)
    node.next_functions = edges
    stored["__needs__"] = needs
    node._values = stored
    saved = node._saved = {}
    plan = formula.fixed_plan
    names, saves_result = plan if plan is not None else formula.save_plan(needs, node)
    for k in names:
        saved[k] = SavedTensor(args[formula.inputs.index(k)])
    if result._dtype.category >= _dtypes.FLOATING:
        _give_history(result, node, op.kind == "view")
    if saves_result:
        saved["result"] = SavedTensor(result, is_output=True)
    return result


def _record_results(op, formula, args, result):
    """``record_result`` for a call with several outputs (``x.sort()``)."""
    count = formula.tensor_call
    edges = [_grad_edge(v) if v._requires_grad else _NO_EDGE for v in args[:count]]
    meta = tuple((v._shape, v._dtype, v._storage.device, v._stride, v._offset)
                 for v in args[:count])
    needs = tuple(v._requires_grad for v in args[:count])
    values = dict(zip(formula.inputs, args[:count], strict=True))
    if formula.sizes_call:
        values[formula.var_positional] = formula.var_rest(args)
    else:
        for name, v in zip(formula.positional[count:], args[count:], strict=False):
            values[name] = v
    return _finish_plain(op, formula, args, values, edges, meta, needs, None, result)


def _record_plain(op, formula, impl, args, kwargs):
    """``record_call`` for a call of a ``Formula.plain`` op (most recorded calls): the same
    node, edges, saved tensors and history, without the in-place, list, hand-back and
    per-call-name cases. Returns ``_NOT_PLAIN`` (nothing done) for a call with a list of
    tensors, which ``record_call`` then takes."""
    values = formula.bind(args, kwargs)   # (plain_bind: names paired with arguments)
    # A stale no_grad view raises before any argument error; the inputs' edges are taken
    # before the op runs, as PyTorch does (an out-of-place op writes none of them).
    _check_stale_views(args)
    found = _input_edges(formula, values, None, None, lists=False)
    if found is None:   # a list of tensors (``cat``): record_call's case
        formula.plain = False
        return _NOT_PLAIN
    edges, meta, needs, scalars = found
    # This thread's flags, written in its own dict of the thread-local (a quarter of the
    # cost of four ``threading.local`` attribute writes).
    flags = grad_mode.__dict__
    flags["inside"] = True
    flags["record"] = False
    try:
        result = impl(*args, **kwargs)
    finally:
        flags["inside"] = False
        flags["record"] = grad_mode.enabled
    return _finish_plain(op, formula, args, values, edges, meta, needs, scalars, result)


def _finish_plain(op, formula, args, values, edges, meta, needs, scalars, result):
    """The node of a plain call that has run: its outputs get their history (an input
    handed back keeps its own) and the formula's values are saved."""
    single = not isinstance(result, tuple)   # (a named tuple too: ``max(x, 0)``)
    if single:
        for a in args:
            if result is a:
                return result
        outputs = (result,)
    else:
        outputs = result
        if outputs and all(any(o is a for a in args) for o in outputs):
            return result
    node = _new_node(formula, values, edges, meta, needs, scalars)
    skip = formula.unneeded(values["__needs__"], node)
    saved, stored = _split_values(values, formula.save_order, None, skip, formula.wrapped)
    node._values = stored
    node._saved = saved
    view = op.kind == "view"
    if single:
        if isinstance(result, Tensor) and result._dtype.category >= _dtypes.FLOATING:
            _give_history(result, node, view)
    else:
        count = 0
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and _diff_dtype(o):
                count = i + 1
                if not any(o is a for a in args):   # (an input handed back keeps its own)
                    _set_history(o, node, i)
                    if view and o._base is not None:
                        o._view_version = o._version_counter.value
        node._num_outputs = max(count, 1)
    if formula.saves_result and "result" not in skip:
        saved["result"] = (SavedTensor(result, is_output=True) if single or len(outputs) == 1
                           else [SavedTensor(o, is_output=True, output_nr=i)
                                 if isinstance(o, Tensor)
                                 and not (skip and f"result{i}" in skip) else None
                                 for i, o in enumerate(outputs)])
    return result


_NOT_PLAIN = object()
# What a formula's ``lean`` answers for a call it leaves to the general path (None is a
# result: ``x[key] = v`` returns it).
DECLINED = object()


def _class_for(formula, values):
    """The node class of a call of ``formula`` whose node name depends on the call
    (``reshape``'s, ``sum``'s), given its arguments by name."""
    cls = node_class(formula.name(values))
    if cls not in formula._fielded:
        _give_fields(cls, formula.field_names)
        formula._fielded.add(cls)
    return cls


def _make_node(formula, cls, meta):
    """A node of class ``cls`` for a call of ``formula`` with inputs ``meta`` (its fields
    set directly: no constructor chain on the hottest path of recording)."""
    node = object.__new__(cls)
    node._freed = False
    node._formula = formula
    node._seq = next(_sequence)
    node._num_outputs = 1
    if anomaly.enabled:
        node._stack = "".join(traceback.format_stack()[:-3])
    node._input_meta = meta
    return node


# (edge count, positions of the Scalar arguments) -> the positions of the edges kept
_KEPT = {}


def _new_node(formula, values, edges, meta, needs, scalars):
    """The node of one recorded call (its fields set directly: no constructor chain on the
    hottest path of recording), with ``_input_edges``' findings."""
    node = _make_node(formula, formula.cls or _class_for(formula, values), tuple(meta))
    values["__needs__"] = tuple(needs)
    if scalars is not None:
        # The formula still returns one gradient per declared input (``__kept__`` picks the
        # edges' ones in ``_flatten_grads``); ``_input_meta`` stays indexed by input.
        key = (len(edges), tuple(scalars))
        kept = _KEPT.get(key)
        if kept is None:
            kept = _KEPT[key] = tuple(i for i in range(key[0]) if i not in scalars)
        values["__kept__"] = kept
        edges = [edges[i] for i in kept]
    node.next_functions = tuple(edges)
    return node


def _split_values(values, save, old_self, skip=(), wrapped=(), keep=SavedTensor):
    """A call's arguments split into the saved tensors the formula names in ``save`` (its
    ``save_order``; ``old_self``, the copy of an in-place op's input from before the write,
    stands for ``input``) and the other values the backward reads (numbers, flags; a list of
    tensors not saved is None). ``keep`` makes a saved tensor's entry (``SavedTensor``, which
    calls a pack hook; a plan that only asks which names are saved passes another)."""
    stored = {}
    for k, v in values.items():
        if isinstance(v, Tensor):
            continue
        if (v.__class__ is list or v.__class__ is tuple) and v and isinstance(v[0], Tensor):
            if k not in save:
                stored[k] = None
        else:
            stored[k] = v
    # Saved in the formula's declared order: PyTorch's generated code saves them in the
    # order its formulas use them (``mul`` saves ``other`` first), which pack hooks see.
    saved = {}
    for k in save:
        if k in skip:
            continue
        v = values.get(k)
        if isinstance(v, Tensor):
            saved[k] = keep(old_self if (k == "input" and old_self is not None) else v)
        elif (v.__class__ is list or v.__class__ is tuple) and v and isinstance(v[0], Tensor):
            saved[k] = [keep(t) if isinstance(t, Tensor) else None for t in v]
        elif k in wrapped and v.__class__ in _NUMBERS:
            # PyTorch saves the 0-d tensor it wrapped the number in (out of pack hooks'
            # sight): the node's saved values are freed by backward all the same, and a
            # second backward through it raises (the formula reads the number itself).
            saved["__wrapped__"] = None
    return saved, stored


def record_call(op, impl, args, kwargs):
    """The slow path of a differentiable op: run it, then record one node for the call."""
    formula = op.backward
    if formula.__class__ is Formula:
        if formula.composite is not None:
            result = formula.composite(op, args, kwargs)
            if result is not None:
                return result
        if formula.prepare is not None:
            args = formula.prepare(args)
        if formula.lean is not None and not anomaly.enabled:
            result = formula.lean(op, formula, impl, args, kwargs)
            if result is not DECLINED:
                return result
    if not kwargs and formula.__class__ is Formula and formula.tensor_call and \
            (formula.plain or formula.sizes_call) and not anomaly.enabled:
        if _tensor_args(formula, args):
            return _record_tensors(op, formula, impl, args)
        if formula.tensor_call == 2 and len(args) == 2 and args[1].__class__ in _OPERAND_NUMBERS \
                and args[0].__class__ in DENSE_CLASSES and args[0]._creation_meta is None:
            return _record_number(op, formula, impl, args)
    if formula.__class__ is Formula and formula.plain and not anomaly.enabled and \
            (not kwargs or kwargs.get("out") is None):
        result = _record_plain(op, formula, impl, args, kwargs)
        if result is not _NOT_PLAIN:
            return result
    if kwargs and kwargs.get("out") is not None:
        raise TensorRuntimeError(
            f"{op.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    if formula is NONDIFF or formula is None:
        result = _run_inside(impl, args, kwargs)
        if formula is None:
            _mark_unimplemented(op, args, kwargs, result)
        return result

    values = formula.bind(args, kwargs)
    # PyTorch gathers its inputs' edges before the op runs: a view whose history cannot be
    # rebuilt (made under no_grad, its base since written) raises first. An op that may
    # hand its input back (``contiguous()`` of a contiguous tensor) runs first: PyTorch
    # returns the input there without touching its history, so nothing is raised.
    hands_back = formula.hands_back
    late = formula.checks_arguments_first
    nondiff = formula.nondiff_outputs
    if nondiff and callable(nondiff):
        nondiff = frozenset(nondiff(values))
    # (A call whose only output is not differentiable, ``view(dtype)``, reads no history.)
    if not late and 0 not in nondiff:
        if op.name == "__setitem__" and any(
                isinstance(a, Tensor) and a._creation_meta is not None for a in args):
            # PyTorch applies a key's items (views, with their checks) before it writes:
            # ``t[0] = v`` on a 0-d no_grad view raises its IndexError, not the view error.
            # (Only a view the check below may refuse makes the order matter: the key is
            # not applied twice otherwise.)
            from .._ops.advanced_indexing import apply_slicing

            try:
                apply_slicing(args[0], args[1])   # (metadata only: nothing is written)
            except IndexError:
                # (unless it first applies an item that takes the view's edge, as
                # ``__getitem__`` does: the view's refusal comes first then)
                if _indexing_ran_an_op_first(*args[:2]):
                    _check_stale_views(args)
                raise
        _check_stale_views(args)
    inplace = op.kind == "inplace"
    old_self = None
    pre_meta = None
    pre_version = None
    early_edges = None
    if inplace:
        target = values["input"]
        if isinstance(target, Tensor):
            # The input as it was (``t_`` changes the shape the gradient must come back to).
            pre_meta = (target._shape, target._dtype, target._storage.device, target._stride,
                        target._offset)
            pre_version = target._version_counter.value
        if isinstance(target, Tensor) and "input" in formula.save:
            # The formula needs ``self`` as it was before the write (mul_ needs it).
            old_self = _clone_raw(target)
            # The copy stands for ``self`` before the write, so it carries self's history
            # (second derivatives through it reach the same nodes).
            fn, nr = edge_of(target)
            if fn is not None and fn.__class__ is not AccumulateGrad:
                old_self._requires_grad = True
                old_self._grad_fn = fn
                old_self._output_nr = nr
        # The view's current history must be valid before the write changes its version.
        if isinstance(target, Tensor) and target._view_version is not None:
            target.grad_fn  # noqa: B018 (refreshes)
        # PyTorch takes its inputs' edges before the op runs: an argument that views the
        # target's storage (``x.add_(x[()])``) must keep the history it had before the
        # write, not one rebuilt from the written base.
        if isinstance(target, Tensor):
            for name in formula.inputs:
                v = values.get(name)
                if v is not target and isinstance(v, Tensor) and v._view_version is not None \
                        and v._storage is target._storage:
                    if early_edges is None:
                        early_edges = {}
                    early_edges[id(v)] = edge_of(v)
    # The op runs with recording off for the ops it calls (``_run_inside``, inlined: this
    # is the hottest path of a recorded call).
    # (The flags set directly, in this thread's own dict of the thread-local: ``record`` was
    # on to get here, so grad mode was enabled and ``inside`` off; an op never leaves grad
    # mode switched.)
    flags = grad_mode.__dict__
    flags["inside"] = True
    flags["record"] = False
    try:
        result = impl(*args, **kwargs)
    except IndexError as exc:
        # Where PyTorch's check runs inside the op's kernel (indices out of range), or its
        # fast path calls the op first (``t[::2]`` on a 0-d ``t``), the inputs' edges were
        # taken before: a stale no_grad view raises that error instead.
        if late and (getattr(exc, "raised_by_kernel", False)
                     or (op.name == "__getitem__" and _indexing_ran_an_op_first(*args[:2]))):
            try:
                _check_stale_views(args)
            except RuntimeError as view_error:
                raise view_error from None
        raise
    finally:
        flags["inside"] = False
        flags["record"] = grad_mode.enabled
    if 0 in nondiff and not isinstance(result, tuple):
        return result   # its only output is not differentiable: nothing to record
    if late:
        if hands_back:
            for a in args:
                if result is a:
                    return result   # no op ran: no node, and the input keeps its history
        _check_stale_views(args)

    # Differentiable inputs, flattened, with their metadata.
    edges, meta, needs, scalars = _input_edges(formula, values, pre_meta, early_edges)

    single = not isinstance(result, tuple)
    outputs = (result,) if single else result
    # Outputs that are an input handed back unchanged (``to`` with nothing to do) keep
    # their own history.
    passed_through = _EMPTY
    if single and not inplace:
        for a in args:
            if result is a:
                return result
    elif not inplace:
        for i, o in enumerate(outputs):
            for a in args:
                if o is a:
                    if passed_through is _EMPTY:
                        passed_through = set()
                    passed_through.add(i)
                    break
        if passed_through and len(passed_through) == len(outputs):
            return result

    node = _new_node(formula, values, edges, meta, needs, scalars)

    skip = formula.unneeded(values["__needs__"], node)
    saved, stored = _split_values(values, formula.save_order, old_self, skip, formula.wrapped)
    if inplace and formula.self_name in saved and formula.self_name != "input":
        saved.pop(formula.self_name)
    if pre_version is not None:
        # self, or a view of it, passed as another argument (``t.mul_(t)``,
        # ``t.mul_(t[0])``) was saved after the write changed it: it stands for the value
        # before the write (PyTorch saves it before the op runs), so it keeps the version
        # from before, and backward raises PyTorch's "modified by an inplace operation"
        # instead of using the new values (it gave a wrong gradient).
        counter = target._version_counter
        for k, sv in saved.items():
            if k != "input" and sv.__class__ is SavedTensor and sv.tensor is not None \
                    and sv.tensor._version_counter is counter:
                sv.version = pre_version
    node._values = stored
    if not single:
        diff_outputs = 0
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and _diff_dtype(o) and i not in nondiff:
                diff_outputs = i + 1
        node._num_outputs = max(diff_outputs, 1)
    node._saved = saved
    if inplace:
        target = values["input"]
        if target._dtype.category < _dtypes.FLOATING:
            # Written in place with a value that requires grad, an integer or bool tensor
            # still has no history (PyTorch sets none on a non-differentiable dtype).
            pass
        elif op.name in METADATA_INPLACE:
            # ``t_``, ``unsqueeze_``...: the data is untouched, only this tensor's view of it
            # changes, so the base keeps its history and this tensor gets the view's node.
            _set_history(target, node, 0)
            if target._base is not None:
                target._view_version = target._version_counter.value
        elif target._base is not None:
            _rebase_view(target, node)
        else:
            _set_history(target, node, 0)
    elif single and not nondiff and isinstance(result, Tensor):
        # One output, not an input (checked above): the common case.
        if result._dtype.category >= _dtypes.FLOATING:
            _give_history(result, node, op.kind == "view")
    else:
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and _diff_dtype(o) and i not in nondiff \
                    and i not in passed_through:
                _set_history(o, node, i)
                if op.kind == "view" and o._base is not None:
                    o._view_version = o._version_counter.value
    if formula.saves_result and "result" not in skip:
        # Saved after the history is set, so that unpacking gives the output back with its
        # node (second derivatives through ``result``).
        if single or len(outputs) == 1:
            saved["result"] = SavedTensor(result, is_output=True)
        else:
            # (``result<i>`` in ``skip``: output ``i`` is not saved.)
            saved["result"] = [SavedTensor(o, is_output=True, output_nr=i)
                               if isinstance(o, Tensor)
                               and not (skip and f"result{i}" in skip) else None
                               for i, o in enumerate(outputs)]
    return result


def _give_history(result, node, view):
    """A call's single (floating) output becomes output 0 of ``node`` (a view also
    remembers the version it was made at)."""
    if result._retains_grad:
        _set_history(result, node, 0)
    else:
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
    if view and result._base is not None:
        result._view_version = result._version_counter.value


def _set_history(t, node, nr):
    if t._retains_grad:
        _drop_retain(t)
    t._requires_grad = True
    t._grad_fn = node
    t._output_nr = nr
    if t._retains_grad:
        # A retained tensor written in place keeps retaining, on its new node only.
        t._retains_grad = False
        t.retain_grad()


def _drop_retain(t):
    old = t._grad_fn
    if old is not None and old._retain:
        old._retain.pop(t._output_nr, None)


def _run_inside(impl, args, kwargs):
    enabled = grad_mode.enabled
    set_modes(enabled, True)
    try:
        return impl(*args, **kwargs)
    finally:
        set_modes(enabled, False)


def _clone_raw(t):
    """A history-free dense copy (the value ``self`` had before an in-place write)."""
    from .._ops.copies import copy_with_strides
    from .._layout import contiguous_strides

    return copy_with_strides(t, contiguous_strides(t._shape))


def _mark_unimplemented(op, args, kwargs, result):
    outputs = result if isinstance(result, tuple) else (result,)
    for o in outputs:
        if isinstance(o, Tensor) and _diff_dtype(o) and not any(o is a for a in args):
            mark_unimplemented(o, op.name)


def mark_unimplemented(t, op_name):
    """Give ``t`` the history of an op PyTorch has no derivative for: a backward through it
    raises "derivative for aten::<op_name> is not implemented"."""
    node = object.__new__(node_class("NotImplemented"))
    Node.__init__(node, None)
    node.next_functions = ()
    node.metadata["op"] = op_name
    _set_history(t, node, 0)


# ----------------------------------------------------------------------------- views

def view_geometry(t):
    return (t._shape, t._stride, t._offset)


def _positions(geom, origin, J, device):
    """Flat storage positions (relative to ``origin``) of every element of a geometry."""
    shape, stride, offset = geom
    extent = 1 + sum((n - 1) * st for n, st in zip(shape, stride, strict=True)) if all(shape) else 0
    ramp = J.arange(offset - origin + max(extent, 1), device=device)
    return ramp.as_strided(shape, stride, offset - origin).reshape(-1)


def _extent(geoms):
    lo = min(g[2] for g in geoms)
    hi = max(g[2] + sum((n - 1) * st for n, st in zip(g[0], g[1], strict=True)) + 1
             if all(g[0]) else g[2] for g in geoms)
    return lo, hi - lo


def _base_from_view_grad(g, base, view, J):
    """Gradient of the base from a gradient of one of its views (as_strided's backward)."""
    origin, size = _extent((base, view))
    buf = J.zeros(size, dtype=g.dtype, device=g.device)
    buf = buf.index_add(0, _positions(view, origin, J, g.device), g.reshape(-1))
    return buf.index_select(0, _positions(base, origin, J, g.device)).reshape(base[0])


class _ViewFromBase(Node):
    """A view whose base was written in place reads its history out of the base."""

    __slots__ = ()

    def apply(self, grads):
        v = self._values
        return [_base_from_view_grad(grads[0], v["base"], v["view"], J)]


class CopySlices(Node):
    """An in-place op wrote into a view: outside the view, the base's gradient passes
    unchanged; inside, it goes through the in-place op's formula (``fn``)."""

    __slots__ = ()

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        if self._freed:
            raise _freed_error()
        g = grads[0]
        v = self._values
        base, view, fn = v["base"], v["view"], v["fn"]
        origin, size = _extent((base, view))
        base_pos = _positions(base, origin, J, g.device)
        view_pos = _positions(view, origin, J, g.device)
        flat = J.zeros(size, dtype=g.dtype, device=g.device).index_put(
            (base_pos,), g.reshape(-1))
        g_view = flat.index_select(0, view_pos).reshape(view[0])
        results = fn.apply([g_view] + [None] * (fn._num_outputs - 1))
        first = results[0] if results else None
        if first is None:
            first = J.zeros(view[0], dtype=g.dtype, device=g.device)
        flat = flat.index_put((view_pos,), first.reshape(-1))
        grad_base = flat.index_select(0, base_pos).reshape(base[0])
        return [grad_base] + list(results[1:])

    def _release(self):
        # PyTorch's CopySlices lets go of its ``fn`` after a backward without
        # retain_graph, whatever ``fn`` saved: a second backward through it raises.
        self._values["fn"]._release()
        self._freed = True


_ViewFromBase.__name__ = _ViewFromBase.__qualname__ = "AsStridedBackward0"

# NOTE: not entered in _CLASSES: a formula may be named like them (as_strided's own
# node is also "AsStridedBackward0") and must get a class that runs the formula.


def _rebase_view(view, fn_node):
    """In-place op ``fn_node`` wrote into ``view``: the base's history becomes CopySlices."""
    base = view._base
    base_edge = edge_of(base) if base._requires_grad else (None, 0)
    node = CopySlices()
    node.next_functions = (base_edge,) + tuple(fn_node.next_functions[1:])
    node._input_meta = ((base._shape, base._dtype, base.device),) + \
        kept_input_meta(fn_node)[1:]
    node._values = {"base": (base._shape, base._stride, base._offset),
                    "view": (view._shape, view._stride, view._offset), "fn": fn_node}
    # (``_set_history``: a base that retains its gradient retains it on CopySlices now,
    # the gradient of its value after the write.)
    _set_history(base, node, 0)
    base._view_version = None
    # The written view now reads its history from the base.
    view._view_version = -1
    refresh_view(view)


def refresh_view(view):
    """Give a view whose base changed a fresh node reading the view out of the base."""
    base = view._base
    if base is None or (not base._requires_grad and view._grad_fn is None):
        view._view_version = None
        return
    # (A view that had a node gets a fresh one even when its base stopped requiring grad,
    # as PyTorch's: its edge then leads nowhere.)
    node = _ViewFromBase()
    node.next_functions = (edge_of(base),)
    node._input_meta = ((base._shape, base._dtype, base.device),)
    node._values = {"base": (base._shape, base._stride, base._offset),
                    "view": (view._shape, view._stride, view._offset)}
    if view._retains_grad:
        _drop_retain(view)
    view._requires_grad = True
    view._grad_fn = node
    view._output_nr = 0
    view._view_version = view._version_counter.value
    if view._retains_grad:
        view._retains_grad = False
        view.retain_grad()


def _install():
    from .. import _tensor

    _dispatch.autograd_call = record_call
    _dispatch.autograd_operator = record_operator
    _tensor._autograd_views.refresh_view = refresh_view
