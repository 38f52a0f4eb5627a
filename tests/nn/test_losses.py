"""Losses (``jtensor.nn.functional`` and the loss modules) against PyTorch: values, dtypes,
input and target gradients, ``grad_fn`` names, bad input; plus float64 gradchecks that run
without the oracle."""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.functional as JF
from jtensor.autograd import gradcheck, gradgradcheck

from tests.harness.training import assert_close, copy_weights

try:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF
except ImportError:
    torch = tnn = TF = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((6, 5)).astype(np.float32)
TARGET = np.array([1, 0, 4, 2, -100, 3])
CLASS_W = RNG.random(5).astype(np.float32)
PROBS = RNG.random((6, 5)).astype(np.float32)
PROBS_T = (PROBS / PROBS.sum(1, keepdims=True)).astype(np.float32)
KDIM = RNG.standard_normal((3, 5, 4, 2))
KDIM_T = RNG.integers(0, 5, (3, 4, 2))
KDIM_T[0, 0, 0] = -100
K3 = RNG.standard_normal((2, 5, 7))
K3_T = RNG.integers(0, 5, (2, 7))
P01 = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
T01 = RNG.random((4, 3)).astype(np.float32)
W3 = RNG.random(3).astype(np.float32)
REDUCTIONS = ("mean", "sum", "none")

# (name, fn(F, *tensors), arrays, indices of arrays that require grad)
CASES = [
    ("ce", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [LOGITS, TARGET], (0,)),
    ("ce_weight", lambda F, x, t, w, r: F.cross_entropy(x, t, weight=w, reduction=r),
     [LOGITS, TARGET, CLASS_W], (0,)),
    ("ce_ignore_index", lambda F, x, t, r: F.cross_entropy(x, t, ignore_index=2, reduction=r),
     [LOGITS, np.where(TARGET < 0, 0, TARGET)], (0,)),
    ("ce_smoothing", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r, label_smoothing=.2),
     [LOGITS, TARGET], (0,)),
    ("ce_smoothing_weight", lambda F, x, t, w, r: F.cross_entropy(
        x, t, weight=w, reduction=r, label_smoothing=.2), [LOGITS, TARGET, CLASS_W], (0,)),
    ("ce_probs", lambda F, x, p, r: F.cross_entropy(x, p, reduction=r), [LOGITS, PROBS_T],
     (0, 1)),
    ("ce_probs_weight_smoothing", lambda F, x, p, w, r: F.cross_entropy(
        x, p, weight=w, reduction=r, label_smoothing=.1), [LOGITS, PROBS_T, CLASS_W], (0, 1)),
    ("ce_kdim", lambda F, x, t, w, r: F.cross_entropy(x, t, weight=w, reduction=r),
     [KDIM, KDIM_T, CLASS_W.astype(np.float64)], (0,)),
    ("ce_3d", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r), [K3, K3_T], (0,)),
    ("ce_kdim_smoothing", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r,
                                                            label_smoothing=.3),
     [KDIM, KDIM_T], (0,)),
    ("ce_unbatched", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
     [LOGITS[0], np.array(3)], (0,)),
    ("ce_unbatched_probs", lambda F, x, p, r: F.cross_entropy(x, p, reduction=r),
     [LOGITS[0], PROBS_T[0]], (0,)),
    ("ce_uint8", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
     [LOGITS, np.array([1, 0, 4, 2, 0, 3], np.uint8)], (0,)),
    ("ce_huge_logits", lambda F, x, t, r: F.cross_entropy(x * 1e4, t, reduction=r),
     [LOGITS, TARGET], (0,)),
    ("ce_all_ignored", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
     [LOGITS, np.full(6, -100)], (0,)),
    ("ce_empty_batch", lambda F, x, t, r: F.cross_entropy(x, t, reduction=r),
     [LOGITS[:0], TARGET[:0]], (0,)),
    ("nll", lambda F, x, t, w, r: F.nll_loss(x, t, weight=w, reduction=r, ignore_index=2),
     [LOGITS, np.where(TARGET < 0, 1, TARGET), CLASS_W], (0,)),
    ("nll_kdim", lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [KDIM, KDIM_T], (0,)),
    ("nll_3d", lambda F, x, t, r: F.nll_loss(x, t, reduction=r), [K3, K3_T], (0,)),
    ("bce", lambda F, x, t, r: F.binary_cross_entropy(x, t, reduction=r), [P01, T01], (0, 1)),
    ("bce_weight", lambda F, x, t, w, r: F.binary_cross_entropy(x, t, weight=w, reduction=r),
     [P01, T01, W3], (0, 1)),
    ("bce_log_clamp", lambda F, x, t, r: F.binary_cross_entropy(x, t, reduction=r),
     [np.array([0., 1., .5], np.float32), np.array([1., 0., 1.], np.float32)], ()),
    ("bce_logits", lambda F, x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r),
     [LOGITS[:4, :3] * 30, T01], (0, 1)),
    ("bce_logits_pos_weight", lambda F, x, t, w, pw, r: F.binary_cross_entropy_with_logits(
        x, t, weight=w, pos_weight=pw, reduction=r),
     [LOGITS[:4, :3] * 30, T01, W3, W3[::-1].copy() * 3], (0, 1)),
    ("mse", lambda F, x, t, r: F.mse_loss(x, t, reduction=r), [LOGITS, PROBS], (0, 1)),
    ("mse_long_target", lambda F, x, t, r: F.mse_loss(x, t, reduction=r),
     [LOGITS, np.ones((6, 5), np.int64)], (0,)),
    ("mse_promotes", lambda F, x, t, r: F.mse_loss(x, t, reduction=r),
     [LOGITS, PROBS.astype(np.float64)], (0, 1)),
    ("mse_weight", lambda F, x, t, w, r: F.mse_loss(x, t, reduction=r, weight=w),
     [LOGITS, PROBS, PROBS_T], (0, 1)),
    ("l1", lambda F, x, t, r: F.l1_loss(x, t, reduction=r), [LOGITS, PROBS], (0, 1)),
    ("smooth_l1", lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=.5),
     [LOGITS, PROBS], (0, 1)),
    ("smooth_l1_beta0", lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.),
     [LOGITS, PROBS], (0, 1)),
    ("huber", lambda F, x, t, r: F.huber_loss(x, t, reduction=r, delta=.7), [LOGITS, PROBS],
     (0, 1)),
    ("kl_div", lambda F, x, t, r: F.kl_div(x, t, reduction=r), [LOGITS, PROBS_T], (0, 1)),
    ("kl_div_log_target", lambda F, x, t, r: F.kl_div(x, t, reduction=r, log_target=True),
     [LOGITS, np.log(PROBS_T)], (0, 1)),
]

