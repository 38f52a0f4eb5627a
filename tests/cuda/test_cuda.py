"""CUDA semantics on the emulated device: sync points, asynchronous launches, deferred kernel
errors, events, streams, the caching allocator's statistics, transfers and cross-device rules.

Each test starts CUDA afresh (``runtime._reset``) so configurations do not leak into other
tests of the same process. Where a real GPU is used instead (CuPy), run with
``JTENSOR_TEST_REAL_CUDA=1`` to skip the emulator-only checks.
"""

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import jtensor
from jtensor import _dispatch
from jtensor.cuda._runtime import runtime

MIB = 1024 * 1024


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.delenv("JTENSOR_EMULATE_CUDA", raising=False)
    runtime._reset()
    monkeypatch.setattr(runtime, "_start_cupy",
                        lambda: setattr(runtime, "mode", "none") or
                        setattr(runtime, "why_none", "CuPy is not installed (test)"))
    yield
    runtime._reset()


@pytest.fixture
def events():
    seen = []
    previous = _dispatch.event_hook
    _dispatch.event_hook = lambda kind, info: seen.append((kind, info))
    yield seen
    _dispatch.event_hook = previous


def gate(backend):
    """A kernel that holds the device until the returned event is set."""
    opened = threading.Event()
    backend.launch("gate", opened.wait, 10)
    return opened


# ---------------------------------------------------------------------- without CUDA
def test_no_cuda_is_reported_with_how_to_emulate(no_cuda):
    assert jtensor.cuda.is_available() is False
    assert jtensor.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="JTENSOR_EMULATE_CUDA=1") as info:
        jtensor.zeros(2, device="cuda")
    assert "jtensor.cuda.emulate()" in str(info.value)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        jtensor.ones(2).cuda()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        jtensor.ones(2).pin_memory()
    assert "emulate" in repr(jtensor.cuda)


def test_environment_switches_emulation_on_and_launch_blocking():
    code = (
        "import warnings, jtensor as t\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    x = t.arange(4, device='cuda'); y = t.arange(3, device='cuda')\n"
        "print(len([m for m in w if 'EMULATED' in str(m.message)]))\n"
        "print(t.cuda.get_device_name(), t.cuda.is_launch_blocking(), t.cuda.device_count())\n"
        "try:\n"
        "    x.index_select(0, t.tensor([9], device='cuda'))\n"
        "except RuntimeError as e:\n"
        "    print('raised at launch')\n"
        "import sys; print('cupy' in sys.modules)\n")
    env = {"JTENSOR_EMULATE_CUDA": "2", "CUDA_LAUNCH_BLOCKING": "1", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "1"   # the one-time notice
    assert lines[1] == "Emulated CUDA device (NumPy on the CPU) True 2"
    assert lines[2] == "raised at launch"
    assert lines[3] == "False"   # the emulator never imports CuPy


# ---------------------------------------------------------------------- devices
def test_emulated_device_says_so(emulated):
    assert emulated.is_available() and emulated.is_emulated()
    assert "Emulated" in emulated.get_device_name()
    assert "EMULATED" in repr(jtensor.cuda)
    assert emulated.get_device_properties().is_emulated
    assert emulated.current_device() == 0


def test_factories_take_device(emulated):
    for make in (lambda d: jtensor.zeros(2, 3, device=d), lambda d: jtensor.ones(4, device=d),
                 lambda d: jtensor.full((2,), 7, device=d),
                 lambda d: jtensor.arange(5, device=d),
                 lambda d: jtensor.tensor([[1, 2], [3, 4]], device=d),
                 lambda d: jtensor.eye(3, device=d), lambda d: jtensor.linspace(0, 1, 5, device=d)):
        on_cuda, on_cpu = make("cuda"), make("cpu")
        assert on_cuda.device == jtensor.device("cuda", 0) and on_cuda.is_cuda
        assert on_cuda.cpu().tolist() == on_cpu.tolist()
        assert on_cuda.stride() == on_cpu.stride() and on_cuda.dtype == on_cpu.dtype
    r = jtensor.randn(1000, device="cuda")
    assert r.device.type == "cuda" and abs(r.mean().item()) < 0.2


def test_cuda_seed_reproduces(emulated):
    emulated.manual_seed(3)
    a = jtensor.rand(5, device="cuda").tolist()
    emulated.manual_seed(3)
    assert jtensor.rand(5, device="cuda").tolist() == a
    jtensor.manual_seed(3)   # seeds every device, as in PyTorch
    assert jtensor.rand(5, device="cuda").tolist() == a


def test_cuda_rng_state_round_trip(emulated):
    # A resumed run restores the GPU's generator too: the state is a CPU uint8 tensor, and
    # restoring it repeats the draws (as torch.cuda.get_rng_state/set_rng_state).
    emulated.manual_seed(5)
    state = emulated.get_rng_state()
    assert state.device.type == "cpu" and state.dtype == jtensor.uint8
    first = jtensor.rand(4, device="cuda").tolist()
    emulated.set_rng_state(state)
    assert jtensor.rand(4, device="cuda").tolist() == first
    states = emulated.get_rng_state_all()
    assert len(states) == emulated.device_count()
    again = jtensor.rand(4, device="cuda").tolist()
    emulated.set_rng_state_all(states)
    assert jtensor.rand(4, device="cuda").tolist() == again != first
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        emulated.get_rng_state(7)


def test_cross_device_errors_and_allowed_mixes(emulated):
    x = jtensor.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, "
                       r"but found at least two devices, cuda:0 and cpu!$"):
        x + jtensor.ones(3)
    with pytest.raises(RuntimeError, match="same device"):
        jtensor.ones(2, 3) @ jtensor.ones(3, 2, device="cuda")
    # 0-d CPU tensors and Python numbers join any device, as in PyTorch
    assert (x + jtensor.tensor(2.0)).tolist() == [3.0, 3.0, 3.0]
    assert (x * 2).device == x.device
    with pytest.raises(RuntimeError, match="invalid device ordinal") as info:
        jtensor.zeros(1, device="cuda:3")
    assert "cuda:3" in str(info.value) and "1 CUDA device" in str(info.value)
    # torch.AcceleratorError, a RuntimeError, as torch CUDA raises on a real one-GPU machine
    assert type(info.value) is jtensor.AcceleratorError
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. "
                       r"Use Tensor\.cpu\(\) to copy the tensor to host memory first\."):
        x.numpy()


