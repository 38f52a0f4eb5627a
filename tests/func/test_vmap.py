"""``torch.func.vmap`` against PyTorch: batching rules op family by op family (values,
shapes, dtypes), in_dims/out_dims trees, nesting, chunking, randomness, and PyTorch's
errors (same exception types)."""

import warnings

import numpy as np
import pytest

import jtensor
from tests.func._oracle import check_against_torch
from tests.harness.conformance import T, arr

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices


def V(lib):
    return lib.func.vmap


def F(lib):
    return lib.nn.functional


def x34(lib):
    return T(lib, arr(3, 4))


def x234(lib):
    return T(lib, arr(2, 3, 4, seed=1))


def xy(lib):
    return T(lib, arr(3, 4)), T(lib, arr(3, 4, seed=1))


CASES = {
    # element-wise, with broadcasting between batched and unbatched operands
    "add": (lambda lib, a, b: V(lib)(lib.add)(a, b), xy),
    "add_unbatched": (lambda lib, a, b: V(lib)(lambda u: u + b[0], in_dims=0)(a), xy),
    "mul_rank_mismatch": (
        lambda lib, a, b: V(lib)(lambda u, v: u * v, in_dims=(0, None))(
            a, T(lib, arr(5, 1, 4, seed=2))
        ),
        xy,
    ),
    "in_dims_1": (lambda lib, a, b: V(lib)(lambda u, v: u - v, in_dims=(1, 0))(a, b.t()), xy),
    "scalar_tensor_promotion": (
        lambda lib, a: V(lib)(lambda s: s * a[0])(T(lib, arr(3, dtype="float64"))),
        x34,
    ),
    "int_sample_float_tensor": (
        lambda lib, a: V(lib)(lambda s: s + a[0])(T(lib, arr(3, dtype="int64"))),
        x34,
    ),
    "unary_chain": (lambda lib, a: V(lib)(lambda u: (u.sin() * 2).exp().clamp(max=3.0))(a), x34),
    "where": (lambda lib, a, b: V(lib)(lambda u, v: lib.where(u > 0, u, v))(a, b), xy),
    "masked_fill": (lambda lib, a: V(lib)(lambda u: u.masked_fill(u < 0, 0.5))(a), x34),
    "pow_scalar": (lambda lib, a: V(lib)(lambda u: u**2)(a), x34),
    # reductions
    "sum": (lambda lib, a: V(lib)(lambda u: u.sum())(a), x234),
    "sum_dim": (lambda lib, a: V(lib)(lambda u: u.sum(-1, keepdim=True))(a), x234),
    "sum_dims": (lambda lib, a: V(lib)(lambda u: u.sum((0, 1)))(a), x234),
    "mean_keepdim_none": (lambda lib, a: V(lib)(lambda u: u.mean(dim=None, keepdim=True))(a), x234),
    "max_dim": (lambda lib, a: V(lib)(lambda u: u.max(1))(a), x234),
    "max_all": (lambda lib, a: V(lib)(lambda u: u.max())(a), x234),
    "argmax_all": (lambda lib, a: V(lib)(lambda u: u.argmax())(a), x234),
    "std": (lambda lib, a: V(lib)(lambda u: u.std(0))(a), x234),
    "cumsum": (lambda lib, a: V(lib)(lambda u: u.cumsum(0))(a), x234),
    "logsumexp": (lambda lib, a: V(lib)(lambda u: u.logsumexp(-1))(a), x234),
    "sort": (lambda lib, a: V(lib)(lambda u: u.sort(0, descending=True))(a), x234),
    "topk": (lambda lib, a: V(lib)(lambda u: u.topk(2))(a), x234),
    "softmax": (lambda lib, a: V(lib)(lambda u: u.softmax(-1))(a), x234),
    "log_softmax": (lambda lib, a: V(lib)(lambda u: F(lib).log_softmax(u, dim=0))(a), x234),
    "norm": (lambda lib, a: V(lib)(lambda u: lib.linalg.vector_norm(u))(a), x234),
    # products
    "dot": (lambda lib, a, b: V(lib)(lib.dot)(a, b), xy),
    "mv": (lambda lib, a, b: V(lib)(lib.mv, in_dims=(None, 0))(b, a), xy),
    "mm_batched_both": (lambda lib, a: V(lib)(lib.mm)(a, a.transpose(1, 2)), x234),
    "matmul_mixed": (lambda lib, a: V(lib)(lambda u: u @ a[0].t())(a), x234),
    "matmul_vec_mat": (lambda lib, a: V(lib)(lambda u: u @ a[0])(a[:, :, 0]), x234),
    "matmul_unbatched_first": (lambda lib, a: V(lib)(lambda u: a[0] @ u)(a.transpose(1, 2)), x234),
    "matmul_batch_broadcast": (
        lambda lib, a: V(lib)(lambda u: lib.matmul(T(lib, arr(5, 4, 3, seed=3)), u))(
            a.transpose(1, 2)[:, :, :2]
        ),
        x234,
    ),
    "bmm": (lambda lib, a: V(lib)(lib.bmm)(a.unsqueeze(1), a.unsqueeze(1).transpose(2, 3)), x234),
    "outer": (lambda lib, a, b: V(lib)(lib.outer)(a, b), xy),
    "einsum": (lambda lib, a, b: V(lib)(lambda u, v: lib.einsum("i,j->ij", u, v))(a, b), xy),
    "einsum_implicit": (lambda lib, a: V(lib)(lambda u: lib.einsum("ij,jk", u, a[0].t()))(a), x234),
    "linear_batched_weight": (
        lambda lib, a: V(lib)(F(lib).linear)(
            a, T(lib, arr(2, 5, 4, seed=3)), T(lib, arr(2, 5, seed=4))
        ),
        x234,
    ),
    "linear_unbatched_weight": (
        lambda lib, a: V(lib)(lambda u: F(lib).linear(u, a[0], a[1, :, 0]))(a),
        x234,
    ),
    "addmm": (lambda lib, a: V(lib)(lambda u: lib.addmm(a[0, 0], u, a[0].t(), beta=0.5))(a), x234),
    # views and shapes
    "view": (lambda lib, a: V(lib)(lambda u: u.view(-1, 2))(a), x234),
    "reshape_t": (lambda lib, a: V(lib)(lambda u: u.t().reshape(12))(a), x234),
    "transpose_permute": (
        lambda lib, a: V(lib)(lambda u: u.unsqueeze(0).permute(2, 0, 1))(a),
        x234,
    ),
    "squeeze": (lambda lib, a: V(lib)(lambda u: u[:, :1].squeeze())(a), x234),
    "expand": (lambda lib, a: V(lib)(lambda u: u[:, :1].expand(2, 3, 4))(a), x234),
    "flatten": (lambda lib, a: V(lib)(lambda u: u.flatten())(a), x234),
    "movedim": (lambda lib, a: V(lib)(lambda u: u.movedim(0, -1))(a), x234),
    "unbind": (lambda lib, a: V(lib)(lambda u: u.unbind(1))(a), x234),
    "chunk": (lambda lib, a: V(lib)(lambda u: u.chunk(2, -1))(a), x234),
    "getitem_basic": (lambda lib, a: V(lib)(lambda u: u[1:, None, ..., ::2])(a), x234),
    "getitem_int": (lambda lib, a: V(lib)(lambda u: u[-1, 2])(a), x234),
    "getitem_index_tensor": (lambda lib, a: V(lib)(lambda u: u[:, lib.tensor([0, 3, 3])])(a), x234),
    "getitem_separated_advanced": (
        lambda lib, a: V(lib)(lambda u: u.unsqueeze(0)[lib.tensor([0, 0]), :, lib.tensor([1, 2])])(
            a
        ),
        x234,
    ),
    "getitem_batched_indices": (
        lambda lib, a: V(lib)(lambda i: a[0][i])(lib.tensor([[0, 1], [2, 2], [1, 0]])),
        x234,
    ),
    "getitem_per_sample_index": (
        lambda lib, a: V(lib)(lambda u, i: u[i])(a, lib.tensor([[0, 1], [2, 0]])),
        x234,
    ),
    "gather": (
        lambda lib, a: V(lib)(lambda u, i: u.gather(1, i))(
            a, lib.tensor([[[0], [1], [3]], [[2], [2], [0]]])
        ),
        x234,
    ),
    "gather_unbatched_index": (
        lambda lib, a: V(lib)(lambda u: u.gather(1, lib.tensor([[0], [1], [3]])))(a),
        x234,
    ),
    "index_select": (
        lambda lib, a: V(lib)(lambda u: u.index_select(1, lib.tensor([3, 0])))(a),
        x234,
    ),
    "cat_mixed": (lambda lib, a: V(lib)(lambda u: lib.cat([u, a[0]], dim=-1))(a), x234),
    "stack_mixed": (lambda lib, a: V(lib)(lambda u: lib.stack([a[1], u], dim=1))(a), x234),
    "flip_roll": (lambda lib, a: V(lib)(lambda u: u.flip(0).tril())(a), x234),
    "zeros_like_new_zeros": (
        lambda lib, a: V(lib)(lambda u: (lib.zeros_like(u) + 1, u.new_zeros(2)))(a),
        x234,
    ),
    "batched_output_out_dims_none": (
        lambda lib, a: V(lib)(lambda u: u.new_zeros(2), out_dims=None)(a),
        x234,
    ),
    # nn
    "relu_gelu": (lambda lib, a: V(lib)(lambda u: F(lib).gelu(F(lib).relu(u) - 1))(a), x234),
    "mse_loss": (lambda lib, a, b: V(lib)(F(lib).mse_loss)(a, b), xy),
    "mse_loss_sum": (
        lambda lib, a, b: V(lib)(lambda u, v: F(lib).mse_loss(u, v, reduction="sum"))(a, b),
        xy,
    ),
    "bce_logits": (
        lambda lib, a, b: V(lib)(
            lambda u, v: F(lib).binary_cross_entropy_with_logits(u, v.sigmoid())
        )(a, b),
        xy,
    ),
    "cross_entropy_sample": (
        lambda lib, a: V(lib)(F(lib).cross_entropy)(a[0], lib.tensor([0, 1, 3])),
        x234,
    ),
    "cross_entropy_minibatch": (
        lambda lib, a: V(lib)(F(lib).cross_entropy)(a, lib.tensor([[0, 1, 3], [2, 2, 1]])),
        x234,
    ),
    "cross_entropy_weight_ignore": (
        lambda lib, a: V(lib)(
            lambda u, t: F(lib).cross_entropy(
                u, t, weight=lib.tensor([1.0, 2.0, 0.5, 3.0]), ignore_index=1
            )
        )(a, lib.tensor([[0, 1, 3], [2, 2, 1]])),
        x234,
    ),
    "cross_entropy_smoothing": (
        lambda lib, a: V(lib)(lambda u, t: F(lib).cross_entropy(u, t, label_smoothing=0.1))(
            a, lib.tensor([[0, 1, 3], [2, 2, 1]])
        ),
        x234,
    ),
    "cross_entropy_probs": (
        lambda lib, a: V(lib)(lambda u, t: F(lib).cross_entropy(u, t))(a, a.softmax(-1)),
        x234,
    ),
    "nll_loss_sum": (
        lambda lib, a: V(lib)(lambda u, t: F(lib).nll_loss(u.log_softmax(-1), t, reduction="sum"))(
            a, lib.tensor([[0, 1, 3], [2, 2, 1]])
        ),
        x234,
    ),
    "layer_norm": (
        lambda lib, a: V(lib)(lambda u: F(lib).layer_norm(u, (4,), a[0, 0], a[1, 0]))(a),
        x234,
    ),
    "embedding_batched_weight": (
        lambda lib, a: V(lib)(F(lib).embedding)(lib.tensor([[0, 2], [1, 1]]), a),
        x234,
    ),
    "conv2d": (
        lambda lib: V(lib)(lambda u: F(lib).conv2d(u, T(lib, arr(2, 3, 2, 2, seed=5)), padding=1))(
            T(lib, arr(2, 1, 3, 4, 4, seed=6))
        ),
        None,
    ),
    "conv2d_batched_weight": (
        lambda lib: V(lib)(lambda u, w: F(lib).conv2d(u, w, T(lib, arr(2, seed=7)), stride=2))(
            T(lib, arr(2, 3, 5, 5, seed=6)), T(lib, arr(2, 2, 3, 2, 2, seed=5))
        ),
        None,
    ),
    "max_pool2d": (
        lambda lib: V(lib)(lambda u: F(lib).max_pool2d(u, 2))(T(lib, arr(2, 1, 3, 4, 4, seed=6))),
        None,
    ),
    "dropout_eval": (
        lambda lib, a: V(lib)(lambda u: F(lib).dropout(u, 0.5, training=False))(a),
        x234,
    ),
    # in-place
    "inplace_batched": (lambda lib, a: V(lib)(lambda u: u.clone().mul_(2).add_(a[0, 0]))(a), x234),
    "setitem_batched_value": (lambda lib, a: V(lib)(lambda u: _set(lib, u))(a), x234),
    "inplace_unbatched_self": (lambda lib, a: V(lib)(lambda u: lib.zeros(3, 4).copy_(u))(a), x234),
    "inplace_mul_unbatched_self": (
        lambda lib, a: V(lib)(lambda u: lib.zeros(4).mul_(u))(a[:, 0]),
        x234,
    ),
    # control flow and data access
    "bool": (lambda lib, a: V(lib)(lambda u: u if u.sum() > 0 else -u)(a), x234),
    "item": (lambda lib, a: V(lib)(lambda u: u.sum().item())(a), x234),
    # in_dims / out_dims and their errors
    "tree_in_dims": (
        lambda lib, a: V(lib)(lambda d, s: d["x"] * d["y"] + s, in_dims=({"x": 0, "y": None}, 1))(
            {"x": a, "y": a[0]}, a.transpose(0, 1)
        ),
        x234,
    ),
    "out_dims_tree": (
        lambda lib, a: V(lib)(lambda u: (u, [u.sum(0), u[0]]), out_dims=(1, [-1, 0]))(a),
        x234,
    ),
    "out_dims_dict": (
        lambda lib, a: sorted(
            V(lib)(lambda u: {"s": u.sum(0), "t": u}, out_dims={"s": -1, "t": 2})(a).items()
        ),
        x234,
    ),
    "out_dims_none_unbatched": (
        lambda lib, a: V(lib)(lambda u: (u, a[0]), out_dims=(0, None))(a),
        x234,
    ),
    "unbatched_output_expanded": (lambda lib, a: V(lib)(lambda u: a[0, 0])(a), x234),
    "nested_in_dims_tuple": (
        lambda lib, a: V(lib)(lambda p: p[0] + p[1][0], in_dims=((0, (None,)),))((a, (a[0],))),
        x234,
    ),
    "size_mismatch": (lambda lib, a: V(lib)(lib.add)(a, a[:1]), x234),
    "in_dim_out_of_range": (lambda lib, a: V(lib)(lib.sin, in_dims=3)(a), x234),
    "in_dims_structure": (lambda lib, a: V(lib)(lib.sin, in_dims=(0, 0))(a), x234),
    "in_dims_list": (lambda lib, a: V(lib)(lib.sin, in_dims=[0])(a), x234),
    "in_dims_none": (lambda lib, a: V(lib)(lib.sin, in_dims=None)(a), x234),
    "all_none": (lambda lib, a: V(lib)(lib.sin, in_dims=(None,))(a), x234),
    "non_tensor_mapped": (lambda lib, a: V(lib)(lambda u, s: u * s, in_dims=(0, 0))(a, 2.0), x234),
    "zero_dim_input": (lambda lib, a: V(lib)(lib.sin)(a[0, 0, 0]), x234),
    "no_inputs": (lambda lib, a: V(lib)(lib.sin)(), x234),
    "non_tensor_output": (lambda lib, a: V(lib)(lambda u: 3)(a), x234),
    "out_dims_structure": (lambda lib, a: V(lib)(lib.sin, out_dims=(0, 0))(a), x234),
    "out_dims_bad_type": (lambda lib, a: V(lib)(lib.sin, out_dims="a")(a), x234),
    "out_dim_out_of_range": (lambda lib, a: V(lib)(lambda u: u.sum(), out_dims=1)(a), x234),
    "negative_out_dim": (lambda lib, a: V(lib)(lib.sin, out_dims=-1)(a), x234),
    "bad_randomness": (lambda lib, a: V(lib)(lib.sin, randomness="foo")(a), x234),
    "bad_chunk_size": (lambda lib, a: V(lib)(lib.sin, chunk_size=0)(a), x234),
    "chunked": (lambda lib, a: V(lib)(lambda u: u.sum(0), chunk_size=1, out_dims=1)(a), x234),
    "random_error_mode": (lambda lib, a: V(lib)(lambda u: u + lib.rand(4))(a), x234),
    "dropout_error_mode": (lambda lib, a: V(lib)(lambda u: F(lib).dropout(u))(a), x234),
    "random_same_batched_input": (
        lambda lib, a: V(lib)(lambda u: lib.bernoulli(u.sigmoid()), randomness="same")(a),
        x234,
    ),
    "inplace_random_unbatched_different": (
        lambda lib, a: V(lib)(lambda u: lib.zeros(4).uniform_() + u, randomness="different")(a),
        x234,
    ),
    # nesting
    "vmap_of_vmap": (lambda lib, a: V(lib)(V(lib)(lib.dot))(a, a), x234),
    "vmap_of_vmap_in_dims": (
        lambda lib, a: V(lib)(V(lib)(lambda u, v: u * v, in_dims=(0, None)), in_dims=(None, 0))(
            a[0], a[:, 0]
        ),
        x234,
    ),
    "vmap_of_vmap_matmul": (
        lambda lib, a: V(lib)(V(lib)(lambda u, w: w @ u, in_dims=(1, None)), in_dims=(0, 0))(
            a, T(lib, arr(2, 5, 3, seed=3))
        ),
        x234,
    ),
}


