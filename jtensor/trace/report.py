"""Text and HTML reports of a trace: deterministic (stable labels, no ids, addresses or
timings), so notebooks that show them compare under nbval.

Sections: ``summary`` (one line of counts), ``ops`` (one row per event, grouped under the
user's source line), ``sharing`` (named variables sharing a storage), ``graph`` (autograd
nodes created and backward steps run) and ``pitfalls``.
"""

import html
import os

__all__ = ["SECTIONS", "text_report", "html_report", "summary_line"]

SECTIONS = ("summary", "ops", "sharing", "graph", "pitfalls")
_KIND_ORDER = ("allocation", "view", "copy", "in-place", "transfer", "sync", "launch",
               "backward-call", "backward", "notice", "query")


def _check_sections(sections):
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown report sections {unknown}; choose from {list(SECTIONS)}")


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _bytes(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def summary_line(trace):
    """``12 ops (2 allocation, 5 view, ...) · 96 B allocated · 0 sync points · 1 pitfall``."""
    s = trace.summary()
    op_kinds = {k: v for k, v in s["by_kind"].items()
                if k in ("allocation", "view", "copy", "in-place", "query")}
    n_ops = sum(op_kinds.values())
    parts = ", ".join(f"{op_kinds[k]} {k}" for k in _KIND_ORDER if k in op_kinds)
    text = _plural(n_ops, "op") + (f" ({parts})" if parts else "")
    text += f" · {_bytes(s['bytes_allocated'])} allocated"
    text += f" · {_plural(s['syncs'], 'sync point')}"
    if s["transfers"]:
        text += f" · {_plural(s['transfers'], 'transfer')}"
    backward = s["by_kind"].get("backward", 0)
    if backward:
        text += f" · {_plural(backward, 'backward step')}"
    text += f" · {_plural(s['pitfalls'], 'pitfall')}"
    if s["dropped"]:
        dropped = ", ".join(f"{k} {v}" for k, v in sorted(s["dropped_by_kind"].items()))
        text += (f" · {s['dropped']} more events past the cap of {trace.max_ops} were only "
                 f"counted ({dropped})")
    if s["other_threads"]:
        text += f" · {s['other_threads']} events from other threads not recorded"
    return text


def where(trace, filename, line):
    """``line 3`` for the traced code's own file (or cell), ``file.py:3`` elsewhere."""
    if line is None:
        return "-"
    if filename == trace.main_filename or filename is None:
        return f"line {line}"
    label = trace.filename_label(filename) if trace.filename_label is not None else None
    return f"{label or os.path.basename(filename)}:{line}"


def _tensor_text(trace, s, show_values, full=True):
    name = trace.name_of(s)
    if not full:
        return name
    dtype = s.dtype.replace("torch.", "")
    text = (f"{name} {list(s.shape)} {dtype} stride {tuple(s.stride)} offset {s.offset} "
            f"{s.storage}")
    if s.device != "cpu":
        text += f" {s.device}"
    if s.grad_fn is not None:
        text += f" grad_fn={s.grad_fn}"
    elif s.requires_grad:
        text += " requires_grad"
    if s.version != s.version_before:
        text += f" v{s.version_before}->v{s.version}"
    if show_values and s.values is not None:
        text += f" = {s.values}"
    return text


def _event_cells(trace, e, show_values):
    """(op, kind, detail) for one event."""
    if e.op_kind is not None:
        ins = ", ".join(_tensor_text(trace, s, show_values, full=False) for s in e.inputs)
        outs = "; ".join(_tensor_text(trace, s, show_values) for s in e.outputs)
        detail = (f"{ins} -> {outs}" if ins else f"-> {outs}") if outs else ins
        if e.nbytes_allocated:
            detail += f"  (+{_bytes(e.nbytes_allocated)})"
        if e.info.get("copied"):
            detail += "  [copied]"
        if e.info.get("under"):
            detail += f"  [{e.info['under']}]"
        return e.name, e.kind, detail
    if e.kind == "backward":
        grads = ", ".join(str(g) if g is not None else "None" for g in e.info.get("grads", ()))
        leaf = f" into {trace.name_of(e.inputs[0])}.grad" if e.inputs else ""
        return e.name, "backward", f"{e.info.get('node')} grads {grads}{leaf}"
    if e.kind == "backward-call":
        flags = [k for k in ("retain_graph", "create_graph") if e.info.get(k)]
        return "backward", "backward-call", ", ".join(f"{k}=True" for k in flags)
    if e.kind == "sync":
        return e.name, "sync", f"host waits for {e.info.get('device')}"
    if e.kind == "transfer":
        mode = " non_blocking" if e.info.get("non_blocking") else ""
        return "transfer", "transfer", f"{e.name} {_bytes(e.info.get('nbytes', 0))}{mode}"
    if e.kind == "launch":
        detail = f"{e.info.get('op')} on {e.info.get('device')}"
        if "launch_time" in e.info:
            detail += "".join(f" {k}={e.info[k]}" for k in ("launch_time", "start_time",
                                                              "end_time"))
        return e.name, "launch", detail
    names = [trace.name_of(s) for s in e.inputs]
    first = names[0] if names else "?"
    if e.name == "view_failed":
        return "view", "failed", f"{first} cannot be viewed as {e.info.get('shape')}"
    if e.name == "inplace_refused":
        base = names[1] if len(names) > 1 else "?"
        return "in-place", "refused", f"{first} is a view of the leaf {base}"
    if e.name == "tensor_from_tensor":
        return "tensor", "notice", f"torch.tensor({first}) copies and detaches"
    if e.name == "data":
        return ".data", "notice", f"{first}.data"
    if e.name == "scheduler_step":
        return "scheduler.step", "notice", (
            f"{e.info.get('scheduler')} (optimizer stepped before: "
            f"{bool(e.info.get('optimizer_stepped'))})")
    return e.name, e.kind, ", ".join(names)


def _graph_rows(trace):
    rows = []
    for e in trace.events:
        if e.grad_fn is not None:
            outs = ", ".join(trace.name_of(s) for s in e.outputs if s.grad_fn is not None)
            ins = ", ".join(trace.name_of(s) for s in e.inputs if s.requires_grad)
            rows.append((where(trace, e.filename, e.line),
                         f"{outs} = {e.grad_fn} ({e.info.get('node')}) <- {ins or '-'}"))
        elif e.kind == "backward":
            grads = ", ".join(str(g) for g in e.info.get("grads", ()))
            rows.append((where(trace, e.filename, e.line),
                         f"backward ran {e.name} ({e.info.get('node')}): grads {grads}"))
    return rows


def _error_text(trace):
    if trace.error is None:
        return None
    kind, message, filename, line = trace.error
    first = message.splitlines()[0] if message else ""
    return f"the traced code raised {kind} at {where(trace, filename, line)}: {first}"


def text_report(trace, sections=SECTIONS, show_values=False):
    """The report as plain text."""
    _check_sections(sections)
    out = []
    if "summary" in sections:
        out.append("tensortrace: " + summary_line(trace))
    error = _error_text(trace)
    if error:
        out.append(error)
    if "ops" in sections and trace.events:
        out.append("")
        out.append("ops:")
        last = object()
        for e in trace.events:
            key = (e.filename, e.line)
            if key != last:
                last = key
                source = f"  {e.source}" if e.source else ""
                out.append(f"  {where(trace, e.filename, e.line)}{source}")
            op, kind, detail = _event_cells(trace, e, show_values)
            out.append(f"    {e.index + 1:>3}  {op:<14} {kind:<11} {detail}".rstrip())
    if "sharing" in sections:
        groups = trace.sharing()
        if groups:
            out.append("")
            out.append("storage sharing:")
            for storage, names in groups:
                out.append(f"  {storage}: {', '.join(names)}")
    if "graph" in sections:
        rows = _graph_rows(trace)
        if rows:
            out.append("")
            out.append("autograd graph:")
            for place, text in rows:
                out.append(f"  {place:<8} {text}")
    if "pitfalls" in sections:
        findings = trace.pitfalls
        out.append("")
        out.append(f"pitfalls ({len(findings)}):" if findings else "pitfalls: none found")
        for f in findings:
            out.append(f"  [{f.code}] {where(trace, f.filename, f.line)}: {f.title}")
            if f.source:
                out.append(f"      {f.source}")
            out.append(f"      {f.explanation}")
            out.append(f"      Fix: {f.fix}")
    return "\n".join(out)


# Readable in light and dark themes (JupyterLab Dark, VS Code): text keeps the page's own
# colour; the source-line rows get a translucent grey (a little darker than a light page, a
# little lighter than a dark one) instead of a fixed light grey under the theme's light text;
# the error text, whose red cannot reach 4.5:1 on both white and near-black, brings its own
# light background (5:1). The browser test measures it in JupyterLab's dark theme.
# The cells' rule is specific enough (two classes, two types) to win over JupyterLab's rule
# for rendered tables (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``: right-aligned).
_STYLE = ("<style>.jt-trace{font-family:monospace;font-size:12px}"
          ".jt-trace table{border-collapse:collapse}"
          ".jt-trace table.jt-ops td,.jt-trace table.jt-ops th{padding:1px 8px;text-align:left;"
          "vertical-align:top}"
          ".jt-trace .jt-line td{background:rgba(128,128,128,0.18);font-weight:bold}"
          ".jt-trace .jt-pitfall{border-left:3px solid #d9534f;padding-left:6px;margin:4px 0}"
          ".jt-trace .jt-error{color:#a94442;background:#fdecea;padding:1px 6px}</style>")


def html_report(trace, sections=SECTIONS, show_values=False):
    """The report as one deterministic HTML fragment (every name and value escaped)."""
    _check_sections(sections)
    esc = html.escape
    out = [_STYLE, '<div class="jt-trace">']
    if "summary" in sections:
        out.append(f'<div class="jt-summary"><b>tensortrace:</b> {esc(summary_line(trace))}'
                   "</div>")
    error = _error_text(trace)
    if error:
        out.append(f'<div class="jt-error">{esc(error)}</div>')
    if "ops" in sections and trace.events:
        out.append('<table class="jt-ops"><tr><th>#</th><th>op</th><th>kind</th>'
                   "<th>tensors</th></tr>")
        last = object()
        for e in trace.events:
            key = (e.filename, e.line)
            if key != last:
                last = key
                source = f" <code>{esc(e.source)}</code>" if e.source else ""
                out.append(f'<tr class="jt-line"><td colspan="4">'
                           f"{esc(where(trace, e.filename, e.line))}{source}</td></tr>")
            op, kind, detail = _event_cells(trace, e, show_values)
            out.append(f'<tr class="jt-{esc(kind)}"><td>{e.index + 1}</td><td>{esc(op)}</td>'
                       f"<td>{esc(kind)}</td><td>{esc(detail)}</td></tr>")
        out.append("</table>")
    if "sharing" in sections:
        groups = trace.sharing()
        if groups:
            out.append("<div><b>storage sharing</b><ul>")
            for storage, names in groups:
                out.append(f"<li>{esc(storage)}: {esc(', '.join(names))}</li>")
            out.append("</ul></div>")
    if "graph" in sections:
        rows = _graph_rows(trace)
        if rows:
            out.append("<div><b>autograd graph</b><ul>")
            for place, text in rows:
                out.append(f"<li>{esc(place)}: {esc(text)}</li>")
            out.append("</ul></div>")
    if "pitfalls" in sections:
        findings = trace.pitfalls
        out.append(f"<div><b>pitfalls ({len(findings)})</b>" if findings
                   else "<div><b>pitfalls:</b> none found")
        for f in findings:
            source = f"<br><code>{esc(f.source)}</code>" if f.source else ""
            out.append(f'<div class="jt-pitfall"><b>[{esc(f.code)}]</b> '
                       f"{esc(where(trace, f.filename, f.line))}: {esc(f.title)}{source}"
                       f"<br>{esc(f.explanation)}<br><i>Fix:</i> {esc(f.fix)}</div>")
        out.append("</div>")
    out.append("</div>")
    return "\n".join(out)
