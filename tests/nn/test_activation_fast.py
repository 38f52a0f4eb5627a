"""GELU, SiLU, leaky ReLU and ELU on the arrays (issue 18: every GPT/LLaMA MLP block).

``activation._array_forward`` and ``_array_backward`` compute these activations' common call (a
plain CPU float32/float64 tensor with standard contiguous strides; nothing that records,
transforms or listens; a backward without ``create_graph``) with the array calls the general
path's public ops make. Their results must be the general path's bit for bit: the output, the
saved input, the gradients, with the same strides (the general path is had by ``ARRAY_PATHS =
False``). The switch must decline wherever the public ops would be seen or behave otherwise:
``create_graph``, a function transform, a non-contiguous input, a trace hook, the recorder, a
profiler, inference mode. float16/bfloat16 inputs are computed in float32, and that float32
call takes the arrays. Each test counts what the switch took and declined."""

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
from jtensor.nn._functional import activation

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# name -> (call, PyTorch's node name)
ACTS = {
    "gelu": (lambda F, x: F.gelu(x), "GeluBackward0"),
    "gelu_tanh": (lambda F, x: F.gelu(x, approximate="tanh"), "GeluBackward0"),
    "silu": (lambda F, x: F.silu(x), "SiluBackward0"),
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.2), "LeakyReluBackward0"),
    "leaky_relu_int_slope": (lambda F, x: F.leaky_relu(x, 2), "LeakyReluBackward0"),
    # (slopes in (0, 1] take a maximum, others the selection: both ends of the first)
    "leaky_relu_unit_slope": (lambda F, x: F.leaky_relu(x, 1.0), "LeakyReluBackward0"),
    "leaky_relu_zero_slope": (lambda F, x: F.leaky_relu(x, 0.0), "LeakyReluBackward0"),
    "elu": (lambda F, x: F.elu(x, 0.7), "EluBackward0"),
}
SHAPES = {
    "1d": (7,),
    "small": (3, 5),
    "mlp": (32, 64),
    "wide": (4, 3072),  # several of erf's blocks
    "3d": (2, 3, 4),
    "size_one": (1, 5, 1),
    "empty": (0, 3),
}
TOL = {"float32": 1e-5, "float64": 1e-6}
# Special values: zeros, infinities, NaN, huge (x * x overflows), tiny and subnormal, and
# either side of erf's grid end (6 = x / sqrt(2)) and of the float32 tanh saturation.
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 3e38, -3e38, 1e-30, -1e-30]
SPECIAL += [1e-40, -1e-40, 1e-45, 5e-324, -5e-324, 1e300, -1e300, 8.485, 8.4853, 8.49]
SPECIAL += [-8.485, -8.4853, -8.49, 20.0, -20.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0]


@pytest.fixture
def counts(monkeypatch):
    """``{"forward": [taken, declined], "backward": [taken, declined], "names": [...]}``:
    the switch's calls (with ``ARRAY_PATHS`` off, none counts), and the array computations it
    ran."""
    seen = {"forward": [0, 0], "backward": [0, 0], "names": []}

    def counted(name, fn):
        def run(compute, *args):
            result = fn(compute, *args)
            if not activation.ARRAY_PATHS:
                return result
            seen[name][result is None] += 1
            if result is not None:
                seen["names"].append(compute.__name__)
            return result

        return run

    for name in ("forward", "backward"):
        attr = f"_array_{name}"
        monkeypatch.setattr(activation, attr, counted(name, getattr(activation, attr)))
    return seen


def _values(shape, seed=0, special=False):
    return values(shape, seed, special, SPECIAL, 3)


def _run(act, dtype, shape, x_fn=None, special=False):
    return observe(ACTS[act][0], _values, dtype, shape, x_fn, special)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_the_array_path_is_the_general_path_bit_for_bit(act, dtype, shape, counts, monkeypatch):
    same_as_general(lambda: _run(act, dtype, SHAPES[shape]), monkeypatch)
    # One forward and two backward passes taken (then the general path asks nothing).
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]
    assert len(set(counts["names"])) == 2


