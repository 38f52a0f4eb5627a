"""The shape of the recorded graph as tutorials print it: a node's class name and the kind
of each ``next_functions`` edge, compared with PyTorch.

PyTorch's Scalar overloads (``b ** 2``, ``clamp(b, 0, 1)``, ``masked_fill(m, 1.)``, ``2 - b``)
have no edge for the number, while ops whose schema takes a tensor (``b + 1``, ``b * 2``,
``where(m, b, 0.)``) wrap the number and keep a ``(None, 0)`` edge for it. ``2 / b`` is
``b.reciprocal() * 2``.
"""

import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CASES = {
    "add": lambda t, b, m: t.add(b, 2),
    "radd": lambda t, b, m: 2 + b,
    "sub": lambda t, b, m: t.sub(b, 2),
    "rsub_operator": lambda t, b, m: 2 - b,
    "mul": lambda t, b, m: t.mul(b, 2),
    "rmul": lambda t, b, m: 2 * b,
    "div": lambda t, b, m: t.div(b, 2),
    "div_floor": lambda t, b, m: t.div(b, 2, rounding_mode="floor"),
    "rdiv": lambda t, b, m: 2 / b,
    "add_alpha": lambda t, b, m: b.add(2, alpha=3),
    "mul_inplace": lambda t, b, m: b.clone().mul_(2),
    "add_inplace": lambda t, b, m: b.clone().add_(2),
    "pow": lambda t, b, m: t.pow(b, 2),
    "rpow": lambda t, b, m: t.pow(2, b),
    "pow_inplace": lambda t, b, m: b.clone().pow_(2),
    "xlogy": lambda t, b, m: t.xlogy(b, 2),
    "fmod": lambda t, b, m: t.fmod(b, 2),
    "remainder": lambda t, b, m: t.remainder(b, 2),
    "lerp": lambda t, b, m: t.lerp(b, b.detach(), 0.3),
    "clamp": lambda t, b, m: t.clamp(b, 0, 1),
    "clamp_min": lambda t, b, m: t.clamp_min(b, 1),
    "clamp_inplace": lambda t, b, m: b.clone().clamp_(0, 1),
    "masked_fill": lambda t, b, m: b.masked_fill(m, 1.0),
    "masked_fill_inplace": lambda t, b, m: b.clone().masked_fill_(m, 1.0),
    "where_other": lambda t, b, m: t.where(m, b, 0.0),
    "where_input": lambda t, b, m: t.where(m, 0.0, b),
    "addcmul": lambda t, b, m: t.addcmul(b, b, b, value=2),
    "leaky_relu": lambda t, b, m: t.nn.functional.leaky_relu(b, 0.1),
    "maximum": lambda t, b, m: t.maximum(b, t.tensor(2.0)),
}


def _shape_of_graph(lib, case):
    b = lib.tensor([1.5, 2.0, -0.5], requires_grad=True)
    m = lib.tensor([True, False, True])
    fn = case(lib, b, m).grad_fn

    def walk(node, depth):
        if node is None:
            return None
        if depth == 2:
            return type(node).__name__
        return (type(node).__name__, [walk(n, depth + 1) for n, _ in node.next_functions])

    return walk(fn, 0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_nodes_and_edges_match_pytorch(name):
    assert _shape_of_graph(jtensor, CASES[name]) == _shape_of_graph(torch, CASES[name])


@pytest.mark.parametrize("name", ["pow", "clamp", "masked_fill", "rsub_operator", "rdiv", "lerp"])
def test_gradients_flow_through_the_scalar_overloads(name):
    grads = []
    for lib in (jtensor, torch):
        b = lib.tensor([1.5, 2.0, -0.5], dtype=lib.float64, requires_grad=True)
        m = lib.tensor([True, False, True])
        CASES[name](lib, b, m).sum().backward()
        grads.append(b.grad.cpu().tolist())
    assert grads[0] == pytest.approx(grads[1], rel=1e-15)


def test_number_over_tensor_rounds_as_reciprocal_then_multiply():
    values = [3.0, 7.0, 0.1, 1e-3, 13.0, 6.1, 9.7]
    for dtype in ("float32", "float64"):
        j = 2.3 / jtensor.tensor(values, dtype=getattr(jtensor, dtype))
        t = 2.3 / torch.tensor(values, dtype=getattr(torch, dtype))
        assert j.cpu().tolist() == t.tolist()


LINEAR_CASES = {
    "2d": lambda lib, m, x: m(x),
    "1d": lambda lib, m, x: m(x[0]),
    "3d": lambda lib, m, x: m(x.reshape(2, 2, 3)),
    "no-bias": lambda lib, m, x: lib.nn.functional.linear(x, m.weight),
    "input-requires-grad": lambda lib, m, x: m(x.requires_grad_()),
    "addmm": lambda lib, m, x: lib.addmm(m.bias, x.requires_grad_(), m.weight.t()),
}


@pytest.mark.parametrize("name", sorted(LINEAR_CASES))
def test_linear_records_addmm_over_the_transposed_weight_as_pytorch(name):
    # Tutorials print ``loss.grad_fn.next_functions`` down a Linear layer: PyTorch's
    # AddmmBackward0 edges are (bias, input, TBackward0 -> weight).
    shapes = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        x = lib.randn(4, 3)

        def walk(node, depth=0):
            if node is None or depth == 3:
                return None if node is None else type(node).__name__
            return (type(node).__name__, [walk(n, depth + 1) for n, _ in node.next_functions])

        shapes.append(walk(LINEAR_CASES[name](lib, m, x).grad_fn))
    assert shapes[0] == shapes[1]


def test_linear_weight_gradient_keeps_the_weight_layout():
    m = jtensor.nn.Linear(5, 3)
    x = jtensor.randn(4, 5)
    m(x).sum().backward()
    assert m.weight.grad.stride() == (5, 1) and m.weight.grad.is_contiguous()
    expected = x.sum(0).expand(3, 5)   # d(sum)/dW[o, i] = sum over the batch of x[:, i]
    assert jtensor.allclose(m.weight.grad, expected)
