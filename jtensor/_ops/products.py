"""Products: matmul (every rank combination), mm, bmm, dot, vdot, inner, outer, mv, addmm,
addmv, addr, baddbmm, addbmm, chain_matmul, einsum, tensordot, trace, kron, cross and cdist
(pairwise distances) (``torch.linalg`` itself is in ``linalg.py``).

Shapes, dtypes and errors follow PyTorch: matrix products need both operands of the same
dtype (no promotion, unlike element-wise ops), batch dims broadcast, and each rank
combination reports a shape mismatch with the message of the ATen kernel it lowers to
(``mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)``, ``size mismatch, ...``).
float16/bfloat16 products are accumulated in float32 and rounded back. Results are new
contiguous tensors, except ``einsum`` with one operand and nothing to sum, which is a view
as in PyTorch.
"""

import builtins
import math
import warnings

import numpy as np


from .. import _dtypes
from .._device import CPU_BACKEND
from .._dispatch import check_inplace, check_same_device, untraced
from .._elementwise import _write_into, result_dtype, run_compute
from .._errors import TensorRuntimeError, TensorTypeError, stacklevel, wrap_dim, type_name
from .._layout import (broadcast_shapes, contiguous_strides, dense_strides_like,
                       elementwise_output_strides, numel, view_strides)
from .._registry import register, renamed
from .._tensor import Tensor, fresh_tensor, new_empty_tensor, plain_cpu_floats
from .views import view_size_error
from .reductions import (TensorNotImplementedError, _c_name, _emit, _xp, check_out, check_tensor,
                         fp_quiet, launch_kernel, wrap_result, write_out)

_LOW = (_dtypes.float16, _dtypes.bfloat16)


def _name(dtype):
    return dtype._torch_name


def _check_tensors(name, *pairs):
    for position, (arg, x) in enumerate(pairs, 1):
        if not isinstance(x, Tensor):
            raise TensorTypeError(
                f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                f"{type_name(x)}")
    return check_same_device([x for _, x in pairs])


def _work(t, dtype=None):
    """``t``'s array in the dtype the product is computed in (float32 for half types)."""
    dtype = dtype or t._dtype
    work = _dtypes.float32 if dtype in _LOW else dtype
    a = t._array()
    return a if a.dtype == work.numpy else a.astype(work.numpy)


def _refuse_bool(kernel, dtype):
    if dtype is _dtypes.bool_:
        raise TensorNotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _product(xp, a, b):
    if a.dtype.kind == "c" and b.dtype.kind == "c":
        # Four real products, as PyTorch's CPU kernels round: a fused complex gemm computes
        # ar*bi + ai*br with one FMA, so A @ A.mH gets +-1e-17 imaginary parts on its
        # diagonal where PyTorch's are exactly 0 (and print as 0.0000j). Here the two halves
        # of each imaginary part come from the same real kernel and cancel exactly.
        rr, ii = _product(xp, a.real, b.real), _product(xp, a.imag, b.imag)
        ri, ir = _product(xp, a.real, b.imag), _product(xp, a.imag, b.real)
        result = xp.empty(rr.shape, xp.result_type(a.dtype, b.dtype))
        result.real = rr - ii
        result.imag = ri + ir
        return result
    # No error-state switch (it costs more than a small product): floating-point warnings
    # are dropped by jtensor's warnings filter, and where the user made them errors the
    # product is redone silenced (run_compute's rule).
    if a.ndim >= 3 and b.ndim == 2:
        # (..., m, k) @ (k, n) as one product of the folded rows, as PyTorch computes it:
        # NumPy would otherwise make one small product per matrix of the batch, or run its
        # slow loop without BLAS when the batch is strided (a permuted (T, B, E) input).
        lead = a.shape[:-1]
        rows = a.reshape(math.prod(lead), a.shape[-1])
        return run_compute(xp, "matmul", (rows, b)).reshape(*lead, b.shape[-1])
    return run_compute(xp, "matmul", (a, b))


def _finish_product(op, inputs, xp, array, dtype, device, out):
    if out is not None:
        write_out(out, array)
        return out
    return wrap_result(xp, array, dtype, device)


def _check_product_out(out, name, dtype):
    check_out(out, name, dtype, f"Expected out tensor to have dtype {_c_name(dtype)}, but got "
                                f"{_c_name(out._dtype) if isinstance(out, Tensor) else out} "
                                "instead")


def _matrix_mismatch(r1, c1, r2, c2):
    return TensorRuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({r1}x{c1} and {r2}x{c2})")


def _vector_mismatch(n, k):
    return TensorRuntimeError(
        f"inconsistent tensor size, expected tensor [{n}] and src [{k}] to have the same "
        f"number of elements, but got {n} and {k} elements respectively")


def _mv_mismatch(rows, cols, k):
    return TensorRuntimeError(
        f"size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({k})")


def _not_for(kernel, dtype):
    return TensorNotImplementedError(
        f"\"{kernel}\" not implemented for '{dtype._torch_name}'; cast the input to a "
        f"supported dtype first (for example with .float()).")


def _with_strides(xp, array, dtype, device, stride):
    """A fresh tensor holding ``array`` laid out with ``stride`` (PyTorch's layout)."""
    result = new_empty_tensor(array.shape, dtype, device, stride)
    if array.size:
        _write_into(result, array)
    return result


_WARNED = set()