@pytest.mark.parametrize("errors", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_special_values(act, dtype, errors, counts, monkeypatch):
    """Zeros of both signs, infinities, NaN, overflowing squares, subnormals, erf's grid end,
    with warnings made errors or not: the general path's bits (where warnings are errors, the
    computation is redone silenced, as the public ops redo theirs)."""

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("error" if errors else "ignore", RuntimeWarning)
            return _run(act, dtype, (48, 64), special=True)

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]


def _lib_run(lib, act, dtype, shape, x_fn=None):
    return lib_run(lib, ACTS[act][0], _values, dtype, shape, x_fn)


def _follows_torch(mine, theirs, act, tol):
    follows_torch(mine, theirs, ACTS[act][1], tol)


@needs_torch
@pytest.mark.parametrize("shape", ["small", "mlp", "wide", "3d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_the_array_path_follows_torch(act, dtype, shape, counts):
    mine = _lib_run(jtensor, act, dtype, SHAPES[shape])
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    _follows_torch(mine, _lib_run(torch, act, dtype, SHAPES[shape]), act, TOL[dtype])


@pytest.mark.parametrize("act", ["leaky_relu", "silu", "elu"])
def test_in_place_forms(act, counts, monkeypatch):
    """``inplace=True`` computes the new values on the arrays (then writes them with
    ``copy_``, one version bump); the backward of leaky ReLU and SiLU reads a plain tensor
    (the output, the input's copy) and takes the arrays; ELU's in-place backward is its own
    formula (general)."""
    call = {
        "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2, inplace=True),
        "silu": lambda F, x: F.silu(x, inplace=True),
        "elu": lambda F, x: F.elu(x, 0.7, inplace=True),
    }[act]

    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        h = x * 1.0
        y = call(jtensor.nn.functional, h)
        assert y is h
        y.backward(jtensor.tensor(_values((4, 6), seed=1)))
        return [bits(y), bits(x.grad), type(y.grad_fn).__name__]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [1, 0]
    assert counts["backward"] == ([0, 0] if act == "elu" else [1, 0])


# ------------------------------------------------------------------ where it declines
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", list(ACTS))
def test_create_graph_takes_the_general_backward(act, dtype, counts):
    """Under ``create_graph`` the backward is recorded in public ops: the array backward
    declines, and double backward is PyTorch's."""
    call, _ = ACTS[act]
    a, g = _values((3, 5)), _values((3, 5), seed=1)

    def run(lib):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = call(lib.nn.functional, x)
        (gx,) = lib.autograd.grad(y, x, lib.tensor(g, dtype=x.dtype), create_graph=True)
        if act.startswith("leaky_relu"):  # (piecewise linear: its gradient is constant in x)
            return [gx.detach()]
        assert gx.grad_fn is not None
        (gx * gx).sum().backward()
        return [gx, x.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 1]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, 10 * TOL[dtype])


@needs_torch
@pytest.mark.parametrize("act", list(ACTS))
def test_a_non_contiguous_input_declines(act, counts, monkeypatch):
    """A transposed input (and size-1 dims with other than standard strides, which is
    contiguous but gives the element-wise ops another output layout): the general path."""
    transpose = lambda t: t.transpose(0, 1)
    mine = _lib_run(jtensor, act, "float64", (4, 6), transpose)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    _follows_torch(mine, _lib_run(torch, act, "float64", (4, 6), transpose), act, 1e-6)
    same_as_general(lambda: _run(act, "float64", (4, 6), transpose), monkeypatch)
    # (5, 1) transposed: contiguous, strides (1, 1)
    odd = jtensor.randn(5, 1, dtype=jtensor.float64).t()
    assert odd.is_contiguous() and odd.stride() != (5, 1)
    assert activation._array_forward(activation._silu_arrays, odd) is None


@pytest.mark.parametrize("act", list(ACTS))
def test_a_zero_dim_input_declines(act, counts, monkeypatch):
    same_as_general(lambda: _run(act, "float32", ()), monkeypatch)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 2]


