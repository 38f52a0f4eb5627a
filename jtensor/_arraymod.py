"""NumPy features that CuPy lacks, written once for every array module.

The kernels are written against NumPy's API and run unchanged on CuPy (the GPU backend),
except for a few NumPy features CuPy does not have (read off CuPy 14 on an H100):

- ``ufunc.at`` exists for ``add`` (most dtypes), ``maximum``, ``minimum`` and the bitwise
  ufuncs; ``multiply.at`` raises ``NotImplementedError``, ``subtract.at`` takes int32 only;
  ``maximum.at``/``minimum.at`` take 32/64-bit ints and floats only, and on floats they
  drop NaNs and round float64 results to float32 (``fmaxf`` atomics): exact for ints only;
- ``ufunc.accumulate`` exists for ``add`` and ``multiply`` only (no ``logaddexp``,
  ``maximum``, ``minimum``);
- ``linalg.multi_dot`` does not exist;
- ``max``/``min`` (``amax``/``amin``) take no ``initial=`` (nor ``where=``).

Each helper below calls NumPy's own function on NumPy and on any module that has it, and
otherwise computes the same values with operations every array module has. NumPy (the CPU
backend, and the emulated CUDA device) takes the native path, so the fallbacks are tested on
the CPU by calling them with ``native=False``.
"""

import numpy as np


def ufunc_at(xp, name, target, key, values, native=True):
    """``xp.<name>.at(target, key, values)``: unbuffered in-place ``name`` at ``key``.

    Repeated positions are applied in the order they occur, as NumPy does, so a float
    product accumulates in the same order (and to the same bits) with NumPy and with the
    fallback below; CuPy's native ``add.at`` is atomic and sums floats in no fixed order
    (as PyTorch's CUDA kernels do). ``maximum``/``minimum`` are exact everywhere (below).
    """
    if xp is not np and name in _MINMAX and target.dtype not in _EXACT_MINMAX_AT:
        return _minmax_at_by_keys(xp, name, target, key, values)
    if native and xp is np and _at_rows_by_elements(name, target, key, values):
        return None
    if native:
        try:
            return getattr(xp, name).at(target, key, values)
        except (NotImplementedError, TypeError):
            if xp is np:
                raise
    ufunc = getattr(xp, name)
    positions = xp.arange(target.size, dtype=np.int64).reshape(target.shape)[key]
    values = xp.broadcast_to(xp.asarray(values, dtype=target.dtype), positions.shape)
    positions, values = positions.reshape(-1), values.reshape(-1)
    in_place = target.flags.c_contiguous
    work = (target if in_place else xp.ascontiguousarray(target)).reshape(-1)
    # Rounds: each applies the earliest remaining occurrence of every position, so each
    # position sees its values in index order. As many rounds as a position repeats.
    while positions.size:
        unique, first = xp.unique(positions, return_index=True)
        work[unique] = ufunc(work[unique], values[first])
        keep = xp.ones(positions.size, dtype=bool)
        keep[first] = False
        positions, values = positions[keep], values[keep]
    if not in_place:
        target[...] = work.reshape(target.shape)


def _at_rows_by_elements(name, target, rows, values):
    """NumPy's ``<name>.at(target, rows, values)`` for whole rows (``rows``: a 1-d array of
    one int index per row of the C-contiguous ``target``, an embedding's or ``index_add``'s)
    as ``at`` of one flat position per element: each element still takes its values in index
    order (the same bits), and NumPy's one-dimensional ``at`` is several times faster than
    the row-wise one (a (65, 64) embedding gradient of 256 lookups: 142 -> 32 us). False
    (nothing done) for other keys, rows of one element, or fewer than 256 elements written,
    where the row-wise call is as fast."""
    if rows.__class__ is not np.ndarray or rows.ndim != 1 or rows.dtype.kind not in "iu" \
            or target.ndim < 2 or not target.shape[0] or not target.flags.c_contiguous:
        return False
    width = target.size // target.shape[0]
    if width < 2 or rows.size * width < 256:
        return False
    positions = rows.astype(np.intp, copy=False)[:, None] * width
    positions = positions + np.arange(width, dtype=np.intp)
    values = np.broadcast_to(values, rows.shape + target.shape[1:])
    getattr(np, name).at(target.reshape(-1), positions.reshape(-1), values.reshape(-1))
    return True


