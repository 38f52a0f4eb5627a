"""Formulas that compute on the arrays in a plain backward pass (issue 18: tanh, sigmoid,
sub, div (a tensor divisor too), mean, std over dims, a full max/min, ``x[key]`` with a basic
key, one index tensor or a mask) must give the public ops' gradients bit for bit
(``_fast.FORMULA_ARRAYS`` off), signed zeros and NaNs included, and PyTorch's values;
``create_graph`` and other layouts keep the ops."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd.formulas import _backward_ops, _fast

torch = pytest.importorskip("torch")


def _values(lib, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape) * 3
    flat = data.reshape(-1)
    if flat.size > 4:
        flat[1] = -0.0  # signed zeros and ties reach every formula
        flat[2] = flat[3]
    return lib.tensor(data, dtype=getattr(lib, dtype))


def _tied(lib, dtype, nan=False):
    data = np.array([[1.0, 5.0, -2.0], [5.0, 0.5, -0.0]])
    if nan:
        data[1, 1] = np.nan
    return lib.tensor(data, dtype=getattr(lib, dtype))


# name -> (make the input, the call, how the gradient arrives)
CASES = {
    "tanh": (lambda L, d: _values(L, (3, 4), d, 0), lambda L, x: x.tanh()),
    "sigmoid": (lambda L, d: _values(L, (3, 4), d, 1), lambda L, x: x.sigmoid()),
    "sub_other": (lambda L, d: _values(L, (3, 4), d, 2), lambda L, x: 1.5 - x),
    "sub_tensor": (lambda L, d: _values(L, (3, 4), d, 3), lambda L, x: x.detach() - x),
    "div_number": (lambda L, d: _values(L, (3, 4), d, 4), lambda L, x: x / 3),
    "div_float": (lambda L, d: _values(L, (3, 4), d, 5), lambda L, x: x / 0.1),
    "div_constant_tensor": (
        lambda L, d: _values(L, (3, 4), d, 6),
        lambda L, x: x / (x.detach().abs() + 0.5),
    ),
    "div_broadcast_divisor": (
        lambda L, d: _values(L, (5, 3), d, 22),
        lambda L, x: x / (x.sum(0, keepdim=True) + 10),
    ),
    "div_both_same_shape": (lambda L, d: _values(L, (3, 4), d, 23), lambda L, x: x / (x * x + 1)),
    "div_row_by_matrix": (
        lambda L, d: _values(L, (4, 3), d, 24),
        lambda L, x: x[:1] / (x.abs() + 0.5),
    ),
    "mean": (lambda L, d: _values(L, (3, 4), d, 7), lambda L, x: x.mean()),
    "mean_dim": (lambda L, d: _values(L, (3, 4), d, 8), lambda L, x: x.mean(1)),
    "mean_keepdim": (lambda L, d: _values(L, (2, 3, 4), d, 9), lambda L, x: x.mean((0, 2), True)),
    "max_ties": (lambda L, d: _tied(L, d), lambda L, x: x.max()),
    "min_ties": (lambda L, d: _tied(L, d), lambda L, x: x.min()),
    "max_nan": (lambda L, d: _tied(L, d, nan=True), lambda L, x: x.max()),
    "select": (lambda L, d: _values(L, (3, 4), d, 10), lambda L, x: x[1]),
    "basic_key": (lambda L, d: _values(L, (3, 4, 2), d, 11), lambda L, x: x[0, 1:3, None]),
    "ellipsis": (lambda L, d: _values(L, (3, 4), d, 12), lambda L, x: x[..., -1]),
    "index": (
        lambda L, d: _values(L, (5, 3), d, 13),
        lambda L, x: x[L.tensor([4, 0, -1, 2, 4, 4])],
    ),
    # (enough elements for rows added as one flat position each: repeats and negatives)
    "index_rows": (
        lambda L, d: _values(L, (20, 16), d, 22),
        lambda L, x: x[L.tensor([3, -1, 19, 3, 0, -20, 7, 3] * 5)],
    ),
    "index_int32": (
        lambda L, d: _values(L, (5,), d, 14),
        lambda L, x: x[L.tensor([1, 1, 3], dtype=L.int32)],
    ),
    "mask": (lambda L, d: _values(L, (3, 4), d, 15), lambda L, x: x[x.detach() > 0]),
    "std_batch": (lambda L, d: _values(L, (32, 6), d, 18), lambda L, x: x.std(0, keepdim=True)),
    "std_dim": (lambda L, d: _values(L, (3, 5, 4), d, 19), lambda L, x: x.std(1)),
    "std_dims_biased": (
        lambda L, d: _values(L, (3, 5, 4), d, 20),
        lambda L, x: x.std((0, 2), correction=0),
    ),
    "std_vector": (lambda L, d: _values(L, (9,), d, 21), lambda L, x: x.std(0)),
    "std_constant_rows": (
        lambda L, d: L.tensor([[1.0, 2.0, 3.0], [1.0, 5.0, 3.0]], dtype=getattr(L, d)),
        lambda L, x: x.std(0, keepdim=True),
    ),
    "row_mask": (
        lambda L, d: _values(L, (3, 4), d, 16),
        lambda L, x: x[L.tensor([True, False, True])],
    ),
}

SEEDS = {"sum": None, "weighted": 17, "negative_zero": "negzero"}


def _grad(lib, case, dtype, how):
    make, call = CASES[case]
    x = make(lib, dtype).requires_grad_()
    out = call(lib, x)
    if how == "sum":
        out.sum().backward()
    elif how == "negative_zero":
        out.backward(lib.full_like(out, -0.0))
    else:
        weights = _values(lib, tuple(out.shape), dtype, 17)
        out.backward(weights)
    return x.grad


def _bits(t):
    a = t.detach().numpy()
    return a.view(np.int64 if a.dtype == np.float64 else np.int32)


@pytest.mark.parametrize("how", list(SEEDS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_array_formulas_equal_the_public_ops_bit_for_bit(case, dtype, how, monkeypatch):
    fast = _grad(jtensor, case, dtype, how)
    monkeypatch.setattr(_fast, "FORMULA_ARRAYS", False)
    ops = _grad(jtensor, case, dtype, how)
    assert fast.stride() == ops.stride()
    np.testing.assert_array_equal(_bits(fast), _bits(ops))


@pytest.mark.parametrize("how", ["sum", "weighted"])
@pytest.mark.parametrize("case", [c for c in CASES if c != "tanh"])
def test_array_formulas_match_torch(case, how):
    mine, theirs = _grad(jtensor, case, "float64", how), _grad(torch, case, "float64", how)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-13, atol=0)


def test_tanh_gradient_is_pytorchs_wherever_the_forward_is():
    # tanh's forward is NumPy's, one unit in the last place from PyTorch's on some elements,
    # and ``1 - y*y`` near y = +-1 magnifies that past 1e-13 (the case above therefore
    # leaves tanh out). Where the two forwards agree, the gradients agree bit for bit.
    make, call = CASES["tanh"]
    for how in ("sum", "weighted"):
        mine, theirs = _grad(jtensor, "tanh", "float64", how), _grad(torch, "tanh", "float64", how)
        same = make(jtensor, "float64").tanh().numpy() == make(torch, "float64").tanh().numpy()
        assert same.sum() >= 10
        np.testing.assert_array_equal(_bits(mine)[same], _bits(theirs)[same])
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("case", ["tanh", "sigmoid", "div_number", "mean", "max_ties", "index"])
def test_create_graph_still_differentiates_the_formula(case):
    grads = []
    for lib in (jtensor, torch):
        make, call = CASES[case]
        x = make(lib, "float64").requires_grad_()
        (g,) = lib.autograd.grad(call(lib, x).sum(), x, create_graph=True)
        if g.requires_grad:
            (g * g).sum().backward()
        grads.append(None if x.grad is None else x.grad.numpy())
    if grads[1] is None:
        assert grads[0] is None or not grads[0].any()
    else:
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_tanh_and_sigmoid_backward_are_pytorchs_kernels_bit_for_bit():
    # Given the same saved output, the gradient is the kernel's: tanh's ``1 - y*y`` fused
    # into one rounding, sigmoid's ``g * (1 - y) * y`` left to right; plain, recorded and
    # with ``g`` transposed (TensorIterator lays the result out as ``g``) alike.
    rng = np.random.default_rng(5)
    for dtype in ("float32", "float64"):
        x = rng.standard_normal((40, 30)).astype(dtype) * 3
        g = rng.standard_normal((30, 40)).astype(dtype)
        for name in ("tanh", "sigmoid"):
            y = getattr(torch, name)(torch.tensor(x)).numpy()
            kernel = getattr(torch.ops.aten, name + "_backward")
            want = kernel(torch.tensor(g).t(), torch.tensor(y))
            mine = getattr(_backward_ops, name + "_backward")
            plain = mine(jtensor.tensor(g).t(), jtensor.tensor(y))
            recorded = mine(jtensor.tensor(g).t(), jtensor.tensor(y, requires_grad=True))
            assert recorded.grad_fn.name() == name.capitalize() + "BackwardBackward0"
            for got in (plain, recorded.detach()):
                assert got.stride() == want.stride()
                np.testing.assert_array_equal(_bits(got), want.numpy().view(_bits(got).dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_vjp_under_vmap_gives_the_plain_gradients_bits(name, dtype):
    # The jacobians tutorial compares a vmap-of-vjp jacobian with autograd's rows: under a
    # transform the kernel's formula runs in public ops, and must give the same bits.
    d = getattr(jtensor, dtype)
    x = jtensor.tensor(np.linspace(-6, 6, 7), dtype=d)
    fn = getattr(jtensor, name)
    _, vjp = jtensor.func.vjp(fn, x)
    rows = jtensor.func.vmap(vjp)(jtensor.eye(7, dtype=d))[0]
    plain = []
    for i in range(7):
        xi = x.clone().requires_grad_()
        (g,) = jtensor.autograd.grad(fn(xi), xi, jtensor.eye(7, dtype=d)[i])
        plain.append(g)
    np.testing.assert_array_equal(_bits(rows), _bits(jtensor.stack(plain)))
