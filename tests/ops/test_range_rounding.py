"""The last bits of ``arange``, ``linspace`` and the fused multiply-add behind them.

PyTorch's CPU kernels compute ``start + i * step`` as one fused multiply-add (one rounding),
and arange's vectorized part counts each block of a 32-byte vector from the block's first
value, rounded to the dtype. ``jtensor._mt19937._fma64`` emulates the fused multiply-add on
float64 arrays (Boldo and Melquiond's algorithm, exact fractions outside its proved range);
it must be correctly rounded everywhere. ``arange``/``linspace`` must be PyTorch's values
bit for bit, also past the grain where PyTorch's threads split the range."""

from fractions import Fraction

import numpy as np
import pytest

import jtensor
from jtensor._mt19937 import _fma64

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")


def _exact(a, b, c):
    """``a * b + c`` rounded once, by fractions (overflow: the signed infinity)."""
    value = Fraction(a) * Fraction(b) + Fraction(c)
    if value == 0:
        return (a * b) + c if a == 0 or b == 0 else 0.0
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _operands(kind, rng, n=3000):
    if kind == "normal":
        return rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)
    if kind == "ties":  # small integers times a step, and a tiny c: exact midpoints
        c = np.full(n, 1e-300) * rng.choice([-1.0, 1.0], n)
        return rng.integers(0, 1000, n).astype(float), np.full(n, (1 - 1e-300) / 76), c
    if kind == "wide":  # every exponent: overflow, subnormals, huge factors
        a = rng.standard_normal(n) * 2.0 ** rng.integers(-1100, 1000, n)
        b = rng.standard_normal(n) * 2.0 ** rng.integers(-600, 600, n)
        c = rng.standard_normal(n) * 2.0 ** rng.integers(-1074, 1023, n)
        return a, b, c
    # cancellation: c within a few ulps of -a*b
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    return a, b, -(a * b) * (1 + rng.integers(-4, 4, n) * 2.0**-52)


