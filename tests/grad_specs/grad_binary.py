"""Gradient specs of the binary family: arithmetic, binary math functions, lerp/addcmul/
addcdiv, comparisons, logical and bitwise ops, and the random samplers."""

import numpy as np

from tests.harness.gradients import G, NonDiff, grad_fn_name


def _t(lib, values, requires_grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64,
                      requires_grad=requires_grad)


def _gen(lib):
    return lib.Generator().manual_seed(0)


def _zero_gradient(lib, out, *inputs):
    """``out`` (a sample that moves with its inputs) must carry PyTorch's node with zero
    gradients (``normal(mean, std)`` is not reparameterised): checked here, under both
    libraries, by a backward; the stand-in returned has zero derivative, as the node says
    (a finite difference of the sample itself would see the noise move)."""
    if any(x.requires_grad for x in inputs):   # (a forward-mode run passes plain duals)
        name = grad_fn_name(out)
        assert out.requires_grad and name.startswith("NormalBackward"), name
        grads = lib.autograd.grad(out.sum(), inputs, allow_unused=True)
        assert all(g is not None and not g.any() for g in grads), grads
    return out.detach() * 0 + sum((x * 0).sum() for x in inputs)


def _no_derivative(lib, out, *keep):
    """``out`` must have PyTorch's NotImplemented node, whose backward raises; returns a
    differentiable stand-in (``out`` detached, plus zero times the inputs)."""
    assert out.requires_grad and grad_fn_name(out).endswith("NotImplemented"), \
        grad_fn_name(out)
    try:
        out.sum().backward()
    except RuntimeError as e:
        assert "not implemented" in str(e), str(e)
    else:
        raise AssertionError("backward through a NotImplemented node must raise")
    result = out.detach() * 0
    for k in keep:
        result = result + k * 0
    return result


def _ties(lib, rng):
    return (_t(lib, [[1.0, 2.0, -0.5], [0.25, 3.0, 1.5]]),
            _t(lib, [[1.0, 0.5, -0.5], [1.0, 3.0, 0.0]]))


def _ldexp_int(lib, rng):
    return (_t(lib, rng.uniform(-2, 2, size=(2, 3))),
            lib.tensor([[1, 0, 3], [0, 2, 1]]))
    # (a negative integer exponent gets a 0 gradient in PyTorch: 2 ** -k is an integer 0)


def _lerp_tensor_weight(lib, rng):
    return (_t(lib, rng.uniform(-2, 2, size=(2, 3))), _t(lib, rng.uniform(-2, 2, size=(2, 3))),
            _t(lib, rng.uniform(0, 1, size=(3,))))


def _addcdiv(lib, rng):
    return (_t(lib, rng.uniform(-2, 2, size=(2, 3))), _t(lib, rng.uniform(-2, 2, size=(2, 3))),
            _t(lib, rng.uniform(0.5, 2, size=(3,))))


def _pow_zero_base(lib, rng):
    return (_t(lib, [0.0, 1.5, 0.0, 2.0]), _t(lib, [3.0, -0.5, 2.0, 0.0]))


# Second-order opt-outs (``no_second``): only where PyTorch's own gradgradcheck fails on
# the same case (tests/autograd/test_gradients.py checks each against PyTorch).
_TIES_2ND = (
    "ties (a == b at three entries): PyTorch gives each input half of the gradient there, and "
    "moving either by eps breaks the tie, so the gradient jumps (finite difference ~1/eps); "
    "PyTorch's gradgradcheck fails on these points too")
_POW_ZERO_2ND = (
    "zero bases and exponent 0: the exponent's gradient grad * x**y * log(x) meets log(0) at "
    "the zero bases (nan second derivatives, in PyTorch too), and PyTorch's pow backward sets "
    "the base's gradient to 0 where exponent == 0 with where(), so its derivative in the "
    "exponent is 0 there instead of grad / base; PyTorch's gradgradcheck fails on this case "
    "too (jtensor's double backward gives PyTorch's values)")


