"""Gradient specs of reductions, scans, statistics and scaled products."""

import math

from tests.harness.gradients import G, NonDiff

NAN = float("nan")


def _leaf(lib, values):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _const(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float64)


# Inputs with ties, zeros and NaN (the subgradient conventions).
TIES = [[1.0, 3.0, -1.0], [2.0, 3.0, -1.0]]   # max and min twice each
MEDIAN_TIES = [[1.0, 2.0, 2.0], [0.0, 5.0, 3.0]]  # the lower median twice
ZEROS1 = [[2.0, 0.0, 3.0, 1.5], [1.0, 2.0, -1.5, 4.0]]          # one zero
ZEROS2 = [[2.0, 0.0, 3.0, 0.0], [1.0, 2.0, 0.0, 4.0]]           # two zeros in a row
WITH_NAN = [[1.0, NAN, 2.5, -0.5], [NAN, NAN, 0.5, 1.5]]


def _ties(lib, rng):
    return [_leaf(lib, TIES)]


def _median_ties(lib, rng):
    return [_leaf(lib, MEDIAN_TIES)]


def _zeros1(lib, rng):
    return [_leaf(lib, ZEROS1)]


def _zeros2(lib, rng):
    return [_leaf(lib, ZEROS2)]


def _nan(lib, rng):
    return [_leaf(lib, WITH_NAN)]


def _not_implemented(op_call):
    """PyTorch records histogram/bincount with a ``NotImplemented`` node whose backward
    raises: check that (for both libraries), then hand the harness a plain product so that
    the remaining checks have something differentiable to look at."""
    def fn(lib, a):
        outs = op_call(lib, a)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for o in outs:
            assert o.requires_grad
            assert type(o.grad_fn).__name__ == "NotImplemented", type(o.grad_fn).__name__
        try:
            outs[0].sum().backward()
        except RuntimeError as e:
            assert "not implemented" in str(e)
        else:
            raise AssertionError("backward through a NotImplemented node did not raise")
        return a * 2
    return fn


def _bincount(lib, w):
    return lib.bincount(lib.tensor([0, 2, 2, 1]), weights=w)


def _cov_fweights(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(3, 4))), lib.tensor([1, 2, 0, 3])]


def _cov_aweights(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(2, 4))),
            _leaf(lib, rng.uniform(0.5, 2.0, size=(4,)))]


def _cov_both(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(2, 4))), lib.tensor([1, 2, 1, 3]),
            _leaf(lib, rng.uniform(0.5, 2.0, size=(4,)))]


def _sorted_x(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(3, 4))),
            _leaf(lib, [0.0, 0.5, 1.5, 1.75])]


def _sorted_x_dim0(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(3, 4))), _leaf(lib, [0.0, 0.5, 1.5])]


def _q_tensor(lib, rng):
    return [_leaf(lib, rng.uniform(-2, 2, size=(3, 4))), _const(lib, [0.2, 0.5, 1.0])]


def _renorm_rows(lib, rng):
    # row norms 5, 0.5, 2.5: two rows are scaled down to 1.5, one is kept
    return [_leaf(lib, [[3.0, 4.0, 0.0], [0.3, -0.4, 0.0], [1.5, 0.0, -2.0]])]


# Second-order opt-outs (``no_second``): only where PyTorch's own gradgradcheck fails on
# the same case (tests/autograd/test_gradients.py checks each against PyTorch).
_TIES_2ND = (
    "ties (TIES: the max and the min each reached twice): PyTorch splits the gradient evenly "
    "between tied entries, and moving one by eps breaks the tie, so the gradient jumps "
    "(finite difference ~1/eps); PyTorch's gradgradcheck fails on these points too")
_MEDIAN_TIES_2ND = (
    "ties (MEDIAN_TIES: the lower median reached twice): PyTorch splits the gradient evenly "
    "between the tied entries, and moving one by eps breaks the tie, so the gradient jumps "
    "(finite difference ~1/eps); PyTorch's gradgradcheck fails on these points too")


