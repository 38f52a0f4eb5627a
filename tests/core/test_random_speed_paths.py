"""The fast paths of the CPU samplers (issue 18) give the numbers of their plain forms, bit for
bit, and leave the engine where the plain forms leave it.

The float32 normal kernel (``_mt19937._radius`` / ``_sincos``) is checked against the
operation-by-operation transliteration of avx_mathfun's ``log256_ps`` / ``sincos256_ps`` it
replaced, on all 2**24 inputs each (the normal path's uniforms have 24 bits); the other fast
paths against their plain NumPy forms; sizes around each new threshold (raw draws, chunks of
rows, cached coefficient arrays) against the installed PyTorch.
"""

import math

import numpy as np
import pytest

import jtensor
from jtensor import _dtypes
from jtensor import _mt19937 as mt

_F32, _F64, _I32 = np.float32, np.float64, np.int32


# ---------------------------------------------------------------------- reference kernel
def _fma32(a, b, c):
    t = a.astype(_F64)
    t *= b
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


def _log256(x):
    """avx_mathfun's log256_ps as compiled (GCC's FMA contractions), step by step."""
    xi = x.view(_I32)
    e = ((xi >> _I32(23)) - _I32(0x7E)).astype(_F32)
    xi = (xi & _I32(~0x7F800000)) | _I32(0x3F000000)
    x = xi.view(_F32)
    mask = (xi - np.array(0.707106781186547524, _F32).view(_I32)) >> _I32(31)
    e -= (mask & _ONE_BITS).view(_F32)
    xm1 = x - _F32(1)
    xi &= mask
    x = xm1 + x
    z = x * x
    y = _fma32(x, _LOG_P[0], _LOG_P[1])
    for p in _LOG_P[2:]:
        y = _fma32(y, x.astype(_F64), p)
    y *= x
    y = _fma32(y, z, e * _F32(-2.12194440e-4))
    y -= z * _F32(0.5)
    x += y
    x += e * _F32(0.693359375)
    return x


def _sincos256(x):
    """avx_mathfun's sincos256_ps as compiled, step by step: (sin, cos)."""
    imm2 = (x * _F32(1.27323954473516)).astype(_I32)
    imm2 += _I32(1)
    imm2 &= _I32(~1)
    y = imm2.astype(_F32)
    sign_sin = (imm2 & _I32(4)) << _I32(29)
    poly = ((imm2 & _I32(2)) >> _I32(1)) - _I32(1)
    sign_cos = (~(imm2 - _I32(2)) & _I32(4)) << _I32(29)
    x = x - y * _F32(0.78515625)
    x -= y * _F32(2.4187564849853515625e-4)
    x = _fma32(y, _F32(-3.77489497744594108e-8), x)
    z = x * x
    yc = _fma32(z, _F32(2.443315711809948e-005), _F32(-1.388731625493765e-003))
    yc = _fma32(yc, z.astype(_F64), _F32(4.166664568298827e-002))
    yc *= z
    yc = _fma32(yc, z.astype(_F64), z * _F32(-0.5))
    yc += _F32(1)
    ys = _fma32(z, _F32(-1.9515295891e-4), _F32(8.3321608736e-3))
    ys = _fma32(ys, z.astype(_F64), _F32(-1.6666654611e-1))
    ys *= z
    ys = _fma32(ys, x, x)
    ysi, yci = ys.view(_I32), yc.view(_I32)
    s = (ysi & poly) | (yci & ~poly)
    c = (yci & poly) | (ysi & ~poly)
    s ^= sign_sin
    c ^= sign_cos
    return s.view(_F32), c.view(_F32)


def _fast(k):
    """The fast kernel on the 24-bit integers ``k``: (radius, cos, sin)."""
    m = np.subtract(mt._K_TWO24, k.astype(_F32))
    angle = k.astype(_F32)
    angle *= mt._K_ANGLE
    cs = mt._sincos(angle)
    return mt._radius(m), cs[0], cs[1]


