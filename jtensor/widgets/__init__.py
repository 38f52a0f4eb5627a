"""Pictures of tensors for notebooks: ``jtensor.widgets``.

Each visual is first a deterministic HTML/SVG snapshot (``_repr_html_``: same state, same
bytes; no ids, addresses or timings; every user string escaped), so it shows in nbviewer, HTML
exports and GitHub and compares under nbval. In a running kernel with ipywidgets the display
also carries an interactive widget (``.widget``): controls over the same picture.

Importing this package imports neither IPython nor ipywidgets; the interactive layer imports
ipywidgets when it is first built; ``TraceView`` imports matplotlib when it draws its plot.
"""

from .broadcast import BroadcastView
from .grad_graph import GradGraph
from .storage_map import StorageMap
from .strides import StrideExplorer
from .summary import TensorSummary, summary
from .timeline import DeviceTimeline
from .trace_view import TraceView

__all__ = ["StorageMap", "StrideExplorer", "GradGraph", "BroadcastView", "TraceView",
           "DeviceTimeline", "summary", "TensorSummary"]
