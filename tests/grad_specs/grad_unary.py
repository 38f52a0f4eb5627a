"""Gradient specs of the unary family (jtensor/autograd/formulas/unary.py)."""

import numpy as np

from tests.harness.gradients import G

S = [(2, 3)]


def _z(lib, a, b):
    """A complex tensor built from two real leaves (``a + b i``), through tensor ops only."""
    return a + b * lib.tensor(1j, dtype=lib.complex128)


def _parts(y):
    return y.real, y.imag


def _t(lib, values, **kw):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64,
                      requires_grad=True, **kw)


def _heaviside(lib, a):
    """PyTorch records heaviside with a ``NotImplemented`` node whose backward raises; the
    case checks that, then returns something differentiable built from its values."""
    values = lib.tensor(0.5, dtype=lib.float64)
    y = lib.heaviside(a, values)
    if y.requires_grad:
        assert type(y.grad_fn).__name__ == "NotImplemented"
        try:
            lib.autograd.grad(y.sum(), a)
        except RuntimeError as e:
            assert "not implemented" in str(e)
        else:
            raise AssertionError("heaviside's backward should raise")
    return y.detach() * a


def _no_inplace_derivative(name):
    """PyTorch records ``asinh_``/``acosh_``/``atanh_`` (``...Backward1``) but their backward
    raises NotImplementedError; the case checks that, then returns the out-of-place op."""
    def run(lib, a):
        y = getattr(a.clone(), name + "_")()
        if y.requires_grad:
            assert type(y.grad_fn).__name__ == name.capitalize() + "Backward1"
            try:
                lib.autograd.grad(y.sum(), a)
            except NotImplementedError as e:
                assert f"inplace version of {name}" in str(e)
            else:
                raise AssertionError(f"{name}_'s backward should raise")
        return getattr(a, name)()

    return run


def _heaviside_(lib, a):
    y = a.clone()
    y.heaviside_(lib.tensor(0.5, dtype=lib.float64))
    if y.requires_grad:
        assert type(y.grad_fn).__name__ == "NotImplemented"
    return y.detach() * a


# (op, low, high) for ops of one tensor argument with an in-place twin ``op_``.
SIMPLE = [
    ("neg", -2, 2),
    ("abs", -2, 2),
    ("sign", -2, 2),
    ("square", -2, 2),
    ("exp", -2, 2),
    ("exp2", -2, 2),
    ("expm1", -2, 2),
    ("log", 0.5, 2),
    ("log2", 0.5, 2),
    ("log10", 0.5, 2),
    ("log1p", -0.5, 2),
    ("sqrt", 0.5, 2),
    ("rsqrt", 0.5, 2),
    ("reciprocal", 0.5, 2),
    ("sin", -2, 2),
    ("cos", -2, 2),
    ("tan", -1, 1),
    ("asin", -0.9, 0.9),
    ("acos", -0.9, 0.9),
    ("atan", -2, 2),
    ("sinh", -2, 2),
    ("cosh", -2, 2),
    ("tanh", -2, 2),
    ("asinh", -2, 2),
    ("acosh", 1.1, 3),
    ("atanh", -0.9, 0.9),
    ("deg2rad", -2, 2),
    ("rad2deg", -2, 2),
    ("erf", -2, 2),
    ("erfc", -2, 2),
    ("erfinv", -0.9, 0.9),
    ("relu", -2, 2),
    ("logit", 0.1, 0.9),
    ("floor", -2, 2),
    ("ceil", -2, 2),
    ("trunc", -2, 2),
    ("frac", -2, 2),
    ("round", -2, 2),
    ("nan_to_num", -2, 2),
    ("sinc", -2, 2),
    ("lgamma", 0.5, 3),
    ("digamma", 0.5, 3),
    ("i0", -2, 2),
]


def _method(name):
    return lambda lib, a: getattr(a, name)()


def _inplace(name):
    return lambda lib, a: getattr(a.clone(), name + "_")()


_NO_INPLACE_DERIVATIVE = ("asinh", "acosh", "atanh")

# Second-order opt-outs (``no_second``): only where PyTorch's own gradgradcheck fails on
# the same case (tests/autograd/test_gradients.py checks each against PyTorch).
_ABS_ZERO_2ND = (
    "kink at x == 0 (two entries): abs's gradient sgn(x) jumps from -1 to 1 there, so the "
    "finite difference of the gradient is ~1/eps; PyTorch's gradgradcheck fails on these "
    "points too")
