"""repr(tensor) must equal PyTorch's string for string."""

import types

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int32", "int8", "uint8", "bool", "float16",
          "bfloat16", "complex64", "complex128"]
SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 2, 3, 3), (40,), (30, 30), (1001,), (5, 300),
          (3, 400, 2), (10, 10, 10, 2)]
SCALES = [1.0, 1e-5, 1e10, 1000.0]


def _random_case(shape, dtype, scale, seed):
    data = np.random.default_rng(seed).standard_normal(shape) * scale
    other = np.random.default_rng(seed + 1).standard_normal(shape) * scale

    def make(lib):
        if dtype == "uint8":
            return lib.tensor(np.abs(data) % 200).to(lib.uint8)
        t = lib.tensor(data)
        if dtype == "bool":
            return t > 0
        if dtype.startswith("complex"):
            return (t + 1j * lib.tensor(other)).to(getattr(lib, dtype))
        return t.to(getattr(lib, dtype))

    return make


RANDOM = [pytest.param(_random_case(s, d, sc, i), id=f"{d}-{s}-{sc}")
          for i, (s, d, sc) in enumerate((s, d, sc) for s in SHAPES for d in DTYPES
                                         for sc in SCALES)]

SPECIAL = {
    "integer-valued": lambda lib: lib.tensor([1.0, 2.0, 3.0]),
    "negative-zero": lambda lib: lib.tensor([-0.0, 0.0]),
    "negative-zero-0d": lambda lib: lib.tensor(-0.0),
    "nan-inf": lambda lib: lib.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    "nan-int-mode": lambda lib: lib.tensor([float("nan"), 1.0, 2.0]),
    "only-nan": lambda lib: lib.tensor([float("nan")]),
    "sci-mix": lambda lib: lib.tensor([1e-5, 1e10]),
    "sci-small": lambda lib: lib.tensor([1e-5, 1.0]),
    "sci-ratio": lambda lib: lib.tensor([1e8, 1.0]),
    "sci-big": lambda lib: lib.tensor([1e9]),
    "big-int-valued": lambda lib: lib.tensor([123456789.0]),
    "empty": lambda lib: lib.tensor([]),
    "empty-2d": lambda lib: lib.zeros(0, 3),
    "empty-int": lambda lib: lib.zeros(0, 3, dtype=lib.int64),
    "empty-int-1d": lambda lib: lib.zeros(0, dtype=lib.int64),
    "empty-3d-double": lambda lib: lib.zeros(2, 0, 3, dtype=lib.float64),
    "0d-float": lambda lib: lib.tensor(3.5),
    "0d-int": lambda lib: lib.tensor(3),
    "0d-bool": lambda lib: lib.tensor(True),
    "0d-complex": lambda lib: lib.tensor(1 + 2j),
    "0d-inf": lambda lib: lib.tensor(float("inf")),
    "complex": lambda lib: lib.tensor([1 + 2j, -1 - 0.5j, 0j]),
    "complex-nan": lambda lib: lib.tensor([1, float("nan")], dtype=lib.complex64),
    "complex-sci": lambda lib: lib.tensor([1e-5 + 1e10j]),
    "requires-grad": lambda lib: lib.tensor([1.5], requires_grad=True),
    "requires-grad-double": lambda lib: lib.ones(2, 3, dtype=lib.float64, requires_grad=True),
    "summarized-int": lambda lib: lib.arange(2000),
    "summarized-2d": lambda lib: lib.arange(2000.0).reshape(40, 50),
    "int-2d": lambda lib: lib.arange(100).reshape(10, 10),
    "tiny-and-one": lambda lib: lib.tensor([[1e-10, 1], [2, 3]]),
    "mixed-widths": lambda lib: lib.tensor([0.1, 0.25, 100.5]),
    "int-widths": lambda lib: lib.tensor([-1, 10, 100000]),
    "bool-2d": lambda lib: lib.tensor([[True, False]]),
    "double-extremes": lambda lib: lib.tensor([1e20, -1e-20], dtype=lib.float64),
    "half-max": lambda lib: lib.tensor([65504.0], dtype=lib.float16),
    "transposed": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t(),
    "zeros": lambda lib: lib.tensor([0.0] * 5),
    "int8-summarized": lambda lib: lib.tensor(np.arange(5000, dtype=np.int8)),
    "unit-dims": lambda lib: lib.arange(10).reshape(1, 1, 10),
    "strided-view": lambda lib: lib.arange(24.0).reshape(4, 6)[::2, 1::2],
    "long-row-wraps": lambda lib: lib.arange(0.5, 60, 1.0),
}
SPECIAL_PARAMS = [pytest.param(f, id=k) for k, f in SPECIAL.items()]


def check(make):
    expected = repr(make(torch))
    assert repr(make(jtensor)) == expected
    assert str(make(jtensor)) == str(make(torch))


@pytest.mark.parametrize("make", RANDOM)
def test_random_values(make):
    check(make)


@pytest.mark.parametrize("make", SPECIAL_PARAMS)
def test_special_values(make):
    check(make)


OPTIONS = [dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
           dict(threshold=5), dict(edgeitems=1, threshold=5), dict(linewidth=40),
           dict(profile="short"), dict(profile="full"), dict(edgeitems=0, threshold=5)]


@pytest.fixture
def restore_printoptions():
    yield
    torch.set_printoptions(profile="default")
    jtensor.set_printoptions(profile="default")


@pytest.mark.parametrize("opts", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_printoptions(opts, restore_printoptions):
    torch.set_printoptions(**opts)
    jtensor.set_printoptions(**opts)
    for make in list(SPECIAL.values()) + [p.values[0] for p in RANDOM[::23]]:
        check(make)


def test_printoptions_context_and_get():
    with jtensor.printoptions(precision=1):
        assert repr(jtensor.tensor([1.25])) == "tensor([1.2])"
        assert jtensor.get_printoptions()["precision"] == 1
    assert repr(jtensor.tensor([1.25])) == "tensor([1.2500])"


def test_default_dtype_float64(restore_printoptions):
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        jtensor.set_default_dtype(jtensor.float64)
        for make in SPECIAL.values():
            check(make)
    finally:
        torch.set_default_dtype(old)
        jtensor.set_default_dtype(jtensor.float32)


def test_grad_fn_suffix():
    t = jtensor.tensor([1.0, 2.0], requires_grad=True) * 1
    assert repr(t) == "tensor([1., 2.], grad_fn=<MulBackward0>)"
    t._grad_fn = types.SimpleNamespace(name=lambda: "torch::autograd::AccumulateGrad")
    assert repr(t).endswith("grad_fn=<AccumulateGrad>)")


def test_device_suffix():
    t = jtensor.tensor([1.0, 2.0])
    storage = t._storage
    # A stand-in storage that claims to live on a GPU (no CUDA backend is needed to print).
    t._storage = types.SimpleNamespace(device=jtensor.device("cuda", 0), _backend=storage._backend,
                                       _data=storage._data, _generation=storage._generation)
    assert repr(t) == "tensor([1., 2.], device='cuda:0')"


def test_suffix_wraps_at_linewidth():
    make = lambda lib: lib.arange(0.5, 9.5, 1.0, dtype=lib.float64).reshape(1, 9) * 1111.1111 \
        if hasattr(lib.Tensor, "__mul__") else lib.tensor([[1.0] * 9])
    check(lambda lib: lib.tensor(np.linspace(0, 1000, 10).reshape(1, 10), dtype=lib.float16))
    check(make)
