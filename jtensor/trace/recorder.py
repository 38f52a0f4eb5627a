"""The recorder: the machinery that fills a ``Trace`` while code runs (one event per op).

A ``Recorder`` installs itself as ``jtensor._dispatch.trace_hook`` (every op ends in
``finish``, which calls it once) and ``event_hook`` (syncs, transfers, kernel launches,
backward nodes and the few notices the pitfall analysis needs). Only one recorder is active at
a time, and only the thread that started it is recorded (other threads' events are counted,
not kept).

The boundary with ``jtensor.trace.result``: the recorder writes, the ``Trace`` reads. The
recorder appends to the trace's log (``Event`` objects, or raw records laid out flat, see
``_RAW``) and its list of weak references (``_refs``), and moves its counters (``_count``,
``dropped``, ``other_threads``, ``site_counts``) and ``error``/``dead_nodes``; everything it
needs only while recording (labels by ``id()``, the pending event, saved-tensor records,
the recording thread) stays here. The trace turns the log into events when read.

Memory: snapshots hold weak references; storages, tensors and autograd nodes are identified
by labels kept in dictionaries keyed by ``id()`` and checked through a weak reference (an id
can be reused once its object is gone). Past ``max_ops`` recorded events, nothing more is kept
but counters, so a loop of a million ops stays within a fixed bound.
"""

import os
import sys
import threading
from threading import get_ident
import weakref
from sys import _getframe

from .. import _dispatch
from .._dispatch import grad_mode
from .._tensor import Tensor
from .events import Event, _materialize

_TRANSFORMS = _dispatch.transforms


def transform_label(processing):
    """What a function transform ran an op for, as the trace prints it: ``vmap level 1:
    batch size 4, for mul`` (nested transforms in the order they took the call, the
    innermost first, joined by `` > ``)."""
    parts = []
    for level, op in processing:
        label = getattr(level, "trace_label", None)
        parts.append(label(op) if label is not None
                     else f"{repr(level).strip('<>')}, for {op.name}")
    return " > ".join(parts)

