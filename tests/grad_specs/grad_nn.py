"""Gradient specs of the ``nn.functional`` ops (kind ``"nn"``): float64 gradcheck, layout
variants, second derivatives where PyTorch has them, and the same gradients and ``grad_fn``
names as PyTorch. Integer arguments (targets, indices) are built in ``make``."""

import numpy as np

from tests.harness.gradients import G, NonDiff


def F(lib):
    return lib.nn.functional


def _f64(lib, values, grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64,
                      requires_grad=grad)


def _with(*shapes, extra=()):
    """make(): float64 leaves of ``shapes`` followed by ``extra(lib)``'s values."""

    def make(lib, rng):
        leaves = [_f64(lib, rng.uniform(-2, 2, size=s)) for s in shapes]
        return leaves + list(extra(lib)) if callable(extra) else leaves

    return make


def _classes(shape_x, target):
    return _with(shape_x, extra=lambda lib: [lib.tensor(target)])


def _probs(*shapes):
    def make(lib, rng):
        return [_f64(lib, rng.uniform(0.1, 0.9, size=s)) for s in shapes]

    return make


def _seeded(fn):
    """A random op made deterministic per call (gradcheck calls it many times)."""

    def run(lib, *xs):
        lib.manual_seed(0)
        return fn(lib, *xs)

    return run


