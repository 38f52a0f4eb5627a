"""Gradient specs of the ``nn.functional`` ops added for issue 15's breadth: float64
gradcheck, layout variants, second derivatives where PyTorch has them, and the same gradients
and ``grad_fn`` names as PyTorch."""

import numpy as np

from tests.grad_specs.grad_nn import F, _seeded, _with  # noqa: F401 (the shared makers)
from tests.harness.gradients import G


GRADS = [
    # ------------------------------------------------------------------ activations
    G("selu", lambda lib, x: F(lib).selu(x), [(3, 4)]),
    G("selu", lambda lib, x: F(lib).selu(x.clone(), inplace=True), [(3, 4)]),
    G("selu_", lambda lib, x: F(lib).selu_(x * 1), [(3, 4)]),
    G("celu", lambda lib, x: F(lib).celu(x, 0.7), [(3, 4)]),
    G("celu", lambda lib, x: F(lib).celu(x.clone(), 1.5, inplace=True), [(3, 4)]),
    G("celu_", lambda lib, x: F(lib).celu_(x * 1, 2.0), [(3, 4)]),
    G("prelu", lambda lib, x, w: F(lib).prelu(x, w), [(2, 3, 4), (3,)]),
    G("prelu", lambda lib, x, w: F(lib).prelu(x, w), [(3, 4), (1,)]),
    G("glu", lambda lib, x: F(lib).glu(x), [(3, 4)]),
    G("glu", lambda lib, x: F(lib).glu(x, 0), [(4, 3)]),
    G("hardswish", lambda lib, x: F(lib).hardswish(x * 3), [(3, 4)]),
    # The in-place forms keep a recorded copy of the input from before the write, so their
    # backward is differentiated again in x (as PyTorch's).
    G("hardswish", lambda lib, x: F(lib).hardswish(x * 3, inplace=True), [(3, 4)]),
    # A double backward raises in PyTorch ("derivative for aten::hardsigmoid_backward is not
    # implemented"); jtensor's backward is built of differentiable ops: checked to 2nd order.
    G("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x * 3), [(3, 4)]),
    G(
        "hardsigmoid",
        lambda lib, x: F(lib).hardsigmoid(x * 3, inplace=True),
        [(3, 4)],
    ),
    G("mish", lambda lib, x: F(lib).mish(x), [(3, 4)]),
    G("mish", lambda lib, x: F(lib).mish(x * 1, inplace=True), [(3, 4)]),
    G("softsign", lambda lib, x: F(lib).softsign(x), [(3, 4)]),
    G("tanhshrink", lambda lib, x: F(lib).tanhshrink(x), [(3, 4)]),
    G("softshrink", lambda lib, x: F(lib).softshrink(x, 0.3), [(3, 4)]),
    G("hardshrink", lambda lib, x: F(lib).hardshrink(x, 0.3), [(3, 4)]),
    G("threshold", lambda lib, x: F(lib).threshold(x, 0.2, -3.0), [(3, 4)]),
    G("threshold", lambda lib, x: F(lib).threshold(x * 1, 0.2, 5.0, inplace=True), [(3, 4)]),
    G("threshold_", lambda lib, x: F(lib).threshold_(x * 1, 0.2, 5.0), [(3, 4)]),
    G("rrelu", lambda lib, x: F(lib).rrelu(x), [(3, 4)]),
    G("rrelu", _seeded(lambda lib, x: F(lib).rrelu(x, training=True)), [(3, 4)]),
    G("rrelu", _seeded(lambda lib, x: F(lib).rrelu(x * 1, training=True, inplace=True)), [(3, 4)]),
    G("rrelu_", _seeded(lambda lib, x: F(lib).rrelu_(x * 1, 0.2, 0.4, True)), [(3, 4)]),
]


def _signs(lib, n, seed):
    values = np.sign(np.random.default_rng(seed).uniform(-1, 1, size=n))
    return lib.tensor(values, dtype=lib.float64)


def _positive(lib, *shape, seed=0):
    values = np.random.default_rng(seed).uniform(0.2, 3, size=shape)
    return lib.tensor(values, dtype=lib.float64)


GRADS += [
    # --------------------------------------------------------------------- distances
    G("pairwise_distance", lambda lib, a, b: F(lib).pairwise_distance(a, b), [(4, 5), (4, 5)]),
    G(
        "pairwise_distance",
        lambda lib, a, b: F(lib).pairwise_distance(a, b, 3.0, keepdim=True),
        [(4, 5), (5,)],
    ),
    G("pairwise_distance", lambda lib, a, b: F(lib).pairwise_distance(a, b, 1.5), [(3, 4), (3, 4)]),
    G(
        "pairwise_distance",
        lambda lib, a, b: F(lib).pairwise_distance(a, b, 1),
        [(3, 4), (3, 4)],
    ),
    G("cosine_similarity", lambda lib, a, b: F(lib).cosine_similarity(a, b), [(4, 5), (4, 5)]),
    G("cosine_similarity", lambda lib, a, b: F(lib).cosine_similarity(a, b, -1), [(2, 3, 4), (4,)]),
    # A double backward raises in PyTorch ("the derivative for '_pdist_backward' is not
    # implemented"); jtensor's backward is built of differentiable ops: checked to 2nd order.
    G("pdist", lambda lib, x: F(lib).pdist(x), [(5, 3)]),
    G("pdist", lambda lib, x: F(lib).pdist(x, 1.5), [(4, 3)]),
    G("pdist", lambda lib, x: F(lib).pdist(x, 3), [(4, 3)]),
    G("pdist", lambda lib, x: F(lib).pdist(x, float("inf")), [(4, 3)]),
    # ------------------------------------------------------------------------ losses
    G(
        "cosine_embedding_loss",
        lambda lib, a, b: F(lib).cosine_embedding_loss(a, b, _signs(lib, 4, 1), 0.1),
        [(4, 5), (4, 5)],
    ),
    G(
        "margin_ranking_loss",
        lambda lib, a, b: F(lib).margin_ranking_loss(a, b, _signs(lib, 6, 2), 0.3, reduction="sum"),
        [(6,), (6,)],
    ),
    G(
        "hinge_embedding_loss",
        lambda lib, a: F(lib).hinge_embedding_loss(a, _signs(lib, 6, 3), reduction="none"),
        [(6,)],
    ),
    G("soft_margin_loss", lambda lib, a: F(lib).soft_margin_loss(a, _signs(lib, 6, 5)), [(6,)]),
    G(
        "soft_margin_loss",
        lambda lib, a: F(lib).soft_margin_loss(a, _signs(lib, 6, 4), reduction="none"),
        [(6,)],
    ),
    G(
        "triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, 2.0),
        [(4, 5), (4, 5), (4, 5)],
    ),
    G(
        "triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(
            a, p, n, 3.0, 3, swap=True, reduction="none"
        ),
        [(4, 5), (4, 5), (4, 5)],
    ),
    G(
        "triplet_margin_with_distance_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
            a, p, n, margin=2.0, swap=True
        ),
        [(4, 5), (4, 5), (4, 5)],
    ),
    G(
        "multilabel_soft_margin_loss",
        lambda lib, a, w: F(lib).multilabel_soft_margin_loss(
            a, (_signs(lib, (3, 4), 5) > 0).to(lib.float64), w
        ),
        [(3, 4), (4,)],
    ),
    G(
        "poisson_nll_loss",
        lambda lib, a: F(lib).poisson_nll_loss(a, _positive(lib, 3, 4)),
        [(3, 4)],
    ),
    G(
        "poisson_nll_loss",
        lambda lib, a: F(lib).poisson_nll_loss(
            a.abs() + 0.1, _positive(lib, 3, 4), log_input=False, full=True
        ),
        [(3, 4)],
    ),
    G(
        "gaussian_nll_loss",
        lambda lib, a, t, v: F(lib).gaussian_nll_loss(a, t, v.abs() + 0.1),
        [(3, 4), (3, 4), (3, 4)],
    ),
    G(
        "gaussian_nll_loss",
        lambda lib, a, t, v: F(lib).gaussian_nll_loss(
            a, t, v.abs() + 0.1, full=True, reduction="sum"
        ),
        [(3, 4), (3, 4), (3,)],
    ),
    # A double backward raises in PyTorch ("derivative for aten::multi_margin_loss_backward
    # is not implemented", and multilabel's); jtensor's backward is built of differentiable
    # ops: checked to second order.
    G(
        "multi_margin_loss",
        lambda lib, a: F(lib).multi_margin_loss(a, lib.tensor([1, 0, 4, 2])),
        [(4, 5)],
    ),
    G(
        "multi_margin_loss",
        lambda lib, a: F(lib).multi_margin_loss(
            a, lib.tensor([1, 0, 4]), 2, 0.5, _positive(lib, 5), reduction="none"
        ),
        [(3, 5)],
    ),
    G(
        "multilabel_margin_loss",
        lambda lib, a: F(lib).multilabel_margin_loss(
            a, lib.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 0, 0]])
        ),
        [(3, 4)],
    ),
    G(
        "multilabel_margin_loss",
        lambda lib, a: F(lib).multilabel_margin_loss(a, lib.tensor([2, 0, -1, 3]), reduction="sum"),
        [(4,)],
    ),
]

