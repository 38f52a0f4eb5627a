"""``torch.autograd.profiler_util``: the profiler's results.

``FunctionEvent`` is one timed range (an op call, a backward node, a ``record_function``
label), ``FunctionEventAvg`` the sum of the events sharing a key, ``EventList`` a list of
either with PyTorch's helpers: ``key_averages()``, ``total_average()``, ``table()`` (PyTorch's
text table, column for column) and ``export_chrome_trace()``. Times are microseconds
(floats), as PyTorch's.
"""

import enum
import itertools
import math
import warnings
from collections import defaultdict, namedtuple

__all__ = [
    "EventList",
    "FormattedTimesMixin",
    "Interval",
    "Kernel",
    "FunctionEvent",
    "FunctionEventAvg",
    "DeviceType",
    "ProfilerActivity",
]


class DeviceType(enum.IntEnum):
    """Where an event ran (``torch.autograd.DeviceType``; jtensor's events are CPU ones)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20

    def __str__(self):
        return f"DeviceType.{self.name}"


class ProfilerActivity(enum.Enum):
    """What a profiler records (``torch.profiler.ProfilerActivity``): ``CPU``, the ops
    timed on the host, or a device's activity (jtensor times the host only)."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __int__(self):
        return self.value


# at::RecordScope of a backward node's own event (PyTorch's BACKWARD_FUNCTION).
BACKWARD_SCOPE = 1

Kernel = namedtuple("Kernel", ["name", "device", "duration"])


class Interval:
    """A time range in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the range."""
        return self.end - self.start


def _format_time(time_us):
    """PyTorch's time text: seconds, milliseconds or microseconds, three decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_in(time_us, unit):
    """``time_us`` in ``unit`` (``"s"``, ``"ms"``, ``"us"``) or, for None, the fitting one."""
    if unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def _format_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    """PyTorch's memory text (``"1.50 KB"``, ``"12 B"``)."""
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _deprecated_device(name, replacement):
    def read(self):
        warnings.warn(
            f"`{name}` is deprecated, please use `{replacement}` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(self, replacement)

    return property(read)


def _time_text(name):
    return property(lambda self: _format_time(getattr(self, name)))


class FormattedTimesMixin:
    """The average times and the ``*_str`` texts shared by ``FunctionEvent`` and
    ``FunctionEventAvg`` (which define ``cpu_time_total``, ``device_time_total`` and
    ``count``)."""

    cpu_time_str = _time_text("cpu_time")
    device_time_str = _time_text("device_time")
    cpu_time_total_str = _time_text("cpu_time_total")
    device_time_total_str = _time_text("device_time_total")
    self_cpu_time_total_str = _time_text("self_cpu_time_total")
    self_device_time_total_str = _time_text("self_device_time_total")

    @property
    def cpu_time(self):
        """Average CPU time of one call, in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        """Average device time of one call, in microseconds (0: jtensor times the host)."""
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    cuda_time = _deprecated_device("cuda_time", "device_time")
    cuda_time_total = _deprecated_device("cuda_time_total", "device_time_total")
    self_cuda_time_total = _deprecated_device("self_cuda_time_total", "self_device_time_total")


def _on_cpu(event):
    return event.device_type == DeviceType.CPU


def _less_children(name, counts, doc):
    """A ``self_*`` property: the event's ``name`` less its children's (0 for an
    asynchronous event, or one ``counts(event)`` says has none)."""

    def read(self):
        if self.is_async or not counts(self):
            return 0
        return getattr(self, name) - sum(getattr(c, name) for c in self.cpu_children)

    return property(read, doc=doc)


class FunctionEvent(FormattedTimesMixin):
    """One timed range: an op call (``aten::mul``), a backward node
    (``autograd::engine::evaluate_function: MulBackward0`` around ``MulBackward0``) or a
    ``record_function`` label. ``cpu_children``/``cpu_parent`` are the ranges directly
    inside it and the one directly around it (same thread); self time leaves the children
    out."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        overload_name="",
        fwd_thread=None,
        input_shapes=None,
        stack=None,
        scope=0,
        use_device=None,
        cpu_memory_usage=0,
        device_memory_usage=0,
        is_async=False,
        is_remote=False,
        sequence_nr=-1,
        node_id=-1,
        device_type=DeviceType.CPU,
        device_index=0,
        device_resource_id=None,
        is_legacy=False,
        flops=None,
        trace_name=None,
        concrete_inputs=None,
        kwinputs=None,
        is_user_annotation=False,
    ):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        """Record a device kernel this event launched."""
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Add a range directly inside this one (its time leaves this one's self time)."""
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Set the range directly around this one."""
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        """The range's length, in microseconds."""
        if self.device_type != DeviceType.CPU:
            return 0
        return self.time_range.elapsed_us()

    @property
    def device_time_total(self):
        """Device time (0: jtensor's profiler times the host)."""
        if self.is_async or not self.use_device:
            return 0
        return sum(k.duration for k in self.kernels) + sum(
            c.device_time_total for c in self.cpu_children
        )

    self_cpu_time_total = _less_children(
        "cpu_time_total", _on_cpu, "The range's length less its children's, in microseconds."
    )
    self_device_time_total = _less_children(
        "device_time_total",
        lambda e: e.use_device,
        "Device time less the children's (0: jtensor's profiler times the host).",
    )
    self_cpu_memory_usage = _less_children(
        "cpu_memory_usage",
        _on_cpu,
        "Bytes this range allocated less its children's (with ``profile_memory``).",
    )
    self_device_memory_usage = _less_children(
        "device_memory_usage", _on_cpu, "Device bytes allocated less the children's."
    )
    self_cuda_memory_usage = _deprecated_device(
        "self_cuda_memory_usage", "self_device_memory_usage"
    )

    @property
    def key(self):
        """What ``key_averages`` groups by: the name."""
        return self.name

    def __repr__(self):
        device = self.use_device
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
            f"device_type={self.device_type} node_id={self.node_id} "
            f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
            f"end_us={self.time_range.end} "
            f"cpu_children={[c.id for c in self.cpu_children]} "
            f"{device}_time={self.device_time_str} name={self.name} thread={self.thread} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            f"{device}_memory_usage={self.device_memory_usage} is_async={self.is_async} "
            f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
            f"is_legacy={self.is_legacy}>"
        )


