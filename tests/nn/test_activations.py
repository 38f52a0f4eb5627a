"""Activations (``jtensor.nn.functional`` and the activation modules) against PyTorch: values,
gradients, ``grad_fn`` names, in-place forms, reprs, bad input; float64 gradchecks and
gradgradchecks that run without the oracle; ``one_hot``."""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.functional as JF
from jtensor.autograd import gradcheck, gradgradcheck

from tests.harness.training import assert_close, assert_same_training

try:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF
except ImportError:
    torch = tnn = TF = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

# Values spread over the interesting regions (both signs, beyond the clamps, near 0) while
# staying away from the kinks, where finite differences are meaningless.
X = (np.random.default_rng(0).standard_normal((4, 6)) * 3).astype(np.float32)
X[np.abs(X) < 0.05] = 0.3
X[np.abs(np.abs(X) - 1) < 0.05] = 1.5
X[np.abs(X - 6) < 0.05] = 5.5

FUNCS = [
    ("relu", lambda F, x: F.relu(x)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x)),
    ("leaky_relu_slope", lambda F, x: F.leaky_relu(x, 0.2)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh")),
    ("sigmoid", lambda F, x: F.sigmoid(x)),
    ("tanh", lambda F, x: F.tanh(x)),
    ("silu", lambda F, x: F.silu(x)),
    ("elu", lambda F, x: F.elu(x)),
    ("elu_alpha", lambda F, x: F.elu(x, alpha=2.5)),
    ("softplus", lambda F, x: F.softplus(x)),
    ("softplus_beta_threshold", lambda F, x: F.softplus(x, beta=2, threshold=3)),
    ("hardtanh", lambda F, x: F.hardtanh(x)),
    ("hardtanh_bounds", lambda F, x: F.hardtanh(x, -2.0, 3.0)),
    ("relu6", lambda F, x: F.relu6(x * 2)),
    ("logsigmoid", lambda F, x: F.logsigmoid(x)),
    ("softmax", lambda F, x: F.softmax(x, dim=1)),
    ("softmax_dim0", lambda F, x: F.softmax(x, 0)),
    ("softmax_dtype", lambda F, x: F.softmax(x, 1, dtype=F_float64(F))),
    ("log_softmax", lambda F, x: F.log_softmax(x, dim=-1)),
    ("log_softmax_huge", lambda F, x: F.log_softmax(x * 1e4, dim=1)),
    ("softmax_huge", lambda F, x: F.softmax(x * 1e4, dim=1)),
    ("softmin", lambda F, x: F.softmin(x, 1)),
]
INPLACE = [
    ("relu_inplace", lambda F, x: F.relu(x, inplace=True)),
    ("leaky_relu_inplace", lambda F, x: F.leaky_relu(x, 0.1, inplace=True)),
    ("elu_inplace", lambda F, x: F.elu(x, 1.5, inplace=True)),
    ("hardtanh_inplace", lambda F, x: F.hardtanh(x, inplace=True)),
    ("relu6_inplace", lambda F, x: F.relu6(x, inplace=True)),
    ("silu_inplace", lambda F, x: F.silu(x, inplace=True)),
]
# silu_ keeps a copy of its input from before the write: its backward is not differentiable
# again with respect to that input (the first derivative is checked).
NO_GRADGRAD = {"silu_inplace"}


def F_float64(F):
    return jtensor.float64 if F is JF else torch.float64


