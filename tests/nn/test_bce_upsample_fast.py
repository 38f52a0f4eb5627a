"""Binary cross entropy and nearest upsampling on the arrays (issue 18: a GAN's
discriminator loss, logistic regression, a VAE's reconstruction term, a generator's or
decoder's ``nn.Upsample``; all were 4-10x PyTorch's time).

``loss._bce_fast`` and the array calls of ``binary_cross_entropy_with_logits`` take plain
contiguous CPU float32/float64 inputs and targets of one shape, weights that broadcast to
it and a target that needs no gradient, with nothing listening; their backwards compute on
the arrays without ``create_graph``. Their values must be the general path's bit for bit
(``loss.FAST_PATHS = False``), special values included, with the same node, saved tensors,
errors and result metadata. ``upsampling._nearest_fast`` gathers nearest/nearest-exact
inputs on the arrays and ``_nearest_grad_arrays`` adds each input's window as PyTorch's
kernel does: values and gradients are PyTorch's bit for bit on both paths
(``upsampling.FAST_NEAREST = False``). Everything else takes the general path."""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import loss as loss_module
from jtensor.nn._functional import upsampling
from tests.nn.norm_arrays import bits

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

SHAPES = [(64, 1), (128,), (32, 10), (16, 1, 28, 28), (3, 4, 5)]
REDUCTIONS = ["mean", "sum", "none"]
DTYPES = ["float32", "float64"]
# (name, whether the input is a probability, call(F, x, t, w, pw, wfull, reduction))
KINDS = {
    "bce": (True, lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy(x, t, reduction=r)),
    "bce_weight": (
        True,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy(x, t, weight=w, reduction=r),
    ),
    "bce_weight_full": (
        True,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy(x, t, weight=wf, reduction=r),
    ),
    "logits": (
        False,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy_with_logits(x, t, reduction=r),
    ),
    "logits_weight": (
        False,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy_with_logits(
            x, t, weight=w, reduction=r
        ),
    ),
    "logits_pos_weight": (
        False,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy_with_logits(
            x, t, pos_weight=pw, reduction=r
        ),
    ),
    "logits_both": (
        False,
        lambda F, x, t, w, pw, wf, r: F.binary_cross_entropy_with_logits(
            x, t, weight=wf, pos_weight=pw, reduction=r
        ),
    ),
}
NODES = {True: "BinaryCrossEntropyBackward0", False: "BinaryCrossEntropyWithLogitsBackward0"}
TOL = {"float32": 2e-5, "float64": 1e-10}


@pytest.fixture
def counts(monkeypatch):
    """How often each array path ran: ``{name: calls}``."""
    seen = {}
    for name in (
        "_bce_fast",
        "_bce_logits_loss_arrays",
        "_bce_grad_arrays",
        "_bce_logits_grad_arrays",
    ):
        _count(monkeypatch, loss_module, name, seen)
    for name in ("_nearest_forward_arrays", "_nearest_grad_arrays"):
        _count(monkeypatch, upsampling, name, seen)
    return seen


def _count(monkeypatch, module, name, seen):
    fn = getattr(module, name)
    seen[name] = 0

    def run(*args, **kwargs):
        seen[name] += 1
        return fn(*args, **kwargs)

    monkeypatch.setattr(module, name, run)


