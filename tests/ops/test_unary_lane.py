"""The unary lane (issue 18): a unary op called on a plain tensor with no options goes
straight to ``_elementwise.fast_unary`` instead of through ``_run``. It must give what the
general path gives, and PyTorch's values, dtype and layout, for every dtype and layout, and
raise the op's own errors first."""

import numpy as np
import pytest

import jtensor
from jtensor import _elementwise
from jtensor._ops import unary

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

OPS = [
    "exp",
    "tanh",
    "sigmoid",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sin",
    "abs",
    "neg",
    "sign",
    "sgn",
    "floor",
    "trunc",
    "frac",
    "erf",
    "angle",
    "deg2rad",
    "square",
    "expm1",
]

TRANSCENDENTAL = {
    "exp",
    "tanh",
    "sigmoid",
    "log",
    "sqrt",
    "rsqrt",
    "sin",
    "erf",
    "expm1",
    "reciprocal",
    "deg2rad",
    "angle",
}

LAYOUTS = {
    "contiguous": lambda x: x,
    "zero_d": lambda x: x[1, 2],
    "empty": lambda x: x[:0],
    "transposed": lambda x: x.t(),
    "columns": lambda x: x[:, 1:4],
    "strided_1d": lambda x: x.reshape(-1)[::3],
    "expanded": lambda x: x[:1].expand(3, 5),
    "size_one": lambda x: x[:1],
}

DTYPES = ["float32", "float64", "int64", "bool", "complex64", "float16"]


def _source(lib, dtype):
    values = np.linspace(-2.25, 2.5, 15).reshape(3, 5)
    if dtype == "bool":
        values = values > 0
    elif dtype == "int64":
        values = np.round(values * 3)
    elif dtype == "complex64":
        values = values + 0.5j * values[::-1]
    return lib.from_numpy(np.ascontiguousarray(values.astype(dtype)))


def _call(lib, op, dtype, layout):
    x = LAYOUTS[layout](_source(lib, dtype))
    try:
        r = getattr(lib, op)(x)
    except Exception as e:  # noqa: BLE001 (the error's type and words are compared)
        return ("raised", type(e).__name__, str(e).split("\n")[0])
    return (
        str(r.dtype).replace("torch.", ""),
        tuple(r.shape),
        r.stride(),
        r.is_contiguous(),
        np.asarray(r.numpy()).tobytes(),
    )


def _same(got, expected, dtype, op):
    if got[0] == "raised" or expected[0] == "raised":
        assert got[:2] == expected[:2]
        return
    assert got[:4] == expected[:4]
    if dtype in ("float16", "complex64") or op in TRANSCENDENTAL:
        # (transcendental functions: the libraries' kernels may round apart, PyTorch's own
        # differently for strided and contiguous inputs)
        a = np.frombuffer(got[4], dtype=got[0] if got[0] != "bool" else np.bool_)
        b = np.frombuffer(expected[4], dtype=got[0] if got[0] != "bool" else np.bool_)
        np.testing.assert_allclose(a, b, rtol=2e-3 if dtype == "float16" else 1e-6, equal_nan=True)
    else:
        assert got[4] == expected[4]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_the_lane_gives_the_general_paths_result(op, dtype, layout, monkeypatch):
    fast = _call(jtensor, op, dtype, layout)
    monkeypatch.setattr(unary, "fast_unary", lambda compute, input, rule: None)
    general = _call(jtensor, op, dtype, layout)
    assert fast == general


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_the_lane_gives_pytorchs_result(op, dtype, layout):
    _same(_call(jtensor, op, dtype, layout), _call(torch, op, dtype, layout), dtype, op)


def test_the_lane_is_taken_for_a_plain_call(monkeypatch):
    calls = []
    real = _elementwise.fast_unary

    def counting(compute, input, rule):
        calls.append(rule)
        return real(compute, input, rule)

    monkeypatch.setattr(unary, "fast_unary", counting)
    x = jtensor.linspace(-1, 1, 6).reshape(2, 3)
    x.exp()
    jtensor.tanh(x)
    assert len(calls) == 2
    jtensor.exp(x, out=jtensor.empty(2, 3))  # (an out= call takes the general path)
    assert len(calls) == 2


def test_a_check_of_the_op_comes_before_the_lane():
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        jtensor.neg(jtensor.tensor([True, False]))
    with pytest.raises(RuntimeError, match="deg2rad is not supported for complex tensors"):
        jtensor.deg2rad(jtensor.tensor([1 + 1j]))


def _recorded(lib, op):
    data = np.linspace(0.25, 2.0, 6, dtype=np.float32).reshape(2, 3)
    x = lib.tensor(data, requires_grad=True)
    y = getattr(lib, op)(x)
    y.backward(lib.ones_like(y))
    return type(y.grad_fn).__name__, y._version, y.detach().cpu().numpy(), x.grad.cpu().numpy()


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "sqrt", "sin", "abs", "neg"])
def test_recorded_calls_keep_their_node_and_gradient(op, monkeypatch):
    fast = _recorded(jtensor, op)
    expected = _recorded(torch, op)
    assert fast[:2] == expected[:2]
    for got, want in zip(fast[2:], expected[2:], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    monkeypatch.setattr(unary, "fast_unary", lambda compute, input, rule: None)
    general = _recorded(jtensor, op)
    assert fast[:2] == general[:2]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(fast[2:], general[2:], strict=True))
