"""Hardswish, hardsigmoid, mish, softplus, selu, celu, log-sigmoid, the shrinkages, threshold
and hardtanh's backward on the arrays (issue 18: a layer zoo put them at 4-6x PyTorch's time,
four to twelve public ops a call).

Their forward and plain backward run through ``activation._array_forward`` and
``_array_backward`` (as GELU's and SiLU's, ``test_activation_fast.py``): the array calls of
the general path's public ops, in their order and dtypes. Results must be the general path's
bit for bit (``ARRAY_PATHS = False``): output, gradients, strides, version, node; and
PyTorch's within rounding. The switch declines under ``create_graph``, for non-contiguous or
0-d inputs, low-precision dtypes (computed in float32, whose call takes the arrays), and
whenever something listens."""

import warnings

import numpy as np
import pytest

import jtensor
from tests.nn.activation_arrays import (
    bits,
    follows_torch,
    lib_run,
    observe,
    same_as_general,
    values,
)
from tests.nn.norm_arrays import close
from jtensor import _dispatch
from jtensor.nn._functional import activation, activation_more

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# name -> (call, PyTorch's node name)
ACTS = {
    "hardswish": (lambda F, x: F.hardswish(x), "HardswishBackward0"),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), "HardsigmoidBackward0"),
    "mish": (lambda F, x: F.mish(x), "MishBackward0"),
    "softplus": (lambda F, x: F.softplus(x), "SoftplusBackward0"),
    "softplus_int_beta": (lambda F, x: F.softplus(x, beta=2, threshold=5), "SoftplusBackward0"),
    "softplus_odd": (lambda F, x: F.softplus(x, beta=0.7, threshold=7.3), "SoftplusBackward0"),
    "selu": (lambda F, x: F.selu(x), "EluBackward0"),
    "celu": (lambda F, x: F.celu(x, 0.7), "CeluBackward0"),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), "LogSigmoidBackward0"),
    "softshrink": (lambda F, x: F.softshrink(x, 0.1), "SoftshrinkBackward0"),
    "hardshrink": (lambda F, x: F.hardshrink(x), "HardshrinkBackward0"),
    "threshold": (lambda F, x: F.threshold(x, 0.1, 20.0), "ThresholdBackward0"),
    "threshold_nan_int": (lambda F, x: F.threshold(x, 0, float("nan")), "ThresholdBackward0"),
    "hardtanh": (lambda F, x: F.hardtanh(x, -0.1, 0.1), "HardtanhBackward0"),
    "relu6": (lambda F, x: F.relu6(x), "HardtanhBackward0"),
}
# Hardtanh's forward is one public op (clamp) on either path: only its backward is arrays.
CLAMPED = {"hardtanh", "relu6"}
# Smooth ones: their gradient depends on the input (create_graph records it).
SMOOTH = ["hardswish", "mish", "softplus", "softplus_odd", "selu", "celu", "logsigmoid"]


def _taken(act, n=1):
    """The forward switch's count ``[taken, declined]`` for ``n`` calls that take the arrays."""
    return [0, 0] if act in CLAMPED else [n, 0]


def _declined(act, n=1):
    return [0, 0] if act in CLAMPED else [0, n]


SHAPES = {"1d": (7,), "mlp": (32, 64), "wide": (4, 1024), "3d": (2, 3, 4), "empty": (0, 3)}
TOL = {"float32": 2e-5, "float64": 1e-10}
# PyTorch's float64 celu is 1e-7 (relative) away, on either of jtensor's paths.
LOOSE_F64 = {"celu": 1e-6}
# The kinks (+-3), the thresholds (20, 5, 7.3 / 0.7), infinities, NaN, signed zeros, huge
# and tiny values.
SPECIAL = [0.0, -0.0, 3.0, -3.0, 2.9999999, -2.9999999, 3.0000001, -3.0000001, 20.0, -20.0]
SPECIAL += [20.000001, 19.999999, 2.5, 5.0, 10.428571428571429, 10.4285714, np.inf, -np.inf]
SPECIAL += [np.nan, 1e30, -1e30, 3e38, -3e38, 1e-30, -1e-30, 1e-45, 88.0, 89.0, -88.0, 710.0]
SPECIAL += [0.1, -0.1, float(np.float32(0.1)), -float(np.float32(0.1)), 0.5, -0.5, 6.0, -6.0]