def _data(shape, probability, dtype, seed=0, special=True):
    """Input, target, last-dim weight, pos_weight, full weight and an output gradient, with
    the values at the edges: probabilities exactly 0 and 1 (BCE clamps its logs at -100)
    and next to them; logits of +-100, huge, infinite, -0.0 and NaN."""
    gen = np.random.default_rng(seed)
    m = gen.uniform(size=shape)
    if probability:
        a = gen.uniform(0, 1, shape)
        if special:
            a[m < 0.08] = 0.0
            a[m > 0.92] = 1.0
            a[(m > 0.40) & (m < 0.44)] = 1e-30
            a[(m > 0.50) & (m < 0.54)] = 1 - 1e-7
    else:
        a = gen.standard_normal(shape) * 10 ** gen.uniform(-2, 2.2, shape)
        if special:
            a[m < 0.05] = 100.0
            a[m > 0.95] = -100.0
            a[(m > 0.50) & (m < 0.52)] = np.nan
            a[(m > 0.60) & (m < 0.62)] = np.inf
            a[(m > 0.70) & (m < 0.72)] = -np.inf
            a[(m > 0.80) & (m < 0.82)] = -0.0
    t = gen.uniform(0, 1, shape)
    t[gen.uniform(size=shape) < 0.4] = 0.0
    t[gen.uniform(size=shape) < 0.3] = 1.0
    w = gen.uniform(0, 3, shape[-1:])
    pw = gen.uniform(0, 3, shape[-1:])
    wf = gen.uniform(0, 3, shape)
    g = gen.standard_normal(shape)
    return [v.astype(dtype) for v in (a, t, w, pw, wf, g)]


def _bce_run(lib, kind, shape, dtype, reduction, special=True, grad_target=False):
    probability, call = KINDS[kind]
    a, t, w, pw, wf, g = _data(shape, probability, dtype, special=special)
    x = lib.tensor(a, requires_grad=True)
    target = lib.tensor(t, requires_grad=grad_target)
    out = call(
        lib.nn.functional, x, target, lib.tensor(w), lib.tensor(pw), lib.tensor(wf), reduction
    )
    node = out.grad_fn
    # (jtensor's with-logits node has no ``_saved_*`` attributes: its Function's tensors)
    saved = node.saved_tensors[:2] if lib is jtensor else (node._saved_self, node._saved_target)
    if reduction == "none":
        out.backward(lib.tensor(g))
    else:
        # (not 1: ``g / n`` and ``g * (1 / n)`` differ)
        out.backward(lib.tensor(np.array(0.37, dtype)))
    return {
        "out": bits(out),
        "meta": (out.requires_grad, out.is_leaf, out._base is None, out._version),
        "node": type(node).__name__,
        "saved": [bits(s) for s in saved],
        "grad": bits(x.grad),
        "target_grad": bits(target.grad),
    }


def _close(mine, theirs, tol):
    """Two ``bits`` records: the same shape, strides and dtype, values within ``tol``
    (NaN where NaN)."""
    assert mine[:3] == theirs[:3]
    dtype = np.dtype(mine[2].split(".")[1])
    a = np.frombuffer(mine[3], dtype=dtype).astype(np.float64)
    b = np.frombuffer(theirs[3], dtype=dtype).astype(np.float64)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ------------------------------------------------------------------ binary cross entropy
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", list(KINDS))
def test_bce_array_path_is_the_general_path_bit_for_bit(
    kind, shape, dtype, reduction, counts, monkeypatch
):
    fast = _bce_run(jtensor, kind, shape, dtype, reduction)
    probability = KINDS[kind][0]
    forward = "_bce_fast" if probability else "_bce_logits_loss_arrays"
    backward = "_bce_grad_arrays" if probability else "_bce_logits_grad_arrays"
    assert counts[forward] == 1 and counts[backward] == 1
    monkeypatch.setattr(loss_module, "FAST_PATHS", False)
    general = _bce_run(jtensor, kind, shape, dtype, reduction)
    assert counts[forward] == 1 and counts[backward] == 1
    assert fast == general
    assert fast["node"] == NODES[probability]
    assert fast["meta"] == (True, False, True, 0)


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", list(KINDS))
def test_bce_array_path_follows_torch(kind, shape, dtype, reduction, counts):
    # (ordinary values: the special ones differ from PyTorch's formulas on both paths)
    mine = _bce_run(jtensor, kind, shape, dtype, reduction, special=False)
    assert counts["_bce_grad_arrays"] + counts["_bce_logits_grad_arrays"] == 1
    theirs = _bce_run(torch, kind, shape, dtype, reduction, special=False)
    assert mine["node"] == theirs["node"]
    assert mine["meta"] == theirs["meta"]
    _close(mine["out"], theirs["out"], TOL[dtype])
    _close(mine["grad"], theirs["grad"], TOL[dtype])
    assert mine["saved"][0][:3] == theirs["saved"][0][:3]


