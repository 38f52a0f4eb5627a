"""Batch norm in evaluation on the arrays (issue 18: ``BatchNorm1d(64).eval()`` took 84 us
against PyTorch's 8).

Two paths: with a node recorded (an input or parameter that requires grad, grad mode on),
``normalization._fixed_forward`` normalizes with the running statistics and
``_fixed_backward`` computes the plain gradients (``gxh * rstd``, the parameters' sums); with
no node (``no_grad``, plain inputs), ``_inference_arrays`` computes the general path's scale
and shift. Both are the general path's (``ARRAY_PATHS = False``) bit for bit: output,
gradients, strides, version, node, buffers; and PyTorch's within rounding. Channels-last or
strided inputs, ``create_graph``, low-precision dtypes and anything listening take the
general path."""

import numpy as np
import pytest

import jtensor
from jtensor import _dispatch
from jtensor.nn._functional import normalization
from tests.nn.norm_arrays import BATCH_NORM_SHAPES as SHAPES
from tests.nn.norm_arrays import bits, close

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

TOL = {"float32": 5e-5, "float64": 1e-10}


@pytest.fixture
def counts(monkeypatch):
    """``{"forward", "backward", "inference"}: [taken, declined]`` of the three switches."""
    seen = {"forward": [0, 0], "backward": [0, 0], "inference": [0, 0]}

    def counted(name, fn):
        def run(*args):
            result = fn(*args)
            if normalization.ARRAY_PATHS:
                seen[name][result is None] += 1
            return result

        return run

    for name, attr in (
        ("forward", "_fixed_forward"),
        ("backward", "_fixed_backward"),
        ("inference", "_inference_arrays"),
    ):
        monkeypatch.setattr(normalization, attr, counted(name, getattr(normalization, attr)))
    return seen


def _module(lib, shape, affine, dtype):
    cls = {2: lib.nn.BatchNorm1d, 3: lib.nn.BatchNorm1d, 4: lib.nn.BatchNorm2d}.get(
        len(shape), lib.nn.BatchNorm3d
    )
    m = cls(shape[1], affine=affine).to(getattr(lib, dtype))
    gen = np.random.default_rng(3)
    with lib.no_grad():
        m.running_mean.copy_(lib.tensor(gen.standard_normal(shape[1])))
        m.running_var.copy_(lib.tensor(gen.uniform(0.3, 3.0, shape[1])))
        if affine:
            m.weight.copy_(lib.tensor(gen.standard_normal(shape[1])))
            m.bias.copy_(lib.tensor(gen.standard_normal(shape[1])))
    return m.eval()


def _values(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape) * 3 + 1.5


def _step(lib, case, affine, dtype, grad=True, x_fn=None):
    """One evaluation call (and its backward when ``grad``): every output, gradient, buffer,
    version counter."""
    shape = SHAPES[case]
    m = _module(lib, shape, affine, dtype)
    x = lib.tensor(_values(shape, 0), dtype=getattr(lib, dtype), requires_grad=grad)
    src = x if x_fn is None else x_fn(x)
    if grad:
        y = m(src)
        g = lib.tensor(_values(shape, 1), dtype=x.dtype)
        y.backward(g if x_fn is None else x_fn(g))
        grads = [x.grad] + [p.grad for p in m.parameters()]
    else:
        with lib.no_grad():
            y = m(src)
        grads = []
    return {
        "out": y,
        "node": None if y.grad_fn is None else type(y.grad_fn).__name__,
        "fresh": (y._base is None, y._version, [t._version for t in grads]),
        "tensors": [y] + grads + [m.running_mean, m.running_var],
        "versions": [m.running_mean._version, m.running_var._version],
    }


def _bits_of(step):
    return {**step, "out": None, "tensors": [bits(t) for t in step["tensors"]]}


