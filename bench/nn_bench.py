"""Training-stack benchmarks (issue 4), imported by bench/run.py's ``training_workloads``.

``cross_entropy_workloads(libs, quick)`` returns rows ``(group, title, {lib: callable})`` like
``autograd_workloads``: cross entropy forward+backward on (128, 10000) float32 logits, beside
PyTorch and the straightforward NumPy reference (log-softmax, gather, mean; gradient
``(softmax - onehot) / N``).
"""

import numpy as np


def _numpy_cross_entropy(x, y):
    """The straightforward NumPy forward and backward of ``cross_entropy(x, y)``."""
    n = x.shape[0]
    shifted = x - x.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), y].mean()
    onehot = np.zeros_like(x)
    onehot[np.arange(n), y] = 1.0
    grad = (np.exp(logp) - onehot) / n
    return loss, grad


def cross_entropy_workloads(libs, quick):
    """Rows for ``F.cross_entropy(x, y)`` + ``backward()`` on (128, 10000) float32 logits.

    ``libs`` maps a column name to a library module (``jtensor``, ``torch``) or to None for
    the NumPy reference."""
    n, c = (128, 1000) if quick else (128, 10000)
    rng = np.random.default_rng(7)
    data = rng.standard_normal((n, c)).astype(np.float32)
    labels = rng.integers(0, c, n)
    fns = {}
    for name, lib in libs.items():
        if lib is None:
            fns[name] = (lambda: _numpy_cross_entropy(data, labels))
            continue
        if not hasattr(lib, "nn"):
            continue
        x = lib.from_numpy(data.copy()).requires_grad_()
        y = lib.from_numpy(labels.copy())
        F = lib.nn.functional

        def run(x=x, y=y, F=F):
            x.grad = None
            loss = F.cross_entropy(x, y)
            loss.backward()
            return loss

        fns[name] = run
    return [("cross-entropy", f"cross_entropy fwd+bwd ({n}, {c:,}) float32", fns)]


if __name__ == "__main__":
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    sys.path.insert(0, os.path.dirname(__file__))
    import jtensor
    from run import measure_together
    try:
        import torch
    except ImportError:
        torch = None
    libs = {"jtensor": jtensor, "torch": torch, "numpy": None}
    libs = {k: v for k, v in libs.items() if k != "torch" or v is not None}
    for _group, title, fns in cross_entropy_workloads(libs, "--quick" in sys.argv):
        times = measure_together(fns, 0.2)
        print(title, {k: f"{v * 1e3:.3f} ms" for k, v in times.items()},
              f"jt/numpy {times['jtensor'] / times['numpy']:.2f}x")
