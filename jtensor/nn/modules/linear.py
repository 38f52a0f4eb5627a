"""``Linear`` and ``Bilinear`` layers."""

import math

from ..._ops.creation import empty
from .. import init

# Called through the module (``_F.linear``): autocast swaps the functional forms there.
from .. import functional as _F  # (looked up per call: a patched F.<name> is seen)
from ..parameter import Parameter
from ._params import _register_bias
from .module import Module

__all__ = ["Bilinear", "Linear"]


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` ``(out_features, in_features)``.

    Initialised as PyTorch: ``kaiming_uniform_(weight, a=sqrt(5))`` (U(-1/sqrt(in),
    1/sqrt(in))) and ``bias`` from U(-1/sqrt(in_features), 1/sqrt(in_features)).

    >>> import jtensor as torch
    >>> torch.nn.Linear(3, 2)
    Linear(in_features=3, out_features=2, bias=True)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        _register_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw ``weight`` and ``bias`` as at construction."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj``: it shows in
    ``repr``, and a checkpoint of a whole model names it (``torch.load``'s
    ``safe_globals`` list lists it as ``nn.modules.linear.NonDynamicallyQuantizableLinear``).
    Not in ``__all__``, as in PyTorch."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``weight`` ``(out_features, in1_features, in2_features)``;
    weight and bias drawn from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      device=device, dtype=dtype))
        _register_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw ``weight`` and ``bias`` as at construction."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return _F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
