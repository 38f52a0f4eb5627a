"""The op registry: one entry per op, filled in as op modules are imported.

``@register(kind)`` records an op, makes its ``OpDef`` available as ``fn.op`` (the
implementation passes it to ``_dispatch.finish``) and attaches the method form to ``Tensor``.
The package exports every op registered with ``function=True``. The test suite walks this
registry: an op without a test spec fails the suite.
"""

from ._argparse import METHOD_VARARGS, has_method_form, make_entry
from ._dispatch import HAND_FINISHED, OpDef, Post
from ._errors import TensorRuntimeError

OPS = {}
FUNCTIONS = {}
_COMMON = Post()   # the common case: nothing declared


def register(kind, name=None, *, method=True, function=True, aliases=(), post=None):
    """Decorator: register ``fn`` as the op ``name`` (default: the function's name).

    ``method`` may be a string to attach under another name (``__add__``) or False.

    The entry finishes each call (version bump, autograd hook, one trace event): ``fn``
    computes and returns. ``post`` (a ``_dispatch.Post``) declares what the event needs
    beyond the common case (other inputs, another written tensor, ``info``); ``post=False``
    and the modules in ``_dispatch.HAND_FINISHED`` mean that ``fn`` calls ``finish`` itself.
    """

    def decorate(fn):
        op_name = name or fn.__name__
        if op_name.startswith("_") and not op_name.startswith("__"):
            # A private helper caught by a decorator meant for the function below it.
            raise TensorRuntimeError(f"refusing to register private function {op_name!r} as an op")
        if op_name in OPS:
            raise TensorRuntimeError(f"op {op_name!r} is registered twice")
        declared = post
        if declared is None and fn.__module__ not in HAND_FINISHED:
            declared = _COMMON
        elif declared is False:
            declared = None
        op = OpDef(op_name, kind, fn, method, function, declared)
        OPS[op_name] = op
        fn.op = op
        entry, _ = _publish(op, fn, method if isinstance(method, str) else
                            (op_name if method else None), op_name if function else None,
                            aliases)
        op.entry = entry
        return entry

    return decorate


def _publish(op, impl, method_name, function_name, aliases=()):
    """Make the public entry points of ``op`` over ``impl`` (PyTorch's argument rules and, for
    differentiable kinds, the route to the autograd layer) and attach them: the method as
    ``Tensor.<method_name>``, the function in ``FUNCTIONS[function_name]``; None skips one.
    Returns ``(function entry, method entry)``."""
    from ._tensor import Tensor

    entry = make_entry(op, impl, Tensor)
    entry.op = op
    method_entry = entry
    if method_name is not None:
        # x.flip(0, 1): the method takes separate ints; x.sum(out=y) is refused
        if method_name in METHOD_VARARGS or has_method_form(impl):
            method_entry = make_entry(op, impl, Tensor, method_form=True)
            method_entry.op = op
        setattr(Tensor, method_name, method_entry)
    if function_name is not None:
        FUNCTIONS[function_name] = entry
    for alias in aliases:
        if function_name is not None:
            FUNCTIONS[alias] = entry
        if method_name is not None:
            setattr(Tensor, alias, method_entry)
    return entry, method_entry


def renamed(registered, impl, *, function=True, method=True):
    """Publish the op behind the entry ``registered`` under ``impl``'s name with ``impl``'s
    signature, where PyTorch names the arguments differently there (``swapaxes(input,
    axis0, axis1)`` is ``transpose(input, dim0, dim1)``). ``impl`` passes its arguments on to
    the op's implementation, so a call is still one call of the op: one trace event, its
    gradient formula and node name. Returns the function entry (the method entry when
    ``function`` is False)."""
    name = impl.__name__
    entry, method_entry = _publish(registered.op, impl, name if method else None,
                                   name if function else None)
    return entry if function else method_entry


def define(kind, name, impl, *, method=True, function=True, post=None):
    """Register an op whose implementation is built by a factory (many element-wise ops)."""
    impl.__name__ = name
    impl.__qualname__ = name
    return register(kind, name, method=method, function=function, post=post)(impl)


def tensor_method(name=None):
    """Attach a helper that is not an op of its own (composes registered ops) to Tensor."""

    def decorate(fn):
        from ._tensor import Tensor

        setattr(Tensor, name or fn.__name__, fn)
        return fn

    return decorate
