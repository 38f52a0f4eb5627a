"""Two tensor operands of one dtype whose shapes or strides differ (``x - row``, ``x * col``,
``x * scale`` with a 0-d ``scale``, an expanded operand) take the element-wise fast path
(issue 18) when their result is contiguous: the result must have PyTorch's shape, strides,
dtype and values for every pair, taken or not, and gradients must reach both operands."""

import numpy as np
import pytest

import jtensor
from jtensor import _elementwise
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _base(lib, shape, dtype, start):
    n = int(np.prod(shape)) if shape else 1
    x = lib.arange(n, dtype=lib.float64).reshape(shape) * 0.37 + start
    return x.to(getattr(lib, dtype))


# name -> (left, right): each side builds an operand from (lib, dtype).
PAIRS = {
    "row": (lambda L, d: _base(L, (4, 5), d, -3), lambda L, d: _base(L, (1, 5), d, 1)),
    "row_1d": (lambda L, d: _base(L, (4, 5), d, -3), lambda L, d: _base(L, (5,), d, 1)),
    "column": (lambda L, d: _base(L, (4, 5), d, -3), lambda L, d: _base(L, (4, 1), d, 2)),
    "zero_dim": (lambda L, d: _base(L, (4, 5), d, -3), lambda L, d: _base(L, (), d, 2)),
    "zero_dim_first": (lambda L, d: _base(L, (), d, 2), lambda L, d: _base(L, (4, 5), d, -3)),
    "expanded": (
        lambda L, d: _base(L, (4, 5), d, -3),
        lambda L, d: _base(L, (1, 5), d, 1).expand(4, 5),
    ),
    "expanded_first": (
        lambda L, d: _base(L, (1, 5), d, 1).expand(4, 5),
        lambda L, d: _base(L, (4, 5), d, -3),
    ),
    "outer": (lambda L, d: _base(L, (4, 1), d, -1), lambda L, d: _base(L, (1, 5), d, 1)),
    "transposed_and_row": (
        lambda L, d: _base(L, (5, 4), d, -3).t(),
        lambda L, d: _base(L, (1, 4), d, 1).t(),
    ),
    "transposed_and_column": (
        lambda L, d: _base(L, (5, 4), d, -3).t(),
        lambda L, d: _base(L, (4, 1), d, 1),
    ),
    "both_transposed_broadcast": (
        lambda L, d: _base(L, (5, 4), d, -3).t(),
        lambda L, d: _base(L, (5, 1), d, 1).t(),
    ),
    "transposed_and_contiguous": (
        lambda L, d: _base(L, (5, 4), d, -3).t(),
        lambda L, d: _base(L, (4, 5), d, 1),
    ),
    "size_one_dims": (
        lambda L, d: _base(L, (5, 1), d, -3),
        lambda L, d: _base(L, (1, 1), d, 1),
    ),
    "odd_size_one_stride": (
        lambda L, d: _base(L, (5, 2), d, -3)[:, :1],
        lambda L, d: _base(L, (1,), d, 1),
    ),
    "three_dims": (
        lambda L, d: _base(L, (2, 3, 4), d, -3).permute(0, 2, 1),
        lambda L, d: _base(L, (1, 4, 1), d, 1),
    ),
    "batch_channel": (
        lambda L, d: _base(L, (2, 3, 2, 2), d, -3),
        lambda L, d: _base(L, (3, 1, 1), d, 1),
    ),
    "empty": (lambda L, d: _base(L, (0, 5), d, -3), lambda L, d: _base(L, (1, 5), d, 1)),
}

CALLS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": lambda a, b: a.maximum(b) if hasattr(a, "maximum") else a.max(b),
    "gt": lambda a, b: a > b,
    "add_alpha": lambda a, b: a.add(b, alpha=2),
}

DTYPES = ["float32", "float64", "int64"]


def _call(lib, pair, call, dtype):
    left, right = PAIRS[pair]
    return CALLS[call](left(lib, dtype), right(lib, dtype))


# (true division of integers promotes: not a same-dtype pair)
COMBOS = [(c, d) for c in CALLS for d in DTYPES if not (c == "div" and d == "int64")]


@pytest.mark.parametrize(("call", "dtype"), COMBOS)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_pairs_give_torchs_layout_dtype_and_values(pair, call, dtype):
    mine, theirs = _call(jtensor, pair, call, dtype), _call(torch, pair, call, dtype)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    assert str(mine.dtype).replace("jtensor", "torch") == str(theirs.dtype)
    assert mine.is_contiguous() == theirs.is_contiguous()
    np.testing.assert_array_equal(mine.cpu().numpy(), theirs.numpy())


def test_the_fast_path_takes_a_broadcast_pair_and_refuses_a_permuted_result(monkeypatch):
    seen = fast_path_spy(monkeypatch, _elementwise, "_fast_pair")
    x = jtensor.ones(4, 5)
    x - jtensor.ones(5)
    x.t() + jtensor.ones(1, 4)  # a result laid out as the transposed operand
    assert seen == ([True, False] if not x.is_cuda else [False, False])


def test_mismatched_shapes_raise_torchs_error():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(4\) must match .* \(3\)"):
        jtensor.ones(4, 5) - jtensor.ones(3, 1)
    with pytest.raises(RuntimeError):
        torch.ones(4, 5) - torch.ones(3, 1)


@pytest.mark.parametrize("pair", ["row", "column", "zero_dim", "expanded", "outer"])
def test_gradients_reach_both_operands(pair):
    grads = {}
    for lib in (jtensor, torch):
        left, right = PAIRS[pair]
        a = left(lib, "float64").detach().requires_grad_()
        b = right(lib, "float64").detach().requires_grad_()
        ((a - b) * (a * b)).sum().backward()
        grads[lib.__name__] = (a.grad.cpu().numpy(), b.grad.cpu().numpy())
    for mine, theirs in zip(grads["jtensor"], grads["torch"], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
