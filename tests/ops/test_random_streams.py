"""Same seed, same numbers: jtensor's CPU random streams against the installed PyTorch.

Every sampler is run in both libraries after the same ``manual_seed`` (or on generators with
the same seed) and must give identical values, bit for bit, and leave the generator in the
same state (``get_rng_state`` bytes equal), for several seeds and for sizes around each
kernel's thresholds (16 elements for the vectorised normal path, 2**28 for 64-bit integer
draws, odd counts for the cached Box-Muller value).
"""

import numpy as np
import pytest

import jtensor
from jtensor import _mt19937

torch = pytest.importorskip("torch")

SEEDS = [0, 42, 2147483647, 2**63 + 12345]


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if hasattr(x, "detach"):
        x = x.detach()
        if str(x.dtype).endswith("bfloat16"):
            x = x.float()
        return x.numpy()
    return x


def _same(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def _check(fn, seed):
    jtensor.manual_seed(seed)
    torch.manual_seed(seed)
    got, want = _np(fn(jtensor)), _np(fn(torch))
    assert _same(got, want), f"values differ:\njtensor {got}\ntorch   {want}"
    # The generators are in the same state afterwards (same number of draws, same cache).
    assert np.array_equal(jtensor.get_rng_state().numpy(), torch.get_rng_state().numpy())
    assert _same(_np(jtensor.randn(3)), _np(torch.randn(3)))


SIZES = [1, 2, 3, 15, 16, 17, 31, 33, 1000]
FLOATS = ["float32", "float64", "float16", "bfloat16"]

SAMPLERS = {
    "rand": lambda L, n, dt: L.rand(n, dtype=getattr(L, dt)),
    "randn": lambda L, n, dt: L.randn(n, dtype=getattr(L, dt)),
    "uniform_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).uniform_(-3.7, 5.3),
    "normal_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).normal_(1.5, 2.5),
    "normal-size": lambda L, n, dt: L.normal(0.5, 2.0, (n,), dtype=getattr(L, dt)),
    "exponential_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).exponential_(2.5),
    "geometric_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).geometric_(0.3),
    "log_normal_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).log_normal_(0.5, 0.3),
    "cauchy_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).cauchy_(2.0, 0.5),
    "bernoulli_-p": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).bernoulli_(0.3),
    "random_": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).random_(),
    "random_-to": lambda L, n, dt: L.empty(n, dtype=getattr(L, dt)).random_(100),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_float_samplers(name, dtype, seed):
    for n in SIZES:
        _check(lambda L, n=n: SAMPLERS[name](L, n, dtype), seed)


