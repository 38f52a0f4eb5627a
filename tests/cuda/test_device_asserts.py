"""An index out of range in every index kernel, as PyTorch reports it: on the CPU an error
at the call; on CUDA a device-side assert: the call returns, the next synchronisation raises
``AcceleratorError`` ("CUDA error: device-side assert triggered") naming the kernel and the
line that launched it, and with ``CUDA_LAUNCH_BLOCKING=1`` the call itself raises it.

Measured on an H100 with torch 2.11 (bench/gpu_semantics.py, 2026-11-26): every one of these
returned at the call and raised at ``synchronize``. Writes that fail leave the target as it
was (PyTorch's context is unusable afterwards, so its contents cannot be observed; jtensor's
device goes on, and shows nothing half-written)."""

import numpy as np
import pytest

import jtensor


ONE = "torch.ones(1, device=d)"
KERNELS = {  # name in the message -> the call, with x = arange(4.), bad = tensor([9])
    "index": lambda T, x, bad, d: x[bad],
    "index_put_": lambda T, x, bad, d: x.__setitem__(bad, 1.0),
    "gather": lambda T, x, bad, d: T.gather(x, 0, bad),
    "scatter_": lambda T, x, bad, d: x.scatter_(0, bad, 1.0),
    "scatter_add_": lambda T, x, bad, d: x.scatter_add_(0, bad, T.ones(1, device=d)),
    "scatter_reduce": lambda T, x, bad, d: x.scatter_reduce(0, bad, T.ones(1, device=d), "amax"),
    "index_add_": lambda T, x, bad, d: x.index_add_(0, bad, T.ones(1, device=d)),
    "index_copy_": lambda T, x, bad, d: x.index_copy_(0, bad, T.ones(1, device=d)),
    "index_fill_": lambda T, x, bad, d: x.index_fill_(0, bad, 1.0),
    "index_reduce_": lambda T, x, bad, d: x.index_reduce_(0, bad, T.ones(1, device=d), "prod"),
    "index_select": lambda T, x, bad, d: x.index_select(0, bad),
    "take": lambda T, x, bad, d: T.take(x, bad),
    "take_along_dim": lambda T, x, bad, d: T.take_along_dim(x, bad),
    "put_": lambda T, x, bad, d: x.put_(bad, T.ones(1, device=d)),
    "embedding": lambda T, x, bad, d: T.nn.functional.embedding(bad, x.view(4, 1)),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_on_the_cpu_the_call_raises(name):
    x = jtensor.arange(4.0)
    with pytest.raises((IndexError, RuntimeError)) as info:
        KERNELS[name](jtensor, x, jtensor.tensor([9]), "cpu")
    assert "9" in str(info.value) or "out of range" in str(info.value)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_on_cuda_the_next_sync_raises_a_device_side_assert(emulated, name):
    x = jtensor.arange(4.0, device="cuda")
    KERNELS[name](jtensor, x, jtensor.tensor([9], device="cuda"), "cuda")  # returns
    with pytest.raises(emulated.AcceleratorError) as info:
        emulated.synchronize()
    message = str(info.value)
    assert message.startswith("CUDA error: device-side assert triggered")
    kernel = "index_select" if name == "embedding" else name  # embedding's gather kernel
    assert f"'{kernel}'" in message and f"{__file__}:" in message
    assert isinstance(info.value, RuntimeError)
    # nothing half-written, and (on the emulator) the device works again
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("name", ["index", "gather", "index_add_", "put_"])
def test_launch_blocking_raises_at_the_call(emulated, name):
    x = jtensor.arange(4.0, device="cuda")
    emulated.set_launch_blocking(True)
    try:
        with pytest.raises(emulated.AcceleratorError, match="device-side assert triggered"):
            KERNELS[name](jtensor, x, jtensor.tensor([9], device="cuda"), "cuda")
    finally:
        emulated.set_launch_blocking(False)


def test_in_range_indices_are_untouched_by_the_checks(emulated):
    x = jtensor.arange(4.0, device="cuda")
    good = jtensor.tensor([3, -1], device="cuda")
    assert x[good].tolist() == [3.0, 3.0]
    assert jtensor.gather(x, 0, jtensor.tensor([3, 0], device="cuda")).tolist() == [3.0, 0.0]
    y = x.clone().index_add_(0, jtensor.tensor([1], device="cuda"), jtensor.ones(1, device="cuda"))
    np.testing.assert_array_equal(y.cpu().numpy(), [0.0, 2.0, 2.0, 3.0])
