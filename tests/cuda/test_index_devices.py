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
