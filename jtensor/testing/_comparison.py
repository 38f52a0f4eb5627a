"""``assert_close``: PyTorch's comparison of (nested) tensors, numbers, booleans and ``None``.

Inputs are paired up first: sequences (not strings) element by element, mappings key by key,
then each leaf pair by the first kind that takes it (None, booleans, numbers, tensor-likes).
A pair that cannot be formed, or the first pair that does not match, raises PyTorch's error
type with PyTorch's message (``AssertionError`` for a mismatch), with ``msg`` replacing it (a
string) or rewriting it (a callable).
"""

import cmath
import collections.abc
import math
import warnings

import numpy as np

from .. import _dtypes
from .._api import ops as J
from .._tensor import Tensor

# (rtol, atol) per dtype; any other dtype (integers, bool) compares exactly.
_PRECISIONS = {
    _dtypes.float16: (0.001, 1e-5),
    _dtypes.bfloat16: (0.016, 1e-5),
    _dtypes.float32: (1.3e-6, 1e-5),
    _dtypes.float64: (1e-7, 1e-7),
    _dtypes.complex64: (1.3e-6, 1e-5),
    _dtypes.complex128: (1e-7, 1e-7),
}
# The dtype whose tolerances a Python number gets.
_NUMBER_DTYPES = {int: _dtypes.int64, float: _dtypes.float64, complex: _dtypes.complex128}


class _Failure(Exception):
    """A comparison failed: the exception type to raise, its message and where (the path of
    indices and keys into the inputs)."""

    def __init__(self, kind, message, where=()):
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(
                str([item]) for item in self.where
            )
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs; the next kind is tried."""


def default_tolerances(*dtypes):
    """The loosest ``(rtol, atol)`` of the given dtypes (0 for exact dtypes)."""
    pairs = [_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(dtypes, rtol, atol, where):
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}.",
            where,
        )
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtypes)


def _report(kind, header_extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol, identifier=None):
    """PyTorch's mismatch text: a header, the statistics line, the greatest differences."""
    exact = rtol == 0 and atol == 0
    lines = []
    for name, diff, idx, tol in (
        ("absolute", abs_diff, abs_idx, atol),
        ("relative", rel_diff, rel_idx, rtol),
    ):
        line = (
            f"{name.title()} difference: {diff}"
            if idx is None
            else f"Greatest {name} difference: {diff} at index {idx}"
        )
        if not exact:
            line += f" (up to {tol} allowed)"
        lines.append(line)
    if identifier is None:
        identifier = kind
    elif callable(identifier):
        identifier = identifier(kind)
    text = f"{identifier} are not {'equal' if exact else 'close'}!\n\n"
    if header_extra:
        text += header_extra.strip() + "\n"
    return (text + "\n".join(lines)).strip()


