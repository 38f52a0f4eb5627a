"""Core layers: ``Linear``, ``Bilinear``, ``Dropout*``, ``Flatten``/``Unflatten``,
``LayerNorm``, ``BatchNorm1d/2d``, ``Embedding`` and their functional forms. Conformance
against PyTorch (same weights, same data: outputs and gradients) where it is installed;
gradchecks and jtensor-only behaviour always."""

import math
import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.functional as JF
from jtensor.autograd import gradcheck, gradgradcheck

from tests.harness.training import (
    assert_close,
    assert_same_training,
    copy_weights,
    to_jt,
)

try:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF
except ImportError:
    torch = tnn = TF = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _builtin(exc):
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")


def _outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001 - the builtin type is what is compared
        return _builtin(e)


def _d(*shape, seed=0):
    return jtensor.tensor(_rand(*shape, seed=seed, dtype=np.float64), requires_grad=True)


# ---------------------------------------------------------------------------------- repr
def _reprs(nn):
    return [repr(m) for m in (
        nn.Linear(2, 3), nn.Linear(2, 3, bias=False), nn.Bilinear(2, 3, 4),
        nn.Bilinear(2, 3, 4, bias=False), nn.Dropout(), nn.Dropout(0.3, inplace=True),
        nn.Dropout1d(0.1), nn.Dropout2d(0.2), nn.Flatten(), nn.Flatten(0, 2),
        nn.Unflatten(1, (2, 5)), nn.Unflatten(-1, [3, 4]), nn.LayerNorm(10),
        nn.LayerNorm([3, 4], eps=1e-3, bias=False), nn.LayerNorm(5, elementwise_affine=False),
        nn.BatchNorm1d(3), nn.BatchNorm2d(4, momentum=None, affine=False),
        nn.BatchNorm2d(4, track_running_stats=False, bias=False), nn.Embedding(10, 3),
        nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0,
                     scale_grad_by_freq=True, sparse=True),
        nn.Sequential(nn.Flatten(), nn.Linear(4, 2), nn.Dropout(0.1)))]


@needs_torch
def test_reprs_match_pytorch():
    assert _reprs(jnn) == _reprs(tnn)


def _structure(nn):
    out = {}
    for name, m in {"lin": nn.Linear(3, 2), "lin_nb": nn.Linear(3, 2, bias=False),
                    "bil": nn.Bilinear(2, 3, 4), "ln": nn.LayerNorm((2, 3)),
                    "ln_na": nn.LayerNorm(3, elementwise_affine=False),
                    "bn": nn.BatchNorm1d(3), "bn_nt": nn.BatchNorm2d(3,
                                                                     track_running_stats=False),
                    "emb": nn.Embedding(4, 2, padding_idx=1)}.items():
        out[name] = {
            "params": [(n, tuple(p.shape), str(p.dtype), p.requires_grad)
                       for n, p in m.named_parameters()],
            "buffers": [(n, tuple(b.shape), str(b.dtype)) for n, b in m.named_buffers()],
            "state": list(m.state_dict()),
        }
    bn = nn.BatchNorm1d(3)
    out["bn_buffers"] = [bn.running_mean.tolist(), bn.running_var.tolist(),
                         bn.num_batches_tracked.item()]
    out["ln_values"] = [nn.LayerNorm(3).weight.tolist(), nn.LayerNorm(3).bias.tolist()]
    emb = nn.Embedding(4, 2, padding_idx=1)
    out["pad_row"] = emb.weight[1].tolist()
    pre = nn.Embedding.from_pretrained(nn.Embedding(4, 2).weight.detach() * 0 + 1)
    out["pretrained"] = [pre.weight.requires_grad, pre.weight.tolist()]
    out["pretrained_unfrozen"] = nn.Embedding.from_pretrained(
        nn.Embedding(4, 2).weight.detach(), freeze=False).weight.requires_grad
    lib = __import__(nn.__name__.split(".")[0])
    out["float64"] = str(nn.Linear(2, 2, dtype=lib.float64).weight.dtype)
    return out


@needs_torch
def test_parameters_buffers_and_initial_values_match_pytorch():
    assert _structure(jnn) == _structure(tnn)


