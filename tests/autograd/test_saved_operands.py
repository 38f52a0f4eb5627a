"""Which operands a node saves, seen through in-place writes after the op.

PyTorch saves an operand only for the gradients that read it: ``a / b`` keeps ``a`` only when
``b`` requires grad, ``x @ w`` keeps ``x`` only for ``w``'s gradient. So a program that
writes into an operand after the op (under ``no_grad``, as an optimizer or a data pipeline
does) may or may not make ``backward`` fail with "modified by an inplace operation", and
jtensor must answer as PyTorch does in both directions: refuse when the written operand is
read by a needed gradient, and run when it is not (found by the random programs).
"""

import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")

A = [[0.5, -1.2, 2.0], [1.5, 0.7, -0.3], [0.9, -2.2, 1.1]]
B = [[0.3, 1.1, -0.6], [-1.4, 0.8, 2.5], [0.2, 1.7, -0.9]]

F = "nn.functional"
OPS = {
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "div-by-number": lambda L, a, b: a / 3.0,
    "number-by-tensor": lambda L, a, b: 2.0 / a,
    "pow": lambda L, a, b: L.pow(a, b),
    "pow-number": lambda L, a, b: a**2,
    "atan2": lambda L, a, b: L.atan2(a, b),
    "matmul": lambda L, a, b: a @ b,
    "matmul-vector": lambda L, a, b: a @ b[0],
    "mm": lambda L, a, b: L.mm(a, b),
    "bmm": lambda L, a, b: L.bmm(a[None], b[None]),
    "mv": lambda L, a, b: L.mv(a, b[0]),
    "dot": lambda L, a, b: L.dot(a[0], b[0]),
    "inner": lambda L, a, b: L.inner(a, b),
    "tensordot": lambda L, a, b: L.tensordot(a, b, 1),
    "einsum": lambda L, a, b: L.einsum("ij,jk->ik", a, b),
    "addmm": lambda L, a, b: L.addmm(a, a, b),
    "addcdiv": lambda L, a, b: L.addcdiv(b, a, b),
    "addcdiv-divisor": lambda L, a, b: L.addcdiv(b, b, a),
    "addcmul": lambda L, a, b: L.addcmul(b, a, b),
    "ldexp": lambda L, a, b: L.ldexp(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b),
    "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
    "linear": lambda L, a, b: L.nn.functional.linear(a, b),
    "linear-bias": lambda L, a, b: L.nn.functional.linear(a, b, b[0]),
    "linear-3d": lambda L, a, b: L.nn.functional.linear(a[None], b),
    "conv1d": lambda L, a, b: L.nn.functional.conv1d(a[None], b[:, :, None]),
    "mse_loss": lambda L, a, b: L.nn.functional.mse_loss(a, b),
    "cosine_similarity": lambda L, a, b: L.nn.functional.cosine_similarity(a, b),
}


def _outcome(L, op, grad, written):
    a = L.tensor(A, dtype=L.float64, requires_grad=True).clone()
    b = L.tensor(B, dtype=L.float64, requires_grad=True).clone()
    if grad == "a":
        b = b.detach()
    else:
        a = a.detach()
    y = OPS[op](L, a, b)
    if not y.requires_grad:
        return "no graph"
    with L.no_grad():
        (a if written == "a" else b).mul_(2.0)
    try:
        y.sum().backward()
    except RuntimeError as exc:
        assert "modified by an inplace operation" in str(exc)
        return "refused"
    return "ran"