GRADS = [
    # ------------------------------------------------------------------ convolution
    G("conv2d", lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
      [(2, 2, 4, 4), (3, 2, 3, 3), (3,)]),
    G("conv2d", lambda lib, x, w: F(lib).conv2d(x, w, stride=2, dilation=(2, 1), groups=2),
      [(1, 4, 6, 5), (2, 2, 2, 2)]),
    G("conv2d", lambda lib, x, w: F(lib).conv2d(x, w, padding="same"),
      [(2, 5, 4), (3, 2, 2, 3)]),
    G("conv1d", lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding=1),
      [(2, 2, 7), (3, 2, 3), (3,)]),
    G("conv1d", lambda lib, x, w: F(lib).conv1d(x, w, groups=3), [(3, 5), (3, 1, 2)]),
    # ---------------------------------------------------------------------- pooling
    G("max_pool2d", lambda lib, x: F(lib).max_pool2d(x, 2), [(2, 2, 4, 4)]),
    G("max_pool2d", lambda lib, x: F(lib).max_pool2d(x, 3, stride=2, padding=1,
                                                      ceil_mode=True),
      [(1, 2, 5, 6)]),
    G("max_pool2d_with_indices", lambda lib, x: F(lib).max_pool2d_with_indices(x, 2),
      [(2, 4, 4)]),
    G("max_pool1d", lambda lib, x: F(lib).max_pool1d(x, 2, stride=1), [(2, 2, 5)]),
    G("avg_pool2d", lambda lib, x: F(lib).avg_pool2d(x, 2), [(2, 2, 4, 4)]),
    G("avg_pool2d", lambda lib, x: F(lib).avg_pool2d(x, 3, stride=2, padding=1,
                                                      count_include_pad=False),
      [(1, 2, 5, 6)]),
    G("avg_pool1d", lambda lib, x: F(lib).avg_pool1d(x, 3, stride=2, padding=1), [(2, 2, 7)]),
    G("adaptive_avg_pool2d", lambda lib, x: F(lib).adaptive_avg_pool2d(x, (2, 3)),
      [(2, 2, 5, 7)]),
    G("adaptive_avg_pool2d", lambda lib, x: F(lib).adaptive_avg_pool2d(x, 1), [(2, 3, 3)]),
    G("adaptive_avg_pool1d", lambda lib, x: F(lib).adaptive_avg_pool1d(x, 3), [(2, 2, 7)]),
    # ---------------------------------------------------------------------- padding
    G("pad", lambda lib, x: F(lib).pad(x, (1, 2, 0, 1)), [(2, 3, 4)]),
    G("pad", lambda lib, x: F(lib).pad(x, (2, 1, 1, 1), mode="reflect"), [(1, 2, 4, 5)]),
    G("pad", lambda lib, x: F(lib).pad(x, (1, 2), mode="replicate"), [(2, 3, 4)]),
    G("pad", lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="circular"), [(1, 2, 3, 4)]),
    G("pad", lambda lib, x: F(lib).pad(x, (-1, 2)), [(3, 4)]),
    # ------------------------------------------------------------------ activations
    G("hardtanh", lambda lib, x: F(lib).hardtanh(x, -0.5, 1.0), [(3, 4)]),
    G("hardtanh_", lambda lib, x: F(lib).hardtanh_(x.clone(), -0.5, 1.0), [(3, 4)]),
    G("relu6", lambda lib, x: F(lib).relu6(x * 4), [(3, 4)]),
    G("leaky_relu", lambda lib, x: F(lib).leaky_relu(x, 0.2), [(3, 4)]),
    G("leaky_relu", lambda lib, x: F(lib).leaky_relu(x.clone(), 0.2, inplace=True), [(3, 4)]),
    G("leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x.clone(), 0.1), [(3, 4)]),
    G("gelu", lambda lib, x: F(lib).gelu(x), [(3, 4)]),
    G("gelu", lambda lib, x: F(lib).gelu(x, approximate="tanh"), [(3, 4)]),
    G("silu", lambda lib, x: F(lib).silu(x), [(3, 4)]),
    G("silu", lambda lib, x: F(lib).silu(x.clone(), inplace=True), [(3, 4)]),
    G("elu", lambda lib, x: F(lib).elu(x, 0.5), [(3, 4)]),
    G("elu", lambda lib, x: F(lib).elu(x.clone(), inplace=True), [(3, 4)]),
    G("elu_", lambda lib, x: F(lib).elu_(x.clone(), 2.0), [(3, 4)]),
    G("softplus", lambda lib, x: F(lib).softplus(x * 4, beta=2.0, threshold=5.0), [(3, 4)]),
    G("logsigmoid", lambda lib, x: F(lib).logsigmoid(x), [(3, 4)]),
    G("softmin", lambda lib, x: F(lib).softmin(x, 1), [(3, 4)]),
    NonDiff("one_hot", "int64 result from an int64 index tensor"),
    # ----------------------------------------------------------------------- losses
    G("cross_entropy", lambda lib, x, t: F(lib).cross_entropy(x, t),
      make=_classes((4, 5), [1, 0, 4, 2])),
    G("cross_entropy", lambda lib, x, w, t: F(lib).cross_entropy(x, t, w, label_smoothing=0.2,
                                                                 ignore_index=1),
      make=_with((4, 5), extra=lambda lib: [_f64(lib, [0.5, 1, 2, 1.5, 1], grad=False),
                                           lib.tensor([1, 0, 4, 2])])),
    G("cross_entropy", lambda lib, x, t: F(lib).cross_entropy(x, t.softmax(1)),
      [(3, 4), (3, 4)]),
    G("nll_loss", lambda lib, x, t: F(lib).nll_loss(x, t, reduction="sum"),
      make=_classes((4, 5), [1, 0, 4, 2])),
    G("nll_loss", lambda lib, x, t: F(lib).nll_loss(x, t),
      make=_classes((2, 3, 2), [[0, 2], [1, 1]])),
    G("binary_cross_entropy", lambda lib, p, t: F(lib).binary_cross_entropy(p, t),
      make=_probs((3, 4), (3, 4))),
    G("binary_cross_entropy_with_logits",
      lambda lib, x, t, pw: F(lib).binary_cross_entropy_with_logits(x, t, pos_weight=pw),
      make=_with((3, 4), (3, 4), extra=lambda lib: [_f64(lib, [0.5, 1, 2, 3], grad=False)])),
    G("binary_cross_entropy_with_logits",
      lambda lib, x, t: F(lib).binary_cross_entropy_with_logits(x, t), [(3, 4), (3, 4)]),
    G("mse_loss", lambda lib, x, t: F(lib).mse_loss(x, t), [(3, 4), (3, 4)]),
    G("l1_loss", lambda lib, x, t: F(lib).l1_loss(x, t, reduction="sum"), [(3, 4), (3, 4)]),
    G("smooth_l1_loss", lambda lib, x, t: F(lib).smooth_l1_loss(x, t, beta=0.5),
      [(3, 4), (3, 4)]),
    G("huber_loss", lambda lib, x, t: F(lib).huber_loss(x, t, delta=0.5), [(3, 4), (3, 4)]),
    G("kl_div", lambda lib, x, t: F(lib).kl_div(x, t, reduction="batchmean"),
      make=_probs((3, 4), (3, 4))),
    # --------------------------------------------------------------------- linear
    G("linear", lambda lib, x, w, b: F(lib).linear(x, w, b), [(3, 4), (5, 4), (5,)]),
    G("linear", lambda lib, x, w: F(lib).linear(x, w), [(2, 3, 4), (5, 4)]),
    G("bilinear", lambda lib, a, b, w, c: F(lib).bilinear(a, b, w, c),
      [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    # -------------------------------------------------------------- normalization
    G("layer_norm", lambda lib, x, w, b: F(lib).layer_norm(x, (4,), w, b),
      [(3, 4), (4,), (4,)]),
    G("batch_norm", lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, training=True),
      [(4, 3, 2), (3,), (3,)]),
    G("batch_norm", lambda lib, x, m, v: F(lib).batch_norm(x, m, v),
      make=_with((4, 3), extra=lambda lib: [_f64(lib, [0.5, -1, 0], grad=False),
                                           _f64(lib, [1, 2, 3], grad=False)])),
    G("group_norm", lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b),
      [(2, 4, 3), (4,), (4,)]),
    # (a bias without a weight: PyTorch's backward raises "tensor does not have a device")
    G("group_norm", lambda lib, x, b: F(lib).group_norm(x, 2, None, b), [(2, 4, 2, 3), (4,)],
      torch=False, name="NativeGroupNormBackward0"),
    G("rms_norm", lambda lib, x, w: F(lib).rms_norm(x, (4,), w), [(3, 4), (4,)]),
    G("normalize", lambda lib, x: F(lib).normalize(x), [(3, 4)]),
    # ------------------------------------------------------------------ embedding
    G("embedding", lambda lib, w, i: F(lib).embedding(i, w),
      make=_with((4, 3), extra=lambda lib: [lib.tensor([[0, 2], [3, 0]])])),
    # -------------------------------------------------------------------- dropout
    G("dropout", _seeded(lambda lib, x: F(lib).dropout(x, 0.5)), [(3, 4)], torch=False,
      name="MulBackward0"),
    G("dropout", lambda lib, x: F(lib).dropout(x, 0.5, training=False) * 1, [(3, 4)]),
    G("dropout1d", _seeded(lambda lib, x: F(lib).dropout1d(x, 0.5)), [(2, 3, 4)],
      torch=False, name="MulBackward0"),
    G("dropout2d", _seeded(lambda lib, x: F(lib).dropout2d(x, 0.5)), [(2, 3, 2, 2)],
      torch=False, name="MulBackward0"),
    G("dropout3d", _seeded(lambda lib, x: F(lib).dropout3d(x, 0.5)), [(2, 3, 2, 1, 2)],
      torch=False, name="MulBackward0"),
    # --------------------------------------------------------------------- vision
    G("pixel_shuffle", lambda lib, x: F(lib).pixel_shuffle(x, 2), [(2, 8, 2, 3)]),
    G("pixel_unshuffle", lambda lib, x: F(lib).pixel_unshuffle(x, 2), [(3, 4, 2)]),
    # ------------------------------------------------------------------ attention
    G("scaled_dot_product_attention",
      lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
      [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
    G("scaled_dot_product_attention",
      lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
      [(3, 4), (3, 4), (3, 2)]),
    # ---------------------------------------------------- transposed convolution
    G("conv_transpose2d",
      lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                   output_padding=1),
      [(1, 2, 3, 3), (2, 2, 2, 2), (2,)]),
    G("conv_transpose1d",
      lambda lib, x, w: F(lib).conv_transpose1d(x, w, stride=2, groups=2, dilation=2),
      [(2, 4, 3), (4, 1, 2)]),
]
