"""dtypes and PyTorch's type-promotion rules, kept as data.

NOTE: dtypes print as ``torch.float32`` on purpose. jtensor is meant to be used as
``import jtensor as torch``; printing the same text as PyTorch means outputs copied from
PyTorch's documentation, tutorials and error messages read identically.
"""

import numpy as np

try:  # bfloat16 has no NumPy dtype of its own
    import ml_dtypes as _ml_dtypes

    _BFLOAT16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a hard dependency
    _BFLOAT16 = None

from ._errors import TensorRuntimeError, TensorTypeError

BOOL, INTEGRAL, FLOATING, COMPLEX = 0, 1, 2, 3
_CATEGORY_NAMES = {BOOL: "Bool", INTEGRAL: "Integral", FLOATING: "Floating", COMPLEX: "Complex"}


class dtype:
    """A tensor element type. Compare with ``is`` or ``==``; print like PyTorch's."""

    __slots__ = ("name", "numpy", "itemsize", "category", "is_signed", "_aliases", "_torch_name")

    def __init__(self, name, numpy_dtype, category, is_signed, torch_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.itemsize = self.numpy.itemsize
        self.category = category
        self.is_signed = is_signed
        self._torch_name = torch_name

    @property
    def is_floating_point(self):
        return self.category == FLOATING

    @property
    def is_complex(self):
        return self.category == COMPLEX

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float64: complex128, complex128: complex128}.get(self, complex64)

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, BOOL, False, "Bool")
uint8 = dtype("uint8", np.uint8, INTEGRAL, False, "Byte")
int8 = dtype("int8", np.int8, INTEGRAL, True, "Char")
int16 = dtype("int16", np.int16, INTEGRAL, True, "Short")
int32 = dtype("int32", np.int32, INTEGRAL, True, "Int")
int64 = dtype("int64", np.int64, INTEGRAL, True, "Long")
float16 = dtype("float16", np.float16, FLOATING, True, "Half")
bfloat16 = dtype("bfloat16", _BFLOAT16, FLOATING, True, "BFloat16")
float32 = dtype("float32", np.float32, FLOATING, True, "Float")
float64 = dtype("float64", np.float64, FLOATING, True, "Double")
complex64 = dtype("complex64", np.complex64, COMPLEX, True, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, COMPLEX, True, "ComplexDouble")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
       complex64, complex128)

# PyTorch's aliases, exported from the package namespace.
ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
    "int32": int32, "int": int32, "int64": int64, "long": int64, "float16": float16,
    "half": float16, "bfloat16": bfloat16, "float32": float32, "float": float32,
    "float64": float64, "double": float64, "complex64": complex64, "cfloat": complex64,
    "complex128": complex128, "cdouble": complex128,
}

_BY_NAME = {d.name: d for d in ALL}
_BY_NUMPY = {d.numpy: d for d in ALL}


def _dtype_by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """The jtensor dtype for a NumPy dtype, or ``TypeError`` naming the unsupported one."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TensorTypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, "
            "int16, int8, uint8, and bool."
        ) from None


def to_dtype(value):
    """Accept a jtensor dtype, a NumPy dtype or a Python type and return a jtensor dtype."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (KeyError, TypeError):
        raise TensorTypeError(
            f"dtype must be a torch.dtype (for example torch.float32), got {value!r}"
        ) from None


# ---------------------------------------------------------------------------- promotion

_INT_ORDER = (uint8, int8, int16, int32, int64)


def _promote_pair(a, b):
    if a is b:
        return a
    if a.category == BOOL:
        return b
    if b.category == BOOL:
        return a
    if a.category == INTEGRAL and b.category == INTEGRAL:
        if a.is_signed == b.is_signed:
            return a if a.itemsize >= b.itemsize else b
        unsigned, signed = (a, b) if not a.is_signed else (b, a)
        return signed if signed.itemsize > unsigned.itemsize else int16
    if a.category < b.category:
        a, b = b, a  # a is now of the higher category
    if b.category == INTEGRAL:
        return a
    if a.category == FLOATING:  # both floating
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    # a is complex; b floating or complex
    real = _promote_pair(a.to_real(), b.to_real())
    return complex128 if real is float64 else complex64


