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


def seeded_key(seed):
    """mt19937's ``init_genrand``: the 624 words of the state for ``seed`` (low 32 bits)."""
    key = np.empty(N, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for j in range(1, N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


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
        self._bitgen.state = {
            "bit_generator": "MT19937",
            "state": {"key": seeded_key(self.seed), "pos": N},
        }
        # ATen's freshly seeded engine reads (left=1, next=0); after a full block of 624
        # draws it reads (left=1, next=624). NumPy's pos is 624 in both cases.
        self._fresh = True

    def random32(self, n):
        """``n`` successive ``random()`` values (uint32)."""
        if n <= 0:
            return np.empty(0, dtype=np.uint32)
        self._fresh = False
        return self._gen.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def random64(self, n):
        """``n`` successive ``random64()`` values (uint64: first draw high, second low)."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        self._fresh = False
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
def unit_float(raw, digits, acc):
    """``uniform_real``'s [0, 1) value: the low ``digits`` bits times 2**-digits, in ``acc``."""
    mask = (1 << digits) - 1
    np.bitwise_and(raw, raw.dtype.type(mask), out=raw)
    # The masked values are non-negative signed integers: NumPy's vectorised int -> float
    # casts are far faster than its unsigned ones. The scaling by a power of two is exact.
    signed = np.int32 if raw.dtype.itemsize == 4 else np.int64
    out = raw.view(signed).astype(acc)
    out *= acc(2.0**-digits)
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
    x = unit_float(engine.random32(n), 24, _F32)
    lo, hi = _F32(low), _F32(high)
    if lo == 0 and hi == 1:
        if np_dtype == np.float32:
            return x  # below 1 - 2**-24: never rounds to ``high``
        v = x
    else:
        # float32 products of 24-bit values are exact in double: one rounding, as an FMA.
        v = (x.astype(_F64) * _F64(hi - lo) + _F64(lo)).astype(_F32)
    if np_dtype != np.float32:
        v = v.astype(np_dtype)
    to_s, from_s = np.asarray(high).astype(np_dtype), np.asarray(low).astype(np_dtype)
    return np.where(v == to_s, from_s, v)


def _fma64(a, b, c):
    """``a * b + c`` with one rounding for float64 arrays (exact via a two-product split)."""
    a = np.asarray(a, dtype=_F64)
    p = a * b
    # Dekker's two-product: p + err == a * b exactly.
    split = 134217729.0
    a_hi = a * split
    a_hi = a_hi - (a_hi - a)
    a_lo = a - a_hi
    b_hi = b * split
    b_hi = b_hi - (b_hi - b)
    b_lo = b - b_hi
    err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    # two-sum of p and c, then add the product's error once.
    bb = s - p
    e2 = (p - (s - bb)) + (c - bb)
    return s + (e2 + err)


# ---------------------------------------------------------------------- normal
def _fma32(a, b, c):
    """``fma(a, b, c)`` on float32 (``a`` an array): the product is exact in double and the sum
    rounds once in double and once to float, which equals the FMA's single rounding except
    in double-rounding ties far below anything a sampler reaches."""
    t = a.astype(_F64)
    t *= b  # pass ``b`` already in double when it is reused: same-type loops are faster
    t += c
    return t.astype(_F32)


_ONE_BITS = np.array(1.0, _F32).view(_I32)
_LOG_P = [
    _F32(p)
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


def log256(x):
    """avx_mathfun's ``log256_ps`` (Cephes' logf) with GCC's FMA contractions, for float32
    ``x`` in (0, 1] (the normal path's ``1 - u``: no denormals, no invalid inputs)."""
    xi = x.view(_I32)
    # Exponent e (as float: exact) and the mantissa scaled into [0.5, 1).
    e = ((xi >> _I32(23)) - _I32(0x7E)).astype(_F32)
    xi = (xi & _I32(~0x7F800000)) | _I32(0x3F000000)
    x = xi.view(_F32)
    # The kernel's mask (all ones where x < sqrt(1/2)), from the bit patterns (positive
    # floats order as integers): e -= (1 & mask); x = (x - 1) + (x & mask).
    mask = (xi - np.array(0.707106781186547524, _F32).view(_I32)) >> _I32(31)
    e -= (mask & _ONE_BITS).view(_F32)
    xm1 = x - _F32(1)  # exact (Sterbenz)
    xi &= mask
    x = xm1 + x
    z = x * x
    x64 = x.astype(_F64)  # the Horner steps multiply by x: converted once
    y = _fma32(x, _LOG_P[0], _LOG_P[1])
    for p in _LOG_P[2:]:
        y = _fma32(y, x64, p)
    y *= x
    y = _fma32(y, z, e * _F32(-2.12194440e-4))
    # The remaining contractions have exact products (z/2; e has 5 bits, the constant 9), so
    # plain float arithmetic rounds the same way.
    y -= z * _F32(0.5)
    x += y
    x += e * _F32(0.693359375)
    return x


def sincos256(x):
    """avx_mathfun's ``sincos256_ps`` (Cephes' sinf/cosf) as compiled, for float32 ``x`` in
    [0, 2*pi) (the normal path's angles): returns (sin, cos)."""
    imm2 = (x * _F32(1.27323954473516)).astype(_I32)
    imm2 += _I32(1)
    imm2 &= _I32(~1)
    y = imm2.astype(_F32)
    sign_sin = (imm2 & _I32(4)) << _I32(29)
    poly = ((imm2 & _I32(2)) >> _I32(1)) - _I32(1)  # all ones where bit 2 is clear
    sign_cos = (~(imm2 - _I32(2)) & _I32(4)) << _I32(29)
    # y is an integer up to 8 and the first two parts of pi/4 have 8 and 11 bits: exact
    # products, so only the third subtraction needs the fused form.
    x = x - y * _F32(0.78515625)
    x -= y * _F32(2.4187564849853515625e-4)
    x = _fma32(y, _F32(-3.77489497744594108e-8), x)
    z = x * x
    z64 = z.astype(_F64)
    yc = _fma32(z, _F32(2.443315711809948e-005), _F32(-1.388731625493765e-003))
    yc = _fma32(yc, z64, _F32(4.166664568298827e-002))
    yc *= z
    yc = _fma32(yc, z64, z * _F32(-0.5))
    yc += _F32(1)
    ys = _fma32(z, _F32(-1.9515295891e-4), _F32(8.3321608736e-3))
    ys = _fma32(ys, z64, _F32(-1.6666654611e-1))
    ys *= z
    ys = _fma32(ys, x, x)
    # The kernel masks, adds zeros and flips signs: the polynomial of the octant, signed.
    ysi, yci = ys.view(_I32), yc.view(_I32)
    other = ~poly
    s = (ysi & poly) | (yci & other)
    c = (yci & poly) | (ysi & other)
    s ^= sign_sin
    c ^= sign_cos
    return s.view(_F32), c.view(_F32)


def _fill16_f32(u1, u2, mean, std, out1, out2):
    """``NormalFill16<float>`` (AVX2): ``u1``/``u2`` are the first and second halves of the
    blocks of 16 uniforms, ``out1``/``out2`` receive ``r*cos`` and ``r*sin``."""
    radius = log256(_F32(1) - u1)
    radius *= _F32(-2)
    np.sqrt(radius, out=radius)
    s, c = sincos256(_F32(_TWO_PI) * u2)
    c *= radius
    s *= radius
    _store(c, s, _F32(mean), _F32(std), out1, out2, _fma32)


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


def normal_fill(engine, n, np_dtype, mean=0.0, std=1.0):
    """``normal_fill``: the path ``normal_`` takes for a contiguous tensor of >= 16 elements.

    Uniforms are drawn for every element, transformed in blocks of 16 (8 radii, cos then
    sin); when ``n`` is not a multiple of 16 the last 16 elements are drawn again and
    transformed as one block, overwriting what was there. (The half types fill a float
    buffer block by block: the same draws.)
    """
    if np_dtype == np.float64:
        fill, digits, acc, draw = _fill16_f64, 53, _F64, engine.random64
    else:
        fill, digits, acc, draw = _fill16_f32, 24, _F32, engine.random32
    full, rest = divmod(n, 16)
    if np_dtype in (np.float64, np.float32):
        raw = draw(n)
        out = np.empty(n, dtype=acc)
        if full:
            _fill_rows(
                fill,
                digits,
                acc,
                raw[: full * 16].reshape(full, 16),
                mean,
                std,
                out[: full * 16].reshape(full, 16),
            )
        if rest:
            _fill_rows(
                fill, digits, acc, draw(16).reshape(1, 16), mean, std, out[n - 16 :].reshape(1, 16)
            )
        return out
    blocks = full + (1 if rest else 0)
    buf = np.empty(blocks * 16, dtype=acc)
    _fill_rows(
        fill, digits, acc, draw(blocks * 16).reshape(blocks, 16), mean, std, buf.reshape(blocks, 16)
    )
    out = np.empty(n, dtype=np_dtype)
    out[: full * 16] = buf[: full * 16].astype(np_dtype)
    if rest:
        out[n - 16 :] = buf[full * 16 :].astype(np_dtype)
    return out


_CHUNK_ROWS = 2048


def _unit(raw, digits, acc):
    """``unit_float`` of a (possibly strided) view, into a new contiguous array."""
    v = raw & raw.dtype.type((1 << digits) - 1)
    out = v.view(np.int32 if v.dtype.itemsize == 4 else np.int64).astype(acc)
    out *= acc(2.0**-digits)
    return out


def _fill_rows(fill, digits, acc, raw, mean, std, out):
    """``fill`` over rows of 16 raw draws (``raw`` and ``out`` shaped (rows, 16)), in chunks
    of rows that stay in cache: the halves become contiguous uniforms, the results go back
    into their halves of ``out``."""
    for start in range(0, raw.shape[0], _CHUNK_ROWS):
        block = raw[start : start + _CHUNK_ROWS]
        dest = out[start : start + _CHUNK_ROWS]
        fill(
            _unit(block[:, :8], digits, acc),
            _unit(block[:, 8:], digits, acc),
            mean,
            std,
            dest[:, :8],
            dest[:, 8:],
        )


def standard_normal_pairs(engine, pairs):
    """``pairs`` Box-Muller draws of ``normal_distribution<double>``: (cos values, sin values)."""
    raw = engine.random64(2 * pairs)
    u = unit_float(raw, 53, _F64)
    u1, u2 = u[0::2], u[1::2]
    r = np.sqrt(-2.0 * libm(math.log1p, -u2))
    theta = 2.0 * math.pi * u1
    return r * np.cos(theta), r * np.sin(theta)


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
def random_from_to(engine, n, range_, base):
    """``uniform_int_from_to``: ``(v % range) + base`` as int64 (``random()`` when the range is
    below 2**28, ``random64()`` otherwise)."""
    if range_ >= 1 << 28:
        v = engine.random64(n) % np.uint64(range_)
    else:
        v = (engine.random32(n) % np.uint32(range_)).astype(np.uint64)
    # (v + base) wraps modulo 2**64 and is read as int64, as the C++ casts do.
    return (v + np.uint64(base & _MASK64)).view(np.int64)


def random_full_64(engine, n):
    """``random_(from=int64 min, to=None)``: a whole ``random64()`` read as int64."""
    return engine.random64(n).view(np.int64)


def random_default(engine, n, kind, bound, wide):
    """``random_()`` without bounds: ``v % bound`` (``wide``: random64), ``kind`` 'bool' takes
    the low bit."""
    v = engine.random64(n) if wide else engine.random32(n).astype(np.uint64)
    if kind == "bool":
        return (v & np.uint64(1)).astype(np.bool_)
    return v % np.uint64(bound)


def randperm(engine, n):
    """``randperm`` on the CPU, int64. Below ``2**32 / 20``: Fisher-Yates from the front with
    ``random() % (n - i)``; above, the inside-out variant with ``random64() % (i + 1)``."""
    if n < (1 << 32) // 20:
        result = np.arange(n, dtype=np.int64)
        if n < 2:
            return result
        z = engine.random32(n - 1).astype(np.int64) % np.arange(n, 1, -1, dtype=np.int64)
        z += np.arange(n - 1, dtype=np.int64)
        r = result.tolist()
        for i, j in enumerate(z.tolist()):
            r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)
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
