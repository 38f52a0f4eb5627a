"""A call whose arguments are its formula's tensor inputs (one to three of them, plain
tensors or parameters) is recorded by ``graph._record_tensors`` (issue 18): the node, its
edges, what it saves (in PyTorch's order, as pack hooks see it) and the gradients must be
exactly those of the general recording path."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import graph

from ..harness.graphs import record_and_describe


def _data():
    rng = np.random.default_rng(3)  # the same leaves for both paths
    p = jtensor.nn.Parameter(jtensor.tensor(rng.standard_normal((4, 3))))
    b = jtensor.nn.Parameter(jtensor.tensor(rng.standard_normal(4)))
    x = jtensor.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    c = jtensor.tensor(rng.standard_normal((2, 3)))
    s = jtensor.tensor(rng.uniform(0.5, 1.5, (2, 3)), requires_grad=True)
    return p, b, x, c, s


CASES = {
    "linear-addmm": lambda p, b, x, c, s: b.addmm(x, p.t()),
    "addmm-constant-bias": lambda p, b, x, c, s: b.detach().addmm(x, p.t()),
    "addcmul": lambda p, b, x, c, s: jtensor.addcmul(x, c, s),
    "addcdiv": lambda p, b, x, c, s: jtensor.addcdiv(x, s, s + 1),
    "lerp-tensor-weight": lambda p, b, x, c, s: jtensor.lerp(x, c, s),
    "mul-parameter": lambda p, b, x, c, s: x.t() * p[:2].t(),
    "parameter-add": lambda p, b, x, c, s: b + b,
    "where": lambda p, b, x, c, s: jtensor.where(c > 0, x, s),
    # Ops taking their sizes as ``*args`` (``Formula.sizes_call``): every spelling of sizes.
    "view-ints": lambda p, b, x, c, s: x.view(3, 2),
    "view-tuple": lambda p, b, x, c, s: x.view((6,)),
    "view-list-with-minus-one": lambda p, b, x, c, s: p.view([-1, 6]),
    "view-size": lambda p, b, x, c, s: x.view(s.shape),
    "expand-new-dims": lambda p, b, x, c, s: b.expand(2, 3, 4),
    "expand-minus-one": lambda p, b, x, c, s: x[:, :1].expand(-1, 5),
    "expand-size": lambda p, b, x, c, s: x.expand(jtensor.Size([4, 2, 3])),
    "repeat": lambda p, b, x, c, s: x.repeat(2, 1, 3),
    "repeat-tuple": lambda p, b, x, c, s: p.repeat((2, 1)),
}


def _record(case):
    return record_and_describe(CASES[case], _data())


@pytest.mark.parametrize("case", sorted(CASES))
def test_record_tensors_equals_the_general_path(case, monkeypatch):
    calls = []
    real = graph._record_tensors

    def counting(*args):
        calls.append(args[0].name)
        return real(*args)

    monkeypatch.setattr(graph, "_record_tensors", counting)
    fast = _record(case)
    assert calls, "the call was expected to take _record_tensors"
    monkeypatch.setattr(graph, "_tensor_args", lambda formula, args: False)
    monkeypatch.setattr(graph, "DENSE_CLASSES", set())  # record_operator's check too
    calls.clear()
    general = _record(case)
    assert not calls
    assert fast == general


SIZES_OPS = ("view", "expand", "repeat")


@pytest.mark.parametrize("case", sorted(k for k in CASES if k.split("-")[0] in SIZES_OPS))
def test_sizes_calls_store_what_the_general_path_stores(case, monkeypatch):
    # The node's other values (the sizes as ``bind`` gives them: one tuple or list passed
    # alone stands for them all, a ``Size`` stays wrapped) are what its formula and its
    # ``_saved_*`` attributes read.
    fast = CASES[case](*_data()).grad_fn._values
    monkeypatch.setattr(graph, "_tensor_args", lambda formula, args: False)
    general = CASES[case](*_data()).grad_fn._values
    assert fast == general
    assert {k: type(v) for k, v in fast.items()} == {k: type(v) for k, v in general.items()}


def _outcome(lib, call):
    x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    try:
        out = call(lib, x)
    except Exception as exc:  # noqa: BLE001 (the exception's type is the outcome)
        return type(exc).__mro__[1] if type(exc).__module__.startswith("jtensor") else type(exc)
    fn = out.grad_fn
    return tuple(out.shape), str(out.dtype), out.requires_grad, fn.name() if fn else None


SIZES_REFUSED = {
    # a dtype: a reinterpreting view, not differentiable (no history)
    "view-dtype": lambda L, x: x.view(L.float32),
    "view-float-size": lambda L, x: x.view(2, 3.0),  # the op's TypeError
    "expand-tensor-size": lambda L, x: x.expand(2, L.tensor(3)),  # a 0-d tensor as a size
}


@pytest.mark.parametrize("case", sorted(SIZES_REFUSED))
def test_sizes_calls_that_are_not_integers_take_the_general_path(case):
    torch = pytest.importorskip("torch")
    x = jtensor.ones(2, 3, dtype=jtensor.float64, requires_grad=True)
    formula = jtensor._registry.OPS[case.split("-")[0]].backward
    assert formula.sizes_call
    assert not graph._tensor_args(
        formula,
        {
            "view-dtype": (x, jtensor.float32),
            "view-float-size": (x, 2, 3.0),
            "expand-tensor-size": (x, 2, jtensor.tensor(3)),
        }[case],
    )
    assert graph._tensor_args(formula, (x, 2, 3))
    call = SIZES_REFUSED[case]
    assert _outcome(jtensor, call) == _outcome(torch, call)
