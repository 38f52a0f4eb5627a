"""``stack`` of plain contiguous CPU tensors of one dtype is one ``np.stack`` (a data
loader's collate, issue 18): the same values, dtype, shape, strides and graph as the general
path (``joining.FAST_STACK`` off) and as PyTorch."""

import numpy as np
import pytest

import jtensor
from jtensor._ops import joining
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
INTS = [int(v) for v in RNG.integers(0, 9, 64)]
ROW = RNG.standard_normal(20)

CASES = {
    "0d-int64": (lambda L: [L.tensor(v) for v in INTS], 0),
    "1d-float32": (lambda L: [L.tensor(ROW, dtype=L.float32)] * 5, 0),
    "1d-dim1": (lambda L: [L.arange(4.0) + i for i in range(3)], 1),
    "2d-dim-1": (lambda L: [L.ones(2, 3) * i for i in range(4)], -1),
    "3d-image": (lambda L: [L.full((1, 4, 4), float(i)) for i in range(6)], 0),
    "4d-volume": (lambda L: [L.full((2, 1, 3, 3), float(i)) for i in range(2)], 0),
    "rows-of-one-tensor": (lambda L: [L.arange(24.0).view(6, 4)[i] for i in (5, 0, 3, 3)], 0),
    "0d-rows": (lambda L: [L.arange(10)[i] for i in (9, 2, 2, 0)], 0),
    "rows-dim1": (lambda L: [L.arange(24.0).view(6, 4)[i] for i in (1, 4)], 1),
    "reinterpreted-rows": (
        lambda L: [L.arange(8, dtype=L.int32).view(L.float32).view(4, 2)[i] for i in (3, 1)],
        0,
    ),
    "bool": (lambda L: [L.tensor([True, False]), L.tensor([False, False])], 0),
    "complex": (lambda L: [L.tensor([1 + 2j, 3j]), L.tensor([0j, -1 + 0j])], 0),
    "float16": (lambda L: [L.tensor([1.5, 2.25], dtype=L.float16)] * 3, 1),
    "empty": (lambda L: [L.ones(0, 3), L.ones(0, 3)], 1),
    # declined but "offset": the general path alone (the values must agree all the same)
    "mixed-dtypes": (lambda L: [L.ones(3), L.ones(3, dtype=L.float64)], 0),
    "transposed": (lambda L: [L.ones(2, 3).t(), L.zeros(2, 3).t()], 0),
    "expanded": (lambda L: [L.ones(1).expand(4), L.zeros(4)], 0),
    "offset": (lambda L: [L.arange(6.0)[2:], L.arange(4.0)], 0),  # (taken: strides count)
}


def _describe(t):
    return (tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1], t.detach().cpu().tolist())


def _stack(lib, case):
    make, dim = CASES[case]
    return lib.stack(make(lib), dim)


@pytest.mark.parametrize("case", sorted(CASES))
def test_stack_fast_path_equals_general_and_torch(case, monkeypatch):
    calls = fast_path_spy(monkeypatch, joining, "_stack_arrays")
    fast = _stack(jtensor, case)
    monkeypatch.setattr(joining, "FAST_STACK", False)
    general = _stack(jtensor, case)
    assert calls == [case not in ("mixed-dtypes", "transposed", "expanded")]
    assert _describe(fast) == _describe(general)
    assert fast.numpy().tobytes() == general.numpy().tobytes()
    assert _describe(fast) == _describe(_stack(torch, case))


def test_stack_of_tensors_requiring_grad_records_as_before(monkeypatch):
    def run(lib):
        xs = [lib.tensor([float(i), 2.0 * i], requires_grad=True) for i in range(3)]
        y = lib.stack(xs, 1)
        (y * lib.arange(6.0).view(2, 3)).sum().backward()
        return y.grad_fn.name(), [x.grad.tolist() for x in xs], _describe(y)

    fast = run(jtensor)
    monkeypatch.setattr(joining, "FAST_STACK", False)
    assert run(jtensor) == fast == run(torch)


