"""Mixed precision: ``jtensor.amp.autocast`` (op policy, nesting, decorator, threads,
restoring the wrapped entry points, gradients) and ``GradScaler`` (scale, unscale_, skipped
steps, growth/backoff, state_dict, errors), against PyTorch where it is installed."""

import threading
import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.functional as JF
from jtensor.amp import GradScaler, autocast

try:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF
except ImportError:
    torch = tnn = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _policy_observations(lib, F, dtype_name):
    """The dtypes of a list of ops inside ``autocast('cpu', dtype)``."""
    dt = getattr(lib, dtype_name)
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((4, 5)).astype(np.float32))
    b = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    h = a.to(dt)
    target = lib.tensor([0, 1, 2, 3])
    img = lib.tensor(rng.standard_normal((1, 2, 5, 5)).astype(np.float32))
    ker = lib.tensor(rng.standard_normal((3, 2, 3, 3)).astype(np.float32))
    ops = {
        "operator @": lambda: a @ b,
        "Tensor.matmul": lambda: a.matmul(b),
        "matmul": lambda: lib.matmul(a, b),
        "mm": lambda: lib.mm(a, b),
        "Tensor.mm": lambda: a.mm(b),
        "bmm": lambda: lib.bmm(a[None], b[None]),
        "addmm": lambda: lib.addmm(b[0], a, b),
        "baddbmm": lambda: lib.baddbmm(lib.zeros(1, 4, 3), a[None], b[None]),
        "linear": lambda: F.linear(a, b.t()),
        "conv2d": lambda: F.conv2d(img, ker),
        "conv1d": lambda: F.conv1d(img[0], ker[:, :, 0]),
        "mixed matmul": lambda: h @ b,
        "f64 matmul": lambda: a.double() @ b.double(),
        "int matmul": lambda: lib.ones(2, 2, dtype=lib.int64) @ lib.ones(2, 2, dtype=lib.int64),
        "softmax low": lambda: F.softmax(h, -1),
        "log_softmax low": lambda: F.log_softmax(h, -1),
        "softmax f32": lambda: F.softmax(a, -1),
        "add": lambda: h + a,
        "relu": lambda: F.relu(h),
        "sum": lambda: h.sum(),
        "prod": lambda: h.prod(),
        "cross_entropy": lambda: F.cross_entropy(h, target),
        "nll_loss": lambda: F.nll_loss(h, target),
        "mse_loss": lambda: F.mse_loss(h, h),
        "l1_loss": lambda: F.l1_loss(h, h),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(h, h),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(h, h.sigmoid()),
    }
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.amp.autocast("cpu", dtype=dt):
            for name, fn in ops.items():
                try:
                    out[name] = str(fn().dtype)
                except Exception as e:  # noqa: BLE001 - a missing op is reported, not hidden
                    out[name] = f"error {type(e).__name__}"
    return out


@needs_torch
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_cpu_autocast_policy_matches_pytorch(dtype_name):
    ours = _policy_observations(jtensor, JF, dtype_name)
    theirs = _policy_observations(torch, TF, dtype_name)
    assert ours == theirs
    core = ["operator @", "matmul", "mm", "bmm", "linear", "conv2d", "cross_entropy",
            "nll_loss", "mse_loss", "mixed matmul", "f64 matmul", "int matmul", "softmax low"]
    assert all(ours[k] == theirs[k] for k in core), {k: (ours[k], theirs[k]) for k in core}


def test_autocast_policy_without_oracle():
    a, b = jtensor.randn(4, 5), jtensor.randn(5, 3)
    assert not jtensor.amp.is_autocast_enabled("cpu")
    with autocast("cpu") as ac:
        assert ac.fast_dtype == jtensor.bfloat16 and ac.device == "cpu"
        assert jtensor.amp.is_autocast_enabled("cpu")
        assert jtensor.amp.get_autocast_dtype("cpu") == jtensor.bfloat16
        assert (a @ b).dtype == jtensor.bfloat16
        assert JF.conv2d(jtensor.randn(1, 2, 4, 4), jtensor.randn(3, 2, 2, 2)).dtype == \
            jtensor.bfloat16
        assert JF.cross_entropy(a.half(), jtensor.tensor([0, 1, 2, 3])).dtype == \
            jtensor.float32
    assert (a @ b).dtype == jtensor.float32
    assert not jtensor.amp.is_autocast_enabled("cpu")


