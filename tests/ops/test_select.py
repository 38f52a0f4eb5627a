"""``_elementwise.select`` (issue 18): ``where`` as a blend of the operands' bits, the path of
``torch.where``, ``masked_fill`` and the activations' array paths on big arrays: exactly
``np.where``'s elements (signed zeros, infinities, every NaN's bits), for full, 0-d and
broadcast operands of any layout, and the public ops' results are PyTorch's."""

import numpy as np
import pytest

import jtensor
from jtensor._elementwise import select

torch = pytest.importorskip("torch")

FLOATS = (np.float16, np.float32, np.float64)


def _values(dtype, shape, seed):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape).astype(dtype)
    width = f"u{np.dtype(dtype).itemsize}"
    nan = np.array(np.nan, dtype).view(width)
    flat = a.reshape(-1)
    picks = gen.choice(flat.size, size=min(64, flat.size), replace=False)
    specials = np.array([0.0, -0.0, np.inf, -np.inf], dtype)
    flat[picks[:32]] = specials[np.arange(32) % 4]
    flat.view(width)[picks[32:]] = nan | np.arange(32).astype(width)  # payloads
    return a


def _bits(x):
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(2047,), (2048,), (64, 300), (3, 40, 50)])
@pytest.mark.parametrize("form", ["full", "fill-first", "fill-second", "row", "strided"])
def test_the_bits_of_where(dtype, shape, form):
    gen = np.random.default_rng(len(shape))
    c = gen.random(shape) < 0.5
    a = _values(dtype, shape, 1)
    b = _values(dtype, shape, 2)
    if form == "fill-first":
        a = np.array(-np.inf, dtype)
    elif form == "fill-second":
        b = np.array(np.nan, dtype)
    elif form == "row":
        b = b[..., :1, :] if b.ndim > 1 else b[:1]
    elif form == "strided":
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    got = select(c, a, b)
    expected = np.where(c, a, b)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(_bits(got), _bits(expected))


def test_other_operands_take_where():
    c = np.random.default_rng(0).random(4096) < 0.5
    ints = np.arange(4096)
    np.testing.assert_array_equal(select(c, ints, -ints), np.where(c, ints, -ints))
    mixed = select(c, np.ones(4096, np.float32), np.zeros(4096))
    assert mixed.dtype == np.float64


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_where_and_masked_fill_are_pytorchs(dtype):
    data = _values(np.dtype(dtype), (96, 500), 3)
    other = _values(np.dtype(dtype), (96, 500), 4)
    found = []
    for lib in (jtensor, torch):
        x, y = lib.from_numpy(data.copy()), lib.from_numpy(other.copy())
        mask = x.abs() > 0.5
        results = [
            lib.where(mask, x, y),
            lib.where(mask, x, 0.0),
            lib.where(mask, float("-inf"), y),
            x.masked_fill(mask, float("-inf")),
            x.masked_fill(~mask, 0),
        ]
        found.append([(tuple(r.shape), r.stride(), _bits(r.numpy()).tobytes()) for r in results])
    assert found[0] == found[1]


def test_a_condition_that_broadcasts_takes_where():
    c = np.random.default_rng(5).random((1, 3000)) < 0.5
    a = _values(np.float32, (4, 3000), 6)
    b = _values(np.float32, (4, 3000), 7)
    np.testing.assert_array_equal(_bits(select(c, a, b)), _bits(np.where(c, a, b)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clamp_and_where_gradients_are_pytorchs(dtype):
    """The backward of clamp (``where(mask, grad, 0)``) and of ``where`` on big arrays with
    an expanded gradient (``y.sum().backward()``) and a dense one."""
    data = _values(np.dtype(dtype), (64, 400), 8)
    found = []
    for lib in (jtensor, torch):
        x = lib.from_numpy(data.copy()).requires_grad_()
        w = lib.from_numpy(np.linspace(-1, 1, 400).astype(dtype))
        x.clamp(-0.5, 0.5).sum().backward()
        (lib.where(x > 0, x, x * 0.1) * w).sum().backward()
        x.clamp_min(0.2).backward(lib.ones_like(x) * w)
        found.append(_bits(x.grad.numpy()).tobytes())
    assert found[0] == found[1]


@pytest.mark.parametrize("size", [5, 2047, 2048, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arbitrary_bit_patterns(dtype, size):
    """``select`` (where's selection as a blend of bits, from 2048 elements) against NumPy's
    ``where`` on arbitrary bit patterns: NaNs with payloads and signs, -0.0, subnormals; an
    operand with strides 0 (an expanded gradient) too."""
    gen = np.random.default_rng(size)
    bits = np.dtype(dtype).itemsize * 8
    raw = gen.integers(0, 2**bits, size=(2, size), dtype=np.uint64).astype(f"uint{bits}")
    a, b = raw.view(dtype)
    c = gen.random(size) < 0.5
    for x, y in (
        (a, b),
        (np.broadcast_to(a[:1], (size,)), b),
        (a, np.broadcast_to(b[:1], (size,))),
    ):
        got = select(c, x, y)
        assert got.dtype == dtype and got.flags.c_contiguous
        assert got.tobytes() == np.where(c, x, y).tobytes()
