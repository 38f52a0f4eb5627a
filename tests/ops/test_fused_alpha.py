"""``add``/``sub`` with an ``alpha``, ``lerp`` with a number weight, and the SGD steps built
on them round once an element, as PyTorch's kernels (a fused multiply-add): the bits of
PyTorch's results, through BLAS's axpy (``jtensor._blas``). Where NumPy has no such BLAS,
the same calls compute with NumPy (two roundings)."""

import numpy as np
import pytest

import jtensor
from jtensor import _blas

torch = pytest.importorskip("torch")
fused = pytest.mark.skipif(
    not _blas.available(), reason="NumPy has no bundled OpenBLAS here: two roundings"
)

SIZES = [(), (1,), (7,), (33,), (4, 250)]  # (vector widths, their tails, a 0-d tensor)
DTYPES = ["float32", "float64"]


def _pair(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.standard_normal(shape)).astype(dtype) for _ in range(2)]


def _calls(lib, a, b):
    x, y = lib.from_numpy(a.copy()), lib.from_numpy(b.copy())
    found = []
    for alpha in (-0.01, 0.3, 2.5, 1):
        found.append(lib.add(x, y, alpha=alpha))
        found.append(lib.sub(x, y, alpha=alpha))
        found.append(x.clone().add_(y, alpha=alpha))
        found.append(x.clone().sub_(y, alpha=alpha))
    for weight in (0.1, -0.3, 0.5, 0.9, 1.7):
        found.append(lib.lerp(x, y, weight))
        found.append(x.clone().lerp_(y, weight))
    return [t.numpy().tobytes() for t in found]


@fused
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SIZES, ids=str)
def test_one_rounding_as_pytorch(shape, dtype):
    a, b = _pair(shape, dtype)
    assert _calls(jtensor, a, b) == _calls(torch, a, b)


def test_without_blas_numpy_computes(monkeypatch):
    monkeypatch.setattr(_blas, "_FUNCTIONS", {})
    a, b = _pair((7,), "float32")
    x, y = jtensor.from_numpy(a), jtensor.from_numpy(b)
    alpha = np.float32(0.3)
    assert np.array_equal(jtensor.add(x, y, alpha=0.3).numpy(), a + b * alpha)
    assert np.array_equal(x.clone().sub_(y, alpha=0.3).numpy(), a - b * alpha)
    assert not _blas.axpy(0.3, b, a.copy())


def test_axpy_refuses_what_it_cannot_take():
    a, b = _pair((6,), "float32")
    assert not _blas.axpy(0.5, b.astype("float64"), a)  # mixed dtypes
    assert not _blas.axpy(0.5, b[::2], a[:3])  # not contiguous
    assert not _blas.axpy(0.5, b.astype("int64"), a.astype("int64"))  # not float
    frozen = a.copy()
    frozen.flags.writeable = False
    assert not _blas.axpy(0.5, b, frozen)


@fused
@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_reads_a_read_only_operand(dtype):
    # A read-only ``x`` exports no writable buffer: its address comes the other way.
    a, b = _pair((9,), dtype)
    ro = b.copy()
    ro.flags.writeable = False
    y1, y2 = a.copy(), a.copy()
    assert _blas.axpy(-0.25, ro, y1) and _blas.axpy(-0.25, b, y2)
    assert y1.tobytes() == y2.tobytes()
    expected = torch.from_numpy(a).add(torch.from_numpy(b), alpha=-0.25)
    assert y1.tobytes() == expected.numpy().tobytes()
    assert ro.tobytes() == b.tobytes()


SGD_CONFIGS = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
    {"lr": 0.1, "weight_decay": 0.1, "maximize": True},
]


def _sgd_trajectory(lib, kwargs, dtype):
    rng = np.random.default_rng(4)
    params = [
        lib.nn.Parameter(lib.from_numpy(np.asarray(rng.standard_normal(s)).astype(dtype)))
        for s in ((8, 5), (5,), ())
    ]
    opt = lib.optim.SGD(params, **kwargs)
    for _ in range(6):
        for p in params:  # (gradients both libraries compute alike: the step is compared)
            p.grad = p.detach() * 1.5 + 0.25
        opt.step()
    return [p.detach().numpy().tobytes() for p in params]


@fused
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", SGD_CONFIGS, ids=str)
def test_sgd_steps_are_pytorchs_bit_for_bit(kwargs, dtype):
    assert _sgd_trajectory(jtensor, kwargs, dtype) == _sgd_trajectory(torch, kwargs, dtype)


def _fused_reference(alpha, x, y):
    """``y + alpha * x`` rounded once an element (``alpha`` rounded to the arrays' dtype
    first): the exact rational value, then the nearest value of the dtype, ties to even."""
    from fractions import Fraction

    a = Fraction(float(y.dtype.type(alpha)))
    out = []
    for xi, yi in zip(x.ravel().tolist(), y.ravel().tolist(), strict=True):
        exact = a * Fraction(xi) + Fraction(yi)
        if y.dtype == np.float64:
            out.append(float(exact))
        else:
            # Round to float32 directly: the nearest float32, ties to even, from the
            # rational value (not through a float64 rounding first).
            lo = np.float32(float(exact))
            candidates = {
                lo,
                np.nextafter(lo, np.float32(np.inf)),
                np.nextafter(lo, np.float32(-np.inf)),
            }
            best = min(
                candidates,
                key=lambda c: (
                    abs(Fraction(float(c)) - exact),
                    int(np.float32(c).view(np.int32)) & 1,
                ),
            )
            out.append(best)
    return np.array(out, dtype=y.dtype).reshape(y.shape)


@fused
@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_rounds_once_at_every_length(dtype):
    # OpenBLAS's kernels finish a vector with a loop that does not always fuse (on AVX-512
    # machines the last n % 32 elements came out one unit away from PyTorch's in about a
    # third of cases): every element, tails included, is the exactly rounded value.
    rng = np.random.default_rng(11)
    for n in [*range(1, 70), 95, 129]:
        x = rng.standard_normal(n).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        alpha = float(rng.uniform(-3, 3))
        expected = _fused_reference(alpha, x, y)
        got = y.copy()
        assert _blas.axpy(alpha, x, got)
        assert got.tobytes() == expected.tobytes(), n
    zero_d = np.asarray(np.float64(0.3)).astype(dtype)
    got = zero_d.copy()
    assert _blas.axpy(0.7, np.asarray(1.3).astype(dtype), got)
    assert (
        got.shape == ()
        and got.tobytes() == _fused_reference(0.7, np.asarray(1.3).astype(dtype), zero_d).tobytes()
    )
