"""The curriculum's exercise cells (notebooks 01-17) as the learner meets them: stored
unanswered (no cell checks a written-in answer, whose output would print the expected value or
the hint that gives it away), a self-check quiz at the end of each notebook, "debug this"
exercises whose broken snippet shows a caught error, and every exercise of a notebook module
used in its notebook.

Static: the notebooks are stored executed (strict nbval re-runs them elsewhere)."""

import pathlib
import re

import nbformat
import pytest

from jtensor import exercises

NOTEBOOKS = sorted(
    (pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("[0-1][0-9]_*.ipynb")
)
NOTEBOOKS = [p for p in NOTEBOOKS if 1 <= int(p.name[:2]) <= 17]
CHECK = re.compile(r'exercises\.check\(\s*"([^"]+)"\s*,\s*([^)]*)\)')


def _text(cell):
    return "".join(
        o.get("text", "") or o.get("data", {}).get("text/plain", "")
        for o in cell.get("outputs", [])
    )


def _checks(path):
    """(cell index, exercise name, answer expression, stored output) of each check cell."""
    nb = nbformat.read(path, as_version=4)
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for m in CHECK.finditer(cell.source):
                out.append((i, m.group(1), m.group(2).strip(), _text(cell)))
    return nb, out


def test_all_seventeen_notebooks_are_found():
    assert [int(p.name[:2]) for p in NOTEBOOKS] == list(range(1, 18))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_check_is_stored_unanswered(path):
    _, checks = _checks(path)
    assert checks, f"{path.name} has no exercise"
    for i, name, answer, stored in checks:
        assert name.startswith(path.name[:2] + "-"), f"{path.name} cell {i} checks {name}"
        assert stored.startswith(f"[not answered] {name}"), (
            f"{path.name} cell {i} checks {name} with {answer!r}: a written-in answer shows "
            f"the expected value or the hint that gives it away; got {stored[:200]!r}"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exercise_of_the_notebook_is_used_and_exists(path):
    _, checks = _checks(path)
    used = {name for _, name, _, _ in checks}
    defined = {n for n in exercises.names() if n.startswith(path.name[:2] + "-")}
    assert used == defined, (
        f"{path.name}: checked but not defined {sorted(used - defined)}, "
        f"defined but never used {sorted(defined - used)}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_quiz_ends_the_exercises_before_the_summary(path):
    nb, checks = _checks(path)
    quiz = [i for i, name, _, _ in checks if name == f"{path.name[:2]}-quiz"]
    assert len(quiz) == 1, f"{path.name} has {len(quiz)} quiz cells"
    assert quiz[0] == max(i for i, *_ in checks), f"{path.name}: the quiz is not the last check"
    later = [c.source.splitlines()[0] for c in nb.cells[quiz[0] + 1 :]]
    assert all(c.cell_type == "markdown" for c in nb.cells[quiz[0] + 1 :]), later
    assert len(later) <= 2, f"{path.name}: more than the summary and footer after the quiz"
    questions = [ln for ln in nb.cells[quiz[0]].source.splitlines() if re.match(r"# \d\. ", ln)]
    assert 2 <= len(questions) <= 4


def test_at_least_eight_notebooks_have_a_debug_this_exercise():
    with_debug = []
    for path in NOTEBOOKS:
        nb, checks = _checks(path)
        for i, name, _, _ in checks:
            if "-debug-" not in name:
                continue
            # The broken snippet runs just before: its error is caught and printed.
            shown = _text(nb.cells[i - 1])
            assert re.match(r"(RuntimeError|IndexError|TypeError|ValueError): \S", shown), (
                f"{path.name} cell {i - 1} should print the broken snippet's error, got {shown!r}"
            )
            assert "try:" in nb.cells[i - 1].source
            with_debug.append(path.name)
    assert len(set(with_debug)) >= 8, sorted(set(with_debug))


def test_each_debug_exercise_names_the_error_the_snippet_raises():
    for name in exercises.names():
        if "-debug-" in name:
            assert re.search(
                r"raises (RuntimeError|IndexError|TypeError|ValueError)",
                exercises.get(name).question,
            ), name
