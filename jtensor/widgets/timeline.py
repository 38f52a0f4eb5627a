"""``DeviceTimeline``: host launches against device execution, with the sync points."""

import heapq
import math

from ._base import Visual
from ._svg import BAD, GRID, INK, MUTED, PALETTE, Svg, paragraph, tint, wrap
from .trace_view import _check_trace

# The queue model used when the trace has no timings: a launch costs the host a third of
# what the kernel costs the device, which is what makes a queue build up.
LAUNCH_STEP = 1 / 3
KERNEL_STEP = 1.0


class _Kernel:
    __slots__ = ("index", "op", "device", "line", "launch", "start", "end")


class _Sync:
    __slots__ = ("index", "reason", "device", "line", "start", "end")


class DeviceTimeline(Visual):
    """Host launches against device execution, from a trace of CUDA code (real or emulated):
    the host lane shows where Python queued each kernel, each device lane when the kernel
    ran, thin lines link the two, and red marks the sync points where the host waited for
    the queue to drain (``.item()``, ``.cpu()``, ``print``, ``synchronize()``...).

    With ``jtensor.trace.record(timings=True)`` the times are the measured ones (they vary
    from run to run). Without timings the picture is the order alone, drawn with a simple
    queue model (a launch a third of a kernel), and it is deterministic.

    >>> import jtensor as torch
    >>> from jtensor.widgets import DeviceTimeline
    >>> from jtensor import _dispatch
    >>> with torch.trace.record() as t:
    ...     _dispatch.emit("launch", device="cuda:0", op="mul", kernel=None)
    ...     _dispatch.emit("launch", device="cuda:0", op="sum", kernel=None)
    ...     _dispatch.emit("sync", device="cuda:0", reason="item")
    >>> tl = DeviceTimeline(t)
    >>> [(k.op, k.start, k.end) for k in tl.kernels]
    [('mul', 0.0, 1.0), ('sum', 1.0, 2.0)]
    >>> [(s.reason, round(s.start, 2), s.end) for s in tl.syncs]
    [('item', 0.67, 2.0)]
    """

    kind = "device-timeline"

    def __init__(self, trace):
        _check_trace(trace)
        self.trace = trace
        launches = [e for e in trace.events if e.kind == "launch"]
        self.timed = bool(launches) and all(e.info.get("launch_time") is not None
                                            for e in launches)
        self.kernels, self.syncs, self.transfers = [], [], []
        self._build()
        self.devices = sorted({k.device for k in self.kernels} |
                              {s.device for s in self.syncs})
        ends = [k.end for k in self.kernels if k.end is not None]
        ends += [s.end for s in self.syncs if s.end is not None]
        ends += [k.launch for k in self.kernels]
        self.span = (0.0, max(ends) if ends else 1.0)
        self.window = (0.0, 1.0)  # the visible fraction of the span
        self.links = True

    # ------------------------------------------------------------------ the model
    def _build(self):
        origin = None
        if self.timed:
            origin = min(e.info["launch_time"] for e in self.trace.events
                         if e.kind == "launch")
        host = 0.0
        queue_end = {}  # device -> when its last queued kernel ends
        for e in self.trace.events:
            if e.kind == "launch":
                k = _Kernel()
                k.index, k.op, k.line = e.index, e.info.get("op", e.name), e.line
                k.device = e.info.get("device", "cuda")
                if self.timed:
                    k.launch = (e.info["launch_time"] - origin) * 1e3
                    start, end = e.info.get("start_time"), e.info.get("end_time")
                    k.start = None if start is None else (start - origin) * 1e3
                    k.end = None if end is None else (end - origin) * 1e3
                    host = k.launch
                else:
                    k.launch = host
                    k.start = max(host, queue_end.get(k.device, 0.0))
                    k.end = k.start + KERNEL_STEP
                    host += LAUNCH_STEP
                if k.end is not None:
                    queue_end[k.device] = max(queue_end.get(k.device, 0.0), k.end)
                self.kernels.append(k)
            elif e.kind == "sync":
                s = _Sync()
                s.index, s.reason, s.line = e.index, e.info.get("reason", e.name), e.line
                s.device = e.info.get("device", "cuda")
                s.start = host
                # The host waits until everything queued before on that device has run.
                s.end = max(host, queue_end.get(s.device, host))
                self.syncs.append(s)
                host = s.end
            elif e.kind == "transfer":
                self.transfers.append((e.index, host, e.info.get("src"), e.info.get("dst"),
                                       e.info.get("nbytes", 0), e.line))

    def waited(self):
        """Total time (ms, or model steps) the host spent waiting at sync points."""
        return sum(s.end - s.start for s in self.syncs)

    def max_queue(self):
        """The most kernels queued but not finished at any launch (how far the host ran
        ahead of the device), per device then the largest."""
        most = 0
        running = {}  # device -> heap of the end times of kernels not yet finished
        for k in sorted(self.kernels, key=lambda k: k.launch):
            heap = running.setdefault(k.device, [])
            while heap and heap[0] <= k.launch:
                heapq.heappop(heap)
            heapq.heappush(heap, math.inf if k.end is None else k.end)
            most = max(most, len(heap))
        return most

    # ------------------------------------------------------------------ state
    def set_window(self, start, stop):
        """Zoom to the fraction ``[start, stop]`` of the time span (0..1)."""
        start, stop = float(start), float(stop)
        if not 0.0 <= start < stop <= 1.0:
            raise ValueError(f"the window must satisfy 0 <= start < stop <= 1, got "
                             f"({start}, {stop})")
        self.window = (start, stop)
        self._refresh()

    def set_links(self, show):
        """Draw (or hide) the lines from each launch to its kernel's start."""
        self.links = bool(show)
        self._refresh()

    # ------------------------------------------------------------------ snapshot
    def _unit(self):
        return "ms" if self.timed else "steps (order only)"

    def text(self):
        reasons = ", ".join(f"{s.reason} (line {s.line})" for s in self.syncs) or "none"
        return (f"{len(self.kernels)} kernel launches on {', '.join(self.devices) or 'no device'}"
                f"; sync points: {reasons}; host waited {self.waited():.3g} {self._unit()}; "
                f"up to {self.max_queue()} kernels queued ahead of the device")

    def html(self):
        if not self.kernels and not self.syncs:
            return wrap(self.kind, paragraph(
                "no kernel launches or sync points in this trace: record CUDA code (a GPU, "
                "or jtensor.cuda.emulate()) to see the host and the device side by side",
                colour_=MUTED))
        left, width, lane_h = 110, 640, 34
        lo = self.span[0] + (self.span[1] - self.span[0]) * self.window[0]
        hi = self.span[0] + (self.span[1] - self.span[0]) * self.window[1]
        scale = width / max(hi - lo, 1e-12)

        def x(t):
            return left + (min(max(t, lo), hi) - lo) * scale

        def visible(a, b):
            return b >= lo and a <= hi

        svg = Svg()
        lanes = ["host"] + self.devices
        top = 20
        ys = {name: top + i * (lane_h + 10) for i, name in enumerate(lanes)}
        bottom = top + len(lanes) * (lane_h + 10)
        for name, y in ys.items():
            svg.text(0, y + lane_h / 2 + 4, "host (Python)" if name == "host" else name,
                     size=11, weight="bold")
            svg.rect(left, y, width, lane_h, fill="#FAFAFA", stroke=GRID)
        ops = []
        for k in self.kernels:
            if k.op not in ops:
                ops.append(k.op)
        dense = sum(1 for k in self.kernels if visible(k.launch, k.launch)) > 30
        for n, k in enumerate(self.kernels):
            c = PALETTE[ops.index(k.op) % len(PALETTE)]
            hy, dy = ys["host"], ys[k.device]
            if visible(k.launch, k.launch):
                # A short tick, so the op's name above or below it never sits on its colour.
                svg.rect(x(k.launch), hy + 12, 3, lane_h - 24, fill=c, stroke="none",
                         title=f"launch {k.op} (line {k.line})")
                if not dense:
                    svg.text(x(k.launch) + 1, hy + (9 if n % 2 else lane_h - 1), k.op, size=8,
                             anchor="middle", fill=MUTED)
            if k.start is None:
                svg.rect(x(k.launch), dy + 6, 12, lane_h - 12, fill="#FFFFFF", stroke=c,
                         dash="2,2", title=f"{k.op}: not run when the recording stopped")
                continue
            if not visible(k.start, k.end):
                continue
            w = max(x(k.end) - x(k.start), 2)
            svg.rect(x(k.start), dy + 4, w, lane_h - 8, fill=tint(c, 0.35), stroke=c,
                     title=f"{k.op} ran from {k.start:.4g} to {k.end:.4g} {self._unit()}")
            if w > len(k.op) * 5.5:
                svg.text(x(k.start) + w / 2, dy + lane_h / 2 + 4, k.op, size=9, anchor="middle")
            if self.links and visible(k.launch, k.launch):
                svg.line(x(k.launch) + 1.5, hy + lane_h - 12, x(k.start), dy + 4, stroke=GRID)
        for s in self.syncs:
            if not visible(s.start, s.end):
                continue
            hy = ys["host"]
            svg.line(x(s.start), top - 6, x(s.start), bottom - 10, stroke=BAD, dash="4,3")
            svg.rect(x(s.start), hy + lane_h / 2 - 4, max(x(s.end) - x(s.start), 2), 8,
                     fill=BAD, stroke="none", title=f"host waits: {s.reason}")
            near_end = x(s.start) > left + width * 0.7
            svg.text(x(s.start) + (-2 if near_end else 2), top - 8,
                     f"sync: {s.reason} (line {s.line})", size=9, fill=BAD,
                     anchor="end" if near_end else "start")
        for _index, at, src, dst, _nbytes, _line in self.transfers:
            if visible(at, at):
                svg.text(x(at), ys["host"] + lane_h + 8, f"{src}→{dst}", size=8,
                         anchor="middle", fill=INK)
        # Axis.
        ticks = 5
        for i in range(ticks + 1):
            t = lo + (hi - lo) * i / ticks
            svg.line(x(t), bottom - 8, x(t), bottom - 4, stroke=MUTED)
            svg.text(x(t), bottom + 6, f"{t:.3g}", size=9, anchor="middle", fill=MUTED)
        svg.text(left + width, bottom + 20, self._unit(), size=9, anchor="end", fill=MUTED)
        picture = svg.render(left + width + 50, bottom + 26, self.kind,
                             f"device timeline: {self.text()}")
        parts = [paragraph(self.text(), bold=True), picture]
        if not self.timed:
            parts.append(paragraph("order only: record with jtensor.trace.record(timings=True) "
                                   "for measured times", colour_=MUTED))
        else:
            parts.append(paragraph("measured times, relative to the first launch (they vary "
                                   "from run to run)", colour_=MUTED))
        return wrap(self.kind, "".join(parts))

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        zoom = ipywidgets.FloatRangeSlider(value=list(self.window), min=0.0, max=1.0,
                                           step=0.01, description="window",
                                           continuous_update=False)
        links = ipywidgets.Checkbox(value=self.links, description="launch → kernel lines")

        def on_zoom(change):
            a, b = change["new"]
            if b > a:
                self.set_window(a, b)

        zoom.observe(on_zoom, names="value")
        links.observe(lambda change: self.set_links(change["new"]), names="value")
        return [("window", zoom), ("links", links)]