@pytest.mark.parametrize("act", list(ACTS))
def test_a_transposed_gradient_declines(act, counts, monkeypatch):
    """An incoming gradient that is neither contiguous nor an expanded number: general."""
    call, _ = ACTS[act]

    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        y = call(jtensor.nn.functional, x)
        g = jtensor.tensor(_values((6, 4), seed=1)).t()
        (gx,) = jtensor.autograd.grad(y, x, g)
        return [bits(y), bits(gx)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 1]


def test_parameters_other_than_python_numbers_decline(counts, monkeypatch):
    """A NumPy number (or a bool) as the slope: the public ops convert it; the switch leaves
    them to it."""

    def run():
        x = jtensor.tensor(_values((4, 6)), requires_grad=True)
        y = jtensor.nn.functional.leaky_relu(x, np.float64(0.2))
        y.backward(jtensor.ones(4, 6, dtype=jtensor.float64))
        return [bits(y), bits(x.grad)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu", "elu"])
def test_low_precision_inputs(act, dtype, counts, monkeypatch):
    """float16/bfloat16 inputs are computed in float32 (``_lowp``: a float32 copy, the result
    rounded once); that float32 call takes the arrays. Results: the general path's bit for
    bit, and PyTorch's."""
    x16 = jtensor.randn(4, 8, dtype=getattr(jtensor, dtype))
    assert activation._array_forward(activation._silu_arrays, x16) is None
    assert counts["forward"] == [0, 1]
    same_as_general(lambda: _run(act, dtype, (4, 8)), monkeypatch)
    assert counts["forward"] == [1, 1] and counts["backward"] == [2, 0]
    mine, theirs = (_lib_run(lib, act, dtype, (4, 8)) for lib in (jtensor, torch))
    _follows_torch(mine, theirs, act, 1e-2)


def test_leaky_relu_low_precision_declines(counts, monkeypatch):
    """Leaky ReLU computes a float16 input in float16 ops (no float32 pass): general."""
    same_as_general(lambda: _run("leaky_relu", "float16", (4, 8)), monkeypatch)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 2]


def test_a_trace_hook_declines(counts, monkeypatch):
    """A plain trace hook sees every op, the ones inside a functional and its backward
    included: those ops must run."""
    seen = []
    x = jtensor.randn(4, 6, requires_grad=True)
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    y = jtensor.nn.functional.gelu(x)
    forward = list(seen)
    y.backward(jtensor.ones(4, 6))
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert forward[-1] == "gelu" and {"mul", "div", "erf", "add"} <= set(forward)
    assert {"erf", "exp"} <= set(seen[len(forward) :])  # (the backward's ops)


def test_the_recorder_declines(counts):
    """Under ``jtensor.trace.record()`` the forward's inner ops report nothing (the hook is
    detached in a functional's body), but its event hook is set: the switch declines, and the
    recording is the one gelu event and the backward node."""
    x = jtensor.randn(4, 6, requires_grad=True)
    with jtensor.trace.record() as t:
        y = jtensor.nn.functional.gelu(x)
        y.backward(jtensor.ones(4, 6))
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert [e.name for e in t.ops()][:1] == ["gelu"]
    assert "GeluBackward0" in {e.name for e in t.backward_steps()}


@pytest.mark.parametrize("act", ["gelu", "silu"])
def test_a_profiler_declines(act, counts):
    x = jtensor.randn(4, 6, requires_grad=True)
    with jtensor.autograd.profiler.profile() as prof:
        y = ACTS[act][0](jtensor.nn.functional, x)
        y.backward(jtensor.ones(4, 6))
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert "aten::mul" in {e.name for e in prof.function_events}


def test_inference_mode_declines(counts):
    """Inference mode marks every op's output an inference tensor (through the autograd
    hook, which the switch counts as listening)."""
    x = jtensor.randn(4, 6)
    with jtensor.inference_mode():
        y = jtensor.nn.functional.gelu(x)
    assert counts["forward"] == [0, 1]
    assert y.is_inference()


