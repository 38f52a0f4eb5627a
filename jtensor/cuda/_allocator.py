"""The emulated device's caching allocator: PyTorch's block and segment rules, in bookkeeping.

PyTorch rounds every request up to a multiple of 512 bytes and carves blocks out of
segments it reserves from the driver: requests of at most 1 MiB come from 2 MiB segments,
requests under 10 MiB from 20 MiB segments, bigger ones get a segment of their own rounded
up to 2 MiB. Freeing a tensor returns its block to the cache (``memory_allocated`` drops,
``memory_reserved`` does not); ``empty_cache`` hands segments with no live block back.

The bytes themselves are NumPy buffers. A freed block's buffer is kept with the cache and
handed to the next request of the same size, so ``empty`` on the emulated device shows the
old contents, as uninitialised memory on a GPU does.
"""

import collections
import threading
import weakref

import numpy as np

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
ROUND = 512
SMALL_REQUEST = 1 * MIB
SMALL_SEGMENT = 2 * MIB
MEDIUM_REQUEST = 10 * MIB
MEDIUM_SEGMENT = 20 * MIB
LARGE_ROUND = 2 * MIB


def rounded_size(nbytes):
    """The block size PyTorch's allocator gives a request of ``nbytes`` (0 stays 0)."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // ROUND) * ROUND


def segment_size(block):
    if block <= SMALL_REQUEST:
        return SMALL_SEGMENT
    if block < MEDIUM_REQUEST:
        return MEDIUM_SEGMENT
    return -(-block // LARGE_ROUND) * LARGE_ROUND


def format_size(nbytes):
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if nbytes >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} bytes"


class TrackedMemory:
    """``allocate``/``adopt`` and the memory figures of a CUDA backend through its
    ``allocator`` (a ``CachingAllocator``): shared by the emulated device and CuPy's."""

    def allocate(self, nbytes):
        block = self.allocator.malloc(nbytes)
        data = block.buffer[:nbytes]
        self._fresh[id(data)] = block
        return data

    def adopt(self, storage):
        """Account for a new storage on this device and free its block when it dies."""
        data = storage._bytes
        block = self._fresh.pop(id(data), None) if data is not None else None
        if block is None:
            nbytes = data.shape[0] if data is not None else storage._source.nbytes
            block = self.allocator.malloc(nbytes, buffer=False)
        weakref.finalize(storage, self.allocator.free, block)

    def memory_allocated(self):
        return self.allocator.current()[0]

    def memory_reserved(self):
        return self.allocator.current()[1]

    def empty_cache(self):
        self.allocator.empty_cache()

    def total_memory(self):
        return self.allocator.capacity


class OutOfMemoryError(RuntimeError):
    """``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``): the device cannot
    hold the requested block."""


OutOfMemoryError.__module__ = "jtensor"  # PyTorch's is torch.OutOfMemoryError


class _Segment:
    __slots__ = ("size", "used", "small", "blocks")

    def __init__(self, size, small):
        self.size = size
        self.used = 0
        self.small = small
        self.blocks = 0


class Block:
    """One live allocation: its segment, rounded size and bytes."""

    __slots__ = ("segment", "size", "buffer", "__weakref__")

    def __init__(self, segment, size, buffer):
        self.segment = segment
        self.size = size
        self.buffer = buffer


