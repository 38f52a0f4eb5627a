"""How formulas are declared.

>>> # @derivative("mul", inputs=("input", "other"), save=("input", "other"))
>>> # def mul_backward(ctx, grad):
>>> #     return grad * ctx.other, grad * ctx.input

``ctx.<name>`` gives every argument of the op call by its parameter name (tensors only when
listed in ``save``; ``"result"`` is the output), ``ctx.needs_input_grad`` one flag per entry
of ``inputs``, ``ctx.input_meta(i)`` the (shape, dtype, device) of the i-th input tensor.
Return one gradient per entry of ``inputs`` (None where there is none; a list for an input
that is a list of tensors). The engine sums broadcast gradients to each input's shape and
casts them to its dtype, so a formula may return the broadcast shape.

Write formulas with public jtensor ops so that ``create_graph=True`` differentiates them.
"""

from ..._dispatch import OpDef  # noqa: F401
from ..._registry import OPS
from ..._tensor import Tensor
from ..graph import NONDIFF, Formula


def conj(x):
    """Complex conjugate of a tensor or a Python number (real values pass through)."""
    if isinstance(x, Tensor):
        return x.conj() if x.is_complex() else x
    return x.conjugate() if isinstance(x, complex) else x


class Shaped:
    """An input's shape without its values: what a formula uses of a saved operand whose
    own gradient is not needed. PyTorch saves an operand only for the gradients that read
    it (``a / b`` saves ``a`` only when ``b`` requires grad), so writing ``a`` in place after
    the op must not make backward fail; unpacking a saved tensor checks its version."""

    __slots__ = ("shape",)

    def __init__(self, meta):
        self.shape = tuple(meta[0])

    _shape = property(lambda self: self.shape)
    ndim = property(lambda self: len(self.shape))

    def dim(self):
        return len(self.shape)


def saved_if(ctx, name, needed, index):
    """``ctx.<name>`` (unpacked, version-checked) when ``needed``, else its ``Shaped``."""
    return getattr(ctx, name) if needed else Shaped(ctx.input_meta(index))


def derivative(names, inputs=("input",), save=(), name=None, multi_grad=False,
               nondiff_outputs=(), save_for=None, save_by_node=None, no_edge_if_absent=()):
    """Register ``backward(ctx, grad)`` for the op(s) ``names``.

    ``name``: the node's class name (default ``<Op>Backward0``), or ``name(values)`` (a dict
    of the call's arguments) to choose per call, or ``(option, name_if_none, name_otherwise)``
    where only whether that argument is None decides (the recorder's cheapest choice).
    ``multi_grad``: ``backward(ctx, *grads)`` receives one gradient per output (None for
    unused ones). ``nondiff_outputs``: indices of outputs that never require grad (``max``'s
    indices are integer anyway). ``save_for``: for a saved name, the inputs whose gradients
    read it; a call saves it only when one of them needs a gradient, as PyTorch's generated
    code does (names not listed always are);
    ``result<i>`` is output ``i`` of several (``{"result0": ()}``: never saved).
    ``save_by_node``: node name -> the only names a node of that name saves, where one
    formula stands for several of PyTorch's nodes that save different values. Whatever the
    declared order, values are saved in PyTorch's (``graph.pytorch_save_order``).
    ``no_edge_if_absent``: inputs that, when None, belong to another of PyTorch's overloads
    and get no edge (a frozenset, or a function of the call's values).
    """
    if isinstance(names, str):
        names = (names,)

    def decorate(fn):
        for op_name in names:
            op = OPS.get(op_name)
            if op is None:
                raise KeyError(f"derivative for unknown op {op_name!r}")
            if op.backward is not None:
                raise KeyError(f"op {op_name!r} has two derivative formulas")
            op.backward = Formula(op, fn, inputs, save, name, multi_grad, nondiff_outputs,
                                  save_for, save_by_node, no_edge_if_absent)
        return fn

    return decorate


def nondifferentiable(*names):
    """Ops whose outputs never require grad (comparisons, integer results, ``detach``...)."""
    for op_name in names:
        op = OPS.get(op_name)
        if op is None:
            raise KeyError(f"nondifferentiable: unknown op {op_name!r}")
        if op.backward is not None:
            raise KeyError(f"op {op_name!r} already has a formula")
        op.backward = NONDIFF


def finalize():
    """In-place ops without a formula borrow their out-of-place op's."""
    for op_name, op in OPS.items():
        if op.backward is None and op.kind == "inplace" and op_name.endswith("_"):
            base = OPS.get(op_name[:-1])
            if base is not None and base.backward is not None:
                f = base.backward
                if f is NONDIFF:
                    op.backward = NONDIFF
                else:
                    # (What it saves too: ``x.mul_(c)`` with a constant ``c`` saves ``c``
                    # only, as ``x * c`` does.)
                    # (and the overload rules: ``x.clamp_(0)`` is the Number overload, whose
                    # absent bound has no edge, and a 0-d bound beside a number is one)
                    op.backward = Formula(op, f.backward, f.inputs, f.save_order, f.name,
                                          f.multi_grad, f.nondiff_outputs, f.save_for,
                                          f.save_by_node, f.no_edge_if_absent)
                    op.backward.prepare = f.prepare
