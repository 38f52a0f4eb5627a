"""Group norm on the arrays (issue 18: a deep-equilibrium ResNet layer calls it three times
an iteration, and it was 7x PyTorch's time).

``normalization._array_forward``/``_array_backward`` take group norm's common call too: a
plain contiguous CPU float32/float64 input (viewed as (N, groups, C / groups, *)), weight and
bias, nothing that records, transforms or listens. The results must be the general path's
bit for bit (``ARRAY_PATHS = False``): output, saved tensors, gradients, strides. A
channels-last or non-contiguous input, and ``create_graph``, take the general path. Either
way the output is a fresh tensor, as PyTorch's kernel writes it (it was a view of the
grouped result)."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import normalization
from tests.nn.norm_arrays import bits, close, count_array_paths

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# (input shape, num_groups)
SHAPES = {
    "image": ((4, 8, 5, 3), 4),
    "one_channel_a_group": ((3, 6, 4, 4), 6),
    "one_group": ((2, 6, 3, 2), 1),
    "sequence": ((2, 6, 7), 3),
    "no_spatial": ((5, 4), 2),
    "volume": ((2, 4, 2, 2, 3), 2),
    "batch_of_one": ((1, 4, 3, 3), 2),
}
AFFINE = ["module", "module_no_affine", "weight", "bias"]
TOL = {"float32": 2e-5, "float64": 1e-9}


@pytest.fixture
def counts(monkeypatch):
    return count_array_paths(monkeypatch)


def _data(shape, seed=0):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape) * 3 + 1.5
    w = gen.standard_normal(shape[1])
    b = gen.standard_normal(shape[1])
    g = gen.standard_normal(shape)
    return a, w, b, g


def _group_norm(lib, x, groups, w, b, affine):
    dt = x.dtype
    channels = x.shape[1]
    if affine.startswith("module"):
        m = lib.nn.GroupNorm(groups, channels, affine=affine == "module", dtype=dt)
        params = list(m.parameters())
        with lib.no_grad():
            for p, v in zip(params, (w, b), strict=False):
                p.copy_(lib.tensor(v, dtype=dt))
        return m(x), params
    wt = lib.tensor(w, dtype=dt, requires_grad=True) if affine == "weight" else None
    bt = lib.tensor(b, dtype=dt, requires_grad=True) if affine == "bias" else None
    y = lib.nn.functional.group_norm(x, groups, wt, bt)
    return y, [p for p in (wt, bt) if p is not None]


def _jt_run(case, dtype, affine, x_fn=None):
    """Everything observable of one call and two backward passes."""
    shape, groups = SHAPES[case]
    a, w, b, g = _data(shape)
    x = jtensor.tensor(a, dtype=getattr(jtensor, dtype), requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    y, params = _group_norm(jtensor, src, groups, w, b, affine)
    node = y.grad_fn
    saved = node.saved_tensors
    inputs = [x] + params
    g = jtensor.tensor(g, dtype=x.dtype)
    grads = jtensor.autograd.grad(y, inputs, g, retain_graph=True)
    grads_sum = jtensor.autograd.grad(y.sum(), inputs)
    return {
        "out": bits(y),
        "fresh": (y._base is None, y._is_view(), y._version),
        "node": type(node).__name__,
        "saved": [bits(s) for s in saved],
        "options": (node.dims, node.pshape, node.eps, node.param_dims, node.split),
        "grads": [bits(t) for t in grads],
        "grads_sum": [bits(t) for t in grads_sum],
    }


@pytest.mark.parametrize("affine", AFFINE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_is_the_general_path_bit_for_bit(case, dtype, affine, counts, monkeypatch):
    fast = _jt_run(case, dtype, affine)
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    general = _jt_run(case, dtype, affine)
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]
    assert fast == general
    assert fast["fresh"] == (True, False, 0)


def _lib_run(lib, case, dtype, affine, x_fn=None, create_graph=False):
    shape, groups = SHAPES[case]
    a, w, b, g = _data(shape)
    x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    y, params = _group_norm(lib, src, groups, w, b, affine)
    inputs = [x] + params
    g = np.random.default_rng(1).standard_normal(tuple(y.shape))  # (y's shape: x_fn may slice)
    grads = lib.autograd.grad(y, inputs, lib.tensor(g, dtype=x.dtype), create_graph=create_graph)
    if create_graph:
        sum(gr.square().sum() for gr in grads).backward()
        grads = list(grads) + [t.grad for t in inputs]
    return {
        "node": type(y.grad_fn).__name__,
        "out": y,
        "fresh": (y._base is None, y._is_view()),
        "grads": grads,
    }


def _follows_torch(mine, theirs, tol):
    assert mine["node"] == theirs["node"] == "NativeGroupNormBackward0"
    assert mine["fresh"] == theirs["fresh"] == (True, False)
    close(mine["out"], theirs["out"], tol)
    assert len(mine["grads"]) == len(theirs["grads"])
    for m, t in zip(mine["grads"], theirs["grads"], strict=True):
        close(m, t, tol)


# (PyTorch 2.13's CPU backward of a bias without a weight fails inside: "tensor does not
# have a device"; that call is compared with the general path only)
@needs_torch
@pytest.mark.parametrize("affine", [a for a in AFFINE if a != "bias"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_follows_torch(case, dtype, affine, counts):
    mine = _lib_run(jtensor, case, dtype, affine)
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    _follows_torch(mine, _lib_run(torch, case, dtype, affine), TOL[dtype])


@needs_torch
@pytest.mark.parametrize("affine", ["module", "module_no_affine"])
def test_a_channels_last_input_declines(affine, counts, monkeypatch):
    """A channels-last image: PyTorch writes the output and the input gradient channels-last;
    the general path does the same, on a contiguous copy."""

    def channels_last(t):
        return t.contiguous(
            memory_format=type(t).__module__.split(".")[0] == "torch"
            and torch.channels_last
            or jtensor.channels_last
        )

    mine = _lib_run(jtensor, "image", "float64", affine, channels_last)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    _follows_torch(mine, _lib_run(torch, "image", "float64", affine, channels_last), 1e-9)
    fast = _jt_run("image", "float64", affine, channels_last)
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert _jt_run("image", "float64", affine, channels_last) == fast


@needs_torch
def test_a_non_contiguous_input_declines(counts):
    def sliced(t):
        return t[:, :, ::2]

    mine = _lib_run(jtensor, "image", "float64", "module", sliced)
    assert counts["forward"] == [0, 1]
    _follows_torch(mine, _lib_run(torch, "image", "float64", "module", sliced), 1e-9)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_create_graph_takes_the_general_backward(dtype, counts):
    mine = _lib_run(jtensor, "image", dtype, "module", create_graph=True)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 0]
    theirs = _lib_run(torch, "image", dtype, "module", create_graph=True)
    _follows_torch(mine, theirs, 10 * TOL[dtype])


def test_gradcheck_through_the_array_path(counts):
    x = jtensor.randn(2, 4, 3, dtype=jtensor.float64, requires_grad=True)
    w = jtensor.randn(4, dtype=jtensor.float64, requires_grad=True)
    b = jtensor.randn(4, dtype=jtensor.float64, requires_grad=True)

    def fn(x, w, b):
        return jtensor.nn.functional.group_norm(x, 2, w, b)

    assert jtensor.autograd.gradcheck(fn, (x, w, b))
    assert counts["forward"][0] > 0 and counts["backward"][0] > 0
