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