GRADS = [
    # sums and means
    G("nansum", lambda lib, a: a.nansum(), [(2, 3)]),
    G("nansum", lambda lib, a: a.nansum(1, keepdim=True), [(2, 3)]),
    G("nansum", lambda lib, a: a.nansum((0, 1)), make=_nan),
    G("prod", lambda lib, a: a.prod(), [(2, 3)], low=0.5, high=1.5),
    G("prod", lambda lib, a: a.prod(1), [(2, 3)]),
    G("prod", lambda lib, a: a.prod(0, keepdim=True), [(3, 2)]),
    G("prod", lambda lib, a: a.prod(), make=_zeros1),
    G("prod", lambda lib, a: a.prod(1), make=_zeros2),
    G("prod", lambda lib, a: a.prod(0), make=_zeros2),
    G("prod", lambda lib, a: a.prod(), make=_zeros2),
    G("mean", lambda lib, a: a.mean(), [(2, 3)]),
    G("mean", lambda lib, a: a.mean(1), [(2, 3)]),
    G("mean", lambda lib, a: a.mean((0, 2), keepdim=True), [(2, 3, 2)]),
    G("nanmean", lambda lib, a: a.nanmean(), [(2, 3)]),
    G("nanmean", lambda lib, a: a.nanmean(1, keepdim=True), make=_nan),
    # max / min family
    G("max", lambda lib, a: a.max(), [(2, 3)]),
    G("max", lambda lib, a: a.max(), make=_ties, no_second=_TIES_2ND),
    G("max", lambda lib, a: a.max(1), [(3, 4)]),
    G("max", lambda lib, a: a.max(0, keepdim=True), [(3, 4)]),
    G("max", lambda lib, a, b: lib.max(a, b), [(2, 3), (3,)]),
    G("max", lambda lib, a, b: lib.max(a, other=b), [(2, 3), (3,)]),
    G("min", lambda lib, a, b: a.min(other=b), [(2, 3), (2, 3)]),
    G("min", lambda lib, a: a.min(), [(2, 3)]),
    G("min", lambda lib, a: a.min(), make=_ties, no_second=_TIES_2ND),
    G("min", lambda lib, a: a.min(-1), [(3, 4)]),
    G("min", lambda lib, a, b: lib.min(a, b), [(2, 3), (2, 3)]),
    G("amax", lambda lib, a: a.amax(), make=_ties, no_second=_TIES_2ND),
    G("amax", lambda lib, a: a.amax(1), [(3, 4)]),
    G("amax", lambda lib, a: a.amax((0, 2), keepdim=True), [(2, 3, 2)]),
    G("amin", lambda lib, a: a.amin(0), make=_ties, no_second=_TIES_2ND),
    G("amin", lambda lib, a: a.amin(-1, keepdim=True), [(3, 4)]),
    G("aminmax", lambda lib, a: a.aminmax(), make=_ties, no_second=_TIES_2ND),
    G("aminmax", lambda lib, a: a.aminmax(dim=1), [(3, 4)]),
    G("aminmax", lambda lib, a: a.aminmax(dim=0, keepdim=True), [(3, 4)]),
    NonDiff("argmax", "integer indices"),
    NonDiff("argmin", "integer indices"),
    NonDiff("all", "bool result"),
    NonDiff("any", "bool result"),
    NonDiff("count_nonzero", "integer result"),
    # var / std
    G("var", lambda lib, a: a.var(), [(2, 3)]),
    G("var", lambda lib, a: a.var(1), [(3, 4)]),
    G("var", lambda lib, a: a.var(0, correction=0, keepdim=True), [(3, 4)]),
    G("var", lambda lib, a: a.var((0, 1), unbiased=False), [(2, 3, 2)]),
    G("std", lambda lib, a: a.std(), [(2, 3)]),
    G("std", lambda lib, a: a.std(1, keepdim=True), [(3, 4)]),
    G("std", lambda lib, a: a.std(0, correction=2), [(4, 3)]),
    G("var_mean", lambda lib, a: lib.var_mean(a), [(2, 3)]),
    G("var_mean", lambda lib, a: lib.var_mean(a, 1, keepdim=True), [(3, 4)]),
    G("var_mean", lambda lib, a: lib.var_mean(a, 0)[0], [(3, 4)]),
    G("std_mean", lambda lib, a: lib.std_mean(a), [(2, 3)]),
    G("std_mean", lambda lib, a: lib.std_mean(a, 1, correction=0), [(3, 4)]),
    G("std_mean", lambda lib, a: lib.std_mean(a, 1)[1], [(3, 4)]),
    # norms
    G("norm", lambda lib, a: a.norm(), [(2, 3)]),
    G("norm", lambda lib, a: a.norm(dim=1, keepdim=True), [(3, 4)]),
    G("norm", lambda lib, a: a.norm(1), [(2, 3)]),
    G("norm", lambda lib, a: a.norm(3, dim=0), [(3, 4)]),
    G("norm", lambda lib, a: a.norm(1.5, dim=(0, 1)), [(3, 4)]),
    G("norm", lambda lib, a: a.norm(0.5), [(2, 3)]),
    G("norm", lambda lib, a: a.norm(math.inf, dim=1), [(3, 4)]),
    G("norm", lambda lib, a: a.norm(-math.inf), [(3, 4)]),
    G("norm", lambda lib, a: a.norm("fro", dim=(0, 1)), [(3, 4)]),
    G("norm", lambda lib, a: a.norm("nuc"), [(3, 4)]),
    G("norm", lambda lib, a: a.norm("nuc", dim=(0, 2), keepdim=True), [(2, 2, 3)]),
    G("norm", lambda lib, a: a.norm(0) + a.sum(), [(2, 3)]),
    G("dist", lambda lib, a, b: lib.dist(a, b), [(2, 3), (3,)]),
    G("dist", lambda lib, a, b: lib.dist(a, b, 1), [(2, 3), (2, 3)]),
    G("dist", lambda lib, a, b: lib.dist(a, b, 3), [(2, 3), (2, 3)]),
    G("dist", lambda lib, a, b: lib.dist(a, b, math.inf), [(2, 3), (2, 3)]),
    G("renorm", lambda lib, a: a.renorm(2, 0, 1.5), make=_renorm_rows),
    G("renorm", lambda lib, a: a.renorm(1, 1, 2.0), [(3, 4)]),
    G("renorm", lambda lib, a: a.renorm(3, 0, 1.0), [(3, 4)]),
    G("renorm_", lambda lib, a: a.clone().renorm_(2, 0, 1.5), make=_renorm_rows),
    G("logsumexp", lambda lib, a: a.logsumexp(1), [(3, 4)]),
    G("logsumexp", lambda lib, a: a.logsumexp((0, 1), keepdim=True), [(3, 4)]),
    NonDiff("histc", "piecewise-constant counts; PyTorch records no history"),
    NonDiff("searchsorted", "integer indices"),
    NonDiff("bucketize", "integer indices"),
    NonDiff("isin", "bool result"),
    G("histogram", _not_implemented(lambda lib, a: lib.histogram(a, 3)), [(5,)],
      variants=False),
    G("bincount", _not_implemented(_bincount), [(4,)], variants=False),
    # scans
    G("cumsum", lambda lib, a: a.cumsum(1), [(3, 4)]),
    G("cumsum", lambda lib, a: a.cumsum(0), [(3, 4)]),
    G("cumprod", lambda lib, a: a.cumprod(1), [(3, 4)]),
    G("cumprod", lambda lib, a: a.cumprod(0), [(3, 2)]),
    G("cumprod", lambda lib, a: a.cumprod(1), make=_zeros1),
    G("cumprod", lambda lib, a: a.cumprod(1), make=_zeros2),
    G("cumprod", lambda lib, a: a.cumprod(0), make=_zeros2),
    G("cummax", lambda lib, a: a.cummax(1), [(3, 4)]),
    G("cummin", lambda lib, a: a.cummin(0), [(3, 4)]),
    G("logcumsumexp", lambda lib, a: a.logcumsumexp(1), [(3, 4)]),
    G("logcumsumexp", lambda lib, a: a.logcumsumexp(0), [(3, 2)]),
    # order statistics
    G("median", lambda lib, a: a.median(), [(3, 4)]),
    G("median", lambda lib, a: a.median(), make=_median_ties, no_second=_MEDIAN_TIES_2ND),
    G("median", lambda lib, a: a.median(1), [(3, 4)]),
    G("median", lambda lib, a: a.median(0, keepdim=True), [(3, 4)]),
    G("nanmedian", lambda lib, a: a.nanmedian(), [(3, 4)]),
    G("nanmedian", lambda lib, a: a.nanmedian(), make=_nan),
    G("nanmedian", lambda lib, a: a.nanmedian(1), make=_nan),
    G("quantile", lambda lib, a: a.quantile(0.3), [(3, 4)]),
    G("quantile", lambda lib, a: a.quantile(0.5, dim=1, keepdim=True), [(3, 4)]),
    G("quantile", lambda lib, a, q: a.quantile(q, dim=0), make=_q_tensor),
    G("quantile", lambda lib, a: a.quantile(0.4, dim=1, interpolation="lower"), [(3, 4)]),
    G("quantile", lambda lib, a: a.quantile(0.4, dim=0, interpolation="higher"), [(3, 4)]),
    G("quantile", lambda lib, a: a.quantile(0.4, interpolation="nearest"), [(3, 4)]),
    G("quantile", lambda lib, a: a.quantile(0.3, dim=1, interpolation="midpoint"),
      [(3, 4)]),
    G("nanquantile", lambda lib, a: a.nanquantile(0.3), [(3, 4)]),
    G("nanquantile", lambda lib, a: a.nanquantile(0.6, dim=1), make=_nan),
    G("nanquantile", lambda lib, a: a.nanquantile(0.25, dim=1, interpolation="midpoint"),
      make=_nan),
    G("mode", lambda lib, a: a.mode(), [(3, 4)]),
    G("mode", lambda lib, a: a.mode(0, keepdim=True), [(3, 4)]),
    # integrals
    G("trapezoid", lambda lib, a: lib.trapezoid(a), [(3, 4)]),
    G("trapezoid", lambda lib, a: lib.trapezoid(a, dx=0.5, dim=0), [(3, 4)]),
    G("trapezoid", lambda lib, a, x: lib.trapezoid(a, x), make=_sorted_x),
    G("trapezoid", lambda lib, a, x: lib.trapezoid(a, x, dim=0), make=_sorted_x_dim0),
    G("trapezoid", lambda lib, a, x: lib.trapezoid(a, x), [(3, 4), (3, 4)]),
    G("trapz", lambda lib, a: lib.trapz(a), [(3, 4)]),
    G("trapz", lambda lib, a, x: lib.trapz(a, x), make=_sorted_x),
    G("cumulative_trapezoid", lambda lib, a: lib.cumulative_trapezoid(a), [(3, 4)]),
    G("cumulative_trapezoid", lambda lib, a: lib.cumulative_trapezoid(a, dx=2.0, dim=0),
      [(3, 4)]),
    G("cumulative_trapezoid", lambda lib, a, x: lib.cumulative_trapezoid(a, x),
      make=_sorted_x),
    G("cumulative_trapezoid", lambda lib, a, x: lib.cumulative_trapezoid(a, x),
      [(3, 4), (3, 4)]),
    # covariance
    G("cov", lambda lib, a: lib.cov(a), [(3, 4)]),
    G("cov", lambda lib, a: lib.cov(a, correction=0), [(2, 5)]),
    G("cov", lambda lib, a: lib.cov(a), [(5,)]),
    G("cov", lambda lib, a, fw: lib.cov(a, fweights=fw), make=_cov_fweights),
    G("cov", lambda lib, a, aw: lib.cov(a, aweights=aw), make=_cov_aweights),
    G("cov", lambda lib, a, fw, aw: lib.cov(a, fweights=fw, aweights=aw), make=_cov_both),
    G("cov", lambda lib, a, aw: lib.cov(a, correction=0, aweights=aw), make=_cov_aweights),
    G("corrcoef", lambda lib, a: lib.corrcoef(a), [(3, 4)]),
    # (an expanded 1-D input has zero variance: c / c is NaN there, in PyTorch too)
    G("corrcoef", lambda lib, a: lib.corrcoef(a), [(5,)], variants=False),
    # scaled products
    G("addmv", lambda lib, b, m, v: lib.addmv(b, m, v), [(3,), (3, 4), (4,)]),
    G("addmv", lambda lib, b, m, v: lib.addmv(b, m, v, beta=0.5, alpha=2), [(1,), (3, 4),
                                                                             (4,)]),
    G("addmv", lambda lib, b, m, v: lib.addmv(b, m, v, beta=0), [(3,), (3, 4), (4,)]),
    G("addmv_", lambda lib, b, m, v: b.clone().addmv_(m, v, alpha=3), [(3,), (3, 4), (4,)],
      variants=False),
    G("addbmm", lambda lib, c, x, y: lib.addbmm(c, x, y), [(2, 3), (2, 2, 2), (2, 2, 3)]),
    G("addbmm", lambda lib, c, x, y: lib.addbmm(c, x, y, beta=2, alpha=0.5),
      [(3,), (2, 2, 2), (2, 2, 3)]),
    G("addbmm_", lambda lib, c, x, y: c.clone().addbmm_(x, y, beta=0.5),
      [(2, 3), (2, 2, 2), (2, 2, 3)], variants=False),
    G("addr", lambda lib, c, x, y: lib.addr(c, x, y), [(2, 3), (2,), (3,)]),
    G("addr", lambda lib, c, x, y: lib.addr(c, x, y, beta=3, alpha=-1), [(3,), (2,), (3,)]),
    G("addr_", lambda lib, c, x, y: c.clone().addr_(x, y, alpha=2), [(2, 3), (2,), (3,)],
      variants=False),
    # softmax
    G("softmax", lambda lib, a: a.softmax(1), [(3, 4)]),
    G("softmax", lambda lib, a: lib.softmax(a, 0), [(3, 4)]),
    G("log_softmax", lambda lib, a: a.log_softmax(1), [(3, 4)]),
    G("log_softmax", lambda lib, a: lib.log_softmax(a, -2), [(3, 4)]),
    # differences and products
    G("diff", lambda lib, a: a.diff(), [(3, 4)]),
    G("diff", lambda lib, a: a.diff(n=2, dim=0), [(4, 3)]),
    G("diff", lambda lib, a, p, q: a.diff(dim=0, prepend=p, append=q),
      [(2, 3), (1, 3), (2, 3)]),
    G("diff", lambda lib, a, q: a.diff(n=3, append=q), [(2, 3), (2, 2)]),
    G("cross", lambda lib, a, b: lib.cross(a, b, dim=1), [(2, 3), (2, 3)]),
    G("cross", lambda lib, a, b: lib.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    G("cdist", lambda lib, a, b: lib.cdist(a, b), [(3, 2), (4, 2)]),
    # p=1 and p=inf: a double backward raises in PyTorch ("the derivative for
    # '_cdist_backward' is not implemented"); jtensor's is checked.
    G("cdist", lambda lib, a, b: lib.cdist(a, b, p=1), [(3, 2), (4, 2)]),
    G("cdist", lambda lib, a, b: lib.cdist(a, b, p=3), [(2, 3, 2), (3, 2)]),
    G("cdist", lambda lib, a, b: lib.cdist(a, b, p=1.5), [(3, 2), (2, 2)]),
    G("cdist", lambda lib, a, b: lib.cdist(a, b, p=math.inf), [(3, 2), (2, 2)]),
    G("cdist", lambda lib, a, b: lib.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
      [(3, 2), (2, 2)]),
    G("inner", lambda lib, a, b: lib.inner(a, b), [(2, 3), (4, 3)]),
    G("inner", lambda lib, a, b: lib.inner(a, b), [(3,), (3,)]),
    G("inner", lambda lib, a, b: lib.inner(a, b), [(2, 1, 3), (2, 3)]),
    G("inner", lambda lib, a, b: lib.inner(a, b), [(2, 3), ()]),
    G("chain_matmul", lambda lib, a, b, c: lib.chain_matmul(a, b, c), [(2, 3), (3, 2), (2, 2)]),
    G("chain_matmul", lambda lib, a, b: lib.chain_matmul(a, b), [(2, 3), (3, 2)]),
    G("chain_matmul", lambda lib, a: lib.chain_matmul(a), [(2, 3)]),
]
