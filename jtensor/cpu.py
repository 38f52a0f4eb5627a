"""``torch.cpu``: the host device, and the CPU backend's buffer cache (issue 18).

**The buffer cache.** A training step frees and re-allocates the same big buffers every step
(activations, gradients, softmax temporaries: 5 MB each for 128 x 10,000 logits). By default
the C allocator hands blocks of 128 KiB and more straight back to the operating system, so
every new one is fresh memory that costs a page fault per 4 KiB on first touch: that was
most of the time of ``log_softmax`` + ``nll_loss`` on such logits. As PyTorch's caching
allocator does on CUDA, the cache keeps freed blocks and gives them to the next allocation
of a size that fits, instead of returning them to the OS.

The blocks are those of every host array (op results are NumPy's arrays), so the cache is
the C allocator's own free lists (glibc's, on Linux), told at import to keep blocks up to
32 MiB in its heap (``M_MMAP_THRESHOLD``) and to give memory back only past the cap
(``M_TRIM_THRESHOLD``, the settable limit). Reuse is the allocator's: a block is handed out
again only after its last user freed it, i.e. once no tensor, no array from ``.numpy()``
(nor a view of one), no DLPack consumer and no pickle buffer holds it any more; nothing in
jtensor decides that a block is free. ``empty_cache()`` returns every free page to the OS.
A Python-level cache of storage blocks was measured too (blocks of dead storages reused
after a reference-count check): it only sees the allocations jtensor makes itself, never the
ones NumPy makes for op results (no hits on ``log_softmax`` + ``nll_loss``); alone it cut
page faults only by holding dead blocks up to its cap (350 MB resident against 90 MB), and
beside this cache it made the step slower by holding blocks back from the allocator, so it
was not kept (docs/DEVELOPING.md, Speed).

Without glibc (macOS, Windows, musl) the functions work and report zeros, and the cache is
whatever the platform's allocator does.
"""

import ctypes
import os

from ._errors import TensorTypeError, TensorValueError, type_name

__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_cache_limit",
    "is_available",
    "is_initialized",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "set_cache_limit",
    "synchronize",
]

# mallopt parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Blocks up to this size come from the heap (glibc's largest allowed mmap threshold on 64-bit
# hosts is 32 MiB); bigger ones are mapped and unmapped as before.
_MAX_BLOCK = 32 << 20
# glibc's defaults, restored when the cache is turned off (limit 0).
_DEFAULT_THRESHOLD = 128 << 10
DEFAULT_LIMIT = 256 << 20


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _load_libc():
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 (glibc, not another libc with that name)
        libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        libc.malloc_trim.argtypes = (ctypes.c_size_t,)
    except (OSError, AttributeError):
        return None, None
    try:
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2
    except AttributeError:  # glibc before 2.33: no statistics, the cache still works
        info = None
    return libc, info


_libc, _mallinfo = _load_libc()
_state = {"limit": 0, "trims": 0}


def _apply(limit):
    if _libc is not None:
        if limit > 0:
            _libc.mallopt(_M_MMAP_THRESHOLD, _MAX_BLOCK)
            _libc.mallopt(_M_TRIM_THRESHOLD, min(limit, 2**31 - 1))
        else:
            _libc.mallopt(_M_MMAP_THRESHOLD, _DEFAULT_THRESHOLD)
            _libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT_THRESHOLD)
            _libc.malloc_trim(0)
    _state["limit"] = limit


def set_cache_limit(nbytes):
    """Cap the freed memory the cache keeps for reuse, in bytes (default 256 MiB; the
    ``JTENSOR_CPU_CACHE_LIMIT`` environment variable sets it at import, where ``0`` leaves
    the C allocator untouched). ``0`` turns the cache off: the free memory goes back to the
    OS and blocks of 128 KiB and more are mapped and unmapped one by one again.

    >>> import jtensor as torch
    >>> torch.cpu.set_cache_limit(64 * 2**20); torch.cpu.get_cache_limit()
    67108864
    >>> torch.cpu.set_cache_limit(torch.cpu.DEFAULT_LIMIT)
    """
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TensorTypeError(
            f"set_cache_limit(): nbytes must be an int (a number of bytes), got "
            f"{type_name(nbytes)}"
        )
    if nbytes < 0:
        raise TensorValueError(f"set_cache_limit(): nbytes must be >= 0, got {nbytes}")
    _apply(nbytes)


def get_cache_limit():
    """The cap set by :func:`set_cache_limit` (0: the cache is off)."""
    return _state["limit"]


def empty_cache():
    """Give every freed block the cache keeps back to the OS (``torch.cuda.empty_cache``'s
    counterpart); live tensors are untouched."""
    if _libc is not None:
        _libc.malloc_trim(0)
        _state["trims"] += 1


def memory_stats():
    """The host heap's counters, with ``torch.cuda.memory_stats``' names where they apply:
    ``allocated_bytes.all.current`` (memory in use: tensors, arrays and every other object
    of the process), ``reserved_bytes.all.current`` (held from the OS), ``cached_bytes``
    (freed, kept for reuse), ``cache_limit``, ``max_block_bytes`` (bigger blocks bypass the
    cache), ``num_empty_cache`` and ``available`` (False without glibc's statistics: the
    byte counts are then 0)."""
    if _mallinfo is not None:
        info = _mallinfo()
        allocated = info.uordblks + info.hblkhd
        reserved = info.arena + info.hblkhd
        cached = info.fordblks
    else:
        allocated = reserved = cached = 0
    return {
        "allocated_bytes.all.current": allocated,
        "reserved_bytes.all.current": reserved,
        "inactive_split_bytes.all.current": cached,
        "cached_bytes": cached,
        "cache_limit": _state["limit"],
        "max_block_bytes": _MAX_BLOCK if _state["limit"] > 0 else 0,
        "num_empty_cache": _state["trims"],
        "available": _mallinfo is not None,
    }


def memory_allocated(device=None):
    """Bytes of host memory in use (``memory_stats()['allocated_bytes.all.current']``)."""
    return memory_stats()["allocated_bytes.all.current"]


def memory_reserved(device=None):
    """Bytes of host heap held from the OS: in use plus cached."""
    return memory_stats()["reserved_bytes.all.current"]


def memory_cached(device=None):
    """Bytes freed and kept for reuse by the cache."""
    return memory_stats()["cached_bytes"]


def is_available():
    """Always True, as ``torch.cpu.is_available()``."""
    return True


def is_initialized():
    """Always True, as ``torch.cpu.is_initialized()``."""
    return True


def device_count():
    """1, as ``torch.cpu.device_count()``."""
    return 1


def current_device():
    """``'cpu'``, as ``torch.cpu.current_device()``."""
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU ops run when called (``torch.cpu.synchronize``)."""


def _limit_from_environment():
    text = os.environ.get("JTENSOR_CPU_CACHE_LIMIT")
    if text is None:
        return DEFAULT_LIMIT
    try:
        value = int(text)
    except ValueError:
        return DEFAULT_LIMIT
    return max(value, 0)


_initial = _limit_from_environment()
if _initial > 0:
    _apply(_initial)
# (0 at import: the C allocator is left exactly as it was, glibc's adaptive thresholds
# included; set_cache_limit(0) later gives memory back and maps big blocks again.)
