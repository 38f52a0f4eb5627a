"""Specs of the 3-d ``nn.functional`` ops and the last issue-15 gaps (3-d convolution and
pooling, fractional max pooling, CTC loss, grid sampling): values, layouts,
``requires_grad`` and errors compared with PyTorch."""

from tests.harness.conformance import Case, OpSpec
from tests.specs.spec_nn import TOL, F, R, mk

SPECS = [
    # ------------------------------------------------------------------ convolution
    OpSpec(
        "conv3d",
        [
            Case(
                lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding=1),
                mk((2, 3, 4, 5, 5), (4, 3, 3, 3, 3), (4,), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(
                    x, w, stride=(1, 2, 2), dilation=(2, 1, 1), groups=3
                ),
                mk((1, 6, 6, 7, 8), (3, 2, 2, 2, 3)),
                name="grouped",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(x, w, padding="same"),
                mk((3, 4, 5, 6), (2, 3, 2, 3, 2)),
                name="unbatched-same",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(x, w, groups=4),
                mk((1, 4, 3, 4, 5), (8, 1, 2, 2, 2)),
                name="depthwise",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(
                    x.contiguous(memory_format=lib.channels_last_3d), w, stride=2
                ),
                mk((2, 3, 5, 5, 5), (4, 3, 3, 3, 3)),
                name="channels-last-3d",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(x, w),
                mk((2, 4, 5, 5, 5), (4, 3, 3, 3, 3)),
                name="channels-mismatch",
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(x, w),
                mk((2, 3, 5, 5), (4, 3, 3, 3, 3)),
                name="bad-rank",
            ),
            Case(
                lambda lib, x, w: F(lib).conv3d(x, w),
                mk((1, 3, 2, 5, 5), (4, 3, 3, 3, 3)),
                name="kernel-too-large",
            ),
        ],
    ),
    OpSpec(
        "conv_transpose3d",
        [
            Case(
                lambda lib, x, w, b: F(lib).conv_transpose3d(
                    x, w, b, stride=2, padding=1, output_padding=1
                ),
                mk((2, 4, 3, 4, 3), (4, 3, 3, 3, 3), (3,), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv_transpose3d(
                    x, w, stride=(2, 1, 3), groups=2, dilation=(1, 2, 1)
                ),
                mk((1, 4, 3, 4, 5), (4, 1, 3, 2, 2)),
                name="grouped",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv_transpose3d(x, w, padding=1),
                mk((4, 3, 3, 3), (4, 2, 3, 3, 3)),
                name="unbatched",
                **TOL,
            ),
            Case(
                lambda lib, x, w: F(lib).conv_transpose3d(x, w, stride=2, output_padding=2),
                mk((1, 4, 3, 3, 3), (4, 2, 3, 3, 3)),
                name="output-padding",
            ),
            Case(
                lambda lib, x, w: F(lib).conv_transpose3d(x, w, dilation=(1, 0, 1)),
                mk((1, 4, 3, 3, 3), (4, 2, 3, 3, 3)),
                name="bad-dilation",
            ),
            Case(
                lambda lib, x, w: F(lib).conv_transpose3d(
                    x.contiguous(memory_format=lib.channels_last_3d), w, stride=2
                ),
                mk((2, 4, 3, 3, 3), (4, 3, 2, 2, 2)),
                name="channels-last-3d",
                **TOL,
            ),
        ],
    ),
]


def _pool3_then(fn):
    """``fn(lib, pooled, indices)`` after a 2x2x2 max pool of the input."""
    return lambda lib, x: fn(lib, *F(lib).max_pool3d(x, 2, return_indices=True))


def _frac(n, *args, dtype="float32", suffix="", **kw):
    """A fractional max pool of an input with fixed samples (its shape from ``x``)."""

    def run(lib, x):
        batch = 1 if x.dim() == n + 1 else x.shape[0]
        s = R(lib, batch, x.shape[-n - 1], n, seed=7, low=0, high=1, dtype=dtype)
        op = getattr(F(lib), f"fractional_max_pool{n}d{suffix}")
        return op(x, *args, _random_samples=s, **kw)

    return run


SPECS += [
    # ---------------------------------------------------------------------- pooling
    OpSpec(
        "max_pool3d",
        [
            Case(lambda lib, x: F(lib).max_pool3d(x, 2), mk((2, 3, 4, 6, 5), grad=True)),
            Case(
                lambda lib, x: F(lib).max_pool3d(
                    x,
                    (3, 2, 3),
                    stride=(2, 1, 2),
                    padding=1,
                    dilation=(1, 2, 1),
                    ceil_mode=True,
                    return_indices=True,
                ),
                mk((1, 2, 6, 7, 8)),
                name="options",
            ),
            Case(
                lambda lib, x: F(lib).max_pool3d(
                    x.contiguous(memory_format=lib.channels_last_3d), 2, return_indices=True
                ),
                mk((2, 3, 4, 4, 4)),
                name="channels-last-3d",
            ),
            Case(lambda lib, x: F(lib).max_pool3d(x.round(), 2), mk((3, 4, 4, 4)), name="ties"),
            Case(
                lambda lib, x: F(lib).max_pool3d(x, 2, padding=2),
                mk((1, 1, 4, 4, 4)),
                name="bad-padding",
            ),
            Case(
                lambda lib, x: F(lib).max_pool3d(x, (2, 2)), mk((1, 1, 4, 4, 4)), name="bad-kernel"
            ),
            Case(lambda lib, x: F(lib).max_pool3d(x, 2), mk((4, 4)), name="bad-rank"),
            Case(lambda lib, x: F(lib).max_pool3d(x, 2), mk((1, 1, 0, 4, 4)), name="empty"),
        ],
    ),
    OpSpec(
        "max_pool3d_with_indices",
        [Case(lambda lib, x: F(lib).max_pool3d_with_indices(x, 2, 1), mk((1, 2, 3, 4, 4)))],
    ),
    OpSpec(
        "avg_pool3d",
        [
            Case(lambda lib, x: F(lib).avg_pool3d(x, 2), mk((2, 3, 4, 6, 5), grad=True), **TOL),
            Case(
                lambda lib, x: F(lib).avg_pool3d(x, (3, 2, 3), (2, 1, 2), 1, True, False),
                mk((1, 2, 6, 7, 8)),
                name="ceil-exclude-pad",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1, divisor_override=5),
                mk((2, 5, 5, 5)),
                name="divisor",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).avg_pool3d(
                    x.contiguous(memory_format=lib.channels_last_3d), 2
                ),
                mk((2, 3, 4, 4, 4)),
                name="channels-last-3d",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).avg_pool3d(x, 2, divisor_override=0),
                mk((1, 1, 4, 4, 4)),
                name="zero-divisor",
            ),
            Case(
                lambda lib, x: F(lib).avg_pool3d(x, 2, padding=-1),
                mk((1, 1, 4, 4, 4)),
                name="negative-padding",
            ),
        ],
    ),
    OpSpec(
        "adaptive_avg_pool3d",
        [
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(x, (3, None, 2)),
                mk((2, 3, 7, 5, 6), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(x, 1),
                mk((3, 4, 5, 6), grad=True),
                name="global",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(
                    x.contiguous(memory_format=lib.channels_last_3d), 1
                ),
                mk((2, 3, 4, 4, 4), grad=True),
                name="global-channels-last",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(
                    x.contiguous(memory_format=lib.channels_last_3d), (2, 3, 2)
                ),
                mk((2, 3, 4, 5, 4)),
                name="channels-last",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 2)),
                mk((1, 2, 4, 4, 4)),
                name="bad-size",
            ),
            Case(
                lambda lib, x: F(lib).adaptive_avg_pool3d(x.long(), 2),
                mk((1, 2, 4, 4, 4)),
                name="long",
            ),
        ],
    ),
    OpSpec(
        "adaptive_max_pool3d",
        [
            Case(
                lambda lib, x: F(lib).adaptive_max_pool3d(x, (3, 2, 4)),
                mk((2, 3, 7, 5, 6), grad=True),
            ),
            Case(
                lambda lib, x: F(lib).adaptive_max_pool3d(x, (None, 4, 1), return_indices=True),
                mk((2, 5, 3, 6)),
                name="indices",
            ),
            Case(lambda lib, x: F(lib).adaptive_max_pool3d(x, 5), mk((1, 2, 3, 4, 2)), name="up"),
            Case(
                lambda lib, x: F(lib).adaptive_max_pool3d(x, (0, 2, 2)),
                mk((1, 2, 3, 4, 2)),
                name="zero",
            ),
            Case(
                lambda lib, x: F(lib).adaptive_max_pool3d(x.long(), 2),
                mk((1, 2, 3, 4, 2)),
                name="long",
            ),
        ],
    ),
    OpSpec(
        "adaptive_max_pool3d_with_indices",
        [Case(lambda lib, x: F(lib).adaptive_max_pool3d_with_indices(x, 3), mk((1, 2, 5, 5, 4)))],
    ),
    OpSpec(
        "lp_pool3d",
        [
            Case(lambda lib, x: F(lib).lp_pool3d(x, 2, 2), mk((1, 2, 4, 6, 4), grad=True), **TOL),
            Case(
                lambda lib, x: F(lib).lp_pool3d(x.abs(), 3.0, (2, 3, 2), stride=1, ceil_mode=True),
                mk((2, 4, 5, 4)),
                name="options",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).lp_pool3d(x, 2, (2, 2)),
                mk((1, 2, 4, 4, 4)),
                name="bad-kernel",
            ),
        ],
    ),
    OpSpec(
        "max_unpool3d",
        [
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i, 2)),
                mk((2, 3, 4, 6, 4), grad=True),
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i, 2, output_size=(5, 7, 5))),
                mk((1, 2, 5, 7, 5)),
                name="output-size",
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i, 2, output_size=(9, 9, 9))),
                mk((1, 2, 4, 4, 4)),
                name="bad-output-size",
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i.float(), 2)),
                mk((1, 2, 4, 4, 4)),
                name="float-indices",
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i * 100, 2)),
                mk((1, 2, 4, 4, 4)),
                name="bad-index",
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i, (2, 2))),
                mk((1, 2, 4, 4, 4)),
                name="bad-kernel",
            ),
            Case(
                _pool3_then(lambda lib, p, i: F(lib).max_unpool3d(p, i, 2)),
                mk((2, 4, 4, 4)),
                name="unbatched",
            ),
        ],
    ),
    OpSpec(
        "fractional_max_pool2d",
        [
            Case(_frac(2, 2, output_size=(3, 4)), mk((2, 3, 7, 9), grad=True)),
            Case(
                _frac(2, (3, 2), output_ratio=(0.5, 0.7), return_indices=True),
                mk((3, 10, 9)),
                name="ratio-unbatched",
            ),
            Case(
                _frac(2, 2, output_size=3, return_indices=True, dtype="float64"),
                mk((2, 2, 8, 8), dtype="float64"),
                name="float64",
            ),
            Case(_frac(2, 5, output_size=5), mk((1, 1, 8, 8)), name="pool-too-large"),
            Case(
                lambda lib, x: F(lib).fractional_max_pool2d(x, 2), mk((1, 1, 8, 8)), name="no-size"
            ),
            Case(
                lambda lib, x: F(lib).fractional_max_pool2d(
                    x, 2, output_size=3, _random_samples=lib.rand(1, 1, 3)
                ),
                mk((1, 1, 8, 8)),
                name="bad-samples",
            ),
            Case(
                lambda lib, x: F(lib).fractional_max_pool2d(
                    x, 2, output_size=3, _random_samples=lib.rand(1, 2, 2)
                ),
                mk((2, 2, 8, 8)),
                name="few-samples",
            ),
        ],
    ),
    OpSpec(
        "fractional_max_pool2d_with_indices",
        [Case(_frac(2, 2, output_size=(4, 3), suffix="_with_indices"), mk((1, 2, 7, 6)))],
    ),
    OpSpec(
        "fractional_max_pool3d",
        [
            Case(_frac(3, 2, output_size=(3, 4, 2)), mk((2, 3, 7, 9, 5), grad=True)),
            Case(
                _frac(3, (3, 2, 2), output_ratio=(0.5, 0.7, 0.6), return_indices=True),
                mk((3, 10, 9, 6)),
                name="ratio-unbatched",
            ),
            Case(_frac(3, 5, output_size=5), mk((1, 1, 8, 8, 8)), name="pool-too-large"),
            Case(
                lambda lib, x: F(lib).fractional_max_pool3d(x, 2),
                mk((1, 1, 8, 8, 8)),
                name="no-size",
            ),
        ],
    ),
    OpSpec(
        "fractional_max_pool3d_with_indices",
        [Case(_frac(3, 2, output_size=(4, 3, 3), suffix="_with_indices"), mk((1, 2, 7, 6, 5)))],
    ),
]


