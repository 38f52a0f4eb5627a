"""Every differentiable op: float64 gradcheck (plain, non-contiguous, expanded, overlapping
inputs), second derivatives (every case but those opting out with a reason PyTorch confirms),
and the same gradients and grad_fn names as PyTorch. An op of the registry without a
gradient spec fails the suite."""

import re

import numpy as np
import pytest

import jtensor
from jtensor._dispatch import RECORDED_KINDS
from jtensor._registry import OPS
from jtensor.autograd.graph import NONDIFF
from tests.harness.gradients import (G, NonDiff, coverage_report, grad_fn_name, load_specs,
                                     make_inputs, second_order_coverage, tensors_in,
                                     variant_inputs, variants_of)

try:
    import torch
except ImportError:  # the oracle is optional; gradcheck still runs
    torch = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

SPECS = load_specs()
CASES = [s for s in SPECS if isinstance(s, G)]
NONDIFFS = {s.op: s for s in SPECS if isinstance(s, NonDiff)}
_ids = {}


def _case_id(case):
    n = _ids.get(case.op, 0)
    _ids[case.op] = n + 1
    return f"{case.op}-{n}"


IDS = [_case_id(c) for c in CASES]
SEEDS = {id(c): 1000 + i for i, c in enumerate(CASES)}


def test_every_recorded_op_has_a_gradient_spec():
    covered = {c.op for c in CASES} | set(NONDIFFS)
    # ``nn`` ops (F.conv2d...) record their own nodes (an autograd.Function in the body).
    missing = sorted(name for name, op in OPS.items()
                     if (op.kind in RECORDED_KINDS or op.kind == "nn") and name not in covered)
    assert not missing, f"ops without a gradient spec (G or NonDiff): {missing}"


def test_every_recorded_op_has_a_formula_or_is_declared_nondifferentiable():
    missing = sorted(name for name, op in OPS.items()
                     if op.kind in RECORDED_KINDS and op.backward is None)
    assert not missing, f"ops without a derivative formula or nondifferentiable(): {missing}"


def test_nondiff_specs_match_the_registry():
    wrong = sorted(name for name in NONDIFFS if name in OPS and OPS[name].backward is not NONDIFF)
    assert not wrong, f"declared NonDiff in a spec but has a formula: {wrong}"
    unknown = sorted(name for name in {c.op for c in CASES} | set(NONDIFFS) if name not in OPS)
    assert not unknown, f"gradient specs for unknown ops: {unknown}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    inputs, _ = make_inputs(jtensor, case, SEEDS[id(case)])
    assert jtensor.autograd.gradcheck(lambda *xs: case.fn(jtensor, *xs), inputs,
                                      eps=case.eps, atol=case.atol, rtol=case.rtol)


VARIANT_CASES = [(c, v) for c in CASES for v in variants_of(c)]


@pytest.mark.parametrize("case,variant", VARIANT_CASES,
                         ids=[f"{IDS[CASES.index(c)]}-{v}" for c, v in VARIANT_CASES])
def test_gradcheck_layouts(case, variant):
    leaves, wrap = variant_inputs(jtensor, case, SEEDS[id(case)], variant)
    assert jtensor.autograd.gradcheck(lambda *xs: case.fn(jtensor, *wrap(list(xs))), leaves,
                                      eps=case.eps, atol=case.atol, rtol=case.rtol)


SECOND = [c for c in CASES if c.checks_second]
OPT_OUTS = [c for c in CASES if not c.checks_second]


@pytest.mark.parametrize("case", SECOND, ids=[IDS[CASES.index(c)] for c in SECOND])
def test_gradgradcheck(case):
    inputs, _ = make_inputs(jtensor, case, SEEDS[id(case)])
    assert jtensor.autograd.gradgradcheck(lambda *xs: case.fn(jtensor, *xs), inputs,
                                          eps=case.eps, atol=case.atol, rtol=case.rtol)


def test_every_second_order_opt_out_names_its_reason():
    """A case skips gradgradcheck only with ``no_second="<reason>"``; ``second=False`` alone
    (the old spelling) or a reason of a word or two fails."""
    bare = [IDS[CASES.index(c)] for c in OPT_OUTS if not c.no_second]
    assert not bare, f"second-order opt-outs without a reason (use no_second=...): {bare}"
    vague = [IDS[CASES.index(c)] for c in OPT_OUTS
             if not isinstance(c.no_second, str) or len(c.no_second.split()) < 6]
    assert not vague, f"second-order opt-outs whose reason is not specific: {vague}"


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case", OPT_OUTS, ids=[IDS[CASES.index(c)] for c in OPT_OUTS])
def test_second_order_opt_out_holds_in_pytorch(case):
    """An opt-out is allowed only where PyTorch's own gradgradcheck, on the same inputs,
    fails or raises; an error the reason quotes ("...") must be PyTorch's."""
    inputs, _ = make_inputs(torch, case, SEEDS[id(case)])
    try:
        passed = torch.autograd.gradgradcheck(lambda *xs: case.fn(torch, *xs), inputs,
                                              eps=case.eps, atol=case.atol, rtol=case.rtol,
                                              raise_exception=True)
    except Exception as e:  # noqa: BLE001 (any failure of PyTorch's check is the point)
        error = str(e)
    else:
        assert not passed
        error = ""
    assert error, (f"PyTorch's gradgradcheck passes on this case: check it to second order "
                   f"instead of opting out ({case.no_second!r})")
    for quoted in re.findall(r'"([^"]+)"', case.no_second or ""):
        assert quoted in error, f"the reason quotes {quoted!r}; PyTorch says {error[:300]!r}"


