"""``torch.nn.parallel``: data parallelism over CUDA devices, as PyTorch's CPU build offers it.

* ``DataParallel(module, device_ids=None, output_device=None, dim=0)`` and the functional
  ``data_parallel``: without CUDA devices PyTorch's ``DataParallel`` only holds the module and
  calls it (``device_ids == []``; ``state_dict`` keys start with ``module.``), and
  ``data_parallel`` raises; with one device the module moves there and is called on the
  inputs moved there; with several, the inputs are scattered along ``dim``, the module is
  replicated on each device, the replicas run, and the outputs are gathered on
  ``output_device``, all differentiable (gradients reach the module's own parameters).
  jtensor's emulated CUDA (``jtensor.cuda.emulate(device_count=N)``) has as many devices
  as asked for, so every case runs without a GPU.
* ``scatter``/``gather`` (``scatter_gather``), ``replicate``, ``parallel_apply``: the steps.
* ``DistributedDataParallel``: needs ``torch.distributed``'s process group, which jtensor
  does not have: it raises PyTorch's error for a program that never initialised one.

>>> import jtensor as torch
>>> model = torch.nn.DataParallel(torch.nn.Linear(3, 2))
>>> list(model.state_dict())
['module.weight', 'module.bias']
"""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter

__all__ = [
    "replicate",
    "scatter",
    "parallel_apply",
    "gather",
    "data_parallel",
    "DataParallel",
    "DistributedDataParallel",
]