@needs_torch
@pytest.mark.parametrize("probability", [True, False])
def test_bce_special_values_follow_torch_where_they_did(probability):
    """0 * log(0), logs clamped at -100, logits of +-100 and +-inf, NaN: elementwise
    losses as PyTorch's (reduction 'none')."""
    x = [0.0, 1.0, 0.0, 1.0, 1e-30, 1 - 1e-7] if probability else [100.0, -100.0, 0.0, -0.0]
    t = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0] if probability else [0.0, 1.0, 0.5, 1.0]
    if not probability:
        x += [np.inf, -np.inf, np.nan]
        t += [0.0, 1.0, 1.0]

    def run(lib):
        F = lib.nn.functional
        fn = F.binary_cross_entropy if probability else F.binary_cross_entropy_with_logits
        return fn(lib.tensor(x), lib.tensor(t), reduction="none").numpy()

    np.testing.assert_array_equal(run(jtensor), run(torch))


def _errors(lib, fn):
    try:
        fn(lib.nn.functional, lib)
    except Exception as error:  # noqa: BLE001 (the error is what is compared)
        return type(error), str(error)
    return None


BAD = {
    "input above 1": lambda F, L: F.binary_cross_entropy(L.tensor([0.5, 1.5]), L.ones(2)),
    "input below 0": lambda F, L: F.binary_cross_entropy(L.tensor([-1e-30, 0.5]), L.ones(2)),
    "input NaN": lambda F, L: F.binary_cross_entropy(L.tensor([0.5, float("nan")]), L.ones(2)),
    "target above 1": lambda F, L: F.binary_cross_entropy(L.tensor([0.5]), L.tensor([1.5])),
    "target NaN": lambda F, L: F.binary_cross_entropy(
        L.tensor([0.5, 0.2]), L.tensor([float("nan"), 0.0])
    ),
    "target first": lambda F, L: F.binary_cross_entropy(L.tensor([0.5, 2.0]), L.tensor([3.0, 0.5])),
    "input first": lambda F, L: F.binary_cross_entropy(L.tensor([2.0, 0.5]), L.tensor([0.5, 3.0])),
    "size": lambda F, L: F.binary_cross_entropy(L.rand(3), L.rand(3, 1)),
    "dtype": lambda F, L: F.binary_cross_entropy(L.rand(3), L.rand(3, dtype=L.float64)),
    "weight requires grad": lambda F, L: F.binary_cross_entropy(
        L.rand(3), L.rand(3), weight=L.rand(3, requires_grad=True)
    ),
    "logits size": lambda F, L: F.binary_cross_entropy_with_logits(L.rand(3), L.rand(3, 1)),
    "logits long target": lambda F, L: F.binary_cross_entropy_with_logits(
        L.rand(3), L.ones(3, dtype=L.long)
    ),
    "logits pos_weight requires grad": lambda F, L: F.binary_cross_entropy_with_logits(
        L.rand(3), L.rand(3), pos_weight=L.rand(3, requires_grad=True)
    ),
    "reduction": lambda F, L: F.binary_cross_entropy(L.rand(3), L.rand(3), reduction="avg"),
}


@needs_torch
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("name", list(BAD))
def test_bce_errors_are_pytorchs(name, fast, monkeypatch):
    monkeypatch.setattr(loss_module, "FAST_PATHS", fast)
    mine, theirs = _errors(jtensor, BAD[name]), _errors(torch, BAD[name])
    assert mine is not None and theirs is not None
    assert mine[0] is theirs[0]
    # PyTorch's words first (jtensor may add advice after them)
    assert mine[1].startswith(theirs[1].split("\n")[0][:40]), (mine, theirs)