class CachingAllocator:
    """PyTorch's caching-allocator rules over buffers made by ``new_buffer(size)`` (NumPy
    on the emulated device, CuPy's device memory on a GPU)."""

    def __init__(self, index, capacity, new_buffer=None, name="emulated"):
        self.index = index
        self.capacity = capacity
        self.name = name
        self._new_buffer = new_buffer or (lambda size: np.empty(size, dtype=np.uint8))
        self._lock = threading.RLock()
        # Blocks freed by a finalizer the collector ran inside this thread's own locked
        # section (``malloc`` included): returned by the lock's holder before any figure is
        # read (waiting for the lock there deadlocked for good).
        self._pending = collections.deque()
        self._segments = []
        self._cached = {}  # block size -> [(segment, buffer)] ready for reuse
        self.allocated = 0
        self.reserved = 0
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.num_allocs = 0
        self.num_frees = 0
        self.bytes_allocated = 0  # cumulative, as PyTorch's "allocated_bytes.all.allocated"
        self.bytes_freed = 0
        self.bytes_reserved = 0  # cumulative segment bytes taken and released
        self.bytes_released = 0
        self.live_before_reset = 0  # blocks live at ``reset_accumulated``
        self.num_segments = 0
        self.num_releases = 0
        self.num_ooms = 0

    # ------------------------------------------------------------------ allocation
    def malloc(self, nbytes, buffer=None):
        """A live block of at least ``nbytes``; ``buffer`` (already holding the bytes, from a
        computation) is adopted instead of taking one from the cache."""
        size = rounded_size(nbytes)
        with self._lock:
            self._drain()
            segment = None
            if buffer is None:
                cached = self._cached.get(size)
                if cached:
                    segment, buffer = cached.pop()
                    if buffer.shape[0] < nbytes:
                        buffer = None
            if segment is None:
                segment = self._find_segment(size)
            segment.used += size
            segment.blocks += 1
            self.allocated += size
            self.peak_allocated = max(self.peak_allocated, self.allocated)
            self.num_allocs += 1
            self.bytes_allocated += size
        if buffer is None:
            try:
                buffer = self._new_buffer(size)
            except BaseException:
                with self._lock:  # nothing was handed out: the figures go back
                    segment.used -= size
                    segment.blocks -= 1
                    self.allocated -= size
                    self.num_allocs -= 1
                    self.bytes_allocated -= size
                raise
        elif buffer is False:
            buffer = None  # bytes computed elsewhere: accounted, never reused
        return Block(segment, size, buffer)

    def _find_segment(self, size):
        small = size <= SMALL_REQUEST
        best = None
        for segment in self._segments:
            room = segment.size - segment.used
            if (
                segment.small == small
                and room >= size
                and (best is None or room < best.size - best.used)
            ):
                best = segment
        if best is not None:
            return best
        new = segment_size(size)
        if self.reserved + new > self.capacity:
            self._release_free_segments()
            if self.reserved + new > self.capacity:
                self.num_ooms += 1
                raise OutOfMemoryError(
                    f"CUDA out of memory. Tried to allocate {format_size(size)}. GPU {self.index} "
                    f"({self.name}) has a total capacity of {format_size(self.capacity)} of which "
                    f"{format_size(self.capacity - self.reserved)} is free. Of the allocated "
                    f"memory {format_size(self.allocated)} is allocated by tensors, and "
                    f"{format_size(self.reserved - self.allocated)} is reserved but unallocated "
                    "(cached). Free tensors you no longer need (del), or use smaller batches."
                )
        segment = _Segment(new, small)
        self._segments.append(segment)
        self.reserved += new
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.num_segments += 1
        self.bytes_reserved += new
        return segment

    def free(self, block):
        """Return ``block`` to the cache (called when its storage is garbage collected).

        The collector may run this finalizer inside the allocator's own locked section (it
        can start at any allocation, ``malloc`` included): then the block waits in
        ``_pending`` and the lock's holder returns it before any figure is read, instead of
        the thread waiting for a lock it holds itself. Another thread's free waits its turn.
        """
        self._pending.append(block)
        if self._lock._is_owned():
            return
        with self._lock:
            self._drain()

    def _drain(self):
        pending = self._pending
        while pending:
            block = pending.popleft()
            segment = block.segment
            segment.used -= block.size
            segment.blocks -= 1
            self.allocated -= block.size
            self.num_frees += 1
            self.bytes_freed += block.size
            if block.buffer is not None and segment in self._segments:
                self._cached.setdefault(block.size, []).append((segment, block.buffer))
            block.buffer = None

    def current(self):
        """(allocated, reserved) bytes, with every freed block returned."""
        with self._lock:
            self._drain()
            return self.allocated, self.reserved

    # ------------------------------------------------------------------ cache control
    def _release_free_segments(self):
        keep = []
        for segment in self._segments:
            if segment.blocks == 0:
                self.reserved -= segment.size
                self.num_releases += 1
                self.bytes_released += segment.size
            else:
                keep.append(segment)
        self._segments = keep
        live = set(map(id, keep))
        self._cached = {
            size: [(s, b) for s, b in entries if id(s) in live]
            for size, entries in self._cached.items()
        }
        self._cached = {size: entries for size, entries in self._cached.items() if entries}

    def empty_cache(self):
        with self._lock:
            self._drain()
            self._release_free_segments()

    def reset_peak(self):
        with self._lock:
            self._drain()
            self.peak_allocated = self.allocated
            self.peak_reserved = self.reserved

    def reset_accumulated(self):
        """``torch.cuda.reset_accumulated_memory_stats``: the cumulative counts ("allocated",
        "freed") start again from zero; the current figures stay."""
        with self._lock:
            self._drain()
            self.live_before_reset += self.num_allocs - self.num_frees
            self.num_allocs = self.num_frees = self.num_segments = self.num_releases = 0
            self.bytes_allocated = self.bytes_freed = 0
            self.bytes_reserved = self.bytes_released = 0

    def stats(self):
        """A subset of ``torch.cuda.memory_stats`` with PyTorch's key names."""
        with self._lock:
            self._drain()
            active_segments = len(self._segments)
            return {
                "allocated_bytes.all.allocated": self.bytes_allocated,
                "allocated_bytes.all.current": self.allocated,
                "allocated_bytes.all.freed": self.bytes_freed,
                "allocated_bytes.all.peak": self.peak_allocated,
                "reserved_bytes.all.allocated": self.bytes_reserved,
                "reserved_bytes.all.current": self.reserved,
                "reserved_bytes.all.freed": self.bytes_released,
                "reserved_bytes.all.peak": self.peak_reserved,
                "active_bytes.all.current": self.allocated,
                "inactive_split_bytes.all.current": self.reserved - self.allocated,
                "allocation.all.allocated": self.num_allocs,
                "allocation.all.freed": self.num_frees,
                "allocation.all.current": self.live_before_reset + self.num_allocs
                - self.num_frees,
                "segment.all.current": active_segments,
                "segment.all.allocated": self.num_segments,
                "segment.all.freed": self.num_releases,
                "num_ooms": self.num_ooms,
            }