# PyTorch divides by a C++ scalar (div.Scalar -> DivBackward1); from Python, jtensor's
# tensor / number records DivBackward0, as PyTorch's own Python division does.
NAME_EXCEPTIONS = {("DivBackward0", "DivBackward1")}


def _make(lib, arrays, grads):
    out = []
    for i, a in enumerate(arrays):
        t = lib.tensor(a)
        if i in grads:
            t.requires_grad_()
        out.append(t)
    return out


def _run(lib, F, fn, arrays, grads, reduction):
    inputs = _make(lib, arrays, grads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(F, *inputs, reduction)
    return inputs, out


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,fn,arrays,grads", CASES, ids=[c[0] for c in CASES])
def test_loss_matches_pytorch(name, fn, arrays, grads, reduction):
    j_in, j_out = _run(jtensor, JF, fn, arrays, grads, reduction)
    t_in, t_out = _run(torch, TF, fn, arrays, grads, reduction)
    assert_close(j_out, t_out, rtol=1e-5, atol=1e-5, what=f"{name} value")
    if not t_out.requires_grad:
        assert not j_out.requires_grad
        return
    names = (type(j_out.grad_fn).__name__, type(t_out.grad_fn).__name__)
    assert names[0] == names[1] or names in NAME_EXCEPTIONS, names
    g = np.random.default_rng(1).standard_normal(tuple(t_out.shape)).astype(
        t_out.detach().cpu().numpy().dtype)
    j_out.backward(jtensor.tensor(g))
    t_out.backward(torch.tensor(g))
    for i in grads:
        assert_close(j_in[i].grad, t_in[i].grad, rtol=1e-4, atol=1e-5, what=f"{name} grad {i}")


GRADCHECK = [c for c in CASES if c[3] and c[0] not in ("ce_huge_logits", "ce_empty_batch",
                                                         "ce_all_ignored", "mse_long_target")]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,fn,arrays,grads", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_loss_gradcheck_float64(name, fn, arrays, grads, reduction):
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
    inputs = _make(jtensor, arrays, grads)

    def f(*diff):
        args = list(inputs)
        for i, d in zip(grads, diff, strict=True):
            args[i] = d
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(JF, *args, reduction)

    diff = tuple(inputs[i] for i in grads)
    assert gradcheck(f, diff)
    if name.startswith(("ce", "nll", "bce_logits", "mse", "huber")):
        assert gradgradcheck(f, diff)


# ------------------------------------------------------------------------- modules
MODULES = [
    ("CrossEntropyLoss", {}, [LOGITS, TARGET]),
    ("CrossEntropyLoss", {"weight": CLASS_W, "label_smoothing": 0.1, "reduction": "sum"},
     [LOGITS, TARGET]),
    ("CrossEntropyLoss", {"ignore_index": 1, "reduction": "none"}, [LOGITS, np.abs(TARGET) % 5]),
    ("NLLLoss", {"weight": CLASS_W}, [LOGITS, TARGET]),
    ("BCELoss", {"weight": W3}, [P01, T01]),
    ("BCEWithLogitsLoss", {"pos_weight": W3 * 2, "weight": W3}, [LOGITS[:4, :3], T01]),
    ("MSELoss", {"reduction": "sum"}, [LOGITS, PROBS]),
    ("L1Loss", {}, [LOGITS, PROBS]),
    ("SmoothL1Loss", {"beta": 0.3}, [LOGITS, PROBS]),
    ("HuberLoss", {"delta": 0.4, "reduction": "none"}, [LOGITS, PROBS]),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [LOGITS, np.log(PROBS_T)]),
    ("MSELoss", {"size_average": False}, [LOGITS, PROBS]),
    ("L1Loss", {"reduce": False}, [LOGITS, PROBS]),
]


