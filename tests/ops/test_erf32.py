"""erf of float32 arrays (``unary._erf32``, GELU's kernel, issue 18): every element is the
float32 nearest erf's exact value (Python's ``math.erf``, correctly rounded in practice),
the same bits the float64 evaluation rounded to float32 gives, for arrays of any length
(block edges included), signed zeros, infinities and NaN payloads."""

import math

import numpy as np
import pytest

import jtensor
from jtensor._ops import unary

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def _truth(x):
    return np.array([math.erf(float(v)) for v in x.tolist()], dtype=np.float64).astype(np.float32)


def _dense_float32(lo, hi, count):
    """``count`` consecutive float32 values from ``lo`` up (every float32 there)."""
    start = np.array(lo, np.float32).view(np.int32)
    bits = np.arange(start, start + count, dtype=np.int32)
    values = bits.view(np.float32)
    return values[values <= hi]


RANGES = {
    "around 0.5": _dense_float32(0.5, 1.0, 60000),
    "around 1.5": _dense_float32(1.5, 2.0, 60000),
    "around 3.9 (the rounding to 1)": _dense_float32(3.85, 4.5, 60000),
    "tiny": np.geomspace(1e-45, 1e-3, 20000).astype(np.float32),
    "random": (np.random.default_rng(0).standard_normal(100000) * 1.5).astype(np.float32),
    "grid points and midpoints": (np.arange(0, 4 * 256 + 2) / 256).astype(np.float32),
}


@pytest.mark.parametrize("name", list(RANGES))
@pytest.mark.parametrize("sign", [1, -1])
def test_correctly_rounded(name, sign):
    x = RANGES[name] * np.float32(sign)
    got = jtensor.erf(jtensor.tensor(x)).cpu().numpy()
    np.testing.assert_array_equal(got.view(np.int32), _truth(x).view(np.int32))


def test_the_float64_evaluation_rounded_gives_the_same_bits():
    x = (np.random.default_rng(1).standard_normal(200000) * 2).astype(np.float32)
    old = unary._erf64(np, x.astype(np.float64), unary._TAYLOR_TERMS).astype(np.float32)
    np.testing.assert_array_equal(unary._erf32(x).view(np.int32), old.view(np.int32))


def test_the_float64_value_before_rounding():
    # The series' float64 value (what is rounded once) within 1.2e-16 of erf, and within
    # 6e-15 of it relatively at the smallest values (the next term, w^2 / 10, at x0 = 0):
    # grid points, midpoints between them (where |h| is largest) and values near 0.
    gen = np.random.default_rng(2)
    points = np.arange(0, 4 * unary._GRID32 + 1) / unary._GRID32
    a = np.concatenate(
        [
            gen.uniform(0, 4, 50000),
            points,
            points[:-1] + 0.5 / unary._GRID32,
            np.geomspace(1e-30, 1e-2, 2000),
        ]
    ).astype(np.float32)
    wide = unary._erf32_wide(a.copy())
    exact = np.array([math.erf(float(v)) for v in a.tolist()])
    error = np.abs(wide - exact)
    assert error.max() <= 1.2e-16
    assert (error / np.maximum(exact, 1e-300)).max() <= 6e-15


@pytest.mark.parametrize("n", [1, 7, unary._BLOCK32 - 1, unary._BLOCK32, 2 * unary._BLOCK32 + 3])
def test_lengths_and_layouts(n):
    x = np.linspace(-5, 5, n).astype(np.float32)
    x[:4] = [0.0, -0.0, np.inf, -np.inf][: min(4, n)]
    got = jtensor.erf(jtensor.tensor(x)).cpu().numpy()
    np.testing.assert_array_equal(got.view(np.int32), _truth(x).view(np.int32))
    strided = jtensor.tensor(np.repeat(x, 2)).reshape(-1, 2)[:, 1]
    np.testing.assert_array_equal(jtensor.erf(strided).cpu().numpy(), got)


def test_nans_keep_sign_and_payload_quieted():
    payloads = np.array([0x7FC00000, 0xFFC00001, 0x7F800001, 0xFF812345], np.uint32)
    x = np.concatenate([payloads.view(np.float32), np.zeros(3, np.float32)])
    got = unary._erf32(x)
    expected = x.astype(np.float64).astype(np.float32)  # quieted, sign and payload kept
    np.testing.assert_array_equal(got[:4].view(np.uint32), expected[:4].view(np.uint32))
    assert got[4:].tolist() == [0.0, 0.0, 0.0]