def test_a_data_loader_batch_is_the_general_paths(monkeypatch):
    def batches():
        jtensor.manual_seed(0)
        data = jtensor.utils.data.TensorDataset(jtensor.randn(10, 3), jtensor.arange(10))
        loader = jtensor.utils.data.DataLoader(data, batch_size=4, shuffle=True)
        return [(x.numpy().tobytes(), y.tolist()) for x, y in loader]

    fast = batches()
    monkeypatch.setattr(joining, "FAST_STACK", False)
    assert batches() == fast


# ``cat`` of plain contiguous CPU tensors of one dtype is one ``np.concatenate`` (a loop
# gathering its steps' outputs): the same checks against the general path
# (``joining.FAST_CAT`` off) and PyTorch. name -> (tensors, dim, taken by the fast path)
CAT_CASES = {
    "rows": (lambda L: [L.ones(2, 3), L.zeros(1, 3), L.full((4, 3), 2.0)], 0, True),
    "columns": (lambda L: [L.arange(6.0).view(2, 3), L.ones(2, 1)], 1, True),
    "negative-dim": (lambda L: [L.ones(2, 2, 3), L.zeros(2, 2, 1)], -1, True),
    "1d": (lambda L: [L.arange(3), L.arange(5)], 0, True),
    "one-tensor": (lambda L: [L.arange(4.0).view(2, 2)], 1, True),
    "int32": (lambda L: [L.arange(4, dtype=L.int32), L.arange(2, dtype=L.int32)], 0, True),
    "empty-rows": (lambda L: [L.ones(0, 3), L.ones(2, 3)], 0, True),
    "rows-of-one-tensor": (lambda L: [L.arange(12.0).view(4, 3)[i] for i in (3, 0)], 0, True),
    # declined: the general path alone
    "legacy-empty-1d": (lambda L: [L.ones(2, 3), L.ones(0)], 0, False),
    "mixed-dtypes": (lambda L: [L.ones(2), L.ones(2, dtype=L.float64)], 0, False),
    "transposed": (lambda L: [L.ones(3, 2).t(), L.zeros(2, 3)], 0, False),
    "size-mismatch": (lambda L: [L.ones(2, 3), L.ones(2, 4)], 0, False),
    "rank-mismatch": (lambda L: [L.ones(2, 3), L.ones(3)], 0, False),
    "dim-out-of-range": (lambda L: [L.ones(2, 3), L.ones(2, 3)], 2, False),
    "zero-dim": (lambda L: [L.tensor(1.0), L.tensor(2.0)], 0, False),
}


def _cat(lib, case):
    make, dim, _ = CAT_CASES[case]
    try:
        return lib.cat(make(lib), dim)
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("case", sorted(CAT_CASES))
def test_cat_fast_path_equals_general_and_torch(case, monkeypatch):
    calls = fast_path_spy(monkeypatch, joining, "_cat_arrays")
    fast = _cat(jtensor, case)
    monkeypatch.setattr(joining, "FAST_CAT", False)
    general = _cat(jtensor, case)
    theirs = _cat(torch, case)
    assert calls == [CAT_CASES[case][2]]
    if isinstance(theirs, tuple):
        assert fast == general and fast[0] == theirs[0]
        return
    assert _describe(fast) == _describe(general) == _describe(theirs)
    assert fast.numpy().tobytes() == general.numpy().tobytes()


def test_cat_of_tensors_requiring_grad_records_as_before(monkeypatch):
    def run(lib):
        xs = [lib.tensor([[float(i), 2.0 * i]], requires_grad=True) for i in range(3)]
        y = lib.cat(xs, 0)
        (y * lib.arange(6.0).view(3, 2)).sum().backward()
        return y.grad_fn.name(), [x.grad.tolist() for x in xs], _describe(y)

    fast = run(jtensor)
    monkeypatch.setattr(joining, "FAST_CAT", False)
    assert fast == run(jtensor) == run(torch)
