"""Raw array arithmetic for backward passes that build no graph (``create_graph=False``).

In such a pass the gradients are plain values: no history, no trace events, no version
bumps are wanted, so the hottest formulas (``mul``, ``sum``) and the engine (summing
gradients, filling ``.grad``) compute on the backend arrays directly and skip the
per-op bookkeeping. With ``create_graph=True`` they use the public ops instead, which
record the graph of the backward itself.
"""

import numpy as np

from ..._arraymod import c_copy
from ..._device import CPU_BACKEND
from ..._dispatch import grad_mode, transforms
from ..._elementwise import contiguous_result_shape, run_compute, zero_where
from ... import _dtypes
from ..._tensor import Tensor, fresh_tensor, plain_cpu_floats
from ..graph import SavedTensor

_COMPLEX = _dtypes.COMPLEX


def plain():
    """True when this backward pass records nothing and runs under no function transform
    (so raw arithmetic is equivalent: under ``vmap`` the ops must see batched tensors)."""
    return not grad_mode.enabled and not transforms.active


def saved(ctx, key):
    """``ctx.<key>`` for a formula that reads the saved tensor's values only: in a plain pass
    (see ``plain``) checked as ``ctx.<key>`` checks it, without the alias that gives a saved
    output its node back (``SavedTensor.values``); ``ctx.<key>`` itself in a recording one."""
    saved = ctx._saved
    entry = saved.get(key) if saved is not None else None
    if entry.__class__ is SavedTensor and plain():
        return entry.values(ctx)
    return getattr(ctx, key)


def _arr(x):
    return x._array() if isinstance(x, Tensor) else x


def same_kind(g, *operands):
    """Whether NumPy's result dtype for ``g`` with ``operands`` is PyTorch's: real floating
    tensors of ``g``'s dtype, or Python floats and ints."""
    dtype = g._dtype
    if dtype.category == _COMPLEX:
        return False
    for x in operands:
        if isinstance(x, Tensor):
            if x._dtype is not dtype:
                return False
        elif x.__class__ is not float and x.__class__ is not int:
            return False
    return True


def mul(a, b):
    """``a * b`` for gradients (NumPy's promotion agrees with PyTorch's for these:
    float tensors with float tensors or Python numbers)."""
    if a.__class__ is Tensor and b.__class__ is Tensor:   # (the common case, unpacked)
        storage = a._storage
        return _wrap(storage._backend.xp.multiply(a._array(), b._array()), a._dtype, storage)
    t = a if isinstance(a, Tensor) else b
    xp = t._storage._backend.xp
    return Tensor._from_array(xp.multiply(_arr(a), _arr(b)), device=t.device)


def add(a, b):
    storage = a._storage
    return _wrap(storage._backend.xp.add(a._array(), b._array()), a._dtype, storage)


def _wrap(r, dtype, storage):
    """``Tensor._from_array(r, dtype, storage.device)`` for the result ``r`` of a ufunc on
    arrays of ``storage``'s backend: a fresh C-contiguous NumPy array of ``dtype`` (the
    common case) becomes the tensor directly."""
    if r.__class__ is np.ndarray and r.dtype == dtype.numpy and r.shape \
            and r.flags.c_contiguous:
        return fresh_tensor(Tensor, r, r.shape, dtype, storage.device, storage._backend)
    return Tensor._from_array(r, dtype, storage.device)


def expand(g, shape):
    """A stride-0 broadcast of ``g`` to ``shape`` (``g`` has as many or fewer dims)."""
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    if g._shape:
        lead = len(shape) - len(g._shape)
        stride = [0] * lead
        for size, target, st in zip(g._shape, shape[lead:], g._stride, strict=True):
            stride.append(0 if size == 1 and target != 1 else st)
        stride = tuple(stride)
        byte_strides = None
    else:   # (a full sum's 0-d gradient, the commonest: every stride 0)
        stride = byte_strides = (0,) * len(shape)
    array = None
    storage = g._storage
    if storage._backend is CPU_BACKEND and g._offset == 0:
        source = g._array()
        if source.flags.c_contiguous:
            # The expanded array over ``g``'s own: its storage need not make the byte view
            # ``_array`` would go through.
            if byte_strides is None:
                itemsize = source.itemsize
                byte_strides = tuple(s * itemsize for s in stride)
            array = np.ndarray(shape, source.dtype, source, 0, byte_strides)
    return Tensor._make(storage, shape, stride, g._offset, g._dtype, array=array)


