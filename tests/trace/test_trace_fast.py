"""The recorder's fast per-op hook (``Recorder._fast_hook``) against its general path.

The fast hook keeps plain ops as raw flat records and builds their ``Event`` objects when the
trace is read; these tests record the same code once through it and once through the general
``Recorder._on_op`` and ask for identical traces, and check what the fast path must not lose:
labels in order of first appearance, lines of multi-line statements, reading while recording,
inputs of other classes, and no garbage-collector tracked object per op but the one weak
reference a new tensor needs.
"""

import gc
import json
import sys

import jtensor
from jtensor import _dispatch
from jtensor.trace import record


def _program(x, w, p):
    # Plain ops (fast path), multi-output, in-place, autograd, a Parameter input, a
    # statement over several lines, a factory, a query.
    a = x.t()
    b = x[0]
    c = (x
         + 1)
    d = jtensor.empty(3)
    parts = x.split(1, dim=1)
    c.mul_(2)
    y = (x @ w).relu().sum()
    y.backward()
    with jtensor.no_grad():
        q = p.t()
    n = x.numel()
    e = x.view(6)[2:4]
    return [a, b, c, d, parts, y, q, n, e]


def _traced(general):
    jtensor.manual_seed(0)
    x = jtensor.arange(6.).view(2, 3)
    w = jtensor.ones(3, 2, requires_grad=True)
    p = jtensor.nn.Parameter(jtensor.ones(2, 3))
    t = record(max_ops=1000)
    t.start()
    if general:
        _dispatch.trace_hook = t._recorder._on_op  # the general path for every op
    keep = _program(x, w, p)
    t.stop(namespace={"x": x, "w": w, "p": p, "keep": keep})
    return t


def test_fast_hook_is_installed_and_records_what_the_general_path_records():
    t = record()
    t.start()
    try:
        assert _dispatch.trace_hook is not None and _dispatch.trace_hook != t._recorder._on_op
    finally:
        t.stop()
    fast, general = _traced(False), _traced(True)
    assert len(fast.events) == len(general.events) > 10
    assert json.dumps(fast.to_dict()) == json.dumps(general.to_dict())
    assert fast.to_text() == general.to_text()
    assert fast.to_html() == general.to_html()
    assert [[s.label for s in e.tensors()] for e in fast.events] == \
        [[s.label for s in e.tensors()] for e in general.events]


def _multi_line(x):
    return (x
            +
            1)


def test_multi_line_statement_gets_the_line_python_reports():
    x = jtensor.ones(2)
    seen = []

    def hook(op, *rest):
        frame = sys._getframe(1)
        while frame.f_code is not _multi_line.__code__:
            frame = frame.f_back
        seen.append(frame.f_lineno)

    old = _dispatch.trace_hook
    _dispatch.trace_hook = hook
    try:
        _multi_line(x)
    finally:
        _dispatch.trace_hook = old
    with record() as t:
        _multi_line(x)
    assert [e.line for e in t.events] == seen
    assert t.events[0].filename == __file__


def test_reading_events_while_recording_then_recording_more():
    x = jtensor.ones(4)
    with record() as t:
        a = x[0]  # noqa: F841 - the recorder names the result after it
        first = [e.name for e in t.events]
        b = x.view(2, 2)  # noqa: F841 - the recorder names the result after it
        c = x + 1
        second = [e.name for e in t.events]
        d = c.t() if c.dim() == 2 else c[1:]  # noqa: F841 - the recorder names the result after it
    assert first == ["__getitem__"]
    assert second == ["__getitem__", "view", "add"]
    assert [e.index for e in t.events] == list(range(len(t.events)))
    assert t.events[-1].name == "__getitem__" and t.name_of(t.events[-1].outputs[0]) == "d"
    assert t.name_of(t.events[0].outputs[0]) == "a" and t.name_of(t.events[1].outputs[0]) == "b"
    assert t._log == []  # raw records are dropped once read


def test_labels_follow_first_appearance_inputs_before_outputs():
    x = jtensor.ones(3)  # made before the trace: first seen as an input
    with record() as t:
        y = x.view(3)
        z = y + x  # noqa: F841 - the recorder names the result after it
    assert [s.label for s in t.events[0].tensors()] == [1, 2]
    assert [s.label for s in t.events[1].tensors()] == [2, 1, 3]
    assert [t.name_of(s) for s in t.events[1].tensors()] == ["y", "x", "z"]


def test_an_op_on_a_parameter_input_keeps_its_snapshot():
    p = jtensor.nn.Parameter(jtensor.ones(2, 3))
    with record() as t:
        with jtensor.no_grad():
            q = p.t()  # noqa: F841 - the recorder names the result after it
    (event,) = t.events
    assert event.kind == "view"
    assert [s.shape for s in event.inputs] == [(2, 3)]
    assert event.inputs[0].requires_grad is True and event.inputs[0].tensor() is p
    assert event.outputs[0].shape == (3, 2)


def test_a_plain_op_leaves_one_tracked_object_at_most():
    x = jtensor.ones(4)
    n = 3000
    with record(max_ops=n + 10) as t:
        x.t()
        gc.collect()
        before = len(gc.get_objects())
        for _ in range(n):
            x.t()
        after = len(gc.get_objects())
    # One weak reference per new tensor; the raw records hold no tracked container.
    # (the general path left two: the weak reference and a pair holding it)
    assert after - before <= 1.25 * n, after - before
    assert t.summary()["recorded"] == n + 1
