"""Run the same case in jtensor and in PyTorch and compare everything observable.

A case is ``Case(run, make=None)``: ``make(lib)`` builds the inputs, ``run(lib, *inputs)``
returns the output; ``lib`` is ``jtensor`` or ``torch``, so one lambda serves both. Compared:
values, dtype, shape, strides, storage offset, contiguity, ``requires_grad``, whether the
output shares storage with each input, and, when PyTorch raises, the exception type.

The helpers are device-agnostic: under ``pytest --device cuda`` jtensor's default device is
CUDA, so jtensor's tensors live there while PyTorch (the oracle) stays on the CPU. Values
come back to the host with ``.cpu()`` before they are compared; a device PyTorch reports as
``cpu`` is expected to be the run's device (``run_device()``) in jtensor.
"""

import dataclasses
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import jtensor

try:
    import torch
except ImportError:  # the conformance half is skipped without the oracle
    torch = None


def run_device():
    """The device this test run puts jtensor's tensors on (its default device)."""
    return jtensor.get_default_device()


def on_cuda():
    """Whether this run is the CUDA run (``pytest --device cuda``)."""
    return run_device().type == "cuda"


def skip_on_cuda(reason):
    """Skip the calling test in the CUDA run: it is about the CPU (NumPy memory sharing, ...)."""
    if on_cuda():
        pytest.skip(f"not device-independent: {reason}")


def cuda_xfail(reason):
    """Mark a test expected to fail in the CUDA run because of the jtensor bug ``reason``
    (strict: once the bug is fixed the test passes and the mark must go)."""
    return pytest.mark.xfail(on_cuda(), reason=f"jtensor bug on cuda: {reason}", strict=True)


def cuda_skip(reason):
    """Mark a test that does not apply to the CUDA run."""
    return pytest.mark.skipif(on_cuda(), reason=f"not device-independent: {reason}")


@dataclasses.dataclass
class Case:
    run: Callable
    make: Callable | None = None
    name: str = ""
    atol: float = 1e-6
    rtol: float = 1e-5
    check_stride: bool = True
    check_values: bool = True  # False for uninitialised memory (empty) or random draws


@dataclasses.dataclass
class OpSpec:
    """What the suite knows about one registered op: its conformance cases."""

    name: str
    cases: list
    # Ops whose outputs are random or uninitialised can't be compared value by value.
    note: str = ""


def arr(*shape, dtype="float32", seed=0, low=-3, high=3):
    """Deterministic test data as a NumPy array (same bytes for both libraries)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(max(low, np.iinfo(dtype).min), high, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def T(lib, array, dtype=None, requires_grad=False):
    """``lib.tensor`` from a NumPy array, the same way in both libraries."""
    out = lib.tensor(np.asarray(array))
    if dtype is not None:
        out = out.to(getattr(lib, dtype))
    if requires_grad:
        out.requires_grad_(True)
    return out


def run_case(lib, case):
    inputs = case.make(lib) if case.make is not None else ()
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = case.run(lib, *inputs)
        except Exception as exc:  # noqa: BLE001 - compared below
            if _is_broken_case(exc):
                raise AssertionError(
                    f"the case itself is broken (not the library): {exc!r}") from exc
            return inputs, exc
    return inputs, out


def _is_broken_case(exc):
    """A mistake in the test code, which both libraries would 'agree' on vacuously."""
    if isinstance(exc, NameError):
        return True
    return isinstance(exc, TypeError) and "<lambda>()" in str(exc)


def _is_tensor(x):
    return isinstance(x, jtensor.Tensor) or (torch is not None and isinstance(x, torch.Tensor))


def to_numpy(t):
    """A host copy of a jtensor or PyTorch tensor's values (bfloat16 as float32)."""
    if isinstance(t, jtensor.Tensor):
        t = t.detach().cpu()
        if t.dtype is jtensor.bfloat16:
            t = t.float()
        return np.array(t.tolist() if t.dim() == 0 else t.numpy(), copy=True)
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy().copy()


def shares(a, b):
    if not (_is_tensor(a) and _is_tensor(b)):
        return False
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and \
        a.untyped_storage().nbytes() > 0


def check_self_consistent(out, inputs, where="output"):
    """Checks that need no oracle: the layout stays inside its storage."""
    if isinstance(out, (tuple, list)):
        for i, o in enumerate(out):
            check_self_consistent(o, inputs, f"{where}[{i}]")
        return
    if not isinstance(out, jtensor.Tensor):
        return
    needed = 0 if out.numel() == 0 else (
        out.storage_offset() + 1
        + sum((s - 1) * st for s, st in zip(out.shape, out.stride(), strict=True)))
    assert needed * out.element_size() <= out.untyped_storage().nbytes(), (
        f"{where}: layout {tuple(out.shape)}/{out.stride()}+{out.storage_offset()} reaches past "
        f"its storage of {out.untyped_storage().nbytes()} bytes")
    assert to_numpy(out).shape == tuple(out.shape), f"{where}: data and shape disagree"
    if out.layout == jtensor.strided:
        # NumPy returns scalars from 0-d computations: a tensor over one cannot be written in
        # place and breaks ``np.asarray(t)``; a 0-d result must hold a real 0-d array.
        held = out._array()
        assert not isinstance(held, np.generic), (
            f"{where}: holds a {type(held).__name__}, not an array")


