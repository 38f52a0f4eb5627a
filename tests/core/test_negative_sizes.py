"""A negative size given to a factory, a ``new_*`` method, a legacy constructor or a reshape:
PyTorch's error type and words (``Trying to create tensor with negative dimension -1: [2,
-1]``; ``zeros`` checks first, in its own words)."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

_CASES = {
    "ones": lambda L: L.ones(2, -1),
    "empty": lambda L: L.empty(2, -1),
    "full": lambda L: L.full((2, -1), 1.0),
    "rand": lambda L: L.rand(2, -1),
    "randn": lambda L: L.randn((2, -3)),
    "randint": lambda L: L.randint(3, (2, -1)),
    "randint_low": lambda L: L.randint(0, 3, (-4, -1)),
    "new_zeros": lambda L: L.ones(2).new_zeros(2, -1),
    "new_ones": lambda L: L.ones(2).new_ones((2, -1)),
    "new_empty": lambda L: L.ones(2).new_empty((-1,)),
    "new_full": lambda L: L.ones(2).new_full((2, -1), 1.0),
    "Tensor": lambda L: L.Tensor(2, -1),
    "FloatTensor": lambda L: L.FloatTensor(-2, 1),
    "new": lambda L: L.ones(2).new(2, -1),
    "empty_strided": lambda L: L.empty_strided((2, -1), (1, 1)),
    "normal": lambda L: L.normal(0.0, 1.0, (2, -1)),
    "randperm": lambda L: L.randperm(-1),
    "reshape": lambda L: L.ones(2).reshape(-2),
    "view": lambda L: L.ones(6).view(3, -2),
}


def _outcome(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and words are what is compared
        return type(e).__name__, str(e)
    return "no error"


@pytest.mark.parametrize("name", list(_CASES))
def test_negative_size_message_is_pytorchs(name):
    assert _outcome(jtensor, _CASES[name]) == _outcome(torch, _CASES[name])


def test_zeros_names_itself_and_the_size():
    kind, words = _outcome(jtensor, lambda L: L.zeros(2, -1))
    assert (kind, words) == (
        "RuntimeError",
        "zeros: Dimension size must be non-negative. (got size [2, -1])",
    )
    assert words.startswith(_outcome(torch, lambda L: L.zeros(2, -1))[1])