@pytest.mark.parametrize("probability", [True, False])
def test_bce_warnings_as_errors_change_nothing(probability, counts):
    """log(0) and exp overflow warn inside NumPy: with warnings made errors the array calls
    are redone silenced, as the public ops redo theirs."""
    a, t, *_ = _data((32, 10), probability, "float32")
    x = jtensor.tensor(a, requires_grad=True)
    F = jtensor.nn.functional
    fn = F.binary_cross_entropy if probability else F.binary_cross_entropy_with_logits
    quiet = fn(x, jtensor.tensor(t))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loud = fn(x, jtensor.tensor(t))
        loud.backward()
    assert bits(quiet) == bits(loud)
    # (each call that warned ran again, silenced)
    assert counts["_bce_grad_arrays"] + counts["_bce_logits_grad_arrays"] >= 1


@pytest.mark.parametrize("probability", [True, False])
def test_bce_gradcheck_and_double_backward(probability, counts):
    gen = np.random.default_rng(3)
    if probability:
        x = jtensor.tensor(gen.uniform(0.1, 0.9, (4, 3)), requires_grad=True)
    else:
        x = jtensor.tensor(gen.standard_normal((4, 3)) * 3, requires_grad=True)
    t = jtensor.tensor(gen.uniform(0, 1, (4, 3)))
    w = jtensor.tensor(gen.uniform(0.5, 2, 3))
    F = jtensor.nn.functional
    for reduction in REDUCTIONS:
        if probability:

            def fn(x, reduction=reduction):
                return F.binary_cross_entropy(x, t, weight=w, reduction=reduction)

        else:

            def fn(x, reduction=reduction):
                return F.binary_cross_entropy_with_logits(
                    x, t, weight=w, pos_weight=w * 2, reduction=reduction
                )

        assert jtensor.autograd.gradcheck(fn, (x,))
        assert jtensor.autograd.gradgradcheck(fn, (x,))
    assert counts["_bce_grad_arrays"] + counts["_bce_logits_grad_arrays"] > 0


def _calls(counts):
    return {k: v for k, v in counts.items() if k.startswith("_bce")}


def _probabilities(lib, shape=(4, 6), **kwargs):
    gen = np.random.default_rng(5)
    return lib.tensor(gen.uniform(0.05, 0.95, shape), dtype=lib.float32, **kwargs)


DECLINED = {
    "transposed input": lambda L: (_probabilities(L, (6, 4), requires_grad=True), lambda x: x.t()),
    "legacy size_average": lambda L: (_probabilities(L, requires_grad=True), None),
}


@needs_torch
@pytest.mark.parametrize("name", ["transposed input", "legacy size_average"])
@pytest.mark.parametrize("probability", [True, False])
def test_bce_declined_calls_follow_torch(name, probability, counts):
    def run(lib):
        x, fn = DECLINED[name](lib)
        src = x if fn is None else fn(x)
        t = _probabilities(lib, tuple(src.shape)).round()
        F = lib.nn.functional
        loss = F.binary_cross_entropy if probability else F.binary_cross_entropy_with_logits
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "legacy size_average":
                out = loss(src, t, size_average=False, reduce=False)
            else:
                out = loss(src, t, reduction="none")
        out.backward(lib.ones_like(out))
        return out, x.grad

    mine = run(jtensor)
    # (the forward declines; the backward of a legacy call's node may take the arrays)
    assert counts["_bce_fast"] == counts["_bce_logits_loss_arrays"] == 0
    if name == "transposed input":
        assert _calls(counts) == dict.fromkeys(_calls(counts), 0)
    theirs = run(torch)
    for m, t in zip(mine, theirs, strict=True):
        _close(bits(m), bits(t), 1e-5)


