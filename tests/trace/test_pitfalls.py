"""Every pitfall of jtensor.trace: a case that triggers it and a near miss that must not.

Each case is a small script run under the recorder (compiled with its own file name, so the
finding's line is the script's line). ``LINE`` is the 1-based line that must be blamed.
"""

import linecache
import re
import warnings

import pytest

import jtensor
from jtensor.trace import PITFALLS

_counter = [0]


def run(source, raises=False, **extra):
    """Run ``source`` under a recorder; the trace, with names from the script's namespace.

    ``raises``: the script must end in PyTorch's refusal (a RuntimeError: the case it shows
    is an error); otherwise any exception fails the test."""
    _counter[0] += 1
    filename = f"<pitfall-case-{_counter[0]}>"
    lines = source.splitlines(True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    ns = {"torch": jtensor, "emit": jtensor._dispatch.emit, **extra}
    code = compile(source, filename, "exec")
    trace = jtensor.trace.record(namespace=ns)
    trace.main_filename = filename
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if raises:
            with pytest.raises(RuntimeError):  # the refusal; the trace keeps what happened
                with trace:
                    exec(code, ns)
        else:
            with trace:
                exec(code, ns)
    return trace


def codes(trace):
    return [f.code for f in trace.pitfalls]


# code -> (trigger, line blamed, near miss)
CASES = {
    "RESHAPE-COPY": (
        "x = torch.arange(6.).view(2, 3)\n"
        "y = x.t().reshape(6)\n", 2,
        "x = torch.arange(6.).view(2, 3)\n"
        "y = x.reshape(6)\n"),
    "VIEW-FAILED": (
        "x = torch.arange(6.).view(2, 3)\n"
        "y = x.t().view(6)\n", 2,
        "x = torch.arange(6.).view(2, 3)\n"
        "y = x.t().contiguous().view(6)\n"),
    "WRITE-TO-INDEX-COPY": (
        "x = torch.zeros(4)\n"
        "x[[0, 2]][0] = 5.0\n", 2,
        "x = torch.zeros(4)\n"
        "y = x[[0, 2]]\n"
        "y[0] = 5.0\n"
        "print(y.sum())\n"),
    "WRITE-OVERLAP": (
        "x = torch.zeros(3)\n"
        "e = x.expand(4, 3)\n"
        "e[0].fill_(1.0)\n", 3,
        "x = torch.zeros(3)\n"
        "e = x.expand(4, 3).clone()\n"
        "e[0].fill_(1.0)\n"),
    "INPLACE-LEAF-VIEW": (
        "w = torch.ones(4, requires_grad=True)\n"
        "v = w[:2]\n"
        "v.mul_(2)\n", 3,
        "w = torch.ones(4, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    w[:2].mul_(2)\n"),
    "SAVED-MODIFIED": (
        "w = torch.ones(3, requires_grad=True)\n"
        "y = w.sigmoid()\n"
        "y.mul_(2)\n", 3,
        "w = torch.ones(3, requires_grad=True)\n"
        "y = w + 1\n"
        "y.mul_(2)\n"),
    "SYNC-IN-LOOP": (
        "for i in range(3):\n"
        "    emit('sync', device='cuda:0', reason='item')\n", 2,
        "for i in range(3):\n"
        "    pass\n"
        "emit('sync', device='cuda:0', reason='item')\n"),
    "TRANSFER-IN-LOOP": (
        "for i in range(3):\n"
        "    emit('transfer', src='cpu', dst='cuda:0', nbytes=64, non_blocking=False)\n", 2,
        "emit('transfer', src='cpu', dst='cuda:0', nbytes=64, non_blocking=False)\n"
        "for i in range(3):\n"
        "    emit('launch', device='cuda:0', op='add', kernel=None)\n"),
    "TENSOR-OF-TENSOR": (
        "x = torch.ones(3, requires_grad=True)\n"
        "y = torch.tensor(x)\n", 2,
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.detach().clone()\n"),
    "DATA-ATTR": (
        "w = torch.ones(3, requires_grad=True)\n"
        "w.data.mul_(2)\n", 2,
        "w = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    w.mul_(2)\n"),
    "GRAD-ACCUMULATES": (
        "w = torch.ones(3, requires_grad=True)\n"
        "for i in range(2):\n"
        "    (w * 2).sum().backward()\n", 3,
        "w = torch.ones(3, requires_grad=True)\n"
        "for i in range(2):\n"
        "    w.grad = None\n"
        "    (w * 2).sum().backward()\n"),
    "UNUSED-GRAPH": (
        "w = torch.ones(3, requires_grad=True)\n"
        "for i in range(3):\n"
        "    score = (w * i).sum().item()\n", 3,
        "w = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    for i in range(3):\n"
        "        score = (w * i).sum().item()\n"),
    "RETAIN-GRAPH": (
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * w).sum()\n"
        "loss.backward(retain_graph=True)\n", 3,
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * w).sum()\n"
        "loss.backward(retain_graph=True)\n"
        "loss.backward()\n"),
    "DTYPE-PROMOTION": (
        "pred = torch.ones(4, dtype=torch.float16)\n"
        "target = torch.zeros(4)\n"
        "diff = pred - target\n", 3,
        "pred = torch.ones(4, dtype=torch.float16)\n"
        "target = torch.zeros(4, dtype=torch.float16)\n"
        "diff = pred - target\n"
        "half = pred * 0.5\n"),
    "SCHEDULER-ORDER": (
        "w = torch.nn.Parameter(torch.ones(2))\n"
        "opt = torch.optim.SGD([w], lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)\n"
        "sched.step()\n", 4,
        "w = torch.nn.Parameter(torch.ones(2))\n"
        "opt = torch.optim.SGD([w], lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)\n"
        "opt.step()\n"
        "sched.step()\n"),
    "EMPTY-READ": (
        "buf = torch.empty(3)\n"
        "total = buf.sum()\n", 2,
        "buf = torch.empty(3)\n"
        "buf.fill_(1.0)\n"
        "total = buf.sum()\n"),
    "DETACH-INPLACE": (
        "w = torch.ones(3, requires_grad=True)\n"
        "d = w.detach()\n"
        "d.zero_()\n", 3,
        "w = torch.ones(3, requires_grad=True)\n"
        "d = w.detach().clone()\n"
        "d.zero_()\n"),
}