_SINC_ZERO_2ND = (
    "x == 0: PyTorch's sinc backward masks that point with where(), and its double backward "
    "gives nan there (the true second derivative is -pi**2/3); PyTorch's gradgradcheck fails "
    "on this point too")


GRADS = []
for _op, _lo, _hi in SIMPLE:
    if _op == "sgn":
        continue  # below: PyTorch's zero gradient is a ZeroTensor the oracle can't compare
    GRADS.append(G(_op, _method(_op), S, low=_lo, high=_hi))
    if _op in _NO_INPLACE_DERIVATIVE:
        GRADS.append(G(_op + "_", _no_inplace_derivative(_op), S, low=_lo, high=_hi,
                       variants=False))
    else:
        GRADS.append(G(_op + "_", _inplace(_op), S, low=_lo, high=_hi, variants=False))

GRADS += [
    # shapes and layouts
    G("exp", lambda lib, a: lib.exp(a), [(4,)]),
    G("tanh", lambda lib, a: a.tanh(), [()]),
    G("sin", lambda lib, a: a.t().sin(), [(3, 2)]),
    # subgradients and special points (the finite difference agrees there too)
    G("abs", lambda lib, a: a.abs(), make=lambda lib, rng: [_t(lib, [0.0, -1.5, 2.0, 0.0])],
      no_second=_ABS_ZERO_2ND),
    # (PyTorch's formula masks x == 0 with where(): no second derivative there)
    G("sinc", lambda lib, a: a.sinc(), make=lambda lib, rng: [_t(lib, [0.0, 0.5, -1.25])],
      no_second=_SINC_ZERO_2ND),
    G("nan_to_num", lambda lib, a: a.nan_to_num(),
      make=lambda lib, rng: [_t(lib, [np.nan, np.inf, -np.inf, 1.5])]),
    G("nan_to_num", lambda lib, a: lib.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-2.0),
      [(2, 3)]),
    G("nan_to_num_", lambda lib, a: a.clone().nan_to_num_(nan=1.0),
      make=lambda lib, rng: [_t(lib, [np.nan, 0.5, -np.inf])]),
    G("i0", lambda lib, a: a.i0(), [(2, 3)], low=-25, high=30, rtol=1e-4),
    G("logit", lambda lib, a: a.logit(eps=0.2), [(2, 3)], low=0.02, high=0.98),
    G("logit_", lambda lib, a: a.clone().logit_(0.2), [(2, 3)], low=0.02, high=0.98,
      variants=False),
    G("round", lambda lib, a: a.round(decimals=1), [(2, 3)]),
    G("round_", lambda lib, a: a.clone().round_(decimals=1), [(2, 3)],
      variants=False),
    # sgn of a real tensor: zero gradient (PyTorch's is a ZeroTensor: an extra output makes
    # the leaf's .grad an ordinary tensor the oracle can compare)
    G("sgn", lambda lib, a: (a.sgn(), a.exp()), S),
    G("sgn_", lambda lib, a: (a.clone().sgn_(), a.exp()), S, variants=False),
    G("positive", lambda lib, a: lib.positive(a * 2), [(2, 3)]),
    # clamp: scalars and tensors
    G("clamp", lambda lib, a: a.clamp(-0.5, 0.5), S),
    G("clamp", lambda lib, a: lib.clamp(a, min=-0.5), S),
    G("clamp", lambda lib, a: lib.clamp(a, max=0.5), S),
    G("clamp", lambda lib, a, lo, hi: lib.clamp(a, lo, hi), [(2, 3), (2, 3), (3,)]),
    G("clamp", lambda lib, a, lo: lib.clamp(a, min=lo), [(2, 3), (3,)]),
    G("clamp", lambda lib, a, hi: lib.clamp(a, max=hi), [(2, 3), (2, 1)]),
    G("clamp_", lambda lib, a: a.clone().clamp_(-0.5, 0.5), S, variants=False),
    G("clamp_", lambda lib, a, lo, hi: a.clone().clamp_(lo, hi), [(2, 3), (3,), (3,)],
      variants=False),
    G("clamp_min", lambda lib, a: lib.clamp_min(a, 0.3), S),
    G("clamp_min", lambda lib, a, lo: lib.clamp_min(a, lo), [(2, 3), (3,)]),
    G("clamp_min_", lambda lib, a: a.clone().clamp_min_(0.3), S, variants=False),
    G("clamp_min_", lambda lib, a, lo: a.clone().clamp_min_(lo), [(2, 3), (2, 3)],
      variants=False),
    G("clamp_max", lambda lib, a: lib.clamp_max(a, 0.3), S),
    G("clamp_max", lambda lib, a, hi: lib.clamp_max(a, hi), [(2, 3), (3,)]),
    G("clamp_max_", lambda lib, a: a.clone().clamp_max_(0.3), S, variants=False),
    G("clamp_max_", lambda lib, a, hi: a.clone().clamp_max_(hi), [(2, 3), (2, 3)],
      variants=False),
    # complex inputs, built from real leaves; complex outputs are split into real parts
    G("real", lambda lib, a, b: lib.real(_z(lib, a, b)), [(2, 3), (2, 3)]),
    G("imag", lambda lib, a, b: lib.imag(_z(lib, a, b)), [(2, 3), (2, 3)]),
    G("conj", lambda lib, a, b: _parts(lib.conj(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("conj_physical", lambda lib, a, b: _parts(lib.conj_physical(_z(lib, a, b))),
      [(2, 3), (2, 3)]),
    G("conj_physical_", lambda lib, a: a.clone().conj_physical_(), S, variants=False),
    G("conj_physical_", lambda lib, a, b: _parts(_z(lib, a, b).conj_physical_()),
      [(2, 3), (2, 3)], variants=False),
    G("angle", lambda lib, a: lib.angle(a), S),
    G("angle", lambda lib, a, b: lib.angle(_z(lib, a, b)), [(2, 3), (2, 3)]),
    G("abs", lambda lib, a, b: lib.abs(_z(lib, a, b)), [(2, 3), (2, 3)]),
    G("sgn", lambda lib, a, b: _parts(lib.sgn(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("exp", lambda lib, a, b: _parts(lib.exp(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("log", lambda lib, a, b: _parts(lib.log(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("sqrt", lambda lib, a, b: _parts(lib.sqrt(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("tanh", lambda lib, a, b: _parts(lib.tanh(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("acosh", lambda lib, a, b: _parts(lib.acosh(_z(lib, a, b))), [(2, 3), (2, 3)],
      low=1.1, high=3),
    G("square", lambda lib, a, b: _parts(lib.square(_z(lib, a, b))), [(2, 3), (2, 3)]),
    G("reciprocal", lambda lib, a, b: _parts(lib.reciprocal(_z(lib, a, b))),
      [(2, 3), (2, 3)], low=0.5, high=2),
    # two-argument ops
    G("heaviside", _heaviside, S),
    G("heaviside_", _heaviside_, S, variants=False),
    G("nextafter", lambda lib, a, b: lib.nextafter(a, b), [(2, 3), (3,)]),
    G("nextafter_", lambda lib, a, b: a.clone().nextafter_(b), [(2, 3), (2, 3)],
      variants=False),
    G("float_power", lambda lib, a: lib.float_power(a, 2), S),
    G("float_power", lambda lib, a: lib.float_power(a, 2.5), S, low=0.5, high=2),
    G("float_power", lambda lib, a: lib.float_power(a, 0), S),
    G("float_power", lambda lib, a, e: lib.float_power(a, e), [(2, 3), (3,)], low=0.5,
      high=2),
    G("float_power", lambda lib, e: lib.float_power(2.0, e), S),
    G("float_power_", lambda lib, a: a.clone().float_power_(3), S, variants=False),
    G("float_power_", lambda lib, a, e: a.clone().float_power_(e), [(2, 3), (2, 3)],
      low=0.5, high=2, variants=False),
    G("frexp", lambda lib, a: lib.frexp(a), S),
    # special functions with an integer argument
    G("polygamma", lambda lib, a: lib.polygamma(0, a), S, low=0.5, high=3),
    G("polygamma", lambda lib, a: lib.polygamma(1, a), S, low=0.5, high=3),
    G("polygamma", lambda lib, a: a.polygamma(2), S, low=0.5, high=3),
    G("polygamma_", lambda lib, a: a.clone().polygamma_(1), S, low=0.5, high=3,
      variants=False),
    G("mvlgamma", lambda lib, a: lib.mvlgamma(a, 1), S, low=1.5, high=3),
    G("mvlgamma", lambda lib, a: a.mvlgamma(3), S, low=1.5, high=3),
    G("mvlgamma_", lambda lib, a: a.clone().mvlgamma_(2), S, low=1.5, high=3,
      variants=False),
]