def _module(nn, lib, cls, kwargs):
    kwargs = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(nn, cls)(**kwargs)


@needs_torch
@pytest.mark.parametrize("cls,kwargs,arrays", MODULES,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_loss_module_matches_pytorch(cls, kwargs, arrays):
    jm, tm = _module(jnn, jtensor, cls, kwargs), _module(tnn, torch, cls, kwargs)
    copy_weights(jm, tm)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    assert jm.reduction == tm.reduction
    j_in, t_in = _make(jtensor, arrays, (0,)), _make(torch, arrays, (0,))
    j_out, t_out = jm(*j_in), tm(*t_in)
    assert_close(j_out, t_out, rtol=1e-5, atol=1e-5)
    j_out.sum().backward()
    t_out.sum().backward()
    assert_close(j_in[0].grad, t_in[0].grad, rtol=1e-4, atol=1e-5, what="input grad")


def test_loss_modules_without_oracle():
    loss = jnn.CrossEntropyLoss(weight=jtensor.ones(5), label_smoothing=0.1)
    assert repr(loss) == "CrossEntropyLoss()"
    assert list(loss.state_dict()) == ["weight"]
    assert (loss.ignore_index, loss.label_smoothing, loss.reduction) == (-100, 0.1, "mean")
    x = jtensor.tensor(LOGITS, requires_grad=True)
    out = loss(x, jtensor.tensor(TARGET))
    assert out.shape == () and out.requires_grad
    assert list(jnn.BCEWithLogitsLoss(pos_weight=jtensor.ones(3)).state_dict()) == ["pos_weight"]
    assert jnn.SmoothL1Loss(beta=2.0).beta == 2.0
    assert jnn.HuberLoss(delta=3.0).delta == 3.0
    assert jnn.KLDivLoss(log_target=True).log_target is True
    with pytest.warns(UserWarning):
        assert jnn.MSELoss(size_average=False).reduction == "sum"


# --------------------------------------------------------------------- jtensor-only
def test_cross_entropy_is_nll_of_log_softmax():
    x = jtensor.tensor(LOGITS.astype(np.float64))
    t = jtensor.tensor(TARGET)
    w = jtensor.tensor(CLASS_W.astype(np.float64))
    for red in REDUCTIONS:
        a = JF.cross_entropy(x, t, weight=w, reduction=red)
        b = JF.nll_loss(JF.log_softmax(x, 1), t, weight=w, reduction=red)
        np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-12)
    # The weighted mean divides by the summed weights of the targets that are not ignored.
    kept = TARGET != -100
    logp = LOGITS.astype(np.float64) - np.log(np.exp(LOGITS.astype(np.float64)).sum(
        1, keepdims=True))
    ws = CLASS_W.astype(np.float64)[TARGET[kept]]
    expected = -(logp[kept, TARGET[kept]] * ws).sum() / ws.sum()
    np.testing.assert_allclose(float(JF.cross_entropy(x, t, weight=w)), expected, rtol=1e-12)


