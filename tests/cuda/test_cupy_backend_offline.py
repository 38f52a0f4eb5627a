"""The CuPy backend's memory path without a GPU: ``jtensor/cuda/_cupy.py`` imported against
a stand-in ``cupy`` (NumPy buffers, a device that fails allocations on request), so CI
checks the code that only a lent GPU runs otherwise.

The expected figures are torch.cuda's on an H100 (torch 2.11, 2026-11-26) for the same
sequence of allocations, read by bench/gpu_semantics.py: CuPy's own pool reserved exactly
what was allocated, where PyTorch reserves 2 MiB and 20 MiB segments."""

import gc
import sys
import types

import numpy as np
import pytest

TORCH_H100 = [  # (memory_allocated, memory_reserved) after each step, from torch.cuda
    (512, 2097152),  # 1 byte
    (1536, 2097152),  # + 1000 bytes
    (263680, 2097152),  # + 256 KiB
    (3409408, 23068672),  # + 3 MiB
    (55838208, 75497472),  # + 50 MiB
    (3409408, 75497472),  # the 50 MiB freed: cached
    (55838208, 75497472),  # 50 MiB again: the cached block
]


class _Pool:
    freed = False

    def free_all_blocks(self):
        self.freed = True


@pytest.fixture
def backend(monkeypatch):
    cupy = types.ModuleType("cupy")
    cuda = types.ModuleType("cupy.cuda")
    memory = types.ModuleType("cupy.cuda.memory")
    runtime = types.ModuleType("cupy.cuda.runtime")
    cupyx = types.ModuleType("cupyx")

    class OutOfMemoryError(MemoryError):
        pass

    class Device:
        def __init__(self, index):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def synchronize(self):
            pass

    failures = [0]

    def empty(nbytes, dtype=None):
        if failures[0]:
            failures[0] -= 1
            raise OutOfMemoryError("out of memory to allocate")
        return np.empty(nbytes, dtype=dtype)

    memory.OutOfMemoryError = OutOfMemoryError
    runtime.getDeviceProperties = lambda index: {"totalGlobalMem": 80 << 30, "name": b"H100"}
    runtime.memGetInfo = lambda: (0, 80 << 30)
    cuda.memory, cuda.runtime, cuda.Device = memory, runtime, Device
    cuda.get_current_stream = lambda: Device(0)
    cupy.asnumpy = np.asarray
    pool = _Pool()
    cupy.cuda, cupy.uint8, cupy.empty = cuda, np.uint8, empty
    cupy.get_default_memory_pool = lambda: pool
    errstate = {}
    cupyx.seterr = errstate.update
    # CuPy's kernel compiler as laid out in CuPy 13 and 14: the cached path appends
    # -ftz=true to every kernel's options, then NVRTC compiles with them.
    compiler = types.ModuleType("cupy.cuda.compiler")
    compiled = []

    class _NVRTCProgram:
        def __init__(self, source):
            self.source = source

        def compile(self, options=(), log_stream=None):
            compiled.append(tuple(options))
            return b"ptx", None

    def _compile_with_cache_cuda(source, options, arch, extra_source=None, backend="nvrtc"):
        options += ("-ftz=true",)
        return compiler._NVRTCProgram(source).compile(options)

    compiler._NVRTCProgram = _NVRTCProgram
    compiler._compile_with_cache_cuda = _compile_with_cache_cuda
    cuda.compiler = compiler
    for name, module in [
        ("cupy", cupy),
        ("cupy.cuda", cuda),
        ("cupy.cuda.compiler", compiler),
        ("cupy.cuda.memory", memory),
        ("cupy.cuda.runtime", runtime),
        ("cupyx", cupyx),
    ]:
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "jtensor.cuda._cupy", raising=False)
    monkeypatch.delenv("JTENSOR_CUDA_FTZ", raising=False)  # the hook as a user gets it
    from jtensor.cuda._cupy import CupyBackend

    made = CupyBackend(0, runtime=types.SimpleNamespace(launch_blocking=False))
    made.stand_in = types.SimpleNamespace(pool=pool, failures=failures, errstate=errstate,
                                          compiler=compiler, compiled=compiled)
    yield made
    sys.modules.pop("jtensor.cuda._cupy", None)


class _Storage:
    def __init__(self, backend, nbytes):
        self._bytes = backend.allocate(nbytes)
        backend.adopt(self)


def _figures(backend):
    return backend.memory_allocated(), backend.memory_reserved()


def test_memory_figures_are_pytorchs(backend):
    steps, live = [], []
    for nbytes in (1, 1000, 262144, 3145728):
        live.append(_Storage(backend, nbytes))
        steps.append(_figures(backend))
    big = _Storage(backend, 50 << 20)
    steps.append(_figures(backend))
    del big
    gc.collect()
    steps.append(_figures(backend))
    big = _Storage(backend, 50 << 20)
    steps.append(_figures(backend))
    assert steps == TORCH_H100
    del big, live
    gc.collect()
    backend.empty_cache()
    assert _figures(backend) == (0, 0) and backend.stand_in.pool.freed