def _reference(k):
    u = k.astype(_F32) * _F32(2.0**-24)
    r = _log256(_F32(1) - u)
    r *= _F32(-2)
    np.sqrt(r, out=r)
    s, c = _sincos256(_F32(2.0 * math.pi) * u)
    return r, c, s


def _bits_equal(a, b):
    return a.dtype == b.dtype and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_normal_kernel_all_inputs():
    """Every 24-bit uniform, in blocks as large as the chunks (the (2, 1) coefficient
    columns)."""
    step = 1 << 20
    for start in range(0, 1 << 24, step):
        k = np.arange(start, start + step, dtype=np.int32)
        for got, want in zip(_fast(k), _reference(k), strict=True):
            assert _bits_equal(got, want), start


@pytest.mark.parametrize("width", [8, 24, 1000, 1024, 1032])
def test_normal_kernel_small_blocks(width):
    """Blocks of up to 1024 columns use cached whole coefficient arrays."""
    rng = np.random.default_rng(width)
    ks = np.concatenate(
        [
            np.arange(4 * width),
            (1 << 24) - 1 - np.arange(4 * width),
            rng.integers(0, 1 << 24, 60 * width),
        ]
    ).astype(np.int32)
    for start in range(0, ks.size, width):
        k = ks[start : start + width]
        for got, want in zip(_fast(k), _reference(k), strict=True):
            assert _bits_equal(got, want)


# ---------------------------------------------------------------------- raw draws
@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3])
def test_raw_draws_match_integers(seed):
    """``random_raw`` (small counts) and ``Generator.integers`` read the same stream."""
    fast, plain = mt.Engine(seed), mt.Engine(seed)
    for n in (1, 3, 16, 623, 624, 625, 1024, 1025, 8192, 8193, 5, 70000, 2):
        a = fast.random32(n)
        b = plain._gen.integers(0, 1 << 32, size=n, dtype=np.uint32)
        assert a.dtype == b.dtype and a.flags.c_contiguous and np.array_equal(a, b)
        a = fast.random64(n)
        b = plain._gen.integers(0, 1 << 64, size=n, dtype=np.uint64)
        plain._fresh = False
        assert a.dtype == b.dtype and a.flags.c_contiguous and np.array_equal(a, b)
    assert fast.state_bytes() == plain.state_bytes()


# ---------------------------------------------------------------------- uniform, integers
def _uniform_plain(engine, n, np_dtype, low, high):
    """The float32/half ``uniform`` as written before the fast path."""
    x = mt.unit_float(engine.random32(n), 24, _F32)
    lo, hi = _F32(low), _F32(high)
    if lo == 0 and hi == 1:
        if np_dtype == np.float32:
            return x
        v = x
    else:
        v = (x.astype(_F64) * _F64(hi - lo) + _F64(lo)).astype(_F32)
    if np_dtype != np.float32:
        v = v.astype(np_dtype)
    to_s, from_s = np.asarray(high).astype(np_dtype), np.asarray(low).astype(np_dtype)
    return np.where(v == to_s, from_s, v)


def test_uniform_bounds():
    """Bounds where no value, or many values, round to ``high``."""
    rng = np.random.default_rng(7)
    bounds = [
        (0.0, 1.0),
        (-1.0, 1.0),
        (-1 / 28, 1 / 28),
        (2.0, 3.0),
        (0.0, 0.0),
        (5.0, 5.0),
        (-65504.0, 65504.0),
        (1e-8, 1.0),
        (0.9999999, 1.0),
        (100.0, 100.00001),
    ]
    bounds += [(float(a), float(np.nextafter(_F32(a), _F32(np.inf)))) for a in rng.normal(size=8)]
    bounds += [
        tuple(sorted(float(v) for v in rng.normal(size=2) * 10.0 ** rng.integers(-4, 4)))
        for _ in range(40)
    ]
    for low, high in bounds:
        for np_dtype in (np.float32, np.float16, _dtypes.bfloat16.numpy):
            for n in (1, 17, 3000):
                fast, plain = mt.Engine(n), mt.Engine(n)
                a = mt.uniform(fast, n, np_dtype, low, high)
                b = _uniform_plain(plain, n, np_dtype, low, high)
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (low, high, np_dtype)
                assert fast.state_bytes() == plain.state_bytes()


