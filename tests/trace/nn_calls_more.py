"""One call of each ``nn`` op added for issue 15's breadth, merged into
``test_trace_nn.CALLS`` (every ``nn`` op must have one call there)."""

import jtensor
import jtensor.nn.functional as F


def _x(*shape, grad=False):
    jtensor.manual_seed(sum(shape))
    return jtensor.randn(*shape, requires_grad=grad)


def _p(*shape):
    return jtensor.rand(*shape) * 0.8 + 0.1


MORE_CALLS = {
    "selu": lambda: (F.selu, (_x(3, 4, grad=True),), {}),
    "selu_": lambda: (F.selu_, (_x(3, 4),), {}),
    "celu": lambda: (F.celu, (_x(3, 4, grad=True),), {"alpha": 0.5}),
    "celu_": lambda: (F.celu_, (_x(3, 4),), {}),
    "prelu": lambda: (F.prelu, (_x(2, 3, 4, grad=True), _p(3)), {}),
    "glu": lambda: (F.glu, (_x(3, 4, grad=True),), {}),
    "hardswish": lambda: (F.hardswish, (_x(3, 4, grad=True),), {}),
    "hardsigmoid": lambda: (F.hardsigmoid, (_x(3, 4, grad=True),), {}),
    "mish": lambda: (F.mish, (_x(3, 4, grad=True),), {}),
    "softsign": lambda: (F.softsign, (_x(3, 4, grad=True),), {}),
    "tanhshrink": lambda: (F.tanhshrink, (_x(3, 4, grad=True),), {}),
    "softshrink": lambda: (F.softshrink, (_x(3, 4, grad=True),), {}),
    "hardshrink": lambda: (F.hardshrink, (_x(3, 4, grad=True),), {}),
    "threshold": lambda: (F.threshold, (_x(3, 4, grad=True), 0.1, 2.0), {}),
    "threshold_": lambda: (F.threshold_, (_x(3, 4), 0.1, 2.0), {}),
    "rrelu": lambda: (F.rrelu, (_x(3, 4, grad=True),), {"training": True}),
    "rrelu_": lambda: (F.rrelu_, (_x(3, 4),), {}),
}


def _signs(n):
    return jtensor.sign(jtensor.randn(n))


MORE_CALLS.update(
    {
        "pairwise_distance": lambda: (F.pairwise_distance, (_x(3, 4, grad=True), _x(3, 4)), {}),
        "cosine_similarity": lambda: (F.cosine_similarity, (_x(3, 4, grad=True), _x(3, 4)), {}),
        "pdist": lambda: (F.pdist, (_x(4, 3, grad=True),), {}),
        "cosine_embedding_loss": lambda: (
            F.cosine_embedding_loss,
            (_x(3, 4, grad=True), _x(3, 4), _signs(3)),
            {},
        ),
        "margin_ranking_loss": lambda: (
            F.margin_ranking_loss,
            (_x(4, grad=True), _x(4), _signs(4)),
            {},
        ),
        "hinge_embedding_loss": lambda: (F.hinge_embedding_loss, (_x(4, grad=True), _signs(4)), {}),
        "soft_margin_loss": lambda: (F.soft_margin_loss, (_x(4, grad=True), _signs(4)), {}),
        "triplet_margin_loss": lambda: (
            F.triplet_margin_loss,
            (_x(3, 4, grad=True), _x(3, 4), _x(3, 4)),
            {},
        ),
        "triplet_margin_with_distance_loss": lambda: (
            F.triplet_margin_with_distance_loss,
            (_x(3, 4, grad=True), _x(3, 4), _x(3, 4)),
            {},
        ),
        "multilabel_soft_margin_loss": lambda: (
            F.multilabel_soft_margin_loss,
            (_x(3, 4, grad=True), _p(3, 4)),
            {},
        ),
        "poisson_nll_loss": lambda: (F.poisson_nll_loss, (_x(3, 4, grad=True), _p(3, 4)), {}),
        "gaussian_nll_loss": lambda: (
            F.gaussian_nll_loss,
            (_x(3, 4, grad=True), _x(3, 4), _p(3, 4)),
            {},
        ),
        "multi_margin_loss": lambda: (
            F.multi_margin_loss,
            (_x(3, 4, grad=True), jtensor.tensor([0, 3, 1])),
            {},
        ),
        "multilabel_margin_loss": lambda: (
            F.multilabel_margin_loss,
            (_x(2, 3, grad=True), jtensor.tensor([[0, -1, 1], [2, 1, -1]])),
            {},
        ),
    }
)

