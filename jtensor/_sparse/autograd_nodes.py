"""PyTorch's backward-node names on sparse results.

The sparse ops are written with dense ops on the values, so autograd would record the dense
ops' names: ``_named`` puts PyTorch's name on top (an identity node, gradients pass
unchanged); ``_no_backward`` records an op that PyTorch records but cannot differentiate
(its backward raises PyTorch's NotImplementedError)."""

from .._errors import TensorNotImplementedError


_NAMED = {}


def _named(node_name, tensor):
    """``tensor`` passed through an identity ``autograd.Function`` whose backward node is
    called ``node_name`` (PyTorch's name for the sparse op), when autograd records it.

    The sparse ops are written with dense ops on the values, so their own nodes would carry
    the dense ops' names; this puts PyTorch's name on top (gradients pass unchanged).
    """
    if not tensor._requires_grad:
        return tensor
    fn = _NAMED.get(node_name)
    if fn is None:
        from ..autograd import function as _function

        fn = type(
            node_name.removesuffix("Backward0"),
            (_function.Function,),
            {
                "forward": staticmethod(lambda ctx, x: x),
                "backward": staticmethod(lambda ctx, grad: grad),
            },
        )
        _function._NODE_CLASSES[fn] = type(
            node_name, (_function.BackwardCFunction,), {"_function": fn}
        )
        _NAMED[node_name] = fn
    return fn.apply(tensor)


_NO_BACKWARD = {}


def _no_backward(node_name, aten_op, tensor):
    """``tensor`` through an identity node named ``node_name`` whose backward raises
    PyTorch's NotImplementedError: PyTorch records these sparse ops but its backward needs
    ``aten_op`` on a sparse gradient, which it does not have."""
    if not tensor._requires_grad:
        return tensor
    fn = _NO_BACKWARD.get(node_name)
    if fn is None:
        from ..autograd import function as _function

        def backward(ctx, grad):
            raise TensorNotImplementedError(
                f"Could not run 'aten::{aten_op}' with arguments from the 'SparseCPU' backend: "
                f"PyTorch records {node_name.removesuffix('Backward0')} on a sparse tensor but "
                "cannot differentiate it. Differentiate through .to_dense() and dense ops "
                "instead."
            )

        fn = type(
            node_name.removesuffix("Backward0"),
            (_function.Function,),
            {"forward": staticmethod(lambda ctx, x: x), "backward": staticmethod(backward)},
        )
        _function._NODE_CLASSES[fn] = type(
            node_name, (_function.BackwardCFunction,), {"_function": fn}
        )
        _NO_BACKWARD[node_name] = fn
    return fn.apply(tensor)