@pytest.mark.parametrize(
    "m",
    [
        1,
        2,
        3,
        10,
        255,
        256,
        1000,
        (1 << 28) - 1,
        1 << 28,
        (1 << 32) - 1,
        10**15,
        1 << 63,
        (1 << 64) - 1,
    ],
)
def test_mod(m):
    rng = np.random.default_rng(m % 1000)
    v64 = rng.integers(0, 1 << 64, 5000, dtype=np.uint64, endpoint=False)
    assert np.array_equal(mt._mod(v64, m), v64 % np.uint64(m))
    if m < 1 << 32:
        v32 = v64.astype(np.uint32)
        assert np.array_equal(mt._mod(v32, m), v32 % np.uint32(m))


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.3, 1e-300, 1 - 2**-53, 2**-53, 0.7])
def test_bernoulli_scalar(p):
    fast, plain = mt.Engine(3), mt.Engine(3)
    got = mt.bernoulli_scalar(fast, 5000, p)
    want = mt.unit_float(plain.random64(5000), 53, _F64) < p
    assert np.array_equal(got, want)
    assert fast.state_bytes() == plain.state_bytes()


def _randperm_plain(z, n):
    r = list(range(n))
    for i, j in enumerate(z.tolist()):
        r[i], r[j] = r[j], r[i]
    return np.array(r, dtype=np.int64)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 5001])
def test_randperm(n):
    fast, plain = mt.Engine(n), mt.Engine(n)
    got = mt.randperm(fast, n)
    if n < 2:
        want = np.arange(n, dtype=np.int64)
    else:
        z = plain.random32(n - 1).astype(np.int64) % np.arange(n, 1, -1, dtype=np.int64)
        want = _randperm_plain(z + np.arange(n - 1), n)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    assert fast.state_bytes() == plain.state_bytes()


# ---------------------------------------------------------------------- against PyTorch
def _same_as_torch(fn, seed=1234):
    torch = pytest.importorskip("torch")
    jtensor.manual_seed(seed)
    torch.manual_seed(seed)
    got, want = fn(jtensor), fn(torch)
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    for a, b in zip(got, want, strict=True):
        a, b = a.detach(), b.detach()
        if str(a.dtype).endswith("bfloat16"):
            a, b = a.float(), b.float()
        a, b = a.numpy(), b.numpy()
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    assert np.array_equal(jtensor.get_rng_state().numpy(), torch.get_rng_state().numpy())


# Around the raw-draw thresholds (8192 / 1024 values), the chunks of 4096 rows (65536
# elements), the cached coefficient arrays (up to 1024 columns: 2048 elements) and the
# partial last block.
_SIZES = [
    1023,
    1024,
    1025,
    2047,
    2048,
    2049,
    2064,
    8191,
    8192,
    8193,
    8208,
    65535,
    65536,
    65537,
    65552,
    131088,
]


@pytest.mark.parametrize("n", _SIZES)
def test_randn_sizes(n):
    _same_as_torch(lambda L: [L.randn(n), L.randn(n, dtype=L.float16), L.randn(3)])


@pytest.mark.parametrize("n", [1023, 1024, 1025, 8192, 8193, 65537])
def test_fills_sizes(n):
    _same_as_torch(
        lambda L: [
            L.empty(n).normal_(0.25, 3.0),
            L.empty(n).uniform_(-0.3, 0.7),
            L.rand(n),
            L.empty(n, dtype=L.bfloat16).uniform_(1.0, 1.0078125),
            L.randint(0, 10, (n,)),
            L.randint(-(2**40), 2**45, (n,)),
            L.empty(n).bernoulli_(0.37),
            L.randperm(n),
            L.empty(n, dtype=L.float64).uniform_(-2.0, 3.0),
            L.randn(n, dtype=L.float64),
        ]
    )