# The cases that show an error PyTorch raises (the script ends in that RuntimeError).
RAISING = {"INPLACE-LEAF-VIEW", "VIEW-FAILED"}


def test_every_pitfall_has_cases():
    assert set(CASES) == set(PITFALLS)


@pytest.mark.parametrize("code", sorted(CASES))
def test_pitfall_triggers(code):
    source, line, _ = CASES[code]
    trace = run(source, raises=code in RAISING)
    found = [f for f in trace.pitfalls if f.code == code]
    assert found, f"{code} not found; findings: {codes(trace)}"
    finding = found[0]
    assert finding.line == line
    assert finding.title == PITFALLS[code][0]
    assert finding.explanation and finding.fix
    assert finding.source == source.splitlines()[line - 1].strip()
    # The text and HTML reports both explain it.
    assert f"[{code}]" in trace.to_text()
    assert f"[{code}]" in trace.to_html()


@pytest.mark.parametrize("code", sorted(CASES))
def test_pitfall_near_miss(code):
    _, _, near_miss = CASES[code]
    trace = run(near_miss)
    assert code not in codes(trace), trace.to_text()


def test_findings_name_the_users_variables():
    trace = run(CASES["RESHAPE-COPY"][0])
    (finding,) = [f for f in trace.pitfalls if f.code == "RESHAPE-COPY"]
    assert "y does not share memory" in finding.explanation
    assert "stride [1, 3]" in finding.explanation


def test_view_failed_names_the_strides_that_forbid_it():
    trace = run(CASES["VIEW-FAILED"][0], raises=True)
    (finding,) = [f for f in trace.pitfalls if f.code == "VIEW-FAILED"]
    assert "stride [1, 3]" in finding.explanation
    assert "1 != 3 x 2" in finding.explanation
    assert trace.error[0] == "RuntimeError" and trace.error[3] == 2