CASES = {
    "rand-2d": lambda L: L.rand(3, 7),
    "rand-complex": lambda L: L.rand(7, dtype=L.complex64),
    "randn-complex": lambda L: L.randn(9, dtype=L.complex128),
    "randn-3d": lambda L: L.randn(2, 3, 5),
    "normal_-transposed": lambda L: L.empty(4, 20).t().normal_(),
    "uniform_-transposed": lambda L: L.empty(5, 6).t().uniform_(-1, 2),
    "normal_-channels-last": lambda L: (
        L.empty(2, 3, 4, 4).to(memory_format=L.channels_last).normal_()
    ),
    "randn_like-transposed": lambda L: L.randn_like(L.empty(4, 5).t()),
    "rand_like": lambda L: L.rand_like(L.empty(3, 4, dtype=L.float64)),
    "randint_like": lambda L: L.randint_like(L.empty(3, 4, dtype=L.int32), -3, 9),
    "randint": lambda L: L.randint(0, 10, (20,)),
    "randint-3": lambda L: L.randint(10, (4, 5)),
    "randint-64bit": lambda L: L.randint(3, 2**33, (9,)),
    "randint-float": lambda L: L.randint(-5, 5, (3, 3), dtype=L.float32),
    "randint-int8": lambda L: L.randint(-5, 5, (30,), dtype=L.int8),
    "random_-int32": lambda L: L.empty(30, dtype=L.int32).random_(),
    "random_-int64": lambda L: L.empty(30, dtype=L.int64).random_(),
    "random_-int8-from-to": lambda L: L.empty(30, dtype=L.int8).random_(-3, 100),
    "random_-from-only": lambda L: L.empty(20, dtype=L.int32).random_(5, None),
    "random_-full-64": lambda L: L.empty(20, dtype=L.int64).random_(-(2**63), None),
    "random_-bool": lambda L: L.empty(10, dtype=L.bool).random_(),
    "random_-uint8": lambda L: L.empty(10, dtype=L.uint8).random_(),
    "random_-half-top": lambda L: L.empty(50, dtype=L.float16).random_(0, 65504),
    "random_-half-bottom": lambda L: L.empty(50, dtype=L.float16).random_(-65504, 0),
    "random_-float-wide": lambda L: L.empty(50).random_(2**30, 2**31),
    "randperm-small": lambda L: L.randperm(10),
    "randperm-1000": lambda L: L.randperm(1000),
    "randperm-float": lambda L: L.randperm(50, dtype=L.float32),
    "bernoulli-float": lambda L: L.bernoulli(L.rand(40)),
    "bernoulli-double": lambda L: L.bernoulli(L.rand(40, dtype=L.float64)),
    "bernoulli-scalar-p": lambda L: L.bernoulli(L.ones(5, 6), 0.25),
    "bernoulli_-tensor-p": lambda L: L.empty(6, 5).t().bernoulli_(L.rand(5, 6)),
    "bernoulli_-int": lambda L: L.empty(20, dtype=L.int64).bernoulli_(0.5),
    "bernoulli-transposed-p": lambda L: L.bernoulli(L.rand(4, 5).t()),
    "bernoulli-transposed-scalar-p": lambda L: L.bernoulli(L.rand(4, 5).t(), 0.3),
    "bernoulli_-transposed-scalar-p": lambda L: L.empty(5, 4).t().bernoulli_(0.2),
    "multinomial-transposed": lambda L: L.multinomial(L.rand(5, 4).t(), 2),
    "poisson-transposed": lambda L: L.poisson(L.rand(4, 5).t() * 5),
    "normal-transposed-mean": lambda L: L.normal(L.rand(4, 5).t(), 1.0),
    "multinomial-replacement": lambda L: L.multinomial(L.tensor([0.1, 0.2, 0.3, 0.4]), 10, True),
    "multinomial-rows": lambda L: L.multinomial(
        L.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0, 3, 2]]), 7, True
    ),
    "multinomial-no-replacement": lambda L: L.multinomial(
        L.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0, 3, 2]]), 3
    ),
    "multinomial-one": lambda L: L.multinomial(L.rand(5, 50), 1),
    "multinomial-one-replacement": lambda L: L.multinomial(L.rand(5, 50), 1, True),
    "multinomial-double": lambda L: L.multinomial(L.rand(50, dtype=L.float64), 20),
    # (more draws than non-zero probabilities: the zeros follow in topk's order)
    "multinomial-zeros": lambda L: L.multinomial(L.tensor([[0.5, 0, 0, 0.5, 0, 0, 0]] * 3), 6),
    # (long rows: only the keys that may be drawn come from the C library's log1p)
    "multinomial-vocab": lambda L: L.multinomial(L.softmax(L.randn(3, 5000) * 3, -1), 1),
    "multinomial-vocab-double": lambda L: L.multinomial(
        L.softmax(L.randn(3, 5000, dtype=L.float64) * 3, -1), 1
    ),
    "multinomial-vocab-half": lambda L: L.multinomial(L.rand(2, 3000).half(), 1),
    "multinomial-vocab-many": lambda L: L.multinomial(L.softmax(L.randn(2, 3000), -1), 40),
    "multinomial-vocab-zeros": lambda L: L.multinomial(L.relu(L.randn(2, 1200)), 700),
    "poisson": lambda L: L.poisson(L.rand(30) * 20),
    "poisson-rates": lambda L: L.poisson(L.tensor([0.0, 1.0, 3.0, 9.99, 10.0, 50.0, 1000.0])),
    "normal-tensors": lambda L: L.normal(L.rand(20), L.rand(20) + 0.5),
    "normal-tensor-mean": lambda L: L.normal(L.rand(20), 2.0),
    "normal-tensor-std": lambda L: L.normal(1.0, L.rand(20)),
    "normal-small-tensors": lambda L: L.normal(L.rand(5), L.rand(5)),
}


@pytest.mark.filterwarnings("ignore:.*out of bounds")  # wide float ranges warn in both
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(CASES))
def test_samplers(name, seed):
    _check(CASES[name], seed)


def test_scalar_normal_cache_carries_over():
    # Odd scalar-path draws leave the second Box-Muller value cached in the generator.
    def fn(L):
        return [L.randn(3), L.randn(5), L.randn(1), L.randn(20), L.randn(2)]

    _check(fn, 7)


# ---------------------------------------------------------------------- generators and state
def test_state_layout_and_round_trip():
    torch.manual_seed(123)
    torch.randn(3)  # a cached normal value travels in the state too
    state = torch.get_rng_state()
    assert tuple(jtensor.get_rng_state().shape) == tuple(state.shape) == (5056,)
    jtensor.set_rng_state(jtensor.tensor(state.numpy()))
    assert np.array_equal(jtensor.get_rng_state().numpy(), state.numpy())
    assert _same(_np(jtensor.randn(5)), _np(torch.randn(5)))
    jtensor.manual_seed(5)
    jtensor.rand(700)  # past a block of 624 words: the engine has twisted
    torch.set_rng_state(torch.from_numpy(jtensor.get_rng_state().numpy()))
    assert _same(_np(jtensor.rand(50)), _np(torch.rand(50)))


