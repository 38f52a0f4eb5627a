"""Per-op overhead and large-op throughput of jtensor, beside NumPy and PyTorch, in one run.

    ./dev.sh bench            # or: .venv/bin/python bench/run.py [--quick] [--json PATH]

Reports the median time per call of each workload and the ratios jtensor/PyTorch and
jtensor/NumPy, with the issues' targets: small ops within 3x of PyTorch, views within 2x of
PyTorch, large ops within 1.05x of plain NumPy; autograd: a small forward+backward no slower
than PyTorch, large ones within 1.1x of a hand-written NumPy forward+backward. This is a
measurement, not a test: it never fails on timing.
"""

import argparse
import json
import os
import statistics
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import jtensor  # noqa: E402

try:
    import torch
except ImportError:  # the PyTorch column is left empty without it
    torch = None


def _matched_threads():
    """With ``OPENBLAS_NUM_THREADS`` set (jtensor's and NumPy's BLAS threads), PyTorch gets
    as many intra-op threads, so that no column has more cores than the others; the count,
    or None where the variable is not set (each library then uses its defaults)."""
    value = os.environ.get("OPENBLAS_NUM_THREADS")
    if torch is None or not value or not value.isdigit() or int(value) < 1:
        return None
    torch.set_num_threads(int(value))
    return int(value)


_THREADS = _matched_threads()


def calls_per_run(fn, min_time):
    """How many calls make one timed run last about ``min_time / 5`` seconds."""
    number = 1
    while timeit.timeit(fn, number=number) < min_time / 5:
        number *= 2
    return number