# A FunctionEventAvg's fields copied from the first event added, and the fields it sums.
_DESCRIBED = (
    "key",
    "node_id",
    "is_async",
    "is_remote",
    "cpu_parent",
    "cpu_children",
    "overload_name",
    "input_shapes",
    "stack",
    "scope",
    "device_type",
    "is_legacy",
    "use_device",
    "is_user_annotation",
)
_SUMMED = (
    "cpu_time_total",
    "device_time_total",
    "self_cpu_time_total",
    "self_device_time_total",
    "cpu_memory_usage",
    "device_memory_usage",
    "self_cpu_memory_usage",
    "self_device_memory_usage",
    "count",
)


class FunctionEventAvg(FormattedTimesMixin):
    """The events of one key added up (``count`` calls); ``cpu_time`` is the average."""

    def __init__(self):
        for name in _SUMMED:
            setattr(self, name, 0)
        self.key = None
        self.node_id = 0
        self.is_async = self.is_remote = self.is_legacy = self.is_user_annotation = False
        self.use_device = self.input_shapes = self.overload_name = self.stack = None
        self.scope = self.cpu_children = self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.flops = 0

    def add(self, other):
        """Add one event (or average) of the same key; returns ``self``."""
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if self.key is None:  # the first one gives the descriptive fields
            for name in _DESCRIBED:
                setattr(self, name, getattr(other, name))
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        device = self.use_device or "cuda"
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_{device}_time="
            f"{self.self_device_time_total_str} {device}_time={self.device_time_str} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            f"{device}_memory_usage={self.device_memory_usage}>"
        )


