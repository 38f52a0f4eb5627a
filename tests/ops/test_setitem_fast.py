"""``x[i] = number`` into a plain contiguous CPU float tensor that is no view and needs no
gradient is one NumPy write (``indexing._fast_fill``, 10 -> 1.3 us): values, rounding to
float32, version counters and every refusal must stay PyTorch's (the refusals come from the
general path: leaves, views of leaves, inference tensors, values float32 cannot hold,
indices out of range)."""

import pytest

import jtensor
from jtensor._ops import indexing

torch = pytest.importorskip("torch")

VALUES = [0.1, -0.0, 3.4028234e38, 3.4028235e38, 1e39, -1e39, float("inf"), float("nan")]


def _outcome(lib, dtype, value):
    t = lib.zeros(3, 2, dtype=getattr(lib, dtype))
    try:
        t[1] = value
        t[-3] = value
    except RuntimeError as e:
        return "RuntimeError", str(e).split(" (")[0]
    return t.tolist() if value == value else str(t.tolist()), t._version


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("value", VALUES, ids=str)
def test_fill_matches_pytorch(dtype, value):
    assert _outcome(jtensor, dtype, value) == _outcome(torch, dtype, value)


def _refusal(lib, case):
    try:
        if case == "leaf":
            x = lib.zeros(3, requires_grad=True)
            x[0] = 1.0
        elif case == "no_grad view of a leaf":
            x = lib.zeros(3, requires_grad=True)
            with lib.no_grad():
                v = x[:2]
            v[0] = 1.0
        elif case == "inference":
            with lib.inference_mode():
                t = lib.zeros(3)
            t[0] = 1.0
        elif case == "out of range":
            lib.zeros(3)[3] = 1.0
        elif case == "expanded row":
            lib.zeros(1, 2).expand(3, 2)[1] = 5.0
        else:
            raise AssertionError(case)
    except (RuntimeError, IndexError) as e:
        return type(e).__name__, str(e).split(" (")[0][:60]
    return None


@pytest.mark.parametrize(
    "case", ["leaf", "no_grad view of a leaf", "inference", "out of range", "expanded row"]
)
def test_refusals_stay_pytorchs(case):
    ours, theirs = _refusal(jtensor, case), _refusal(torch, case)
    if case == "no_grad view of a leaf":
        # (PyTorch words it after the Select it records first, "Output 0 of Select is a view
        # of a view which was created in no_grad mode"; jtensor says "A view was created in
        # no_grad mode": the same refusal)
        assert ours[0] == theirs[0] and "no_grad mode" in ours[1]
    else:
        assert ours == theirs


def test_the_fast_path_writes_and_others_do_not(monkeypatch):
    taken = []
    real = indexing._fast_fill

    def spy(*args):
        result = real(*args)
        taken.append(result)
        return result

    monkeypatch.setattr(indexing, "_fast_fill", spy)
    t = jtensor.zeros(4)
    t[2] = 1.5
    t[1:3][0] = 2.5  # a view: the general path
    t.double()[0] = 1.0
    jtensor.zeros(4, dtype=jtensor.int64)[0] = 1.0  # an integer tensor: the general path
    assert taken == [True, False, True, False]
    assert t.tolist() == [0.0, 2.5, 1.5, 0.0]
    with jtensor.trace.record() as trace:
        t[0] = 4.0
    assert [e.name for e in trace.events if e.op_kind is not None] == ["__setitem__"]
