"""The in-place element-wise fast path (issue 18: ``x.add_(y, alpha=a)``, ``x.mul_(0.5)``,
an optimizer's or LBFGS's vector updates): the values, dtype, version and identity of the
target must be those of the general path, and every call the general path refuses (partial
overlap, a result dtype the target cannot hold, broadcasting into the target, inference
tensors, leaves that require grad) must still be refused with PyTorch's exception."""

import numpy as np
import pytest

import jtensor
from jtensor import _elementwise

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

CALLS = {
    "add_alpha": lambda t, o: t.add_(o, alpha=-0.37),
    "add": lambda t, o: t.add_(o),
    "sub_": lambda t, o: t.sub_(o, alpha=2),
    "mul_number": lambda t, o: t.mul_(0.75),
    "div_tensor": lambda t, o: t.div_(o),
    "addcmul": lambda t, o: t.addcmul_(o, o, value=0.5),
    "addcdiv": lambda t, o: t.addcdiv_(o, o.abs() + 1, value=-2.0),
    "clamp": lambda t, o: t.clamp_(-0.5, 0.5),
    "lerp": lambda t, o: t.lerp_(o, 0.25),
    "pow": lambda t, o: t.pow_(2),
    "self": lambda t, o: t.mul_(t),
    "iadd": lambda t, o: t.__iadd__(o),
    "isub_number": lambda t, o: t.__isub__(3),
}

DTYPES = ["float32", "float64", "int64", "complex64"]


def _values(lib, dtype):
    gen = np.random.default_rng(1)
    a = gen.standard_normal((3, 5)) * 4
    b = gen.standard_normal((3, 5)) * 4
    if dtype == "int64":
        a, b = np.round(a), np.round(b) + 10  # (no integer division by zero)
    d = getattr(lib, dtype)
    return lib.tensor(a.tolist()).to(d), lib.tensor(b.tolist()).to(d)


def _outcome(lib, name, dtype):
    target, other = _values(lib, dtype)
    before = target._version
    try:
        result = CALLS[name](target, other)
    except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
        return type(exc).__name__, str(exc).split("\n")[0]
    assert result is target
    return target.numpy().tobytes(), str(target.dtype), target._version - before


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_fast_inplace_equals_the_general_path(name, dtype, monkeypatch):
    fast = _outcome(jtensor, name, dtype)
    monkeypatch.setattr(_elementwise, "_fast_inplace", lambda *args: None)
    general = _outcome(jtensor, name, dtype)
    assert fast == general


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_fast_inplace_follows_torch(name, dtype):
    mine, theirs = _outcome(jtensor, name, dtype), _outcome(torch, name, dtype)
    if isinstance(theirs[0], str):
        assert mine[0] == theirs[0]  # the same exception type
        return
    assert mine[1].replace("jtensor", "torch") == theirs[1]
    a = np.frombuffer(mine[0], dtype=dtype)
    b = np.frombuffer(theirs[0], dtype=dtype)
    np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 1e-13)


def _refusal(lib, make):
    try:
        make(lib)
    except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
        return type(exc).__name__
    return "ok"


REFUSALS = {
    "partial_overlap": lambda lib: (lambda a: a[1:].add_(a[:-1]))(lib.arange(6.0)),
    "same_storage_other_view": lambda lib: (lambda a: a[:3].mul_(a[3:]))(lib.arange(6.0)),
    "float_into_int": lambda lib: lib.arange(4).add_(lib.ones(4)),
    "number_float_into_int": lambda lib: lib.arange(4).mul_(0.5),
    "broadcast_into_target": lambda lib: lib.ones(3).add_(lib.ones(2, 3)),
    "target_broadcast_from_other": lambda lib: lib.ones(2, 3).add_(lib.ones(3)),
    "expanded_target": lambda lib: lib.ones(3)[None].expand(2, 3).add_(lib.ones(2, 3)),
    "leaf_requires_grad": lambda lib: lib.ones(3, requires_grad=True).add_(1.0),
    "other_dtype_operand": lambda lib: lib.ones(3).add_(lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_fast_inplace_refuses_as_torch(name):
    assert _refusal(jtensor, REFUSALS[name]) == _refusal(torch, REFUSALS[name])


def test_fast_inplace_of_an_inference_tensor_is_refused_outside_inference_mode():
    with jtensor.inference_mode():
        t = jtensor.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        t.add_(jtensor.ones(3))
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_fast_inplace_op_is_recorded_for_autograd():
    x = jtensor.ones(3, requires_grad=True)
    y = x * 2
    y.add_(jtensor.full((3,), 0.5), alpha=3)
    assert type(y.grad_fn).__name__ == "AddBackward0" and y._version == 1
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and y.tolist() == [3.5, 3.5, 3.5]
