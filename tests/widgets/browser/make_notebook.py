"""Writes widgets_demo.ipynb, the notebook the browser test runs (every widget once).

Run from anywhere: ``.venv/bin/python tests/widgets/browser/make_notebook.py``. Cell ids are
fixed so the file only changes when a cell does.
"""

from pathlib import Path

import nbformat

CELLS = [
    """\
import jtensor as torch
from jtensor.widgets import (BroadcastView, DeviceTimeline, GradGraph, StorageMap,
                             StrideExplorer, TraceView, summary)
torch.manual_seed(0);""",
    """\
# Storage map: three tensors over two storages (a view, its transpose, a stride-0 expand)
x = torch.arange(12.)
a = x.view(3, 4)
b = a.t()
e = torch.ones(1).expand(4)
StorageMap(a, b, e)""",
    """\
# Stride explorer: try another shape / stride / offset over x's storage
StrideExplorer(x)""",
    """\
# Autograd graph after backward (retain_graph keeps the saved tensors)
w = torch.ones(3, 2, requires_grad=True)
bias = torch.zeros(2, requires_grad=True)
inp = torch.arange(6.).view(2, 3)
h = inp @ w + bias
h.retain_grad()
loss = h.relu().sum()
loss.backward(retain_graph=True)
GradGraph(loss)""",
    """\
# Broadcasting: (2, 3) against (4,) clashes in the last dimension
BroadcastView((2, 3), (4,))""",
    """\
# One line and a histogram for a million values
noise = torch.randn(1_000_000)
summary(noise)""",
    """\
# A trace of CUDA code (emulated: no GPU needed): a table with filters, an allocation plot
torch.cuda.emulate()
xc = torch.ones(100_000, device="cuda")
with torch.trace.record() as trace:
    yc = xc * 2
    zc = yc.exp()
    total = (yc + zc).sum().item()
    back = zc.cpu()
TraceView(trace)""",
    """\
# The same trace as a timeline: the host queues kernels, the device runs them later,
# and .item() / .cpu() wait for it
DeviceTimeline(trace)""",
    """\
%load_ext jtensor""",
    """\
%%tensortrace
# The magic's report (HTML: a table, sharing, the graph, pitfalls): the browser test
# measures its text's contrast in the dark theme too
v = torch.arange(6.).view(2, 3)
v.t().contiguous()[0] += 1""",
]


def main():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source, id=f"cell-{i}")
                      for i, source in enumerate(CELLS)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, Path(__file__).with_name("widgets_demo.ipynb"))


if __name__ == "__main__":
    main()
