"""``nn.functional`` ops are registered ops: one call, one trace event.

``@nn_op()`` registers a functional in the op registry as kind ``"nn"``, with neither a
``jtensor.<name>`` function nor a ``Tensor`` method (``F.conv2d`` is reached through
``jtensor.nn.functional`` only). Its body stays what it was: argument checks, then an
``autograd.Function`` (a fast raw-array kernel with an explicit backward) or a composition
of public ops. The registered implementation

- runs the body with the recording thread's trace hook detached (``_dispatch.untraced``:
  meanwhile the hook hears other threads only, restored in ``finally``), so the ops it uses
  (views, casts, the ops of a composite, a nested functional) report nothing;
- ends in ``_dispatch.finish(op, tensors of the call, result)``: the recorder gets exactly
  one event named after the functional, whose outputs already carry their autograd node
  (the body built it).

Autograd is untouched: the body's ``Function`` (or the composed ops) records the node(s),
with PyTorch's names, as before. Only the recorder's own thread detaches the hook (the
recorder records that thread alone); a hook installed by someone else (a test's plain hook)
still sees every op. In-place forms (``inplace=True``, ``elu_``...) report the written
tensor as ``modified``: the body's own write bumped its version once already, so the count
is stepped back before ``finish`` bumps it again (one write, one bump).
"""

import functools
import inspect

from ... import _dispatch
from ..._registry import register
from ..._tensor import Tensor
from ...autograd.graph import NONDIFF

__all__ = []


def _tensors(args, kwargs):
    found = [a for a in args if isinstance(a, Tensor)]
    if kwargs:
        found.extend(v for v in kwargs.values() if isinstance(v, Tensor))
    return found


def _written(body, inplace):
    """``(args, kwargs) -> the tensor the call writes in place, or None``.

    ``inplace`` is True (always writes its first argument), False, a callable of ``(args,
    kwargs)``, or the name of a parameter: a flag (``inplace``: the first argument is written
    when it is true) or a tensor (``out``: that tensor is written)."""
    if inplace is False:
        return None
    if inplace is True:
        return lambda args, kwargs: args[0] if args else kwargs.get("input")
    if callable(inplace):
        return inplace
    params = list(inspect.signature(body).parameters.values())
    pos = next(i for i, p in enumerate(params) if p.name == inplace)
    default = params[pos].default

    def target(args, kwargs):
        flag = args[pos] if len(args) > pos else kwargs.get(inplace, default)
        if isinstance(flag, Tensor):
            return flag
        if not flag:
            return None
        return args[0] if args else kwargs.get("input")

    return target


def nn_op(name=None, *, inplace=False, differentiable=True, function=False):
    """Decorator: register the functional ``body`` as the op ``name`` (default: its own
    name) of kind ``"nn"`` and return its entry point (see the module docstring).

    ``function=True`` also publishes it as ``jtensor.<name>``, for the ops PyTorch exposes as
    ``torch.<name>`` (the recurrent layers and cells: ``torch.lstm``, ``torch.gru_cell``...).

    ``inplace``: what the call writes (see ``_written``). ``differentiable=False`` declares
    outputs that never require grad (``one_hot``), as ``nondifferentiable()`` does for
    formula-backed ops."""

    def decorate(body):
        op = None
        written = _written(body, inplace)

        def impl(*args, **kwargs):
            target = written(args, kwargs) if written is not None else None
            if target is not None:
                if not isinstance(target, Tensor):
                    target = None
                else:
                    before = target._version_counter.value
            if _dispatch.trace_hook is None:
                result = body(*args, **kwargs)
            else:   # (this thread's recorder sees the call as one op)
                result = _dispatch.untraced(body, *args, **kwargs)
            if target is not None:
                counter = target._version_counter
                if counter.value > before:
                    counter.value -= 1  # ``finish`` bumps it again: one write, one bump
                else:
                    target = None
            if target is None and _dispatch.autograd_hook is None \
                    and _dispatch.trace_hook is None:
                return result   # (what ``finish`` would do: nothing written, nobody listening)
            return _dispatch.finish(op, _tensors(args, kwargs), result, target)

        functools.update_wrapper(impl, body)
        # post=False: ``impl`` finishes itself (it owns the detached hook and the one bump).
        entry = register("nn", name or body.__name__, method=False, function=function,
                         post=False)(impl)
        op = impl.op
        if not differentiable:
            op.backward = NONDIFF
        return entry

    return decorate