# ---------------------------------------------------------------------------------- Linear
@needs_torch
@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3), (0, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_pytorch(shape, bias):
    tm = tnn.Linear(3, 4, bias=bias)
    jm = jnn.Linear(3, 4, bias=bias)
    x = torch.tensor(_rand(*shape)).requires_grad_()
    assert_same_training(jm, tm, x)


@needs_torch
def test_linear_grad_fn_names_match_pytorch():
    def names(lib, F):
        w = lib.ones(4, 3, requires_grad=True)
        b = lib.ones(4, requires_grad=True)
        out = []
        for shape in [(2, 3), (3,), (5, 2, 3)]:
            x = lib.ones(*shape, requires_grad=True)
            out.append(type(F.linear(x, w, b).grad_fn).__name__)
            out.append(type(F.linear(x, w).grad_fn).__name__)
        x = lib.ones(5, 3, 2, requires_grad=True).transpose(1, 2)
        out.append(type(F.linear(x, w, b).grad_fn).__name__)
        return out

    assert names(jtensor, JF) == names(torch, TF)


@needs_torch
def test_linear_noncontiguous_input_and_double_matches_pytorch():
    tm = tnn.Linear(3, 4).double()
    jm = jnn.Linear(3, 4).double()
    x = torch.tensor(_rand(2, 3, 5, dtype=np.float64)).transpose(1, 2)
    jx = to_jt(x).requires_grad_()
    copy_weights(jm, tm)
    x.requires_grad_()
    assert_close(jm(jx.transpose(1, 2).transpose(1, 2)), tm(x))


def test_linear_gradcheck():
    x, w, b = _d(4, 3), _d(5, 3, seed=1), _d(5, seed=2)
    assert gradcheck(JF.linear, (x, w, b))
    assert gradcheck(JF.linear, (_d(2, 4, 3), w, b))
    assert gradcheck(JF.linear, (_d(3), w))
    assert gradgradcheck(JF.linear, (x, w, b))


@needs_torch
def test_linear_bad_inputs_match_pytorch():
    def errors(lib, F, nn):
        return [
            _outcome(lambda: F.linear(lib.ones(2, 3), lib.ones(4, 5))),
            _outcome(lambda: F.linear(lib.ones(2, 3), lib.ones(4, 3), lib.ones(5))),
            _outcome(lambda: nn.Linear(3, 4)(lib.ones(2, 4))),
            _outcome(lambda: nn.Linear(3, 4)(lib.ones(2, 3, dtype=lib.float64))),
            _outcome(lambda: F.bilinear(lib.ones(2, 3), lib.ones(3, 4), lib.ones(5, 3, 4))),
            _outcome(lambda: F.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 2, 4))),
            _outcome(lambda: F.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 3))),
            _outcome(lambda: F.bilinear(lib.ones(2, 3), lib.ones(2, 2, 4), lib.ones(5, 3, 4))),
        ]

    assert errors(jtensor, JF, jnn) == errors(torch, TF, tnn)


def test_linear_init_bounds():
    jtensor.manual_seed(0)
    m = jnn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in) too
    w, b = m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert abs(w.mean()) < 0.01 * bound
    assert m.weight.is_leaf and m.weight.requires_grad and m.weight.grad_fn is None


def test_linear_training_step_reduces_loss():
    jtensor.manual_seed(0)
    m = jnn.Sequential(jnn.Linear(4, 8), jnn.Linear(8, 1))
    x = jtensor.randn(32, 4)
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(20):
        loss = ((m(x) - y) ** 2).mean()
        losses.append(loss.item())
        m.zero_grad()
        loss.backward()
        with jtensor.no_grad():
            for p in m.parameters():
                p -= 0.05 * p.grad
    assert losses[-1] < 0.5 * losses[0]


# ---------------------------------------------------------------------------------- Bilinear
@needs_torch
@pytest.mark.parametrize("lead", [(5,), (2, 3), ()])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_pytorch(lead, bias):
    tm = tnn.Bilinear(3, 4, 2, bias=bias)
    jm = jnn.Bilinear(3, 4, 2, bias=bias)
    x1 = torch.tensor(_rand(*lead, 3)).requires_grad_()
    x2 = torch.tensor(_rand(*lead, 4, seed=1)).requires_grad_()
    assert_same_training(jm, tm, x1, x2)


def test_bilinear_gradcheck():
    assert gradcheck(JF.bilinear, (_d(4, 3), _d(4, 2, seed=1), _d(5, 3, 2, seed=2),
                                   _d(5, seed=3)))
    assert gradcheck(JF.bilinear, (_d(2, 2, 3), _d(2, 2, 2, seed=1), _d(5, 3, 2, seed=2)))