def _set(lib, u):
    v = u.clone()
    v[0] = u[1] * 2
    v[1:, ::2] = 0.0
    return v


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_pytorch(name):
    check_against_torch(torch, *CASES[name], atol=1e-5, rtol=1e-4)


def test_matches_python_loop_and_warns_only_for_the_fallback():
    x = jtensor.randn(5, 3, 4)
    w = jtensor.randn(4, 6)

    def f(u):
        return (u @ w).relu().softmax(-1).sum(0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jtensor.vmap(f)(x)
    expected = jtensor.stack([f(x[i]) for i in range(5)])
    np.testing.assert_allclose(out.cpu().numpy(), expected.cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_fallback_is_a_correct_loop_with_a_warning():
    x = jtensor.rand(3, 50)
    with pytest.warns(UserWarning, match="performance drop .* no batching rule for histc"):
        out = jtensor.vmap(lambda u: jtensor.histc(u, bins=4, min=0, max=1))(x)
    expected = jtensor.stack([jtensor.histc(x[i], bins=4, min=0, max=1) for i in range(3)])
    assert jtensor.equal(out, expected)


def test_randomness_modes():
    x = jtensor.ones(4, 1000)
    different = jtensor.vmap(
        lambda u: jtensor.nn.functional.dropout(u, 0.5), randomness="different"
    )(x)
    assert not jtensor.equal(different[0], different[1])
    same = jtensor.vmap(lambda u: jtensor.nn.functional.dropout(u, 0.5), randomness="same")(x)
    assert all(jtensor.equal(same[0], same[i]) for i in range(4))
    assert set(np.unique(same.cpu().numpy()).tolist()) <= {0.0, 2.0}
    r_same = jtensor.vmap(lambda u: jtensor.rand(3) + u, randomness="same")(jtensor.zeros(4, 3))
    assert all(jtensor.equal(r_same[0], r_same[i]) for i in range(4))
    r_diff = jtensor.vmap(lambda u: jtensor.rand(3) + u, randomness="different")(
        jtensor.zeros(4, 3)
    )
    assert not jtensor.equal(r_diff[0], r_diff[1])
    like = jtensor.vmap(lambda u: jtensor.randn_like(u), randomness="different")(x)
    assert not jtensor.equal(like[0], like[1])
    inplace = jtensor.vmap(lambda u: u.clone().uniform_(), randomness="same")(x)
    assert all(jtensor.equal(inplace[0], inplace[i]) for i in range(4))


def test_batched_tensor_reports_the_logical_shape():
    seen = {}

    def f(u):
        seen.update(
            shape=tuple(u.shape),
            dim=u.dim(),
            numel=u.numel(),
            size=u.size(1),
            len=len(u),
            dtype=u.dtype,
        )
        return u

    jtensor.vmap(f, in_dims=1)(jtensor.zeros(2, 7, 3))
    assert seen == {
        "shape": (2, 3),
        "dim": 2,
        "numel": 6,
        "size": 3,
        "len": 2,
        "dtype": jtensor.float32,
    }
    text = []
    jtensor.vmap(lambda u: text.append(repr(u)) or u)(jtensor.zeros(2, 3))
    assert text[0].startswith("BatchedTensor(lvl=1, bdim=0, value=")


def test_torch_vmap_is_torch_func_vmap():
    assert jtensor.vmap is jtensor.func.vmap