def measure_together(fns, min_time, repeat=9, interleave=True):
    """Median seconds per call of each library's callable.

    With ``interleave`` the libraries' runs alternate (A B C, A B C, ...) so that drift in
    the machine's speed lands on all of them alike. Multi-threaded kernels (BLAS matmul) are timed
    in blocks instead, forwards then backwards (A B C, C B A): one library's idle worker
    threads would otherwise steal cores from the next one's.
    """
    numbers = {lib: calls_per_run(fn, min_time) for lib, fn in fns.items()}
    runs = {lib: [] for lib in fns}
    if interleave:
        for _ in range(repeat):
            for lib, fn in fns.items():
                runs[lib].append(timeit.timeit(fn, number=numbers[lib]) / numbers[lib])
    else:
        for order in (list(fns), list(fns)[::-1]):
            for lib in order:
                runs[lib].extend(t / numbers[lib] for t in timeit.repeat(
                    fns[lib], number=numbers[lib], repeat=(repeat + 1) // 2))
    return {lib: statistics.median(times) for lib, times in runs.items()}


VIEW_OPS = {
    "view(-1)": lambda x: x.view(-1),
    "reshape(4096)": lambda x: x.reshape(4096),
    "t()": lambda x: x.t(),
    "transpose(0,1)": lambda x: x.transpose(0, 1),
    "permute(1,0)": lambda x: x.permute(1, 0),
    "x[1:, ::2]": lambda x: x[1:, ::2],
    "x[3]": lambda x: x[3],
    "select(0,1)": lambda x: x.select(0, 1),
    "narrow(0,1,5)": lambda x: x.narrow(0, 1, 5),
    "unsqueeze(0)": lambda x: x.unsqueeze(0),
    "squeeze()": lambda x: x.squeeze(),
    "expand(4,64,64)": lambda x: x.expand(4, 64, 64),
    "diagonal()": lambda x: x.diagonal(),
    "unfold(1,4,2)": lambda x: x.unfold(1, 4, 2),
    "as_strided": lambda x: x.as_strided((32, 32), (64, 1)),
    "detach()": lambda x: x.detach(),
    "split(16)": lambda x: x.split(16),
    "chunk(4)": lambda x: x.chunk(4),
    "movedim(0,1)": lambda x: x.movedim(0, 1),
    "flatten()": lambda x: x.flatten(),
    "unflatten(1,(8,8))": lambda x: x.unflatten(1, (8, 8)),
    "view_as": lambda x: x.view_as(x),
    "view(int32)": lambda x: x.view(_int32_of(x)),
    "swapaxes(0,1)": lambda x: x.swapaxes(0, 1),
    ".T": lambda x: x.T,
    ".mT": lambda x: x.mT,
    "expand_as": lambda x: x[:1].expand_as(x),
    "unbind(0)": lambda x: x.unbind(0),
    "tensor_split(3)": lambda x: x.tensor_split(3),
    "x[..., None]": lambda x: x[..., None],
}


# Per-call cost of PyTorch's argument forms (jtensor/_argparse.py): factories with their typed
# keywords, a NumPy alias taking the rebinding path, separate ints folded into a list.
CALL_FORMS = {
    "zeros(4)": lambda L, x: L.zeros(4),
    "ones(4, dtype=float64)": lambda L, x: L.ones(4, dtype=L.float64),
    "x.sum(1)": lambda L, x: x.sum(1),
    "x.sum(axis=1)": lambda L, x: x.sum(axis=1),
    "x.flip(0, 1)": lambda L, x: x.flip(0, 1),
    "x.view(size=(4096,))": lambda L, x: x.view(size=(4096,)),
}


def _int32_of(x):
    """The int32 dtype of whichever library ``x`` belongs to (for ``view(dtype)``)."""
    return (jtensor if isinstance(x, jtensor.Tensor) else torch).int32


def workloads(quick):
    """(group, name, {library: zero-argument callable}) for every measured workload."""
    libs = {"jtensor": jtensor, "numpy": None}
    if torch is not None:
        libs["torch"] = torch
    rows = []

    small = {}
    for name, lib in libs.items():
        if lib is None:
            a = np.ones(4, dtype=np.float32)
            b = np.ones(4, dtype=np.float32)
        else:
            a = lib.ones(4, dtype=lib.float32)
            b = lib.ones(4, dtype=lib.float32)
        small[name] = (lambda a=a, b=b: a + b)
    rows.append(("small", "a + b (4 float32)", small))

    for op_name, op in VIEW_OPS.items():
        fns = {}
        for name, lib in libs.items():
            if lib is None:
                continue
            x = lib.ones(64, 64)
            fns[name] = (lambda x=x, op=op: op(x))
        rows.append(("view", op_name, fns))

    for form, call in CALL_FORMS.items():
        fns = {}
        for name, lib in libs.items():
            if lib is None:
                continue
            x = lib.ones(64, 64)
            fns[name] = (lambda x=x, lib=lib, call=call: call(lib, x))
        rows.append(("call", form, fns))

    n = 1_000_000 if quick else 10_000_000
    large = {}
    for name, lib in libs.items():
        data_a = np.random.default_rng(0).random(n, dtype=np.float32)
        data_b = np.random.default_rng(1).random(n, dtype=np.float32)
        if lib is None:
            a, b = data_a, data_b
        else:
            a, b = lib.from_numpy(data_a), lib.from_numpy(data_b)
        large[name] = (lambda a=a, b=b: a + b)
    rows.append(("large", f"a + b ({n:,} float32)", large))

    m = 256 if quick else 1024
    matmul = {}
    for name, lib in libs.items():
        data_a = np.random.default_rng(2).random((m, m), dtype=np.float32)
        data_b = np.random.default_rng(3).random((m, m), dtype=np.float32)
        if lib is None:
            a, b = data_a, data_b
        else:
            a, b = lib.from_numpy(data_a), lib.from_numpy(data_b)
        matmul[name] = (lambda a=a, b=b: a @ b)
    rows.append(("large", f"matmul {m}x{m} float32", matmul))
    rows.extend(autograd_workloads(libs, quick))
    rows.extend(training_workloads(libs, quick))
    return rows


def _numpy_sgd_step(params, x, y, lr):
    """One hand-written SGD step of a 784-256-10 ReLU MLP with cross entropy (the reference
    issue 4 measures against: the same arithmetic, no framework)."""
    w1, b1, w2, b2 = params
    n = x.shape[0]
    h = x @ w1.T + b1
    a = np.maximum(h, 0)
    z = a @ w2.T + b2
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(n), y]).mean()
    dz = p
    dz[np.arange(n), y] -= 1
    dz /= n
    dw2 = dz.T @ a
    db2 = dz.sum(0)
    da = dz @ w2
    da *= h > 0
    dw1 = da.T @ x
    db1 = da.sum(0)
    w1 -= lr * dw1
    b1 -= lr * db1
    w2 -= lr * dw2
    b2 -= lr * db2
    return loss