# ---------------------------------------------------------------------------------- Dropout
@needs_torch
def test_dropout_identity_cases_and_errors_match_pytorch():
    def observe(lib, F, nn):
        x = lib.ones(4, 5, requires_grad=True)
        out = {
            "eval_is_input": F.dropout(x, 0.5, training=False) is x,
            "p0_is_input": F.dropout(x, 0.0) is x,
            "p1": F.dropout(x, 1.0).abs().sum().item(),
            "p1_grad_fn": type(F.dropout(x, 1.0).grad_fn).__name__,
            "grad_fn": type(F.dropout(x, 0.3).grad_fn).__name__,
            "module_eval": nn.Dropout(0.5).eval()(x) is x,
            "empty": tuple(F.dropout(lib.ones(0, 3), 0.5).shape),
            "d2_eval_is_input": F.dropout2d(x, 0.5, training=False) is x,
        }
        for p in (-0.1, 1.5):
            out[f"F{p}"] = _outcome(lambda p=p: F.dropout(x, p))
            out[f"M{p}"] = _outcome(lambda p=p: nn.Dropout(p))
            out[f"M2{p}"] = _outcome(lambda p=p: nn.Dropout2d(p))
            out[f"F2{p}"] = _outcome(lambda p=p: F.dropout2d(lib.ones(2, 3, 4, 4), p))
        out["int"] = _outcome(lambda: F.dropout(lib.ones(3, dtype=lib.int64), 0.5))
        out["d1_4d"] = _outcome(lambda: F.dropout1d(lib.ones(2, 3, 4, 5), 0.5))
        return out

    assert observe(jtensor, JF, jnn) == observe(torch, TF, tnn)


def test_dropout_statistics_and_structure():
    jtensor.manual_seed(0)
    x = jtensor.ones(200, 500, requires_grad=True)
    for p in (0.2, 0.5, 0.9):
        y = JF.dropout(x, p)
        arr = y.detach().cpu().numpy()
        kept = arr != 0
        assert np.allclose(arr[kept], 1 / (1 - p))  # exact scaling of survivors
        assert abs(kept.mean() - (1 - p)) < 0.01
        y.sum().backward()
        assert np.array_equal(x.grad.cpu().numpy(), arr)  # the gradient is the mask
        x.grad = None
    m = jnn.Dropout(0.5)
    assert m.training
    y1, y2 = m(x).detach().cpu().numpy(), m(x).detach().cpu().numpy()
    assert not np.array_equal(y1, y2)  # fresh masks
    m.eval()
    assert m(x) is x


def test_dropout_inplace_and_seed_reproducible():
    jtensor.manual_seed(3)
    a = JF.dropout(jtensor.ones(100), 0.5)
    jtensor.manual_seed(3)
    b = JF.dropout(jtensor.ones(100), 0.5)
    assert a.tolist() == b.tolist()
    x = jtensor.ones(1000)
    y = JF.dropout(x, 0.25, inplace=True)
    assert y is x and set(np.unique(x.cpu().numpy()).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    z = jnn.Dropout(0.25, inplace=True)(jtensor.ones(10))
    assert z.shape == (10,)


def test_dropout2d_zeroes_whole_channels():
    jtensor.manual_seed(0)
    x = jtensor.ones(20, 30, 4, 5, requires_grad=True)
    y = JF.dropout2d(x, 0.4).detach().cpu().numpy()
    per_channel = y.reshape(20, 30, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 1 / 0.6).all(-1))
    assert abs((per_channel[..., 0] == 0).mean() - 0.4) < 0.06
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y3 = JF.dropout2d(jtensor.ones(2, 3, 50), 0.5).cpu().numpy()
    assert any("3D input to dropout2d" in str(m.message) for m in w)
    assert np.all((y3 == 0).all(-1) | (y3 == 2).all(-1))
    y1 = JF.dropout1d(jtensor.ones(3, 40), 0.5).cpu().numpy()
    assert y1.shape == (3, 40) and np.all((y1 == 0).all(-1) | (y1 == 2).all(-1))
    assert jnn.Dropout2d(0.3).eval()(x) is x