def _same_as_general(run, monkeypatch):
    fast = _bits_of(run())
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    general = _bits_of(run())
    monkeypatch.setattr(normalization, "ARRAY_PATHS", True)
    assert fast == general
    return fast


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_recorded_evaluation_is_the_general_path_bit_for_bit(
    case, dtype, affine, counts, monkeypatch
):
    fast = _same_as_general(lambda: _step(jtensor, case, affine, dtype), monkeypatch)
    assert fast["node"] == "NativeBatchNormBackward0"
    assert fast["fresh"][:2] == (True, 0)
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    assert counts["inference"] == [0, 0]


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_inference_is_the_general_path_bit_for_bit(case, dtype, affine, counts, monkeypatch):
    fast = _same_as_general(lambda: _step(jtensor, case, affine, dtype, grad=False), monkeypatch)
    assert fast["node"] is None and fast["fresh"][:2] == (True, 0)
    assert counts["inference"] == [1, 0] and counts["forward"] == [0, 0]


def test_only_the_parameters_require_grad(counts, monkeypatch):
    """A plain input, a module's parameters: recorded, the input gets no gradient."""

    def run():
        m = _module(jtensor, (8, 4), True, "float32")
        y = m(jtensor.tensor(_values((8, 4), 0), dtype=jtensor.float32))
        y.backward(jtensor.tensor(_values((8, 4), 1), dtype=jtensor.float32))
        return {"tensors": [y, m.weight.grad, m.bias.grad], "node": type(y.grad_fn).__name__}

    _same_as_general(run, monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]


@needs_torch
@pytest.mark.parametrize("grad", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["wide", "sequence", "image"])
def test_evaluation_follows_torch(case, dtype, affine, grad, counts):
    mine = _step(jtensor, case, affine, dtype, grad)
    theirs = _step(torch, case, affine, dtype, grad)
    assert mine["node"] == theirs["node"]
    assert mine["fresh"] == theirs["fresh"] and mine["versions"] == theirs["versions"]
    for m, t in zip(mine["tensors"], theirs["tensors"], strict=True):
        close(m, t, TOL[dtype])
    assert counts["forward" if grad else "inference"][0] == 1


def test_gradcheck_float64(counts):
    m = _module(jtensor, (5, 3, 4), True, "float64")
    x = jtensor.tensor(_values((5, 3, 4), 0), requires_grad=True)
    assert jtensor.autograd.gradcheck(
        lambda t, w, b: m.__class__.forward(m, t), (x, m.weight, m.bias)
    )
    f = lambda t, w, b: jtensor.nn.functional.batch_norm(t, m.running_mean, m.running_var, w, b)
    assert jtensor.autograd.gradcheck(f, (x, m.weight, m.bias))
    assert counts["forward"][0] > 0 and counts["backward"][0] > 0


# ------------------------------------------------------------------ where it declines
@needs_torch
def test_a_channels_last_input_declines(counts, monkeypatch):
    cl = lambda t: t.contiguous(memory_format=jtensor.channels_last)
    _same_as_general(lambda: _step(jtensor, "image", True, "float32", x_fn=cl), monkeypatch)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    _same_as_general(
        lambda: _step(jtensor, "image", True, "float32", grad=False, x_fn=cl), monkeypatch
    )
    assert counts["inference"] == [0, 1]
    tcl = lambda t: t.contiguous(memory_format=torch.channels_last)
    mine = _step(jtensor, "image", True, "float32", x_fn=cl)
    theirs = _step(torch, "image", True, "float32", x_fn=tcl)
    for m, t in zip(mine["tensors"], theirs["tensors"], strict=True):
        close(m, t, TOL["float32"])


def test_a_strided_input_declines(counts, monkeypatch):
    tr = lambda t: t.t().contiguous().t()
    _same_as_general(lambda: _step(jtensor, "wide", True, "float64", x_fn=tr), monkeypatch)
    _same_as_general(
        lambda: _step(jtensor, "wide", True, "float64", grad=False, x_fn=tr), monkeypatch
    )
    assert counts["forward"] == [0, 1] and counts["inference"] == [0, 1]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_create_graph_takes_the_general_backward(dtype, counts):
    def run(lib):
        m = _module(lib, (8, 4), True, dtype)
        x = lib.tensor(_values((8, 4), 0), dtype=getattr(lib, dtype), requires_grad=True)
        y = m(x)
        g = lib.tensor(_values((8, 4), 1), dtype=x.dtype, requires_grad=True)
        (gx,) = lib.autograd.grad(y, x, g, create_graph=True)
        (gx * gx).sum().backward()
        return [gx, g.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 0]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, TOL[dtype])