def test_no_grad_takes_the_arrays(counts):
    x = jtensor.randn(4, 6, requires_grad=True)
    with jtensor.no_grad():
        y = jtensor.nn.functional.gelu(x)
    assert counts["forward"] == [1, 0]
    assert y.grad_fn is None and not y.requires_grad


@needs_torch
def test_a_transform_in_effect_declines(counts):
    """Inside a forward-AD level a backward pass runs its nodes with the transform in effect:
    the array backward declines (the forward, with no tangent about, is a plain call).
    Results: PyTorch's."""
    a, g = _values((3, 5)), _values((3, 5), seed=1)

    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        with lib.autograd.forward_ad.dual_level():
            y = lib.nn.functional.gelu(x)
            y.backward(lib.tensor(g))
        return [y, x.grad]

    mine = run(jtensor)
    assert counts["backward"] == [0, 1]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, 1e-6)


@needs_torch
def test_forward_ad_and_vmap(counts):
    """A dual input (the forward with its tangent) and ``vmap``: PyTorch's results whichever
    way the calls go."""
    a, v = _values((3, 5)), _values((3, 5), seed=1)

    def run(lib):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            y = lib.nn.functional.gelu(fwd.make_dual(lib.tensor(a), lib.tensor(v)))
            primal, tangent = fwd.unpack_dual(y)
        mapped = lib.func.vmap(lib.nn.functional.silu)(lib.tensor(a))
        return [primal, tangent, mapped]

    for m, t in zip(run(jtensor), run(torch), strict=True):
        close(m, t, 1e-6)


def test_the_array_path_unpacks_the_saved_tensors_once(counts, monkeypatch):
    """A saved-tensors hook sees the saved input packed and unpacked once, whichever path
    runs the backward."""

    def run():
        log = []

        def pack(t):
            log.append("pack")
            return t

        def unpack(t):
            log.append("unpack")
            return t

        x = jtensor.randn(4, 6, requires_grad=True)
        with jtensor.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = jtensor.nn.functional.gelu(x, approximate="tanh")
        y.backward(jtensor.ones(4, 6))
        return log

    fast = run()
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    monkeypatch.setattr(activation, "ARRAY_PATHS", False)
    assert run() == fast == ["pack", "unpack"]


def test_modules_and_parameters_take_the_arrays(counts, monkeypatch):
    """``nn.GELU``/``nn.SiLU`` on a layer's output, and a parameter as the input (parameters
    are plain strided tensors)."""

    def run():
        jtensor.manual_seed(0)
        lin = jtensor.nn.Linear(6, 8)
        x = jtensor.randn(4, 6)
        h = jtensor.nn.GELU()(lin(x)) + jtensor.nn.SiLU()(lin.weight).sum()
        h.sum().backward()
        return [bits(h), bits(lin.weight.grad), bits(lin.bias.grad)]

    same_as_general(run, monkeypatch)
    assert counts["forward"] == [2, 0] and counts["backward"] == [2, 0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("slope", [0.2, 1.0, 0.0])
def test_leaky_relu_nan_payloads(dtype, slope, monkeypatch):
    """Quiet and signalling NaNs of both signs with payloads: the array path (a maximum for
    slopes in (0, 1]) keeps the bits the general path's ``where`` picks (``x * slope``, a
    quieted NaN)."""
    width = "u4" if dtype == "float32" else "u8"
    exponent = 0x7F800000 if dtype == "float32" else 0x7FF0000000000000
    sign = 1 << (32 if dtype == "float32" else 64) - 1
    quiet = 1 << (22 if dtype == "float32" else 51)
    nans = [exponent | 1, exponent | quiet | 5, sign | exponent | 3, sign | exponent | quiet]
    a = np.random.default_rng(3).standard_normal(4096).astype(dtype)
    a.view(width)[::97][: len(nans)] = nans
    a[::89] = np.inf

    def run():
        x = jtensor.from_numpy(a.copy())
        return jtensor.nn.functional.leaky_relu(x, slope).numpy().view(width).tolist()

    same_as_general(run, monkeypatch)
