"""The direct forward-mode rules: PyTorch's "auto_linear" and "auto_element_wise" ops and
the explicit formulas of the ops training code uses (``derivatives.yaml``'s
``result:`` lines), each cheaper than the generic double-vjp rule.

A formula ``f(c, result)`` reads the call's arguments with ``c.value(name)``, tangents with
``c.tangent(x)`` and returns the output's tangent (a tuple for several outputs; None for an
output without one). Formulas are written in public jtensor ops, so a tangent that must be
differentiable (reverse over forward) or seen by an outer transform records as any op does.
"""

import math

from ..._api import ops as J
from ..._tensor import Tensor
from .functions import _records
from .rules import GENERIC, LINEAR, MULTILINEAR, Call, Derived, Rule, _Linear, attach_outputs, rule

# ----------------------------------------------------------------------------- linear ops

# element-wise and reductions linear in their tensor inputs
rule(
    *"""
    add sub neg positive sum mean cumsum trace deg2rad rad2deg diff
    """.split(),
    kind=LINEAR,
)
# copies
rule(
    *"""
    clone contiguous to narrow_copy conj conj_physical resolve_conj resolve_neg complex diagflat
    gradient row_stack rsub real imag
    """.split(),
    kind=LINEAR,
)
# joining, rearranging, selection (the indices are constants)
rule(
    *"""
    cat concat concatenate stack hstack vstack dstack column_stack block_diag flip fliplr flipud
    roll rot90 repeat tile repeat_interleave tril triu diag diag_embed index_select gather take
    take_along_dim masked_select where masked_fill index_fill scatter_add index_add index_copy
    index_put put select_scatter slice_scatter diagonal_scatter masked_scatter sum_to_size
    broadcast_tensors atleast_1d atleast_2d atleast_3d meshgrid cartesian_prod combinations
    """.split(),
    kind=LINEAR,
)
# in-place only (the metadata ones change the tangent's view as the primal's)
rule(
    *"""
    t_ transpose_ swapaxes_ swapdims_ unsqueeze_ squeeze_ as_strided_ __setitem__ copy_ fill_
    zero_
    """.split(),
    kind=LINEAR,
)


class _LinearWithConstant(_Linear):
    """Linear in its tensor inputs, with a number argument ``param`` that is a constant
    written into the result (``scatter``'s ``value``, ``fill_diagonal_``'s
    ``fill_value``): the tangent's call writes 0 there. With ``reduce=`` (``scatter``) the
    op is not linear and takes the generic rule."""

    def __init__(self, param):
        self.param = param

    def apply(self, c, written, tangent_call=None):
        if c.value("reduce") is not None:
            return GENERIC.apply(c, written)
        value = c.value(self.param)
        if value is None or isinstance(value, Tensor):
            return _Linear.apply(self, c, written)
        args, kwargs = list(c.args), dict(c.kwargs)
        pos = c.op.backward.positional.index(self.param)
        if pos < len(args):
            args[pos] = value.__class__(0)
        else:
            kwargs[self.param] = value.__class__(0)
        return _Linear.apply(
            self, c, written, Call(c.op, c.entry, tuple(args), kwargs, c.level, c.found)
        )


rule("scatter", kind=_LinearWithConstant("value"))
rule("fill_diagonal_", kind=_LinearWithConstant("fill_value"))


# ----------------------------------------------------------------------------- products

rule(
    *"""
    mul multiply matmul mm bmm mv dot vdot inner outer ger einsum tensordot kron cross
    linalg_cross linalg_vecdot chain_matmul linalg_multi_dot
    """.split(),
    kind=MULTILINEAR,
)


def _t(c, x):
    """The tangent of ``x``, or None."""
    return c.tangent(x)


