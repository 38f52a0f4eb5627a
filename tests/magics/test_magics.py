"""The magics through IPython's globalipapp: options, output, exceptions, tracebacks,
unloading."""

import json
import re

import pytest

IPython = pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.testing.globalipapp import start_ipython  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import jtensor  # noqa: E402
from jtensor import _dispatch  # noqa: E402


def get_shell():
    """The one test shell of this process (started on first use)."""
    shell = start_ipython() or IPython.get_ipython()
    # A notebook front end renders HTML; the test shell must compute it too.
    shell.display_formatter.formatters["text/html"].enabled = True
    return shell


@pytest.fixture(scope="module")
def ip():
    shell = get_shell()
    shell.run_line_magic("load_ext", "jtensor")
    shell.run_cell("import jtensor as torch")
    yield shell
    shell.run_line_magic("unload_ext", "jtensor")


def run(ip, cell):
    with capture_output() as captured:
        result = ip.run_cell(cell)
    return result, captured


def shown(captured):
    """The (html, text) of the report the magic displayed."""
    for output in captured.outputs:
        if "text/html" in output.data and "jt-trace" in output.data["text/html"]:
            return output.data["text/html"], output.data["text/plain"]
    raise AssertionError(f"no trace displayed: {captured.stdout} {captured.stderr} "
                         f"{[o.data for o in captured.outputs]}")


def test_default_output_summary_ops_names_sharing(ip):
    ip.run_cell("x = torch.arange(6.)")
    result, captured = run(ip, "%%tensortrace\ny = x.view(2, 3)\nz = y.t().reshape(6)\n")
    assert result.success
    html, text = shown(captured)
    assert text.startswith("tensortrace: 3 ops (2 view, 1 copy) · 24 B allocated · "
                           "0 sync points · 1 pitfall")
    assert "line 1  y = x.view(2, 3)" in text
    assert "x -> y [2, 3] float32 stride (3, 1) offset 0 S1" in text
    assert "y -> t1 [3, 2]" in text and "t1 -> z [6]" in text
    assert "S1: x, y" in text
    assert "[RESHAPE-COPY] line 2" in text
    assert "<table" in html and "RESHAPE-COPY" in html


def test_cell_runs_once_in_the_user_namespace(ip):
    ip.run_cell("calls = []")
    result, _ = run(ip, "%%tensortrace --text\ncalls.append(1)\nmade_here = torch.ones(2)\n")
    assert result.success
    assert ip.user_ns["calls"] == [1]
    assert isinstance(ip.user_ns["made_here"], jtensor.Tensor)


def test_last_expression_is_the_cell_value(ip):
    result, _ = run(ip, "%%tensortrace --text\na = torch.ones(2)\na.sum()\n")
    assert result.result.item() == 2.0
    result, _ = run(ip, "%%tensortrace --text\na = torch.ones(2)\na.sum();\n")
    assert result.result is None


def test_text_option_prints(ip):
    result, captured = run(ip, "%%tensortrace --text\nq = torch.zeros(2)\n")
    assert captured.stdout.startswith("tensortrace: 1 op (1 allocation)")
    assert not [o for o in captured.outputs if "text/html" in o.data]


def test_sections_option(ip):
    _, captured = run(ip, "%%tensortrace --text --sections summary,pitfalls\n"
                          "q = torch.zeros(2).view(2)\n")
    assert "ops:" not in captured.stdout and "pitfalls: none found" in captured.stdout
    with pytest.raises(UsageError, match="unknown section"):
        ip.run_cell_magic("tensortrace", "--sections opz", "q = 1")


def test_output_json_values_and_max_ops_options(ip, tmp_path):
    path = tmp_path / "t.json"
    _, captured = run(ip, f"%%tensortrace --text -o kept --json {path} --values --max-ops 2\n"
                          "a = torch.arange(3.)\nb = a * 2\nc = b + 1\n")
    trace = ip.user_ns["kept"]
    assert isinstance(trace, jtensor.trace.Trace)
    assert len(trace.events) == 2 and trace.summary()["events"] == 3
    assert "= [0.0, 2.0, 4.0]" in captured.stdout
    data = json.loads(path.read_text())
    assert [e["name"] for e in data["events"]] == ["arange", "mul"]
    assert data["events"][1]["outputs"][0]["name"] == "b"


