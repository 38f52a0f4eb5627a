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


def _graph_grads(plain, layout_a, layout_b, dtype, op):
    """mm/addmm gradients from a plain backward (array fast path) or from ``create_graph``
    (the public ops), for operands of the given layouts."""
    d = getattr(jtensor, dtype)
    a = jtensor.linspace(-1, 1, 12, dtype=d).reshape(4, 3)
    b = jtensor.linspace(-2, 3, 15, dtype=d).reshape(3, 5)
    a = a.t().contiguous().t() if layout_a == "columns" else a
    b = b.t().contiguous().t() if layout_b == "columns" else b
    bias = jtensor.linspace(0, 1, 5, dtype=d)
    leaves = [a.requires_grad_(), b.requires_grad_(), bias.requires_grad_()]
    out = bias.addmm(a, b) if op == "addmm" else a.mm(b) + bias
    g = jtensor.linspace(-1, 2, 20, dtype=d).reshape(4, 5).exp()
    grads = jtensor.autograd.grad(out, leaves, g, create_graph=not plain)
    return [x.detach() for x in grads]


@pytest.mark.parametrize("op", ["mm", "addmm"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("layout_a", ["rows", "columns"])
@pytest.mark.parametrize("layout_b", ["rows", "columns"])
def test_plain_backward_products_equal_the_recorded_formula(op, dtype, layout_a, layout_b):
    # The plain pass computes mm gradients and a broadcast bias's sum on the arrays; a
    # create_graph pass runs the same formulas in public ops: same values, bit for bit, and
    # the same layouts (a column-major operand gets a column-major gradient).
    fast = _graph_grads(True, layout_a, layout_b, dtype, op)
    slow = _graph_grads(False, layout_a, layout_b, dtype, op)
    for f, s in zip(fast, slow, strict=True):
        assert (f.shape, f.stride(), f.dtype) == (s.shape, s.stride(), s.dtype)
        assert jtensor.equal(f, s)
        assert f._base is None or f._base.grad_fn is None


def test_plain_backward_bias_sum_matches_torch():
    def run(lib):
        x = lib.linspace(-3, 3, 24, dtype=lib.float32).reshape(2, 3, 4)
        b = lib.linspace(0, 1, 4, dtype=lib.float32).requires_grad_()
        c = lib.linspace(0, 1, 3, dtype=lib.float32).reshape(3, 1).requires_grad_()
        ((x + b + c) ** 2).sum().backward()
        return b.grad, c.grad

    for mine, theirs in zip(*_both(run), strict=True):
        assert tuple(mine.shape) == tuple(theirs.shape)
        assert mine.stride() == theirs.stride()
        np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-6)


def test_plain_backward_still_refuses_a_gradient_that_is_no_broadcast():
    # The engine's fitting step (``graph._fit``) sums a broadcast gradient on the arrays in a
    # plain pass; a gradient whose shape is not a broadcast of the input's still raises.
    from jtensor.autograd import graph

    g = jtensor.ones(4, 3)
    meta = ((4, 2), jtensor.float32, g.device)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 0 - got \[4, 3\]"):
        graph._fit(g, meta)
    meta = ((1, 3), jtensor.float32, g.device)
    fitted = graph._fit(g, meta)
    assert fitted.shape == (1, 3) and fitted.tolist() == [[4.0, 4.0, 4.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w: x.tanh(),
        lambda x, w: x.sigmoid(),
        lambda x, w: x.relu(),
        lambda x, w: x * w,
        lambda x, w: x.exp(),
        lambda x, w: x @ w.t(),
        lambda x, w: (x + w).sum(0),
        lambda x, w: x.softmax(-1),
        lambda x, w: x.softmax(0),
        lambda x, w: x.log_softmax(1),
    ],
    ids=[
        "tanh",
        "sigmoid",
        "relu",
        "mul",
        "exp",
        "mm",
        "add_sum",
        "softmax",
        "softmax0",
        "log_softmax",
    ],
)
def test_plain_backward_equals_the_recorded_formula_bit_for_bit(fn, dtype):
    # A plain backward computes some gradients on the arrays; create_graph=True (and vjp
    # under vmap) runs the formulas in public ops. Both must give the same numbers, even
    # where the formula cancels (tanh near +-1): the jacobians tutorial compares them.
    gen = np.random.default_rng(4)
    d = getattr(jtensor, dtype)
    x = jtensor.tensor(gen.standard_normal((6, 6)) * 6, dtype=d, requires_grad=True)
    w = jtensor.tensor(gen.standard_normal((6, 6)), dtype=d)
    g = jtensor.tensor(gen.standard_normal(tuple(fn(x, w).shape)), dtype=d)
    (plain,) = jtensor.autograd.grad(fn(x, w), x, g)
    (recorded,) = jtensor.autograd.grad(fn(x, w), x, g, create_graph=True)
    assert plain.cpu().numpy().tobytes() == recorded.detach().cpu().numpy().tobytes()


def _addmm_case(lib, needs, bias_shape, layout, plain):
    """addmm with default alpha and beta (a linear layer's node), some inputs needing a
    gradient; the gradients of those that do, from a plain or a create_graph pass."""
    gen = np.random.default_rng(7)
    vals = [gen.standard_normal(s).astype("float32") for s in (bias_shape, (4, 3), (5, 3))]
    bias, a, w = (lib.from_numpy(v.copy()) for v in vals)
    b = w.t() if layout == "columns" else w.t().contiguous()
    leaves = [t.requires_grad_() for t, n in zip((bias, a, b), needs, strict=True) if n]
    out = lib.addmm(bias, a, b)
    g = lib.from_numpy(gen.standard_normal((4, 5)).astype("float32"))
    grads = lib.autograd.grad(out, leaves, g, create_graph=not plain)
    return [x.detach() for x in grads]


NEEDS = [(True, False, True), (False, True, False), (True, True, True), (False, False, True)]


@pytest.mark.parametrize("needs", NEEDS, ids=str)
@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (4, 5), (4, 1), ()], ids=str)
@pytest.mark.parametrize("layout", ["rows", "columns"])
def test_linear_node_gradients_on_the_arrays(needs, bias_shape, layout):
    # The plain pass of addmm with alpha = beta = 1 computes all its gradients on the arrays
    # at once: the values, shapes and layouts of the formula in public ops and of PyTorch.
    fast = _addmm_case(jtensor, needs, bias_shape, layout, True)
    slow = _addmm_case(jtensor, needs, bias_shape, layout, False)
    theirs = _addmm_case(torch, needs, bias_shape, layout, True)
    for f, s, t in zip(fast, slow, theirs, strict=True):
        assert (tuple(f.shape), f.stride(), f.dtype) == (tuple(s.shape), s.stride(), s.dtype)
        assert jtensor.equal(f, s)
        assert (tuple(f.shape), f.stride()) == (tuple(t.shape), t.stride())
        np.testing.assert_allclose(f.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


def test_linear_node_checks_its_saved_operands_as_torch():
    # The array pass reads the saved operands through the same version check.
    def run(lib):
        x = lib.ones(2, 3)
        lin = lib.nn.Linear(3, 2)
        h = x * 1
        out = lin(h)
        h.add_(1)
        messages = []
        try:
            out.sum().backward()
        except RuntimeError as exc:
            # (on a CUDA device the tensor's type reads torch.cuda.FloatTensor)
            messages.append(str(exc).split(" Hint")[0].replace("torch.cuda.", "torch."))
        return messages, lin.weight.grad

    (mine, grad), (theirs, tgrad) = _both(run)
    assert mine == theirs and len(mine) == 1
    assert grad is None and tgrad is None