def _run(lib, F, fn, arr, inplace=False):
    x = lib.tensor(arr, requires_grad=True)
    y = fn(F, x * 1 if inplace else x)
    return x, y


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn", FUNCS + INPLACE, ids=[f[0] for f in FUNCS + INPLACE])
def test_activation_matches_pytorch(name, fn, dtype):
    inplace = name.endswith("_inplace")
    jx, jy = _run(jtensor, JF, fn, X.astype(dtype), inplace)
    tx, ty = _run(torch, TF, fn, X.astype(dtype), inplace)
    assert_close(jy, ty, rtol=1e-5, atol=1e-6, what=f"{name} value")
    assert type(jy.grad_fn).__name__ == type(ty.grad_fn).__name__
    g = np.random.default_rng(1).standard_normal(X.shape).astype(ty.detach().cpu().numpy().dtype)
    jy.backward(jtensor.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(jx.grad, tx.grad, rtol=1e-4, atol=1e-6, what=f"{name} grad")


@pytest.mark.parametrize("name,fn", FUNCS + INPLACE, ids=[f[0] for f in FUNCS + INPLACE])
def test_activation_gradcheck_float64(name, fn):
    x = jtensor.tensor(X.astype(np.float64) / (1e4 if "huge" in name else 1),
                       requires_grad=True)
    f = (lambda a: fn(JF, a * 1)) if name.endswith("_inplace") else (lambda a: fn(JF, a))
    # The "huge" cases scale inputs of size 1e-4 by 1e4: a step of eps = 1e-6 is 1% of an
    # input, whose finite-difference error made gradgradcheck fail for 1 random grad_outputs
    # in 10 (an order-dependent flake); the same relative step as the other cases is 1e-8.
    eps = 1e-8 if "huge" in name else 1e-6
    assert gradcheck(f, (x,), eps=eps)
    if name not in NO_GRADGRAD:
        assert gradgradcheck(f, (x,), eps=eps)


def test_inplace_forms_write_the_input_and_bump_the_version():
    for fn in (JF.relu_, JF.leaky_relu_, JF.elu_, JF.hardtanh_):
        x = jtensor.tensor([-2.0, 0.5, 3.0])
        v = x._version
        assert fn(x) is x
        assert x._version > v
    x = jtensor.tensor([-2.0, 0.5, 3.0])
    assert JF.relu6(x, inplace=True) is x and x.tolist() == [0.0, 0.5, 3.0]
    leaf = jtensor.tensor([1.0, -1.0], requires_grad=True)
    for fn in (lambda t: JF.leaky_relu(t, inplace=True), lambda t: JF.elu(t, inplace=True),
               lambda t: JF.hardtanh(t, inplace=True), lambda t: JF.silu(t, inplace=True)):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            fn(leaf)


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    x = jtensor.rand(2, 3, 4)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = JF.softmax(x)
    np.testing.assert_allclose(y.sum(0).cpu().numpy(), np.ones((3, 4)), rtol=1e-6)
    with pytest.warns(UserWarning):
        y = JF.log_softmax(jtensor.rand(2, 3))
    np.testing.assert_allclose(y.exp().sum(1).cpu().numpy(), np.ones(2), rtol=1e-6)


def test_stable_at_huge_logits():
    x = jtensor.tensor([[1e30, 0.0, -1e30], [3e38, 3e38, -3e38]])
    assert np.isfinite(JF.softmax(x, 1).cpu().numpy()).all()
    np.testing.assert_allclose(JF.softmax(x, 1).cpu().numpy(), [[1, 0, 0], [.5, .5, 0]])
    assert np.isfinite(JF.log_softmax(x, 1).cpu().numpy()[:, :2]).all()
    np.testing.assert_allclose(JF.logsigmoid(jtensor.tensor([-1e4, 1e4])).cpu().numpy(), [-1e4, 0])
    np.testing.assert_allclose(JF.softplus(jtensor.tensor([1e4, -1e4])).cpu().numpy(), [1e4, 0])


INT_ERRORS = [
    ("gelu", lambda F, t: F.gelu(t), NotImplementedError),
    ("leaky_relu", lambda F, t: F.leaky_relu(t), NotImplementedError),
    ("softplus", lambda F, t: F.softplus(t), NotImplementedError),
    ("elu", lambda F, t: F.elu(t), NotImplementedError),
    ("logsigmoid", lambda F, t: F.logsigmoid(t), NotImplementedError),
    ("silu", lambda F, t: F.silu(t), NotImplementedError),
    ("gelu approximate", lambda F, t: F.gelu(t.float(), approximate="foo"), RuntimeError),
    ("hardtanh bounds", lambda F, t: F.hardtanh(t.float(), 1.0, -1.0), ValueError),
    ("softmax of ints", lambda F, t: F.softmax(t, 0), NotImplementedError),
]


@pytest.mark.parametrize("name,fn,exc", INT_ERRORS, ids=[e[0] for e in INT_ERRORS])
def test_bad_input(name, fn, exc):
    with pytest.raises(exc) as ours:
        fn(JF, jtensor.tensor([1, 0, 4, 2]))
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            fn(TF, torch.tensor([1, 0, 4, 2]))
        assert isinstance(ours.value, type(theirs.value))


@needs_torch
def test_integer_inputs_that_pytorch_accepts():
    for fn in (lambda F, t: F.relu(t), lambda F, t: F.hardtanh(t), lambda F, t: F.relu6(t),
               lambda F, t: F.sigmoid(t)):
        assert_close(fn(JF, jtensor.tensor([-3, 0, 4, 9])), fn(TF, torch.tensor([-3, 0, 4, 9])))


# --------------------------------------------------------------------------- modules
MODULES = ["ReLU()", "ReLU(inplace=True)", "LeakyReLU()", "LeakyReLU(0.2, True)", "GELU()",
           "GELU(approximate='tanh')", "Sigmoid()", "Tanh()", "SiLU()", "SiLU(inplace=True)",
           "ELU()", "ELU(2.0, True)", "Softplus()", "Softplus(2, 10)", "Hardtanh()",
           "Hardtanh(-2, 2, True)", "ReLU6()", "ReLU6(True)", "Softmax(dim=1)", "Softmax(-1)",
           "LogSoftmax(dim=1)", "Softmin(1)", "LogSigmoid()", "Identity(3, a=4)"]


@needs_torch
@pytest.mark.parametrize("src", MODULES)
def test_module_matches_pytorch(src):
    jm, tm = eval("jnn." + src), eval("tnn." + src)
    assert repr(jm) == repr(tm)
    assert {k: v for k, v in vars(jm).items() if not k.startswith("_")} == \
        {k: v for k, v in vars(tm).items() if not k.startswith("_")}
    x = torch.tensor(X, requires_grad=True)
    if "inplace=True" in repr(tm):
        # In-place on a leaf is an error in both; run on a non-leaf.
        seq_j, seq_t = jnn.Sequential(jnn.Identity(), jm), tnn.Sequential(tnn.Identity(), tm)
        jx, tx = jtensor.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
        jy, ty = seq_j(jx * 1), seq_t(tx * 1)
        assert_close(jy, ty)
        jy.sum().backward()
        ty.sum().backward()
        assert_close(jx.grad, tx.grad, rtol=1e-5, atol=1e-6)
        return
    assert_same_training(jm, tm, x)


def test_module_reprs_without_oracle():
    assert repr(jnn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(jnn.Softmax()) == "Softmax(dim=None)"
    assert repr(jnn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(jnn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(jnn.GELU()) == "GELU(approximate='none')"
    assert repr(jnn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(jnn.Sequential(jnn.Linear(2, 3), jnn.ReLU())) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)")
    x = jtensor.randn(3, 4)
    assert jnn.Identity()(x) is x
    np.testing.assert_allclose(jnn.Softmax(dim=1)(x).sum(1).cpu().numpy(), np.ones(3), rtol=1e-6)
    assert list(jnn.GELU().parameters()) == []


# --------------------------------------------------------------------------- one_hot
def test_one_hot_values():
    out = JF.one_hot(jtensor.tensor([[0, 2], [1, 1]]))
    assert out.dtype == jtensor.int64 and tuple(out.shape) == (2, 2, 3)
    assert out.tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 1, 0]]]
    assert tuple(JF.one_hot(jtensor.tensor([1, 0]), 5).shape) == (2, 5)
    assert tuple(JF.one_hot(jtensor.tensor([], dtype=jtensor.int64), 3).shape) == (0, 3)
    assert JF.one_hot(jtensor.tensor(2), 4).tolist() == [0, 0, 1, 0]


@needs_torch
def test_one_hot_matches_pytorch():
    for args in (([[0, 2], [1, 1]],), ([1, 0], 5), ([3],), (2, 4)):
        assert_close(JF.one_hot(jtensor.tensor(args[0]), *args[1:]),
                     TF.one_hot(torch.tensor(args[0]), *args[1:]))


ONE_HOT_BAD = [
    ("float", lambda F, L: F.one_hot(L.tensor([0., 2.]))),
    ("int32", lambda F, L: F.one_hot(L.tensor([0, 1], dtype=L.int32))),
    ("negative", lambda F, L: F.one_hot(L.tensor([0, -1]))),
    ("too large", lambda F, L: F.one_hot(L.tensor([0, 3]), 3)),
    ("empty, inferred", lambda F, L: F.one_hot(L.tensor([], dtype=L.int64))),
    ("zero classes", lambda F, L: F.one_hot(L.tensor([0, 1]), 0)),
]


@pytest.mark.parametrize("name,fn", ONE_HOT_BAD, ids=[b[0] for b in ONE_HOT_BAD])
def test_one_hot_errors(name, fn):
    with pytest.raises(RuntimeError) as ours:
        fn(JF, jtensor)
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            fn(TF, torch)
        assert isinstance(ours.value, type(theirs.value))


def test_functional_exports():
    for name in ("relu", "leaky_relu", "gelu", "sigmoid", "tanh", "silu", "elu", "softplus",
                 "hardtanh", "relu6", "logsigmoid", "softmax", "log_softmax", "softmin",
                 "one_hot", "cross_entropy", "nll_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits", "mse_loss", "l1_loss", "smooth_l1_loss",
                 "huber_loss", "kl_div"):
        assert callable(getattr(JF, name)), name
        assert getattr(JF, name).__doc__, name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        JF.softmax(jtensor.rand(2, 3), dim=1)


# The activations implemented in this package (sigmoid/tanh/softmax/log_softmax are core ops,
# whose float16/bfloat16 backward formulas round differently from PyTorch's kernels).
LOWP = ["gelu", "gelu_tanh", "silu", "elu", "softplus", "logsigmoid", "leaky_relu", "hardtanh",
        "relu"]


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", LOWP)
def test_low_precision_rounds_once_like_pytorch(name, dtype):
    fn = dict(FUNCS)[name]
    x = np.random.default_rng(2).standard_normal(500).astype(np.float32) * 4
    jx = jtensor.tensor(x).to(getattr(jtensor, dtype)).requires_grad_()
    tx = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    jy, ty = fn(JF, jx), fn(TF, tx)
    assert str(jy.dtype) == str(ty.dtype)
    jy.sum().backward()
    ty.sum().backward()
    assert str(jx.grad.dtype) == str(tx.grad.dtype)
    # Computed in float32 and rounded once: at most one unit in the last place apart.
    ulp = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    for a, b in ((jy.detach(), ty.detach()), (jx.grad, tx.grad)):
        a, b = a.float().cpu().numpy(), b.float().cpu().numpy()
        assert (np.abs(a - b) <= ulp * np.maximum(np.abs(b), 1e-3) * 1.01 + 1e-5).all()
