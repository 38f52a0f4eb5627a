"""``DistributedDataParallel``: gradients synchronised across processes through
``torch.distributed``'s process group. jtensor has no ``torch.distributed`` (no process
group can be initialised), so construction stops where PyTorch's stops in a program that
never called ``init_process_group``: after its argument checks, with its ``ValueError``."""

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Distributed data parallelism at the module level (one process per device, gradients
    all-reduced in the backward pass). It needs an initialised default process group
    (``torch.distributed.init_process_group``), which jtensor cannot create: without
    ``process_group`` it raises PyTorch's ``ValueError``; use ``DataParallel`` for several
    devices of one process.

    >>> import jtensor as torch
    >>> torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
    Traceback (most recent call last):
      ...
    ValueError: Default process group has not been initialized, please make sure to call
    init_process_group.
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=None,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params=False,
        bucket_cap_mb_list=None,
        batched_grad_copy=False,
        forward_sync_buffers=None,
    ):
        super().__init__()
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError(
                "delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at "
                "the same time."
            )
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if process_group is None and device_mesh is None:
            # PyTorch's _get_default_group() without init_process_group()
            raise ValueError(
                "Default process group has not been initialized, please make sure to call "
                "init_process_group."
            )
        raise RuntimeError(
            "DistributedDataParallel needs torch.distributed's process groups, which jtensor "
            "does not have; use torch.nn.DataParallel to train on several devices of one "
            "process."
        )
