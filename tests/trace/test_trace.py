"""jtensor.trace through plain Python: events, snapshots, names, cap, reports, queries."""

import gc
import json
import re
import subprocess
import sys
import threading
import tracemalloc
import weakref

import pytest

import jtensor
from jtensor import _dispatch
from jtensor.trace import record


def test_one_event_per_op_called_from_python():
    x = jtensor.arange(6.)
    a = jtensor.ones(6)
    cases = {
        "__getitem__": lambda: x[0],
        "view": lambda: x.view(2, 3),
        "add": lambda: a + x,
        "add_": lambda: a.add_(1),
        "empty": lambda: jtensor.empty(3),
        "ones": lambda: jtensor.ones(2),
        "sum": lambda: x.sum(),
    }
    for name, call in cases.items():
        with record() as t:
            call()
        assert [e.name for e in t.events] == [name], name


def test_one_event_per_op_under_autograd_with_grad_fn_filled_in():
    w = jtensor.ones(3, requires_grad=True)
    with record() as t:
        y = w * 2
        z = y[1:]
        s = z.sum()
    assert [(e.name, e.grad_fn) for e in t.events] == [
        ("mul", "MulBackward0"), ("__getitem__", "SliceBackward0"), ("sum", "SumBackward0")]
    assert t.events[0].outputs[0].requires_grad and not t.events[0].outputs[0].is_leaf
    assert t.events[0].inputs[0].is_leaf
    del y, z, s


def test_event_kinds_versions_and_bytes():
    x = jtensor.zeros(2, 3)
    with record() as t:
        v = x.t()                 # view
        c = x + 1                 # copy
        x.add_(1)                 # in-place
        e = jtensor.empty(4, dtype=jtensor.float64)  # allocation
    kinds = [(ev.name, ev.kind) for ev in t.events]
    assert kinds == [("t", "view"), ("add", "copy"), ("add_", "in-place"),
                     ("empty", "allocation")]
    view, copy, inplace, alloc = t.events
    assert view.nbytes_allocated == 0 and inplace.nbytes_allocated == 0
    assert copy.nbytes_allocated == 24 and alloc.nbytes_allocated == 32
    assert view.outputs[0].storage == view.inputs[0].storage
    assert copy.outputs[0].storage != copy.inputs[0].storage
    assert (inplace.modified.version_before, inplace.modified.version) == (0, 1)
    assert inplace.modified is inplace.outputs[0]
    assert view.outputs[0].stride == (1, 3) and view.outputs[0].is_view
    assert not view.outputs[0].contiguous
    assert t.summary()["bytes_allocated"] == 56
    del v, c, e


def test_ops_returning_values_and_indices_record_both_outputs():
    a = jtensor.tensor([3.0, 1.0, 2.0])
    with record() as t:
        s = a.sort(descending=True)
        m = jtensor.max(a, 0)
        k = a.topk(2)
    for ev, n in zip(t.events, (3, 0, 2), strict=True):
        assert ev.kind == "copy", ev.name
        assert [o.shape for o in ev.outputs] == [(n,) if n else (), (n,) if n else ()]
        assert all(o.storage != ev.inputs[0].storage for o in ev.outputs)
    assert t.events[0].nbytes_allocated == 3 * 4 + 3 * 8
    del s, m, k


def test_lines_source_and_names_from_the_callers_frame():
    x = jtensor.arange(4.)
    with record() as t:
        y = x.view(2, 2)
        z = (y * 2).sum()  # noqa: F841 - the recorder names the result after it
    first = t.events[0]
    assert first.filename == __file__
    assert first.source == "y = x.view(2, 2)"
    assert t.events[1].line == first.line + 1
    assert [t.name_of(s) for s in first.inputs + first.outputs] == ["x", "y"]
    # the product was never named: it gets a stable label
    assert t.name_of(t.events[1].outputs[0]) == "t1"
    assert t.name_of(t.events[2].outputs[0]) == "z"
    assert t.sharing() == [("S1", ["x", "y"])]


def test_labels_and_reports_are_deterministic():
    def once():
        x = jtensor.arange(6.)
        with record() as t:
            y = x.view(2, 3).t()
            z = y.reshape(6)
            w = z + y.sum()
        del w
        return t.to_text(), t.to_html(), t.to_json()

    first, second = once(), once()
    assert first == second
    for text in first:
        assert not re.search(r"0x[0-9a-f]{6,}", text)  # no addresses