class EventList(list):
    """A list of ``FunctionEvent`` (or ``FunctionEventAvg``) with PyTorch's helpers;
    printing it prints its ``table()``."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def _build_tree(self):
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._tree_built = True

    def _populate_cpu_children(self):
        """Nest the ranges: on each thread, a range lies in the innermost range that
        contains it whole (ranges that overlap only partly are not nested)."""
        events = sorted(
            (e for e in self if not e.is_async and e.device_type == DeviceType.CPU),
            key=lambda e: (e.thread, e.node_id),
        )
        for _, same_thread in itertools.groupby(events, key=lambda e: (e.thread, e.node_id)):
            open_ranges = []
            for event in sorted(same_thread, key=lambda e: (e.time_range.start, -e.time_range.end)):
                while open_ranges:
                    parent = open_ranges[-1]
                    if (
                        event.time_range.start >= parent.time_range.end
                        or event.time_range.end > parent.time_range.end
                    ):
                        open_ranges.pop()
                    else:
                        parent.append_cpu_child(event)
                        event.set_cpu_parent(parent)
                        break
                open_ranges.append(event)

    def _remove_dup_nodes(self):
        """Fold an event into its parent of the same name when it is the only child (an
        op whose public form calls itself), as PyTorch does."""
        while True:
            folded = set()
            for i, event in enumerate(self):
                parent = event.cpu_parent
                if (
                    parent is not None
                    and parent.name == event.name
                    and len(parent.cpu_children) == 1
                ):
                    parent.cpu_children = event.cpu_children
                    parent.kernels = event.kernels
                    for child in event.cpu_children:
                        child.cpu_parent = parent
                    folded.add(i)
            if not folded:
                return
            kept = [e for i, e in enumerate(self) if i not in folded]
            self.clear()
            self.extend(kept)

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self CPU times (microseconds)."""
        return sum(event.self_cpu_time_total for event in self)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto): a JSON
        object whose ``traceEvents`` hold one complete (``"X"``) event per range."""
        write_chrome_trace(path, self)

    def supported_export_stacks_metrics(self):
        """The metrics ``export_stacks`` accepts."""
        return [
            "self_cpu_time_total",
            "self_cuda_time_total",
            "self_xpu_time_total",
            "self_privateuse1_time_total",
        ]

    def export_stacks(self, path, metric):
        """Write one line per event with a stack: the frames outermost first, joined by
        ``;``, then the metric (a flame-graph input)."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError(
                "metric should be one of: " + str(self.supported_export_stacks_metrics())
            )
        attribute = (
            metric.replace("cuda", "device")
            .replace("xpu", "device")
            .replace("privateuse1", "device")
        )
        spaces = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for event in self:
                if event.stack and int(getattr(event, attribute)) > 0:
                    frames = ";".join(entry.translate(spaces) for entry in reversed(event.stack))
                    f.write(f"{frames} {int(getattr(event, attribute))}\n")

    def key_averages(
        self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """One ``FunctionEventAvg`` per key (the event's name, and with the flags its input
        shapes, its first ``group_by_stack_n`` stack frames, its overload), in the order
        the keys first occur."""
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        stats = defaultdict(FunctionEventAvg)
        for event in self:
            key = [
                str(event.key),
                str(event.node_id),
                str(event.device_type),
                str(event.is_legacy),
                str(event.is_user_annotation),
            ]
            if group_by_overload_name:
                key.append(event.overload_name)
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += (event.stack or [])[:group_by_stack_n]
            stats[tuple(key)].add(event)
        averages = EventList(
            stats.values(),
            use_device=self._use_device,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
        )
        for average in averages:
            average.stack = (average.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                average.input_shapes = ""
            if not group_by_overload_name:
                average.overload_name = ""
        averages._tree_built = True
        return averages

    def total_average(self):
        """Every event added into one ``FunctionEventAvg`` whose key is ``"Total"``."""
        total = FunctionEventAvg()
        for event in self:
            total += event
            total.key = None  # (the next event's key is then accepted)
        total.key = "Total"
        return total


def _flops_scale(smallest):
    """The power of 1000 and the header for a flops column whose smallest value is
    ``smallest``."""
    headers = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    power = int(max(0, min(math.log10(smallest) / 3, len(headers) - 1)))
    return 10.0 ** (-3 * power), headers[power]


def _table(
    events,
    sort_by=None,
    row_limit=100,
    max_src_column_width=75,
    max_name_column_width=55,
    max_shapes_column_width=80,
    header=None,
    top_level_events_only=False,
    time_unit=None,
):
    """PyTorch's text table of the events (``EventList.table``), sorted by the attribute
    ``sort_by`` (``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"cpu_time"``,
    ``"count"``, ``"cpu_memory_usage"``...; ``cuda``/``xpu`` read as ``device``), largest
    first, at most ``row_limit`` rows (-1: all): a name column, the CPU time columns, memory
    columns (``profile_memory``), the call count, then input shapes, source lines and flops
    when the events have them; a dashed rule above and below the header, the rows, a rule,
    and the total self CPU time."""
    if len(events) == 0:
        return ""
    profile_memory = events._profile_memory
    with_flops = events._with_flops
    use_device = events[0].use_device
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_memory = any(e.self_device_memory_usage > 0 for e in events)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overloads = any(e.overload_name is not None and len(e.overload_name) > 0 for e in events)
    if sort_by is not None:
        attribute = (
            sort_by.replace("cuda", "device")
            .replace("xpu", "device")
            .replace("privateuse1", "device")
        )
        events = EventList(
            sorted(events, key=lambda e: getattr(e, attribute), reverse=True),
            use_device=use_device,
            profile_memory=profile_memory,
            with_flops=with_flops,
        )
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = None
    if stacks:
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    device = use_device.upper() if use_device is not None else "None"
    headers = (
        ["Name"]
        + (["Overload Name"] if has_overloads else [])
        + ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    )
    if has_device_time:
        headers += [f"Self {device}", f"Self {device} %", f"{device} total", f"{device} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_memory:
            headers += [f"{device} Mem", f"Self {device} Mem"]
    headers.append("# of Calls")
    with_node_id = any(e.node_id != -1 for e in events)
    if with_node_id:
        headers.append("Node ID")
    widths = [name_width] * (2 if has_overloads else 1)
    widths += [12] * (len(headers) - len(widths))
    aligns = [">"] * len(widths)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    if with_flops:
        positive = [e.flops for e in events if e.flops is not None and e.flops > 0]
        if positive:
            flops_scale, flops_header = _flops_scale(min(positive))
            headers.append(f"Total {flops_header}")
            widths.append(12)
            aligns.append(">")
        else:
            with_flops = False
    row_format = "".join("{: " + a + str(w) + "}  " for a, w in zip(aligns, widths, strict=True))
    rule = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [rule, row_format.format(*headers), rule]

    def trim(path):
        if len(path) > src_width:
            path = path[len(path) - src_width :]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        e.self_cpu_percent = _format_share(e.self_cpu_time_total, total_self)
        e.total_cpu_percent = 0 if e.is_async else _format_share(e.cpu_time_total, total_self)
        row = [name]
        if has_overloads:
            overload = e.overload_name or ""
            if max_name_column_width is not None and len(overload) >= max_name_column_width - 3:
                overload = overload[: max_name_column_width - 3] + "..."
            row.append(overload)
        row += [
            e.self_cpu_percent,
            _format_time_in(e.self_cpu_time_total, time_unit),
            e.total_cpu_percent,
            _format_time_in(e.cpu_time_total, time_unit),
            _format_time_in(e.cpu_time, time_unit),
        ]
        if has_device_time:
            e.total_device_percent = _format_share(e.self_device_time_total, total_self)
            row += [
                _format_time_in(e.self_device_time_total, time_unit),
                e.total_device_percent,
                _format_time_in(e.device_time_total, time_unit),
                _format_time_in(e.device_time, time_unit),
            ]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if use_device and has_device_memory:
                row += [
                    _format_memory(e.device_memory_usage),
                    _format_memory(e.self_device_memory_usage),
                ]
        row.append(e.count)
        if with_node_id:
            row.append(e.node_id)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(trim(e.stack[0]) if e.stack else "")
        if with_flops:
            row.append("--" if not e.flops or e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(rule)
    lines.append(f"Self CPU time total: {_format_time_in(total_self, time_unit)}")
    return "".join(line + "\n" for line in lines)


EventList.table = _table  # (the method, written beside the table's helpers)


def write_chrome_trace(path, events, metadata=None):
    """Write ``events`` (``FunctionEvent``s) to ``path`` as a Chrome trace, in the layout
    of PyTorch's (Kineto's) files: process and thread names, one complete event per range
    (``cat`` ``cpu_op`` or ``user_annotation``, ``ts``/``dur`` in microseconds), and a flow
    arrow (``fwdbwd``) from each op that recorded an autograd node to that node's run.
    ``metadata`` adds top-level fields."""
    import json  # (imported when a trace is written: ``import jtensor`` stays light)
    import os

    pid = os.getpid()
    start = min((e.time_range.start for e in events), default=0.0)
    trace = [
        {
            "ph": "M",
            "name": "process_name",
            "ts": start,
            "pid": pid,
            "tid": 0,
            "args": {"name": "python"},
        },
        {
            "ph": "M",
            "name": "process_labels",
            "ts": start,
            "pid": pid,
            "tid": 0,
            "args": {"labels": "CPU"},
        },
    ]
    for thread in sorted({e.thread for e in events}):
        trace.append(
            {
                "ph": "M",
                "name": "thread_name",
                "ts": start,
                "pid": pid,
                "tid": thread,
                "args": {"name": f"thread {thread} (python)"},
            }
        )
    ordered = sorted(events, key=lambda e: (e.time_range.start, -e.time_range.end))
    for index, e in enumerate(ordered):
        args = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
        args["Record function id"] = 0
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        args["Ev Idx"] = index
        ts = round(e.time_range.start, 3)
        trace.append(
            {
                "ph": "X",
                "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                "name": e.trace_name,
                "pid": pid,
                "tid": e.thread,
                "ts": ts,
                "dur": round(e.time_range.elapsed_us(), 3),
                "args": args,
            }
        )
        # The arrow starts at the forward op and ends at the node's own event.
        if e.sequence_nr >= 0 and not e.name.startswith("autograd::engine::"):
            arrow = {
                "ph": "s",
                "id": e.sequence_nr,
                "pid": pid,
                "tid": e.thread,
                "ts": ts,
                "cat": "fwdbwd",
                "name": "fwdbwd",
            }
            if e.scope == BACKWARD_SCOPE:
                arrow.update(ph="f", bp="e")
            trace.append(arrow)
    document = {
        "schemaVersion": 1,
        "deviceProperties": [],
        "displayTimeUnit": "ms",
        "traceEvents": trace,
        "traceName": str(path),
    }
    if metadata:
        document.update(metadata)
    with open(path, "w") as f:
        json.dump(document, f)
