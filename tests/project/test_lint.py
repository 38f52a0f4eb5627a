"""The tree passes ruff with the configuration in pyproject.toml ([tool.ruff]).

Skipped only where ruff is not installed (it is in the ``test`` extra); in CI (``CI`` set)
a missing ruff fails instead, so the lint cannot silently stop running.
"""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATHS = ("jtensor", "tests", "bench", "notebooks")


def _in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def test_ruff_check_is_clean():
    if importlib.util.find_spec("ruff") is None:
        message = "ruff is not installed (pip install -e '.[test]')"
        if _in_ci():
            pytest.fail(f"{message}: the lint must run in CI")
        pytest.skip(message)
    # --no-cache: nothing is written into the tree (the suite may run from a read-only
    # checkout, or in parallel).
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *PATHS],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.fail("ruff check found problems (fix them; the rules are [tool.ruff] in "
                    f"pyproject.toml):\n{result.stdout}{result.stderr}", pytrace=False)
