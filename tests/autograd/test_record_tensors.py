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
