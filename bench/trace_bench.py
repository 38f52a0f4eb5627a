"""Overhead of jtensor.trace (issue 6):
``.venv/bin/python bench/trace_bench.py [--quick] [--runs N]``.

1. Recording off: what the trace machinery costs a training step when nothing records. The
   only cost is one ``is None`` check per op (in ``finish``) and per ``emit`` site reached
   (backward nodes, ``.data``); the step's events are counted with a recorder and multiplied
   by the measured cost of one check, then compared with the step's time.
2. Recording on: small ops (and the MLP step) timed with and without a recorder.
3. Memory: peak traced allocation (tracemalloc) of a traced loop of 1,000,000 small ops,
   against the same loop of 10,000 ops: past the cap only counters grow, so the peak is
   bounded by the cap, not the loop length.

Times are CPU time (``time.process_time``), best of several repeats; with ``--runs N`` the
small-op table is measured N times and each column is the median of the N runs (on a shared
machine one run can be off by 10-20%).
"""

import statistics
import sys
import time
import timeit
import tracemalloc

import numpy as np

import jtensor
from jtensor import _dispatch

QUICK = "--quick" in sys.argv


def _runs():
    if "--runs" not in sys.argv:
        return 1
    at = sys.argv.index("--runs")
    try:
        runs = int(sys.argv[at + 1])
    except (IndexError, ValueError):
        raise SystemExit(f"--runs needs a positive int, got {sys.argv[at + 1:at + 2]}") from None
    if runs < 1:
        raise SystemExit(f"--runs needs a positive int, got {runs}")
    return runs


def best_time(fn, number, repeat=5):
    """Best CPU seconds per call of ``fn`` over ``repeat`` runs of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, time.process_time() - start)
    return best / number


def mlp_step_fn():
    """One training step of a 784-256-10 MLP on a batch of 64 (SGD, cross entropy)."""
    nn = jtensor.nn
    jtensor.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = jtensor.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = jtensor.from_numpy(rng.standard_normal((64, 784)).astype(np.float32))
    y = jtensor.from_numpy(rng.integers(0, 10, 64))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def check_cost():
    """Seconds per ``if hook is not None`` check on a module attribute (what finish does)."""
    d = _dispatch
    loop = timeit.timeit("if d.trace_hook is not None: pass", globals={"d": d},
                         number=2_000_000) / 2_000_000
    empty = timeit.timeit("pass", number=2_000_000) / 2_000_000
    return max(loop - empty, 0.0)


def recording_off():
    step = mlp_step_fn()
    for _ in range(3):
        step()
    number = 5 if QUICK else 20
    t_step = best_time(step, number)
    with jtensor.trace.record(max_ops=10**6) as t:
        step()
    events = t.summary()["events"] + sum(1 for e in t.events if e.kind == "notice")
    per_check = check_cost()
    overhead = events * per_check / t_step
    with jtensor.trace.record(max_ops=10**6):
        t_on = best_time(step, max(2, number // 4), repeat=3)
    # Each step under a fresh recorder would be fairer; one recorder over several steps keeps
    # more events (a worse case), so the figure is an upper bound.
    return {"mlp_step_ms": t_step * 1e3, "events_per_step": events,
            "check_ns": per_check * 1e9, "off_overhead_pct": overhead * 100,
            "mlp_step_recording_ms": t_on * 1e3, "mlp_on_ratio": t_on / t_step}


SMALL_OPS = {
    "a + b": lambda a, b: a + b,
    "a[0]": lambda a, b: a[0],
    "a.view(2, 2)": lambda a, b: a.view(2, 2),
    "a.t()": lambda a, b: a.t(),
    "a.add_(1)": lambda a, b: a.add_(1),
    "a.sum()": lambda a, b: a.sum(),
    "jtensor.empty(4)": lambda a, b: jtensor.empty(4),
}


def small_ops():
    a = jtensor.ones(2, 2)
    b = jtensor.ones(2, 2)
    number = 2_000 if QUICK else 10_000
    rows = []
    for name, op in SMALL_OPS.items():
        def run(op=op):
            op(a, b)

        off = best_time(run, number)
        on = float("inf")
        for _ in range(5):  # a fresh recorder each repeat: one cell's worth of events
            with jtensor.trace.record(max_ops=number):
                on = min(on, best_time(run, number, repeat=1))
        rows.append((name, off * 1e6, on * 1e6, on / off))
    return rows


def memory_bound():
    x = jtensor.ones(4)
    peaks = {}
    for n in ((10_000, 100_000) if QUICK else (10_000, 1_000_000)):
        tracemalloc.start()
        with jtensor.trace.record() as t:
            for _ in range(n):
                x[0]
        peaks[n] = (tracemalloc.get_traced_memory()[1], t.summary()["events"])
        tracemalloc.stop()
        del t
    return peaks


def main():
    print(f"jtensor.trace overhead (CPU time; {'quick' if QUICK else 'full'} run)")
    off = recording_off()
    print(f"\nMLP step (784-256-10, batch 64): {off['mlp_step_ms']:.3f} ms, "
          f"{off['events_per_step']} events per step")
    print(f"  recording off: {off['events_per_step']} checks x {off['check_ns']:.1f} ns = "
          f"{off['off_overhead_pct']:.3f}% of the step (requirement: <= 2%)")
    print(f"  recording on:  {off['mlp_step_recording_ms']:.3f} ms "
          f"({off['mlp_on_ratio']:.2f}x)")
    runs = _runs()
    print("\nsmall ops (us per call): off, recording, ratio (requirement: <= 3x)"
          + (f"; medians of {runs} runs" if runs > 1 else ""))
    tables = [small_ops() for _ in range(runs)]
    for i, (name, *_) in enumerate(tables[0]):
        t_off, t_on, ratio = (statistics.median(table[i][k] for table in tables)
                              for k in (1, 2, 3))
        print(f"  {name:<18} {t_off:7.2f} {t_on:7.2f} {ratio:6.2f}x")
    print("\ntraced loop of x[0] (default cap 10000 events): peak traced memory")
    for n, (peak, events) in memory_bound().items():
        print(f"  {n:>9} ops: {peak / 2**20:7.2f} MiB (events counted: {events})")


if __name__ == "__main__":
    main()
