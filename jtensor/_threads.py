"""``torch.get_num_threads``/``set_num_threads`` and the inter-op pair.

jtensor computes through NumPy, whose BLAS picks its own threads, so these only keep the
numbers PyTorch programs set and read back, with PyTorch's defaults and argument errors:
intra-op threads default to ``OMP_NUM_THREADS`` when set, else the CPU count; the inter-op
count can be set once, before any other call reads it.
"""

import os

from ._errors import TensorRuntimeError, type_name

__all__ = [
    "get_num_interop_threads",
    "get_num_threads",
    "set_num_interop_threads",
    "set_num_threads",
]


def _default():
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        n = 0
    return n if n > 0 else (os.cpu_count() or 1)


_state = {"intra": None, "interop": None, "interop_set": False}


def _check(name, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TensorRuntimeError(f"{name} expects an int, but got {type_name(n)}")
    if n <= 0:
        raise TensorRuntimeError(f"{name} expects a positive integer")


def get_num_threads():
    """The number of threads used for intra-op parallelism."""
    if _state["intra"] is None:
        _state["intra"] = _default()
    return _state["intra"]


def set_num_threads(int):  # noqa: A002 (PyTorch's parameter name)
    """Sets the number of threads used for intra-op parallelism."""
    _check("set_num_threads", int)
    _state["intra"] = int


def get_num_interop_threads():
    """The number of threads used for inter-op parallelism."""
    if _state["interop"] is None:
        _state["interop"] = os.cpu_count() or 1
    return _state["interop"]


def set_num_interop_threads(int):  # noqa: A002
    """Sets the inter-op thread count; only once, as in PyTorch."""
    _check("set_num_interop_threads", int)
    if _state["interop_set"]:
        raise TensorRuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _state["interop"] = int
    _state["interop_set"] = True