def test_recording_keeps_no_memory_alive():
    with record() as t:
        big = jtensor.ones(1000, 1000)
        ref = weakref.ref(big)
        small = big.sum()
        del big
    gc.collect()
    assert ref() is None
    assert t.events[0].outputs[0].tensor() is None
    assert t.events[0].outputs[0].values is None
    del small


def test_small_values_only_when_asked():
    x = jtensor.arange(3.)
    with record() as t:
        y = x * 2
    assert t.events[0].outputs[0].values is None
    with record(small_values=3) as t:
        y = x * 2
        big = jtensor.zeros(10)
    assert t.events[0].outputs[0].values == [0.0, 2.0, 4.0]
    assert t.events[1].outputs[0].values is None
    assert "= [0.0, 2.0, 4.0]" in t.to_text(show_values=True)
    assert "= [0.0, 2.0, 4.0]" not in t.to_text()
    del y, big


def test_cap_keeps_counting():
    x = jtensor.ones(3)
    with record(max_ops=10) as t:
        for _ in range(100):
            x = x + 1
    s = t.summary()
    assert len(t.events) == 10
    assert s["events"] == 100 and s["dropped"] == 90
    assert s["dropped_by_kind"] == {"elementwise": 90}
    assert "90 more events past the cap of 10" in t.to_text()


