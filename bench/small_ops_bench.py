"""The small ops of hand-written loops, jtensor beside PyTorch (issue 18).

    .venv/bin/python bench/small_ops_bench.py [--backward] [--only SUBSTRING] [--number N]

Teaching code that loops over time steps or positions (a CRF's forward algorithm, a
character RNN written out, an attention mask applied per step) spends its time in ops on a
few elements: broadcasting arithmetic, indexing, ``masked_fill``, ``where``, ``cat``,
reductions with a dim. Each row times one such call on (4, 5) float32 tensors that require
grad (so the call is recorded, as in training), best of 5 repeats of CPU time, jtensor and
PyTorch in the same process; ``--backward`` times the call, a ``sum`` and ``backward()``.
Rows are sorted by the ratio, worst first. A measurement, never a test.
"""

import argparse
import os
import sys
import time
import timeit

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import jtensor  # noqa: E402

try:
    import torch
except ImportError:  # jtensor's column alone
    torch = None


def calls(lib):
    """name -> (call, the leaves it reads): every call on small tensors requiring grad."""
    lib.manual_seed(0)
    a = lib.randn(4, 5, requires_grad=True)
    b = lib.randn(4, 5, requires_grad=True)
    row = lib.randn(1, 5, requires_grad=True)
    col = lib.randn(4, 1, requires_grad=True)
    s = lib.randn((), requires_grad=True)
    w = lib.randn(5, 3, requires_grad=True)
    idx = lib.tensor([0, 2, 3])
    target = lib.tensor([0, 1, 2, 3])
    mask = a.detach() > 0
    F = lib.nn.functional
    return {
        "a + b": (lambda: a + b, (a, b)),
        "a - row (broadcast)": (lambda: a - row, (a, row)),
        "a * col (broadcast)": (lambda: a * col, (a, col)),
        "a - row.expand(4, 5)": (lambda: a - row.expand(4, 5), (a, row)),
        "a * s (0-d)": (lambda: a * s, (a, s)),
        "a * 2.0": (lambda: a * 2.0, (a,)),
        "a / 2": (lambda: a / 2, (a,)),
        "a ** 2": (lambda: a**2, (a,)),
        "a.exp()": (lambda: a.exp(), (a,)),
        "a.tanh()": (lambda: a.tanh(), (a,)),
        "a.relu()": (lambda: a.relu(), (a,)),
        "a.sum()": (lambda: a.sum(), (a,)),
        "a.sum(1)": (lambda: a.sum(1), (a,)),
        "a.mean()": (lambda: a.mean(), (a,)),
        "a.max()": (lambda: a.max(), (a,)),
        "torch.max(a, 1)": (lambda: lib.max(a, 1)[0], (a,)),
        "a.softmax(1)": (lambda: a.softmax(1), (a,)),
        "a @ w": (lambda: a @ w, (a, w)),
        "a[0]": (lambda: a[0], (a,)),
        "a[0, 2]": (lambda: a[0, 2], (a,)),
        "a[:, 1:3]": (lambda: a[:, 1:3], (a,)),
        "a[idx]": (lambda: a[idx], (a,)),
        "a[mask]": (lambda: a[mask], (a,)),
        "a.view(5, 4)": (lambda: a.view(5, 4), (a,)),
        "a.reshape(20)": (lambda: a.reshape(20), (a,)),
        "a.t()": (lambda: a.t(), (a,)),
        "a.unsqueeze(0)": (lambda: a.unsqueeze(0), (a,)),
        "row.expand(4, 5)": (lambda: row.expand(4, 5), (row,)),
        "torch.cat([a, b])": (lambda: lib.cat([a, b]), (a, b)),
        "torch.stack([a, b])": (lambda: lib.stack([a, b]), (a, b)),
        "a.masked_fill(mask, 0.0)": (lambda: a.masked_fill(mask, 0.0), (a,)),
        "torch.where(mask, a, b)": (lambda: lib.where(mask, a, b), (a, b)),
        "a.clone()": (lambda: a.clone(), (a,)),
        "F.linear(a, w.t())": (lambda: F.linear(a, w.t()), (a, w)),
        "F.cross_entropy(a, target)": (lambda: F.cross_entropy(a, target), (a,)),
        "torch.zeros(4, 5)": (lambda: lib.zeros(4, 5), ()),
        "torch.tensor([1.0, 2.0, 3.0])": (lambda: lib.tensor([1.0, 2.0, 3.0]), ()),
    }


def _with_backward(call, leaves):
    def run():
        for leaf in leaves:
            leaf.grad = None
        call().sum().backward()

    return run


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5, timer=time.process_time)) / number


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backward", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--number", type=int, default=1000)
    args = parser.parse_args(argv)
    libs = {"jtensor": calls(jtensor)}
    if torch is not None:
        libs["torch"] = calls(torch)
    rows = []
    for name, (_call, leaves) in libs["jtensor"].items():
        if args.only and args.only not in name:
            continue
        if args.backward and not leaves:
            continue
        times = {}
        for lib, table in libs.items():
            fn, reads = table[name]
            if args.backward:
                fn = _with_backward(fn, reads)
            times[lib] = best(fn, args.number)
        ratio = times["jtensor"] / times["torch"] if "torch" in times else float("nan")
        rows.append((ratio, name, times))
    what = "call + sum + backward" if args.backward else "call (recorded)"
    print(f"{what}, us per call (CPU time, best of 5 x {args.number}); worst ratio first")
    for ratio, name, times in sorted(rows, key=lambda r: -r[0]):
        cells = "".join(f"{times[lib] * 1e6:9.2f}" for lib in libs)
        print(f"  {name:<32}{cells}   {ratio:5.1f}x")
    ratios = sorted(r[0] for r in rows)
    if ratios and torch is not None:
        print(f"median ratio {ratios[len(ratios) // 2]:.2f}x over {len(ratios)} calls")


if __name__ == "__main__":
    main()
