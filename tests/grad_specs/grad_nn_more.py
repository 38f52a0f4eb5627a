"""Gradient specs of the ``nn.functional`` ops added for issue 15's breadth: float64
gradcheck, layout variants, second derivatives where PyTorch has them, and the same gradients
and ``grad_fn`` names as PyTorch."""

from tests.grad_specs.grad_nn import F, _seeded, _with  # noqa: F401 (the shared makers)
from tests.harness.gradients import G


GRADS = [
    # ------------------------------------------------------------------ activations
    G("selu", lambda lib, x: F(lib).selu(x), [(3, 4)]),
    G("selu", lambda lib, x: F(lib).selu(x.clone(), inplace=True), [(3, 4)]),
    G("selu_", lambda lib, x: F(lib).selu_(x * 1), [(3, 4)]),
    G("celu", lambda lib, x: F(lib).celu(x, 0.7), [(3, 4)]),
    G("celu", lambda lib, x: F(lib).celu(x.clone(), 1.5, inplace=True), [(3, 4)]),
    G("celu_", lambda lib, x: F(lib).celu_(x * 1, 2.0), [(3, 4)]),
    G("prelu", lambda lib, x, w: F(lib).prelu(x, w), [(2, 3, 4), (3,)]),
    G("prelu", lambda lib, x, w: F(lib).prelu(x, w), [(3, 4), (1,)]),
    G("glu", lambda lib, x: F(lib).glu(x), [(3, 4)]),
    G("glu", lambda lib, x: F(lib).glu(x, 0), [(4, 3)]),
    G("hardswish", lambda lib, x: F(lib).hardswish(x * 3), [(3, 4)]),
    # The in-place forms keep the input from before the write as a constant copy: their
    # backward is not differentiated again in x (a known gap: PyTorch's is).
    G("hardswish", lambda lib, x: F(lib).hardswish(x * 3, inplace=True), [(3, 4)], second=False),
    # PyTorch has no derivative of hardsigmoid_backward: first order only.
    G("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x * 3), [(3, 4)], second=False),
    G(
        "hardsigmoid",
        lambda lib, x: F(lib).hardsigmoid(x * 3, inplace=True),
        [(3, 4)],
        second=False,
    ),
    G("mish", lambda lib, x: F(lib).mish(x), [(3, 4)]),
    G("mish", lambda lib, x: F(lib).mish(x * 1, inplace=True), [(3, 4)], second=False),
    G("softsign", lambda lib, x: F(lib).softsign(x), [(3, 4)]),
    G("tanhshrink", lambda lib, x: F(lib).tanhshrink(x), [(3, 4)]),
    G("softshrink", lambda lib, x: F(lib).softshrink(x, 0.3), [(3, 4)]),
    G("hardshrink", lambda lib, x: F(lib).hardshrink(x, 0.3), [(3, 4)]),
    G("threshold", lambda lib, x: F(lib).threshold(x, 0.2, -3.0), [(3, 4)]),
    G("threshold", lambda lib, x: F(lib).threshold(x * 1, 0.2, 5.0, inplace=True), [(3, 4)]),
    G("threshold_", lambda lib, x: F(lib).threshold_(x * 1, 0.2, 5.0), [(3, 4)]),
    G("rrelu", lambda lib, x: F(lib).rrelu(x), [(3, 4)]),
    G("rrelu", _seeded(lambda lib, x: F(lib).rrelu(x, training=True)), [(3, 4)]),
    G("rrelu", _seeded(lambda lib, x: F(lib).rrelu(x * 1, training=True, inplace=True)), [(3, 4)]),
    G("rrelu_", _seeded(lambda lib, x: F(lib).rrelu_(x * 1, 0.2, 0.4, True)), [(3, 4)]),
]
