"""The sparse COO layout in the registry: what an op's entry does with a sparse operand.

PyTorch picks an op's SparseCPU kernel when a sparse tensor is among its arguments. Here
the registry does the same (``_registry.register_layout``/``layout_kernel``): the entry of
an op with a kernel for ``sparse_coo`` tests its operands' class after parsing and hands a
call with a sparse operand to the kernel; every other op's entry is untouched. Nothing is
patched, and the order in which modules are imported does not matter (a kernel registered
before its op is used when the op registers; one registered after rebuilds the op's entries
in place).

* ``register_layout`` below: view ops only rewrite strides over a storage, which a sparse
  tensor does not have, so ``torch.<view>(sparse, ...)`` goes to ``SparseCOOTensor``'s own
  method of that name (``t``, ``transpose``, ``select``, ``narrow``, ``unsqueeze``, ...)
  and the others refuse with PyTorch's SparseCPU error, as do a few more methods.
* The kernels: the ops whose sparse forms take dense operands too. ``torch.add(dense,
  sparse, out=...)``, ``dense.add_(sparse)``, ``dense -= sparse``: the dense-sparse kernels
  of ``kernels.py``; ``torch.mul(dense, sparse)`` and ``dense.mul(sparse)``: the sparse
  product; ``torch.index_select(sparse, ...)``: the sparse method. A sparse ``input``/``self``
  goes to the class's own method (``torch.add(sparse, sparse)`` is ``sparse.add(sparse)``).
* The matrix products ``mm`` (``torch.spmm`` too: the same op), ``matmul``, ``mv``,
  ``addmm``, ``addmm_`` and ``bmm`` with a sparse operand in any position: ``matmul.py``,
  the one implementation their sparse forms share with ``SparseCOOTensor``'s methods and
  operators and with ``torch.sparse.mm``/``addmm``. ``baddbmm``/``addbmm`` (and their
  in-place forms), which PyTorch has no SparseCPU kernel for, refuse naming the op.
"""

from .. import _dtypes
from .._errors import TensorRuntimeError
from .._ops.creation import tensor as _tensor
from .._registry import layout_kernel, register_layout
from .._tensor import Tensor
from .common import _not_supported, write_into
from .kernels import add_dense_sparse, add_dense_sparse_
from .matmul import _addmm, _addmm_, _bmm, _matmul, _mm, _mv
from .tensor import SparseCOOTensor

SPARSE_COO = "sparse_coo"

register_layout(
    SPARSE_COO,
    SparseCOOTensor,
    error=_not_supported,
    refuse_kinds=("view",),
    # Methods that would read or rewrite dense metadata (PyTorch refuses them on SparseCPU).
    refuse_methods=("contiguous", "as_strided_", "resize_", "set_"),
)


def _refuse_bool_subtraction(input, other):
    if input._dtype is _dtypes.bool_ or other._dtype is _dtypes.bool_:
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )


def _refuse_out(name):
    # PyTorch fails an internal assert here (its sparse kernels write a sparse ``out``).
    return TensorRuntimeError(
        f"{name}(): out= is not supported when an operand is sparse COO (the result is "
        "sparse); call it without out=, or convert with .to_dense() first"
    )


def _dense_plus_sparse(name, input, other, alpha, out):
    """``add``/``sub`` of a dense ``input`` and a sparse ``other``: a dense result (written
    into ``out`` when given), PyTorch's dense-sparse kernel."""
    if not isinstance(input, Tensor):  # torch.add(2, sparse): a 0-d dense operand
        input = _tensor(input)
    if name == "sub":
        _refuse_bool_subtraction(input, other)
    result = add_dense_sparse(input, other, -alpha if name == "sub" else alpha)
    if out is None:
        return result
    if result._dtype is not out._dtype and not _dtypes.can_cast(result._dtype, out._dtype):
        raise TensorRuntimeError(
            f"Can't convert result type {result._dtype._torch_name} to output "
            f"{out._dtype._torch_name} in {name} operation"
        )
    return write_into(out, result)


def _additive(name):
    """The kernel of ``torch.add``/``torch.sub`` with a sparse operand: sparse (+|-) sparse
    (merged, the sparse method), dense (+|-) sparse (dense); sparse (+|-) dense refuses, as
    PyTorch."""

    def kernel(input, other, *, alpha=1, out=None):
        if input.__class__ is SparseCOOTensor:
            if out is not None:
                raise _refuse_out(name)
            return getattr(SparseCOOTensor, name)(input, other, alpha=alpha)
        return _dense_plus_sparse(name, input, other, alpha, out)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = _additive.__doc__.replace("``torch.add``/``torch.sub``", f"``torch.{name}``")
    return layout_kernel(name, SPARSE_COO, on=(0, 1))(kernel)


