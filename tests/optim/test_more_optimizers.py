"""Adamax, NAdam, RAdam, Rprop, ASGD, Adafactor and Muon against PyTorch's: a small network
with two param groups of different hyperparameters stepped in lockstep with PyTorch, the
parameters and every state entry compared after each step (float64 and float32); PyTorch's
argument errors, defaults, repr, and the state_dict (its structure, a round trip, and a
PyTorch state_dict loaded)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)
DATA = {
    "w1": RNG.standard_normal((4, 3)),
    "b1": RNG.standard_normal(4),
    "w2": RNG.standard_normal((2, 4)),
    "b2": RNG.standard_normal(2),
    "x": RNG.standard_normal((8, 3)),
    "y": RNG.standard_normal((8, 2)),
}


class Net:
    """``tanh(x w1^T + b1) w2^T + b2`` fitted to ``y`` by squared error, in ``lib``."""

    def __init__(self, lib, dtype_name, matrices_only=False):
        dtype = getattr(lib, dtype_name)
        self.lib = lib
        self.t = {k: lib.tensor(v, dtype=dtype) for k, v in DATA.items()}
        names = ("w1", "w2") if matrices_only else ("w1", "b1", "w2", "b2")
        for name in names:
            self.t[name].requires_grad_(True)
        self.params = [self.t[name] for name in names]

    def groups(self, first, second):
        half = len(self.params) // 2
        return [{"params": self.params[:half], **first}, {"params": self.params[half:], **second}]

    def loss(self):
        t = self.t
        hidden = self.lib.tanh(t["x"] @ t["w1"].t() + t["b1"])
        return ((hidden @ t["w2"].t() + t["b2"] - t["y"]) ** 2).mean()

    def backward(self, opt):
        opt.zero_grad()
        loss = self.loss()
        loss.backward()
        return loss


def as_numpy(value):
    if isinstance(value, (jtensor.Tensor, torch.Tensor)):
        return (
            value.detach().float().numpy()
            if str(value.dtype).endswith("bfloat16")
            else value.detach().numpy()
        )
    return value


def assert_same_state(mine, theirs, rtol):
    """Every per-parameter state entry: same keys, dtypes, shapes and values."""
    assert len(mine.state) == len(theirs.state)
    for group_m, group_t in zip(mine.param_groups, theirs.param_groups, strict=True):
        for pm, pt in zip(group_m["params"], group_t["params"], strict=True):
            sm, st = mine.state[pm], theirs.state[pt]
            assert list(sm) == list(st)
            for key in st:
                a, b = sm[key], st[key]
                if isinstance(b, torch.Tensor):
                    assert str(a.dtype) == str(b.dtype), key
                    assert tuple(a.shape) == tuple(b.shape), key
                    np.testing.assert_allclose(
                        as_numpy(a), as_numpy(b), rtol=rtol, atol=rtol, err_msg=key
                    )
                else:
                    assert a == b, key


def assert_same_params(mine, theirs, rtol):
    for a, b in zip(mine.params, theirs.params, strict=True):
        np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=rtol, atol=rtol)


CASES = {
    "Adamax": [
        ({}, {}),
        (
            {"lr": 0.05, "betas": (0.8, 0.95), "weight_decay": 0.1},
            {"lr": 0.01, "eps": 1e-3, "maximize": True},
        ),
    ],
    "NAdam": [
        ({}, {"lr": 0.01, "momentum_decay": 0.05}),
        (
            {"weight_decay": 0.1, "decoupled_weight_decay": True, "lr": 0.05},
            {"weight_decay": 0.2, "maximize": True, "betas": (0.7, 0.9)},
        ),
    ],
    "RAdam": [
        ({}, {"lr": 0.05, "betas": (0.9, 0.9)}),
        (
            {"weight_decay": 0.1, "decoupled_weight_decay": True, "lr": 0.05},
            {"weight_decay": 0.2, "maximize": True, "eps": 1e-4},
        ),
    ],
    "Rprop": [
        ({}, {"lr": 0.05}),
        (
            {"etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05)},
            {"lr": 0.002, "maximize": True, "step_sizes": (1e-4, 1.0)},
        ),
    ],
    "ASGD": [
        ({}, {"lr": 0.05}),
        (
            {"t0": 3, "lambd": 1e-2, "alpha": 0.5, "weight_decay": 0.1, "lr": 0.1},
            {"t0": 0, "lr": 0.02, "maximize": True},
        ),
    ],
    "Adafactor": [
        ({}, {"lr": 0.05}),
        (
            {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-30, 1e-2), "d": 2.0, "weight_decay": 0.1},
            {"lr": 0.002, "maximize": True},
        ),
    ],
}

STEPS = 12


def lockstep(name, first, second, dtype_name, rtol, matrices_only=False, check=True):
    """Step both libraries ``STEPS`` times, comparing after each; the two optimizers."""
    nets = [Net(lib, dtype_name, matrices_only) for lib in (jtensor, torch)]
    opts = [getattr(net.lib.optim, name)(net.groups(first, second)) for net in nets]
    for _ in range(STEPS):
        losses = [net.backward(opt) for net, opt in zip(nets, opts, strict=True)]
        np.testing.assert_allclose(losses[0].item(), losses[1].item(), rtol=rtol)
        for opt in opts:
            opt.step()
        if check:
            assert_same_params(*nets, rtol)
            assert_same_state(*opts, rtol)
    return nets, opts


CASE_IDS = [(name, i) for name, cases in CASES.items() for i in range(len(cases))]


@pytest.mark.parametrize(("name", "case"), CASE_IDS)
def test_steps_follow_pytorch_float64(name, case):
    first, second = CASES[name][case]
    lockstep(name, first, second, "float64", 1e-12)


@pytest.mark.parametrize(("name", "case"), CASE_IDS)
def test_steps_follow_pytorch_float32(name, case):
    first, second = CASES[name][case]
    lockstep(name, first, second, "float32", 2e-5)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({}, {}),
        (
            {"lr": 0.02, "weight_decay": 0.0, "nesterov": False},
            {"lr": 0.01, "momentum": 0.5, "adjust_lr_fn": "match_rms_adamw"},
        ),
    ],
)
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_muon_follows_pytorch(first, second, dtype_name):
    # the Newton-Schulz iteration runs in bfloat16 (products rounded to bfloat16 as PyTorch's)
    rtol = 1e-12 if dtype_name == "float64" else 1e-6
    lockstep("Muon", first, second, dtype_name, rtol, matrices_only=True)


@pytest.mark.parametrize("name", [*CASES, "Muon"])
def test_defaults_and_repr_match(name):
    reps, groups = [], []
    for lib in (jtensor, torch):
        net = Net(lib, "float64", matrices_only=name == "Muon")
        opt = getattr(lib.optim, name)(net.groups({}, {"lr": 0.5}))
        reps.append(repr(opt))
        groups.append([{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups])
        assert opt.defaults == groups[-1][0]
    assert reps[0] == reps[1]
    assert groups[0] == groups[1]


ERRORS = {
    "Adamax": [
        {"lr": -1.0},
        {"eps": -1.0},
        {"betas": (1.0, 0.9)},
        {"betas": (0.9, -0.1)},
        {"weight_decay": -0.5},
    ],
    "NAdam": [
        {"lr": -1.0},
        {"eps": -1e-3},
        {"betas": (-0.1, 0.9)},
        {"betas": (0.9, 1.0)},
        {"weight_decay": -1.0},
        {"momentum_decay": -1.0},
    ],
    "RAdam": [{"lr": -0.5}, {"eps": -1.0}, {"betas": (1.5, 0.9)}, {"weight_decay": -1}],
    "Rprop": [{"lr": -1.0}, {"etas": (1.5, 1.2)}, {"etas": (0.5, 0.9)}, {"etas": (0.0, 1.2)}],
    "ASGD": [{"lr": -1.0}, {"weight_decay": -0.1}],
    "Adafactor": [
        {"lr": -1.0},
        {"beta2_decay": 0.5},
        {"eps": (-1.0, 1e-3)},
        {"eps": (None, -1.0)},
        {"d": 0.5},
        {"weight_decay": -1.0},
    ],
    "Muon": [{"lr": -1.0}, {"momentum": -0.5}, {"weight_decay": -0.1}, {"adjust_lr_fn": "other"}],
}


@pytest.mark.parametrize(("name", "kwargs"), [(n, kw) for n, kws in ERRORS.items() for kw in kws])
def test_argument_errors_match(name, kwargs):
    messages = []
    for lib in (jtensor, torch):
        p = lib.zeros(2, 2, requires_grad=True)
        with pytest.raises(ValueError) as info:
            getattr(lib.optim, name)([p], **kwargs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_muon_refuses_vectors_and_tensor_lr_checks():
    for lib in (jtensor, torch):
        with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
            lib.optim.Muon([lib.zeros(3, requires_grad=True)])
        for name in ("Adamax", "NAdam", "RAdam", "Rprop", "ASGD"):
            with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
                getattr(lib.optim, name)(
                    [lib.zeros(2, requires_grad=True)], lr=lib.tensor([0.1, 0.2])
                )


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_sparse_gradients_are_refused(name):
    for lib in (jtensor, torch):
        emb = lib.nn.Embedding(4, 2, sparse=True)
        opt = getattr(lib.optim, name)(emb.parameters())
        emb(lib.tensor([1, 2])).sum().backward()
        with pytest.raises(RuntimeError, match=f"{name} does not support sparse gradients"):
            opt.step()


def to_jtensor(value):
    """A PyTorch state_dict's tensors as jtensor tensors (the structure kept)."""
    if isinstance(value, torch.Tensor):
        return jtensor.tensor(value.numpy(), dtype=getattr(jtensor, str(value.dtype)[6:]))
    if isinstance(value, dict):
        return {k: to_jtensor(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_jtensor(v) for v in value]
    return value


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_round_trip_and_pytorch_state_dict(name):
    first, second = CASES[name][-1]
    nets, opts = lockstep(name, first, second, "float64", 1e-12, check=False)
    mine, theirs = (opt.state_dict() for opt in opts)
    assert mine["param_groups"] == theirs["param_groups"]
    assert list(mine["state"]) == list(theirs["state"])
    for index, entry in theirs["state"].items():
        assert list(mine["state"][index]) == list(entry)
        for key, value in entry.items():
            assert tuple(mine["state"][index][key].shape) == tuple(value.shape)
    # fresh optimizers on copies of the parameters: jtensor's loads its own state_dict and
    # PyTorch's (converted), PyTorch's loads its own (loading casts the state to the
    # parameters' dtype, step excepted); all three continue alike
    followers = []
    for lib, saved in ((jtensor, mine), (jtensor, to_jtensor(theirs)), (torch, theirs)):
        net = Net(lib, "float64")
        with lib.no_grad():
            for p, q in zip(net.params, nets[lib is torch].params, strict=True):
                p.copy_(q)
        opt = getattr(lib.optim, name)(net.groups(first, second))
        opt.load_state_dict(saved)
        followers.append((net, opt))
    reference = followers.pop()
    for _ in range(4):
        for net, opt in [*followers, reference]:
            net.backward(opt)
            opt.step()
        for net, opt in followers:
            assert_same_params(net, reference[0], 1e-12)
            assert_same_state(opt, reference[1], 1e-12)


def test_exports_match_pytorch():
    def public(module):
        return sorted(n for n in dir(module) if not n.startswith("_"))

    assert public(jtensor.optim) == public(torch.optim)
    assert sorted(jtensor.optim.__all__) == sorted(torch.optim.__all__)
    import importlib

    for lib in (jtensor, torch):  # the modules import by name, yet are not attributes
        module = importlib.import_module(f"{lib.__name__}.optim.sgd")
        assert module.SGD is lib.optim.SGD
        assert not hasattr(lib.optim, "sgd")


def test_adafactor_and_muon_docstrings_run():
    # their __module__ is jtensor.optim (PyTorch's is torch.optim), so doctest.testmod of
    # their modules skips them: run their examples directly
    import doctest

    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for cls in (jtensor.optim.Adafactor, jtensor.optim.Muon):
        for test in doctest.DocTestFinder().find(cls):
            runner.run(test)
    assert runner.failures == 0
    assert runner.tries > 0


def test_muon_state_dict_matches_pytorch():
    nets, opts = lockstep(
        "Muon", {}, {"lr": 0.01}, "float32", 2e-2, matrices_only=True, check=False
    )
    mine, theirs = (opt.state_dict() for opt in opts)
    assert mine["param_groups"] == theirs["param_groups"]
    assert [list(v) for v in mine["state"].values()] == [list(v) for v in theirs["state"].values()]
    net = Net(jtensor, "float32", matrices_only=True)
    opt = jtensor.optim.Muon(net.groups({}, {"lr": 0.01}))
    opt.load_state_dict(to_jtensor(theirs))
    assert_same_state(opt, opts[1], 1e-7)


def swap_run(lib):
    """Adam stepped inside swap_in_optimizer_params_and_state on other tensors and a saved
    state_dict: what the swapped-in tensors, the saved state and the live optimizer hold."""
    net = Net(lib, "float64")
    opt = lib.optim.Adam(net.groups({}, {"lr": 0.01}))
    net.backward(opt)
    opt.step()
    saved = {
        "state": {
            k: {n: v.clone() for n, v in s.items()} for k, s in opt.state_dict()["state"].items()
        },
        "param_groups": [dict(g, lr=0.5) for g in opt.state_dict()["param_groups"]],
    }
    others = {
        f"p{i}": p.detach().clone().mul(2).requires_grad_(True) for i, p in enumerate(net.params)
    }
    for p in others.values():
        p.grad = lib.ones_like(p)
    with lib.optim.swap_in_optimizer_params_and_state(opt, others, saved):
        assert opt.param_groups[0]["lr"] == 0.5
        opt.step()
    live = [opt.param_groups[i]["lr"] for i in (0, 1)]
    return (
        [p.detach().numpy() for p in others.values()],
        [saved["state"][0]["exp_avg"].numpy(), float(saved["state"][0]["step"])],
        live,
        [p.detach().numpy() for p in net.params],
        float(opt.state[net.params[0]]["step"]),
    )


def test_swap_in_optimizer_params_and_state_matches_pytorch():
    mine, theirs = swap_run(jtensor), swap_run(torch)
    for a, b in zip(
        mine[0] + mine[1][:1] + mine[3], theirs[0] + theirs[1][:1] + theirs[3], strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert mine[1][1] == theirs[1][1] == 2.0  # the swapped-in step counted on in place
    assert mine[2] == theirs[2] == [0.001, 0.01]
    assert mine[4] == theirs[4] == 1.0


def test_swap_in_errors_match_pytorch():
    out = []
    for lib in (jtensor, torch):
        net = Net(lib, "float64")
        opt = lib.optim.Adam(net.params)
        messages = []
        for saved in ({"state": {}, "param_groups": []}, None):
            with (
                pytest.raises(RuntimeError) as info,
                lib.optim.swap_in_optimizer_params_and_state(opt, {}, saved),
            ):
                pass
            messages.append(str(info.value))
        net.backward(opt)
        opt.step()
        sd = opt.state_dict()
        for saved in (
            None,
            {"state": [], "param_groups": []},
            {"state": sd["state"], "param_groups": []},
            {"state": sd["state"], "param_groups": [{"params": [0]}]},
            {"state": {9: {}}, "param_groups": sd["param_groups"]},
        ):
            with (
                pytest.raises(RuntimeError) as info,
                lib.optim.swap_in_optimizer_params_and_state(opt, {}, saved),
            ):
                pass
            messages.append(str(info.value))
        out.append(messages)
    assert out[0] == out[1]


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_capturable_on_the_cpu_fails_at_step_as_pytorch(name):
    messages = []
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = getattr(lib.optim, name)([w], capturable=True)
        (w * w).sum().backward()
        with pytest.raises(AssertionError) as info:
            opt.step()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
@pytest.mark.parametrize("option", ["foreach", "tensor_lr"])
def test_foreach_and_tensor_lr_follow_pytorch(name, option):
    results = []
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64))
        kwargs = {"foreach": True} if option == "foreach" else {"lr": lib.tensor(0.01)}
        opt = getattr(lib.optim, name)([w], **kwargs)
        for _ in range(5):
            opt.zero_grad()
            (w * w * w).sum().backward()
            opt.step()
        results.append(w.detach().numpy().copy())
    # ASGD: PyTorch's multi-tensor path computes eta in another order (jtensor has one
    # path); with a float32 tensor lr, eta's float32 ``** alpha`` rounds differently in
    # jtensor's pow (1.0000040531158447 ** 0.75: torch 1.0000029802, jtensor 1.0000030994)
    rtol = 1e-8 if name == "ASGD" else 1e-12
    np.testing.assert_allclose(results[0], results[1], rtol=rtol)


