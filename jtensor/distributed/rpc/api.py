"""``torch.distributed.rpc.api``: where PyTorch defines ``RRef``."""

from ..._errors import TensorRuntimeError

__all__ = ["RRef"]


class RRef:
    """A reference to a value owned by another process. jtensor never initialises an RPC
    agent, so no ``RRef`` can be made: ``isinstance(x, RRef)`` is False for every value."""

    def __init__(self, value=None, type_hint=None):
        raise TensorRuntimeError(
            "Current RPC agent is not set! Did you initialize the RPC framework (e.g. by "
            "calling `rpc.init_rpc`)?")
