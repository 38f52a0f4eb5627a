"""More activation modules: ``PReLU``, ``SELU``, ``CELU``, ``GLU``, ``Hardswish``,
``Hardsigmoid``, ``Mish``, ``Softsign``, ``Softshrink``, ``Hardshrink``, ``Tanhshrink``,
``Threshold``, ``Softmax2d``, ``RReLU``, with PyTorch's constructor arguments, attributes,
initialisation and reprs."""

from ..._api import ops as J
from ..._errors import TensorValueError
from .. import init
from .. import functional as F  # (looked up per call: a patched F.<name> is seen)
from ..parameter import Parameter
from .module import Module

__all__ = [
    "PReLU",
    "SELU",
    "CELU",
    "GLU",
    "Hardswish",
    "Hardsigmoid",
    "Mish",
    "Softsign",
    "Softshrink",
    "Hardshrink",
    "Tanhshrink",
    "Threshold",
    "Softmax2d",
    "RReLU",
]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only option is ``inplace``."""

    _function = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, type(self)._function)(input, inplace=self.inplace)


class PReLU(Module):
    """``x`` if ``x > 0`` else ``weight * x`` with a learnt slope: one shared
    (``num_parameters=1``) or one per channel, initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(J.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Fill the slope with ``init`` again."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class SELU(_Inplace):
    """Scaled exponential linear unit (self-normalising networks)."""

    _function = "selu"   # (F.selu, looked up per call)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class GLU(Module):
    """Gated linear unit along ``dim``: the first half times the sigmoid of the second."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``."""

    _function = "hardswish"   # (F.hardswish, looked up per call)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``."""

    _function = "hardsigmoid"   # (F.hardsigmoid, looked up per call)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""

    _function = "mish"   # (F.mish, looked up per call)


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input):
        return F.tanhshrink(input)


class _Shrink(Module):
    _function = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return getattr(F, type(self)._function)(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Softshrink(_Shrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""

    _function = "softshrink"   # (F.softshrink, looked up per call)


class Hardshrink(_Shrink):
    """``x`` where ``|x| > lambd``, else 0."""

    _function = "hardshrink"   # (F.hardshrink, looked up per call)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class Softmax2d(Module):
    """Softmax over the channels of each location of a ``(N, C, H, W)`` or ``(C, H, W)``
    input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise TensorValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return J.softmax(input, -3)


class RReLU(Module):
    """Randomized leaky ReLU: a random slope in ``[lower, upper]`` per non-positive element
    in training mode, their mean in eval mode."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"