# ---------------------------------------------------------------------------------- Flatten
@needs_torch
def test_flatten_unflatten_match_pytorch():
    x = torch.tensor(_rand(2, 3, 4, 5)).requires_grad_()
    for args in [(), (0, -1), (1, 2), (2,)]:
        assert_same_training(jnn.Flatten(*args), tnn.Flatten(*args), x)
    y = torch.tensor(_rand(3, 10)).requires_grad_()
    assert_same_training(jnn.Unflatten(1, (2, 5)), tnn.Unflatten(1, (2, 5)), y)
    assert_same_training(jnn.Unflatten(-1, [5, -1]), tnn.Unflatten(-1, [5, -1]), y)

    def errors(nn):
        return [_outcome(lambda: nn.Unflatten(1, 6)), _outcome(lambda: nn.Unflatten(1, (2.0, 3))),
                _outcome(lambda: nn.Unflatten(1, (4, 4))(y.detach() if nn is tnn
                                                          else to_jt(y.detach())))]

    assert errors(jnn) == errors(tnn)


# ---------------------------------------------------------------------------------- LayerNorm
@needs_torch
@pytest.mark.parametrize("shape,norm", [((4, 6), 6), ((2, 3, 4), (3, 4)), ((5,), 5),
                                        ((2, 3, 4), [4])])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, True)])
def test_layer_norm_matches_pytorch(shape, norm, affine, bias):
    tm = tnn.LayerNorm(norm, elementwise_affine=affine, bias=bias)
    jm = jnn.LayerNorm(norm, elementwise_affine=affine, bias=bias)
    if affine:  # non-trivial affine parameters
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(_rand(*tm.weight.shape, seed=5)))
            if tm.bias is not None:
                tm.bias.copy_(torch.tensor(_rand(*tm.bias.shape, seed=6)))
    x = torch.tensor(_rand(*shape) * 3 + 1).requires_grad_()
    assert_same_training(jm, tm, x, rtol=1e-4, atol=1e-5)


def test_layer_norm_gradcheck():
    x, w, b = _d(3, 4), _d(4, seed=1), _d(4, seed=2)
    assert gradcheck(lambda x, w, b: JF.layer_norm(x, (4,), w, b), (x, w, b))
    assert gradcheck(lambda x: JF.layer_norm(x, (3, 4)), (_d(2, 3, 4),))
    assert gradgradcheck(lambda x, w: JF.layer_norm(x, (4,), w), (x, w))


@needs_torch
def test_layer_norm_bad_inputs_match_pytorch():
    def errors(lib, F):
        x = lib.ones(2, 3)
        return [_outcome(lambda: F.layer_norm(x, (4,))),
                _outcome(lambda: F.layer_norm(x, (2, 3, 1))),
                _outcome(lambda: F.layer_norm(x, (3,), lib.ones(4))),
                _outcome(lambda: F.layer_norm(x, (3,), None, lib.ones(2)))]

    assert errors(jtensor, JF) == errors(torch, TF)


# ---------------------------------------------------------------------------------- BatchNorm
def _bn_pair(cls_name, *args, **kwargs):
    tm = getattr(tnn, cls_name)(*args, **kwargs)
    jm = getattr(jnn, cls_name)(*args, **kwargs)
    if tm.weight is not None:
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(_rand(*tm.weight.shape, seed=7)))
            if tm.bias is not None:
                tm.bias.copy_(torch.tensor(_rand(*tm.bias.shape, seed=8)))
    copy_weights(jm, tm)
    return jm, tm


@needs_torch
@pytest.mark.parametrize("cls_name,shape", [("BatchNorm1d", (8, 3)), ("BatchNorm1d", (4, 3, 5)),
                                            ("BatchNorm2d", (4, 3, 2, 5))])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"momentum": 0.3, "affine": False},
                                    {"track_running_stats": False}, {"bias": False}])
