"""``torch.autograd.profiler`` and ``torch.profiler``: the events, their names and nesting
against PyTorch's, the table's layout, schedules, ``record_function``, the Chrome trace, the
errors. No test reads a timing value as a pass/fail condition: only the relations that hold
whatever the clock says (self time is total time less the children's, a child's range lies
inside its parent's)."""

import gzip
import json
import re
import warnings

import pytest

import jtensor
from jtensor import _dispatch
from jtensor.autograd import profiler as jprofiler
from jtensor._registry import OPS
from tests.harness.conformance import torch
from tests.specs import all_specs

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
BACKWARD = jprofiler.BACKWARD_PREFIX


def _columns(table):
    """The header names of a profiler table (the line between the first two rules)."""
    lines = table.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("---"))
    return re.split(r"\s{2,}", lines[rule + 1].strip())


def _rows(table):
    """The body lines of a profiler table (between the header's rule and the last rule)."""
    lines = table.splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("---")]
    return lines[rules[1] + 1 : rules[2]]


def _keys(events, keep):
    """``{name: count}`` of the events whose name ``keep`` accepts."""
    counts = {}
    for e in events:
        if keep(e.name):
            counts[e.name] = counts.get(e.name, 0) + 1
    return counts


def _top_level(events, prefix="aten::"):
    """``{name: count}`` of the events with no parent whose name starts with ``prefix``."""
    return _keys([e for e in events if e.cpu_parent is None], lambda n: n.startswith(prefix))


def _profile(lib, program, **options):
    with lib.autograd.profiler.profile(**options) as prof:
        program(lib)
    return prof


# ----------------------------------------------------------------------- the tutorial
def test_the_introyt_autograd_tutorial_runs_and_prints_a_table():
    x = jtensor.ones(2, requires_grad=True)
    with jtensor.autograd.profiler.profile(use_cuda=False) as prf:
        y = x * 2
    table = prf.key_averages().table(sort_by="self_cpu_time_total")
    assert _columns(table) == [
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
        "# of Calls",
    ]
    assert re.search(r"^\s+aten::mul\s+100\.00%\s+\S+s\s+100\.00%", table, re.M), table
    assert re.search(r"^Self CPU time total: \d+\.\d{3}(us|ms|s)$", table, re.M), table
    assert y.grad_fn.name() == "MulBackward0"  # the program's own result is untouched


@needs_torch
@pytest.mark.parametrize(
    "options", [{}, {"record_shapes": True}, {"profile_memory": True}, {"with_flops": True}]
)
@pytest.mark.parametrize("group_by_input_shape", [False, True])
def test_table_columns_are_pytorchs(options, group_by_input_shape):
    def program(lib):
        a = lib.ones(8, 16)
        lib.mm(a, lib.ones(16, 4)) * 2

    tables = [
        _profile(lib, program, **options)
        .key_averages(group_by_input_shape=group_by_input_shape)
        .table()
        for lib in (jtensor, torch)
    ]
    assert _columns(tables[0]) == _columns(tables[1])


