"""Gradient specs of the 3-d ``nn.functional`` ops and the last issue-15 gaps (3-d
convolution and pooling, fractional max pooling, CTC loss, grid sampling): float64
gradcheck, layout variants, second derivatives where PyTorch has them, and the same
gradients and ``grad_fn`` names as PyTorch."""

import numpy as np

from tests.grad_specs.grad_nn import F
from tests.harness.gradients import G

GRADS = [
    # ------------------------------------------------------------------ convolution
    G(
        "conv3d",
        lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding=1),
        [(2, 2, 3, 3, 3), (3, 2, 2, 2, 2), (3,)],
    ),
    G(
        "conv3d",
        lambda lib, x, w: F(lib).conv3d(x, w, stride=(2, 1, 1), dilation=(1, 2, 1), groups=2),
        [(1, 4, 4, 5, 3), (2, 2, 2, 2, 2)],
    ),
    G(
        "conv3d",
        lambda lib, x, w: F(lib).conv3d(x, w, padding="same"),
        [(2, 3, 3, 3), (2, 2, 2, 1, 2)],
    ),
    G(
        "conv_transpose3d",
        lambda lib, x, w, b: F(lib).conv_transpose3d(
            x, w, b, stride=2, padding=1, output_padding=1
        ),
        [(1, 2, 2, 2, 2), (2, 2, 2, 2, 2), (2,)],
    ),
    G(
        "conv_transpose3d",
        lambda lib, x, w: F(lib).conv_transpose3d(x, w, stride=(1, 2, 1), groups=2, dilation=2),
        [(1, 4, 2, 3, 2), (4, 1, 2, 2, 2)],
    ),
]


def _frac(n, *args, suffix="", **kw):
    """A fractional max pool with fixed samples (gradcheck calls it many times)."""

    def run(lib, x):
        batch = 1 if x.dim() == n + 1 else x.shape[0]
        rng = np.random.default_rng(3)
        s = lib.tensor(rng.uniform(0, 1, (batch, x.shape[-n - 1], n)), dtype=x.dtype)
        out = getattr(F(lib), f"fractional_max_pool{n}d{suffix}")(x, *args, _random_samples=s, **kw)
        return out[0] if suffix else out

    return run


GRADS += [
    # ---------------------------------------------------------------------- pooling
    G("max_pool3d", lambda lib, x: F(lib).max_pool3d(x, 2), [(2, 2, 4, 4, 4)]),
    G(
        "max_pool3d",
        lambda lib, x: F(lib).max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True),
        [(1, 2, 5, 4, 6)],
    ),
    G(
        "max_pool3d_with_indices",
        lambda lib, x: F(lib).max_pool3d_with_indices(x, 2)[0],
        [(2, 4, 4, 2)],
    ),
    G("avg_pool3d", lambda lib, x: F(lib).avg_pool3d(x, 2), [(2, 2, 4, 4, 4)]),
    G(
        "avg_pool3d",
        lambda lib, x: F(lib).avg_pool3d(x, 3, stride=2, padding=1, count_include_pad=False),
        [(1, 2, 5, 4, 6)],
    ),
    G(
        "adaptive_avg_pool3d",
        lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 3, 2)),
        [(2, 2, 5, 7, 3)],
    ),
    G("adaptive_avg_pool3d", lambda lib, x: F(lib).adaptive_avg_pool3d(x, 1), [(2, 3, 3, 2)]),
    G(
        "adaptive_max_pool3d",
        lambda lib, x: F(lib).adaptive_max_pool3d(x, (3, 2, 2)),
        [(1, 2, 5, 4, 3)],
    ),
    G(
        "adaptive_max_pool3d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool3d_with_indices(x, 2)[0],
        [(2, 4, 4, 3)],
    ),
    G("lp_pool3d", lambda lib, x: F(lib).lp_pool3d(x, 2, 2), [(1, 2, 4, 4, 2)]),
    G(
        "lp_pool3d",
        lambda lib, x: F(lib).lp_pool3d(x, 3, (2, 1, 2), stride=1),
        [(1, 2, 3, 2, 3)],
        low=0.2,
        high=2.0,
    ),
    G(
        "max_unpool3d",
        lambda lib, x: F(lib).max_unpool3d(x, lib.tensor([[[[[0, 3]], [[9, 30]]]]]), 2),
        [(1, 1, 2, 1, 2)],
    ),
    G("fractional_max_pool2d", _frac(2, 2, output_size=(3, 4)), [(2, 2, 7, 9)]),
    G("fractional_max_pool2d", _frac(2, (2, 3), output_ratio=(0.5, 0.5)), [(2, 8, 9)]),
    G(
        "fractional_max_pool2d_with_indices",
        _frac(2, 2, output_size=3, suffix="_with_indices"),
        [(1, 2, 6, 6)],
    ),
    G("fractional_max_pool3d", _frac(3, 2, output_size=(3, 2, 3)), [(1, 2, 6, 5, 6)]),
    G(
        "fractional_max_pool3d_with_indices",
        _frac(3, 2, output_size=2, suffix="_with_indices"),
        [(2, 4, 4, 4)],
    ),
]