def test_batch_norm_training_and_eval_match_pytorch(cls_name, shape, kwargs):
    jm, tm = _bn_pair(cls_name, shape[1], **kwargs)
    for step in range(4):  # several steps: running statistics and num_batches_tracked
        x = torch.tensor(_rand(*shape, seed=step) * (step + 1) + step).requires_grad_()
        jx = to_jt(x)
        jy, ty = jm(jx), tm(x)
        assert_close(jy, ty, rtol=1e-4, atol=1e-5, what=f"step {step} output")
        g = _rand(*shape, seed=10 + step)
        jy.backward(jtensor.tensor(g))
        ty.backward(torch.tensor(g))
        assert_close(jx.grad, x.grad, rtol=1e-4, atol=1e-4, what=f"step {step} input grad")
        for (name, p), (_, q) in zip(jm.named_parameters(), tm.named_parameters(), strict=True):
            assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, what=f"step {step} {name}.grad")
        for (name, b), (_, c) in zip(jm.named_buffers(), tm.named_buffers(), strict=True):
            assert_close(b, c, rtol=1e-5, atol=1e-6, what=f"step {step} {name}")
    jm.eval()
    tm.eval()
    x = torch.tensor(_rand(*shape, seed=99)).requires_grad_()
    assert_same_training(jm, tm, x, rtol=1e-4, atol=1e-5)
    if tm.running_mean is not None:  # eval mode leaves the statistics alone
        assert_close(jm.running_mean, tm.running_mean)
        assert jm.num_batches_tracked.item() == tm.num_batches_tracked.item() == 4


def test_batch_norm_gradcheck_through_batch_statistics():
    x, w, b = _d(5, 3), _d(3, seed=1), _d(3, seed=2)
    fn = lambda x, w, b: JF.batch_norm(x, None, None, w, b, training=True)
    assert gradcheck(fn, (x, w, b))
    assert gradcheck(lambda x: JF.batch_norm(x, None, None, training=True), (_d(3, 2, 2, 2),))
    assert gradgradcheck(fn, (x, w, b))
    rm, rv = jtensor.zeros(3, dtype=jtensor.float64), jtensor.ones(3, dtype=jtensor.float64) * 2
    assert gradcheck(lambda x, w, b: JF.batch_norm(x, rm, rv, w, b, training=False), (x, w, b))


def test_batch_norm_running_update_formula():
    x = jtensor.tensor(_rand(6, 2, 3))
    rm, rv = jtensor.zeros(2), jtensor.ones(2)
    JF.batch_norm(x, rm, rv, training=True, momentum=0.25)
    arr = x.cpu().numpy().transpose(1, 0, 2).reshape(2, -1)
    np.testing.assert_allclose(rm.cpu().numpy(), 0.25 * arr.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.cpu().numpy(), 0.75 + 0.25 * arr.var(1, ddof=1), rtol=1e-5)
    m = jnn.BatchNorm1d(2, momentum=None)
    xs = [jtensor.tensor(_rand(5, 2, seed=s) + s) for s in range(3)]
    for x in xs:
        m(x)
    stacked = np.stack([x.cpu().numpy().mean(0) for x in xs])
    np.testing.assert_allclose(m.running_mean.cpu().numpy(), stacked.mean(0), rtol=1e-5, atol=1e-6)
    assert m.num_batches_tracked.item() == 3 and str(m.num_batches_tracked.dtype) == \
        "torch.int64"
    assert m.running_mean.grad_fn is None and not m.running_mean.requires_grad


@needs_torch
def test_batch_norm_bad_inputs_match_pytorch():
    def errors(lib, F, nn):
        return [
            _outcome(lambda: nn.BatchNorm1d(3)(lib.ones(3))),
            _outcome(lambda: nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5))),
            _outcome(lambda: nn.BatchNorm2d(3)(lib.ones(2, 3, 4))),
            _outcome(lambda: nn.BatchNorm1d(3)(lib.ones(1, 3))),
            _outcome(lambda: nn.BatchNorm1d(3).eval()(lib.ones(1, 3))),
            _outcome(lambda: nn.BatchNorm1d(4)(lib.ones(2, 3))),
            _outcome(lambda: F.batch_norm(lib.ones(2, 3), None, None, training=False)),
            _outcome(lambda: F.batch_norm(lib.ones(2, 3), lib.zeros(4), lib.ones(4),
                                          training=True)),
        ]

    assert errors(jtensor, JF, jnn) == errors(torch, TF, tnn)


# ---------------------------------------------------------------------------------- normalize
@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0}, {"dim": 0}, {"p": 3.0, "dim": -1},
                                    {"eps": 10.0}])