def _warn_once(key, message):
    """A UserWarning the first time per process, as PyTorch's TORCH_WARN_ONCE does."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel(3))


def _c_type(dtype):
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int",
            "int16": "short", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(dtype.name, dtype.name)


# ---------------------------------------------------------------------- matmul
def _check_matmul(a, b):
    """PyTorch's checks for every rank combination of ``a @ b`` (before any compute)."""
    da, db = a.dim(), b.dim()
    if da == 0 or db == 0:
        raise TensorRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if a._dtype is not b._dtype:
        if da == 1 and db == 1:
            raise TensorRuntimeError(
                f"dot : expected both vectors to have same dtype, but found {_name(a._dtype)} "
                f"and {_name(b._dtype)}")
        raise TensorRuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(a._dtype)} != "
            f"{_c_name(b._dtype)}")
    _refuse_bool("dot" if da == db == 1 else "addmm_impl_cpu_", a._dtype)
    sa, sb = tuple(a._shape), tuple(b._shape)
    if da == 1 and db == 1:
        if sa[0] != sb[0]:
            raise _vector_mismatch(sa[0], sb[0])
        return ()
    if db == 1:  # matrix (or batch folded into rows) times vector
        rows = numel(sa[:-1])
        if sa[-1] != sb[0]:
            raise _mv_mismatch(rows, sa[-1], sb[0])
        return sa[:-1]
    if da == 1 and db == 2:
        if sa[0] != sb[0]:
            raise _matrix_mismatch(1, sa[0], sb[0], sb[1])
        return sb[1:]
    if db == 2:  # a is 2-D or a batch folded into rows
        if sa[-1] != sb[0]:
            raise _matrix_mismatch(numel(sa[:-1]), sa[-1], sb[0], sb[1])
        return sa[:-1] + sb[1:]
    # b is batched: broadcast the batch dims, then bmm
    batch_a = sa[:-2] if da >= 2 else ()
    batch_b = sb[:-2]
    batch = tuple(broadcast_shapes(batch_a, batch_b))
    n = sa[-2] if da >= 2 else None
    if sa[-1] != sb[-2]:
        raise TensorRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{numel(batch)}, {sa[-1]}] but got: [{numel(batch)}, {sb[-2]}].")
    return batch + ((n,) if n is not None else ()) + (sb[-1],)


def _matmul_array(a, b):
    xp = a._storage._backend.xp
    return xp, _product(xp, _work(a), _work(b))


