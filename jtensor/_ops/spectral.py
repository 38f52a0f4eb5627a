"""``torch.fft``: discrete Fourier transforms (registered as ``fft_<name>``, exposed by
``jtensor/fft.py`` under torch.fft's names) and the sample-frequency factories.

Every transform is one of PyTorch's three kernels, run with the backend's ``xp.fft``
(NumPy's pocketfft, CuPy's cuFFT), whose ``norm=`` labels mean exactly what PyTorch's do:

- c2c: complex to complex over ``dims`` (``fft``, ``ifft``, ``fftn``, ...);
- r2c: real to complex, one-sided over the last of ``dims`` (``rfft``, ``rfftn``; ``fft``
  of a real input keeps both halves);
- c2r: one-sided complex to real, ``last_dim_size`` values along the last of ``dims``
  (``irfft``, ``irfftn``; several dims are a c2c over the others first, as PyTorch does).

``hfft``/``hfftn`` are c2r of the conjugate with the normalization mirrored, ``ihfft``/
``ihfftn`` the conjugate of r2c. Results are laid out as PyTorch's CPU (MKL) kernels lay
them out: the batch dims outermost by decreasing input stride, the transformed dims
innermost (in decreasing input stride too, except that a one-sided dim stays last). Each
kernel computes on the input transposed into that order, so its C-contiguous result
transposed back already has PyTorch's strides.
"""

import math

import numpy as np

from .. import _dtypes
from .._argparse import int_arg, int_list_arg
from .._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, type_name
from .._registry import register
from .._tensor import Tensor, new_empty_tensor
from .creation import _finalize, _place, check_requires_grad
from .reductions import quiet, write_out

_NORMS = ("backward", "ortho", "forward")
_MIRROR = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------------ arguments


def _check_input(name, input):
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, "
            f"not {type_name(input)}"
        )


def _norm(norm, name="fft"):
    """The normalization label (None is "backward"); PyTorch refuses any other string."""
    if norm is None:
        return "backward"
    if not isinstance(norm, str):
        raise TensorTypeError(
            f"fft_{name}(): argument 'norm' must be str, not {type_name(norm)}"
        )
    if norm not in _NORMS:
        raise TensorRuntimeError(
            f'Invalid normalization mode: "{norm}" (expected "backward", "ortho" or "forward")'
        )
    return norm


def mirror_norm(norm):
    """The label that scales the opposite direction alike: the adjoint of ``fft(norm=m)``
    is ``ifft(norm=mirror_norm(m))`` (both unscaled for "backward" → "forward")."""
    return _MIRROR[_norm(norm)]


def _wrap(dim, ndim):
    """A dim of the input; unlike most ops, a 0-d tensor has none (PyTorch's
    ``wrap_scalar=False``)."""
    if ndim == 0:
        raise TensorIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{-ndim}, {ndim - 1}], but got {dim})"
        )
    return dim % ndim


def _check_points(n):
    if n < 1:
        raise TensorRuntimeError(f"Invalid number of data points ({n}) specified")


def _dtype_for(name, input, complex_result):
    """PyTorch's FFT promotion: integers and bool give the default float; float16 and
    bfloat16 are refused on the CPU; ``complex_result`` asks for the complex counterpart."""
    dtype = input._dtype
    if dtype.category == _dtypes.COMPLEX:
        if dtype not in (_dtypes.complex64, _dtypes.complex128):
            raise TensorRuntimeError(f"Unsupported dtype {dtype._torch_name}")
        return dtype
    if dtype.category in (_dtypes.INTEGRAL, _dtypes.BOOL):
        dtype = _dtypes.get_default_dtype()
    if dtype not in (_dtypes.float32, _dtypes.float64):
        raise TensorRuntimeError(
            f"Unsupported dtype {dtype._torch_name}: the CPU FFT takes "
            "float32 or float64 (convert with .float())"
        )
    return dtype.to_complex() if complex_result else dtype


def _one_dim(name, input, n, dim):
    ndim = input.dim()
    dim = _wrap(int_arg(dim, f"fft_{name}", "dim", 3), ndim)
    if n is not None:
        n = int_arg(n, f"fft_{name}", "n", 2)
    return n, dim


