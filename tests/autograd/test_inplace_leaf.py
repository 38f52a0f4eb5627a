"""In-place writes into a leaf that requires grad (or a view of one) are refused, as in PyTorch.

Checked before any byte changes; allowed under ``no_grad`` (the optimizer-step idiom).
"""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor._registry import OPS

from tests.harness.conformance import torch
from tests.specs import all_specs

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

SPECS = all_specs()


def _first_float_case(name):
    for case in SPECS[name].cases:
        if case.make is None:
            continue
        inputs = case.make(jtensor)
        inputs = inputs if isinstance(inputs, tuple) else (inputs,)
        if isinstance(inputs[0], jtensor.Tensor) and inputs[0].is_floating_point():
            return case
    return None


INPLACE = sorted(name for name, op in OPS.items() if op.kind == "inplace")
CASES = [(name, case) for name in INPLACE if (case := _first_float_case(name)) is not None]


def _outcome(lib, case):
    inputs = case.make(lib)
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    leaf = inputs[0].requires_grad_(True)
    before = leaf.detach().clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            case.run(lib, *inputs)
        except Exception as exc:  # noqa: BLE001 - compared below
            unchanged = np.array_equal(leaf.detach().float().cpu().numpy(),
                                       before.float().cpu().numpy(), equal_nan=True)
            return type(exc).__name__ if isinstance(exc, RuntimeError) else "other", unchanged
    return "ok", None


def test_most_inplace_ops_are_covered():
    assert len(CASES) >= 60, f"only {len(CASES)} in-place ops have a float case to check"


@pytest.mark.skipif(torch is None, reason="needs the PyTorch oracle")
@pytest.mark.parametrize("name,case", CASES, ids=[n for n, _ in CASES])
def test_inplace_on_leaf_requiring_grad_matches_pytorch(name, case):
    mine, unchanged = _outcome(jtensor, case)
    theirs, _ = _outcome(torch, case)
    assert (mine == "ok") == (theirs == "ok"), f"{name}: jtensor {mine}, PyTorch {theirs}"
    if mine != "ok":
        assert unchanged, f"{name} wrote into the leaf before refusing"


def test_seed_000_view_of_a_leaf():
    a = jtensor.tensor([1.0, 2.0, 3.0, 4.0], dtype=jtensor.float64, requires_grad=True)
    b = a.view(2, 2)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        b[:, 0] += 5
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        b[:, 0] = 5
    c = b[:, 0] + 5  # not in place: fine
    assert c.tolist() == [6.0, 8.0]
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_no_grad_allows_the_update():
    w = jtensor.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.sub_(1)
    with jtensor.no_grad():
        w.sub_(1)
        w[0] = 5.0
    assert w.tolist() == [5.0, 0.0, 0.0]


def test_view_given_requires_grad_itself_is_named_a_view_when_written():
    # A view of a tensor that needs no grad, made a leaf by requires_grad_(): an in-place op
    # on it is refused with PyTorch's "a view of a leaf Variable" message.
    torch = pytest.importorskip("torch")
    for lib in (jtensor, torch):
        base = lib.zeros(4, dtype=lib.float64)
        view = base[:2]
        view.requires_grad_()
        assert view.is_leaf
        with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad"):
            view.add_(1)
        assert view._version == 0


@pytest.mark.parametrize("op", ["mul_", "div_", "pow_", "atan2_", "add_", "sub_"])
def test_self_as_the_other_argument_of_an_inplace_op(op):
    # t.mul_(t) saves t as the other factor, then overwrites it: PyTorch's backward refuses
    # (jtensor used the overwritten value: a wrong gradient); add_/sub_ save nothing.
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (jtensor, torch):
        t0 = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        t1 = t0 * 1
        getattr(t1, op)(t1)
        try:
            (t1 * 2).sum().backward()
            outcomes.append(("ok", t0.grad.item()))
        except RuntimeError as exc:
            assert "modified by an inplace operation" in str(exc)
            outcomes.append(("raised", None))
    assert outcomes[0] == outcomes[1]


def test_writing_an_empty_expanded_tensor_is_allowed():
    for lib in (jtensor, pytest.importorskip("torch")):
        x = lib.zeros(1, 0).expand(2, 0)
        x.add_(1)
        lib.zeros(0).expand(3, 0).zero_()