GRADS += [
    # ------------------------------------------------------------------- resampling
    G("interpolate", lambda lib, x: F(lib).interpolate(x, scale_factor=2), [(1, 2, 2, 3)]),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, size=5, mode="nearest-exact"),
        [(1, 2, 3)],
    ),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, size=(3, 5), mode="bilinear"),
        [(1, 2, 2, 3)],
    ),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True),
        [(1, 1, 3, 3)],
    ),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, scale_factor=0.7, mode="linear"),
        [(2, 2, 5)],
    ),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, size=(2, 3, 3), mode="trilinear"),
        [(1, 1, 2, 2, 2)],
    ),
    G(
        "interpolate",
        lambda lib, x: F(lib).interpolate(x, size=(2, 3, 3), mode="nearest"),
        [(1, 1, 2, 2, 2)],
    ),
]

GRADS += [
    # ----------------------------------------------------------- normalization etc.
    G("instance_norm", lambda lib, x: F(lib).instance_norm(x), [(2, 3, 4)]),
    G(
        "instance_norm",
        lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b),
        [(2, 2, 3, 3), (2,), (2,)],
    ),
    G(
        "instance_norm",
        lambda lib, x: F(lib).instance_norm(
            x,
            lib.zeros(3, dtype=lib.float64),
            lib.ones(3, dtype=lib.float64) * 2,
            use_input_stats=False,
        ),
        [(2, 3, 4)],
    ),
    G(
        "local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 3, 0.1, 0.75, 1.0),
        [(2, 4, 3)],
    ),
    G(
        "local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 2, 0.2, 0.5, 2.0),
        [(1, 3, 2, 2)],
    ),
    G("alpha_dropout", _seeded(lambda lib, x: F(lib).alpha_dropout(x, 0.4, True)), [(3, 4)]),
    G(
        "feature_alpha_dropout",
        _seeded(lambda lib, x: F(lib).feature_alpha_dropout(x, 0.4, True)),
        [(3, 4, 2)],
    ),
    G("channel_shuffle", lambda lib, x: F(lib).channel_shuffle(x, 2), [(2, 4, 3)]),
    # PyTorch's native kernel has no derivative (its node is NotImplemented); jtensor's has.
    G(
        "native_channel_shuffle",
        lambda lib, x: F(lib).native_channel_shuffle(x, 2),
        [(1, 4, 3)],
        torch=False,
    ),
]

