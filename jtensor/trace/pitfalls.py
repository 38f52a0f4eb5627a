"""Pitfall analysis: read a trace's events and explain the surprises in plain words.

Each rule is a function over a ``Trace`` registered with ``@pitfall(code, title)``; it yields
``Finding`` objects (the code, the line that caused it, an explanation naming the user's
variables and the values involved, and the fix). ``PITFALLS`` lists every registered rule:

>>> from jtensor.trace.pitfalls import PITFALLS
>>> "RESHAPE-COPY" in PITFALLS
True

To add a pitfall: write ``@pitfall("MY-CODE", "one-line title") def _rule(trace): ...``
yielding ``Finding``s, give it a triggering test and a near-miss test in
``tests/test_pitfalls.py``, and add it to the table in docs/DEVELOPING.md. If the op stream
does not show what the rule needs, emit a notice from the core with one line
(``_dispatch.emit("name", tensor=..., ...)``); the recorder keeps it as a ``"notice"`` event.
"""

from .events import _overlapping

__all__ = ["Finding", "PITFALLS", "analyze", "pitfall"]

PITFALLS = {}  # code -> (title, rule)


class Finding:
    """One pitfall found in a trace.

    Fields: ``code`` (``"RESHAPE-COPY"``...), ``title``, ``filename``, ``line``, ``source``
    (the line's text), ``explanation``, ``fix``, ``event`` (index of the event that shows
    it, or None).
    """

    __slots__ = ("code", "title", "filename", "line", "source", "explanation", "fix", "event")

    def __init__(self, code, title, event, explanation, fix, filename=None, line=None,
                 source=None):
        self.code = code
        self.title = title
        self.event = event.index if event is not None else None
        self.filename = event.filename if event is not None else filename
        self.line = event.line if event is not None else line
        self.source = event.source if event is not None else source
        self.explanation = explanation
        self.fix = fix

    def to_dict(self):
        """JSON-friendly fields."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return f"<Finding {self.code} line {self.line}>"


def pitfall(code, title):
    """Register a rule ``rule(trace) -> iterable of Finding`` under ``code``."""
    def register(rule):
        if code in PITFALLS:
            raise ValueError(f"pitfall code {code!r} is already registered")
        PITFALLS[code] = (title, rule)
        rule.code = code
        rule.title = title
        return rule

    return register


def analyze(trace):
    """Run every registered rule over ``trace``; findings sorted by event order, one per
    (code, line)."""
    findings = []
    seen = set()
    for _title, rule in PITFALLS.values():
        for finding in rule(trace):
            key = (finding.code, finding.filename, finding.line)
            if key in seen:
                continue
            seen.add(key)
            findings.append(finding)
    findings.sort(key=lambda f: (f.event if f.event is not None else -1, f.code))
    return findings


def _make(code, event, explanation, fix, **where):
    return Finding(code, PITFALLS[code][0], event, explanation, fix, **where)


def _shape(s):
    return list(s.shape)


def _stride(s):
    return list(s.stride)


def _ops(trace):
    return [e for e in trace.events if e.op_kind is not None]


# ---------------------------------------------------------------------- views and copies
@pitfall("RESHAPE-COPY", "reshape silently copied")
def _reshape_copy(trace):
    for e in _ops(trace):
        if e.info.get("copied") and e.inputs and e.outputs:
            src, out = e.inputs[0], e.outputs[0]
            yield _make(
                "RESHAPE-COPY", e,
                f"{e.name}() could not view {trace.name_of(src)} (shape {_shape(src)}, stride "
                f"{_stride(src)}) as shape {_shape(out)}, so it copied the data into a new "
                f"storage ({out.storage}, {out.storage_nbytes} bytes). "
                f"{trace.name_of(out)} does not share memory with {trace.name_of(src)}: a "
                f"write into one is not seen by the other.",
                f"If you need a view, use .view() (it raises instead of copying) on a "
                f"contiguous tensor; if you meant to modify {trace.name_of(src)}, write into "
                f"it directly rather than into the reshaped result.")


def _blocking_dims(shape, stride):
    dims = [(n, s) for n, s in zip(shape, stride, strict=True) if n != 1]
    for i in range(len(dims) - 1):
        (_, s0), (n1, s1) = dims[i], dims[i + 1]
        if s0 != s1 * n1:
            return i, s0, s1, n1
    return None


@pitfall("VIEW-FAILED", "view() is impossible with these strides")
def _view_failed(trace):
    for e in trace.events:
        if e.kind == "notice" and e.name == "view_failed" and e.inputs:
            src = e.inputs[0]
            wanted = e.info.get("shape")
            block = _blocking_dims(src.shape, src.stride)
            why = ""
            if block is not None:
                _, s0, s1, n1 = block
                why = (f" Neighbouring dimensions can only merge when the outer stride equals "
                       f"the inner stride times the inner size; here {s0} != {s1} x {n1}, so "
                       f"the elements are not evenly spaced in memory.")
            yield _make(
                "VIEW-FAILED", e,
                f"view({wanted}) needs one stride per new dimension, but "
                f"{trace.name_of(src)} has shape {_shape(src)} and stride {_stride(src)} "
                f"(a transposed or sliced layout).{why}",
                f"Use .reshape({wanted}) (a view when possible, a copy otherwise) or "
                f".contiguous().view({wanted}) to copy explicitly.")


_INDEX_COPIES = {"__getitem__", "index_select", "masked_select", "take"}


def _reads(e):
    """Storages an event reads (the written target of an overwriting op is not read)."""
    out = set()
    for s in e.inputs:
        if e.modified is not None and s.label == e.modified.label and e.name in _WRITE_ONLY:
            continue
        out.add(s.storage)
    return out


@pitfall("WRITE-TO-INDEX-COPY", "a write went into a copy made by advanced indexing")
def _write_to_index_copy(trace):
    events = trace.events
    copies = {}  # storage of the copy -> (event, base snapshot)
    for e in events:
        if e.op_kind is not None and e.name in _INDEX_COPIES and e.kind == "copy" \
                and e.inputs and e.outputs:
            copies[e.outputs[0].storage] = (e, e.inputs[0])
    if not copies:
        return
    named_storages = _named_live_storages(trace)
    for i, e in enumerate(events):
        if e.modified is None or e.modified.storage not in copies:
            continue
        storage = e.modified.storage
        made, base = copies[storage]
        # Another write into the same copy continues the mistake; anything else reading
        # the copy (or a variable holding it) means the copy was wanted.
        later_read = any(storage in _reads(f) and not (f.modified is not None
                                                       and f.modified.storage == storage)
                         for f in events[i + 1:])
        if later_read or storage in named_storages:
            continue
        yield _make(
            "WRITE-TO-INDEX-COPY", e,
            f"Indexing {trace.name_of(base)} with a list, tensor or mask (line {made.line}) "
            f"returns a copy (new storage {storage}), not a view. The {e.name} at this line "
            f"wrote into that copy, which is never used afterwards: "
            f"{trace.name_of(base)} did not change.",
            f"Assign through the index in one statement, e.g. {trace.name_of(base)}[idx] = "
            f"value (or index_put_/index_fill_/masked_fill_), which writes into "
            f"{trace.name_of(base)} itself.")


def _named_live_storages(trace):
    out = set()
    for e in trace.events:
        for s in e.inputs + e.outputs:
            if trace.is_named(s) and s.ref() is not None:
                out.add(s.storage)
    return out


def _derived(trace, seed):
    """Follow view events from tensors ``seed(snapshot)`` marks: ``{label: origin}``."""
    marked = {}
    for e in trace.events:
        for s in e.inputs + e.outputs:
            if s.label not in marked:
                origin = seed(e, s)
                if origin is not None:
                    marked[s.label] = origin
        if e.kind == "view" and e.inputs and e.inputs[0].label in marked:
            for s in e.outputs:
                marked.setdefault(s.label, marked[e.inputs[0].label])
        yield e, marked


@pitfall("WRITE-OVERLAP", "a write through an expanded or overlapping view")
def _write_overlap(trace):
    def seed(e, s):
        return s if _overlapping(s.shape, s.stride) else None

    for e, marked in _derived(trace, seed):
        if e.modified is not None and e.modified.label in marked:
            origin = marked[e.modified.label]
            yield _make(
                "WRITE-OVERLAP", e,
                f"{trace.name_of(origin)} has shape {_shape(origin)} and stride "
                f"{_stride(origin)}: a stride of 0 (expand) or strides that overlap (unfold, "
                f"as_strided) make several elements share one memory cell. The {e.name} at "
                f"this line wrote through it, so one write shows up at several positions "
                f"(and in the tensor it was expanded from).",
                "clone() the expanded tensor before writing (e = x.expand(...).clone()), or "
                "write into the original tensor on purpose.")


@pitfall("DETACH-INPLACE", "detach() shares memory: the in-place write changed the original")
def _detach_inplace(trace):
    def seed(e, s):
        if e.name == "detach" and e.op_kind is not None and e.inputs and s in e.outputs \
                and e.inputs[0].requires_grad:
            return e.inputs[0]
        return None

    for e, marked in _derived(trace, seed):
        if e.modified is not None and e.modified.label in marked and e.name != "detach":
            origin = marked[e.modified.label]
            yield _make(
                "DETACH-INPLACE", e,
                f"detach() returns a tensor without history that shares memory (and the "
                f"version counter) with {trace.name_of(origin)}. The {e.name} at this line "
                f"changed {trace.name_of(origin)}'s values too; if autograd saved "
                f"{trace.name_of(origin)}, backward() will now raise.",
                "Copy first when you want independent values: x.detach().clone().")


# ---------------------------------------------------------------------- autograd
@pitfall("INPLACE-LEAF-VIEW", "in-place write into a view of a leaf that requires grad")
def _inplace_leaf_view(trace):
    for e in trace.events:
        if e.kind == "notice" and e.name == "inplace_refused" and len(e.inputs) >= 2:
            view, base = e.inputs[0], e.inputs[1]
            yield _make(
                "INPLACE-LEAF-VIEW", e,
                f"{trace.name_of(view)} is a view of {trace.name_of(base)}, a leaf that "
                f"requires grad. Writing into it would change {trace.name_of(base)}'s values "
                f"behind autograd's back, so the write was refused (RuntimeError).",
                f"Update parameters under `with torch.no_grad():`, or write into a copy "
                f"({trace.name_of(base)}.detach().clone() or .clone()).")


# In-place methods PyTorch has no out-of-place twin for (``x.zero()`` does not exist): what
# to write instead, given the target's name.
_NO_OUT_OF_PLACE = {
    "zero_": "torch.zeros_like({x})",
    "fill_": "torch.full_like({x}, value)",
    "copy_": "src.clone() (or src.expand_as({x}).clone())",
    "fill_diagonal_": "{x}.clone().fill_diagonal_(value)",
}
_RANDOM_FILLS = {"uniform_", "normal_", "random_", "cauchy_", "exponential_", "geometric_",
                 "log_normal_"}


def _out_of_place_fix(name, x):
    """The fix for an in-place write to a tensor autograd saved: the op's out-of-place
    form where PyTorch has one, else what makes a new tensor."""
    if name in _NO_OUT_OF_PLACE:
        new = _NO_OUT_OF_PLACE[name].format(x=x)
        return (f"Make a new tensor instead ({new}: {name} has no out-of-place form) and "
                f"assign it to a new name, or clone() before writing.")
    if name in _RANDOM_FILLS:
        return (f"Draw into a new tensor instead (torch.empty_like({x}).{name}(...)) and "
                f"assign it to a new name, or clone() before writing.")
    if name.startswith("__") or not name.endswith("_"):
        return (f"Write into a copy instead ({x}.clone(), then write into the copy), so the "
                f"saved tensor keeps its values.")
    return (f"Use the out-of-place form ({name[:-1]}) and assign the result to a new name, "
            f"or clone() before writing.")


@pitfall("SAVED-MODIFIED", "a tensor saved for backward was modified in place")
def _saved_modified(trace):
    for e in trace.events:
        for record in e.info.get("overwrites_saved", ()):
            saver = trace.events[record["saved_by_event"]]
            target = e.modified
            yield _make(
                "SAVED-MODIFIED", e,
                f"{record['node']} (made by {saver.name} at line {saver.line}) saved "
                f"{trace.name_of(target)} at version {record['saved_version']} to compute "
                f"gradients; the {e.name} at this line changed it (now version "
                f"{record['version']}). backward() through {record['node']} will raise "
                f"'one of the variables needed for gradient computation has been modified "
                f"by an inplace operation'.",
                _out_of_place_fix(e.name, trace.name_of(target)))


@pitfall("GRAD-ACCUMULATES", "gradients accumulated over several backward() calls")
def _grad_accumulates(trace):
    for e in trace.events:
        if e.kind == "backward" and e.info.get("accumulated") and e.inputs:
            leaf = e.inputs[0]
            yield _make(
                "GRAD-ACCUMULATES", e,
                f"{trace.name_of(leaf)}.grad already held the gradient of an earlier "
                f"backward() and nothing reset it, so this backward() added to it: "
                f"gradients accumulate by design.",
                "Call optimizer.zero_grad() (or set .grad = None) before each backward(), "
                "unless you are accumulating on purpose.")


def _count(n, noun):
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@pitfall("UNUSED-GRAPH", "an autograd graph was built and thrown away (inference without "
                         "no_grad)")
def _unused_graph(trace):
    # Only graphs recorded after the last backward() can have been left unused by it.
    start = 0
    for e in trace.events:
        if e.kind == "backward-call":
            start = e.index + 1
    # The count covers every node recorded since (the graph section lists them all), and
    # says how many are already gone: the last iteration's graph is usually still alive.
    recorded = {e.info.get("node") for e in trace.events[start:]
                if e.grad_fn is not None and e.info.get("node") is not None}
    dead = recorded & trace.dead_nodes
    first = next((e for e in trace.events[start:] if e.grad_fn is not None
                  and e.info.get("node") in dead), None)
    if first is None:
        return
    alive = len(recorded) - len(dead)
    gone = (("it was" if len(dead) == 1 else "all were") if not alive
            else f"{len(dead)} of them {'was' if len(dead) == 1 else 'were'}")
    held = (f"; the other {alive} {'is' if alive == 1 else 'are'} still held by a live "
            f"tensor" if alive else "")
    yield _make(
        "UNUSED-GRAPH", first,
        f"Ops on tensors that require grad recorded {_count(len(recorded), 'autograd node')}"
        f" that no backward() used: {gone} discarded, with the tensors they saved{held}. "
        f"The memory and time spent on them were wasted.",
        "Run inference and evaluation under `with torch.no_grad():` (or "
        "torch.inference_mode()).")


@pitfall("RETAIN-GRAPH", "retain_graph=True without a second backward")
def _retain_graph(trace):
    passes = []
    current = None
    for e in trace.events:
        if e.kind == "backward-call":
            current = (e, set())
            passes.append(current)
        elif e.kind == "backward" and current is not None:
            current[1].add(e.info.get("node"))
    for i, (call, nodes) in enumerate(passes):
        if not call.info.get("retain_graph") or call.info.get("create_graph"):
            continue
        if any(nodes & later for _, later in passes[i + 1:]):
            continue
        yield _make(
            "RETAIN-GRAPH", call,
            "backward(retain_graph=True) kept every saved tensor of the graph alive, but no "
            "later backward() went through this graph again: the graph's memory was held "
            "for nothing.",
            "Leave retain_graph at its default unless you call backward() twice through the "
            "same graph; compute a fresh forward pass per backward instead.")


# ---------------------------------------------------------------------- dtypes
@pitfall("DTYPE-PROMOTION", "dtype promotion changed the precision")
def _dtype_promotion(trace):
    for e in _ops(trace):
        if e.op_kind not in ("elementwise", "reduction") or len(e.inputs) < 2:
            continue
        dims = [s for s in e.inputs if s.shape]
        floats = {s.dtype for s in dims if s.dtype in _FLOAT_BITS}
        if len(floats) < 2 or not e.outputs:
            continue
        low = min(floats, key=_FLOAT_BITS.get)
        high = max(floats, key=_FLOAT_BITS.get)
        names = ", ".join(f"{trace.name_of(s)} ({s.dtype.replace('torch.', '')})"
                          for s in dims)
        result = e.outputs[0].dtype.replace("torch.", "")
        yield _make(
            "DTYPE-PROMOTION", e,
            f"{e.name} mixed {names}: PyTorch promotes to the wider type, so the result is "
            f"{result}. The {low.replace('torch.', '')} tensor was silently widened "
            f"(more memory and time; with float64 labels or targets from NumPy a whole "
            f"float32 model computes its loss in float64).",
            f"Convert once on purpose: .to({high}) or .to({low}) (e.g. labels.float() for "
            f"float64 targets, or run the mixed-precision region under torch.autocast).")


_FLOAT_BITS = {"torch.float16": 16, "torch.bfloat16": 16.5, "torch.float32": 32,
               "torch.float64": 64}


# ---------------------------------------------------------------------- devices
def _loop_lines(trace, kind):
    """(filename, line, count) of lines with a call site of ``kind`` reached twice or more
    (in a loop, or a function called repeatedly)."""
    lines = {}
    for (k, filename, line, _), count in trace.site_counts.items():
        if k == kind and count >= 2:
            lines[(filename, line)] = lines.get((filename, line), 0) + count
    for (filename, line), count in lines.items():
        yield filename, line, count


@pitfall("SYNC-IN-LOOP", "the host waits for the device inside a loop")
def _sync_in_loop(trace):
    for filename, line, count in _loop_lines(trace, "sync"):
        reasons = sorted({e.name for e in trace.events if e.kind == "sync"
                          and e.filename == filename and e.line == line})
        yield _make(
            "SYNC-IN-LOOP", None,
            f"This line made the host wait for the device {count} times "
            f"({', '.join(reasons) or 'sync'}): each .item(), .tolist(), .cpu() or print "
            f"of a device tensor stops the CPU until every queued kernel has finished, so the "
            f"device sits idle between iterations.",
            "Keep values on the device inside the loop (accumulate into a tensor) and read "
            "them once after it, or every N steps.",
            filename=filename, line=line, source=_source(trace, filename, line))


@pitfall("TRANSFER-IN-LOOP", "host-device transfers inside a loop")
def _transfer_in_loop(trace):
    for filename, line, count in _loop_lines(trace, "transfer"):
        total = sum(e.info.get("nbytes", 0) for e in trace.events if e.kind == "transfer"
                    and e.filename == filename and e.line == line)
        yield _make(
            "TRANSFER-IN-LOOP", None,
            f"This line copied data between host and device {count} times ({total} bytes "
            f"recorded): transfers are slow compared with kernels, and a blocking one also "
            f"synchronises.",
            "Move tensors to the device once, before the loop (model.to(device), data "
            "preloaded or pinned with non_blocking=True).",
            filename=filename, line=line, source=_source(trace, filename, line))


def _source(trace, filename, line):
    for e in trace.events:
        if e.filename == filename and e.line == line and e.source:
            return e.source
    import linecache

    return linecache.getline(filename, line).strip() or None if filename else None


# ---------------------------------------------------------------------- API misuse
@pitfall("TENSOR-OF-TENSOR", "torch.tensor(tensor) copies and detaches")
def _tensor_of_tensor(trace):
    for e in trace.events:
        if e.kind == "notice" and e.name == "tensor_from_tensor" and e.inputs:
            src = e.inputs[0]
            grad = (" It also drops the autograd history: gradients will not flow back to "
                    f"{trace.name_of(src)}." if src.requires_grad else "")
            yield _make(
                "TENSOR-OF-TENSOR", e,
                f"torch.tensor({trace.name_of(src)}) copies {trace.name_of(src)} into a new "
                f"leaf tensor (PyTorch warns about it).{grad}",
                "Say what you mean: x.clone() (a copy in the graph), x.detach().clone() (a "
                "copy without history) or torch.as_tensor(x) (no copy).")


@pitfall("DATA-ATTR", ".data bypasses autograd's checks")
def _data_attr(trace):
    for e in trace.events:
        if e.kind == "notice" and e.name == "data" and e.inputs:
            src = e.inputs[0]
            yield _make(
                "DATA-ATTR", e,
                f"{trace.name_of(src)}.data is the same memory without history and with its "
                f"own version counter: in-place writes through it are invisible to "
                f"autograd's saved-tensor check, so gradients can come out silently wrong.",
                "Use .detach() (shares the version counter, so misuse raises) and do "
                "updates under `with torch.no_grad():`.")


@pitfall("SCHEDULER-ORDER", "scheduler.step() before optimizer.step()")
def _scheduler_order(trace):
    for e in trace.events:
        if e.kind == "notice" and e.name == "scheduler_step" \
                and not e.info.get("optimizer_stepped"):
            yield _make(
                "SCHEDULER-ORDER", e,
                f"{e.info.get('scheduler')}.step() ran before any optimizer.step(): the "
                f"first value of the learning-rate schedule is skipped.",
                "Call optimizer.step() first, then scheduler.step(), once per epoch or "
                "iteration as the scheduler expects.")
            return


_EMPTY = {"empty", "empty_like", "new_empty", "empty_strided"}
_WRITE_ONLY = {"fill_", "zero_", "copy_", "uniform_", "normal_", "random_", "bernoulli_",
               "exponential_", "geometric_", "cauchy_", "log_normal_", "__setitem__",
               "index_fill_", "masked_fill_", "index_put_", "index_copy_", "scatter_",
               "masked_scatter_", "fill_diagonal_", "set_"}


@pitfall("EMPTY-READ", "reading empty() memory before writing it")
def _empty_read(trace):
    unwritten = {}  # storage -> the factory event
    for e in _ops(trace):
        if e.name in _EMPTY and e.kind == "allocation" and e.outputs:
            unwritten[e.outputs[0].storage] = e
            continue
        if not unwritten:
            continue
        for storage in _reads(e):
            if storage in unwritten and e.kind != "view":
                made = unwritten.pop(storage)
                yield _make(
                    "EMPTY-READ", e,
                    f"{made.name}() at line {made.line} allocated {made.outputs[0].numel} "
                    f"elements without initialising them; the {e.name} at this line read "
                    f"them before anything was written: the values are whatever the memory "
                    f"held (garbage, possibly NaN, different from run to run).",
                    "Use torch.zeros/torch.full, or write every element (fill_, copy_, out=) "
                    "before reading.")
        if e.modified is not None and e.modified.storage in unwritten:
            unwritten.pop(e.modified.storage)