@pytest.mark.parametrize("emulated", [(2, 8 * 1024 ** 3)], indirect=True)
def test_two_devices(emulated):
    a = jtensor.ones(2, device="cuda:0")
    b = a.to("cuda:1")
    assert b.device == jtensor.device("cuda:1") and b.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="cuda:0 and cuda:1"):
        a + b
    with emulated.device(1):
        assert emulated.current_device() == 1
        assert jtensor.zeros(1, device="cuda").device.index == 1
    assert emulated.current_device() == 0
    emulated.set_device(1)
    try:
        assert jtensor.ones(1).cuda().device.index == 1
    finally:
        emulated.set_device(0)


@pytest.mark.parametrize("emulated", [(2, 8 * 1024 ** 3)], indirect=True)
def test_peer_access_between_emulated_devices(emulated):
    assert emulated.can_device_access_peer(0, 1) and emulated.can_device_access_peer("cuda:1", 0)
    assert not emulated.can_device_access_peer(1, 1)            # never its own peer
    assert emulated.can_device_access_peer(None, jtensor.device("cuda:1"))
    with pytest.raises(AssertionError, match="Invalid device id"):
        emulated.can_device_access_peer(2, 0)
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        emulated.can_device_access_peer(0, -1)


# ---------------------------------------------------------------------- asynchronous execution
def test_launch_returns_before_the_kernel_runs(emulated):
    backend = runtime.backends[0]
    x = jtensor.arange(6.0, device="cuda")
    opened = gate(backend)
    y = (x * 2 + 1) @ x            # queued behind the gate: the host does not wait
    assert not emulated.current_stream().query()   # (waiting would have deadlocked here)
    opened.set()
    assert y.item() == sum((2 * v + 1) * v for v in range(6))   # .item() waits
    assert emulated.current_stream().query()


def test_sync_points_emit_events(emulated, events):
    x = jtensor.arange(4.0, device="cuda")
    y = x + 1
    y.sum().item()
    y.tolist()
    repr(y)
    y.cpu()
    emulated.synchronize()
    y[y > 2]                      # a boolean mask: the result's size needs the values
    jtensor.nonzero(y)
    reasons = [info["reason"] for kind, info in events if kind == "sync"]
    assert reasons == ["item", "tolist", "print", "cpu", "synchronize", "data-dependent",
                       "data-dependent"]
    launches = [info["op"] for kind, info in events if kind == "launch"]
    assert "add" in launches
    transfers = [(info["src"], info["dst"]) for kind, info in events if kind == "transfer"]
    assert ("cuda:0", "cpu") in transfers


