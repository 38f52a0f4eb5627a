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
