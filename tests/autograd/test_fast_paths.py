"""The fast paths of recording and backward (issue 18) keep PyTorch's results: ReLU's
bitwise backward, the layouts of mm/addmm gradients, the gradient AccumulateGrad keeps."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _both(fn):
    return fn(jtensor), fn(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_relu_backward_matches_torch_bit_for_bit(dtype):
    inf, nan = float("inf"), float("nan")
    values = [1.0, -1.0, nan, 0.0, -0.0, 2.0, -3.0, 4.0]
    grads = [-2.0, inf, 3.0, nan, -inf, -0.0, -5.0, nan]

    def run(lib):
        # Repeated to 4096 elements: past the size where the bitwise path is taken.
        d = getattr(lib, dtype)
        x = lib.tensor(values * 512, dtype=d, requires_grad=True)
        lib.relu(x).backward(lib.tensor(grads * 512, dtype=d))
        return x.grad

    mine, theirs = _both(run)
    assert str(mine.cpu()) == str(theirs)
    a = mine.cpu().float().numpy()
    b = theirs.float().numpy()
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    # (The sign of zeros; a NaN's sign bit comes from how each library made the tensor.)
    real = ~np.isnan(b)
    np.testing.assert_array_equal(np.signbit(a[real]), np.signbit(b[real]))


def test_relu_backward_of_a_transposed_gradient():
    def run(lib):
        x = lib.arange(-3000.0, 3000.0).reshape(60, 100).requires_grad_()
        lib.relu(x).backward(lib.arange(6000.0).reshape(100, 60).t())
        return x.grad

    mine, theirs = _both(run)
    np.testing.assert_array_equal(mine.cpu().numpy(), theirs.numpy())


@pytest.mark.parametrize("layout", ["rows", "a_columns", "b_columns", "both_columns"])
@pytest.mark.parametrize("op", ["mm", "addmm"])
def test_mm_gradients_have_torchs_layout(op, layout):
    def run(lib):
        a = lib.arange(12, dtype=lib.float64).reshape(4, 3).sin()
        b = lib.arange(20, dtype=lib.float64).reshape(5, 4).cos()
        a = a.t() if layout in ("a_columns", "both_columns") else a.t().contiguous()
        b = b.t() if layout in ("b_columns", "both_columns") else b.t().contiguous()
        a.requires_grad_()
        b.requires_grad_()
        bias = lib.ones(3, 5, dtype=lib.float64, requires_grad=True)
        out = a.mm(b) if op == "mm" else lib.addmm(bias, a, b, beta=2.0, alpha=0.5)
        ga, gb = lib.autograd.grad(out, (a, b), lib.ones_like(out) * 3)
        return ga, gb

    (ga, gb), (ta, tb) = _both(run)
    for mine, theirs in ((ga, ta), (gb, tb)):
        assert mine.stride() == theirs.stride()
        np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-12)


def test_linear_weight_grad_is_kept_not_copied_and_never_aliased():
    def run(lib):
        lin = lib.nn.Linear(4, 3)
        with lib.no_grad():
            lin.weight.copy_(lib.arange(12.0).reshape(3, 4))
            lin.bias.zero_()
        lin(lib.ones(2, 4)).sum().backward()
        return lin.weight.grad

    mine, theirs = _both(run)
    assert mine.stride() == theirs.stride() == (4, 1)
    assert mine._base is None
    np.testing.assert_array_equal(mine.cpu().numpy(), theirs.numpy())

    # A gradient whose base someone else still holds is copied: writing .grad leaves it.
    kept = []

    class Shared(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            base = jtensor.ones(3, 4)
            kept.append(base)
            return base.t()

    x = jtensor.zeros(4, 3, requires_grad=True)
    Shared.apply(x).sum().backward()
    x.grad.add_(1)
    assert bool((kept[0] == 1).all())
    assert bool((x.grad == 2).all())


def test_recorded_call_with_too_many_arguments_raises_as_torch():
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        with pytest.raises(TypeError):
            lib.add(a, a, 1, 2, 3)

    _both(run)


def _operator_graph(lib, op, a_grad, b_grad, dtype):
    a = lib.tensor([1.5, -2.0, 3.0], dtype=getattr(lib, dtype), requires_grad=a_grad)
    b = lib.tensor([0.5, 4.0, -1.0], dtype=getattr(lib, dtype), requires_grad=b_grad)
    y = op(a, b)
    fn = y.grad_fn
    edges = [None if n is None else (type(n).__name__, nr) for n, nr in fn.next_functions]
    y.backward(lib.tensor([1.0, 2.0, 3.0], dtype=y.dtype))
    grads = [None if t.grad is None else t.grad.tolist() for t in (a, b)]
    return type(fn).__name__, edges, grads, y.tolist()


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv"])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_operator_recording_matches_torch(name, needs, dtype):
    # ``a <op> b`` with two tensors is recorded by record_operator, without binding: the
    # same node name, edges, values and gradients as PyTorch's.
    import operator

    op = getattr(operator, name)
    mine, theirs = _both(lambda lib: _operator_graph(lib, op, *needs, dtype))
    assert mine == theirs


def test_operator_recording_saves_and_checks_versions_as_torch():
    # The operands ``a * b`` saves are version-checked at backward, and pack hooks see them
    # in PyTorch's order (``other`` first).
    def run(lib):
        seen = []
        a = lib.ones(3, requires_grad=True)
        b = lib.full((3,), 2.0, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: seen.append(t.tolist()) or t, lambda t: t
        ):
            y = a * b.clone()
        assert y.grad_fn.next_functions[1][0] is not None
        c = b.clone()
        z = a * c
        with lib.no_grad():
            c.add_(1)
        try:
            z.sum().backward()
            failed = None
        except RuntimeError as exc:
            failed = "modified by an inplace operation" in str(exc)
        return seen, failed

    mine, theirs = _both(run)
    assert mine == theirs
