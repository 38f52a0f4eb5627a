"""Training-stack benchmarks (issue 4), imported by bench/run.py's ``training_workloads``.

``cross_entropy_workloads(libs, quick)`` returns rows ``(group, title, {lib: callable})`` like
``autograd_workloads``: cross entropy forward+backward on (128, 10000) float32 logits, beside
PyTorch and the straightforward NumPy reference (log-softmax, gather, mean; gradient
``(softmax - onehot) / N``).

``attention_workloads(libs, quick)`` (issue 15's figures): ``nn.MultiheadAttention`` forward+
backward (batch_first, 8 heads, embed 256, batch 16 x 64 tokens) and one Adam step of a 2-layer
``nn.TransformerEncoder`` (d_model 256, 8 heads, feed-forward 1024, dropout 0), beside PyTorch
with the same weights and inputs (no NumPy reference: there is no straightforward one).
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


def _same_weights(src, dst, lib):
    """Copy ``src``'s parameters (a torch or jtensor module) into ``dst`` (``lib``'s)."""
    with lib.no_grad():
        for p, q in zip(src.parameters(), dst.parameters(), strict=True):
            q.copy_(lib.from_numpy(p.detach().cpu().numpy().copy()))


def attention_workloads(libs, quick):
    """Rows for ``MultiheadAttention`` fwd+bwd and a 2-layer ``TransformerEncoder`` Adam step."""
    b, t, e, heads, ff = (4, 16, 64, 4, 128) if quick else (16, 64, 256, 8, 1024)
    rng = np.random.default_rng(8)
    data = rng.standard_normal((b, t, e)).astype(np.float32)
    mods = {name: lib for name, lib in libs.items() if lib is not None and hasattr(lib, "nn")}
    if not mods:
        return []
    first = None
    mha_fns, enc_fns = {}, {}
    for name, lib in mods.items():
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(e, heads, batch_first=True)
        layer = lib.nn.TransformerEncoderLayer(e, heads, ff, dropout=0.0, batch_first=True)
        enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        if first is None:
            first = (mha, enc)
        else:
            _same_weights(first[0], mha, lib)
            _same_weights(first[1], enc, lib)
        x = lib.from_numpy(data.copy()).requires_grad_()
        mask = lib.nn.Transformer.generate_square_subsequent_mask(t)
        opt = lib.optim.Adam(enc.parameters(), lr=1e-3)

        def mha_step(mha=mha, x=x):
            x.grad = None
            out, _ = mha(x, x, x, need_weights=False)
            out.sum().backward()
            return out

        def enc_step(enc=enc, opt=opt, x=x, mask=mask):
            opt.zero_grad()
            loss = enc(x, mask=mask, is_causal=True).pow(2).mean()
            loss.backward()
            opt.step()
            return loss

        mha_fns[name], enc_fns[name] = mha_step, enc_step
    return [("model", f"MultiheadAttention fwd+bwd ({b}, {t}, {e}), {heads} heads", mha_fns),
            ("model", f"TransformerEncoder 2 layers, Adam step ({b}, {t}, {e})", enc_fns)]


def sgd_step(lib, model, x, y, lr=0.01):
    """One SGD step of ``model`` on ``(x, y)`` with cross entropy, as a callable of no
    arguments (``lib`` is jtensor or torch)."""
    opt = lib.optim.SGD(model.parameters(), lr=lr)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def _char_gpt(lib, vocab, block, width, heads, layers):
    """A character-level GPT as teaching code writes it (nanoGPT's shape: pre-norm blocks,
    attention written out with a causal ``masked_fill`` and ``softmax``, a GELU MLP)."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
            mask = lib.tril(lib.ones(block, block)).view(1, 1, block, block)
            self.register_buffer("mask", mask)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (c // heads) ** 0.5)
            att = F.softmax(att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")), -1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            x = x + self.proj(y)
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx, targets):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            logits = self.head(self.ln(self.blocks(x)))
            return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    return GPT()


def gpt_workloads(libs, quick):
    """A row for one AdamW step of a small character-level GPT (issue 18: the model learners
    train on a laptop after the makemore and nanoGPT lectures)."""
    vocab, block, width, heads, layers, batch = (65, 16, 32, 2, 1, 4) if quick else \
        (65, 64, 128, 4, 2, 16)
    rng = np.random.default_rng(10)
    idx = rng.integers(0, vocab, (batch, block + 1))
    fns, first = {}, None
    for name, lib in libs.items():
        if lib is None or not hasattr(lib, "nn"):
            continue
        lib.manual_seed(0)
        model = _char_gpt(lib, vocab, block, width, heads, layers)
        if first is None:
            first = model
        else:
            _same_weights(first, model, lib)
        opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
        x, y = lib.from_numpy(idx[:, :-1].copy()), lib.from_numpy(idx[:, 1:].copy())

        def step(model=model, opt=opt, x=x, y=y):
            opt.zero_grad(set_to_none=True)
            loss = model(x, y)
            loss.backward()
            opt.step()
            return loss

        fns[name] = step
    if not fns:
        return []
    return [("model", f"AdamW step, char GPT {layers} layers, {width} wide ({batch}, {block})",
             fns)]


def cnn_workloads(libs, quick):
    """A row for one SGD step of a small CNN (two 3x3 convolutions with ReLU and 2x2 max
    pooling, then a linear layer; cross entropy), the shape of the CNN chapters' models."""
    b, size = (8, 16) if quick else (64, 32)
    rng = np.random.default_rng(9)
    data = rng.standard_normal((b, 3, size, size)).astype(np.float32)
    labels = rng.integers(0, 10, b)
    mods = {name: lib for name, lib in libs.items() if lib is not None and hasattr(lib, "nn")}
    fns, first = {}, None
    for name, lib in mods.items():
        nn = lib.nn
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * (size // 4) ** 2, 10))
        if first is None:
            first = model
        else:
            _same_weights(first, model, lib)
        fns[name] = sgd_step(lib, model, lib.from_numpy(data.copy()),
                             lib.from_numpy(labels.copy()))
    if not fns:
        return []
    return [("model", f"SGD step, CNN conv-pool x2 + linear ({b}, 3, {size}, {size})", fns)]


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
    quick = "--quick" in sys.argv
    for _group, title, fns in (
        attention_workloads(libs, quick) + cnn_workloads(libs, quick) + gpt_workloads(libs, quick)
    ):
        times = measure_together(fns, 0.2)
        ratio = (f"jt/torch {times['jtensor'] / times['torch']:.2f}x" if "torch" in times
                 else "")
        print(title, {k: f"{v * 1e3:.3f} ms" for k, v in times.items()}, ratio)
