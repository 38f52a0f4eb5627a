"""End to end: the small GPT of the teaching programs (token + position embeddings, a causal
``TransformerEncoder`` with ``norm_first``, GELU, dropout, a linear head), built from the same
seed in jtensor and PyTorch, trained with AdamW on a character sequence made here: the same
initial weights and the same loss curve (dropout draws included) step for step; then greedy
generation gives the same tokens."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.devices,
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
]

TEXT = "hello transformer, hello attention; " * 8
VOCAB = sorted(set(TEXT))
BLOCK = 8


def _gpt(lib):
    nn = lib.nn

    class GPT(nn.Module):
        def __init__(self, vocab, d=16, heads=2, layers=2):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(BLOCK, d)
            layer = nn.TransformerEncoderLayer(
                d, heads, 4 * d, dropout=0.1, activation="gelu", batch_first=True, norm_first=True
            )
            self.blocks = nn.TransformerEncoder(layer, layers)
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(t))
            mask = nn.Transformer.generate_square_subsequent_mask(t)
            x = self.blocks(x, mask=mask, is_causal=True)
            return self.head(self.ln(x))

    return GPT(len(VOCAB))


def _batches(steps=12, batch=4, seed=0):
    data = np.array([VOCAB.index(c) for c in TEXT], dtype=np.int64)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = rng.integers(0, len(data) - BLOCK - 1, size=batch)
        yield (
            np.stack([data[s : s + BLOCK] for s in starts]),
            np.stack([data[s + 1 : s + BLOCK + 1] for s in starts]),
        )


def _train(lib):
    lib.manual_seed(0)
    model = _gpt(lib)
    weights = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    opt = lib.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for x, y in _batches():
        logits = model(lib.tensor(x))
        loss = lib.nn.functional.cross_entropy(
            logits.reshape(-1, len(VOCAB)), lib.tensor(y).reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    idx = lib.tensor([[VOCAB.index("h")]])
    with lib.no_grad():
        for _ in range(BLOCK - 1):
            nxt = model(idx)[:, -1].argmax(-1, keepdim=True)
            idx = lib.cat([idx, nxt], dim=1)
    return weights, losses, idx.cpu().numpy().tolist()


def test_small_gpt_trains_like_pytorch():
    ours, theirs = _train(jtensor), _train(torch)
    assert list(ours[0]) == list(theirs[0])
    for name in theirs[0]:
        np.testing.assert_array_equal(ours[0][name], theirs[0][name], err_msg=name)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4)
    assert ours[1][-1] < ours[1][0]
    assert ours[2] == theirs[2]
