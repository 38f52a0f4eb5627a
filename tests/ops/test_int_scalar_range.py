"""A Python int given where PyTorch takes a Scalar must be a 64-bit integer, signed or
unsigned: ``x * 10**20`` is PyTorch's OverflowError ("int too big to convert"), a value below
``-2**63`` another ("can't convert negative int to unsigned"), whatever the tensor's dtype;
``2**63`` is taken (as uint64, so it wraps in int64 arithmetic). Operators, functions,
methods, ``alpha=`` and clamp's bounds alike, compared with PyTorch."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "x * v": lambda lib, x, v: x * v,
    "v - x": lambda lib, x, v: v - x,
    "x / v": lambda lib, x, v: x / v,
    "x < v": lambda lib, x, v: x < v,
    "x == v": lambda lib, x, v: x == v,
    "x ** v": lambda lib, x, v: x**v,
    "mul(x, v)": lambda lib, x, v: lib.mul(x, v),
    "x.add(v)": lambda lib, x, v: x.add(v),
    "x.add_(v)": lambda lib, x, v: x.clone().add_(v),
    "add alpha=v": lambda lib, x, v: x.add(x, alpha=v),
    "clamp(max=v)": lambda lib, x, v: x.clamp(max=v),
    "clamp(min=v)": lambda lib, x, v: x.clamp(min=v),
}
VALUES = [2**64, 10**20, -(2**63) - 1, 2**63, -(2**63), 2**64 - 1]


def _outcome(lib, name, dtype, value):
    x = lib.tensor([1, 2], dtype=getattr(lib, dtype))
    try:
        result = CALLS[name](lib, x, value)
    except (OverflowError, RuntimeError) as exc:
        return type(exc).__name__, str(exc).split(" (")[0]
    return "ok", result.tolist()


@pytest.mark.parametrize("value", VALUES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_python_ints_outside_64_bits_are_refused_as_pytorch(name, dtype, value):
    mine = _outcome(jtensor, name, dtype, value)
    theirs = _outcome(torch, name, dtype, value)
    if theirs[0] == "ok" and mine[0] == "ok" and dtype == "float32":
        assert mine[1] == pytest.approx(theirs[1], rel=1e-6)
    else:
        assert mine[0] == theirs[0]
        if theirs[0] == "OverflowError":
            assert mine[1] == theirs[1]
