"""``embedding_bag``'s refusals of bad indices and offsets are PyTorch's (type and words),
checked before anything is computed; a call with no bag at all gives an empty result."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

CASES = {
    "index past the table": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1, 7]), w, L.tensor([0])
    ),
    "negative index": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1, 2, -1]), w, L.tensor([0, 1])
    ),
    "2-d input, index past the table": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([[1, 2], [0, 9]]), w, mode="sum"
    ),
    "last offset past the input": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1, 2, 3]), w, L.tensor([0, 5])
    ),
    "float indices": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1.0, 2.0]), w, L.tensor([0])
    ),
    "float offsets": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1, 2]), w, L.tensor([0.0])
    ),
    "first offset not zero": lambda L, w: L.nn.functional.embedding_bag(
        L.tensor([1, 2, 3]), w, L.tensor([1, 2])
    ),
}


def _outcome(lib, case):
    w = lib.ones(5, 3, requires_grad=True)
    try:
        CASES[case](lib, w)
    except Exception as e:  # noqa: BLE001 (the type and words are compared)
        return type(e).__name__, str(e).split("\n")[0]
    return None


# PyTorch's words for an index out of range depend on its kernel's mode and chunking (an
# internal "Expected i < index_size" assert, or the position within a chunk): jtensor's
# name the flat position and the value; the type is PyTorch's.
INDEX_CASES = {
    "index past the table": "Index 1 of input takes value 7 which is not in the valid range [0, 5)",
    "negative index": "Index 2 of input takes value -1 which is not in the valid range [0, 5)",
    "2-d input, index past the table": (
        "Index 3 of input takes value 9 which is not in the valid range [0, 5)"
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refusals_are_pytorchs(case):
    got = _outcome(jtensor, case)
    assert got is not None
    expected = _outcome(torch, case)
    if case in INDEX_CASES:
        assert got == (expected[0], INDEX_CASES[case])
    else:
        assert got == expected


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_no_bag_gives_an_empty_result_and_a_zero_gradient(mode):
    # (include_last_offset with a single offset: PyTorch 2.13 returns (0, 3) for sum and
    # mean, with a nonzero gradient for an empty output, and crashes in max mode)
    w = jtensor.randn(5, 3, requires_grad=True)
    out = jtensor.nn.functional.embedding_bag(
        jtensor.tensor([1, 2]), w, jtensor.tensor([0]), include_last_offset=True, mode=mode
    )
    assert out.shape == (0, 3) and out.stride() == (3, 1)
    assert type(out.grad_fn).__name__ == "EmbeddingBagBackward0"
    out.sum().backward()
    assert w.grad.shape == (5, 3) and not w.grad.any()
