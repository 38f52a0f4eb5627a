"""An index out of range in every index kernel, as PyTorch reports it: on the CPU an error
at the call; on CUDA a device-side assert: the call returns, the next synchronisation raises
``AcceleratorError`` ("CUDA error: device-side assert triggered") naming the kernel and the
line that launched it, and with ``CUDA_LAUNCH_BLOCKING=1`` the call itself raises it.

Measured on an H100 with torch 2.11 (bench/gpu_semantics.py, 2026-11-26): every one of these
returned at the call and raised at ``synchronize``, and every later CUDA call raised again.
After the first report the device's context is broken, as CUDA's is (a sticky error): every
later call on that device raises ``AcceleratorError`` until the process restarts; host-side
queries (``is_available``, ``memory_allocated``) still answer, and CPU work goes on. Tests
repair the emulated context with ``jtensor.cuda._reset_broken_context()``; after it, a write
that failed shows nothing half-written."""

import numpy as np
import pytest

import jtensor
from jtensor.cuda._runtime import runtime


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
    with pytest.raises(emulated.AcceleratorError, match=f"the kernel '{kernel}' launched at"):
        x.tolist()  # the context is broken
    assert emulated._reset_broken_context()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]  # nothing half-written


@pytest.mark.parametrize("name", ["index", "gather", "index_add_", "put_"])
def test_launch_blocking_raises_at_the_call(emulated, name):
    x = jtensor.arange(4.0, device="cuda")
    emulated.set_launch_blocking(True)
    try:
        with pytest.raises(emulated.AcceleratorError, match="device-side assert triggered"):
            KERNELS[name](jtensor, x, jtensor.tensor([9], device="cuda"), "cuda")
    finally:
        emulated.set_launch_blocking(False)
    with pytest.raises(emulated.AcceleratorError, match="is unusable"):
        x + 1  # raised at the call, and sticky all the same


def test_in_range_indices_are_untouched_by_the_checks(emulated):
    x = jtensor.arange(4.0, device="cuda")
    good = jtensor.tensor([3, -1], device="cuda")
    assert x[good].tolist() == [3.0, 3.0]
    assert jtensor.gather(x, 0, jtensor.tensor([3, 0], device="cuda")).tolist() == [3.0, 0.0]
    y = x.clone().index_add_(0, jtensor.tensor([1], device="cuda"), jtensor.ones(1, device="cuda"))
    np.testing.assert_array_equal(y.cpu().numpy(), [0.0, 2.0, 2.0, 3.0])


def _break(cuda):
    """A gather with an index out of range, reported at a sync: the context is broken."""
    x = jtensor.arange(4.0, device="cuda")
    jtensor.gather(x, 0, jtensor.tensor([9], device="cuda"))
    with pytest.raises(cuda.AcceleratorError) as info:
        cuda.synchronize()
    assert "This error is sticky" in str(info.value)
    assert "restart the kernel" in str(info.value)
    return x


LATER_CALLS = {  # every later CUDA call on the broken device
    "second synchronize": lambda x, cuda: cuda.synchronize(),
    "new tensor (factory)": lambda x, cuda: jtensor.zeros(2, device="cuda"),
    "new tensor (empty)": lambda x, cuda: jtensor.empty(2, device="cuda"),
    "new tensor (data)": lambda x, cuda: jtensor.tensor([1.0, 2.0], device="cuda"),
    "random numbers": lambda x, cuda: jtensor.randn(3, device="cuda"),
    "copy from the host": lambda x, cuda: jtensor.ones(2).to("cuda"),
    ".cpu()": lambda x, cuda: x.cpu(),
    ".item()": lambda x, cuda: x[0].item(),
    "repr": lambda x, cuda: repr(x),
    "a launch": lambda x, cuda: x + 1,
    "an in-place launch": lambda x, cuda: x.mul_(2),
    "a reduction": lambda x, cuda: x.sum(),
    "another index kernel": lambda x, cuda: x[jtensor.tensor([0], device="cuda")],
    "stream synchronize": lambda x, cuda: cuda.current_stream().synchronize(),
    "stream query": lambda x, cuda: cuda.current_stream().query(),
    "event record": lambda x, cuda: cuda.Event().record(),
}