def test_cross_entropy_names_and_graph():
    x = jtensor.tensor(LOGITS, requires_grad=True)
    t = jtensor.tensor(TARGET)
    assert type(JF.cross_entropy(x, t).grad_fn).__name__ == "NllLossBackward0"
    assert type(JF.cross_entropy(x, t, label_smoothing=.1).grad_fn).__name__ == "AddBackward0"
    assert type(JF.nll_loss(jtensor.tensor(KDIM, requires_grad=True),
                            jtensor.tensor(KDIM_T)).grad_fn).__name__ == "NllLoss2DBackward0"
    loss = JF.cross_entropy(x, t)
    loss.backward()
    with pytest.raises(RuntimeError):
        loss.backward()  # saved values were freed, as in PyTorch
    loss = JF.cross_entropy(x, t)
    loss.backward(retain_graph=True)
    loss.backward()
    with jtensor.no_grad():
        assert not JF.cross_entropy(x, t).requires_grad


def test_cross_entropy_fast_gradient_is_softmax_minus_onehot():
    x = jtensor.tensor(LOGITS.astype(np.float64), requires_grad=True)
    t = np.array([1, 0, 4, 2, 2, 3])
    JF.cross_entropy(x, jtensor.tensor(t)).backward()
    p = np.exp(LOGITS.astype(np.float64))
    p /= p.sum(1, keepdims=True)
    p[np.arange(6), t] -= 1
    np.testing.assert_allclose(x.grad.cpu().numpy(), p / 6, rtol=1e-12, atol=1e-15)


def test_stable_at_extreme_values():
    x = jtensor.tensor([[1e4, 0.0, -1e4], [-3e38, 3e38, 0.0]])
    t = jtensor.tensor([0, 1])
    loss = JF.cross_entropy(x, t)
    assert float(loss) == 0.0
    assert np.isfinite(JF.log_softmax(x, 1).cpu().numpy()[0]).all()
    z = jtensor.tensor([-200.0, 200.0], requires_grad=True)
    out = JF.binary_cross_entropy_with_logits(z, jtensor.tensor([1.0, 0.0]), reduction="none")
    np.testing.assert_allclose(out.detach().cpu().numpy(), [200.0, 200.0])
    out.sum().backward()
    np.testing.assert_allclose(z.grad.cpu().numpy(), [-1.0, 1.0])
    p = jtensor.tensor([0.0, 1.0])
    np.testing.assert_allclose(
        JF.binary_cross_entropy(p, jtensor.tensor([1.0, 0.0]), reduction="none").cpu().numpy(),
        [100.0, 100.0])


