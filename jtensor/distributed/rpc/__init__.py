"""``torch.distributed.rpc``: remote calls between processes, which jtensor (one process,
no backend) never makes. ``RRef`` exists so that code asking whether a value is a remote
reference gets an answer (``isinstance`` is always False); making one raises PyTorch's
error for an RPC framework that was not initialised."""

from . import api
from .api import RRef

__all__ = ["RRef", "api", "is_available"]


def is_available():
    """False: there is no RPC agent in jtensor."""
    return False