def shape_and_dims(name, input, s, dim):
    """PyTorch's canonical (sizes, dims) of an n-dimensional transform: ``dim`` defaults to
    the last ``len(s)`` dims (all dims without ``s``), ``-1`` in ``s`` keeps a size."""
    ndim = input.dim()
    fname = f"fft_{name}"
    dims = None
    if dim is not None:
        dims = tuple(_wrap(d, ndim) for d in int_list_arg(dim, fname, "dim", 3))
        if len(set(dims)) != len(dims):
            raise TensorRuntimeError(f"FFT dims must be unique (got dim={list(dims)})")
    if s is not None:
        s = int_list_arg(s, fname, "s", 2)
        if dims is not None and len(dims) != len(s):
            raise TensorRuntimeError(
                "When given, dim and shape arguments must have the same length (got "
                f"s={list(s)}, dim={list(dims)})"
            )
        if len(s) > ndim:
            raise TensorRuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        sizes = tuple(input._shape[d] if n == -1 else n for n, d in zip(s, dims, strict=True))
    elif dims is None:
        dims = tuple(range(ndim))
        sizes = tuple(input._shape)
    else:
        sizes = tuple(input._shape[d] for d in dims)
    for n in sizes:
        _check_points(n)
    return sizes, dims


def _check_out(name, out, complex_result):
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TensorTypeError(
            f"fft_{name}(): argument 'out' must be Tensor, not {type_name(out)}"
        )
    category = out._dtype.category
    if complex_result and category != _dtypes.COMPLEX:
        raise TensorRuntimeError(
            f"{name} expects a complex output tensor, but got {out._dtype._torch_name}"
        )
    if not complex_result and category != _dtypes.FLOATING:
        raise TensorRuntimeError(
            f"{name} expects a floating point output tensor, but got {out._dtype._torch_name}"
        )


# ------------------------------------------------------------------------ layout


def _partition(order, keep):
    """libstdc++'s ``std::partition`` (the swapping one), which ATen uses to put the batch
    dims first: its order decides ties between batch dims of equal stride."""
    order = list(order)
    first, last = 0, len(order)
    while True:
        while first != last and keep(order[first]):
            first += 1
        if first == last:
            return order, first
        last -= 1
        while first != last and not keep(order[last]):
            last -= 1
        if first == last:
            return order, first
        order[first], order[last] = order[last], order[first]
        first += 1


def _by_stride(dims, stride):
    # ATen's std::sort on a handful of dims is an insertion sort: stable.
    return sorted(dims, key=lambda d: -stride[d])


def _exec_order(ndim, stride, dims):
    """ATen's ``_exec_fft`` permutation: batch dims by decreasing stride, then ``dims``."""
    transformed = set(dims)
    order, end = _partition(range(ndim), lambda d: d not in transformed)
    return _by_stride(order[:end], stride) + list(dims)


def _run_kernel(xp, array, stride, dims, kernel):
    """``kernel(moved, k)`` on ``array`` transposed into the exec order (transformed dims
    last, ``k`` of them). Returns (result, its element strides): ATen's, which differ from
    NumPy's only for dims of size 1 (the result is laid out over the same memory)."""
    ndim = array.ndim
    order = _exec_order(ndim, stride, dims)
    result = xp.ascontiguousarray(kernel(array.transpose(order), len(dims)))
    moved_shape = result.shape
    k = len(dims)
    out_stride = [0] * ndim
    step = 1
    for position in range(ndim - 1, ndim - k - 1, -1):  # contiguous (batch, signal...)
        out_stride[order[position]] = step
        step *= max(moved_shape[position], 1)
    batch_numel = 1
    for position in range(ndim - k - 1, -1, -1):
        out_stride[order[position]] = batch_numel * step
        batch_numel *= moved_shape[position]
    shape = [0] * ndim
    for position, d in enumerate(order):
        shape[d] = moved_shape[position]
    itemsize = result.itemsize
    laid = xp.lib.stride_tricks.as_strided(
        result, tuple(shape), tuple(st * itemsize for st in out_stride)
    )
    return laid, tuple(out_stride)


def _c2c(xp, array, stride, dims, norm, forward):
    dims = _by_stride(dims, stride)
    if not dims:
        # No dim to transform: a copy keeping the layout (PyTorch's clone).
        from .._layout import dense_strides_like

        stride = dense_strides_like(array.shape, stride)
        return _restrided(array, stride), stride
    transform = xp.fft.fftn if forward else xp.fft.ifftn
    return _run_kernel(
        xp,
        array,
        stride,
        dims,
        lambda a, k: transform(a, axes=tuple(range(a.ndim - k, a.ndim)), norm=norm),
    )


