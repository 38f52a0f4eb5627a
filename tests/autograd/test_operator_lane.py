"""``a + b`` and ``a * b`` between two plain contiguous CPU float tensors of one layout, one
of them requiring grad, compute on the arrays inside the operator (``_same_layout``) and
leave only the node to ``graph.record_result`` (issue 18). The result, the node, its edges,
what it saves (in PyTorch's order, as pack hooks see it) and the gradients must be those of
the element-wise path the operator takes otherwise."""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor._ops import arithmetic

from ..harness.graphs import record_and_describe
from ..harness.spies import fast_path_spy


def _leaves(dtype):
    rng = np.random.default_rng(5)  # the same leaves for both paths
    x = jtensor.tensor(rng.standard_normal((2, 3)), dtype=dtype, requires_grad=True)
    y = jtensor.tensor(rng.standard_normal((2, 3)), dtype=dtype, requires_grad=True)
    c = jtensor.tensor(rng.standard_normal((2, 3)), dtype=dtype)
    p = jtensor.nn.Parameter(jtensor.tensor(rng.standard_normal((2, 3)), dtype=dtype))
    z = jtensor.tensor(rng.standard_normal(()), dtype=dtype, requires_grad=True)
    return x, y, c, p, z


CASES = {
    "mul": lambda x, y, c, p, z: x * y,
    "add": lambda x, y, c, p, z: x + y,
    "mul-constant-right": lambda x, y, c, p, z: x * c,
    "mul-constant-left": lambda x, y, c, p, z: c * x,
    "add-constant": lambda x, y, c, p, z: c + y,
    "square": lambda x, y, c, p, z: x * x,
    "parameter": lambda x, y, c, p, z: p * x + p,
    "zero-dim": lambda x, y, c, p, z: z * z + z,
    "chain": lambda x, y, c, p, z: (x * y + x) * c,
    "sub": lambda x, y, c, p, z: x - y,
    "sub-constant-left": lambda x, y, c, p, z: c - y,
    "div": lambda x, y, c, p, z: x / y,
    "div-constant-right": lambda x, y, c, p, z: x / c,
    "sub-div-chain": lambda x, y, c, p, z: (x - y) / (p + c),
}

# The operators and the functions whose entries they stand for (the same nodes, saved
# values and gradients either way).
FUNCTION_FORMS = {
    "x - y": (lambda x, y: x - y, lambda x, y: jtensor.sub(x, y)),
    "x / y": (lambda x, y: x / y, lambda x, y: jtensor.div(x, y)),
    "x - 2": (lambda x, y: x - 2, lambda x, y: jtensor.sub(x, 2)),
    "x / 2.5": (lambda x, y: x / 2.5, lambda x, y: jtensor.div(x, 2.5)),
    "x - y[0]": (lambda x, y: x - y[0], lambda x, y: jtensor.sub(x, y[0])),
    "x.t() / y.t()": (lambda x, y: x.t() / y.t(), lambda x, y: jtensor.div(x.t(), y.t())),
}


@pytest.mark.parametrize("form", sorted(FUNCTION_FORMS))
def test_operators_record_as_their_functions(form):
    operator, function = FUNCTION_FORMS[form]
    recorded = [record_and_describe(f, _leaves(jtensor.float64)[:2]) for f in (operator, function)]
    assert recorded[0] == recorded[1]


def test_bool_subtraction_is_refused_by_the_operator():
    flags = jtensor.tensor([True, False])
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        flags - flags
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        jtensor.ones(2) - flags


def _record(case, dtype):
    made = []

    def make(*leaves):
        out = CASES[case](*leaves)
        made.append((out.dtype, out.is_contiguous(), out._base is None))
        return out

    recorded = record_and_describe(make, _leaves(dtype))
    assert made == [(dtype, True, True)]
    return recorded


def _counting(monkeypatch):
    return fast_path_spy(monkeypatch, arithmetic, "_same_layout")