def dense_copy(g):
    """A contiguous copy of ``g``'s values."""
    # (Not ascontiguousarray: it would turn a 0-d gradient into a 1-d one.)
    copied = c_copy(g._array())
    return Tensor._from_array(copied, g._dtype, g.device)


def threshold_grad(g, result):
    """ReLU's backward on the arrays: ``g`` where ``result > 0``, else 0 (NaN results pass
    the gradient, as PyTorch's ``threshold_backward``). None when it does not apply
    (complex, mixed dtypes, shapes that differ): the caller uses the ops.

    For NumPy's floating dtypes, one AND of ``g``'s bits with a mask (all ones where the
    gradient passes, zeros elsewhere): bit for bit ``where``'s result (+0.0 where masked,
    even under an inf or NaN or negative gradient, which a multiply by the mask would turn
    into NaN or -0.0), in well under half of ``where``'s time."""
    if g.__class__ is not Tensor or g._dtype is not result._dtype or g._shape != result._shape \
            or g.is_complex():
        return None
    xp = g._storage._backend.xp
    out = zero_where(xp, xp.less_equal(result._array(), 0), g._array())
    return Tensor._from_array(out, g._dtype, g.device)


def mm_grad(left, right, left_t, right_t, transpose_result, dtype):
    """A matrix product of two gradient-pass operands on the arrays: ``op(left) @
    op(right)`` (``op`` transposes when its flag is set), transposed back when
    ``transpose_result`` (the layout rule of ``linalg._mat1_grad``/``_mat2_grad``), as the
    public ``mm`` and ``t`` compute it: the same array product, with no per-op bookkeeping.
    None when it does not apply (a recorded or transformed pass, not CPU float32/float64 of
    one dtype, not 2-D)."""
    if not plain() or not plain_cpu_floats(left, right) or left._dtype is not right._dtype \
            or left._dtype is not dtype or len(left._shape) != 2 or len(right._shape) != 2:
        return None
    a, b = left._array(), right._array()
    try:
        r = np.matmul(a.T if left_t else a, b.T if right_t else b)
    except RuntimeWarning:
        with np.errstate(all="ignore"):
            r = np.matmul(a.T if left_t else a, b.T if right_t else b)
    return Tensor._from_array(r.T if transpose_result else r, dtype, left._storage.device)


def addmm_grads(node, g, need_i, need_1, need_2):
    """``addmm``'s gradients for alpha = beta = 1 (a linear layer's node) in a plain pass on
    the arrays, each already of its input's shape and layout (``linalg._mat1_grad`` and
    ``_mat2_grad``'s layout rule): the bias gradient summed over the broadcast rows as
    ``graph._fit`` sums it, the matrices' as ``mm_grad`` multiplies them. The same array
    calls as the general formula, without its per-input lookups and the fitting pass. None
    when it does not apply."""
    if not plain() or not plain_cpu_floats(g) or len(g._shape) != 2:
        return None
    meta = node._input_meta
    gi = None
    if need_i:
        gi = g if meta[0][0] == g._shape else sum_to(g, meta[0][0])
        if gi is None or gi._dtype is not meta[0][1]:
            return None
    grads = [gi, None, None]
    saved = node._saved
    for k, need, name in ((1, need_1, "mat2"), (2, need_2, "mat1")):
        if need:
            entry = saved.get(name) if saved is not None else None
            if entry.__class__ is not SavedTensor:
                return None
            grads[k] = product_grad(g, entry.values(node), meta[k], k == 1)
            if grads[k] is None:
                return None
    return grads


def product_grad(g, other, meta, first):
    """The gradient of a product's first (``first``) or second matrix on the arrays
    (``mm_grad``), in the layout ``meta`` (the input's metadata) records: for a column-major
    input (a transposed contiguous matrix, as ``linear``'s ``weight.t()``) the transposed
    product is computed and transposed back, so the gradient is column-major too (PyTorch's
    mm_mat1/mm_mat2_backward). None when ``mm_grad`` does not apply."""
    shape, stride = meta[0], meta[3]
    column = len(shape) == 2 and stride[0] == 1 and stride[1] == shape[0]
    if first:
        operands = (other, g, False, True) if column else (g, other, False, True)
    else:
        operands = (g, other, True, False) if column else (other, g, True, False)
    return mm_grad(*operands, column, g._dtype)


