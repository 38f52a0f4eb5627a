"""The README's tour is true: every example in it runs and prints what it shows."""

import doctest
import pathlib

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_tour_runs_as_written():
    result = doctest.testfile(str(README), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10, "the README lost its tour"
    assert result.failed == 0, f"{result.failed} README example(s) no longer hold"