def compare(mine, theirs, case, where="output"):
    """Assert that jtensor's result matches PyTorch's in every observable way."""
    if isinstance(theirs, BaseException):
        assert isinstance(mine, BaseException), (
            f"{where}: PyTorch raised {type(theirs).__name__}({theirs}) but jtensor returned "
            f"{mine!r}")
        expected = _builtin_base(type(theirs))
        assert isinstance(mine, expected), (
            f"{where}: PyTorch raised {type(theirs).__name__}, jtensor raised "
            f"{type(mine).__name__}: {mine}")
        return
    if isinstance(mine, BaseException):
        raise AssertionError(f"{where}: jtensor raised {type(mine).__name__}: {mine}; PyTorch "
                             f"returned {theirs!r}") from mine
    if isinstance(theirs, (tuple, list)):
        assert isinstance(mine, (tuple, list)), f"{where}: expected a sequence, got {mine!r}"
        assert len(mine) == len(theirs), f"{where}: {len(mine)} items vs {len(theirs)}"
        for i, (m, t) in enumerate(zip(mine, theirs, strict=True)):
            compare(m, t, case, f"{where}[{i}]")
        return
    if _is_tensor(theirs):
        assert isinstance(mine, jtensor.Tensor), f"{where}: expected a tensor, got {mine!r}"
        assert tuple(mine.shape) == tuple(theirs.shape), (
            f"{where}: shape {tuple(mine.shape)} vs PyTorch {tuple(theirs.shape)}")
        assert str(mine.dtype) == str(theirs.dtype), (
            f"{where}: dtype {mine.dtype} vs PyTorch {theirs.dtype}")
        expected = expected_device(theirs.device)
        assert mine.device.type == expected.type, (
            f"{where}: device {mine.device} vs {expected} (PyTorch on the CPU: {theirs.device})")
        if case.check_stride:
            assert tuple(mine.stride()) == tuple(theirs.stride()), (
                f"{where}: stride {mine.stride()} vs PyTorch {theirs.stride()} "
                f"(shape {tuple(theirs.shape)})")
            assert mine.storage_offset() == theirs.storage_offset(), (
                f"{where}: storage_offset {mine.storage_offset()} vs PyTorch "
                f"{theirs.storage_offset()}")
            assert mine.is_contiguous() == theirs.is_contiguous(), f"{where}: is_contiguous"
        assert mine.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        if case.check_values:
            a, b = to_numpy(mine), to_numpy(theirs)
            if a.dtype.kind in "fc":
                np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol,
                                           equal_nan=True, err_msg=where)
            else:
                np.testing.assert_array_equal(a, b, err_msg=where)
        return
    if isinstance(theirs, (torch.Size if torch is not None else tuple,)):
        assert tuple(mine) == tuple(theirs), f"{where}: {mine} vs {theirs}"
        return
    if isinstance(theirs, float) and case.check_values:
        assert isinstance(mine, float), f"{where}: expected float, got {type(mine).__name__}"
        np.testing.assert_allclose(mine, theirs, rtol=case.rtol, atol=case.atol, equal_nan=True)
        return
    if isinstance(theirs, torch.dtype if torch is not None else ()):
        assert str(mine) == str(theirs), f"{where}: {mine} vs {theirs}"
        return
    if isinstance(theirs, torch.device if torch is not None else ()):
        expected = expected_device(theirs)
        assert isinstance(mine, jtensor.device) and mine.type == expected.type, (
            f"{where}: device {mine!r} vs {expected!r} (PyTorch on the CPU said {theirs!r})")
        return
    if case.check_values:
        assert mine == theirs, f"{where}: {mine!r} vs PyTorch {theirs!r}"


def expected_device(torch_device):
    """The jtensor device matching PyTorch's: the oracle runs on the CPU, so its ``cpu`` is
    the run's device."""
    if torch_device.type == "cpu":
        return run_device()
    return jtensor.device(str(torch_device))


def _builtin_base(exc_type):
    for builtin in (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError):
        if issubclass(exc_type, builtin):
            return builtin
    return exc_type


def compare_sharing(mine_inputs, mine_out, torch_inputs, torch_out, where="output"):
    """Each output shares memory with the same inputs in both libraries."""
    outs_m = mine_out if isinstance(mine_out, (tuple, list)) else (mine_out,)
    outs_t = torch_out if isinstance(torch_out, (tuple, list)) else (torch_out,)
    for i, (om, ot) in enumerate(zip(outs_m, outs_t, strict=True)):
        for j, (im, it) in enumerate(zip(mine_inputs, torch_inputs, strict=True)):
            if _is_tensor(it):
                assert shares(om, im) == shares(ot, it), (
                    f"{where}[{i}] vs input {j}: jtensor shares={shares(om, im)}, "
                    f"PyTorch shares={shares(ot, it)}")