# ``sum_rows_into_zeros``: the fewest elements written, and the fewest on average to each
# distinct row, for the grouped sums (below, one Python step per row costs more than the
# flat ``add.at``'s few nanoseconds an element).
_GROUPED_FROM = 1 << 16
_GROUP_ELEMENTS = 4096


def sum_rows_into_zeros(target, rows, values):
    """``target[rows[k]] += values[k]`` for every ``k`` in order, ``target`` a C-contiguous
    array of zeros (a fresh gradient: an embedding's, ``x[idx]``'s) with rows of two or more
    elements, ``rows`` a 1-d int array of row numbers (negative ones count from the end),
    ``values`` of shape ``rows.shape + target.shape[1:]``. Where many values go to each row
    (an embedding of a few dozen symbols looked up thousands of times), the values are
    sorted stably by row and each row's run is reduced along its first axis from an initial
    0.0: NumPy adds such a run's rows one after another, so every element takes its values
    in index order from +0.0, the sums ``add.at`` makes (bit for bit), in a fraction of its
    time. False (nothing done) for anything else: the caller adds them its own way."""
    m, n = rows.shape[0], target.shape[0]
    width = target.size // n if n else 0
    if m * width < _GROUPED_FROM or width < 2 or not target.flags.c_contiguous \
            or rows.ndim != 1 or rows.dtype.kind not in "iu":
        return False
    if rows.dtype.kind == "i" and rows.size and rows.min() < 0:
        rows = np.where(rows < 0, rows + n, rows)
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    if m * width < _GROUP_ELEMENTS * (cuts.size + 1):
        return False
    block = np.reshape(values, (m, width))[order]
    into = target.reshape(n, width)
    bounds = [0, *cuts.tolist(), m]
    for s, e in zip(bounds[:-1], bounds[1:], strict=True):
        np.add.reduce(block[s:e], axis=0, out=into[ordered[s]], initial=0.0)
    return True


_MINMAX = ("maximum", "minimum")
_EXACT_MINMAX_AT = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))


def _minmax_at_by_keys(xp, name, target, key, values):
    """``maximum.at``/``minimum.at`` where CuPy's are wrong or absent: its float atomics are
    built on ``fmaxf``/``fminf`` (float64 results rounded to float32, NaNs dropped) and it
    refuses float16 and integers narrower than 32 bits. Floats are reduced as integer keys
    that sort as the floats do (NaN the extreme key, so it wins), narrow integers and bools
    widened to int32, with the exact integer atomics; the result is one of the inputs."""
    dtype = target.dtype
    values = xp.asarray(values, dtype=dtype)
    if dtype.kind != "f":
        work = target.astype(np.int32)
        ufunc_at(xp, name, work, key, values.astype(np.int32))
        target[...] = work.astype(dtype)
        return
    wide = np.dtype(np.float32) if dtype.itemsize == 2 else dtype
    itype = np.dtype(np.int32) if wide.itemsize == 4 else np.dtype(np.int64)
    top, shift = int(np.iinfo(itype).max), 8 * itype.itemsize - 1
    extreme = top if name == "maximum" else int(np.iinfo(itype).min)

    def keys(a):
        a = a.astype(wide, copy=False)
        bits = a.view(itype)
        k = bits ^ ((bits >> shift) & top)  # negatives: the magnitude bits flipped
        k[xp.isnan(a)] = extreme
        return k

    work = keys(target)
    ufunc_at(xp, name, work, key, keys(values))
    work = work ^ ((work >> shift) & top)  # back to the float's bits (extreme: a NaN)
    target[...] = work.view(wide).astype(dtype, copy=False)