@needs_torch
@pytest.mark.parametrize("probability", [True, False])
def test_bce_target_requiring_grad_declines(probability, counts):
    kind = "bce_weight" if probability else "logits_both"
    mine = _bce_run(jtensor, kind, (8, 3), "float64", "mean", special=False, grad_target=True)
    assert _calls(counts) == dict.fromkeys(_calls(counts), 0)
    theirs = _bce_run(torch, kind, (8, 3), "float64", "mean", special=False, grad_target=True)
    _close(mine["grad"], theirs["grad"], 1e-10)
    _close(mine["target_grad"], theirs["target_grad"], 1e-10)


def test_bce_anomaly_mode_and_create_graph_take_the_general_path(counts):
    x = _probabilities(jtensor, requires_grad=True)
    t = _probabilities(jtensor).round()
    F = jtensor.nn.functional
    with jtensor.autograd.detect_anomaly():
        F.binary_cross_entropy(x, t).backward()
        F.binary_cross_entropy_with_logits(x, t).backward()
    assert _calls(counts) == dict.fromkeys(_calls(counts), 0)
    (g,) = jtensor.autograd.grad(F.binary_cross_entropy(x, t), x, create_graph=True)
    assert counts["_bce_fast"] == 1 and counts["_bce_grad_arrays"] == 0
    assert g.requires_grad and g.grad_fn is not None


def test_bce_no_grad_forward_and_saved_tensor_checks(counts):
    x = _probabilities(jtensor, requires_grad=True)
    t = _probabilities(jtensor).round()
    F = jtensor.nn.functional
    with jtensor.no_grad():
        out = F.binary_cross_entropy(x, t)
    assert out.grad_fn is None and not out.requires_grad and counts["_bce_fast"] == 1
    loss = F.binary_cross_entropy_with_logits(x, t)
    with jtensor.no_grad():
        x.mul_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@needs_torch
def test_bce_modules_follow_torch(counts):
    def run(lib):
        x = _probabilities(lib, (16, 1), requires_grad=True)
        t = _probabilities(lib, (16, 1)).round()
        w = _probabilities(lib, (1,))
        losses = [
            lib.nn.BCELoss()(x, t),
            lib.nn.BCELoss(weight=w, reduction="sum")(x, t),
            lib.nn.BCEWithLogitsLoss(pos_weight=w)(x, t),
            lib.nn.BCEWithLogitsLoss(weight=w, reduction="none")(x, t).sum(),
        ]
        sum(losses).backward()
        return [bits(v) for v in losses] + [bits(x.grad)]

    mine = run(jtensor)
    assert counts["_bce_fast"] == 2 and counts["_bce_logits_loss_arrays"] == 2
    for m, t in zip(mine, run(torch), strict=True):
        _close(m, t, 1e-5)


# ---------------------------------------------------------------------- nearest upsampling
UPSAMPLE = [
    ((8, 16, 16, 16), {"scale_factor": 2}),
    ((1, 3, 32, 32), {"scale_factor": 2}),
    ((1, 3, 32, 32), {"scale_factor": 2, "mode": "nearest-exact"}),
    ((8, 16, 16, 16), {"size": (33, 33)}),
    ((2, 3, 5, 7), {"size": (11, 16), "mode": "nearest-exact"}),
    ((2, 3, 6, 8), {"size": (4, 5)}),
    ((2, 3, 5, 7), {"scale_factor": (3, 2)}),
    ((2, 3, 9, 9), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((2, 3, 7), {"scale_factor": 2.5}),
    ((2, 3, 7), {"size": 7}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2}),
    ((1, 2, 3, 4, 5), {"size": (7, 9, 4), "mode": "nearest-exact"}),
]


def _up_data(shape, out_shape, dtype, seed=0):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape).astype(dtype)
    a.reshape(-1)[::7] = np.nan
    a.reshape(-1)[::11] = -0.0
    g = (gen.standard_normal(out_shape) * 10 ** gen.uniform(-3, 3, out_shape)).astype(dtype)
    g.reshape(-1)[::13] = -0.0
    g.reshape(-1)[::29] = np.nan
    g.reshape(-1)[::31] = np.inf
    return a, g


