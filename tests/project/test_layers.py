"""The import layers of docs/DEVELOPING.md, as import-linter contracts in pyproject.toml:
the core imports nothing above it, and the ops import neither autograd, the training stack
nor the notebook layers (imports inside functions and indirect imports count)."""

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


def test_a_broken_layer_is_caught(tmp_path):
    """The contract is not vacuous: the same check over a copy of the core that imports the
    op layer fails."""
    package = tmp_path / "jtensor"
    shutil.copytree(os.path.join(ROOT, "jtensor"), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "_size.py", "a") as f:
        f.write("\n\ndef _upward():\n    from ._ops import creation  # noqa: F401\n")
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path / "pyproject.toml")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = subprocess.run([_lint_imports(), "--no-cache"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode != 0
    assert "jtensor._size is not allowed to import jtensor._ops" in result.stdout
