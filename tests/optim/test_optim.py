"""``jtensor.optim`` optimizers and ``nn.utils`` gradient clipping: 10-step trajectories
against PyTorch on the same weights and data, param groups, state_dict round trips, errors."""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn.utils
import jtensor.optim as joptim
from jtensor.nn.utils import clip_grad_norm_, clip_grad_value_

from tests.harness.training import copy_weights

try:
    import torch
except ImportError:
    torch = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 5)).astype(np.float32)
Y = RNG.standard_normal((8, 3)).astype(np.float32)
W0 = RNG.standard_normal((5, 3)).astype(np.float32)
B0 = RNG.standard_normal(3).astype(np.float32)


def _problem(lib):
    w = lib.nn.Parameter(lib.tensor(W0.copy()))
    b = lib.nn.Parameter(lib.tensor(B0.copy()))
    x, y = lib.tensor(X), lib.tensor(Y)

    def loss_fn():
        return ((x @ w + b - y) ** 2).mean()

    return w, b, loss_fn


def _optim(lib):
    return joptim if lib is jtensor else torch.optim


def _trajectory(lib, name, kwargs, steps=10, groups=False, closure=False):
    w, b, loss_fn = _problem(lib)
    params = ([{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", 0.01) * 0.5}]
              if groups else [w, b])
    opt = getattr(_optim(lib), name)(params, **kwargs)
    out = []
    for _ in range(steps):
        if closure:
            def closure_fn():
                opt.zero_grad()
                loss = loss_fn()
                loss.backward()
                return loss
            loss = opt.step(closure_fn)
        else:
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            opt.step()
        out.append((float(loss), w.detach().cpu().numpy().copy(), b.detach().cpu().numpy().copy()))
    return out, opt


CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1,
             "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.05}),
    ("Adam", {"lr": 0.02, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "amsgrad": True, "maximize": True, "weight_decay": 0.01}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "momentum": 0.5}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.005, "centered": True, "momentum": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.3}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-6, "maximize": True}),
]


def _ids(case):
    return case[0] + "-" + "-".join(f"{k}={v}" for k, v in case[1].items())


@needs_torch
@pytest.mark.parametrize("name,kwargs", CASES, ids=[_ids(c) for c in CASES])
@pytest.mark.parametrize("mode", ["plain", "groups", "closure"])
def test_trajectory_matches_torch(name, kwargs, mode):
    ours, jopt = _trajectory(jtensor, name, kwargs, groups=mode == "groups",
                             closure=mode == "closure")
    theirs, topt = _trajectory(torch, name, kwargs, groups=mode == "groups",
                               closure=mode == "closure")
    for step, ((jl, jw, jb), (tl, tw, tb)) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(jl, tl, rtol=1e-5, atol=1e-6, err_msg=f"loss at {step}")
        np.testing.assert_allclose(jw, tw, rtol=1e-5, atol=1e-6, err_msg=f"weight at {step}")
        np.testing.assert_allclose(jb, tb, rtol=1e-5, atol=1e-6, err_msg=f"bias at {step}")
    # the same state layout (keys, step counts, dtypes, values)
    js, ts = jopt.state_dict(), topt.state_dict()
    assert js["param_groups"] == ts["param_groups"]
    assert list(js["state"]) == list(ts["state"])
    for k in ts["state"]:
        assert list(js["state"][k]) == list(ts["state"][k])
        for key, tv in ts["state"][k].items():
            jv = js["state"][k][key]
            assert str(jv.dtype) == str(tv.dtype), key
            assert tuple(jv.shape) == tuple(tv.shape), key
            # state can hold cancellations (centered RMSprop): scale atol by its magnitude
            scale = float(np.abs(tv.cpu().numpy()).max()) if tv.numel() else 1.0
            np.testing.assert_allclose(jv.cpu().numpy(), tv.cpu().numpy(), rtol=1e-5,
                                       atol=1e-6 * max(1.0, scale), err_msg=key)
    assert repr(jopt) == repr(topt)


