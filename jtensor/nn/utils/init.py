"""``torch.nn.utils.init.skip_init``: build a module without spending time (or random
numbers) on its initial values."""

import inspect

from ...random import get_rng_state, set_rng_state
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters are left to be set by the caller.

    PyTorch builds it on the meta device and allocates empty storage; here it is built on
    its device and the random generator's state is restored afterwards, so the program's
    later random numbers are those PyTorch gives (the parameter values are unspecified in
    both)."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    state = get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
