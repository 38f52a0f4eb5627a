"""The switches reproducibility preambles set (determinism, matmul precision, warn-always,
anomaly mode, the deprecated default tensor type), the constants (``torch.pi``...) and small
queries, against PyTorch: what is set reads back the same, bad values fail the same way."""

import math
import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore():
    yield
    for lib in (jtensor, torch):
        lib.use_deterministic_algorithms(False)
        lib.set_float32_matmul_precision("highest")
        lib.set_warn_always(False)
        lib.set_anomaly_enabled(False)
        lib.set_default_dtype(lib.float32)


def both(fn):
    out = []
    for lib in (jtensor, torch):
        try:
            out.append(("ok", fn(lib)))
        except Exception as exc:  # noqa: BLE001 (the exception type is what is compared)
            out.append(("raised", type(exc)))
    return out


def test_constants():
    for name in ("pi", "e", "inf", "nan", "newaxis"):
        a, b = getattr(jtensor, name), getattr(torch, name)
        assert (a is None and b is None) or a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("steps", [
    [("use", True, False)], [("use", True, True)], [("use", True, True), ("use", False, True)],
    [("debug", "warn")], [("debug", "error")], [("debug", 1)], [("debug", 2), ("debug", 0)],
    [("debug", "x")], [("debug", 5)], [("use", "yes", False)], [("debug", 1.5)],
])
def test_determinism_switches_read_back_as_in_pytorch(steps):
    def run(lib):
        for step in steps:
            if step[0] == "use":
                lib.use_deterministic_algorithms(step[1], warn_only=step[2])
            else:
                lib.set_deterministic_debug_mode(step[1])
        return (lib.are_deterministic_algorithms_enabled(),
                lib.is_deterministic_algorithms_warn_only_enabled(),
                lib.get_deterministic_debug_mode())

    mine, theirs = both(run)
    assert mine[0] == theirs[0]
    if mine[0] == "raised":
        assert issubclass(mine[1], theirs[1]) or issubclass(theirs[1], mine[1])
    else:
        assert mine == theirs


@pytest.mark.parametrize("value", ["highest", "high", "medium", "bogus"])
def test_float32_matmul_precision(value):
    for lib in (jtensor, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_float32_matmul_precision(value)
        assert lib.get_float32_matmul_precision() == (value if value != "bogus" else "highest")
        assert bool(caught) == (value == "bogus")


def test_warn_always_and_anomaly_flags():
    def flags(lib):
        return (lib.is_warn_always_enabled(), lib.is_anomaly_enabled(),
                lib.is_anomaly_check_nan_enabled())

    assert both(flags) == [("ok", (False, False, True))] * 2
    for lib in (jtensor, torch):
        lib.set_warn_always(True)
        lib.set_anomaly_enabled(True, False)
    assert both(flags) == [("ok", (True, True, False))] * 2


@pytest.mark.parametrize("kind", ["DoubleTensor", "torch.DoubleTensor", "FloatTensor",
                                  "LongTensor"])
def test_set_default_tensor_type_is_deprecated_and_sets_the_dtype(kind):
    def run(lib):
        arg = kind if "." in kind else getattr(lib, kind)
        lib.set_warn_always(True)   # (otherwise PyTorch warns once per process)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_default_tensor_type(arg)
        assert any("deprecated" in str(w.message) for w in caught)
        return str(lib.ones(1).dtype)

    mine, theirs = both(run)
    assert mine[0] == theirs[0]
    if mine[0] == "ok":
        assert mine == theirs


def test_queries():
    def run(lib):
        x = lib.ones(2)
        return (lib.typename(x), lib.typename(lib.ones(2, dtype=lib.int64)), lib.typename(3),
                lib.typename(lib.nn.Linear(1, 1)), lib.typename(lib.nn.Parameter(lib.ones(1))),
                lib.is_storage(x.untyped_storage()), lib.is_storage(x), lib.is_signed(x),
                lib.is_signed(lib.ones(1, dtype=lib.uint8)), lib.get_device(x))

    mine, theirs = both(run)
    assert mine == theirs