@pytest.fixture
def counts(monkeypatch):
    """``{"forward": [taken, declined], "backward": [taken, declined]}``: the switch's calls
    from either module (with ``ARRAY_PATHS`` off, none counts)."""
    seen = {"forward": [0, 0], "backward": [0, 0]}

    def counted(name, fn):
        def run(compute, *args):
            result = fn(compute, *args)
            if activation.ARRAY_PATHS:
                seen[name][result is None] += 1
            return result

        return run

    for name in ("forward", "backward"):
        attr = f"_array_{name}"
        wrapped = counted(name, getattr(activation, attr))
        monkeypatch.setattr(activation, attr, wrapped)
        monkeypatch.setattr(activation_more, attr, wrapped)
    return seen


def _values(shape, seed=0, special=False):
    return values(shape, seed, special, SPECIAL, 4)


def _run(act, dtype, shape, x_fn=None, special=False):
    return observe(ACTS[act][0], _values, dtype, shape, x_fn, special)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_the_array_path_is_the_general_path_bit_for_bit(act, dtype, shape, counts, monkeypatch):
    fast = same_as_general(lambda: _run(act, dtype, SHAPES[shape]), monkeypatch)
    assert fast["node"] == ACTS[act][1] and not fast["view"] and fast["out"][3] == 0
    assert counts["forward"] == _taken(act) and counts["backward"] == [2, 0]


