"""Gradient specs of the 3-d ``nn.functional`` ops and the last issue-15 gaps (3-d
convolution and pooling, fractional max pooling, CTC loss, grid sampling): float64
gradcheck, layout variants, second derivatives where PyTorch has them, and the same
gradients and ``grad_fn`` names as PyTorch."""

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