def test_deferred_kernel_error_surfaces_at_the_next_sync(emulated):
    weights = jtensor.randn(4, 2, device="cuda")
    picked = weights.index_select(0, jtensor.tensor([1, 9], device="cuda"))  # no error here
    doubled = picked * 2                                                      # nor here
    with pytest.raises(emulated.DeviceSideError) as info:
        emulated.synchronize()
    message = str(info.value)
    assert message.startswith("CUDA error: device-side assert triggered")
    assert "index 9 is out of bounds for dimension 0 with size 4" in message
    assert f"{__file__}:" in message and "CUDA_LAUNCH_BLOCKING=1" in message
    assert isinstance(info.value, RuntimeError)
    del doubled
    # sticky, as on a GPU: the device refuses work until the (test-only) reset
    with pytest.raises(emulated.AcceleratorError, match="context of emulated device cuda:0"):
        (weights[:1] * 0).sum().item()
    assert emulated._reset_broken_context()
    assert (weights[:1] * 0).sum().item() == 0.0


def test_embedding_out_of_range_is_a_device_side_error(emulated):
    emb = jtensor.nn.Embedding(4, 3).cuda()
    out = emb(jtensor.tensor([0, 4], device="cuda"))
    with pytest.raises(RuntimeError, match="device-side assert"):
        out.sum().item()


def test_launch_blocking_raises_at_the_launch(emulated):
    x = jtensor.arange(3.0, device="cuda")
    emulated.set_launch_blocking(True)
    try:
        with pytest.raises(emulated.DeviceSideError, match="index 5 is out of bounds"):
            x.index_select(0, jtensor.tensor([5], device="cuda"))
    finally:
        emulated.set_launch_blocking(False)


def test_events_time_device_work(emulated):
    backend = runtime.backends[0]
    start, end = emulated.Event(enable_timing=True), emulated.Event(enable_timing=True)
    opened = gate(backend)          # holds the device: neither event can complete yet
    start.record()
    backend.launch("sleep", time.sleep, 0.05)
    end.record()
    assert not end.query()
    with pytest.raises(RuntimeError, match="not completed"):
        start.elapsed_time(end)
    opened.set()
    end.synchronize()
    assert end.query()
    assert 45 <= start.elapsed_time(end) < 5000
    plain = emulated.Event()
    plain.record()
    plain.synchronize()
    # ValueError, as PyTorch's CUDA events (c10/cuda/CUDAEvent.h: TORCH_CHECK_VALUE)
    with pytest.raises(ValueError, match="enable_timing=True"):
        start.elapsed_time(plain)
    with pytest.raises(ValueError, match="must be recorded"):
        emulated.Event(enable_timing=True).elapsed_time(end)


def test_streams(emulated):
    side = emulated.Stream()
    assert side != emulated.current_stream() and emulated.current_stream() == \
        emulated.default_stream()
    x = jtensor.ones(1000, device="cuda")
    with emulated.stream(side):
        assert emulated.current_stream() == side
        y = x * 3
    assert emulated.current_stream() == emulated.default_stream()
    side.synchronize()
    assert side.query()
    emulated.current_stream().wait_stream(side)
    assert y.sum().item() == 3000.0
    event = side.record_event()
    event.synchronize()
    assert event.query()


# ---------------------------------------------------------------------- memory
def test_caching_allocator_statistics(emulated):
    emulated.empty_cache()
    base = emulated.memory_allocated()
    emulated.reset_peak_memory_stats()
    x = jtensor.zeros(1, device="cuda")            # 4 bytes -> one 512-byte block
    assert emulated.memory_allocated() - base == 512
    assert emulated.memory_reserved() >= 2 * MIB
    big = jtensor.empty(MIB, device="cuda")         # 4 MiB -> a 20 MiB segment
    assert emulated.memory_allocated() - base == 512 + 4 * MIB
    reserved = emulated.memory_reserved()
    del big
    assert emulated.memory_allocated() - base == 512            # freed to the cache...
    assert emulated.memory_reserved() == reserved               # ...not to the device
    assert emulated.max_memory_allocated() - base == 512 + 4 * MIB
    emulated.empty_cache()
    assert emulated.memory_reserved() < reserved
    emulated.reset_peak_memory_stats()
    assert emulated.max_memory_allocated() == emulated.memory_allocated()
    huge = jtensor.empty(10 * MIB, device="cuda")    # 40 MiB: its own segment, 2 MiB rounded
    assert emulated.memory_stats()["allocated_bytes.all.current"] == \
        emulated.memory_allocated()
    del huge, x
    assert "emulated" in emulated.memory_summary()
    free, total = emulated.mem_get_info()
    assert 0 < free <= total


