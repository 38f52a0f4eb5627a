"""dtypes and PyTorch's type-promotion rules, kept as data.

NOTE: dtypes print as ``torch.float32`` on purpose. jtensor is meant to be used as
``import jtensor as torch``; printing the same text as PyTorch means outputs copied from
PyTorch's documentation, tutorials and error messages read identically.
"""

import math

import numpy as np

try:  # bfloat16 has no NumPy dtype of its own
    import ml_dtypes as _ml_dtypes

    _BFLOAT16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a hard dependency
    _BFLOAT16 = None

from ._errors import TensorRuntimeError, TensorTypeError, type_name

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


def c_name(dtype):
    """``dtype``'s C++ type name in PyTorch's kernel messages (``double``, ``long int``:
    ``CPP_NAMES``)."""
    return CPP_NAMES[dtype.name]


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


def _dtype_arg(value, fname, argname, position=None):
    """A dtype argument as PyTorch's parser takes it: a dtype, or ``float``, ``int``, ``bool``
    or ``complex`` (float64, int64, bool, complex128); never a string or a NumPy dtype."""
    if isinstance(value, dtype):
        return value
    if value in (float, int, bool, complex):
        return to_dtype(value)
    hint = ""
    if isinstance(value, str):
        hint = f" (write torch.{value.rpartition('.')[2]}, not the string {value!r})"
    elif getattr(value, "__module__", "") == "numpy" or type(value).__module__ == "numpy":
        hint = " (NumPy dtypes are not accepted: write a torch dtype such as torch.float32)"
    where = f" (position {position})" if position is not None else ""
    raise TensorTypeError(f"{fname}(): argument '{argname}'{where} must be torch.dtype, not "
                          f"{type_name(value)}{hint}")


def promote_types(type1, type2):
    """The smallest dtype both inputs can be cast to, as ``torch.promote_types``.

    >>> promote_types(uint8, int8)
    torch.int16
    """
    return _PROMOTION[(_dtype_arg(type1, "promote_types", "type1", 1),
                       _dtype_arg(type2, "promote_types", "type2", 2))]


# -------------------------------------------------------------------- default dtype

_state = {"default": float32}


def get_default_dtype():
    """The dtype of floating-point tensors made from Python floats (``torch.float32``)."""
    return _state["default"]


def set_default_dtype(d):
    """Set the default floating dtype; only floating dtypes are allowed, as in PyTorch."""
    if not isinstance(d, dtype):
        raise TensorTypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
            f" (got {d!r}; pass e.g. torch.float64)")
    if d not in (float16, bfloat16, float32, float64):
        raise TensorTypeError(
            f"only floating-point types are supported as the default type (got {d})")
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
    raise TensorTypeError(f"expected a Python number, got {type_name(value)}")


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
    """Whether ``from_`` may be cast to ``to`` under PyTorch's same-kind rule.

    Complex never goes to non-complex, floating never to integral, and nothing but bool
    goes to bool.

    >>> can_cast(float32, int32), can_cast(int32, float32), can_cast(int64, bool_)
    (False, True, False)
    """
    from_ = _dtype_arg(from_, "can_cast", "from_", 1)
    to = _dtype_arg(to, "can_cast", "to", 2)
    return from_.category <= to.category or from_.category == BOOL


def _number_arg(value):
    """A Python (or NumPy) number as PyTorch's ``Number`` parameter takes it, else None."""
    if isinstance(value, (bool, int, float, complex)):
        return value
    if isinstance(value, (np.bool_, np.number)) and np.ndim(value) == 0:
        return value.item()
    return None


def result_type(tensor, other):
    """The dtype an arithmetic op on ``tensor`` and ``other`` computes in (``torch.result_type``).

    Each argument is a tensor or a Python number; sized tensors outrank 0-d tensors, which
    outrank numbers, unless the lower class is of a higher category (bool < integer <
    floating < complex).

    >>> import jtensor as torch
    >>> torch.result_type(torch.tensor([1, 2]), 2.5), torch.result_type(torch.tensor([1.0]), 5)
    (torch.float32, torch.float32)
    """
    sized, zero_dim, scalars = [], [], []
    for position, (name, value) in enumerate((("tensor", tensor), ("other", other)), 1):
        if hasattr(value, "_dtype") and hasattr(value, "_shape"):
            (sized if value._shape else zero_dim).append(value._dtype)
            continue
        number = _number_arg(value)
        if number is None:
            raise TensorTypeError(
                f"result_type(): argument '{name}' (position {position}) must be Tensor or "
                f"Number, not {type_name(value)}")
        scalars.append(number)
    return result_type_of(sized, zero_dim, scalars)


