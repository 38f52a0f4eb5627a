"""``jtensor.testing.assert_close`` against ``torch.testing.assert_close``: the same outcome,
exception type and message for tensors, numbers, booleans, None and nested containers."""

import math

import numpy as np
import pytest

import jtensor
import jtensor.testing

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

NAN, INF = math.nan, math.inf

# Each case builds (actual, expected) with one library and the keyword arguments.
CASES = {
    "sparse-values": lambda T: (
        (
            T.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
            T.tensor([[0.0, 2.0], [4.0, 0.0]]).to_sparse(),
        ),
        {},
    ),
    "sparse-nnz": lambda T: (
        (
            T.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
            T.tensor([[0.0, 1.0], [0.0, 0.0]]).to_sparse(),
        ),
        {},
    ),
    "sparse-indices": lambda T: (
        (
            T.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
            T.tensor([[1.0, 0.0], [2.0, 0.0]]).to_sparse(),
        ),
        {},
    ),
    "sparse-vs-dense": lambda T: ((T.tensor([[0.0, 1.0]]).to_sparse(), T.tensor([[0.0, 1.0]])), {}),
    "sparse-vs-dense-unchecked": lambda T: (
        (T.tensor([[0.0, 1.0]]).to_sparse(), T.tensor([[0.0, 1.5]])),
        {"check_layout": False},
    ),
    "close": lambda T: ((T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0 + 1e-7])), {}),
    "one-of-three": lambda T: ((T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.5, 3.0])), {}),
    "int-equal-report": lambda T: ((T.tensor([1, 2, 3]), T.tensor([1, 5, 3])), {}),
    "0d": lambda T: ((T.tensor(1.0), T.tensor(2.0)), {}),
    "dtype": lambda T: ((T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)), {}),
    "dtype-unchecked": lambda T: (
        (T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0], dtype=T.float64)),
        {"check_dtype": False},
    ),
    "shape": lambda T: ((T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])), {}),
    "stride": lambda T: ((T.ones(2, 3), T.ones(3, 2).t()), {"check_stride": True}),
    "stride-unchecked": lambda T: ((T.ones(2, 3), T.ones(3, 2).t()), {}),
    "list": lambda T: (([T.tensor([1.0, 2.0]), 3], [T.tensor([1.0, 2.0]), 4]), {}),
    "list-length": lambda T: (([T.ones(1)], [T.ones(1), T.ones(1)]), {}),
    "dict": lambda T: (({"a": T.ones(2), "b": T.ones(3)}, {"a": T.ones(2), "b": T.zeros(3)}), {}),
    "dict-keys": lambda T: (({"a": 1}, {"b": 1}), {}),
    "floats": lambda T: ((1.0, 1.1), {}),
    "ints-vs-float": lambda T: ((1, 1.0), {"check_dtype": True}),
    "nan": lambda T: ((T.tensor([NAN]), T.tensor([NAN])), {}),
    "nan-equal": lambda T: ((T.tensor([NAN, 1.0]), T.tensor([NAN, 2.0])), {"equal_nan": True}),
    "inf": lambda T: ((T.tensor([1.0, INF]), T.tensor([1.0, 3.0])), {}),
    "tensor-vs-list": lambda T: ((T.ones(2), [1.0, 1.0]), {}),
    "none": lambda T: ((None, 1), {}),
    "bools": lambda T: ((True, False), {}),
    "msg-str": lambda T: ((T.ones(2), T.zeros(2)), {"msg": "custom"}),
    "msg-callable": lambda T: ((T.ones(2), T.zeros(2)), {"msg": lambda m: "Header\n\n" + m}),
    "rtol-only": lambda T: ((T.ones(2), T.ones(2)), {"rtol": 0.0}),
    "exact": lambda T: (
        (T.arange(12.0).reshape(3, 4), T.arange(12.0).reshape(3, 4) + T.eye(3, 4)),
        {"rtol": 0, "atol": 0},
    ),
    "complex": lambda T: ((T.tensor([1 + 1j]), T.tensor([1 + 2j])), {}),
    "float16": lambda T: (
        (T.tensor([1.0, 2.0], dtype=T.float16), T.tensor([1.0, 2.1], dtype=T.float16)),
        {},
    ),
    "bfloat16": lambda T: (
        (T.tensor([1.0, 2.0], dtype=T.bfloat16), T.tensor([1.0, 2.5], dtype=T.bfloat16)),
        {},
    ),
    "bool-tensors": lambda T: ((T.tensor([True, False]), T.tensor([True, True])), {}),
    "zero-expected": lambda T: ((T.tensor([0.0, 1.0]), T.tensor([1e-6, 2.0])), {}),
    "numpy": lambda T: ((np.array([1.0, 2.0]), np.array([1.0, 3.0])), {}),
    "nested": lambda T: (
        ((T.ones(2), {"x": [T.ones(1), 2.0]}), (T.ones(2), {"x": [T.ones(1), 2.5]})),
        {},
    ),
}


def _outcome(lib, T, case):
    (actual, expected), kwargs = case(T)
    try:
        lib.assert_close(actual, expected, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared below
        return type(exc).__name__, str(exc).replace("torch.Tensor", "Tensor").replace(
            "jtensor.Tensor", "Tensor"
        )
    return "ok", ""


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_matches_pytorch(name):
    case = CASES[name]
    assert _outcome(jtensor.testing, jtensor, case) == _outcome(torch.testing, torch, case)


def test_the_issue_example_report():
    with pytest.raises(AssertionError) as info:
        jtensor.testing.assert_close(
            jtensor.tensor([1.0, 2.0, 3.0]), jtensor.tensor([1.0, 2.5, 3.0])
        )
    assert str(info.value).startswith(
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
    )


def test_default_tolerances_table():
    from jtensor.testing._comparison import default_tolerances

    assert default_tolerances(jtensor.float32) == (1.3e-6, 1e-5)
    assert default_tolerances(jtensor.float64) == (1e-7, 1e-7)
    assert default_tolerances(jtensor.float16) == (0.001, 1e-5)
    assert default_tolerances(jtensor.bfloat16) == (0.016, 1e-5)
    assert default_tolerances(jtensor.int64) == (0.0, 0.0)
    assert default_tolerances(jtensor.float16, jtensor.float64) == (0.001, 1e-5)


def test_device_check():
    """A CPU tensor against one on the (emulated, unless present) GPU: PyTorch's message, and
    the values compared on the CPU with ``check_device=False``."""
    try:
        jtensor.cuda.emulate()
    except RuntimeError:
        pass  # CUDA already started (real or emulated): use it as it is
    try:
        other = jtensor.ones(2, device="cuda")
    except RuntimeError:
        pytest.skip("no CUDA device, real or emulated")
    a = jtensor.ones(2, device="cpu")
    with pytest.raises(AssertionError) as info:
        jtensor.testing.assert_close(a, other)
    assert str(info.value) == (
        f"The values for attribute 'device' do not match: cpu != {other.device}."
    )
    jtensor.testing.assert_close(a, other, check_device=False)


def test_assert_allclose_is_deprecated_and_promotes():
    with pytest.warns(FutureWarning):
        jtensor.testing.assert_allclose(jtensor.tensor([1.0, NAN]), [1.0, NAN])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        jtensor.testing.assert_allclose(jtensor.tensor([1.0]), [2.0])