def _second_order_values(lib, case, seed):
    """Input gradients and a Hessian-vector product (the gradient of ``sum(grads * w)``) of
    the case, by ``create_graph``, with fixed grad_outputs and ``w``: arrays or None."""
    inputs, _ = make_inputs(lib, case, seed)
    leaves = [x for x in inputs if getattr(x, "requires_grad", False)]
    outs = [o for o in tensors_in(case.fn(lib, *inputs)) if o.requires_grad]
    rng = np.random.default_rng(seed + 11)
    gos = [lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs]
    grads = lib.autograd.grad(outs, leaves, gos, create_graph=True, allow_unused=True)
    terms = [(g * lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=g.dtype)).sum()
             for g in grads if g is not None and g.requires_grad]
    hvp = lib.autograd.grad(terms, leaves, allow_unused=True) if terms else [None] * len(leaves)
    # force=True: PyTorch's zero gradients may be ZeroTensors.
    return [None if t is None else t.detach().cpu().numpy(force=True) for t in [*grads, *hvp]]


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case", OPT_OUTS, ids=[IDS[CASES.index(c)] for c in OPT_OUTS])
def test_second_order_opt_out_gives_pytorchs_values(case):
    """Where finite differences cannot judge a second derivative (ties, kinks), jtensor's
    double backward still gives PyTorch's values (its conventions at those points)."""
    seed = SEEDS[id(case)]
    try:
        theirs = _second_order_values(torch, case, seed)
    except RuntimeError as e:  # "derivative for ... is not implemented": nothing to compare
        pytest.skip(f"PyTorch's double backward raises: {e}")
    mine = _second_order_values(jtensor, case, seed)
    for k, (m, t) in enumerate(zip(mine, theirs, strict=True)):
        if t is None or m is None:
            # PyTorch may hand back a zero where jtensor has no graph, or the reverse.
            other = m if t is None else t
            assert other is None or not np.any(other), f"result {k}: {m} vs PyTorch's {t}"
            continue
        np.testing.assert_allclose(m, t, rtol=1e-7, atol=1e-10, equal_nan=True,
                                   err_msg=f"result {k} (gradients, then the HVP)")


def test_second_order_coverage(capsys):
    """The figure of issue 19: ops with second derivatives checked / differentiable ops,
    and the opt-outs grouped by reason (printed; run with -s, or
    ``python -m tests.harness.gradients``). It does not fail on the number."""
    checked, differentiable, opt_outs = second_order_coverage(CASES)
    assert checked <= differentiable
    assert sum(n for ops in opt_outs.values() for n in ops.values()) == len(OPT_OUTS)
    with capsys.disabled():
        print("\n" + coverage_report(CASES))


ORACLE = [c for c in CASES if c.torch]


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case", ORACLE, ids=[IDS[CASES.index(c)] for c in ORACLE])
def test_gradients_match_pytorch(case):
    seed = SEEDS[id(case)]
    j_in, _ = make_inputs(jtensor, case, seed)
    t_in, _ = make_inputs(torch, case, seed)
    j_out = tensors_in(case.fn(jtensor, *j_in))
    t_out = tensors_in(case.fn(torch, *t_in))
    assert len(j_out) == len(t_out)
    for j, t in zip(j_out, t_out, strict=True):
        assert j.requires_grad == t.requires_grad, "requires_grad of the output differs"
        assert grad_fn_name(j) == grad_fn_name(t), "grad_fn names differ"
    rng = np.random.default_rng(seed + 7)
    pairs = [(j, t) for j, t in zip(j_out, t_out, strict=True) if t.requires_grad]
    if not pairs:
        return
    gos = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]
    jtensor.autograd.backward([j for j, _ in pairs],
                              [jtensor.tensor(g, dtype=j.dtype)
                               for g, (j, _) in zip(gos, pairs, strict=True)])
    torch.autograd.backward([t for _, t in pairs],
                            [torch.tensor(g, dtype=t.dtype)
                             for g, (_, t) in zip(gos, pairs, strict=True)])
    for k, (ji, ti) in enumerate(zip(j_in, t_in, strict=True)):
        if not hasattr(ti, "grad") or not getattr(ti, "requires_grad", False):
            continue
        if ti.grad is None:
            assert ji.grad is None, f"input {k}: PyTorch gives no gradient, jtensor does"
        else:
            assert ji.grad is not None, f"input {k}: jtensor gives no gradient"
            np.testing.assert_allclose(ji.grad.cpu().numpy(), ti.grad.numpy(), rtol=1e-6,
                                       atol=1e-8)
