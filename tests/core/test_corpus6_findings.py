"""Differences a sixth batch of real teaching programs found, each checked against PyTorch:
a 0-d index in gather and scatter (the data tutorial's one-hot ``target_transform``), and
``Module.to(memory_format=...)`` (the channels-last tutorial)."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

LIBS = (torch, jtensor)


def _outcome(call):
    try:
        r = call()
    except (RuntimeError, IndexError, TypeError) as e:
        return type(e).__name__, str(e).split(" (")[0]
    if isinstance(r, str):
        return r
    return r.tolist(), tuple(r.shape), str(r.dtype).replace("jtensor.", "torch.")


SCATTER_GATHER = {
    "one-hot scatter_ with value=": lambda L: L.zeros(10).scatter_(0, L.tensor(3), value=1),
    "scatter of a number": lambda L: L.zeros(10).scatter(0, L.tensor(3), 5.0),
    "scatter of a 0-d src": lambda L: L.zeros(10).scatter(0, L.tensor(3), L.tensor(7.0)),
    "1-d index, 0-d src": lambda L: L.zeros(10).scatter(0, L.tensor([3]), L.tensor(7.0)),
    "0-d index, 1-d src": lambda L: L.zeros(10).scatter(0, L.tensor(3), L.tensor([7.0, 8.0])),
    "scatter_add": lambda L: L.zeros(10).scatter_add(0, L.tensor(3), L.tensor(7.0)),
    "scatter_reduce": lambda L: L.zeros(10).scatter_reduce(0, L.tensor(3), L.tensor(2.0), "sum"),
    "negative dim": lambda L: L.zeros(10).scatter(-1, L.tensor(3), 5.0),
    "gather": lambda L: L.arange(10.0).gather(0, L.tensor(3)),
    "0-d self, 0-d index": lambda L: L.tensor(2.0).gather(0, L.tensor(0)),
    "0-d self scatter": lambda L: L.zeros(()).scatter(0, L.tensor([0]), 5.0),
    "0-d index on 2-d self": lambda L: L.zeros(3, 4).scatter(0, L.tensor(1), 5.0),
    "2-d index on 1-d self": lambda L: L.zeros(10).scatter(0, L.tensor([[3]]), 5.0),
    "index out of range": lambda L: L.zeros(10).scatter(0, L.tensor(30), 5.0),
    "dim out of range": lambda L: L.zeros(10).scatter(1, L.tensor(3), 5.0),
    "2-d index, 0-d src": lambda L: L.zeros(2, 3).scatter(1, L.tensor([[0], [2]]), L.tensor(9.0)),
    "node": lambda L: L.zeros(10, requires_grad=True).scatter(0, L.tensor(3), 5.0).grad_fn.name(),
}


@pytest.mark.parametrize("case", SCATTER_GATHER)
def test_a_0d_index_in_gather_and_scatter(case):
    outcomes = [_outcome(lambda lib=lib: SCATTER_GATHER[case](lib)) for lib in LIBS]
    assert outcomes[0] == outcomes[1]


def test_gradients_through_a_0d_index():
    seen = []
    for lib in LIBS:
        x = lib.arange(5.0, requires_grad=True)
        y = x.gather(0, lib.tensor(2))
        y.backward()
        row = [tuple(y.shape), x.grad.tolist(), y.grad_fn.name()]
        x = lib.zeros(5, requires_grad=True)
        s = lib.tensor(3.0, requires_grad=True)
        z = x.scatter(0, lib.tensor(1), s)
        (z * lib.arange(5.0)).sum().backward()
        row += [z.tolist(), x.grad.tolist(), s.grad.tolist()]
        x = lib.zeros(5, requires_grad=True)
        s = lib.tensor(2.0, requires_grad=True)
        z = x.scatter_reduce(0, lib.tensor(4), s, "amax")
        (z * lib.arange(5.0)).sum().backward()
        row += [z.tolist(), x.grad.tolist(), s.grad.tolist()]
        seen.append(row)
    assert seen[0] == seen[1]


def _module_to(lib, module, fmt, *args):
    m = module(lib)
    weight = m.weight
    try:
        m.to(*args, memory_format=getattr(lib, fmt))
    except RuntimeError as e:
        return "RuntimeError", str(e).split(" (")[0]
    return (
        m.weight.stride(),
        None if m.bias is None else m.bias.stride(),
        m.weight is weight,
        type(m.weight).__name__,
        m.weight.requires_grad,
        str(m.weight.dtype)[-7:],
    )


MODULES = {
    "conv2d": lambda L: L.nn.Conv2d(8, 4, 3),
    "conv3d": lambda L: L.nn.Conv3d(2, 4, 3),
    "linear": lambda L: L.nn.Linear(2, 3),
}


@pytest.mark.parametrize("fmt", ["channels_last", "channels_last_3d", "contiguous_format"])
@pytest.mark.parametrize("module", MODULES)
def test_module_to_memory_format(module, fmt):
    seen = [_module_to(lib, MODULES[module], fmt) for lib in LIBS]
    assert seen[0] == seen[1]


def test_module_to_device_dtype_and_memory_format():
    seen = [_module_to(lib, MODULES["conv2d"], "channels_last", "cpu", lib.float64) for lib in LIBS]
    assert seen[0] == seen[1]
    assert seen[1][0] == (72, 1, 24, 8)


NAMES = [
    "linear",
    "batch_norm",
    "relu",
    "dropout",
    "layer_norm",
    "conv2d",
    "max_pool2d",
    "cross_entropy",
    "embedding",
    "softmax",
    "gelu",
    "mse_loss",
]


def _calls_seen(lib):
    """The ``nn.functional`` functions a few modules call, seen through patched ones (the
    channels-last tutorial wraps them to check every call's layout)."""
    F = lib.nn.functional
    calls = []
    saved = {n: getattr(F, n) for n in NAMES}

    def spy(name, fn):
        def wrapper(*args, **kwargs):
            calls.append(name)
            return fn(*args, **kwargs)

        return wrapper

    for n, fn in saved.items():
        setattr(F, n, spy(n, fn))
    try:
        nn = lib.nn
        lib.manual_seed(0)
        conv = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2))
        conv(lib.randn(1, 1, 6, 6))
        calls.append("|")
        mlp = nn.Sequential(
            nn.Linear(4, 4),
            nn.BatchNorm1d(4),
            nn.GELU(),
            nn.Dropout(0.1),
            nn.LayerNorm(4),
            nn.Softmax(dim=1),
        )
        out = mlp(lib.randn(3, 4))
        nn.CrossEntropyLoss()(out, lib.tensor([0, 1, 2]))
        nn.MSELoss()(out, out.detach())
        nn.Embedding(5, 2)(lib.tensor([1]))
    finally:
        for n, fn in saved.items():
            setattr(F, n, fn)
    return calls


def test_modules_call_the_functional_they_find():
    assert _calls_seen(jtensor) == _calls_seen(torch)
