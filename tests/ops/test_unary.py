"""Unary math ops: behaviour checked without the PyTorch oracle (accuracy against Python's
math module, one trace event per call, views of complex parts, no NumPy warnings)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtensor
from jtensor import _dispatch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def _ulps(mine, truth):
    mine, truth = np.asarray(mine), np.asarray(truth)
    keep = (truth != 0) & (np.abs(truth) > 1e-290)  # subnormal results have fewer bits
    return np.max(np.abs(mine[keep] - truth[keep]) / np.abs(truth[keep])) / 2.0 ** -52


@pytest.mark.parametrize("name,ref", [("erf", math.erf), ("erfc", math.erfc)])
def test_erf_float64_accuracy(name, ref):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-7, 7, 4000), rng.uniform(-27, 27, 1000),
                        np.geomspace(1e-300, 1, 200), np.arange(0, 6.2, 1 / 16)])
    mine = getattr(jtensor, name)(jtensor.tensor(x)).cpu().numpy()
    assert _ulps(mine, [ref(v) for v in x]) < 8


@pytest.mark.parametrize("name,ref", [("erf", math.erf), ("erfc", math.erfc)])
def test_erf_float32_is_correctly_rounded_in_big_arrays(name, ref):
    # Big host arrays are evaluated block by block with the shorter float32 series: every
    # element must still be erf's value rounded once to float32, in any layout.
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.standard_normal(30000) * 2, np.linspace(-7, 7, 9001),
                        [0.0, -0.0, 1e-30, 5.999, 6.0, 6.001, math.inf, -math.inf]])
    x = x.astype(np.float32)
    t = jtensor.tensor(x.reshape(-1, 1)).expand(-1, 2)[:, 1]   # a strided view
    mine = getattr(jtensor, name)(t).cpu().numpy()
    truth = np.array([ref(float(v)) for v in x]).astype(np.float32)
    np.testing.assert_array_equal(mine, truth)
    big = getattr(jtensor, name)(jtensor.tensor(x.astype(np.float64))).cpu().numpy()
    assert _ulps(big, [ref(float(v)) for v in x]) < 8


def test_erfinv_inverts_erf():
    rng = np.random.default_rng(1)
    y = np.concatenate([rng.uniform(-1, 1, 4000), 1 - np.geomspace(1.2e-16, 0.5, 500)])
    x = jtensor.erfinv(jtensor.tensor(y)).cpu().numpy()
    tail = y > 0.5
    # Near +-1 compare erfc, whose values keep full relative precision there.
    assert np.max(np.abs([math.erfc(v) for v in x[tail]] - (1 - y[tail])) / (1 - y[tail])) < 1e-13
    assert np.max(np.abs(np.array([math.erf(v) for v in x[~tail]]) - y[~tail])) < 1e-15


def test_erf_special_values():
    x = jtensor.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0], dtype=jtensor.float64)
    assert jtensor.erf(x).tolist()[1:] == [1.0, -1.0, -0.0, 0.0]
    assert jtensor.erfc(x).tolist()[1:] == [0.0, 2.0, 1.0, 1.0]
    assert math.isnan(jtensor.erf(x)[0].item()) and math.isnan(jtensor.erfc(x)[0].item())
    y = jtensor.erfinv(jtensor.tensor([1.0, -1.0, 1.5, -2.0, 0.0])).tolist()
    assert y[:2] == [math.inf, -math.inf] and all(map(math.isnan, y[2:4])) and y[4] == 0.0


_ZERO = jtensor.tensor(0.0)  # made before the trace hook is installed
UNARY_CALLS = [
    ("neg", lambda x: -x), ("positive", lambda x: +x), ("abs", lambda x: abs(x)),
    ("exp", lambda x: x.exp()), ("exp_", lambda x: x.exp_()), ("erfinv", jtensor.erfinv),
    ("clamp", lambda x: x.clamp(-1, 1)), ("clamp_", lambda x: x.clip_(max=0)),
    ("clamp_min", lambda x: jtensor.clamp_min(x, _ZERO)),
    ("round", lambda x: x.round(decimals=2)), ("nan_to_num_", lambda x: x.nan_to_num_()),
    ("relu", jtensor.relu), ("logit", lambda x: x.logit(1e-3)), ("asin", jtensor.arcsin),
    ("trunc_", lambda x: x.fix_()), ("real", lambda x: x.real), ("conj", jtensor.conj),
    ("conj_physical_", lambda x: x.conj_physical_()),
]


@pytest.mark.parametrize("name,call", UNARY_CALLS, ids=[n for n, _ in UNARY_CALLS])
def test_one_trace_event_per_call(name, call, monkeypatch):
    events = []
    x = jtensor.tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)).t()
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: events.append(op.name))
    call(x)
    assert events == [name]


def test_no_numpy_warnings_on_domain_edges():
    x = jtensor.tensor([-1.0, 0.0, math.inf, -math.inf, math.nan, 1e30])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("log", "sqrt", "rsqrt", "reciprocal", "acosh", "atanh", "erfinv", "logit",
                     "sigmoid", "exp", "frac", "angle", "sign", "erfc"):
            getattr(jtensor, name)(x)


def test_complex_parts_are_views_that_write_through():
    z = jtensor.tensor(np.array([[1 + 2j, 3 + 4j], [5 + 6j, 7 + 8j]], np.complex64))
    re, im = z.real, z.imag
    assert re.dtype is jtensor.float32 and re.stride() == (4, 2) and im.storage_offset() == 1
    im.mul_(-1)
    z.real = jtensor.zeros(2, 2)
    assert z.cpu().numpy().tolist() == [[-2j, -4j], [-6j, -8j]]
    assert z._version == re._version  # one version counter for the views and their base


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1,
                max_size=20),
       st.one_of(st.none(), st.floats(-5, 5, width=32)),
       st.one_of(st.none(), st.floats(-5, 5, width=32)))
def test_clamp_matches_min_of_max(values, lo, hi):
    x = jtensor.tensor(np.array(values, np.float32))
    if lo is None and hi is None:
        with pytest.raises(RuntimeError):
            jtensor.clamp(x, lo, hi)
        return
    got = jtensor.clamp(x, lo, hi).cpu().numpy()
    want = np.array(values, np.float32)
    if lo is not None:
        want = np.maximum(want, np.float32(lo))
    if hi is not None:
        want = np.minimum(want, np.float32(hi))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=20))
def test_rounding_family_identities(values):
    x = jtensor.tensor(np.array(values, np.float32))
    a = x.cpu().numpy()
    np.testing.assert_array_equal(jtensor.floor(x).cpu().numpy(), np.floor(a))
    np.testing.assert_array_equal(jtensor.ceil(x).cpu().numpy(), np.ceil(a))
    np.testing.assert_array_equal(jtensor.round(x).cpu().numpy(), np.rint(a))
    np.testing.assert_array_equal((jtensor.trunc(x) + jtensor.frac(x)).cpu().numpy(), a)
