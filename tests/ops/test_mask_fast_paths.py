"""``masked_fill`` and ``where`` of plain CPU float tensors take one NumPy call (issue 18: an
attention mask's ``masked_fill(mask == 0, -inf)``, ``where(mask, x, 0.0)`` in hand-written
loops). Every call here, fast or not, must give PyTorch's values, dtype, shape and strides,
raise what PyTorch raises, and differentiate as before."""

import numpy as np
import pytest

import jtensor
from jtensor._ops import masking
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")


def _x(lib, shape, dtype="float32", start=-2.0):
    n = int(np.prod(shape)) if shape else 1
    return (lib.arange(n, dtype=lib.float64).reshape(shape) * 0.5 + start).to(getattr(lib, dtype))


def _mask(lib, shape):
    n = int(np.prod(shape)) if shape else 1
    return (lib.arange(n).reshape(shape) % 3) == 1


FILL_CASES = {
    "same_shape": (lambda L: _x(L, (3, 4)), lambda L: _mask(L, (3, 4)), float("-inf")),
    "row_mask": (lambda L: _x(L, (3, 4)), lambda L: _mask(L, (1, 4)), 0.0),
    "trailing_mask": (lambda L: _x(L, (2, 3, 4)), lambda L: _mask(L, (3, 4)), -1e9),
    "causal": (
        lambda L: _x(L, (2, 2, 4, 4)),
        lambda L: L.tril(L.ones(4, 4)).view(1, 1, 4, 4)[:, :, :4, :4] == 0,
        float("-inf"),
    ),
    "int_value": (lambda L: _x(L, (3, 4), "float64"), lambda L: _mask(L, (3, 4)), 7),
    "nan_value": (lambda L: _x(L, (3, 4)), lambda L: _mask(L, (3, 4)), float("nan")),
    "transposed_input": (lambda L: _x(L, (4, 3)).t(), lambda L: _mask(L, (3, 4)), 1.5),
    "mask_broadcasts_input": (lambda L: _x(L, (1, 4)), lambda L: _mask(L, (3, 4)), 2.0),
    "integer_input": (lambda L: _x(L, (3, 4), "int64"), lambda L: _mask(L, (3, 4)), 5),
    "tensor_value": (lambda L: _x(L, (3, 4)), lambda L: _mask(L, (3, 4)), "tensor"),
    "bool_value": (lambda L: _x(L, (3, 4)), lambda L: _mask(L, (3, 4)), True),
    "empty": (lambda L: _x(L, (0, 4)), lambda L: _mask(L, (0, 4)), 1.0),
}


def _fill(lib, case):
    make_x, make_mask, value = FILL_CASES[case]
    if value == "tensor":
        value = lib.tensor(3.0)
    return make_x(lib).masked_fill(make_mask(lib), value)


def _same(mine, theirs):
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("case", list(FILL_CASES))
def test_masked_fill_matches_torch(case):
    _same(_fill(jtensor, case), _fill(torch, case))


@pytest.mark.parametrize(
    ("dtype", "value"), [("float32", 1e39), ("float32", -1e39), ("float64", 2**70)]
)
def test_masked_fill_refuses_what_torch_refuses(dtype, value):
    with pytest.raises((RuntimeError, OverflowError)) as theirs:
        _x(torch, (2, 2), dtype).masked_fill(_mask(torch, (2, 2)), value)
    with pytest.raises(type(theirs.value)):
        _x(jtensor, (2, 2), dtype).masked_fill(_mask(jtensor, (2, 2)), value)


WHERE_CASES = {
    "tensors": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4)), _x(L, (3, 4), start=5.0)),
    "float_other": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4)), 0.0),
    "int_other": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4), "float64"), 2),
    "number_first": lambda L: (_mask(L, (3, 4)), -1.5, _x(L, (3, 4))),
    "broadcast": lambda L: (_mask(L, (3, 1)), _x(L, (1, 4)), _x(L, (3, 4), start=1.0)),
    "transposed": lambda L: (_mask(L, (4, 3)).t(), _x(L, (4, 3)).t(), 0.0),
    "mixed_dtypes": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4)), _x(L, (3, 4), "float64")),
    "integer": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4), "int64"), 0),
    "zero_dim": lambda L: (_mask(L, (3, 4)), _x(L, (3, 4)), _x(L, ())),
}


@pytest.mark.parametrize("case", list(WHERE_CASES))
def test_where_matches_torch(case):
    _same(jtensor.where(*WHERE_CASES[case](jtensor)), torch.where(*WHERE_CASES[case](torch)))


def test_the_fast_paths_are_taken(monkeypatch):
    fill = fast_path_spy(monkeypatch, masking, "_masked_fill_fast")
    where = fast_path_spy(monkeypatch, masking, "_where_fast")
    x = _x(jtensor, (3, 4))
    x.masked_fill(_mask(jtensor, (3, 4)), 0.0)
    jtensor.where(_mask(jtensor, (3, 4)), x, 0.0)
    x.masked_fill(_mask(jtensor, (3, 4)), jtensor.tensor(1.0))
    # An attention mask of the last two dims, and one of a row, broadcast over the input.
    _x(jtensor, (2, 3, 4)).masked_fill(_mask(jtensor, (3, 4)), float("-inf"))
    _x(jtensor, (2, 3, 4)).masked_fill(_mask(jtensor, (1, 4)), 0.0)
    # A mask that does not broadcast to the input's shape (the result grows): general path.
    _x(jtensor, (1, 4)).masked_fill(_mask(jtensor, (3, 4)), 2.0)
    assert fill == [True, False, True, True, False]
    assert where == [True]


@pytest.mark.parametrize("op", ["masked_fill", "where"])
def test_gradients_match_torch(op):
    grads = []
    for lib in (jtensor, torch):
        x = _x(lib, (3, 4), "float64").requires_grad_()
        y = _x(lib, (1, 4), "float64", start=3.0).requires_grad_()
        mask = _mask(lib, (3, 4))
        out = x.masked_fill(mask, -2.0) if op == "masked_fill" else lib.where(mask, x, y)
        (out * out).sum().backward()
        grads.append([x.grad.numpy()] + ([y.grad.numpy()] if op == "where" else []))
    for mine, theirs in zip(*grads, strict=True):
        np.testing.assert_array_equal(mine, theirs)
