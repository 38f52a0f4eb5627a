"""``jtensor.nn``: modules, parameters, ``functional``, ``init``, ``utils`` and ``parallel``."""

from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import parallel  # noqa: F401 (nn.parallel.data_parallel, nn.DataParallel)
from . import utils  # noqa: F401 (nn.utils.clip_grad_norm_, nn.utils.rnn)
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .modules.module import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: F401
from .parallel import DataParallel  # noqa: F401

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "functional"] + list(_modules_all)
