"""``torch.profiler``: time tensor code op by op (the ops, the backward nodes and the
``record_function`` ranges), print PyTorch's table, export a Chrome trace.

The recording itself is ``jtensor.autograd.profiler``'s; ``profile`` here adds the
``schedule``/``step()`` machinery of PyTorch's newer API.
"""

from .profiler import *  # noqa: F403 (its __all__ is torch.profiler's)
from .profiler import __all__  # noqa: F401
