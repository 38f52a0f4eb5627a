"""``axpy`` (``y += alpha * x``) from the OpenBLAS that NumPy's wheels ship with.

PyTorch's CPU ``add(input, other, alpha=a)`` (and so ``sub`` with an alpha, ``add_``, and
every SGD step, ``p.add_(grad, alpha=-lr)``) computes ``input + a * other`` as one fused
multiply-add per element: one rounding. NumPy has no fused multiply-add, and ``other * a``
then ``input + that`` rounds twice, so about one element in ten (float32 or float64) came out
one unit in the last place away from PyTorch's, and a training run drifted from PyTorch's
step by step. OpenBLAS's ``saxpy``/``daxpy`` kernels are fused multiply-adds too: the same
bits as PyTorch's kernel, in one pass instead of two.

The library is NumPy's own, already loaded (``numpy.libs/libscipy_openblas64_*`` on Linux,
``numpy/.dylibs`` on macOS): it is found on first use, and where it is not (a NumPy built
against another BLAS) ``axpy`` answers False and the callers compute with NumPy as before.
"""

import ctypes
import glob
import os
import threading

import numpy as np

_FUNCTIONS = None   # dtype -> the ctypes function, once looked up ({} when there is none)


def _load():
    """The axpy functions of NumPy's bundled OpenBLAS, by dtype ({} when not found)."""
    base = os.path.dirname(np.__file__)
    patterns = (os.path.join(base + ".libs", "libscipy_openblas64_*"),
                os.path.join(base, ".dylibs", "libscipy_openblas64_*"),
                os.path.join(base, ".libs", "libscipy_openblas64_*"))
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            try:
                lib = ctypes.CDLL(path)
                single, double = lib.scipy_cblas_saxpy64_, lib.scipy_cblas_daxpy64_
            except (OSError, AttributeError):
                continue
            functions = {}
            for dtype, fn, scalar in ((np.dtype(np.float32), single, ctypes.c_float),
                                      (np.dtype(np.float64), double, ctypes.c_double)):
                # (n, alpha, x, incx, y, incy): the 64-bit integer interface
                fn.argtypes = (ctypes.c_int64, scalar, ctypes.c_void_p, ctypes.c_int64,
                               ctypes.c_void_p, ctypes.c_int64)
                fn.restype = None
                functions[dtype] = fn
            return functions
    return {}


def _functions():
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _load()
    return _FUNCTIONS


def axpy(alpha, x, y):
    """``y += alpha * x`` in place, one rounding an element (``alpha`` rounded to the arrays'
    dtype first, as PyTorch converts a Scalar), for C-contiguous float32/float64 arrays of one
    dtype and size, ``y`` writable and not overlapping ``x``. False, having done nothing,
    when there is no such BLAS function or the arrays are not of that kind."""
    fn = (_FUNCTIONS if _FUNCTIONS is not None else _functions()).get(y.dtype)
    if fn is None or x.dtype != y.dtype or x.size != y.size or y.__class__ is not np.ndarray \
            or x.__class__ is not np.ndarray or not x.flags.c_contiguous \
            or not y.flags.c_contiguous or not y.flags.writeable:
        return False
    n = y.size
    head = n - n % _BLOCK
    if head:
        # The addresses through the buffer protocol: a quarter of ``ndarray.ctypes``'s cost,
        # which builds a helper object per call (a read-only ``x`` does not export a
        # writable buffer, and takes that route).
        fn(head, alpha, _address(_char.from_buffer(x)) if x.flags.writeable
           else x.ctypes.data, 1, _address(_char.from_buffer(y)), 1)
    if head != n:
        # The last ``n % _BLOCK`` elements: OpenBLAS's kernels finish a vector with a loop
        # that need not fuse (on AVX-512 machines about a third of those elements came out
        # one unit away from PyTorch's), so they go through the kernel as one whole block
        # (this thread's scratch block: what its other lanes hold does not matter).
        k = n - head
        xs, ys, xa, ya = _scratch(y.dtype)
        flat_y = y.reshape(-1)
        xs[:k] = x.reshape(-1)[head:]
        ys[:k] = flat_y[head:]
        fn(_BLOCK, alpha, xa, 1, ya, 1)
        flat_y[head:] = ys[:k]
    return True


_local = threading.local()


def _scratch(dtype):
    """This thread's two ``_BLOCK``-element blocks of ``dtype`` and their addresses."""
    blocks = getattr(_local, "blocks", None)
    if blocks is None:
        blocks = _local.blocks = {}
    found = blocks.get(dtype)
    if found is None:
        xs, ys = np.zeros(_BLOCK, dtype), np.zeros(_BLOCK, dtype)
        found = blocks[dtype] = (xs, ys, xs.ctypes.data, ys.ctypes.data)
    return found


# Elements the kernels take in vector steps of fused multiply-adds (float32 and float64: a
# multiple of both their widths, as measured on AVX2 and AVX-512 machines).
_BLOCK = 32


_char = ctypes.c_char
_address = ctypes.addressof


def available():
    """Whether ``axpy`` has its BLAS function (for the tests' reasons)."""
    return bool(_functions())