add = _additive("add")
sub = _additive("sub")


@layout_kernel("add_", SPARSE_COO, on=(0, 1))
def add_(self, other, *, alpha=1):
    """``dense.add_(sparse)`` / ``dense += sparse``: the sparse entries added in place."""
    if self.__class__ is SparseCOOTensor:
        return self.add_(other, alpha=alpha)
    return add_dense_sparse_(self, other, alpha, op="add")


@layout_kernel("sub_", SPARSE_COO, on=(0, 1))
def sub_(self, other, *, alpha=1):
    """``dense.sub_(sparse)`` / ``dense -= sparse``."""
    if self.__class__ is SparseCOOTensor:
        return self.sub_(other, alpha=alpha)
    _refuse_bool_subtraction(self, other)
    return add_dense_sparse_(self, other, -alpha, op="sub")


@layout_kernel("mul_", SPARSE_COO, on=(0, 1))
def mul_(self, other):
    """``dense *= sparse`` stays dense: the product with the summed (coalesced) entries."""
    if self.__class__ is SparseCOOTensor:
        return self.mul_(other)
    return self.mul_(other.to_dense())


@layout_kernel("mul", SPARSE_COO, on=(0, 1))
def mul(input, other, *, out=None):
    """``torch.mul`` with a sparse operand: a sparse product (``dense * sparse`` too: the
    dense factor is read at the sparse entries), as PyTorch."""
    if out is not None:
        raise _refuse_out("mul")
    if input.__class__ is SparseCOOTensor:
        return input.mul(other)
    return other.mul(input)


@layout_kernel("index_select", SPARSE_COO)
def index_select(input, dim, index, *, out=None):
    """``torch.index_select(sparse, dim, index)``: the sparse method (no ``out=``, as
    PyTorch)."""
    if out is not None:
        raise _not_supported("index_select.out")
    return input.index_select(dim, index)


# ---------------------------------------------------------------------- matrix products
@layout_kernel("mm", SPARSE_COO, on=(0, 1))
def mm(input, mat2, *, out=None):
    """``torch.mm``/``torch.spmm``/``dense.mm(sparse)`` with a sparse operand: dense @ sparse
    and sparse @ dense are dense, sparse @ sparse is sparse, as PyTorch."""
    return _mm(input, mat2, out)


@layout_kernel("matmul", SPARSE_COO, on=(0, 1))
def matmul(input, other, *, out=None):
    """``torch.matmul``/``dense.matmul(sparse)`` with a sparse operand (PyTorch's ranks)."""
    return _matmul(input, other, out)


@layout_kernel("mv", SPARSE_COO, on=(0, 1))
def mv(input, vec, *, out=None):
    """``torch.mv``/``sparse.mv(vec)`` with a sparse operand."""
    return _mv(input, vec, out)


@layout_kernel("addmm", SPARSE_COO, on=(0, 1, 2))
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``torch.addmm`` with a sparse operand: ``mat1`` sparse and ``mat2`` dense give
    ``beta * input + alpha * (mat1 @ mat2)``; other layouts refuse, as PyTorch."""
    return _addmm(input, mat1, mat2, beta, alpha, out)


@layout_kernel("addmm_", SPARSE_COO, on=(0, 1, 2))
def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """``dense.addmm_(sparse, dense)``: the sparse ``addmm`` written into ``self``."""
    return _addmm_(input, mat1, mat2, beta, alpha)


@layout_kernel("bmm", SPARSE_COO, on=(0, 1))
def bmm(input, mat2, *, out=None):
    """``torch.bmm``/``sparse.bmm(dense)`` with a sparse operand: a sparse batch @ a dense
    batch is dense; a sparse ``mat2`` refuses, as PyTorch."""
    return _bmm(input, mat2, out)


def _refuse_batched(name):
    """``torch.<name>`` with a sparse operand: no SparseCPU kernel in PyTorch (only ``bmm``
    has one), so its NotImplementedError naming the op."""

    def kernel(*args, **kwargs):
        raise _not_supported(name)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = _refuse_batched.__doc__.replace("<name>", name)
    return layout_kernel(name, SPARSE_COO, on=(0, 1, 2))(kernel)


baddbmm = _refuse_batched("baddbmm")
baddbmm_ = _refuse_batched("baddbmm_")
addbmm = _refuse_batched("addbmm")
addbmm_ = _refuse_batched("addbmm_")