def _r2c(xp, array, stride, dims, norm):
    """One-sided forward transform: the last of ``dims`` keeps its place (halved)."""
    dims = _by_stride(dims[:-1], stride) + [dims[-1]]
    return _run_kernel(
        xp,
        array,
        stride,
        dims,
        lambda a, k: xp.fft.rfftn(a, axes=tuple(range(a.ndim - k, a.ndim)), norm=norm),
    )


def _c2r(xp, array, stride, dims, norm, last_dim_size):
    """Inverse one-sided transform; several dims: an inverse c2c over all but the last
    first (so the per-part labels multiply to the whole transform's scale)."""
    dims = list(dims)
    if len(dims) > 1:
        array, stride = _c2c(xp, array, stride, dims[:-1], norm, False)
    return _run_kernel(
        xp,
        array,
        stride,
        dims[-1:],
        lambda a, k: xp.fft.irfft(a, n=last_dim_size, axis=-1, norm=norm),
    )


def _resized(xp, array, stride, dims, sizes):
    """The input cut or zero-padded to ``sizes`` along ``dims`` (PyTorch's
    ``resize_fft_input``: a cut is a view keeping the strides, a pad a contiguous copy)."""
    pad = False
    index = [slice(None)] * array.ndim
    for d, n in zip(dims, sizes, strict=True):
        if array.shape[d] > n:
            index[d] = slice(0, n)
        elif array.shape[d] < n:
            pad = True
    array = array[tuple(index)]
    if not pad:
        return array, stride
    shape = list(array.shape)
    for d, n in zip(dims, sizes, strict=True):
        shape[d] = max(shape[d], n)
    padded = xp.zeros(tuple(shape), dtype=array.dtype)
    padded[tuple(slice(0, m) for m in array.shape)] = array
    from .._layout import contiguous_strides

    return padded, contiguous_strides(tuple(shape))


def _source(input, dtype):
    """The input's array in ``dtype`` and its element strides (a conversion keeps a dense
    layout, as ``Tensor.to``)."""
    array = input._array()
    stride = tuple(input._stride)
    if array.dtype != dtype.numpy:
        from .._layout import dense_strides_like

        stride = dense_strides_like(tuple(input._shape), stride)
        converted = array.astype(dtype.numpy)
        array = _restrided(converted, stride)
    return array, stride


def _restrided(array, stride):
    """``array``'s values laid out with ``stride`` (dense; C-order of the stride order)."""
    order = sorted(range(array.ndim), key=lambda d: -stride[d])
    inverse = [0] * array.ndim
    for position, d in enumerate(order):
        inverse[d] = position
    return array.transpose(order).copy().transpose(inverse)


def _check_batch(name, array):
    if array.size == 0:
        raise TensorRuntimeError(
            f"{name}: the input has no elements (shape {list(array.shape)}): PyTorch's CPU FFT "
            "refuses an empty batch too"
        )


def _wrap_result(array, stride, dtype, device, out):
    """The result tensor with ATen's strides ``stride`` (built explicitly: NumPy calls an
    array contiguous whatever the strides of its size-1 dims), or ``out=`` written."""
    if out is not None:
        return write_out(out, array)
    result = new_empty_tensor(array.shape, dtype, device, stride=stride)
    result._array()[...] = array
    return result


# ------------------------------------------------------------------------ transforms


