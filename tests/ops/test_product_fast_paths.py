"""``addmm``'s fast path (issue 18: a linear layer's ``bias.addmm(x, weight.t())``) gives the
general path's numbers bit for bit, PyTorch's metadata, and leaves every other call to the
general path (other dtypes, broadcast shapes it does not take, errors)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _operands(lib, dtype, bias_shape, transposed):
    d = getattr(lib, dtype)
    x = lib.linspace(-2, 2, 12, dtype=d).reshape(3, 4)
    w = lib.linspace(-1, 3, 20, dtype=d).reshape(5, 4)
    w = w.t() if transposed else w.t().contiguous()
    n = 1
    for s in bias_shape:
        n *= s
    bias = lib.linspace(0.5, 1.5, n, dtype=d).reshape(bias_shape)
    return bias, x, w


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bias_shape", [(5,), (3, 5), (1, 5), (3, 1), ()])
@pytest.mark.parametrize("transposed", [True, False])
def test_addmm_fast_path_matches_the_general_path_and_torch(dtype, bias_shape, transposed):
    bias, x, w = _operands(jtensor, dtype, bias_shape, transposed)
    fast = bias.addmm(x, w)
    general = bias.addmm(x, w, beta=1.0, alpha=1.0)  # (float factors: the general path)
    assert jtensor.equal(fast, general)
    tb, tx, tw = _operands(torch, dtype, bias_shape, transposed)
    theirs = tb.addmm(tx, tw)
    assert tuple(fast.shape) == tuple(theirs.shape)
    assert fast.stride() == theirs.stride() and fast.dtype.name == str(theirs.dtype)[6:]
    tol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6
    np.testing.assert_allclose(fast.cpu().float().numpy(), theirs.float().numpy(), rtol=tol)


def test_addmm_fast_path_with_parameters_records_the_linear_graph():
    lin = jtensor.nn.Linear(4, 5)
    x = jtensor.linspace(-1, 1, 12).reshape(3, 4)
    out = lin(x)
    assert out.grad_fn.name() == "AddmmBackward0"
    names = [f.name() if f is not None else None for f, _ in out.grad_fn.next_functions]
    assert names == ["torch::autograd::AccumulateGrad", None, "TBackward0"]
    out.sum().backward()
    assert jtensor.equal(lin.bias.grad, jtensor.full((5,), 3.0))
    assert jtensor.allclose(lin.weight.grad, x.sum(0).expand(5, 4))


@pytest.mark.parametrize(
    "bias_shape, mat1, mat2",
    [((5,), (3, 4), (3, 5)), ((4,), (3, 4), (4, 5)), ((2, 5), (3, 4), (4, 5))],
)
def test_addmm_fast_path_leaves_errors_to_the_general_path(bias_shape, mat1, mat2):
    def run(lib):
        bias = lib.ones(bias_shape)
        with pytest.raises(RuntimeError) as caught:
            bias.addmm(lib.ones(mat1), lib.ones(mat2))
        return str(caught.value)

    assert run(jtensor) == run(torch)


def test_addmm_fast_path_keeps_nan_and_inf():
    values = [float("nan"), float("inf"), -float("inf"), 1.0]

    def run(lib):
        bias = lib.tensor(values)
        x = lib.tensor([[1.0], [2.0]])
        w = lib.tensor([values])
        return bias.addmm(x, w)

    mine, theirs = run(jtensor), run(torch)
    np.testing.assert_array_equal(mine.cpu().numpy(), theirs.numpy())
