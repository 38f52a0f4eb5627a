"""The op registry drives these tests: every op needs a spec, and every spec case is run in
jtensor and (when installed) PyTorch and compared in every observable way."""

import warnings

import pytest

import jtensor
from jtensor._registry import OPS

from tests.harness.conformance import (
    check_self_consistent,
    compare,
    compare_sharing,
    on_cuda,
    run_case,
    torch,
)
from tests.specs import all_specs

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

SPECS = all_specs()
CASES = [(name, i, case) for name, spec in sorted(SPECS.items())
         for i, case in enumerate(spec.cases)]


def test_every_registered_op_has_a_spec():
    missing = sorted(set(OPS) - set(SPECS))
    assert not missing, f"ops without a spec in tests/specs: {missing}"


def test_every_spec_names_a_registered_op():
    unknown = sorted(set(SPECS) - set(OPS))
    assert not unknown, f"specs for ops that are not registered: {unknown}"


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_function_and_method_forms_exist_exactly_where_pytorch_has_them():
    """``torch.expand`` does not exist (only ``Tensor.expand``): registering an op as a function
    or a method that PyTorch lacks would let teaching code run here and fail in PyTorch."""
    extra_functions = sorted(name for name, op in OPS.items()
                             if op.function and not hasattr(torch, name))
    extra_methods = sorted(name for name, op in OPS.items()
                           if op.method is True and not hasattr(torch.Tensor, name))
    assert not extra_functions, f"jtensor.<name> without torch.<name>: {extra_functions}"
    assert not extra_methods, f"Tensor.<name> without torch.Tensor.<name>: {extra_methods}"


def test_every_spec_has_cases():
    empty = sorted(name for name, spec in SPECS.items() if not spec.cases)
    assert not empty, f"specs without a case: {empty}"


@pytest.mark.parametrize("name,index,case", CASES,
                         ids=[f"{n}-{c.name or i}" for n, i, c in CASES])
def test_case(name, index, case):
    mine_inputs, mine = run_case(jtensor, case)
    if not isinstance(mine, BaseException):
        check_self_consistent(mine, mine_inputs)
    if torch is None:
        if isinstance(mine, BaseException) and not isinstance(
                mine, (RuntimeError, IndexError, TypeError, ValueError, OverflowError)):
            raise mine
        pytest.skip("PyTorch (the conformance oracle) is not installed")
    torch_inputs, theirs = run_case(torch, case)
    compare(mine, theirs, case)
    if not isinstance(theirs, BaseException):
        compare_sharing(mine_inputs, mine, torch_inputs, theirs)


class _Recorder:
    """A minimal trace hook: the names of the ops that reached ``_dispatch.finish``."""

    def __init__(self):
        self.names = []

    def __call__(self, op, inputs, outputs, modified, info):
        self.names.append(op.name)


@pytest.mark.parametrize("name,index,case", CASES,
                         ids=[f"{n}-{c.name or i}" for n, i, c in CASES])
def test_case_reaches_the_dispatch_point(name, index, case, monkeypatch):
    """Each op, when it succeeds, passes through the single dispatch point and is traced."""
    from jtensor import _dispatch

    inputs = case.make(jtensor) if case.make is not None else ()
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    recorder = _Recorder()
    monkeypatch.setattr(_dispatch, "trace_hook", recorder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warnings are compared by the op's own tests
            case.run(jtensor, *inputs)
    except Exception:  # noqa: BLE001 - failing cases are checked by test_case
        return
    finally:
        monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert name in recorder.names or _returns_input_unchanged(name), (
        f"op {name!r} ran without emitting its trace event (events: {recorder.names})")


def _returns_input_unchanged(name):
    # contiguous()/flatten()/to() may hand back their input itself, as PyTorch does: no op ran.
    return name in {"contiguous", "flatten", "to"}


def _snapshot(inputs):
    """Values and versions of the tensors among ``inputs`` (to see that a failure wrote nothing)."""
    snap = []
    for x in inputs:
        if isinstance(x, jtensor.Tensor):
            snap.append((x.detach().clone().tolist(), x._version, tuple(x.shape), x.stride()))
        else:
            snap.append(None)
    return snap


def test_failing_calls_leave_their_inputs_untouched():
    """Every spec case that raises must not have written anything first: the inputs' values,
    versions, shapes and strides are as they were (PyTorch checks before it writes, too)."""
    failing, violations = 0, []
    for name, index, case in CASES:
        inputs = case.make(jtensor) if case.make is not None else ()
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        before = _snapshot(inputs)
        returned = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.run(jtensor, *inputs)
                returned = True
                if on_cuda():  # a kernel's error (an index out of range) shows at the sync
                    jtensor.cuda.synchronize()
        except Exception:  # noqa: BLE001 - only failing calls are of interest here
            failing += 1
            if on_cuda():  # a device-side assert broke the context: the tests' repair
                jtensor.cuda._reset_broken_context()
            after = _snapshot(inputs)
            if returned:
                # A device-side assert: the in-place call returned, so its version counter
                # moved, as PyTorch's does on CUDA; the values must still be untouched.
                before_values = [b and b[:1] + b[2:] for b in before]
                after, before_cmp = [a and a[:1] + a[2:] for a in after], before_values
            else:
                before_cmp = before
            for i, (b, a) in enumerate(zip(before_cmp, after, strict=True)):
                if b is not None and not _same(a, b):
                    violations.append(f"{name}[{case.name or index}] modified input {i}")
    assert failing > 1000, f"expected many failing cases to check, found {failing}"
    assert not violations, "failing calls wrote into their inputs:\n" + "\n".join(violations)


def _same(a, b):
    import math

    if isinstance(a, list) or isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b