@pytest.mark.parametrize("name,kwargs", CASES, ids=[_ids(c) for c in CASES])
def test_state_dict_round_trip_continues_identically(name, kwargs):
    full, _ = _trajectory(jtensor, name, kwargs, steps=8)
    w, b, loss_fn = _problem(jtensor)
    opt = getattr(joptim, name)([w, b], **kwargs)
    for _ in range(4):
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
    saved = pickle.loads(pickle.dumps(opt.state_dict()))
    w2 = jtensor.nn.Parameter(w.detach().clone())
    b2 = jtensor.nn.Parameter(b.detach().clone())
    x, y = jtensor.tensor(X), jtensor.tensor(Y)
    opt2 = getattr(joptim, name)([w2, b2], **kwargs)
    opt2.load_state_dict(saved)
    for step in range(4, 8):
        opt2.zero_grad()
        ((x @ w2 + b2 - y) ** 2).mean().backward()
        opt2.step()
        np.testing.assert_array_equal(w2.detach().cpu().numpy(), full[step][1])
        np.testing.assert_array_equal(b2.detach().cpu().numpy(), full[step][2])


def test_state_dict_format_uses_indices():
    a = jtensor.nn.Parameter(jtensor.ones(2))
    b = jtensor.nn.Parameter(jtensor.ones(3))
    c = jtensor.nn.Parameter(jtensor.ones(1))
    opt = joptim.SGD([{"params": [a]}, {"params": [b, c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, b, c):
        p.grad = jtensor.ones_like(p)
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1, 2]]
    assert sd["param_groups"][1]["lr"] == 0.5 and sd["param_groups"][0]["lr"] == 0.1
    assert sorted(sd["state"]) == [0, 1, 2]
    assert list(sd["state"][1]) == ["momentum_buffer"]
    # loading checks the group structure
    other = joptim.SGD([a, b, c], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        other.load_state_dict(sd)
    other = joptim.SGD([{"params": [a, b]}, {"params": [c]}], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        other.load_state_dict(sd)


def test_load_state_dict_casts_to_param_dtype_but_keeps_step():
    p = jtensor.nn.Parameter(jtensor.ones(2, dtype=jtensor.float64))
    opt = joptim.Adam([p])
    p.grad = jtensor.ones_like(p)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    opt.load_state_dict(sd)
    assert opt.state[p]["exp_avg"].dtype == jtensor.float64
    assert opt.state[p]["step"].dtype == jtensor.float32


@needs_torch
def test_state_dict_loads_into_torch_format_keys():
    """Our state_dict has PyTorch's structure: it loads into a torch optimizer."""
    w, b, loss_fn = _problem(jtensor)
    opt = joptim.Adam([w, b], lr=0.01, amsgrad=True)
    loss_fn().backward()
    opt.step()
    sd = opt.state_dict()
    tsd = {"param_groups": copy.deepcopy(sd["param_groups"]),
           "state": {k: {n: torch.tensor(v.cpu().numpy()) for n, v in s.items()}
                     for k, s in sd["state"].items()}}
    tw, tb, _ = _problem(torch)
    topt = torch.optim.Adam([tw, tb], lr=0.01, amsgrad=True)
    topt.load_state_dict(tsd)
    assert topt.state_dict()["param_groups"] == sd["param_groups"]


def test_zero_grad():
    p = jtensor.nn.Parameter(jtensor.ones(3))
    opt = joptim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None
    opt.step()  # no gradient: nothing happens
    assert p.tolist() == [1.0, 1.0, 1.0]


def test_step_does_not_record_history_and_bumps_version():
    p = jtensor.nn.Parameter(jtensor.ones(3))
    opt = joptim.SGD([p], lr=0.1, momentum=0.5)
    (p * p).sum().backward()
    v = p._version
    opt.step()
    assert p.grad_fn is None and p.is_leaf and p.requires_grad
    assert p._version > v
    assert jtensor.is_grad_enabled()


def test_add_param_group_and_defaults():
    a = jtensor.nn.Parameter(jtensor.ones(2))
    b = jtensor.nn.Parameter(jtensor.ones(2))
    opt = joptim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 0.01
    assert opt.param_groups[1]["params"] == [b] or opt.param_groups[1]["params"][0] is b
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="must be a dict"):
        opt.add_param_group([a])


def test_named_parameters_groups():
    lin = jtensor.nn.Parameter(jtensor.ones(2))
    opt = joptim.SGD([("weight", lin)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight"]


def _errors(lib):
    """(description, callable) pairs that must raise the same exception type as PyTorch."""
    optim = _optim(lib)
    p = lib.nn.Parameter(lib.ones(2))
    q = lib.ones(2, requires_grad=True) * 2
    return [
        ("empty", lambda: optim.SGD([], lr=0.1)),
        ("tensor params", lambda: optim.SGD(p, lr=0.1)),
        ("set params", lambda: optim.SGD({p}, lr=0.1)),
        ("non-leaf", lambda: optim.SGD([q], lr=0.1)),
        ("not a tensor", lambda: optim.SGD([1.0], lr=0.1)),
        ("two groups", lambda: optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)),
        ("negative lr", lambda: optim.SGD([p], lr=-1.0)),
        ("negative momentum", lambda: optim.SGD([p], lr=0.1, momentum=-0.1)),
        ("negative wd", lambda: optim.SGD([p], lr=0.1, weight_decay=-0.1)),
        ("nesterov no momentum", lambda: optim.SGD([p], lr=0.1, nesterov=True)),
        ("nesterov dampening",
         lambda: optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
        ("adam beta0", lambda: optim.Adam([p], betas=(1.0, 0.9))),
        ("adam beta1", lambda: optim.Adam([p], betas=(0.9, -0.1))),
        ("adam eps", lambda: optim.Adam([p], eps=-1.0)),
        ("adam lr", lambda: optim.Adam([p], lr=-1.0)),
        ("adam wd", lambda: optim.AdamW([p], weight_decay=-1.0)),
        ("rmsprop alpha", lambda: optim.RMSprop([p], alpha=-1.0)),
        ("rmsprop momentum", lambda: optim.RMSprop([p], momentum=-1.0)),
        ("adagrad lr_decay", lambda: optim.Adagrad([p], lr_decay=-1.0)),
        ("adagrad init acc", lambda: optim.Adagrad([p], initial_accumulator_value=-1.0)),
        ("ok", lambda: optim.SGD([p], lr=0.1)),
    ]


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 (we compare the exception type)
        return type(e).__mro__[1].__name__ if type(e).__module__.startswith("jtensor") \
            else type(e).__name__, str(e)
    return None, None


def test_errors_jtensor_only():
    results = {d: _outcome(f) for d, f in _errors(jtensor)}
    assert results["two groups"] == ("ValueError",
                                     "some parameters appear in more than one parameter group")
    assert results["nesterov no momentum"][0] == "ValueError"
    assert "Nesterov momentum requires a momentum and zero dampening" in \
        results["nesterov dampening"][1]
    assert results["empty"] == ("ValueError", "optimizer got an empty parameter list")
    assert results["ok"] == (None, None)


@needs_torch
def test_errors_match_torch():
    ours = [(d, _outcome(f)) for d, f in _errors(jtensor)]
    theirs = [(d, _outcome(f)) for d, f in _errors(torch)]
    for (d, (jt, jm)), (_, (tt, tm)) in zip(ours, theirs, strict=True):
        assert jt == tt, f"{d}: {jt} ({jm}) != {tt} ({tm})"
        if d not in ("tensor params", "not a tensor"):  # these name a torch type
            assert jm == tm, d


def test_duplicate_params_warn():
    p = jtensor.nn.Parameter(jtensor.ones(2))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        joptim.SGD([p, p], lr=0.1)


def test_step_hooks():
    p = jtensor.nn.Parameter(jtensor.ones(2))
    opt = joptim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    h1.remove()
    h2.remove()
    opt.step()
    assert calls == ["pre", "post"]


def test_optimizer_deepcopy_and_pickle():
    w, b, loss_fn = _problem(jtensor)
    opt = joptim.Adam([w, b], lr=0.01)
    loss_fn().backward()
    opt.step()
    opt2 = copy.deepcopy(opt)
    assert len(opt2.state) == 2
    opt3 = pickle.loads(pickle.dumps(opt))
    assert opt3.param_groups[0]["lr"] == 0.01


def test_default_dtype_float64_step_dtype():
    prev = jtensor.get_default_dtype()
    jtensor.set_default_dtype(jtensor.float64)
    try:
        p = jtensor.nn.Parameter(jtensor.ones(2))
        opt = joptim.Adam([p])
        p.grad = jtensor.ones_like(p)
        opt.step()
        assert opt.state[p]["step"].dtype == jtensor.float64
    finally:
        jtensor.set_default_dtype(prev)


def test_float64_params_trajectory():
    """Float64 parameters keep float64 state and move like a float64 reference."""
    p = jtensor.nn.Parameter(jtensor.tensor([1.0, -2.0], dtype=jtensor.float64))
    opt = joptim.SGD([p], lr=0.1, momentum=0.9)
    ref, buf = np.array([1.0, -2.0]), None
    for _ in range(5):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
        g = 2 * ref
        buf = g.copy() if buf is None else 0.9 * buf + g
        ref = ref - 0.1 * buf
    np.testing.assert_allclose(p.detach().cpu().numpy(), ref, rtol=1e-12)
    assert opt.state[p]["momentum_buffer"].dtype == jtensor.float64


# -- gradient clipping --------------------------------------------------------------------------

GRADS = [RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal(5).astype(np.float32)]


def _params_with_grads(lib, scale=1.0):
    ps = []
    for g in GRADS:
        p = lib.nn.Parameter(lib.zeros(g.shape))
        p.grad = lib.tensor(g * scale)
        ps.append(p)
    ps.append(lib.nn.Parameter(lib.zeros(2)))  # no grad: skipped
    return ps


@needs_torch
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    jp, tp = _params_with_grads(jtensor), _params_with_grads(torch)
    jn = clip_grad_norm_(jp, max_norm, norm_type=norm_type)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type=norm_type)
    assert str(jn.dtype) == str(tn.dtype) and tuple(jn.shape) == ()
    np.testing.assert_allclose(jn.item(), tn.item(), rtol=1e-5)
    for a, b in zip(jp, tp, strict=True):
        if b.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_jtensor_only():
    p = jtensor.nn.Parameter(jtensor.zeros(2))
    p.grad = jtensor.tensor([3.0, 4.0])
    total = clip_grad_norm_(p, 1.0)
    assert abs(total.item() - 5.0) < 1e-6
    np.testing.assert_allclose(p.grad.cpu().numpy(), [0.6, 0.8], rtol=1e-5)
    assert p.grad.grad_fn is None
    # no gradients at all: a zero norm
    q = jtensor.nn.Parameter(jtensor.zeros(2))
    assert clip_grad_norm_([q], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        clip_grad_norm_((x for x in []), 1.0)


def test_clip_grad_norm_nonfinite():
    p = jtensor.nn.Parameter(jtensor.zeros(2))
    p.grad = jtensor.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert math.isnan(clip_grad_norm_([p], 1.0).item())
    p.grad = jtensor.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([p], 1.0, norm_type="inf", error_if_nonfinite=True)


@needs_torch
def test_clip_grad_norm_nonfinite_matches_torch():
    for bad in (float("nan"), float("inf")):
        jp = jtensor.nn.Parameter(jtensor.zeros(2))
        jp.grad = jtensor.tensor([bad, 1.0])
        tp = torch.nn.Parameter(torch.zeros(2))
        tp.grad = torch.tensor([bad, 1.0])
        jn = clip_grad_norm_([jp], 1.0)
        tn = torch.nn.utils.clip_grad_norm_([tp], 1.0)
        np.testing.assert_array_equal(jn.cpu().numpy(), tn.cpu().numpy())
        np.testing.assert_array_equal(jp.grad.cpu().numpy(), tp.grad.cpu().numpy())


@needs_torch
@pytest.mark.parametrize("clip", [0.1, 1, 10.0])
def test_clip_grad_value_matches_torch(clip):
    jp, tp = _params_with_grads(jtensor), _params_with_grads(torch)
    assert clip_grad_value_(jp, clip) is None
    torch.nn.utils.clip_grad_value_(tp, clip)
    for a, b in zip(jp, tp, strict=True):
        if b.grad is not None:
            np.testing.assert_array_equal(a.grad.cpu().numpy(), b.grad.cpu().numpy())


def test_clip_grad_value_jtensor_only():
    p = jtensor.nn.Parameter(jtensor.zeros(3))
    p.grad = jtensor.tensor([-3.0, 0.5, 4.0])
    clip_grad_value_(p, 1.0)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]


def test_clip_then_step_training_loop():
    w, b, loss_fn = _problem(jtensor)
    opt = joptim.SGD([w, b], lr=0.1)
    first = float(loss_fn())
    for _ in range(20):
        opt.zero_grad()
        loss_fn().backward()
        clip_grad_norm_([w, b], 1.0)
        opt.step()
    assert float(loss_fn()) < first


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_tensor_lr_matches_torch(name):
    out = []
    for lib in (jtensor, torch):
        w, b, loss_fn = _problem(lib)
        kwargs = {"lr": lib.tensor(0.01)}
        if name == "SGD":
            kwargs["momentum"] = 0.9
        opt = getattr(_optim(lib), name)([w, b], **kwargs)
        sched = _optim(lib).lr_scheduler.ExponentialLR(opt, gamma=0.9)
        for _ in range(5):
            opt.zero_grad()
            loss_fn().backward()
            opt.step()
            sched.step()
        assert isinstance(opt.param_groups[0]["lr"], lib.Tensor)
        out.append((w.detach().cpu().numpy().copy(), float(opt.param_groups[0]["lr"])))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-5, atol=1e-6)
    assert abs(out[0][1] - out[1][1]) < 1e-9


def test_tensor_lr_validation():
    p = jtensor.nn.Parameter(jtensor.ones(2))
    with pytest.raises(ValueError, match="1-element"):
        joptim.SGD([p], lr=jtensor.tensor([0.1, 0.2]))


@needs_torch
@pytest.mark.parametrize("name,kwargs", [("SGD", {"lr": 0.05, "momentum": 0.9,
                                                   "nesterov": True}),
                                          ("Adam", {"lr": 0.01, "weight_decay": 1e-3}),
                                          ("AdamW", {"lr": 0.01}),
                                          ("RMSprop", {"lr": 0.005, "centered": True})])
def test_module_training_loop_matches_torch(name, kwargs):
    """model.parameters() + zero_grad + clip + step + scheduler: the loss curve of a small
    MLP from identical initial weights equals PyTorch's step for step."""
    jnn = jtensor.nn
    if not all(hasattr(jnn, n) for n in ("Linear", "Tanh", "Sequential")):
        pytest.skip("nn.Linear / nn.Tanh are not available")
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(),
                                 torch.nn.Linear(16, 3))
    jmodel = jnn.Sequential(jnn.Linear(5, 16), jnn.Tanh(), jnn.Linear(16, 3))
    copy_weights(jmodel, tmodel)
    curves = []
    for lib, model in ((jtensor, jmodel), (torch, tmodel)):
        opt = getattr(_optim(lib), name)(model.parameters(), **kwargs)
        sched = _optim(lib).lr_scheduler.OneCycleLR(opt, max_lr=kwargs["lr"] * 2,
                                                    total_steps=15)
        clip = clip_grad_norm_ if lib is jtensor else torch.nn.utils.clip_grad_norm_
        x, y = lib.tensor(X), lib.tensor(Y)
        curve = []
        for _ in range(15):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            curve.append((float(loss), float(clip(model.parameters(), 1.0))))
            opt.step()
            sched.step()
        curves.append(curve)
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-4, atol=1e-6)


