"""Behaviour of issue 15's core extras beyond the specs: the complex views write through and
share the version counter, unravel_index agrees with NumPy, window identities, failing
in-place calls leave their input untouched, gradient is exact on quadratics."""

import numpy as np
import pytest

import jtensor

pytestmark = pytest.mark.devices


def test_complex_views_write_through_and_share_the_version_counter():
    z = jtensor.tensor([1 + 2j, 3 - 4j])
    r = jtensor.view_as_real(z)
    assert r._base is z and r.stride() == (2, 1)
    before = z._version
    r[1, 1] = 7.0
    assert z[1].item() == 3 + 7j
    assert z._version == before + 1
    back = jtensor.view_as_complex(r)
    back.mul_(2)
    assert r.cpu().numpy().tolist() == [[2.0, 4.0], [6.0, 14.0]]


def test_conj_is_eager_in_jtensor():
    # PyTorch's conj() is a lazy view (is_conj() True); jtensor computes it, so the bit is
    # never set and view_as_real of a conjugate is an ordinary (copied) tensor's view.
    z = jtensor.tensor([1 + 2j])
    c = z.conj()
    assert not c.is_conj() and not c.is_neg()
    assert jtensor.view_as_real(c).cpu().numpy().tolist() == [[1.0, -2.0]]


@pytest.mark.parametrize("shape", [(2, 4), (3, 1, 5), (7,), (2, 3, 2, 2)])
def test_unravel_index_matches_numpy(shape):
    n = int(np.prod(shape))
    flat = np.random.default_rng(0).integers(0, n, size=11)
    mine = jtensor.unravel_index(jtensor.tensor(flat), shape)
    theirs = np.unravel_index(flat, shape)
    assert len(mine) == len(shape)
    for m, t in zip(mine, theirs, strict=True):
        assert m.cpu().numpy().tolist() == t.tolist()


@pytest.mark.parametrize(
    "name", ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]
)
def test_periodic_window_is_the_longer_symmetric_one_cut(name):
    fn = getattr(jtensor, name)
    for n in (2, 5, 16):
        periodic = fn(n, True, dtype=jtensor.float64).cpu().numpy()
        symmetric = fn(n + 1, False, dtype=jtensor.float64).cpu().numpy()
        np.testing.assert_allclose(periodic, symmetric[:-1], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(symmetric, symmetric[::-1], atol=1e-12)


def test_windows_match_numpy():
    np.testing.assert_allclose(
        jtensor.hann_window(9, False, dtype=jtensor.float64).cpu().numpy(),
        np.hanning(9),
        atol=1e-15,
    )
    np.testing.assert_allclose(
        jtensor.hamming_window(9, False, dtype=jtensor.float64).cpu().numpy(),
        np.hamming(9),
        atol=1e-15,
    )
    np.testing.assert_allclose(
        jtensor.bartlett_window(9, False, dtype=jtensor.float64).cpu().numpy(),
        np.bartlett(9),
        atol=1e-15,
    )
    np.testing.assert_allclose(
        jtensor.blackman_window(9, False, dtype=jtensor.float64).cpu().numpy(),
        np.blackman(9),
        atol=1e-15,
    )
    np.testing.assert_allclose(
        jtensor.kaiser_window(9, False, 4.0, dtype=jtensor.float64).cpu().numpy(),
        np.kaiser(9, 4.0),
        rtol=1e-12,
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.fill_diagonal_(1j),
        lambda x: x.fill_diagonal_(jtensor.ones(2)),
        lambda x: x[0].fill_diagonal_(1),
    ],
)
def test_failing_fill_diagonal_leaves_the_input_untouched(call):
    x = jtensor.zeros(3, 3)
    version = x._version
    with pytest.raises((RuntimeError, TypeError)):
        call(x)
    assert x.cpu().numpy().tolist() == [[0.0] * 3] * 3
    assert x._version == version


def test_fill_diagonal_wrap_as_numpy():
    x = jtensor.zeros(11, 3)
    x.fill_diagonal_(5, wrap=True)
    expected = np.zeros((11, 3))
    np.fill_diagonal(expected, 5, wrap=True)
    assert x.cpu().numpy().tolist() == expected.tolist()


def test_gradient_is_exact_on_quadratics_and_matches_numpy():
    t = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 4.5])
    y = 3 * t**2 - t + 2
    for edge in (1, 2):
        (mine,) = jtensor.gradient(jtensor.tensor(y), spacing=[jtensor.tensor(t)], edge_order=edge)
        np.testing.assert_allclose(
            mine.cpu().numpy(), np.gradient(y, t, edge_order=edge), rtol=1e-12
        )
    (second,) = jtensor.gradient(jtensor.tensor(y), spacing=[jtensor.tensor(t)], edge_order=2)
    np.testing.assert_allclose(second.cpu().numpy(), 6 * t - 1, rtol=1e-12)
    grid = np.random.default_rng(1).normal(size=(4, 5))
    mine = jtensor.gradient(jtensor.tensor(grid), spacing=[0.5, 2.0])
    for m, t in zip(mine, np.gradient(grid, 0.5, 2.0), strict=True):
        np.testing.assert_allclose(m.cpu().numpy(), t, rtol=1e-12)


def test_gradient_refuses_coordinates_of_the_wrong_length():
    # PyTorch broadcasts a mismatched coordinate vector into a wrong-shaped result; jtensor
    # says what is wrong instead.
    with pytest.raises(RuntimeError, match="coordinates for dim 0 have 2 values"):
        jtensor.gradient(
            jtensor.zeros(3, 4), spacing=[jtensor.tensor([0.0, 1.0]), jtensor.arange(4.0)]
        )


def test_split_helpers_are_views():
    root = jtensor.arange(24.0)
    x = root.reshape(2, 3, 4)
    for pieces in (x.hsplit(3), x.vsplit([1]), x.dsplit(2), x.split_with_sizes([1, 1])):
        for p in pieces:
            assert p._base is root and p._version_counter is x._version_counter


def test_gradient_refuses_coordinates_that_require_grad():
    # A known gap, loud rather than silent: PyTorch also differentiates the coordinates.
    t = jtensor.tensor([0.0, 1.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="coordinate tensors in spacing"):
        jtensor.gradient(jtensor.ones(3), spacing=[t])
    with jtensor.no_grad():
        (result,) = jtensor.gradient(jtensor.ones(3), spacing=[t])
    np.testing.assert_allclose(result.cpu().numpy(), [0.0, 0.0, 0.0], atol=1e-6)
    (detached,) = jtensor.gradient(jtensor.ones(3), spacing=[t.detach()])
    assert not detached.requires_grad
