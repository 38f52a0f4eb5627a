"""``torch.autograd.profiler``: where the time of tensor code goes, op by op.

>>> import jtensor as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.autograd.profiler.profile() as prof:
...     y = (x * 2).sum()
...     y.backward()
>>> [e.key for e in prof.key_averages()]  # doctest: +NORMALIZE_WHITESPACE
['aten::mul', 'aten::sum', 'autograd::engine::evaluate_function: SumBackward0',
 'SumBackward0', 'autograd::engine::evaluate_function: MulBackward0', 'MulBackward0',
 'autograd::engine::evaluate_function: torch::autograd::AccumulateGrad',
 'torch::autograd::AccumulateGrad']

How it times: while a profile is open, ``_dispatch.profile_hook`` is ``_on_op``. Every op
entry hands it the parsed call; it reads the clock, calls the entry again (which gets
``_dispatch.CONTINUE`` from the hook and runs the op), reads the clock and appends one record
to ``_recording.log``. Ops called inside an op are timed the same way, so ranges nest; the results
nest them by time (``EventList._populate_cpu_children``), and an event's self time leaves its
children out. Backward nodes come from the engine's ``backward`` events (``event_hook``):
the engine reports a node when it has run, so a node's range starts where the previous
node's (or the ``backward()`` call's) ended. Records are plain tuples; ``FunctionEvent``s
are built when the results are first read.
"""

import contextlib
import math
import os
import sys
import threading
import time
import warnings

from .. import _dispatch
from .._dispatch import CONTINUE, OpDef
from .._tensor import Tensor
from .profiler_util import (
    BACKWARD_SCOPE,
    DeviceType,
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    write_chrome_trace,
)

__all__ = [
    "profile",
    "record_function",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "DeviceType",
]

_clock = time.perf_counter_ns
BACKWARD_PREFIX = "autograd::engine::evaluate_function: "

# A record: (name, start ns, end ns, thread, input shapes or None, sequence number, scope,
# user annotation?, bytes allocated, stack or None).
NAME, START, END, THREAD, SHAPES, SEQUENCE, SCOPE, ANNOTATION, MEMORY, STACK = range(10)


class _Thread(threading.local):
    """Per-thread state of the timing hook."""

    passing = None  # the entry the hook is calling again: its call must run, untimed
    boundary = None  # when this thread's last backward node (or backward call) ended
    timed = None  # the node ``_time_node`` timed last (its ``backward`` report is skipped)

    def __init__(self):
        self.thread = threading.get_native_id()


_local = _Thread()


