"""Layer norm on the arrays (issue 18: GPT-style code calls it several times a step).

``normalization._array_forward`` and ``_array_backward`` compute layer norm's common call (a
plain contiguous CPU float32/float64 input, weight and bias; nothing that records,
transforms or listens) with the array calls the general path's public ops make. Their
results must be the general path's bit for bit: the output, the saved tensors, the gradients,
with the same strides (the general path is had by ``ARRAY_PATHS = False``). The switch must
decline wherever the public ops would be seen or behave otherwise: ``create_graph``, a function
transform in effect, a non-contiguous input, low-precision tensors, a trace hook, the
recorder, a profiler, inference mode. (A transform hands layer_norm on as a plain call on
plain tensors once it has taken itself off: ``vmap``'s physical batch, ``func.grad``'s fresh
leaf; those calls may take the arrays.) Each test counts what the switch took and declined."""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor import _dispatch
from jtensor.nn._functional import normalization
from tests.nn.norm_arrays import bits, close, count_array_paths

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# (input shape, normalized_shape)
SHAPES = {
    "2d": ((6, 10), (10,)),
    "btc": ((3, 5, 8), (8,)),
    "btc_two_dims": ((3, 5, 8), (5, 8)),
    "one_row": ((1, 5, 8), (8,)),
    "size_one": ((4, 1), (1,)),
    "whole": ((5, 8), (5, 8)),  # no leading dim: the parameters' gradients sum nothing
}
# weight/bias: given to F.layer_norm, or a LayerNorm module (with or without its affine)
AFFINE = ["both", "weight", "bias", "none", "module", "module_no_affine"]
TOL = {"float32": 1e-5, "float64": 1e-6}


@pytest.fixture
def counts(monkeypatch):
    return count_array_paths(monkeypatch)


def _data(shape, nshape, seed=0):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape) * 3 + 1.5  # (a mean well away from 0)
    w = gen.standard_normal(nshape)
    b = gen.standard_normal(nshape)
    g = gen.standard_normal(shape)
    return a, w, b, g


def _layer_norm(lib, x, nshape, w, b, affine):
    """The call under test and its parameters (those that take gradients)."""
    dt = x.dtype
    if affine.startswith("module"):
        m = lib.nn.LayerNorm(nshape, elementwise_affine=affine == "module", dtype=dt)
        params = list(m.parameters())
        with lib.no_grad():
            for p, v in zip(params, (w, b), strict=False):
                p.copy_(lib.tensor(v, dtype=dt))
        return m(x), params
    wt = lib.tensor(w, dtype=dt, requires_grad=True) if affine in ("both", "weight") else None
    bt = lib.tensor(b, dtype=dt, requires_grad=True) if affine in ("both", "bias") else None
    y = lib.nn.functional.layer_norm(x, nshape, wt, bt)
    return y, [p for p in (wt, bt) if p is not None]


def _norm_node(y):
    node = y.grad_fn
    if type(node).__name__ == "ToCopyBackward0":  # float16/bfloat16: computed in float32
        node = node.next_functions[0][0]
    return node


def _jt_run(case, dtype, affine, x_fn=None, x_grad=True):
    """Everything observable of one call and two backward passes (an incoming gradient of
    random values, and the expanded one of ``y.sum()``)."""
    shape, nshape = SHAPES[case]
    a, w, b, g = _data(shape, nshape)
    x = jtensor.tensor(a, dtype=getattr(jtensor, dtype), requires_grad=x_grad)
    src = x if x_fn is None else x_fn(x)
    y, params = _layer_norm(jtensor, src, nshape, w, b, affine)
    node = _norm_node(y)
    saved = node.saved_tensors
    inputs = ([x] if x_grad else []) + params
    g = jtensor.tensor(g.reshape(tuple(y.shape)), dtype=x.dtype)
    grads = jtensor.autograd.grad(y, inputs, g, retain_graph=True)
    grads_sum = jtensor.autograd.grad(y.sum(), inputs)
    options = (
        node.dims,
        node.pshape,
        node.eps,
        node.fixed,
        node.param_dims,
        node.split,
        node.layout,
        node.bias_shape,
    )
    weight = params[0] if params and affine != "bias" else None
    return {
        "out": bits(y),
        "node": type(node).__name__,
        "saved": [bits(s) for s in saved],
        "saved_inputs": (saved[0] is src, saved[1] is weight),
        "options": options,
        "grads": [bits(t) for t in grads],
        "grads_sum": [bits(t) for t in grads_sum],
    }


