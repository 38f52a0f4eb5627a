"""The trace reports the CPU buffer cache (``jtensor.cpu``, issue 18) around a recording."""

import jtensor


def test_the_trace_has_the_cpu_cache_before_and_after():
    with jtensor.trace.record() as t:
        x = jtensor.ones(1 << 20)
        y = x * 2
        del x, y
    cache = t.cpu_cache()
    assert set(cache) == {
        "in_use_start",
        "in_use_end",
        "cached_start",
        "cached_end",
        "limit",
        "available",
    }
    assert cache["limit"] == jtensor.cpu.get_cache_limit()
    if cache["available"]:
        # The 4 MiB blocks freed inside the recording are kept for reuse, not given back.
        assert cache["cached_end"] >= 4 << 20
    assert "cpu_cache" not in t.summary()  # (exported reports stay deterministic)


def test_a_trace_not_started_has_no_cpu_cache_figures():
    assert jtensor.trace.Trace().cpu_cache() is None
