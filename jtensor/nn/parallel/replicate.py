"""``replicate``: copies of a module on several CUDA devices for one ``DataParallel`` step,
as PyTorch makes them: each replica is a shallow copy of every submodule whose parameters
are (non-leaf) copies of the original's on its device, made by ``Broadcast``, an autograd
Function whose backward adds the replicas' gradients up on the original's device (so they
reach the original parameters' ``.grad``). The first device's replica reads the original
storages (its buffers are the original's: running statistics update there)."""

from ._devices import _cuda, _get_device_index
from ._functions import Broadcast

__all__ = ["replicate"]


def _broadcast(tensors, devices, detach):
    """``tensors`` on each of ``devices``: one list per device."""
    if not tensors:
        return []
    if detach:
        return [
            [t.detach() if t.device == _cuda(d) else t.detach().to(_cuda(d)) for t in tensors]
            for d in devices
        ]
    copies = Broadcast.apply(devices, *tensors)
    n = len(tensors)
    return [list(copies[i : i + n]) for i in range(0, len(copies), n)]


def _replica(module):
    """PyTorch's ``Module._replicate_for_data_parallel``: a shallow copy without parameters
    of its own (the replica reads its device's copies as plain attributes)."""
    replica = module.__new__(type(module))
    replica.__dict__ = module.__dict__.copy()
    setattr_ = object.__setattr__
    setattr_(replica, "_parameters", {})
    setattr_(replica, "_buffers", replica._buffers.copy())
    setattr_(replica, "_modules", replica._modules.copy())
    setattr_(replica, "_is_replica", True)
    return replica


def replicate(network, devices, detach=False):
    """Replicas of ``network`` on ``devices`` (``detach``: parameters copied without
    autograd, as ``DataParallel`` does under ``no_grad``)."""
    if not devices:
        return []
    devices = [_get_device_index(x, True) for x in devices]
    params = list(network.parameters())
    param_copies = _broadcast(params, devices, detach)
    param_index = {id(p): i for i, p in enumerate(params)}
    buffers = list(network.buffers())
    with_grad = [b for b in buffers if b.requires_grad and not detach]
    without = [b for b in buffers if not (b.requires_grad and not detach)]
    buffer_copies = {}
    for group, copies in (
        (with_grad, _broadcast(with_grad, devices, detach)),
        (without, _broadcast(without, devices, True)),
    ):
        for i, b in enumerate(group):
            buffer_copies[id(b)] = [copies[j][i] for j in range(len(devices))]

    modules = list(network.modules())
    index = {id(m): i for i, m in enumerate(modules)}
    replicas = [[_replica(m) for m in modules] for _ in devices]
    for i, module in enumerate(modules):
        for j, copies in enumerate(replicas):
            replica = copies[i]
            for key, child in module._modules.items():
                if child is None:
                    replica._modules[key] = None
                else:
                    setattr(replica, key, copies[index[id(child)]])
            for key, param in module._parameters.items():
                if param is None:
                    replica._parameters[key] = None
                else:
                    setattr(replica, key, param_copies[j][param_index[id(param)]])
            for key, buf in module._buffers.items():
                if buf is None:
                    replica._buffers[key] = None
                else:
                    setattr(replica, key, buffer_copies[id(buf)][j])
    return [copies[0] for copies in replicas]
