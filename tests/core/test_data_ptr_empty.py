"""``data_ptr()`` of a tensor with no elements, and of a storage of no bytes, is 0 (PyTorch's
null pointer), while views of one storage keep their offsets apart."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _facts(lib):
    a = lib.arange(6.0)
    return [
        lib.empty(0).data_ptr(),
        lib.ones(0, 3).data_ptr(),
        a[6:].data_ptr(),  # (a view of a storage with bytes, no elements of its own)
        a[2:2].data_ptr(),
        lib.empty(0).untyped_storage().data_ptr(),
        a[2:].data_ptr() - a.data_ptr(),
        a.untyped_storage().data_ptr() == a[1:].untyped_storage().data_ptr(),
        a.data_ptr() != 0,
    ]


def test_matches_pytorch():
    assert _facts(jtensor) == _facts(torch)


def test_widgets_do_not_group_empty_tensors():
    """The widgets key memory by the data pointer; storages of no bytes share none."""
    from jtensor.widgets._read import storage_key

    a, b = jtensor.empty(0), jtensor.empty(0)
    assert storage_key(a) != storage_key(b)
    c = jtensor.ones(3)
    assert storage_key(c) == storage_key(c[1:])
