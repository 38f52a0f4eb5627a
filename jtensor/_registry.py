"""The op registry: one entry per op, filled in as op modules are imported.

``@register(kind)`` records an op, makes its ``OpDef`` available as ``fn.op`` (the
implementation passes it to ``_dispatch.finish``) and attaches the method form to ``Tensor``.
The package exports every op registered with ``function=True``. The test suite walks this
registry: an op without a test spec fails the suite.
"""

from ._argparse import METHOD_VARARGS, has_method_form, make_entry
from ._dispatch import OpDef
from ._errors import TensorRuntimeError

OPS = {}
FUNCTIONS = {}


def register(kind, name=None, *, method=True, function=True, aliases=()):
    """Decorator: register ``fn`` as the op ``name`` (default: the function's name).

    ``method`` may be a string to attach under another name (``__add__``) or False.
    """

    def decorate(fn):
        op_name = name or fn.__name__
        if op_name.startswith("_") and not op_name.startswith("__"):
            # A private helper caught by a decorator meant for the function below it.
            raise TensorRuntimeError(f"refusing to register private function {op_name!r} as an op")
        if op_name in OPS:
            raise TensorRuntimeError(f"op {op_name!r} is registered twice")
        from ._tensor import Tensor

        op = OpDef(op_name, kind, fn, method, function)
        OPS[op_name] = op
        fn.op = op
        # The public entry points: PyTorch's argument rules (and, for differentiable kinds,
        # the route to the autograd layer) in front of the implementation.
        entry = make_entry(op, fn, Tensor)
        entry.op = op
        op.entry = entry
        method_entry = entry
        if method:
            attr = method if isinstance(method, str) else op_name
            # x.flip(0, 1): the method takes separate ints; x.sum(out=y) is refused
            if attr in METHOD_VARARGS or has_method_form(fn):
                method_entry = make_entry(op, fn, Tensor, method_form=True)
                method_entry.op = op
            setattr(Tensor, attr, method_entry)
        if function:
            FUNCTIONS[op_name] = entry
        for alias in aliases:
            if function:
                FUNCTIONS[alias] = entry
            if method:
                setattr(Tensor, alias, method_entry)
        return entry

    return decorate


def define(kind, name, impl, *, method=True, function=True):
    """Register an op whose implementation is built by a factory (many element-wise ops)."""
    impl.__name__ = name
    impl.__qualname__ = name
    return register(kind, name, method=method, function=function)(impl)


def tensor_method(name=None):
    """Attach a helper that is not an op of its own (composes registered ops) to Tensor."""

    def decorate(fn):
        from ._tensor import Tensor

        setattr(Tensor, name or fn.__name__, fn)
        return fn

    return decorate