def accumulate(xp, name, array, axis, native=True):
    """``xp.<name>.accumulate(array, axis=axis)``: the running ``name`` along ``axis``.

    Without a native one: a doubling scan (log2(n) steps of ``name`` on shifted slices).
    Exact for ``maximum``/``minimum``; for ``logaddexp`` the additions are grouped
    differently from a left-to-right loop (as on PyTorch's GPU), equal to rounding.
    """
    if native:
        try:
            return getattr(xp, name).accumulate(array, axis=axis)
        except NotImplementedError:
            if xp is np:
                raise
    ufunc = getattr(xp, name)
    moved = xp.moveaxis(array, axis, -1)
    out = xp.array(moved, copy=True)
    n = out.shape[-1]
    step = 1
    while step < n:
        shifted = ufunc(out[..., step:], out[..., :-step])
        out[..., step:] = shifted
        step *= 2
    return xp.moveaxis(out, -1, axis)


def multi_dot(xp, arrays, native=True):
    """``xp.linalg.multi_dot(arrays)``: the chain product in the cheapest order, the order
    NumPy picks (so the rounding matches NumPy's)."""
    if native and hasattr(xp.linalg, "multi_dot"):
        return xp.linalg.multi_dot(arrays)
    first_vector = arrays[0].ndim == 1
    last_vector = arrays[-1].ndim == 1
    mats = list(arrays)
    if first_vector:
        mats[0] = mats[0].reshape(1, -1)
    if last_vector:
        mats[-1] = mats[-1].reshape(-1, 1)
    if len(mats) == 2:
        result = mats[0] @ mats[1]
    else:
        order = chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])
        result = _chain_product(mats, order, 0, len(mats) - 1)
    if first_vector and last_vector:
        return result.reshape(())
    if first_vector:
        return result.reshape(-1)
    if last_vector:
        return result.reshape(-1)
    return result


def chain_order(p):
    """The split table of the classic matrix-chain dynamic program (NumPy's tie-breaking:
    the first cheapest split)."""
    n = len(p) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain_product(mats, split, i, k) @ _chain_product(mats, split, k + 1, j)


# ---------------------------------------------------------------------- CuPy's limits on NumPy
# What CuPy 14 has of each ufunc method (the rest raise NotImplementedError there).
_AT = {"add", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"}
_MINMAX_AT_DTYPES = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64,
                                                 np.float32, np.float64))
_ACCUMULATE = {"add", "multiply"}
_REDUCEAT = {"add"}


class _CupyLikeUfunc:
    """A NumPy ufunc with only the methods CuPy has; calling it is calling NumPy's."""

    __slots__ = ("_ufunc", "__name__")

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return self._ufunc(*args, **kwargs)

    def _refuse(self, method):
        raise NotImplementedError(f"`cupy_{self.__name__}.{method}` is not supported yet")

    def at(self, a, indices, b=None):
        if self.__name__ == "subtract" and a.dtype in (np.int32, np.uint32):
            return self._ufunc.at(a, indices, b)
        if self.__name__ not in _AT:
            self._refuse("at")
        if self.__name__ in ("maximum", "minimum"):
            return self._minmax_at(a, indices, b)
        return self._ufunc.at(a, indices, b)

    def _minmax_at(self, a, indices, b):
        """CuPy's ``maximum.at``/``minimum.at``: 32/64-bit integers and floats only, and for
        floats atomics built on ``fmaxf``/``fminf``: NaNs are dropped and float64 results
        are rounded to float32 (so only exact for integers)."""
        if a.dtype not in _MINMAX_AT_DTYPES:
            raise TypeError(f"cupy.{self.__name__}.at only supports int32, int64, float32, "
                            f"float64, uint32, uint64 as data type")
        if a.dtype.kind != "f":
            return self._ufunc.at(a, indices, b)
        work = a.astype(np.float32)
        touched = np.zeros(a.shape, dtype=bool)
        touched[indices] = True
        (np.fmax if self.__name__ == "maximum" else np.fmin).at(
            work, indices, np.asarray(b).astype(a.dtype).astype(np.float32))
        a[touched] = work[touched]

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if self.__name__ not in _ACCUMULATE:
            self._refuse("accumulate")
        return self._ufunc.accumulate(array, axis=axis, dtype=dtype, out=out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        if self.__name__ not in _REDUCEAT:
            self._refuse("reduceat")
        return self._ufunc.reduceat(array, indices, axis=axis, dtype=dtype, out=out)

    def __getattr__(self, name):
        return getattr(self._ufunc, name)


class _CupyLikeLogical(_CupyLikeUfunc):
    """``logical_and``/``or``/``xor``/``not``: CuPy has no complex loops for them."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        for a in args:
            if isinstance(a, complex) or getattr(getattr(a, "dtype", None), "kind", "") == "c":
                raise TypeError(f"Wrong type ({tuple(np.asarray(x).dtype for x in args)}) of "
                                f"arguments for cupy_{self.__name__}")
        return self._ufunc(*args, **kwargs)


class _CupyLikeFloorDivision(_CupyLikeUfunc):
    """``floor_divide`` and ``remainder`` with CuPy's float kernels: ``floor(a / b)`` (in
    float32 for float16) and ``a - floor(a / b) * b``, where NumPy's follow Python's
    ``divmod`` (they differ at inf, nan and signed zeros, and where ``a / b`` rounds up to
    an integer). Integers are NumPy's, as CuPy's agree."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        result = self._ufunc(*args, **kwargs)
        if len(args) != 2 or kwargs or getattr(result, "dtype", None) is None or \
                result.dtype.kind != "f":
            return result
        work = np.float32 if result.dtype == np.float16 else result.dtype
        with np.errstate(all="ignore"):
            a, b = (np.asarray(x).astype(work) for x in args)
            q = np.floor(a / b)
            if self.__name__ == "remainder":
                q = a - q * b
        return q.astype(result.dtype)


