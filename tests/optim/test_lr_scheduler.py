"""``jtensor.optim.lr_scheduler``: every scheduler's lr (and momentum) sequence over 30 steps
equals PyTorch's exactly; state_dict round trips; PyTorch's warnings and errors."""

import pickle
import warnings

import pytest

import jtensor
import jtensor.optim as joptim
from jtensor.optim import lr_scheduler as jsched

try:
    import torch
except ImportError:
    torch = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

STEPS = 30


def _lib_optim(lib):
    return joptim if lib is jtensor else torch.optim


def _make_opt(lib, optimizer="SGD", two_groups=True):
    optim = _lib_optim(lib)
    a = lib.nn.Parameter(lib.ones(2))
    b = lib.nn.Parameter(lib.ones(3))
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}] if two_groups else [a, b]
    if optimizer == "SGD":
        return optim.SGD(groups, lr=0.1, momentum=0.9)
    return optim.Adam(groups, lr=0.1)


class Halver:
    """A callable object (its __dict__ goes into LambdaLR's state_dict)."""

    def __init__(self):
        self.factor = 0.9

    def __call__(self, epoch):
        return self.factor**epoch


SCHEDULES = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=4, gamma=0.5),
    "StepLR-default": lambda s, o: s.StepLR(o, step_size=3),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.3),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingLR-eta": lambda s, o: s.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda e: 1.0 / (1 + e)),
    "LambdaLR-list": lambda s, o: s.LambdaLR(o, [lambda e: 0.95**e, Halver()]),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=1.0, total_steps=STEPS + 1),
    "OneCycleLR-linear": lambda s, o: s.OneCycleLR(
        o,
        max_lr=[1.0, 0.5],
        epochs=4,
        steps_per_epoch=8,
        anneal_strategy="linear",
        pct_start=0.25,
        div_factor=10.0,
    ),
    "OneCycleLR-three-phase": lambda s, o: s.OneCycleLR(
        o, max_lr=0.8, total_steps=STEPS, three_phase=True, final_div_factor=100.0
    ),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lambda e: 0.97),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=12),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=20, power=2.0),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2),
    "CosineAnnealingWarmRestarts-eta": lambda s, o: s.CosineAnnealingWarmRestarts(
        o, T_0=7, eta_min=0.01
    ),
    "SequentialLR": lambda s, o: s.SequentialLR(
        o,
        [
            s.LinearLR(o, start_factor=0.2, total_iters=5),
            s.CosineAnnealingLR(o, T_max=10),
            s.ExponentialLR(o, gamma=0.9),
        ],
        milestones=[5, 18],
    ),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler(
        [
            s.ConstantLR(o, factor=0.5, total_iters=4),
            s.ExponentialLR(o, gamma=0.95),
            s.StepLR(o, step_size=7, gamma=0.5),
        ]
    ),
    "CyclicLR": lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=3
    ),
    "CyclicLR-triangular2": lambda s, o: s.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, mode="triangular2"
    ),
    "CyclicLR-exp_range": lambda s, o: s.CyclicLR(
        o,
        base_lr=0.01,
        max_lr=0.1,
        step_size_up=5,
        mode="exp_range",
        gamma=0.97,
        cycle_momentum=False,
    ),
    "OneCycleLR-no-momentum": lambda s, o: s.OneCycleLR(
        o, max_lr=0.8, total_steps=STEPS, cycle_momentum=False
    ),
}


def _lr_sequence(lib, name, optimizer="SGD"):
    opt = _make_opt(lib, optimizer)
    sched = SCHEDULES[name](_lib_optim(lib).lr_scheduler, opt)
    key = "betas" if optimizer == "Adam" else "momentum"
    seq = [
        (
            list(sched.get_last_lr()),
            [g["lr"] for g in opt.param_groups],
            [g[key] for g in opt.param_groups],
        )
    ]
    for _ in range(STEPS):
        opt.step()
        sched.step()
        seq.append(
            (
                list(sched.get_last_lr()),
                [g["lr"] for g in opt.param_groups],
                [g[key] for g in opt.param_groups],
            )
        )
    return seq, sched


@needs_torch
@pytest.mark.parametrize("name", sorted(SCHEDULES))
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_schedule_equals_torch(name, optimizer):
    ours, jsch = _lr_sequence(jtensor, name, optimizer)
    theirs, tsch = _lr_sequence(torch, name, optimizer)
    assert ours == theirs  # exactly the same floats
    js, ts = jsch.state_dict(), tsch.state_dict()
    assert sorted(js) == sorted(ts)
    for k in ts:
        if k not in ("lr_lambdas",):
            assert js[k] == ts[k], k
    assert js.get("lr_lambdas") == ts.get("lr_lambdas")


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_state_dict_round_trip(name):
    full, _ = _lr_sequence(jtensor, name)
    opt = _make_opt(jtensor)
    sched = SCHEDULES[name](jsched, opt)
    for _ in range(10):
        opt.step()
        sched.step()
    saved = (
        pickle.loads(pickle.dumps(sched.state_dict()))
        if "LambdaLR" not in name
        else sched.state_dict()
    )
    opt_saved = opt.state_dict()
    # a fresh optimizer + scheduler, restored, continues the same schedule
    opt2 = _make_opt(jtensor)
    sched2 = SCHEDULES[name](jsched, opt2)
    opt2.load_state_dict(opt_saved)
    sched2.load_state_dict(saved)
    for step in range(11, STEPS + 1):
        opt2.step()
        sched2.step()
        assert sched2.get_last_lr() == full[step][0], step
        assert [g["lr"] for g in opt2.param_groups] == full[step][1]