__all__ = ["Recorder", "active"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_inside_cache = {}
_state_lock = threading.Lock()
_active = None


def active():
    """The trace recording now, or None."""
    return _active


def _is_inside(code):
    """Whether a code object belongs to jtensor itself (its frames are skipped when looking
    for the user's line). Cached by file name: hashing a code object is not cheap."""
    name = code.co_filename
    inside = _inside_cache.get(name)
    if inside is None:
        inside = name.startswith(_PACKAGE_DIR) or name.startswith("<entry of")
        if len(_inside_cache) < 100_000:
            _inside_cache[name] = inside
    return inside


def error_site(exc):
    """``(type name, message, filename, line)`` of an exception the recorded code raised,
    the line being the last frame of its traceback outside jtensor (None, None if none)."""
    frame = None
    tb = exc.__traceback__
    while tb is not None:
        if not _is_inside(tb.tb_frame.f_code):
            frame = tb
        tb = tb.tb_next
    return (type(exc).__name__, str(exc),
            frame.tb_frame.f_code.co_filename if frame else None,
            frame.tb_lineno if frame else None)


class Recorder:
    """Fills one ``Trace`` (``jtensor.trace.result``) from the dispatcher's hooks.

    Made by ``Trace.start()``; ``start()`` installs the hooks, ``stop()`` removes them,
    ``finish()`` completes what recording left open. Writes only: the trace reads.
    """

    def __init__(self, trace):
        self.trace = trace
        self.max_ops = trace.max_ops
        self.small_values = trace.small_values
        self.timings = trace.timings
        # The trace's own containers, appended to (never replaced): the log of events
        # recorded and not yet read, the weak references by label, the dead nodes' labels.
        self._log = trace._log
        self._refs = trace._refs
        self.dead_nodes = trace.dead_nodes
        # Labels live in dictionaries and a list (the only objects made per new tensor are
        # its weak reference and a dict entry), and snapshots are flat tuples of strings
        # and numbers: the garbage collector soon stops scanning them, which keeps
        # recording cheap however long the trace grows.
        self._tensor_ids = {}          # id(tensor) -> label (1, 2... by first appearance)
        self._storage_labels = {}      # id(storage) -> (weakref, (label, nbytes, device))
        self._node_labels = {}         # id(node) -> (weakref, label)
        self._storage_count = self._node_count = 0
        self._pending = None           # event whose outputs' grad_fn is not built yet
        self._saved_index = {}         # id(version counter) -> [saved-tensor records]
        self._grad_state = {}          # leaf label -> (weakref to grad, version)
        self._kernels = []             # (event, kernel) when timings were asked for
        self._thread = None            # (read by nn/_functional/_op.py through the hook)
        self._busy = False

    # ------------------------------------------------------------------ start / stop
    def start(self):
        """Install the hooks (raises RuntimeError when another trace is recording)."""
        global _active
        with _state_lock:
            if _active is not None or _dispatch.trace_hook is not None \
                    or _dispatch.event_hook is not None:
                raise RuntimeError(
                    "a jtensor trace is already recording (nested record() or "
                    "%%tensortrace); stop it before starting another")
            _active = self.trace
            self._thread = threading.get_ident()
            _dispatch.trace_hook = self._on_op if self.small_values else self._fast_hook()
            _dispatch.event_hook = self._on_event

    def stop(self):
        """Remove the hooks, if they are still this recorder's."""
        global _active
        with _state_lock:
            if _active is self.trace:
                _dispatch.trace_hook = None
                _dispatch.event_hook = None
                _active = None

    def finish(self, exc=None):
        """After ``stop()``: complete the last op's autograd facts, note where ``exc`` (what
        the recorded code raised) came from and the kernels' timings."""
        self._complete_pending()
        if exc is not None:
            self.trace.error = error_site(exc)
        for event, kernel in self._kernels:
            for key in ("launch_time", "start_time", "end_time"):
                event.info[key] = getattr(kernel, key, None)
        self._kernels = []

    def note_dead_nodes(self):
        """Autograd nodes created here and already gone: graphs discarded without backward."""
        self.dead_nodes |= {label for ref, label in self._node_labels.values()
                            if ref() is None}

    # ------------------------------------------------------------------ labels
    def _new_storage(self, storage):
        """Label a storage seen for the first time: its (label, nbytes, device name)."""
        data = storage._bytes
        nbytes = data.shape[0] if data is not None else storage._source.nbytes
        self._storage_count += 1  # (a counter: an id can come back for a new storage)
        facts = (f"S{self._storage_count}", nbytes, str(storage.device))
        self._storage_labels[id(storage)] = (weakref.ref(storage), facts)
        return facts

    def _node_label(self, node):
        key = id(node)
        entry = self._node_labels.get(key)
        if entry is not None:
            if entry[0]() is node:
                return entry[1]
            self.dead_nodes.add(entry[1])  # its id now names a new node
        self._node_count += 1
        label = f"G{self._node_count}"
        self._node_labels[key] = (weakref.ref(node), label)
        return label

    def _snap(self, t, fresh=None, version_before=-1):
        """The compact snapshot of ``t`` (see ``events._materialize``): built on every
        recorded op, so it is one flat tuple of numbers and strings read from slots (the
        weak reference is made once per tensor, and kept apart so the tuple holds no
        object the garbage collector must keep scanning)."""
        refs = self._refs
        label = self._tensor_ids.get(id(t))
        if label is None or refs[label - 1]() is not t:
            refs.append(weakref.ref(t))
            label = self._tensor_ids[id(t)] = len(refs)
        storage = t._storage
        if storage is not None:
            sentry = self._storage_labels.get(id(storage))
            if sentry is None or sentry[0]() is not storage:
                facts = self._new_storage(storage)
                if fresh is not None:
                    fresh.append(facts[1])
            else:
                facts = sentry[1]
        else:  # sparse tensors: no strided storage of their own
            facts = (None, 0, str(t.device))
        dname = _dtype_names.get(t._dtype)
        if dname is None:
            dname = _dtype_names[t._dtype] = str(t._dtype)
        fn = t._grad_fn
        if fn is not None:
            fn = _node_names.get(fn.__class__) or _node_name(fn)
        return (label, t._shape, t._stride, t._offset, dname, facts, t._requires_grad, fn,
                t._base is not None, t._contiguous, version_before, t._version_counter.value,
                self._values(t) if self.small_values and storage is not None else None)

    def _values(self, t):
        numel = 1
        for n in t._shape:
            numel *= n
        if numel > self.small_values:
            return None
        self._busy = True
        try:
            return t._array().tolist()
        except Exception:  # NOTE: values are a courtesy; a failure must not break the op
            return None
        finally:
            self._busy = False

    # ------------------------------------------------------------------ hooks
    def _where(self, depth):
        frame = sys._getframe(depth + 1)
        inside = _inside_cache
        while frame is not None:
            code = frame.f_code
            flag = inside.get(code.co_filename)
            if flag is None:
                flag = _is_inside(code)
            if not flag:
                return code.co_filename, frame.f_lineno
            frame = frame.f_back
        return None, None

    def _site(self, depth):
        frame = sys._getframe(depth + 1)
        while frame is not None and _is_inside(frame.f_code):
            frame = frame.f_back
        if frame is None:
            return None, None, None
        return frame.f_code.co_filename, frame.f_lineno, frame.f_lasti

    def _admit(self, kind):
        """Count an event; False when it is not to be recorded in detail."""
        trace = self.trace
        if threading.get_ident() != self._thread:
            # (counted even while the recording thread reads values: ``_busy`` is its own)
            trace.other_threads += 1
            return False
        if self._busy:
            return False
        if trace._count >= self.max_ops:
            trace.dropped[kind] += 1
            return False
        trace._count += 1
        return True

    def _on_op(self, op, inputs, outputs, modified, info):
        """The general per-op hook (``_dispatch.trace_hook`` when values are kept; the
        ``_fast_hook`` closure otherwise, which does the same for plain ops, faster, and
        hands the others to ``_record_op``)."""
        if self._pending is not None:
            self._complete_pending()
        # _admit, inlined: this runs on every op.
        trace = self.trace
        if get_ident() != self._thread:
            trace.other_threads += 1
            return
        if self._busy:
            return
        if trace._count >= self.max_ops:
            trace.dropped[op.kind] += 1
            return
        trace._count += 1
        # The user's line: the first frame outside jtensor (inlined ``_where``). Frame 1 is
        # jtensor's caller of the hook (an op's entry, or ``_dispatch``'s ``notify``/
        # ``finished``), so the walk starts past it (each frame looked at costs a frame
        # object; an entry's caller may be the user's frame already).
        frame = _getframe(2)
        inside = _inside_cache
        while frame is not None:
            code = frame.f_code
            flag = inside.get(code.co_filename)
            if flag is None:
                flag = _is_inside(code)
            if not flag:
                break
            frame = frame.f_back
        if frame is not None:
            filename, line = frame.f_code.co_filename, frame.f_lineno
        else:
            filename = line = None
        self._record_op(op, inputs, outputs, modified, info, filename, line)

    def _record_op(self, op, inputs, outputs, modified, info, filename, line):
        """Record an admitted op (counted already) that happened at ``filename``:``line``."""
        snap = self._snap
        fresh = []
        if outputs.__class__ is Tensor:
            outs_t = (outputs,)
        elif outputs.__class__ is tuple or outputs.__class__ is list:
            outs_t = [t for t in outputs if isinstance(t, Tensor)]
        elif isinstance(outputs, Tensor):
            outs_t = (outputs,)
        elif isinstance(outputs, tuple):  # (values, indices) results: jtensor.return_types
            outs_t = [t for t in outputs if isinstance(t, Tensor)]
        else:
            outs_t = ()
        if len(inputs) == 1 and inputs[0].__class__ is Tensor:
            ins = (snap(inputs[0]),)
        else:
            ins = tuple([snap(t) for t in inputs if isinstance(t, Tensor)])
        modified_at = None
        if modified is None:
            if len(outs_t) == 1:
                outs = (snap(outs_t[0], fresh),)
            else:
                outs = tuple([snap(t, fresh) for t in outs_t])
        else:
            outs = []
            for t in outs_t:
                if t is modified:
                    modified_at = len(outs)
                    outs.append(snap(t, fresh, t._version_counter.value - 1))
                else:
                    outs.append(snap(t, fresh))
            if modified_at is None and isinstance(modified, Tensor):
                modified_at = len(outs)
                outs.append(snap(modified, fresh, modified._version_counter.value - 1))
                outs_t = list(outs_t) + [modified]
            outs = tuple(outs)
        kind = op.kind
        if modified is not None:
            word = "in-place"
        elif kind == "factory":
            word = "allocation"
        elif fresh:
            word = "copy"
        elif kind == "query" and not outs:
            word = "query"
        else:
            word = "view"
        nbytes = sum(fresh) if fresh else 0
        info = dict(info) if info else None
        if _TRANSFORMS.processing:
            # Run by a function transform (vmap, forward AD) for the user's op: say so.
            info = info or {}
            info["under"] = transform_label(_TRANSFORMS.processing)
        event = Event(self.trace._count - 1, word, op.name, kind, ins, outs, modified_at,
                      nbytes, filename, line, info, self._refs)
        self._log.append(event)
        if modified is not None and self._saved_index:
            self._check_saved(event, modified)
        if grad_mode.inside:
            # Recorded by autograd: the node is built after ``finish`` returns.
            self._pending = (event, outs_t)
        elif outs_t and outs_t[0]._grad_fn is not None:
            self._note_nodes(event, outs_t)

    def _fast_hook(self):
        """The per-op hook used when no values are kept: ``_on_op`` as a closure over the
        tables it reads, with the common case (one tensor out, nothing written in place, no
        autograd node) written out in full. Everything else goes to ``_record_op``."""
        recorder = self
        trace = self.trace   # (its counters move on every op)
        log = self._log      # (the trace's log: ``log +=`` extends it in place)
        tensor_ids = self._tensor_ids
        refs = self._refs
        storage_labels = self._storage_labels
        new_storage = self._new_storage
        record_op = self._record_op
        thread = self._thread
        max_ops = self.max_ops
        inside = _inside_cache
        node_names = _node_names
        ref_of = weakref.ref
        # This thread's grad-mode flags (``grad_mode`` is thread-local; the hook only records
        # the thread that started, and a dict lookup is cheaper than the attribute).
        mode = grad_mode.__dict__
        T = Tensor
        RAW = _RAW
        processing = _TRANSFORMS.processing   # (one list, for the process's lifetime)
        # id of a tensor read as a single input -> its last snapshot + (storage, grad_fn).
        last_input = {}

        def snap(t):
            # ``_snap`` without values (kept in step with it), except that the dtype itself
            # is kept (named when read).
            label = tensor_ids.get(id(t))
            if label is None or refs[label - 1]() is not t:
                refs.append(ref_of(t))
                label = tensor_ids[id(t)] = len(refs)
            storage = t._storage
            if storage is not None:
                entry = storage_labels.get(id(storage))
                facts = entry[1] if entry is not None and entry[0]() is storage \
                    else new_storage(storage)
            else:
                facts = (None, 0, str(t.device))
            fn = t._grad_fn
            if fn is not None:
                fn = node_names.get(fn.__class__) or _node_name(fn)
            return (label, t._shape, t._stride, t._offset, t._dtype, facts, t._requires_grad,
                    fn, t._base is not None, t._contiguous, -1, t._version_counter.value,
                    None)

        def on_op(op, inputs, outputs, modified, info):
            nonlocal log
            if recorder._pending is not None:
                recorder._complete_pending()
            # (``_busy`` is only set while values are read: never with this hook.)
            if get_ident() != thread:
                trace.other_threads += 1
                return
            count = trace._count
            if count >= max_ops:
                trace.dropped[op.kind] += 1
                return
            trace._count = count + 1
            # The user's line (as in ``_on_op``: frame 1 is jtensor's).
            frame = _getframe(2)
            while frame is not None:
                code = frame.f_code
                flag = inside.get(code.co_filename)
                if flag is None:
                    flag = _is_inside(code)
                if not flag:
                    break
                frame = frame.f_back
            if modified is not None or outputs.__class__ is not T \
                    or outputs._grad_fn is not None or mode.get("inside") or processing:
                if frame is not None:
                    record_op(op, inputs, outputs, modified, info, code.co_filename,
                              frame.f_lineno)
                else:
                    record_op(op, inputs, outputs, modified, info, None, None)
                return
            # One tensor out, nothing written, no node: a raw record laid out flat (see
            # ``events``). Inputs are labelled first, as ``_record_op`` does.
            if len(inputs) == 1 and inputs[0].__class__ is T:
                # The input's snapshot, reused while the tensor is unchanged (a loop over
                # ``a[i]`` reads one tensor many times): the checks cost less than ``snap``.
                i = inputs[0]
                i_storage = i._storage
                cached = last_input.get(id(i))
                if cached is not None:
                    i_snap = cached[0]
                    fn_ref = cached[2]
                    if not (cached[1]() is i_storage
                            and (None if fn_ref is None else fn_ref()) is i._grad_fn
                            and i_snap[1] is i._shape and i_snap[2] is i._stride
                            and i_snap[11] == i._version_counter.value
                            and i_snap[3] == i._offset and i_snap[6] is i._requires_grad
                            and i_snap[4] is i._dtype and refs[i_snap[0] - 1]() is i):
                        cached = None
                if cached is None:
                    i_snap = snap(i)
                    # Weak references only: a strong one to the storage (or the node) would
                    # change what autograd does (AccumulateGrad keeps a gradient nothing else
                    # holds instead of copying it: a traced step used more memory).
                    fn = i._grad_fn
                    last_input[id(i)] = (i_snap, weakref.ref(i_storage),
                                         None if fn is None else weakref.ref(fn))
                    if len(last_input) > 64:
                        last_input.clear()   # (a bound; it only ever saves work)
                i_facts = i_snap[5]
                ins = None
                n_in = 1
            else:
                ins = [snap(t) for t in inputs if isinstance(t, T)]
                n_in = len(ins)
            t = outputs
            label = tensor_ids.get(id(t))
            if label is None or refs[label - 1]() is not t:
                refs.append(ref_of(t))
                label = tensor_ids[id(t)] = len(refs)
            storage = t._storage
            fresh = -1
            if ins is None and storage is i_storage and storage is not None:
                facts = i_facts   # a view of its input: that storage's label
            elif storage is not None:
                entry = storage_labels.get(id(storage))
                if entry is not None and entry[0]() is storage:
                    facts = entry[1]
                else:
                    facts = new_storage(storage)
                    fresh = facts[1]
            else:
                facts = (None, 0, str(t.device))
            if ins is None:   # the record, the input's snapshot (one tuple) last
                log += (RAW, op, code if frame is not None else None,
                        frame.f_lasti if frame is not None else -1,
                        dict(info) if info else None, fresh, 1,
                        label, t._shape, t._stride, t._offset, t._dtype, facts,
                        t._requires_grad, None, t._base is not None, t._contiguous, -1,
                        t._version_counter.value, None, i_snap)
                return
            log += (RAW, op, code if frame is not None else None,
                    frame.f_lasti if frame is not None else -1,
                    dict(info) if info else None, fresh, n_in,
                    label, t._shape, t._stride, t._offset, t._dtype, facts, t._requires_grad,
                    None, t._base is not None, t._contiguous, -1, t._version_counter.value,
                    None)
            log += ins   # the inputs' snapshots, one tuple each

        # The recording thread (as the bound ``_on_op``'s recorder has it): ``nn`` ops detach
        # the hook while their body runs only on this thread (nn/_functional/_op.py).
        on_op._thread = thread
        return on_op

    def _complete_pending(self):
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        event, outs_t = pending
        raw = list(event._outputs)
        for i, t in enumerate(outs_t):
            item = raw[i]
            fn = t._grad_fn
            if item.__class__ is tuple:
                name = None if fn is None else (_node_names.get(fn.__class__)
                                                or _node_name(fn))
                raw[i] = item[:6] + (t._requires_grad, name) + item[8:]
            else:
                item.requires_grad = t._requires_grad
                item.is_leaf = fn is None
                item.grad_fn = None if fn is None else fn.name()
        # A tuple again: the ``outputs`` property turns it into snapshots when read.
        event._outputs = tuple(raw)
        self._note_nodes(event, outs_t)

    def _note_nodes(self, event, outs_t):
        for t in outs_t:
            fn = t._grad_fn
            if fn is None:
                continue
            if event.grad_fn is None:
                event.grad_fn = fn.name()
                event.info["node"] = self._node_label(fn)
            saved = getattr(fn, "_saved", None)
            if not saved:
                continue
            items = saved.values() if isinstance(saved, dict) else saved
            ref = weakref.ref(fn)
            name = fn.name()
            for item in items:
                for st in (item if isinstance(item, (list, tuple)) else (item,)):
                    tensor = getattr(st, "tensor", None)
                    if tensor is None:
                        continue
                    records = self._saved_index.setdefault(id(tensor._version_counter), [])
                    records.append((ref, st.version, event.index, name))

    def _check_saved(self, event, modified):
        counter = modified._version_counter
        records = self._saved_index.get(id(counter))
        if not records:
            return
        keep = []
        for ref, version, index, name in records:
            node = ref()
            if node is None or not node._saved:
                continue
            saved = node._saved
            items = saved.values() if isinstance(saved, dict) else saved
            same = any(getattr(st, "tensor", None) is not None
                       and st.tensor._version_counter is counter
                       for item in items
                       for st in (item if isinstance(item, (list, tuple)) else (item,)))
            if not same:
                continue
            if version != counter.value:
                event.info.setdefault("overwrites_saved", []).append(
                    {"node": name, "saved_by_event": index, "saved_version": version,
                     "version": counter.value})
            else:
                keep.append((ref, version, index, name))
        self._saved_index[id(counter)] = keep

    def _on_event(self, kind, info):
        if kind == "data":
            # ``.data`` read by jtensor itself (optimizers, init) is not the user's doing.
            caller = sys._getframe(3)
            if _is_inside(caller.f_code):
                return
        if self._pending is not None:
            self._complete_pending()
        if kind in ("sync", "transfer") and not self._busy \
                and threading.get_ident() == self._thread:
            # Counted per call site (line and bytecode offset), past the cap too: one site
            # reached twice ran in a loop; two calls on one line are two sites.
            self.trace.site_counts[(kind,) + self._site(2)] += 1
        if not self._admit(kind):
            return
        filename, line = self._where(2)
        index = self.trace._count - 1
        if kind == "backward":
            node = info.get("node")
            grads = info.get("grads") or ()
            shapes = [list(g._shape) if isinstance(g, Tensor) else None for g in grads]
            event = Event(index, "backward", node.name(), filename=filename, line=line,
                          info={"node": self._node_label(node), "grads": shapes})
            leaf = getattr(node, "variable", None)
            if isinstance(leaf, Tensor):
                snap = _materialize(self._snap(leaf), self._refs)
                event.inputs.append(snap)
                grad = leaf._grad
                if grad is not None:
                    previous = self._grad_state.get(snap.label)
                    version = grad._version_counter.value
                    if previous is not None and previous[0]() is grad \
                            and version == previous[1] + 1:
                        event.info["accumulated"] = True
                    self._grad_state[snap.label] = (weakref.ref(grad), version)
        elif kind == "backward_call":
            event = Event(index, "backward-call", "backward", filename=filename, line=line,
                          info={"retain_graph": bool(info.get("retain_graph")),
                                "create_graph": bool(info.get("create_graph"))})
        elif kind == "sync":
            reason = str(info.get("reason"))
            event = Event(index, "sync", reason, filename=filename, line=line,
                          info={"device": str(info.get("device")), "reason": reason})
        elif kind == "transfer":
            src, dst = str(info.get("src")), str(info.get("dst"))
            event = Event(index, "transfer", f"{src} -> {dst}", filename=filename, line=line,
                          nbytes_allocated=int(info.get("nbytes") or 0),
                          info={"src": src, "dst": dst, "nbytes": int(info.get("nbytes") or 0),
                                "non_blocking": bool(info.get("non_blocking"))})
        elif kind == "launch":
            event = Event(index, "launch", str(info.get("op")), filename=filename, line=line,
                          info={"device": str(info.get("device")), "op": str(info.get("op"))})
            if self.timings and info.get("kernel") is not None:
                self._kernels.append((event, info["kernel"]))
        else:
            event = Event(index, "notice", kind, filename=filename, line=line)
            for key, value in info.items():
                if isinstance(value, Tensor):
                    event.inputs.append(_materialize(self._snap(value), self._refs))
                    event.info[key] = event.inputs[-1].label
                elif isinstance(value, (bool, int, float, str)) or value is None:
                    event.info[key] = value
                elif isinstance(value, tuple):
                    event.info[key] = list(value)
                else:
                    event.info[key] = repr(value)
        self._log.append(event)


_dtype_names = {}
_node_names = {}
# The raw record of a plain op in ``Trace._log`` (written by ``Recorder._fast_hook``, read by
# ``Trace._read_log``), laid out flat: ``_RAW``, the op, the frame's code object (or None),
# its bytecode offset (or -1), info (or None), the bytes of the new storage (or -1), the
# number of inputs n, then the output's snapshot in ``_SNAP`` fields, then the n inputs'
# snapshots, one tuple each (the compact snapshot of ``events._materialize``, with the dtype
# itself in place of its name; an unchanged input's tuple is shared between records).
_RAW = object()
_SNAP = 13


def _node_name(node):
    """A node's name, cached by class (names are per class: ``MulBackward0``)."""
    name = _node_names[node.__class__] = node.name()
    return name