def cast_error(result, out_dtype):
    return TensorRuntimeError(
        f"result type {result._torch_name} can't be cast to the desired output type "
        f"{out_dtype._torch_name}"
    )


class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo`` (the default dtype if omitted).

    >>> finfo(float16).max, finfo(complex64).dtype
    (65504.0, 'float32')
    """

    def __init__(self, type=None):
        if type is None:
            type = get_default_dtype()
        elif type in (float, complex):
            type = to_dtype(type)
        if not isinstance(type, dtype) or type.category not in (FLOATING, COMPLEX):
            raise TensorTypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                f"handle 'torch.finfo' (got {type})")
        info = (np.finfo(type.to_real().numpy) if type is not bfloat16
                else _ml_dtypes.finfo(_ml_dtypes.bfloat16))
        self.dtype = type.to_real().name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # exact, as torch.finfo (not float16 0.001)

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo`` (bool is not an integer type here).

    >>> iinfo(uint8)
    iinfo(min=0, max=255, dtype=uint8)
    """

    def __init__(self, type):
        if type is int:
            type = int64
        if type is bool_:
            raise TensorTypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, dtype) or type.category != INTEGRAL:
            raise TensorTypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                f"'torch.iinfo' (got {type})")
        info = np.iinfo(type.numpy)
        self.dtype = type.name
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


# Printed and pickled by their public path, as torch.dtype, torch.finfo, torch.iinfo.
dtype.__module__ = finfo.__module__ = iinfo.__module__ = "jtensor"


# The C++ scalar names PyTorch prints for a dtype in TensorOptions and in its .grad
# assignment checks ("a gradient with dtype 'long int'").
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


# The C++ type names in PyTorch's "value cannot be converted to type ... without overflow".
_CONVERT_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                  "float64": "double", "int8": "int8_t", "uint8": "uint8_t",
                  "int16": "int16_t", "int32": "int", "int64": "int64_t"}


# dtype -> its largest finite value (floating) or its (min, max) (integral), for
# ``check_scalar_fits``
_LARGEST = {}


def check_int_scalar(value):
    """PyTorch's parsing of a Python int as a Scalar argument: a 64-bit integer, signed or
    unsigned (``x + 2**63`` is taken, and wraps in int64), else Python's OverflowError with
    PyTorch's words (``x * 10**20`` raises, whatever the tensor's dtype)."""
    if value >= 1 << 64:
        raise OverflowError("int too big to convert")
    if value < -(1 << 63):
        raise OverflowError("can't convert negative int to unsigned")


def check_scalar_fits(value, dtype):
    """PyTorch's checked conversion of a number argument (``clamp``'s bounds, ``pow``'s
    exponent) to ``dtype``: a finite value beyond the dtype's largest magnitude raises
    instead of becoming inf or wrapping round (``int8.clamp(max=1000)``). Infinities and NaN
    pass into floating dtypes; an unsigned dtype takes negative values (they wrap, as in
    C++); an integer past int64 is Python's OverflowError, as PyTorch's argument parser
    gives."""
    name = _CONVERT_NAMES.get(dtype.name)
    if name is None or value.__class__ is bool or isinstance(value, complex):
        return
    if value.__class__ is int:
        check_int_scalar(value)
    if dtype.category == FLOATING:
        if math.isfinite(value):
            largest = _LARGEST.get(dtype)
            if largest is None:   # (finfo builds an object: once a dtype)
                largest = _LARGEST[dtype] = finfo(dtype).max
            if abs(value) > largest:
                raise TensorRuntimeError(f"value cannot be converted to type {name} without "
                                         f"overflow (the largest {dtype} is "
                                         f"{largest:g}, got {value!r})")
        return
    bounds = _LARGEST.get(dtype)
    if bounds is None:
        info = np.iinfo(dtype.numpy)
        bounds = _LARGEST[dtype] = (int(info.min), int(info.max))
    smallest, largest = bounds
    low = smallest if smallest < 0 else -math.inf
    if not low <= value <= largest:
        raise TensorRuntimeError(f"value cannot be converted to type {name} without overflow "
                                 f"({dtype} holds {smallest} to {largest}, got "
                                 f"{value!r})")