@pytest.mark.parametrize("affine", AFFINE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_is_the_general_path_bit_for_bit(case, dtype, affine, counts, monkeypatch):
    fast = _jt_run(case, dtype, affine)
    assert counts["forward"] == [1, 0]
    # The parameters' gradients of a leading-dim-free input are views of the incoming
    # gradient in the general path: that backward stays there.
    leading = case != "whole"
    assert counts["backward"] == ([2, 0] if leading else [0, 2])
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    general = _jt_run(case, dtype, affine)
    assert counts["forward"] == [1, 0] and counts["backward"] == ([2, 0] if leading else [0, 2])
    assert fast == general


@pytest.mark.parametrize("affine", ["both", "weight", "module"])
def test_parameter_gradients_alone(affine, counts, monkeypatch):
    """An input that needs no gradient (a first layer's): the parameters' gradients only."""
    fast = _jt_run("btc", "float32", affine, x_grad=False)
    assert counts["forward"] == [1, 0] and counts["backward"] == [2, 0]
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert _jt_run("btc", "float32", affine, x_grad=False) == fast


@pytest.mark.parametrize("errors", [False, True])
def test_special_values(errors, counts, monkeypatch):
    """Infinities, NaNs and ``eps=0`` on a constant row (0/0, 1/0: NumPy's floating-point
    warnings), with warnings made errors or not: the general path's values (where warnings
    are errors, the computation is redone silenced, as the public ops redo theirs)."""

    def run():
        a = np.linspace(-3, 5, 24, dtype=np.float32).reshape(4, 6)
        a[0, 1], a[1, 2], a[3] = np.inf, np.nan, 2.0
        x = jtensor.tensor(a, requires_grad=True)
        w = jtensor.linspace(0.5, 2, 6).requires_grad_()
        b = jtensor.linspace(-1, 1, 6).requires_grad_()
        with warnings.catch_warnings():
            if errors:
                warnings.simplefilter("error")
            y = jtensor.nn.functional.layer_norm(x, (6,), w, b, eps=0.0)
            y.backward(jtensor.ones(4, 6))
        return [bits(t) for t in (y, x.grad, w.grad, b.grad)]

    fast = run()
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert run() == fast


def test_the_array_path_unpacks_the_saved_tensors_once(counts, monkeypatch):
    """A saved-tensors hook sees each saved tensor packed and unpacked once, whichever path
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
        w = jtensor.randn(6, requires_grad=True)
        with jtensor.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = jtensor.nn.functional.layer_norm(x, (6,), w)
        y.backward(jtensor.ones(4, 6))
        return log

    fast = run()
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert run() == fast


def _lib_run(lib, case, dtype, affine, x_fn=None):
    shape, nshape = SHAPES[case]
    a, w, b, g = _data(shape, nshape)
    x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    y, params = _layer_norm(lib, src, nshape, w, b, affine)
    node = y.grad_fn
    if lib is torch:
        mean, rstd = node._saved_result1, node._saved_result2
    else:
        mean, rstd = _norm_node(y).saved_tensors[2:4]
    y.backward(lib.tensor(g.reshape(tuple(y.shape)), dtype=x.dtype))
    return {
        "out": y,
        "mean": mean,
        "rstd": rstd,
        "grads": [x.grad] + [p.grad for p in params],
        "node": type(node).__name__,
        "version": y._version,
    }


def _follows_torch(mine, theirs, tol):
    assert mine["node"] == theirs["node"] == "NativeLayerNormBackward0"
    for key in ("out", "mean", "rstd"):
        close(mine[key], theirs[key], tol)
    assert len(mine["grads"]) == len(theirs["grads"])
    for m, t in zip(mine["grads"], theirs["grads"], strict=True):
        close(m, t, tol)


@needs_torch
@pytest.mark.parametrize("affine", AFFINE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(SHAPES))
def test_the_array_path_follows_torch(case, dtype, affine, counts):
    mine = _lib_run(jtensor, case, dtype, affine)
    assert counts["forward"] == [1, 0]
    # (one element a row: x - mean is 0 here, and PyTorch's rounding noise times
    # rstd = 1/sqrt(eps) in the input gradient)
    tol = TOL[dtype] * (10 if case == "size_one" else 1)
    _follows_torch(mine, _lib_run(torch, case, dtype, affine), tol)
    # (a fresh output, as PyTorch's: the general path's in-place steps count a version)
    assert mine["version"] == 0


# ------------------------------------------------------------------ where it declines
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_create_graph_takes_the_general_backward(dtype, counts):
    """Under ``create_graph`` the backward is recorded (the statistics recomputed from the
    input): the array backward is never asked, and double backward is PyTorch's."""
    shape, nshape = SHAPES["btc"]
    a, w, b, g = _data(shape, nshape)

    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor(a, dtype=dt, requires_grad=True)
        wt = lib.tensor(w, dtype=dt, requires_grad=True)
        bt = lib.tensor(b, dtype=dt, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, nshape, wt, bt)
        gx, gw = lib.autograd.grad(y, (x, wt), lib.tensor(g, dtype=dt), create_graph=True)
        assert gx.grad_fn is not None and gw.grad_fn is not None
        ((gx * gx).sum() + (gw * gw).sum()).backward()
        return [gx, gw, x.grad, wt.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 0]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, 10 * TOL[dtype])