def test_mse_loss_warns_when_shapes_broadcast():
    with pytest.warns(UserWarning, match="different to the input size"):
        JF.mse_loss(jtensor.rand(3), jtensor.rand(3, 1))
    with pytest.warns(UserWarning, match="different to the input size"):
        JF.l1_loss(jtensor.rand(3), jtensor.rand(3, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        JF.mse_loss(jtensor.rand(3), jtensor.rand(3))


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        JF.kl_div(jtensor.rand(3), jtensor.rand(3))


# ----------------------------------------------------------------------- bad input
BAD = [
    ("float class targets", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1., 0, 4, 2])),
     RuntimeError),
    ("multi-target", lambda F, L: F.cross_entropy(L.randn(4, 5), L.rand(4, 3)), RuntimeError),
    ("class index too large", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 5, 2])),
     IndexError),
    ("negative class index", lambda F, L: F.cross_entropy(L.randn(4, 5),
                                                          L.tensor([1, 0, -1, 2])), IndexError),
    ("nll index too large", lambda F, L: F.nll_loss(L.randn(4, 5), L.tensor([1, 0, 5, 2])),
     IndexError),
    ("batch mismatch", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 2])),
     ValueError),
    ("int32 targets", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 4, 2],
                                                                         dtype=L.int32)),
     RuntimeError),
    ("long probability target", lambda F, L: F.cross_entropy(L.tensor(1.), L.tensor(0)),
     RuntimeError),
    ("kdim target shape", lambda F, L: F.cross_entropy(L.randn(2, 3, 4),
                                                       L.zeros(2, 5, dtype=L.long)),
     RuntimeError),
    ("label_smoothing range", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 4, 2]),
                                                           label_smoothing=1.5), RuntimeError),
    ("bad reduction", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 4, 2]),
                                                   reduction="foo"), ValueError),
    ("batchmean outside kl_div", lambda F, L: F.mse_loss(L.rand(3), L.rand(3),
                                                         reduction="batchmean"), ValueError),
    ("weight size", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor([1, 0, 4, 2]),
                                                 weight=L.ones(3)), RuntimeError),
    ("ignore_index with probabilities", lambda F, L: F.cross_entropy(
        L.randn(4, 5), L.rand(4, 5), ignore_index=1), RuntimeError),
    ("integer logits", lambda F, L: F.cross_entropy(L.ones(4, 5, dtype=L.long),
                                                    L.tensor([1, 0, 4, 2])), NotImplementedError),
    ("0-d target for a batch", lambda F, L: F.cross_entropy(L.randn(4, 5), L.tensor(1)),
     ValueError),
    ("1-d target for an unbatched input", lambda F, L: F.nll_loss(L.randn(5),
                                                                  L.tensor([1, 2])), ValueError),
    ("nll 0-d input", lambda F, L: F.nll_loss(L.tensor(1.), L.tensor(0)), ValueError),
    ("bce outside [0, 1]", lambda F, L: F.binary_cross_entropy(L.tensor([1.5]), L.tensor([1.])),
     RuntimeError),
    ("bce size", lambda F, L: F.binary_cross_entropy(L.rand(3), L.rand(3, 1)), ValueError),
    ("bce long target", lambda F, L: F.binary_cross_entropy(L.rand(3), L.ones(3, dtype=L.long)),
     RuntimeError),
    ("bce logits size", lambda F, L: F.binary_cross_entropy_with_logits(L.rand(3), L.rand(3, 1)),
     ValueError),
    ("bce logits long target", lambda F, L: F.binary_cross_entropy_with_logits(
        L.rand(3), L.ones(3, dtype=L.long)), RuntimeError),
    ("mse not broadcastable", lambda F, L: F.mse_loss(L.rand(3), L.rand(4)), RuntimeError),
    ("smooth_l1 negative beta", lambda F, L: F.smooth_l1_loss(L.rand(3), L.rand(3), beta=-1),
     RuntimeError),
    ("huber zero delta", lambda F, L: F.huber_loss(L.rand(3), L.rand(3), delta=0),
     RuntimeError),
    ("kl_div bad reduction", lambda F, L: F.kl_div(L.rand(3), L.rand(3), reduction="foo"),
     ValueError),
    ("mse of integers", lambda F, L: F.mse_loss(L.tensor([1, 2]), L.tensor([1, 0])),
     NotImplementedError),
    ("smooth_l1 of integers", lambda F, L: F.smooth_l1_loss(L.tensor([1, 2]), L.tensor([1, 0])),
     NotImplementedError),
    ("huber of integers", lambda F, L: F.huber_loss(L.tensor([1, 2]), L.tensor([1, 0])),
     NotImplementedError),
    ("l1 mean of integers", lambda F, L: F.l1_loss(L.tensor([1, 2]), L.tensor([1, 0])),
     RuntimeError),
    ("kl_div of integers", lambda F, L: F.kl_div(L.tensor([1, 2]), L.tensor([1, 0])),
     RuntimeError),
    ("bce of integers", lambda F, L: F.binary_cross_entropy(L.tensor([1, 0]), L.tensor([1, 0])),
     NotImplementedError),
    ("bce logits of integers", lambda F, L: F.binary_cross_entropy_with_logits(
        L.tensor([1, 0]), L.tensor([1, 0])), NotImplementedError),
    ("mse weight size", lambda F, L: F.mse_loss(L.rand(3), L.rand(3), weight=L.rand(2)),
     ValueError),
]


