"""What the result of a layer, loss or op shows besides its values, against PyTorch: its
version counter, whether it is a view (``_base``, ``_is_view()``), its contiguity and the
name of its autograd node. Results PyTorch's kernels write are fresh tensors at version 0
(or at the count of the kernel's own writes: ``one_hot`` writes twice), not views of an
intermediate."""

import pytest

import jtensor

torch_ = pytest.importorskip("torch")


def _R(lib):
    def R(*shape, rg=True):
        return lib.randn(*shape, requires_grad=rg)

    return R


CASES = {
    "linear": lambda torch, nn, F, R: nn.Linear(4, 3)(R(2, 4)),
    "conv2d": lambda torch, nn, F, R: nn.Conv2d(2, 3, 3)(R(1, 2, 5, 5)),
    "bn2d": lambda torch, nn, F, R: nn.BatchNorm2d(2)(R(2, 2, 3, 3)),
    "bn_eval": lambda torch, nn, F, R: nn.BatchNorm1d(3).eval()(R(4, 3)),
    "ln": lambda torch, nn, F, R: nn.LayerNorm(4)(R(2, 4)),
    "gn": lambda torch, nn, F, R: nn.GroupNorm(2, 4)(R(2, 4, 3)),
    "in": lambda torch, nn, F, R: nn.InstanceNorm1d(3, affine=True)(R(2, 3, 5)),
    "emb": lambda torch, nn, F, R: nn.Embedding(10, 3)(torch.tensor([[1, 2], [3, 4]])),
    "lstm": lambda torch, nn, F, R: nn.LSTM(3, 4)(R(5, 2, 3))[0],
    "gru_h": lambda torch, nn, F, R: nn.GRU(3, 4)(R(5, 2, 3))[1],
    "dropout": lambda torch, nn, F, R: F.dropout(R(4, 4), 0.5),
    "dropout_eval": lambda torch, nn, F, R: F.dropout(R(4, 4), 0.5, training=False),
    "relu": lambda torch, nn, F, R: F.relu(R(3)),
    "relu_": lambda torch, nn, F, R: F.relu(R(3) * 1, inplace=True),
    "softmax": lambda torch, nn, F, R: F.softmax(R(2, 3), 1),
    "log_softmax": lambda torch, nn, F, R: F.log_softmax(R(2, 3), 1),
    "ce": lambda torch, nn, F, R: F.cross_entropy(R(4, 3), torch.tensor([0, 1, 2, 0])),
    "mse": lambda torch, nn, F, R: F.mse_loss(R(3), torch.zeros(3)),
    "bce_logits": lambda torch, nn, F, R: F.binary_cross_entropy_with_logits(R(3), torch.zeros(3)),
    "maxpool": lambda torch, nn, F, R: F.max_pool2d(R(1, 1, 4, 4), 2),
    "avgpool": lambda torch, nn, F, R: F.avg_pool2d(R(1, 1, 4, 4), 2),
    "flatten": lambda torch, nn, F, R: torch.flatten(R(2, 3, 4), 1),
    "pad": lambda torch, nn, F, R: F.pad(R(2, 3), (1, 1)),
    "interp": lambda torch, nn, F, R: F.interpolate(R(1, 1, 2, 2), scale_factor=2),
    "mha": lambda torch, nn, F, R: nn.MultiheadAttention(4, 2)(R(3, 1, 4), R(3, 1, 4), R(3, 1, 4))[
        0
    ],
    "sdpa": lambda torch, nn, F, R: F.scaled_dot_product_attention(
        R(1, 2, 3, 4), R(1, 2, 3, 4), R(1, 2, 3, 4)
    ),
    "gelu": lambda torch, nn, F, R: F.gelu(R(3)),
    "silu": lambda torch, nn, F, R: F.silu(R(3)),
    "normalize": lambda torch, nn, F, R: F.normalize(R(2, 3)),
    "one_hot": lambda torch, nn, F, R: F.one_hot(torch.tensor([0, 2]), 3),
    "cosine": lambda torch, nn, F, R: F.cosine_similarity(R(2, 3), R(2, 3)),
    "unfold": lambda torch, nn, F, R: F.unfold(R(1, 1, 3, 3), 2),
    "embbag": lambda torch, nn, F, R: nn.EmbeddingBag(10, 3)(torch.tensor([[1, 2], [3, 4]])),
    "pixel_shuffle": lambda torch, nn, F, R: F.pixel_shuffle(R(1, 4, 2, 2), 2),
    "transformer_layer": lambda torch, nn, F, R: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)(
        R(3, 1, 4)
    ),
    "rms": lambda torch, nn, F, R: F.rms_norm(R(2, 4), (4,)),
    "clip_grad": lambda torch, nn, F, R: nn.utils.clip_grad_norm_(
        [nn.Parameter(torch.ones(3))], 1.0
    ),
    "kl": lambda torch, nn, F, R: F.kl_div(R(3), torch.rand(3), reduction="batchmean"),
    "triplet": lambda torch, nn, F, R: F.triplet_margin_loss(R(2, 3), R(2, 3), R(2, 3)),
    "hardtanh": lambda torch, nn, F, R: F.hardtanh(R(3)),
    "elu": lambda torch, nn, F, R: F.elu(R(3)),
    "leaky": lambda torch, nn, F, R: F.leaky_relu(R(3)),
    "sigmoid": lambda torch, nn, F, R: torch.sigmoid(R(3)),
    "std": lambda torch, nn, F, R: R(3, 4).std(0),
    "var_mean": lambda torch, nn, F, R: torch.var_mean(R(3, 4), 0)[0],
    "topk": lambda torch, nn, F, R: R(5).topk(2)[0],
    "sort": lambda torch, nn, F, R: R(5).sort()[0],
    "cumsum": lambda torch, nn, F, R: R(5).cumsum(0),
    "where": lambda torch, nn, F, R: torch.where(R(3) > 0, R(3), R(3)),
    "einsum": lambda torch, nn, F, R: torch.einsum("ij,jk->ik", R(2, 3), R(3, 2)),
    "cat": lambda torch, nn, F, R: torch.cat([R(2), R(3)]),
    "stack": lambda torch, nn, F, R: torch.stack([R(2), R(2)]),
    "chunk0": lambda torch, nn, F, R: R(4).chunk(2)[0],
    "split0": lambda torch, nn, F, R: R(4).split(2)[0],
    "unbind0": lambda torch, nn, F, R: R(2, 3).unbind(0)[0],
}


def _shown(lib, name):
    lib.manual_seed(0)
    y = CASES[name](lib, lib.nn, lib.nn.functional, _R(lib))
    node = type(y.grad_fn).__name__ if y.grad_fn is not None else None
    return y._version, y._base is None, y._is_view(), y.is_contiguous(), node


@pytest.mark.parametrize("name", list(CASES))
def test_result_metadata_is_pytorchs(name):
    assert _shown(jtensor, name) == _shown(torch_, name)
