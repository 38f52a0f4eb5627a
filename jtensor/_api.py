"""The public ops for the layers above them: ``from jtensor._api import ops as J``.

The autograd formulas, ``nn``, ``optim``, ``utils``, ``amp`` and ``widgets`` call ops through
their *public* entries (``J.where(...)``, ``J.zeros(...)``), as user code does: under
``create_graph=True`` a formula's ops are recorded and differentiated, and each call is one
trace event. Importing the package for that (``import jtensor as J``) would reach every layer,
the notebook ones included; ``ops`` reaches only the registry.

``ops`` is a live view of ``_registry.FUNCTIONS`` (its ``__dict__`` *is* that dict): for every
registered op, ``ops.<name>`` is the object ``jtensor.<name>`` is, routed entries included,
read at the speed of an attribute. What is not an op is imported from the module that defines
it (``_dtypes.int64``, ``_tensor.Tensor``, ``jtensor.linalg``, ``broadcast_shapes`` below).
"""

from ._layout import broadcast_shapes as _broadcast_shapes
from ._registry import FUNCTIONS
from ._size import Size


class _Ops:
    """A namespace whose attributes are the registered ops' public functions."""

    def __repr__(self):
        return f"<jtensor ops: {len(self.__dict__)} public functions>"


ops = _Ops()
ops.__dict__ = FUNCTIONS


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to, as a ``Size``."""
    return Size(
        _broadcast_shapes(*(tuple([s]) if isinstance(s, int) else tuple(s) for s in shapes))
    )
