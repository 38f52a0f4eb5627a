"""The big-array ops of training code, jtensor beside PyTorch (issue 18).

    .venv/bin/python bench/large_ops_bench.py [--only SUBSTRING] [--number N]

A CNN's or a GPT's step spends its time in whole-activation ops: activations and their
gradients, normalization, softmax, losses, indexing by a batch of rows, sampling. Each row
times one call on a (256, 4096) float32 tensor (a million elements; ``f+b`` rows: the call,
a ``sum`` and ``backward()``), best of 3 repeats, jtensor and PyTorch (one thread) in the same
process. Rows are sorted by the ratio, worst first. A measurement, never a test.
"""

import argparse
import os
import sys
import timeit

import numpy as np

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import jtensor  # noqa: E402

try:
    import torch
except ImportError:  # jtensor's column alone
    torch = None


def calls(lib):
    """name -> zero-argument call, on the same values for every library."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((256, 4096)).astype(np.float32))
    y = lib.from_numpy(rng.standard_normal((256, 4096)).astype(np.float32))
    xg = x.clone().requires_grad_()
    rows = lib.from_numpy(rng.integers(0, 256, 512))
    labels = lib.from_numpy(rng.integers(0, 4096, 256))
    probs = lib.softmax(x[:1] * 3, -1)
    emb = lib.nn.Embedding(65, 384)
    lookups = lib.from_numpy(rng.integers(0, 65, (64, 256)))
    norm = lib.nn.LayerNorm(4096)
    F = lib.nn.functional

    def fb(call):
        def run():
            xg.grad = None
            call(xg).sum().backward()

        return run

    return {
        "relu": lambda: lib.relu(x),
        "relu f+b": fb(lib.relu),
        "clamp(-0.5, 0.5)": lambda: x.clamp(-0.5, 0.5),
        "leaky_relu": lambda: F.leaky_relu(x, 0.1),
        "leaky_relu f+b": fb(lambda t: F.leaky_relu(t, 0.1)),
        "relu6": lambda: F.relu6(x),
        "gelu": lambda: F.gelu(x),
        "gelu f+b": fb(F.gelu),
        "gelu tanh": lambda: F.gelu(x, approximate="tanh"),
        "silu": lambda: F.silu(x),
        "sigmoid f+b": fb(lambda t: t.sigmoid()),
        "tanh f+b": fb(lambda t: t.tanh()),
        "softmax(1) f+b": fb(lambda t: F.softmax(t, 1)),
        "layer_norm f+b": fb(norm),
        "cross_entropy f+b": lambda: F.cross_entropy(xg, labels).backward(),
        "mse_loss f+b": lambda: F.mse_loss(xg, y).backward(),
        "x[rows] f+b": fb(lambda t: t[rows]),
        "index_select": lambda: x.index_select(0, rows),
        "embedding(65, 384) f+b": lambda: emb(lookups).sum().backward(),
        "topk(5, 1)": lambda: x.topk(5, 1),
        "multinomial(4096 categories)": lambda: lib.multinomial(probs, 1),
        "masked_fill": lambda: x.masked_fill(x > 0, 0.0),
        "where": lambda: lib.where(x > 0, x, y),
        "sum(1)": lambda: x.sum(1),
        "x.t().contiguous()": lambda: x.t().contiguous(),
        "randn": lambda: lib.randn(256, 4096),
    }


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only")
    parser.add_argument("--number", type=int, default=10)
    args = parser.parse_args(argv)
    if torch is not None:
        torch.set_num_threads(1)
    libs = {"jtensor": calls(jtensor)}
    if torch is not None:
        libs["torch"] = calls(torch)
    rows = []
    for name in libs["jtensor"]:
        if args.only and args.only not in name:
            continue
        times = {lib: best(table[name], args.number) for lib, table in libs.items()}
        ratio = times["jtensor"] / times["torch"] if "torch" in times else float("nan")
        rows.append((ratio, name, times))
    print(f"(256, 4096) float32, ms per call (best of 3 x {args.number}); worst ratio first")
    for ratio, name, times in sorted(rows, key=lambda r: -r[0]):
        cells = "".join(f"{times[lib] * 1e3:9.3f}" for lib in libs)
        print(f"  {name:<30}{cells}   {ratio:5.2f}x")
    ratios = sorted(r[0] for r in rows)
    if ratios and torch is not None:
        print(f"median ratio {ratios[len(ratios) // 2]:.2f}x over {len(ratios)} calls")


if __name__ == "__main__":
    main()
