"""Gradient specs of ``torch.fft`` (jtensor/autograd/formulas/spectral.py): float64 gradcheck
of every transform on real and complex inputs (a complex input is built from two real leaves,
``a + b i``), with cuts, pads, dims and each norm, second derivatives, and PyTorch's
gradients and outermost node names."""

from tests.harness.gradients import G


def _z(lib, a, b):
    return a + b * lib.tensor(1j, dtype=lib.complex128)


def _parts(y):
    """A complex result with its real and imaginary parts: gradcheck seeds real gradients
    only, so the parts make it check the imaginary outputs too; ``y`` keeps its node name
    compared with PyTorch's."""
    return (y, y.real, y.imag) if y.is_complex() else y


def _real(name, **kw):
    return lambda lib, a: _parts(getattr(lib.fft, name)(a, **kw))


def _complex(name, **kw):
    return lambda lib, a, b: _parts(getattr(lib.fft, name)(_z(lib, a, b), **kw))


_ONE_D = [{}, {"n": 3, "dim": 0}, {"n": 9, "norm": "ortho"}, {"norm": "forward", "dim": 0}]
_N_D = [
    {},
    {"s": (3, 7)},
    {"dim": (1, 0), "norm": "ortho"},
    {"dim": 0, "norm": "forward"},
    {"s": (5, -1), "dim": (0, 1)},
]
_REAL_ONLY = ("rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn")

GRADS = []
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    for _kw in _ONE_D:
        GRADS.append(G(f"fft_{_name}", _real(_name, **_kw), [(4, 6)]))
        if _name not in _REAL_ONLY:
            GRADS.append(G(f"fft_{_name}", _complex(_name, **_kw), [(4, 6), (4, 6)]))
for _name in (
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
):
    for _kw in _N_D:
        GRADS.append(G(f"fft_{_name}", _real(_name, **_kw), [(4, 6)]))
        if _name not in _REAL_ONLY:
            GRADS.append(G(f"fft_{_name}", _complex(_name, **_kw), [(4, 6), (4, 6)]))
# Three dims, the transformed ones not last.
GRADS += [
    G("fft_fftn", _real("fftn", dim=(0, 2)), [(3, 4, 5)], variants=False),
    G("fft_irfftn", _complex("irfftn", dim=(2, 0), s=(3, 6)), [(3, 4, 5), (3, 4, 5)]),
    G("fft_ihfftn", _real("ihfftn", dim=(1, 0, 2)), [(3, 4, 5)], variants=False),
]