def test_normalize_matches_pytorch(kwargs):
    x = torch.tensor(_rand(4, 5)).requires_grad_()
    jx = to_jt(x)
    jy, ty = JF.normalize(jx, **kwargs), TF.normalize(x, **kwargs)
    assert_close(jy, ty)
    g = _rand(4, 5, seed=3)
    jy.backward(jtensor.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(jx.grad, x.grad, rtol=1e-4, atol=1e-5)


def test_normalize_gradcheck_and_zero_rows():
    assert gradcheck(JF.normalize, (_d(3, 4),))
    y = JF.normalize(jtensor.zeros(2, 3))
    assert y.tolist() == [[0.0] * 3] * 2


# ---------------------------------------------------------------------------------- Embedding
@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"scale_grad_by_freq": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_matches_pytorch(kwargs):
    tm = tnn.Embedding(6, 3, **kwargs)
    jm = jnn.Embedding(6, 3, **kwargs)
    idx = torch.tensor([[0, 2, 2, 5], [1, 0, 2, 4]])
    assert_same_training(jm, tm, idx)
    assert type(jm(to_jt(idx)).grad_fn).__name__ == type(tm(idx).grad_fn).__name__


@needs_torch
def test_embedding_max_norm_renormalises_like_pytorch():
    tm = tnn.Embedding(5, 4, max_norm=1.5, norm_type=1.0)
    jm = copy_weights(jnn.Embedding(5, 4, max_norm=1.5, norm_type=1.0), tm)
    idx = torch.tensor([0, 3, 3])
    assert_same_training(jm, tm, idx, rtol=1e-5, atol=1e-6)
    assert_close(jm.weight, tm.weight)  # rows 0 and 3 rescaled in place, the rest untouched


@needs_torch
def test_embedding_from_pretrained_and_errors_match_pytorch():
    def observe(lib, F, nn):
        w = lib.arange(12.0).view(4, 3)
        e = nn.Embedding.from_pretrained(w, padding_idx=1)
        out = [e(lib.tensor([1, 3])).tolist(), e.weight.requires_grad, e.padding_idx,
               repr(e), e.weight.data_ptr() == w.data_ptr()]
        out += [_outcome(lambda: nn.Embedding.from_pretrained(lib.ones(3))),
                _outcome(lambda: nn.Embedding(4, 3, padding_idx=4)),
                _outcome(lambda: nn.Embedding(4, 3, padding_idx=-5)),
                _outcome(lambda: F.embedding(lib.tensor([1.0]), w)),
                _outcome(lambda: F.embedding(lib.tensor([4]), w)),
                _outcome(lambda: F.embedding(lib.tensor([-1]), w)),
                _outcome(lambda: nn.Embedding(4, 3, _weight=lib.ones(3, 3)))]
        out.append(F.embedding(lib.tensor([[0, 1]], dtype=lib.int32), w).shape == (1, 2, 3))
        return out

    assert observe(jtensor, JF, jnn) == observe(torch, TF, tnn)


def test_embedding_padding_gradient_and_gradcheck():
    w = _d(5, 3)
    idx = jtensor.tensor([[1, 0, 4], [0, 0, 2]])
    out = JF.embedding(idx, w, padding_idx=0)
    out.sum().backward()
    g = w.grad.cpu().numpy()
    assert np.all(g[0] == 0) and np.all(g[1] == 1) and np.all(g[3] == 0) and np.all(g[2] == 1)
    # (padding_idx and scale_grad_by_freq deliberately depart from the true gradient)
    assert gradcheck(lambda w: JF.embedding(idx, w),
                     (_d(5, 3),))
    assert gradgradcheck(lambda w: JF.embedding(idx, w) ** 2, (_d(5, 3),))
    m = jnn.Embedding(10, 4, padding_idx=3)
    assert m.weight[3].tolist() == [0.0] * 4


@needs_torch
@pytest.mark.parametrize("weight_grad", [False, True])
@pytest.mark.parametrize("idx", [[[3, 1, 2]], [3, 1], 2])
def test_embedding_result_is_a_fresh_tensor_written_in_place_as_torch(weight_grad, idx):
    # GPT code writes into the lookup (``x = tok_emb(idx); x += pos_emb(pos)``): the result
    # must be a tensor of its own, not a view made in the lookup's no-grad forward.
    def run(lib):
        w = lib.nn.Parameter(lib.arange(40.0).reshape(10, 4), requires_grad=weight_grad)
        r = lib.nn.functional.embedding(lib.tensor(idx), w)
        meta = (r._base is None, tuple(r.shape), r.stride(), r.storage_offset())
        r += lib.ones(4, requires_grad=True)
        r.sum().backward()
        return meta, type(r.grad_fn).__name__, r.tolist(), w.grad is not None

    assert run(jtensor) == run(torch)


def test_embedding_init_is_standard_normal():
    jtensor.manual_seed(0)
    w = jnn.Embedding(1000, 100).weight.detach().cpu().numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


# ---------------------------------------------------------------------------------- dtypes
@needs_torch
def test_norm_dtype_rules_match_pytorch():
    def observe(lib, F, nn):
        x = lib.tensor(_rand(6, 4))
        out = []
        for dt in (lib.bfloat16, lib.float16, lib.float64):
            xd = x.to(dt)
            out.append(_outcome(lambda xd=xd: F.layer_norm(xd, (4,), lib.ones(4),
                                                           lib.zeros(4)).dtype))
            out.append(_outcome(lambda xd=xd: F.batch_norm(xd, lib.zeros(4), lib.ones(4),
                                                           lib.ones(4), lib.zeros(4),
                                                           training=True).dtype))
            out.append(str(F.layer_norm(xd, (4,)).dtype))
            out.append(str(nn.LayerNorm(4).to(dt)(xd).dtype))
            out.append(str(nn.BatchNorm1d(4).to(dt)(xd).dtype))
        out.append(str(F.layer_norm(x.bfloat16(), (4,), lib.ones(4), lib.zeros(4)).dtype))
        out.append(str(F.batch_norm(x.half(), lib.zeros(4), lib.ones(4), training=False).dtype))
        return out

    assert observe(jtensor, JF, jnn) == observe(torch, TF, tnn)


@needs_torch
def test_low_precision_norm_values_match_pytorch():
    x = torch.tensor(_rand(6, 4) * 5 + 2).bfloat16()
    jx = to_jt(x.float()).bfloat16()  # (NumPy has no bfloat16)
    ours = JF.layer_norm(jx, (4,), jtensor.ones(4), jtensor.zeros(4))
    theirs = TF.layer_norm(x, (4,), torch.ones(4), torch.zeros(4))
    assert str(ours.dtype) == str(theirs.dtype) == "torch.bfloat16"
    assert_close(ours.float(), theirs.float(), rtol=1e-2, atol=1e-2)
    jm, tm = jnn.BatchNorm1d(4), tnn.BatchNorm1d(4)
    assert_close(jm(jx).float(), tm(x).float(), rtol=1e-2, atol=1e-2)
    assert_close(jm.running_var, tm.running_var, rtol=1e-3, atol=1e-3)


# ------------------------------------------------------------------------------ GroupNorm, RMSNorm
@needs_torch
def test_group_and_rms_norm_reprs_and_errors_match_pytorch():
    def observe(lib, F, nn):
        x = lib.ones(2, 4, 3)
        return [repr(nn.GroupNorm(2, 4)), repr(nn.GroupNorm(1, 3, affine=False)),
                repr(nn.GroupNorm(2, 4, bias=False)), repr(nn.RMSNorm(4)),
                repr(nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False)),
                repr(nn.Dropout3d(0.2)), [n for n, _ in nn.GroupNorm(2, 4).named_parameters()],
                _outcome(lambda: nn.GroupNorm(3, 4)),
                _outcome(lambda: F.group_norm(x, 3)),
                _outcome(lambda: F.group_norm(x, 2, lib.ones(3))),
                _outcome(lambda: F.rms_norm(x, (4,))),
                _outcome(lambda: F.rms_norm(x, (3,), lib.ones(4))),
                F.dropout3d(lib.ones(2, 3, 2, 2, 2), 0.5, training=False).shape == (2, 3, 2, 2, 2),
                F.dropout3d(lib.ones(3, 2, 2, 2), 0.5, training=False).shape == (3, 2, 2, 2)]

    assert observe(jtensor, JF, jnn) == observe(torch, TF, tnn)