GRADS += [
    # --------------------------------------------------------------- pooling, patches
    G("adaptive_max_pool2d", lambda lib, x: F(lib).adaptive_max_pool2d(x, (3, 2)), [(1, 2, 5, 4)]),
    G(
        "adaptive_max_pool2d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool2d_with_indices(x, 2)[0],
        [(2, 4, 4)],
    ),
    G("adaptive_max_pool1d", lambda lib, x: F(lib).adaptive_max_pool1d(x, 3), [(2, 2, 7)]),
    G(
        "adaptive_max_pool1d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool1d_with_indices(x, 2)[0],
        [(2, 5)],
    ),
    G("lp_pool2d", lambda lib, x: F(lib).lp_pool2d(x, 2, 2), [(1, 2, 4, 4)]),
    G("lp_pool1d", lambda lib, x: F(lib).lp_pool1d(x, 3, 2), [(1, 2, 6)], low=0.2, high=2.0),
    G(
        "max_unpool2d",
        lambda lib, x: F(lib).max_unpool2d(x, lib.tensor([[[[0, 3], [9, 14]]]]), 2),
        [(1, 1, 2, 2)],
    ),
    G("max_unpool1d", lambda lib, x: F(lib).max_unpool1d(x, lib.tensor([[1, 2, 5]]), 2), [(1, 3)]),
    G("im2col", lambda lib, x: F(lib).unfold(x, (2, 3), padding=1, stride=(2, 1)), [(1, 2, 4, 3)]),
    G("col2im", lambda lib, x: F(lib).fold(x, (4, 3), (2, 2), padding=1), [(1, 8, 20)]),
]

GRADS += [
    G("gumbel_softmax", _seeded(lambda lib, x: F(lib).gumbel_softmax(x, tau=0.7)), [(3, 4)]),
    G(
        "max_pool1d_with_indices",
        lambda lib, x: F(lib).max_pool1d_with_indices(x, 2)[0],
        [(2, 2, 6)],
    ),
]

GRADS += [
    G(
        "embedding_bag",
        lambda lib, w: F(lib).embedding_bag(
            lib.tensor([1, 2, 4, 5, 4, 3, 2, 0]), w, lib.tensor([0, 4, 4]), padding_idx=2
        ),
        [(6, 3)],
    ),
    G(
        "embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor([[1, 2], [3, 3]]), w, mode="max"),
        [(5, 2)],
    ),
    G(
        "embedding_bag",
        lambda lib, w, p: F(lib).embedding_bag(
            lib.tensor([1, 2, 4, 1]), w, lib.tensor([0, 2]), mode="sum", per_sample_weights=p
        ),
        [(5, 2), (4,)],
    ),
]