def _complex_transform(name, input, sizes, dims, norm, forward, out):
    """fft/ifft/fftn/ifftn: c2c. A real input of the n-d forms is converted to complex first
    (a dense copy); the 1-d forms transform it as it is (PyTorch's r2c keeping both halves,
    the same values and layout)."""
    norm = _norm(norm, name)
    result_dtype = _dtype_for(name, input, True)
    _check_out("fftn" if name in ("fft2", "ifft2", "fftn", "ifftn") else name, out, True)
    xp = input._storage._backend.xp
    source_dtype = result_dtype
    if name in ("fft", "ifft"):
        source_dtype = _dtype_for(name, input, False)
    array, stride = _source(input, source_dtype)
    array, stride = _resized(xp, array, stride, dims, sizes)
    if dims:
        _check_batch(name, array)
    with quiet():
        if not forward and name == "ifft" and input._dtype.category != _dtypes.COMPLEX:
            # PyTorch's ifft of a real input is r2c: the conjugate of the forward transform
            # (scaled as the inverse), so the DC term's imaginary part is -0.
            result, stride = _c2c(xp, array, stride, list(dims), _MIRROR[norm], True)
            result = xp.conj(result)
        else:
            result, stride = _c2c(xp, array, stride, list(dims), norm, forward)
    return _wrap_result(result, stride, result_dtype, input.device, out)


def _real_check(name, input, nd):
    if input._dtype.category == _dtypes.COMPLEX:
        if nd:
            if name == "ihfftn":
                raise TensorRuntimeError(
                    f"Only supports floating-point dtypes, but found: {input._dtype._torch_name}"
                    " (ihfftn takes a real input)"
                )
            raise TensorRuntimeError(
                f"{name} expects a real-valued input tensor, but got {input._dtype._torch_name}"
            )
        raise TensorRuntimeError(
            f"{name} expects a real input tensor, but got {input._dtype._torch_name}"
        )


def _real_to_complex(name, input, sizes, dims, norm, conjugate, out, nd):
    """rfft/rfftn, and ihfft/ihfftn (``conjugate``: the conjugate of r2c with the mirrored
    label; for several dims PyTorch runs r2c over the last dim, then an inverse c2c over the
    others, which sets the layout)."""
    _real_check(name, input, nd)
    norm = _norm(norm, name)
    dtype = _dtype_for(name, input, False)
    _check_out(name, out, True)
    xp = input._storage._backend.xp
    array, stride = _source(input, dtype)
    array, stride = _resized(xp, array, stride, dims, sizes)
    _check_batch(name, array)
    with quiet():
        if not conjugate:
            result, stride = _r2c(xp, array, stride, list(dims), norm)
        else:
            result, stride = _r2c(xp, array, stride, list(dims[-1:]), _MIRROR[norm])
            result = xp.conj(result)
            if len(dims) > 1:
                result, stride = _c2c(xp, result, stride, list(dims[:-1]), norm, False)
    return _wrap_result(result, stride, dtype.to_complex(), input.device, out)


def _complex_to_real(name, input, sizes, dims, last_dim_size, norm, conjugate, out):
    """irfft/irfftn, and hfft/hfftn (``conjugate``: c2r of the conjugate, label mirrored)."""
    norm = _norm(norm, name)
    dtype = _dtype_for(name, input, True)
    _check_out(name, out, False)
    xp = input._storage._backend.xp
    array, stride = _source(input, dtype)
    array, stride = _resized(xp, array, stride, dims, sizes)
    _check_batch(name, array)
    with quiet():
        if conjugate:
            # PyTorch's hfftn conjugates after the forward c2c over the other dims: the
            # same values as an inverse c2c of the conjugate, and the same layouts.
            array = xp.conj(array)
            norm = _MIRROR[norm]
        result, stride = _c2r(xp, array, stride, list(dims), norm, last_dim_size)
    return _wrap_result(result, stride, dtype.to_real(), input.device, out)


