"""``torch.multiprocessing``: Python's ``multiprocessing`` with tensors sent through shared
memory (PyTorch's API).

Everything of ``multiprocessing`` is here (``Process``, ``Queue``, ``Pool``, ``get_context``,
``set_start_method``...); importing this module registers reducers with the pickler that
every start method's queues, pipes and process arguments use, so that a CPU tensor sent to
another process is moved to shared memory and arrives as a view of the same memory (see
``jtensor.multiprocessing.reductions``), as in PyTorch. ``spawn(fn, args, nprocs)`` runs
``fn(i, *args)`` in ``nprocs`` processes and re-raises a child's exception in the parent.
``Module.share_memory()`` before forking workers gives them the parent's parameters to
update in place (Hogwild).

>>> import jtensor.multiprocessing as mp
>>> mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
True
"""

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403

from .reductions import init_reductions
from .spawn import (  # noqa: F401 (re-exported, as PyTorch; not in its __all__)
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"]
__all__ += multiprocessing.__all__

# Explicit names (``from multiprocessing import *`` binds them too; listed for readers and
# linters): the default context's functions, as PyTorch's module has them.
Process = multiprocessing.Process
Queue = multiprocessing.Queue
SimpleQueue = multiprocessing.SimpleQueue
JoinableQueue = multiprocessing.JoinableQueue
Pool = multiprocessing.Pool
Pipe = multiprocessing.Pipe
Manager = multiprocessing.Manager
get_context = multiprocessing.get_context
set_start_method = multiprocessing.set_start_method
get_start_method = multiprocessing.get_start_method
get_all_start_methods = multiprocessing.get_all_start_methods
cpu_count = multiprocessing.cpu_count
current_process = multiprocessing.current_process

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Choose how CPU tensors are sent to other processes: 'file_descriptor' (a duplicated
    descriptor of the shared block; Linux's default) or 'file_system' (the block's name).
    One of ``get_all_sharing_strategies()``; anything else fails as in PyTorch."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sending CPU tensors ('file_descriptor' by default on
    Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The strategies this platform supports (a set)."""
    return _all_sharing_strategies


init_reductions()

del sys
