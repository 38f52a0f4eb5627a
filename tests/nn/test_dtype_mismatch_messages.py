"""A float64 batch (NumPy's default) into a float32 layer: the commonest dtype error of a
first model, in PyTorch's exact words, which learners search for. ``F.linear`` and
``addmm`` check the bias against the weight, then the input against the weight ("mat1 and
mat2 must have the same dtype, but got Double and Float"); a plain ``@`` words it as
``mm`` does; the CPU convolution compares the bias first ("Input type (double) and bias type
(float) should be the same"), then the weight ("expected scalar type Double but found
Float"); ``mv`` names its result's dtype (the vector's) first."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "linear, float64 input": lambda L, F: F.linear(
        L.ones(2, 3, dtype=L.float64), L.ones(4, 3), L.ones(4)
    ),
    "linear, int64 input": lambda L, F: F.linear(
        L.ones(2, 3, dtype=L.int64), L.ones(4, 3), L.ones(4)
    ),
    "linear, float16 input": lambda L, F: F.linear(
        L.ones(2, 3, dtype=L.float16), L.ones(4, 3), L.ones(4)
    ),
    "linear, no bias": lambda L, F: F.linear(L.ones(2, 3, dtype=L.float64), L.ones(4, 3)),
    "linear, float64 bias": lambda L, F: F.linear(
        L.ones(2, 3), L.ones(4, 3), L.ones(4, dtype=L.float64)
    ),
    "linear, 3-d input": lambda L, F: F.linear(
        L.ones(5, 2, 3, dtype=L.float64), L.ones(4, 3), L.ones(4)
    ),
    "nn.Linear on a float64 batch": lambda L, F: L.nn.Linear(3, 2)(L.ones(2, 3, dtype=L.float64)),
    "addmm, float64 self and mat1": lambda L, F: L.addmm(
        L.ones(4, dtype=L.float64), L.ones(2, 3, dtype=L.float64), L.ones(3, 4)
    ),
    "addmm, float64 matrices": lambda L, F: L.addmm(
        L.ones(4), L.ones(2, 3, dtype=L.float64), L.ones(3, 4, dtype=L.float64)
    ),
    "matmul operator": lambda L, F: L.ones(2, 3, dtype=L.float64) @ L.ones(3, 4),
    "mv": lambda L, F: L.mv(L.ones(2, 3), L.ones(3, dtype=L.float64)),
    "mv, float16 matrix": lambda L, F: L.mv(L.ones(2, 3, dtype=L.float16), L.ones(3)),
    "conv2d, float64 input": lambda L, F: F.conv2d(
        L.ones(1, 1, 5, 5, dtype=L.float64), L.ones(2, 1, 3, 3), L.ones(2)
    ),
    "conv2d, float64 input, no bias": lambda L, F: F.conv2d(
        L.ones(1, 1, 5, 5, dtype=L.float64), L.ones(2, 1, 3, 3)
    ),
    "conv2d, float64 weight": lambda L, F: F.conv2d(
        L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3, dtype=L.float64), L.ones(2)
    ),
    "conv2d, float64 bias": lambda L, F: F.conv2d(
        L.ones(1, 1, 5, 5), L.ones(2, 1, 3, 3), L.ones(2, dtype=L.float64)
    ),
    "conv2d, int64 input": lambda L, F: F.conv2d(
        L.ones(1, 1, 5, 5, dtype=L.int64), L.ones(2, 1, 3, 3), L.ones(2)
    ),
    "conv1d, float64 input": lambda L, F: F.conv1d(
        L.ones(1, 1, 5, dtype=L.float64), L.ones(2, 1, 3), L.ones(2)
    ),
    "nn.Conv2d on a float64 batch": lambda L, F: L.nn.Conv2d(1, 2, 3)(
        L.ones(1, 1, 5, 5, dtype=L.float64)
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_dtype_mismatch_in_pytorchs_words(name):
    outcomes = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        try:
            CALLS[name](lib, lib.nn.functional)
        except RuntimeError as exc:
            outcomes.append(str(exc))
        else:
            outcomes.append("no error")
    assert outcomes[0] == outcomes[1]


def test_an_integer_parameter_is_refused_in_pytorchs_words():
    messages = []
    for lib in (jtensor, torch):
        with pytest.raises(RuntimeError) as info:
            lib.nn.Parameter(lib.ones(2, dtype=lib.int64))
        messages.append(str(info.value))
        assert lib.nn.Parameter(lib.ones(2, dtype=lib.int64), requires_grad=False).dtype == (
            lib.int64
        )
    assert messages[0].startswith(messages[1])
