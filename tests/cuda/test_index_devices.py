"""Indices on another device, as PyTorch: ``index_select``/``gather`` want their index on
the input's device; advanced indexing takes CPU indices for any tensor, and CUDA indices
only for a CUDA tensor. Found by the bad-input probes (bench/probes.py); PyTorch's answers
are its documented RuntimeErrors (the oracle has no CUDA)."""

import pytest

import jtensor


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.arange(3.0).index_select(0, L.tensor([0]).cuda()),
        lambda L: L.arange(3.0).cuda().index_select(0, L.tensor([0])),
        lambda L: L.arange(3.0).cuda().gather(0, L.zeros(3, dtype=L.long)),
        lambda L: L.arange(3.0).gather(0, L.zeros(3, dtype=L.long).cuda()),
        lambda L: L.arange(3.0)[L.tensor([0]).cuda()],
        lambda L: L.arange(3.0).__setitem__(L.arange(3.0).cuda() > 0, 1.0),
        lambda L: L.arange(3.0).__setitem__(L.tensor([1]).cuda(), 1.0),
    ],
)
def test_indices_on_another_device_are_refused(emulated, call):
    with pytest.raises(RuntimeError, match="device"):
        call(jtensor)


def test_cpu_indices_index_a_cuda_tensor(emulated):
    x = jtensor.arange(3.0).cuda()
    x[jtensor.arange(3.0) > 0] = 5.0
    x[jtensor.tensor([0])] = 7.0
    assert x.cpu().tolist() == [7.0, 5.0, 5.0]
    assert x[jtensor.tensor([2, 0])].cpu().tolist() == [5.0, 7.0]


def test_sparse_coo_tensor_follows_the_values_device_or_the_default_device(emulated):
    # PyTorch builds the values first, then the indices on the values' device; a default
    # device (set_default_device) is passed as device= and moves both there.
    values = jtensor.ones(2, 2, device="cuda")
    s = jtensor.sparse_coo_tensor([[0, 2]], values, (4, 2))
    assert s.device.type == "cuda" and s._indices().device.type == "cuda"
    jtensor.set_default_device("cuda")
    try:
        s = jtensor.sparse_coo_tensor([[0, 2]], jtensor.ones(2, 2, device="cpu"), (4, 2))
        assert s.device.type == "cuda" and s._values().device.type == "cuda"
        s = jtensor.sparse_coo_tensor([[0, 2]], jtensor.ones(2, 2), (4, 2), device="cpu")
        assert s.device.type == "cpu"
    finally:
        jtensor.set_default_device("cpu")
