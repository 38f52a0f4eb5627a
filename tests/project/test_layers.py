"""The import layers of docs/DEVELOPING.md, as the import-linter contract in pyproject.toml:
core <- cuda <- ops <- autograd <- sparse <- nn/optim/utils/amp <- trace <- widgets <- magics
(imports inside functions and indirect chains count, through the package root too; every
module has a layer), and no layer imports the package itself."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _lint_imports():
    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable))
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("import-linter is not installed (it is in the test extra)")
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    return exe


def test_layer_contracts_hold():
    result = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "broken" in result.stdout and " 0 broken" in result.stdout, result.stdout[-2000:]


# (module that gets an upward import inside a function, the import, what the contract says)
BROKEN = {
    "core imports an op": (
        "_size.py", "from ._ops import creation",
        "jtensor._size is not allowed to import jtensor._ops"),
    "a backend imports autograd": (
        "cuda/_runtime.py", "from ..autograd import graph",
        "jtensor.cuda is not allowed to import jtensor.autograd"),
    "a formula imports the package (reaching nn through its root)": (
        "autograd/formulas/basic.py", "import jtensor",
        "jtensor.autograd is not allowed to import jtensor.nn"),
    "nn imports the notebook layer": (
        "nn/modules/module.py", "from ...trace import recorder",
        "jtensor.nn is not allowed to import jtensor.trace"),
}


def _lint_a_copy(tmp_path, edit):
    """import-linter's result over a copy of the package changed by ``edit(package_dir)``."""
    package = tmp_path / "jtensor"
    shutil.copytree(os.path.join(ROOT, "jtensor"), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    edit(package)
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path / "pyproject.toml")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    return subprocess.run([_lint_imports(), "--no-cache"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_layer_is_caught(tmp_path, case):
    """The contract is not vacuous: the same check over a copy of the package with one
    upward import (inside a function) fails, naming the two layers."""
    path, statement, message = BROKEN[case]

    def edit(package):
        with open(package / path, "a") as f:
            f.write(f"\n\ndef _upward():\n    {statement}  # noqa: F401\n")

    result = _lint_a_copy(tmp_path, edit)
    assert result.returncode != 0
    assert message in result.stdout, result.stdout[-3000:]


def test_a_module_outside_the_layers_is_caught(tmp_path):
    """The contract is exhaustive: a new module of the package must be given a layer."""
    result = _lint_a_copy(tmp_path, lambda package: (package / "_unplaced.py").write_text(
        '"""A module nobody placed."""\n'))
    assert result.returncode != 0
    assert "not listed as layers" in result.stdout and "jtensor._unplaced" in result.stdout, \
        result.stdout[-3000:]


def test_no_layer_imports_the_package():
    """``import jtensor`` (or ``from jtensor import name``) inside the package reaches every
    layer: modules import what they use from the module that defines it (the public ops from
    ``jtensor._api.ops``). Only the exercises, user code shipped with jtensor, import it."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("jtensor", cache_dir=None)
    importers = sorted(m for m in graph.find_modules_that_directly_import("jtensor")
                       if m != "jtensor" and not m.startswith("jtensor.exercises"))
    assert not importers, importers