def test_layers_and_dropout():
    def run(L):
        linear = L.nn.Linear(784, 256)
        w = L.nn.init.kaiming_uniform_(L.empty(256, 784), a=5**0.5)
        x = L.nn.functional.dropout(L.ones(128, 256), 0.5)
        return [linear.weight, linear.bias, w, x, L.nn.init.kaiming_normal_(L.empty(300, 70))]

    _same_as_torch(run)


@pytest.mark.parametrize("n", [1, 5, 15])
def test_scalar_normal_path(n):
    _same_as_torch(
        lambda L: [
            L.randn(n),
            L.randn(n),
            L.randn(n, dtype=L.float64),
            L.randn(n, dtype=L.bfloat16),
            L.normal(2.0, 3.0, (n,)),
        ]
    )


# ---------------------------------------------------------------------- randint's plain call
_RANDINT_BOUNDS = [
    (0, 1),
    (0, 27),
    (-5, 5),
    (0, 20000),
    (0, 2**28 - 1),
    (0, 2**28),
    (3, 2**28 + 3),
    (-(2**62), 2**62),
    (-(2**63), 2**63 - 1),
    (-(2**63), -(2**63) + 1),
]


@pytest.mark.parametrize(("low", "high"), _RANDINT_BOUNDS)
def test_randint_plain_call_matches_general_path(low, high):
    """``randint(low, high, size)`` (the fast path) and the same call with ``dtype=int64``
    (the general path): the same bits and the same engine state afterwards."""
    for size in [(32,), (4, 3), (), (0,), jtensor.Size([2, 5])]:
        for gen in [None, jtensor.Generator().manual_seed(7)]:
            jtensor.manual_seed(11)
            if gen is not None:
                gen.manual_seed(7)
            fast = jtensor.randint(low, high, size, generator=gen)
            state = (gen or jtensor.default_generator).get_state()
            jtensor.manual_seed(11)
            if gen is not None:
                gen.manual_seed(7)
            plain = jtensor.randint(low, high, size, generator=gen, dtype=jtensor.int64)
            assert fast.dtype is jtensor.int64 and fast.shape == plain.shape
            assert fast.stride() == plain.stride() and not fast.requires_grad
            assert np.array_equal(fast.numpy(), plain.numpy())
            after = (gen or jtensor.default_generator).get_state()
            assert np.array_equal(state.numpy(), after.numpy())


@pytest.mark.parametrize(("low", "high"), _RANDINT_BOUNDS)
def test_randint_plain_call_matches_torch(low, high):
    _same_as_torch(
        lambda L: [
            L.randint(low, high, (32,)),
            L.randint(low, high, (3, 4)),
            L.randint(low, high, ()),
            L.randint(low, high, L.Size([5])),
        ]
    )


@pytest.mark.parametrize(
    ("args", "same_words"),
    [
        ((5, 5, (3,)), True),
        ((6, 5, (3,)), True),
        ((0, 5, (-1,)), True),
        ((0, 5, [3]), True),
        # PyTorch lists every signature; jtensor names the argument at fault.
        ((0.0, 5, (3,)), False),
        ((0, 5, (2.0,)), False),
    ],
)
def test_randint_unusual_calls_as_torch(args, same_words):
    """Calls the fast path declines take the general path: its results and its errors."""
    torch = pytest.importorskip("torch")
    outcomes = []
    for L in (jtensor, torch):
        L.manual_seed(3)
        try:
            outcomes.append(L.randint(*args).tolist())
        except Exception as e:  # noqa: BLE001 - the type and words are what is compared
            outcomes.append((type(e).__name__, str(e).split("\n")[0] if same_words else ""))
    assert outcomes[0] == outcomes[1]