def training_workloads(libs, quick):
    """One SGD step of a 784-256-10 MLP on a batch of 128 (issue 4), and cross entropy
    forward+backward on (128, 10000) logits (from bench/nn_bench.py)."""
    from nn_bench import (attention_workloads, cnn_workloads, cross_entropy_workloads,
                          gpt_workloads, sgd_step)

    rows = []
    rng = np.random.default_rng(6)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    init = [rng.uniform(-0.05, 0.05, s).astype(np.float32)
            for s in ((256, 784), (256,), (10, 256), (10,))]
    fns = {}
    for name, lib in libs.items():
        if lib is None:
            params = [p.copy() for p in init]
            fns[name] = (lambda params=params: _numpy_sgd_step(params, x, y, 0.01))
            continue
        if not hasattr(lib, "nn") or not hasattr(lib, "optim"):
            continue
        model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(),
                                  lib.nn.Linear(256, 10))
        with lib.no_grad():
            for p, v in zip(model.parameters(), init, strict=True):
                p.copy_(lib.from_numpy(v.copy()))
        fns[name] = sgd_step(lib, model, lib.from_numpy(x), lib.from_numpy(y))
    if "jtensor" in fns:
        rows.append(("training", "SGD step, MLP 784-256-10, batch 128 (float32)", fns))
    rows.extend(cross_entropy_workloads(libs, quick))
    rows.extend(attention_workloads(libs, quick))
    rows.extend(cnn_workloads(libs, quick))
    rows.extend(gpt_workloads(libs, quick))
    return rows


def _numpy_small_backward(a, b):
    """Hand-written forward and backward of ``(a*b + a).sum()``."""
    y = (a * b + a).sum()
    ones = np.ones_like(a)
    return y, ones * b + ones, ones * a


def _numpy_add_sum_backward(a, b):
    y = (a + b).sum()
    return y, np.ones_like(a), np.ones_like(b)


def _numpy_matmul_sum_backward(a, b):
    y = (a @ b).sum()
    g = np.ones((a.shape[0], b.shape[1]), dtype=a.dtype)
    return y, g @ b.T, a.T @ g


def _backward_fn(lib, expr, a, b):
    def run():
        a.grad = None
        b.grad = None
        expr(a, b).backward()
    return run


def autograd_workloads(libs, quick):
    """Forward + backward beside PyTorch and a hand-written NumPy reference (issue 3)."""
    rows = []
    cases = [
        ("autograd-small", "(a*b + a).sum() fwd+bwd (4 float32)", 4, None,
         lambda a, b: (a * b + a).sum(), _numpy_small_backward),
        ("autograd-large", "(a + b).sum() fwd+bwd ({n:,} float32)",
         1_000_000 if quick else 10_000_000, None, lambda a, b: (a + b).sum(),
         _numpy_add_sum_backward),
        ("autograd-large", "(A @ B).sum() fwd+bwd ({m}x{m} float32)", None,
         256 if quick else 1024, lambda a, b: (a @ b).sum(), _numpy_matmul_sum_backward),
    ]
    for group, title, n, m, expr, reference in cases:
        shape = (n,) if n is not None else (m, m)
        fns = {}
        for name, lib in libs.items():
            da = np.random.default_rng(4).random(shape, dtype=np.float32)
            db = np.random.default_rng(5).random(shape, dtype=np.float32)
            if lib is None:
                fns[name] = (lambda a=da, b=db, f=reference: f(a, b))
            else:
                a = lib.from_numpy(da).requires_grad_()
                b = lib.from_numpy(db).requires_grad_()
                fns[name] = _backward_fn(lib, expr, a, b)
        rows.append((group, title.format(n=n, m=m), fns))
    return rows


