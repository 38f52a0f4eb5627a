"""PyTorch's CPU random engine and its samplers, draw for draw, in vectorised NumPy.

PyTorch's CPU generator (ATen's ``CPUGeneratorImpl``) is a standard 32-bit Mersenne Twister
(mt19937) seeded with ``init_genrand(seed & 0xffffffff)``; ``random64()`` is two 32-bit draws,
the first one the high word. NumPy's ``MT19937`` bit generator is the same engine: its state
(``key``, ``pos``) is set to ATen's (``state``, ``next``/``left``) and its raw outputs are ATen's
``random()`` values, so every sampler here is ATen's transform applied to a block of raw draws.

The samplers return host arrays in the order ATen's kernels write elements (memory order of a
contiguous tensor). Transcendental functions are computed where ATen computes them: the
vectorised normal path of float32 (and half types) reproduces the AVX2 ``log256_ps`` /
``sincos256_ps`` of ``avx_mathfun.h`` operation by operation, with the fused multiply-adds the
compiler makes; the double paths call the C library through Python's ``math`` module (NumPy's
own SIMD ``log`` differs from glibc's in the last bit now and then).
"""

import math
import struct

import numpy as np

N = 624
# torch.Generator()'s seed (c10's default_rng_seed_val).
DEFAULT_SEED = 67280421310721
_MASK64 = (1 << 64) - 1
STATE_BYTES = 5056
_TWO_PI = 2.0 * math.pi
_F32 = np.float32
_F64 = np.float64
_I32 = np.int32


# Constants of the samplers' NumPy calls are read-only 0-d arrays: NumPy converts a scalar
# operand on every call (about 0.3 us, as much as the operation itself on a block of 16
# draws), and an array keeps its dtype (a float32 constant stays float32 beside a float32
# array, a float64 one makes the operation double).
def _k(value, dtype):
    out = np.array(value, dtype=dtype)
    out.flags.writeable = False
    return out


# Up to these counts the bit generator's ``random_raw`` (one C call) beats
# ``Generator.integers`` (whose argument handling costs more than 8192 draws' narrowing).
_RAW32_MAX = 8192
_RAW64_MAX = 1024
_K_U32 = _k(32, np.uint64)