def _scalar_report(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _report(
        "Scalars",
        f"Expected {expected} but got {actual}.",
        abs_diff,
        None,
        atol,
        rel_diff,
        None,
        rtol,
    )


# ---------------------------------------------------------------------- pairs
class _NonePair:
    def __init__(self, actual, expected, where, **options):
        if actual is not None and expected is not None:
            raise _Unsupported
        self.actual, self.expected, self.where = actual, expected, where

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise _Failure(
                AssertionError, f"None mismatch: {self.actual} is not {self.expected}", self.where
            )


class _BoolPair:
    def __init__(self, actual, expected, where, **options):
        if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.where = bool(actual), bool(expected), where

    def compare(self):
        if self.actual is not self.expected:
            raise _Failure(
                AssertionError,
                f"Booleans mismatch: {self.actual} is not {self.expected}",
                self.where,
            )


class _NumberPair:
    def __init__(
        self,
        actual,
        expected,
        where,
        rtol=None,
        atol=None,
        equal_nan=False,
        check_dtype=False,
        **options,
    ):
        kinds = (int, float, complex, np.number)
        if not all(
            isinstance(v, kinds) and not isinstance(v, (bool, np.bool_)) for v in (actual, expected)
        ):
            raise _Unsupported
        self.actual, self.expected = (
            v.item() if isinstance(v, np.number) else v for v in (actual, expected)
        )
        self.where = where
        self.rtol, self.atol = _tolerances(
            [_NUMBER_DTYPES[type(v)] for v in (self.actual, self.expected)], rtol, atol, where
        )
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            raise _Failure(
                AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", self.where
            )
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        raise _Failure(AssertionError, _scalar_report(a, e, self.rtol, self.atol), self.where)


class _TensorPair:
    def __init__(
        self,
        actual,
        expected,
        where,
        allow_subclasses=True,
        rtol=None,
        atol=None,
        equal_nan=False,
        check_device=True,
        check_dtype=True,
        check_layout=True,
        check_stride=False,
        **options,
    ):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported
        self.actual, self.expected = (self._as_tensor(v) for v in (actual, expected))
        self.where = where
        self.rtol, self.atol = _tolerances(
            [self.actual.dtype, self.expected.dtype], rtol, atol, where
        )
        self.equal_nan = equal_nan
        self.checks = (check_device, check_dtype, check_layout, check_stride)

    @staticmethod
    def _as_tensor(value):
        if isinstance(value, Tensor):
            return value
        try:
            return J.as_tensor(value)
        except Exception:
            raise _Unsupported from None

    def _mismatch(self, attribute, mine, theirs):
        raise _Failure(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {mine} != {theirs}.",
            self.where,
        )

    def compare(self):
        a, e = self.actual, self.expected
        check_device, check_dtype, check_layout, check_stride = self.checks
        if a.shape != e.shape:
            self._mismatch("shape", a.shape, e.shape)
        if check_layout and a.layout != e.layout:
            self._mismatch("layout", a.layout, e.layout)
        if check_stride and a.layout == e.layout and a.stride() != e.stride() and not a.is_sparse:
            self._mismatch("stride()", a.stride(), e.stride())
        if check_device and a.device != e.device:
            self._mismatch("device", a.device, e.device)
        if check_dtype and a.dtype != e.dtype:
            self._mismatch("dtype", a.dtype, e.dtype)
        # Compared values: on the CPU when the devices differ, in the promoted dtype, dense.
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            common = _dtypes.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        if a.is_sparse and e.is_sparse:
            self._compare_sparse(a, e)
            return
        if a.is_sparse:
            a = a.to_dense()
        if e.is_sparse:
            e = e.to_dense()
        self._compare_values(a.detach(), e.detach(), self.rtol, self.atol)

    def _compare_sparse(self, a, e):
        """PyTorch compares COO tensors as stored (not coalesced): sparse dims and counts,
        then the indices exactly and the values within the tolerances."""
        for what, mine, theirs in (
            ("sparse dimensions", a.sparse_dim(), e.sparse_dim()),
            ("specified values", a._nnz(), e._nnz()),
        ):
            if mine != theirs:
                raise _Failure(
                    AssertionError,
                    f"The number of {what} in sparse COO tensors does not match: "
                    f"{mine} != {theirs}",
                    self.where,
                )
        self._compare_values(a._indices(), e._indices(), 0, 0, "Sparse COO indices")
        values = (a._values().detach(), e._values().detach())
        self._compare_values(*values, self.rtol, self.atol, "Sparse COO values")

    def _compare_values(self, a, e, rtol, atol, identifier=None):
        matches = J.isclose(a, e, rtol=rtol, atol=atol, equal_nan=self.equal_nan)
        if bool(matches.all()):
            return
        if a.dim() == 0:
            mine, theirs = a.item(), e.item()
            abs_diff = abs(mine - theirs)
            rel_diff = math.inf if theirs == 0 else abs_diff / abs(theirs)
            text = _report(
                "Scalars",
                f"Expected {theirs} but got {mine}.",
                abs_diff,
                None,
                atol,
                rel_diff,
                None,
                rtol,
                identifier,
            )
            raise _Failure(AssertionError, text, self.where)
        text = self._tensor_report(a, e, matches, rtol, atol, identifier)
        raise _Failure(AssertionError, text, self.where)

    def _tensor_report(self, a, e, matches, rtol, atol, identifier):
        m = matches.cpu().numpy().reshape(-1)
        total = m.size
        wrong = total - int(m.sum())
        extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
        av, ev = a.cpu().numpy().reshape(-1), e.cpu().numpy().reshape(-1)
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            # Integers (and booleans) as int64, so differences cannot wrap around.
            av, ev = av.astype(np.int64), ev.astype(np.int64)
        elif av.dtype.kind == "V" or str(av.dtype) == "bfloat16":
            av, ev = av.astype(np.float32), ev.astype(np.float32)
        exact = not (a.dtype.is_floating_point or a.dtype.is_complex)
        with np.errstate(all="ignore"):
            abs_diff = np.abs(av - ev)
            abs_diff[m] = 0
            if exact:
                # int64 / int64 is a true division in PyTorch: the default dtype, float32
                rel_diff = abs_diff.astype(np.float32) / np.abs(ev).astype(np.float32)
            else:
                rel_diff = abs_diff / np.abs(ev)
            rel_diff[m] = 0
        # PyTorch's max: NaN wins, then the first of equal values.
        abs_i, rel_i = (_argmax_nan(d) for d in (abs_diff, rel_diff))
        shape = tuple(matches.shape)
        rel = float(rel_diff[rel_i]) if exact else _as_python(rel_diff[rel_i], a.dtype)
        return _report(
            "Tensor-likes",
            extra,
            _as_python(abs_diff[abs_i], a.dtype),
            _unravel(abs_i, shape),
            atol,
            rel,
            _unravel(rel_i, shape),
            rtol,
            identifier,
        )


def _argmax_nan(values):
    nan = np.isnan(values)
    if nan.any():
        return int(np.argmax(nan))
    return int(np.argmax(values))


def _as_python(value, dtype):
    """The difference as PyTorch's ``.item()`` prints it (a float in the tensor's precision,
    or an int for integer tensors)."""
    if not (dtype.is_floating_point or dtype.is_complex):
        return int(value) if np.isfinite(value) else float(value)
    real = dtype.to_real() if dtype.is_complex else dtype
    return float(np.asarray(value).astype(real.numpy if real.numpy is not None else np.float32))


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        flat, rem = divmod(flat, size)
        index.append(rem)
    return tuple(reversed(index))


_PAIR_KINDS = (_NonePair, _BoolPair, _NumberPair, _TensorPair)


def _pairs(actual, expected, where, options):
    """Flatten (nested) sequences and mappings into leaf pairs, failing as PyTorch does on a
    length or key mismatch."""
    seq = collections.abc.Sequence
    if (
        isinstance(actual, seq)
        and not isinstance(actual, str)
        and isinstance(expected, seq)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                where,
            )
        out = []
        for i in range(len(actual)):
            out.extend(_pairs(actual[i], expected[i], (*where, i), options))
        return out
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        mine, theirs = set(actual.keys()), set(expected.keys())
        if mine != theirs:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(theirs - mine)}\n"
                f"Additional keys in the actual mapping: {sorted(mine - theirs)}",
                where,
            )
        keys = list(mine)
        try:
            keys = sorted(keys)
        except Exception:  # noqa: BLE001 - unorderable keys keep the set's order
            pass
        out = []
        for key in keys:
            out.extend(_pairs(actual[key], expected[key], (*where, key), options))
        return out
    for kind in _PAIR_KINDS:
        try:
            return [kind(actual, expected, where, **options)]
        except _Unsupported:
            continue
    raise _Failure(
        TypeError,
        "No comparison pair was able to handle inputs of type "
        f"{type(actual)} and {type(expected)}.",
        where,
    )


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Assert that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol +
    rtol * |expected|`` element-wise (Inf only equal to itself; NaN equal to NaN with
    ``equal_nan``), after checking shape and, unless disabled, device, dtype, layout and
    (``check_stride``) strides. Tensors, NumPy arrays, Python numbers, booleans and None,
    nested in sequences and mappings, compare as in PyTorch; the default ``rtol``/``atol``
    come from the dtypes (float32: 1.3e-6/1e-5, float64: 1e-7/1e-7, float16: 1e-3/1e-5,
    bfloat16: 1.6e-2/1e-5, integers: exact). ``msg`` replaces the message (a string) or
    receives it (a callable). Raises ``AssertionError`` with PyTorch's report."""
    __tracebackhide__ = True
    options = dict(
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=check_device,
        check_dtype=check_dtype,
        check_layout=check_layout,
        check_stride=check_stride,
    )
    try:
        pairs = _pairs(actual, expected, (), options)
        for pair in pairs:
            pair.compare()
    except _Failure as failure:
        raise failure.error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since PyTorch 1.12 (a ``FutureWarning``): ``assert_close`` of the inputs as
    tensors, dtypes promoted rather than checked, NaNs equal by default."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = J.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = J.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual.dtype, expected.dtype)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )


__all__ = ["assert_allclose", "assert_close", "default_tolerances"]