_CUPY_LIKE_UFUNCS = {"logical_and": _CupyLikeLogical, "logical_or": _CupyLikeLogical,
                     "logical_xor": _CupyLikeLogical, "logical_not": _CupyLikeLogical,
                     "floor_divide": _CupyLikeFloorDivision,
                     "remainder": _CupyLikeFloorDivision, "mod": _CupyLikeFloorDivision}


def _no_initial(reduce):
    """NumPy's ``max``/``min`` (``amax``/``amin``) with CuPy's signature: no ``initial=``
    nor ``where=``."""
    def wrapped(a, axis=None, out=None, keepdims=False):
        return reduce(a, axis=axis, out=out, keepdims=keepdims)

    wrapped.__name__ = reduce.__name__
    return wrapped


def _as_strided(x, shape=None, strides=None):  # CuPy's signature: no ``writeable``
    return np.lib.stride_tricks.as_strided(x, shape, strides)


def cupy_like_numpy():
    """NumPy as the emulated CUDA device's array module, cut to what CuPy offers (the
    ufunc methods above, no ``linalg.multi_dot``, no ``errstate``, CuPy's ``as_strided``),
    so kernels that would fail on a real GPU fail on the emulated one too, in CI; CuPy's
    float ``floor_divide``/``remainder`` and its logical ufuncs' refusal of complex operands
    are imitated too (``_CUPY_LIKE_UFUNCS``)."""
    import types

    module = types.ModuleType("jtensor_cupy_like_numpy")
    module.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    for name, value in np.__dict__.items():
        if isinstance(value, np.ufunc):
            setattr(module, name, _CUPY_LIKE_UFUNCS.get(name, _CupyLikeUfunc)(value))
    for name in ("max", "amax", "min", "amin"):
        setattr(module, name, _no_initial(getattr(np, name)))
    del module.errstate
    absent = {"errstate"}

    def lazy(name):  # NumPy's lazily loaded submodules (fft, random, ...)
        if name in absent:
            raise AttributeError(f"module 'cupy' has no attribute '{name}'")
        return getattr(np, name)

    module.__getattr__ = lazy
    module.numpy_backed = True   # (its arrays are NumPy's: float32 exp/tanh as on the CPU)
    linalg = types.ModuleType("jtensor_cupy_like_numpy.linalg")
    linalg.__dict__.update(
        {k: v for k, v in np.linalg.__dict__.items() if not k.startswith("__") and k != "multi_dot"}
    )
    module.linalg = linalg
    lib = types.ModuleType("jtensor_cupy_like_numpy.lib")
    lib.stride_tricks = types.SimpleNamespace(as_strided=_as_strided)
    module.lib = lib
    return module


