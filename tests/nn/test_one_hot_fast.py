"""``F.one_hot`` on the array (issue 18: 44 us against PyTorch's 3, five public ops a call).

``activation._one_hot_arrays`` takes a plain CPU int64 tensor of at least one element when
nothing listens: the general path's checks in its order and words, then the zeros with a one
at each index, written once. The result must be the general path's (``ARRAY_PATHS = False``)
exactly: values, dtype, shape, strides, version 2 (PyTorch's zeros then ``scatter_``), not a
view; and PyTorch's."""

import numpy as np
import pytest

import jtensor
from jtensor import _dispatch
from jtensor.nn._functional import activation

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# name -> (index values, how the input is laid out)
CASES = {
    "labels": ([3, 0, 9, 1, 1], None),
    "zero_dim": (4, None),
    "matrix": ([[1, 2, 0], [4, 4, 3]], None),
    "transposed": ([[1, 2, 0], [4, 4, 3]], lambda t: t.t()),
    "strided": ([5, 0, 2, 7, 1, 3], lambda t: t[::2]),
    "expanded": ([2], lambda t: t.expand(4)),
    "single": ([0], None),
}
NUM_CLASSES = [-1, 10, 12]


@pytest.fixture
def counts(monkeypatch):
    """``[taken, declined]``: the switch's calls while ``ARRAY_PATHS`` is on."""
    seen = [0, 0]
    fn = activation._one_hot_arrays

    def run(*args):
        result = fn(*args)
        if activation.ARRAY_PATHS:
            seen[result is None] += 1
        return result

    monkeypatch.setattr(activation, "_one_hot_arrays", run)
    return seen


def _input(lib, case):
    values, layout = CASES[case]
    t = lib.tensor(values)
    return t if layout is None else layout(t)


def _observed(lib, case, n):
    y = lib.nn.functional.one_hot(_input(lib, case), n)
    return (
        tuple(y.shape),
        y.stride(),
        str(y.dtype),
        y._version,
        y._base is None,
        y.is_contiguous(),
        y.requires_grad,
        y.tolist(),
    )


def _general(monkeypatch, run):
    monkeypatch.setattr(activation, "ARRAY_PATHS", False)
    try:
        return run()
    finally:
        monkeypatch.setattr(activation, "ARRAY_PATHS", True)


@pytest.mark.parametrize("n", NUM_CLASSES)
@pytest.mark.parametrize("case", list(CASES))
def test_the_array_path_is_the_general_path(case, n, counts, monkeypatch):
    fast = _observed(jtensor, case, n)
    assert counts == [1, 0]
    assert fast == _general(monkeypatch, lambda: _observed(jtensor, case, n))
    assert fast[3] == 2 and fast[4] and fast[5]
    y = jtensor.nn.functional.one_hot(_input(jtensor, case), n)
    assert (
        y.numpy().tobytes()
        == _general(monkeypatch, lambda: jtensor.nn.functional.one_hot(_input(jtensor, case), n))
        .numpy()
        .tobytes()
    )


@needs_torch
@pytest.mark.parametrize("n", NUM_CLASSES)
@pytest.mark.parametrize("case", list(CASES))
def test_the_array_path_follows_torch(case, n, counts):
    assert _observed(jtensor, case, n) == _observed(torch, case, n)
    assert counts == [1, 0]


def _error(lib, values, n):
    with pytest.raises(Exception) as info:
        lib.nn.functional.one_hot(lib.tensor(values), n)
    return type(info.value), str(info.value)


@pytest.mark.parametrize(
    "values,n", [([1, -2, 3], -1), ([1, -2, 3], 5), ([1, 5, 3], 5), ([1, 2], 0), ([1, 2], -3)]
)
def test_errors_are_the_general_paths(values, n, counts, monkeypatch):
    fast = _error(jtensor, values, n)
    assert counts == [0, 0]  # (raised inside the switch: no result to count)
    assert fast == _general(monkeypatch, lambda: _error(jtensor, values, n))
    assert fast[0] is RuntimeError


@needs_torch
@pytest.mark.parametrize("values,n", [([1, -2, 3], -1), ([1, 5, 3], 5), ([[0, 7]], 3)])
def test_errors_are_runtime_errors_as_torchs(values, n):
    assert _error(jtensor, values, n)[0] is _error(torch, values, n)[0] is RuntimeError


def test_an_empty_input_declines(counts, monkeypatch):
    def run():
        y = jtensor.nn.functional.one_hot(jtensor.zeros(0, 3, dtype=jtensor.int64), 4)
        return tuple(y.shape), y.stride(), y._version

    assert run() == _general(monkeypatch, run) == ((0, 3, 4), (12, 4, 1), 0)
    assert counts == [0, 1]
    with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
        jtensor.nn.functional.one_hot(jtensor.zeros(0, dtype=jtensor.int64))


def test_a_numpy_num_classes_declines(counts, monkeypatch):
    def run():
        return jtensor.nn.functional.one_hot(jtensor.tensor([1, 2]), np.int64(4)).tolist()

    assert run() == _general(monkeypatch, run)
    assert counts == [0, 1]


def test_a_non_int64_input_is_refused_first(counts):
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        jtensor.nn.functional.one_hot(jtensor.tensor([1, 2], dtype=jtensor.int32), 3)
    assert counts == [0, 0]


def test_a_trace_hook_and_the_recorder_decline(counts, monkeypatch):
    seen = []
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    jtensor.nn.functional.one_hot(jtensor.tensor([1, 2]), 3)
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert counts == [0, 1] and {"zeros", "scatter_"} <= set(seen)
    with jtensor.trace.record() as t:
        jtensor.nn.functional.one_hot(jtensor.tensor([1, 2]), 3)
    assert "one_hot" in [e.name for e in t.ops()]
    assert counts == [0, 2]


def test_inference_mode_declines(counts):
    with jtensor.inference_mode():
        y = jtensor.nn.functional.one_hot(jtensor.tensor([1, 2]), 3)
    assert counts == [0, 1] and y.is_inference()
