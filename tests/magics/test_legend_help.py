"""``%tensortrace --help``: the line form of the magic prints its options and the legend of
the report (``jtensor.trace.legend()``); the cell form is unchanged."""

import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import jtensor  # noqa: E402

# The same module-scoped shell fixture as the other magic tests (extension loaded).
from . import test_magics  # noqa: E402

ip = test_magics.ip


@pytest.mark.parametrize("flag", ["--help", "-h", "  --help  "])
def test_help_prints_options_then_legend(ip, flag):
    with capture_output() as captured:
        result = ip.run_line_magic("tensortrace", flag)
    assert result is None
    out = captured.stdout
    assert out.startswith("%tensortrace [-s LIST]")
    for option in ("--sections", "--max-ops", "--output", "--values", "--text"):
        assert option in out
    assert out.rstrip().endswith(jtensor.trace.legend().rstrip())
    assert out.index("--timeline") < out.index("How to read a tensortrace report")


def test_help_through_a_notebook_cell(ip):
    with capture_output() as captured:
        ip.run_cell("%tensortrace --help")
    assert "S1, S2, ..." in captured.stdout and "v0->v1" in captured.stdout


def test_line_form_with_code_is_refused(ip):
    with pytest.raises(UsageError, match=r"%%tensortrace"):
        ip.run_line_magic("tensortrace", "y = x * 2")
    with pytest.raises(UsageError, match="only --help"):
        ip.run_line_magic("tensortrace", "")
    assert jtensor.trace.active() is None


def test_cell_form_still_traces(ip):
    with capture_output() as captured:
        ip.run_cell_magic("tensortrace", "--text --sections ops", "y = torch.ones(3) * 2")
    assert "mul" in captured.stdout and "copy" in captured.stdout


def test_unload_removes_the_line_form():
    shell = test_magics.get_shell()
    shell.run_line_magic("load_ext", "jtensor")
    magics = shell.magics_manager.magics
    assert "tensortrace" in magics["line"] and "tensortrace" in magics["cell"]
    shell.run_line_magic("unload_ext", "jtensor")
    assert "tensortrace" not in magics["line"] and "tensortrace" not in magics["cell"]
