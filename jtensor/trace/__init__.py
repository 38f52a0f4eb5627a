"""``jtensor.trace``: record what tensor code does, and explain its surprises.

>>> import jtensor as torch
>>> x = torch.arange(6.)
>>> with torch.trace.record() as t:
...     y = x.view(2, 3)
>>> t.events[0].name, t.events[0].kind, t.name_of(t.events[0].outputs[0])
('view', 'view', 'y')

``jtensor.trace(x)`` itself is still PyTorch's op (the sum of the diagonal of a matrix):

>>> torch.trace(torch.eye(3))
tensor(3.)

Plain Python only (no IPython): the magics in ``jtensor.magics`` and the widgets in
``jtensor.widgets`` are built on this module. See ``result.Trace`` for the query API
(``recorder`` for how it is filled), ``events`` for the fields of events and snapshots,
``pitfalls`` for the analysis.
"""

import sys as _sys
import types as _types

from .describe import TensorInfo, describe
from .events import Event, TensorSnapshot
from .legend import legend
from .pitfalls import PITFALLS, Finding, analyze
from .recorder import active
from .report import SECTIONS
from .result import Trace, record

__all__ = ["record", "Trace", "Event", "TensorSnapshot", "Finding", "PITFALLS", "analyze",
           "describe", "TensorInfo", "active", "SECTIONS", "legend"]


class _TraceModule(_types.ModuleType):
    """NOTE: ``torch.trace(x)`` is also PyTorch's op (the sum of a matrix's diagonal), and
    this package takes its name on ``jtensor``. Calling the module runs that op, so
    ``jtensor.trace(x)`` keeps PyTorch's meaning while ``jtensor.trace.record()`` records."""

    def __call__(self, *args, **kwargs):
        from .._registry import OPS

        return OPS["trace"].entry(*args, **kwargs)


_sys.modules[__name__].__class__ = _TraceModule