def _plus(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _scaled(t, s):
    if t is None:
        return None
    return t if (not isinstance(s, Tensor) and s == 1) else t * s


def _addmm_like(product):
    """``input * beta + alpha * product(m1, m2)`` (``addmm``, ``addmv``, ``addr``,
    ``baddbmm``, ``addbmm``): affine, bilinear in the two factors."""

    def formula(c, result):
        names = c.op.backward.inputs
        inp, m1, m2 = (c.value(n) for n in names)
        beta, alpha = c.value("beta", 1), c.value("alpha", 1)
        t_in, t1, t2 = (_t(c, x) for x in (inp, m1, m2))
        if (t1 is None or t2 is None) and _records(m1, m2):
            # A term per factor, zero tangents included, as PyTorch's formula: with a factor
            # that requires grad the tangent is recorded by reverse mode.
            t1 = J.zeros_like(m1) if t1 is None else t1
            t2 = J.zeros_like(m2) if t2 is None else t2
        prod = _plus(
            None if t1 is None else product(t1, m2), None if t2 is None else product(m1, t2)
        )
        out = _scaled(prod, alpha)
        if t_in is not None and not (not isinstance(beta, Tensor) and beta == 0):
            out = _plus(out, _scaled(t_in, beta))
        if out is None:
            return J.zeros_like(result)
        return out.expand(result.shape) if out.shape != result.shape else out

    return Derived(formula)


rule("addmm", kind=_addmm_like(lambda a, b: J.mm(a, b)))
rule("addmv", kind=_addmm_like(lambda a, b: J.mv(a, b)))
rule("addr", kind=_addmm_like(lambda a, b: J.outer(a, b)))
rule("baddbmm", kind=_addmm_like(lambda a, b: J.bmm(a, b)))
rule("addbmm", kind=_addmm_like(lambda a, b: J.bmm(a, b).sum(0)))


def _div(c, result):
    a, b = c.value("input"), c.value("other")
    ta, tb = _t(c, a), _t(c, b)
    mode = c.value("rounding_mode")
    if mode is not None:
        return J.zeros_like(result)
    out = None if ta is None else ta / b
    if tb is not None:
        out = _plus(out, -tb * result / b)
    return out


rule("div", "divide", "true_divide", kind=Derived(_div))


def _addcmul(c, result):
    inp, t1, t2 = c.value("input"), c.value("tensor1"), c.value("tensor2")
    value = c.value("value", 1)
    out = _t(c, inp)
    prod = _plus(
        None if _t(c, t1) is None else _t(c, t1) * t2, None if _t(c, t2) is None else t1 * _t(c, t2)
    )
    return _plus(out, _scaled(prod, value))


rule("addcmul", kind=Derived(_addcmul))

# normal(mean, std) is not reparameterised (its reverse formula gives zero gradients): its
# tangent is zero, as PyTorch's; the rule runs no second draw.
rule("normal", kind=Derived(lambda c, result: J.zeros_like(result), needs_input=False))


# ----------------------------------------------------------------------------- element-wise


def _unary(f, needs_input=True):
    """A rule for ``out = f(input)`` element-wise: ``f(x, result, t) -> tangent``."""

    def formula(c, result):
        x = c.value("input")
        return f(x, result, _t(c, x))

    return Derived(formula, needs_input)


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

rule("exp", kind=_unary(lambda x, r, t: t * r, False))
rule("exp2", kind=_unary(lambda x, r, t: t * r * _LN2, False))
rule("expm1", kind=_unary(lambda x, r, t: t * (r + 1), False))
rule("log", kind=_unary(lambda x, r, t: t / x))
rule("log2", kind=_unary(lambda x, r, t: t / (x * _LN2)))
rule("log10", kind=_unary(lambda x, r, t: t / (x * _LN10)))
rule("log1p", kind=_unary(lambda x, r, t: t / (x + 1)))
rule("sqrt", kind=_unary(lambda x, r, t: t / (2 * r), False))
rule("rsqrt", kind=_unary(lambda x, r, t: t * (-0.5) * r * r * r, False))
rule("reciprocal", kind=_unary(lambda x, r, t: -t * r * r, False))
rule("sin", kind=_unary(lambda x, r, t: t * J.cos(x)))
rule("cos", kind=_unary(lambda x, r, t: -t * J.sin(x)))
rule("tan", kind=_unary(lambda x, r, t: t * (1 + r * r), False))
rule("sinh", kind=_unary(lambda x, r, t: t * J.cosh(x)))
rule("cosh", kind=_unary(lambda x, r, t: t * J.sinh(x)))
rule("tanh", kind=_unary(lambda x, r, t: t * (1 - r * r), False))
rule("sigmoid", kind=_unary(lambda x, r, t: t * r * (1 - r), False))
rule("relu", kind=_unary(lambda x, r, t: t * (r > 0), False))
rule("square", kind=_unary(lambda x, r, t: 2 * x * t))
rule("erf", kind=_unary(lambda x, r, t: t * _TWO_OVER_SQRT_PI * J.exp(-x * x)))
rule("asin", kind=_unary(lambda x, r, t: t / J.sqrt(1 - x * x)))
rule("acos", kind=_unary(lambda x, r, t: -t / J.sqrt(1 - x * x)))
rule("atan", kind=_unary(lambda x, r, t: t / (1 + x * x)))


class _RealOnly(Rule):
    """A direct rule for real inputs; complex ones take the generic rule (the formula is
    not the complex derivative: ``abs``' is not holomorphic)."""

    def __init__(self, real_rule):
        self.real_rule = real_rule

    def apply(self, c, written):
        x = c.args[0] if c.args else c.kwargs.get("input", c.kwargs.get("self"))
        if isinstance(x, Tensor) and x.is_complex():
            return GENERIC.apply(c, written)
        return self.real_rule.apply(c, written)


rule("abs", "absolute", kind=_RealOnly(_unary(lambda x, r, t: t * J.sign(x))))


def _zero(c, result):
    return (
        tuple(J.zeros_like(o) if isinstance(o, Tensor) else None for o in result)
        if isinstance(result, tuple)
        else J.zeros_like(result)
    )


# Piecewise constant: the tangent is zero (PyTorch's zeros_like(grad) formulas).
rule("sign", "floor", "ceil", "round", "trunc", kind=Derived(_zero, False))
rule("frac", kind=_unary(lambda x, r, t: t * 1, False))


class _Pow(Rule):
    """``pow`` with a number exponent directly; a tensor exponent takes the generic rule."""

    def apply(self, c, written):
        names = c.op.backward.positional
        e = (
            c.args[1]
            if len(c.args) > 1
            else c.kwargs.get(names[1] if len(names) > 1 else "exponent")
        )
        if isinstance(e, Tensor) or not isinstance(c.args[0] if c.args else None, Tensor):
            return GENERIC.apply(c, written)
        return _POW.apply(c, written)


def _pow_number(c, result):
    x = c.args[0]
    e = c.args[1] if len(c.args) > 1 else next(iter(c.kwargs.values()))
    t = _t(c, x)
    if e == 0:
        return J.zeros_like(result)
    return t * (e * J.pow(x, e - 1))


_POW = Derived(_pow_number)
rule("pow", kind=_Pow())


# ----------------------------------------------------------------------------- reductions


def _max_dim(c, result):
    """``max``/``min`` along a dim: the tangent at the chosen index."""
    x = c.value("input")
    dim, keepdim = c.value("dim"), c.value("keepdim", False)
    indices = result[1]
    idx = indices if keepdim else indices.unsqueeze(dim)
    t = J.gather(_t(c, x), dim, idx)
    return (t if keepdim else t.squeeze(dim)), None


class _MaybeGeneric(Derived):
    """``max``/``min`` along a dim directly; their other forms (over all elements, of two
    tensors) take the generic rule."""

    def apply(self, c, written):
        if written is None and isinstance(
            c.args[1] if len(c.args) > 1 else c.kwargs.get("dim"), int
        ):
            return Derived.apply(self, c, written)
        return GENERIC.apply(c, written)


rule("max", "min", kind=_MaybeGeneric(_max_dim))


def _softmax(c, result):
    x, dim, dtype = c.value("input"), c.value("dim"), c.value("dtype")
    t = _t(c, x)
    if dtype is not None:
        t = t.to(dtype)
    return result * (t - (t * result).sum(dim, keepdim=True))


def _log_softmax(c, result):
    x, dim, dtype = c.value("input"), c.value("dim"), c.value("dtype")
    t = _t(c, x)
    if dtype is not None:
        t = t.to(dtype)
    return t - (J.exp(result) * t).sum(dim, keepdim=True)


def _logcumsumexp(c, result):
    """``d out_i = sum_{j<=i} exp(x_j - out_i) t_j``, shifted by the max for range."""
    x, dim = c.value("input"), c.value("dim")
    t = _t(c, x)
    if x.numel() == 0:
        return J.zeros_like(result)
    shift = x.detach().amax(dim, keepdim=True)
    shift = J.where(J.isfinite(shift), shift, J.zeros_like(shift))
    return J.cumsum(t * J.exp(x - shift), dim) * J.exp(shift - result)


rule("logcumsumexp", kind=Derived(_logcumsumexp))


def _sinc(x, r, t):
    """``sinc'(x) = (cos(pi x) - sinc(x)) / x``, and 0 at 0."""
    zero = x == 0
    safe = J.where(zero, J.ones_like(x), x)
    return t * J.where(zero, J.zeros_like(x), (J.cos(math.pi * safe) - r) / safe)


rule("sinc", kind=_unary(_sinc))
rule("softmax", kind=Derived(_softmax, False))
rule("log_softmax", kind=Derived(_log_softmax, False))


# ----------------------------------------------------------------------------- more element-wise

rule("erfc", kind=_unary(lambda x, r, t: -t * _TWO_OVER_SQRT_PI * J.exp(-x * x)))
rule("erfinv", kind=_unary(lambda x, r, t: t * (math.sqrt(math.pi) / 2) * J.exp(r * r), False))
rule("lgamma", kind=_unary(lambda x, r, t: t * J.digamma(x)))
rule("digamma", kind=_unary(lambda x, r, t: t * J.polygamma(1, x)))


class _ClampNumbers(Rule):
    """``clamp`` with number bounds: the tangent where the input is inside them, else 0
    (PyTorch's rule); tensor bounds take the generic rule."""

    def apply(self, c, written):
        lo, hi = c.value("min"), c.value("max")
        if isinstance(lo, Tensor) or isinstance(hi, Tensor):
            return GENERIC.apply(c, written)
        return _CLAMP.apply(c, written)


def _clamp(c, result):
    x = c.value("input")
    lo, hi = c.value("min"), c.value("max")
    inside = None
    if lo is not None:
        inside = x >= lo
    if hi is not None:
        inside = (x <= hi) if inside is None else inside & (x <= hi)
    t = _t(c, x)
    return t if inside is None else J.where(inside, t, J.zeros_like(t))


_CLAMP = Derived(_clamp)
rule("clamp", "clip", "clamp_min", "clamp_max", kind=_ClampNumbers())


def _logsumexp(c, result):
    """``sum(t * exp(x - out))`` over the reduced dims."""
    x, dim, keepdim = c.value("input"), c.value("dim"), c.value("keepdim", False)
    out = result
    if not keepdim and x.dim():
        dims = [dim] if isinstance(dim, int) else list(dim)
        for d in sorted(d % x.dim() for d in dims):
            out = out.unsqueeze(d)
    return (_t(c, x) * J.exp(x - out)).sum(dim, keepdim=keepdim)


rule("logsumexp", kind=Derived(_logsumexp))


# ----------------------------------------------------------------------------- by index


class _Indexed(Rule):
    """Ops returning ``(values, indices)`` along ``dim`` (``sort``, ``topk``, ``kthvalue``,
    ``median``/``mode`` with a dim, ``cummax``...): the values' tangent is the input's
    tangent gathered at the indices. Their other forms take the generic rule."""

    def apply(self, c, written):
        x = c.value("input")
        t = _t(c, x)
        if written is not None or t is None or x.dim() == 0:
            return GENERIC.apply(c, written)
        result = c.entry(*c.args, **c.kwargs)
        if not isinstance(result, tuple) or len(result) != 2:
            return attach_outputs(c, result, GENERIC.jvp(c, None))
        values, indices = result
        dim = c.value("dim", -1)
        idx = indices if indices.dim() == x.dim() else indices.unsqueeze(dim)
        tangent = J.gather(t, dim, idx)
        if values.dim() != x.dim():
            tangent = tangent.squeeze(dim)
        return attach_outputs(c, result, (tangent, None))


rule("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", kind=_Indexed())


# ----------------------------------------------------------------------------- zero tangents

# Random fills and in-place comparisons overwrite their input with values that do not
# depend on it: the tangent becomes zero (PyTorch's zeros_like formulas).
rule(
    *"""
    normal_ uniform_ cauchy_ exponential_ geometric_ log_normal_ random_ eq_ ne_ lt_ le_ gt_ ge_
    """.split(),
    kind=Derived(_zero, False),
)

# ----------------------------------------------------------------------------- spectral

# The discrete Fourier transforms are linear (over the reals for the Hermitian ones).
rule(
    *"""
    fft_fft fft_ifft fft_rfft fft_irfft fft_hfft fft_ihfft fft_fft2 fft_ifft2 fft_rfft2
    fft_irfft2 fft_hfft2 fft_ihfft2 fft_fftn fft_ifftn fft_rfftn fft_irfftn fft_hfftn fft_ihfftn
    fft_fftshift fft_ifftshift
    """.split(),
    kind=LINEAR,
)


# ----------------------------------------------------------------------------- generic on purpose

# The differentiable ops that take the generic rule (the double vjp through their reverse
# formula), each group with the reason; ``tests/autograd/test_forward_ad.py`` fails for an
# op that has neither a direct rule nor an entry here. (``nn`` ops run their bodies under
# the level; view ops are linear.)
_GROUPS = {
    "matrix functions and decompositions: their reverse formulas are the adjoints of the "
    "linear maps PyTorch's jvps compute, and the generic rule transposes them back": """
        cholesky cholesky_inverse cholesky_solve det inverse logdet lu lu_solve lu_unpack
        matrix_exp matrix_power orgqr ormqr pinverse qr slogdet svd triangular_solve
        linalg_cholesky linalg_cholesky_ex linalg_det linalg_eig linalg_eigh linalg_eigvals
        linalg_eigvalsh linalg_householder_product linalg_inv linalg_inv_ex linalg_lstsq
        linalg_lu linalg_lu_factor linalg_lu_factor_ex linalg_lu_solve linalg_matrix_exp
        linalg_matrix_power linalg_matrix_norm linalg_norm linalg_pinv linalg_qr linalg_slogdet
        linalg_solve linalg_solve_ex linalg_solve_triangular linalg_svd linalg_svdvals
        linalg_vector_norm
    """.split(),
    "reductions whose reverse formula settles ties, zeros and NaNs as PyTorch does (amax's "
    "even split, prod's zeros, the nan-reductions' masks): the generic rule inherits it": """
        amax amin aminmax prod cumprod var std var_mean std_mean nansum nanmean norm
        frobenius_norm nuclear_norm dist cdist quantile nanquantile msort trapezoid trapz
        cumulative_trapezoid cov corrcoef renorm scatter_reduce vander maximum minimum fmax fmin
    """.split(),
    "element-wise functions outside training's hot path (special functions, two-argument "
    "functions with masks at their poles): one extra element-wise forward and backward": """
        acosh asinh atanh i0 mvlgamma polygamma igamma igammac logit sgn angle nextafter frexp
        copysign ldexp float_power hypot atan2 fmod remainder xlogy logaddexp logaddexp2 lerp
        addcdiv nan_to_num polar special_entr special_erfcx special_i0e special_i1 special_i1e
        special_log_ndtr special_ndtri special_xlog1py special_zeta
    """.split(),
    "random draws: the generic rule replays the generators, so its tangent run draws the "
    "primal's numbers (and bernoulli with a float p keeps PyTorch's refusal)": """
        bernoulli poisson
    """.split(),
    "no derivative at all in PyTorch (a NotImplemented node): the generic rule raises "
    "PyTorch's forward-AD error when it meets the node": """
        floor_divide heaviside histogram bincount
    """.split(),
}
GENERIC_BY_DESIGN = {name: reason for reason, names in _GROUPS.items() for name in names}