@pytest.mark.parametrize("errors", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_special_values(act, dtype, errors, counts, monkeypatch):
    """Kinks, thresholds, overflowing exponentials, NaN, infinities, with warnings made
    errors or not: the general path's bits."""

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("error" if errors else "ignore", RuntimeWarning)
            return _run(act, dtype, (48, 64), special=True)

    same_as_general(run, monkeypatch)
    assert counts["forward"] == _taken(act) and counts["backward"] == [2, 0]


def _lib_run(lib, act, dtype, shape, x_fn=None):
    return lib_run(lib, ACTS[act][0], _values, dtype, shape, x_fn)


def _follows_torch(mine, theirs, act, tol):
    follows_torch(mine, theirs, ACTS[act][1], tol)


@needs_torch
@pytest.mark.parametrize("shape", ["1d", "mlp", "3d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_the_array_path_follows_torch(act, dtype, shape, counts):
    mine = _lib_run(jtensor, act, dtype, SHAPES[shape])
    assert counts["forward"] == _taken(act) and counts["backward"] == [1, 0]
    tol = LOOSE_F64.get(act, TOL[dtype]) if dtype == "float64" else TOL[dtype]
    _follows_torch(mine, _lib_run(torch, act, dtype, SHAPES[shape]), act, tol)


@pytest.mark.parametrize("act", list(ACTS))
def test_gradcheck_float64(act, counts):
    if act == "threshold_nan_int":
        pytest.skip("a NaN value has no finite differences")
    """Finite differences of the array path's forward against its backward (points kept
    away from the kinks at +-3 and the thresholds)."""
    call, _ = ACTS[act]
    a = np.random.default_rng(5).uniform(-2.5, 2.5, (3, 4))
    x = jtensor.tensor(a, dtype=jtensor.float64, requires_grad=True)
    assert jtensor.autograd.gradcheck(lambda t: call(jtensor.nn.functional, t), (x,))
    assert counts["forward"][0] > 0 or act in CLAMPED
    assert counts["backward"][0] > 0


@pytest.mark.parametrize("act", ["hardswish", "hardsigmoid", "mish", "selu", "celu", "hardtanh"])
def test_in_place_forms(act, counts, monkeypatch):
    """``inplace=True``: the values computed on the arrays (from the input's copy where the
    backward reads the input), written with ``copy_`` (one version bump); hardswish's,
    hardsigmoid's and mish's backward reads the copy, hardtanh's the clamped tensor: arrays
    too; selu's and celu's in-place backward is their own formula of the output (general)."""

    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        h = x * 1.0
        y = getattr(jtensor.nn.functional, act)(h, inplace=True)
        assert y is h
        y.backward(jtensor.tensor(_values((4, 6), seed=1)))
        return [bits(y), bits(x.grad), type(y.grad_fn).__name__]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == _taken(act)
    assert counts["backward"] == ([0, 0] if act in ("selu", "celu") else [1, 0])


def test_modules_take_the_arrays(counts, monkeypatch):
    def run():
        jtensor.manual_seed(0)
        lin = jtensor.nn.Linear(6, 8)
        h = lin(jtensor.randn(4, 6))
        y = jtensor.nn.Hardswish()(h) + jtensor.nn.Mish()(h) + jtensor.nn.Softplus(2.0)(h)
        y = y + jtensor.nn.Hardsigmoid()(h)
        y.sum().backward()
        return [bits(y), bits(lin.weight.grad), bits(lin.bias.grad)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [4, 0] and counts["backward"] == [4, 0]


# ------------------------------------------------------------------ where it declines
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", SMOOTH)
def test_create_graph_takes_the_general_backward(act, dtype, counts):
    call, _ = ACTS[act]
    a, g = _values((3, 5)), _values((3, 5), seed=1)

    def run(lib):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = call(lib.nn.functional, x)
        (gx,) = lib.autograd.grad(y, x, lib.tensor(g, dtype=x.dtype), create_graph=True)
        assert gx.grad_fn is not None
        (gx * gx).sum().backward()
        return [gx, x.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 1]
    tol = LOOSE_F64.get(act, 10 * TOL[dtype]) if dtype == "float64" else 10 * TOL[dtype]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, tol)


@needs_torch
@pytest.mark.parametrize("act", list(ACTS))
def test_a_non_contiguous_input_declines(act, counts, monkeypatch):
    transpose = lambda t: t.transpose(0, 1)
    mine = _lib_run(jtensor, act, "float64", (4, 6), transpose)
    assert counts["forward"] == _declined(act) and counts["backward"] == [0, 1]
    tol = LOOSE_F64.get(act, 1e-10)
    if act == "logsigmoid":  # (PyTorch's output is contiguous, jtensor's the input's layout)
        return
    _follows_torch(mine, _lib_run(torch, act, "float64", (4, 6), transpose), act, tol)
    same_as_general(lambda: _run(act, "float64", (4, 6), transpose), monkeypatch)


@pytest.mark.parametrize("act", list(ACTS))
def test_a_zero_dim_input_declines(act, counts, monkeypatch):
    same_as_general(lambda: _run(act, "float32", ()), monkeypatch)
    assert counts["forward"] == _declined(act) and counts["backward"] == [0, 2]


@pytest.mark.parametrize("act", ["hardswish", "softplus", "softshrink", "hardtanh"])
def test_a_transposed_gradient_declines(act, counts, monkeypatch):
    call, _ = ACTS[act]

    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        y = call(jtensor.nn.functional, x)
        (gx,) = jtensor.autograd.grad(y, x, jtensor.tensor(_values((6, 4), seed=1)).t())
        return [bits(y), bits(gx)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == _taken(act) and counts["backward"] == [0, 1]


def test_numpy_number_parameters_decline(counts, monkeypatch):
    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        y = jtensor.nn.functional.softplus(x, np.float64(2.0), 5)
        y.backward(jtensor.ones(4, 6, dtype=jtensor.float64))
        return [bits(y), bits(x.grad)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("act", ["hardswish", "mish", "softplus", "selu"])
def test_low_precision_inputs(act, dtype, counts, monkeypatch):
    """float16/bfloat16: computed in float32 (``_lowp``), whose call takes the arrays."""
    same_as_general(lambda: _run(act, dtype, (4, 8)), monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]
    mine, theirs = (_lib_run(lib, act, dtype, (4, 8)) for lib in (jtensor, torch))
    _follows_torch(mine, theirs, act, 2e-2)


def test_a_trace_hook_declines(counts, monkeypatch):
    seen = []
    x = jtensor.randn(4, 6, requires_grad=True)
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    y = jtensor.nn.functional.hardswish(x)
    y.backward(jtensor.ones(4, 6))
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert {"add", "clamp", "mul", "div", "where"} <= set(seen)


def test_the_recorder_and_the_profiler_decline(counts):
    x = jtensor.randn(4, 6, requires_grad=True)
    with jtensor.trace.record() as t:
        y = jtensor.nn.functional.mish(x)
        y.backward(jtensor.ones(4, 6))
    assert [e.name for e in t.ops()][:1] == ["mish"]
    with jtensor.autograd.profiler.profile() as prof:
        jtensor.nn.functional.softplus(x).sum().backward()
    assert "aten::mul" in {e.name for e in prof.function_events}
    assert counts["forward"] == [0, 2] and counts["backward"] == [0, 2]


def test_inference_mode_declines_and_no_grad_takes_the_arrays(counts):
    x = jtensor.randn(4, 6, requires_grad=True)
    with jtensor.inference_mode():
        y = jtensor.nn.functional.hardswish(x)
    assert y.is_inference() and counts["forward"] == [0, 1]
    with jtensor.no_grad():
        z = jtensor.nn.functional.hardswish(x)
    assert z.grad_fn is None and counts["forward"] == [1, 1]


@needs_torch
def test_forward_ad_and_vmap(counts):
    a, v = _values((3, 5)), _values((3, 5), seed=1)

    def run(lib):
        fwd = lib.autograd.forward_ad
        F = lib.nn.functional
        with fwd.dual_level():
            y = F.mish(fwd.make_dual(lib.tensor(a), lib.tensor(v)))
            primal, tangent = fwd.unpack_dual(y)
        return [primal, tangent, lib.func.vmap(F.softplus)(lib.tensor(a))]

    for m, t in zip(run(jtensor), run(torch), strict=True):
        close(m, t, 1e-10)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logsigmoid_low_precision_backward_is_general(dtype, counts, monkeypatch):
    """Log-sigmoid's backward rounds ``exp(-|x|)`` to the input's dtype in between (its
    forward buffer's): the float32 backward of a float16 input takes the public ops."""
    same_as_general(lambda: _run("logsigmoid", dtype, (4, 8)), monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 0]
    mine, theirs = (_lib_run(lib, "logsigmoid", dtype, (4, 8)) for lib in (jtensor, torch))
    _follows_torch(mine, theirs, "logsigmoid", 2e-2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("act", ["softshrink", "hardshrink", "threshold", "hardtanh"])
def test_low_precision_shrinks_decline(act, dtype, counts, monkeypatch):
    """The shrinkages, threshold and hardtanh compute a float16 input in its own dtype: the
    public ops."""
    same_as_general(lambda: _run(act, dtype, (4, 8)), monkeypatch)
    assert counts["forward"] == _declined(act) and counts["backward"] == [0, 2]


@pytest.mark.parametrize("value", [1e39, -3.5e38, 3.4e38])
def test_a_threshold_value_beyond_float32_is_general(value, counts, monkeypatch):
    """A finite value past float32's range is ``full_like``'s overflow error (the general
    path raises it), a value near the edge takes the general path too."""

    def run():
        x = jtensor.tensor(_values((4, 6)), dtype=jtensor.float32, requires_grad=True)
        try:
            return ["ok", bits(jtensor.nn.functional.threshold(x, 0.1, value))]
        except RuntimeError as e:
            return [type(e), str(e)]

    fast = same_as_general(run, monkeypatch)
    assert counts["forward"] == [0, 0]
    assert (fast[0] == "ok") is (value == 3.4e38)


@needs_torch
@pytest.mark.parametrize("layout", ["transposed", "columns", "channels_last", "expanded"])
def test_logsigmoid_writes_a_contiguous_output_as_pytorch(layout):
    # (PyTorch's log_sigmoid kernel allocates its output contiguous, whatever the input)
    def make(lib):
        x = lib.tensor(_values((2, 3, 4, 5)), requires_grad=True)
        return {
            "transposed": lambda: x[0, 0].t(),
            "columns": lambda: x[0, 0][:, 1:3],
            "channels_last": lambda: x.contiguous(memory_format=lib.channels_last),
            "expanded": lambda: x[0, 0, :1].expand(3, 5),
        }[layout]()

    for grad in (True, False):
        found = []
        for lib in (jtensor, torch):
            with lib.set_grad_enabled(grad):
                y = lib.nn.functional.logsigmoid(make(lib))
            found.append((tuple(y.shape), y.stride(), y._version, y._base is None))
        assert found[0] == found[1]


@needs_torch
@pytest.mark.parametrize("arrays", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hardsigmoid_gradient_is_pytorchs_bit_for_bit(dtype, arrays, monkeypatch):
    # (PyTorch multiplies by 1/6 rounded to float32, in float64 too; dividing by 6 gave
    # another float32 value in a third of the elements)
    monkeypatch.setattr(activation, "ARRAY_PATHS", arrays)
    xs = np.linspace(-3.5, 3.5, 2001).astype(dtype)
    gs = np.random.default_rng(2).standard_normal(2001).astype(dtype)
    grads = []
    for lib in (jtensor, torch):
        x = lib.tensor(xs, requires_grad=True)
        lib.nn.functional.hardsigmoid(x).backward(lib.tensor(gs))
        grads.append(x.grad.numpy().tobytes())
    assert grads[0] == grads[1]
