"""Every op's derivative, by family (``formulas/<family>.py``), registered on its OpDef.

Importing this package loads every module in it whose name does not start with ``_``; then
each in-place op without a formula of its own borrows its out-of-place op's formula (``mul_``
uses ``mul``'s: the node is ``MulBackward0`` either way, as in PyTorch).
"""

import importlib
import pkgutil

from ._core import finalize

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")

finalize()