def test_lambda_state_dict_saves_callable_objects_only():
    opt = _make_opt(jtensor)
    h = Halver()
    sched = jsched.LambdaLR(opt, [lambda e: 1.0, h])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [None, {"factor": 0.9}]
    h.factor = 0.5
    sched.load_state_dict(sd)
    assert h.factor == 0.9


@needs_torch
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_closed_form_epoch_argument_matches_torch(name):
    if name in ("SequentialLR", "ChainedScheduler"):
        pytest.skip("their step() takes no epoch")
    out = []
    for lib in (jtensor, torch):
        opt = _make_opt(lib)
        sched = SCHEDULES[name](_lib_optim(lib).lr_scheduler, opt)
        seq = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in (3, 5, 6, 9):
                opt.step()
                sched.step(epoch)
                seq.append(sched.get_last_lr())
        seq.append(sorted({str(x.message)[:60] for x in w}))
        out.append(seq)
    assert out[0] == out[1]


# -- ReduceLROnPlateau -----------------------------------------------------------------------

METRICS = [
    1.0,
    0.9,
    0.95,
    0.95,
    0.9,
    0.91,
    0.92,
    0.93,
    0.5,
    0.5,
    0.5,
    0.5,
    0.5,
    0.49999,
    0.6,
    0.7,
    0.8,
    0.3,
    0.3,
    0.3,
    0.3,
    0.3,
    0.3,
    0.3,
    0.3,
    0.2,
    0.2,
    0.2,
    0.2,
    0.2,
]

PLATEAU = {
    "default": {},
    "patience": {"patience": 2, "factor": 0.5},
    "cooldown": {"patience": 1, "factor": 0.5, "cooldown": 2},
    "abs": {"patience": 1, "threshold": 0.05, "threshold_mode": "abs"},
    "max": {"mode": "max", "patience": 1, "factor": 0.2},
    "max-abs": {"mode": "max", "patience": 0, "threshold_mode": "abs", "threshold": 0.01},
    "min_lr": {"patience": 0, "factor": 0.5, "min_lr": [0.02, 0.01]},
    "min_lr-scalar": {"patience": 0, "factor": 0.5, "min_lr": 0.01},
    "eps": {"patience": 0, "factor": 0.9, "eps": 0.02},
}


def _plateau_sequence(lib, kwargs):
    opt = _make_opt(lib)
    sched = _lib_optim(lib).lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    seq = [sched.get_last_lr()]
    for m in METRICS:
        opt.step()
        sched.step(lib.tensor(m) if m == 0.5 else m)
        seq.append(
            (
                sched.get_last_lr(),
                sched.num_bad_epochs,
                sched.cooldown_counter,
                sched.best,
                sched.last_epoch,
            )
        )
    return seq, sched


@needs_torch
@pytest.mark.parametrize("name", sorted(PLATEAU))
def test_reduce_lr_on_plateau_equals_torch(name):
    ours, jsch = _plateau_sequence(jtensor, PLATEAU[name])
    theirs, tsch = _plateau_sequence(torch, PLATEAU[name])
    assert ours == theirs
    assert jsch.state_dict() == tsch.state_dict()


def test_reduce_lr_on_plateau_jtensor_only():
    opt = _make_opt(jtensor)
    sched = jsched.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    for m in [1.0, 1.0, 1.0]:
        sched.step(m)
    assert sched.get_last_lr() == [0.05, 0.025]
    sd = pickle.loads(pickle.dumps(sched.state_dict()))
    sched2 = jsched.ReduceLROnPlateau(_make_opt(jtensor))
    sched2.load_state_dict(sd)
    assert sched2.patience == 1 and sched2.best == 1.0 and sched2.mode_worse == float("inf")