def test_wide_float_range_warns_as_pytorch():
    with pytest.warns(UserWarning, match="to - 1 is out of bounds"):
        jtensor.empty(3).random_(0, 2**30)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds"):
        jtensor.empty(3, dtype=jtensor.float16).random_(0, 70000)


def test_generator_objects():
    g, tg = jtensor.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed() == 67280421310721
    assert _same(_np(jtensor.rand(5, generator=g)), _np(torch.rand(5, generator=tg)))
    g.manual_seed(2**64 - 1)
    tg.manual_seed(2**64 - 1)
    assert g.initial_seed() == tg.initial_seed()
    assert np.array_equal(g.get_state().numpy(), tg.get_state().numpy())
    g.set_state(jtensor.tensor(tg.get_state().numpy()))
    assert _same(_np(jtensor.randn(40, generator=g)), _np(torch.randn(40, generator=tg)))
    jtensor.manual_seed(-1)
    torch.manual_seed(-1)
    assert jtensor.initial_seed() == torch.initial_seed()
    s = jtensor.seed()
    torch.manual_seed(s)
    assert _same(_np(jtensor.rand(3)), _np(torch.rand(3)))


def test_generator_api_and_pickling():
    import pickle

    g = jtensor.Generator().manual_seed(3)
    jtensor.rand(5, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert _same(_np(jtensor.rand(3, generator=g)), _np(jtensor.rand(3, generator=h)))
    public = [n for n in dir(torch.Generator) if not n.startswith("_")]
    assert [n for n in public if not hasattr(jtensor.Generator(), n)] == []
    for name in ("get_offset", "graphsafe_get_state"):
        with pytest.raises(Exception) as want:
            getattr(torch.Generator(), name)()
        with pytest.raises(type(want.value)):
            getattr(jtensor.Generator(), name)()


def test_interleaved_default_and_explicit_generators():
    def fn(L):
        g = L.Generator().manual_seed(99)
        out = []
        for i in range(5):
            out.append(L.randn(3 + i))
            out.append(L.rand(17, generator=g))
            out.append(L.randn(2 + i, generator=g))
            out.append(L.randint(0, 7, (i + 1,)))
        return out

    _check(fn, 11)


# ---------------------------------------------------------------------- built on the samplers
def _params(module):
    return [p for p in module.parameters()]


INIT = {
    "kaiming_uniform_": lambda L: L.nn.init.kaiming_uniform_(L.empty(7, 5)),
    "kaiming_normal_": lambda L: L.nn.init.kaiming_normal_(L.empty(7, 5), mode="fan_out"),
    "xavier_uniform_": lambda L: L.nn.init.xavier_uniform_(L.empty(7, 5)),
    "xavier_normal_": lambda L: L.nn.init.xavier_normal_(L.empty(70, 50)),
    "uniform_": lambda L: L.nn.init.uniform_(L.empty(7, 5), -2, 3),
    "normal_": lambda L: L.nn.init.normal_(L.empty(7, 5), 1, 0.2),
    "trunc_normal_": lambda L: L.nn.init.trunc_normal_(L.empty(40, 40), std=0.02),
    "trunc_normal_-narrow": lambda L: L.nn.init.trunc_normal_(L.empty(7, 5), 0.5, 1, -0.1, 0.1),
    "sparse_": lambda L: L.nn.init.sparse_(L.empty(10, 4), 0.3),
    "Linear": lambda L: _params(L.nn.Linear(5, 3)),
    "Conv1d": lambda L: _params(L.nn.Conv1d(3, 4, 3)),
    "Conv2d": lambda L: _params(L.nn.Conv2d(3, 4, 3)),
    "Embedding": lambda L: _params(L.nn.Embedding(10, 4)),
    "LSTM": lambda L: _params(L.nn.LSTM(4, 3, num_layers=2)),
    "GRU": lambda L: _params(L.nn.GRU(4, 3, bidirectional=True)),
    "RNN": lambda L: _params(L.nn.RNN(4, 3)),
    "LSTMCell": lambda L: _params(L.nn.LSTMCell(4, 3)),
    "Bilinear": lambda L: _params(L.nn.Bilinear(4, 3, 2)),
    "LayerNorm": lambda L: _params(L.nn.LayerNorm(4)),
    "dropout": lambda L: L.nn.functional.dropout(L.ones(40), 0.3),
    "dropout-float64": lambda L: L.nn.functional.dropout(L.ones(40, dtype=L.float64), 0.3),
    "Dropout": lambda L: L.nn.Dropout(0.5)(L.ones(5, 8)),
    "dropout-transposed": lambda L: L.nn.functional.dropout(L.ones(3, 4).t(), 0.5),
    "dropout-channels-last": lambda L: L.nn.functional.dropout(
        L.ones(2, 3, 4, 4).to(memory_format=L.channels_last), 0.3
    ),
    "dropout2d": lambda L: L.nn.functional.dropout2d(L.ones(2, 6, 3, 3), 0.5),
    "dropout1d": lambda L: L.nn.functional.dropout1d(L.ones(2, 6, 3), 0.5),
    "RandomSampler": lambda L: list(L.utils.data.RandomSampler(range(20))),
    "RandomSampler-generator": lambda L: list(
        L.utils.data.RandomSampler(range(20), generator=L.Generator().manual_seed(3))
    ),
    "RandomSampler-replacement": lambda L: list(
        L.utils.data.RandomSampler(range(20), replacement=True, num_samples=40)
    ),
    "SubsetRandomSampler": lambda L: list(L.utils.data.SubsetRandomSampler([3, 5, 7, 9])),
    "WeightedRandomSampler": lambda L: list(
        L.utils.data.WeightedRandomSampler([0.1, 0.5, 0.4], 10)
    ),
    "random_split": lambda L: [list(s) for s in L.utils.data.random_split(range(10), [3, 7])],
    "random_split-fractions": lambda L: [
        list(s)
        for s in L.utils.data.random_split(
            range(10), [0.3, 0.7], generator=L.Generator().manual_seed(42)
        )
    ],
    "DataLoader-shuffle": lambda L: [
        [b.tolist() for b in L.utils.data.DataLoader(L.arange(10), batch_size=4, shuffle=True)]
        for _ in range(2)
    ],
}


@pytest.mark.parametrize("seed", [0, 42])
@pytest.mark.parametrize("name", list(INIT))
def test_built_on_samplers(name, seed):
    _check(INIT[name], seed)


def test_orthogonal_within_rounding():
    # Same normal draws; the QR factorisation (LAPACK) may round differently by an ulp.
    jtensor.manual_seed(0)
    torch.manual_seed(0)
    got = _np(jtensor.nn.init.orthogonal_(jtensor.empty(6, 4)))
    want = _np(torch.nn.init.orthogonal_(torch.empty(6, 4)))
    np.testing.assert_allclose(got, want, rtol=0, atol=5e-7)
    assert np.array_equal(jtensor.get_rng_state().numpy(), torch.get_rng_state().numpy())


def _train(L, steps=20):
    L.manual_seed(1234)
    x = L.randn(64, 6, dtype=L.float64)
    y = (x[:, :1] * 2 - x[:, 1:2]).tanh()
    model = L.nn.Sequential(
        L.nn.Linear(6, 16), L.nn.ReLU(), L.nn.Dropout(0.2), L.nn.Linear(16, 1)
    ).double()
    opt = L.optim.SGD(model.parameters(), lr=0.1)
    loader = L.utils.data.DataLoader(L.utils.data.TensorDataset(x, y), batch_size=16, shuffle=True)
    losses = []
    while len(losses) < steps:
        for xb, yb in loader:
            opt.zero_grad()
            loss = L.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses


def test_training_run_prints_the_same_losses():
    got, want = _train(jtensor), _train(torch)
    assert [f"{v:.6f}" for v in got] == [f"{v:.6f}" for v in want]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


class _Draws:
    """A dataset whose items are draws made inside the worker (jtensor or torch, Python's
    random, NumPy's global generator): the workers' seeding must match."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 6

    def __getitem__(self, i):
        import random

        return self.lib.tensor(
            [float(self.lib.rand(1).item()), random.random(), float(np.random.rand())]
        )


def test_dataloader_workers_are_seeded_as_pytorch():
    def fn(L):
        loader = L.utils.data.DataLoader(_Draws(L), batch_size=2, num_workers=2, shuffle=True)
        return [b.tolist() for b in loader]

    jtensor.manual_seed(7)
    torch.manual_seed(7)
    assert fn(jtensor) == fn(torch)


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1, 2**32, 67280421310721, 2**63 + 5])
def test_seeding_in_c_gives_init_genrand_state(seed):
    # ``seed_state`` lets NumPy's C seeding set the words; they must be ``init_genrand``'s
    # (``seeded_key``, the loop it replaced), at position 624, and draw as PyTorch's.
    bitgen = np.random.MT19937(0)
    _mt19937.seed_state(bitgen, seed)
    state = bitgen.state["state"]
    assert state["pos"] == _mt19937.N
    assert np.array_equal(state["key"], _mt19937.seeded_key(seed))
    expected = torch.Generator().manual_seed(seed)
    got = jtensor.Generator().manual_seed(seed)
    assert jtensor.rand(5, generator=got).tolist() == torch.rand(5, generator=expected).tolist()
    assert bytes(got.get_state().tolist()) == bytes(expected.get_state().tolist())
