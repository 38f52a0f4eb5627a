"""Random ops without an oracle: reproducibility, ranges, distributions and errors."""

import math

import numpy as np
import pytest

import jtensor as torch


def stats(t):
    a = t.double().numpy() if t.dtype.is_floating_point else t.numpy().astype(np.float64)
    return float(a.mean()), float(a.std())


@pytest.mark.parametrize("make", [
    lambda: torch.rand(100), lambda: torch.randn(3, 4), lambda: torch.randint(0, 100, (50,)),
    lambda: torch.randperm(30), lambda: torch.normal(0.0, 1.0, (20,)),
    lambda: torch.bernoulli(torch.full((40,), 0.5)),
    lambda: torch.multinomial(torch.ones(10), 5),
    lambda: torch.zeros(10).uniform_(-2, 2), lambda: torch.zeros(10).exponential_(),
    lambda: torch.zeros(10).random_(0, 1000), lambda: torch.rand(5, dtype=torch.float16),
])
def test_manual_seed_reproduces(make):
    torch.manual_seed(123)
    a = make()
    torch.manual_seed(123)
    b = make()
    assert a.tolist() == b.tolist()
    torch.manual_seed(124)
    assert make().tolist() != a.tolist() or a.numel() <= 1


def test_generator_objects_are_independent():
    g1 = torch.Generator().manual_seed(7)
    g2 = torch.Generator().manual_seed(7)
    torch.manual_seed(0)
    a = torch.rand(5, generator=g1)
    torch.rand(5)  # the default generator does not disturb g2
    b = torch.rand(5, generator=g2)
    assert a.tolist() == b.tolist()


def test_manual_seed_returns_generator_and_initial_seed():
    g = torch.manual_seed(42)
    assert g is torch.default_generator
    assert torch.initial_seed() == 42
    assert torch.random.initial_seed() == 42
    assert torch.Generator().manual_seed(3).initial_seed() == 3
    torch.manual_seed(-1)
    assert torch.initial_seed() == 2 ** 64 - 1
    assert torch.Generator().initial_seed() == 67280421310721


def test_seed_is_nondeterministic_and_recorded():
    s = torch.seed()
    assert isinstance(s, int) and torch.initial_seed() == s


def test_get_set_state_rewinds():
    torch.manual_seed(5)
    state = torch.get_rng_state()
    assert state.dtype is torch.uint8 and state.dim() == 1
    a = torch.randn(10)
    torch.set_rng_state(state)
    assert torch.randn(10).tolist() == a.tolist()
    g = torch.Generator()
    st = g.get_state()
    x = torch.rand(3, generator=g)
    g.set_state(st)
    assert torch.rand(3, generator=g).tolist() == x.tolist()


def test_set_state_rejects_bad_states():
    with pytest.raises(TypeError):
        torch.set_rng_state(torch.zeros(45))
    with pytest.raises(RuntimeError):
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))


def test_fork_rng_restores():
    torch.manual_seed(1)
    with torch.random.fork_rng():
        torch.rand(100)
    a = torch.rand(3)
    torch.manual_seed(1)
    assert torch.rand(3).tolist() == a.tolist()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_rand_range_and_moments(dtype):
    torch.manual_seed(0)
    t = torch.rand(200_000, dtype=dtype)
    a = t.float().numpy()
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 0.01 and abs(a.std() - math.sqrt(1 / 12)) < 0.01


def test_randn_moments():
    torch.manual_seed(0)
    mean, std = stats(torch.randn(200_000))
    assert abs(mean) < 0.01 and abs(std - 1) < 0.01
    z = torch.randn(100_000, dtype=torch.complex64).numpy()
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.02
    assert abs(z.real.var() - 0.5) < 0.02


def test_normal_overloads_moments():
    torch.manual_seed(0)
    mean, std = stats(torch.normal(3.0, 2.0, (200_000,)))
    assert abs(mean - 3) < 0.03 and abs(std - 2) < 0.03
    m = torch.full((100_000,), -1.0)
    mean, std = stats(torch.normal(m, 0.5))
    assert abs(mean + 1) < 0.01 and abs(std - 0.5) < 0.01
    mean, std = stats(torch.normal(2.0, torch.full((100_000,), 3.0)))
    assert abs(mean - 2) < 0.05 and abs(std - 3) < 0.05
    mean, std = stats(torch.zeros(100_000, dtype=torch.float64).normal_(5, 0.1))
    assert abs(mean - 5) < 0.01 and abs(std - 0.1) < 0.01


def test_randint_range_and_uniformity():
    torch.manual_seed(0)
    t = torch.randint(3, 10, (70_000,))
    a = t.numpy()
    assert t.dtype is torch.int64 and a.min() == 3 and a.max() == 9
    counts = np.bincount(a)[3:]
    assert np.all(np.abs(counts / len(a) - 1 / 7) < 0.01)
    assert torch.randint(0, 2, (100,), dtype=torch.bool).dtype is torch.bool
    big = torch.randint(0, 2 ** 63 - 1, (100,)).numpy()
    assert big.min() >= 0


def test_randperm_is_permutation():
    torch.manual_seed(0)
    for n in (0, 1, 7, 1000):
        assert sorted(torch.randperm(n).tolist()) == list(range(n))
    assert torch.randperm(10, dtype=torch.float32).dtype is torch.float32


