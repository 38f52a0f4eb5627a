"""A node's edges are what learners inspect (``grad_fn.next_functions``, the graph widget):
for each call, the node's name and the kind of node behind each edge (``None`` for an
absent or constant input) must be PyTorch's. An input that belongs to another of PyTorch's
overloads has no edge (``x.max()`` has one, ``x.clamp(max=1.0)`` one), an absent
``Tensor?`` argument of the same overload keeps a ``(None, 0)`` edge (``layer_norm``
without weight and bias has three), and a non-differentiable argument has none
(``embedding``'s indices)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _f(lib):
    return lib.nn.functional


CALLS = {
    "max": lambda L, a, b: a.max(),
    "max_dim": lambda L, a, b: a.max(0)[0],
    "maximum_overload": lambda L, a, b: L.max(a, b),
    "min_keepdim": lambda L, a, b: a.min(1, keepdim=True)[0],
    "clamp_min_number": lambda L, a, b: a.clamp(min=0.0),
    "clamp_max_number": lambda L, a, b: a.clamp(max=1.0),
    "clamp_both_numbers": lambda L, a, b: a.clamp(0.0, 1.0),
    "clamp_min_tensor": lambda L, a, b: a.clamp(min=b),
    "clamp_max_tensor": lambda L, a, b: a.clamp(max=b),
    "clamp_constant_tensor": lambda L, a, b: a.clamp(min=b.detach()),
    "where_number": lambda L, a, b: L.where(a > 0.5, a, 0.0),
    "pow_number": lambda L, a, b: a**2,
    "pow_tensor": lambda L, a, b: a**b,
    "sub_alpha": lambda L, a, b: L.sub(a, b, alpha=2),
    "rsub": lambda L, a, b: 1 - a,
    "lerp_number": lambda L, a, b: a.lerp(b, 0.5),
    "sum_dim": lambda L, a, b: a.sum(0),
    "softmax": lambda L, a, b: a.softmax(0),
    "layer_norm": lambda L, a, b: _f(L).layer_norm(a, (3,)),
    "layer_norm_weight": lambda L, a, b: _f(L).layer_norm(a, (3,), b[0]),
    "group_norm": lambda L, a, b: _f(L).group_norm(a[None], 3),
    "batch_norm_train": lambda L, a, b: _f(L).batch_norm(a, None, None, training=True),
    "batch_norm_eval": lambda L, a, b: _f(L).batch_norm(a, L.zeros(3), L.ones(3)),
    "batch_norm_affine": lambda L, a, b: _f(L).batch_norm(a, None, None, b[0], b[1], training=True),
    "conv1d": lambda L, a, b: _f(L).conv1d(a[None], b[None]),
    "conv2d_bias": lambda L, a, b: _f(L).conv2d(a[None, None], b[None, None], b[0, :1]),
    "conv_transpose1d": lambda L, a, b: _f(L).conv_transpose1d(a[None], b[:, None]),
    "embedding": lambda L, a, b: _f(L).embedding(L.tensor([0, 2]), a),
    "embedding_padding": lambda L, a, b: _f(L).embedding(L.tensor([0, 2]), a, padding_idx=0),
    "embedding_bag": lambda L, a, b: _f(L).embedding_bag(L.tensor([0, 2]), a, L.tensor([0])),
    "linear": lambda L, a, b: _f(L).linear(a, b),
    "linear_bias": lambda L, a, b: _f(L).linear(a, b, a[0]),
    "cross_entropy": lambda L, a, b: _f(L).cross_entropy(a, L.tensor([0, 1, 2])),
    "mse_constant_target": lambda L, a, b: _f(L).mse_loss(a, b.detach()),
    "bce_logits_pos_weight": lambda L, a, b: _f(L).binary_cross_entropy_with_logits(
        a, b.detach(), pos_weight=L.ones(3)
    ),
    "gather": lambda L, a, b: a.gather(0, L.zeros(3, 3, dtype=L.long)),
    "index_select": lambda L, a, b: a.index_select(0, L.tensor([0])),
    "cat": lambda L, a, b: L.cat([a, b]),
    "matmul": lambda L, a, b: a @ b,
    "max_pool1d": lambda L, a, b: _f(L).max_pool1d(a[None], 1),
    "diff": lambda L, a, b: a.diff(),
    "outer": lambda L, a, b: L.outer(a[0], b[0]),
    "einsum": lambda L, a, b: L.einsum("ij,jk->ik", a, b),
}


def _graph(lib, call):
    lib.manual_seed(0)
    a = lib.rand(3, 3, requires_grad=True)
    b = lib.rand(3, 3, requires_grad=True)
    fn = call(lib, a, b).grad_fn
    return fn.name(), tuple(None if f is None else f.name() for f, _ in fn.next_functions)


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_node_and_edges_match_torch(call):
    assert _graph(jtensor, call) == _graph(torch, call)


@pytest.mark.parametrize("name", ["max", "clamp_max_number", "layer_norm", "embedding", "conv1d"])
def test_gradients_still_reach_the_inputs(name):
    grads = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        a = lib.rand(3, 3, dtype=lib.float64, requires_grad=True)
        b = lib.rand(3, 3, dtype=lib.float64, requires_grad=True)
        CALLS[name](lib, a, b).sum().backward()
        grads.append([None if x.grad is None else x.grad.numpy() for x in (a, b)])
    mine, theirs = grads
    for m, t in zip(mine, theirs, strict=True):
        assert (m is None) == (t is None)
        if m is not None:
            np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-12)