def test_adafactor_on_a_3d_parameter_follows_pytorch():
    # row_var/col_var of a batch of matrices: the statistics reduce the last two dimensions
    values = np.random.default_rng(5).standard_normal((3, 4, 5))
    pairs = []
    for lib in (jtensor, torch):
        a = lib.tensor(values, requires_grad=True)
        pairs.append((a, lib.optim.Adafactor([a], lr=0.05, weight_decay=0.01)))
    for _ in range(STEPS):
        for a, opt in pairs:
            opt.zero_grad()
            (a**3).sum().backward()
            opt.step()
        (a, mine), (b, theirs) = pairs
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
        for key in ("row_var", "col_var"):
            assert tuple(mine.state[a][key].shape) == tuple(theirs.state[b][key].shape)
            np.testing.assert_allclose(
                mine.state[a][key].numpy(), theirs.state[b][key].numpy(), rtol=1e-12
            )


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_differentiable_step_follows_pytorch(name):
    # differentiable=True: the step is recorded, so a loss of the updated parameter
    # differentiates back to the parameter before it (PyTorch's out-of-place paths)
    results = []
    for lib in (jtensor, torch):
        leaf = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        p = leaf.clone()
        p.grad = lib.tensor([0.3, -0.1, 0.2], dtype=lib.float64, requires_grad=True)
        getattr(lib.optim, name)([p], differentiable=True, lr=0.1).step()
        (p * p).sum().backward()
        results.append((p.detach().numpy().copy(), leaf.grad.numpy().copy()))
    # NAdam: PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number``, which rounds
    # its float32 coefficient differently from jtensor's division
    rtol = 1e-7 if name == "NAdam" else 1e-12
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=rtol)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("Adafactor", {"foreach": True}),
        ("Adafactor", {"lr": 0.01}),
        ("Adafactor", {"lr": 0.01, "weight_decay": 0.1}),
        ("Muon", {"lr": 0.01}),
    ],
)
def test_adafactor_and_muon_options_follow_pytorch(name, kwargs):
    # "lr" is given as a 0-d float32 tensor: PyTorch keeps it a tensor in the step
    results = []
    for lib in (jtensor, torch):
        w = lib.tensor(np.arange(12.0).reshape(3, 4) / 7 - 0.5, requires_grad=True)
        options = {k: lib.tensor(v) if k == "lr" else v for k, v in kwargs.items()}
        opt = getattr(lib.optim, name)([w], **options)
        for _ in range(5):
            opt.zero_grad()
            (w**3).sum().backward()
            opt.step()
        results.append(w.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)
