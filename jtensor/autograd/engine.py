"""The backward engine: iterative, each node run once, in a valid order.

A first pass walks the graph from the roots (with an explicit stack: a chain 100,000 nodes
deep needs no recursion) and counts, for each node, how many edges lead into it. Nodes then
run when all the gradients flowing into them have arrived, highest sequence number first
(the reverse of the order the forward pass created them, as in PyTorch). Gradients for a
tensor used several times are summed in the node's input buffer. Without ``retain_graph``,
each node drops its saved tensors as soon as it has run.
"""

import heapq
import itertools
import sys
from heapq import heappush

import numpy as np


from .. import _dtypes
from .. import _autocast, _dispatch
from .._dispatch import grad_mode, set_modes
from .._device import CPU_BACKEND
from .._errors import TensorRuntimeError, type_name
from .._tensor import _FOLLOWS_DTYPE, Tensor, fresh_tensor, valid_array
from . import graph
from .._layout import contiguous_strides
from .._ops.copies import copy_with_strides
from .._tensor import contiguous_format, preserve_format
from .formulas import _fast
from .grad_mode import no_grad
from .graph import AccumulateGrad, accumulator_of


# Whether ``loss.backward()`` with nobody watching takes ``_run_lean`` (tests turn it off to
# compare it with the general loop).
LEAN = True

# The sparse COO layout is written with autograd (its ops record nodes), so it sits above
# the engine: once it has loaded, ``install_sparse`` hands the engine its tensor class and its
# additions (PyTorch's AccumulateGrad and InputBuffer add sparse gradients). Until then no
# sparse tensor exists and every gradient is dense. Checked only for gradients that are not
# plain ``Tensor``s, so dense accumulation never pays for it.
_Sparse = None
_sparse_kernels = None  # (sparse_add, sparse_add_, add_dense_sparse_) of the sparse layer


def install_sparse(cls, sparse_add, sparse_add_, add_dense_sparse_):
    """Let the engine accumulate sparse gradients: ``cls`` is the sparse COO tensor class,
    the functions are the sparse layer's ``t + alpha * src``, in-place ``t += alpha * src``
    (sparse ``src``) and in-place ``dense += alpha * sparse``."""
    global _Sparse, _sparse_kernels
    _Sparse = cls
    _sparse_kernels = (sparse_add, sparse_add_, add_dense_sparse_)


def _sparse_in(a, b):
    """Whether ``a`` or ``b`` is a sparse COO tensor."""
    return _Sparse is not None and (a.__class__ is _Sparse or b.__class__ is _Sparse)


def _make_grads(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs, strict=True)):
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise TensorRuntimeError(
                        "grad can be implicitly created only for scalar outputs (output "
                        f"{i} has shape {list(out._shape)}: pass gradient=, a tensor of that "
                        "shape, e.g. torch.ones_like(output))")
                if out._dtype.category < _dtypes.FLOATING:
                    raise TensorRuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got "
                        f"{out._dtype}")
                g = _implicit_one(out)
        elif isinstance(g, Tensor):
            if g._shape != out._shape:
                from .._size import Size as _Size

                raise TensorRuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"{_Size(g._shape)} and output[{i}] has a shape of {_Size(out._shape)}.")
            if (g._dtype.category == _dtypes.COMPLEX) != (out._dtype.category == _dtypes.COMPLEX):
                raise TensorRuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have the "
                    f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g._dtype} and output[{i}] has a dtype of {out._dtype}.")
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type_name(g)}")
        grads.append(g)
    return grads


def _root_edge(t, i):
    fn = t.grad_fn if t._requires_grad else None
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad or t._derived_grad:
        # (a view requiring grad only through its base has no node to start from either)
        raise TensorRuntimeError(
            f"element {i} of tensors does not require grad and does not have a grad_fn")
    return (accumulator_of(t), 0)


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True):
    """Shared by ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad``.

    With ``accumulate`` the leaves' ``.grad`` fields receive the gradients (only those in
    ``inputs`` when given); otherwise the gradients of ``inputs`` are returned. Runs with
    autocast off, as PyTorch's engine (the formulas call public ops, which must not be cast).
    """
    if _autocast.active and _autocast.state.depth:
        with _autocast.suspended():
            return _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                                 allow_unused, accumulate)
    return _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                         allow_unused, accumulate)