def test_bad_options_raise_usage_error(ip):
    for line in ("--bogus", "--max-ops -3", "--max-ops many", "-o 1abc", "--values -1",
                 "--values 1000000", "--sections"):
        with pytest.raises(UsageError):
            ip.run_cell_magic("tensortrace", line, "a = 1")
    assert jtensor.trace.active() is None


def test_help_lists_the_options(ip):
    doc = ip.find_cell_magic("tensortrace").__doc__
    for option in ("--sections", "--max-ops", "--output", "--json", "--text", "--values"):
        assert option in doc


def test_empty_cell(ip):
    with pytest.raises(UsageError, match="cell is empty"):
        ip.run_cell_magic("tensortrace", "", "   \n")


def test_syntax_error_points_at_the_cell(ip):
    with pytest.raises(SyntaxError) as info:
        ip.run_cell_magic("tensortrace", "", "a = 1\nb = (\n")
    assert get_shell().compile.format_code_name(info.value.filename)[0] == "Cell"
    assert info.value.lineno == 2
    assert jtensor.trace.active() is None


def test_exception_shows_partial_trace_and_propagates(ip):
    ip.run_cell("x = torch.arange(6.)")
    result, captured = run(ip, "%%tensortrace --text\ny = x.view(2, 3)\nz = y.t().view(6)\n"
                               "never = 1\n")
    assert not result.success
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "never" not in ip.user_ns
    assert "raised RuntimeError at line 2" in captured.stdout
    assert "[VIEW-FAILED] line 2" in captured.stdout
    assert "Cell In[" in captured.stdout + captured.stderr
    assert _dispatch.trace_hook is None and _dispatch.event_hook is None


def test_traceback_reads_the_cells_line(ip):
    shell = ip
    cell = "a = 1\nb = 2\nraise ValueError('boom')\n"
    with pytest.raises(ValueError) as info:
        shell.run_cell_magic("tensortrace", "--text", cell)
    tb = info.value.__traceback__
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    filename, line = frames[-1]
    assert line == 3
    # IPython shows this file name as "Cell In[N]" in tracebacks.
    label, name = shell.compile.format_code_name(filename)
    assert label == "Cell" and name.startswith("In[")


def test_keyboard_interrupt_propagates(ip):
    with capture_output() as captured:
        with pytest.raises(KeyboardInterrupt):
            ip.run_cell_magic("tensortrace", "--text",
                              "q = torch.ones(2)\nraise KeyboardInterrupt\n")
    assert "raised KeyboardInterrupt" in captured.stdout
    assert jtensor.trace.active() is None


def test_nested_tensortrace_is_refused(ip):
    ip.run_cell("import IPython")
    result, captured = run(
        ip, "%%tensortrace --text\n"
            "IPython.get_ipython().run_cell_magic('tensortrace', '', 'a = 1')\n")
    assert isinstance(result.error_in_exec, UsageError)
    assert "cannot be nested" in str(result.error_in_exec)
    assert jtensor.trace.active() is None


def test_html_in_names_is_escaped(ip):
    _, captured = run(ip, "%%tensortrace\nglobals()['<i>w</i>'] = torch.ones(2).view(2)\n")
    html, _ = shown(captured)
    assert "<i>w</i>" not in html and "&lt;i&gt;w&lt;/i&gt;" in html


def test_threads_in_a_cell(ip):
    _, captured = run(ip, "%%tensortrace --text\nimport threading\n"
                          "th = threading.Thread(target=lambda: torch.ones(2) + 1)\n"
                          "th.start(); th.join()\n")
    assert "events from other threads not recorded" in captured.stdout


def test_tensorinfo(ip):
    ip.run_cell("x = torch.arange(6.)\ny = x.view(2, 3)")
    result, _ = run(ip, "%tensorinfo y")
    info = result.result
    assert str(info).startswith("y: tensor")
    assert info.fields["shares storage with"] == "x [6] (base)"
    result, _ = run(ip, "%tensorinfo y.t()")
    assert result.result.fields["stride"].startswith("(1, 3)")
    for line, message in (("", "needs a tensor"), ("nope_not_defined", "not defined"),
                          ("[1, 2]", "is a list")):
        with pytest.raises(UsageError, match=message):
            ip.run_line_magic("tensorinfo", line)


