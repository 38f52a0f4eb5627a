"""TraceView and DeviceTimeline over real traces of jtensor.trace (CPU and emulated CUDA)."""

import re

import pytest

import jtensor as torch
from jtensor import _dispatch
from jtensor.widgets import DeviceTimeline, TraceView
from jtensor.widgets.trace_view import allocation_curves

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")


def _cpu_trace():
    x = torch.arange(6.)
    with torch.trace.record() as t:
        y = x.view(2, 3)
        z = y.t().contiguous()
        y.add_(1)
        w = torch.zeros(4)
    return t, (x, y, z, w)


def test_trace_view_table_rows_and_filters():
    t, _ = _cpu_trace()
    v = TraceView(t)
    assert [e.name for e in v.rows()] == ["view", "t", "contiguous", "add_", "zeros"]
    assert v.kinds() == ["allocation", "view", "copy", "in-place"]
    assert v.variables()[:3] == ["x", "y", "z"]
    html = v.html()
    assert html.count('<tr data-kind=') == 5
    assert "y[2, 3]" in html and "z[3, 2]" in html
    v.set_filter(kind="view")
    assert [e.name for e in v.rows()] == ["view", "t"]
    v.set_filter(kind=None, variable="z")
    assert [e.name for e in v.rows()] == ["contiguous"]
    assert "1 of 5 recorded events (variable = z)" in v.html()
    with pytest.raises(ValueError, match="no event of kind 'sync' in this trace"):
        v.set_filter(kind="sync")
    with pytest.raises(ValueError, match="no variable named 'q'"):
        v.set_filter(variable="q")


def test_trace_view_plot_is_matplotlib_svg_and_deterministic():
    t, _ = _cpu_trace()
    first, second = TraceView(t).html(), TraceView(t).html()
    assert first == second
    assert 'data-jtensor="trace-view"' in first
    assert "bytes allocated along the trace, per device" in first
    curves = allocation_curves(t)
    # contiguous() copies 6 float32 (24 B), zeros allocates 16 B: 40 B on the CPU.
    assert curves["cpu"][-1] == (5, 40)


def test_trace_view_escapes_source_text_and_rejects_other_objects():
    x = torch.ones(2)
    with torch.trace.record() as t:
        y = x + 1  # <script>alert(1)</script>
    html = TraceView(t).html()
    assert "<script>" not in html and "&lt;script&gt;" in html
    with pytest.raises(TypeError, match="expected a trace from jtensor.trace.record"):
        TraceView([1, 2])
    assert y.tolist() == [2.0, 2.0]


def test_trace_view_interactive_filters_change_the_table():
    t, _ = _cpu_trace()
    v = TraceView(t)
    assert v.view.value.count("<tr data-kind=") == 5
    v.controls["kind"].value = "copy"
    assert v.view.value.count("<tr data-kind=") == 1
    v.controls["kind"].value = ""  # all kinds
    v.controls["variable"].value = "y"
    assert v.view.value.count("<tr data-kind=") == len(v.rows()) == 3  # view, t, add_


def test_device_timeline_order_model_is_deterministic_with_emitted_events():
    with torch.trace.record() as t:
        for op in ("mul", "add", "add"):
            _dispatch.emit("launch", device="cuda:0", op=op, kernel=None)
        _dispatch.emit("sync", device="cuda:0", reason="item")
        _dispatch.emit("launch", device="cuda:0", op="mul", kernel=None)
    tl = DeviceTimeline(t)
    assert not tl.timed
    assert [(k.op, k.start, k.end) for k in tl.kernels] == [
        ("mul", 0.0, 1.0), ("add", 1.0, 2.0), ("add", 2.0, 3.0), ("mul", 3.0, 4.0)]
    (sync,) = tl.syncs
    assert sync.start == pytest.approx(1.0) and sync.end == 3.0
    assert tl.max_queue() == 3
    assert tl.html() == DeviceTimeline(t).html()
    assert "sync: item" in tl.html() and "order only" in tl.html()


def test_device_timeline_of_emulated_cuda_shows_asynchronous_execution(cuda):
    x = torch.ones(200_000, device="cuda")
    with torch.trace.record(timings=True) as t:
        a = x * 2
        b = a.exp()
        s = (a + b).sum()
        value = s.item()
        c = b.cpu()
    assert value > 0 and c.device.type == "cpu"
    tl = DeviceTimeline(t)
    assert tl.timed and tl.devices == ["cuda:0"]
    assert [k.op for k in tl.kernels][:2] == ["mul", "exp"]
    for k in tl.kernels:
        assert k.start >= k.launch and k.end >= k.start  # the device runs after the launch
    item = next(s for s in tl.syncs if s.reason == "item")
    before = [k for k in tl.kernels if k.index < item.index]
    assert item.end == pytest.approx(max(k.end for k in before))
    html = tl.html()
    assert len(re.findall(r'data-jtensor="device-timeline"', html)) == 1
    assert "host (Python)" in html and "measured times" in html
    # The table view of the same trace lists the launches, syncs and the transfer.
    kinds = TraceView(t).kinds()
    assert {"launch", "sync", "transfer"} <= set(kinds)


def test_device_timeline_zoom_and_links_from_the_widget():
    with torch.trace.record() as t:
        for op in ("mul", "add"):
            _dispatch.emit("launch", device="cuda:0", op=op, kernel=None)
        _dispatch.emit("sync", device="cuda:0", reason="synchronize")
    tl = DeviceTimeline(t)
    full = tl.view.value
    tl.controls["window"].value = [0.5, 1.0]
    assert tl.window == (0.5, 1.0) and tl.view.value != full
    tl.controls["links"].value = False
    assert tl.links is False
    with pytest.raises(ValueError, match="0 <= start < stop <= 1"):
        tl.set_window(0.7, 0.2)


def test_device_timeline_of_a_cpu_trace_says_there_is_nothing_to_show():
    t, _ = _cpu_trace()
    assert "no kernel launches or sync points" in DeviceTimeline(t).html()
