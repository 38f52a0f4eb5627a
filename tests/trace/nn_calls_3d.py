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
}