def loss_backward(t, retain_graph):
    """``t.backward()`` with no arguments, the call of every training step: for a 0-d
    float32/float64 output of a node (a loss), with nobody watching, the implicit gradient
    1 and ``_run_lean`` straight away; ``run_backward`` (its checks and errors) for
    anything else."""
    fn = t._grad_fn
    if fn is not None and LEAN and not t._shape and t._view_version is None and t._requires_grad \
            and t._dtype in _LOSS_DTYPES and not (_autocast.active and _autocast.state.depth) \
            and not _dispatch.transforms.active and _dispatch.event_hook is None \
            and _dispatch.profile_hook is None and not graph.anomaly.enabled:
        return _run_lean(fn, t._output_nr, _implicit_one(t), bool(retain_graph))
    return run_backward((t,), [None], retain_graph, False)


def _implicit_one(out):
    """The implicit gradient 1 of a one-element output (no op call: PyTorch's engine makes
    it silently), of its shape, dtype and device."""
    storage = out._storage
    backend = storage._backend
    one = backend.xp.array(1, dtype=out._dtype.numpy) if not out._shape else \
        backend.xp.ones(out._shape, dtype=out._dtype.numpy)
    return fresh_tensor(Tensor, one, out._shape, out._dtype, storage.device, backend)


_LOSS_DTYPES = (_dtypes.float32, _dtypes.float64)