GRADS = [
    # ---------------------------------------------------------------- sub, div
    G("sub", lambda lib, a, b: a - b, [(2, 3), (3,)]),
    G("sub", lambda lib, a, b: lib.sub(a, b, alpha=2), [(2, 3), (2, 1)]),
    G("sub", lambda lib, a: a - 2, [(2, 3)]),
    G("sub", lambda lib, a: 2 - a, [(2, 3)]),
    G("sub_", lambda lib, a, b: a.clone().sub_(b, alpha=2), [(2, 3), (3,)], variants=False),
    G("sub_", lambda lib, a: a.clone().sub_(2), [(2, 3)], variants=False),
    G("div", lambda lib, a, b: a / b, [(2, 3), (3,)], low=0.5, high=2.0),
    G("div", lambda lib, a, b: b / a, [(2, 3), (2, 3)], low=0.5, high=2.0),
    G("div", lambda lib, a: a / 3, [(2, 3)]),
    G("div", lambda lib, a: 2 / a, [(2, 3)], low=0.5, high=2.0),
    G("div", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), [(2, 3), (3,)],
      low=0.5, high=3.0),
    G("div", lambda lib, a: lib.div(a, 0.7, rounding_mode="trunc"), [(2, 3)]),
    G("div_", lambda lib, a, b: a.clone().div_(b), [(2, 3), (3,)], low=0.5, high=2.0,
      variants=False),
    G("div_", lambda lib, a, b: a.clone().div_(b, rounding_mode="trunc"), [(2, 3), (3,)],
      low=0.5, high=3.0, variants=False),
    G("floor_divide", lambda lib, a, b: _no_derivative(lib, lib.floor_divide(a, b), a, b),
      [(2, 3), (3,)], low=0.5, high=3.0),
    G("floor_divide", lambda lib, a: _no_derivative(lib, a // 0.7, a), [(2, 3)]),
    G("floor_divide_",
      lambda lib, a, b: _no_derivative(lib, a.clone().floor_divide_(b), a, b),
      [(2, 3), (3,)], low=0.5, high=3.0, variants=False),

    # ---------------------------------------------------------- remainder, fmod
    G("remainder", lambda lib, a, b: a % b, [(2, 3), (3,)], low=0.3, high=3.0),
    G("remainder", lambda lib, a, b: lib.remainder(a, b * -1), [(2, 3), (3,)], low=0.3,
      high=3.0),
    G("remainder", lambda lib, a: a % 0.7, [(2, 3)]),
    G("remainder", lambda lib, a: _no_derivative(lib, 2.5 % a, a), [(2, 3)], low=0.3,
      high=2.0),
    G("remainder_", lambda lib, a, b: a.clone().remainder_(b), [(2, 3), (3,)], low=0.3,
      high=3.0, variants=False),
    G("fmod", lambda lib, a, b: lib.fmod(a * -1, b), [(2, 3), (3,)], low=0.3, high=3.0),
    G("fmod", lambda lib, a: lib.fmod(a, 0.7), [(2, 3)]),
    G("fmod_", lambda lib, a, b: a.clone().fmod_(b), [(2, 3), (3,)], low=0.3, high=3.0,
      variants=False),

    # ------------------------------------------------------------------------ pow
    G("pow", lambda lib, a: a ** 2, [(2, 3)]),
    G("pow", lambda lib, a: a ** 3, [(2, 3)]),
    G("pow", lambda lib, a: a.pow(2.5), [(2, 3)], low=0.5, high=2.0),
    G("pow", lambda lib, a: a.pow(-1.5), [(2, 3)], low=0.5, high=2.0),
    G("pow", lambda lib, a: a ** 0, [(2, 3)]),
    G("pow", lambda lib, a, b: a ** b, [(2, 3), (3,)], low=0.5, high=2.0),
    G("pow", lambda lib, a, b: lib.pow(a, b), [(3,), (2, 3)], low=0.5, high=2.0),
    G("pow", lambda lib, a: 2 ** a, [(2, 3)]),
    G("pow", lambda lib, a: lib.pow(0.5, a), [(2, 3)]),
    G("pow", lambda lib, a, b: a.pow(b), make=_pow_zero_base, no_second=_POW_ZERO_2ND),
    G("pow_", lambda lib, a: a.clone().pow_(2), [(2, 3)], variants=False),
    G("pow_", lambda lib, a, b: a.clone().pow_(b), [(2, 3), (3,)], low=0.5, high=2.0,
      variants=False),

    # ------------------------------------------------------- binary math functions
    G("atan2", lambda lib, a, b: lib.atan2(a, b), [(2, 3), (3,)], low=0.3, high=2.0),
    G("atan2", lambda lib, a, b: lib.atan2(b, a * -1), [(2, 3), (2, 3)], low=0.3, high=2.0),
    G("atan2_", lambda lib, a, b: a.clone().atan2_(b), [(2, 3), (3,)], low=0.3, high=2.0,
      variants=False),
    G("maximum", lambda lib, a, b: lib.maximum(a, b), [(2, 3), (3,)]),
    G("maximum", lambda lib, a, b: lib.maximum(a, b), make=_ties, no_second=_TIES_2ND),
    G("minimum", lambda lib, a, b: lib.minimum(a, b), [(2, 3), (3,)]),
    G("minimum", lambda lib, a, b: lib.minimum(a, b), make=_ties, no_second=_TIES_2ND),
    G("fmax", lambda lib, a, b: lib.fmax(a, b), [(2, 3), (3,)]),
    G("fmin", lambda lib, a, b: lib.fmin(a, b), [(2, 3), (3,)]),
    G("hypot", lambda lib, a, b: lib.hypot(a, b), [(2, 3), (3,)], low=0.3, high=2.0),
    G("hypot_", lambda lib, a, b: a.clone().hypot_(b), [(2, 3), (3,)], low=0.3, high=2.0,
      variants=False),
    G("copysign", lambda lib, a, b: lib.copysign(a, b), [(2, 3), (3,)]),
    G("copysign", lambda lib, a: lib.copysign(a, -2.0), [(2, 3)]),
    G("copysign_", lambda lib, a, b: a.clone().copysign_(b), [(2, 3), (3,)],
      variants=False),
    G("xlogy", lambda lib, a, b: lib.xlogy(a, b), [(2, 3), (3,)], low=0.5, high=2.0),
    G("xlogy", lambda lib, a: lib.xlogy(a, 3.0), [(2, 3)]),
    G("xlogy", lambda lib, a: lib.xlogy(2.0, a), [(2, 3)], low=0.5, high=2.0),
    G("xlogy_", lambda lib, a, b: a.clone().xlogy_(b), [(2, 3), (3,)], low=0.5, high=2.0,
      variants=False),
    G("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), [(2, 3), (3,)]),
    G("logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b), [(2, 3), (3,)]),
    G("ldexp", lambda lib, a, b: lib.ldexp(a, b), [(2, 3), (3,)]),
    G("ldexp", lambda lib, a, b: lib.ldexp(a, b), make=_ldexp_int),
    G("ldexp_", lambda lib, a, b: a.clone().ldexp_(b), [(2, 3), (3,)], variants=False),

    # ----------------------------------------------------------------- ternary ops
    G("lerp", lambda lib, a, b: lib.lerp(a, b, 0.3), [(2, 3), (3,)]),
    G("lerp", lambda lib, a, b: lib.lerp(a, b, 0.8), [(2, 3), (2, 3)]),
    G("lerp", lambda lib, a, b, w: lib.lerp(a, b, w), [(2, 3), (2, 3), (3,)]),
    G("lerp", lambda lib, a, b, w: lib.lerp(a, b, w), make=_lerp_tensor_weight),
    G("lerp_", lambda lib, a, b: a.clone().lerp_(b, 0.3), [(2, 3), (3,)], variants=False),
    G("lerp_", lambda lib, a, b, w: a.clone().lerp_(b, w), [(2, 3), (2, 3), (3,)],
      variants=False),
    G("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.5), [(2, 3), (3,), (2, 1)]),
    G("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c), [(2, 3), (2, 3), (2, 3)]),
    G("addcmul_", lambda lib, a, b, c: a.clone().addcmul_(b, c, value=2), [(2, 3), (3,),
                                                                          (2, 3)],
      variants=False),
    G("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c, value=0.5), make=_addcdiv),
    G("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c), [(2, 3), (2, 3), (2, 3)],
      low=0.5, high=2.0),
    G("addcdiv_", lambda lib, a, b, c: a.clone().addcdiv_(b, c, value=-1.5),
      [(2, 3), (3,), (2, 3)], low=0.5, high=2.0, variants=False),

    # ------------------------------------------------- comparisons (in place: zero grads)
    G("eq_", lambda lib, a, b: a.clone().eq_(b), [(2, 3), (3,)],
      variants=False),
    G("eq_", lambda lib, a: a.clone().eq_(0.5), [(2, 3)], variants=False),
    G("ne_", lambda lib, a, b: a.clone().ne_(b), [(2, 3), (3,)],
      variants=False),
    G("ne_", lambda lib, a: a.clone().ne_(0.5), [(2, 3)], variants=False),
    G("lt_", lambda lib, a, b: a.clone().lt_(b), [(2, 3), (3,)],
      variants=False),
    G("lt_", lambda lib, a: a.clone().lt_(0.5), [(2, 3)], variants=False),
    G("le_", lambda lib, a, b: a.clone().le_(b), [(2, 3), (3,)],
      variants=False),
    G("le_", lambda lib, a: a.clone().le_(0.5), [(2, 3)], variants=False),
    G("gt_", lambda lib, a, b: a.clone().gt_(b), [(2, 3), (3,)],
      variants=False),
    G("gt_", lambda lib, a: a.clone().gt_(0.5), [(2, 3)], variants=False),
    G("ge_", lambda lib, a, b: a.clone().ge_(b), [(2, 3), (3,)],
      variants=False),
    G("ge_", lambda lib, a: a.clone().ge_(0.5), [(2, 3)], variants=False),
    NonDiff("eq", "bool result"),
    NonDiff("ne", "bool result"),
    NonDiff("lt", "bool result"),
    NonDiff("le", "bool result"),
    NonDiff("gt", "bool result"),
    NonDiff("ge", "bool result"),
    NonDiff("isclose", "bool result"),
    NonDiff("isnan", "bool result"),
    NonDiff("isinf", "bool result"),
    NonDiff("isfinite", "bool result"),
    NonDiff("isposinf", "bool result"),
    NonDiff("isneginf", "bool result"),
    NonDiff("signbit", "bool result"),

    # ------------------------------------------------------------ logical, bitwise
    NonDiff("logical_and", "bool result"),
    NonDiff("logical_or", "bool result"),
    NonDiff("logical_xor", "bool result"),
    NonDiff("logical_not", "bool result"),
    NonDiff("logical_and_", "PyTorch records no node: the tensor keeps its history"),
    NonDiff("logical_or_", "PyTorch records no node: the tensor keeps its history"),
    NonDiff("logical_xor_", "PyTorch records no node: the tensor keeps its history"),
    NonDiff("logical_not_", "PyTorch records no node: the tensor keeps its history"),
    NonDiff("bitwise_and", "integer/bool only"),
    NonDiff("bitwise_and_", "integer/bool only"),
    NonDiff("bitwise_or", "integer/bool only"),
    NonDiff("bitwise_or_", "integer/bool only"),
    NonDiff("bitwise_xor", "integer/bool only"),
    NonDiff("bitwise_xor_", "integer/bool only"),
    NonDiff("bitwise_left_shift", "integer only"),
    NonDiff("bitwise_left_shift_", "integer only"),
    NonDiff("bitwise_right_shift", "integer only"),
    NonDiff("bitwise_right_shift_", "integer only"),
    NonDiff("bitwise_not", "integer/bool only"),
    NonDiff("bitwise_not_", "integer/bool only"),
    NonDiff("gcd", "integer only"),
    NonDiff("gcd_", "integer only"),
    NonDiff("lcm", "integer only"),
    NonDiff("lcm_", "integer only"),

    # ------------------------------------------------------------ random (zero grads)
    G("bernoulli", lambda lib, a: lib.bernoulli(a, generator=_gen(lib)), [(2, 3)], low=0.1,
      high=0.9),
    G("bernoulli", lambda lib, a: _no_derivative(lib, lib.bernoulli(a, 0.3, generator=_gen(
        lib)), a), [(2, 3)], variants=False),
    NonDiff("multinomial", "int64 result"),
    # normal(mean, std) with tensors: recorded (NormalBackward1/2/3), zero gradients.
    G("normal", lambda lib, m, s: _zero_gradient(lib, lib.normal(m, s, generator=_gen(lib)),
                                                  m, s), [(2, 3), (2, 3)],
      low=0.5, high=2.0, variants=False),
    G("normal", lambda lib, m: _zero_gradient(lib, lib.normal(m, 2.0, generator=_gen(lib)), m),
      [(2, 3)], variants=False),
    G("normal", lambda lib, s: _zero_gradient(lib, lib.normal(1.0, s, generator=_gen(lib)), s),
      [(3,)], low=0.5, high=2.0, variants=False),
    G("normal", lambda lib, m, s: _zero_gradient(lib, lib.normal(m, s, generator=_gen(lib)),
                                                  m, s), [(2, 3), (3,)],
      low=0.5, high=2.0, variants=False),
    G("poisson", lambda lib, a: lib.poisson(a, generator=_gen(lib)), [(2, 3)], low=0.5,
      high=3.0),
    G("uniform_", lambda lib, a: a.clone().uniform_(-1, 2, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("normal_", lambda lib, a: a.clone().normal_(1.0, 2.0, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("exponential_", lambda lib, a: a.clone().exponential_(2.0, generator=_gen(lib)),
      [(2, 3)], variants=False),
    G("geometric_", lambda lib, a: a.clone().geometric_(0.3, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("log_normal_", lambda lib, a: a.clone().log_normal_(0.5, 0.25, generator=_gen(lib)),
      [(2, 3)], variants=False),
    G("cauchy_", lambda lib, a: a.clone().cauchy_(2.0, 0.5, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("random_", lambda lib, a: a.clone().random_(generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("random_", lambda lib, a: a.clone().random_(5, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("random_", lambda lib, a: a.clone().random_(1, 5, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("random_", lambda lib, a: a.clone().random_(to=5, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("bernoulli_", lambda lib, a: a.clone().bernoulli_(0.3, generator=_gen(lib)), [(2, 3)],
      variants=False),
    G("bernoulli_", lambda lib, a, p: a.clone().bernoulli_(p, generator=_gen(lib)),
      [(2, 3), (2, 3)], low=0.1, high=0.9, variants=False),
]
