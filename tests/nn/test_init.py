"""``jtensor.nn.init``: exact gains, fans and bounds against PyTorch's formulas, the
distributions checked statistically on large tensors (jtensor's generator draws different
numbers from PyTorch's), in-place without history, and PyTorch's errors."""

import math
import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
from jtensor.nn import init

try:
    import torch
    import torch.nn.init as tinit
except ImportError:
    torch = tinit = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _outcome(fn):
    try:
        result = fn()
        # tensors: their shape (never their truth value)
        return ("ok", tuple(result.shape) if hasattr(result, "shape") else result)
    except Exception as e:  # noqa: BLE001 - the builtin type is what is compared
        return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def _gains(I):
    cases = [("linear",), ("conv2d",), ("conv_transpose3d",), ("sigmoid",), ("tanh",),
             ("relu",), ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",),
             ("leaky_relu", True), ("leaky_relu", "x"), ("softmax",), ("gelu",)]
    return [_outcome(lambda c=c: I.calculate_gain(*c)) for c in cases]


@needs_torch
def test_calculate_gain_matches_pytorch():
    assert _gains(init) == _gains(tinit)


def _fans(lib, I):
    shapes = [(3, 4), (5, 2, 3), (6, 4, 3, 3), (2, 3, 2, 2, 2), (0, 4), (4,), ()]
    return [_outcome(lambda s=s: I._calculate_fan_in_and_fan_out(lib.empty(s)))
            for s in shapes]


@needs_torch
def test_fans_match_pytorch():
    assert _fans(jtensor, init) == _fans(torch, tinit)


def _errors(lib, I):
    return [
        _outcome(lambda: I.kaiming_uniform_(lib.empty(3, 4), mode="fan_avg")),
        _outcome(lambda: I.kaiming_normal_(lib.empty(3, 4), mode="FAN_OUT")),
        _outcome(lambda: I.kaiming_uniform_(lib.empty(3))),
        _outcome(lambda: I.xavier_uniform_(lib.empty(3))),
        _outcome(lambda: I.xavier_normal_(lib.empty(()))),
        _outcome(lambda: I.eye_(lib.empty(3, 4, 5))),
        _outcome(lambda: I.orthogonal_(lib.empty(3))),
        _outcome(lambda: I.dirac_(lib.empty(3, 4))),
        _outcome(lambda: I.dirac_(lib.empty(3, 4, 3), groups=2)),
        _outcome(lambda: I.kaiming_uniform_(lib.empty(3, 4), nonlinearity="swish")),
    ]


@needs_torch
def test_errors_match_pytorch():
    assert _errors(jtensor, init) == _errors(torch, tinit)


def _bound_cases():
    s = math.sqrt
    return [
        # (function, kwargs, shape, expected bound (uniform) computed from PyTorch's formulas)
        ("kaiming_uniform_", {}, (64, 128), s(3) * s(2) / s(128)),  # a=0: slope 0
        ("kaiming_uniform_", {"a": s(5)}, (64, 128), 1 / s(128)),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, (64, 32, 3, 3),
         s(3) * s(2) / s(64 * 9)),
        ("kaiming_uniform_", {"nonlinearity": "tanh"}, (50, 200), s(3) * (5 / 3) / s(200)),
        ("xavier_uniform_", {}, (100, 300), s(6 / 400)),
        ("xavier_uniform_", {"gain": 2.0}, (10, 20, 3), 2 * s(6 / 90)),
        ("uniform_", {"a": -0.3, "b": 0.7}, (200, 200), None),
    ]


@pytest.mark.parametrize("name,kwargs,shape,bound", _bound_cases())
def test_uniform_initialisers_bounds_and_moments(name, kwargs, shape, bound):
    jtensor.manual_seed(0)
    t = jtensor.empty(*shape)
    out = getattr(init, name)(t, **kwargs)
    assert out is t
    arr = t.cpu().numpy().astype(np.float64)
    lo, hi = (-bound, bound) if bound is not None else (kwargs["a"], kwargs["b"])
    tol = 1e-6 * max(abs(lo), abs(hi))  # the float32 rounding of the bounds
    assert arr.min() >= lo - tol and arr.max() <= hi + tol
    width = hi - lo
    assert arr.min() < lo + 0.01 * width and arr.max() > hi - 0.01 * width
    assert abs(arr.mean() - (lo + hi) / 2) < 0.02 * width
    assert abs(arr.std() - width / math.sqrt(12)) < 0.02 * width


@needs_torch
@pytest.mark.parametrize("name,kwargs,shape,bound", [c for c in _bound_cases() if c[3]])
def test_uniform_bounds_agree_with_pytorch(name, kwargs, shape, bound):
    # PyTorch's own draw on the same shape stays within the same bound and nearly reaches it.
    torch.manual_seed(0)
    arr = getattr(tinit, name)(torch.empty(*shape), **kwargs).cpu().numpy()
    assert np.abs(arr).max() <= bound * (1 + 1e-6) and np.abs(arr).max() > 0.98 * bound


