"""Every runnable example in jtensor's docstrings runs and prints what it says."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import jtensor

def _importable(name):
    # The CuPy backend imports CuPy at module level: it is loaded only when a GPU is used.
    if name == "jtensor.cuda._cupy":
        return importlib.util.find_spec("cupy") is not None
    return not name.startswith(("jtensor.magics", "jtensor.widgets"))


MODULES = sorted({"jtensor"} | {
    m.name for m in pkgutil.walk_packages(jtensor.__path__, prefix="jtensor.")
    if _importable(m.name)
})


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