def _c2r_sizes(name, input, s, dim):
    """(input sizes after the resize, dims, last_dim_size) of a c2r transform."""
    sizes, dims = shape_and_dims(name, input, s, dim)
    if not dims:
        raise TensorRuntimeError(f"{name} must transform at least one axis")
    if s is None or int_list_arg(s, f"fft_{name}", "s", 2)[-1] == -1:
        last = 2 * (input._shape[dims[-1]] - 1)
    else:
        last = sizes[-1]
    _check_points(last)
    return sizes[:-1] + (last // 2 + 1,), dims, last


@register("copy", name="fft_fft", method=False, function=False)
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional discrete Fourier transform (``torch.fft.fft``): ``n`` points along
    ``dim`` (cut or zero-padded), ``norm`` "backward" (no scaling), "ortho" or "forward"."""
    _check_input("fft", input)
    n, dim = _one_dim("fft", input, n, dim)
    size = input._shape[dim] if n is None else n
    _check_points(size)
    return _complex_transform("fft", input, (size,), (dim,), norm, True, out)


@register("copy", name="fft_ifft", method=False, function=False)
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional inverse discrete Fourier transform (``torch.fft.ifft``); "backward"
    scales by ``1/n``."""
    _check_input("ifft", input)
    n, dim = _one_dim("ifft", input, n, dim)
    size = input._shape[dim] if n is None else n
    _check_points(size)
    return _complex_transform("ifft", input, (size,), (dim,), norm, False, out)


@register("copy", name="fft_rfft", method=False, function=False)
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Fourier transform of a real signal, the ``n // 2 + 1`` non-negative frequencies
    (``torch.fft.rfft``)."""
    _check_input("rfft", input)
    _real_check("rfft", input, False)
    n, dim = _one_dim("rfft", input, n, dim)
    size = input._shape[dim] if n is None else n
    _check_points(size)
    return _real_to_complex("rfft", input, (size,), (dim,), norm, False, out, False)


@register("copy", name="fft_irfft", method=False, function=False)
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of :func:`rfft`: ``n`` real values (default ``2 * (m - 1)`` for ``m`` input
    frequencies) from a one-sided spectrum (``torch.fft.irfft``)."""
    _check_input("irfft", input)
    n, dim = _one_dim("irfft", input, n, dim)
    last = 2 * (input._shape[dim] - 1) if n is None else n
    _check_points(last)
    return _complex_to_real("irfft", input, (last // 2 + 1,), (dim,), last, norm, False, out)


@register("copy", name="fft_hfft", method=False, function=False)
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a real
    result of ``n`` values (``torch.fft.hfft``)."""
    _check_input("hfft", input)
    n, dim = _one_dim("hfft", input, n, dim)
    last = 2 * (input._shape[dim] - 1) if n is None else n
    _check_points(last)
    return _complex_to_real("hfft", input, (last // 2 + 1,), (dim,), last, norm, True, out)


@register("copy", name="fft_ihfft", method=False, function=False)
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of :func:`hfft`: the one-sided inverse transform of a real signal
    (``torch.fft.ihfft``)."""
    _check_input("ihfft", input)
    _real_check("ihfft", input, False)
    n, dim = _one_dim("ihfft", input, n, dim)
    size = input._shape[dim] if n is None else n
    _check_points(size)
    return _real_to_complex("ihfft", input, (size,), (dim,), norm, True, out, False)


def _nd(name, kind, doc, default_dim=None):
    """Define ``fft_<name>`` (n-dimensional; ``default_dim`` (-2, -1) for the 2-d forms)."""
    if kind in ("c2c", "c2c_inverse"):

        def run(input, s, dim, norm, out):
            sizes, dims = shape_and_dims(name, input, s, dim)
            return _complex_transform(name, input, sizes, dims, norm, kind == "c2c", out)
    elif kind in ("r2c", "ihfft"):

        def run(input, s, dim, norm, out):
            base = "ihfftn" if kind == "ihfft" else "rfftn"
            if kind == "r2c":  # ihfftn finds a complex input later, in its kernel
                _real_check(base, input, True)
            sizes, dims = shape_and_dims(name, input, s, dim)
            _real_check(base, input, True)
            if not dims:
                raise TensorRuntimeError(f"{base} must transform at least one axis")
            return _real_to_complex(base, input, sizes, dims, norm, kind == "ihfft", out, True)
    else:

        def run(input, s, dim, norm, out):
            base = "hfftn" if kind == "hfft" else "irfftn"
            sizes, dims, last = _c2r_sizes(base, input, s, dim)
            return _complex_to_real(base, input, sizes, dims, last, norm, kind == "hfft", out)

    if default_dim is None:

        def impl(input, s=None, dim=None, norm=None, *, out=None):
            _check_input(name, input)
            return run(input, s, dim, norm, out)
    else:

        def impl(input, s=None, dim=(-2, -1), norm=None, *, out=None):
            _check_input(name, input)
            return run(input, s, dim, norm, out)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = doc
    return register("copy", name=f"fft_{name}", method=False, function=False)(impl)


_ND_DOC = (
    "{what} over the dims ``dim`` (default {dims}) with sizes ``s`` (each cut or "
    "zero-padded; -1 keeps a size), normalized by ``norm`` (``torch.fft.{name}``)."
)

for _name, _kind, _what in (
    ("fft2", "c2c", "Two-dimensional discrete Fourier transform"),
    ("ifft2", "c2c_inverse", "Two-dimensional inverse discrete Fourier transform"),
    ("rfft2", "r2c", "Two-dimensional Fourier transform of a real signal (one-sided)"),
    ("irfft2", "c2r", "Inverse of rfft2: a real result"),
    ("hfft2", "hfft", "Two-dimensional transform of a Hermitian signal's half: real"),
    ("ihfft2", "ihfft", "Inverse of hfft2 (one-sided, of a real signal)"),
):
    globals()[_name] = _nd(
        _name,
        _kind,
        _ND_DOC.format(what=_what, dims="the last two", name=_name),
        default_dim=(-2, -1),
    )

for _name, _kind, _what in (
    ("fftn", "c2c", "N-dimensional discrete Fourier transform"),
    ("ifftn", "c2c_inverse", "N-dimensional inverse discrete Fourier transform"),
    ("rfftn", "r2c", "N-dimensional Fourier transform of a real signal (one-sided)"),
    ("irfftn", "c2r", "Inverse of rfftn: a real result"),
    ("hfftn", "hfft", "N-dimensional transform of a Hermitian signal's half: real"),
    ("ihfftn", "ihfft", "Inverse of hfftn (one-sided, of a real signal)"),
):
    globals()[_name] = _nd(_name, _kind, _ND_DOC.format(what=_what, dims="all", name=_name))


# ------------------------------------------------------------------------ frequencies


def _frequencies(name, n, d, out, dtype, device, requires_grad, onesided):
    n = int_arg(n, f"fft_{name}", "n", 1)
    if isinstance(d, Tensor):
        d = d.item()
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TensorTypeError(
            f"fft_{name}(): argument 'd' (position 2) must be float, not {type_name(d)}"
        )
    if dtype is None:
        dtype = out._dtype if out is not None else _dtypes.get_default_dtype()
    dtype = _dtypes.to_dtype(dtype)
    if dtype.category == _dtypes.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype._torch_name}'")
    if dtype.category not in (_dtypes.FLOATING,):
        raise TensorRuntimeError(f"{name} requires a floating point or complex dtype (got {dtype})")
    # C++ division truncates: rfftfreq(-1) has one element (-0.0), as in PyTorch.
    count = (abs(n) // 2 * (1 if n >= 0 else -1)) + 1 if onesided else n
    if count < 0:
        raise TensorRuntimeError(
            f"Trying to create tensor with negative dimension {count}: [{count}]"
        )
    check_requires_grad(dtype, requires_grad)
    # PyTorch: arange in the result dtype (the upper half counting up from -(n // 2)), then
    # multiplied by 1 / (n * d), a double rounded to the computation's precision (float32
    # for float16/bfloat16).
    work = np.dtype(
        np.float32 if dtype in (_dtypes.float16, _dtypes.bfloat16) else dtype.numpy
    ).type
    values = np.arange(count, dtype=np.float64)
    if not onesided:
        values[(n + 1) // 2 :] -= n
    with np.errstate(all="ignore"):
        scale = 1.0 / (n * d) if n * d != 0 else math.copysign(math.inf, d) if n else math.nan
        values = (values.astype(dtype.numpy).astype(work) * work(scale)).astype(dtype.numpy)
    if out is not None:
        from .creation import write_factory_out

        return write_factory_out(
            fft_fftfreq.op if not onesided else fft_rfftfreq.op,
            out,
            (count,),
            values,
            requires_grad,
        )
    return _finalize(_place(values, dtype, device), requires_grad)


@register("factory", name="fft_fftfreq", method=False, function=False)
def fft_fftfreq(
    n,
    d=1.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The sample frequencies of an ``n``-point transform with spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)`` (``torch.fft.fftfreq``)."""
    return _frequencies("fftfreq", n, d, out, dtype, device, requires_grad, False)


@register("factory", name="fft_rfftfreq", method=False, function=False)
def fft_rfftfreq(
    n,
    d=1.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The non-negative sample frequencies of :func:`rfft`: ``[0, ..., n // 2] / (d * n)``
    (``torch.fft.rfftfreq``)."""
    return _frequencies("rfftfreq", n, d, out, dtype, device, requires_grad, True)
