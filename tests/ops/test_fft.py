"""``torch.fft`` beyond the specs: every transform over every dim order of 3-d inputs against
PyTorch (values, dtypes, PyTorch's CPU strides), gradients for complex output gradients (the
gradient specs seed real ones), round trips, fftshift/ifftshift."""

import itertools

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = [
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft2",
    "rfftn",
    "irfft2",
    "irfftn",
    "hfft2",
    "hfftn",
    "ihfft2",
    "ihfftn",
]
ONE_D_ARGS = [
    {},
    {"dim": 0},
    {"dim": 1, "n": 3},
    {"n": 9, "norm": "ortho"},
    {"dim": -1, "norm": "forward"},
    {"n": 1},
]
N_D_ARGS = [
    {},
    {"dim": (0, 1)},
    {"dim": (1, 0)},
    {"dim": (-1, 0)},
    {"s": (3, 8)},
    {"s": (-1, 3), "dim": (0, -1), "norm": "ortho"},
    {"dim": (2, 0, 1), "norm": "forward"},
    {"dim": 0},
]


def _both(data, order):
    return (jtensor.tensor(data).permute(*order), torch.tensor(data).permute(*order))


def _call(lib, name, x, kw):
    try:
        return getattr(lib.fft, name)(x, **kw)
    except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
        return exc


def _same(mine, theirs):
    if isinstance(theirs, Exception) or isinstance(mine, Exception):
        assert isinstance(mine, Exception) and isinstance(theirs, Exception), (mine, theirs)
        assert isinstance(mine, type(theirs)), (mine, theirs)
        return
    theirs = theirs.resolve_conj()
    assert str(mine.dtype) == str(theirs.dtype)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), atol=1e-10, rtol=1e-9)


@pytest.mark.parametrize("name", ONE_D + N_D)
@pytest.mark.parametrize("shape", [(4, 6, 5), (3, 1, 4)])
def test_every_dim_order_matches_pytorch(name, shape):
    rng = np.random.default_rng(0)
    for order in itertools.permutations(range(3)):
        for is_complex in (False, True):
            data = rng.standard_normal(shape)
            if is_complex:
                data = data + 1j * rng.standard_normal(shape)
            mine, theirs = _both(data, order)
            for kw in ONE_D_ARGS if name in ONE_D else N_D_ARGS:
                _same(_call(jtensor, name, mine, kw), _call(torch, name, theirs, kw))


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_gradients_of_complex_output_gradients_match_pytorch(name):
    rng = np.random.default_rng(1)
    for is_complex in (False, True):
        data = rng.standard_normal((4, 6))
        if is_complex:
            data = data + 1j * rng.standard_normal((4, 6))
        for kw in ({}, {"norm": "ortho"}, {"norm": "forward"}):
            a = jtensor.tensor(data, requires_grad=True)
            b = torch.tensor(data, requires_grad=True)
            try:
                y_theirs = getattr(torch.fft, name)(b, **kw)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    getattr(jtensor.fft, name)(a, **kw)
                continue
            y_mine = getattr(jtensor.fft, name)(a, **kw)
            shape = tuple(y_theirs.shape)
            go = rng.standard_normal(shape)
            if y_theirs.is_complex():
                go = go + 1j * rng.standard_normal(shape)
            (g_mine,) = jtensor.autograd.grad(y_mine, a, jtensor.tensor(go))
            (g_theirs,) = torch.autograd.grad(y_theirs, b, torch.tensor(go))
            np.testing.assert_allclose(
                g_mine.cpu().numpy(), g_theirs.resolve_conj().numpy(), atol=1e-10
            )


def test_round_trips():
    x = jtensor.randn(3, 8, dtype=jtensor.float64)
    for norm in ("backward", "ortho", "forward"):
        assert jtensor.allclose(
            jtensor.fft.irfft(jtensor.fft.rfft(x, norm=norm), n=8, norm=norm), x
        )
        assert jtensor.allclose(jtensor.fft.ifft(jtensor.fft.fft(x, norm=norm), norm=norm).real, x)
        assert jtensor.allclose(
            jtensor.fft.hfft(jtensor.fft.ihfft(x, norm=norm), n=8, norm=norm), x
        )
        assert jtensor.allclose(
            jtensor.fft.irfftn(jtensor.fft.rfftn(x, norm=norm), s=(3, 8), norm=norm), x
        )


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), (-1,)])
def test_shifts_match_pytorch(name, dim):
    data = np.arange(35.0).reshape(5, 7)
    mine = getattr(jtensor.fft, name)(jtensor.tensor(data, requires_grad=True), dim=dim)
    theirs = getattr(torch.fft, name)(torch.tensor(data, requires_grad=True), dim=dim)
    np.testing.assert_array_equal(mine.detach().cpu().numpy(), theirs.detach().numpy())
    assert mine.grad_fn.name() == theirs.grad_fn.name() == "RollBackward0"


def test_shift_undoes_itself():
    x = jtensor.arange(30).reshape(5, 6)
    assert jtensor.equal(jtensor.fft.ifftshift(jtensor.fft.fftshift(x)), x)


def test_fftfreq_places_the_zero_frequency_like_fftshift():
    freq = jtensor.fft.fftshift(jtensor.fft.fftfreq(6, d=0.5))
    assert freq.tolist() == torch.fft.fftshift(torch.fft.fftfreq(6, d=0.5)).tolist()


def test_errors_leave_the_message_readable():
    x = jtensor.ones(4, 6)
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "bad"'):
        jtensor.fft.fft(x, norm="bad")
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        jtensor.fft.fftn(x, dim=(1, -1))
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        jtensor.fft.rfft(x.half())
    with pytest.raises(RuntimeError, match="empty batch"):
        jtensor.fft.fft(jtensor.ones(0, 4))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_ifft_of_a_real_input_has_pytorchs_signed_zeros(dtype, norm):
    # PyTorch's ifft of a real input is the conjugate of a forward r2c: the DC term's
    # imaginary part is -0 (printed "0.5000-0.0000j").
    torch = pytest.importorskip("torch")
    a = np.linspace(0, 1, 5, dtype=dtype).reshape(1, 5).repeat(2, 0)
    mine = jtensor.fft.ifft(jtensor.tensor(a), norm=norm).cpu().numpy()
    theirs = torch.fft.ifft(torch.tensor(a), norm=norm).resolve_conj().numpy()
    assert np.array_equal(np.signbit(mine.imag), np.signbit(theirs.imag))
    np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
