"""``torch.distributed``: jtensor runs in one process and has no process-group backend.

``is_available()`` is False, as in a PyTorch build without distributed support, so code that
guards with ``dist.is_available() and dist.is_initialized()`` (checkpoint helpers, logging
of the rank, a ``DistributedSampler`` left unused) takes its single-process path. Nothing is
ever initialised: ``is_initialized()`` is False, the calls that need the default process
group (the rank, the world size, the collectives) raise PyTorch's error for an
uninitialised one, and ``init_process_group`` says that jtensor has no backend to start.
``rpc`` names its remote-reference class, so ``isinstance(x, torch.distributed.rpc.RRef)``
is a question with an answer (always no: no RRef can be made).
"""

import enum

from .._errors import TensorRuntimeError, TensorValueError
from . import rpc

__all__ = [
    "ReduceOp",
    "all_gather",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "gather",
    "get_backend",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_initialized",
    "reduce",
    "rpc",
    "scatter",
]

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call "
    "init_process_group."
)


class ReduceOp(enum.Enum):
    """The reductions of the collectives (``dist.ReduceOp.SUM``...)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


def is_available():
    """False: jtensor has no process-group backend (no gloo, no NCCL)."""
    return False


def is_initialized():
    """Whether the default process group is initialised: never, in jtensor."""
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Refused: jtensor runs in one process, with no backend to join a group through."""
    raise TensorRuntimeError(
        f"init_process_group(backend={backend!r}, world_size={world_size}, rank={rank}): "
        "jtensor has no distributed backend (torch.distributed.is_available() is False); "
        "run the program as a single process")


def _needs_a_group(name, doc):
    def call(*args, **kwargs):
        raise TensorValueError(_NOT_INITIALIZED)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{doc} Raises PyTorch's error: no process group is ever initialised."
    return call


get_rank = _needs_a_group("get_rank", "This process's rank in the default group.")
get_world_size = _needs_a_group("get_world_size", "The number of processes in the group.")
get_backend = _needs_a_group("get_backend", "The default group's backend.")
destroy_process_group = _needs_a_group("destroy_process_group", "Ends the default group.")
barrier = _needs_a_group("barrier", "Waits for every process of the group.")
all_reduce = _needs_a_group("all_reduce", "Reduces a tensor across the group, in place.")
reduce = _needs_a_group("reduce", "Reduces a tensor onto one rank.")
broadcast = _needs_a_group("broadcast", "Sends one rank's tensor to every rank.")
all_gather = _needs_a_group("all_gather", "Gathers every rank's tensor on every rank.")
gather = _needs_a_group("gather", "Gathers every rank's tensor on one rank.")
scatter = _needs_a_group("scatter", "Sends one piece of a list to each rank.")
