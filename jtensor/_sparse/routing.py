"""What importing the sparse package patches, and why.

The dense ops know nothing of sparse tensors (``_ops`` never imports this package), yet a
dense implementation given a ``SparseCOOTensor`` would read its values' bytes as if they were
the dense tensor. So, at import, this module:

* gives ``SparseCOOTensor`` a refusing method for every registered view op and a few more
  metadata methods (``_refuse_dense_views``), as PyTorch refuses them;
* wraps entries of ``FUNCTIONS`` (``torch.select``, ``torch.index_select``, ``torch.mul``,
  every view op) so that a sparse first argument goes to its own method
  (``_route_functions``);
* wraps the Tensor methods ``add``/``sub``/``add_``/``sub_``/``mul_``/``__iadd__``/... and
  the functions ``add``/``sub``/``subtract`` so that dense (+|-)= sparse reaches the
  dense-sparse kernels (``_route_dense_sparse``; the unwrapped forms are kept in
  ``dense_ops``).

These patch the registered ops, so they need every op registered first: ``_require_ops``
imports ``jtensor._ops`` (whoever imported this package first) and raises ImportError when
this package is imported from inside the registration (tested in a subprocess,
``tests/test_sparse_parity.py``)."""

from .. import _dtypes
from .._argparse import bind_operands, operands
from .._errors import TensorRuntimeError
from .._registry import FUNCTIONS, OPS
from .._tensor import Tensor
from .common import _not_supported
from .kernels import add_dense_sparse, add_dense_sparse_
from .tensor import SparseCOOTensor


def _refuser(name):
    def refuse(self, *args, **kwargs):
        raise _not_supported(name)

    refuse.__name__ = name
    refuse.__doc__ = f"``{name}`` is not supported on sparse COO tensors (as in PyTorch)."
    return refuse


def _refuse_dense_views():
    """View ops only rewrite metadata over ``_storage``: on a sparse tensor they would read
    the values' bytes as if they were dense, so refuse them as PyTorch does.

    (Needs the ops registered first: ``_require_ops`` makes sure of it before this runs.)
    """
    from .._registry import OPS

    for name, op in OPS.items():
        if op.kind != "view" or not op.method:
            continue
        attr = op.method if isinstance(op.method, str) else name
        if attr not in SparseCOOTensor.__dict__:
            setattr(SparseCOOTensor, attr, _refuser(name))
    for attr in ("contiguous", "as_strided_", "resize_", "set_", "swapaxes", "swapdims",
                 "moveaxis", "expand_as", "type_as", "mv", "bmm"):
        if attr not in SparseCOOTensor.__dict__ and hasattr(Tensor, attr):
            setattr(SparseCOOTensor, attr, _refuser(attr))


def _require_ops():
    """The refusals and routes below patch the registered ops: make sure they all are,
    whatever imported this module first."""
    import sys

    # Registers every op if nobody has yet (``_ops`` never imports this module).
    from .. import _ops

    spec = getattr(sys.modules.get(_ops.__name__), "__spec__", None)
    if getattr(spec, "_initializing", False):
        raise ImportError(
            "jtensor._sparse was imported while jtensor._ops was still registering ops (from "
            "one of its modules): sparse tensors would accept dense view ops. Import "
            "jtensor._sparse lazily (inside a function) in that module.")


_require_ops()
_refuse_dense_views()