MORE_CALLS.update(
    {
        "interpolate": lambda: (
            F.interpolate,
            (_x(1, 2, 3, 4, grad=True),),
            {"scale_factor": 2, "mode": "bilinear"},
        ),
    }
)

MORE_CALLS.update(
    {
        "instance_norm": lambda: (F.instance_norm, (_x(2, 3, 4, grad=True),), {}),
        "local_response_norm": lambda: (F.local_response_norm, (_x(2, 4, 3, grad=True), 2), {}),
        "alpha_dropout": lambda: (F.alpha_dropout, (_x(3, 4, grad=True), 0.5, True), {}),
        "feature_alpha_dropout": lambda: (
            F.feature_alpha_dropout,
            (_x(3, 4, 2, grad=True), 0.5, True),
            {},
        ),
        "channel_shuffle": lambda: (F.channel_shuffle, (_x(2, 4, 3, grad=True), 2), {}),
        "native_channel_shuffle": lambda: (F.native_channel_shuffle, (_x(2, 4, 3), 2), {}),
    }
)

MORE_CALLS.update(
    {
        "adaptive_max_pool2d": lambda: (F.adaptive_max_pool2d, (_x(1, 2, 5, 5, grad=True), 2), {}),
        "adaptive_max_pool2d_with_indices": lambda: (
            F.adaptive_max_pool2d_with_indices,
            (_x(1, 2, 5, 5), 2),
            {},
        ),
        "adaptive_max_pool1d": lambda: (F.adaptive_max_pool1d, (_x(1, 2, 5, grad=True), 2), {}),
        "adaptive_max_pool1d_with_indices": lambda: (
            F.adaptive_max_pool1d_with_indices,
            (_x(1, 2, 5), 2),
            {},
        ),
        "lp_pool2d": lambda: (F.lp_pool2d, (_x(1, 2, 4, 4, grad=True), 2, 2), {}),
        "lp_pool1d": lambda: (F.lp_pool1d, (_x(1, 2, 4, grad=True), 2, 2), {}),
        "max_unpool2d": lambda: (
            F.max_unpool2d,
            (_x(1, 1, 2, 2, grad=True), jtensor.tensor([[[[0, 3], [9, 14]]]]), 2),
            {},
        ),
        "max_unpool1d": lambda: (
            F.max_unpool1d,
            (_x(1, 3, grad=True), jtensor.tensor([[1, 2, 5]]), 2),
            {},
        ),
        "im2col": lambda: (F.unfold, (_x(1, 2, 4, 4, grad=True), 2), {}),
        "col2im": lambda: (F.fold, (_x(1, 8, 9, grad=True), 4, 2), {}),
    }
)

MORE_CALLS.update(
    {
        "gumbel_softmax": lambda: (F.gumbel_softmax, (_x(3, 4, grad=True),), {"tau": 0.5}),
        "max_pool1d_with_indices": lambda: (
            F.max_pool1d_with_indices,
            (_x(1, 2, 6, grad=True), 2),
            {},
        ),
    }
)

MORE_CALLS.update(
    {
        "embedding_bag": lambda: (
            F.embedding_bag,
            (jtensor.tensor([1, 2, 0]), _x(4, 3, grad=True), jtensor.tensor([0, 2])),
            {},
        ),
    }
)