def _matmul_shape(a, b):
    """The result shape of ``a @ b`` (already checked), from the shapes alone."""
    sa, sb = tuple(a._shape), tuple(b._shape)
    if len(sa) == 1 and len(sb) == 1:
        return ()
    a2 = sa if len(sa) >= 2 else (1,) + sa
    b2 = sb if len(sb) >= 2 else sb + (1,)
    shape = tuple(np.broadcast_shapes(a2[:-2], b2[:-2])) + (a2[-2], b2[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return shape


def _launch_product(op, a, b, device, out, base=None, beta=1, alpha=1):
    """On an asynchronous device: the product (``beta * base + alpha * a @ b`` when ``base``
    is given) as a queued kernel; ``None`` when it must run now (``out=``, other devices)."""
    if out is not None or not a._storage._backend.deferred:
        return None
    dtype = a._dtype
    work = (_dtypes.float32 if dtype in _LOW else dtype).numpy
    if base is None:
        return launch_kernel(op, (a, b), _matmul_shape(a, b), dtype, device, lambda x, y: _product(
            np, x.astype(work, copy=False), y.astype(work, copy=False)))
    shape = _matmul_shape(a, b)
    return launch_kernel(op, (base, a, b), shape, dtype, device, lambda c, x, y: _scaled_sum(
        np, c.astype(work, copy=False), _product(np, x.astype(work, copy=False),
                                                 y.astype(work, copy=False)), beta, alpha))


def _plain_matrix_product(a, b, ranks=(2,)):
    """``a @ b`` of two plain CPU float32/float64 tensors of one dtype and one rank in
    ``ranks``: matrices (2) or batches of them of one batch size (3, ``bmm``'s operands),
    whose inner sizes agree (every check below passes): the one product ``_product`` makes,
    in a fresh tensor. None (nothing done) for anything else, a non-tensor included."""
    if not plain_cpu_floats(a, b):
        return None
    sa, sb = a._shape, b._shape
    ndim = len(sa)
    if ndim not in ranks or len(sb) != ndim or sa[-1] != sb[-2] \
            or (ndim == 3 and sa[0] != sb[0]) or a._dtype is not b._dtype:
        return None
    r = run_compute(np, "matmul", (a._array(), b._array()))
    return fresh_tensor(Tensor, r, r.shape, a._dtype, a._storage.device, CPU_BACKEND)


@register("copy")
def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch rank rules: 1-D·1-D is a dot product (0-d), a 1-D
    operand is a row (left) or column (right) vector that is dropped from the result, and
    leading batch dims broadcast: ``(j, 1, n, m) @ (k, m, p) -> (j, k, n, p)``.

    >>> import jtensor as torch
    >>> (torch.ones(10, 3, 4) @ torch.ones(4, 5)).shape
    torch.Size([10, 3, 5])
    """
    if out is None:
        fast = _plain_matrix_product(input, other, (2, 3))
        if fast is not None:
            return fast
    device = _check_tensors("matmul", ("input", input), ("other", other))
    _check_matmul(input, other)
    _check_product_out(out, "matmul", input._dtype)
    launched = _launch_product(matmul.op, input, other, device, out)
    if launched is not None:
        return launched
    xp, r = _matmul_array(input, other)
    return _finish_product(matmul.op, (input, other), xp, r, input._dtype, device, out)


def _matmul_operator(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_operator(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


Tensor.__matmul__ = _matmul_operator
Tensor.__rmatmul__ = _rmatmul_operator


@register("copy")
def mm(input, mat2, *, out=None):
    """Product of two matrices (2-D only; see ``matmul`` for other ranks)."""
    if out is None:
        fast = _plain_matrix_product(input, mat2)
        if fast is not None:
            return fast
    device = _check_tensors("mm", ("input", input), ("mat2", mat2))
    if input.dim() != 2:
        raise TensorRuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise TensorRuntimeError("mat2 must be a matrix")
    if input._dtype is not mat2._dtype:
        raise TensorRuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(input._dtype)} != "
            f"{_c_name(mat2._dtype)}")
    _refuse_bool("addmm_impl_cpu_", input._dtype)
    (r1, c1), (r2, c2) = input._shape, mat2._shape
    if c1 != r2:
        raise _matrix_mismatch(r1, c1, r2, c2)
    _check_product_out(out, "mm", input._dtype)
    launched = _launch_product(mm.op, input, mat2, device, out)
    if launched is not None:
        return launched
    xp, r = _matmul_array(input, mat2)
    return _finish_product(mm.op, (input, mat2), xp, r, input._dtype, device, out)


def spmm(input, mat2, *, out=None):
    """``torch.spmm``: PyTorch's name of ``mm`` for a sparse ``input`` (the op ``mm``, dense
    operands included; no method form)."""
    return mm.op.impl(input, mat2, out=out)


spmm = renamed(mm, spmm, method=False)


def _check_bmm(b1, b2):
    if b1.dim() != 3:
        raise TensorRuntimeError("batch1 must be a 3D tensor")
    if b2.dim() != 3:
        raise TensorRuntimeError("batch2 must be a 3D tensor")
    if b1._dtype is not b2._dtype:
        raise TensorRuntimeError(
            f"expected scalar type {_name(b1._dtype)} but found {_name(b2._dtype)}")
    _refuse_bool("bmm", b1._dtype)
    (n, _, k), (n2, k2, _) = b1._shape, b2._shape
    if (n2, k2) != (n, k):
        raise TensorRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but "
            f"got: [{n2}, {k2}].")
    return (n, b1._shape[1], b2._shape[2])


@register("copy")
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with equal batch sizes (no broadcasting)."""
    if out is None:
        fast = _plain_matrix_product(input, mat2, (3,))
        if fast is not None:
            return fast
    device = _check_tensors("bmm", ("input", input), ("mat2", mat2))
    _check_bmm(input, mat2)
    _check_product_out(out, "bmm", input._dtype)
    launched = _launch_product(bmm.op, input, mat2, device, out)
    if launched is not None:
        return launched
    xp, r = _matmul_array(input, mat2)
    return _finish_product(bmm.op, (input, mat2), xp, r, input._dtype, device, out)


def _check_vectors(name, a, b, arg_b="tensor"):
    if a.dim() != 1 or b.dim() != 1:
        raise TensorRuntimeError(
            f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a._dtype is not b._dtype:
        raise TensorRuntimeError(
            f"{name} : expected both vectors to have same dtype, but found {_name(a._dtype)} "
            f"and {_name(b._dtype)}")
    _refuse_bool(name, a._dtype)
    if a._shape[0] != b._shape[0]:
        raise _vector_mismatch(a._shape[0], b._shape[0])


@register("copy")
def dot(input, tensor, *, out=None):
    """Inner product of two 1-D tensors of the same dtype and length (a 0-d tensor)."""
    device = _check_tensors("dot", ("input", input), ("tensor", tensor))
    _check_vectors("dot", input, tensor)
    _check_product_out(out, "dot", input._dtype)
    xp, r = _matmul_array(input, tensor)
    return _finish_product(dot.op, (input, tensor), xp, r, input._dtype, device, out)


@register("copy")
def vdot(input, other, *, out=None):
    """``dot`` with the first vector conjugated (the same as ``dot`` for real inputs)."""
    device = _check_tensors("vdot", ("input", input), ("other", other))
    _check_vectors("vdot", input, other)
    _check_product_out(out, "vdot", input._dtype)
    xp = input._storage._backend.xp
    r = _product(xp, xp.conj(_work(input)), _work(other))
    return _finish_product(vdot.op, (input, other), xp, r, input._dtype, device, out)


@register("copy", aliases=("ger",))
def outer(input, vec2, *, out=None):
    """Outer product ``input[i] * vec2[j]`` of two 1-D tensors (dtypes promote, as for mul).
    ``ger`` is its old name."""
    device = _check_tensors("outer", ("input", input), ("vec2", vec2))
    if input.dim() != 1:
        raise TensorRuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise TensorRuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    dtype = result_dtype([input, vec2])
    check_out(out, "outer")
    xp = input._storage._backend.xp
    with fp_quiet():
        r = xp.multiply(_work(input, dtype)[:, None], _work(vec2, dtype)[None, :])
    return _finish_product(outer.op, (input, vec2), xp, r, dtype, device, out)


@register("copy")
def mv(input, vec, *, out=None):
    """Matrix (2-D) times vector (1-D)."""
    device = _check_tensors("mv", ("input", input), ("vec", vec))
    if input.dim() != 2 or vec.dim() != 1:
        raise TensorRuntimeError(
            f"vector + matrix @ vector expected, got 1, {input.dim()}, {vec.dim()}")
    if input._dtype is not vec._dtype:
        raise TensorRuntimeError(
            f"addmv input tensors must have the same dtype, but got {_name(vec._dtype)}, "
            f"{_name(input._dtype)}, and {_name(vec._dtype)}")   # (its result has vec's)
    _refuse_bool("addmv_impl_cpu", input._dtype)
    rows, cols = input._shape
    if cols != vec._shape[0]:
        raise _mv_mismatch(rows, cols, vec._shape[0])
    _check_product_out(out, "mv", input._dtype)
    xp, r = _matmul_array(input, vec)
    return _finish_product(mv.op, (input, vec), xp, r, input._dtype, device, out)


def _scaled_sum(xp, base, product, beta, alpha):
    """``beta * base + alpha * product``; ``beta == 0`` ignores ``base`` (NaN included)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    base = base * beta if beta != 1 else base
    return product + base


def _check_add_base(input, shape, dtype, other_name):
    if input._dtype is not dtype:
        raise TensorRuntimeError(
            f"self and {other_name} must have the same dtype, but got {_name(input._dtype)} "
            f"and {_name(dtype)}")
    try:
        target = tuple(broadcast_shapes(tuple(input._shape), shape))
    except RuntimeError:
        target = None
    if target != tuple(shape):
        ndim = len(shape)
        mine = (1,) * (ndim - input.dim()) + tuple(input._shape)
        for i in range(ndim - 1, -1, -1):
            if i < len(mine) and mine[i] != 1 and mine[i] != shape[i]:
                raise TensorRuntimeError(
                    f"The expanded size of the tensor ({shape[i]}) must match the existing "
                    f"size ({mine[i]}) at non-singleton dimension {i}.  Target sizes: "
                    f"{list(shape)}.  Tensor sizes: {list(input._shape)}")
        raise TensorRuntimeError(
            f"expand: the shape {list(input._shape)} cannot be broadcast to {list(shape)}")


def _addmm_plain(input, mat1, mat2):
    """``addmm`` of a linear layer (``bias.addmm(x, weight.t())``) decided in a few checks:
    CPU float32/float64 matrices of one dtype whose shapes fit, a bias of the product's
    shape or of its rows' length. The product, then the bias added into it (the general
    path's sum, without its second result array). None when anything else applies."""
    if not plain_cpu_floats(input, mat1, mat2):
        return None
    dtype = input._dtype
    if mat1._dtype is not dtype or mat2._dtype is not dtype:
        return None
    shape1, shape2, base = mat1._shape, mat2._shape, input._shape
    if len(shape1) != 2 or len(shape2) != 2 or shape1[1] != shape2[0]:
        return None
    if base != (shape2[1],) and base != (shape1[0], shape2[1]):
        return None
    a, b, bias = mat1._array(), mat2._array(), input._array()
    r = run_compute(np, "matmul", (a, b))
    try:
        # (the module's warnings filter drops an overflow warning: no error state to set)
        np.add(r, bias, out=r)
    except RuntimeWarning:   # warnings made errors (-W error): all again, silenced
        with fp_quiet():
            r = np.matmul(a, b)
            np.add(r, bias, out=r)
    return Tensor._from_array(r, dtype, mat1._storage.device)


@register("copy")
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape."""
    if beta.__class__ is int and alpha.__class__ is int and beta == 1 and alpha == 1 \
            and out is None:
        fast = _addmm_plain(input, mat1, mat2)
        if fast is not None:
            return fast
    device = _check_tensors("addmm", ("input", input), ("mat1", mat1), ("mat2", mat2))
    if mat1.dim() != 2:
        raise TensorRuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise TensorRuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    # (PyTorch's order: the added tensor's dtype, then the matrices', then their shapes; the
    # message of a float64 batch into a float32 layer is this one)
    if input._dtype is not mat2._dtype:
        raise TensorRuntimeError(
            f"self and mat2 must have the same dtype, but got {_name(input._dtype)} and "
            f"{_name(mat2._dtype)}")
    if mat1._dtype is not mat2._dtype:
        raise TensorRuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_name(mat1._dtype)} and "
            f"{_name(mat2._dtype)}")
    (r1, c1), (r2, c2) = mat1._shape, mat2._shape
    if c1 != r2:
        raise _matrix_mismatch(r1, c1, r2, c2)
    _check_add_base(input, (r1, c2), mat2._dtype, "mat2")
    _refuse_bool("addmm_impl_cpu_", input._dtype)
    _check_product_out(out, "addmm", input._dtype)
    launched = _launch_product(addmm.op, mat1, mat2, device, out, input, beta, alpha)
    if launched is not None:
        return launched
    xp, r = _matmul_array(mat1, mat2)
    with fp_quiet():
        r = _scaled_sum(xp, _work(input), r, beta, alpha)
    return _finish_product(addmm.op, (input, mat1, mat2), xp, r, input._dtype, device, out)


@register("copy")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``; ``input`` broadcasts."""
    device = _check_tensors("baddbmm", ("input", input), ("batch1", batch1),
                            ("batch2", batch2))
    shape = _check_bmm(batch1, batch2)
    _check_add_base(input, shape, batch1._dtype, "batch2")
    _check_product_out(out, "baddbmm", input._dtype)
    launched = _launch_product(baddbmm.op, batch1, batch2, device, out, input, beta, alpha)
    if launched is not None:
        return launched
    xp, r = _matmul_array(batch1, batch2)
    with fp_quiet():
        r = _scaled_sum(xp, _work(input), r, beta, alpha)
    return _finish_product(baddbmm.op, (input, batch1, batch2), xp, r, input._dtype, device,
                           out)


@register("copy")
def trace(input):
    """Sum of the main diagonal of a 2-D tensor (integers sum to int64)."""
    if not isinstance(input, Tensor):
        raise TensorTypeError(f"trace(): argument 'input' must be Tensor, not "
                              f"{type_name(input)}")
    if input.dim() != 2:
        raise TensorRuntimeError(
            f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    _refuse_bool("trace", input._dtype)
    dtype = _dtypes.int64 if input._dtype.category == _dtypes.INTEGRAL else input._dtype
    xp = input._storage._backend.xp
    with fp_quiet():
        r = xp.trace(_work(input, dtype))
    return wrap_result(xp, r, dtype, input.device)


@register("copy")
def kron(input, other, *, out=None):
    """Kronecker product; the operand with fewer dims is padded with leading 1s."""
    device = _check_tensors("kron", ("input", input), ("other", other))
    dtype = result_dtype([input, other])
    check_out(out, "kron")
    stride = None if out is not None else kron_shapes(input, other)[3]
    xp = input._storage._backend.xp
    with fp_quiet():
        r = xp.kron(_work(input, dtype), _work(other, dtype))
    if stride is not None and tuple(stride) != contiguous_strides(r.shape):
        return _with_strides(xp, r, dtype, device, tuple(stride))
    return _finish_product(kron.op, (input, other), xp, r, dtype, device, out)


def kron_shapes(input, other):
    """ATen's ``kron`` shapes: ``input`` seen as (a0, 1, a1, 1, ...), ``other`` as (1, b0,
    1, b1, ...) (the one with fewer dims padded with leading 1s), the result's shape (a0 *
    b0, a1 * b1, ...) and its strides. PyTorch multiplies the two views and reads the
    product with ``_unsafe_view``, a view: the result has the strides of the product's
    layout (TensorIterator's, following the inputs), and where that layout cannot be
    flattened (a transposed ``input``) PyTorch raises ``view``'s error, as this does."""
    n = max(input.dim(), other.dim())
    sa = (1,) * (n - input.dim()) + tuple(input._shape)
    sb = (1,) * (n - other.dim()) + tuple(other._shape)
    a_shape, b_shape, product, result = [], [], [], []
    for x, y in zip(sa, sb, strict=True):
        a_shape += [x, 1]
        b_shape += [1, y]
        product += [x, y]
        result.append(x * y)
    strides = elementwise_output_strides(tuple(product), [
        (tuple(a_shape), view_strides(input._shape, input._stride, a_shape)),
        (tuple(b_shape), view_strides(other._shape, other._stride, b_shape))])
    result_stride = view_strides(product, strides, result)
    if result_stride is None:
        raise view_size_error(product, strides, result, (
            f"kron multiplies its inputs seen as {a_shape} and {b_shape}: the product, laid "
            f"out like input of stride {list(input._stride)}, has stride {list(strides)} "
            f"and cannot be viewed as {result}"))
    return a_shape, b_shape, result, result_stride


# ---------------------------------------------------------------------- tensordot
def _dim_list(dims, ndim):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        dims = [dims]
    return [wrap_dim(d, ndim) for d in dims]


@register("copy", method=False)
def tensordot(a, b, dims=2, out=None):
    """Contract ``a``'s last ``dims`` dims with ``b``'s first ``dims`` (an int), or the dims
    named in ``dims = (dims_a, dims_b)``."""
    device = _check_tensors("tensordot", ("a", a), ("b", b))
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise TensorRuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise TensorRuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(a.dim() - dims, a.dim()))
        dims_b = list(range(dims))
    else:
        if not isinstance(dims, (tuple, list)) or len(dims) != 2:
            raise TensorRuntimeError(
                f"tensordot expects dims to be an int or a pair of dim lists, got {dims!r}")
        dims_a, dims_b = _dim_list(dims[0], a.dim()), _dim_list(dims[1], b.dim())
        if len(dims_a) != len(dims_b):
            raise TensorRuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise TensorRuntimeError("both inputs should have same dtype")
    _refuse_bool("addmm_impl_cpu_", a._dtype)
    for da, db in zip(dims_a, dims_b, strict=True):
        sa, sb = a._shape[da], b._shape[db]
        if sa != sb and sa != 1 and sb != 1:
            raise TensorRuntimeError(
                f"contracted dimensions need to match, but first has size {sa} in dim {da} and "
                f"second has size {sb} in dim {db}")
    check_out(out, "tensordot")
    xp = a._storage._backend.xp
    wa, wb = _work(a), _work(b)
    # A size-1 contracted dim broadcasts against its partner, as in PyTorch (sum first).
    for da, db in zip(dims_a, dims_b, strict=True):
        if wa.shape[da] != wb.shape[db]:
            if wa.shape[da] == 1:
                wb = xp.sum(wb, axis=db, keepdims=True)
            else:
                wa = xp.sum(wa, axis=da, keepdims=True)
    with fp_quiet():
        r = xp.tensordot(wa, wb, axes=(dims_a, dims_b))
    return _finish_product(tensordot.op, (a, b), xp, r, a._dtype, device, out)


# ---------------------------------------------------------------------- einsum
def _parse_term(term, index, operand, name):
    """Labels of one operand's subscripts; ``None`` stands for the ellipsis."""
    labels = []
    i = 0
    while i < len(term):
        ch = term[i]
        if ch == ".":
            if term[i:i + 3] != "..." or None in labels:
                raise TensorRuntimeError(
                    f"einsum(): found '.' for {name} that is not part of any ellipsis (...)")
            labels.append(None)
            i += 3
            continue
        if not ("a" <= ch <= "z" or "A" <= ch <= "Z"):
            raise TensorRuntimeError(
                f"einsum(): invalid subscript given at index {index + i} in the equation "
                "string, subscripts must be in [a-zA-Z]")
        labels.append(ch)
        i += 1
    return labels


_PARSED = {}


def _einsum_parse(equation, operands):
    """``_parse_einsum`` of ``equation`` for operands of these shapes, remembered (a model
    calls the same einsum every step; the result is only read)."""
    key = (equation, tuple(tuple(t.shape) for t in operands))
    found = _PARSED.get(key)
    if found is None:
        found = _parse_einsum(equation, operands)
        if len(_PARSED) >= 1024:
            _PARSED.clear()
        _PARSED[key] = found
    return found


def _parse_einsum(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise TensorRuntimeError(
            "einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise TensorRuntimeError(
            "einsum(): more operands were provided than specified in the equation")
    parsed = []
    index = 0
    sizes = {}
    ell_ndim = 0
    for n, (term, t) in enumerate(zip(terms, operands, strict=True)):
        labels = _parse_term(term, index, n, f"operand {n}")
        index += len(term) + 1
        named = [lab for lab in labels if lab is not None]
        has_ell = None in labels
        if (not has_ell and len(named) != t.dim()) or (has_ell and len(named) > t.dim()):
            if has_ell:
                raise TensorRuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(named)}) is more "
                    f"than the number of dimensions ({t.dim()}) for operand {n}")
            raise TensorRuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not "
                f"match the number of dimensions ({t.dim()}) for operand {n} and no ellipsis "
                "was given")
        ell = t.dim() - len(named)
        ell_ndim = builtins.max(ell_ndim, ell if has_ell else 0)
        dims = []
        d = 0
        own = {}
        for lab in labels:
            if lab is None:
                d += ell
                continue
            size = t._shape[d]
            if lab in own and own[lab] != size:
                raise TensorRuntimeError(
                    f"einsum(): subscript {lab} is repeated for operand {n} but the sizes "
                    f"don't match, {size} != {own[lab]}")
            own[lab] = size
            dims.append((lab, d))
            d += 1
        for lab, size in own.items():
            seen = sizes.get(lab)
            if seen is not None and seen != size and seen != 1 and size != 1:
                raise TensorRuntimeError(
                    f"einsum(): subscript {lab} has size {size} for operand {n} which does not "
                    f"broadcast with previously seen size {seen}")
            sizes[lab] = size if seen is None or seen == 1 else seen
        parsed.append((labels, dims))
    if arrow:
        out = _parse_term(rhs, len(lhs) + 2, None, "output")
        seen_out = set()
        for lab in out:
            if lab is None:
                continue
            if lab in seen_out:
                raise TensorRuntimeError(
                    f"einsum(): output subscript {lab} appears more than once in the output")
            if lab not in sizes:
                raise TensorRuntimeError(
                    f"einsum(): output subscript {lab} does not appear in the equation for any "
                    "input operand")
            seen_out.add(lab)
    else:
        counts = {}
        for labels, _ in parsed:
            for lab in labels:
                if lab is not None:
                    counts[lab] = counts.get(lab, 0) + 1
        has_ell = builtins.any(None in labels for labels, _ in parsed)
        out = ([None] if has_ell else []) + sorted(lab for lab, c in counts.items() if c == 1)
    return eq, parsed, out, sizes