# ----------------------------------------------------------------------- event names
PROGRAMS = {
    "mul_sum": lambda lib: (lib.ones(2, requires_grad=True) * 2).sum(),
    "mlp": lambda lib: lib.relu(
        lib.ones(4, 3) @ lib.ones(3, 5, requires_grad=True) + lib.ones(5)
    ).mean(),
    "linear_loss": lambda lib: lib.nn.functional.cross_entropy(
        lib.nn.functional.linear(lib.ones(4, 3), lib.ones(2, 3, requires_grad=True)),
        lib.zeros(4, dtype=lib.int64),
    ),
    "views": lambda lib: lib.arange(6.0).view(2, 3).t()[0].exp().sum(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_ops_are_pytorchs_top_level_aten_ops(name):
    """The ops a program calls are the top-level ``aten::`` events PyTorch's profiler shows,
    with the same counts (what PyTorch's ops call inside, ``aten::empty`` and the like, is
    ATen's own business and not compared)."""
    program = PROGRAMS[name]
    mine, theirs = (_top_level(_profile(lib, program).function_events) for lib in (jtensor, torch))
    assert mine == theirs


@needs_torch
@pytest.mark.parametrize("name", ["mul_sum", "mlp", "linear_loss"])
def test_backward_nodes_are_pytorchs(name):
    """``backward()`` shows one ``autograd::engine::evaluate_function: <node>`` event per
    node run, around the node's own event, as in PyTorch (same names, same counts)."""
    program = PROGRAMS[name]

    def forward_backward(lib):
        program(lib).backward()

    found = []
    for lib in (jtensor, torch):
        events = _profile(lib, forward_backward).function_events
        nodes = _keys(events, lambda n: not n.startswith(("aten::", "detach")))
        top = _keys([e for e in events if e.cpu_parent is None], lambda n: True)
        parents = {
            e.name: e.cpu_parent.name
            for e in events
            if e.cpu_parent is not None and e.cpu_parent.name.startswith(BACKWARD)
        }
        found.append((nodes, {k: v for k, v in top.items() if k.startswith(BACKWARD)}, parents))
    assert found[0] == found[1]


@needs_torch
def test_forward_and_backward_aten_keys_of_x_times_2_sum():
    """The task's program: ``(x * 2).sum()`` and its backward. The ``aten::`` keys jtensor
    shows are PyTorch's top-level ones, with their counts; PyTorch's other keys are ATen's
    internals (the number's ``aten::to`` copy, ``empty_strided``...), the ops its backward
    formulas call (``MulBackward0`` runs ``aten::mul``; jtensor's multiplies the arrays,
    ``formulas._fast``) and the engine's implicit gradient (``aten::ones_like``; jtensor's
    engine makes it without an op)."""
    profiles = []
    for lib in (jtensor, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.profiler.profile() as prof:
            (x * 2).sum().backward()
        profiles.append(prof)
    mine, theirs = (
        {e.key: e.count for e in p.key_averages() if e.key.startswith("aten::")} for p in profiles
    )
    assert mine == {"aten::mul": 1, "aten::sum": 1}
    assert {k: theirs[k] for k in mine} == {"aten::mul": 2, "aten::sum": 1}
    top_mine, top_theirs = (_top_level(p.function_events) for p in profiles)
    assert top_mine == {k: v for k, v in top_theirs.items() if k != "aten::ones_like"}


def test_every_op_that_runs_shows_as_its_event():
    """Every op spec case that succeeds, run under the profiler, shows its op's event (the
    name PyTorch's profiler gives it), whichever path the call takes (entry, operator, method,
    recorded by autograd or not)."""
    missing = {}
    for name, spec in sorted(all_specs().items()):
        op = OPS[name]
        expected = jprofiler._name_for(op)
        if expected == "" or name == "contiguous":
            # a Python function in PyTorch (no event of its own); ``contiguous()`` of a
            # contiguous tensor runs nothing (test_contiguous_of_a_contiguous_tensor_...)
            continue
        for case in spec.cases:
            inputs = case.make(jtensor) if case.make is not None else ()
            if not isinstance(inputs, tuple):
                inputs = (inputs,)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with jprofiler.profile() as prof:
                        case.run(jtensor, *inputs)
            except Exception:  # noqa: BLE001 - failing cases are checked by the op tests
                continue
            names = [e.name for e in prof.function_events]
            if callable(expected):
                ok = any(n.startswith("aten::") for n in names)
            else:
                ok = expected in names
            if not ok:
                missing.setdefault(name, names)
    assert not missing, missing


@pytest.mark.parametrize(
    "call,names",
    [
        (lambda x, v, i: x[0], ["aten::select"]),
        (lambda x, v, i: x[1:], ["aten::slice"]),
        (lambda x, v, i: x[None], ["aten::unsqueeze"]),
        (lambda x, v, i: x[:, 1], ["aten::select"]),
        (lambda x, v, i: x[..., 0], ["aten::select"]),
        (lambda x, v, i: x[i], ["aten::index"]),
        (lambda x, v, i: x.__setitem__(0, 1.0), ["aten::fill_"]),
        (lambda x, v, i: x.__setitem__(0, v), ["aten::copy_"]),
        (lambda x, v, i: x.__setitem__(i, 1.0), ["aten::index_put_"]),
        (lambda x, v, i: x.T, ["aten::permute"]),
        (lambda x, v, i: 2 * x, ["aten::mul"]),
        (lambda x, v, i: x**2, ["aten::pow"]),
        (lambda x, v, i: x @ x.t(), ["aten::t", "aten::matmul"]),
        (lambda x, v, i: jtensor.tensor([1.0]), ["aten::lift_fresh"]),
        (
            lambda x, v, i: jtensor.nn.functional.softsign(x),
            ["aten::abs", "aten::add", "aten::div"],
        ),
    ],
)
def test_event_names_follow_pytorchs_profiler(call, names):
    """Indexing is named by what it does, operators and methods by their op, and what
    PyTorch writes in Python (``F.softsign``) shows the ops it calls."""
    x, v, i = jtensor.ones(2, 3), jtensor.zeros(3), jtensor.tensor([0])
    with jprofiler.profile() as prof:
        call(x, v, i)
    assert [e.name for e in prof.function_events if e.cpu_parent is None] == names


def test_contiguous_of_a_contiguous_tensor_is_no_event():
    x = jtensor.ones(2, 3)
    with jprofiler.profile() as prof:
        x.contiguous()
        x.t().contiguous()
    assert [e.name for e in prof.function_events] == ["aten::t", "aten::contiguous"]


# ----------------------------------------------------------------------- nesting, self time
def _check_tree(events):
    """Self time is total less the children's; a child lies in its parent's range; the
    self times add up to the top-level events' totals (nothing counted twice)."""
    for e in events:
        children = sum(c.cpu_time_total for c in e.cpu_children)
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - children)
        assert e.self_cpu_time_total >= -1e-6
        if e.cpu_parent is not None:
            assert e.cpu_parent.time_range.start <= e.time_range.start
            assert e.time_range.end <= e.cpu_parent.time_range.end
            assert e in e.cpu_parent.cpu_children
    top = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert events.self_cpu_time_total == pytest.approx(top)


def test_ops_calling_public_ops_nest_and_count_once():
    x = jtensor.ones(4, 3, requires_grad=True)
    w = jtensor.ones(2, 3, requires_grad=True)
    with jprofiler.profile() as prof:
        jtensor.nn.functional.linear(x, w).sum().backward()
    events = prof.function_events
    _check_tree(events)
    linear = next(e for e in events if e.name == "aten::linear")
    assert linear.cpu_children and all(c.cpu_parent is linear for c in linear.cpu_children)
    total = prof.key_averages().total_average()
    assert total.key == "Total" and total.count == len(events)
    assert total.self_cpu_time_total == pytest.approx(events.self_cpu_time_total)


def test_record_function_ranges_nest_and_leave_their_children_out_of_self_time():
    x = jtensor.ones(3)

    @jtensor.autograd.profiler.record_function("deco")
    def twice(depth):
        y = x * 2
        return twice(depth - 1) if depth else y

    with jprofiler.profile() as prof:
        with jtensor.profiler.record_function("outer"):
            y = x + 1
            with jtensor.autograd.profiler.record_function("inner") as rf:
                z = y.exp()
        twice(1)
    assert isinstance(rf, jtensor.autograd.profiler.record_function)
    events = prof.function_events
    _check_tree(events)
    by_name = {}
    for e in events:
        by_name.setdefault(e.name, []).append(e)
    outer, inner = by_name["outer"][0], by_name["inner"][0]
    assert outer.cpu_parent is None and inner.cpu_parent is outer
    assert by_name["aten::add"][0].cpu_parent is outer
    assert by_name["aten::exp"][0].cpu_parent is inner
    assert outer.is_user_annotation and not by_name["aten::add"][0].is_user_annotation
    decos = by_name["deco"]
    assert len(decos) == 2 and decos[1].cpu_parent is decos[0]  # the recursion
    assert [c.name for c in decos[0].cpu_children] == ["aten::mul", "deco"]
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["deco"].count == 2
    table = prof.key_averages().table(top_level_events_only=True)
    assert "This report only display top-level ops statistics" in table
    assert [row.split()[0] for row in _rows(table)] == ["outer", "deco"]
    assert z.shape == (3,)


def test_record_function_outside_a_profile_records_nothing():
    with jtensor.autograd.profiler.record_function("alone"):
        jtensor.ones(2) * 2
    assert jprofiler._recording.log == [] and _dispatch.profile_hook is None


def test_backward_node_ranges_hold_the_ops_their_formulas_call():
    """Under ``create_graph=True`` the formulas run public ops: they show inside the node."""
    x = jtensor.ones(3, requires_grad=True)
    with jprofiler.profile() as prof:
        y = (x * x).sum()
        (g,) = jtensor.autograd.grad(y, x, create_graph=True)
    events = prof.function_events
    _check_tree(events)
    node = next(e for e in events if e.name == "MulBackward0")
    assert node.cpu_parent.name == BACKWARD + "MulBackward0"
    assert node.cpu_children and all(c.name.startswith("aten::") for c in node.cpu_children)
    assert g.tolist() == [2.0, 2.0, 2.0]


def test_a_node_the_engine_hands_to_the_hook_is_timed_exactly_once():
    """What the engine would do to time a node exactly (call ``profile_hook`` with the node
    and the function that runs it): one pair of events around the ops the node runs, and the
    engine's ``backward`` report that follows adds nothing."""
    x = jtensor.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    g = jtensor.ones(2)
    with jprofiler.profile() as prof:
        out = _dispatch.profile_hook(node, lambda grad: grad * 3, (g,), {})
        _dispatch.emit("backward", node=node, grads=(out,))
    events = prof.function_events
    assert [e.name for e in events] == [BACKWARD + "MulBackward0", "MulBackward0", "aten::mul"]
    assert events[2].cpu_parent is events[1] and events[1].cpu_parent is events[0]
    assert events[1].sequence_nr == node._seq and out.tolist() == [3.0, 3.0]


def test_averages_and_shapes():
    a = jtensor.ones(2, 3)
    with jprofiler.profile(record_shapes=True) as prof:
        for _ in range(3):
            a * 2
        a.sum()
    averages = {e.key: e for e in prof.key_averages()}
    mul = averages["aten::mul"]
    assert mul.count == 3
    assert mul.cpu_time == pytest.approx(mul.cpu_time_total / 3)
    assert mul.cpu_time_total >= mul.self_cpu_time_total >= 0
    assert mul.input_shapes == ""  # (grouped by name only)
    by_shape = {e.key: e for e in prof.key_averages(group_by_input_shape=True)}
    assert by_shape["aten::mul"].input_shapes == [[2, 3], []]
    assert prof.function_events[0].input_shapes == [[2, 3], []]
    assert mul.key in str(prof.key_averages()) and "aten::sum" in str(prof)


@needs_torch
def test_input_shapes_of_a_binary_op_are_pytorchs():
    def program(lib):
        lib.ones(2, 3) * lib.ones(3)
        lib.ones(2) * 2

    shapes = [
        [
            e.input_shapes
            for e in _profile(lib, program, record_shapes=True).key_averages(
                group_by_input_shape=True
            )
            if e.key == "aten::mul"
        ]
        for lib in (jtensor, torch)
    ]
    assert shapes[0] == shapes[1]


@needs_torch
def test_flops_and_memory_of_a_product_are_pytorchs():
    def program(lib):
        lib.mm(lib.ones(8, 16), lib.ones(16, 4)) * 2

    found = [
        {
            e.key: (e.flops, e.cpu_memory_usage)
            for e in _profile(lib, program, with_flops=True, profile_memory=True).key_averages()
            if e.key in ("aten::mm", "aten::mul")
        }
        for lib in (jtensor, torch)
    ]
    assert found[0] == found[1]


def test_with_stack_keeps_the_callers_line(tmp_path):
    with jprofiler.profile(with_stack=True) as prof:
        jtensor.ones(3)
    (event,) = prof.function_events
    assert event.stack[0].startswith(__file__ + "(")
    assert event.stack[0].endswith(": test_with_stack_keeps_the_callers_line")
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    for line in path.read_text().splitlines():
        frames, value = line.rsplit(" ", 1)
        assert int(value) >= 0 and "test_with_stack_keeps_the_callers_line" in frames
    with jprofiler.profile() as plain:
        pass
    with pytest.raises(AssertionError, match="requires with_stack=True"):
        plain.export_stacks(str(path))


# ----------------------------------------------------------------------- the chrome trace
def _check_trace(path, expected_names):
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    document = json.loads(raw)
    assert isinstance(document["traceEvents"], list)
    complete = [e for e in document["traceEvents"] if e["ph"] == "X"]
    for e in complete:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "args", "cat"} <= set(e)
        assert e["dur"] >= 0 and isinstance(e["ts"], (int, float))
    assert expected_names <= {e["name"] for e in complete}
    arrows = [e for e in document["traceEvents"] if e.get("cat") == "fwdbwd"]
    assert {e["ph"] for e in arrows} <= {"s", "f"}
    return document


def test_chrome_trace_is_valid_json_with_one_complete_event_per_range(tmp_path):
    x = jtensor.ones(2, requires_grad=True)
    with jprofiler.profile(record_shapes=True) as prof:
        with jprofiler.record_function("label"):
            (x * 2).sum().backward()
    path = str(tmp_path / "trace.json")
    prof.export_chrome_trace(path)
    document = _check_trace(
        path, {"label", "aten::mul", "aten::sum", "MulBackward0", BACKWARD + "MulBackward0"}
    )
    complete = [e for e in document["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.function_events)
    label = next(e for e in complete if e["name"] == "label")
    assert label["cat"] == "user_annotation"
    mul = next(e for e in complete if e["name"] == "aten::mul")
    assert mul["args"]["Input Dims"] == [[2], []]
    # The flow arrow joins the op that recorded MulBackward0 to the node's run.
    arrows = {
        e["ph"]: e["id"]
        for e in document["traceEvents"]
        if e.get("cat") == "fwdbwd" and e["id"] == mul["args"]["Sequence number"]
    }
    assert set(arrows) == {"s", "f"}


def test_torch_profiler_exports_plain_and_gzipped_traces_and_tensorboard_files(tmp_path):
    with jtensor.profiler.profile(activities=[jtensor.profiler.ProfilerActivity.CPU]) as prof:
        jtensor.ones(3) + 1
    for name in ("t.json", "t.json.gz"):
        prof.export_chrome_trace(str(tmp_path / name))
        _check_trace(str(tmp_path / name), {"aten::ones", "aten::add"})
    handler = jtensor.profiler.tensorboard_trace_handler(str(tmp_path / "logs"), "worker")
    handler(prof)
    (written,) = (tmp_path / "logs").iterdir()
    assert re.fullmatch(r"worker\.\d+\.pt\.trace\.json", written.name)
    _check_trace(str(written), {"aten::ones"})


# ----------------------------------------------------------------------- torch.profiler
@needs_torch
@pytest.mark.parametrize(
    "args",
    [
        {"wait": 1, "warmup": 1, "active": 2},
        {"wait": 1, "warmup": 1, "active": 2, "repeat": 1},
        {"wait": 0, "warmup": 2, "active": 1, "repeat": 2, "skip_first": 3},
        {"wait": 2, "warmup": 1, "active": 1, "skip_first": 1, "skip_first_wait": 1},
    ],
)
def test_schedule_phases_are_pytorchs(args):
    mine, theirs = (lib.profiler.schedule(**args) for lib in (jtensor, torch))
    assert [mine(i).name for i in range(16)] == [theirs(i).name for i in range(16)]


def _scheduled_run(lib, steps=7, **schedule):
    """Labels recorded per finished cycle (each step runs one labelled op)."""
    cycles = []

    def ready(prof):
        keys = [e.key for e in prof.key_averages()]
        cycles.append((prof.step_num, sorted(k for k in keys if k.startswith(("step", "Prof")))))

    with lib.profiler.profile(
        activities=[lib.profiler.ProfilerActivity.CPU],
        schedule=lib.profiler.schedule(**schedule),
        on_trace_ready=ready,
    ) as prof:
        for i in range(steps):
            with lib.profiler.record_function(f"step{i}"):
                lib.ones(2) * i
            prof.step()
    return cycles


@needs_torch
@pytest.mark.parametrize(
    "schedule",
    [
        {"wait": 1, "warmup": 1, "active": 2, "repeat": 1},
        {"wait": 0, "warmup": 1, "active": 1, "repeat": 3},
        {"wait": 1, "warmup": 1, "active": 2},
    ],
)
def test_schedule_records_the_active_steps_as_pytorch_does(schedule):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Profiler clears events at the end of each cycle"
        assert _scheduled_run(jtensor, **schedule) == _scheduled_run(torch, **schedule)


def test_scheduled_steps_are_profiler_step_ranges():
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Profiler won't be using warmup"
        steps = jtensor.profiler.schedule(wait=0, warmup=0, active=3)
    with jtensor.profiler.profile(schedule=steps, on_trace_ready=seen.append) as prof:
        for i in range(3):
            jtensor.ones(1)
            if i < 2:
                prof.step()
    assert seen == [prof]
    events = prof.events()
    steps = [e for e in events if e.name == "ProfilerStep*"]
    assert [e.trace_name for e in steps] == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert all(e.cpu_children[0].name == "aten::ones" for e in steps)


@needs_torch
def test_schedule_errors_and_warnings_are_pytorchs():
    found = []
    for lib in (jtensor, torch):
        with pytest.raises(AssertionError) as error:
            lib.profiler.schedule(wait=-1, warmup=0, active=1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.profiler.schedule(wait=0, warmup=0, active=1)
        found.append((str(error.value), [str(w.message) for w in caught]))
    assert found[0] == found[1]


@needs_torch
def test_profiler_api_names_are_pytorchs():
    # (ExecutionTraceObserver writes PyTorch's execution-graph format: no jtensor equivalent.)
    missing = set(torch.profiler.__all__) - set(dir(jtensor.profiler))
    assert missing == {"ExecutionTraceObserver"}
    assert set(torch.autograd.profiler_util.__all__) - set(dir(jtensor.autograd.profiler_util)) == {
        "EventMetadata",
        "StringTable",
        "MemRecordsAcc",
    }
    assert {a.name: a.value for a in jtensor.profiler.ProfilerActivity} == {
        name: int(a.value) for name, a in torch.profiler.ProfilerActivity.__members__.items()
    }
    assert {a.name: a.value for a in jtensor.profiler.ProfilerAction} == {
        a.name: a.value for a in torch.profiler.ProfilerAction if a.name != "DEVICE_STOPPED"
    }
    assert jtensor.profiler.record_function is jtensor.autograd.profiler.record_function
    assert jtensor.autograd.ProfilerActivity is jtensor.profiler.ProfilerActivity
    assert jtensor.profiler.supported_activities() == {jtensor.profiler.ProfilerActivity.CPU}


# ----------------------------------------------------------------------- errors, states
def _outcome(call):
    try:
        result = call()
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return type(e).__name__, str(e)
    return "ok", result if isinstance(result, (str, int, type(None))) else type(result).__name__


@needs_torch
@pytest.mark.parametrize("what", ["key_averages", "events", "export"])
def test_torch_profiler_results_before_start_raise_as_pytorchs(what, tmp_path):
    calls = {
        "key_averages": lambda p: p.key_averages(),
        "events": lambda p: p.events(),
        "export": lambda p: p.export_chrome_trace(str(tmp_path / "x.json")),
    }
    found = [
        _outcome(lambda lib=lib: calls[what](lib.profiler.profile())) for lib in (jtensor, torch)
    ]
    assert found[0] == found[1] and found[0][0] == "AssertionError"


@needs_torch
def test_results_inside_the_block_are_empty_and_complete_after_it_as_pytorchs():
    found = []
    for lib in (jtensor, torch):
        outcomes = []
        prof = lib.autograd.profiler.profile()
        outcomes.append(_outcome(lambda prof=prof: repr(prof)))
        outcomes.append(_outcome(lambda prof=prof: len(prof.key_averages())))
        with prof:
            lib.ones(2) * 2
            outcomes.append(_outcome(lambda prof=prof: len(prof.key_averages())))
            outcomes.append(_outcome(lambda prof=prof: prof.key_averages().table()))
            outcomes.append(_outcome(prof.__enter__))
        outcomes.append(_outcome(lambda prof=prof: "aten::mul" in prof.key_averages().table()))
        outcomes.append(_outcome(prof.__enter__))  # a finished profile is not reentrant
        with lib.autograd.profiler.profile(enabled=False) as off:
            outcomes.append(_outcome(lambda off=off: off))
        found.append(outcomes)
    assert found[0] == found[1]
    assert found[0][4] == ("RuntimeError", "Profiler context manager is not reentrant")


@needs_torch
def test_use_cuda_warnings_are_pytorchs():
    found = []
    for lib in (jtensor, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prof = lib.autograd.profiler.profile(use_cuda=True)
            lib.autograd.profiler.profile(use_device="tpu")
        found.append(([(w.category, str(w.message)) for w in caught], prof.use_device))
    assert found[0] == found[1]


def test_hooks_are_removed_on_exit_even_when_the_code_raises():
    with pytest.raises(ZeroDivisionError), jprofiler.profile() as prof:
        jtensor.ones(2) * 2
        raise ZeroDivisionError("the profiled code failed")
    assert _dispatch.profile_hook is None and _dispatch.event_hook is None
    assert [e.name for e in prof.function_events] == ["aten::ones", "aten::mul"]


def test_an_op_that_raises_is_still_an_event():
    with jprofiler.profile() as prof:
        with pytest.raises(RuntimeError):
            jtensor.ones(2, 3).view(4)
        jtensor.ones(1)
    assert [e.name for e in prof.function_events] == ["aten::ones", "aten::view", "aten::ones"]


def test_nested_profiles_each_get_their_window():
    with jprofiler.profile() as outer:
        jtensor.ones(1)
        with jprofiler.profile() as inner:
            jtensor.zeros(1)
        jtensor.empty(1)
    assert [e.name for e in outer.function_events] == ["aten::ones", "aten::zeros", "aten::empty"]
    assert [e.name for e in inner.function_events] == ["aten::zeros"]


def test_a_profile_inside_a_trace_keeps_the_trace_informed():
    x = jtensor.ones(2, requires_grad=True)
    with jtensor.trace.record() as t:
        with jprofiler.profile() as prof:
            (x * 2).sum().backward()
        assert _dispatch.event_hook is not None and _dispatch.profile_hook is None
    assert [e.name for e in t.events if e.kind == "backward"] == [
        "SumBackward0",
        "MulBackward0",
        "torch::autograd::AccumulateGrad",
    ]
    assert "MulBackward0" in [e.name for e in prof.function_events]
    assert _dispatch.event_hook is None


def test_profiling_changes_no_result():
    def step(lib_profile):
        jtensor.manual_seed(0)
        model = jtensor.nn.Sequential(
            jtensor.nn.Linear(4, 5), jtensor.nn.ReLU(), jtensor.nn.Linear(5, 2)
        )
        x = jtensor.randn(3, 4)
        with lib_profile():
            loss = jtensor.nn.functional.cross_entropy(model(x), jtensor.tensor([0, 1, 1]))
            loss.backward()
        return loss.item(), [p.grad.tolist() for p in model.parameters()]

    assert step(jprofiler.profile) == step(lambda: jprofiler.profile(enabled=False))


def test_toggling_collection_pauses_the_cpu_events():
    cpu = jtensor.profiler.ProfilerActivity.CPU
    with jtensor.profiler.profile() as prof:
        jtensor.ones(1)
        prof.toggle_collection_dynamic(False, [cpu])
        jtensor.zeros(1)
        prof.toggle_collection_dynamic(True, [cpu])
        jtensor.empty(1)
    assert [e.name for e in prof.events()] == ["aten::ones", "aten::empty"]


def test_a_warning_inside_a_profiled_op_points_at_the_users_line():
    x = jtensor.ones(2, 2, 2)
    with jprofiler.profile(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.T  # noqa: B018 - the deprecated property warns
    (warning,) = caught
    assert warning.filename == __file__
