"""Specs of the ``nn.functional`` ops registered as ops (kind ``"nn"``): convolution, pooling,
padding, activations, losses, linear, normalization, embedding, dropout. Values, layouts,
``requires_grad`` and errors compared with PyTorch; each case calls
``lib.nn.functional.<op>``."""

from tests.harness.conformance import Case, OpSpec, T, arr


def F(lib):
    return lib.nn.functional


def R(lib, *shape, seed=0, dtype="float32", grad=False, low=-3, high=3):
    return T(lib, arr(*shape, seed=seed, dtype=dtype, low=low, high=high), requires_grad=grad)


def mk(*shapes, grad=False, dtype="float32"):
    return lambda lib: tuple(R(lib, *s, seed=i, dtype=dtype, grad=grad)
                             for i, s in enumerate(shapes))


def ix(lib, values):
    return lib.tensor(values)


def probs(lib, *shape, seed=0):
    return T(lib, arr(*shape, seed=seed, low=0.05, high=0.95))


def inplace(fn):
    """An in-place call: the written tensor, its version, and whether it is the result."""

    def run(lib, x):
        out = fn(lib, x)
        return out, x._version, out is x

    return run


TOL = {"atol": 1e-5, "rtol": 1e-5}

SPECS = [
    # ------------------------------------------------------------------ convolution
    OpSpec("conv2d", [
        Case(lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
             mk((2, 3, 5, 5), (4, 3, 3, 3), (4,)), **TOL),
        Case(lambda lib, x, w: F(lib).conv2d(x, w, stride=2, dilation=(1, 2), groups=3),
             mk((1, 6, 7, 8), (3, 2, 2, 3), grad=True), name="grouped", **TOL),
        Case(lambda lib, x, w: F(lib).conv2d(x, w, padding="same"),
             mk((3, 6, 6), (2, 3, 2, 2)), name="unbatched-same", **TOL),
        Case(lambda lib, x, w: F(lib).conv2d(x, w), mk((2, 4, 5, 5), (4, 3, 3, 3)),
             name="channels-mismatch"),
    ]),
    OpSpec("conv1d", [
        Case(lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding=1),
             mk((2, 3, 9), (4, 3, 3), (4,), grad=True), **TOL),
        Case(lambda lib, x, w: F(lib).conv1d(x, w, groups=2), mk((4, 7), (2, 2, 2)),
             name="unbatched-groups", **TOL),
        Case(lambda lib, x, w: F(lib).conv1d(x, w), mk((2, 3, 2), (4, 3, 3)),
             name="kernel-too-large"),
    ]),
    # ---------------------------------------------------------------------- pooling
    OpSpec("max_pool2d", [
        Case(lambda lib, x: F(lib).max_pool2d(x, 2), mk((2, 3, 6, 6))),
        Case(lambda lib, x: F(lib).max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                              return_indices=True),
             mk((1, 2, 7, 7), grad=True), name="indices"),
        Case(lambda lib, x: F(lib).max_pool2d(x, 2, dilation=2), mk((3, 6, 6)),
             name="unbatched-dilated"),
        Case(lambda lib, x: F(lib).max_pool2d(x, 2, padding=2), mk((1, 1, 6, 6)),
             name="pad-too-large"),
    ]),
    OpSpec("max_pool2d_with_indices", [
        Case(lambda lib, x: F(lib).max_pool2d_with_indices(x, 2), mk((1, 2, 4, 6), grad=True)),
    ]),
    OpSpec("max_pool1d", [
        Case(lambda lib, x: F(lib).max_pool1d(x, 3, stride=2, padding=1), mk((2, 3, 9),
                                                                               grad=True)),
        Case(lambda lib, x: F(lib).max_pool1d(x, 2, return_indices=True), mk((3, 8)),
             name="unbatched-indices"),
    ]),
    OpSpec("avg_pool2d", [
        Case(lambda lib, x: F(lib).avg_pool2d(x, 2), mk((2, 3, 6, 6), grad=True)),
        Case(lambda lib, x: F(lib).avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                              count_include_pad=False),
             mk((1, 2, 7, 6)), name="padding-excluded"),
        Case(lambda lib, x: F(lib).avg_pool2d(x, 2, divisor_override=3), mk((3, 4, 4)),
             name="divisor"),
        Case(lambda lib, x: F(lib).avg_pool2d(x, 2), mk((4, 4)), name="2d-input"),
    ]),
    OpSpec("avg_pool1d", [
        Case(lambda lib, x: F(lib).avg_pool1d(x, 3, stride=2, padding=1), mk((2, 3, 9),
                                                                               grad=True)),
    ]),
    OpSpec("adaptive_avg_pool2d", [
        Case(lambda lib, x: F(lib).adaptive_avg_pool2d(x, (3, 2)), mk((2, 3, 7, 5), grad=True)),
        Case(lambda lib, x: F(lib).adaptive_avg_pool2d(x, 1), mk((2, 3, 4, 4)), name="global"),
        Case(lambda lib, x: F(lib).adaptive_avg_pool2d(x, (None, 2)), mk((3, 4, 6)),
             name="unbatched-none"),
    ]),
    OpSpec("adaptive_avg_pool1d", [
        Case(lambda lib, x: F(lib).adaptive_avg_pool1d(x, 3), mk((2, 3, 7), grad=True)),
    ]),
    # ---------------------------------------------------------------------- padding
    OpSpec("pad", [
        Case(lambda lib, x: F(lib).pad(x, (1, 2, 0, 1), value=0.5), mk((2, 3, 4), grad=True)),
        Case(lambda lib, x: F(lib).pad(x, (2, 1, 1, 1), mode="reflect"), mk((1, 2, 4, 5))),
        Case(lambda lib, x: F(lib).pad(x, (1, 2), mode="replicate"), mk((2, 3, 4), grad=True),
             name="replicate"),
        Case(lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="circular"), mk((1, 2, 3, 4)),
             name="circular"),
        Case(lambda lib, x: F(lib).pad(x, (-1, 1)), mk((3, 4)), name="negative"),
        Case(lambda lib, x: F(lib).pad(x, (4, 0), mode="reflect"), mk((1, 2, 4)),
             name="reflect-too-wide"),
    ]),
    # ------------------------------------------------------------------ activations
    OpSpec("hardtanh", [
        Case(lambda lib, x: F(lib).hardtanh(x, -0.5, 1.5), mk((3, 4), grad=True)),
        Case(inplace(lambda lib, x: F(lib).hardtanh(x, inplace=True)), mk((3, 4)),
             name="inplace"),
    ]),
    OpSpec("hardtanh_", [Case(inplace(lambda lib, x: F(lib).hardtanh_(x, 0.0, 1.0)),
                              mk((3, 4)))]),
    OpSpec("relu6", [
        Case(lambda lib, x: F(lib).relu6(x * 3), mk((3, 4), grad=True)),
        Case(inplace(lambda lib, x: F(lib).relu6(x, inplace=True)), mk((3, 4)),
             name="inplace"),
    ]),
    OpSpec("leaky_relu", [
        Case(lambda lib, x: F(lib).leaky_relu(x, 0.2), mk((3, 4), grad=True)),
        Case(inplace(lambda lib, x: F(lib).leaky_relu(x, inplace=True)), mk((3, 4)),
             name="inplace"),
        Case(lambda lib, x: F(lib).leaky_relu(x), lambda lib: ix(lib, [1, -2]), name="int"),
        # the slope in the input's precision (not rounded through float32)
        Case(inplace(lambda lib, x: F(lib).leaky_relu(x, 0.2, inplace=True)),
             mk((3, 4), dtype="float64"), name="inplace-float64", rtol=0, atol=0),
    ]),
    OpSpec("leaky_relu_", [Case(inplace(lambda lib, x: F(lib).leaky_relu_(x, 0.1)),
                                mk((3, 4)))]),
    OpSpec("gelu", [
        Case(lambda lib, x: F(lib).gelu(x), mk((3, 4), grad=True)),
        Case(lambda lib, x: F(lib).gelu(x, approximate="tanh"), mk((3, 4)), name="tanh"),
        Case(lambda lib, x: F(lib).gelu(x, approximate="cubic"), mk((3, 4)), name="bad"),
    ]),
    OpSpec("silu", [
        Case(lambda lib, x: F(lib).silu(x), mk((3, 4), grad=True)),
        Case(inplace(lambda lib, x: F(lib).silu(x, inplace=True)), mk((3, 4)),
             name="inplace"),
    ]),
    OpSpec("elu", [
        Case(lambda lib, x: F(lib).elu(x, 0.5), mk((3, 4), grad=True)),
        Case(inplace(lambda lib, x: F(lib).elu(x, inplace=True)), mk((3, 4)), name="inplace"),
    ]),
    OpSpec("elu_", [Case(inplace(lambda lib, x: F(lib).elu_(x, 2.0)), mk((3, 4)))]),
    OpSpec("softplus", [
        Case(lambda lib, x: F(lib).softplus(x * 10, beta=2.0, threshold=5.0),
             mk((3, 4), grad=True)),
    ]),
    OpSpec("logsigmoid", [Case(lambda lib, x: F(lib).logsigmoid(x * 10), mk((3, 4), grad=True))]),
    OpSpec("softmin", [
        Case(lambda lib, x: F(lib).softmin(x, 1), mk((3, 4), grad=True)),
        Case(lambda lib, x: F(lib).softmin(x, 0, dtype=lib.float64), mk((3, 4)), name="dtype"),
    ]),
    OpSpec("one_hot", [
        Case(lambda lib, t: F(lib).one_hot(t, 4), lambda lib: ix(lib, [[0, 3], [2, 1]])),
        Case(lambda lib, t: F(lib).one_hot(t), lambda lib: ix(lib, [1, 4]), name="inferred"),
        Case(lambda lib, t: F(lib).one_hot(t, 2), lambda lib: ix(lib, [1, 4]),
             name="too-large"),
    ]),
    # ----------------------------------------------------------------------- losses
    OpSpec("cross_entropy", [
        Case(lambda lib, x, t: F(lib).cross_entropy(x, t),
             lambda lib: (R(lib, 4, 5, grad=True), ix(lib, [1, 0, 4, 2]))),
        Case(lambda lib, x, t, w: F(lib).cross_entropy(x, t, w, ignore_index=0,
                                                       reduction="sum", label_smoothing=0.1),
             lambda lib: (R(lib, 4, 5), ix(lib, [1, 0, 4, 2]), probs(lib, 5, seed=1)),
             name="weighted-smoothed", **TOL),
        Case(lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="none"),
             lambda lib: (R(lib, 2, 3, 2, 2, grad=True), ix(lib, [[[0, 2], [1, 1]],
                                                                  [[2, 0], [0, 1]]])),
             name="spatial"),
        Case(lambda lib, x, t: F(lib).cross_entropy(x, t.softmax(1)),
             lambda lib: (R(lib, 3, 4), R(lib, 3, 4, seed=1)), name="probabilities"),
        Case(lambda lib, x, t: F(lib).cross_entropy(x, t),
             lambda lib: (R(lib, 2, 3), ix(lib, [0, 3])), name="out-of-range"),
    ]),
    OpSpec("nll_loss", [
        Case(lambda lib, x, t: F(lib).nll_loss(x.log_softmax(1), t),
             lambda lib: (R(lib, 4, 5, grad=True), ix(lib, [1, 0, 4, 2]))),
        Case(lambda lib, x, t, w: F(lib).nll_loss(x, t, w, reduction="none"),
             lambda lib: (R(lib, 4, 5), ix(lib, [1, 0, 4, 2]), probs(lib, 5)),
             name="weighted"),
        Case(lambda lib, x, t: F(lib).nll_loss(x, t),
             lambda lib: (R(lib, 4, 5), ix(lib, [1.0, 0.0, 4.0, 2.0])), name="float-target"),
    ]),
    OpSpec("binary_cross_entropy", [
        Case(lambda lib, p, t: F(lib).binary_cross_entropy(p, t),
             lambda lib: (probs(lib, 3, 4).requires_grad_(), probs(lib, 3, 4, seed=1))),
        Case(lambda lib, p, t, w: F(lib).binary_cross_entropy(p, t, w, reduction="none"),
             lambda lib: (probs(lib, 3, 4), probs(lib, 3, 4, seed=1), probs(lib, 4, seed=2)),
             name="weighted"),
    ]),
    OpSpec("binary_cross_entropy_with_logits", [
        Case(lambda lib, x, t: F(lib).binary_cross_entropy_with_logits(x, t),
             lambda lib: (R(lib, 3, 4, grad=True), probs(lib, 3, 4, seed=1))),
        Case(lambda lib, x, t, pw: F(lib).binary_cross_entropy_with_logits(
            x, t, pos_weight=pw, reduction="sum"),
             lambda lib: (R(lib, 3, 4), probs(lib, 3, 4, seed=1), probs(lib, 4, seed=2)),
             name="pos-weight", **TOL),
    ]),
    OpSpec("mse_loss", [
        Case(lambda lib, x, t: F(lib).mse_loss(x, t), mk((3, 4), (3, 4), grad=True)),
        Case(lambda lib, x, t: F(lib).mse_loss(x, t, reduction="none"), mk((3, 4), (4,)),
             name="broadcast"),
    ]),
    OpSpec("l1_loss", [
        Case(lambda lib, x, t: F(lib).l1_loss(x, t), mk((3, 4), (3, 4), grad=True)),
        Case(lambda lib, x, t: F(lib).l1_loss(x, t, reduction="bad"), mk((3, 4), (3, 4)),
             name="bad-reduction"),
    ]),
    OpSpec("smooth_l1_loss", [
        Case(lambda lib, x, t: F(lib).smooth_l1_loss(x, t, beta=0.5),
             mk((3, 4), (3, 4), grad=True)),
    ]),
    OpSpec("huber_loss", [
        Case(lambda lib, x, t: F(lib).huber_loss(x, t, delta=0.5, reduction="sum"),
             mk((3, 4), (3, 4), grad=True), **TOL),
    ]),
    OpSpec("kl_div", [
        Case(lambda lib, x, t: F(lib).kl_div(x.log_softmax(1), t, reduction="batchmean"),
             lambda lib: (R(lib, 3, 4, grad=True), probs(lib, 3, 4, seed=1))),
        Case(lambda lib, x, t: F(lib).kl_div(x, t, reduction="none", log_target=True),
             mk((3, 4), (3, 4)), name="log-target"),
    ]),
    # --------------------------------------------------------------------- linear
    OpSpec("linear", [
        Case(lambda lib, x, w, b: F(lib).linear(x, w, b), mk((3, 4), (5, 4), (5,), grad=True),
             **TOL),
        Case(lambda lib, x, w: F(lib).linear(x, w), mk((2, 3, 4), (5, 4)), name="batched",
             **TOL),
        Case(lambda lib, x, w, b: F(lib).linear(x, w, b), mk((4,), (5, 4), (5,)),
             name="vector", **TOL),
        Case(lambda lib, x, w: F(lib).linear(x, w), mk((3, 4), (5, 3)), name="mismatch"),
    ]),
    OpSpec("bilinear", [
        Case(lambda lib, a, b, w, c: F(lib).bilinear(a, b, w, c),
             mk((3, 2), (3, 4), (5, 2, 4), (5,), grad=True), **TOL),
    ]),
    # -------------------------------------------------------------- normalization
    OpSpec("layer_norm", [
        Case(lambda lib, x, w, b: F(lib).layer_norm(x, (4,), w, b),
             mk((3, 4), (4,), (4,), grad=True), **TOL),
        Case(lambda lib, x: F(lib).layer_norm(x, (3, 4)), mk((2, 3, 4)), name="plain", **TOL),
        Case(lambda lib, x: F(lib).layer_norm(x, (5,)), mk((2, 3, 4)), name="bad-shape"),
    ]),
    OpSpec("batch_norm", [
        Case(lambda lib, x, m, v, w, b: (F(lib).batch_norm(x, m, v, w, b, training=True), m, v),
             lambda lib: (R(lib, 4, 3, 2, grad=True), R(lib, 3, seed=1),
                          probs(lib, 3, seed=2), R(lib, 3, seed=3), R(lib, 3, seed=4)),
             **TOL),
        Case(lambda lib, x, m, v: F(lib).batch_norm(x, m, v),
             lambda lib: (R(lib, 4, 3), R(lib, 3, seed=1), probs(lib, 3, seed=2)),
             name="eval", **TOL),
        Case(lambda lib, x: F(lib).batch_norm(x, None, None, training=True), mk((1, 3)),
             name="one-value-per-channel"),
    ]),
    OpSpec("group_norm", [
        Case(lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b),
             mk((2, 4, 3), (4,), (4,), grad=True), **TOL),
    ]),
    OpSpec("rms_norm", [
        Case(lambda lib, x, w: F(lib).rms_norm(x, (4,), w), mk((3, 4), (4,), grad=True),
             **TOL),
    ]),
    OpSpec("normalize", [
        Case(lambda lib, x: F(lib).normalize(x), mk((3, 4), grad=True)),
        Case(lambda lib, x: F(lib).normalize(x, p=1.0, dim=0), mk((3, 4)), name="l1"),
    ]),
    # ------------------------------------------------------------------ embedding
    OpSpec("embedding", [
        Case(lambda lib, i, w: F(lib).embedding(i, w),
             lambda lib: (ix(lib, [[0, 2], [3, 0]]), R(lib, 4, 3, grad=True))),
        Case(lambda lib, i, w: (F(lib).embedding(i, w, max_norm=1.0), w, w._version),
             lambda lib: (ix(lib, [1, 3]), R(lib, 4, 3)), name="max-norm"),
        Case(lambda lib, i, w: F(lib).embedding(i, w),
             lambda lib: (ix(lib, [0, 4]), R(lib, 4, 3)), name="out-of-range"),
    ]),
    # -------------------------------------------------------------------- dropout
    OpSpec("dropout", [
        Case(lambda lib, x: F(lib).dropout(x, 0.5), mk((3, 4), grad=True), check_values=False),
        Case(lambda lib, x: F(lib).dropout(x, 0.5, training=False), mk((3, 4)), name="eval"),
        Case(lambda lib, x: F(lib).dropout(x, 1.5), mk((3, 4)), name="bad-p"),
    ]),
    OpSpec("dropout1d", [Case(lambda lib, x: F(lib).dropout1d(x, 0.5), mk((2, 3, 4)),
                              check_values=False)]),
    OpSpec("dropout2d", [Case(lambda lib, x: F(lib).dropout2d(x, 0.5), mk((2, 3, 4, 4)),
                              check_values=False)]),
    OpSpec("dropout3d", [Case(lambda lib, x: F(lib).dropout3d(x, 0.5), mk((2, 3, 2, 2, 2)),
                              check_values=False)]),
    # ---------------------------------------------------------------------- vision
    OpSpec("pixel_shuffle", [
        Case(lambda lib, x: F(lib).pixel_shuffle(x, 2), mk((2, 8, 3, 3), grad=True)),
        Case(lambda lib, x: lib.pixel_shuffle(x, 3), mk((9, 2, 1)), name="unbatched"),
        Case(lambda lib, x: F(lib).pixel_shuffle(x, 2), mk((3, 2, 4, 2, 2)), name="5-d"),
        Case(lambda lib, x: F(lib).pixel_shuffle(x, 2), mk((2, 3, 3, 3)), name="channels"),
        Case(lambda lib, x: F(lib).pixel_shuffle(x, 0), mk((1, 4, 2, 2)), name="zero"),
        Case(lambda lib, x: F(lib).pixel_shuffle(x, 2), mk((4, 2)), name="2-d"),
        Case(lambda lib, x: F(lib).pixel_shuffle(x.contiguous(memory_format=lib.channels_last),
                                                  2), mk((2, 8, 3, 3)), name="channels-last"),
    ]),
    OpSpec("pixel_unshuffle", [
        Case(lambda lib, x: F(lib).pixel_unshuffle(x, 2), mk((2, 2, 6, 4), grad=True)),
        Case(lambda lib, x: lib.pixel_unshuffle(x, 3), mk((1, 3, 6)), name="unbatched"),
        Case(lambda lib, x: F(lib).pixel_unshuffle(x, 2), mk((1, 3, 5, 4)), name="height"),
        Case(lambda lib, x: F(lib).pixel_unshuffle(x, 2), mk((1, 3, 4, 5)), name="width"),
        Case(lambda lib, x: F(lib).pixel_unshuffle(x, -1), mk((1, 4, 2, 2)), name="negative"),
        Case(lambda lib, x: F(lib).pixel_unshuffle(
            x.contiguous(memory_format=lib.channels_last), 2), mk((2, 2, 6, 4)),
             name="channels-last"),
    ]),
    # ------------------------------------------------------------------- attention
    OpSpec("scaled_dot_product_attention", [
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
             mk((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), grad=True), **TOL),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
            q, k, v, attn_mask=lib.ones(4, 5, dtype=lib.bool).tril(), scale=0.5),
             mk((2, 4, 8), (2, 5, 8), (2, 5, 6)), name="bool-mask", **TOL),
        Case(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, m),
             mk((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), (3, 4, 5)), name="float-mask",
             **TOL),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
             mk((4, 8), (4, 8), (4, 6)), name="causal", **TOL),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, enable_gqa=True),
             mk((1, 4, 3, 8), (1, 2, 5, 8), (1, 2, 5, 6)), name="gqa", **TOL),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
            q, k, v, attn_mask=lib.ones(4, 5, dtype=lib.bool), is_causal=True),
             mk((4, 8), (5, 8), (5, 6)), name="mask-and-causal"),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v.double()),
             mk((4, 8), (5, 8), (5, 6)), name="dtypes"),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
             mk((8,), (5, 8), (5, 6)), name="1-d"),
        Case(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, dropout_p=1.5),
             mk((4, 8), (5, 8), (5, 6)), name="bad-p"),
    ]),
    # ------------------------------------------------------- transposed convolution
    OpSpec("conv_transpose2d", [
        Case(lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                          output_padding=1),
             mk((2, 4, 5, 5), (4, 3, 3, 3), (3,), grad=True), **TOL),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=(2, 3), groups=2,
                                                       dilation=(1, 2)),
             mk((1, 4, 4, 5), (4, 1, 3, 2)), name="grouped", **TOL),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(x, w, padding=1),
             mk((4, 5, 5), (4, 2, 3, 3)), name="unbatched", **TOL),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(x, w), mk((1, 3, 5, 5), (4, 2, 3, 3)),
             name="channels"),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=2, output_padding=2),
             mk((1, 4, 5, 5), (4, 2, 3, 3)), name="output-padding"),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(x, w, padding=5),
             mk((1, 4, 5, 5), (4, 2, 3, 3)), name="too-small"),
        Case(lambda lib, x, w: F(lib).conv_transpose2d(
            x.contiguous(memory_format=lib.channels_last), w, stride=2),
             mk((2, 4, 5, 5), (4, 3, 3, 3)), name="channels-last", **TOL),
    ]),
    OpSpec("conv_transpose1d", [
        Case(lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b, stride=3, padding=1),
             mk((2, 4, 7), (4, 3, 3), (3,), grad=True), **TOL),
        Case(lambda lib, x, w: F(lib).conv_transpose1d(x, w, groups=4, dilation=2),
             mk((4, 6), (4, 1, 4)), name="depthwise-unbatched", **TOL),
        Case(lambda lib, x, w: F(lib).conv_transpose1d(x, w, stride=2, output_padding=2),
             mk((1, 4, 5), (4, 2, 3)), name="output-padding"),
    ]),
]
