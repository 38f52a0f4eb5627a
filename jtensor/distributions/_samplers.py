"""The samplers PyTorch's distributions call that jtensor's core lacks: ``_standard_gamma``,
``_sample_dirichlet`` and ``binomial``, with the reparameterised gradients of the first two.

They are ATen's CPU kernels, element by element in the order the kernel visits them (memory
order of a contiguous result), drawing from the generator's mt19937 engine the double
uniforms (``random64()``, 53 bits) and the double normals (Box-Muller with the cached second
value) ATen draws. So with the same seed they return PyTorch's samples:

- gamma: Marsaglia and Tsang's acceptance-rejection method (doi:10.1145/358407.358414), with
  the boost ``Gamma(a) = Gamma(a + 1) * U**(1/a)`` for ``a < 1``;
- Dirichlet: a double gamma draw per entry, normalised along the last dimension, clamped into
  ``[tiny, 1)`` of the dtype;
- binomial: inversion (sums of geometric waiting times) when ``n * min(p, 1-p) < 10``,
  otherwise Hormann's BTRS transformed rejection.

The arithmetic keeps ATen's types: where the C++ computes in the tensor's ``scalar_t``
(``float`` for float32 inputs), the value is rounded to float32 here too. The gradients are
ATen's approximations of the implicit reparameterisation gradient ``-(dF/dalpha) / f``
(Taylor series for small x, Rice saddle point expansions for large parameters, rational
fits elsewhere); they are tested against PyTorch's values and statistically in
``tests/distributions``.
"""

import math

import numpy as np

from .._api import ops as J
from .._mt19937 import unit_float
from ..autograd.function import Function, once_differentiable
from ..random import _rng

__all__ = [
    "binomial",
    "dirichlet_grad",
    "sample_dirichlet",
    "standard_gamma",
    "standard_gamma_grad",
]

_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # ATen's ``1.0f / 3.0f``
_C0331_F = float(np.float32(0.0331))  # ATen's ``0.0331f``


def _pow(a, b):
    try:
        return math.pow(a, b)
    except OverflowError:
        return math.inf
    except ValueError:  # C's pow gives NaN for a negative base and a fractional power
        return math.nan


def _log(x):
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


class _Draws:
    """ATen's ``standard_uniform`` and ``standard_normal`` samplers on one engine.

    The raw ``random64()`` values are read from the engine in blocks (one NumPy call, not
    one per draw); ``finish()`` then puts the engine exactly where ATen's would be: the
    state before the first block advanced by the values used, and the cached second
    Box-Muller value. The normal is ``normal_distribution<double>``'s scalar path, with
    libm's ``log1p``/``sin``/``cos`` as ATen's."""

    def __init__(self, generator, device, expected):
        self.engine = _rng(generator, device)
        self._state = self.engine._bitgen.state
        self._fresh = self.engine._fresh
        self._cached = self.engine.next_double
        self._block = max(64, expected)
        self._values = []
        self._pos = 0
        self._used = 0

    def uniform(self):
        if self._pos == len(self._values):
            raw = self.engine.random64(self._block)
            self._values = unit_float(raw, 53, np.float64).tolist()
            self._pos = 0
            self._block *= 2
        value = self._values[self._pos]
        self._pos += 1
        self._used += 1
        return value

    def normal(self):
        if self._cached is not None:
            value, self._cached = self._cached, None
            return value
        u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._cached = r * math.sin(theta)
        return r * math.cos(theta)

    def finish(self):
        """Leave the engine as if exactly the draws used had been made one by one."""
        engine = self.engine
        engine._bitgen.state = self._state
        engine._fresh = self._fresh
        if self._used:
            engine.random64(self._used)
        engine.next_double = self._cached


def _scalar_type(dtype):
    """The NumPy type of the kernel's ``scalar_t`` for a floating dtype."""
    return np.float32 if dtype.itemsize == 4 else (np.float64 if dtype.itemsize == 8 else None)


def _gamma_one(alpha, st, draws):
    """One ``sample_gamma<scalar_t, double>`` draw; ``st`` is scalar_t's NumPy type."""
    scale = 1.0
    alpha = st(alpha)
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        scale *= _pow(1.0 - draws.uniform(), float(st(1.0) / alpha))
        alpha = st(alpha + st(1.0))
    # ``alpha - 1.0f / 3.0f`` is evaluated in scalar_t with the float constant.
    d = float(st(alpha - st(_THIRD_F)))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = draws.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - draws.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def _host(t):
    return np.array(t.detach()._host_array(), order="C")  # keeps 0-d shapes


