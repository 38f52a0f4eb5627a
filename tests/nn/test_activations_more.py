"""The activation modules added for issue 15 (PReLU, SELU, CELU, GLU, Hardswish, ...) against
PyTorch: repr, parameters, outputs and gradients, train/eval behaviour of RReLU, errors."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

MODULES = [
    ("PReLU", (), {}),
    ("PReLU", (3,), {"init": 0.1}),
    ("SELU", (), {}),
    ("SELU", (True,), {}),
    ("CELU", (), {}),
    ("CELU", (2.0, True), {}),
    ("GLU", (), {}),
    ("GLU", (2,), {}),
    ("Hardswish", (), {}),
    ("Hardswish", (True,), {}),
    ("Hardsigmoid", (), {}),
    ("Mish", (), {}),
    ("Softsign", (), {}),
    ("Tanhshrink", (), {}),
    ("Softshrink", (), {}),
    ("Softshrink", (0.25,), {}),
    ("Hardshrink", (1.0,), {}),
    ("Threshold", (0.1, 20.0), {}),
    ("Threshold", (0.1, 20, True), {}),
    ("Softmax2d", (), {}),
    ("RReLU", (), {}),
    ("RReLU", (0.1, 0.3, True), {}),
]


def _input(lib):
    x = np.random.default_rng(0).uniform(-4, 4, size=(2, 3, 4, 2)).astype(np.float32)
    return lib.tensor(x, requires_grad=True)


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[f"{n}{a}{k}" for n, a, k in MODULES])
@pytest.mark.parametrize("training", [True, False])
def test_module_matches_pytorch(name, args, kwargs, training):
    mine = getattr(jtensor.nn, name)(*args, **kwargs)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    mine.train(training)
    theirs.train(training)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for (k, a), b in zip(mine.state_dict().items(), theirs.state_dict().values(), strict=True):
        np.testing.assert_array_equal(a.cpu().numpy(), b.numpy(), err_msg=k)
    outs = []
    for lib, module in ((jtensor, mine), (torch, theirs)):
        lib.manual_seed(3)
        x = _input(lib)
        # in-place modules must not write a leaf: give them a non-leaf
        y = module(x * 1)
        y.sum().backward()
        grads = [p.grad for p in module.parameters()]
        outs.append((y, x.grad, grads, y.grad_fn.name() if y.grad_fn is not None else None))
    (y1, g1, p1, n1), (y2, g2, p2, n2) = outs
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y2.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1.cpu().numpy(), g2.numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(p1, p2, strict=True):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
    assert n1 == n2


def test_prelu_parameter_and_dtype():
    m = jtensor.nn.PReLU(4, init=0.5, dtype=jtensor.float64)
    assert m.weight.dtype == jtensor.float64 and m.weight.shape == (4,)
    assert isinstance(m.weight, jtensor.nn.Parameter)
    assert m.num_parameters == 4 and m.init == 0.5


def test_softmax2d_rejects_2d_as_pytorch():
    with pytest.raises(ValueError, match="expected input to be 3D or 4D, got 2D"):
        jtensor.nn.Softmax2d()(jtensor.randn(3, 4))
    with pytest.raises(ValueError):
        torch.nn.Softmax2d()(torch.randn(3, 4))


def test_inplace_activation_on_a_leaf_is_refused():
    x = jtensor.randn(3, requires_grad=True)
    for fn in (
        jtensor.nn.functional.selu_,
        jtensor.nn.functional.celu_,
        lambda t: jtensor.nn.functional.hardswish(t, inplace=True),
    ):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            fn(x)
    assert x._version == 0


def test_rrelu_training_draws_are_pytorchs():
    # PyTorch's CPU generator (its CUDA one is Philox): the CPU tensors' draws
    a = np.random.default_rng(1).uniform(-2, 2, size=(5, 7)).astype(np.float32)
    jtensor.manual_seed(11)
    torch.manual_seed(11)
    mine = jtensor.nn.functional.rrelu(jtensor.tensor(a, device="cpu"), training=True)
    theirs = torch.nn.functional.rrelu(torch.tensor(a), training=True)
    np.testing.assert_array_equal(mine.cpu().numpy(), theirs.numpy())
    # the generator advanced by the same number of draws
    np.testing.assert_array_equal(jtensor.rand(3, device="cpu").numpy(), torch.rand(3).numpy())
