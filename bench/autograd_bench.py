"""Per-node cost of autograd (issue 18): forward recording, the engine, a training step.

    .venv/bin/python bench/autograd_bench.py [--rounds N]
    PYTHONPATH=/tmp/base .venv/bin/python bench/autograd_bench.py   # a baseline checkout

Times, in one process, the median over rounds of: ``a + b`` on 4 float32 elements without
and with inputs that require grad (forward recording), ``(a*b + a).sum().backward()`` on 4
elements (recording and the engine), one SGD step of a 784-256-10 ReLU MLP on a batch of
128 (cross entropy), and ``nll_loss(log_softmax(x, 1), y)`` on (128, 10000) logits, beside
PyTorch and hand-written NumPy where they apply. Compare a change with a baseline by running
both in fresh processes one after the other (the machine is shared: interleave a few runs).
A measurement, never a test.
"""

import argparse
import os
import statistics
import sys
import time
import timeit

import numpy as np

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(1, os.path.dirname(__file__))
import jtensor  # noqa: E402
from nn_bench import _numpy_cross_entropy, sgd_step  # noqa: E402
from run import _numpy_sgd_step, _numpy_small_backward  # noqa: E402

try:
    import torch
except ImportError:  # the PyTorch column is left empty without it
    torch = None


def _small(lib, requires_grad):
    a = lib.ones(4, dtype=lib.float32, requires_grad=requires_grad)
    b = lib.ones(4, dtype=lib.float32, requires_grad=requires_grad)
    return a, b


def _backward(lib):
    a, b = _small(lib, True)

    def run():
        a.grad = None
        b.grad = None
        (a * b + a).sum().backward()

    return run


def _chain(lib):
    """50 layers of ``relu(y * w + x)`` then ``sum``, forward and backward (151 nodes on 4
    elements: the per-node cost of recording and of the engine, not arithmetic)."""
    x, w = _small(lib, True)

    def run():
        x.grad = None
        w.grad = None
        y = x
        for _ in range(50):
            y = lib.relu(y * w + x)
        y.sum().backward()

    return run


def _mlp_step(lib, x, y, init):
    model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
    with lib.no_grad():
        for p, v in zip(model.parameters(), init, strict=True):
            p.copy_(lib.from_numpy(v.copy()))
    return sgd_step(lib, model, lib.from_numpy(x), lib.from_numpy(y))


def _log_softmax_nll(lib, data, labels):
    """``nll_loss(log_softmax(x, 1), y)`` forward and backward on (128, 10000) logits."""
    x = lib.from_numpy(data.copy()).requires_grad_()
    y = lib.from_numpy(labels.copy())
    F = lib.nn.functional

    def run():
        x.grad = None
        F.nll_loss(F.log_softmax(x, 1), y).backward()

    return run


def workloads():
    """(name, {library: zero-argument callable}) for each measured workload."""
    libs = {"jtensor": jtensor}
    if torch is not None:
        libs["torch"] = torch
    rows = []
    for rg in (False, True):
        fns = {}
        for name, lib in libs.items():
            a, b = _small(lib, rg)
            fns[name] = lambda a=a, b=b: a + b
        rows.append((f"a + b (4 float32{', requires grad' if rg else ''})", fns))
    fns = {name: _backward(lib) for name, lib in libs.items()}
    na, nb = np.ones(4, np.float32), np.ones(4, np.float32)
    fns["numpy"] = lambda: _numpy_small_backward(na, nb)
    rows.append(("(a*b + a).sum().backward() (4 float32)", fns))
    rows.append(
        (
            "50 x relu(y*w + x), sum, backward (4 float32)",
            {name: _chain(lib) for name, lib in libs.items()},
        )
    )
    rng = np.random.default_rng(6)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    init = [
        rng.uniform(-0.05, 0.05, s).astype(np.float32)
        for s in ((256, 784), (256,), (10, 256), (10,))
    ]
    fns = {name: _mlp_step(lib, x, y, init) for name, lib in libs.items()}
    params = [p.copy() for p in init]
    fns["numpy"] = lambda: _numpy_sgd_step(params, x, y, 0.01)
    rows.append(("SGD step, MLP 784-256-10, batch 128", fns))
    data = rng.standard_normal((128, 10000)).astype(np.float32)
    labels = rng.integers(0, 10000, 128)
    fns = {name: _log_softmax_nll(lib, data, labels) for name, lib in libs.items()}
    fns["numpy"] = lambda: _numpy_cross_entropy(data, labels)
    rows.append(("log_softmax + nll_loss fwd+bwd, 128 x 10000", fns))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument(
        "--timer",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this process's CPU time (steadier on a shared machine)",
    )
    args = parser.parse_args()
    timer = time.process_time if args.timer == "cpu" else time.perf_counter
    print(f"jtensor from {os.path.dirname(jtensor.__file__)}")
    for title, fns in workloads():
        times = {}
        for lib, fn in fns.items():
            fn()
            number = 1
            while timeit.timeit(fn, number=number, timer=timer) < args.min_time:
                number *= 2
            times[lib] = (
                statistics.median(timeit.repeat(fn, number=number, repeat=args.rounds, timer=timer))
                / number
            )
        cells = ", ".join(f"{lib} {t * 1e6:.1f} us" for lib, t in times.items())
        print(f"{title}: {cells}")


if __name__ == "__main__":
    main()