def test_cumulative_memory_stats_and_their_reset(emulated):
    # "allocated_bytes.all.allocated"/"freed" count every block ever handed out/returned
    # (rounded sizes, as on the H100 where torch CUDA listed them); resetting the accumulated
    # statistics zeroes those counts and keeps the current figures.
    emulated.empty_cache()
    emulated.reset_accumulated_memory_stats()
    before = emulated.memory_stats()
    assert before["allocated_bytes.all.allocated"] == before["allocated_bytes.all.freed"] == 0
    x = jtensor.zeros(250, device="cuda")          # 1000 bytes -> a 1024-byte block
    y = jtensor.zeros(1, device="cuda")            # 512
    del x
    stats = emulated.memory_stats()
    assert stats["allocated_bytes.all.allocated"] == 1536
    assert stats["allocated_bytes.all.freed"] == 1024
    assert stats["allocated_bytes.all.current"] == before["allocated_bytes.all.current"] + 512
    assert stats["allocation.all.allocated"] - stats["allocation.all.freed"] == 1
    emulated.reset_accumulated_memory_stats()
    stats = emulated.memory_stats()
    assert stats["allocated_bytes.all.allocated"] == stats["allocated_bytes.all.freed"] == 0
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 0
    assert stats["allocation.all.current"] == before["allocation.all.current"] + 1
    del y
    stats = emulated.memory_stats()
    assert stats["allocated_bytes.all.freed"] == 512
    assert stats["allocation.all.current"] == before["allocation.all.current"]


def test_freeing_while_the_allocator_is_busy_never_deadlocks():
    # The garbage collector can run a storage's finalizer at any allocation, so inside the
    # allocator's own locked section (found by the random programs on the emulated device,
    # where backward hung for good). ``free`` must return at once and the block be counted
    # free by the time any figure is read.
    from jtensor.cuda._allocator import SMALL_SEGMENT, CachingAllocator

    allocator = CachingAllocator(0, 64 * MIB)
    block = allocator.malloc(100)
    done = threading.Event()

    def free_under_the_lock():
        with allocator._lock:          # as if the collector ran inside malloc
            allocator.free(block)
        done.set()

    worker = threading.Thread(target=free_under_the_lock, daemon=True)
    worker.start()
    assert done.wait(10), "free() waited for the allocator's own lock"
    assert allocator.current() == (0, SMALL_SEGMENT)
    assert allocator.stats()["allocation.all.freed"] == 1
    again = allocator.malloc(100)      # the freed block's bytes come back from the cache
    assert again.size == 512 and allocator.current()[0] == 512


def test_empty_shows_old_device_memory(emulated):
    a = jtensor.full((256,), 7.0, device="cuda")
    a.sum().item()
    del a
    b = jtensor.empty(256, device="cuda")           # the freed block comes back
    assert b.tolist() == [7.0] * 256


@pytest.mark.parametrize("emulated", [(1, 64 * MIB)], indirect=True)
def test_out_of_memory(emulated):
    with pytest.raises(emulated.OutOfMemoryError, match="CUDA out of memory. Tried to "
                       "allocate 100.00 MiB") as info:
        jtensor.empty(25 * MIB, device="cuda")
    assert isinstance(info.value, RuntimeError)
    assert emulated.memory_stats()["num_ooms"] == 1


# ---------------------------------------------------------------------- transfers
def test_device_memory_is_separate_from_host_memory(emulated):
    host = np.arange(4.0)
    on_device = jtensor.tensor(host, device="cuda")
    moved = jtensor.from_numpy(host).cuda()
    as_tensor = jtensor.as_tensor(host, device="cuda")
    host[0] = 99
    assert on_device.tolist()[0] == moved.tolist()[0] == as_tensor.tolist()[0] == 0.0
    back = moved.cpu()
    back[1] = -1
    assert moved.tolist()[1] == 1.0