def _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs, allow_unused,
                  accumulate):
    if retain_graph is None:
        retain_graph = create_graph
    if _dispatch.event_hook is not None:
        _dispatch.emit("backward_call", retain_graph=retain_graph, create_graph=create_graph)
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    grads = _make_grads(outputs, grad_outputs)
    if LEAN and inputs is None and len(roots) == 1 and not create_graph and accumulate \
            and not _dispatch.transforms.active and _dispatch.event_hook is None \
            and _dispatch.profile_hook is None and not graph.anomaly.enabled:
        # The common call (``loss.backward()``): one root, every leaf accumulates, nothing
        # watches. The same order, gradients and hooks as below, in less Python.
        root, nr = roots[0]
        roots = outputs = None
        return _run_lean(root, nr, grads.pop(), retain_graph)

    # Capture points: where the gradient of each requested input is read.
    captures = {}
    if inputs is not None:
        for k, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"inputs to grad must be Tensors, got {type_name(t)}")
            if not t._requires_grad:
                raise TensorRuntimeError(
                    f"One of the differentiated Tensors (input {k}) does not require grad")
            fn = t.grad_fn
            key = (fn, t._output_nr) if fn is not None else (accumulator_of(t), 0)
            captures.setdefault(key, []).append(k)

    # Pass 1: dependencies, by an explicit stack.
    dependencies = {}
    seen = set()
    # Discovery order: only ``inputs=`` uses it (to find the nodes that matter).
    order = [] if inputs is not None else None
    stack = [e[0] for e in roots]
    get = dependencies.get
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if order is not None:
            order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                dependencies[nxt] = get(nxt, 0) + 1
                if nxt not in seen:
                    stack.append(nxt)

    # Which nodes must run: with ``inputs``, only those leading to a capture point.
    needed = None
    if inputs is not None:
        capture_nodes = {key[0] for key in captures}
        needed = set()
        # Propagate to a fixed point over reversed discovery order (one pass for a chain).
        changed = True
        while changed:
            changed = False
            for node in reversed(order):
                if node in needed:
                    continue
                if node in capture_nodes or any(n in needed for n, _ in node.next_functions
                                                if n is not None):
                    needed.add(node)
                    changed = True

    results = [None] * (len(inputs) if inputs is not None else 0)
    buffers = {}
    for (node, nr), g in zip(roots, grads, strict=True):
        _add_to_buffer(buffers, node, nr, g)

    previous_mode = (grad_mode.enabled, grad_mode.inside)
    set_modes(bool(create_graph), False)
    heappush, heappop = heapq.heappush, heapq.heappop
    plain = not create_graph and not _dispatch.transforms.active   # (see _fast.plain)
    try:
        ready = []
        # Ties (every accumulator has PyTorch's UINT64_MAX sequence number) go first come,
        # first served: the order, and so which gradient a leaf may keep without a copy, is
        # the same run after run.
        pushed = itertools.count()
        queued = set()
        for node, _ in roots:
            if node not in dependencies and node not in queued:
                queued.add(node)
                heappush(ready, (-node._seq, next(pushed), node))
        # (A trace hook is installed between cells, never during a backward pass.)
        events = _dispatch.event_hook is not None
        timed = _dispatch.profile_hook   # (None unless a profiler records: it times nodes)
        while ready:
            node = heappop(ready)[2]
            out_grads = ()  # stays empty for a node that does not run
            buf = buffers.pop(node, None)
            # A node runs when a gradient reached it (else it is skipped, as in PyTorch)
            # and, with ``inputs=``, when it leads to one of them.
            if buf is not None and (buf[0] is not None or any(x is not None for x in buf)) \
                    and (needed is None or node in needed):
                if node._tensor_hooks is not None or node._retain or node._pre_hooks:
                    buf = _call_pre_hooks(node, buf)
                if captures:
                    for k_nr, ks in _captures_of(captures, node, len(buf)):
                        for k in ks:
                            results[k] = buf[k_nr]
                if node.__class__ is AccumulateGrad:
                    # (a leaf that stopped requiring grad after the graph was made, by
                    # requires_grad_(False) or detach_(), gets nothing: PyTorch's check)
                    variable = node.variable
                    if accumulate and (inputs is None or (node, 0) in captures) \
                            and _still_a_leaf(variable) and variable._requires_grad:
                        if timed is None:
                            _accumulate(variable, buf[0], create_graph)
                        else:
                            timed(node, _accumulate, (variable, buf[0], create_graph), {})
                        if events:
                            _dispatch.emit("backward", node=node, grads=(variable._grad,))
                    variable = None
                else:
                    out_grads = _execute(node, buf, create_graph, retain_graph) \
                        if timed is None else \
                        timed(node, _execute, (node, buf, create_graph, retain_graph), {})
                    if events:
                        _dispatch.emit("backward", node=node, grads=tuple(out_grads))
            buf = None  # (no reference of ours may keep a gradient alive)
            _hand_on(node, out_grads, buffers, dependencies, ready, pushed, plain)
            # Drop our reference, so that AccumulateGrad can keep an unshared gradient
            # instead of copying it.
            out_grads = None
    finally:
        set_modes(*previous_mode)

    if inputs is not None and not accumulate:
        for k, r in enumerate(results):
            if r is None and not allow_unused:
                raise TensorRuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
        return tuple(results)
    return None


