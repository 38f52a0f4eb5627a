"""``autograd.Function``: user-defined ops with their own backward.

The context object is the backward node itself (as in PyTorch): ``ctx.save_for_backward``
keeps tensors with their version, ``ctx.saved_tensors`` checks it, ``ctx.needs_input_grad``
tells which inputs need a gradient, ``ctx.mark_dirty`` declares inputs written in place.

Forward-mode AD: under a dual level, a Function called with a dual input runs ``forward``
without tangents and then its ``jvp(ctx, *tangents)`` (``ctx.save_for_forward`` keeps what
``jvp`` reads as ``ctx.saved_tensors``), as PyTorch's; a Function without ``jvp`` raises
PyTorch's error (jtensor's own Functions take the generic rule instead:
``forward/functions.py``).
"""

import functools
import traceback
import warnings

from .. import _dtypes
from .._api import ops as J
from .._dispatch import grad_mode, set_modes, transforms
from .._errors import TensorRuntimeError
from .._tensor import Tensor
from . import graph
from .graph import _NO_EDGE, Node, SavedTensor


class FunctionCtx:
    """The methods a custom Function's ``ctx`` offers (mixed into its backward node)."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp`` (read there as ``ctx.saved_tensors``)."""
        self._fw_saved = tensors

    @property
    def saved_tensors(self):
        if self._in_jvp:
            return tuple(self._fw_saved)
        if self._freed:
            raise graph._freed_error()
        saved = self._saved or {}
        return tuple(e.unpack(self) if e is not None else None
                     for e in saved.get("saved_tensors", ()))

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = tensors

    def set_materialize_grads(self, value):
        self._materialize = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """Backward node of a custom Function (``MyFnBackward``)."""

    _to_save = ()
    _dirty = ()
    _non_diff = ()
    _materialize = True
    _function = None
    _fw_saved = ()
    _in_jvp = False

    def __getattr__(self, key):
        if key.startswith("_saved_") or key.startswith("_raw_saved_"):
            # PyTorch's view of what a jtensor Function standing for one of its nodes saved
            # (``NllLossBackward0``...; a user's Function has none).
            return graph._saved_attributes().attribute(self, key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {key!r}")

    @property
    def _raw_saved_tensors(self):
        """The ``SavedTensor``s of ``save_for_backward`` (``register_hooks`` on each): a
        user's Function's node only (jtensor's own stand for PyTorch's C++ nodes)."""
        if _internal(type(self)):
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute '_raw_saved_tensors'")
        if self._freed:
            raise graph._freed_error()
        saved = (self._saved or {}).get("saved_tensors", ())
        return graph._saved_attributes().raw_saved(saved)

    def __dir__(self):
        names = super().__dir__()
        if _internal(type(self)):
            names = [n for n in names if n != "_raw_saved_tensors"]
        return names

    @property
    def needs_input_grad(self):
        return self._needs

    def apply(self, grads):
        if self._freed:
            raise graph._freed_error()
        if self._materialize:
            grads = [J.zeros(m[0], dtype=m[1], device=m[2]) if g is None else g
                     for g, m in zip(grads, self._output_meta, strict=True)]
        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != self._num_args:
            if len(result) > self._num_args and all(r is None for r in result[self._num_args:]):
                result = result[:self._num_args]
            else:
                raise TensorRuntimeError(
                    f"function {type(self).__name__} returned an incorrect number of gradients "
                    f"(expected {self._num_args}, got {len(result)})")
        out = []
        for k, (pos, meta) in enumerate(zip(self._tensor_positions, self._input_meta,
                                            strict=True)):
            g = result[pos]
            if meta is None:   # an absent optional tensor's edge: no gradient goes there
                out.append(None)
                continue
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"{type(self).__name__}.backward returned "
                                f"{type(g).__name__} for input {pos}: expected a Tensor or None")
            if self.next_functions[k][0] is None:
                # An input that needs no gradient: PyTorch checks nothing more of what the
                # backward returned for it (nothing goes there).
                out.append(None)
                continue
            if g is not None and g._shape != meta[0]:
                try:
                    g = graph.sum_to(g, meta[0]) if len(g._shape) >= len(meta[0]) else None
                except Exception:
                    g = None
                if g is None or g._shape != meta[0]:
                    raise TensorRuntimeError(
                        f"Function {type(self).__name__} returned an invalid gradient at index "
                        f"{pos} - got {list(result[pos]._shape)} but expected shape compatible "
                        f"with {list(meta[0])}")
            out.append(g)
        return out


