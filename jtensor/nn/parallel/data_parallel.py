"""``DataParallel`` and ``data_parallel``: one module run on a batch split over CUDA devices.

As PyTorch's: without CUDA devices ``DataParallel`` only holds the module (as ``module``,
so ``state_dict`` keys start with ``module.``; ``device_ids == []``, and no ``dim`` or
``output_device`` attribute) and calls it. With CUDA it moves the module to
``device_ids[0]`` when that is its only device and, at each call, scatters the inputs
along ``dim``: one device calls the module on its chunk directly; several replicate the
module, run the replicas (``parallel_apply``) and gather the outputs on
``output_device``. ``data_parallel`` is the same step as a function (it needs CUDA)."""

import operator
import warnings
from itertools import chain
from typing import Generic, TypeVar

from ... import cuda
from ..._device import device as _device
from ...autograd.grad_mode import is_grad_enabled
from ..modules.module import Module
from ._devices import (
    _get_all_device_indices,
    _get_available_device_type,
    _get_device_index,
)
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]

T = TypeVar("T", bound=Module)

_IMBALANCE = """
    There is an imbalance between your GPUs. You may want to exclude GPU {} which
    has less than 75% of the memory or cores of GPU {}. You can do so by setting
    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES
    environment variable."""


def _check_balance(device_ids):
    """PyTorch's warning when one GPU has less than 75% of another's memory or cores."""
    device_ids = [_get_device_index(x, True) for x in device_ids]
    props = [cuda.get_device_properties(i) for i in device_ids]

    def warn_imbalance(get_prop):
        values = [get_prop(p) for p in props]
        if None in values:
            return False
        min_pos, min_val = min(enumerate(values), key=operator.itemgetter(1))
        max_pos, max_val = max(enumerate(values), key=operator.itemgetter(1))
        if min_val / max_val < 0.75:
            warnings.warn(_IMBALANCE.format(device_ids[min_pos], device_ids[max_pos]), stacklevel=4)
            return True
        return False

    if warn_imbalance(lambda p: p.total_memory):
        return
    warn_imbalance(lambda p: getattr(p, "multi_processor_count", None))


def _devices(device_ids, output_device):
    """``(device_ids, output_device)`` as indices; every CUDA device and the first one by
    default."""
    if device_ids is None:
        device_ids = _get_all_device_indices()
    if device_ids is None:
        raise RuntimeError("no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    return [_get_device_index(x, True) for x in device_ids], _get_device_index(output_device, True)


def _check_placement(module, src_device):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device:
            raise RuntimeError(
                "module must have its parameters and buffers on device "
                f"{src_device} (device_ids[0]) but found one of them on device: {t.device}"
            )


def _run(module, inputs, kwargs, device_ids, steps):
    """One data-parallel call of ``module`` (its parameters on ``device_ids[0]``); ``steps``
    are the ``(scatter, replicate, parallel_apply, gather)`` to use (a ``DataParallel``'s
    own methods, which a subclass may override)."""
    scatter, replicate_on, apply, gather_on = steps
    inputs, kwargs = scatter(inputs, kwargs, device_ids)
    # A call without inputs still runs, once, on the first device.
    if not inputs and not kwargs:
        inputs, kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **kwargs[0])
    replicas = replicate_on(module, device_ids[: len(inputs)])
    return gather_on(apply(replicas, inputs, kwargs))


class DataParallel(Module, Generic[T]):
    """Implements data parallelism at the module level: the input is split along ``dim``
    over ``device_ids`` (default: every CUDA device), the module replicated on each, and the
    outputs gathered on ``output_device`` (default: ``device_ids[0]``); gradients add up in
    the module's own parameters. Without CUDA devices the module is simply called.

    >>> import jtensor as torch
    >>> net = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    >>> type(net.module).__name__, net(torch.ones(4, 3)).shape
    ('Linear', torch.Size([4, 2]))
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        device_type = _get_available_device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        self.dim = dim
        self.module = module
        self.device_ids, self.output_device = _devices(device_ids, output_device)
        self.src_device_obj = _device(device_type, self.device_ids[0])
        _check_balance(self.device_ids)
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        """The module on the inputs (scattered, replicated and gathered over the devices)."""
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_placement(self.module, self.src_device_obj)
        steps = (
            self.scatter,
            self.replicate,
            self.parallel_apply,
            lambda outputs: self.gather(outputs, self.output_device),
        )
        return _run(self.module, inputs, kwargs, self.device_ids, steps)

    def replicate(self, module, device_ids):
        """The module's replicas on ``device_ids``."""
        return replicate(module, device_ids, not is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        """The positional and keyword arguments split over ``device_ids`` along ``dim``."""
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        """Each replica on its inputs."""
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[: len(replicas)])

    def gather(self, outputs, output_device):
        """The replicas' outputs joined along ``dim`` on ``output_device``."""
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Evaluate ``module(*inputs, **module_kwargs)`` in parallel across the GPUs in
    ``device_ids`` (``DataParallel``'s step as a function; the module must be on
    ``device_ids[0]``). Needs CUDA devices, as PyTorch's."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _get_available_device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    device_ids, output_device = _devices(device_ids, output_device)
    _check_placement(module, _device(device_type, device_ids[0]))
    steps = (
        lambda i, k, ids: scatter_kwargs(i, k, ids, dim),
        replicate,
        lambda replicas, i, k: parallel_apply(replicas, i, k, device_ids[: len(replicas)]),
        lambda outputs: gather(outputs, output_device, dim),
    )
    return _run(module, inputs, module_kwargs, device_ids, steps)
