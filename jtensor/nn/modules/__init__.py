"""Every layer: each module in this package lists its public classes in ``__all__``; all are
imported here (and re-exported by ``jtensor.nn``)."""

import importlib
import pkgutil

from .module import Module

__all__ = ["Module"]
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("_") or _info.name == "module":
        continue
    _mod = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_mod, "__all__", ()):
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