def test_no_entry_point_is_patched_and_early_bindings_are_cast_too():
    """Autocast is a step of each op's entry (no swapping of public names): a name bound
    before the region is cast like any other, and leaving a region (also by an exception)
    leaves nothing behind."""
    from jtensor import _autocast
    from jtensor import matmul as early_matmul

    before = (jtensor.matmul, jtensor.mm, jtensor.Tensor.__matmul__, jtensor.Tensor.matmul,
              JF.cross_entropy, JF.linear)
    a, b = jtensor.randn(2, 3), jtensor.randn(3, 2)
    with autocast("cpu", dtype=jtensor.float16):
        during = (jtensor.matmul, jtensor.mm, jtensor.Tensor.__matmul__,
                  jtensor.Tensor.matmul, JF.cross_entropy, JF.linear)
        assert early_matmul(a, b).dtype == jtensor.float16
        assert _autocast.active == 1
        with autocast("cpu"):
            assert _autocast.active == 2
        assert _autocast.active == 1
    assert all(x is y for x, y in zip(before, during, strict=True))
    assert _autocast.active == 0
    with pytest.raises(ZeroDivisionError), autocast("cpu"):
        1 / 0  # noqa: B018
    assert _autocast.active == 0 and early_matmul(a, b).dtype == jtensor.float32


def test_other_threads_are_not_cast_while_a_region_is_open():
    import threading

    a, b = jtensor.randn(2, 3), jtensor.randn(3, 2)
    seen = []
    with autocast("cpu"):
        worker = threading.Thread(target=lambda: seen.append((a @ b).dtype))
        worker.start()
        worker.join()
        assert (a @ b).dtype == jtensor.bfloat16
    assert seen == [jtensor.float32]


def test_nesting_disabling_and_decorator():
    a, b = jtensor.randn(2, 3), jtensor.randn(3, 2)
    with autocast("cpu", dtype=jtensor.float16):
        with autocast("cpu", enabled=False):
            assert (a @ b).dtype == jtensor.float32
            with autocast("cpu"):
                assert (a @ b).dtype == jtensor.bfloat16
            assert (a @ b).dtype == jtensor.float32
        assert (a @ b).dtype == jtensor.float16
        with autocast("cpu", dtype=jtensor.bfloat16):
            assert (a @ b).dtype == jtensor.bfloat16
        assert (a @ b).dtype == jtensor.float16

    @autocast("cpu")
    def f(x, y):
        return x @ y

    assert f(a, b).dtype == jtensor.bfloat16
    assert (a @ b).dtype == jtensor.float32
    with autocast("cpu", enabled=False):
        assert (a @ b).dtype == jtensor.float32


def test_autocast_is_per_thread():
    a, b = jtensor.randn(2, 3), jtensor.randn(3, 2)
    seen = {}
    inside = threading.Event()
    done = threading.Event()

    def other():
        inside.wait()
        seen["other"] = (a @ b).dtype
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with autocast("cpu"):
        inside.set()
        done.wait(10)
        seen["main"] = (a @ b).dtype
    t.join()
    assert seen == {"other": jtensor.float32, "main": jtensor.bfloat16}


def test_unsupported_dtypes_and_devices():
    with pytest.warns(UserWarning, match="CPU Autocast only supports"):
        ac = autocast("cpu", dtype=jtensor.float64)
    with ac:
        assert (jtensor.ones(2, 2) @ jtensor.ones(2, 2)).dtype == jtensor.float32
    if not jtensor.amp.is_autocast_available("cuda"):
        with pytest.warns(UserWarning, match="CUDA is not available"), autocast("cuda"):
            assert (jtensor.ones(2, 2) @ jtensor.ones(2, 2)).dtype == jtensor.float32
    with pytest.raises(RuntimeError):
        autocast("foo")
    with pytest.raises(ValueError):
        autocast(3)