def _route_functions():
    """Make the function forms (``torch.select(s, ...)``, ``torch.index_select``,
    ``torch.mul``, every view op) take a sparse tensor to its own method: the dense
    implementations would read the values' bytes as if they were the dense tensor."""

    def routed(name, dense):
        attr = "mul" if name == "multiply" else name
        commutes = attr == "mul"

        def fn(input=None, *args, **kwargs):
            if input.__class__ is SparseCOOTensor:
                method = SparseCOOTensor.__dict__.get(attr)
                if method is None:
                    raise _not_supported(name)
                return method(input, *args, **kwargs)
            if commutes and args and args[0].__class__ is SparseCOOTensor:
                return args[0].mul(input)  # dense * sparse: refused by the sparse side
            if input is None:  # every argument given by a keyword other than ``input``
                return dense(*args, **kwargs)
            return dense(input, *args, **kwargs)

        fn.__name__ = fn.__qualname__ = getattr(dense, "__name__", name)
        fn.__doc__ = dense.__doc__
        fn.__wrapped__ = dense
        if hasattr(dense, "op"):
            fn.op = dense.op
        return fn

    names = [n for n, op in OPS.items() if op.kind == "view" and op.function]
    for name in names + ["index_select", "mul", "multiply"]:
        if name in FUNCTIONS:
            FUNCTIONS[name] = routed(name, FUNCTIONS[name])


_route_functions()


dense_ops = {}  # the dense forms of the Tensor methods routed below


def _dense_sparse_call(name, input, other, alpha=1, out=None):
    """``add``/``sub`` (in place or not, with ``out=``) of a dense ``input`` and a sparse
    ``other``: PyTorch's dense-sparse kernels."""
    sub = name.startswith(("sub", "__isub"))
    if sub and (input._dtype is _dtypes.bool_ or other._dtype is _dtypes.bool_):
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead.")
    if name in ("mul_", "__imul__"):
        # dense *= sparse stays dense: the product with the summed (coalesced) entries
        return dense_ops[name](input, other.to_dense(), *((alpha,) if alpha != 1 else ()))
    signed = -alpha if sub else alpha
    if name.startswith("__i") or (name.endswith("_") and not name.startswith("__")):
        return add_dense_sparse_(input, other, signed, op="sub" if sub else "add")
    result = add_dense_sparse(input, other, signed)
    if out is None:
        return result
    if result._dtype is not out._dtype and not _dtypes.can_cast(result._dtype, out._dtype):
        raise TensorRuntimeError(
            f"Can't convert result type {result._dtype._torch_name} to output "
            f"{out._dtype._torch_name} in {'sub' if sub else 'add'} operation")
    if tuple(out._shape) != tuple(result._shape):
        out.resize_(result._shape)
    return out.copy_(result)


def _route_dense_sparse():
    """``dense.add_(sparse)``, ``torch.add(dense, sparse, out=...)``, ``dense -= sparse``, ...
    go to the dense-sparse kernels; everything else to the dense op unchanged (one class
    test added in front of it)."""
    import sys

    def routed(name, dense):
        def fn(*args, **kwargs):
            if len(args) == 2:
                input, other = args
            else:
                input, other = operands(args, kwargs)
            if other.__class__ is SparseCOOTensor and input.__class__ is not SparseCOOTensor:
                args, kwargs = bind_operands(args, kwargs)
                return _dense_sparse_call(name, *args, **kwargs)
            return dense(*args, **kwargs)

        fn.__name__ = fn.__qualname__ = getattr(dense, "__name__", name)
        fn.__doc__ = dense.__doc__
        fn.__wrapped__ = dense
        fn._routes_sparse = True
        if hasattr(dense, "op"):
            fn.op = dense.op
        return fn

    for name in ("add", "sub", "subtract", "add_", "sub_", "subtract_", "__iadd__",
                 "__isub__", "mul_", "__imul__"):
        dense = Tensor.__dict__.get(name)
        if dense is not None and not getattr(dense, "_routes_sparse", False):
            dense_ops[name] = dense
            setattr(Tensor, name, routed(name, dense))
    package = sys.modules.get(__package__.rpartition(".")[0])  # jtensor
    for name in ("add", "sub", "subtract"):
        dense = FUNCTIONS.get(name)
        if dense is not None and not getattr(dense, "_routes_sparse", False):
            FUNCTIONS[name] = routed(name, dense)
            if package is not None and getattr(package, name, None) is dense:
                setattr(package, name, FUNCTIONS[name])  # exported before this ran


_route_dense_sparse()