def _out_shape(shape, kwargs):
    return tuple(torch.nn.functional.interpolate(torch.zeros(shape), **kwargs).shape)


def _up_run(lib, shape, kwargs, dtype, x_fn=None, g_fn=None, module=False):
    a, g = _up_data(shape, _out_shape(shape, kwargs), dtype)
    x = lib.tensor(a, requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    if module:
        y = lib.nn.Upsample(**kwargs)(src)
    else:
        y = lib.nn.functional.interpolate(src, **kwargs)
    seen = []
    x.register_hook(lambda grad: seen.append(grad.stride()))
    grad = lib.tensor(g)
    y.backward(grad if g_fn is None else g_fn(grad))
    return {
        "out": bits(y),
        "meta": (y.requires_grad, y._base is None, y._version, y.is_contiguous()),
        "node": type(y.grad_fn).__name__,
        "grad": bits(x.grad),
        "grad_meta": (seen, x.grad._version),
    }


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kwargs", UPSAMPLE, ids=str)
def test_nearest_is_torchs_bit_for_bit_on_both_paths(shape, kwargs, dtype, counts, monkeypatch):
    theirs = _up_run(torch, shape, kwargs, dtype)
    fast = _up_run(jtensor, shape, kwargs, dtype)
    assert counts["_nearest_forward_arrays"] == 1 and counts["_nearest_grad_arrays"] == 1
    assert fast == theirs
    monkeypatch.setattr(upsampling, "FAST_NEAREST", False)
    assert _up_run(jtensor, shape, kwargs, dtype) == theirs
    assert counts["_nearest_forward_arrays"] == 1 and counts["_nearest_grad_arrays"] == 1


def _channels_last(t):
    lib = torch if type(t).__module__.startswith("torch") else jtensor
    fmt = lib.channels_last if t.dim() == 4 else lib.channels_last_3d
    return t.contiguous(memory_format=fmt)


# name: (input shape, interpolate's arguments, input layout, gradient layout, array paths
# taken: a channels-last input declines the forward, a 4-d channels-last gradient the
# backward)
LAYOUTS = {
    "channels-last input": ((2, 3, 6, 8), {"scale_factor": 2}, _channels_last, None, 1),
    "channels-last gradient": ((2, 3, 6, 8), {"scale_factor": 2}, None, _channels_last, 1),
    "both channels-last": ((2, 3, 6, 8), {"scale_factor": 2}, _channels_last, _channels_last, 0),
    "channels-last-3d input": ((2, 3, 2, 3, 4), {"size": (3, 5, 8)}, _channels_last, None, 1),
    "both channels-last-3d": (
        (2, 3, 2, 3, 4),
        {"scale_factor": 2},
        _channels_last,
        _channels_last,
        1,  # (3-d: PyTorch's input gradient is contiguous whatever the gradient's layout)
    ),
    "sliced input": ((2, 3, 6, 8), {"size": (9, 8)}, lambda t: t[:, :, 1:, ::2], None, 2),
    "expanded gradient": (
        (2, 3, 6, 8),
        {"scale_factor": 2},
        None,
        lambda g: g[:1, :1, :1, :1].expand(g.shape),
        2,
    ),
}


@needs_torch
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_nearest_layouts_are_torchs(layout, counts):
    shape, kwargs, x_fn, g_fn, arrays = LAYOUTS[layout]
    mine = _up_run(jtensor, shape, kwargs, "float32", x_fn, g_fn)
    assert counts["_nearest_forward_arrays"] + counts["_nearest_grad_arrays"] == arrays
    assert mine == _up_run(torch, shape, kwargs, "float32", x_fn, g_fn)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nearest_reduced_floats_accumulate_in_float(dtype, counts):
    """PyTorch's kernel adds a float16/bfloat16 gradient's windows in float32 and rounds once
    (the general path: ``index_add`` in float32)."""

    def wide(t):  # (NumPy has no bfloat16: the values widened, exactly)
        return tuple(t.shape), t.stride(), str(t.dtype), bits(t.float())[3]

    def run(lib):
        gen = np.random.default_rng(2)
        x = lib.tensor(gen.standard_normal((2, 3, 5, 7)), dtype=getattr(lib, dtype))
        x.requires_grad_()
        y = lib.nn.functional.interpolate(x, size=(16, 11))
        g = lib.tensor(gen.standard_normal(tuple(y.shape)) * 10, dtype=getattr(lib, dtype))
        y.backward(g)
        return wide(y), wide(x.grad), type(y.grad_fn).__name__

    assert run(jtensor) == run(torch)
    assert counts["_nearest_forward_arrays"] == counts["_nearest_grad_arrays"] == 0


@needs_torch
def test_upsample_module_is_torchs(counts):
    for kwargs in ({"scale_factor": 2}, {"size": (20, 30)}, {"scale_factor": 2.0}):
        mine = _up_run(jtensor, (4, 3, 8, 12), kwargs, "float32", module=True)
        assert mine == _up_run(torch, (4, 3, 8, 12), kwargs, "float32", module=True)
    assert counts["_nearest_forward_arrays"] == counts["_nearest_grad_arrays"] == 3


@pytest.mark.parametrize(
    "shape,kwargs",
    [
        ((2, 2, 3, 4), {"scale_factor": 2}),
        ((2, 2, 5, 4), {"size": (7, 3), "mode": "nearest-exact"}),
        ((1, 2, 5), {"scale_factor": 2.5}),
        ((1, 1, 2, 3, 2), {"size": (3, 5, 4)}),
    ],
    ids=str,
)
def test_nearest_gradcheck_and_double_backward(shape, kwargs, counts):
    x = jtensor.tensor(np.random.default_rng(4).standard_normal(shape), requires_grad=True)

    def fn(x):
        return jtensor.nn.functional.interpolate(x, **kwargs)

    assert jtensor.autograd.gradcheck(fn, (x,))
    assert counts["_nearest_grad_arrays"] > 0
    assert jtensor.autograd.gradgradcheck(fn, (x,))


def test_nearest_listeners_and_create_graph_take_the_general_path(counts):
    x = jtensor.randn(2, 3, 4, 4, requires_grad=True)
    F = jtensor.nn.functional
    with jtensor.autograd.detect_anomaly():
        F.interpolate(x, scale_factor=2).sum().backward()
    assert counts["_nearest_forward_arrays"] == counts["_nearest_grad_arrays"] == 0
    y = F.interpolate(x, scale_factor=2)
    # d/dx sum(y^2) = 2 * 4 * x (each input has 4 outputs), and d/dx sum of that is 8
    (g,) = jtensor.autograd.grad(y.square().sum(), x, create_graph=True)
    assert counts["_nearest_forward_arrays"] == 1 and counts["_nearest_grad_arrays"] == 0
    assert g.requires_grad
    np.testing.assert_array_equal(g.detach().numpy(), (8 * x).detach().numpy())
    (gg,) = jtensor.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.numpy(), np.full((2, 3, 4, 4), 8.0, np.float32))


@needs_torch
def test_nearest_errors_are_torchs(counts):
    cases = [
        lambda F, L: F.interpolate(L.rand(1, 1, 4, 4), size=(0, 2)),
        lambda F, L: F.interpolate(L.rand(1, 1, 4, 4), scale_factor=2, align_corners=True),
        lambda F, L: F.interpolate(L.rand(1, 1, 4, 4), size=(2, 2, 2)),
        lambda F, L: F.interpolate(L.ones(1, 1, 4, 4, dtype=L.long), scale_factor=2),
    ]
    for case in cases:
        mine, theirs = _errors(jtensor, case), _errors(torch, case)
        assert mine is not None and theirs is not None
        assert mine[0] is theirs[0], (mine, theirs)
