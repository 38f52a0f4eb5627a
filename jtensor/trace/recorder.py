"""The recorder: ``with jtensor.trace.record() as t:`` collects one event per op.

It installs itself as ``jtensor._dispatch.trace_hook`` (every op ends in ``finish``, which
calls it once) and ``event_hook`` (syncs, transfers, kernel launches, backward nodes and the
few notices the pitfall analysis needs). Only one recorder is active at a time, and only the
thread that started it is recorded (other threads' events are counted, not kept).

Memory: snapshots hold weak references; storages, tensors and autograd nodes are identified
by labels kept in dictionaries keyed by ``id()`` and checked through a weak reference (an id
can be reused once its object is gone). Past ``max_ops`` recorded events, nothing more is kept
but counters, so a loop of a million ops stays within a fixed bound.
"""

import linecache
import os
import sys
import threading
from threading import get_ident
import weakref
from sys import _getframe
from collections import Counter

from .. import _dispatch
from .._dispatch import grad_mode
from .._tensor import Tensor
from .events import Event, TensorSnapshot, _materialize

__all__ = ["Trace", "record", "active"]

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


class Trace:
    """A recording of what tensor code did: events, plus the analysis and reports over them.

    Use it as a context manager (``with jtensor.trace.record() as t:``) or with
    ``start()``/``stop()``. After recording:

    - ``t.events``: the list of ``Event`` (see ``jtensor.trace.events`` for every field);
    - ``t.ops(name=None, kind=None, line=None)``, ``t.syncs()``, ``t.transfers()``,
      ``t.backward_steps()``, ``t.events_of(tensor)``: queries;
    - ``t.summary()`` (counts), ``t.pitfalls`` (findings), ``t.sharing()`` (named
      variables grouped by storage), ``t.name_of(snapshot)``;
    - ``print(t)`` / ``t.to_text()``, ``t._repr_html_()`` / ``t.to_html()``,
      ``t.to_dict()`` / ``t.to_json()`` / ``t.save_json(path)``.

    >>> import jtensor as torch
    >>> with torch.trace.record() as t:
    ...     x = torch.ones(2, 3)
    ...     y = x.t()
    >>> [(e.name, e.kind) for e in t.events]
    [('ones', 'allocation'), ('t', 'view')]
    >>> t.name_of(t.events[1].outputs[0])
    'y'
    """

    def __init__(self, max_ops=10_000, small_values=0, timings=False, namespace=None):
        if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 0:
            raise ValueError(f"max_ops must be a non-negative int, got {max_ops!r}")
        if isinstance(small_values, bool) or not isinstance(small_values, int) \
                or small_values < 0:
            raise ValueError(f"small_values must be a non-negative int (the largest number of "
                             f"elements whose values are kept), got {small_values!r}")
        self.max_ops = max_ops
        self.small_values = small_values
        self.timings = bool(timings)
        self.namespace = namespace
        # Events recorded and not yet read, in order, in one flat list: an ``Event``, or
        # (plain ops, see ``_fast_hook``) a raw record laid out flat, ``_RAW`` then its
        # fields, which ``events`` turns into an ``Event`` when the trace is read
        # (``_read_log``). Flat, a recorded op leaves no container for the garbage
        # collector to track.
        self._log = []
        self._read_lock = threading.Lock()
        self._events = []              # the ``Event`` objects read so far
        self._count = 0                # events recorded (the length of ``events``)
        self.dropped = Counter()       # events past the cap, by kind
        self.other_threads = 0         # events from threads other than the recording one
        self.site_counts = Counter()   # (kind, filename, line, offset) of syncs/transfers
        self.error = None              # (type name, message, filename, line) if code raised
        self.started = self.stopped = False
        self._names = {}               # snapshot label -> user's variable name
        self._display = {}             # snapshot label -> name or t1, t2... for unnamed
        # Labels live in dictionaries and a list (the only objects made per new tensor are
        # its weak reference and a dict entry), and snapshots are flat tuples of strings
        # and numbers: the garbage collector soon stops scanning them, which keeps
        # recording cheap however long the trace grows.
        self._tensor_ids = {}          # id(tensor) -> label (1, 2... by first appearance)
        self._refs = []                # weakref to the tensor of label k at [k - 1]
        self._storage_labels = {}      # id(storage) -> (weakref, (label, nbytes, device))
        self._node_labels = {}         # id(node) -> (weakref, label)
        self._storage_count = self._node_count = 0
        self._pending = None           # event whose outputs' grad_fn is not built yet
        self._saved_index = {}         # id(version counter) -> [saved-tensor records]
        self._grad_state = {}          # leaf label -> (weakref to grad, version)
        self._kernels = []             # (event, kernel) when timings were asked for
        self._thread = None
        self._busy = False
        self._pitfalls = None
        self.main_filename = None      # lines of this file show as "line k"
        self.filename_label = None     # other files: callable(filename) -> short name or None
        self.dead_nodes = set()

    @property
    def total_events(self):
        """Every event seen by the recording thread, recorded or past the cap."""
        return self._count + sum(self.dropped.values())

    # ------------------------------------------------------------------ start / stop
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        namespace = self.namespace
        caller = sys._getframe(1)
        if self.main_filename is None:
            self.main_filename = caller.f_code.co_filename
        if namespace is None:
            namespace = dict(caller.f_globals)
            namespace.update(caller.f_locals)
        self.stop(exc, namespace)
        return False

    def start(self):
        """Begin recording (raises RuntimeError when another trace is recording)."""
        global _active
        if self.started:
            raise RuntimeError("this trace has already recorded; start a new jtensor.trace."
                               "record() to record again")
        with _state_lock:
            if _active is not None or _dispatch.trace_hook is not None \
                    or _dispatch.event_hook is not None:
                raise RuntimeError(
                    "a jtensor trace is already recording (nested record() or "
                    "%%tensortrace); stop it before starting another")
            _active = self
            self.started = True
            self._thread = threading.get_ident()
            _dispatch.trace_hook = self._on_op if self.small_values else self._fast_hook()
            _dispatch.event_hook = self._on_event

    def stop(self, exc=None, namespace=None):
        """Stop recording; ``exc`` is the exception the recorded code raised (kept for the
        report), ``namespace`` the dict where the user's variable names are looked up."""
        global _active
        with _state_lock:
            if _active is self:
                _dispatch.trace_hook = None
                _dispatch.event_hook = None
                _active = None
        if self.stopped:
            return self
        self.stopped = True
        self._complete_pending()
        if exc is not None:
            frame = None
            tb = exc.__traceback__
            while tb is not None:
                if not _is_inside(tb.tb_frame.f_code):
                    frame = tb
                tb = tb.tb_next
            self.error = (type(exc).__name__, str(exc),
                          frame.tb_frame.f_code.co_filename if frame else None,
                          frame.tb_lineno if frame else None)
        for event, kernel in self._kernels:
            for key in ("launch_time", "start_time", "end_time"):
                event.info[key] = getattr(kernel, key, None)
        self._kernels = []
        for event in self.events:
            if event.line is not None:
                text = linecache.getline(event.filename, event.line).strip()
                event.source = text or None
        # Autograd nodes created here and already gone: graphs discarded without backward.
        self.dead_nodes |= {label for ref, label in self._node_labels.values() if ref() is None}
        self.resolve_names(namespace if namespace is not None else {})
        return self

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
        if self._busy:
            return False
        if threading.get_ident() != self._thread:
            self.other_threads += 1
            return False
        if self._count >= self.max_ops:
            self.dropped[kind] += 1
            return False
        self._count += 1
        return True

    def _on_op(self, op, inputs, outputs, modified, info):
        """The general per-op hook (``_dispatch.trace_hook`` when values are kept; the
        ``_fast_hook`` closure otherwise, which does the same for plain ops, faster, and
        hands the others to ``_record_op``)."""
        if self._pending is not None:
            self._complete_pending()
        # _admit, inlined: this runs on every op.
        if self._busy:
            return
        if get_ident() != self._thread:
            self.other_threads += 1
            return
        if self._count >= self.max_ops:
            self.dropped[op.kind] += 1
            return
        self._count += 1
        # The user's line: the first frame outside jtensor (inlined ``_where``). Frame 1 is
        # ``_dispatch.finish`` (the only caller of the hook) and frame 2 the jtensor function
        # that called it, so the walk starts past both (each frame looked at costs a frame
        # object).
        frame = _getframe(3)
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
        event = Event(self._count - 1, word, op.name, kind, ins, outs, modified_at, nbytes,
                      filename, line, info, self._refs)
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
        trace = self
        log = self._log
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
            if trace._pending is not None:
                trace._complete_pending()
            # (``_busy`` is only set while values are read: never with this hook.)
            if get_ident() != thread:
                trace.other_threads += 1
                return
            count = trace._count
            if count >= max_ops:
                trace.dropped[op.kind] += 1
                return
            trace._count = count + 1
            # The user's line (as in ``_on_op``: frames 1 and 2 are jtensor's).
            frame = _getframe(3)
            while frame is not None:
                code = frame.f_code
                flag = inside.get(code.co_filename)
                if flag is None:
                    flag = _is_inside(code)
                if not flag:
                    break
                frame = frame.f_back
            if modified is not None or outputs.__class__ is not T \
                    or outputs._grad_fn is not None or mode.get("inside"):
                if frame is not None:
                    record_op(op, inputs, outputs, modified, info, code.co_filename,
                              frame.f_lineno)
                else:
                    record_op(op, inputs, outputs, modified, info, None, None)
                return
            # One tensor out, nothing written, no node: a raw record laid out flat (see
            # ``events``). Inputs are labelled first, as ``_record_op`` does.
            if len(inputs) == 1 and inputs[0].__class__ is T:
                # ``snap``, written out for the most common case.
                i = inputs[0]
                i_label = tensor_ids.get(id(i))
                if i_label is None or refs[i_label - 1]() is not i:
                    refs.append(ref_of(i))
                    i_label = tensor_ids[id(i)] = len(refs)
                storage = i._storage
                if storage is not None:
                    entry = storage_labels.get(id(storage))
                    i_facts = entry[1] if entry is not None and entry[0]() is storage \
                        else new_storage(storage)
                else:
                    i_facts = (None, 0, str(i.device))
                i_fn = i._grad_fn
                if i_fn is not None:
                    i_fn = node_names.get(i_fn.__class__) or _node_name(i_fn)
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
            if storage is not None:
                entry = storage_labels.get(id(storage))
                if entry is not None and entry[0]() is storage:
                    facts = entry[1]
                else:
                    facts = new_storage(storage)
                    fresh = facts[1]
            else:
                facts = (None, 0, str(t.device))
            if ins is None:  # one record: header, the output, the input
                log += (RAW, op, code if frame is not None else None,
                        frame.f_lasti if frame is not None else -1,
                        dict(info) if info else None, fresh, 1,
                        label, t._shape, t._stride, t._offset, t._dtype, facts,
                        t._requires_grad, None, t._base is not None, t._contiguous, -1,
                        t._version_counter.value, None,
                        i_label, i._shape, i._stride, i._offset, i._dtype, i_facts,
                        i._requires_grad, i_fn, i._base is not None, i._contiguous, -1,
                        i._version_counter.value, None)
                return
            log += (RAW, op, code if frame is not None else None,
                    frame.f_lasti if frame is not None else -1,
                    dict(info) if info else None, fresh, n_in,
                    label, t._shape, t._stride, t._offset, t._dtype, facts, t._requires_grad,
                    None, t._base is not None, t._contiguous, -1, t._version_counter.value,
                    None)
            for item in ins:
                log += item

        # The recording thread (as the bound ``_on_op``'s trace has it): ``nn`` ops detach
        # the hook while their body runs only on this thread (nn/_functional/_op.py).
        on_op._thread = thread
        return on_op

    @property
    def events(self):
        """The recorded events, in order (a list of ``Event``; see ``jtensor.trace.events``
        for the fields)."""
        if self._log:
            with self._read_lock:
                self._read_log()
        return self._events

    def _read_log(self):
        """Turn the records of ``_log`` into ``Event`` objects (appended to ``_events``) and
        drop them. Another thread may be recording meanwhile: only whole records are read,
        and only those are deleted (the recorder only ever appends)."""
        log = self._log
        n = len(log)
        events = self._events
        refs = self._refs
        lines = {}
        i = 0
        while i < n:
            item = log[i]
            if item is not _RAW:
                events.append(item)
                i += 1
                continue
            if i + 7 > n:
                break
            op, code, lasti, info, fresh, n_in = log[i + 1:i + 7]
            end = i + 7 + (1 + n_in) * _SNAP
            if end > n:
                break
            i += 7
            out = _named(log[i:i + _SNAP])
            i += _SNAP
            ins = tuple([_named(log[i + k * _SNAP:i + (k + 1) * _SNAP]) for k in range(n_in)])
            i = end
            if code is not None:
                filename, line = code.co_filename, _line_of(code, lasti, lines)
            else:
                filename = line = None
            kind = op.kind
            # (as in ``_record_op``, for one output and no in-place write)
            word = "allocation" if kind == "factory" else "copy" if fresh >= 0 else "view"
            events.append(Event(len(events), word, op.name, kind, ins, (out,), None,
                                max(fresh, 0), filename, line, info, refs))
        # Read: the raw records are no longer needed (nor the code objects they hold).
        del log[:i]

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
            self.site_counts[(kind,) + self._site(2)] += 1
        if not self._admit(kind):
            return
        filename, line = self._where(2)
        index = self._count - 1
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

    # ------------------------------------------------------------------ names
    def resolve_names(self, namespace):
        """Name the recorded tensors after the user's variables in ``namespace`` (a dict);
        unnamed ones become ``t1``, ``t2``... in order of first appearance."""
        by_id = {}
        for name, value in list(namespace.items()):
            if not isinstance(name, str) or name.startswith("_"):
                continue
            if isinstance(value, Tensor):
                by_id.setdefault(id(value), []).append(name)
            elif _is_module(value):
                try:
                    for pname, p in value.named_parameters():
                        by_id.setdefault(id(p), []).append(f"{name}.{pname}")
                except Exception:  # a broken user module must not break the report
                    pass
        names = {}
        for label, ref in enumerate(self._refs, 1):
            t = ref()
            if t is not None and id(t) in by_id:
                candidates = [n for n in by_id[id(t)] if namespace.get(n) is t
                              or "." in n]
                if candidates:
                    names[label] = min(candidates, key=lambda n: (n.count("."), len(n), n))
        self._names = names
        display = {}
        unnamed = 0
        for event in self.events:
            for s in event.inputs + event.outputs:
                if s.label in display:
                    continue
                if s.label in names:
                    display[s.label] = names[s.label]
                else:
                    unnamed += 1
                    display[s.label] = f"t{unnamed}"
        self._display = display
        self._pitfalls = None

    def name_of(self, snapshot):
        """The user's variable name of a snapshot's tensor, else its stable label (t1...)."""
        label = snapshot.label if isinstance(snapshot, TensorSnapshot) else snapshot
        return self._display.get(label) or self._names.get(label) or label

    def is_named(self, snapshot):
        """Whether the snapshot's tensor is bound to a variable of the user's namespace."""
        return snapshot.label in self._names

    # ------------------------------------------------------------------ queries
    def __len__(self):
        return self._count

    def __iter__(self):
        return iter(self.events)

    def __getitem__(self, index):
        return self.events[index]

    def ops(self, name=None, kind=None, line=None):
        """Op events, optionally only those with this op name, event kind (``"view"``,
        ``"copy"``, ``"in-place"``, ``"allocation"``) and user line."""
        return [e for e in self.events if e.op_kind is not None
                and (name is None or e.name == name) and (kind is None or e.kind == kind)
                and (line is None or e.line == line)]

    def syncs(self):
        """Events where the host waited for a device."""
        return [e for e in self.events if e.kind == "sync"]

    def transfers(self):
        """Host-device (or device-device) copies."""
        return [e for e in self.events if e.kind == "transfer"]

    def backward_steps(self):
        """One event per autograd node run by ``backward()``."""
        return [e for e in self.events if e.kind == "backward"]

    def events_of(self, tensor):
        """Events whose inputs or outputs include ``tensor`` (a live tensor or a name)."""
        if isinstance(tensor, str):
            return [e for e in self.events
                    if any(self.name_of(s) == tensor for s in e.tensors())]
        return [e for e in self.events if any(s.ref() is tensor for s in e.tensors())]

    def by_line(self):
        """``{(filename, line): [events]}`` in the order lines first appear."""
        groups = {}
        for e in self.events:
            groups.setdefault((e.filename, e.line), []).append(e)
        return groups

    def summary(self):
        """Counts: events by kind (recorded and past the cap), bytes allocated, syncs,
        transfers, pitfalls."""
        kinds = Counter(e.kind for e in self.events)
        return {"events": self.total_events, "recorded": len(self.events),
                "dropped": sum(self.dropped.values()), "dropped_by_kind": dict(self.dropped),
                "by_kind": dict(kinds),
                "bytes_allocated": sum(e.nbytes_allocated for e in self.events
                                       if e.kind in ("allocation", "copy")),
                "syncs": sum(n for key, n in self.site_counts.items() if key[0] == "sync"),
                "transfers": sum(n for key, n in self.site_counts.items()
                                 if key[0] == "transfer"),
                "pitfalls": len(self.pitfalls), "other_threads": self.other_threads}

    def sharing(self):
        """Named variables grouped by the storage they share (groups of two or more), as
        ``[(storage label, [names])]``, from each tensor's latest snapshot."""
        latest = {}
        for e in self.events:
            for s in e.inputs + e.outputs:
                if s.label in self._names and s.storage is not None:
                    latest[s.label] = s.storage
        groups = {}
        for label, storage in latest.items():
            groups.setdefault(storage, []).append(self._names[label])
        return [(storage, sorted(set(names))) for storage, names in groups.items()
                if len(set(names)) > 1]

    @property
    def pitfalls(self):
        """The pitfall findings (``jtensor.trace.pitfalls.Finding``), in line order."""
        if self._pitfalls is None:
            from .pitfalls import analyze

            self._pitfalls = analyze(self)
        return self._pitfalls

    # ------------------------------------------------------------------ reports
    def to_text(self, sections=("summary", "ops", "sharing", "graph", "pitfalls"),
                show_values=False):
        """The plain-text report (``print(t)`` shows all sections)."""
        from .report import text_report

        return text_report(self, sections, show_values)

    def to_html(self, sections=("summary", "ops", "sharing", "graph", "pitfalls"),
                show_values=False):
        """The HTML report: deterministic (no ids, addresses or timings)."""
        from .report import html_report

        return html_report(self, sections, show_values)

    def _repr_html_(self):
        return self.to_html()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        s = self.summary()
        return (f"<jtensor trace: {s['events']} events, {s['recorded']} recorded, "
                f"{s['pitfalls']} pitfalls>")

    def to_dict(self):
        """Everything as JSON-friendly data: summary, events, sharing, pitfalls."""
        names = dict(self._display)
        return {"summary": self.summary(),
                "events": [e.to_dict(names) for e in self.events],
                "sharing": [{"storage": st, "names": n} for st, n in self.sharing()],
                "pitfalls": [f.to_dict() for f in self.pitfalls],
                "error": (None if self.error is None else
                          {"type": self.error[0], "message": self.error[1],
                           "filename": self.error[2], "line": self.error[3]})}

    def to_json(self, indent=None):
        """``to_dict()`` as a JSON string."""
        import json

        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    def save_json(self, path):
        """Write ``to_json()`` to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json(indent=1))


_dtype_names = {}
_node_names = {}
_RAW = object()  # marks the start of a raw op record in ``Trace._log``


def _named(raw):
    """A flat snapshot from ``Trace._log`` as the compact tuple, its dtype named."""
    dtype = raw[4]
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype)
    raw[4] = name
    return tuple(raw)


def _line_of(code, offset, cache):
    """The line of the instruction at byte ``offset`` of ``code`` (``frame.f_lineno`` of a
    frame stopped there); ``cache`` is keyed by ``id(code)``, so it must not outlive the
    code objects it was used for."""
    key = (id(code), offset)
    line = cache.get(key, -1)
    if line == -1:
        line = None
        for start, end, number in code.co_lines():
            if start <= offset < end:
                line = number
                break
        cache[key] = line
    return line
_SNAP = 13       # fields of a compact snapshot (``events._materialize``)


def _node_name(node):
    """A node's name, cached by class (names are per class: ``MulBackward0``)."""
    name = _node_names[node.__class__] = node.name()
    return name


def record(max_ops=10_000, small_values=0, timings=False, namespace=None):
    """A new ``Trace`` to use as ``with jtensor.trace.record() as t:``.

    ``max_ops``: how many events are kept in detail (later ones are only counted);
    ``small_values``: keep the values of tensors with at most this many elements;
    ``timings``: keep kernel launch/start/end times of asynchronous devices (off by
    default: timings make reports differ from run to run); ``namespace``: where variable
    names are looked up (default: the caller's globals and locals when the block ends).

    >>> import jtensor as torch
    >>> x = torch.arange(6.)
    >>> with torch.trace.record() as t:
    ...     y = x.view(2, 3).t().reshape(6)
    >>> [e.kind for e in t.events]
    ['view', 'view', 'copy']
    >>> [f.code for f in t.pitfalls]
    ['RESHAPE-COPY']
    """
    return Trace(max_ops=max_ops, small_values=small_values, timings=timings,
                 namespace=namespace)


def _is_module(value):
    nn = sys.modules.get("jtensor.nn")
    return nn is not None and isinstance(value, nn.Module)