def _run_lean(root, nr, grad, retain_graph):
    """``_run_backward`` for one root, no ``inputs``, no ``create_graph`` and nobody watching
    (no trace, profiler, transform or anomaly mode): the same nodes in the same order, with
    the same hooks, gradients and releases."""
    # Dependencies: a node is pushed when its first incoming edge is found (the root can
    # not be reached from itself), so no ``seen`` set is needed.
    dependencies = {}
    get = dependencies.get
    stack = [root]
    push, pop = stack.append, stack.pop
    while stack:
        for nxt, _ in pop().next_functions:
            if nxt is not None:
                count = get(nxt)
                if count is None:
                    dependencies[nxt] = 1
                    push(nxt)
                else:
                    dependencies[nxt] = count + 1
    buf = [None] * max(root._num_outputs, nr + 1)
    buf[nr] = grad
    grad = None
    buffers = {root: buf}
    buf = None
    previous_mode = (grad_mode.enabled, grad_mode.inside)
    set_modes(False, False)
    heappop = heapq.heappop
    try:
        pushed = itertools.count()
        ready = [(-root._seq, next(pushed), root)]
        while ready:
            node = heappop(ready)[2]
            out_grads = ()
            buf = buffers.pop(node, None)
            if buf is not None and (buf[0] is not None or any(x is not None for x in buf)):
                if node._tensor_hooks is not None or node._retain or node._pre_hooks:
                    buf = _call_pre_hooks(node, buf)
                if node.__class__ is AccumulateGrad:
                    variable = node.variable
                    if (variable._grad_fn is None or _still_a_leaf(variable)) \
                            and variable._requires_grad:
                        _accumulate(variable, buf[0], False)
                    variable = None
                elif node._hooks or node.__class__.__name__ == "NotImplemented":
                    out_grads = _execute(node, buf, False, retain_graph)
                else:
                    out_grads = node.apply(buf)
                    if not retain_graph:
                        node._release()
            buf = None
            _hand_on(node, out_grads, buffers, dependencies, ready, pushed, True)
            out_grads = None
    finally:
        set_modes(*previous_mode)


def _hand_on(node, out_grads, buffers, dependencies, ready, pushed, plain):
    """One pass over ``node``'s edges: each gradient goes into its next node's buffer, and
    each edge counts as done (also for a node that did not run); a next node whose edges
    are all done becomes ready. A node may return fewer gradients than it has edges (the
    missing trailing ones are None), or more (extra Nones)."""
    nexts = node.next_functions
    if len(out_grads) != len(nexts):
        out_grads = (tuple(out_grads) + (None,) * len(nexts))[:len(nexts)]
    i = 0
    for nxt, nr in nexts:
        g = out_grads[i]
        i += 1
        if nxt is None:
            continue
        if g is not None:
            nbuf = buffers.get(nxt)
            if nbuf is None:
                if nr == 0 and nxt._num_outputs == 1:
                    buffers[nxt] = [g]
                else:
                    count = nxt._num_outputs
                    nbuf = buffers[nxt] = [None] * (count if count > nr else nr + 1)
                    nbuf[nr] = g
            else:
                _buffer_add(nbuf, nr, g, plain)
        left = dependencies[nxt] - 1
        if left:
            dependencies[nxt] = left
        else:
            del dependencies[nxt]
            heappush(ready, (-nxt._seq, next(pushed), nxt))


def _buffer_add(nbuf, nr, g, plain):
    """A gradient ``g`` for output ``nr`` of a node whose buffer ``nbuf`` already holds
    some: stored, or summed with the one there (sparse, on the arrays, or recorded)."""
    if nr >= len(nbuf):
        nbuf.extend([None] * (nr + 1 - len(nbuf)))
    old = nbuf[nr]
    if old is None:
        nbuf[nr] = g
    elif (old.__class__ is not Tensor or g.__class__ is not Tensor) and _sparse_in(old, g):
        nbuf[nr] = _buffer_add_sparse(old, g)
    elif plain and old._dtype is g._dtype and old._shape == g._shape:
        if old is not g and sys.getrefcount(old) <= 3 and _summable_in_place(old, g):
            # Only this buffer holds the running sum (PyTorch's InputBuffer adds in place
            # then too): ``old += g`` on the arrays, the same sum without a new array.
            target = old._array()
            np.add(target, g._array(), out=target)
            old._version_counter.value += 1   # (PyTorch's ``add_``: a leaf's .grad shows it)
        else:
            nbuf[nr] = _fast.add(old, g)
    else:
        nbuf[nr] = old + g