def _ctc(*args, batched=True, **kw):
    """``ctc_loss`` of the log-softmax of ``x`` against fixed targets (no blank in them)."""

    def run(lib, x):
        targets = [[1, 2, 2, 3], [4, 1, 0, 0], [3, 3, 1, 2]]
        lp = x.log_softmax(-1)
        if not batched:
            return F(lib).ctc_loss(lp, lib.tensor(targets[0]), *args, **kw)
        return F(lib).ctc_loss(lp, lib.tensor(targets), *args, **kw)

    return run


SPECS += [
    # ------------------------------------------------------------------------- CTC
    OpSpec(
        "ctc_loss",
        [
            Case(_ctc([8, 6, 7], [4, 2, 4]), mk((8, 3, 5), grad=True), **TOL),
            Case(_ctc([8, 5, 3], [4, 2, 4], reduction="none"), mk((8, 3, 5)), name="none", **TOL),
            Case(
                _ctc([8, 5, 3], [4, 2, 4], reduction="sum", zero_infinity=True),
                mk((8, 3, 5)),
                name="zero-infinity",
                **TOL,
            ),
            Case(
                _ctc([7], [4], batched=False, reduction="none"), mk((7, 5)), name="unbatched", **TOL
            ),
            Case(_ctc([8, 6, 7], [4, 2, 4], blank=5), mk((8, 3, 5)), name="bad-blank"),
            Case(_ctc([9, 6, 7], [4, 2, 4]), mk((8, 3, 5)), name="input-too-long"),
            Case(_ctc([8, 6], [4, 2, 4]), mk((8, 3, 5)), name="bad-batch"),
            Case(_ctc([8, 6, 7], [4, 2, 5]), mk((8, 3, 5)), name="target-too-long"),
            Case(_ctc([8, 6, 7], [4, 2, 4], reduction="avg"), mk((8, 3, 5)), name="bad-reduction"),
            Case(
                lambda lib, x: F(lib).ctc_loss(
                    x.log_softmax(-1),
                    lib.tensor([1, 2, 3, 4, 1]),
                    lib.tensor([6, 4]),
                    lib.tensor([3, 2]),
                ),
                mk((6, 2, 5), dtype="float64"),
                name="concatenated",
            ),
        ],
    ),
]


