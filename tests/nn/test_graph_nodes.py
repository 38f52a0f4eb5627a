"""The autograd graphs of composed functionals hold PyTorch's nodes: the ``.Scalar`` nodes
its C++ code records (``AddBackward1``, ``SubBackward1``; a number minus a tensor as
``SubBackward0``), ``unsafe_chunk``'s ``UnsafeSplitBackward0`` (in the RNN cells too),
``repeat_interleave``'s views and clone, ``cosine_similarity`` without expands of equal
shapes, ``local_response_norm``'s 2-d and 3-d pooling. Node names (as a multiset over the
graph), values and float64 gradients are compared with PyTorch."""

import numpy as np
import pytest

import jtensor
from tests.harness.graphs import node_names

torch = pytest.importorskip("torch")


def _nodes_of(out):
    return sorted(node_names([out]).items())


def _data(lib, *shape, seed=0):
    rng = np.random.default_rng(seed + len(shape))
    return lib.tensor(rng.standard_normal(shape), dtype=lib.float64)


CASES = {
    "pairwise_distance": lambda L, F, x, y: F.pairwise_distance(x, y),
    "pairwise_distance, keepdim, p=1": lambda L, F, x, y: F.pairwise_distance(
        x, y, 1.0, 1e-3, True
    ),
    "triplet_margin_loss": lambda L, F, x, y: F.triplet_margin_loss(x, y, y * 2),
    "triplet_margin_loss, swap": lambda L, F, x, y: F.triplet_margin_loss(
        x, y, y * 2, margin=0.5, swap=True
    ),
    "triplet_margin_with_distance_loss": lambda L, F, x, y: F.triplet_margin_with_distance_loss(
        x, y, y * 2
    ),
    "rms_norm": lambda L, F, x, y: F.rms_norm(x, (6,)),
    "rms_norm, weight and eps": lambda L, F, x, y: F.rms_norm(x, (4, 6), y * 0 + 2, eps=0.1),
    "margin_ranking_loss": lambda L, F, x, y: F.margin_ranking_loss(
        x[:, 0], y[:, 0], L.tensor([1.0, -1.0, 1.0, -1.0], dtype=L.float64), margin=0.3
    ),
    "cosine_embedding_loss": lambda L, F, x, y: F.cosine_embedding_loss(
        x, y, L.tensor([1.0, -1.0, 1.0, -1.0], dtype=L.float64), margin=-0.2
    ),
    "hinge_embedding_loss": lambda L, F, x, y: F.hinge_embedding_loss(
        x, L.ones(4, 6, dtype=L.float64).tril() * 2 - 1
    ),
    "poisson_nll_loss, log_input=False": lambda L, F, x, y: F.poisson_nll_loss(
        x.exp(), y.abs(), log_input=False
    ),
    "cosine_similarity, equal shapes": lambda L, F, x, y: F.cosine_similarity(x, y),
    "cosine_similarity, broadcast": lambda L, F, x, y: F.cosine_similarity(x, y[0], dim=-1),
    "repeat_interleave, dim": lambda L, F, x, y: x.repeat_interleave(3, dim=1),
    "repeat_interleave, flattened": lambda L, F, x, y: x.t().repeat_interleave(2),
    "repeat_interleave, negative dim": lambda L, F, x, y: L.repeat_interleave(x, 2, -2),
    "unsafe_chunk": lambda L, F, x, y: L.unsafe_chunk(x * 1, 3, 1)[1],
    "unsafe_split": lambda L, F, x, y: L.cat(L.unsafe_split(x * 1, 4, 1)[::-1], 1),
    "unsafe_split_with_sizes": lambda L, F, x, y: L.unsafe_split_with_sizes(x * 1, [1, 3], 0)[1],
    "local_response_norm, 3-d": lambda L, F, x, y: F.local_response_norm(x.reshape(2, 3, 4), 3),
    "local_response_norm, 4-d": lambda L, F, x, y: F.local_response_norm(x.reshape(1, 4, 3, 2), 2),
    "local_response_norm, 5-d": lambda L, F, x, y: F.local_response_norm(
        x.reshape(1, 3, 2, 2, 2), 4, alpha=0.5, k=2.0
    ),
}


def _run(lib, name):
    x, y = _data(lib, 4, 6).requires_grad_(), _data(lib, 4, 6, 1, seed=1).reshape(4, 6)
    out = CASES[name](lib, lib.nn.functional, x, y)
    weight = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
    (out * weight).sum().backward()
    return _nodes_of(out), out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_values_and_gradients(name):
    (ref_nodes, ref_out, ref_grad), (nodes, out, grad) = (
        _run(lib, name) for lib in (torch, jtensor)
    )
    assert nodes == ref_nodes
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
def test_rnn_cells_split_their_gates_unsafely(cell):
    found = []
    for lib in (torch, jtensor):
        lib.manual_seed(0)
        module = getattr(lib.nn, cell)(5, 3).double()
        out = module(_data(lib, 2, 5).requires_grad_())
        found.append(_nodes_of(out[0] if isinstance(out, tuple) else out))
    assert found[0] == found[1]


def _unsafe_facts(lib):
    y = _data(lib, 2, 8).requires_grad_() * 1
    pieces = lib.unsafe_chunk(y, 2, 1)
    facts = [
        type(pieces).__name__,
        [p.stride() for p in pieces],
        [p.storage_offset() for p in pieces],
        pieces[0]._is_view(),
        pieces[0]._base is None,
        pieces[0].data_ptr() == y.data_ptr(),
    ]
    pieces[0].mul_(2)  # (its own version counter; the input's history is untouched)
    facts += [
        pieces[0]._version,
        y._version,
        type(pieces[0].grad_fn).__name__,
        type(y.grad_fn).__name__,
    ]
    with lib.no_grad():
        plain = lib.unsafe_chunk(y, 2, 1)[0]
    facts += [plain.requires_grad, plain._is_view(), plain.grad_fn]
    return facts


def test_unsafe_pieces_are_no_views():
    assert _unsafe_facts(jtensor) == _unsafe_facts(torch)


def test_gradcheck():
    x = _data(jtensor, 3, 4).requires_grad_()
    y = _data(jtensor, 3, 4, 1).reshape(3, 4)
    F = jtensor.nn.functional
    checks = [
        lambda a: F.triplet_margin_loss(a, y, y * 2, swap=True),
        lambda a: F.rms_norm(a, (4,)),
        lambda a: F.cosine_embedding_loss(
            a, y, jtensor.tensor([1.0, -1.0, 1.0], dtype=jtensor.float64)
        ),
        lambda a: a.repeat_interleave(2, dim=0),
        lambda a: jtensor.unsafe_chunk(a, 2, 1)[1],
        lambda a: F.local_response_norm(a.reshape(1, 3, 4), 2),
    ]
    for f in checks:
        assert jtensor.autograd.gradcheck(f, (x,))
