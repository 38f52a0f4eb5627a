"""Batch norm's training step on the arrays (issue 18: ``nn.BatchNorm1d`` took 12x PyTorch's
time, 25 public ops a call).

``normalization._array_forward``/``_array_backward`` take batch norm's training call on a
plain contiguous CPU float32/float64 input: the statistics, output and gradients are the
general path's bit for bit (``ARRAY_PATHS = False``), the running statistics take the general
path's own update. As PyTorch's kernel, the running statistics' version counters do not move,
and the output and input gradient are fresh tensors at version 0 on either path."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import normalization
from tests.nn.norm_arrays import BATCH_NORM_SHAPES as SHAPES
from tests.nn.norm_arrays import bits, close, count_array_paths

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# module options: (affine, track_running_stats, momentum)
OPTIONS = {
    "default": (True, True, 0.1),
    "no_affine": (False, True, 0.1),
    "no_running_stats": (True, False, 0.1),
    "cumulative": (True, True, None),
}
TOL = {"float32": 5e-5, "float64": 1e-9}


@pytest.fixture
def counts(monkeypatch):
    return count_array_paths(monkeypatch)


def _module(lib, shape, option, dtype):
    affine, track, momentum = OPTIONS[option]
    cls = {2: lib.nn.BatchNorm1d, 3: lib.nn.BatchNorm1d, 4: lib.nn.BatchNorm2d}.get(
        len(shape), lib.nn.BatchNorm3d
    )
    m = cls(shape[1], affine=affine, track_running_stats=track, momentum=momentum)
    m = m.to(getattr(lib, dtype))
    if affine:
        gen = np.random.default_rng(3)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(gen.standard_normal(shape[1])))
            m.bias.copy_(lib.tensor(gen.standard_normal(shape[1])))
    return m


def _steps(lib, case, option, dtype, x_fn=None, steps=3):
    """Three training steps, then one in evaluation mode: every output, gradient, buffer
    and version counter."""
    shape = SHAPES[case]
    m = _module(lib, shape, option, dtype)
    gen = np.random.default_rng(0)
    seen = []
    for step in range(steps + 1):
        if step == steps:
            m.eval()
        a = gen.standard_normal(shape) * 3 + 1.5
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = m(x if x_fn is None else x_fn(x))
        g = lib.tensor(gen.standard_normal(shape), dtype=x.dtype)
        y.backward(g if x_fn is None else x_fn(g))
        params = list(m.parameters())
        buffers = [b for b in (m.running_mean, m.running_var) if b is not None]
        seen.append(
            {
                "out": y,
                "fresh": (y._base is None, y._version, x.grad._version),
                "node": type(y.grad_fn).__name__,
                "tensors": [y, x.grad] + [p.grad for p in params] + buffers,
                "versions": [b._version for b in buffers],
                "batches": None if m.num_batches_tracked is None else m.num_batches_tracked.item(),
            }
        )
        for p in params:
            p.grad = None
    return seen


def _expected(option):
    """The switch's counts for ``_steps``: three training steps take the arrays; evaluation
    normalizes with the running statistics (the general path, its backward declined), or,
    without running statistics, with the batch's again (the arrays)."""
    if OPTIONS[option][1]:
        return [3, 0], [3, 1]
    return [4, 0], [4, 0]


def _bits_of(run):
    return [{**step, "out": None, "tensors": [bits(t) for t in step["tensors"]]} for step in run]


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_is_the_general_path_bit_for_bit(case, dtype, option, counts, monkeypatch):
    fast = _bits_of(_steps(jtensor, case, dtype=dtype, option=option))
    assert counts["forward"] == _expected(option)[0] and counts["backward"] == _expected(option)[1]
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    general = _bits_of(_steps(jtensor, case, dtype=dtype, option=option))
    assert fast == general
    for step in fast:
        assert step["fresh"] == (True, 0, 0)