@pytest.mark.parametrize("name,fn,exc", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises(name, fn, exc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as ours:
            fn(JF, jtensor)
        if torch is not None:
            with pytest.raises(Exception) as theirs:
                fn(TF, torch)
            assert isinstance(ours.value, type(theirs.value)), (ours.value, theirs.value)
            # PyTorch's words first (jtensor may add advice after them).
            first = str(theirs.value).split("\n")[0][:40]
            assert str(ours.value).startswith(first), (str(ours.value), first)
    assert len(str(ours.value)) > 20


def test_out_of_range_message():
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        JF.cross_entropy(jtensor.randn(4, 5), jtensor.tensor([1, 0, 5, 2]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        JF.cross_entropy(jtensor.randn(4, 5), jtensor.tensor([1., 0, 4, 2]))


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cross_entropy_low_precision(dtype):
    x = np.random.default_rng(3).standard_normal((16, 7)).astype(np.float32)
    t = np.random.default_rng(3).integers(0, 7, 16)
    jx = jtensor.tensor(x).to(getattr(jtensor, dtype)).requires_grad_()
    tx = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    a = JF.cross_entropy(jx, jtensor.tensor(t))
    b = TF.cross_entropy(tx, torch.tensor(t))
    assert str(a.dtype) == str(b.dtype)
    a.backward()
    b.backward()
    assert str(jx.grad.dtype) == str(tx.grad.dtype)
    # Within a couple of units in the last place of the low-precision result.
    np.testing.assert_allclose(a.float().detach().cpu().numpy(), b.float().detach().cpu().numpy(),
                               rtol=2e-2)
    np.testing.assert_allclose(jx.grad.float().cpu().numpy(), tx.grad.float().numpy(), atol=1e-2)


def test_function_node_name_attribute():
    class Double(jtensor.autograd.Function):
        _node_name = "MyDoubleBackward0"

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Plain(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = jtensor.ones(2, requires_grad=True)
    assert type(Double.apply(x).grad_fn).__name__ == "MyDoubleBackward0"
    assert type(Plain.apply(x).grad_fn).__name__ == "PlainBackward"


def test_unbatched_input_with_a_one_element_target():
    # PyTorch accepts a (1,) target for a (C,) input in the forward (its backward then fails
    # with "size mismatch"; ours works).
    x = jtensor.tensor(LOGITS[0], requires_grad=True)
    out = JF.cross_entropy(x, jtensor.tensor([3]))
    assert out.shape == ()
    np.testing.assert_allclose(float(out), float(JF.cross_entropy(x, jtensor.tensor(3))))
    out.backward()
    assert x.grad.shape == (5,)
    if torch is not None:
        np.testing.assert_allclose(
            float(out), float(TF.cross_entropy(torch.tensor(LOGITS[0]), torch.tensor([3]))),
            rtol=1e-6)