@pytest.mark.parametrize("name,kwargs,shape,std", [
    ("kaiming_normal_", {}, (128, 256), math.sqrt(2) / math.sqrt(256)),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, (256, 64, 3),
     math.sqrt(2) / math.sqrt(256 * 3)),
    ("kaiming_normal_", {"a": 0.2, "nonlinearity": "leaky_relu"}, (200, 100),
     math.sqrt(2 / 1.04) / 10),
    ("xavier_normal_", {}, (200, 300), math.sqrt(2 / 500)),
    ("xavier_normal_", {"gain": 0.5}, (100, 100, 2), 0.5 * math.sqrt(2 / 400)),
    ("normal_", {"mean": 1.5, "std": 0.25}, (300, 300), 0.25),
])
def test_normal_initialisers_moments(name, kwargs, shape, std):
    jtensor.manual_seed(1)
    t = jtensor.empty(*shape)
    assert getattr(init, name)(t, **kwargs) is t
    arr = t.cpu().numpy().astype(np.float64)
    mean = kwargs.get("mean", 0.0)
    assert abs(arr.mean() - mean) < 0.02 * std * 5
    assert abs(arr.std() - std) < 0.02 * std
    # about 68% within one std
    assert abs((np.abs(arr - mean) < std).mean() - 0.6827) < 0.01


def test_trunc_normal_bounds_and_moments():
    jtensor.manual_seed(2)
    t = init.trunc_normal_(jtensor.empty(400, 400), mean=0.5, std=1.0, a=-1.0, b=1.5)
    arr = t.cpu().numpy().astype(np.float64)
    assert arr.min() >= -1.0 and arr.max() <= 1.5
    # moments of N(0.5, 1) truncated to [-1, 1.5]
    from math import erf, exp, pi, sqrt

    phi = lambda z: exp(-z * z / 2) / sqrt(2 * pi)
    Phi = lambda z: (1 + erf(z / sqrt(2))) / 2
    al, be = -1.5, 1.0
    Z = Phi(be) - Phi(al)
    mean = 0.5 + (phi(al) - phi(be)) / Z
    var = 1 + (al * phi(al) - be * phi(be)) / Z - ((phi(al) - phi(be)) / Z) ** 2
    assert abs(arr.mean() - mean) < 0.01 and abs(arr.std() - math.sqrt(var)) < 0.01
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.trunc_normal_(jtensor.empty(10), mean=10.0)
    assert any("mean is more than 2 std" in str(m.message) for m in w)


@needs_torch
def test_deterministic_initialisers_match_pytorch():
    def values(lib, I):
        return [
            I.constant_(lib.empty(2, 3), 0.7).tolist(), I.ones_(lib.empty(3)).tolist(),
            I.zeros_(lib.empty(2, 2)).tolist(), I.eye_(lib.empty(2, 4)).tolist(),
            I.eye_(lib.empty(3, 2)).tolist(), I.dirac_(lib.empty(4, 2, 3)).tolist(),
            I.dirac_(lib.empty(4, 2, 3, 3), groups=2).tolist(),
        ]

    assert values(jtensor, init) == values(torch, tinit)


def test_orthogonal_and_sparse():
    jtensor.manual_seed(0)
    for shape in [(5, 5), (3, 7), (8, 2), (4, 2, 3)]:
        t = jtensor.empty(*shape)
        assert init.orthogonal_(t, gain=2.0) is t
        m = t.cpu().numpy().reshape(shape[0], -1).astype(np.float64)
        if m.shape[0] <= m.shape[1]:
            np.testing.assert_allclose(m @ m.T, 4 * np.eye(m.shape[0]), atol=1e-5)
        else:
            np.testing.assert_allclose(m.T @ m, 4 * np.eye(m.shape[1]), atol=1e-5)
    t = init.sparse_(jtensor.empty(10, 6), sparsity=0.3)
    assert ((t.cpu().numpy() == 0).sum(0) >= 3).all()


def test_in_place_without_history_on_parameters():
    p = jnn.Parameter(jtensor.empty(4, 5))
    v = p._version
    for fn in (init.xavier_uniform_, init.kaiming_normal_, init.zeros_, init.ones_,
               lambda t: init.normal_(t, 0, 1), lambda t: init.trunc_normal_(t),
               init.orthogonal_, init.eye_):
        out = fn(p)
        assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    assert p._version > v


def test_zero_element_is_a_no_op_with_warning():
    t = jtensor.empty(0, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert init.kaiming_uniform_(t) is t
        assert init.kaiming_normal_(t) is t
    assert any("zero-element" in str(m.message) for m in w)


def test_generator_argument_reproducible():
    g1, g2 = jtensor.Generator().manual_seed(7), jtensor.Generator().manual_seed(7)
    a = init.xavier_uniform_(jtensor.empty(3, 4), generator=g1)
    b = init.xavier_uniform_(jtensor.empty(3, 4), generator=g2)
    assert a.tolist() == b.tolist()
    jtensor.manual_seed(5)
    c = jnn.Linear(3, 4)
    jtensor.manual_seed(5)
    d = jnn.Linear(3, 4)
    assert c.weight.tolist() == d.weight.tolist() and c.bias.tolist() == d.bias.tolist()


@needs_torch
def test_public_names_and_deprecated_aliases_match_pytorch():
    theirs = {n for n in dir(tinit) if not n.startswith("_") and callable(getattr(tinit, n))
              and getattr(getattr(tinit, n), "__module__", "") == tinit.__name__}
    assert theirs <= set(dir(init))

    def observe(lib, I):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = I.xavier_uniform(lib.empty(3, 4))
            c = I.constant(lib.empty(2), 3.0).tolist()
        return [tuple(t.shape), c, [(m.category.__name__, str(m.message)) for m in w]]

    assert observe(jtensor, init) == observe(torch, tinit)
