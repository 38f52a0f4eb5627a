"""``TraceView``: the events of a ``jtensor.trace`` recording as a filterable table, and the
bytes allocated over the op sequence per device (a matplotlib plot)."""

import io
import re

from ._base import Visual
from ._svg import BAD, MUTED, PALETTE, esc, paragraph, wrap
from .._errors import type_name

ROW_LIMIT = 200
KINDS = ("allocation", "view", "copy", "in-place", "transfer", "sync", "launch",
         "backward-call", "backward", "notice")


def _check_trace(trace):
    if not (hasattr(trace, "events") and hasattr(trace, "name_of")
            and hasattr(trace, "summary")):
        raise TypeError("expected a trace from jtensor.trace.record() (or %%tensortrace), got "
                        f"{type_name(trace)}")
    if not getattr(trace, "stopped", True):
        raise RuntimeError("the trace is still recording; show it after the `with` block "
                           "(or after trace.stop())")


def _bytes(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def allocation_curves(trace):
    """``{device: [(event index, cumulative bytes allocated)]}``: the storage created by
    allocations and copies, on their output's device, summed along the trace (what the plot
    shows). A transfer's bytes are the storage of the copy event that follows it, so they
    are counted there, once."""
    totals = {}
    curves = {}
    for e in trace.events:
        if not e.nbytes_allocated or e.kind not in ("allocation", "copy"):
            continue
        device = e.outputs[0].device if e.outputs else "?"
        totals[device] = totals.get(device, 0) + e.nbytes_allocated
        curves.setdefault(device, [(0, 0)]).append((e.index, totals[device]))
    end = len(trace.events)
    for device, points in curves.items():
        points.append((end, totals[device]))
    return curves


class TraceView(Visual):
    """A recorded trace as a table (one row per event: line, op, kind, inputs and outputs by
    the user's names, shapes, bytes allocated, grad_fn) with filters by event kind and by
    variable, and a plot of the bytes allocated along the op sequence, one line per device.

    >>> import jtensor as torch
    >>> from jtensor.widgets import TraceView
    >>> with torch.trace.record() as t:
    ...     x = torch.ones(2, 3)
    ...     y = x.t()
    ...     z = y + 1
    >>> v = TraceView(t)
    >>> [e.name for e in v.rows()]
    ['ones', 't', 'add']
    >>> v.set_filter(variable="y"); [e.name for e in v.rows()]
    ['t', 'add']
    """

    kind = "trace-view"

    def __init__(self, trace, kind=None, variable=None):
        _check_trace(trace)
        self.trace = trace
        self.kind_filter = None
        self.variable = None
        self.set_filter(kind=kind, variable=variable)

    # ------------------------------------------------------------------ state
    def kinds(self):
        """The event kinds present, in a fixed order."""
        present = {e.kind for e in self.trace.events}
        return [k for k in KINDS if k in present] + sorted(present - set(KINDS))

    def variables(self):
        """The user's variable names that appear in the trace, in order of appearance."""
        seen = []
        for e in self.trace.events:
            for s in e.tensors():
                if self.trace.is_named(s):
                    name = self.trace.name_of(s)
                    if name not in seen:
                        seen.append(name)
        return seen

    def set_filter(self, kind="", variable=""):
        """Show only events of this kind and/or touching this variable (None: all; an
        argument left out keeps the current filter)."""
        if kind != "":
            if kind is not None and kind not in self.kinds():
                raise ValueError(f"no event of kind {kind!r} in this trace; kinds present: "
                                 f"{self.kinds()}")
            self.kind_filter = kind
        if variable != "":
            if variable is not None and variable not in self.variables():
                raise ValueError(f"no variable named {variable!r} in this trace; variables: "
                                 f"{self.variables()}")
            self.variable = variable
        self._refresh()

    def rows(self):
        """The events passing the filters."""
        out = []
        for e in self.trace.events:
            if self.kind_filter is not None and e.kind != self.kind_filter:
                continue
            if self.variable is not None and not any(
                    self.trace.is_named(s) and self.trace.name_of(s) == self.variable
                    for s in e.tensors()):
                continue
            out.append(e)
        return out

    # ------------------------------------------------------------------ snapshot
    def _describe(self, snapshots):
        return ", ".join(f"{self.trace.name_of(s)}{list(s.shape)}" for s in snapshots)

    def _row_cells(self, e):
        line = "" if e.line is None else str(e.line)
        detail = ""
        if e.kind == "sync":
            detail = f"host waits for {e.info.get('device', '?')}"
        elif e.kind == "transfer":
            detail = f"{_bytes(e.info.get('nbytes', 0))}" + (
                " non_blocking" if e.info.get("non_blocking") else "")
        elif e.kind == "backward" and e.info.get("grads") is not None:
            detail = "grads " + ", ".join(str(g) for g in e.info["grads"])
        return [str(e.index), line, e.name, e.kind, self._describe(e.inputs),
                self._describe(e.outputs),
                _bytes(e.nbytes_allocated) if e.nbytes_allocated else "",
                e.grad_fn or "", detail, e.source or ""]

    def text(self):
        rows = self.rows()
        head = f"{len(rows)} of {len(self.trace.events)} events"
        filters = [f"kind={self.kind_filter}" if self.kind_filter else "",
                   f"variable={self.variable}" if self.variable else ""]
        filters = " ".join(f for f in filters if f)
        lines = [head + (f" ({filters})" if filters else "")]
        for e in rows[:ROW_LIMIT]:
            c = self._row_cells(e)
            lines.append(f"{c[0]:>4} line {c[1] or '-':>4}  {c[2]:<14} {c[3]:<10} "
                         f"{c[4]} -> {c[5]}" + (f"  {c[6]}" if c[6] else ""))
        if len(rows) > ROW_LIMIT:
            lines.append(f"... {len(rows) - ROW_LIMIT} more")
        return "\n".join(lines)

    def html(self):
        rows = self.rows()
        head = ["#", "line", "op", "kind", "inputs", "outputs", "allocated", "grad_fn",
                "detail", "source"]
        style = "border-bottom:1px solid #DDD;padding:1px 6px;text-align:left;vertical-align:top"
        table = ['<table class="jtensor-trace-table" style="border-collapse:collapse;'
                 'font-size:11px">', "<tr>"]
        table += [f'<th style="{style}">{esc(h)}</th>' for h in head]
        table.append("</tr>")
        for e in rows[:ROW_LIMIT]:
            colour_ = BAD if e.kind in ("sync", "notice") else "inherit"
            table.append(f'<tr data-kind="{esc(e.kind)}" style="color:{colour_}">')
            table += [f'<td style="{style}">{esc(c)}</td>' for c in self._row_cells(e)]
            table.append("</tr>")
        table.append("</table>")
        filters = [f"kind = {self.kind_filter}" if self.kind_filter else "",
                   f"variable = {self.variable}" if self.variable else ""]
        filters = ", ".join(f for f in filters if f)
        parts = [paragraph(f"{len(rows)} of {len(self.trace.events)} recorded events"
                           + (f" ({filters})" if filters else ""), bold=True),
                 "".join(table)]
        if len(rows) > ROW_LIMIT:
            parts.append(paragraph(f"... {len(rows) - ROW_LIMIT} more rows", colour_=MUTED))
        parts.append(self.plot_svg())
        return wrap(self.kind, "".join(parts))

    def plot_svg(self):
        """The bytes-allocated plot as SVG text (matplotlib, made deterministic: no date,
        fixed hash salt, text kept as text)."""
        curves = allocation_curves(self.trace)
        try:
            import matplotlib
            from matplotlib.backends.backend_svg import FigureCanvasSVG
            from matplotlib.figure import Figure
        except ImportError:
            return paragraph("the allocation plot needs matplotlib (pip install matplotlib)",
                             colour_=MUTED)
        with matplotlib.rc_context({"svg.hashsalt": "jtensor", "svg.fonttype": "none",
                                    "font.size": 9}):
            figure = Figure(figsize=(6.4, 2.4))
            FigureCanvasSVG(figure)
            axes = figure.add_subplot()
            for k, (device, points) in enumerate(sorted(curves.items())):
                xs = [p[0] for p in points]
                ys = [p[1] for p in points]
                axes.step(xs, ys, where="post", label=device, color=PALETTE[k % len(PALETTE)])
            axes.set_xlabel("event index")
            axes.set_ylabel("bytes allocated (total)")
            axes.set_title("bytes allocated along the trace, per device")
            if curves:
                axes.legend(loc="upper left")
            else:
                axes.text(0.5, 0.5, "nothing allocated", ha="center", va="center",
                          transform=axes.transAxes)
            figure.tight_layout()
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        svg = buffer.getvalue()
        svg = svg[svg.index("<svg"):]  # no XML prolog or DOCTYPE inside HTML
        # Mark it like the other pictures, so pages and tests find it the same way.
        return re.sub(r"<svg ", f'<svg data-jtensor="{self.kind}" ', svg, count=1)

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        # "" stands for "no filter": a Dropdown whose value is None shows no selection.
        kind = ipywidgets.Dropdown(options=[("all kinds", "")] + [(k, k) for k in self.kinds()],
                                   value=self.kind_filter or "", description="kind")
        variable = ipywidgets.Dropdown(options=[("all variables", "")] + [
            (v, v) for v in self.variables()], value=self.variable or "",
            description="variable")
        kind.observe(lambda change: self.set_filter(kind=change["new"] or None), names="value")
        variable.observe(lambda change: self.set_filter(variable=change["new"] or None),
                         names="value")
        return [("kind", kind), ("variable", variable)]
