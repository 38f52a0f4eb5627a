"""The curriculum's claims about PyTorch, checked against PyTorch itself.

Every code cell tagged ``pytorch`` is plain PyTorch code written against jtensor
(``import jtensor as torch``). Here the tagged cells of each notebook run, in order, in a
fresh kernel with real PyTorch (``jtensor`` swapped for ``torch`` in import lines), and each
must print and return exactly what the stored notebook shows (stdout, results and errors,
after the sanitize patterns jtensor ships; stderr, where warnings carry file paths, is not
compared). Tagged cells therefore use only ``torch``/``numpy``/Python, never print random
values (jtensor's generator differs from PyTorch's) and depend only on earlier tagged cells.
"""

import pathlib
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("torch")

import jtensor.nbval  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TAG = "pytorch"


def _patterns():
    from nbval.plugin import get_sanitize_patterns

    return get_sanitize_patterns(pathlib.Path(jtensor.nbval.sanitize_path()).read_text())


def _sanitize(text, patterns):
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


def to_pytorch(source):
    """The cell's source with jtensor imports turned into torch imports."""
    lines = []
    for line in source.splitlines():
        if re.match(r"\s*(import|from)\s+jtensor\b", line):
            line = re.sub(r"\bjtensor\b", "torch", line)
        lines.append(line)
    return "\n".join(lines)


def observed(outputs, patterns):
    """What a cell showed: stdout text, results' text/plain, errors' type and message."""
    seen = []
    for out in outputs:
        kind = out["output_type"]
        if kind == "stream":
            if out["name"] == "stdout":
                seen.append(("stdout", _sanitize(out["text"], patterns)))
        elif kind in ("execute_result", "display_data"):
            seen.append(("result", _sanitize(out["data"].get("text/plain", ""), patterns)))
        elif kind == "error":
            # (jtensor raises the builtin exception types, as PyTorch.)
            seen.append(("error", out["ename"], _sanitize(out["evalue"], patterns)))
    # Consecutive stdout chunks are one printout however the kernel split them.
    merged = []
    for item in seen:
        if merged and item[0] == "stdout" and merged[-1][0] == "stdout":
            merged[-1] = ("stdout", merged[-1][1] + item[1])
        else:
            merged.append(item)
    return merged


def tagged_cells(path):
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells
            if c.cell_type == "code" and TAG in c.metadata.get("tags", [])]


def test_some_cells_are_checked_against_pytorch():
    counts = {p.name: len(tagged_cells(p)) for p in ALL}
    assert sum(counts.values()) >= 20, counts
    # Every notebook has some (06's CUDA cells cannot run on CI's CPU PyTorch; its
    # device-object cells can).
    without = [n for n, k in counts.items() if k == 0]
    assert not without, f"notebooks without any pytorch-tagged cell: {without}"


@pytest.mark.parametrize("path", [p for p in ALL if tagged_cells(p)],
                         ids=lambda p: p.name)
def test_tagged_cells_give_the_same_output_with_pytorch(path):
    cells = tagged_cells(path)
    for c in cells:
        leftover = [ln for ln in to_pytorch(c.source).splitlines()
                    if re.search(r"\bjtensor\b", ln.split("#")[0])]  # comments may say it
        assert not leftover, f"{path.name}: a pytorch-tagged cell uses jtensor: {leftover}"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(to_pytorch(c.source)) for c in cells]
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                                     allow_errors=True, record_timing=False,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    patterns = _patterns()
    mismatches = []
    for stored, ran in zip(cells, nb.cells, strict=True):
        want, got = observed(stored.outputs, patterns), observed(ran.outputs, patterns)
        if want != got:
            mismatches.append(f"--- cell:\n{stored.source}\n--- jtensor (stored):\n{want}\n"
                              f"--- PyTorch:\n{got}")
    assert not mismatches, f"{path.name}: {len(mismatches)} of {len(cells)} tagged cells " \
                           f"differ under PyTorch\n" + "\n".join(mismatches)