@needs_torch
def test_unsupported_dtype_behaviour_matches_pytorch():
    for lib in (torch, jtensor):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.amp.autocast("cpu", dtype=lib.float32):
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32
        assert any("CPU Autocast only supports" in str(x.message) for x in w)
    with pytest.raises(RuntimeError):
        torch.amp.autocast("foo")


@needs_torch
def test_autocast_gradients_match_pytorch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 2, 6, 6)).astype(np.float32)
    y = rng.integers(0, 3, 6)

    def run(lib, nn, F, model):
        xs = lib.tensor(x)
        with lib.amp.autocast("cpu", dtype=lib.bfloat16):
            logits = model(xs)
            loss = F.cross_entropy(logits, lib.tensor(y))
        loss.backward()
        return logits, loss, [p.grad for p in model.parameters()]

    def build(nn):
        return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(36, 3))

    t_model = build(tnn)
    j_model = build(jnn)
    j_model.load_state_dict({k: jtensor.tensor(v.numpy())
                             for k, v in t_model.state_dict().items()})
    jl, jloss, jg = run(jtensor, jnn, JF, j_model)
    tl, tloss, tg = run(torch, tnn, TF, t_model)
    assert str(jl.dtype) == str(tl.dtype) == "torch.bfloat16"
    assert str(jloss.dtype) == str(tloss.dtype) == "torch.float32"
    assert type(jl.grad_fn).__name__ == type(tl.grad_fn).__name__
    np.testing.assert_allclose(jloss.item(), tloss.item(), rtol=2e-2)
    for a, b in zip(jg, tg, strict=True):
        assert str(a.dtype) == str(b.dtype) == "torch.float32"
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0.1, atol=3e-2)


def test_weight_cast_is_cached_within_a_region():
    w = jtensor.randn(3, 3, requires_grad=True)
    x = jtensor.randn(2, 3)
    with autocast("cpu"):
        y1 = x @ w
        y2 = x @ w
        assert y1.grad_fn.next_functions[1][0] is y2.grad_fn.next_functions[1][0]
    with autocast("cpu", cache_enabled=False):
        y1 = x @ w
        y2 = x @ w
        assert y1.grad_fn.next_functions[1][0] is not y2.grad_fn.next_functions[1][0]
    (y1.float().sum() + y2.float().sum()).backward()
    assert w.grad.dtype == jtensor.float32


def test_cast_inputs_helper():
    from jtensor.amp.autocast_mode import cast_inputs

    a = jtensor.ones(2)
    assert cast_inputs("lower", a)[0] is a
    with autocast("cpu"):
        lo, none, i, d = cast_inputs("lower", a, None, jtensor.ones(2, dtype=jtensor.int64),
                                     a.double())
        assert lo.dtype == jtensor.bfloat16 and none is None
        assert i.dtype == jtensor.int64 and d.dtype == jtensor.float64
        assert cast_inputs("fp32", lo)[0].dtype == jtensor.float32


