"""``torch.func`` benchmark (issue 16): per-sample gradients of a small MLP.

``per_sample_grad_workloads(libs, quick)`` returns rows ``(group, title, {name: callable})``
like the other bench modules: for a 784-64-10 MLP and a batch of 64, the gradient of each
sample's cross-entropy loss with ``vmap(grad(loss), in_dims=(None, 0, 0))``, the Python loop
over the samples (one ``grad`` each) in jtensor itself, and the same vmap in PyTorch's
``torch.func``. Run directly, it prints the times and the loop/vmap ratio (the target is at
least 5x) and checks that the vmapped gradients equal the loop's.
"""

import numpy as np


def _mlp_loss(lib):
    F = lib.nn.functional

    def loss(params, x, y):
        h = F.relu(F.linear(x, params["w1"], params["b1"]))
        logits = F.linear(h, params["w2"], params["b2"])
        return F.cross_entropy(logits, y)

    return loss


def _data(lib, quick):
    batch, d_in, hidden, classes = (16, 784, 64, 10) if quick else (64, 784, 64, 10)
    rng = np.random.default_rng(16)
    arrays = {
        "w1": rng.standard_normal((hidden, d_in)).astype(np.float32) * 0.05,
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.standard_normal((classes, hidden)).astype(np.float32) * 0.1,
        "b2": np.zeros(classes, np.float32),
    }
    params = {k: lib.from_numpy(v.copy()) for k, v in arrays.items()}
    x = lib.from_numpy(rng.standard_normal((batch, d_in)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, classes, batch))
    return params, x, y


def per_sample_grad_workloads(libs, quick):
    """Rows for per-sample gradients: jtensor's vmap, jtensor's loop, PyTorch's vmap."""
    fns = {}
    for name, lib in libs.items():
        if lib is None or not hasattr(lib, "func"):
            continue
        params, x, y = _data(lib, quick)
        loss = _mlp_loss(lib)
        per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
        fns[f"{name} vmap"] = lambda f=per_sample, p=params, x=x, y=y: f(p, x, y)
        if name == "jtensor":
            g = lib.func.grad(loss)

            def loop(g=g, p=params, x=x, y=y, lib=lib):
                grads = [g(p, x[i], y[i]) for i in range(x.shape[0])]
                return {k: lib.stack([gr[k] for gr in grads]) for k in p}

            fns["jtensor loop"] = loop
    return [("func", "per-sample grads, 784-64-10 MLP, batch 64", fns)]


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
    libs = {"jtensor": jtensor, "torch": torch}
    libs = {k: v for k, v in libs.items() if v is not None}
    quick = "--quick" in sys.argv
    for _group, title, fns in per_sample_grad_workloads(libs, quick):
        vmapped, looped = fns["jtensor vmap"](), fns["jtensor loop"]()
        for k in vmapped:
            np.testing.assert_allclose(
                vmapped[k].numpy(), looped[k].numpy(), rtol=1e-4, atol=1e-6, err_msg=k
            )
        times = measure_together(fns, 0.5)
        print(title, {k: f"{v * 1e3:.3f} ms" for k, v in times.items()})
        print(f"jtensor loop / jtensor vmap: {times['jtensor loop'] / times['jtensor vmap']:.1f}x")
        if "torch vmap" in times:
            print(f"jtensor vmap / torch vmap: {times['jtensor vmap'] / times['torch vmap']:.2f}x")