def seeded_key(seed):
    """mt19937's ``init_genrand``: the 624 words of the state for ``seed`` (low 32 bits)."""
    key = np.empty(N, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for j in range(1, N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


def seed_state(bitgen, seed):
    """Give NumPy's ``MT19937`` bit generator ``bitgen`` the state ``init_genrand(seed &
    0xffffffff)`` makes (position 624: the next draw twists first). NumPy's own C seeding
    (``_legacy_seeding``, ``RandomState``'s for an int seed) is that function, 120 times
    faster than the loop of ``seeded_key`` (150 us: a DataLoader seeds a generator per
    epoch); where it is missing the loop's words are set instead."""
    legacy = getattr(bitgen, "_legacy_seeding", None)
    if legacy is not None:
        legacy(seed & 0xFFFFFFFF)
        return
    bitgen.state = {"bit_generator": "MT19937", "state": {"key": seeded_key(seed), "pos": N}}


class Engine:
    """One CPU generator's state: the mt19937 words, the seed and the two cached normals
    (``next_double``/``next_float``: the second Box-Muller value of the scalar normal path)."""

    __slots__ = ("_bitgen", "_gen", "seed", "next_double", "next_float", "_fresh")

    def __init__(self, seed=DEFAULT_SEED):
        self._bitgen = np.random.MT19937(0)
        # Full-range integers are the raw outputs: uint32 one draw each, uint64 two draws
        # with the first in the high word (ATen's random64), made without a uint64 detour.
        self._gen = np.random.Generator(self._bitgen)
        self.manual_seed(seed)

    def manual_seed(self, seed):
        """ATen's ``set_current_seed``: a fresh engine, both normal caches cleared."""
        self.seed = seed & _MASK64
        self.next_double = None
        self.next_float = None
        seed_state(self._bitgen, self.seed)
        # ATen's freshly seeded engine reads (left=1, next=0); after a full block of 624
        # draws it reads (left=1, next=624). NumPy's pos is 624 in both cases.
        self._fresh = True

    def random32(self, n):
        """``n`` successive ``random()`` values (uint32)."""
        if n <= 0:
            return np.empty(0, dtype=np.uint32)
        self._fresh = False
        if n <= _RAW32_MAX:
            # The bit generator's own raw outputs (uint64 holding the 32-bit draws): no
            # argument processing (``integers`` spends 3 us on it), a cheap narrowing copy.
            return self._bitgen.random_raw(n).astype(np.uint32)
        return self._gen.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def random64(self, n):
        """``n`` successive ``random64()`` values (uint64: first draw high, second low)."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        self._fresh = False
        if n <= _RAW64_MAX:
            pairs = self._bitgen.random_raw(2 * n).reshape(n, 2)
            out = pairs[:, 0] << _K_U32
            out |= pairs[:, 1]
            return out
        return self._gen.integers(0, 1 << 64, size=n, dtype=np.uint64)

    def copy(self):
        other = Engine.__new__(Engine)
        other._bitgen = np.random.MT19937(0)
        other._bitgen.state = self._bitgen.state
        other._gen = np.random.Generator(other._bitgen)
        other.seed = self.seed
        other.next_double = self.next_double
        other.next_float = self.next_float
        other._fresh = self._fresh
        return other

    # ------------------------------------------------------------------ state bytes
    def state_bytes(self):
        """ATen's ``CPUGeneratorImplState`` (5056 bytes, little-endian, zero padding)."""
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        if pos >= N:
            left, nxt = 1, (0 if self._fresh else N)
        else:
            left, nxt = N - pos + 1, pos
        key = np.asarray(st["key"], dtype=np.uint64).astype("<u8")
        head = struct.pack("<QiiQ", self.seed, left, 1, nxt)
        tail = struct.pack(
            "<dddi4xf?3x",
            0.0,
            0.0 if self.next_double is None else self.next_double,
            0.0,
            int(self.next_double is not None),
            0.0 if self.next_float is None else self.next_float,
            self.next_float is not None,
        )
        raw = head + key.tobytes() + tail
        assert len(raw) == STATE_BYTES
        return raw

    def load_state_bytes(self, raw):
        """Restore from ``state_bytes()`` (or PyTorch's ``get_rng_state()``); ValueError when
        the state is not a valid mt19937 state."""
        if len(raw) != STATE_BYTES:
            raise ValueError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found "
                f"the input RNG state size to be {len(raw)}"
            )
        seed, left, seeded, nxt = struct.unpack_from("<QiiQ", raw, 0)
        words = np.frombuffer(raw, dtype="<u8", count=N, offset=24).astype(np.uint32)
        _, normal_y, _, normal_valid, next_float, float_valid = struct.unpack_from(
            "<dddi4xf?", raw, 24 + 8 * N
        )
        nxt32 = nxt & 0xFFFFFFFF
        if not (seeded and 0 < left <= N and nxt32 <= N):
            raise ValueError("Invalid mt19937 state")
        if left == 1:
            pos = N
        else:
            pos = N - left + 1
            if pos != nxt32:
                # ATen would read words next.. until left runs out; NumPy reads pos.. to the
                # end: the two agree only when left + next == 625 (every state ATen makes).
                raise ValueError("Invalid mt19937 state (left + next != 625 is not supported)")
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": pos}}
        self._fresh = left == 1 and nxt32 == 0
        self.seed = seed
        self.next_double = normal_y if normal_valid else None
        self.next_float = float(next_float) if float_valid else None


# ---------------------------------------------------------------------- uniform
_UNIT = {
    (24, _F32): (_k(0xFFFFFF, np.uint32), _k(2.0**-24, _F32)),
    (53, _F64): (_k((1 << 53) - 1, np.uint64), _k(2.0**-53, _F64)),
}


def unit_float(raw, digits, acc):
    """``uniform_real``'s [0, 1) value: the low ``digits`` bits times 2**-digits, in ``acc``."""
    consts = _UNIT.get((digits, acc))
    if consts is None:
        consts = (np.array((1 << digits) - 1, raw.dtype), np.array(2.0**-digits, acc))
    np.bitwise_and(raw, consts[0], out=raw)
    # The masked values are non-negative signed integers: NumPy's vectorised int -> float
    # casts are far faster than its unsigned ones. The scaling by a power of two is exact.
    signed = np.int32 if raw.dtype.itemsize == 4 else np.int64
    out = raw.view(signed).astype(acc)
    out *= consts[1]
    return out


def uniform(engine, n, np_dtype, low=0.0, high=1.0):
    """``uniform_(low, high)`` of ``n`` elements of ``np_dtype`` (float16/bfloat16/32/64).

    Double draws ``random64()`` per element (53 bits), the others ``random()`` (24 bits: the
    half types sample in float); the value is computed in that accumulation type as
    ``x * (high - low) + low`` (fused, as compiled) and a value that rounds to ``high`` is
    replaced with ``low``.
    """
    if np_dtype == np.float64:
        x = unit_float(engine.random64(n), 53, _F64)
        lo, hi = float(low), float(high)
        if lo == 0.0 and hi == 1.0:
            return x
        v = _fma64(x, hi - lo, lo)
        return np.where(v == hi, lo, v)
    raw = engine.random32(n)
    lo, hi = _F32(low), _F32(high)
    if lo == 0 and hi == 1:
        v = unit_float(raw, 24, _F32)
        if np_dtype == np.float32:
            return v  # below 1 - 2**-24: never rounds to ``high``
        top = v.dtype.type(1.0 - 2.0**-24)
    else:
        # x * (hi - lo) + lo rounded once (float32 products of 24-bit values are exact in
        # double), as an FMA; with x = k * 2**-24 the product is k * ((hi - lo) * 2**-24),
        # the same number, straight from the integer k.
        scale = float(hi - lo) * 2.0**-24
        np.bitwise_and(raw, _UNIT[24, _F32][0], out=raw)
        t = raw.view(_I32).astype(_F64)
        t *= np.array(scale, _F64)
        t += np.array(lo, _F64)
        v = t.astype(_F32)
        # The largest value a draw can give (k = 2**24 - 1), computed the same way (Python
        # floats are doubles); None when the values do not grow with k.
        top = 16777215.0 * scale + float(lo) if scale >= 0 else None
    to_s = np.asarray(high).astype(np_dtype)
    if np_dtype != np.float32:
        v = v.astype(np_dtype)
    # v never decreases with k (each rounding is monotonic): when the largest value stays
    # below ``high`` no value reaches it and the replacement would change nothing.
    if top is not None and np.asarray(top).astype(_F32).astype(np_dtype) < to_s:
        return v
    return np.where(v == to_s, np.asarray(low).astype(np_dtype), v)


def bernoulli_scalar(engine, n, p):
    """``u < p`` for ``n`` double uniforms ``u`` (bool): with ``u = k * 2**-53`` that is
    ``k < ceil(p * 2**53)`` (``p * 2**53`` is exact), compared on the integers."""
    raw = engine.random64(n)
    np.bitwise_and(raw, _UNIT[53, _F64][0], out=raw)
    return raw < np.array(math.ceil(float(p) * 2.0**53), dtype=np.uint64)


def _two_sum(x, y):
    """``x + y`` rounded, and its exact error (Knuth's two-sum: no overflow assumed)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


# Dekker's split point (2**27 + 1), and the magnitudes outside which the emulation below is
# not proved exact: a factor whose split may overflow, a product whose error may underflow.
_SPLIT = 134217729.0
_SPLIT_MAX = 2.0**995
_PRODUCT_MIN = 2.0**-968


def _split(x):
    """Dekker's split of ``x`` into a high half and a low half, each exact in 26 bits."""
    t = x * _SPLIT
    hi = t - (t - x)
    return hi, x - hi


def _round_to_odd(v, v_err):
    """``v + v_err`` (``v`` the rounded sum, ``v_err`` its exact error) rounded to odd: an
    inexact sum whose last bit is even moves one step toward the exact value (the neighbour
    on that side, whose last bit is odd). An inexact sum is never zero, so the step is one
    unit of its bit pattern, up or down in magnitude. A later rounding to fewer bits is then
    the exact value's correct rounding."""
    v = np.array(v, dtype=_F64, ndmin=1)
    bits = v.view(np.int64)
    fix = np.nonzero((np.reshape(v_err, v.shape) != 0) & ((bits & 1) == 0))
    if fix[0].size:
        away = np.signbit(v[fix]) == np.signbit(np.broadcast_to(v_err, v.shape)[fix])
        bits[fix] += np.where(away, 1, -1)
    return v


def _fma64(a, b, c):
    """``a * b + c`` rounded once for float64 arrays, as the C++ kernels' fused multiply-add
    (``linspace``, ``uniform_``, ``normal_``): Boldo and Melquiond's emulation, proved
    correctly rounded. The product and the sum with ``c`` are split exactly into high and low
    parts (Dekker's two-product, Knuth's two-sum); the low parts are added rounding to odd;
    one rounding to nearest adds that to the high part. Elements where the proof's range does
    not hold (huge factors, a product near the subnormals, an overflow) are computed exactly
    with fractions; a non-finite operand gives IEEE's fused result (``c`` beside finite
    factors, else what ``a * b + c`` gives)."""
    a, b, c = (np.asarray(x, dtype=_F64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        uh = a * b
        a_hi, a_lo = _split(a)
        b_hi, b_lo = _split(b)
        ul = a_hi * b_hi
        ul -= uh
        ul += a_hi * b_lo
        ul += a_lo * b_hi
        ul += a_lo * b_lo
        th, tl = _two_sum(c, uh)
        v = _round_to_odd(*_two_sum(tl, ul))
        result = np.asarray(th + v.reshape(np.shape(tl)))
        if not result.all():
            # An exact zero (the sum's parts are all zeros then): IEEE's sign for it is the
            # plain expression's (-0.0 * 1.0 + -0.0 is -0.0).
            result = np.where(result == 0, a * b + c, result)
        if np.isfinite(result).all() and _in_range(a, b, uh):
            return result if result.shape else result[()]
        a, b, c = np.broadcast_arrays(a, b, c)
        finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        hard = finite & ((np.abs(a) > _SPLIT_MAX) | (np.abs(b) > _SPLIT_MAX)
                         | ~np.isfinite(result)
                         | ((np.abs(uh) < _PRODUCT_MIN) & (a != 0) & (b != 0)))
        # A non-finite operand: with finite factors the product is exact (no overflow in
        # a fused multiply-add), so the result is ``c``; else what ``a * b + c`` gives.
        result = np.array(np.where(finite, result, np.where(
            np.isfinite(a) & np.isfinite(b), c, a * b + c)), dtype=_F64)
    for k in np.flatnonzero(hard):
        i = np.unravel_index(k, hard.shape)
        result[i] = _exact_fma(float(a[i]), float(b[i]), float(c[i]))
    return result if result.shape else result[()]


def _in_range(a, b, product):
    """Whether every element is inside the emulation's proved range (see ``_fma64``)."""
    if a.size == 0 or b.size == 0:
        return True
    if np.abs(a).max() > _SPLIT_MAX or np.abs(b).max() > _SPLIT_MAX:
        return False
    smallest = np.abs(product).min()
    return smallest >= _PRODUCT_MIN or not (
        (np.abs(product) < _PRODUCT_MIN) & (a != 0) & (b != 0)).any()


def _exact_fma(a, b, c):
    """``a * b + c`` of finite floats, rounded once (with fractions: CPython's int division
    rounds correctly); an overflow is the infinity of its sign, as IEEE's."""
    from fractions import Fraction

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # IEEE's signs: a zero product keeps its sign in the sum; a cancellation is +0.
        return (a * b) + c if a == 0 or b == 0 else 0.0
    try:
        value = exact.numerator / exact.denominator
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    return math.copysign(value, exact)   # (an underflow to zero keeps the sign)


# ---------------------------------------------------------------------- normal
_LOG_P64 = [
    _k(_F32(p), _F64)
    for p in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_K_MASK24 = _k((1 << 24) - 1, _I32)
_K_TWO24 = _k(2.0**24, _F32)
_K_ANGLE = _k(_F32(_TWO_PI) * _F32(2.0**-24), _F32)  # float(2 pi) * 2**-24, exact
_K_I1, _K_I2, _K_I24, _K_I29, _K_I30, _K_I31 = (_k(i, _I32) for i in (1, 2, 24, 29, 30, 31))
_K_NOT1 = _k(~1, _I32)
_K_SQRTHF_BITS = _k(np.array(0.707106781186547524, _F32).view(_I32), _I32)
_K_SIGN_BIT = _k(-(1 << 31), _I32)
_K_ONE, _K_HALF, _K_MINUS2 = (_k(v, _F32) for v in (1.0, 0.5, -2.0))
_K_LOG_Q1 = _k(-2.12194440e-4, _F32)
_K_LOG_Q2 = _k(0.693359375, _F32)
_K_FOPI = _k(1.27323954473516, _F32)
_K_DP1 = _k(0.78515625, _F32)
_K_DP2 = _k(2.4187564849853515625e-4, _F32)
_K_DP3 = _k(_F32(-3.77489497744594108e-8), _F64)
# The cosine and sine polynomials side by side, as (2, 1) columns: the three Horner
# constants, then the factors of (z, x) in the last contraction.
_K_SC = [
    _k([[_F32(c)], [_F32(s)]], _F64)
    for c, s in (
        (2.443315711809948e-005, -1.9515295891e-4),
        (-1.388731625493765e-003, 8.3321608736e-3),
        (4.166664568298827e-002, -1.6666654611e-1),
    )
] + [_k([[-0.5], [1.0]], _F64)]


def _radius(m):
    """``sqrt(-2 * log256_ps(x))`` for the normal path's ``x = 1 - u``, given as the float32
    integers ``m = 2**24 * x`` (1 .. 2**24; overwritten). ``log256_ps`` is avx_mathfun's
    (Cephes' logf) with GCC's FMA contractions, operation by operation; a contraction is the
    double product (exact for float32 operands) and sum, rounded to float. Conversions are
    assignments into existing buffers (cheaper than ``astype``'s new arrays)."""
    # x = mant * 2**e with mant in [0.5, 1) (frexp, less 24 in the exponent); where mant is
    # below sqrt(1/2) the kernel's mask (from the bit patterns: positive floats order as
    # integers) takes 1 from e and adds mant to mant - 1: e -= 1 & mask;
    # x = (mant - 1) + (mant & mask).
    mant, ei = np.frexp(m)
    bits = mant.view(_I32)
    mask = bits - _K_SQRTHF_BITS
    mask >>= _K_I31  # all ones where below
    ei += mask
    ei -= _K_I24
    e = ei.astype(_F32)  # exact
    x = mant - _K_ONE  # exact (Sterbenz)
    bits &= mask
    x += mant
    z = x * x
    x64 = x.astype(_F64)  # the Horner steps multiply by x: converted once
    t = x64 * _LOG_P64[0]
    t += _LOG_P64[1]
    y = m  # m's buffer holds the float steps from here on
    for p in _LOG_P64[2:]:
        y[...] = t   # (rounded to float)
        np.multiply(y, x64, out=t)   # (y exact in double, the product rounded once)
        t += p
    y[...] = t
    y *= x
    np.multiply(y, z, out=t, dtype=_F64)   # (both exact in double: the contraction's product)
    np.multiply(e, _K_LOG_Q1, out=x64)   # (rounded to float, then exact in double)
    t += x64
    y[...] = t
    # The remaining contractions have exact products (z/2; e has 5 bits, the constant 9), so
    # plain float arithmetic rounds the same way.
    z *= _K_HALF
    y -= z
    x += y
    e *= _K_LOG_Q2
    x += e
    x *= _K_MINUS2
    return np.sqrt(x, out=x)


def _sincos(x):
    """avx_mathfun's ``sincos256_ps`` (Cephes' sinf/cosf) as compiled, for float32 angles
    ``x`` in [0, 2*pi) (overwritten): one (2, n) float32 array, the cosines then the sines."""
    n = x.shape[0]
    j = (x * _K_FOPI).astype(_I32)
    j += _K_I1
    j &= _K_NOT1  # the kernel's imm2: 0, 2, 4, 6 or 8
    y = j.astype(_F32)
    # Sign bits: bit 2 of imm2 + 2 for the cosine (the kernel's ~(imm2 - 2) & 4 for an even
    # imm2), bit 2 of imm2 for the sine; where bit 1 of imm2 is set the two polynomials
    # trade places (the kernel's poly mask): ``j`` becomes that mask (all ones).
    sign = np.empty((2, n), dtype=_I32)
    np.add(j, _K_I2, out=sign[0])
    sign[1] = j
    sign <<= _K_I29
    sign &= _K_SIGN_BIT
    j <<= _K_I30
    j >>= _K_I31
    # y is an integer up to 8 and the first two parts of pi/4 have 8 and 11 bits: exact
    # products, so only the third subtraction needs the fused form.
    t = y * _K_DP1
    x -= t
    np.multiply(y, _K_DP2, out=t)
    x -= t
    # The two polynomials side by side: rows of (2, n) arrays, the cosine's first.
    zz = np.empty((2, n), dtype=_F32)  # z twice
    zz64 = np.empty((2, n), dtype=_F64)
    t64 = zz64[0]
    t64[...] = y
    t64 *= _K_DP3
    t64 += x
    x[...] = t64
    z = np.multiply(x, x, out=zz[0])
    zz[1] = z
    zz64[...] = zz
    coef = _sc_coefficients(n)
    t = zz64 * coef[0]
    t += coef[1]
    poly = t.astype(_F32)
    t[...] = poly
    t *= zz64
    t += coef[2]
    poly[...] = t
    poly *= zz
    # The last contractions: cos = fma(yc, z, -z/2) (z/2 exact), sin = fma(ys, x, x); then
    # cos += 1.
    zz64[1] = x
    t[...] = poly
    t *= zz64
    zz64 *= coef[3]
    t += zz64
    poly[...] = t
    poly[0] += _K_ONE
    # Trade the rows where the mask says so and set the signs, on the bit patterns.
    bits = poly.view(_I32)
    swap = bits[0] ^ bits[1]
    swap &= j
    sign[0] ^= swap
    sign[1] ^= swap
    bits ^= sign
    return poly


_SC_CACHE = {}


def _sc_coefficients(n):
    """The sine and cosine polynomials' coefficients as (2, n) operands: the three Horner
    constants and the last contraction's factors of (z, x) (-1/2 and 1), all double.
    Up to 1024 columns they are whole arrays, cached per ``n`` (NumPy's broadcasting costs
    more than the operation on such sizes); above, (2, 1) columns."""
    got = _SC_CACHE.get(n)
    if got is None:
        if n > 1024:
            return _K_SC
        if len(_SC_CACHE) >= 32:
            _SC_CACHE.clear()
        got = _SC_CACHE[n] = [_k(np.broadcast_to(c, (2, n)), _F64) for c in _K_SC]
    return got


def _normal_rows_f32(raw, mean, std, out):
    """``NormalFill16<float>`` (AVX2) over rows of 16 raw draws (``raw``: uint32, (rows,
    16)), into the contiguous float32 (rows, 16) ``out``: per row the first 8 uniforms give
    the radii, the last 8 the angles; ``r*cos`` goes to the first half, ``r*sin`` to the
    second, then ``fma(value, std, mean)`` unless N(0, 1)."""
    rows = raw.shape[0]
    u = np.empty((2, rows * 8), dtype=_F32)
    # The low 24 bits of each draw, the two halves of the rows gathered into rows of u.
    np.bitwise_and(
        raw.view(_I32).reshape(rows, 2, 8).transpose(1, 0, 2),
        _K_MASK24,
        out=u.reshape(2, rows, 8),
    )
    # 1 - u1 is (2**24 - k) * 2**-24 exactly; the angle float(2 pi) * u2, as float(2 pi) *
    # 2**-24 * k: the same product (a power of two apart), rounded once.
    m = np.subtract(_K_TWO24, u[0], out=u[0])
    angle = u[1]
    angle *= _K_ANGLE
    radius = _radius(m)
    values = _sincos(angle)
    dest = out.reshape(rows, 2, 8).transpose(1, 0, 2)
    mean, std = _F32(mean), _F32(std)
    if mean == 0 and std == 1:
        np.multiply(values.reshape(2, rows, 8), radius.reshape(rows, 8), out=dest)
        return
    values *= radius
    t = values.astype(_F64)
    t *= _k(std, _F64)
    t += _k(mean, _F64)
    dest[...] = t.reshape(2, rows, 8)


def _store(n1, n2, mean, std, out1, out2, fma):
    """``out = fma(n, std, mean)`` for both halves (the plain values for N(0, 1))."""
    if mean == 0 and std == 1:
        out1[...] = n1
        out2[...] = n2
    else:
        out1[...] = fma(n1, std, mean)
        out2[...] = fma(n2, std, mean)


def libm(fn, arr):
    """``fn`` (a ``math`` function: the C library's) over a float64 array."""
    return np.fromiter(map(fn, arr.ravel().tolist()), dtype=_F64, count=arr.size).reshape(arr.shape)


def _fill16_f64(u1, u2, mean, std, out1, out2):
    """``NormalFill16<double>``: libm's log, cos and sin, then ``fma(r*cos, std, mean)``."""
    radius = np.sqrt(-2.0 * libm(math.log, 1.0 - u1))
    theta = _F64(float(_F32(2.0)) * math.pi) * u2
    _store(radius * np.cos(theta), radius * np.sin(theta), mean, std, out1, out2, _fma64)


_CHUNK_ROWS = 4096


def normal_fill(engine, n, np_dtype, mean=0.0, std=1.0):
    """``normal_fill``: the path ``normal_`` takes for a contiguous tensor of >= 16 elements.

    Uniforms are drawn for every element, transformed in blocks of 16 (8 radii, cos then
    sin); when ``n`` is not a multiple of 16 the last 16 elements are drawn again and
    transformed as one block, overwriting what was there. (The half types fill a float
    buffer block by block: the same blocks, without the draws for the partial one.)
    """
    full, rest = divmod(n, 16)
    blocks = full + (1 if rest else 0)
    if np_dtype == np.float64:
        raw = engine.random64(n)
        out = np.empty(n, dtype=_F64)
        if full:
            _fill_rows(
                _fill16_f64,
                raw[: full * 16].reshape(full, 16),
                mean,
                std,
                out[: full * 16].reshape(full, 16),
            )
        if rest:
            _fill_rows(
                _fill16_f64,
                engine.random64(16).reshape(1, 16),
                mean,
                std,
                out[n - 16 :].reshape(1, 16),
            )
        return out
    if np_dtype == np.float32:
        # ATen draws n values, then the 16 of the last block: one call, and that block's
        # draws moved to its row (an overlapping copy: NumPy buffers it).
        raw = engine.random32(n + 16 if rest else n)
        if rest:
            raw[full * 16 : blocks * 16] = raw[n:]
    else:
        raw = engine.random32(blocks * 16)
    rows = raw[: blocks * 16].reshape(blocks, 16)
    buf = np.empty((blocks, 16), dtype=_F32)
    for start in range(0, blocks, _CHUNK_ROWS):
        stop = start + _CHUNK_ROWS
        _normal_rows_f32(rows[start:stop], mean, std, buf[start:stop])
    flat = buf.reshape(-1)
    if rest:
        # The last block overwrites the end of the tensor.
        flat[n - 16 : n] = flat[full * 16 :]
    if np_dtype == np.float32:
        return flat[:n]
    return flat[:n].astype(np_dtype)


def _unit(raw, digits, acc):
    """``unit_float`` of a (possibly strided) view, into a new contiguous array."""
    v = raw & raw.dtype.type((1 << digits) - 1)
    out = v.view(np.int32 if v.dtype.itemsize == 4 else np.int64).astype(acc)
    out *= acc(2.0**-digits)
    return out


def _fill_rows(fill, raw, mean, std, out):
    """``fill`` (the double block) over rows of 16 raw draws (``raw`` and ``out`` shaped
    (rows, 16)), in chunks of rows that stay in cache: the halves become contiguous uniforms,
    the results go back into their halves of ``out``."""
    for start in range(0, raw.shape[0], _CHUNK_ROWS):
        block = raw[start : start + _CHUNK_ROWS]
        dest = out[start : start + _CHUNK_ROWS]
        fill(
            _unit(block[:, :8], 53, _F64),
            _unit(block[:, 8:], 53, _F64),
            mean,
            std,
            dest[:, :8],
            dest[:, 8:],
        )


_K_MINUS2_64 = _k(-2.0, _F64)
_K_TWO_PI_64 = _k(_TWO_PI, _F64)


def standard_normal_pairs(engine, pairs):
    """``pairs`` Box-Muller draws of ``normal_distribution<double>``: (cos values, sin values)."""
    raw = engine.random64(2 * pairs)
    u = unit_float(raw, 53, _F64)
    u1, u2 = u[0::2], u[1::2]
    r = libm(math.log1p, -u2)
    r *= _K_MINUS2_64
    np.sqrt(r, out=r)
    theta = u1 * _K_TWO_PI_64
    c = np.cos(theta)
    c *= r
    s = np.sin(theta)
    s *= r
    return c, s


def normal_scalar(engine, n, mean=0.0, std=1.0):
    """``normal_distribution<double>`` ``n`` times (the scalar path, float64 results before the
    cast): each call returns the cached sine value if there is one, else draws two uniforms,
    returns ``r*cos`` and caches ``r*sin`` in the generator."""
    out = np.empty(n, dtype=_F64)
    start = 0
    if n and engine.next_double is not None:
        out[0] = engine.next_double
        engine.next_double = None
        start = 1
    rest = n - start
    if rest:
        pairs = (rest + 1) // 2
        c, s = standard_normal_pairs(engine, pairs)
        inter = np.empty(2 * pairs, dtype=_F64)
        inter[0::2] = c
        inter[1::2] = s
        out[start:] = inter[:rest]
        if rest % 2:
            engine.next_double = float(s[-1])
    if mean == 0.0 and std == 1.0:
        return out
    return _fma64(out, std, mean)


# ---------------------------------------------------------------------- integers
def _mod(v, m):
    """``v % m`` for an unsigned array and a positive integer ``m`` (a new array). NumPy
    divides by a scalar with libdivide (multiplies and shifts) but takes ``%`` with the
    hardware division, 3 to 8 times slower: v - (v // m) * m is the same number."""
    k = np.array(m, dtype=v.dtype)
    q = v // k
    q *= k
    return np.subtract(v, q, out=q)


def random_from_to(engine, n, range_, base):
    """``uniform_int_from_to``: ``(v % range) + base`` as int64 (``random()`` when the range is
    below 2**28, ``random64()`` otherwise)."""
    # (v + base) wraps modulo 2**64 and is read as int64, as the C++ casts do: the same as
    # int64 arithmetic (wrapping) with base read as int64.
    base = ((base & _MASK64) ^ (1 << 63)) - (1 << 63)
    if range_ >= 1 << 28:
        v = _mod(engine.random64(n), range_).view(np.int64)
    else:
        v = _mod(engine.random32(n), range_).astype(np.int64)
    if base:
        v += np.array(base, dtype=np.int64)
    return v


def random_full_64(engine, n):
    """``random_(from=int64 min, to=None)``: a whole ``random64()`` read as int64."""
    return engine.random64(n).view(np.int64)


def random_default(engine, n, kind, bound, wide):
    """``random_()`` without bounds: ``v % bound`` (``wide``: random64), ``kind`` 'bool' takes
    the low bit."""
    v = engine.random64(n) if wide else engine.random32(n).astype(np.uint64)
    if kind == "bool":
        return (v & np.uint64(1)).astype(np.bool_)
    return _mod(v, bound)


def randperm(engine, n):
    """``randperm`` on the CPU, int64. Below ``2**32 / 20``: Fisher-Yates from the front with
    ``random() % (n - i)``; above, the inside-out variant with ``random64() % (i + 1)``."""
    if n < (1 << 32) // 20:
        if n < 2:
            return np.arange(n, dtype=np.int64)
        # Unsigned 32-bit arithmetic throughout: every value is below n.
        z = engine.random32(n - 1)
        z %= np.arange(n, 1, -1, dtype=np.uint32)
        z += np.arange(n - 1, dtype=np.uint32)
        r = list(range(n))
        for i, j in enumerate(z.tolist()):
            r[i], r[j] = r[j], r[i]
        return np.fromiter(r, dtype=np.int64, count=n)
    z = (engine.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64).tolist()
    r = [0] * n
    for i, j in enumerate(z):
        r[i] = r[j]
        r[j] = i
    return np.array(r, dtype=np.int64)


def multinomial_with_replacement(engine, probs, n_sample, acc):
    """The CPU kernel with replacement: per row a cumulative sum in ``acc`` (the input's
    float type; float for the half types), divided by the total, the last bucket set to 1;
    per sample one double uniform and the first bucket with ``cum >= u``."""
    rows = probs.shape[0]
    result = np.empty((rows, n_sample), dtype=np.int64)
    for i in range(rows):
        cum = np.cumsum(probs[i].astype(acc), dtype=acc)
        total = cum[-1]
        cum = cum / total
        cum[-1] = 1
        u = unit_float(engine.random64(n_sample), 53, _F64)
        result[i] = np.searchsorted(cum.astype(_F64), u, side="left")
    return result


def poisson(engine, rates):
    """``sample_poisson`` per rate (float64 array, kernel order): transformed rejection
    (Hormann) at rate >= 10, the product of uniforms below, 0 at 0."""
    out = np.empty(rates.shape[0], dtype=_F64)

    def uniform():
        return float(unit_float(engine.random64(1), 53, _F64)[0])

    for idx, lam in enumerate(rates.tolist()):
        if lam >= 10:
            slam = math.sqrt(lam)
            loglam = math.log(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                U = uniform() - 0.5
                V = uniform()
                us = 0.5 - abs(U)
                k = math.floor((2 * a / us + b) * U + lam + 0.43)
                if us >= 0.07 and V <= vr:
                    break
                if k < 0 or (us < 0.013 and V > us):
                    continue
                # CPython's lgamma is its own (not the C library's): a tie here could differ.
                if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                    -lam + k * loglam - math.lgamma(k + 1.0)
                ):
                    break
            out[idx] = k
        elif lam == 0:
            out[idx] = 0
        else:
            enlam = math.exp(-lam)
            x = 0
            prod = 1.0
            while True:
                prod *= uniform()
                if prod > enlam:
                    x += 1
                else:
                    break
            out[idx] = x
    return out
