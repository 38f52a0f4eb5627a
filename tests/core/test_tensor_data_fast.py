"""``torch.tensor`` of plain Python numbers (a float or int, a flat list or tuple of them, a
list of equally long lists) is one NumPy conversion (issue 18). Every call here, taken or
declined, must give PyTorch's shape, dtype and bits, or raise its error type."""

import math

import numpy as np
import pytest

import jtensor
from jtensor._ops import creation
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")

# name -> (data, taken by the fast path with no dtype)
DATA = {
    "floats": ([1.0, 2.5, -3.25], True),
    "ints": ([1, 2, 3], True),
    "float": (3.5, True),
    "int": (7, True),
    "tuple": ((1, 2.5), True),
    "matrix": ([[1, 2], [3, 4]], True),
    "mixed_matrix": ([[1.5, 2], [3, 4]], True),
    "specials": ([math.nan, math.inf, -0.0, 1e-45], True),
    "overflowing_float32": ([1e300], True),
    "big_int_beside_float": ([2**60 + 1, 1.0], False),
    "int_beyond_int64": ([2**70], False),
    "bools": ([True, False], False),
    "bool_and_int": ([True, 1], False),
    "ragged": ([[1], [2, 3]], False),
    "empty": ([], False),
    "empty_rows": ([[]], False),
    "numpy_float64_leaf": ([np.float64(1.5), 2.0], False),
    "numpy_float32_leaf": ([np.float32(1.5), 2.0], False),
    "numpy_float16_leaf": ([np.float16(2.0), 1], False),
    "numpy_bool_leaf": ([np.bool_(True), 1], False),
    "numpy_int32_leaf": ([np.int32(3), 1], False),
    "float_bounds": ([-0.5, 127.0, 255.0, 2.0**63, -(2.0**63)], True),
    "deeper": ([[[1.0]]], False),
}

DTYPES = [None, "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


def _run(lib, data, dtype):
    try:
        t = lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))
    except (RuntimeError, TypeError, ValueError, OverflowError) as e:
        return type(e).__name__
    values = t.double().numpy()
    return (
        tuple(t.shape),
        str(t.dtype).split(".")[-1],
        np.nan_to_num(values).tobytes(),
        np.isnan(values).tobytes(),
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(DATA))
def test_tensor_of_python_numbers_matches_torch(name, dtype, monkeypatch):
    taken = fast_path_spy(monkeypatch, creation, "_plain_numbers")
    data, fast = DATA[name]
    assert _run(jtensor, data, dtype) == _run(torch, data, dtype)
    if dtype is None:
        assert taken == [fast]


def test_the_common_calls_take_the_fast_path(monkeypatch):
    taken = fast_path_spy(monkeypatch, creation, "_plain_numbers")
    jtensor.tensor([1.0, 2.0])
    jtensor.tensor([[1, 2], [3, 4]])
    jtensor.tensor(0.5, dtype=jtensor.float64)
    jtensor.tensor([True])
    assert taken == [True, True, True, False]
