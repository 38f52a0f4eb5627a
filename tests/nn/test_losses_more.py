"""The loss and distance modules added for issue 15 against PyTorch: repr, buffers, outputs
and gradients for each reduction, constructor checks."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _arr(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


def _signs(n, seed=3):
    return np.sign(_arr(n, seed=seed)).astype(np.float32)


# name, constructor kwargs, inputs (NumPy arrays; integer arrays are targets)
CASES = [
    ("CosineSimilarity", {}, [_arr(4, 5), _arr(4, 5, seed=1)]),
    ("CosineSimilarity", {"dim": 0, "eps": 1e-4}, [_arr(4, 5), _arr(4, 5, seed=1)]),
    ("PairwiseDistance", {}, [_arr(4, 5), _arr(4, 5, seed=1)]),
    ("PairwiseDistance", {"p": 1.0, "keepdim": True}, [_arr(4, 5), _arr(4, 5, seed=1)]),
    ("CosineEmbeddingLoss", {"margin": 0.3}, [_arr(4, 5), _arr(4, 5, seed=1), _signs(4)]),
    ("MarginRankingLoss", {"margin": 0.5}, [_arr(6), _arr(6, seed=1), _signs(6)]),
    ("HingeEmbeddingLoss", {}, [_arr(6), _signs(6)]),
    ("SoftMarginLoss", {}, [_arr(6), _signs(6)]),
    ("TripletMarginLoss", {"swap": True}, [_arr(4, 5), _arr(4, 5, seed=1), _arr(4, 5, seed=2)]),
    ("TripletMarginWithDistanceLoss", {}, [_arr(4, 5), _arr(4, 5, seed=1), _arr(4, 5, seed=2)]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.7}, [_arr(4, 5), np.array([1, 0, 4, 2])]),
    ("MultiLabelMarginLoss", {}, [_arr(2, 4), np.array([[3, 0, -1, 1], [1, 2, 3, 0]])]),
    ("MultiLabelSoftMarginLoss", {}, [_arr(3, 4), (_arr(3, 4, seed=1) > 0).astype(np.float32)]),
    (
        "GaussianNLLLoss",
        {"full": True},
        [_arr(3, 4), _arr(3, 4, seed=1), _arr(3, 4, seed=2, low=0.1)],
    ),
    ("PoissonNLLLoss", {}, [_arr(3, 4), _arr(3, 4, seed=1, low=0, high=4)]),
    (
        "PoissonNLLLoss",
        {"log_input": False, "full": True},
        [_arr(3, 4, low=0.1), _arr(3, 4, seed=1, low=0, high=4)],
    ),
]


def _run(lib, name, kwargs, arrays, reduction):
    kw = dict(kwargs)
    if name.endswith("Loss"):
        kw["reduction"] = reduction
    module = getattr(lib.nn, name)(**kw)
    inputs = [
        lib.tensor(a, requires_grad=a.dtype == np.float32 and i == 0) for i, a in enumerate(arrays)
    ]
    out = module(*inputs)
    out.sum().backward()
    return module, out, inputs[0].grad


@pytest.mark.parametrize(
    "name,kwargs,arrays", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_module_matches_pytorch(name, kwargs, arrays, reduction):
    m1, y1, g1 = _run(jtensor, name, kwargs, arrays, reduction)
    m2, y2, g2 = _run(torch, name, kwargs, arrays, reduction)
    assert repr(m1) == repr(m2)
    assert y1.shape == y2.shape and y1.grad_fn.name() == y2.grad_fn.name()
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y2.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1.cpu().numpy(), g2.numpy(), rtol=1e-5, atol=1e-6)


def test_weighted_losses_keep_weight_as_a_buffer():
    w = np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)
    for name in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        mine = getattr(jtensor.nn, name)(weight=jtensor.tensor(w))
        theirs = getattr(torch.nn, name)(weight=torch.tensor(w))
        assert list(mine.state_dict()) == list(theirs.state_dict()) == ["weight"]


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: lib.nn.MultiMarginLoss(p=3),
        lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0),
        lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
    ],
)
def test_constructor_errors_match_pytorch(build):
    try:
        build(torch)
    except Exception as e:  # noqa: BLE001 (the oracle decides the type)
        expected = type(e)
    else:
        expected = None
    if expected is None:
        build(jtensor)
    else:
        with pytest.raises(expected):
            build(jtensor)


def test_gaussian_nll_var_is_clamped_outside_the_graph():
    x = jtensor.zeros(3, requires_grad=True)
    var = jtensor.tensor([0.0, 1.0, 2.0], requires_grad=True)
    jtensor.nn.functional.gaussian_nll_loss(x, jtensor.ones(3), var).backward()
    tx = torch.zeros(3, requires_grad=True)
    tvar = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    torch.nn.functional.gaussian_nll_loss(tx, torch.ones(3), tvar).backward()
    np.testing.assert_allclose(var.grad.cpu().numpy(), tvar.grad.numpy(), rtol=1e-5)
