"""The version counter of a leaf's ``.grad`` after backward, as PyTorch's AccumulateGrad
leaves it: a gradient it steals keeps its version (0 for a fresh one), one it clones into
the leaf's layout (an expanded, transposed or otherwise differently strided gradient) is an
empty tensor and a ``copy_``, version 1, and each later accumulation in place adds one."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _leaf(L, *shape):
    return L.arange(float(L.Size(shape).numel())).reshape(shape).requires_grad_()


CASES = {
    "fresh product": lambda L, x: (x * 2).sum().backward(),
    "sum's expanded gradient": lambda L, x: x.sum().backward(),
    "mean's expanded gradient": lambda L, x: x.mean().backward(),
    "transposed use": lambda L, x: (x.t().contiguous() * 2).sum().backward(),
    "transposed sum": lambda L, x: x.t().sum().backward(),
    "given transposed gradient": lambda L, x: (x * 2).backward(L.ones(3, 2).t()),
    "given contiguous gradient": lambda L, x: (x * 2).backward(L.ones(2, 3)),
    "index": lambda L, x: x[0].sum().backward(),
    "two passes": lambda L, x: [(x * 2).sum().backward() for _ in range(2)],
    "three passes": lambda L, x: [x.sum().backward() for _ in range(3)],
    "matmul": lambda L, x: (x @ L.ones(3, 4)).sum().backward(),
    "square": lambda L, x: x.square().sum().backward(),
    "relu": lambda L, x: L.relu(x - 2).sum().backward(),
    "autograd.grad does not touch grad": lambda L, x: L.autograd.grad((x * 2).sum(), x),
    "create_graph": lambda L, x: (x * x).sum().backward(create_graph=True),
    "hook returning a new gradient": lambda L, x: (
        x.register_hook(lambda g: g * 3),
        (x * 2).sum().backward(),
    ),
    # Gradients meeting in one backward are summed in place in the engine's buffer (one
    # ``add_`` each after the first), and that sum becomes ``.grad``.
    "two uses": lambda L, x: (x * 2 + x * 3).sum().backward(),
    "three uses": lambda L, x: (x * 2 + x * 3 + x * 4).sum().backward(),
    "tied weight": lambda L, x: (
        L.nn.functional.embedding(L.tensor([1, 0]), x).sum() + (x * 2).sum()
    ).backward(),
    "two uses of an interior result": lambda L, x: (lambda h: (h + h).sum().backward())(
        (x * 1.0).exp()
    ),
    "zero_grad keeps the tensor": lambda L, x: (
        (x * 2).sum().backward(),
        L.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False),
        (x * 2).sum().backward(),
    ),
}


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("name", list(CASES))
def test_grad_version_is_pytorchs(name):
    seen = []
    for L in (jtensor, torch):
        x = _leaf(L, 2, 3)
        CASES[name](L, x)
        g = x.grad
        seen.append(None if g is None else (g._version, g.stride(), g.tolist()))
    assert seen[0] == seen[1]


def test_channels_last_leaf():
    seen = []
    for L in (jtensor, torch):
        x = L.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()
        y = x.contiguous(memory_format=L.channels_last)
        (y * 2).backward(L.ones_like(y))
        seen.append((x.grad._version, x.grad.stride()))
    assert seen[0] == seen[1]