@needs_torch
def test_func_grad(counts, monkeypatch):
    """``jtensor.func.grad`` of a plain input pushes no transform: its forward and its
    backward are plain calls (as ``autograd.grad``'s), which the switch takes. Nested, the inner
    gradient is recorded (``create_graph``: the array backward is not asked for it) and the
    outer pass runs the layer-norm node plainly. Results: the general path's, PyTorch's."""
    shape, nshape = SHAPES["btc"]
    a, w, b, _ = _data(shape, nshape)

    def run(lib):
        x, wt, bt = (lib.tensor(v) for v in (a, w, b))
        f = lambda t: (lib.nn.functional.layer_norm(t, nshape, wt, bt) ** 2).sum()
        once = lib.func.grad(f)(x)
        twice = lib.func.grad(lambda t: lib.func.grad(f)(t).pow(2).sum())(x)
        return once, twice

    mine = run(jtensor)
    assert counts["forward"] == [2, 0]
    assert counts["backward"] == [2, 0]  # once's, and twice's outer pass
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, 1e-6)
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    for m, t in zip(mine, run(jtensor), strict=True):
        assert bits(m) == bits(t)


@needs_torch
def test_vmap(counts):
    """``vmap``'s layer_norm rule calls layer_norm on the physical batch with its transform
    taken off (a plain call: the switch may take it when that batch is contiguous, and
    declines when it is not: ``in_dims=1`` moves the batch dim to the front as a view); the
    results are PyTorch's either way."""
    shape, nshape = SHAPES["btc"]
    a, w, b, _ = _data(shape, nshape)

    def run(lib, in_dims):
        x, wt, bt = (lib.tensor(v) for v in (a, w, b))
        return lib.func.vmap(
            lambda t: lib.nn.functional.layer_norm(t, nshape, wt, bt), in_dims=in_dims
        )(x)

    close(run(jtensor, 0), run(torch, 0), 1e-6)
    assert counts["forward"] == [1, 0]
    close(run(jtensor, 1), run(torch, 1), 1e-6)
    assert counts["forward"] == [1, 1]


@needs_torch
def test_a_transform_in_effect_declines(counts):
    """Inside a forward-AD level (a transform on the stack) a backward pass runs its nodes
    with the transform in effect: the array backward declines. (The forward is an op call,
    which the level hands on with itself taken off when no argument has a tangent: a plain
    call.) Results: PyTorch's."""
    shape, nshape = SHAPES["btc"]
    a, w, b, g = _data(shape, nshape)

    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        with lib.autograd.forward_ad.dual_level():
            y = lib.nn.functional.layer_norm(x, nshape, wt)
            y.backward(lib.tensor(g))
        return [y, x.grad, wt.grad]

    mine = run(jtensor)
    assert counts["forward"] == [1, 0] and counts["backward"] == [0, 1]
    for m, t in zip(mine, run(torch), strict=True):
        close(m, t, 1e-6)