# ---------------------------------------------------------------------------- GradScaler
class _SGD:
    """A tiny optimizer (plain SGD) so the scaler is tested without jtensor.optim."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params), "lr": lr}]

    def step(self):
        with jtensor.no_grad():
            for p in self.param_groups[0]["params"]:
                if p.grad is not None:
                    p.sub_(p.grad * self.param_groups[0]["lr"])
        return "stepped"

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None


def _scaler_trajectory(lib, make_opt):
    scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    w = lib.nn.Parameter(lib.ones(3))
    opt = make_opt([w])
    rows = []
    for v in [1.0, float("inf"), 2.0, 3.0, float("nan"), 1.0, 0.5]:
        opt.zero_grad()
        loss = (w * v).sum()
        scaler.scale(loss).backward()
        ret = scaler.step(opt)
        scaler.update()
        rows.append((scaler.get_scale(), [round(x, 6) for x in w.tolist()],
                     scaler._get_growth_tracker(), ret is None))
    rows.append(scaler.state_dict())
    return rows


def test_grad_scaler_without_oracle():
    rows = _scaler_trajectory(jtensor, lambda p: _SGD(p, 0.1))
    assert rows[0] == (4.0, [0.9, 0.9, 0.9], 1, False)
    assert rows[1] == (2.0, [0.9, 0.9, 0.9], 0, True)  # inf: skipped, backed off
    assert rows[3][0] == 4.0  # two clean steps: grown
    assert rows[4][3] and rows[4][0] == 2.0  # nan: skipped
    assert rows[-1] == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                        "growth_interval": 2, "_growth_tracker": 0}


@needs_torch
def test_grad_scaler_trajectory_matches_pytorch():
    ours = _scaler_trajectory(jtensor, lambda p: _SGD(p, 0.1))
    class Stepped(torch.optim.SGD):
        # Returns what _SGD returns, so "the scaler handed back step()'s result, or None
        # when it skipped the step" is compared.
        def step(self, closure=None):
            super().step(closure)
            return "stepped"

    theirs = _scaler_trajectory(torch, lambda p: Stepped(p, lr=0.1))
    for a, b in zip(ours[:-1], theirs[:-1], strict=True):
        assert a[0] == b[0] and a[2] == b[2] and a[3] == b[3]
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
    assert ours[-1] == theirs[-1]
    import jtensor.optim as joptim

    with_optim = _scaler_trajectory(jtensor, lambda p: joptim.SGD(p, lr=0.1))
    assert [r[0] for r in with_optim[:-1]] == [r[0] for r in theirs[:-1]]
    for a, b in zip(with_optim[:-1], theirs[:-1], strict=True):
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6)


def _scaler_errors(lib, make_opt):
    out = []

    def record(fn):
        try:
            fn()
            out.append(None)
        except BaseException as e:  # noqa: BLE001 - AssertionError is part of the contract
            out.append(next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"))

    w = lib.nn.Parameter(lib.ones(3))
    opt = make_opt([w])
    fresh = lib.amp.GradScaler("cpu")
    record(lambda: fresh.step(opt))
    record(lambda: fresh.update())
    s = lib.amp.GradScaler("cpu", init_scale=8.0)
    s.scale((w * 2).sum()).backward()
    s.unscale_(opt)
    out.append([round(x, 6) for x in w.grad.tolist()])
    record(lambda: s.unscale_(opt))
    s.step(opt)
    record(lambda: s.step(opt))
    record(lambda: s.unscale_(opt))
    s.update()
    record(lambda: s.update())
    record(lambda: s.update(lib.tensor([1.0, 2.0])))
    s.scale((w * 2).sum())
    record(lambda: s.step(opt, closure=lambda: 1))
    s.update(3.0)
    out.append(s.get_scale())
    s.update(lib.tensor(5.0))
    out.append(s.get_scale())
    record(lambda: s.load_state_dict({}))
    record(lambda: lib.amp.GradScaler("cpu", growth_factor=0.5))
    scaled = s.scale([lib.tensor(1.0), (lib.tensor(2.0),)])
    out.append((type(scaled).__name__, type(scaled[1]).__name__,
                scaled[0].item(), scaled[1][0].item()))
    off = lib.amp.GradScaler("cpu", enabled=False)
    t = lib.tensor(2.0)
    out.append((off.scale(t) is t, off.get_scale(), off.state_dict(), off.is_enabled()))
    s2 = lib.amp.GradScaler("cpu")
    s2.load_state_dict({"scale": 16.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                        "growth_interval": 7, "_growth_tracker": 2})
    out.append((s2.get_scale(), s2.get_growth_factor(), s2.get_backoff_factor(),
                s2.get_growth_interval(), s2.state_dict()))
    return out


def test_grad_scaler_errors_without_oracle():
    obs = _scaler_errors(jtensor, lambda p: _SGD(p, 0.1))
    assert obs[0] == "AssertionError" and obs[2] == [2.0, 2.0, 2.0]
    assert obs[3] == "RuntimeError"


@needs_torch
def test_grad_scaler_errors_match_pytorch():
    ours = _scaler_errors(jtensor, lambda p: _SGD(p, 0.1))
    theirs = _scaler_errors(torch, lambda p: torch.optim.SGD(p, lr=0.1))
    assert ours == theirs


def test_grad_scaler_unscale_rejects_fp16_grads_and_cuda_scaler_disables():
    w = jnn.Parameter(jtensor.ones(2, dtype=jtensor.float16))
    opt = _SGD([w], 0.1)
    s = GradScaler("cpu")
    s.scale((w.float() * 2).sum()).backward()
    with pytest.raises(ValueError, match="FP16"):
        s.unscale_(opt)
    if not jtensor.amp.is_autocast_available("cuda"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            off = GradScaler()
        assert not off.is_enabled() and off.step(opt) == "stepped"


def test_mixed_precision_recipe_trains():
    """The seed-004 recipe on CPU: autocast + GradScaler around a small conv net."""
    import jtensor.optim as optim
    jtensor.manual_seed(0)
    rng = np.random.default_rng(0)
    x = jtensor.tensor(rng.standard_normal((64, 1, 8, 8)).astype(np.float32))
    y = jtensor.tensor((x.numpy().mean(axis=(1, 2, 3)) > 0).astype(np.int64))
    model = jnn.Sequential(jnn.Conv2d(1, 4, 3, padding=1), jnn.ReLU(), jnn.MaxPool2d(2),
                           jnn.Flatten(), jnn.Linear(64, 2))
    criterion = jnn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.2)
    scaler = GradScaler("cpu")
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        with autocast("cpu", dtype=jtensor.bfloat16):
            logits = model(x)
            loss = criterion(logits, y)
        assert logits.dtype == jtensor.bfloat16 and loss.dtype == jtensor.float32
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype == jtensor.float32 for p in model.parameters())
    assert losses[-1] < 0.8 * losses[0]
    assert scaler.get_scale() == 65536.0


def test_backward_inside_the_region_is_not_autocast():
    # inverse is not autocast, but its backward multiplies matrices: inside the region
    # those products must stay float32.
    rng = np.random.default_rng(0)
    a = jtensor.tensor((rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32),
                       requires_grad=True)
    for create_graph in (False, True):
        with autocast("cpu"):
            y = jtensor.inverse(a).sum()
            (g_inside,) = jtensor.autograd.grad(y, a, create_graph=create_graph)
        with autocast("cpu"):
            y = jtensor.inverse(a).sum()
        (g_outside,) = jtensor.autograd.grad(y, a, create_graph=create_graph)
        assert g_inside.dtype == g_outside.dtype == jtensor.float32
        assert g_inside.tolist() == g_outside.tolist()


def test_seed_004_recipe_with_cuda_autocast_on_a_cpu_machine():
    """``autocast('cuda', float16)`` + ``GradScaler('cuda')`` where CUDA is missing: both warn
    and disable themselves, so the recipe runs in float32, as PyTorch does."""
    import jtensor.optim as optim
    if jtensor.amp.is_autocast_available("cuda"):
        pytest.skip("a CUDA backend is present")
    model = jnn.Sequential(jnn.Linear(4, 8), jnn.ReLU(), jnn.Linear(8, 2))
    criterion = jnn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    x, y = jtensor.randn(16, 4), jtensor.randint(0, 2, (16,))
    with pytest.warns(UserWarning):
        scaler = GradScaler()
    for _ in range(3):
        optimizer.zero_grad()
        with pytest.warns(UserWarning):
            region = autocast("cuda", dtype=jtensor.float16)
        with region:
            logits = model(x)
            loss = criterion(logits, y)
        assert logits.dtype == jtensor.float32
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    assert scaler.get_scale() == 1.0