def _bad_schedulers(lib):
    s = _lib_optim(lib).lr_scheduler
    opt = _make_opt(lib)
    return [
        ("plateau factor", lambda: s.ReduceLROnPlateau(opt, factor=1.0)),
        ("plateau mode", lambda: s.ReduceLROnPlateau(opt, mode="median")),
        ("plateau threshold_mode", lambda: s.ReduceLROnPlateau(opt, threshold_mode="x")),
        ("plateau min_lr", lambda: s.ReduceLROnPlateau(opt, min_lr=[0.1])),
        ("not an optimizer", lambda: s.StepLR(object(), 3)),
        ("lambda count", lambda: s.LambdaLR(opt, [lambda e: 1.0])),
        ("resume without initial_lr", lambda: s.StepLR(_make_opt(lib), 3, last_epoch=4)),
        ("onecycle no total", lambda: s.OneCycleLR(opt, max_lr=1.0)),
        ("onecycle total 0", lambda: s.OneCycleLR(opt, max_lr=1.0, total_steps=0)),
        ("onecycle epochs", lambda: s.OneCycleLR(opt, max_lr=1.0, epochs=0, steps_per_epoch=3)),
        ("onecycle pct", lambda: s.OneCycleLR(opt, max_lr=1.0, total_steps=5, pct_start=1.5)),
        (
            "onecycle anneal",
            lambda: s.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="exp"),
        ),
        ("onecycle max_lr list", lambda: s.OneCycleLR(opt, max_lr=[1.0], total_steps=5)),
        ("constant factor", lambda: s.ConstantLR(opt, factor=1.5)),
        ("linear start", lambda: s.LinearLR(opt, start_factor=0)),
        ("linear end", lambda: s.LinearLR(opt, end_factor=2.0)),
        ("warm T_0", lambda: s.CosineAnnealingWarmRestarts(opt, T_0=0)),
        ("warm T_mult", lambda: s.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)),
        ("multiplicative not callable", lambda: s.MultiplicativeLR(opt, 0.5)),
        ("sequential empty", lambda: s.SequentialLR(opt, [], milestones=[])),
        (
            "sequential milestones",
            lambda: s.SequentialLR(opt, [s.StepLR(opt, 2), s.StepLR(opt, 3)], milestones=[]),
        ),
        (
            "sequential plateau",
            lambda: s.SequentialLR(opt, [s.ReduceLROnPlateau(opt)], milestones=[]),
        ),
        ("cyclic mode", lambda: s.CyclicLR(opt, 0.1, 1.0, mode="saw")),
        ("chained empty", lambda: s.ChainedScheduler([])),
        (
            "onecycle momentum",
            lambda: s.OneCycleLR(
                _lib_optim(lib).Adagrad([lib.nn.Parameter(lib.ones(1))]), max_lr=1.0, total_steps=5
            ),
        ),
    ]


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None, None


@needs_torch
def test_scheduler_errors_match_torch():
    for (d, f), (_, g) in zip(_bad_schedulers(jtensor), _bad_schedulers(torch), strict=True):
        assert _outcome(f) == _outcome(g), d


def test_onecycle_too_many_steps():
    opt = _make_opt(jtensor)
    sched = jsched.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    opt.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        sched.step()


# -- warnings ------------------------------------------------------------------------------------


def _warnings_of(lib, scenario):
    opt = _make_opt(lib)
    sched = _lib_optim(lib).lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if scenario == "scheduler first":
            sched.step()
            opt.step()
        elif scenario == "right order":
            opt.step()
            sched.step()
            opt.step()
            sched.step()
        elif scenario == "overridden":
            opt.step = lambda closure=None: None
            opt.step()
            sched.step()
        elif scenario == "get_lr":
            sched.get_lr()
    return [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("scenario", ["scheduler first", "right order", "overridden", "get_lr"])
def test_order_warnings(scenario):
    got = _warnings_of(jtensor, scenario)
    if scenario == "right order":
        assert got == []
    else:
        assert len(got) == 1 and got[0][0] == "UserWarning"
    if scenario == "scheduler first":
        assert "Detected call of `lr_scheduler.step()` before `optimizer.step()`" in got[0][1]
    if torch is not None:
        assert got == _warnings_of(torch, scenario)


def test_scheduler_first_warning_once_and_schedule_still_advances():
    opt = _make_opt(jtensor, two_groups=False)
    sched = jsched.StepLR(opt, step_size=1, gamma=0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step"):
        sched.step()
    assert sched.get_last_lr() == [0.05]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
    assert opt.param_groups[0]["lr"] == 0.025
    assert opt.param_groups[0]["initial_lr"] == 0.1


def test_scheduler_with_optimizer_that_has_state():
    """The wrapper around optimizer.step still does the real update."""
    p = jtensor.nn.Parameter(jtensor.ones(2))
    opt = joptim.SGD([p], lr=0.5)
    sched = jsched.ExponentialLR(opt, gamma=0.5)
    p.grad = jtensor.ones(2)
    opt.step()
    sched.step()
    opt.step()
    assert p.tolist() == [0.25, 0.25]  # 1 - 0.5 - 0.25
    assert opt._opt_called is True


@needs_torch
def test_exports_match_torch():
    assert sorted(torch.optim.lr_scheduler.__all__) == sorted(jsched.__all__)


def test_docstring_examples_run():
    import doctest

    import importlib

    import jtensor.nn.utils.clip_grad

    # the optimizers' modules are not attributes of jtensor.optim (as in PyTorch)
    names = (
        "optimizer",
        "sgd",
        "adam",
        "adamw",
        "rmsprop",
        "adagrad",
        "adamax",
        "nadam",
        "radam",
        "rprop",
        "asgd",
    )
    modules = [importlib.import_module(f"jtensor.optim.{name}") for name in names]
    for module in (jsched, *modules, jtensor.nn.utils.clip_grad):
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        )
        assert result.failed == 0, module.__name__
        assert result.attempted > 0, module.__name__
