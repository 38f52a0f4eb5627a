"""Autocast as a step of every op's entry point (PyTorch registers its Autocast kernels in
the dispatcher; this is jtensor's counterpart).

The op lists are PyTorch's (``POLICIES``). ``_argparse.make_entry`` gives every op named in
them one extra test, ``_autocast.active`` (how many enabled regions are open, in any
thread): while it is 0 nothing else happens. Inside a region, ``wants`` reads the calling
thread's state and ``call`` casts the call's floating tensors as the op's policy says, then
runs the entry again with ``inside`` set, so the ops it uses internally are not cast again
(as PyTorch excludes the autocast key while running one). ``jtensor.amp.autocast`` opens
and closes regions (``enter``/``leave``); the autograd engine runs ``backward()`` with
autocast off (``suspended``), as PyTorch's does.

Casts are differentiable (``ToCopyBackward0``, as in PyTorch); with ``cache_enabled`` the
low-precision copy of a float32 leaf that requires grad (a weight) is made once per region.
"""

import contextlib
import threading

from . import _dtypes
from ._errors import TensorValueError

_LOWER = ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "conv1d", "conv2d")
_FP32_LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
                "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                "kl_div")
POLICIES = {
    "cpu": {"lower": _LOWER, "fp32": _FP32_LOSSES + ("prod", "cdist")},
    "cuda": {"lower": _LOWER + ("chain_matmul",),
             "fp32": _FP32_LOSSES + ("prod", "cdist", "softmax", "log_softmax", "layer_norm",
                                     "group_norm", "norm", "sum", "cumsum", "cumprod",
                                     "exp", "log", "log10", "log2", "log1p", "pow",
                                     "reciprocal", "rsqrt", "acos", "asin", "cosh", "sinh",
                                     "tan", "erfinv", "expm1", "dist")},
}
# Op name -> policy kind, per device type; and every op autocast may touch.
_KIND = {device: {name: kind for kind, names in lists.items() for name in names}
         for device, lists in POLICIES.items()}
ELIGIBLE = frozenset(name for lists in POLICIES.values() for names in lists.values()
                     for name in names)

active = 0                # enabled regions open now, in all threads (read by every entry)
_lock = threading.Lock()


class _State(threading.local):
    depth = 0          # enabled autocast regions entered by this thread
    inside = False     # running an autocast op (its inner ops are not cast again)
    device = None      # device type of the innermost enabled region
    dtype = None
    cache = None       # id(leaf) -> (leaf, version, cast copy) while caching


state = _State()


def enter():
    """An enabled region opens (the caller sets this thread's ``state``)."""
    global active
    with _lock:
        active += 1


def leave():
    global active
    with _lock:
        active -= 1


@contextlib.contextmanager
def suspended():
    """Run the block with autocast off in this thread (``backward()``: the formulas call
    public ops, which must not be cast)."""
    st = state
    depth = st.depth
    st.depth = 0
    try:
        yield
    finally:
        st.depth = depth


def wants(name):
    """The policy kind of op ``name`` for this thread now (None: run it unchanged)."""
    st = state
    if st.depth == 0 or st.inside:
        return None
    return _KIND[st.device].get(name)


def call(kind, entry, args, kwargs):
    """Run ``entry(*args, **kwargs)`` (an op's entry point) with its arguments cast by the
    policy ``kind`` (``wants``' answer), autocast off for the ops inside."""
    args = tuple(_cast_arg(kind, a) for a in args)
    kwargs = {k: _cast_arg(kind, v) for k, v in kwargs.items()}
    st = state
    st.inside = True
    try:
        return entry(*args, **kwargs)
    finally:
        st.inside = False


def _cast_one(t, dtype):
    if t._dtype == dtype:
        return t
    cache = state.cache
    if cache is not None and t._requires_grad and t.is_leaf:
        hit = cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == t._version and hit[2]._dtype == dtype:
            return hit[2]
        out = t.to(dtype)
        cache[id(t)] = (t, t._version, out)
        return out
    return t.to(dtype)


def cast_inputs(kind, *tensors):
    """Cast ``tensors`` for an op of policy ``kind`` (``'lower'`` or ``'fp32'``) when this
    thread is in an enabled autocast region (otherwise return them unchanged). Non-tensors
    and ``None`` pass through. Returns a tuple."""
    st = state
    if st.depth == 0 or st.inside:
        return tensors
    if kind not in ("lower", "fp32"):
        raise TensorValueError(f"cast_inputs: kind must be 'lower' or 'fp32', got {kind!r}")
    from ._tensor import Tensor

    out = []
    device = st.device
    for t in tensors:
        # Only tensors on the region's device type are cast (as PyTorch's autocast keys).
        if isinstance(t, Tensor) and t._dtype.is_floating_point and t.device.type == device:
            if kind == "lower" and t._dtype.itemsize != 8:
                t = _cast_one(t, st.dtype)
            elif kind == "fp32" and t._dtype.itemsize == 2:
                t = _cast_one(t, _dtypes.float32)
        out.append(t)
    return tuple(out)


def _cast_arg(kind, value):
    from ._tensor import Tensor

    if isinstance(value, Tensor):
        return cast_inputs(kind, value)[0]
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(cast_inputs(kind, *value))
    return value