def _to_tensor(values, like):
    return J.as_tensor(values, dtype=like.dtype, device=like.device)


def standard_gamma(concentration, generator=None):
    """``torch._standard_gamma``: Gamma(concentration, 1) draws, PyTorch's values for the
    same seed (no gradient: see ``_StandardGamma``)."""
    st = _scalar_type(concentration.dtype)
    alphas = _host(concentration).reshape(-1).astype(st)
    draws = _Draws(generator, concentration.device, 3 * alphas.size)
    tiny = float(np.finfo(st).tiny)
    try:
        out = np.array(
            [max(tiny, float(st(_gamma_one(a, st, draws)))) for a in alphas.tolist()], dtype=st
        )
    finally:
        draws.finish()
    return _to_tensor(out.reshape(tuple(concentration.shape)), concentration)


def sample_dirichlet(concentration, generator=None):
    """``torch._sample_dirichlet``: double gamma draws per entry (the concentration cast to
    double), divided by their sum over the last dimension and clamped into ``[tiny, 1)``."""
    st = _scalar_type(concentration.dtype)
    alphas = _host(concentration).astype(st)
    draws = _Draws(generator, concentration.device, 3 * alphas.size)
    dmin = float(np.finfo(np.float64).tiny)
    try:
        gammas = np.array(
            [max(dmin, _gamma_one(float(a), float, draws)) for a in alphas.reshape(-1).tolist()],
            dtype=np.float64,
        ).reshape(alphas.shape)
    finally:
        draws.finish()
    ratios = (gammas / gammas.sum(-1, keepdims=True)).astype(st)
    top = np.nextafter(st(1.0), st(0.0))
    ratios = np.minimum(top, np.maximum(np.finfo(st).tiny, ratios))
    return _to_tensor(ratios, concentration)


