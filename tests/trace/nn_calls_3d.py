"""One call of each ``nn`` op added by the last issue-15 gaps (3-d convolution and pooling,
fractional max pooling, CTC loss, grid sampling), merged into ``test_trace_nn.CALLS``."""

import jtensor
import jtensor.nn.functional as F


def _x(*shape, grad=False):
    jtensor.manual_seed(sum(shape))
    return jtensor.randn(*shape, requires_grad=grad)


CALLS_3D = {
    "conv3d": lambda: (F.conv3d, (_x(1, 2, 3, 4, 4, grad=True), _x(3, 2, 2, 2, 2)), {}),
    "conv_transpose3d": lambda: (
        F.conv_transpose3d,
        (_x(1, 2, 3, 3, 3, grad=True), _x(2, 3, 2, 2, 2)),
        {"stride": 2},
    ),
    "max_pool3d": lambda: (F.max_pool3d, (_x(1, 2, 4, 4, 4, grad=True), 2), {}),
    "max_pool3d_with_indices": lambda: (
        F.max_pool3d_with_indices,
        (_x(1, 2, 4, 4, 4, grad=True), 2),
        {},
    ),
    "avg_pool3d": lambda: (F.avg_pool3d, (_x(1, 2, 4, 4, 4, grad=True), 2), {}),
    "adaptive_avg_pool3d": lambda: (F.adaptive_avg_pool3d, (_x(1, 2, 5, 4, 4, grad=True), 2), {}),
    "adaptive_max_pool3d": lambda: (F.adaptive_max_pool3d, (_x(1, 2, 5, 4, 4, grad=True), 2), {}),
    "adaptive_max_pool3d_with_indices": lambda: (
        F.adaptive_max_pool3d_with_indices,
        (_x(1, 2, 5, 4, 4, grad=True), 2),
        {},
    ),
    "lp_pool3d": lambda: (F.lp_pool3d, (_x(1, 2, 4, 4, 4, grad=True), 2, 2), {}),
    "max_unpool3d": lambda: (
        F.max_unpool3d,
        (_x(1, 1, 1, 1, 2, grad=True), jtensor.tensor([[[[[0, 7]]]]]), 2),
        {},
    ),
    "fractional_max_pool2d": lambda: (
        F.fractional_max_pool2d,
        (_x(1, 2, 6, 6, grad=True), 2),
        {"output_size": 3},
    ),
    "fractional_max_pool2d_with_indices": lambda: (
        F.fractional_max_pool2d_with_indices,
        (_x(1, 2, 6, 6, grad=True), 2),
        {"output_size": 3},
    ),
    "fractional_max_pool3d": lambda: (
        F.fractional_max_pool3d,
        (_x(1, 2, 4, 4, 4, grad=True), 2),
        {"output_size": 2, "_random_samples": jtensor.rand(1, 2, 3)},
    ),
    "fractional_max_pool3d_with_indices": lambda: (
        F.fractional_max_pool3d_with_indices,
        (_x(1, 2, 4, 4, 4, grad=True), 2),
        {"output_ratio": (0.5, 0.5, 0.5)},
    ),
    "ctc_loss": lambda: (
        F.ctc_loss,
        (_x(6, 2, 4, grad=True).log_softmax(-1), jtensor.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2]),
        {},
    ),
    "grid_sample": lambda: (
        F.grid_sample,
        (_x(1, 2, 4, 5, grad=True), _x(1, 3, 3, 2).tanh()),
        {"align_corners": False},
    ),
    "affine_grid": lambda: (
        F.affine_grid,
        (_x(2, 2, 3, grad=True), [2, 1, 4, 5]),
        {"align_corners": False},
    ),
    "linear_cross_entropy": lambda: (
        F.linear_cross_entropy,
        (_x(4, 3, grad=True), _x(5, 3), jtensor.tensor([0, 4, 2, 1])),
        {"options": jtensor.nn.LinearCrossEntropyOptions(batch_chunk_size=2)},
    ),
}
