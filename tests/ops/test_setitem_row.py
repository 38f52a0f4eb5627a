"""``x[i] = row`` with a tensor row of exactly the selection's shape and dtype, into a plain
contiguous CPU tensor (``outputs[t] = output`` in a decoder loop, issue 18), is one NumPy
write (``indexing._fast_row_copy``). Every case is compared with PyTorch: values, version
counters, the recorded node and its gradients, and the refusals the general path raises
(leaves, inference tensors, broadcasts, casts, overlaps, indices out of range)."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _decoder_loop(lib, steps=4, width=3):
    lib.manual_seed(0)
    w = lib.randn(width, dtype=lib.float64, requires_grad=True)
    outputs = lib.zeros(steps, width, dtype=lib.float64)
    versions, names = [], []
    for t in range(steps):
        outputs[t] = w * (t + 1)
        versions.append(outputs._version)
        names.append(type(outputs.grad_fn).__name__)
    (
        outputs * lib.arange(1.0, steps * width + 1, dtype=lib.float64).view(steps, width)
    ).sum().backward()
    return outputs.tolist(), versions, names, w.grad.tolist()


def test_recorded_rows_match_pytorch():
    assert _decoder_loop(jtensor) == _decoder_loop(torch)


def _outcome(lib, case):
    try:
        if case == "plain":
            x = lib.zeros(3, 2)
            x[-1] = lib.tensor([1.5, 2.5])
        elif case == "leaf requiring grad":
            x = lib.zeros(3, 2, requires_grad=True)
            x[0] = lib.ones(2)
        elif case == "leaf under no_grad":
            x = lib.zeros(3, 2, requires_grad=True)
            with lib.no_grad():
                x[1] = lib.ones(2)
        elif case == "inference tensor":
            with lib.inference_mode():
                x = lib.zeros(3, 2)
            x[0] = lib.ones(2)
        elif case == "out of range":
            x = lib.zeros(3, 2)
            x[3] = lib.ones(2)
        elif case == "broadcast row":
            x = lib.zeros(3, 2)
            x[0] = lib.tensor([[4.0, 5.0]])
        elif case == "cast row":
            x = lib.zeros(3, 2)
            x[2] = lib.tensor([1, 2])
        elif case == "own row":
            x = lib.arange(6.0).view(3, 2).clone()
            x[0] = x[2]
        elif case == "view of the target":
            base = lib.zeros(3, 2)
            x = base.t()
            x[1] = lib.ones(3)
            x = base
        elif case == "wrong shape":
            x = lib.zeros(3, 2)
            x[0] = lib.ones(3)
        elif case == "0-d into a vector":
            x = lib.zeros(4)
            x[1] = lib.tensor(7.0)
        elif case == "int rows":
            x = lib.zeros(2, 3, dtype=lib.int64)
            x[1] = lib.tensor([1, 2, 3])
        elif case == "row added in place":  # x[i] += v: the row view written back onto itself
            x = lib.arange(6.0).view(3, 2).clone()
            x[1] += lib.ones(2)
            x[-1] += x[0]
        elif case == "0-d tensor keys":  # an int held in a 0-d tensor indexes as that int
            x = lib.zeros(4, 2)
            for dtype in ("int64", "int32", "int16", "int8"):
                i = lib.tensor(-3, dtype=getattr(lib, dtype))
                x[i] += lib.ones(2)
                x[lib.tensor(3)] = x[i] * 2
        elif case == "0-d tensor key out of range":
            x = lib.zeros(4, 2)
            x[lib.tensor(4)] += 1.0
        elif case == "0-d tensor key into a leaf":
            x = lib.zeros(4, 2, requires_grad=True)
            x[lib.tensor(1)] = lib.ones(2)
        elif case == "0-d mask keys":  # uint8 and bool 0-d tensors index as masks
            x = lib.zeros(2, 2)
            x[lib.tensor(True)] = lib.ones(2, 2)
            x[lib.tensor(0, dtype=lib.uint8)] = lib.full((2, 2), 3.0)
        else:
            raise AssertionError(case)
    except (RuntimeError, IndexError) as e:
        return type(e).__name__, str(e).split(" (")[0][:50]
    return x.tolist(), x._version, x.requires_grad


CASES = [
    "plain",
    "leaf requiring grad",
    "leaf under no_grad",
    "inference tensor",
    "out of range",
    "broadcast row",
    "cast row",
    "own row",
    "view of the target",
    "wrong shape",
    "0-d into a vector",
    "int rows",
    "row added in place",
    "0-d tensor keys",
    "0-d tensor key out of range",
    "0-d tensor key into a leaf",
    "0-d mask keys",
]


@pytest.mark.parametrize("case", CASES)
def test_row_writes_match_pytorch(case):
    assert _outcome(jtensor, case) == _outcome(torch, case)


def test_the_fast_path_takes_only_its_case(monkeypatch):
    from jtensor._ops import indexing

    taken = []
    original = indexing._fast_row_copy

    def spy(input, i, value):
        done = original(input, i, value)
        taken.append(done)
        return done

    monkeypatch.setattr(indexing, "_fast_row_copy", spy)
    x = jtensor.zeros(3, 2)
    x[0] = jtensor.ones(2)  # taken
    x[1] = jtensor.ones(1, 2)  # a broadcast: general path
    x[2] = jtensor.ones(2, dtype=jtensor.float64)  # a cast: general path
    x.t()[0] = jtensor.ones(3)  # a view: general path
    x[jtensor.tensor(1)] += jtensor.ones(2)  # a 0-d key, the row written back: taken
    x[0] = x[1]  # another row of the target: general path
    assert taken == [True, False, False, False, True, False]
    assert x.tolist() == [[2.0, 2.0], [2.0, 2.0], [1.0, 1.0]]


def test_a_0d_tensor_key_reads_a_view_as_an_int_does():
    outcomes = []
    for lib in (jtensor, torch):
        x = lib.arange(6.0).view(3, 2).requires_grad_()
        h = x * 1
        rows = [h[lib.tensor(i, dtype=lib.int32)] for i in (-1, 0)]
        (rows[0] * 2 + rows[1]).sum().backward()
        outcomes.append(
            (
                [r._base is h for r in rows],
                [r.grad_fn.name() for r in rows],
                x.grad.tolist(),
                h[lib.tensor(1, dtype=lib.uint8)].shape,  # a mask: a new leading dim
            )
        )
    assert outcomes[0] == outcomes[1]
