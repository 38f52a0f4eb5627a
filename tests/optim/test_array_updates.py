"""The optimizers' array updates (issue 18): for plain CPU float32/float64 parameters, SGD,
Adam/AdamW and RMSprop compute a step on the arrays instead of calling their public in-place
ops. The numbers, the state and every version counter must be exactly those of the ops."""

import numpy as np
import pytest

import jtensor
from jtensor.optim import optimizer

try:
    import torch
except ImportError:  # the comparison with PyTorch is skipped without it
    torch = None

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.25, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.99), "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "betas": (0.6, 0.9)}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True, "momentum": 0.5}),
]

SHAPES = [(3, 5), (5,), (1,), ()]  # (a 0-d parameter too: a GP's noise scale)


def _grads(step, dtype):
    gen = np.random.default_rng(step)
    grads = []
    for shape in SHAPES:
        g = np.asarray(gen.standard_normal(shape) * 10.0 ** gen.integers(-3, 3, shape))
        g.flat[0] = 0.0 if step % 2 else -1e-30  # a zero, a subnormal-scale value
        grads.append(jtensor.from_numpy(g.astype(dtype)))
    return grads


def _run(name, kwargs, dtype, steps=5):
    gen = np.random.default_rng(0)
    params = [
        jtensor.nn.Parameter(jtensor.from_numpy(np.asarray(gen.standard_normal(s)).astype(dtype)))
        for s in SHAPES
    ]
    opt = getattr(jtensor.optim, name)(params, **kwargs)
    for step in range(steps):
        for p, g in zip(params, _grads(step, dtype), strict=True):
            p.grad = g
        opt.step()
    state = [
        (key, value.numpy().tobytes(), value._version)
        for p in params
        for key, value in sorted(opt.state[p].items())
        if isinstance(value, jtensor.Tensor)
    ]
    return [(p.detach().numpy().tobytes(), p._version) for p in params], state


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=lambda c: str(c))
def test_array_update_equals_the_public_ops_bit_for_bit(name, kwargs, dtype, monkeypatch):
    fast = _run(name, kwargs, dtype)
    monkeypatch.setattr(optimizer, "plain_arrays", lambda *tensors: None)
    general = _run(name, kwargs, dtype)
    assert fast == general


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=lambda c: str(c))
def test_array_update_follows_torch(name, kwargs):
    def trajectory(lib):
        gen = np.random.default_rng(0)
        params = [
            lib.nn.Parameter(lib.from_numpy(np.asarray(gen.standard_normal(s)).astype("float64")))
            for s in SHAPES
        ]
        opt = getattr(lib.optim, name)(params, **kwargs)
        for step in range(5):
            for p, g in zip(params, _grads(step, "float64"), strict=True):
                p.grad = lib.from_numpy(g.numpy())
            opt.step()
        return [p.detach().numpy() for p in params]

    for ours, theirs in zip(trajectory(jtensor), trajectory(torch), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.grad.t().contiguous().t(),  # a gradient that is not contiguous
        lambda p: jtensor.ones(3).expand(2, 3),  # stride 0: the ops refuse to write it
        lambda p: p.detach().view(-1).view(p.shape),  # on the parameter's own storage
    ],
    ids=["strided", "expanded", "shared-storage"],
)
def test_array_update_leaves_unusual_operands_to_the_public_ops(make):
    for name, kwargs in (("SGD", {"lr": 0.5}), ("Adam", {"lr": 0.5}), ("RMSprop", {"lr": 0.5})):
        p = jtensor.nn.Parameter(jtensor.arange(6.0).reshape(2, 3))
        p.grad = jtensor.ones(2, 3)
        p.grad = make(p)
        calls = []
        original = jtensor.Tensor.add_

        def spy(self, *args, _calls=calls, _original=original, **kwargs):
            _calls.append(1)
            return _original(self, *args, **kwargs)

        jtensor.Tensor.add_ = spy
        try:
            getattr(jtensor.optim, name)([p], **kwargs).step()
        finally:
            jtensor.Tensor.add_ = original
        assert calls, f"{name} took the array path for an unusual operand"
