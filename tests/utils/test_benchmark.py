"""``torch.utils.benchmark``'s Timer and Measurement (the SDPA and performance tutorials
time their kernels with it). Timings differ from run to run: the tests check the structure
PyTorch gives (block counts, per-run times, statistics, the printed layout), not speed."""

import re
import statistics

import pytest

import jtensor
from jtensor.utils import benchmark


def test_timeit_runs_one_block_of_number_runs():
    calls = []
    m = benchmark.Timer("f()", globals={"f": lambda: calls.append(1)}).timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1
    assert len(calls) == 50 + 2  # PyTorch's warm-up: max(number // 100, 2) runs first
    assert m.times == [m.raw_times[0] / 50] and m.mean == m.median == m.times[0]
    assert m.iqr == 0.0 and m.title == "f()"


def test_blocked_autorange_runs_blocks_of_a_power_of_ten_for_min_run_time():
    x = jtensor.randn(16, 16)
    m = benchmark.Timer(
        "x @ x", globals={"x": x}, label="matmul", sub_label="16x16", description="cpu"
    ).blocked_autorange(min_run_time=0.05)
    assert sum(m.raw_times) >= 0.05
    assert re.fullmatch(r"10*", str(m.number_per_run))
    assert m.median == statistics.median(m.times) and m.mean == statistics.mean(m.times)
    assert m.title == "matmul: 16x16"
    text = repr(m).splitlines()
    assert text[0] == "<jtensor.utils.benchmark.Measurement object>"
    assert text[1:3] == ["matmul: 16x16", "cpu"]
    assert re.fullmatch(r"  Median: \d+\.\d\d (ns|us|ms|s)", text[3])
    assert text[5].endswith(f"measurements, {m.number_per_run} runs per measurement, 1 thread")


def test_adaptive_autorange_stops_on_a_small_spread_or_the_time_limit():
    m = benchmark.Timer("sum(range(50))").adaptive_autorange(threshold=10.0)
    # It stops at the first block after which it has more than 3 blocks and 0.01 s (any
    # spread is under 10x the median): one block fewer fell short of one of the two.
    assert len(m.times) >= 4 and sum(m.raw_times) >= 0.01
    assert len(m.times) == 4 or sum(m.raw_times[:-1]) < 0.01
    m = benchmark.Timer("sum(range(50))").adaptive_autorange(threshold=0.0, max_run_time=0.05)
    assert sum(m.raw_times) >= 0.05


def test_a_single_measurement_prints_its_time_and_setup():
    m = benchmark.Timer("y = x + 1", setup="x = 2").timeit(1000)
    assert repr(m).splitlines()[1:3] == ["y = x + 1", "setup: x = 2"]
    assert repr(m).splitlines()[-1] == "  1 measurement, 1000 runs , 1 thread"


def test_units_and_refusals_as_pytorch():
    assert benchmark.select_unit(2.5e-8) == ("ns", 1e-9)
    assert benchmark.select_unit(2.5e-5) == ("us", 1e-6)
    assert benchmark.select_unit(2.5e-2) == ("ms", 1e-3)
    assert benchmark.select_unit(2.5) == ("s", 1.0)
    torch = pytest.importorskip("torch")
    from torch.utils.benchmark import select_unit

    for t in (2.5e-8, 2.5e-5, 2.5e-2, 2.5):
        assert select_unit(t)[0] == benchmark.select_unit(t)[0]
    for lib in (benchmark, torch.utils.benchmark):
        with pytest.raises(ValueError, match="only a `str` stmt"):
            lib.Timer(lambda: None)