@pytest.mark.parametrize("kind", ["normal", "ties", "wide", "cancel"])
def test_fma64_is_correctly_rounded(kind):
    rng = np.random.default_rng(["normal", "ties", "wide", "cancel"].index(kind))
    a, b, c = _operands(kind, rng)
    got = _fma64(a, b, c)
    want = np.array([_exact(x, y, z) for x, y, z in zip(a, b, c, strict=True)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_fma64_special_values_and_shapes():
    assert _fma64(2.0, 3.0, 1.0) == 7.0 and np.ndim(_fma64(2.0, 3.0, 1.0)) == 0
    assert np.isnan(_fma64(np.inf, 0.0, 1.0))
    assert np.isnan(_fma64(np.nan, 1.0, 1.0))
    assert _fma64(1e308, 10.0, -1e308) == np.inf  # 9e308 overflows
    # the exact product 1e309 does not overflow inside a fused multiply-add
    assert _fma64(1e308, 10.0, -np.inf) == -np.inf
    assert np.isnan(_fma64(np.inf, 1.0, -np.inf))
    assert np.signbit(_fma64(-0.0, 1.0, -0.0))
    assert not np.signbit(_fma64(1.0, 1.0, -1.0))
    # broadcasting: a (2, 3) grid from a column, a row and a number
    grid = _fma64(np.arange(2.0)[:, None], np.arange(3.0), 0.5)
    assert grid.shape == (2, 3)
    np.testing.assert_array_equal(grid, np.arange(2.0)[:, None] * np.arange(3.0) + 0.5)


ARANGES = [
    (0, 1, 1e-3),
    (-2.0, 3.0, 0.0847),
    (0.1, 7.3, 0.013),
    (1e-300, 1.0, 0.0131),
    (0, 10, 0.1),
    (10, -3, -0.7),
    (-3.5, 2.25, 0.001),
    (0, 30000, 0.37),  # past the grain: the threads' ranges
]
DTYPES = ["float64", "float32", "float16", "bfloat16"]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", ARANGES, ids=str)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_arange_is_pytorchs(args, dtype, threads):
    before = (torch.get_num_threads(), jtensor.get_num_threads())
    torch.set_num_threads(threads)
    jtensor.set_num_threads(threads)
    try:
        want = torch.arange(*args, dtype=getattr(torch, dtype)).float().numpy()
        got = jtensor.arange(*args, dtype=getattr(jtensor, dtype)).float().numpy()
    finally:
        torch.set_num_threads(before[0])
        jtensor.set_num_threads(before[1])
    np.testing.assert_array_equal(got, want)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "args",
    [
        (-2.0, 3.0, 59),
        (0.0, 1.0, 30),
        (0.1, 7.3, 101),
        (3.0, -2.5, 1000),
        (1e-300, 1.0, 77),
        (-7.25, 1e5, 12345),
    ],
    ids=str,
)
def test_linspace_is_pytorchs(args, dtype):
    want = torch.linspace(*args, dtype=getattr(torch, dtype)).numpy()
    got = jtensor.linspace(*args, dtype=getattr(jtensor, dtype)).numpy()
    np.testing.assert_array_equal(got, want)


LINSPACE_EDGES = [
    (0.0, 1e300, 9, "float64"),
    (0.0, 1e300, 9, "float32"),  # the bound does not fit: RuntimeError
    (0.0, 70000.0, 3, "float16"),
    (0, 1000, 5, "int8"),
    (0, 2**40, 3, "int32"),
    (-200, 100, 4, "uint8"),  # -200 is 56 in uint8, as C++ converts it
    (250, -3, 6, "uint8"),
    (-3.7, 9.2, 5, "int64"),
    (0.0, float("inf"), 3, "float32"),
]


def _linspace_outcome(lib, start, end, steps, dtype):
    try:
        return lib.linspace(start, end, steps, dtype=getattr(lib, dtype)).tolist()
    except RuntimeError as exc:
        return ("RuntimeError", str(exc).split(" (")[0])


@needs_torch
@pytest.mark.parametrize("args", LINSPACE_EDGES, ids=str)
def test_linspace_bounds_as_pytorch(args):
    got, want = _linspace_outcome(jtensor, *args), _linspace_outcome(torch, *args)
    assert str(got) == str(want)


def test_arange_metadata():
    t = jtensor.arange(0, 1, 0.1)
    assert t.dtype == jtensor.float32 and t.shape == (10,) and t.stride() == (1,)
    assert t.storage_offset() == 0 and t.is_contiguous()


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64"])
@pytest.mark.parametrize("base", [10.0, 2.0, 0.5, -2.0, 0.0])
@pytest.mark.parametrize(
    "args", [(0, 2, 50), (-3, 3, 101), (0, 1, 1000), (300, 400, 5), (-400, -300, 3)], ids=str
)
def test_logspace_is_pytorchs(args, base, dtype):
    """C's pow per element, as PyTorch's kernel (NumPy's array power differs in last bits),
    overflow to inf and a negative base's NaN included."""
    want = torch.logspace(*args, base=base, dtype=getattr(torch, dtype)).double().numpy()
    got = jtensor.logspace(*args, base=base, dtype=getattr(jtensor, dtype)).double().numpy()
    np.testing.assert_array_equal(got, want)


INT_ARANGES = [
    (0.0, 3.0, 1.5),  # the step cast to 1: int64 counts 3, the other types 2
    (0.5, 3.7, 1.9),
    (-1.5, 2.2, 1.5),  # uint8 wraps -1 to 255
    (3.0, -2.0, -1.5),
    (0, 5, 2),
    (0.2, 0.9, 1.0),  # cast bounds are equal: int64 counts 0, the others 1
    (0.0, 1.0, 0.5),  # the step casts to 0: int64 raises, the others give [0, 0]
    (0.0, 2.0, -0.5),  # the sign is checked on the step as given
    (0.5, 0.2, 1.0),  # ... and the bounds as given
    (1.9, 1.1, -2.5),  # int64 counts the cast bounds (none), the others those given (one)
]


def _arange_outcome(lib, args, dtype):
    try:
        return lib.arange(*args, dtype=getattr(lib, dtype)).tolist()
    except (RuntimeError, ValueError, NotImplementedError) as exc:
        return (type(exc).__name__, str(exc).split(" (")[0])


@needs_torch
@pytest.mark.parametrize(
    "dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"]
)
@pytest.mark.parametrize("args", INT_ARANGES, ids=str)
def test_arange_other_dtypes_as_pytorch(args, dtype):
    """Integer types other than int64 are counted from the bounds as given (in double) and
    stepped with the cast ones; bool and complex have no arange kernel."""
    assert _arange_outcome(jtensor, args, dtype) == _arange_outcome(torch, args, dtype)
