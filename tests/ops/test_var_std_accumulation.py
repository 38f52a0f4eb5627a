"""``var``, ``std``, ``var_mean`` and ``std_mean`` of float16, bfloat16 and float32 tensors on
the CPU: PyTorch accumulates them in double, so its statistics are the float64 ones rounded
once (``std``: the float64 square root rounded). Compared with PyTorch over shapes, dims,
corrections and layouts, and where a float32 computation overflows.

float32 variances and deviations are PyTorch's bit for bit. Within one unit in the last
place: the means of ``var_mean``/``std_mean`` (PyTorch's one-pass Welford mean and jtensor's
sum / n, both in double, round to different float32 neighbours about once in a thousand)
and the float16/bfloat16 results (a few in ten thousand)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "var": lambda lib, x, dim, c: [lib.var(x, dim, correction=c)],
    "std": lambda lib, x, dim, c: [x.std(dim, correction=c)],
    "var_mean": lambda lib, x, dim, c: list(lib.var_mean(x, dim, correction=c)),
    "std_mean": lambda lib, x, dim, c: list(lib.std_mean(x, dim, correction=c, keepdim=True)),
}


def _data(seed):
    gen = np.random.default_rng(seed)
    shape = tuple(int(s) for s in gen.integers(2, 40, 3))
    # (activations' scales: a mean within 50 of 0 and a spread of 0.1 to 100; far larger
    # means make PyTorch's one-pass accumulation lose bits even in double)
    return gen.standard_normal(shape) * gen.uniform(0.1, 100) + gen.uniform(-50, 50)


def _results(name, dtype):
    """(jtensor's, PyTorch's) outputs as float64 arrays, call by call."""
    pairs = []
    for seed in range(6):
        data = _data(seed)
        for dim in (None, 0, 2, (0, 1)):
            for correction in (0, 1):
                found = []
                for lib in (jtensor, torch):
                    x = lib.from_numpy(data).to(getattr(lib, dtype))
                    if seed % 2:
                        x = x.transpose(0, 2)  # (a layout the reduction reads strided)
                    out = CALLS[name](lib, x, dim, correction)
                    found.append([(str(t.dtype), tuple(t.shape), t.double().numpy()) for t in out])
                pairs.append(found)
    return pairs


def _ulps(a, b, dtype):
    """How many units in the last place of ``dtype`` apart ``a`` and ``b`` are, at most."""
    if dtype == "bfloat16":  # (8 significant bits; NumPy has no bfloat16 spacing)
        with np.errstate(divide="ignore"):
            spacing = 2.0 ** (np.floor(np.log2(np.abs(a))) - 7)
    else:
        spacing = np.spacing(np.abs(a).astype(dtype)).astype(np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(spacing, 1e-300)))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_statistics_are_float64_ones_rounded(name):
    for mine, theirs in _results(name, "float32"):
        assert [m[:2] for m in mine] == [t[:2] for t in theirs]
        # the variance or deviation: PyTorch's bits
        assert mine[0][2].tobytes() == theirs[0][2].tobytes()
        for m, t in zip(mine[1:], theirs[1:], strict=True):  # the mean: within an ulp
            assert _ulps(t[2], m[2], "float32") <= 1


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_half_precision_statistics_within_an_ulp(name, dtype):
    for mine, theirs in _results(name, dtype):
        assert [m[:2] for m in mine] == [t[:2] for t in theirs]
        for m, t in zip(mine, theirs, strict=True):
            assert _ulps(t[2], m[2], dtype) <= 1


def test_statistics_past_float32s_range_stay_finite():
    def run(lib):
        x = lib.tensor([1e30, -1e30, 1e30, 3e37])
        return [x.std(), lib.std_mean(x)[0], x.var()]

    for mine, theirs in zip(run(jtensor), run(torch), strict=True):
        assert mine.numpy().tobytes() == theirs.numpy().tobytes()
    assert np.isfinite(run(jtensor)[0].item())
