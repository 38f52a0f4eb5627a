"""The CPU backend's buffer cache (``jtensor.cpu``, issue 18): its API, that freed blocks are
reused, and that memory someone still holds is never handed to a new tensor."""

import gc
import io
import pickle
import random

import numpy as np
import pytest

import jtensor
from jtensor import cpu

# Big enough to bypass small-object pools and reach the heap's big blocks (512 KiB).
N = 128 * 1024


def _span(t):
    """The byte range of ``t``'s storage."""
    start = t.untyped_storage().data_ptr()
    return start, start + t.untyped_storage().nbytes()


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


def _churn(held_span, held_check, rounds=20):
    """Allocate, fill and free many tensors of the held block's size: none may land on the
    held memory, and the held values must stay as they were."""
    for i in range(rounds):
        fresh = [jtensor.full((N,), float(1000 + i)) for _ in range(3)]
        scratch = jtensor.empty(N)
        scratch.fill_(-7.0)
        for t in fresh + [scratch]:
            assert not _overlap(_span(t), held_span)
        del fresh, scratch  # (freed at once: storages hold no cycles)
        held_check()


# ------------------------------------------------------------------------------ the API


def test_torch_cpu_device_functions_as_pytorch():
    torch = pytest.importorskip("torch")
    assert cpu.is_available() == torch.cpu.is_available()
    assert cpu.is_initialized() == torch.cpu.is_initialized()
    assert cpu.device_count() == torch.cpu.device_count()
    assert cpu.current_device() == torch.cpu.current_device()
    assert cpu.synchronize() is None
    assert jtensor.cpu is cpu


def test_stats_and_limit():
    stats = cpu.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "reserved_bytes.all.current",
        "cached_bytes",
        "cache_limit",
        "max_block_bytes",
        "num_empty_cache",
        "available",
    ):
        assert key in stats
    assert cpu.get_cache_limit() == stats["cache_limit"] == cpu.DEFAULT_LIMIT
    assert cpu.memory_allocated() >= 0 and cpu.memory_reserved() >= cpu.memory_cached() >= 0
    try:
        cpu.set_cache_limit(1 << 20)
        assert cpu.get_cache_limit() == 1 << 20 == cpu.memory_stats()["cache_limit"]
        cpu.set_cache_limit(0)
        assert cpu.memory_stats()["max_block_bytes"] == 0
    finally:
        cpu.set_cache_limit(cpu.DEFAULT_LIMIT)
    with pytest.raises(TypeError, match="nbytes must be an int"):
        cpu.set_cache_limit(1.5)
    with pytest.raises(TypeError, match="nbytes must be an int"):
        cpu.set_cache_limit(True)
    with pytest.raises(ValueError, match="nbytes must be >= 0, got -1"):
        cpu.set_cache_limit(-1)
    assert cpu.get_cache_limit() == cpu.DEFAULT_LIMIT


@pytest.mark.skipif(not cpu.memory_stats()["available"], reason="no glibc heap statistics")
def test_freed_blocks_are_cached_reused_and_emptied():
    gc.collect()
    before = cpu.memory_stats()["num_empty_cache"]
    nbytes = 4 * N * 4
    slack = 256 << 10  # other objects made meanwhile
    x = jtensor.ones(4 * N)  # 2 MiB: a block of the heap, not a mapping
    in_use = cpu.memory_allocated()
    held = cpu.memory_reserved()
    del x
    assert cpu.memory_cached() >= nbytes  # kept, not given back to the OS
    assert cpu.memory_allocated() <= in_use - nbytes + slack
    # The same size again takes a freed block: nothing more is asked of the OS.
    for _ in range(5):
        y = jtensor.empty(4 * N)
        y.fill_(1.0)
        assert cpu.memory_reserved() <= held + slack
        del y
    cpu.empty_cache()
    assert cpu.memory_stats()["num_empty_cache"] == before + 1


# ------------------------------------------------- memory someone holds is never reused


def test_a_live_tensor_keeps_its_memory():
    t = jtensor.full((N,), 3.0)
    view = t[10:20]
    del t
    span = _span(view)
    _churn(span, lambda: np.testing.assert_array_equal(view.numpy(), 3.0))


def test_an_array_from_numpy_keeps_the_memory():
    t = jtensor.full((N,), 5.0)
    arr = t.numpy()
    span = _span(t)
    del t
    _churn(span, lambda: np.testing.assert_array_equal(arr, 5.0))


def test_a_view_of_an_array_from_numpy_keeps_the_memory():
    t = jtensor.full((N,), 6.0)
    piece = t.numpy()[::7][5:9]  # a view of the view: its base is the owner
    span = _span(t)
    del t
    _churn(span, lambda: np.testing.assert_array_equal(piece, 6.0))


def test_a_dlpack_consumer_keeps_the_memory():
    t = jtensor.full((N,), 7.0)
    consumer = np.from_dlpack(t)
    span = _span(t)
    del t
    _churn(span, lambda: np.testing.assert_array_equal(consumer, 7.0))


def test_a_torch_dlpack_consumer_keeps_the_memory():
    torch = pytest.importorskip("torch")
    t = jtensor.full((N,), 8.0)
    consumer = torch.from_dlpack(t)
    span = _span(t)
    del t
    _churn(span, lambda: torch.testing.assert_close(consumer, torch.full((N,), 8.0)))


def test_pickled_and_saved_storages_keep_their_memory():
    t = jtensor.full((N,), 9.0)
    again = pickle.loads(pickle.dumps(t, protocol=5))
    buffer = io.BytesIO()
    jtensor.save(t, buffer)
    buffer.seek(0)
    loaded = jtensor.load(buffer)
    spans = [_span(again), _span(loaded)]
    del t

    def check():
        for x in (again, loaded):
            np.testing.assert_array_equal(x.numpy(), 9.0)

    for span in spans:
        _churn(span, check, rounds=5)


def test_a_storage_shared_by_from_numpy_keeps_the_memory():
    arr = np.full(N, 4.0, dtype=np.float32)
    t = jtensor.from_numpy(arr)
    storage = t.untyped_storage()
    del t
    _churn(
        (arr.ctypes.data, arr.ctypes.data + arr.nbytes),
        lambda: np.testing.assert_array_equal(arr, 4.0),
    )
    assert storage.nbytes() == arr.nbytes


def test_stress_live_tensors_never_share_memory():
    """Keep random subsets alive while allocating and freeing blocks of a few size classes:
    every live tensor keeps its own values, and no two live tensors' storages overlap."""
    rng = random.Random(18)
    sizes = [N // 2, N, N + 100, 2 * N]
    live = {}
    for step in range(300):
        make = rng.choice(("full", "empty", "op", "grad"))
        n = rng.choice(sizes)
        value = float(step)
        if make == "full":
            t = jtensor.full((n,), value)
        elif make == "empty":
            t = jtensor.empty(n)
            t.fill_(value)
        elif make == "op":
            t = jtensor.zeros(n) + value
        else:
            w = jtensor.zeros(n, requires_grad=True)
            (w * 1.0).sum().backward()
            t = w.grad.mul_(value)
        live[step] = (t, value)
        for key in rng.sample(sorted(live), k=rng.randint(0, min(3, len(live)))):
            del live[key]
        if step % 100 == 0:
            gc.collect()
        spans = sorted((_span(t), key) for key, (t, _) in live.items())
        for (a, _), (b, _) in zip(spans, spans[1:], strict=False):
            assert not _overlap(a, b)
        for t, expected in live.values():
            assert bool((t == expected).all())