class _Recording:
    """What the open profiles share: the records of every thread since the first opened
    (``log``), which details they asked for, and the event hook found when recording
    started (still called: a ``%%tensortrace`` cell may hold a profile)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sessions = []
        self.log = []
        self.shapes = self.memory = self.stack = False
        self.chained = None

    def add(self, session):
        with self.lock:
            if not self.sessions:
                self.chained = _dispatch.event_hook
                _dispatch.event_hook = _on_event
                _dispatch.profile_hook = _on_op
            self.sessions.append(session)
            self._options()
            return len(self.log)

    def remove(self, session):
        """Stop recording for ``session``; the records of its window."""
        with self.lock:
            if session not in self.sessions:
                return []
            self.sessions.remove(session)
            records = [
                r
                for r in self.log[session._first :]
                if r[START] >= session._start_ns
                and not any(
                    a <= r[START] and (b is None or r[START] < b) for a, b in session._paused
                )
            ]
            if not self.sessions:
                if _dispatch.event_hook is _on_event:
                    _dispatch.event_hook = self.chained
                if _dispatch.profile_hook is _on_op:
                    _dispatch.profile_hook = None
                self.chained = None
                self.log = []
            self._options()
            return records

    def _options(self):
        sessions = self.sessions
        self.shapes = any(s.record_shapes for s in sessions)
        self.memory = any(s.profile_memory for s in sessions)
        self.stack = any(s.with_stack for s in sessions)


_recording = _Recording()


# ------------------------------------------------------------------------ event names
# jtensor ops PyTorch's profiler shows under another aten name.
_RENAMED = {
    "cross_entropy": "aten::cross_entropy_loss",
    "logsigmoid": "aten::log_sigmoid",
    "unique": "aten::_unique2",
    "tensor": "aten::lift_fresh",
    "dropout1d": "aten::feature_dropout",
    "dropout2d": "aten::feature_dropout",
    "dropout3d": "aten::feature_dropout",
    "adaptive_max_pool1d_with_indices": "aten::adaptive_max_pool1d",
    "adaptive_max_pool2d_with_indices": "aten::adaptive_max_pool2d",
    "adaptive_max_pool3d_with_indices": "aten::adaptive_max_pool3d",
    "fractional_max_pool2d_with_indices": "aten::fractional_max_pool2d",
    "fractional_max_pool3d_with_indices": "aten::fractional_max_pool3d",
    "affine_grid": "aten::affine_grid_generator",
    "grid_sample": "aten::grid_sampler",
    "pack_padded_sequence": "aten::_pack_padded_sequence",
    "from_numpy": "aten::lift_fresh",
    "asarray": "aten::lift_fresh",
    "new_tensor": "aten::lift_fresh",
}
# jtensor ops that are Python functions in PyTorch (no aten op of their own): no event; the
# ops they call show, as in PyTorch's table.
_PYTHON_LEVEL = frozenset(
    (
        "softsign",
        "tanhshrink",
        "softmin",
        "normalize",
        "gaussian_nll_loss",
        "local_response_norm",
        "multilabel_soft_margin_loss",
        "triplet_margin_with_distance_loss",
        "gumbel_softmax",
        "lp_pool1d",
        "lp_pool2d",
        "lp_pool3d",
        "max_unpool1d",
        "linear_cross_entropy",
        "from_dlpack",
        "apply_",
        "map_",
        "unravel_index",
        "eig",
        "lstsq",
        "lu",
        "matrix_rank",
        "solve",
        "symeig",
    )
)


def _advanced(item):
    # (a NumPy integer indexes as an int; a NumPy array, a list or a tensor do not)
    return isinstance(item, (bool, Tensor, list)) or getattr(item, "ndim", 0) > 0


def _indexing_name(args):
    """``x[key]`` as PyTorch's profiler shows it: ``aten::index`` for advanced indexing,
    else the first step that does something (``select`` for an int, ``slice``,
    ``unsqueeze`` for None)."""
    key = args[1] if len(args) > 1 else None
    items = key if key.__class__ is tuple else (key,)
    if any(_advanced(item) for item in items):
        return "aten::index"
    for item in items:
        if item is None:
            return "aten::unsqueeze"
        if item.__class__ is slice:
            if item != slice(None):
                return "aten::slice"
        elif item is not Ellipsis:
            return "aten::select"
    return "aten::slice" if slice(None) in items else "aten::alias"


def _assignment_name(args):
    """``x[key] = value``: ``index_put_`` for advanced indexing, else the write
    (``copy_`` of a tensor, ``fill_`` of a number)."""
    key = args[1] if len(args) > 1 else None
    items = key if key.__class__ is tuple else (key,)
    if any(_advanced(item) for item in items):
        return "aten::index_put_"
    value = args[2] if len(args) > 2 else None
    return "aten::copy_" if isinstance(value, Tensor) else "aten::fill_"


def _norm_name(args):
    """``norm``: PyTorch's Python ``torch.norm`` calls a vector norm, or for ``"nuc"`` a
    matrix norm."""
    return (
        "aten::linalg_matrix_norm"
        if len(args) > 1 and args[1] == "nuc"
        else "aten::linalg_vector_norm"
    )


# ``F.interpolate``'s modes and the ATen op each one calls (``{}``: the spatial dims).
_UPSAMPLING = {
    "nearest": "upsample_nearest{}d",
    "nearest-exact": "_upsample_nearest_exact{}d",
    "linear": "upsample_linear1d",
    "bilinear": "upsample_bilinear2d",
    "bicubic": "upsample_bicubic2d",
    "trilinear": "upsample_trilinear3d",
    "area": "adaptive_avg_pool{}d",
}


def _interpolate_name(args):
    """``F.interpolate`` (Python in PyTorch) as the ATen op its mode calls."""
    mode = args[3] if len(args) > 3 else "nearest"
    dims = args[0].dim() - 2 if args and isinstance(args[0], Tensor) else 0
    return "aten::" + _UPSAMPLING.get(mode, "upsample_{}").format(dims)


_BY_ARGUMENTS = {
    "__getitem__": _indexing_name,
    "__setitem__": _assignment_name,
    "norm": _norm_name,
    "interpolate": _interpolate_name,
}
_NAMES = {}  # OpDef -> its event name, "" (no event) or a function of the arguments


def _name_for(op):
    name = _BY_ARGUMENTS.get(op.name)
    if name is None:
        name = "" if op.name in _PYTHON_LEVEL else _RENAMED.get(op.name, "aten::" + op.name)
    _NAMES[op] = name
    return name


# ------------------------------------------------------------------------ what is recorded
def _shape_of(value):
    if isinstance(value, Tensor):
        return list(value._shape)
    return []


def _shapes(args, kwargs):
    """Input shapes as PyTorch lists them: one entry per argument, a tensor's sizes or
    ``[]`` (numbers, lists, None)."""
    shapes = [_shape_of(a) for a in args]
    shapes += [_shape_of(v) for v in kwargs.values() if v is not None]
    return shapes


def _tensors_in(value):
    if isinstance(value, Tensor):
        yield value
    elif value.__class__ is tuple or value.__class__ is list:
        for item in value:
            if isinstance(item, Tensor):
                yield item


def _allocated(result, args, kwargs):
    """Bytes of the storages the call's outputs hold that none of its inputs held: what it
    allocated for its results (``profile_memory``; temporaries freed inside are not seen)."""
    seen = set()
    for value in (*args, *kwargs.values()):
        for t in _tensors_in(value):
            seen.add(id(t._storage))
    total = 0
    for t in _tensors_in(result):
        storage = getattr(t, "_storage", None)  # (a sparse tensor's parts are tensors)
        if storage is not None and id(storage) not in seen:
            seen.add(id(storage))
            total += storage.nbytes()
    return total


def _sequence_nr(result):
    """The sequence number of the autograd node the call recorded (-1: none)."""
    for t in _tensors_in(result):
        node = t._grad_fn
        return -1 if node is None else node._seq
    return -1


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stack():
    """The calling Python frames outside jtensor, innermost first, as PyTorch writes them
    (``file(line): function``)."""
    stack = []
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if not (name.startswith(_PACKAGE) or name.startswith("<entry of")):
            stack.append(f"{name}({frame.f_lineno}): {code.co_name}")
        frame = frame.f_back
    return stack


def _on_op(op, entry, args, kwargs):
    """``_dispatch.profile_hook``: time one op call (see the module's docstring)."""
    local = _local
    if local.passing is entry:
        local.passing = None
        return CONTINUE
    name = _NAMES.get(op)
    if name is None:
        if op.__class__ is not OpDef:  # an autograd node the engine runs
            return _time_node(op, entry, args, kwargs)
        name = _name_for(op)
    if name.__class__ is not str:
        name = name(args)
    if not name:
        return CONTINUE
    recording = _recording
    shapes = _shapes(args, kwargs) if recording.shapes else None
    stack = _user_stack() if recording.stack else None
    result = None
    # (An entry still to be passed stays marked: another op may run before its call gets
    # there, e.g. autocast's casts.)
    outer = local.passing
    local.passing = entry
    start = _clock()
    try:
        result = entry(*args, **kwargs)
    finally:
        end = _clock()
        local.passing = outer
        # ``contiguous()`` handing back a contiguous input ran nothing (PyTorch shows no op).
        if result is None or not args or result is not args[0] or op.name != "contiguous":
            recording.log.append(
                (
                    name,
                    start,
                    end,
                    local.thread,
                    shapes,
                    _sequence_nr(result),
                    0,
                    False,
                    _allocated(result, args, kwargs) if recording.memory else 0,
                    stack,
                )
            )
    return result


# The hook's frames sit between the user's code and the op, like the generated entries'; named
# like them, they are skipped wherever jtensor looks for the user's line (warnings'
# stacklevel, the trace recorder), so a warning raised inside a profiled op points where it
# points without the profiler.
_on_op.__code__ = _on_op.__code__.replace(co_filename="<entry of an op: the profiler's timing>")


def _node_records(node, start, end, thread):
    """Record one backward node's run: the engine's ``evaluate_function`` range around the
    node's own (one range for both)."""
    name = node.name()
    sequence = node._seq if node._seq < 2**63 else -1  # (AccumulateGrad's: none)
    shapes = [] if _recording.shapes else None
    log = _recording.log
    log.append((BACKWARD_PREFIX + name, start, end, thread, shapes, sequence, 0, False, 0, None))
    log.append((name, start, end, thread, shapes, sequence, BACKWARD_SCOPE, False, 0, None))


def _time_node(node, run, args, kwargs):
    """A node's run handed to ``profile_hook`` by the engine (``run(*args)``: the node's
    formula, or a leaf's accumulation), timed exactly; the engine's ``backward`` report that
    follows is then not recorded again. (Today's engine reports nodes only after they ran:
    see ``_on_event``.)"""
    local = _local
    start = _clock()
    try:
        return run(*args, **kwargs)
    finally:
        _node_records(node, start, _clock(), local.thread)
        local.timed = node


def _on_event(kind, info):
    """``_dispatch.event_hook`` while recording: backward nodes, each ranging from the end of
    the node (or the ``backward()`` call) before it to the engine's report."""
    if kind == "backward":
        end = _clock()
        local = _local
        node = info["node"]
        if local.timed is node:
            local.timed = None
        else:
            start = local.boundary if local.boundary is not None else end
            _node_records(node, start, end, local.thread)
    chained = _recording.chained
    if chained is not None:
        chained(kind, info)
    if kind == "backward" or kind == "backward_call":
        _local.boundary = _clock()


def _events(records, start_ns, use_device, with_flops):
    """``FunctionEvent``s of ``records``, in start order, times in microseconds since
    ``start_ns``."""
    records = sorted(records, key=lambda r: (r[START], -r[END]))
    events = []
    for i, r in enumerate(records, 1):
        name = r[NAME]
        trace_name = name
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"  # (all steps under one key, as PyTorch)
        event = FunctionEvent(
            id=i,
            name=name,
            trace_name=trace_name,
            thread=r[THREAD],
            start_us=(r[START] - start_ns) / 1000,
            end_us=(r[END] - start_ns) / 1000,
            input_shapes=r[SHAPES],
            stack=r[STACK],
            scope=r[SCOPE],
            use_device=use_device,
            cpu_memory_usage=r[MEMORY],
            sequence_nr=r[SEQUENCE],
            is_user_annotation=r[ANNOTATION],
        )
        if with_flops:
            event.flops = _flops(name, r[SHAPES])
        events.append(event)
    return events


def _flops(name, shapes):
    """Floating-point operations of the matrix products and of ``mul``/``add``, from the
    input shapes (PyTorch's ``with_flops`` formulas; 0 for other ops)."""
    if not shapes:
        return 0
    if name == "aten::mm" and len(shapes) >= 2 and len(shapes[0]) == 2:
        return 2 * math.prod(shapes[0]) * shapes[1][-1]
    if name == "aten::addmm" and len(shapes) >= 3 and len(shapes[1]) == 2:
        return 2 * math.prod(shapes[1]) * shapes[2][-1]
    if name in ("aten::bmm", "aten::baddbmm"):
        first = 1 if name == "aten::baddbmm" else 0
        if len(shapes) > first + 1 and len(shapes[first]) == 3:
            return 2 * math.prod(shapes[first]) * shapes[first + 1][-1]
    if name == "aten::matmul" and len(shapes) >= 2 and shapes[0] and len(shapes[1]) >= 2:
        return 2 * math.prod(shapes[0]) * shapes[1][-1]
    if name in ("aten::mul", "aten::add") and shapes[0]:
        return math.prod(shapes[0])
    return 0


# ------------------------------------------------------------------------ the profile
_VALID_DEVICES = ("cuda", "xpu", "mtia", "hpu")


class profile:
    """Context manager that times every jtensor op run inside it (and the backward nodes,
    and ``record_function`` ranges) and holds the results.

    ``prof.key_averages()`` averages the events per name (``group_by_input_shape=True``
    also per input shapes, with ``record_shapes=True``), ``prof.function_events`` lists
    them one by one, ``.table(sort_by=...)`` prints PyTorch's table and
    ``prof.export_chrome_trace(path)`` writes a trace for ``chrome://tracing``/Perfetto.
    Only the host is timed: ``use_cuda``/``use_device`` add no device columns.
    ``profile_memory`` counts the bytes of the storages each op's results got;
    ``with_stack`` keeps the Python frames of each op's caller; ``with_flops`` estimates
    the matrix products' and ``mul``/``add``'s floating-point operations; ``with_modules``
    is accepted and, as in PyTorch's eager mode, records nothing.
    """

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
        activity_filters=None,
    ):
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            warnings.warn(
                "The attribute `use_cuda` will be deprecated soon, please use "
                "``use_device = 'cuda'`` instead.",
                FutureWarning,
                stacklevel=2,
            )
            use_device = "cuda"
        self.use_device = use_device
        self._function_events = None
        self._old_function_events = None
        self._needs_processing = False
        self._records = None
        self.entered = False
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.activity_filters = activity_filters or {}
        self.trace_id = ""
        self.profiling_start_time_ns = self.profiling_end_time_ns = 0
        self._start_ns = 0
        self._first = 0
        self._paused = []  # [start, end or None] of the stretches not recorded
        if not use_cpu and not use_kineto:
            raise AssertionError("Device-only events supported only with Kineto (use_kineto=True)")
        if self.use_device is not None:
            if self.use_device not in _VALID_DEVICES:
                warnings.warn(f"The {self.use_device} is not a valid device option.", stacklevel=2)
                self.use_device = None
            elif self.use_device == "cuda":
                from .. import cuda

                if not cuda.is_available():
                    warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
                    self.use_cuda = False
                    self.use_device = None
            else:
                warnings.warn(
                    f"{self.use_device.upper()} is not available, disabling "
                    f"{self.use_device.upper()} profiling",
                    stacklevel=2,
                )
                self.use_device = None
        if not use_cpu and self.use_device is None:
            raise AssertionError("No activities specified for the profiler")
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")

    def default_trace_id(self):
        """A random trace id (32 hexadecimal digits)."""
        import uuid  # (imported when a profile starts: ``import jtensor`` stays light)

        return f"{uuid.uuid4().int:032X}"

    def create_trace_id(self):
        """The id of a new trace: the ``custom_trace_id_callback``'s, else a random one."""
        if self.custom_trace_id_callback:
            return self.custom_trace_id_callback()
        return self.default_trace_id()

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True
        self.trace_id = self.create_trace_id()

    def _start_trace(self):
        self.entered = True
        self.profiling_start_time_ns = time.time_ns()
        self._start_ns = _clock()
        if self.use_cpu:
            self._first = _recording.add(self)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return None
        if self._function_events and self.acc_events:
            self._old_function_events = self._function_events
        self._function_events = None
        self._needs_processing = True
        self.profiling_end_time_ns = time.time_ns()
        self._records = _recording.remove(self)
        if self.acc_events:
            self._ensure_function_events()
        return False

    def _text(self, render):
        if self._needs_processing:
            self._ensure_function_events()
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return render(self._function_events)

    def __repr__(self):
        return self._text(repr)

    def __str__(self):
        return self._text(str)

    def _ensure_function_events(self):
        """Build the events from the records (once per recording; empty before the end,
        as PyTorch's)."""
        if self._function_events is not None:
            return
        self._needs_processing = False
        events = EventList(
            _events(self._records or [], self._start_ns, self.use_device, self.with_flops),
            use_device=self.use_device,
            profile_memory=self.profile_memory,
            with_flops=self.with_flops,
        )
        events._build_tree()
        if self._old_function_events and self.acc_events:
            events.extend(self._old_function_events)
            self._old_function_events = None
        self._function_events = events

    @property
    def function_events(self):
        """Every event, in start order (an ``EventList``)."""
        if self._function_events is None or self._needs_processing:
            self._ensure_function_events()
        return self._function_events

    def table(self, *args, **kwargs):
        """The table of every event (``EventList.table``'s arguments)."""
        return self.function_events.table(*args, **kwargs)

    def export_chrome_trace(self, path, metadata=None, use_python_export=False):
        """Write the events to ``path`` as a Chrome trace (JSON)."""
        extra = {"trace_id": self.trace_id, "baseTimeNanoseconds": self.profiling_start_time_ns}
        if self.record_shapes:
            extra["record_shapes"] = 1
        extra.update(metadata or {})
        write_chrome_trace(path, self.function_events, extra)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the events' stacks with ``metric`` (needs ``with_stack=True``)."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self.function_events.export_stacks(path, metric)

    def toggle_collection_dynamic(self, enabled, activities):
        """Stop (``enabled=False``) or resume recording the CPU events (``activities``
        holding ``ProfilerActivity.CPU``) while the profile is open."""
        if not any(getattr(a, "name", None) == "CPU" for a in activities):
            return
        paused = self._paused
        if not enabled and (not paused or paused[-1][1] is not None):
            paused.append([_clock(), None])
        elif enabled and paused and paused[-1][1] is None:
            paused[-1][1] = _clock()

    def key_averages(
        self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """The events averaged per name (``EventList.key_averages``)."""
        return self.function_events.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def total_average(self):
        """All events added into one (key ``"Total"``)."""
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of every event's self CPU time (microseconds)."""
        return self.function_events.self_cpu_time_total


class record_function(contextlib.ContextDecorator):
    """Label a range of code: inside a profile it becomes an event named ``name`` whose
    children are the ops run inside (a context manager, or a decorator of a function).
    Outside a profile it costs a clock read's test and records nothing."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._starts = []  # one per open use (a decorated function may recurse)

    def __enter__(self):
        self._starts.append(_clock() if _recording.sessions else None)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        start = self._starts.pop() if self._starts else None
        if start is not None and _recording.sessions:
            end = _clock()
            _recording.log.append(
                (
                    self.name,
                    start,
                    end,
                    _local.thread,
                    [] if _recording.shapes else None,
                    -1,
                    0,
                    True,
                    0,
                    _user_stack() if _recording.stack else None,
                )
            )
        return False
