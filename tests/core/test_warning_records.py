"""Ops that silence NumPy's warnings inside must not make Python forget which warnings the
user has already seen: a warning the default action shows once per line stays shown once,
however many such ops run in between (as with PyTorch, whose kernels never touch Python's
warning filters)."""

import subprocess
import sys
import textwrap

import pytest

# A loop that triggers PyTorch's copy-construct warning on one line, then runs ops that
# silence warnings inside (a fill with a value, a matrix inverse, a read-only buffer, an
# add with an alpha), and counts the warnings Python shows.
PROGRAM = textwrap.dedent(
    """
    import sys
    import warnings

    lib = __import__(sys.argv[1])
    warnings.resetwarnings()
    warnings.simplefilter("default")
    shown = []
    warnings.showwarning = lambda message, category, *rest, **kw: shown.append(category)
    x = lib.arange(4.0)
    m = lib.eye(3) * 2
    buffer = bytes(8)
    for _ in range(5):
        lib.tensor(x)
        lib.full((3,), 2.5)
        lib.linalg.inv(m)
        lib.frombuffer(buffer, dtype=lib.float32)
        lib.add(x, x, alpha=0.5)
    print(len(shown), sorted({c.__name__ for c in shown}), len(warnings.filters))
    """
)


def _run(name):
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, name], capture_output=True, text=True, check=True
    )
    return done.stdout.split(" ", 1)


def test_a_once_per_line_warning_stays_once():
    count, rest = _run("jtensor")
    # The copy-construct warning once, the read-only buffer warning once; the filters list
    # is left as it was (no filter left behind by the ops).
    assert count == "2", rest
    assert rest.startswith("['UserWarning']")


def test_the_same_count_as_torch():
    pytest.importorskip("torch")
    assert _run("jtensor")[0] == _run("torch")[0]


def test_ignoring_warnings_leaves_the_filters_and_records():
    import warnings

    from jtensor._errors import ignoring_warnings

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        kept = list(warnings.filters)
        for _ in range(3):
            warnings.warn("seen once", UserWarning, stacklevel=1)  # one line: shown once
            with ignoring_warnings(RuntimeWarning):
                warnings.warn("silenced", RuntimeWarning, stacklevel=1)
            with ignoring_warnings(UserWarning, message="The given"):
                warnings.warn(
                    "the given array", UserWarning, stacklevel=1
                )  # (case-insensitive prefix)
                warnings.warn("another text", UserWarning, stacklevel=1)
        assert warnings.filters == kept
    assert [str(w.message) for w in seen] == ["seen once", "another text"]
    assert warnings.filters == before
