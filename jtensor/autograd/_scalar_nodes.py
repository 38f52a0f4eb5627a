"""The nodes PyTorch's C++ functions record for arithmetic with a number.

In Python, ``x + 1`` and ``torch.add(x, 1)`` wrap the number in a tensor and record
``AddBackward0``; the C++ functions behind ``nn.functional`` (``pairwise_distance``,
``rms_norm``, the margin losses...) call the ``.Scalar`` overloads instead, whose nodes
(``AddBackward1``, ``MulBackward1``, ``DivBackward1``) have one edge and no ``(None, 0)``.
These Functions give a composed functional the graph PyTorch's shows; a number minus a
tensor in that C++ code is ``empty_like(t).fill_(number).sub_(t)`` (``SubBackward0``, whose
first edge is None), which ``number_minus`` writes the same way.
"""

from .._api import ops as J
from .function import Function


class AddScalar(Function):
    """``input + number`` as PyTorch's ``add.Scalar`` (``AddBackward1``)."""

    _node_name = "AddBackward1"

    @staticmethod
    def forward(ctx, input, number):
        return input + number

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class SubScalar(AddScalar):
    """``input - number`` as PyTorch's ``sub.Scalar`` (``SubBackward1``; the gradient passes
    unchanged, as ``AddScalar``'s)."""

    _node_name = "SubBackward1"

    @staticmethod
    def forward(ctx, input, number):
        return input - number


class MulScalar(Function):
    """``input * number`` as PyTorch's ``mul.Scalar`` (``MulBackward1``)."""

    _node_name = "MulBackward1"

    @staticmethod
    def forward(ctx, input, number):
        ctx.number = number
        return input * number

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.number, None


class DivScalar(Function):
    """``input / number`` as PyTorch's ``div.Scalar`` (``DivBackward1``)."""

    _node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, input, number):
        ctx.number = number
        return input / number

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.number, None


def number_minus(number, t):
    """``number - t`` as PyTorch's C++ ``operator-(Scalar, Tensor)`` computes it: a tensor
    filled with ``number``, then ``sub_(t)`` (``SubBackward0``)."""
    return J.empty_like(t).fill_(number).sub_(t)