def einsum_arguments(args):
    """``(equation, operands)`` of an ``einsum`` call in any of PyTorch's forms: an equation
    and operands, an equation and one list of operands, or the sublist form (operands each
    followed by a list of subscripts, 0-51 or ``...``, then optionally the output's list)."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at "
            "least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        def letter(n):
            if n is Ellipsis:
                return "..."
            if 0 <= n < 26:
                return chr(ord("A") + n)
            if 26 <= n < 52:
                return chr(ord("a") + n - 26)
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)")

        equation = ",".join("".join(letter(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(letter(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    return equation, tuple(operands)


def _label_order(label):
    """ATen's subscript number of a label: A-Z are 0-25, a-z 26-51."""
    return ord(label) - (ord("A") if label < "a" else ord("a") - 26)


def einsum_steps(operands, parsed, out, explicit):
    """ATen's ``einsum`` with the public ops (each recording its node when autograd
    records): every operand's repeated labels taken as diagonals, missing labels unsqueezed
    and its dims permuted to (output labels, contracted labels); then, left to right, each
    pair multiplied and summed over the labels no later operand has, as ``bmm`` of permuted
    and reshaped operands (``sumproduct_pair``); the contracted dims viewed away (or, for
    one operand, summed). ``parsed``/``out``: ``_einsum_parse``'s labels (None for
    ``...``); ``explicit``: whether the equation has ``->``."""
    ell_num_dim = 0
    count = {}
    for t, (labels, _) in zip(operands, parsed, strict=True):
        if None in labels:
            ell_num_dim = builtins.max(ell_num_dim, t.dim() - (len(labels) - 1))
        for lab in labels:
            if lab is not None:
                count[lab] = count.get(lab, 0) + 1
    index = {}   # label -> its dim in the aligned operands
    perm_index = ell_index = 0
    ell_in_output = False
    if not explicit:   # the ellipsis, then the labels used once
        perm_index = ell_num_dim
        ell_in_output = True
        for lab in sorted(count, key=_label_order):
            if count[lab] == 1:
                index[lab] = perm_index
                perm_index += 1
    else:
        for lab in out:
            if lab is None:
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                index[lab] = perm_index
                perm_index += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lab in sorted(count, key=_label_order):
        if lab not in index:
            index[lab] = perm_index
            perm_index += 1
    # Align every operand to those dims, counting for each how many operands are not 1 there.
    dim_counts = [0] * perm_index
    ell_sizes = [1] * ell_num_dim
    ops = []
    for i, (t, (labels, _)) in enumerate(zip(operands, parsed, strict=True)):
        op = t
        permutation = [-1] * perm_index
        dim = 0
        for lab in labels:
            if lab is None:
                ndim = t.dim() - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            # (PyTorch's message, its missing space included)
                            raise TensorRuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand "
                                f"{i}has size {size} which does not broadcast with previously "
                                f"seen ellipsis with size {ell_sizes[j]} for the respective "
                                "dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[index[lab]] == -1:
                if op.shape[dim] != 1:
                    dim_counts[index[lab]] += 1
                permutation[index[lab]] = dim
                dim += 1
            else:   # a repeated label: its diagonal, where the label's first dim was
                prev = permutation[index[lab]]
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(permutation))
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sums, b_sums = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:   # no later operand has it: summed in this pair
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:   # only one of the pair has it: summed first
                if a.shape[dim] != 1:
                    a_sums.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sums.append(dim)
                    dim_counts[dim] = 0
        if a_sums:
            a = a.sum(a_sums, True)
        if b_sums:
            b = b.sum(b_sums, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if perm_index > out_num_dim:
        if len(operands) > 1:   # the contracted dims are all 1 by now
            return result.view(result.shape[:out_num_dim])
        return result.sum(list(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left, right, sum_dims):
    """ATen's ``sumproduct_pair`` (keepdim): ``(left * right).sum(sum_dims, True)`` for two
    aligned operands, as one ``bmm`` of their permuted, reshaped forms (or ``mul`` when
    nothing is summed)."""
    if not sum_dims:
        return left * right
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        # (PyTorch 2.13 swaps the pair when every dim only the right one has comes before
        # every dim only the left one has: the product is then laid out in dim order)
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) \
        + [right.shape[d] for d in ro]
    order = lro + lo + sum_dims + ro
    back = [0] * len(order)
    for k, d in enumerate(order):
        back[d] = k
    left = left.permute(order).reshape(lro_size, lo_size, sum_size)
    right = right.permute(lro + sum_dims + ro + lo).reshape(lro_size, sum_size, ro_size)
    return left.bmm(right).view(out_size).permute(back)


@register("copy", method=False)
def einsum(equation, *operands):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)``; ``...`` stands for broadcast dims,
    and without ``->`` the output is the labels used once, sorted. Operands must share a
    dtype. Computed as PyTorch does (``einsum_steps``: diagonals, permutes, ``bmm``), so
    the result is PyTorch's, a view where PyTorch's is (a single operand only permuted or
    diagonalised is a view of it).
    """
    equation, operands = einsum_arguments((equation,) + operands)
    eq, parsed, out = check_einsum(equation, operands)
    return untraced(einsum_steps, operands, parsed, out, "->" in eq)


def check_einsum(equation, operands):
    """``einsum``'s argument checks, PyTorch's errors: ``(equation without spaces, each
    operand's labels, the output's labels)``."""
    if not isinstance(equation, str):
        raise TensorTypeError(
            f"einsum(): argument 'equation' must be str, not {type_name(equation)}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"einsum(): argument 'operands' must be tuple of Tensors, but found element of "
                f"type {type(t).__name__} at pos {i}")
    if not operands:
        raise TensorRuntimeError("einsum(): must provide at least one operand")
    check_same_device(list(operands))
    eq, parsed, out, _sizes = _einsum_parse(equation, operands)
    dtype = operands[0]._dtype
    for t in operands[1:]:
        if t._dtype is not dtype:
            raise TensorRuntimeError(
                f"expected scalar type {_name(dtype)} but found {_name(t._dtype)}")
    return eq, parsed, out


# ---------------------------------------------------------------------- addmv, addbmm, addr
def _addmv_array(input, mat, vec, beta, alpha):
    device = _check_tensors("addmv", ("input", input), ("mat", mat), ("vec", vec))
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise TensorRuntimeError(
            f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}")
    if not (mat._dtype is vec._dtype is input._dtype):
        raise TensorRuntimeError(
            f"addmv input tensors must have the same dtype, but got {_name(input._dtype)}, "
            f"{_name(mat._dtype)}, and {_name(vec._dtype)}")
    rows, cols = mat._shape
    if cols != vec._shape[0] or (input.dim() == 1 and input._shape[0] not in (1, rows)):
        raise TensorRuntimeError(
            f"size mismatch, got input ({input._shape[0] if input.dim() else 1}), mat "
            f"({rows}x{cols}), vec ({vec._shape[0]})")
    _refuse_bool("addmv_impl_cpu", input._dtype)
    xp = _xp(input)
    with fp_quiet():
        r = xp.matmul(_work(mat), _work(vec))
        r = _scaled_sum(xp, _work(input), r, beta, alpha)
        r = xp.broadcast_to(r, (rows,))
    return device, xp, r


@register("copy")
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``; ``input`` broadcasts to ``(mat.size(0),)``."""
    device, xp, r = _addmv_array(input, mat, vec, beta, alpha)
    _check_product_out(out, "addmv", input._dtype)
    return _finish_product(addmv.op, (input, mat, vec), xp, r, input._dtype, device, out)