_PROMOTION = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


def promote_types(type1, type2):
    """The smallest dtype both inputs can be cast to, as ``torch.promote_types``.

    >>> promote_types(uint8, int8)
    torch.int16
    """
    return _PROMOTION[(to_dtype(type1), to_dtype(type2))]


# -------------------------------------------------------------------- default dtype

_state = {"default": float32}


def get_default_dtype():
    """The dtype of floating-point tensors made from Python floats (``torch.float32``)."""
    return _state["default"]


def set_default_dtype(d):
    """Set the default floating dtype; only floating types are allowed, as in PyTorch."""
    d = to_dtype(d)
    if d not in (float16, bfloat16, float32, float64):
        raise TensorTypeError(
            f"only floating-point types are supported as the default type, got {d}"
        )
    _state["default"] = d


def default_complex_dtype():
    return complex128 if _state["default"] is float64 else complex64


def scalar_dtype(value):
    """The dtype PyTorch gives a Python scalar when it stands alone (``tensor(2.5)``)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _state["default"]
    if isinstance(value, complex):
        return default_complex_dtype()
    raise TensorTypeError(f"expected a Python number, got {type(value).__name__}")


def _combine_categories(higher, lower):
    """PyTorch's rule for merging a higher-priority result with a lower-priority one."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOATING else lower
    if higher.category == FLOATING:
        return higher
    if higher.category == BOOL or lower.category == FLOATING:
        return _PROMOTION[(higher, lower)]
    return higher


def result_type_of(tensor_dtypes, zero_dim_dtypes, scalar_values):
    """Promote three priority classes as PyTorch does: sized tensors, 0-d tensors, scalars."""
    dim_result = zero_result = wrapped_result = None
    for d in tensor_dtypes:
        dim_result = d if dim_result is None else _PROMOTION[(dim_result, d)]
    for d in zero_dim_dtypes:
        zero_result = d if zero_result is None else _PROMOTION[(zero_result, d)]
    for v in scalar_values:
        d = scalar_dtype(v)
        wrapped_result = d if wrapped_result is None else _PROMOTION[(wrapped_result, d)]
    result = _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))
    if result is None:
        raise TensorRuntimeError("result_type needs at least one tensor or number")
    return result


def can_cast(from_, to):
    """Whether ``from_`` may be cast to ``to`` under PyTorch's same-kind rule."""
    from_, to = to_dtype(from_), to_dtype(to)
    return from_.category <= to.category or (from_.category == BOOL)


def cast_error(result, out_dtype):
    return TensorRuntimeError(
        f"result type {result._torch_name} can't be cast to the desired output type "
        f"{out_dtype._torch_name}"
    )


class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo``."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else to_dtype(type)
        if type.category not in (FLOATING, COMPLEX):
            raise TensorTypeError(f"torch.finfo() requires a floating point input type, got {type}")
        info = (np.finfo(type.to_real().numpy) if type is not bfloat16
                else _ml_dtypes.finfo(_ml_dtypes.bfloat16))
        self.dtype = type.to_real().name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``."""

    def __init__(self, type):
        type = to_dtype(type)
        if type.category not in (INTEGRAL, BOOL):
            raise TensorTypeError(f"torch.iinfo() requires an integer input type, got {type}")
        info = np.iinfo(type.numpy) if type is not bool_ else np.iinfo(np.uint8)
        self.dtype = type.name
        self.bits = int(info.bits) if type is not bool_ else 8
        self.max = int(info.max) if type is not bool_ else 1
        self.min = int(info.min) if type is not bool_ else 0

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
