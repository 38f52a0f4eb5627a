"""``torch.utils.benchmark``: ``Timer`` and the ``Measurement`` it returns.

``Timer(stmt, setup, globals=...)`` times a Python statement with :mod:`timeit` (one
thread: jtensor's kernels are NumPy's), ``timeit(number)`` runs it ``number`` times in one
block, ``blocked_autorange`` picks a block size and runs blocks for ``min_run_time``
seconds, ``adaptive_autorange`` runs blocks until the spread of the block times is small.
A ``Measurement`` holds the raw block times and gives per-run ``times``, ``mean``,
``median`` and ``iqr``, and prints as PyTorch's does (the SDPA and performance tutorials
print them)."""

import math
import statistics
import time
import timeit as _timeit
from dataclasses import dataclass

__all__ = ["Measurement", "TaskSpec", "Timer", "select_unit", "timer"]

timer = time.perf_counter
_IQR_WARN, _IQR_GROSS_WARN = 0.1, 0.25  # PyTorch's thresholds of IQR / median


@dataclass(frozen=True)
class TaskSpec:
    """What was timed: the statement, its setup and the labels it is shown under."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (with its sub-label), else the statement."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{' (' + self.sub_label + ')' if self.sub_label else ''}\n" + "\n".join(
            "  " + line for line in self.stmt.splitlines())


def select_unit(t):
    """``(unit, scale)`` to show ``t`` seconds with: ns, us, ms or s."""
    exponent = int(math.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "ns" if exponent < -3 else "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def _quantile(values, q):
    ordered = sorted(values)
    at = (len(ordered) - 1) * q
    low = int(math.floor(at))
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


@dataclass
class Measurement:
    """The result of a ``Timer`` run: ``raw_times`` are block times of ``number_per_run``
    runs each; ``times`` are per run."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return statistics.mean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def iqr(self):
        return _quantile(self.times, 0.75) - _quantile(self.times, 0.25)

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return self.task_spec.env

    @property
    def has_warnings(self):
        return self._warning() is not None

    def meets_confidence(self, threshold=_IQR_WARN):
        """Whether the spread (IQR) is under ``threshold`` of the median."""
        return self.iqr / self.median < threshold

    def _warning(self):
        if not self.meets_confidence(_IQR_GROSS_WARN):
            return "This suggests significant environmental influence."
        if not self.meets_confidence(_IQR_WARN):
            return "This could indicate system fluctuation."
        return None

    def __repr__(self):
        unit, scale = select_unit(self.median)
        lines = [f"<{type(self).__module__}.{type(self).__name__} object>", self.title]
        spec = self.task_spec
        if spec.description:
            lines.append(spec.description)
        if spec.setup not in ("", "pass"):
            lines.append("setup: " + spec.setup if "\n" not in spec.setup else "setup:\n" +
                         "\n".join("  " + line for line in spec.setup.splitlines()))
        n, runs = len(self.times), self.number_per_run
        thread = f"{spec.num_threads} thread" + ("s" if spec.num_threads != 1 else "")
        if n == 1:
            lines.append(f"  {self.median / scale:.2f} {unit}")
            lines.append(f"  1 measurement, {runs} runs , {thread}")
        else:
            q1, q3 = _quantile(self.times, 0.25), _quantile(self.times, 0.75)
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({q1 / scale:.2f} to "
                         f"{q3 / scale:.2f})")
            lines.append(f"  {n} measurements, {runs} runs per measurement, {thread}")
            warning = self._warning()
            if warning is not None:
                lines.append(f"  WARNING: Interquartile range is {self.iqr / self.median:.1%} "
                             "of the median measurement.")
                lines.append(f"           {warning}")
        return "\n".join(lines)


class Timer:
    """Times ``stmt`` (run after ``setup``, with ``globals`` as its namespace)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if str(getattr(language, "name", language)).lower() != "python":
            raise ValueError(f"jtensor's Timer times Python statements only, not {language!r}")
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description,
                                   env, num_threads)
        namespace = dict(globals or {})
        if global_setup:
            exec(global_setup, namespace)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)

    def _measure(self, number):
        return self._timer.timeit(number=number)

    def timeit(self, number=1000000):
        """One block of ``number`` runs (after a short warm-up)."""
        self._measure(max(number // 100, 2))
        return Measurement(number, [self._measure(number)], self._task_spec)

    def _block_size(self, min_run_time):
        """PyTorch's estimate: the smallest power of ten whose block takes a thousandth of
        ``min_run_time`` and dwarfs the timing overhead 10,000 times (also a warm-up)."""
        overhead = statistics.median(self._measure(0) for _ in range(5))
        number = 1
        while True:
            taken = self._measure(number)
            if (overhead <= 1e-4 * taken and taken >= min_run_time / 1000) or \
                    taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def _blocks(self, number, stop, callback):
        times, total = [], 0.0
        while not stop(times, total):
            t = self._measure(number)
            times.append(t)
            total += t
            if callback is not None:
                callback(number, t)
        return Measurement(number, times, self._task_spec)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of one size (about a thousandth of ``min_run_time`` each, at least) until
        ``min_run_time`` seconds have run."""
        number = self._block_size(min_run_time)
        return self._blocks(number, lambda times, total: total >= min_run_time, callback)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks until the block times' IQR is under ``threshold`` of their median (after
        ``min_run_time`` seconds), or ``max_run_time`` seconds have run."""
        number = self._block_size(min_run_time=0.05)

        def stop(times, total):
            if total >= max_run_time:
                return True
            if total < min_run_time or len(times) <= 3:
                return False
            return Measurement(number, times, self._task_spec).meets_confidence(threshold)

        return self._blocks(number, stop, callback)