def sum_to(g, shape):
    """``graph.sum_to`` on the arrays for a CPU float32/float64 gradient (the bias gradient
    of a broadcast add, summed over the batch): the public ``sum``'s array call over the
    same axes. None when it does not apply (a recorded or transformed pass included)."""
    if not plain() or not plain_cpu_floats(g):
        return None
    gshape = g._shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        return None
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
        elif s != gshape[lead + i]:
            return None   # not a broadcast of ``shape``: the caller's error
    a = g._array()
    # (``ndarray.sum`` is this reduction behind a Python frame of NumPy's)
    try:
        r = _ADD_REDUCE(a, tuple(axes), None, None, True)
    except RuntimeWarning:
        with np.errstate(all="ignore"):
            r = _ADD_REDUCE(a, tuple(axes), None, None, True)
    r = r.reshape(shape)
    if r.__class__ is not np.ndarray or not r.flags.c_contiguous:
        return Tensor._from_array(r, g._dtype, g._storage.device)
    return fresh_tensor(Tensor, r, shape, g._dtype, g._storage.device, CPU_BACKEND)


_ADD_REDUCE = np.add.reduce


# Whether the formulas below (tanh, sigmoid, sub, div, mean, a full max or min) and
# ``x[key]``'s compute on the arrays in a plain pass. Off: the public ops, which the tests
# compare them with bit for bit (``tests/autograd/test_formula_arrays.py``).
FORMULA_ARRAYS = True


def arrays(*tensors, with_number=False):
    """The arrays of ``tensors`` for a formula's arithmetic in a plain pass: plain CPU
    float32/float64 tensors of the first one's dtype whose element-wise result (beside a
    number, ``with_number``) is contiguous, as TensorIterator lays it out (a gradient
    expanded from a sum beside a contiguous saved value, most often); else None (the
    formula takes the public ops). The array calls must be those the public ops make:
    NumPy's float32/float64 ufuncs, numbers cast to the dtype first (``number``)."""
    if not FORMULA_ARRAYS or not plain() or not plain_cpu_floats(*tensors):
        return None
    dtype = tensors[0]._dtype
    for t in tensors:
        if t._dtype is not dtype:
            return None
    if len(tensors) > 1 or with_number or not (
            tensors[0]._contiguous or tensors[0].is_contiguous()):
        operands = tensors + (None,) if with_number else tensors
        if contiguous_result_shape(*operands) is None:
            return None
    return [t._array() for t in tensors]


def number(value, like):
    """A Python float or int as the public ops pass it beside an array of ``like``'s dtype
    (``_elementwise._scalar_array`` for float32/float64), or None for anything else."""
    if value.__class__ is float or (value.__class__ is int and -2**53 <= value <= 2**53):
        return np.asarray(value, dtype=like.dtype)
    return None


def wrap(array, like):
    """``array`` (a fresh result, laid out row-major as the public op's) as a tensor of
    ``like``'s dtype and device."""
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return Tensor._from_array(array, like._dtype, like._storage.device)


def scaled(g, factor):
    """``g * factor`` for a Python number ``factor`` (``g * -1``: sub's other gradient)."""
    found = arrays(g, with_number=True)
    f = number(factor, found[0]) if found is not None else None
    if f is None:
        return None
    return wrap(np.multiply(found[0], f), g)


def divided(g, divisor):
    """``g / divisor`` for a tensor of ``g``'s shape and dtype, or a Python number."""
    if isinstance(divisor, Tensor):
        if divisor._shape != g._shape:
            return None
        found = arrays(g, divisor)
        if found is None:
            return None
        ga, b = found
    else:
        found = arrays(g, with_number=True)
        b = number(divisor, found[0]) if found is not None else None
        if b is None:
            return None
        ga = found[0]
    return wrap(run_compute(np, "divide", (ga, b)), g)


def evenly_distributed(g, x, value):
    """``_evenly_distribute`` (a full max/min's backward): ``mask * (g / mask.sum())`` with
    ``mask = (x == value) | (isnan(x) & isnan(value))``, as the public ops compute it."""
    if g._shape or value._shape:
        return None
    found = arrays(g, x, value)
    if found is None:
        return None
    ga, xa, va = found
    mask = np.equal(xa, va)
    np.logical_or(mask, np.logical_and(np.isnan(xa), np.isnan(va)), out=mask)
    share = run_compute(np, "divide", (ga, np.asarray(mask.sum(), dtype=ga.dtype)))
    return wrap(np.multiply(mask.astype(ga.dtype), share), g)
