"""Gradient specs of the top-level ``torch.<name>`` forms of nn operators (jtensor/_surface.py:
``torch.dropout``, ``torch.layer_norm``, ``torch.kl_div``, ``torch.convolution``...) and of the
``*_copy`` ops: float64 gradcheck, second derivatives, and the same gradients and ``grad_fn``
names as PyTorch. Each case is filed under the registered op the entry reaches."""

import numpy as np

from tests.grad_specs.grad_nn import _f64, _probs, _seeded, _with
from tests.harness.gradients import G, NonDiff


def _signs(lib, n):
    return lib.tensor(np.array([1.0, -1.0, 1.0, -1.0, 1.0][:n]), dtype=lib.float64)


def _positive(lib, *shape):
    return _f64(lib, np.random.default_rng(5).uniform(0.2, 3, size=shape), grad=False)


GRADS = [
    # dropout family: one Bernoulli noise tensor multiplied in (MulBackward0 / AddBackward0)
    G("mul", _seeded(lambda lib, x: lib.dropout(x, 0.3, True)), [(3, 4)]),
    G("mul", _seeded(lambda lib, x: lib.dropout_(x * 1, 0.3, True)), [(3, 4)]),
    G("mul", _seeded(lambda lib, x: lib.feature_dropout(x, 0.5, True)), [(3, 4, 2)]),
    G("mul", _seeded(lambda lib, x: lib.feature_dropout_(x * 1, 0.5, True)), [(3, 4, 2)]),
    G("add", _seeded(lambda lib, x: lib.alpha_dropout(x, 0.3, True)), [(3, 4)]),
    G("add", _seeded(lambda lib, x: lib.alpha_dropout_(x * 1, 0.3, True)), [(3, 4)]),
    G("add", _seeded(lambda lib, x: lib.feature_alpha_dropout(x, 0.5, True)), [(3, 4, 2)]),
    G("add", _seeded(lambda lib, x: lib.feature_alpha_dropout_(x * 1, 0.5, True)), [(3, 4, 2)]),
    # normalization in ATen's argument order
    G(
        "batch_norm",
        lambda lib, x, w, b: lib.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, True),
        [(4, 3), (3,), (3,)],
    ),
    G(
        "instance_norm",
        lambda lib, x, w: lib.instance_norm(x, w, None, None, None, True, 0.1, 1e-5, True),
        [(2, 3, 5), (3,)],
    ),
    G("layer_norm", lambda lib, x, w, b: lib.layer_norm(x, [4], w, b), [(3, 4), (4,), (4,)]),
    G("group_norm", lambda lib, x, w: lib.group_norm(x, 2, w), [(2, 4, 3), (4,)]),
    G("rms_norm", lambda lib, x, w: lib.rms_norm(x, [4], w), [(3, 4), (4,)]),
    G(
        "embedding",
        lambda lib, w, i: lib.embedding(w, i),
        make=_with((5, 3), extra=lambda lib: [lib.tensor([[1, 2], [4, 1]])]),
    ),
    # losses with ATen's integer reduction (omitted: none)
    G("kl_div", lambda lib, x, t: lib.kl_div(x, t, 1), make=_probs((3, 4), (3, 4))),
    G("kl_div", lambda lib, x, t: lib.kl_div(x, t, log_target=True), make=_with((3, 4), (3, 4))),
    G(
        "ctc_loss",
        lambda lib, lp, t: lib.ctc_loss(lp.log_softmax(2), t, [6, 5], [2, 2], 0, 1),
        make=_with((6, 2, 4), extra=lambda lib: [lib.tensor([[1, 2], [3, 3]])]),
        no_second='"derivative for aten::_ctc_loss_backward is not implemented"',
    ),
    G(
        "cosine_embedding_loss",
        lambda lib, a, b, y: lib.cosine_embedding_loss(a, b, y, 0.1, 2),
        make=_with((3, 4), (3, 4), extra=lambda lib: [lib.tensor([1, -1, 1])]),
    ),
    G(
        "margin_ranking_loss",
        lambda lib, a, b, y: lib.margin_ranking_loss(a, b, y, 0.1, 1),
        make=_with((5,), (5,), extra=lambda lib: [_signs(lib, 5)]),
    ),
    G(
        "hinge_embedding_loss",
        lambda lib, x, y: lib.hinge_embedding_loss(x, y, 1.0),
        make=_with((5,), extra=lambda lib: [_signs(lib, 5)]),
    ),
    G(
        "triplet_margin_loss",
        lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, True, 1),
        [(3, 4), (3, 4), (3, 4)],
    ),
    G(
        "poisson_nll_loss",
        lambda lib, x, t: lib.poisson_nll_loss(x, t, True, True, 1e-8, 1),
        make=_with((3, 4), extra=lambda lib: [_positive(lib, 3, 4)]),
    ),
    G(
        "binary_cross_entropy_with_logits",
        lambda lib, x, t, w: lib.binary_cross_entropy_with_logits(x, t, None, w, 2),
        make=_with((3, 4), extra=lambda lib: [_positive(lib, 3, 4) / 4, _positive(lib, 4)]),
    ),
    # padding, convolution, pooling
    G("pad", lambda lib, x: lib.constant_pad_nd(x, [1, 2, -1, 1], 1.5), [(3, 4)]),
    G(
        "conv2d",
        lambda lib, x, w, b: lib.convolution(x, w, b, [1, 2], [1, 0], [1, 1], False, [0, 0], 2),
        [(1, 2, 5, 5), (4, 1, 2, 2), (4,)],
    ),
    G(
        "conv_transpose1d",
        lambda lib, x, w: lib.convolution(x, w, None, [2], [1], [1], True, [1], 1),
        [(1, 2, 5), (2, 3, 3)],
    ),
    G("adaptive_max_pool1d", lambda lib, x: lib.adaptive_max_pool1d(x, 3)[0], [(1, 2, 8)]),
    G("max_pool1d", lambda lib, x: lib.max_pool1d_with_indices(x, 3, 2, 1)[0], [(2, 9)]),
]