_NODE_CLASSES = {}


def _internal(cls):
    """Whether a Function node class is one of jtensor's own (standing for a PyTorch node)."""
    fn = cls._function
    return fn is not None and fn.__module__.startswith("jtensor.")


def _python_node_repr(node):
    kind = type(node)
    return f"<{kind.__module__}.{kind.__qualname__} object at {id(node):#x}>"


def _node_class(fn_cls):
    cls = _NODE_CLASSES.get(fn_cls)
    if cls is None:
        # ``_node_name`` lets a fused Function show PyTorch's node name (``NllLossBackward0``).
        name = getattr(fn_cls, "_node_name", None) or fn_cls.__name__ + "Backward"
        cls = type(name, (BackwardCFunction,), {})
        if not fn_cls.__module__.startswith("jtensor."):
            # A user's Function: PyTorch's node is a Python class of torch.autograd.function
            # and prints with that path (jtensor's own Functions stand for C++ nodes).
            cls.__module__ = __name__
            cls.__repr__ = _python_node_repr
        cls._function = fn_cls
        _NODE_CLASSES[fn_cls] = cls
    return cls


class Function:
    """Subclass with ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` static methods,
    and call ``MyFn.apply(*args)``. ``backward`` returns one gradient per ``forward``
    argument (None for arguments that are not tensors or need none)."""

    # jtensor's Functions that stand for PyTorch's C++ nodes may list the argument positions
    # that get an edge (``(0, 1, 2)``: input, weight and an optional bias, which has a
    # ``(None, 0)`` edge when absent; ``(0,)``: embedding's weight, not its indices). None: an
    # edge for every tensor argument, as for a user's Function.
    _edge_positions = None

    # ``True``: under ``vmap`` the forward runs per sample with no warning (PyTorch runs it
    # on the batch; the results are the same).
    generate_vmap_rule = False

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass must define backward(ctx, *grads)")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """The newer form (the one ``torch.func`` transforms need): ``forward(*args)`` takes
        no ``ctx``, and this saves what ``backward`` needs from the inputs and the output.
        A Function that defines it gets ``forward(*args)`` then ``setup_context(ctx,
        args, output)``."""
        raise NotImplementedError("setup_context is not implemented.")

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself (MyFn.apply(...)). "
            "Instantiating an autograd function will raise an error in a future version of "
            "PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise TensorRuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method (call "
            f"{type(self).__name__}.apply(...), not {type(self).__name__}()(...)).")

    @staticmethod
    def vmap(info, in_dims, *args):
        """Batching rule under ``vmap``: ``(output, out_dims)`` for ``args`` batched along
        ``in_dims``. Override it, or set ``generate_vmap_rule = True``."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the outputs' tangents from the inputs' (one per ``forward``
        argument: zeros for a tensor without one, None for a non-tensor). Subclasses that
        are used under a dual level define it."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one node for the call (``MyFnBackward``)."""
        if transforms.active:
            # Under a function transform (forward AD): tangents go through ``jvp``.
            from .forward.functions import apply_under_transforms

            return apply_under_transforms(cls, args, kwargs)
        return cls._record(args, kwargs)[0]

    @classmethod
    def _record(cls, args, kwargs):
        """``forward`` and its node: ``(outputs, ctx)``. (Loops, not comprehensions: each
        of those is a frame of its own on every recorded call.)"""
        # One pass over the arguments: which are tensors, which need a gradient.
        positions, needs = [], []
        record = False
        i = 0
        for a in args:
            if isinstance(a, Tensor):
                positions.append(i)
                need = a._requires_grad
                needs.append(need)
                if need:
                    record = True
            else:
                needs.append(False)
            i += 1
        record = record and grad_mode.enabled
        node_cls = _NODE_CLASSES.get(cls)
        node = object.__new__(node_cls if node_cls is not None else _node_class(cls))
        # (Node.__init__'s fields, set here: one call less on every recorded Function)
        node._freed = False
        node._formula = None
        node._seq = next(graph._sequence)
        node._saved = None
        node._values = None
        node._input_meta = ()
        node._num_outputs = 1
        if graph.anomaly.enabled:
            node._stack = "".join(traceback.format_stack()[:-2])
        if cls._edge_positions is not None:
            positions = [i for i in cls._edge_positions if i < len(args)]
        node._tensor_positions = positions
        node._num_args = len(args)
        node._needs = tuple(needs)
        if record:
            edges = []
            for i in positions:
                edges.append(graph._grad_edge(args[i]) if needs[i] else _NO_EDGE)
        previous = (grad_mode.enabled, grad_mode.inside)
        set_modes(False, previous[1])
        try:
            if cls.setup_context is Function.setup_context:
                outputs = cls.forward(node, *args, **kwargs)
            else:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
        finally:
            set_modes(*previous)
        if not record:
            return outputs, node
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node.next_functions = tuple(edges)
        meta = []
        for i in positions:
            a = args[i]
            meta.append((a._shape, a._dtype, a._storage.device) if isinstance(a, Tensor)
                        else None)
        node._input_meta = tuple(meta)
        meta = []
        for o in outs:
            meta.append((o._shape, o._dtype, o._storage.device) if isinstance(o, Tensor)
                        else ((), None, None))
        node._output_meta = tuple(meta)
        node._num_outputs = len(outs)
        dirty = {id(t) for t in node._dirty} if node._dirty else ()
        non_diff = {id(t) for t in node._non_diff} if node._non_diff else ()
        fixed = []
        i = 0
        for o in outs:
            if isinstance(o, Tensor):
                if id(o) not in dirty:
                    for k in positions:
                        if o is args[k]:
                            # Returning an input unchanged: PyTorch gives back a view of it.
                            o = Tensor._make(o._storage, o._shape, o._stride, o._offset,
                                             o._dtype, version=o._version_counter)
                            break
                if id(o) not in non_diff and o._dtype.category >= _dtypes.FLOATING:
                    if id(o) in dirty and o._base is not None:
                        graph._rebase_view(o, node)
                    else:
                        graph._set_history(o, node, i)
            fixed.append(o)
            i += 1
        saved = []
        for t in node._to_save:
            saved.append(_saved(t, fixed))
        node._saved = {"saved_tensors": saved}
        node._to_save = ()
        return (fixed[0] if single else tuple(fixed)), node