def test_view_failed_is_found_when_the_code_catches_the_error():
    trace = run("x = torch.arange(6.).view(2, 3)\n"
                "try:\n"
                "    y = x.t().view(6)\n"
                "except RuntimeError:\n"
                "    y = x.t().reshape(6)\n")
    assert trace.error is None
    assert [(f.code, f.line) for f in trace.pitfalls] == [("VIEW-FAILED", 3),
                                                          ("RESHAPE-COPY", 5)]


def test_saved_modified_names_the_saving_op_and_versions():
    trace = run(CASES["SAVED-MODIFIED"][0])
    (finding,) = [f for f in trace.pitfalls if f.code == "SAVED-MODIFIED"]
    assert "SigmoidBackward0" in finding.explanation
    assert "made by sigmoid at line 2" in finding.explanation
    assert "version 0" in finding.explanation and "now version 1" in finding.explanation


def test_saved_modified_predicts_the_error_backward_raises():
    trace = run(CASES["SAVED-MODIFIED"][0] + "y.sum().backward()\n", raises=True)
    assert "SAVED-MODIFIED" in codes(trace)
    assert trace.error[0] == "RuntimeError"
    assert "modified by an inplace operation" in trace.error[1]


def test_grad_accumulates_only_once_per_line():
    trace = run("w = torch.ones(3, requires_grad=True)\n"
                "for i in range(4):\n"
                "    (w * 2).sum().backward()\n")
    assert codes(trace).count("GRAD-ACCUMULATES") == 1


def test_grad_zeroed_in_place_is_not_accumulating():
    trace = run("w = torch.ones(3, requires_grad=True)\n"
                "for i in range(3):\n"
                "    (w * 2).sum().backward()\n"
                "    w.grad.zero_()\n")
    assert "GRAD-ACCUMULATES" not in codes(trace)


def test_optimizer_zero_grad_is_not_accumulating():
    trace = run("w = torch.nn.Parameter(torch.ones(3))\n"
                "opt = torch.optim.SGD([w], lr=0.1)\n"
                "for i in range(3):\n"
                "    opt.zero_grad()\n"
                "    (w * 2).sum().backward()\n"
                "    opt.step()\n")
    assert codes(trace) == []


def test_unused_graph_after_training():
    trace = run("w = torch.ones(3, requires_grad=True)\n"
                "(w * 2).sum().backward()\n"
                "accuracy = (w * 3).sum().item()\n")
    assert [(f.code, f.line) for f in trace.pitfalls] == [("UNUSED-GRAPH", 3)]
    trace = run("w = torch.ones(3, requires_grad=True)\n"
                "(w * 2).sum().backward()\n"
                "with torch.no_grad():\n"
                "    accuracy = (w * 3).sum().item()\n")
    assert codes(trace) == []


def test_dtype_promotion_float64_labels():
    trace = run("import numpy as np\n"
                "pred = torch.ones(4)\n"
                "labels = torch.from_numpy(np.zeros(4))\n"
                "loss = ((pred - labels) ** 2).mean()\n")
    (finding,) = [f for f in trace.pitfalls if f.code == "DTYPE-PROMOTION"]
    assert finding.line == 4
    assert "float64" in finding.explanation


def test_index_copy_written_then_used_is_not_flagged_but_lost_write_is():
    # ``x[idx] = v`` (setitem on the base) is the right way: never flagged.
    trace = run("x = torch.zeros(4)\n"
                "x[[0, 2]] = 5.0\n")
    assert "WRITE-TO-INDEX-COPY" not in codes(trace)
    trace = run("x = torch.zeros(4)\n"
                "x[x > -1].add_(1)\n")
    assert "WRITE-TO-INDEX-COPY" in codes(trace)


def test_two_syncs_on_one_line_are_not_a_loop():
    trace = run("emit('sync', device='cuda:0', reason='item'); "
                "emit('sync', device='cuda:0', reason='item')\n")
    assert trace.summary()["syncs"] == 2
    assert "SYNC-IN-LOOP" not in codes(trace)
    trace = run("for i in range(2): emit('sync', device='cuda:0', reason='item')\n")
    assert "SYNC-IN-LOOP" in codes(trace)