def test_uniform_exponential_random_ranges():
    torch.manual_seed(0)
    a = torch.empty(100_000).uniform_(-3, 5).numpy()
    assert a.min() >= -3 and a.max() < 5 and abs(a.mean() - 1) < 0.05
    e = torch.empty(200_000, dtype=torch.float64).exponential_(4.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.005
    r = torch.empty(10_000).random_().numpy()
    assert r.min() >= 0 and r.max() <= 2 ** 24 and np.all(r == np.round(r))
    r = torch.empty(10_000, dtype=torch.int8).random_().numpy()
    assert r.min() >= 0 and r.max() == 127
    r = torch.empty(10_000, dtype=torch.int16).random_(-5, 5).numpy()
    assert r.min() == -5 and r.max() == 4
    b = torch.empty(1000, dtype=torch.bool).random_().numpy()
    assert b.any() and not b.all()


def test_bernoulli_rates():
    torch.manual_seed(0)
    p = torch.tensor([0.0, 0.25, 1.0]).expand(100_000, 3).contiguous()
    means = torch.bernoulli(p).numpy().mean(axis=0)
    assert means[0] == 0 and means[2] == 1 and abs(means[1] - 0.25) < 0.01
    t = torch.empty(100_000, dtype=torch.int64).bernoulli_(0.7)
    assert abs(t.numpy().mean() - 0.7) < 0.01
    t = torch.empty(50_000, 2).bernoulli_(torch.tensor([0.1, 0.9]))
    m = t.numpy().mean(axis=0)
    assert abs(m[0] - 0.1) < 0.01 and abs(m[1] - 0.9) < 0.01


def test_multinomial_frequencies_and_without_replacement():
    torch.manual_seed(0)
    p = torch.tensor([1.0, 2.0, 7.0])
    s = torch.multinomial(p, 100_000, replacement=True).numpy()
    freq = np.bincount(s, minlength=3) / len(s)
    assert np.allclose(freq, [0.1, 0.2, 0.7], atol=0.01)
    for _ in range(20):
        draw = torch.multinomial(torch.rand(10) + 0.01, 10).tolist()
        assert sorted(draw) == list(range(10))
    rows = torch.multinomial(torch.tensor([[0.0, 1.0], [1.0, 0.0]]), 1).tolist()
    assert rows == [[1], [0]]
    first = torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 2).tolist()
    assert first[0] == 0


def test_poisson_mean():
    torch.manual_seed(0)
    t = torch.poisson(torch.full((100_000,), 3.0))
    assert t.dtype is torch.float32 and abs(t.numpy().mean() - 3) < 0.03


def test_inplace_fills_bump_version_and_keep_layout():
    x = torch.zeros(3, 4).t()
    v = x._version
    out = x.uniform_()
    assert out is x and x._version == v + 1 and x.stride() == (1, 4)
    x.normal_()
    x.random_(3)
    x.exponential_()
    x.bernoulli_()
    assert x._version == v + 5


def test_inplace_on_view_writes_base():
    base = torch.zeros(4, 4)
    base[1].fill_(0) if hasattr(base, "fill_") else None
    view = base[1:3, ::2]
    torch.manual_seed(0)
    view.uniform_(1, 2)
    a = base.numpy()
    assert np.all(a[1:3, ::2] >= 1) and np.all(a[0] == 0) and np.all(a[1:3, 1::2] == 0)


def test_failing_fill_leaves_input_untouched():
    x = torch.zeros(3)
    with pytest.raises(RuntimeError):
        x.uniform_(5, 2)
    with pytest.raises(RuntimeError):
        x.bernoulli_(torch.tensor([0.5, 0.5]))
    assert x.tolist() == [0.0, 0.0, 0.0] and x._version == 0


def test_errors_match_pytorch_types():
    with pytest.raises(NotImplementedError):
        torch.rand(2, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="from"):
        torch.randint(10, 3, (3,))
    with pytest.raises(TypeError):
        torch.randint(10)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(0.0, -1.0, (2,))
    with pytest.raises(RuntimeError, match="inf"):
        torch.multinomial(torch.tensor([-1.0, 2.0]), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(3), 1)
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(torch.ones(2), 3)
    with pytest.raises(RuntimeError, match="lambda"):
        torch.zeros(2).exponential_(0)


def test_requires_grad_factories():
    assert torch.rand(2, requires_grad=True).requires_grad
    assert torch.randn_like(torch.zeros(2), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        torch.randint(3, (2,), requires_grad=True)


def test_values_differ_from_default_stream_after_seed_of_generator():
    torch.manual_seed(0)
    a = torch.rand(4)
    b = torch.rand(4)
    assert a.tolist() != b.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("k", [1, 3, 60])
def test_multinomial_keys_draw_what_the_c_librarys_keys_draw(dtype, k):
    """``random_ops._exponential_keys`` recomputes with the C library's log1p only the keys
    that may be drawn: the same draws as every key computed that way, over many rows with
    near ties (probabilities of few distinct values)."""
    from jtensor import _mt19937 as mt
    from jtensor import _dtypes
    from jtensor._ops import ordering, random_ops

    d = getattr(_dtypes, dtype)
    gen = np.random.default_rng(k)
    u = gen.random((40, 3000))
    probs = gen.integers(1, 4, (40, 3000)).astype(np.float64)
    probs[::7, ::2] = 0.0
    probs = random_ops._from_double(probs, d)
    keys = random_ops._exponential_keys(u, probs, d, k)
    q = random_ops._from_double(-mt.libm(math.log1p, -u), d)
    full = (probs / q).astype(d.numpy).astype(np.float64)
    # (the draws: topk of the keys, as multinomial takes them; argmax for one)
    mine, theirs = (
        ordering.topk_arrays(torch.from_numpy(a), k, 1, True, True)[1] for a in (keys, full)
    )
    np.testing.assert_array_equal(mine, theirs)
    if k == 1:
        np.testing.assert_array_equal(keys.argmax(1), full.argmax(1))
    picked = np.take_along_axis(keys, mine, axis=1)
    np.testing.assert_array_equal(picked, np.take_along_axis(full, theirs, axis=1))