def _saved(t, outputs):
    """``t`` (a ``save_for_backward`` argument) as saved: an output of the call is saved as
    one (with its position), anything else as an input; None stays None."""
    if not isinstance(t, Tensor):
        return None
    for k, o in enumerate(outputs):
        if o is t:
            return SavedTensor(t, is_output=True, output_nr=k)
    return SavedTensor(t)


def once_differentiable(backward):
    """Mark a ``backward`` as not itself differentiable: it runs without recording, and a
    double backward through it raises."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        previous = grad_mode.enabled
        grad_mode.enabled = False
        try:
            return backward(ctx, *grads)
        finally:
            grad_mode.enabled = previous

    return wrapper


class InplaceFunction(Function):
    """A ``Function`` whose instances carry an ``inplace`` flag, kept (as in PyTorch) for
    older code that subclasses it (BinaryNet's quantizers): the subclass still defines
    static ``forward``/``backward`` and is called with ``.apply``. New code subclasses
    ``Function``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """PyTorch's legacy base for Functions with instance-method ``forward_extended``/
    ``backward_extended`` over nested inputs, kept importable for older code. Like every
    legacy (non-static) Function it no longer runs: calling an instance raises the legacy
    error; write a ``Function`` with static ``forward``/``backward`` instead."""

    def forward_extended(self, *input):
        """The user's forward of the legacy form."""
        raise NotImplementedError("a NestedIOFunction subclass defines forward_extended")

    def backward_extended(self, *grad_output):
        """The user's backward of the legacy form."""
        raise NotImplementedError("a NestedIOFunction subclass defines backward_extended")