@pytest.mark.parametrize("written", ["a", "b"])
@pytest.mark.parametrize("grad", ["a", "b"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_backward_after_an_operand_is_written_answers_as_pytorch(op, grad, written):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _outcome(torch, op, grad, written)
        assert _outcome(jtensor, op, grad, written) == expected


def test_the_unsaved_operand_can_change_without_changing_the_gradient():
    # The gradient of w in x @ w reads x only: writing w (an optimizer step) before
    # backward is allowed, and w's gradient is x^T @ g with the x of the forward.
    x = jtensor.tensor(A, dtype=jtensor.float64)
    w = jtensor.tensor(B, dtype=jtensor.float64, requires_grad=True)
    y = (x @ w).sum()
    with jtensor.no_grad():
        w.sub_(1.0)
    y.backward()
    expected = x.t() @ jtensor.ones(3, 3, dtype=jtensor.float64)
    assert jtensor.equal(w.grad, expected)


SAVED = {
    "a * b": lambda a, b: a * b,
    "a * 2": lambda a, b: a * 2,
    "3 * b": lambda a, b: 3 * b,
    "a / b": lambda a, b: a / b,
    "b / 7": lambda a, b: b / 7,
    "2 / b": lambda a, b: 2 / b,
    "a.pow(b)": lambda a, b: a.pow(b),
    "2 ** b": lambda a, b: 2**b,
}


@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("expr", sorted(SAVED))
def test_saved_tensors_are_pytorchs_in_order(expr, needs):
    # What a saved-tensor pack hook sees: which operands (and results) a node keeps, in
    # PyTorch's order. PyTorch saves an operand only when a gradient that reads it will be
    # computed (``a * b`` with a constant ``b`` keeps ``b`` only; ``a * 2`` keeps nothing).
    def run(lib):
        a = lib.tensor([3.0, 4.0], requires_grad=needs[0])
        b = lib.tensor([5.0, 0.5], requires_grad=needs[1])
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: seen.append(t.tolist()) or t, lambda t: t
        ):
            SAVED[expr](a, b)
        return seen

    assert run(jtensor) == run(torch)


PRODUCTS = {
    "linear": lambda F, x, w, b: F.linear(x, w, b),
    "linear-no-bias": lambda F, x, w, b: F.linear(x, w),
    "x.mm(w.t())": lambda F, x, w, b: x.mm(w.t()),
    "addmm": lambda F, x, w, b: b.addmm(x, w.t()),
    "x @ w.t()": lambda F, x, w, b: x @ w.t(),
}


@pytest.mark.parametrize("needs", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("expr", sorted(PRODUCTS))
def test_matrix_products_save_as_pytorch(expr, needs):
    # ``linear`` records addmm/mm as PyTorch does: each factor kept (with its layout) only
    # for the other's gradient, in PyTorch's order.
    def run(lib):
        x = lib.full((2, 3), 1.0, requires_grad=needs[0])
        w = lib.full((4, 3), 2.0, requires_grad=needs[1])
        b = lib.full((4,), 3.0, requires_grad=True)
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: seen.append((tuple(t.shape), t.stride(), t[0, 0].item())) or t,
            lambda t: t,
        ):
            y = PRODUCTS[expr](lib.nn.functional, x, w, b)
        return seen, type(y.grad_fn).__name__

    assert run(jtensor) == run(torch)


# What each node hands to a saved-tensor pack hook, for the common ops: which values, how
# many, in PyTorch's order (its generated code saves the inputs sorted by name, then the
# outputs), for every combination of operands that need a gradient. ``x ** 2`` saves self
# only (the exponent is a number), ``exp``/``tanh``/``sigmoid``/``relu`` their result,
# ``max(x, dim)``/``sort``/``topk`` the indices only.
PACKED = {
    "mul": lambda L, a, b: a * b,
    "x * x": lambda L, a, b: a * a,
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: L.sub(a, b, alpha=2),
    "div": lambda L, a, b: a / b,
    "pow-number": lambda L, a, b: a.pow(2),
    "pow-tensors": lambda L, a, b: a.pow(b),
    "number-pow": lambda L, a, b: 2**b,
    "square": lambda L, a, b: a.square(),
    "float_power": lambda L, a, b: L.float_power(a, 2),
    "exp": lambda L, a, b: a.exp(),
    "log": lambda L, a, b: a.abs().log(),
    "sin": lambda L, a, b: a.sin(),
    "tanh": lambda L, a, b: a.tanh(),
    "sigmoid": lambda L, a, b: a.sigmoid(),
    "relu": lambda L, a, b: a.relu(),
    "F.relu": lambda L, a, b: L.nn.functional.relu(a),
    "sqrt": lambda L, a, b: a.abs().sqrt(),
    "sum": lambda L, a, b: a.sum(1),
    "mean": lambda L, a, b: a.mean(),
    "mm": lambda L, a, b: a.mm(b.t()),
    "addmm": lambda L, a, b: L.addmm(b[0, :2], a, b.t()),
    "linear": lambda L, a, b: L.nn.functional.linear(a, b, b[0, :2]),
    "matmul": lambda L, a, b: a @ b.t(),
    "bmm": lambda L, a, b: L.bmm(a[None], b.t()[None]),
    "view": lambda L, a, b: a.view(6),
    "t": lambda L, a, b: a.t(),
    "index": lambda L, a, b: a[L.tensor([1, 0])],
    "softmax": lambda L, a, b: a.softmax(1),
    "log_softmax": lambda L, a, b: a.log_softmax(-1),
    "nll_loss": lambda L, a, b: L.nn.functional.nll_loss(a.log_softmax(1), L.tensor([0, 2])),
    "cross_entropy": lambda L, a, b: L.nn.functional.cross_entropy(a, L.tensor([0, 2])),
    "max": lambda L, a, b: a.max(),
    "max-dim": lambda L, a, b: a.max(1).values,
    "min-dim": lambda L, a, b: a.min(1, keepdim=True).values,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "median-dim": lambda L, a, b: a.median(1).values,
    "sort": lambda L, a, b: a.sort(1).values,
    "topk": lambda L, a, b: a.topk(2).values,
    "kthvalue": lambda L, a, b: a.kthvalue(2).values,
    "cummax": lambda L, a, b: a.cummax(1).values,
    "std_mean": lambda L, a, b: L.std_mean(a, 1)[0],
    "gather": lambda L, a, b: a.gather(1, L.tensor([[0], [1]])),
    "take": lambda L, a, b: a.take(L.tensor([0, 4])),
    "masked_select": lambda L, a, b: a.masked_select(b > 0),
    "atan2": lambda L, a, b: L.atan2(a, b),
    "hypot": lambda L, a, b: L.hypot(a, b),
    "lerp-number": lambda L, a, b: L.lerp(a, b, 0.3),
    "lerp-tensor": lambda L, a, b: L.lerp(a, b, b),
    "addcmul": lambda L, a, b: L.addcmul(a, a, b),
    "addcdiv": lambda L, a, b: L.addcdiv(a, a, b),
    "remainder": lambda L, a, b: L.remainder(a, b),
    "fmod": lambda L, a, b: L.fmod(a, b),
    "copysign": lambda L, a, b: L.copysign(a, b),
    "ldexp": lambda L, a, b: L.ldexp(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b),
    "clamp-tensor": lambda L, a, b: a.clamp(b),
    "mul_": lambda L, a, b: a.clone().mul_(b),
    "div_": lambda L, a, b: a.clone().div_(b),
    "pow_": lambda L, a, b: a.clone().pow_(b),
    "pow_-number": lambda L, a, b: a.clone().pow_(2),
    "mse_loss": lambda L, a, b: L.nn.functional.mse_loss(a, b),
    "gelu": lambda L, a, b: L.nn.functional.gelu(a),
    "embedding": lambda L, a, b: L.nn.functional.embedding(L.tensor([1, 0]), a),
}


def _packed(lib, op, needs):
    a = lib.tensor(A[:2], dtype=lib.float64, requires_grad=needs[0])
    b = lib.tensor(B[:2], dtype=lib.float64, requires_grad=needs[1])
    seen = []

    def pack(t):
        # (values to 9 digits: exp, tanh and the like may round the last bit otherwise)
        values = [
            v if v != v else float(f"{v:.9g}") for v in t.detach().double().reshape(-1).tolist()
        ]
        seen.append((tuple(t.shape), str(t.dtype), str(values)))
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = PACKED[op](lib, a, b)
    return seen, y.grad_fn.name() if y.grad_fn is not None else None


@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("op", sorted(PACKED))
def test_pack_hooks_see_what_pytorch_saves(op, needs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _packed(torch, op, needs)
        assert _packed(jtensor, op, needs) == expected


def test_pow_packs_its_base_once():
    # The tutorial's ``x.pow(2)`` under hooks that scale what they keep: pack runs once,
    # and the gradient comes from the unpacked base.
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        calls = []
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: calls.append(1) or t * 4, lambda t: t / 4
        ):
            y = lib.pow(x, 2)
        y.sum().backward()
        return len(calls), x.grad.tolist()

    assert run(jtensor) == run(torch) == (1, [2.0, -4.0, 6.0])