# ---------------------------------------------------------------------- binomial
_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k):
    """log(k!) minus its Stirling approximation: a table below 10, the series above."""
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, st, draws):
    geom_sum = 0.0
    num_geom = st(0)
    logprob = float(st(np.log1p(st(-prob))))
    while True:
        geom = math.ceil(_log(draws.uniform()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom = st(num_geom + 1)


def _btrs(count, prob, st, draws):
    count, prob = st(count), st(prob)
    stddev = float(np.sqrt(st(count * prob * (st(1) - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count) * float(prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob) / float(st(1) - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((float(count) + 1) * float(prob))
    n = float(count)
    while True:
        u = draws.uniform() - 0.5
        v = draws.uniform()
        us = 0.5 - abs(u)
        k = float(st(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        upperbound = (
            (m + 0.5) * _log((m + 1) / (r * (n - m + 1)))
            + (n + 1) * _log((n - m + 1) / (n - k + 1))
            + (k + 0.5) * _log(r * (n - k + 1) / (k + 1))
            + _stirling_tail(m)
            + _stirling_tail(n - m)
            - _stirling_tail(k)
            - _stirling_tail(n - k)
        )
        if v <= upperbound:
            return k


def _binomial_one(count, prob, st, draws):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return float(count)
    if prob <= 0.5:
        if float(st(count * prob)) >= 10.0:
            return _btrs(count, prob, st, draws)
        return float(_binomial_inversion(count, prob, st, draws))
    if prob > 0.5:
        q = st(st(1.0) - prob)
        if float(st(count * q)) >= 10.0:
            return float(st(count - st(_btrs(count, q, st, draws))))
        return float(st(count - _binomial_inversion(count, q, st, draws)))
    return math.nan


def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob)``: Binomial(count, prob) draws of ``count``'s shape and
    dtype, PyTorch's values for the same seed."""
    st = _scalar_type(count.dtype)
    counts = _host(count).reshape(-1).astype(st)
    probs = _host(prob).reshape(-1).astype(st)
    draws = _Draws(generator, count.device, 2 * counts.size)
    try:
        out = np.array(
            [_binomial_one(n, p, st, draws) for n, p in zip(counts, probs, strict=True)],
            dtype=st,
        )
    finally:
        draws.finish()
    return _to_tensor(out.reshape(tuple(count.shape)), count)


# ---------------------------------------------------------------------- gradients
_PSI_10 = 2.25175258906672110764
_DIGAMMA_COEF = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)


def _digamma(x):
    """Cephes' digamma (ATen's ``digamma_one``), in double."""
    if x == 0:
        return math.inf
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        extra = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + _PSI_10 + extra
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        poly = 0.0
        for coef in _DIGAMMA_COEF:
            poly = poly * z + coef
        y = z * poly
    return result + math.log(x) - (0.5 / x) - y + extra


_GAMMA_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
)  # fmt: skip


def _gamma_grad_one(alpha, x):
    """d(sample)/d(alpha) of a standard gamma sample ``x``: ``-(dF/dalpha)(x) / f(x)``."""
    if x < 0.8:
        # Taylor series of the incomplete gamma function around 0.
        numer, denom = 1.0, alpha
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = _pow(x, alpha)
        gamma_pdf = _pow(x, alpha - 1) * _exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (_log(x) - _digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
        try:
            result = -gamma_cdf_alpha / gamma_pdf
        except ZeroDivisionError:
            result = math.nan
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        # Rice's saddle point expansion for large alpha.
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (
                1440 * (alpha * alpha)
                + 6 * x * (53 - 120 * x)
                - 65 * x * x / alpha
                + alpha * (107 + 3600 * x)
            )
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = _pow(x - alpha - alpha * _log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = _log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / (
            (alpha - x) * (alpha - x)
        )
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    # A bivariate rational fit in log(x / alpha) and log(alpha).
    u = _log(x / alpha)
    v = _log(alpha)
    coef = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return _exp(p / q)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - _log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    result = x * _pow(1 - x, -beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    result = -_pow(1 - x, 1 - beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        # Near the mean the general expansion is singular: a polynomial instead.
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta
            + alpha
            * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta)
                + alpha
                * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta
                    + alpha * (8 * (1 - x) * (135 * beta - 11))
                )
            )
        )
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * _log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)  # fmt: skip


def _dirichlet_grad_one(x, alpha, total):
    """The scaled implicit gradient ``-(dF/dalpha) / f / (1 - x)`` of a Beta(alpha,
    total - alpha) sample ``x`` (the Dirichlet marginal)."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    # A rational correction to an analytic approximation.
    u = _log(x)
    a = _log(alpha) - u
    b = _log(total) - a
    pow_u = (1.0, u, u * u)
    pow_a = (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (_digamma(total) - _digamma(alpha)) / beta
    return p / q * approx


def _elementwise(fn, like, *tensors):
    arrays = np.broadcast_arrays(*(_host(t).astype(np.float64) for t in tensors))
    flat = [a.reshape(-1).tolist() for a in arrays]
    out = np.array([fn(*args) for args in zip(*flat, strict=True)], dtype=np.float64)
    return _to_tensor(out.reshape(arrays[0].shape).astype(like.dtype.numpy), like)


def standard_gamma_grad(alpha, x):
    """``torch._standard_gamma_grad(alpha, x)``: d(sample)/d(alpha) per element."""
    return _elementwise(_gamma_grad_one, x, alpha, x)


def dirichlet_grad(x, alpha, total):
    """``torch._dirichlet_grad(x, alpha, total)``: the scaled Beta implicit gradient."""
    return _elementwise(_dirichlet_grad_one, x, x, alpha, total)


class _StandardGamma(Function):
    """Standard gamma draws whose gradient w.r.t. the concentration is the implicit
    reparameterisation gradient (PyTorch's ``_standard_gamma`` derivative)."""

    @staticmethod
    def forward(ctx, concentration):
        x = standard_gamma(concentration)
        ctx.save_for_backward(concentration, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        concentration, x = ctx.saved_tensors
        return grad_output * standard_gamma_grad(concentration, x)


class _Dirichlet(Function):
    """Dirichlet draws with the implicit reparameterisation gradient of PyTorch's
    ``_Dirichlet``: per entry the Beta marginal's gradient, projected to the simplex."""

    @staticmethod
    def forward(ctx, concentration):
        x = sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))