@pytest.mark.parametrize("call", sorted(LATER_CALLS))
def test_after_a_device_side_assert_every_cuda_call_raises(emulated, call):
    x = _break(emulated)
    with pytest.raises(emulated.AcceleratorError) as info:
        LATER_CALLS[call](x, emulated)
    message = str(info.value)
    assert message.splitlines()[0] == "CUDA error: device-side assert triggered"  # PyTorch's
    assert "context of emulated device cuda:0 is unusable" in message
    assert "'gather'" in message and f"{__file__}:" in message  # the op and line that failed
    assert "index 9" in message and "restart the kernel" in message
    assert "jtensor.cuda._reset_broken_context()" in message  # the emulator says how tests fix it
    assert isinstance(info.value, RuntimeError)


def test_host_side_queries_and_cpu_work_go_on(emulated):
    x = _break(emulated)
    # PyTorch reads these on the host (device_count is cached when CUDA starts; the
    # allocator's statistics are its own counters): no CUDA call, no error
    assert emulated.is_available() and emulated.device_count() == 1
    assert emulated.memory_allocated() >= 512 and emulated.memory_reserved() >= 512
    assert emulated.max_memory_allocated() >= emulated.memory_allocated()
    assert "Emulated" in emulated.get_device_name()
    assert x.device.type == "cuda" and x.shape == (4,)  # metadata lives on the host
    y = jtensor.arange(3.0) * 2  # the CPU is another device
    assert y.tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(emulated.AcceleratorError):
        x.cpu()


@pytest.mark.parametrize("emulated", [(2, 1 << 30)], indirect=True)
def test_the_broken_context_is_the_devices_own(emulated):
    _break(emulated)  # on cuda:0
    z = jtensor.ones(2, device="cuda:1") + 1
    assert z.tolist() == [2.0, 2.0]
    with pytest.raises(emulated.AcceleratorError, match="emulated device cuda:0 is unusable"):
        z.to("cuda:0")
    with pytest.raises(emulated.AcceleratorError, match="emulated device cuda:0 is unusable"):
        jtensor.ones(1, device="cuda:0")
    assert emulated._reset_broken_context("cuda:0")
    assert jtensor.ones(1, device="cuda:0").tolist() == [1.0]


def test_the_test_reset_repairs_the_emulated_context(emulated):
    assert not emulated._reset_broken_context()  # nothing broken: nothing to do
    x = _break(emulated)
    assert emulated._reset_broken_context()
    assert (x + 1).tolist() == [1.0, 2.0, 3.0, 4.0]
    emulated.synchronize()
    # an assert not reported yet is dropped by the reset too
    jtensor.take(x, jtensor.tensor([7], device="cuda"))
    assert not emulated._reset_broken_context()
    emulated.synchronize()
    assert repr(x) == "tensor([0., 1., 2., 3.], device='cuda:0')"


def test_a_kernel_that_reads_out_of_bounds_is_sticky_other_failures_are_not(emulated):
    backend = runtime.backend(0)

    def out_of_bounds():
        np.arange(3)[5]  # IndexError: on a GPU an illegal memory access, sticky

    def bad_argument():
        raise ValueError("an argument the launch refuses")  # cleared once read, in CUDA

    backend.launch("refuses", bad_argument)
    with pytest.raises(emulated.AcceleratorError) as info:
        emulated.synchronize()
    assert info.value.args[0].startswith("CUDA error: the kernel 'refuses' failed")
    assert "not sticky" in str(info.value)
    assert jtensor.ones(2, device="cuda").sum().item() == 2.0  # the device works on
    backend.launch("reads past the end", out_of_bounds)
    with pytest.raises(emulated.AcceleratorError, match="This error is sticky"):
        emulated.synchronize()
    with pytest.raises(emulated.AcceleratorError, match="'reads past the end' launched at"):
        jtensor.ones(2, device="cuda")
