"""Operators between a tensor and a NumPy array, compared with PyTorch.

PyTorch's operators decline an ``np.ndarray`` operand (they return ``NotImplemented``), so
Python hands ``t + array`` to the array's reflected operator: NumPy computes it from
``t.__array__()`` with NumPy's type promotion (float32 + an int64 array is float64), a tensor
that requires grad is refused by ``numpy()``, and ``__array_wrap__`` turns the result into a
tensor with NumPy's strides (a bool result into uint8). ``array + t`` is declined by both
sides: a ``TypeError``. The exceptions are ``t == array`` (computed as a tensor comparison),
``array / t`` (``t.reciprocal() * array``, so NumPy multiplies) and ``t != array``, which both
sides decline, so Python compares identities (``True``). In-place operators decline too, so
``t += array`` rebinds ``t`` to NumPy's result. NumPy scalars (``np.float64(2)``) are numbers
for every operator.
"""

import operator
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "@": operator.matmul,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
TENSORS = {
    "float32": lambda lib: lib.tensor([[3.0, 1.0], [2.0, 0.5]]),
    "int64": lambda lib: lib.tensor([[3, 1], [2, 5]]),
    "bool": lambda lib: lib.tensor([[True, False], [True, True]]),
    "requires grad": lambda lib: lib.tensor([[3.0, 1.0], [2.0, 0.5]], requires_grad=True),
    "transposed": lambda lib: lib.tensor([[3.0, 1.0], [2.0, 0.5]]).t(),
}
ARRAYS = {
    "int64": lambda: np.array([[1, 2], [3, 4]]),
    "float64": lambda: np.array([[0.5, 2.0], [3.0, 4.0]]),
    "float32 column": lambda: np.array([[1.0], [2.0]], np.float32),
    "0-d float": lambda: np.array(2.5),
    "0-d int": lambda: np.array(3),
    "bool": lambda: np.array([[True, False], [False, True]]),
    "column-major": lambda: np.asfortranarray(np.array([[1.0, 2.0], [3.0, 4.0]])),
}


def _outcome(lib, make_tensor, make_array, op, array_first):
    t, a = make_tensor(lib), make_array()
    try:
        with warnings.catch_warnings():
            # (NumPy warns that PyTorch's __array_wrap__ lacks NumPy 2's arguments)
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            result = op(a, t) if array_first else op(t, a)
    except Exception as exc:  # (the type and the words, compared below)
        return ("raised", type(exc).__name__, str(exc).split("\n")[0])
    if isinstance(result, (bool, np.bool_)):
        return ("python", type(result).__name__, bool(result))
    if not isinstance(result, lib.Tensor):
        return ("other", type(result).__name__)
    values = np.array(result.detach().tolist(), dtype=object)
    values[values != values] = "nan"  # (NaN compares unequal to itself)
    return (
        "tensor",
        str(result.dtype).replace("torch.", ""),
        values.tolist(),
        result.stride(),
        result.requires_grad,
    )


@pytest.mark.parametrize("array_first", [False, True], ids=["tensor op array", "array op tensor"])
@pytest.mark.parametrize("array", sorted(ARRAYS))
@pytest.mark.parametrize("tensor", sorted(TENSORS))
@pytest.mark.parametrize("symbol", sorted(OPERATORS))
def test_operator_with_a_numpy_array_as_pytorch(symbol, tensor, array, array_first):
    args = (TENSORS[tensor], ARRAYS[array], OPERATORS[symbol], array_first)
    mine = _outcome(jtensor, *args)
    theirs = _outcome(torch, *args)
    if theirs[0] == "raised" and theirs[1] == "TypeError":
        # Python's own message when both sides decline ("unsupported operand type(s)"), or
        # NumPy's; only the type is PyTorch's business here.
        assert mine[:2] == theirs[:2]
        if "unsupported operand" in theirs[2] or "not supported between" in theirs[2]:
            assert mine[2] == theirs[2]
    elif theirs[0] == "raised":
        assert mine[0] == "raised" and mine[1] == theirs[1], (mine, theirs)
    else:
        assert mine == theirs


@pytest.mark.parametrize("symbol", ["+=", "-=", "*=", "/="])
def test_in_place_operator_with_an_array_rebinds_to_numpys_result(symbol):
    outcomes = []
    for lib in (jtensor, torch):
        t = lib.tensor([1.0, 2.0])
        before = t
        namespace = {"t": t, "a": np.array([2, 4])}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(f"t {symbol} a", namespace)
        after = namespace["t"]
        outcomes.append((after is before, before.tolist(), str(after.dtype)[6:], after.tolist()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] is False  # a new tensor: float64, the old one unchanged


def test_numpy_scalars_stay_numbers_for_operators():
    for lib in (jtensor, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        out = np.float64(2.0) * w + w * np.int64(3)
        assert out.dtype == lib.float32
        assert out.grad_fn is not None


def test_array_wrap_keeps_numpys_layout():
    for lib in (jtensor, torch):
        t = lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            result = np.add(t, np.asfortranarray(np.zeros((2, 2))))
            flags = np.greater(t, 2.0)
        assert result.stride() == (1, 2)
        assert flags.dtype == lib.uint8


def test_named_ops_refuse_an_array_naming_its_type():
    with pytest.raises(TypeError, match=r"must be Tensor or Number, not numpy\.ndarray"):
        jtensor.ones(2).add(np.ones(2))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        torch.ones(2).add(np.ones(2))