@pytest.mark.parametrize("dtype", [jtensor.float32, jtensor.float64], ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_lane_equals_the_elementwise_path(case, dtype, monkeypatch):
    taken = _counting(monkeypatch)
    lane = _record(case, dtype)
    assert taken and all(taken), "every operator here was expected to take the lane"
    monkeypatch.setattr(arithmetic, "_same_layout", lambda ufunc, a, b: None)
    assert _record(case, dtype) == lane


@pytest.mark.parametrize(
    "make",
    [
        lambda x, y: x.t() * y.t(),  # not contiguous
        lambda x, y: x * y[0],  # broadcast
        lambda x, y: x.double() * y.double().float(),  # float64 times float32
        lambda x, y: x.half() * y.half(),  # not float32/float64
        lambda x, y: x * 2,  # a number
    ],
    ids=["transposed", "broadcast", "mixed-dtypes", "half", "number"],
)
def test_other_operands_keep_the_elementwise_path(make, monkeypatch):
    taken = _counting(monkeypatch)
    x, y, *_ = _leaves(jtensor.float32)
    out = make(x, y)
    assert out.requires_grad
    assert not any(taken)


def test_the_lane_stays_quiet_where_warnings_are_errors():
    x = jtensor.tensor([1e38, 1.0], requires_grad=True)
    big = jtensor.tensor([1e38, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = x * big  # overflows to inf, as in PyTorch, without a warning
    assert out.detach().tolist() == [float("inf"), 2.0]
    assert out.grad_fn.name() == "MulBackward0"


def test_a_trace_hook_keeps_the_elementwise_path(monkeypatch):
    seen = []
    monkeypatch.setattr(jtensor._dispatch, "trace_hook", lambda *a, **k: seen.append(a))
    taken = _counting(monkeypatch)
    x, y, *_ = _leaves(jtensor.float32)
    x * y
    assert not any(taken)


# A plain tensor with a Python number (``_record_number``): the node, its edges (an edge
# for a wrapped number, none for a Scalar overload's exponent), what it saves and the
# gradients as ``_record_plain`` makes them.
NUMBER_CASES = {
    "x * 2.0": lambda x: x * 2.0,
    "x * 3": lambda x: x * 3,
    "2 * x": lambda x: 2 * x,
    "x + 1": lambda x: x + 1,
    "x - 0.5": lambda x: x - 0.5,
    "x / 4": lambda x: x / 4,
    "x ** 2": lambda x: x**2,
    "x ** 0.5": lambda x: x.abs() ** 0.5,
    "x ** 3.5": lambda x: x.abs() ** 3.5,
    "x.pow(-1)": lambda x: x.pow(-1),
    "torch.mul(x, 2)": lambda x: jtensor.mul(x, 2),
    "x.sub(1)": lambda x: x.sub(1),
    "x.div(3.0)": lambda x: x.div(3.0),
}


@pytest.mark.parametrize("dtype", [jtensor.float32, jtensor.float64], ids=str)
@pytest.mark.parametrize("case", sorted(NUMBER_CASES))
def test_number_operands_record_as_the_general_path(case, dtype, monkeypatch):
    from jtensor.autograd import graph

    taken = fast_path_spy(monkeypatch, graph, "_record_number")
    lane = record_and_describe(NUMBER_CASES[case], _leaves(dtype)[:1])
    assert taken and all(taken)
    monkeypatch.setattr(graph, "_OPERAND_NUMBERS", ())  # every call takes _record_plain
    assert record_and_describe(NUMBER_CASES[case], _leaves(dtype)[:1]) == lane


def _subclass_subtraction(lib):
    class Handled(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ in ("__sub__", "sub"):
                return "handled"
            return super().__torch_function__(func, types, args, kwargs or {})

    flags = lib.tensor([True, False]).as_subclass(Handled)
    return flags - flags, flags - 1


def test_subclass_sees_the_operator_before_its_checks():
    # A subclass's __torch_function__ gets ``a - b`` before sub's bool refusal runs, as the
    # op's entry (and PyTorch) gives it.
    torch = pytest.importorskip("torch")
    assert _subclass_subtraction(jtensor) == _subclass_subtraction(torch)


def test_the_first_number_call_of_a_formula_packs_once(monkeypatch):
    """The lane's plan of what a (needs, node) pair saves is made on the first such call,
    without saving anything itself: a pack hook sees each saved tensor once, on that call
    too (the plan was once made by saving, which packed the tensor a second time)."""
    from jtensor.autograd import graph

    formula = jtensor._ops.arithmetic.pow.op.backward
    monkeypatch.setattr(formula, "_number_plans", {})
    x = jtensor.tensor([1.0, 4.0], requires_grad=True)
    packed = []
    with graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        for _ in range(2):
            out = x**0.5
            assert len(packed) == 1 and packed.pop() is x
            assert list(out.grad_fn._saved) == ["input"]
