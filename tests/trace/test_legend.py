"""``jtensor.trace.legend()``: the legend explains every label a trace report prints."""

import re

import jtensor as torch
import jtensor.autograd.forward_ad as fwAD
from jtensor.func import vmap
from jtensor.trace.report import _KIND_ORDER


def _report():
    """A report with a view, copies, an allocation, an in-place write, a graph and a
    vmap-labelled op (every label the legend has to explain)."""
    x = torch.arange(6.0, requires_grad=True)
    with torch.trace.record() as t:
        y = x * 2
        z = y.view(2, 3)
        w = z.t().contiguous()
        q = torch.zeros(3)
        q.add_(1)
        vmap(lambda a: a * 2)(torch.ones(4, 3))
        w.sum()
    del y, w, q  # the names above only label the report
    return t.to_text()


def test_legend_is_plain_text_and_explains_the_labels():
    text = torch.trace.legend()
    assert isinstance(text, str) and text == torch.trace.legend()
    for label in (
        "S1",
        "t1",
        "G1",
        "v0->v1",
        "(+48 B)",
        "[vmap level 1",
        "[forward AD level",
        "[copied]",
        "grad_fn=",
    ):
        assert label in text, label
    for kind in _KIND_ORDER:
        if kind != "query":  # queries (shape, stride) are counted, never shown as rows
            assert kind in text, kind
    # why an out-of-place op such as mul is a "copy": its result has its own storage
    assert re.search(r"copy\s+a new tensor with its OWN new storage", text)
    assert "mul" in text


def test_every_label_of_a_real_report_is_in_the_legend():
    report = _report()
    text = torch.trace.legend()
    kinds = set(re.findall(r"^\s+\d+\s+\S+\s+(\S+)\s", report, flags=re.M))
    assert {"allocation", "view", "copy", "in-place"} <= kinds
    assert kinds <= set(_KIND_ORDER)
    for kind in kinds:
        assert kind in text
    for pattern in (r"S\d+", r"G\d+", r"t\d+", r"v\d+->v\d+", r"\(\+\d+ B\)", r"\[vmap level \d+"):
        assert re.search(pattern, report), pattern
    assert "(+48 B)" in report  # ones(4, 3) float32: the size the legend uses as example


def test_forward_ad_label_matches_the_legend():
    x = torch.ones(3)
    with torch.trace.record() as t:
        with fwAD.dual_level():
            fwAD.make_dual(x, torch.ones(3)).sin()
    assert "[forward AD level 0, for sin]" in t.to_text(("ops",))
    assert "[forward AD level 0, for sin]" in torch.trace.legend()


def test_legend_needs_no_ipython():
    import subprocess
    import sys

    code = (
        "import sys, jtensor; text = jtensor.trace.legend(); "
        "assert 'IPython' not in sys.modules, 'IPython imported'; print(len(text) > 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_exported_with_a_docstring():
    assert "legend" in torch.trace.__all__
    assert torch.trace.legend.__doc__