def _custom_optimizer(lib):
    """A user-defined optimizer, as tutorials write them."""
    optim = _optim(lib)

    class MomentumSGD(optim.Optimizer):
        def __init__(self, params, lr=0.01, beta=0.9):
            super().__init__(params, {"lr": lr, "beta": beta})

        @lib.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with lib.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if "v" not in state:
                        state["v"] = lib.zeros_like(p)
                    state["v"].mul_(group["beta"]).add_(p.grad)
                    p.add_(state["v"], alpha=-group["lr"])
            return loss

    w, b, loss_fn = _problem(lib)
    opt = MomentumSGD([w, b], lr=0.05)
    for _ in range(5):
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
    return w.detach().cpu().numpy().copy(), opt


def test_custom_optimizer_subclass():
    w, opt = _custom_optimizer(jtensor)
    assert list(opt.state_dict()["state"][0]) == ["v"]
    assert opt.param_groups[0]["beta"] == 0.9
    if torch is not None:
        tw, topt = _custom_optimizer(torch)
        np.testing.assert_allclose(w, tw, rtol=1e-5, atol=1e-6)
        assert repr(opt).replace("MomentumSGD", "X") == repr(topt).replace("MomentumSGD", "X")


def test_required_hyperparameter():
    from jtensor.optim.optimizer import required

    class Needs(joptim.Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, {"lr": lr})

    p = jtensor.nn.Parameter(jtensor.ones(1))
    with pytest.raises(ValueError, match="didn't specify a value of required"):
        Needs([p])
    assert Needs([{"params": [p], "lr": 0.1}]).param_groups[0]["lr"] == 0.1