def _summable_in_place(old, g):
    """Whether a gradient buffer's running sum ``old`` (held by nothing but the buffer) may
    take ``g`` in place: a plain CPU tensor that owns its whole storage (no view of it, no
    other tensor on it: the storage's references are ``old``'s and the call's) as one
    writable C-contiguous array, ``g`` a CPU tensor too."""
    if old.__class__ is not Tensor or g.__class__ is not Tensor or old._base is not None \
            or old._offset:
        return False
    storage = old._storage
    # (references to the storage: ``old``'s, this frame's and the call's argument)
    if storage._backend is not CPU_BACKEND or g._storage._backend is not CPU_BACKEND \
            or storage is g._storage or sys.getrefcount(storage) > 3:
        return False
    target = old._array()
    flags = target.flags
    # (the storage's size read off its array: a fresh result's byte view is not made yet)
    whole = storage._source if storage._bytes is None else storage._bytes
    return flags.c_contiguous and flags.writeable and target.nbytes == whole.nbytes


def _captures_of(captures, node, n):
    if not captures:
        return ()
    found = []
    for nr in range(max(n, 1)):
        ks = captures.get((node, nr))
        if ks:
            found.append((nr, ks))
    return found


def _add_to_buffer(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = [None] * max(node._num_outputs, nr + 1)
        buffers[node] = buf
    elif nr >= len(buf):
        buf.extend([None] * (nr + 1 - len(buf)))
    old = buf[nr]
    if old is not None and _sparse_in(old, g):
        buf[nr] = _buffer_add_sparse(old, g)
    else:
        buf[nr] = g if old is None else old + g


def _call_pre_hooks(node, buf):
    tensor_hooks = node._tensor_hooks
    if tensor_hooks:
        for nr, hooks in tensor_hooks.items():
            if nr < len(buf) and buf[nr] is not None:
                for hook in list(hooks):
                    new = hook(buf[nr])
                    if new is not None:
                        _check_hook_result(hook, buf[nr], new)
                        buf[nr] = new
    if node._retain:
        for nr, ref in list(node._retain.items()):
            t = ref()
            if t is not None and nr < len(buf) and buf[nr] is not None:
                g = buf[nr]
                if t._grad is None:
                    # PyTorch keeps a contiguous copy (a sparse gradient as it is)
                    fmt = preserve_format if g.is_sparse else contiguous_format
                    t._grad = g.detach().clone(memory_format=fmt) if not grad_mode.enabled \
                        else g.clone(memory_format=fmt)
                else:
                    t._grad = t._grad + g
    if node._pre_hooks:
        for hook in list(node._pre_hooks):
            new = hook(tuple(buf))
            if new is not None:
                buf = list(new)
    return buf


def _check_hook_result(hook, old, new):
    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(new, Tensor):
        raise TypeError(f"hook '{name}' returned {type(new).__name__}: a hook must return a "
                        "Tensor or None")
    if new._shape != old._shape:
        raise TensorRuntimeError(
            f"hook '{name}' has changed the size of value (it got a gradient of shape "
            f"{list(old._shape)} and returned one of shape {list(new._shape)})")


def _execute(node, buf, create_graph, retain_graph):
    if node.__class__.__name__ == "NotImplemented":
        op = node._formula.op.name if node._formula is not None else node.metadata.get("op")
        raise TensorRuntimeError(f"derivative for aten::{op} is not implemented")
    out = node.apply(buf)
    if graph.anomaly.enabled and graph.anomaly.check_nan:
        _check_nan(node, out)
    if node._hooks:
        for hook in list(node._hooks):
            new = hook(tuple(out), tuple(buf))
            if new is not None:
                out = list(new)
    if not retain_graph:
        node._release()
    return out


def _check_nan(node, out):
    for i, g in enumerate(out):
        if isinstance(g, Tensor) and g._dtype.category >= _dtypes.FLOATING:
            if bool(g.isnan().any()):
                where = ("\nThe forward call that created it:\n" + node._stack
                         if node._stack else "")
                raise TensorRuntimeError(
                    f"Function '{node.name()}' returned nan values in its {i}th output."
                    + where)


def _still_a_leaf(variable):
    """PyTorch's AccumulateGrad check: the leaf this accumulator was made for must not have
    gained a history since (``x.requires_grad_(False); x.add_(y)`` with a ``y`` made from
    ``x``), or its gradient would go nowhere."""
    if variable._grad_fn is not None:
        raise TensorRuntimeError(
            "leaf variable has been moved into the graph interior: a tensor that was a leaf "
            f"when the graph was built ({variable.type()} {list(variable._shape)}) has since "
            "been written in place by a recorded op, so its gradient cannot be accumulated. "
            "Write into a clone() instead.")
    return True


def _accumulate(leaf, g, create_graph):
    """``leaf.grad += g``, PyTorch's way: the first gradient is copied into the leaf's
    layout (so it never aliases another tensor), later ones are added in place."""
    hooks = leaf._hooks
    if hooks:
        for hook in list(hooks):
            new = hook(g)
            if new is not None:
                _check_hook_result(hook, g, new)
                g = new
    wanted = leaf._dtype if leaf._grad_dtype is _FOLLOWS_DTYPE else leaf._grad_dtype
    if wanted is not None and g._dtype is not wanted:
        g = g.to(wanted)
    old = leaf._grad
    if (g.__class__ is not Tensor or (old.__class__ is not Tensor and old is not None)) \
            and _sparse_in(old, g):
        _accumulate_sparse(leaf, old, g, create_graph)
    elif old is None:
        if create_graph:
            # PyTorch copies the first gradient into the leaf's layout, recorded
            # (CopyBackwards), so ``.grad`` never is the tensor the graph produced.
            if leaf.is_non_overlapping_and_dense():
                leaf._grad = leaf.new_empty_strided(leaf._shape, leaf._stride).copy_(g)
            else:
                leaf._grad = g.clone(memory_format=contiguous_format)
        elif (not g._requires_grad and g._offset == 0
              and (g._stride == leaf._stride or _obeys_layout(g, leaf))
              and sys.getrefcount(g) <= 3 and _unshared_storage(g)):
            # Nothing else can see this freshly computed gradient: keep it, as PyTorch
            # steals an unshared gradient instead of copying it.
            leaf._grad = g if g._base is None else \
                Tensor._make(g._storage, g._shape, g._stride, 0, g._dtype, array=valid_array(g),
                             contiguous=g._contiguous)
        elif g._stride != leaf._stride and not g._requires_grad and _obeys_layout(g, leaf) \
                and sys.getrefcount(g) <= 3:
            # PyTorch would keep this gradient (it counts the references to the tensor, not
            # to its storage, which the caller's gradient shares here): a copy with its
            # strides, which differ from the leaf's on size-1 dims only.
            leaf._grad = copy_with_strides(g, g._stride)
        else:
            if leaf._stride == contiguous_strides(leaf._shape):
                leaf._grad = _fast.dense_copy(g)
            else:
                # PyTorch's clone_obey_contract: the leaf's own strides when they are dense
                # (a size-1 or size-0 dim's stride included), else row-major.
                g = g.detach() if g._requires_grad else g
                leaf._grad = copy_with_strides(
                    g, leaf._stride if leaf.is_non_overlapping_and_dense()
                    else contiguous_strides(leaf._shape))
            # (PyTorch's clone is an empty tensor and a copy_ into it: version 1)
            leaf._grad._version_counter.value = 1
    elif create_graph:
        leaf._grad = old + g
    elif old._shape == g._shape and old._dtype is g._dtype and not old._requires_grad:
        # ``.grad += g`` in place, on the arrays (no history, no op bookkeeping).
        target = old._array()
        old._storage._backend.xp.add(target, g._array(), out=target)
        old._version_counter.value += 1
    else:
        with no_grad():
            old.add_(g)
    if "_post_accumulate_hooks" in leaf.__dict__:
        _post_accumulate(leaf)


def _obeys_layout(g, leaf):
    """PyTorch's ``obeys_layout_contract``: whether a new gradient may become ``leaf.grad``
    as it is. For a dense leaf, the strides must match on every dim of size other than 1
    (and no size-1 dim may have stride 0, the mark of an expanded view); for any other leaf,
    the gradient must be row-major."""
    if g._stride == leaf._stride:
        return True
    if leaf.is_non_overlapping_and_dense():
        for size, mine, theirs in zip(g._shape, g._stride, leaf._stride, strict=True):
            if mine != theirs if size != 1 else mine == 0:
                return False
        return True
    return g.is_contiguous()


def _unshared_storage(g):
    """Whether only ``g`` (and its base, when it is a view that alone keeps the base) can
    reach ``g``'s storage: ``weight.grad`` from ``linear`` is the transpose of a fresh
    product, and keeping that view is as safe as keeping the product (issue 18)."""
    base = g._base
    if base is None:
        return sys.getrefcount(g._storage) <= 2
    # The base held only by this view (and ``base`` here, and the call's argument), itself
    # no view, on the same storage, which nothing else holds (the view, the base and the
    # call's argument).
    return (base._base is None and base._storage is g._storage
            and sys.getrefcount(base) <= 3 and sys.getrefcount(g._storage) <= 3)


def _accumulate_sparse(leaf, old, g, create_graph):
    """PyTorch's AccumulateGrad when the new or the stored gradient is sparse COO."""
    if old is None:
        if (not create_graph and not g._requires_grad
                and g._sp_values.is_contiguous() and g._sp_indices.is_contiguous()):
            # A shallow copy sharing indices and values (PyTorch's "steal" of a sparse
            # gradient: rebuilt unchecked, so coalesced only when nnz <= 1).
            leaf._grad = _Sparse._create(g._sp_indices, g._sp_values, g._shape, g._nnz() <= 1)
        else:
            # A copy (values made contiguous), keeping the coalesced flag.
            leaf._grad = _Sparse._create(g._sp_indices.clone(), g._sp_values.clone(),
                                         g._shape, g._sp_coalesced)
    elif create_graph or old._requires_grad:
        leaf._grad = g + old if old.__class__ is _Sparse and g.__class__ is not _Sparse \
            else sparse_add(old, g)
    elif old.__class__ is _Sparse and g.__class__ is not _Sparse:
        leaf._grad = g + old  # sparse += dense is not in place: a new dense gradient
    elif old.__class__ is not _Sparse:
        dense_add_sparse_(old, g)  # dense += sparse, in place
    else:
        sparse_add_(old, g)  # sparse += sparse, in place (same tensor object)


def _buffer_add_sparse(old, g):
    """Two gradients for one input, one of them sparse (PyTorch's InputBuffer order: the
    new one first when both are sparse; a dense sum when either is dense)."""
    if grad_mode.enabled:
        return g + old if old.__class__ is _Sparse and g.__class__ is not _Sparse \
            else sparse_add(old, g)
    if old.__class__ is _Sparse:
        return sparse_add(g, old) if g.__class__ is _Sparse else g + old
    return old + g


def sparse_add(t, src, alpha=1):
    """``t + alpha * src`` with a sparse COO operand: the sparse layer's ``sparse_add`` (the
    one implementation of PyTorch's sparse addition kernels)."""
    return _sparse_kernels[0](t, src, alpha)


def sparse_add_(t, src, alpha=1):
    """In-place ``t += alpha * src`` with a sparse COO ``src`` (the sparse layer's
    ``sparse_add_``; ``t`` keeps its identity and dtype)."""
    return _sparse_kernels[1](t, src, alpha)


def dense_add_sparse_(dense, sparse, alpha=1):
    """In-place ``dense += alpha * sparse`` outside autograd (gradient accumulation): the
    stored entries are added one after the other, as PyTorch's CPU kernel."""
    with no_grad():
        return _sparse_kernels[2](dense, sparse, alpha)


def _post_accumulate(leaf):
    hooks = leaf.__dict__.get("_post_accumulate_hooks")
    if hooks:
        for hook in list(hooks):
            hook(leaf)