# in-place forms of existing ops (the out-of-place op's derivative)
GRADS += [
    G(
        "addmm_",
        lambda lib, x, a, b: (x * 1).addmm_(a, b, beta=0.5, alpha=2),
        [(2, 3), (2, 4), (4, 3)],
    ),
    G(
        "baddbmm_",
        lambda lib, x, a, b: (x * 1).baddbmm_(a, b, alpha=0.5),
        [(2, 2, 3), (2, 2, 4), (2, 4, 3)],
    ),
    G("cumsum_", lambda lib, x: (x * 1).cumsum_(1), [(3, 4)]),
    G("cumprod_", lambda lib, x: (x * 1).cumprod_(0), [(3, 4)]),
]

# *_copy ops: the view's derivative under PyTorch's ``<Node>_copy`` name
GRADS += [
    G("alias_copy", lambda lib, x: lib.alias_copy(x), [(3, 4)]),
    G(
        "as_strided_copy",
        lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1),
        [(3, 4)],
        variants=False,
    ),
    G("diagonal_copy", lambda lib, x: lib.diagonal_copy(x, 1), [(3, 4)]),
    G("expand_copy", lambda lib, x: lib.expand_copy(x, [2, 3, 4]), [(3, 1)]),
    G("permute_copy", lambda lib, x: lib.permute_copy(x, [1, 0]), [(3, 4)]),
    G("select_copy", lambda lib, x: lib.select_copy(x, 1, 2), [(3, 4)]),
    G("split_copy", lambda lib, x: lib.split_copy(x, 2, 1)[1], [(3, 4)]),
    G("split_with_sizes_copy", lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1)[1], [(3, 4)]),
    G("squeeze_copy", lambda lib, x: lib.squeeze_copy(x, 1), [(3, 1, 2)]),
    G("squeeze_copy", lambda lib, x: lib.squeeze_copy(x), [(3, 1, 2)]),
    G("t_copy", lambda lib, x: lib.t_copy(x), [(3, 4)]),
    G("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, 1), [(3, 4)]),
    G("unbind_copy", lambda lib, x: lib.unbind_copy(x, 1)[2], [(3, 4)]),
    G("unfold_copy", lambda lib, x: lib.unfold_copy(x, 1, 2, 1), [(3, 4)]),
    G("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, 1), [(3, 4)]),
    G("view_copy", lambda lib, x: lib.view_copy(x, [2, 6]), [(3, 4)], variants=False),
    G(
        "view_as_real_copy",
        lambda lib, x: lib.view_as_real_copy(lib.view_as_complex(x)),
        [(3, 2)],
        variants=False,
    ),
]

NONDIFF = [
    NonDiff("detach_copy", "detach's values as a copy: no history, as detach"),
    NonDiff("view_as_complex_copy", "PyTorch refuses an input that requires grad"),
]
GRADS += NONDIFF

# torch.fill: fill_ on a fresh copy (FillBackward0 for a number, FillBackward1 for a tensor)
GRADS += [
    G("fill", lambda lib, x: lib.fill(x, 2.5), [(3, 4)]),
    G("fill", lambda lib, x, v: lib.fill(x, v), [(3, 4), ()]),
]
