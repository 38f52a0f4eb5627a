"""The trace users get: what ``with jtensor.trace.record() as t:`` yields.

A ``Trace`` holds the recorded events and answers questions about them (queries, names,
counts, sharing, pitfalls, reports, JSON). While it records, a ``Recorder``
(``jtensor.trace.recorder``) fills it: the recorder writes (the log of events, the weak
references by label, the counters), the trace reads. Raw records the recorder's fast path
left in the log become ``Event`` objects here, in order, when ``events`` is read.
"""

import linecache
import sys
import threading
from collections import Counter

from .. import cpu
from .._tensor import Tensor
from .events import Event, TensorSnapshot
from .recorder import _RAW, _SNAP, Recorder, _dtype_names, error_site

__all__ = ["Trace", "record"]


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
        # (plain ops, see ``Recorder._fast_hook``) a raw record laid out flat, ``_RAW`` then its
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
        # Weak references to the recorded tensors: the tensor of label k at [k - 1] (the
        # recorder appends; events and names read them).
        self._refs = []
        self._recorder = None          # the ``Recorder`` filling this trace, while it records
        self._pitfalls = None
        self.main_filename = None      # lines of this file show as "line k"
        self.filename_label = None     # other files: callable(filename) -> short name or None
        self.dead_nodes = set()
        # ``jtensor.cpu.memory_stats()`` when recording started and stopped (the CPU buffer
        # cache: host memory in use, freed memory kept for reuse).
        self.cpu_memory_start = self.cpu_memory_end = None

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
        if self.started:
            raise RuntimeError("this trace has already recorded; start a new jtensor.trace."
                               "record() to record again")
        recorder = Recorder(self)
        recorder.start()
        self._recorder = recorder
        self.started = True
        self.cpu_memory_start = cpu.memory_stats()

    def stop(self, exc=None, namespace=None):
        """Stop recording; ``exc`` is the exception the recorded code raised (kept for the
        report), ``namespace`` the dict where the user's variable names are looked up."""
        recorder = self._recorder
        if recorder is not None:
            recorder.stop()
        if self.stopped:
            return self
        self.stopped = True
        self.cpu_memory_end = cpu.memory_stats()
        if recorder is not None:
            recorder.finish(exc)
        elif exc is not None:
            self.error = error_site(exc)
        for event in self.events:
            if event.line is not None:
                text = linecache.getline(event.filename, event.line).strip()
                event.source = text or None
        if recorder is not None:
            recorder.note_dead_nodes()
            self._recorder = None  # done writing
        self.resolve_names(namespace if namespace is not None else {})
        return self

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
            end = i + 7 + _SNAP + n_in
            if end > n:
                break
            i += 7
            out = _named(log[i:i + _SNAP])
            i += _SNAP
            ins = tuple([_named(log[i + k]) for k in range(n_in)])
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

    def cpu_cache(self):
        """The CPU buffer cache (``jtensor.cpu``) around the recording: host bytes in use and
        freed bytes kept for reuse at the start and the end, and the cache's cap (None
        before recording started). Apart from ``summary()``, whose figures (and so the
        exported reports) depend only on the recorded code."""
        start, end = self.cpu_memory_start, self.cpu_memory_end or cpu.memory_stats()
        if start is None:
            return None
        return {"in_use_start": start["allocated_bytes.all.current"],
                "in_use_end": end["allocated_bytes.all.current"],
                "cached_start": start["cached_bytes"], "cached_end": end["cached_bytes"],
                "limit": end["cache_limit"], "available": end["available"]}

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


def _named(raw):
    """A snapshot from ``Trace._log`` (a slice of the log, or an input's tuple) as the compact
    tuple, its dtype named."""
    dtype = raw[4]
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype)
    return tuple(raw[:4]) + (name,) + tuple(raw[5:])


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
