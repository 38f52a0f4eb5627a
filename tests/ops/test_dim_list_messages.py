"""A list of dims with a repeat: the same exception and message as PyTorch, which checks the
dims in order (a repeat before an out-of-range dim is reported first)."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "flip": lambda x: x.flip(0, -2),
    "flip, repeat then out of range": lambda x: x.flip(1, 1, 7),
    "flip, out of range then repeat": lambda x: x.flip(7, 1, 1),
    "sum": lambda x: x.sum((0, -2)),
    "amax": lambda x: x.amax((1, 1)),
}


def _raised(lib, call):
    try:
        call(lib.ones(2, 3))
    except (RuntimeError, IndexError) as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_repeated_dims(name):
    expected = _raised(torch, CALLS[name])
    assert expected is not None
    assert _raised(jtensor, CALLS[name]) == expected