@needs_torch
@pytest.mark.parametrize("affine", ["both", "none"])
def test_a_non_contiguous_input_declines(affine, counts, monkeypatch):
    """A transposed input: the general forward (on a contiguous copy). Its backward reads
    the contiguous normalized values when they are saved (weight or bias given), so it may
    take the arrays; without them it reads the transposed input and declines."""
    transpose = lambda t: t.transpose(0, 1)
    mine = _lib_run(jtensor, "btc", "float64", affine, transpose)
    assert counts["forward"] == [0, 1]
    assert counts["backward"] == ([1, 0] if affine == "both" else [0, 1])
    _follows_torch(mine, _lib_run(torch, "btc", "float64", affine, transpose), 1e-6)
    fast = _jt_run("btc", "float64", affine, transpose)
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert _jt_run("btc", "float64", affine, transpose) == fast


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_inputs(dtype, counts, monkeypatch):
    """The switch refuses float16/bfloat16 tensors; layer_norm computes those in float32 (a
    float32 copy of the input, its result cast back, as PyTorch's kernel accumulates), and
    that float32 call is a plain one the switch takes. Results: the general path's bit for
    bit, and PyTorch's."""
    x16 = jtensor.randn(4, 8, dtype=getattr(jtensor, dtype))
    layout = normalization._Layout((8, 1), x16.stride(), True)
    assert normalization._array_forward(None, x16, None, None, (1,), (1, 8), 1e-5, layout) is None
    assert counts["forward"] == [0, 1]
    fast = _jt_run("btc", dtype, "both")
    assert counts["forward"] == [1, 1]
    mine, theirs = (_lib_run(lib, "btc", dtype, "both") for lib in (jtensor, torch))
    for key in ("out", "mean", "rstd"):
        close(mine[key], theirs[key], 1e-2)
    for m, t in zip(mine["grads"], theirs["grads"], strict=True):
        close(m, t, 1e-2)
    monkeypatch.setattr(normalization, "ARRAY_PATHS", False)
    assert _jt_run("btc", dtype, "both") == fast


def _small_call():
    x = jtensor.randn(4, 6, requires_grad=True)
    w = jtensor.randn(6, requires_grad=True)
    b = jtensor.randn(6, requires_grad=True)
    return x, w, b


def test_a_trace_hook_declines(counts, monkeypatch):
    """A plain trace hook sees every op, the ones inside a functional and its backward
    included: those ops must run."""
    seen = []
    x, w, b = _small_call()
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    y = jtensor.nn.functional.layer_norm(x, (6,), w, b)
    forward = list(seen)
    y.backward(jtensor.ones(4, 6))
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert forward[-1] == "layer_norm" and {"mean", "rsqrt", "mul_"} <= set(forward)
    assert "mean" in seen[len(forward) :]  # (the backward's ops)


def test_the_recorder_declines(counts):
    """Under ``jtensor.trace.record()`` the forward's inner ops report nothing (the hook is
    detached in a functional's body), but its event hook is set: the switch declines, and the
    recording is the one layer_norm event and the backward node."""
    x, w, b = _small_call()
    with jtensor.trace.record() as t:
        y = jtensor.nn.functional.layer_norm(x, (6,), w, b)
        y.backward(jtensor.ones(4, 6))
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]
    assert [e.name for e in t.ops()][:1] == ["layer_norm"]
    assert "NativeLayerNormBackward0" in {e.name for e in t.backward_steps()}


def test_a_profiler_declines(counts):
    x, w, b = _small_call()
    with jtensor.autograd.profiler.profile():
        y = jtensor.nn.functional.layer_norm(x, (6,), w, b)
        y.backward(jtensor.ones(4, 6))
    assert counts["forward"] == [0, 1] and counts["backward"] == [0, 1]


def test_inference_mode_declines(counts):
    """Inference mode marks every op's output an inference tensor (through the autograd
    hook, which the switch counts as listening)."""
    x, w, b = _small_call()
    with jtensor.inference_mode():
        y = jtensor.nn.functional.layer_norm(x, (6,), w, b)
    assert counts["forward"] == [0, 1]
    assert y.is_inference()


def test_no_grad_takes_the_arrays(counts):
    x, w, b = _small_call()
    with jtensor.no_grad():
        y = jtensor.nn.functional.layer_norm(x, (6,), w, b)
    assert counts["forward"] == [1, 0]
    assert y.grad_fn is None and not y.requires_grad