def _gs(*shapes, grid_scale=1.3, **kw):
    """``grid_sample`` of an input at a grid of values in about [-grid_scale, grid_scale]."""

    def run(lib, x, g):
        return F(lib).grid_sample(x, g * grid_scale / 3, **kw)

    return run


SPECS += [
    # ---------------------------------------------------------------- grid sampling
    OpSpec(
        "grid_sample",
        [
            Case(_gs(align_corners=False), mk((2, 3, 5, 6), (2, 4, 7, 2), grad=True), **TOL),
            Case(
                _gs(mode="nearest", padding_mode="border", align_corners=True),
                mk((2, 3, 5, 6), (2, 4, 7, 2)),
                name="nearest-border",
                **TOL,
            ),
            Case(
                _gs(mode="bicubic", padding_mode="reflection", align_corners=False),
                mk((1, 2, 5, 6), (1, 3, 4, 2), dtype="float64"),
                name="bicubic-reflection",
                **TOL,
            ),
            Case(
                _gs(padding_mode="reflection", align_corners=True),
                mk((2, 2, 3, 4, 5), (2, 2, 3, 4, 3), grad=True),
                name="trilinear-reflection",
                **TOL,
            ),
            Case(
                _gs(mode="bicubic", align_corners=True),
                mk((1, 2, 3, 4, 5), (1, 2, 3, 4, 3)),
                name="bicubic-5d",
            ),
            Case(
                _gs(mode="linear", align_corners=True),
                mk((1, 2, 3, 4), (1, 2, 3, 2)),
                name="bad-mode",
            ),
            Case(
                _gs(padding_mode="edge", align_corners=True),
                mk((1, 2, 3, 4), (1, 2, 3, 2)),
                name="bad-padding",
            ),
            Case(_gs(align_corners=True), mk((2, 2, 3, 4), (1, 2, 3, 2)), name="bad-batch"),
            Case(_gs(align_corners=True), mk((1, 2, 3, 4), (1, 2, 3, 3)), name="bad-grid"),
            Case(
                _gs(align_corners=True),
                mk((1, 2, 3, 4), (1, 2, 3, 2), dtype="float64"),
                name="float64",
                **TOL,
            ),
        ],
    ),
    OpSpec(
        "affine_grid",
        [
            Case(
                lambda lib, t: F(lib).affine_grid(t, [2, 3, 4, 5], align_corners=False),
                mk((2, 2, 3), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, (1, 2, 3, 4, 5), align_corners=True),
                mk((1, 3, 4), grad=True),
                name="3d",
                **TOL,
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, [2, 3, 1, 5], align_corners=False),
                mk((2, 2, 3)),
                name="unit",
                **TOL,
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, [2, 3, 4], align_corners=False),
                mk((2, 2, 3)),
                name="bad-size",
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, [2, 3, 4, 5], align_corners=False),
                mk((2, 3, 3)),
                name="bad-theta",
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, [3, 3, 4, 5], align_corners=False),
                mk((2, 2, 3)),
                name="bad-batch",
            ),
            Case(
                lambda lib, t: F(lib).affine_grid(t, [2, 3, 0, 5], align_corners=False),
                mk((2, 2, 3)),
                name="empty",
            ),
        ],
    ),
]