# Float32 ``exp`` and ``tanh`` with NumPy are computed in float64 and rounded once: correctly
# rounded but for rare double-rounding ties. PyTorch's CPU kernels (MKL's VML where the wheel
# has it, Sleef's otherwise) are accurate to about an ulp and agree with that on 99% of
# elements (exp) and 99.9% (tanh), where NumPy's own float32 loops agree on 61% and 62%
# (uniform inputs in [-10, 10]). The float64 pass costs 2.5-3.5x NumPy's float32 loop, a
# few microseconds at teaching sizes but milliseconds on millions of elements (a 128 x 10,000
# log-softmax backward: 2.8 -> 4.5 ms), so arrays of more than ``ROUNDED_ONCE_MAX`` elements
# keep NumPy's loop. The emulated CUDA device computes as the CPU (its arrays are NumPy's);
# CuPy's float32 kernels are the GPU's, as PyTorch's are.
_F32 = np.dtype(np.float32)
ROUNDED_ONCE_MAX = 1 << 16


def _rounded_once(ufunc):
    name = ufunc.__name__

    def compute(xp, a):
        if a.dtype == _F32 and a.size <= ROUNDED_ONCE_MAX and (
                xp is np or getattr(xp, "numpy_backed", False)):
            return ufunc(a, dtype=np.float64).astype(_F32)
        return getattr(xp, name)(a)

    def into(xp, a, out):
        if a.dtype == _F32 and a.size <= ROUNDED_ONCE_MAX and (
                xp is np or getattr(xp, "numpy_backed", False)):
            out[...] = ufunc(a, dtype=np.float64)   # (rounded to out's dtype)
        else:
            getattr(xp, name)(a, out=out)

    compute.into = into
    compute.__name__ = compute.__qualname__ = f"{name}_rounded_once"
    return compute


exp_rounded_once = _rounded_once(np.exp)
tanh_rounded_once = _rounded_once(np.tanh)


# ------------------------------------------------------------------ transposed copies
# A row-major copy of a transposed host array (``x.t().contiguous()``, a conversion to
# channels-last) is NumPy's copy loop reading one column of the source matrix per output
# row. When the source's rows are a multiple of 512 bytes apart (a width of 1024 float32s,
# or 768, or 4096), the column's elements all fall in the same few cache sets, and each
# cache line is evicted before the next output rows could use the rest of it: 1024 x 1024
# float32 took 3.9 ms (PyTorch 0.44; a width of 1000 takes 0.58). Through a tiled buffer,
# each of two passes reads and writes whole cache lines: the first gathers ``_TILE_IN``-row
# by ``_TILE_OUT``-column tiles of the source into a buffer whose tiles are transposed, the
# second writes the buffer's rows of ``_TILE_IN`` elements into their places, a band of
# ``_BAND`` elements at a time (1.0-1.3 ms per million float32s at such widths, against
# 2.4-3.9). Rows shorter than ``_LONG_ROWS`` bytes (128 or 256 float32s) lose less to the
# cache and keep NumPy's loop, which measured faster there on big arrays, as it does at
# other widths. The values are copies either way.
_TILED_MIN = 1 << 16   # elements; below, the matrix stays in the cache
_ALIASED_ROWS = 512    # bytes: source rows a multiple of this apart...
_LONG_ROWS = 2048      # ...and at least this long take the tiled copy
_BAND = 1 << 16        # elements copied through the buffer at a time
_TILE_IN = 16          # source rows per tile (contiguous elements of an output row)
_TILE_OUT = 64         # source columns per tile (output rows)


def _merged(shape, strides):
    """``(shape, strides)`` with size-1 axes dropped and each axis merged into the next when
    one stride steps over the other (the same elements, in the same order)."""
    dims = [(n, s) for n, s in zip(shape, strides, strict=True) if n != 1]
    merged = []
    for n, s in dims:
        if merged and merged[-1][1] == s * n:
            merged[-1] = (merged[-1][0] * n, s)
        else:
            merged.append((n, s))
    return merged


