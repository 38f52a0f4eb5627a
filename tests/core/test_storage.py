"""Storage semantics that views rely on: identity, growth, lazily made byte views."""

import numpy as np
import pytest

import jtensor

from tests.harness.conformance import torch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def test_views_see_a_storage_that_grows():
    x = jtensor.arange(4.0)
    view = x[:]
    view.sum()  # caches an array over the old bytes
    x.resize_(10)
    view[0] = 100.0
    assert x[0].item() == 100.0
    assert view.data_ptr() == x.data_ptr()
    assert x.untyped_storage().nbytes() == 40


def test_op_results_share_storage_only_with_their_views():
    a = jtensor.ones(3) + 1  # storage bytes are made lazily for op results
    b = a.view(3, 1)
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert a.untyped_storage().nbytes() == 12
    if a.device.type == "cpu":  # NumPy sees the storage's own bytes only on the host
        assert a.data_ptr() == a.numpy().ctypes.data
    c = a + 1
    assert c.untyped_storage().data_ptr() != a.untyped_storage().data_ptr()


def test_data_ptr_counts_the_offset():
    x = jtensor.arange(12, dtype=jtensor.int32).view(3, 4)
    assert x[1, 2].data_ptr() == x.data_ptr() + (1 * 4 + 2) * 4
    assert x[1, 2].untyped_storage().data_ptr() == x.data_ptr()


@pytest.mark.skipif(torch is None, reason="needs the PyTorch oracle")
def test_storage_sizes_match_pytorch():
    for make in (lambda lib: lib.zeros(2, 3), lambda lib: lib.zeros(2, 3)[:, 1:],
                 lambda lib: lib.arange(10)[::3], lambda lib: lib.zeros(0),
                 lambda lib: lib.ones(4, dtype=lib.float16).view(lib.uint8)):
        mine, theirs = make(jtensor), make(torch)
        assert mine.untyped_storage().nbytes() == theirs.untyped_storage().nbytes()
        assert mine.element_size() == theirs.element_size()
        assert mine.nbytes == theirs.nbytes


def test_storage_repr_has_no_address():
    text = repr(jtensor.zeros(3).untyped_storage())
    assert "0x" not in text and "12 bytes" in text


def test_writes_through_numpy_reach_every_view():
    array = np.zeros((2, 3), dtype=np.float32)
    t = jtensor.from_numpy(array)
    column = t[:, 1]
    array[1, 1] = 5.0
    assert column.tolist() == [0.0, 5.0]


def _storage_walk(lib):
    """What a program learning storages (a textbook's chapter on tensors) does with them."""
    p = lib.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    s = p.storage()
    seen = [type(s).__name__, s[0], s[-1], len(s), s.size(), s.nbytes(), s.element_size(),
            str(s.dtype), s.data_ptr() == p.data_ptr(), s.tolist(), list(s)]
    s[0] = 2.0
    seen.append(p.tolist())
    second = p[1:]
    seen += [second.storage_offset(), second.storage()[2], len(second.storage())]
    u = p.untyped_storage()
    seen += [u[0], u[3], len(u), len(u[4:8]), u[4:8].data_ptr() == u.data_ptr() + 4]
    u[3] = 0  # the high byte of 2.0f: the element becomes 0.0
    seen.append(p[0, 0].item())
    ints = lib.arange(4, dtype=lib.int16).storage()
    seen += [ints[3], repr(ints).replace(f"device={ints.device}", "device=D")]
    for bad in (lambda: s[10], lambda: s[1:2], lambda: s["a"], lambda: s[True], lambda: u[100],
                lambda: u["a"], lambda: u[True], lambda: u[lib.tensor(1)], lambda: u[0:8:2]):
        try:
            bad()
            seen.append("no error")
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            seen.append(next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"))
    return seen


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_typed_and_untyped_storage_index_as_pytorch():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # TypedStorage is deprecated (both)
        assert _storage_walk(jtensor) == _storage_walk(torch)
