"""Specs of the 3-d ``nn.functional`` ops and the last issue-15 gaps (3-d convolution and
pooling, fractional max pooling, CTC loss, grid sampling): values, layouts,
``requires_grad`` and errors compared with PyTorch."""

from tests.harness.conformance import Case, OpSpec
from tests.specs.spec_nn import TOL, F, mk

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
