"""Strided-layout arithmetic for the pictures: which storage cells a (shape, stride, offset)
covers and how often, without enumerating every element (a 100,000,000-element tensor is
answered for the few cells on screen)."""

import math


def extent(shape, stride, offset):
    """(first, last) storage index a non-empty tensor touches (strides are >= 0)."""
    return offset, offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True) if n > 0)


def position(index, stride, offset):
    return offset + sum(i * s for i, s in zip(index, stride, strict=True))


def coverage(shape, stride, offset, lo, hi):
    """``{cell: count}`` for the cells in ``[lo, hi]`` that the layout reads, ``count`` being
    how many logical elements sit on that cell (> 1: overlap or stride 0).

    Sums ``offset + sum(i_k * s_k)`` dimension by dimension, largest stride first, keeping
    only partial sums that can still land in the window, so the work follows the window's
    width, not the tensor's size.
    """
    if hi < lo or any(n == 0 for n in shape):
        return {}
    repeat = 1
    dims = []
    for n, s in zip(shape, stride, strict=True):
        if n == 1:
            continue
        if s == 0:
            repeat *= n
        else:
            dims.append((s, n))
    dims.sort(reverse=True)
    # reach[k]: the most the dimensions k.. can still add.
    reach = [0] * (len(dims) + 1)
    for k in range(len(dims) - 1, -1, -1):
        s, n = dims[k]
        reach[k] = reach[k + 1] + (n - 1) * s
    states = {offset: 1}
    for k, (s, n) in enumerate(dims):
        later = reach[k + 1]
        nxt = {}
        for value, count in states.items():
            first = max(0, math.ceil((lo - later - value) / s))
            last = min(n - 1, (hi - value) // s)
            for i in range(first, last + 1):
                v = value + i * s
                nxt[v] = nxt.get(v, 0) + count
        states = nxt
        if not states:
            return {}
    return {v: c * repeat for v, c in sorted(states.items()) if lo <= v <= hi}


def overlaps(shape, stride):
    """Whether two different indices of this layout reach the same cell (PyTorch's
    ``has_internal_overlap`` question). Nested strides (each larger than everything the
    smaller ones reach) answer at once; other layouts are counted cell by cell, and None
    means too wide to count."""
    dims = sorted((s, n) for n, s in zip(shape, stride, strict=True) if n > 1)
    if any(n == 0 for n in shape):
        return False
    if any(s == 0 for s, _ in dims):
        return True
    span = 0  # the largest offset reachable with the smaller-stride dimensions
    for s, n in dims:
        if s <= span:
            return _overlaps_exactly(shape, stride)
        span += (n - 1) * s
    return False


def _overlaps_exactly(shape, stride):
    first, last = extent(shape, stride, 0)
    numel = math.prod(shape)
    if last + 1 < numel:
        return True  # more elements than cells: some cell is read twice
    if last > 2_000_000:
        return None  # too wide to count cell by cell: unknown, and the picture says so
    return any(c > 1 for c in coverage(shape, stride, 0, first, last).values())


def windows(points, length, full=96, head=12, around=10, tail=6, limit=160):
    """The cells to draw of a strip of ``length`` cells: all when the strip is short,
    otherwise the head, the tail and a few cells around each point of interest. Returns a
    sorted list of (start, stop) ranges; the caller draws a gap between them."""
    if length <= full:
        return [(0, length)] if length > 0 else []
    spans = [(0, head), (length - tail, length)]
    for p in points:
        spans.append((p - 2, p + around - 2))
    spans = sorted((max(0, a), min(length, b)) for a, b in spans if b > 0 and a < length)
    merged = []
    for a, b in spans:
        if merged and a <= merged[-1][1] + 2:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    # Keep the picture bounded however many points were asked for.
    total = 0
    kept = []
    for a, b in merged:
        if total + (b - a) > limit:
            b = a + max(0, limit - total)
        if b > a:
            kept.append((a, b))
            total += b - a
    return kept


def index_choice(n, limit=8):
    """Which indices of a dimension of size ``n`` to show: all when few, else the first and
    last few with ``None`` standing for the elided middle."""
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return list(range(half)) + [None] + list(range(n - (limit - half - 1), n))