@register("inplace")
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """In-place ``addmv``: ``input`` must already have the result's shape."""
    _, _, r = _addmv_array(input, mat, vec, beta, alpha)
    if tuple(input._shape) != r.shape:
        raise TensorRuntimeError(
            f"Bad in-place call: input tensor size {list(input._shape)} and output tensor "
            f"size {list(r.shape)} should match")
    check_inplace(input)
    write_out(input, r)
    return input


def _addbmm_array(input, b1, b2, beta, alpha):
    device = _check_tensors("addbmm", ("input", input), ("batch1", b1), ("batch2", b2))
    if b1.dim() != 3:
        raise TensorRuntimeError("batch1 must be a 3D tensor")
    if b2.dim() != 3:
        raise TensorRuntimeError("batch2 must be a 3D tensor")
    (n, rows, k), (n2, k2, cols) = b1._shape, b2._shape
    if n != n2:
        raise TensorRuntimeError(
            f"batch1 and batch2 must have same number of batches, got {n} and {n2}")
    if k != k2:
        raise TensorRuntimeError(
            f"Incompatible matrix sizes for bmm ({rows}x{k} and {k2}x{cols})")
    if b1._dtype is not b2._dtype:
        raise TensorRuntimeError(
            f"expected scalar type {_name(b1._dtype)} but found {_name(b2._dtype)}")
    _check_add_base(input, (rows, cols), b1._dtype, "batch2")
    _refuse_bool("addmm_impl_cpu_", input._dtype)
    xp = _xp(input)
    with fp_quiet():
        prod = xp.matmul(_work(b1), _work(b2))
        r = prod.sum(axis=0) if n else xp.zeros((rows, cols), dtype=prod.dtype)
        r = _scaled_sum(xp, _work(input), r, beta, alpha)
        r = xp.broadcast_to(r, (rows, cols))
    return device, xp, r