def _ctc(targets, input_lengths, target_lengths, **kw):
    """``ctc_loss`` of ``log_softmax(x)``: PyTorch's CTC gradient is the one through the
    log-softmax that produced the log-probabilities, so that is what gradcheck sees."""

    def run(lib, x):
        lp = x.log_softmax(-1)
        return F(lib).ctc_loss(lp, lib.tensor(targets), input_lengths, target_lengths, **kw)

    return run


_NO_CTC2 = "PyTorch defines no derivative of the CTC loss backward, double backward raises"

GRADS += [
    # ------------------------------------------------------------------------- CTC
    G("ctc_loss", _ctc([[1, 2, 2], [3, 1, 0]], [6, 4], [3, 2]), [(6, 2, 4)], no_second=_NO_CTC2),
    G(
        "ctc_loss",
        _ctc([1, 3, 3, 2, 1], [5, 6], [3, 2], reduction="none"),
        [(6, 2, 4)],
        no_second=_NO_CTC2,
    ),
    G(
        "ctc_loss",
        _ctc([[1, 2, 1]], [5], [3], reduction="sum", blank=3),
        [(5, 1, 4)],
        no_second=_NO_CTC2,
    ),
    G(
        "ctc_loss",
        _ctc([2, 2], [3], [2], zero_infinity=True, reduction="sum"),
        [(3, 4)],
        no_second=_NO_CTC2,
    ),
]


def _gs(**kw):
    def run(lib, x, g):
        return F(lib).grid_sample(x, g * 0.7, **kw)

    return run


GRADS += [
    # ---------------------------------------------------------------- grid sampling
    G("grid_sample", _gs(align_corners=False), [(2, 2, 4, 5), (2, 3, 2, 2)]),
    G("grid_sample", _gs(padding_mode="border", align_corners=True), [(1, 2, 3, 4), (1, 2, 3, 2)]),
    G(
        "grid_sample",
        _gs(padding_mode="reflection", align_corners=False),
        [(1, 2, 3, 4), (1, 3, 2, 2)],
    ),
    G("grid_sample", _gs(mode="nearest", align_corners=False), [(1, 2, 3, 4), (1, 3, 2, 2)]),
    G(
        "grid_sample",
        _gs(mode="bicubic", padding_mode="border", align_corners=False),
        [(1, 2, 4, 4), (1, 2, 2, 2)],
    ),
    G(
        "grid_sample",
        _gs(padding_mode="zeros", align_corners=True),
        [(1, 2, 3, 3, 4), (1, 2, 2, 1, 3)],
    ),
    G(
        "affine_grid",
        lambda lib, t: F(lib).affine_grid(t, [2, 3, 4, 5], align_corners=False),
        [(2, 2, 3)],
    ),
    G(
        "affine_grid",
        lambda lib, t: F(lib).affine_grid(t, [1, 2, 3, 2, 4], align_corners=True),
        [(1, 3, 4)],
    ),
]


def _lce(options=None, **kw):
    def run(lib, x, w, b):
        target = lib.tensor([0, 3, 4, -100, 2])
        opts = None if options is None else lib.nn.LinearCrossEntropyOptions(**options)
        return F(lib).linear_cross_entropy(x, w, target, linear_bias=b, options=opts, **kw)

    return run


_NO_CHUNK2 = "the chunked linear cross entropy is first order only in PyTorch, gradgradcheck fails"

GRADS += [
    # --------------------------------------------------------- linear cross entropy
    G("linear_cross_entropy", _lce(), [(5, 3), (6, 3), (6,)]),
    G("linear_cross_entropy", _lce(reduction="none", label_smoothing=0.2), [(5, 3), (6, 3), (6,)]),
    G(
        "linear_cross_entropy",
        _lce({"batch_chunk_size": 2}),
        [(5, 3), (6, 3), (6,)],
        no_second=_NO_CHUNK2,
    ),
    G(
        "linear_cross_entropy",
        _lce({}, reduction="none"),
        [(5, 3), (6, 3), (6,)],
        no_second=_NO_CHUNK2,
    ),
]