def test_unload_leaves_nothing_registered():
    shell = get_shell()
    shell.run_line_magic("load_ext", "jtensor")
    assert "tensortrace" in shell.magics_manager.magics["cell"]
    shell.run_line_magic("unload_ext", "jtensor")
    assert "tensortrace" not in shell.magics_manager.magics["cell"]
    assert "tensorinfo" not in shell.magics_manager.magics["line"]
    assert "tensorview" not in shell.magics_manager.magics["line"]
    assert "TensorMagics" not in shell.magics_manager.registry
    assert "_ViewMagics" not in shell.magics_manager.registry
    shell.run_line_magic("load_ext", "jtensor")  # and it loads again
    assert "tensorinfo" in shell.magics_manager.magics["line"]


def test_output_is_deterministic_and_shows_the_graph(ip):
    cell = ("%%tensortrace\nw = torch.ones(3, requires_grad=True)\n"
            "loss = (w * w).sum()\nloss.backward()\n")
    first = shown(run(ip, cell)[1])
    second = shown(run(ip, cell)[1])
    assert first == second
    html, text = first
    assert "autograd graph:" in text
    assert "t1 = MulBackward0 (G1) <- w" in text
    assert "backward ran MulBackward0" in text
    assert "into w.grad" in text


def test_code_from_another_cell_is_named_by_its_cell(ip):
    ip.run_cell("def helper(t):\n    return t.t()\n")
    _, captured = run(ip, "%%tensortrace --text\nh = helper(torch.ones(2, 3))\n")
    assert re.search(r"  In\[\d+\]:2  return t.t\(\)", captured.stdout), captured.stdout


def test_big_tensors_are_summarised(ip):
    _, captured = run(ip, "%%tensortrace --text --values\nbig = torch.zeros(1000, 1000)\n"
                          "small = torch.arange(3.)\n")
    assert "big [1000, 1000] float32" in captured.stdout
    assert "= [0.0, 1.0, 2.0]" in captured.stdout
    assert len(captured.stdout) < 3000


# ---------------------------------------------------------------------- widgets from the magics
def test_tensorview_reaches_every_widget(ip):
    from jtensor import widgets

    ip.run_cell("a = torch.arange(6.).view(2, 3)\nb = a.t()\n"
                "w = torch.ones(2, requires_grad=True)\nloss = (w * 3).sum()\n")
    cases = (("storage a b", widgets.StorageMap), ("strides a", widgets.StrideExplorer),
             ("graph loss", widgets.GradGraph), ("broadcast a (3, 1, 1)", widgets.BroadcastView),
             ("summary a[0]", widgets.TensorSummary))
    for line, kind in cases:
        view = ip.run_line_magic("tensorview", line)
        assert isinstance(view, kind), line
        assert "<svg" in view._repr_html_()
    storage_map = ip.run_line_magic("tensorview", "storage a b")
    assert storage_map.names == ["a", "b"]
    assert "loss" in ip.run_line_magic("tensorview", "graph loss")._repr_html_()


def test_tensorview_bad_input(ip):
    for line, message in (("", "needs a kind"), ("pie a", "unknown kind 'pie'"),
                          ("storage", "needs at least one tensor"),
                          ("strides a b", "takes one tensor"),
                          ("storage not_defined_here", "not defined"),
                          ("summary [1, 2]", "is a list")):
        with pytest.raises(UsageError, match=message):
            ip.run_line_magic("tensorview", line)


def test_tensortrace_view_and_timeline_options(ip):
    from jtensor import widgets

    result, captured = run(ip, "%%tensortrace --text --view --timeline\n"
                               "v = torch.arange(4.) * 2\n")
    assert result.success
    html = " ".join(o.data.get("text/html", "") for o in captured.outputs)
    assert f"jtensor-{widgets.TraceView.kind}" in html
    assert f"jtensor-{widgets.DeviceTimeline.kind}" in html