def _transposed_matrices(a):
    """``a`` seen as the transposes of a stack of row-major matrices: the stack as a
    contiguous array of shape (B, R, C) whose (B, C, R) transpose holds ``a``'s values in
    row-major order; None when ``a`` is not laid out so."""
    dims = _merged(a.shape, a.strides)
    item = a.itemsize
    if len(dims) == 2:
        dims.insert(0, (1, 0))
    if len(dims) != 3:
        return None
    (b, sb), (c, sc), (r, sr) = dims   # a's axes: batch, output rows, output columns
    if sc != item or sr != c * item or (b > 1 and sb != r * c * item):
        return None
    if r < _TILE_OUT or c < _TILE_OUT or a.size < _TILED_MIN or sr % _ALIASED_ROWS \
            or sr < _LONG_ROWS:
        return None
    return np.lib.stride_tricks.as_strided(a, (b, r, c), (sb, sr, sc), writeable=False)


def copy_into(target, source):
    """``target[...] = source`` for host arrays of one shape and dtype: tiled (above) when,
    both seen in ``target``'s memory order (a channels-last target is row-major in that
    order), ``source`` is a big stack of transposed matrices and the two do not overlap
    (NumPy's copy buffers an overlapping source; a band-by-band copy would not)."""
    x = None
    if source.size >= _TILED_MIN and source.dtype == target.dtype and source.ndim >= 2 \
            and source.shape == target.shape and not np.may_share_memory(target, source):
        if not target.flags.c_contiguous:
            order = sorted(range(target.ndim), key=lambda d: -target.strides[d])
            target, source = target.transpose(order), source.transpose(order)
        if target.flags.c_contiguous:
            x = _transposed_matrices(source)
    if x is None:
        np.copyto(target, source)
        return
    b, r, c = x.shape
    out = target.reshape(b, c, r)
    ti, to = _TILE_IN, _TILE_OUT
    rm, cm = r - r % ti, c - c % to
    item = x.itemsize
    sr, orow = x.strides[1], out.strides[1]
    # A band of column tiles at a time, through one buffer the cache keeps:
    # [column tile, row tile, column in tile, row in tile]
    per_band = max(1, _BAND // (to * rm))
    buffer = np.empty((per_band, rm // ti, to, ti), x.dtype)
    for k in range(b):
        xk, ok = x[k], out[k]
        for j in range(0, cm // to, per_band):
            n = min(per_band, cm // to - j)
            tiles = buffer[:n]
            np.copyto(tiles, np.lib.stride_tricks.as_strided(
                xk[:, j * to:], tiles.shape, (to * item, ti * sr, item, sr), writeable=False))
            np.copyto(np.lib.stride_tricks.as_strided(
                ok[j * to:], tiles.shape, (to * orow, ti * item, orow, item)), tiles)
    if cm < c:
        out[:, cm:, :] = x[:, :, cm:].transpose(0, 2, 1)
    if rm < r:
        out[:, :cm, rm:] = x[:, rm:, :cm].transpose(0, 2, 1)


def c_copy(a):
    """A C-contiguous copy of host array ``a`` (``a.copy(order="C")``, tiled when it is a
    big transposed stack: ``copy_into``)."""
    if a.ndim < 2 or a.size < _TILED_MIN or a.flags.c_contiguous:
        return a.copy(order="C")
    out = np.empty(a.shape, a.dtype)
    copy_into(out, a)
    return out


def fma32(x, y, z, out=None):
    """``x * y + z`` for float32 host arrays with one rounding, as a fused multiply-add (the
    float32 ``addcmul`` of PyTorch's CPU kernels): the product exact in float64, the sum
    rounded to float64 and then to float32, which is the fused result unless the exact sum
    lies within 2^-29 of a float32 rounding boundary. Into ``out`` when given."""
    product = np.multiply(x, y, dtype=np.float64)
    if out is None:
        return np.add(product, z).astype(np.float32)
    return np.add(product, z, out=out, casting="same_kind")
