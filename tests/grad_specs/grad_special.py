"""Gradient specs of ``torch.special`` and ``igamma``/``igammac``
(jtensor/autograd/formulas/special.py): float64 gradcheck, second derivatives and PyTorch's
gradients and node names; the functions without a derivative are ``NonDiff``; ``zeta`` and
the incomplete gammas are checked in their second argument, and their first raises
PyTorch's "not implemented" error."""

import numpy as np

from tests.harness.gradients import G, NonDiff


def _t(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=True)


def _unit(lib, rng):
    return (_t(lib, rng.uniform(0.05, 0.95, size=(2, 3))),)


def _positive(lib, rng):
    return (_t(lib, rng.uniform(0.2, 3.0, size=(2, 3))),)


def _second_only(name, low, high):
    """``name(a, x)`` differentiated in ``x`` only (``a`` a constant tensor)."""

    def make(lib, rng):
        a = lib.tensor(rng.uniform(low, high, size=(2, 3)), dtype=lib.float64)
        return (a, _t(lib, rng.uniform(0.5, 3.0, size=(2, 3))))

    def fn(lib, a, x):
        target = lib.special if hasattr(lib.special, name) else lib
        return getattr(target, name)(a, x)

    return make, fn


def _first_refused(name, message):
    """Reaching ``name``'s first argument raises PyTorch's NotImplementedError; the case
    checks that, then returns the differentiable second-argument call."""

    def run(lib, a, x):
        first = a.detach().requires_grad_()
        y = getattr(lib.special, name)(first, x.detach())
        try:
            lib.autograd.grad(y.sum(), first)
        except NotImplementedError as e:
            assert message in str(e)
        else:
            raise AssertionError(f"{name}'s derivative in its first argument should raise")
        return getattr(lib.special, name)(a.detach(), x)

    return run


_ZETA_MAKE, _ZETA = _second_only("zeta", 1.5, 4.0)
_GAMMAINC_MAKE, _GAMMAINC = _second_only("gammainc", 0.5, 4.0)
_GAMMAINCC_MAKE, _GAMMAINCC = _second_only("gammaincc", 0.5, 4.0)
_IGAMMA_MAKE, _IGAMMA = _second_only("igamma", 0.5, 4.0)

GRADS = [
    G("special_erfcx", lambda lib, x: lib.special.erfcx(x), [(2, 3)]),
    G("special_ndtri", lambda lib, x: lib.special.ndtri(x), make=_unit),
    G("special_log_ndtr", lambda lib, x: lib.special.log_ndtr(x), [(2, 3)], low=-4, high=3),
    G("special_i0e", lambda lib, x: lib.special.i0e(x), [(2, 3)], low=-10, high=10),
    G("special_i1", lambda lib, x: lib.special.i1(x), [(2, 3)], low=-10, high=10),
    G("special_i1e", lambda lib, x: lib.special.i1e(x), [(2, 3)], low=-10, high=10),
    G("special_entr", lambda lib, x: lib.special.entr(x), make=_positive),
    G(
        "special_xlog1py",
        lambda lib, x, y: lib.special.xlog1py(x, y),
        make=lambda lib, rng: (
            _t(lib, rng.uniform(-2, 2, size=(2, 3))),
            _t(lib, rng.uniform(-0.5, 3, size=(2, 3))),
        ),
    ),
    G(
        "special_xlog1py",
        lambda lib, y: lib.special.xlog1py(2.0, y),
        make=lambda lib, rng: (_t(lib, rng.uniform(-0.5, 3, size=(2, 3))),),
    ),
    G("special_xlog1py", lambda lib, x: lib.special.xlog1py(x, 1.5), [(2, 3)]),
    G("special_zeta", _ZETA, make=_ZETA_MAKE),
    G(
        "special_zeta",
        lambda lib, q: lib.special.zeta(3.0, q),
        make=lambda lib, rng: (_t(lib, rng.uniform(0.5, 3.0, size=(2, 3))),),
    ),
    G(
        "special_zeta",
        _first_refused("zeta", "the derivative for 'zeta' is not implemented"),
        make=_ZETA_MAKE,
    ),
    G("igamma", _IGAMMA, make=_IGAMMA_MAKE),
    G("igamma", _GAMMAINC, make=_GAMMAINC_MAKE),
    G(
        "igamma",
        _first_refused("gammainc", "the derivative for 'igamma: input' is not implemented"),
        make=_GAMMAINC_MAKE,
    ),
    G("igammac", _GAMMAINCC, make=_GAMMAINCC_MAKE),
    G(
        "igammac",
        _first_refused("gammaincc", "the derivative for 'igammac: input' is not implemented"),
        make=_GAMMAINCC_MAKE,
    ),
    G(
        "igamma_",
        lambda lib, a, x: a.detach().clone().igamma_(x),
        make=_IGAMMA_MAKE,
        variants=False,
    ),
    G(
        "igammac_",
        lambda lib, a, x: a.detach().clone().igammac_(x),
        make=_IGAMMA_MAKE,
        variants=False,
    ),
] + [
    NonDiff(f"special_{name}", "PyTorch gives it no derivative: its result never requires grad")
    for name in (
        "bessel_j0",
        "bessel_j1",
        "bessel_y0",
        "bessel_y1",
        "modified_bessel_i0",
        "modified_bessel_i1",
        "modified_bessel_k0",
        "modified_bessel_k1",
        "scaled_modified_bessel_k0",
        "scaled_modified_bessel_k1",
        "spherical_bessel_j0",
        "airy_ai",
        "chebyshev_polynomial_t",
        "chebyshev_polynomial_u",
        "chebyshev_polynomial_v",
        "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u",
        "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w",
        "hermite_polynomial_h",
        "hermite_polynomial_he",
        "laguerre_polynomial_l",
        "legendre_polynomial_p",
    )
]