@needs_torch
def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    jp, tp = _params_with_grads(jtensor), _params_with_grads(torch)
    jn = jtensor.nn.utils.get_total_norm([p.grad for p in jp if p.grad is not None], 3.0)
    tn = torch.nn.utils.get_total_norm([p.grad for p in tp if p.grad is not None], 3.0)
    np.testing.assert_allclose(jn.item(), tn.item(), rtol=1e-6)
    jtensor.nn.utils.clip_grads_with_norm_(jp, 0.3, jn)
    torch.nn.utils.clip_grads_with_norm_(tp, 0.3, tn)
    for a, b in zip(jp, tp, strict=True):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_deprecated_alias_warns():
    p = jtensor.nn.Parameter(jtensor.zeros(2))
    p.grad = jtensor.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="deprecated"):
        jtensor.nn.utils.clip_grad_norm([p], 1.0)


@needs_torch
@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] != "SGD" or c[1].get("momentum")],
                         ids=[_ids(c) for c in CASES if c[0] != "SGD" or c[1].get("momentum")])
def test_float64_trajectory_matches_torch(name, kwargs):
    out = []
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.tensor(W0.astype(np.float64)))
        b = lib.nn.Parameter(lib.tensor(B0.astype(np.float64)))
        x, y = lib.tensor(X.astype(np.float64)), lib.tensor(Y.astype(np.float64))
        opt = getattr(_optim(lib), name)([w, b], **kwargs)
        for _ in range(10):
            opt.zero_grad()
            ((x @ w + b - y) ** 2).mean().backward()
            opt.step()
        state = opt.state_dict()["state"][0]
        out.append((w.detach().cpu().numpy().copy(), {k: str(v.dtype) for k, v in state.items()}))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    assert out[0][1] == out[1][1]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_step_update_equals_add_bit_for_bit_and_bumps_the_version_once(dtype):
    # SGD's ``p.add_(g, alpha=-lr)`` takes an array path for plain CPU float32/float64
    # parameters (issue 18): the same numbers and the same version bump as add_ itself.
    from jtensor.optim.optimizer import _add_

    d = getattr(jtensor, dtype)
    gen = jtensor.Generator().manual_seed(3)
    values = jtensor.randn(5, 7, generator=gen).to(d)
    grad = jtensor.randn(5, 7, generator=gen).to(d)
    p = jtensor.nn.Parameter(values.clone())
    q = values.clone()
    with jtensor.no_grad():
        before = p._version
        assert _add_(p, grad, alpha=-0.37) is p
        q.add_(grad, alpha=-0.37)
    assert p._version == before + 1
    assert jtensor.equal(p.detach(), q)


