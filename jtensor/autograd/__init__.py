"""``jtensor.autograd``: PyTorch's reverse-mode autograd.

``graph`` records one node per differentiable op call (only when an input requires grad and
grad mode is on); ``engine`` runs the nodes backwards; ``formulas/`` holds each op's
derivative, written in jtensor ops so that ``create_graph=True`` differentiates again.
"""

from . import graph as _graph
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from ._backward import backward, grad
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from . import forward_ad  # noqa: F401 (torch.autograd.forward_ad)
from . import functional  # noqa: F401 (torch.autograd.functional: jacobian, hessian...)
from . import tensor_methods as _tensor_methods  # noqa: F401 (attaches Tensor.backward...)
from .variable import Variable  # noqa: F401 (torch.autograd.Variable, legacy)
from . import profiler, profiler_util  # noqa: F401 (torch.autograd.profiler)
from .profiler_util import DeviceType, ProfilerActivity  # noqa: F401

_graph._install()

graph = _graph

__all__ = ["Function", "FunctionCtx", "backward", "detect_anomaly", "enable_grad", "grad",
           "gradcheck", "gradgradcheck", "inference_mode", "is_anomaly_enabled",
           "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "once_differentiable",
           "set_detect_anomaly", "set_grad_enabled", "Variable"]
