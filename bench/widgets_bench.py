"""How long each widget takes to render a 100,000,000-element tensor (issue 7's target: under
a second, because big tensors are summarised, never drawn whole).

    .venv/bin/python bench/widgets_bench.py

A measurement, not a test: it prints the best of three runs per widget and the target.
"""

import os
import sys
import time

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
import jtensor as torch  # noqa: E402
from test_widgets import big_tensor_renders  # noqa: E402  (the same renders the test checks)


def best_of(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    checks = big_tensor_renders(torch.ones(10**8))
    print(f"{'widget (10^8 elements)':28s} {'seconds':>8s}  target < 1 s")
    for name, fn in checks.items():
        seconds = best_of(fn)
        print(f"{name:28s} {seconds:8.3f}  {'met' if seconds < 1 else 'NOT met'}")


if __name__ == "__main__":
    main()