def _lce(options=None, **kw):
    """``linear_cross_entropy`` of ``x`` through ``w`` against fixed class indices."""

    def run(lib, x, w):
        target = lib.tensor([0, 3, 4, -100, 2, 1][: x.shape[0]])
        opts = None if options is None else lib.nn.LinearCrossEntropyOptions(**options)
        return F(lib).linear_cross_entropy(x, w, target, options=opts, **kw)

    return run


SPECS += [
    # --------------------------------------------------------- linear cross entropy
    OpSpec(
        "linear_cross_entropy",
        [
            Case(_lce(), mk((6, 4), (5, 4), grad=True), **TOL),
            Case(_lce(reduction="none"), mk((6, 4), (5, 4)), name="none", **TOL),
            Case(
                _lce({"batch_chunk_size": 2}), mk((6, 4), (5, 4), grad=True), name="chunked", **TOL
            ),
            Case(_lce({}, reduction="none"), mk((6, 4), (5, 4)), name="chunked-none", **TOL),
            Case(
                _lce(label_smoothing=0.1, reduction="sum"),
                mk((6, 4), (5, 4)),
                name="smoothing",
                **TOL,
            ),
            Case(_lce(), mk((6, 3), (5, 4)), name="bad-features"),
            Case(_lce(), mk((2, 6, 4), (5, 4)), name="bad-rank"),
        ],
    ),
]
