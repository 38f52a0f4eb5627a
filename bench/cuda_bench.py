"""jtensor on a CUDA device beside PyTorch CUDA, in one run (issue 5's GPU benchmarks).

    .venv/bin/python bench/cuda_bench.py [--json PATH] [--emulated]

Workloads: ``a + b`` on 10,000,000 float32, a 4096x4096 float32 matmul, one training step of
an MLP (784-512-512-10, batch 256, SGD), and the per-op launch overhead of ``a + b`` on
4-element tensors. Every timed call ends with a synchronisation of its own library, so
device time is measured, not launch time. Targets: large ops within 1.1x of PyTorch CUDA,
per-op overhead within 3x.

Without a GPU it says so and stops, unless ``--emulated`` is given: then it times the
emulated device (which has no speed target beyond not slowing the CPU backend; its
numbers are the CPU's plus the queue's hand-off).
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def median_time(fn, sync, min_time=0.3, repeat=7):
    fn()
    sync()
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        if time.perf_counter() - start >= min_time / repeat:
            break
        number *= 2
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)


def workloads(lib, device):
    """(name, setup -> callable) for one library (jtensor or torch)."""
    def add_large():
        a = lib.rand(10_000_000, device=device)
        b = lib.rand(10_000_000, device=device)
        return lambda: a + b

    def matmul():
        a = lib.rand(4096, 4096, device=device)
        b = lib.rand(4096, 4096, device=device)
        return lambda: a @ b

    def mlp_step():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(784, 512), lib.nn.ReLU(), lib.nn.Linear(512, 512),
                                  lib.nn.ReLU(), lib.nn.Linear(512, 10)).to(device)
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        x = lib.randn(256, 784, device=device)
        y = lib.randint(0, 10, (256,), device=device)

        def step():
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        return step

    def add_tiny():
        a = lib.rand(4, device=device)
        b = lib.rand(4, device=device)
        return lambda: a + b

    return [("a + b, 10M float32", add_large), ("matmul 4096x4096 float32", matmul),
            ("MLP training step", mlp_step), ("a + b, 4 elements (per-op overhead)", add_tiny)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--emulated", action="store_true")
    args = parser.parse_args()
    if args.emulated:
        os.environ["JTENSOR_EMULATE_CUDA"] = "1"
    import jtensor

    if not jtensor.cuda.is_available():
        print("no GPU available (and --emulated not given): nothing to measure")
        return
    print(f"jtensor device: {jtensor.cuda.get_device_name()}")
    try:
        import torch
        has_torch_cuda = torch.cuda.is_available()
    except ImportError:
        torch, has_torch_cuda = None, False
    rows = []
    j_sync = jtensor.cuda.synchronize
    t_sync = torch.cuda.synchronize if has_torch_cuda else None
    for (name, make_j), (_, make_t) in zip(workloads(jtensor, "cuda"),
                                           workloads(torch, "cuda") if has_torch_cuda else
                                           [(None, None)] * 4, strict=True):
        j = median_time(make_j(), j_sync)
        t = median_time(make_t(), t_sync) if make_t else None
        rows.append({"workload": name, "jtensor_s": j, "torch_s": t,
                     "ratio": (j / t) if t else None})
        ratio = f"{j / t:6.2f}x" if t else "   n/a"
        torch_text = f"{t * 1e6:12.1f}" if t else f"{'n/a':>12}"
        print(f"{name:40s} jtensor {j * 1e6:12.1f} µs   torch {torch_text} µs   {ratio}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": jtensor.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
