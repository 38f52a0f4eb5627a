"""``use_deterministic_algorithms(True)`` with ``fill_uninitialized_memory`` (the corpus:
PyTorch's randomness notes print the filled values): ``empty``-like ops and ``resize_``'s
new elements hold NaN, the largest integer or True, as PyTorch's."""

import pytest

import jtensor

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None


@pytest.fixture(autouse=True)
def _restore():
    yield
    for lib in (jtensor, torch):
        if lib is not None:
            lib.use_deterministic_algorithms(False)
            lib.utils.deterministic.fill_uninitialized_memory = True


def _resized(lib, make, size):
    t = make(lib)
    t.resize_(size)
    return t


CASES = {
    "empty_float": lambda lib: lib.empty(3),
    "empty_int64": lambda lib: lib.empty(2, dtype=lib.int64),
    "empty_uint8": lambda lib: lib.empty(2, dtype=lib.uint8),
    "empty_int8": lambda lib: lib.empty(2, dtype=lib.int8),
    "empty_bool": lambda lib: lib.empty(2, dtype=lib.bool),
    "empty_complex": lambda lib: lib.empty(1, dtype=lib.complex64),
    "empty_half": lambda lib: lib.empty(2, dtype=lib.float16),
    "empty_like": lambda lib: lib.empty_like(lib.zeros(2, 3)),
    "empty_strided": lambda lib: lib.empty_strided((2, 2), (1, 2)),
    "new_empty": lambda lib: lib.zeros(2, dtype=lib.int32).new_empty(3),
    "new_empty_strided": lambda lib: lib.zeros(2).new_empty_strided((2,), (1,)),
    "legacy_constructor": lambda lib: lib.Tensor(2),
    "out": lambda lib: lib.empty(3, out=lib.zeros(2)),
    "resize_grows": lambda lib: _resized(lib, lambda lib: lib.zeros(2), 4),
    "resize_shrinks": lambda lib: _resized(lib, lambda lib: lib.zeros(2, 2), 1),
    "resize_from_offset": lambda lib: _resized(lib, lambda lib: lib.zeros(2, 2)[1:], 3),
}


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
@pytest.mark.parametrize("name", sorted(CASES))
def test_deterministic_mode_fills_uninitialised_memory_as_torch(name):
    def run(lib):
        lib.use_deterministic_algorithms(True)
        t = CASES[name](lib)
        return str(t).replace("jtensor", "torch"), tuple(t.shape), t.stride()

    assert run(jtensor) == run(torch)


def test_fill_can_be_turned_off_and_only_applies_in_deterministic_mode():
    assert jtensor.utils.deterministic.fill_uninitialized_memory is True
    jtensor.utils.deterministic.fill_uninitialized_memory = False
    jtensor.use_deterministic_algorithms(True)
    assert jtensor.utils.deterministic.fill_uninitialized_memory is False
    jtensor.utils.deterministic.fill_uninitialized_memory = True
    assert jtensor.empty(10000).isnan().all()
    jtensor.use_deterministic_algorithms(False)
    assert jtensor.zeros(3).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="expected a bool"):
        jtensor.utils.deterministic.fill_uninitialized_memory = 1