@register("copy")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``; ``input`` broadcasts."""
    device, xp, r = _addbmm_array(input, batch1, batch2, beta, alpha)
    _check_product_out(out, "addbmm", input._dtype)
    return _finish_product(addbmm.op, (input, batch1, batch2), xp, r, input._dtype, device,
                           out)


@register("inplace", function=False)
def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``addbmm``."""
    _, _, r = _addbmm_array(input, batch1, batch2, beta, alpha)
    # like PyTorch, a broadcasting ``self`` is resized to the result's shape
    check_inplace(input)
    write_out(input, r)
    return input


def _addr_array(input, vec1, vec2, beta, alpha):
    device = _check_tensors("addr", ("input", input), ("vec1", vec1), ("vec2", vec2))
    if vec1.dim() != 1:
        raise TensorRuntimeError(
            f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
    if vec2.dim() != 1:
        raise TensorRuntimeError(
            f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    dtype = result_dtype([input, vec1, vec2])
    shape = (vec1._shape[0], vec2._shape[0])
    try:
        target = tuple(broadcast_shapes(tuple(input._shape), shape))
    except RuntimeError:
        target = None
    if target != shape:
        _check_add_base(input, shape, input._dtype, "vec2")
    xp = _xp(input)
    with fp_quiet():
        if dtype is _dtypes.bool_:
            prod = xp.logical_and(vec1._array()[:, None], vec2._array()[None, :])
            r = xp.logical_or(xp.logical_and(input._array(), bool(beta)),
                              xp.logical_and(prod, bool(alpha)))
        else:
            prod = xp.multiply(_work(vec1, dtype)[:, None], _work(vec2, dtype)[None, :])
            r = _scaled_sum(xp, _work(input, dtype), prod, beta, alpha)
        r = xp.broadcast_to(r, shape)
    return device, xp, r, dtype


@register("copy")
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``; ``input`` broadcasts."""
    device, xp, r, dtype = _addr_array(input, vec1, vec2, beta, alpha)
    check_out(out, "addr")
    return _finish_product(addr.op, (input, vec1, vec2), xp, r, dtype, device, out)


@register("inplace", function=False)
def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    """In-place ``addr``."""
    if isinstance(input, Tensor) and input.dim() != 2:
        raise TensorRuntimeError(f"2D tensor expected, got {input.dim()}D tensor for input")
    _, _, r, dtype = _addr_array(input, vec1, vec2, beta, alpha)
    if tuple(input._shape) != r.shape:
        raise TensorRuntimeError(
            f"size mismatch, input: {list(input._shape)}, v1: {list(vec1._shape)}, v2: "
            f"{list(vec2._shape)}")
    if not _dtypes.can_cast(dtype, input._dtype):
        raise TensorRuntimeError(
            f"result type {_name(dtype)} can't be cast to the desired output type "
            f"{_name(input._dtype)}")
    check_inplace(input)
    write_out(input, r)
    return input


# ---------------------------------------------------------------------- cross
@register("copy")
def cross(input, other, dim=None, *, out=None):
    """The 3-D cross product along ``dim`` (default: the first dim of size 3, deprecated)."""
    check_tensor(input, "cross")
    check_tensor(other, "cross", "other", 2)
    device = check_same_device([input, other])
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(f"expected scalar type {_dtypes_name(input._dtype)} but "
                                 f"found {_dtypes_name(other._dtype)}")
    if input.dim() != other.dim():
        raise TensorRuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions; got "
            f"{input.dim()} and {other.dim()}")
    shape = tuple(broadcast_shapes(tuple(input._shape), tuple(other._shape)))
    if dim is None:
        _warn_once("cross",
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.")
        found = [i for i, s in enumerate(shape) if s == 3]
        if not found:
            raise TensorRuntimeError(
                f"no dimension of size 3 in input (shape {list(shape)}); pass dim= explicitly")
        d = found[0]
    else:
        d = wrap_dim(dim, len(shape))
        if input._shape[d] != 3 or other._shape[d] != 3:
            raise TensorRuntimeError(
                f"linalg.cross: inputs dimension {d} must have length 3. Got "
                f"{input._shape[d]} and {other._shape[d]}")
    if input._dtype is _dtypes.bool_:
        raise _not_for("cross", input._dtype)
    check_out(out, "cross", input._dtype)
    xp = _xp(input)
    a = xp.broadcast_to(_work(input), shape)
    b = xp.broadcast_to(_work(other), shape)
    with fp_quiet():
        r = xp.cross(a, b, axis=d)
    return _emit(cross.op, (input, other), xp, r, input._dtype, device, out)


def _dtypes_name(dtype):
    return dtype._torch_name


# ---------------------------------------------------------------------- cdist, inner
@register("copy", method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2`` (batched)."""
    check_tensor(x1, "cdist", "x1")
    check_tensor(x2, "cdist", "x2", 2)
    device = check_same_device([x1, x2])
    for label, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise TensorRuntimeError(
                f"cdist only supports at least 2D tensors, {label} got: {x.dim()}D")
    for label, x in (("X1", x1), ("X2", x2)):
        if x._dtype.category != _dtypes.FLOATING:
            raise TensorRuntimeError(
                f"cdist only supports floating-point dtypes, {label} got: "
                f"{x._dtype._torch_name}")
    if x1._shape[-1] != x2._shape[-1]:
        raise TensorRuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
            f"{x2._shape[-1]}")
    if x1._dtype is not x2._dtype:
        raise TensorRuntimeError(f"expected scalar type {x1._dtype._torch_name} but found "
                                 f"{x2._dtype._torch_name}")
    if not p >= 0:
        raise TensorRuntimeError(f"cdist only supports non-negative p values, got p={p}")
    batch = tuple(broadcast_shapes(tuple(x1._shape[:-2]), tuple(x2._shape[:-2])))
    if x1._dtype in _LOW:
        raise _not_for("cdist", x1._dtype)
    xp = _xp(x1)
    a = xp.broadcast_to(x1._array(), batch + tuple(x1._shape[-2:]))
    b = xp.broadcast_to(x2._array(), batch + tuple(x2._shape[-2:]))
    with fp_quiet():
        diffs = xp.abs(a[..., :, None, :] - b[..., None, :, :])
        if p == 0:
            r = xp.sum(diffs != 0, axis=-1)
        elif p == math.inf:
            # no ``initial=0``: CuPy's max has none (the |differences| are >= 0 or NaN)
            r = xp.max(diffs, axis=-1) if diffs.shape[-1] else \
                xp.zeros(diffs.shape[:-1], dtype=diffs.dtype)
        elif p == 1:
            r = xp.sum(diffs, axis=-1)
        elif p == 2:
            r = xp.sqrt(xp.sum(diffs * diffs, axis=-1))
        else:
            r = xp.sum(diffs ** p, axis=-1) ** (1.0 / p)
    return wrap_result(xp, r, x1._dtype, device)


@register("copy")
def inner(input, other, *, out=None):
    """Sum of products over the last dims of ``input`` and ``other`` (a product if either
    is 0-d)."""
    check_tensor(input, "inner")
    check_tensor(other, "inner", "other", 2)
    device = check_same_device([input, other])
    xp = _xp(input)
    if input.dim() == 0 or other.dim() == 0:
        dtype = result_dtype([input, other])
        check_out(out, "inner")
        with fp_quiet():
            r = xp.multiply(_work(input, dtype), _work(other, dtype))
        return _emit(inner.op, (input, other), xp, r, dtype, device, out)
    if input._shape[-1] != other._shape[-1]:
        raise TensorRuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input._shape)} and {list(other._shape)}")
    if input._dtype is not other._dtype:
        raise TensorRuntimeError(
            f"both inputs should have same dtype; got {input._dtype._torch_name} and "
            f"{other._dtype._torch_name}")
    if input._dtype is _dtypes.bool_:
        raise _not_for("addmm_impl_cpu_" if input.dim() > 1 or other.dim() > 1 else "dot",
                       input._dtype)
    check_out(out, "inner")
    with fp_quiet():
        r = xp.tensordot(_work(input), _work(other), axes=([-1], [-1]))
    return _emit(inner.op, (input, other), xp, r, input._dtype, device, out)


