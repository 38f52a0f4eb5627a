"""``jtensor.nn.functional``: activations, losses, linear/conv/pooling, normalization,
dropout, embedding, padding... Each family lives in ``jtensor/nn/_functional/`` and lists its
public names in ``__all__``; they are all gathered here."""

import importlib as _importlib
import pkgutil as _pkgutil

from . import _functional

__all__ = []
for _info in sorted(_pkgutil.iter_modules(_functional.__path__), key=lambda i: i.name):
    if _info.name.startswith("_"):
        continue
    _mod = _importlib.import_module(f"{_functional.__name__}.{_info.name}")
    for _name in getattr(_mod, "__all__", ()):
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
