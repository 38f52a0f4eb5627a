"""A recorded ``x[key] = v`` with a basic key, a tensor value and a plain floating target that
is no view (``out[t] = h`` in a loop) is recorded by ``graph.record_write`` (issue 18). Its
node, edges, stored values, versions and gradients must be those of the general recording
path, and PyTorch's; every other write keeps the general path."""

import numpy as np
import pytest

import jtensor
from jtensor._registry import OPS
from jtensor.autograd.formulas import views as view_formulas

# (target shape, key, value shape, whether the target itself requires grad)
CASES = {
    "row": ((4, 3), 1, (3,), False),
    "last row": ((4, 3), -1, (3,), False),
    "rows": ((4, 3), slice(1, 3), (2, 3), False),
    "column": ((4, 3), (slice(None), 0), (4,), False),
    "broadcast row": ((4, 3), 2, (1, 3), False),  # viewed without its leading 1 first
    "expanded": ((4, 3), slice(0, 2), (3,), False),  # expanded to the selection first
    "zero-d value": ((4, 3), (1, 2), (), False),
    "whole": ((4, 3), (Ellipsis,), (4, 3), False),
    "new axis": ((4, 3), (None, 1), (1, 3), False),
    "into a non-leaf": ((4, 3), 0, (3,), True),
    "lone ellipsis": ((4, 3), Ellipsis, (4, 3), False),
    "lone None": ((4, 3), None, (1, 4, 3), False),
}


def _write(lib, name, calls=None):
    shape, key, value_shape, target_grad = CASES[name]
    rng = np.random.default_rng(11)
    value = lib.tensor(rng.standard_normal(value_shape), requires_grad=True)
    source = lib.tensor(rng.standard_normal(shape), requires_grad=target_grad)
    target = source * 2 if target_grad else lib.zeros(shape, dtype=lib.float64)
    before = target._version
    target[key] = value
    node = target.grad_fn
    out = (target * lib.arange(target.numel(), dtype=lib.float64).reshape(shape)).sum()
    out.backward()
    seen = [
        node.name(),
        [(n.name() if n is not None else None, nr) for n, nr in node.next_functions],
        target._version - before,
        target.detach().numpy().tolist(),
        value.grad.numpy().tolist(),
        None if source.grad is None else source.grad.numpy().tolist(),
    ]
    if lib is jtensor:
        seen.append(({k: v for k, v in node._values.items() if k != "key_box"}, node._input_meta))
    return seen


def _counting(monkeypatch):
    taken = []
    real = view_formulas.record_write

    def counting(*args):
        taken.append(True)
        return real(*args)

    monkeypatch.setattr(view_formulas, "record_write", counting)
    return taken


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_lane_equals_the_general_path(name, monkeypatch):
    taken = _counting(monkeypatch)
    lane = _write(jtensor, name)
    assert taken == [True]
    monkeypatch.setattr(OPS["__setitem__"].backward, "lean", None)
    assert _write(jtensor, name) == lane
    assert taken == [True]


@pytest.mark.parametrize("name", sorted(CASES))
def test_nodes_and_gradients_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    assert _write(jtensor, name)[:6] == _write(torch, name)


def test_a_retained_target_keeps_retaining():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (jtensor, torch):
        h = lib.ones(3, requires_grad=True)
        out = lib.zeros(2, 3, requires_grad=True) * 1
        out.retain_grad()
        out[0] = h * 3
        (out * 2).sum().backward()
        seen[lib] = (out.grad_fn.name(), out.grad.tolist(), h.grad.tolist())
    assert seen[jtensor] == seen[torch]


@pytest.mark.parametrize(
    "write",
    [
        lambda out, h: out.__setitem__(0, 1.5),  # a number
        lambda out, h: out.__setitem__(jtensor.tensor([0, 1]), h),  # an index tensor
        lambda out, h: out[1:].__setitem__(0, h),  # the target is a view
        lambda out, h: out.__setitem__(0, out[1]),  # the value shares the target's storage
        lambda out, h: out.long().__setitem__(0, h),  # not floating
    ],
    ids=["number", "index-tensor", "view-target", "aliased-value", "integer-target"],
)
def test_other_writes_keep_the_general_path(write, monkeypatch):
    taken = _counting(monkeypatch)
    out = jtensor.zeros(3, 4, requires_grad=True) * 1
    write(out, jtensor.ones(4, requires_grad=True))
    assert taken == []


@pytest.mark.parametrize(
    "write",
    [
        lambda lib, h: lib.zeros(2, 3, requires_grad=True).__setitem__(0, h),  # a leaf
        lambda lib, h: lib.zeros(2, 3).__setitem__(0, lib.ones(4, requires_grad=True)),
        lambda lib, h: lib.zeros(2, 3).__setitem__(5, h),  # out of range
    ],
    ids=["leaf-target", "shape-mismatch", "out-of-range"],
)
def test_refused_writes_raise_pytorchs_errors(write, monkeypatch):
    torch = pytest.importorskip("torch")
    raised = {}
    for lib in (jtensor, torch):
        with pytest.raises(Exception) as info:
            write(lib, lib.ones(3, requires_grad=True))
        raised[lib] = type(info.value).__name__
    assert raised[jtensor] == raised[torch]
    monkeypatch.setattr(OPS["__setitem__"].backward, "lean", None)
    with pytest.raises(Exception) as general:
        write(jtensor, jtensor.ones(3, requires_grad=True))
    assert type(general.value).__name__ == raised[jtensor]


def test_declined_writes_run_once(monkeypatch):
    # (``x[key] = v`` returns None: the lean start tells a declined call by a sentinel)
    counter = jtensor.zeros(3, 4) * 1
    h = jtensor.ones(4, requires_grad=True)
    versions = []
    counter[0] = h
    versions.append(counter._version)
    counter[1] = 2.0
    versions.append(counter._version)
    assert versions == [1, 2]