def test_to_cuda_cpu_and_casts(emulated):
    x = jtensor.arange(6).reshape(2, 3).t()
    y = x.to("cuda", jtensor.float64)
    assert y.device.type == "cuda" and y.dtype == jtensor.float64
    assert y.stride() == x.stride()          # preserve_format, as PyTorch
    assert y.to("cuda") is y and y.cuda() is y
    assert y.cpu().tolist() == x.tolist()
    assert x.cuda(0).device == jtensor.device("cuda:0")
    assert x.type_as(y).device.type == "cuda"


def test_non_blocking_copies(emulated):
    backend = runtime.backends[0]
    pinned = jtensor.arange(4.0).pin_memory()
    assert pinned.is_pinned() and not jtensor.arange(4.0).is_pinned()
    assert pinned.pin_memory() is pinned
    opened = gate(backend)
    on_device = pinned.to("cuda", non_blocking=True)    # queued: reads host memory later
    pinned[0] = 42.0                                    # a race a real GPU has too
    opened.set()
    assert on_device.tolist()[0] == 42.0
    # from pageable memory non_blocking=True works, synchronously
    assert jtensor.arange(3.0).to("cuda", non_blocking=True).tolist() == [0.0, 1.0, 2.0]
    # device to host with non_blocking lands in pinned memory, valid after a sync
    result = (on_device * 2).to("cpu", non_blocking=True)
    assert result.is_pinned() and result.device.type == "cpu"
    emulated.synchronize()
    assert result.tolist() == [84.0, 2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        on_device.pin_memory()


def test_copy_across_devices(emulated):
    target = jtensor.zeros(2, 3, device="cuda")
    target.copy_(jtensor.tensor([1.0, 2.0, 3.0]))          # broadcast from the host
    assert target.tolist() == [[1.0, 2.0, 3.0]] * 2
    host = jtensor.zeros(2, 3, dtype=jtensor.int64)
    host.copy_(target * 2)
    assert host.tolist() == [[2, 4, 6]] * 2
    target[0] = jtensor.tensor([7.0, 8.0, 9.0])
    assert target[0].tolist() == [7.0, 8.0, 9.0]
    target.fill_(5)
    assert target.sum().item() == 30.0


# ---------------------------------------------------------------------- autograd and training
def test_autograd_on_the_device(emulated):
    w_cpu = jtensor.randn(4, 3, dtype=jtensor.float64, requires_grad=True)
    x_cpu = jtensor.randn(5, 4, dtype=jtensor.float64)
    w = w_cpu.detach().cuda().requires_grad_()
    x = x_cpu.cuda()
    loss = (x @ w).tanh().pow(2).mean()
    loss.backward()
    (x_cpu @ w_cpu).tanh().pow(2).mean().backward()
    assert w.grad.device.type == "cuda"
    np.testing.assert_allclose(w.grad.cpu().numpy(), w_cpu.grad.numpy(), rtol=1e-10)
    assert loss.grad_fn.name() == "MeanBackward0"


def test_module_to_and_a_training_step_match_the_cpu(emulated):
    jtensor.manual_seed(0)
    model = jtensor.nn.Sequential(jtensor.nn.Linear(3, 8), jtensor.nn.ReLU(),
                                  jtensor.nn.Linear(8, 2))
    twin = jtensor.nn.Sequential(jtensor.nn.Linear(3, 8), jtensor.nn.ReLU(),
                                 jtensor.nn.Linear(8, 2))
    twin.load_state_dict(model.state_dict())
    model.to("cuda")
    assert all(p.device.type == "cuda" for p in model.parameters())
    data, target = jtensor.randn(16, 3), jtensor.randint(0, 2, (16,))
    for net, d, t in ((model, data.cuda(), target.cuda()), (twin, data, target)):
        opt = jtensor.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            jtensor.nn.functional.cross_entropy(net(d), t).backward()
            opt.step()
    for p, q in zip(model.parameters(), twin.parameters(), strict=True):
        assert p.grad.device.type == "cuda"
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert model.cpu()[0].weight.device.type == "cpu"


def test_deprecated_cuda_amp_names(emulated):
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cuda'"):
        ctx = jtensor.cuda.amp.autocast()
    with ctx:
        y = jtensor.ones(2, 2, device="cuda") @ jtensor.ones(2, 2, device="cuda")
    assert y.dtype == jtensor.float16
    with pytest.warns(FutureWarning, match="GradScaler"):
        jtensor.cuda.amp.GradScaler()


# ---------------------------------------------------------------------- around the core
def test_save_and_load_keep_the_device(emulated, tmp_path):
    x = jtensor.arange(6.0, device="cuda").view(2, 3)
    path = tmp_path / "x.pt"
    jtensor.save({"x": x, "view": x[1]}, path)
    back = jtensor.load(path)
    assert back["x"].device.type == "cuda" and back["x"].tolist() == x.tolist()
    assert back["view"].storage_offset() == 3
    assert jtensor.load(path, map_location="cpu")["x"].device.type == "cpu"
    runtime._reset()
    runtime.mode, runtime.why_none = "none", "test"
    with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
        jtensor.load(path)


def test_device_context_sets_the_default_device(emulated):
    with jtensor.device("cuda"):
        assert jtensor.zeros(2).device.type == "cuda"
        assert jtensor.get_default_device() == jtensor.device("cuda:0")
    assert jtensor.zeros(2).device.type == "cpu"
    jtensor.set_default_device("cuda")
    try:
        assert jtensor.tensor([1, 2]).is_cuda
    finally:
        jtensor.set_default_device(None)


def test_dataloader_pins_batches(emulated):
    data = jtensor.utils.data.TensorDataset(jtensor.arange(8.0).view(4, 2), jtensor.arange(4))
    batches = list(jtensor.utils.data.DataLoader(data, batch_size=2, pin_memory=True))
    assert all(x.is_pinned() and y.is_pinned() for x, y in batches)
    moved = batches[0][0].to("cuda", non_blocking=True)
    assert moved.tolist() == [[0.0, 1.0], [2.0, 3.0]]


def test_forked_child_cannot_use_the_parents_cuda(emulated):
    import multiprocessing

    global _INHERITED
    _INHERITED = jtensor.ones(2, device="cuda")
    (_INHERITED + 1).sum().item()
    context = multiprocessing.get_context("fork")
    answers = context.SimpleQueue()
    child = context.Process(target=_child_uses_cuda, args=(answers,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert answers.get().startswith(
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess")


_INHERITED = None


def _child_uses_cuda(answers):
    try:
        (_INHERITED * 2).tolist()
    except RuntimeError as exc:
        answers.put(f"RuntimeError: {exc}")
        return
    answers.put("no error")


def test_random_draws_on_the_device_are_filled(emulated):
    emulated.manual_seed(1)
    draws = jtensor.empty(4000, device="cuda").bernoulli_(0.25)
    assert 0.2 < draws.mean().item() < 0.3
    picks = jtensor.multinomial(jtensor.tensor([0.0, 1.0, 0.0, 3.0], device="cuda"), 400, True)
    counts = jtensor.bincount(picks.cpu(), minlength=4).tolist()
    assert counts[0] == counts[2] == 0 and counts[3] > 2 * counts[1] > 0


def test_numpy_data_goes_to_the_default_device(emulated):
    jtensor.set_default_device("cuda")
    try:
        assert jtensor.tensor(np.ones(2)).is_cuda
        assert jtensor.as_tensor(np.ones(2)).is_cuda
        assert jtensor.asarray(np.ones(2)).is_cuda
    finally:
        jtensor.set_default_device(None)
    host = np.ones(2)
    shared = jtensor.as_tensor(host)         # default device CPU again: an alias, as before
    assert shared.device.type == "cpu" and np.shares_memory(shared.numpy(), host)


def test_cuda_device_context_with_a_negative_index_or_none_is_a_no_op(no_cuda):
    # ``with torch.cuda.device(args.gpu_index):`` where -1 means "the CPU" (SimCLR's run.py
    # does this): PyTorch changes nothing and starts no CUDA; ``as`` binds None. The CPU is
    # refused with ValueError before CUDA is asked for (no driver here).
    torch = pytest.importorskip("torch")
    for lib in (jtensor, torch):
        for index in (-1, -2):
            with lib.cuda.device(index) as bound:
                assert bound is None
            assert lib.cuda.device(index).idx == index
        with pytest.raises(ValueError, match=r"^Expected a cuda device, but got: cpu$"):
            lib.cuda.device("cpu")
    with jtensor.cuda.device(None) as bound:  # PyTorch's own fails here (a TypeError)
        assert bound is None
    assert runtime.mode is None  # CUDA was never started


def test_cuda_device_context_switches_and_restores(emulated):
    with jtensor.cuda.device(0) as bound:
        assert bound is None and jtensor.cuda.current_device() == 0
    with jtensor.cuda.device("cuda:0"):
        assert jtensor.zeros(1, device="cuda").device == jtensor.device("cuda:0")