def test_kernels_keep_subnormals_as_pytorchs_do(backend, monkeypatch):
    # CuPy compiles with -ftz=true, which flushes float32 subnormals (on the H100, 1e-45 * 1
    # gave 0 and 1e-45 != 0 gave False; torch CUDA gave 1e-45 and True). jtensor's kernels are
    # compiled with -ftz=false, under a define that keeps their cache entries apart.
    import jtensor.cuda._cupy as backend_module

    compiler, compiled = backend.stand_in.compiler, backend.stand_in.compiled
    assert backend_module.SUBNORMALS is True
    compiler._compile_with_cache_cuda("kernel", ("--std=c++17",), None)
    assert compiled[-1] == ("--std=c++17", backend_module.KEEP_SUBNORMALS, "-ftz=false")
    compiler._NVRTCProgram("kernel").compile(("-ftz=true",))  # not through the cached path
    assert compiled[-1] == ("-ftz=true",)
    assert backend_module.keep_subnormals() is True  # a second call hooks nothing twice
    compiler._compile_with_cache_cuda("kernel", (), None)
    assert compiled[-1] == (backend_module.KEEP_SUBNORMALS, "-ftz=false")
    monkeypatch.setenv("JTENSOR_CUDA_FTZ", "1")
    assert backend_module.keep_subnormals() is False


def test_cusolver_errors_are_checked(backend):
    assert backend.stand_in.errstate == {"linalg": "raise"}


def test_out_of_memory_retries_after_emptying_the_cache_then_raises_pytorchs_error(backend):
    from jtensor.cuda._allocator import OutOfMemoryError

    backend.stand_in.failures[0] = 1  # the first try fails, the one after emptying works
    kept = _Storage(backend, 100)
    assert backend.memory_allocated() == 512
    backend.stand_in.failures[0] = 2
    with pytest.raises(OutOfMemoryError, match=r"CUDA out of memory. Tried to allocate 512 "):
        _Storage(backend, 100)
    assert backend.memory_allocated() == 512  # the failed request left no trace
    assert isinstance(OutOfMemoryError("x"), RuntimeError)
    del kept


def test_an_index_out_of_range_is_reported_at_the_next_sync(backend):
    from jtensor.cuda._emulator import AcceleratorError

    backend.device_assert("gather", RuntimeError("index 9 is out of bounds"))
    backend.device_assert("take", RuntimeError("index 7 is out of bounds"))  # not reported
    with pytest.raises(AcceleratorError, match="device-side assert triggered") as info:
        backend.synchronize()
    assert "'gather'" in str(info.value) and "index 9" in str(info.value)
    assert __file__ in str(info.value)  # the launch site: the caller's line
    assert "This error is sticky" in str(info.value)
    assert "the GPU itself is unharmed" in str(info.value)  # jtensor checked on the host
    assert backend.repair()  # the test-only reset
    backend.device_assert("index", RuntimeError("index 5 is out of bounds"))
    with pytest.raises(AcceleratorError, match="a copy to the host"):
        backend.to_host(np.zeros(2))
    assert backend.repair()
    backend.runtime.launch_blocking = True
    with pytest.raises(AcceleratorError, match="CUDA_LAUNCH_BLOCKING"):
        backend.device_assert("index", RuntimeError("index 5 is out of bounds"))


def test_after_a_device_side_assert_every_call_raises_until_the_reset(backend):
    from jtensor.cuda._emulator import AcceleratorError

    kept = _Storage(backend, 100)
    backend.device_assert("gather", RuntimeError("index 9 is out of bounds"))
    with pytest.raises(AcceleratorError):
        backend.synchronize()
    later = {  # what PyTorch's broken context refuses, by its entry point here
        "synchronize": backend.synchronize,
        "a copy to the host": lambda: backend.to_host(np.zeros(2)),
        "a copy from the host": lambda: backend.from_host(np.zeros(2)),
        "a kernel launch": lambda: backend.launch("add", lambda: None),
        "a new tensor": lambda: _Storage(backend, 100),
        "another index kernel": lambda: backend.device_assert("take", IndexError("index 3")),
        "a queued copy to the host": lambda: backend.copy_async_to_host(np.zeros(2), None),
    }
    for what, call in later.items():
        with pytest.raises(AcceleratorError) as info:
            call()
        message = str(info.value)
        assert message.splitlines()[0] == "CUDA error: device-side assert triggered", what
        assert "context of device cuda:0 is unusable" in message, what
        assert "'gather'" in message and __file__ in message and "index 9" in message, what
        assert "restart the kernel" in message, what
        assert "_reset_broken_context" not in message, what  # a real GPU has no repair
    # host-side counters still answer, as torch.cuda.memory_allocated does
    assert backend.memory_allocated() == 512
    assert backend.repair() and not backend.repair()
    backend.synchronize()
    np.testing.assert_array_equal(backend.to_host(np.ones(2)), [1.0, 1.0])
    del kept


class _SaturatingArray(np.ndarray):
    """A device array as the H100 converts: float to uint8 saturates (-1.0 gives 0, 300.0
    gives 255), where the x86 CPU and NumPy wrap."""

    def astype(self, dtype, *args, **kwargs):
        plain = self.view(np.ndarray)
        if np.dtype(dtype) == np.uint8 and plain.dtype.kind == "f":
            return np.clip(np.nan_to_num(plain), 0, 255).astype(np.uint8).view(type(self))
        return plain.astype(dtype, *args, **kwargs).view(type(self))


def test_float_to_uint8_wraps_through_int64_on_a_device():
    # PyTorch's kernels convert float to uint8 through int64, on CUDA as on the CPU
    # (c10's static_cast_with_inter_type): -1.0 is 255, 300.0 is 44, -2.0 is 254.
    from jtensor._ops.copies import cast_array

    values = np.array([1.0, -1.0, 300.0, -2.0, 44.7], dtype=np.float32)
    device = values.view(_SaturatingArray)
    assert device.astype(np.uint8).tolist() == [1, 0, 255, 0, 44]  # the stand-in saturates
    assert cast_array(device, np.dtype(np.uint8)).tolist() == [1, 255, 44, 254, 44]
    assert cast_array(values, np.dtype(np.uint8)).tolist() == [1, 255, 44, 254, 44]
