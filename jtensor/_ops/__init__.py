"""Op implementations, one module per family.

Importing this package imports every module in it, and importing a module registers its ops
(functions on the package, methods on ``Tensor``): a new family is just a new file here.
"""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")