TARGETS = {"small": ("torch", 3.0), "view": ("torch", 2.0), "call": ("torch", 3.0),
           "large": ("numpy", 1.05), "autograd-small": ("torch", 1.0),
           "autograd-large": ("numpy", 1.1), "training": ("numpy", 1.1),
           "cross-entropy": ("numpy", 1.0),
           # Layers of real models beside PyTorch: issue 18's target for real programs.
           "model": ("torch", 1.5)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, shorter runs")
    parser.add_argument("--json", help="also write the results as JSON to this path")
    parser.add_argument(
        "--corpus", metavar="FOLDER",
        help="also run the real-program corpus in FOLDER (bench/corpus.py: every program under "
             "PyTorch and under jtensor; its table and median wall-time ratio, target <= 1.5x)")
    parser.add_argument(
        "--small-ops", action="store_true",
        help="also time the small recorded ops of hand-written loops, forward and with "
             "backward (bench/small_ops_bench.py: each beside PyTorch, worst ratio first)")
    parser.add_argument(
        "--large-ops", action="store_true",
        help="also time the big-array ops of training steps (bench/large_ops_bench.py: "
             "activations, norms, losses, indexing, sampling on a million elements)")
    args = parser.parse_args()
    min_time = 0.05 if args.quick else 0.2

    results = []
    for group, name, fns in workloads(args.quick):
        times = measure_together(fns, min_time, interleave=group not in ("training",) and
                                 "matmul" not in name and "@" not in name)
        against, target = TARGETS[group]
        ratio_torch = times["jtensor"] / times["torch"] if "torch" in times else None
        ratio_numpy = times["jtensor"] / times["numpy"] if "numpy" in times else None
        ratio = ratio_torch if against == "torch" else ratio_numpy
        results.append({"group": group, "name": name, "times_s": times,
                        "jtensor_over_torch": ratio_torch, "jtensor_over_numpy": ratio_numpy,
                        "target": f"<= {target}x {against}",
                        "meets_target": None if ratio is None else ratio <= target})

    def fmt_time(seconds):
        if seconds is None:
            return "-"
        return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"

    def fmt_ratio(r):
        return "-" if r is None else f"{r:.2f}x"

    threads = _THREADS if _THREADS is not None else "each library's default"
    print(f"jtensor {jtensor.__version__}, NumPy {np.__version__}, "
          f"PyTorch {torch.__version__ if torch else 'not installed'}; threads: {threads}")
    print("| group | workload | jtensor | PyTorch | NumPy | jt/torch | jt/numpy | target | met |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        t = r["times_s"]
        met = {True: "yes", False: "NO", None: "-"}[r["meets_target"]]
        print(f"| {r['group']} | {r['name']} | {fmt_time(t.get('jtensor'))} | "
              f"{fmt_time(t.get('torch'))} | {fmt_time(t.get('numpy'))} | "
              f"{fmt_ratio(r['jtensor_over_torch'])} | {fmt_ratio(r['jtensor_over_numpy'])} | "
              f"{r['target']} | {met} |")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)
    if args.small_ops:
        import small_ops_bench

        for extra in ([], ["--backward"]):
            print()
            small_ops_bench.main(extra + (["--number", "300"] if args.quick else []))
    if args.large_ops:
        import large_ops_bench

        print()
        large_ops_bench.main(["--number", "3"] if args.quick else [])
    if args.corpus:
        import corpus

        print(f"\nreal programs ({args.corpus}), target: median wall-time ratio <= 1.5x PyTorch")
        corpus.main([args.corpus])


if __name__ == "__main__":
    main()
