"""The curriculum (notebooks/) passes strict nbval with the sanitize file jtensor ships.

Each notebook is checked in its own ``pytest --nbval`` run (not ``--nbval-lax``: every
stored output is compared), so ``pytest -n 2 tests`` spreads them over the workers. The
index must link every notebook that exists and list every topic, numbered in order.
"""

import os
import pathlib
import platform
import re
import subprocess
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbval")

import jtensor.nbval  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _strict_nbval(path, **env_changes):
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
           "-o", "addopts=", "-q", "--nbval-current-env",
           *jtensor.nbval.nbval_args(str(path))]
    # The notebooks choose their devices themselves (06 emulates CUDA when there is no GPU
    # and shows asynchronous launches): settings the suite may run under must not leak in.
    env = {k: v for k, v in os.environ.items()
           if k not in ("JTENSOR_EMULATE_CUDA", "CUDA_LAUNCH_BLOCKING")}
    env.update(env_changes)
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                            env=env)
    assert result.returncode == 0, (
        f"nbval failed for {path.name} (rebuild with: .venv/bin/python notebooks/build.py "
        f"{path.name}) {env_changes or ''}:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}")


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_notebook_passes_strict_nbval(path):
    _strict_nbval(path)


def _has_avx():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx " in f.read().replace("\n", " ")
    except OSError:
        return False


# A stored output must not depend on the machine that made it: the matrix products' last
# bits come from the CPU's OpenBLAS kernels (Haswell's on one machine, SkylakeX's on
# another), and a training run can magnify them (notebook 16's Adam once did, through a
# bias whose exact gradient is zero). Every notebook is checked again with another kernel
# set forced (Sandybridge's: AVX, which every x86-64 machine running these tests has).
@pytest.mark.skipif(platform.machine() != "x86_64" or not _has_avx(),
                    reason="forcing OpenBLAS's Sandybridge kernels needs an x86-64 CPU with AVX")
@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_notebook_outputs_do_not_depend_on_the_blas_kernels(path):
    _strict_nbval(path, OPENBLAS_CORETYPE="Sandybridge")


def test_notebooks_are_stored_with_outputs():
    for path in ALL:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code, f"{path.name} has no code cell"
        missing = [i for i, c in enumerate(code) if c.execution_count is None]
        assert not missing, f"{path.name}: code cells {missing} were never executed"
        counts = [c.execution_count for c in code]
        assert counts == list(range(1, len(code) + 1)), (
            f"{path.name} was not run top to bottom in one go (execution counts {counts}); "
            f"rebuild it with notebooks/build.py")


def test_index_links_every_notebook_and_lists_all_topics():
    index = NOTEBOOKS / "00_index.ipynb"
    text = "\n".join(c.source for c in nbformat.read(index, as_version=4).cells
                     if c.cell_type == "markdown")
    linked = set(re.findall(r"\]\(([0-9][0-9]_[A-Za-z0-9_]+\.ipynb)\)", text))
    existing = {p.name for p in ALL if p.name != "00_index.ipynb"}
    assert existing <= linked, f"not linked from the index: {sorted(existing - linked)}"
    assert linked <= existing, f"the index links missing notebooks: {sorted(linked - existing)}"
    numbered = re.findall(r"^\s*([0-9]+)\. ", text, flags=re.M)
    assert [int(n) for n in numbered] == list(range(1, len(existing) + 1)), numbered
    for line in re.findall(r"^\s*[0-9]+\. .*$", text, flags=re.M):
        assert ".ipynb)" in line, f"topic not linked to its notebook: {line}"


def test_each_notebook_ends_linking_its_neighbours_and_the_index():
    topics = [p for p in ALL if p.name != "00_index.ipynb"]
    for k, path in enumerate(topics):
        last = nbformat.read(path, as_version=4).cells[-1]
        assert last.cell_type == "markdown", path.name
        links = re.findall(r"\]\(([^)]+\.ipynb)\)", last.source)
        want = ([topics[k - 1].name] if k else []) + \
            ([topics[k + 1].name] if k + 1 < len(topics) else []) + ["00_index.ipynb"]
        assert links == want, f"{path.name} ends with {last.source!r}"


def test_sanitize_file_is_shipped_and_parses():
    from nbval.plugin import get_sanitize_patterns

    path = pathlib.Path(jtensor.nbval.sanitize_path())
    patterns = get_sanitize_patterns(path.read_text())
    assert len(patterns) >= 5
    for regex, _ in patterns:
        re.compile(regex)
    out = subprocess.run([sys.executable, "-m", "jtensor.nbval", "--sanitize-path"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == str(path)

    def clean(text):
        for regex, replace in patterns:
            text = re.sub(regex, replace, text)
        return text

    # A warning names jtensor's file and line: both vary between machines and versions.
    a = "/work/x/jtensor/nn/_functional/loss.py:724: UserWarning: size"
    b = ("/opt/venv/lib/python3.11/site-packages/jtensor/nn/_functional/loss.py:731: "
         "UserWarning: size")
    assert clean(a) == clean(b) == ".../jtensor/nn/_functional/loss.py: UserWarning: size"


def test_every_exercise_a_notebook_checks_exists_and_each_exists_in_a_notebook():
    from jtensor import exercises

    used = set()
    for path in ALL:
        for cell in nbformat.read(path, as_version=4).cells:
            used |= set(re.findall(r"exercises\.check\(\"([^\"]+)\"", cell.source))
    known = set(exercises.names())
    assert used <= known, f"notebooks check unknown exercises: {sorted(used - known)}"
    assert known <= used, f"exercises no notebook uses: {sorted(known - used)}"


def _build_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("curriculum_build", NOTEBOOKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_script_format_and_normalisation():
    build = _build_module()
    nb = build.script_to_notebook(
        "# %% [markdown]\n# # Title\n#\n# text\n\n"
        "# %% tags=[\"pytorch\"]\nimport jtensor as torch\n\n"
        "# %%\nx = 1\n")
    kinds = [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]
    assert kinds == [("markdown", "# Title\n\ntext", []),
                     ("code", "import jtensor as torch", ["pytorch"]),
                     ("code", "x = 1", [])]
    nb.cells[2].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr",
                               text="/tmp/ipykernel_123/456.py:1: UserWarning: w\n"),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output(
        "execute_result", execution_count=1,
        data={"text/plain": "map", "text/html": "<svg/>",
              build.WIDGET_VIEW: {"model_id": "0123abcd", "version_major": 2}})]
    out = build._normalise(nb)
    assert set(out.cells[1].outputs[0]["data"]) == {"text/plain", "text/html"}
    assert [c["id"] for c in out.cells] == ["cell-000", "cell-001", "cell-002"]
    assert [(o["name"], o["text"]) for o in out.cells[2].outputs] == [
        ("stdout", "ab\n"), ("stderr", "<cell>:1: UserWarning: w\n")]
