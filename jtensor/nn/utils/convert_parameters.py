"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one flat vector
and back (second-order optimizers, evolution strategies, hypernetworks)."""

from ..._api import ops as J
from ..._errors import TensorTypeError, type_name
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    """The device index of ``param`` (-1 for the CPU); two different devices are refused
    with PyTorch's ``TypeError``."""
    device = param.get_device() if param.device.type == "cuda" else -1
    if old_param_device is not None and device != old_param_device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's values, flattened in order (differentiable
    with respect to them)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return J.cat(vec)


def vector_to_parameters(vec, parameters):
    """Give each parameter, in order, the next ``numel`` values of ``vec`` (its ``.data``
    becomes a view of ``vec``)."""
    if not isinstance(vec, Tensor):
        raise TensorTypeError(f"expected torch.Tensor, but got: {type_name(vec)}")
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param
