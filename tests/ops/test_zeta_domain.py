"""``torch.special.zeta`` (and ``polygamma``, which shares its Hurwitz zeta) over the whole
domain, against PyTorch: negative, fractional and infinite arguments return PyTorch's
values (nan and inf included), and the work per call is bounded whatever ``q`` is (a
lane far left of zero is shifted by the recurrence instead of summed step by step)."""

import numpy as np
import pytest

import jtensor
from jtensor._ops import math_functions

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices

nan, inf = float("nan"), float("inf")

# (x, q) pairs around the edges: poles, -inf (a pole for PyTorch), non-integer x left of
# zero (nan), +inf x, and q past the direct-sum limit on both sides of it.
PAIRS = [
    (2.0, -inf),
    (3.0, -inf),
    (2.5, -inf),
    (2.0, inf),
    (inf, -1.5),
    (inf, 0.5),
    (inf, -inf),
    (-inf, 1.0),
    (1.0, -inf),
    (0.5, -2.25),
    (2.0, -2.25),
    (3.0, -0.75),
    (2.0, -3.0),
    (2.0, -0.0),
    (2.0, -4095.5),
    (3.0, -4097.3),
    (2.0, -5000.5),
    (3.0, -5000.25),
    (4.0, -1e7 - 0.5),
    (2.0, -1e7 - 0.75),
    (5.0, -3e6 - 0.1),
    (2.5, -1e7 - 0.5),
    (nan, -inf),
    (2.0, nan),
    (nan, -2.0),
    (nan, -2.5),
    (nan, 0.5),
]


def _both(dtype):
    x = [p[0] for p in PAIRS]
    q = [p[1] for p in PAIRS]
    mine = jtensor.special.zeta(
        jtensor.tensor(x, dtype=getattr(jtensor, dtype)),
        jtensor.tensor(q, dtype=getattr(jtensor, dtype)),
    )
    theirs = torch.special.zeta(
        torch.tensor(x, dtype=getattr(torch, dtype)), torch.tensor(q, dtype=getattr(torch, dtype))
    )
    return mine.cpu().numpy(), theirs.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zeta_edges_match_torch(dtype):
    mine, theirs = _both(dtype)
    assert mine.dtype == theirs.dtype
    # PyTorch sums up to 1e7 terms one by one here: a few ulps of its rounding remain.
    np.testing.assert_allclose(mine, theirs, rtol=1e-13 if dtype == "float64" else 1e-6)
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
    np.testing.assert_array_equal(np.isposinf(mine), np.isposinf(theirs))


def test_zeta_of_the_spec_inputs_moved_left_matches_torch():
    # The report: the spec's q scaled by -0.5 and shifted by 0.25 (inf becomes -inf).
    rng = np.random.default_rng(6)
    q = np.concatenate([[1.0, 0.0, -1.0, -1.5, inf, 1e-3], rng.uniform(-5, 20, 40)])
    x = np.concatenate([[2.0, 2.0, 3.0, 2.5, 2.0, 2.0], rng.uniform(1.01, 12, 40)])
    x = np.concatenate([x, np.full(46, 2.0), np.full(46, 3.0)])
    q = np.tile(q * -0.5 + 0.25, 3)
    mine = jtensor.special.zeta(jtensor.tensor(x), jtensor.tensor(q)).cpu().numpy()
    theirs = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-13, equal_nan=True)


class _CountingNumpy:
    """NumPy, counting ``power`` calls: one per step of the zeta algorithm."""

    def __init__(self):
        self.powers = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def power(self, *args):
        self.powers += 1
        return np.power(*args)


@pytest.mark.parametrize("q", [-inf, -1e15 - 0.5, -(2.0**52) + 0.5, -1e9 - 0.25, -4097.5])
def test_zeta_work_is_bounded_for_any_q(q):
    xp = _CountingNumpy()
    with np.errstate(all="ignore"):
        out = math_functions._hurwitz_zeta(xp, np.array([2.0, 3.0]), np.array([q, q]))
    # Direct steps stop at the limit; a far lane costs three zetas of positive arguments.
    assert xp.powers <= math_functions._ZETA_DIRECT_LIMIT + 3 * 64
    if q == -inf:
        assert np.isposinf(out).all()
    else:
        assert np.isfinite(out).all()


def test_polygamma_far_left_matches_torch():
    q = [-5000.5, -5000.25, -4097.3, -3.3, -20.7, -1e6 - 0.5]
    for n in (1, 2, 3):
        mine = jtensor.polygamma(n, jtensor.tensor(q, dtype=jtensor.float64)).cpu().numpy()
        theirs = torch.polygamma(n, torch.tensor(q, dtype=torch.float64)).numpy()
        # atol: half-integer q nearly cancels (PyTorch sums a million terms there).
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)
