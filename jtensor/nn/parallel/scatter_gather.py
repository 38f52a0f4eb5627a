"""``scatter``/``scatter_kwargs``/``gather``: a batch cut into one chunk per device and the
results joined again, through nested tuples, lists, dicts and named tuples (other objects
are shared by every device). Tensors go through the ``Scatter``/``Gather`` Functions
(``_functions.py``), so gradients flow back to where the batch came from."""

from ..._tensor import Tensor
from ._functions import Gather, Scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj):
    # A type made by collections.namedtuple or typing.NamedTuple.
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs, target_gpus, dim=0):
    """Slice tensors into approximately equal chunks and distribute them across the given
    GPUs; other objects are referenced once per GPU. A tensor gives a tuple of chunks, a
    collection a list of collections (one per GPU)."""

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return Scatter.apply(target_gpus, None, dim, obj)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj), strict=False))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()), strict=False)]
        return [obj for _ in target_gpus]

    # The recursive closure refers to itself: clear it afterwards (no reference cycle).
    try:
        return scatter_map(inputs)
    finally:
        scatter_map = None


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` of the positional and the keyword arguments, padded to the same number
    of devices (PyTorch's padding, its comparison with ``len(inputs)`` included)."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Gather the per-device results ``outputs`` (tensors, or the same nesting of tuples,
    lists, dicts and named tuples on every device; None stays None) on ``target_device``,
    tensors joined along ``dim``."""

    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return Gather.apply(target_device, dim, *outputs)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs, strict=True)))
        return type(out)(map(gather_map, zip(*outputs, strict=True)))

    try:
        return gather_map(outputs)
    finally:
        gather_map = None
