"""``parallel_apply``: each replica called on its inputs with its device current.

PyTorch runs the replicas in threads; jtensor runs them one after the other in the calling
thread (the emulated devices queue their kernels on threads of their own, and the results
are the same), under the caller's grad mode and autocast state as PyTorch's threads are. An
exception is re-raised as PyTorch does: ``Caught <Type> in replica <i> on device <d>.``
followed by the original traceback."""

from ... import cuda
from ..._tensor import Tensor
from ...utils.data._utils.worker import ExceptionWrapper
from ._devices import _get_device_index

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in ``obj`` (a tensor, or nested lists, tuples and dicts)."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, Tensor):
                return result
    return None


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """``modules[i](*inputs[i], **kwargs_tup[i])`` on ``devices[i]`` for every i (an input
    that is not a list or tuple is the only argument); the outputs, in order."""
    for name, given in (("inputs", inputs), ("kwargs_tup", kwargs_tup), ("devices", devices)):
        if given is not None and len(modules) != len(given):
            raise AssertionError(
                f"The number of modules {len(modules)} is not equal to the number of {name} "
                f"{len(given)}"
            )
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    if devices is None:
        devices = [None] * len(modules)
    devices = [_get_device_index(x, True) for x in devices]
    if not cuda.is_available():
        raise AssertionError("No available accelerator found.")
    outputs = []
    for i, (module, input, kwargs, device) in enumerate(
        zip(modules, inputs, kwargs_tup, devices, strict=True)
    ):
        if device is None:
            t = get_a_var(input)
            if t is None:
                raise RuntimeError(
                    f"in replica {i}, no device was provided and no tensor input was found; "
                    "device cannot be resolved"
                )
            device = t.get_device()
        failure = None
        try:
            with cuda.device(device):
                args = input if isinstance(input, (list, tuple)) else (input,)
                outputs.append(module(*args, **kwargs))
        except Exception:  # noqa: BLE001 - re-raised with the replica named, as PyTorch
            failure = ExceptionWrapper(where=f"in replica {i} on device {device}")
        if failure is not None:
            failure.reraise()
    return outputs