@needs_torch
@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_follows_torch(case, dtype, option, counts):
    mine = _steps(jtensor, case, option, dtype)
    theirs = _steps(torch, case, option, dtype)
    assert counts["forward"] == _expected(option)[0]
    for m, t in zip(mine, theirs, strict=True):
        assert m["node"] == t["node"] == "NativeBatchNormBackward0"
        assert (m["fresh"], m["versions"], m["batches"]) == (
            t["fresh"],
            t["versions"],
            t["batches"],
        )
        for a, b in zip(m["tensors"], t["tensors"], strict=True):
            close(a, b, TOL[dtype])


@needs_torch
def test_a_channels_last_input_declines(counts, monkeypatch):
    def channels_last(t):
        fmt = torch.channels_last if isinstance(t, torch.Tensor) else jtensor.channels_last
        return t.contiguous(memory_format=fmt)

    mine = _steps(jtensor, "image", "default", "float64", channels_last)
    assert counts["forward"] == [0, 3]
    theirs = _steps(torch, "image", "default", "float64", channels_last)
    for m, t in zip(mine, theirs, strict=True):
        assert m["fresh"] == t["fresh"] and m["versions"] == t["versions"]
        for a, b in zip(m["tensors"], t["tensors"], strict=True):
            close(a, b, 1e-9)


def test_functional_running_statistics_keep_their_versions():
    rm, rv = jtensor.zeros(3), jtensor.ones(3)
    x = jtensor.randn(5, 3, requires_grad=True)
    y = jtensor.nn.functional.batch_norm(x, rm, rv, training=True)
    assert (rm._version, rv._version, y._version) == (0, 0, 0)
    assert not np.array_equal(rm.numpy(), np.zeros(3))


@needs_torch
def test_create_graph_takes_the_general_backward(counts):
    def run(lib):
        m = _module(lib, SHAPES["image"], "default", "float64")
        x = lib.tensor(np.sin(np.arange(480.0)).reshape(8, 4, 5, 3) * 2 + 0.5, requires_grad=True)
        y = m(x)
        gx, gw = lib.autograd.grad(y, (x, m.weight), (y * y).detach(), create_graph=True)
        ((gx * gx).sum() + (gw * gw).sum()).backward()
        return [gx, gw, x.grad, m.weight.grad, m.bias.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 0]
    for a, b in zip(mine, run(torch), strict=True):
        close(a, b, 1e-9)


def test_gradcheck_through_the_array_path(counts):
    x = jtensor.randn(6, 3, dtype=jtensor.float64, requires_grad=True)
    w = jtensor.randn(3, dtype=jtensor.float64, requires_grad=True)
    b = jtensor.randn(3, dtype=jtensor.float64, requires_grad=True)

    def fn(x, w, b):
        return jtensor.nn.functional.batch_norm(x, None, None, w, b, training=True)

    assert jtensor.autograd.gradcheck(fn, (x, w, b))
    assert counts["forward"][0] > 0 and counts["backward"][0] > 0


@needs_torch
@pytest.mark.parametrize("momentum", [0.1, 0.3, 0.01])
def test_running_statistics_are_pytorchs_where_the_batch_statistics_are_exact(momentum):
    """A batch of quarter-integers has an exact mean: the running mean is then PyTorch's bit
    for bit (a double-precision update formula matched 63% of elements here)."""
    gen = np.random.default_rng(0)
    for _ in range(20):
        x = gen.integers(-8, 8, (4, 16)).astype(np.float32) / 4
        rm = gen.standard_normal(16).astype(np.float32)
        rv = gen.uniform(0.5, 2, 16).astype(np.float32)
        seen = []
        for lib in (jtensor, torch):
            m, v = lib.from_numpy(rm.copy()), lib.from_numpy(rv.copy())
            lib.nn.functional.batch_norm(
                lib.from_numpy(x.copy()), m, v, training=True, momentum=momentum
            )
            seen.append(m.numpy().tobytes())
        assert seen[0] == seen[1]