@needs_torch
@pytest.mark.parametrize("grad", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_computes_in_float32(dtype, grad, counts, monkeypatch):
    """A float16/bfloat16 module computes in float32 (copies of the input, parameters and
    statistics): that float32 call takes the arrays, the general path's bits, PyTorch's
    values."""
    _same_as_general(lambda: _step(jtensor, "features", True, dtype, grad), monkeypatch)
    assert counts["forward" if grad else "inference"] == [1, 0]
    mine = _step(jtensor, "features", True, dtype, grad)
    theirs = _step(torch, "features", True, dtype, grad)
    close(mine["out"], theirs["out"], 2e-2)


def test_mixed_dtypes_raise_as_the_general_path(counts, monkeypatch):
    def run():
        m = _module(jtensor, (8, 4), True, "float32")
        m.running_mean.data = m.running_mean.double()
        with pytest.raises(RuntimeError) as info:
            m(jtensor.tensor(_values((8, 4), 0), dtype=jtensor.float32))
        return str(info.value)

    fast = run()
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert run() == fast
    monkeypatch.setattr(normalization, "ARRAY_PATHS", True)


def test_a_trace_hook_and_the_recorder_decline(counts, monkeypatch):
    m = _module(jtensor, (8, 4), True, "float32")
    x = jtensor.randn(8, 4, requires_grad=True)
    seen = []
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    m(x).sum().backward()
    with jtensor.no_grad():
        m(x)
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert {"sub", "rsqrt", "mul"} <= set(seen)
    with jtensor.trace.record() as t:
        m(x).sum().backward()
    assert "batch_norm" in [e.name for e in t.ops()]
    assert counts["forward"] == [0, 2] and counts["inference"] == [0, 1]
    assert counts["backward"] == [0, 2]


def test_inference_mode_declines(counts):
    m = _module(jtensor, (8, 4), True, "float32")
    with jtensor.inference_mode():
        y = m(jtensor.randn(8, 4))
    assert y.is_inference() and counts["inference"] == [0, 1]


def test_training_between_forward_and_backward(counts, monkeypatch):
    """The node saves the running mean's view, as the general path; a training call in
    between updates the statistics without moving their version counters, so the backward
    runs, with the forward's ``rstd`` on either path. (PyTorch's backward reads the updated
    running variance: its gradient differs there, on the general path as well.)"""

    def run(lib):
        m = _module(lib, (8, 4), False, "float64")
        x = lib.tensor(_values((8, 4), 0), requires_grad=True)
        y = m(x)
        m.train()
        m(lib.tensor(_values((8, 4), 2)))
        y.backward(lib.tensor(_values((8, 4), 1)))
        return {"tensors": [y, x.grad, m.running_mean, m.running_var]}

    _same_as_general(lambda: run(jtensor), monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]


@pytest.mark.parametrize("grad", [True, False])
def test_a_channels_last_input_of_unit_spatial_size(grad, counts, monkeypatch):
    """(N, C, 1, 1) made channels-last: contiguous too, but its strides are not the standard
    ones, and the output keeps the input's: the general path's layout either way."""

    def run():
        m = _module(jtensor, (4, 3, 1, 1), True, "float32")
        x = jtensor.tensor(_values((4, 3, 1, 1), 0), dtype=jtensor.float32)
        x = x.contiguous(memory_format=jtensor.channels_last).requires_grad_(grad)
        if grad:
            y = m(x)
            y.backward(jtensor.ones_like(y))
            return {"tensors": [y, x.grad, m.weight.grad]}
        with jtensor.no_grad():
            return {"tensors": [m(x)]}

    _same_as_general(run, monkeypatch)