@needs_torch
@pytest.mark.parametrize("shape,groups", [((4, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 2),
                                          ((2, 6, 2, 2), 1)])
def test_group_norm_matches_pytorch(shape, groups):
    tm = tnn.GroupNorm(groups, shape[1])
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(_rand(shape[1], seed=4)))
        tm.bias.copy_(torch.tensor(_rand(shape[1], seed=5)))
    jm = jnn.GroupNorm(groups, shape[1])
    x = torch.tensor(_rand(*shape) * 2 + 1).requires_grad_()
    assert_same_training(jm, tm, x, rtol=1e-4, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("shape,norm,eps", [((4, 6), 6, None), ((2, 3, 4), (3, 4), 1e-3),
                                            ((5,), 5, None)])
def test_rms_norm_matches_pytorch(shape, norm, eps):
    tm = tnn.RMSNorm(norm, eps=eps)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(_rand(*tm.weight.shape, seed=4)))
    jm = jnn.RMSNorm(norm, eps=eps)
    x = torch.tensor(_rand(*shape)).requires_grad_()
    assert_same_training(jm, tm, x, rtol=1e-4, atol=1e-5)


def test_group_and_rms_norm_gradcheck():
    assert gradcheck(lambda x, w, b: JF.group_norm(x, 2, w, b),
                     (_d(3, 4, 2), _d(4, seed=1), _d(4, seed=2)))
    assert gradcheck(lambda x, w: JF.rms_norm(x, (3,), w, 1e-6), (_d(2, 3), _d(3, seed=1)))
    assert gradgradcheck(lambda x: JF.group_norm(x, 2), (_d(2, 4, 2),))


