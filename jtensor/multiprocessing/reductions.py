"""How ``jtensor.multiprocessing`` pickles tensors for other processes (PyTorch's
``torch.multiprocessing.reductions``).

A CPU tensor (or ``nn.Parameter``, ``nn.Buffer``) sent through a ``Queue``, a ``Pipe`` or
the arguments of a process started with 'spawn' or 'forkserver' is not copied: its storage
is moved to shared memory in the sender (``share_memory_``) and the receiver maps the same
block, so in-place writes on either side are seen by both. The tensor keeps its class,
shape, strides, offset, dtype and ``requires_grad``; tensors that share a storage in the
sender share one in the receiver (within one message, and across messages: a block already
mapped in the receiver, or created there, is reused).

Two sharing strategies, as in PyTorch (``set_sharing_strategy``): 'file_descriptor' (the
default on Linux) passes a duplicate of the block's descriptor, so the block stays reachable
even when the sender frees the tensor before the receiver gets it; 'file_system' passes the
block's name, which the receiver opens by name (the sender must keep the tensor alive until
then). Tensors on other devices (jtensor's emulated CUDA, meta) are pickled as by ``pickle``.
"""

import multiprocessing
import multiprocessing.reduction
import os

from .. import _surface
from .._errors import TensorRuntimeError
from .._storage import Storage
from .._tensor import Tensor
from ..nn.parameter import Buffer, Parameter

try:
    # Imported now, as PyTorch does: a forked child must not inherit it half-initialised
    # (a Queue's feeder thread may be pickling a descriptor while the fork happens).
    import multiprocessing.resource_sharer  # noqa: F401
except ImportError:  # pragma: no cover - platforms without it
    pass

__all__ = ["init_reductions", "rebuild_tensor", "reduce_storage", "reduce_tensor"]

_NON_LEAF = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
    "not support crossing process boundaries.  If you just want to transfer the data, call "
    "detach() on the tensor before serializing (e.g., putting it on the queue)."
)


def reduce_tensor(tensor):
    """``(rebuild_tensor, args)`` for a tensor: its storage (pickled by ``reduce_storage``,
    once per message however many tensors share it) and its metadata."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise TensorRuntimeError(_NON_LEAF)
    if tensor._storage.device.type != "cpu":
        return tensor.__reduce_ex__(multiprocessing.reduction.ForkingPickler.protocol())
    extra = {"persistent": tensor.persistent} if isinstance(tensor, Buffer) else None
    metadata = (
        tensor._offset,
        tuple(tensor._shape),
        tuple(tensor._stride),
        tensor._dtype,
        tensor._requires_grad,
    )
    return (rebuild_tensor, (type(tensor), tensor._storage, metadata, extra))


def rebuild_tensor(cls, storage, metadata, extra=None):
    """The receiving end of ``reduce_tensor``: a leaf tensor of class ``cls`` over
    ``storage``."""
    offset, shape, stride, dtype, requires_grad = metadata
    t = Tensor._make(storage, shape, stride, offset, dtype)
    if issubclass(cls, Parameter):
        # (through the constructor: it checks that an integer tensor does not require grad)
        t = cls(t, requires_grad=requires_grad)
    elif issubclass(cls, Buffer):
        t = cls(t, **(extra or {}))
    elif requires_grad:
        t.requires_grad_(True)
    return t


def reduce_storage(storage):
    """``(rebuild, args)`` for a CPU storage: moved to shared memory, then sent by descriptor
    or by name (the sharing strategy)."""
    from . import get_sharing_strategy

    kind = storage.device.type
    if kind != "cpu":
        raise TensorRuntimeError(
            f"Cannot pickle {kind.upper() if kind == 'cuda' else kind} storage; try pickling "
            f"a {kind.upper() if kind == 'cuda' else kind} tensor instead"
        )
    block = _surface._share_storage(storage)
    if block is None:
        return (rebuild_storage_empty, ())
    if get_sharing_strategy() == "file_system" or os.name == "nt":
        return (rebuild_storage_filename, (block.name, block.nbytes))
    handle = multiprocessing.reduction.DupFd(_surface._block_fd(block))
    return (rebuild_storage_fd, (handle, block.name, block.nbytes))


def rebuild_storage_fd(handle, name, nbytes):
    """A storage over the block whose descriptor ``handle`` carries (kept open while the
    storage lives)."""
    return _surface._storage_from_block(name, nbytes, fd=handle.detach())


def rebuild_storage_filename(name, nbytes):
    """A storage over the block named ``name``."""
    return _surface._storage_from_block(name, nbytes)


def rebuild_storage_empty():
    from .._device import CPU
    from .._ops.creation import empty

    return Storage(empty(0)._storage._data, CPU)


def init_reductions():
    """Register the reducers with ``multiprocessing``'s pickler (every start method's
    queues, pipes and process arguments use it). Idempotent."""
    from .._tensor import DENSE_CLASSES

    register = multiprocessing.reduction.ForkingPickler.register
    register(Storage, reduce_storage)
    for cls in {Tensor, Parameter, Buffer, *DENSE_CLASSES}:
        register(cls, reduce_tensor)