def test_long_loop_stays_within_a_memory_bound():
    x = jtensor.ones(4)
    tracemalloc.start()
    try:
        with record(max_ops=1000) as t:
            for _ in range(50_000):
                x[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert t.summary()["events"] == 50_000
    assert peak < 4_000_000, peak


def test_backward_events_with_gradient_shapes():
    w = jtensor.ones(2, 3, requires_grad=True)
    b = jtensor.ones(3, requires_grad=True)
    with record() as t:
        loss = (w * b).sum()
        loss.backward()
    steps = t.backward_steps()
    names = [e.name for e in steps]
    assert names[:2] == ["SumBackward0", "MulBackward0"]
    assert steps[1].info["grads"] == [[2, 3], [3]]  # summed back to b's shape
    leaves = {t.name_of(e.inputs[0]) for e in steps if e.inputs}
    assert leaves == {"w", "b"}
    call = [e for e in t.events if e.kind == "backward-call"]
    assert call[0].info == {"retain_graph": False, "create_graph": False}
    assert all(e.line == call[0].line for e in steps)


def test_device_events_through_emit():
    with record() as t:
        _dispatch.emit("sync", device="cuda:0", reason="item")
        _dispatch.emit("transfer", src="cpu", dst="cuda:0", nbytes=128, non_blocking=True)

        class Kernel:
            launch_time, start_time, end_time = 1.0, 2.0, 3.0

        _dispatch.emit("launch", device="cuda:0", op="add", kernel=Kernel())
    sync, transfer, launch = t.events
    assert (sync.kind, sync.name, sync.info["device"]) == ("sync", "item", "cuda:0")
    assert transfer.info == {"src": "cpu", "dst": "cuda:0", "nbytes": 128,
                             "non_blocking": True}
    assert launch.kind == "launch" and "launch_time" not in launch.info
    assert t.summary()["syncs"] == 1 and t.summary()["transfers"] == 1
    with record(timings=True) as t:
        _dispatch.emit("launch", device="cuda:0", op="add", kernel=Kernel())
    assert t.events[0].info["end_time"] == 3.0


def test_query_api():
    x = jtensor.arange(6.)
    with record() as t:
        y = x.view(2, 3)
        z = y + 1
        z.mul_(2)
    assert [e.name for e in t.ops(kind="view")] == ["view"]
    assert [e.name for e in t.ops(name="mul_")] == ["mul_"]
    assert [e.name for e in t.ops(line=t.events[1].line)] == ["add"]
    assert [e.name for e in t.events_of(z)] == ["add", "mul_"]
    assert [e.name for e in t.events_of("y")] == ["view", "add"]
    assert list(t.by_line().values())[0] == [t.events[0]]
    assert len(t) == 3 and t[0] is t.events[0] and list(t) == t.events
    assert t.syncs() == [] and t.transfers() == []


def test_json_export(tmp_path):
    x = jtensor.arange(6.)
    with record() as t:
        y = x.view(3, 2)  # noqa: F841 - the recorder names the result after it
    data = json.loads(t.to_json())
    assert data["events"][0]["outputs"][0]["name"] == "y"
    assert data["events"][0]["outputs"][0]["stride"] == [2, 1]
    assert data["sharing"] == [{"storage": "S1", "names": ["x", "y"]}]
    path = tmp_path / "trace.json"
    t.save_json(str(path))
    assert json.loads(path.read_text()) == data


def test_html_escapes_names():
    ns = {"torch": jtensor}
    code = compile("globals()['<b>x</b>'] = torch.ones(2)\nglobals()['<b>x</b>'].view(2)\n",
                   "<html-case>", "exec")
    with record(namespace=ns) as t:
        exec(code, ns)
    html = t.to_html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert t._repr_html_() == html


def test_report_sections():
    x = jtensor.arange(6.)
    with record() as t:
        y = x.view(2, 3)  # noqa: F841 - the recorder names the result after it
    text = t.to_text(sections=("summary",))
    assert text.startswith("tensortrace: 1 op (1 view)") and "ops:" not in text
    assert "storage sharing" in t.to_text(sections=("sharing",))
    with pytest.raises(ValueError, match="unknown report sections"):
        t.to_text(sections=("nope",))
    assert str(t) == t.to_text()


def test_nested_record_is_refused_and_hooks_are_restored():
    with record():
        with pytest.raises(RuntimeError, match="already recording"):
            with record():
                pass
    assert _dispatch.trace_hook is None and _dispatch.event_hook is None
    t = record()
    with pytest.raises(ZeroDivisionError):
        with t:
            jtensor.ones(1)
            1 / 0  # noqa: B018
    assert _dispatch.trace_hook is None and _dispatch.event_hook is None
    assert t.error[0] == "ZeroDivisionError" and t.error[3] is not None
    assert "raised ZeroDivisionError" in t.to_text()
    with pytest.raises(RuntimeError, match="already recorded"):
        t.start()


def test_bad_arguments():
    with pytest.raises(ValueError, match="max_ops"):
        record(max_ops=-1)
    with pytest.raises(ValueError, match="small_values"):
        record(small_values="3")


def test_other_threads_are_counted_not_recorded():
    x = jtensor.ones(3)
    with record() as t:
        worker = threading.Thread(target=lambda: [x + 1 for _ in range(5)])
        worker.start()
        worker.join()
        x * 2
    assert [e.name for e in t.events] == ["mul"]
    assert t.other_threads == 5
    assert "5 events from other threads not recorded" in t.to_text()


def test_describe():
    x = jtensor.arange(6.)
    y = x.view(2, 3)
    info = jtensor.describe(y)
    fields = info.fields
    assert fields["shape"] == "[2, 3]"
    assert fields["stride"].startswith("(3, 1)")
    assert fields["shares storage with"] == "x [6] (base)"
    assert fields["view of"] == "x [6]"
    assert fields["values"] == "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]"
    assert str(info).startswith("y: tensor")
    assert "<table>" in info._repr_html_()
    w = jtensor.ones(2, requires_grad=True)
    assert jtensor.describe(w).fields["autograd"] == "leaf that requires grad, .grad None"
    assert jtensor.describe(w * 2).fields["autograd"] == "non-leaf, grad_fn=MulBackward0"
    e = jtensor.zeros(3).expand(2, 3)
    assert "stride of 0" in jtensor.describe(e).fields["layout"]


def test_describe_summarises_big_tensors_and_refuses_others():
    big = jtensor.zeros(1000, 1000)
    info = jtensor.describe(big)
    assert info.fields["values"] == "1000000 elements (not shown)"
    assert len(str(info)) < 2000
    with pytest.raises(TypeError, match="got list"):
        jtensor.describe([1, 2])


def test_trace_module_imports_no_notebook_stack():
    code = ("import sys, jtensor, jtensor.trace\n"
            "bad = [m for m in ('IPython', 'ipywidgets', 'matplotlib') if m in sys.modules]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