def test_step_update_of_a_traced_step_is_still_an_event():
    p = jtensor.nn.Parameter(jtensor.ones(3))
    p.grad = jtensor.full((3,), 2.0)
    opt = jtensor.optim.SGD([p], lr=0.25)
    with jtensor.trace.record() as recording:
        opt.step()
    # (a CUDA device also records the kernel's launch)
    assert [e.name for e in recording.events if e.kind != "launch"] == ["add_"]
    assert p.tolist() == [0.5, 0.5, 0.5] and p._version == 1


def test_step_update_refuses_an_inference_parameter_as_torch():
    def run(lib):
        with lib.inference_mode():
            p = lib.ones(3)
        p.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as caught:
            lib.optim.SGD([p], lr=0.1).step()
        return str(caught.value).split(".")[0], p

    message, p = run(jtensor)
    if torch is not None:
        assert message == run(torch)[0]
    # (PyTorch refuses after its kernel wrote, when it bumps the version; jtensor refuses
    # before, leaving the parameter as it was.)
    assert p.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("grad_value", [3e38, -3e38, float("inf"), float("nan")])
def test_step_update_that_overflows_is_applied_once_and_silently_under_warnings_as_errors(
        grad_value):
    # The array path of ``p.add_(g, alpha=-lr)`` writes in place: where warnings are errors,
    # NumPy raises after its whole write, which must not leave the step half done, repeated
    # or reported (PyTorch never warns about an overflowing update).
    def step(lib):
        p = lib.nn.Parameter(lib.tensor([3e38, -3e38, 1.0, 0.0]))
        p.grad = lib.full((4,), grad_value)
        lib.optim.SGD([p], lr=1.0).step()
        return p.detach().tolist(), p._version

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values, version = step(jtensor)
    assert version == 1
    if torch is not None:
        np.testing.assert_array_equal(values, step(torch)[0])