# ---------------------------------------------------------------------- chain_matmul
@register("copy", method=False)
def chain_matmul(*matrices, out=None):
    """The product of the 2-D ``matrices`` (deprecated: use ``linalg.multi_dot``)."""
    _warn_once("chain_matmul",
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.")
    if not matrices:
        raise TensorRuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        check_tensor(m, "chain_matmul", "matrices", i + 1)
        if m.dim() != 2:
            raise TensorRuntimeError(
                f"Tensor dimension is {m.dim()}, expected 2 instead (matrix {i} has shape "
                f"{list(m._shape)}).")
    device = check_same_device(list(matrices))
    xp = _xp(matrices[0])
    first = matrices[0]
    if len(matrices) == 1:
        check_out(out, "chain_matmul")
        a = first._array()
        if out is not None:
            write_out(out, a)
            return out
        result = _with_strides(xp, a.copy(), first._dtype, device,
                               dense_strides_like(tuple(first._shape), tuple(first._stride)))
        return result
    for i, m in enumerate(matrices[1:], 1):
        if m._dtype is not first._dtype:
            raise TensorRuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_c_type(first._dtype)} and tensor {i} {_c_type(m._dtype)}")
    for i in range(len(matrices) - 1):
        a, b = matrices[i], matrices[i + 1]
        if a._shape[1] != b._shape[0]:
            raise TensorRuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a._shape)} and "
                f"{list(b._shape)} cannot be multiplied")
    if first._dtype is _dtypes.bool_:
        raise _not_for("addmm_impl_cpu_", first._dtype)
    check_out(out, "chain_matmul", first._dtype)
    with fp_quiet():
        r = _work(first)
        for m in matrices[1:]:
            r = xp.matmul(r, _work(m))
    return _emit(chain_matmul.op, matrices, xp, r, first._dtype, device, out)
