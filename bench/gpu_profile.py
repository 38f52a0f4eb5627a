"""Where jtensor's time goes on a real GPU (issue 18/20): cProfile of the per-op path
(``a + b`` on 4 elements) and of the MLP step of ``bench/cuda_bench.py``, on CUDA.

    python3 bench/gpu_profile.py [--emulated] [--top N]

Prints each workload's wall time per call and the functions with the most internal time, so
a session without a GPU can read where CuPy's path spends what the CPU path does not."""

import argparse
import cProfile
import io
import pstats
import time

import jtensor
from cuda_bench import workloads


def profile(name, fn, calls, top):
    for _ in range(max(3, calls // 10)):
        fn()
    jtensor.cuda.synchronize()
    start = time.perf_counter()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    jtensor.cuda.synchronize()
    profiler.disable()
    wall = (time.perf_counter() - start) / calls
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    lines = [line for line in out.getvalue().splitlines() if line.strip()][3:]
    print(f"== {name}: {wall * 1e6:.1f} us a call under cProfile ({calls} calls)")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--emulated", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if args.emulated:
        jtensor.cuda.emulate()
    chosen = dict(workloads(jtensor, "cuda"))
    profile("a + b, 4 elements", chosen["a + b, 4 elements (per-op overhead)"](), 3000, args.top)
    profile("MLP training step", chosen["MLP training step"](), 40, args.top)


if __name__ == "__main__":
    main()