def test_dropout3d_zeroes_whole_channels():
    jtensor.manual_seed(0)
    y = JF.dropout3d(jtensor.ones(10, 20, 2, 3, 2), 0.5).cpu().numpy().reshape(10, 20, -1)
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    assert 0.35 < (y[..., 0] == 0).mean() < 0.65


def test_dropout_gradcheck_with_a_fixed_mask():
    def seeded(fn):
        def run(x):
            jtensor.manual_seed(0)  # the same mask on every evaluation
            return fn(x)
        return run

    assert gradcheck(seeded(lambda x: JF.dropout(x, 0.3)), (_d(4, 5),))
    assert gradcheck(seeded(lambda x: JF.dropout2d(x, 0.5)), (_d(2, 3, 2, 2),))
    assert gradcheck(seeded(lambda x: JF.dropout1d(x, 0.5)), (_d(3, 4),))


@needs_torch
def test_norm_grad_fn_names_match_pytorch():
    def names(lib, F, nn):
        x = lib.ones(4, 3, requires_grad=True)
        x4 = lib.ones(2, 3, 2, 2, requires_grad=True)
        bn = nn.BatchNorm2d(3)
        out = [F.layer_norm(x, (3,)).grad_fn, nn.LayerNorm(3)(x).grad_fn,
               F.batch_norm(x, None, None, training=True).grad_fn, bn(x4).grad_fn,
               bn.eval()(x4).grad_fn, nn.Linear(3, 2)(x).grad_fn,
               nn.Embedding(3, 2)(lib.tensor([0, 2])).grad_fn]
        return [type(n).__name__ for n in out]

    assert names(jtensor, JF, jnn) == names(torch, TF, tnn)


@needs_torch
def test_norms_on_non_contiguous_inputs_match_pytorch():
    base = _rand(3, 5, 4)
    x = torch.tensor(base).transpose(0, 2)  # (4, 5, 3), strided
    jx = jtensor.tensor(base).transpose(0, 2)
    assert not jx.is_contiguous()
    jm, tm = jnn.LayerNorm(3), tnn.LayerNorm(3)
    jy, ty = jm(jx), tm(x)
    assert_close(jy, ty, rtol=1e-4, atol=1e-5)
    jb, tb = jnn.BatchNorm1d(5), tnn.BatchNorm1d(5)
    assert_close(jb(jx), tb(x), rtol=1e-4, atol=1e-5)
    assert_close(jb.running_var, tb.running_var)


@needs_torch
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_inference_under_no_grad_matches_pytorch(affine):
    jm, tm = _bn_pair("BatchNorm2d", 3, affine=affine)
    for step in range(3):
        x = _rand(4, 3, 5, 5, seed=step) * 2 + step
        jm(jtensor.tensor(x))
        tm(torch.tensor(x))
    jm.eval()
    tm.eval()
    x = _rand(2, 3, 5, 5, seed=9)
    with jtensor.no_grad():
        ours = jm(jtensor.tensor(x))
    with torch.no_grad():
        theirs = tm(torch.tensor(x))
    assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
    assert not ours.requires_grad