def test_sync_in_loop_counts_past_the_cap():
    trace = jtensor.trace.record(max_ops=1)
    with trace:
        for _ in range(5):
            jtensor._dispatch.emit("sync", device="cuda:0", reason="item")
    assert len(trace.events) == 1
    (finding,) = [f for f in trace.pitfalls if f.code == "SYNC-IN-LOOP"]
    assert "5 times" in finding.explanation


def test_every_code_is_documented():
    with open("docs/DEVELOPING.md", encoding="utf-8") as f:
        text = f.read()
    for code in PITFALLS:
        assert f"`{code}`" in text, code


@pytest.fixture
def emulated_cuda():
    from jtensor.cuda._runtime import runtime

    runtime._reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jtensor.cuda.emulate()
    yield
    runtime._reset()


def test_device_loops_on_the_emulated_device(emulated_cuda):
    trace = run("x = torch.ones(4, device='cuda')\n"
                "total = 0.0\n"
                "for i in range(3):\n"
                "    total += (x * i).sum().item()\n"
                "for i in range(2):\n"
                "    h = torch.ones(2).cuda()\n")
    found = {f.code: f.line for f in trace.pitfalls}
    assert found == {"SYNC-IN-LOOP": 4, "TRANSFER-IN-LOOP": 6}
    assert trace.summary()["syncs"] == 3
    assert [e.kind for e in trace.events if e.line == 4][:2] == ["launch", "copy"]


def test_device_near_miss_on_the_emulated_device(emulated_cuda):
    trace = run("x = torch.ones(4, device='cuda')\n"
                "total = torch.zeros((), device='cuda')\n"
                "for i in range(3):\n"
                "    total += (x * i).sum()\n"
                "print(total.item())\n")
    assert codes(trace) == []


def _graph_lines(trace):
    text = trace.to_text(sections=("graph",))
    return [ln for ln in text.splitlines() if ln.startswith("  line ")]


def test_unused_graph_counts_the_nodes_the_graph_section_lists():
    # Notebook 09's loop: the first two iterations' graphs are gone, the last one is still
    # held by `score`. The count must be the nodes listed, and say how many were discarded.
    trace = run("net = torch.nn.Linear(4, 1)\n"
                "for _ in range(3):\n"
                "    score = net(torch.ones(8, 4)).mean()\n")
    (finding,) = [f for f in trace.pitfalls if f.code == "UNUSED-GRAPH"]
    listed = len(_graph_lines(trace))
    assert listed == 6
    assert f"recorded {listed} autograd nodes that no backward() used" in finding.explanation
    assert "4 of them were discarded" in finding.explanation
    assert "the other 2 are still held by a live tensor" in finding.explanation
    trace = run(CASES["UNUSED-GRAPH"][0])
    (finding,) = [f for f in trace.pitfalls if f.code == "UNUSED-GRAPH"]
    listed = len(_graph_lines(trace))
    assert f"recorded {listed} autograd nodes that no backward() used: all were discarded" \
        in finding.explanation


@pytest.mark.parametrize("write, fix", [
    ("y.add_(1)", "out-of-place form (add)"),
    ("y.clamp_(0, 0.5)", "out-of-place form (clamp)"),
    ("y.zero_()", "torch.zeros_like(y)"),
    ("y.fill_(2.0)", "torch.full_like(y, value)"),
    ("y.copy_(torch.ones(3))", "src.clone()"),
    ("y.uniform_()", "torch.empty_like(y).uniform_(...)"),
    ("y[0] = 2.0", "y.clone()"),
])
def test_saved_modified_fix_names_a_form_pytorch_has(write, fix):
    import torch as real_torch  # the oracle: the suggested method must exist there

    trace = run("w = torch.ones(3, requires_grad=True)\n"
                f"y = w.sigmoid()\n{write}\n")
    (finding,) = [f for f in trace.pitfalls if f.code == "SAVED-MODIFIED"]
    assert fix in finding.fix
    named = re.search(r"out-of-place form \((\w+)\)", finding.fix)
    if named:
        assert hasattr(real_torch.Tensor, named.group(1)), finding.fix
    for fn in re.findall(r"torch\.(\w+)\(", finding.fix):
        assert hasattr(real_torch, fn), finding.fix
    assert "(zero)" not in finding.fix and "(__setitem)" not in finding.fix
