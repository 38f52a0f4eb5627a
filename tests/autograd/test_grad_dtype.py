"""Assigning ``.grad`` and the ``grad_dtype`` of a leaf, against PyTorch: which assignments
are refused (size, device type, dtype), with PyTorch's exception type and message, and the
dtype ``backward`` gives a leaf's gradient."""

import pytest

import jtensor

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")


def _outcome(fn, lib):
    try:
        result = fn(lib)
    except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
        return type(exc).__name__, str(exc)
    return "ok", result


def _agree(fn):
    mine = _outcome(fn, jtensor)
    if torch is not None:
        assert mine == _outcome(fn, torch)
    return mine


def _assign(shape, dtype, grad_shape, grad_dtype, requires_grad=True, sparse=False):
    def run(lib):
        t = lib.ones(*shape, dtype=getattr(lib, dtype), requires_grad=requires_grad)
        g = lib.ones(*grad_shape, dtype=getattr(lib, grad_dtype))
        t.grad = g.to_sparse() if sparse else g
        return str(t.grad.dtype).replace("jtensor", "torch"), t.grad.layout is lib.strided

    return run


@needs_torch
@pytest.mark.parametrize(
    "grad_dtype",
    ["float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool"],
)
def test_a_grad_of_another_dtype_is_refused(grad_dtype):
    kind, message = _agree(_assign((2, 3), "float32", (2, 3), grad_dtype))
    assert kind == "RuntimeError" and "grad_dtype 'Float'" in message


@needs_torch
@pytest.mark.parametrize(
    "case",
    [
        _assign((2, 3), "float32", (3,), "float32"),
        _assign((2, 3), "float32", (3, 2), "float32"),
        _assign((2, 3), "float64", (2, 3), "float32", requires_grad=False),
        _assign((2, 3), "float32", (2, 3), "float32", sparse=True),
        _assign((2, 3), "complex64", (2, 3), "complex64"),
    ],
)
def test_assigning_grad_as_torch(case):
    _agree(case)


def _grad_dtype_case(body):
    def run(lib):
        return body(lib, lib.ones(2, requires_grad=True))

    return run


def _after_backward(lib, t, wanted):
    t.grad_dtype = wanted if wanted is None else getattr(lib, wanted)
    (t.double() * 3).sum().backward() if wanted is None else (t * 3).sum().backward()
    return str(t.grad.dtype).replace("jtensor", "torch"), t.grad.tolist()


@needs_torch
@pytest.mark.parametrize(
    "body",
    [
        lambda lib, t: str(t.grad_dtype),
        lambda lib, t: str(lib.ones(2).grad_dtype),
        lambda lib, t: (t * 2).grad_dtype,
        lambda lib, t: setattr(t * 2, "grad_dtype", lib.float64),
        lambda lib, t: setattr(t, "grad_dtype", "float64"),
        lambda lib, t: setattr(t, "grad_dtype", 3),
        lambda lib, t: (setattr(t, "grad", lib.ones(2)), setattr(t, "grad_dtype", lib.float64)),
        lambda lib, t: (setattr(t, "grad", lib.ones(2)), setattr(t, "grad_dtype", None))[1],
        lambda lib, t: (setattr(t, "grad_dtype", None), setattr(t, "grad", lib.ones(2).int()))[1],
        lambda lib, t: (setattr(t, "grad_dtype", lib.float64), setattr(t, "grad", lib.ones(2))),
        lambda lib, t: str(
            (setattr(t, "grad_dtype", lib.float64), t.detach().grad_dtype, t.grad_dtype)[1:]
        ),
        lambda lib, t: _after_backward(lib, t, "float16"),
        lambda lib, t: _after_backward(lib, t, "float64"),
        lambda lib, t: _after_backward(lib, t, None),
    ],
)
def test_grad_dtype_as_torch(body):
    _agree(_grad_dtype_case(body))


def test_backward_accumulates_in_the_grad_dtype():
    t = jtensor.ones(2, requires_grad=True)
    t.grad_dtype = jtensor.float64
    for _ in range(2):
        (t * 3).sum().backward()
    assert t.grad.dtype == jtensor.float64 and t.grad.tolist() == [6.0, 6.0]
    assert t.grad.shape == t.shape and t.grad.stride() == (1,)
