"""optim.swa_utils against PyTorch's: AveragedModel (SWA, EMA by avg_fn and multi_avg_fn,
use_buffers) along an SGD run, update_bn's recomputed statistics, SWALR's learning rates
(cos/linear, anneal_epochs 0) and state_dict, the argument errors."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 8, 3))
W = {
    "0.weight": RNG.standard_normal((4, 3)),
    "0.bias": RNG.standard_normal(4),
    "2.weight": RNG.standard_normal((2, 4)),
    "2.bias": RNG.standard_normal(2),
}


def model_of(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    model.double()
    with lib.no_grad():
        for name, p in model.named_parameters():
            if name in W:
                p.copy_(lib.tensor(W[name]))
    return model


def averaging_run(lib, make_averaged):
    """Five SGD steps; the averaged model is updated after each; its tensors."""
    model = model_of(lib)
    averaged = make_averaged(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for batch in X[:5]:
        opt.zero_grad()
        model(lib.tensor(batch)).pow(2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
    out = {k: v.detach().numpy().copy() for k, v in averaged.state_dict().items()}
    with lib.no_grad():
        out["forward"] = averaged(lib.tensor(X[5])).numpy().copy()
    return out


MAKERS = {
    "swa": lambda lib, m: lib.optim.swa_utils.AveragedModel(m),
    "ema_multi": lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    ),
    "ema_avg_fn": lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.8)
    ),
    "ema_multi_buffers": lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.7), use_buffers=True
    ),
    "swa_avg_fn_buffers": lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, avg_fn=lib.optim.swa_utils.get_swa_avg_fn(), use_buffers=True
    ),
}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_averaged_model_follows_pytorch(kind):
    mine, theirs = (averaging_run(lib, MAKERS[kind]) for lib in (jtensor, torch))
    assert list(mine) == list(theirs)
    for key in theirs:
        np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-12, atol=1e-12, err_msg=key)


def test_swa_multi_avg_fn_refuses_integer_buffers_as_pytorch():
    # the integer group (num_batches_tracked) goes through addcdiv_, refused for integers
    for lib in (jtensor, torch):
        make = lambda lib, m: lib.optim.swa_utils.AveragedModel(  # noqa: E731
            m, multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn(), use_buffers=True
        )
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            averaging_run(lib, make)


def test_update_bn_follows_pytorch():
    results = []
    for lib in (jtensor, torch):
        model = model_of(lib)
        loader = [(lib.tensor(b), 0) for b in X[:4]]
        model.eval()
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        results.append(
            (
                bn.running_mean.numpy().copy(),
                bn.running_var.numpy().copy(),
                int(bn.num_batches_tracked),
                bn.momentum,
                model.training,
            )
        )
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3])
def test_swalr_follows_pytorch(strategy, anneal_epochs):
    lrs, dicts = [], []
    for lib in (jtensor, torch):
        w = lib.nn.Parameter(lib.zeros(1))
        b = lib.nn.Parameter(lib.zeros(1))
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.3}], lr=1.0)
        sched = lib.optim.swa_utils.SWALR(
            opt, swa_lr=[0.05, 0.1], anneal_epochs=anneal_epochs, anneal_strategy=strategy
        )
        seen = [sched.get_last_lr()]
        for _ in range(6):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        lrs.append(seen)
        dicts.append(sched.state_dict())
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-15)
    assert sorted(dicts[0]) == sorted(dicts[1])
    restored = jtensor.optim.swa_utils.SWALR(
        jtensor.optim.SGD([jtensor.nn.Parameter(jtensor.zeros(1))], lr=1.0), swa_lr=0.5
    )
    restored.load_state_dict(dicts[0])
    assert restored.anneal_func == (
        restored._cosine_anneal if strategy == "cos" else restored._linear_anneal
    )


def test_errors_match_pytorch():
    def messages(call):
        out = []
        for lib in (jtensor, torch):
            with pytest.raises((ValueError, AssertionError)) as info:
                call(lib)
            out.append((type(info.value), str(info.value)))
        assert out[0] == out[1]

    def sgd(lib):
        return lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)

    messages(lambda lib: lib.optim.swa_utils.SWALR(sgd(lib), 0.1, anneal_strategy="exp"))
    messages(lambda lib: lib.optim.swa_utils.SWALR(sgd(lib), 0.1, anneal_epochs=-1))
    messages(lambda lib: lib.optim.swa_utils.SWALR(sgd(lib), 0.1, anneal_epochs=1.5))
    messages(lambda lib: lib.optim.swa_utils.SWALR(sgd(lib), [0.1, 0.2]))
    messages(lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5))
    messages(lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1))
    swa = lambda lib: lib.optim.swa_utils  # noqa: E731
    messages(
        lambda lib: swa(lib).AveragedModel(
            lib.nn.Linear(1, 1),
            avg_fn=swa(lib).get_swa_avg_fn(),
            multi_avg_fn=swa(lib).get_swa_multi_avg_fn(),
        )
    )


def test_exports_match_pytorch():
    assert sorted(jtensor.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
