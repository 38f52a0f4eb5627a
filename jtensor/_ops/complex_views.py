"""Complex numbers seen as pairs of reals and back: ``view_as_real`` and ``view_as_complex``
(views over the same bytes: a complex element is two adjacent reals), ``complex(real,
imag)``, ``polar(abs, angle)``, ``isreal`` and the conjugate/negative bit queries
``is_conj``/``is_neg``.

jtensor has no conjugate or negative bit: ``conj()`` of a complex tensor computes a new
tensor (PyTorch returns a lazily conjugated view), so ``is_conj()`` and ``is_neg()`` are
always False here, and ``view_as_real`` never meets a conjugated tensor. jtensor has no
``complex32`` (PyTorch's experimental ComplexHalf) either: the half-precision forms raise.
"""

from .. import _dtypes
from .._elementwise import BOOL_RESULT, elementwise
from .._errors import TensorRuntimeError
from .._registry import register
from .._tensor import Tensor
from .views import _check_tensor, make_view

_PAIRABLE = (_dtypes.float32, _dtypes.float64)


def _no_complex32(name, dtype):
    """jtensor has no complex32: the half-precision forms of PyTorch's complex views stop
    here, with the reason (PyTorch itself calls ComplexHalf experimental)."""
    if dtype is _dtypes.float16:
        raise TensorRuntimeError(
            f"{name}: a float16 input would give a complex32 (ComplexHalf) tensor, which "
            "jtensor does not have; convert the input with .float() first"
        )


@register("view", method=False)   # no Tensor method in PyTorch
def view_as_real(input):
    """A real view of a complex tensor: a new last dim of size 2 holds (real, imaginary);
    strides and offset are counted in reals, so they double.

    >>> import jtensor as torch
    >>> torch.view_as_real(torch.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    _check_tensor(input, "view_as_real", "self")
    if input._dtype.category != _dtypes.COMPLEX:
        raise TensorRuntimeError(
            f"view_as_real is only supported for complex tensors, but got a tensor of dtype "
            f"{input._dtype}"
        )
    stride = tuple(2 * s for s in input._stride) + (1,)
    return make_view(input, input._shape + (2,), stride, 2 * input._offset, input._dtype.to_real())


@register("view", method=False)   # no Tensor method in PyTorch
def view_as_complex(input):
    """A complex view of a real tensor whose last dim (size 2, stride 1) holds the (real,
    imaginary) pairs; every other stride and the offset must be even (whole pairs).

    >>> import jtensor as torch
    >>> torch.view_as_complex(torch.tensor([[1.0, 2.0]])).tolist()
    [(1+2j)]
    """
    _check_tensor(input, "view_as_complex", "self")
    dtype = input._dtype
    if dtype not in _PAIRABLE:
        _no_complex32("view_as_complex", dtype)
        raise TensorRuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {dtype._torch_name}"
        )
    shape, stride = input._shape, input._stride
    if not shape:
        raise TensorRuntimeError(
            "view_as_complex: input tensor must have one or more dimensions, but got a 0-d tensor"
        )
    if shape[-1] != 2:
        raise TensorRuntimeError(
            f"Tensor must have a last dimension of size 2 (the real and imaginary parts), but "
            f"got shape {list(shape)}"
        )
    if stride[-1] != 1:
        raise TensorRuntimeError(
            f"Tensor must have a last dimension with stride 1, but got strides {list(stride)}; "
            "call .contiguous() first"
        )
    if any(s % 2 for s in stride[:-1]):
        raise TensorRuntimeError(
            f"Tensor must have a stride divisible by 2 for all but last dimension, but got "
            f"strides {list(stride)}; call .contiguous() first"
        )
    if input._offset % 2:
        raise TensorRuntimeError(
            f"Tensor must have a storage_offset divisible by 2, but got {input._offset}; call "
            ".contiguous() first"
        )
    return make_view(
        input,
        shape[:-1],
        tuple(s // 2 for s in stride[:-1]),
        input._offset // 2,
        dtype.to_complex(),
    )


def _check_pair(name, a, b):
    """``complex``/``polar``: two tensors of one floating dtype (half, float or double)."""
    _check_tensor(a, name, "real" if name == "complex" else "abs", 1)
    _check_tensor(b, name, "imag" if name == "complex" else "angle", 2)
    if a._dtype not in _PAIRABLE + (_dtypes.float16,) or b._dtype not in _PAIRABLE + (
        _dtypes.float16,
    ):
        raise TensorRuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{a._dtype._torch_name} and {b._dtype._torch_name}"
        )
    if a._dtype is not b._dtype:
        raise TensorRuntimeError(
            f"Expected object of scalar type {a._dtype._torch_name} but got scalar type "
            f"{b._dtype._torch_name} for second argument ({name} takes two tensors of one "
            "dtype)"
        )
    _no_complex32(name, a._dtype)


def _check_out(out, dtype):
    """PyTorch's ``complex``/``polar`` write only into ``out`` of exactly the result's dtype."""
    if out is not None and isinstance(out, Tensor) and out._dtype is not dtype:
        raise TensorRuntimeError(
            f"Expected object of scalar type {dtype._torch_name} but got scalar type "
            f"{out._dtype._torch_name} for argument 'out'"
        )


def _pair_into(xp, re, im):
    """A complex array from its real and imaginary parts (broadcast)."""
    re, im = xp.broadcast_arrays(re, im)
    dtype = xp.result_type(re.dtype, xp.complex64)
    out = xp.empty(re.shape, dtype=dtype)
    out.real = re
    out.imag = im
    return out


def _complex_compute(xp, re, im):
    # the operands come cast to the complex result type; their real parts are the values
    return _pair_into(xp, re.real, im.real)


def _polar_compute(xp, r, theta):
    r, theta = r.real, theta.real  # computed in the real type, as std::polar
    return _pair_into(xp, r * xp.cos(theta), r * xp.sin(theta))


@register("elementwise", method=False)   # no Tensor method in PyTorch
def complex(real, imag, *, out=None):
    """The complex tensor ``real + imag * 1j`` (both float or both double; broadcast).

    >>> import jtensor as torch
    >>> torch.complex(torch.tensor([1.0]), torch.tensor([2.0])).tolist()
    [(1+2j)]
    """
    _check_pair("complex", real, imag)
    _check_out(out, real._dtype.to_complex())
    return elementwise(
        complex.op,
        _complex_compute,
        (real, imag),
        out=out,
        result_dtype_override=real._dtype.to_complex(),
    )


@register("elementwise", method=False)   # no Tensor method in PyTorch
def polar(abs, angle, *, out=None):
    """The complex tensor ``abs * (cos(angle) + 1j * sin(angle))`` (broadcast).

    >>> import jtensor as torch
    >>> torch.polar(torch.tensor([2.0]), torch.tensor([0.0])).tolist()
    [(2+0j)]
    """
    _check_pair("polar", abs, angle)
    _check_out(out, abs._dtype.to_complex())
    return elementwise(
        polar.op,
        _polar_compute,
        (abs, angle),
        out=out,
        result_dtype_override=abs._dtype.to_complex(),
    )


def _isreal_compute(xp, a):
    if a.dtype.kind == "c":
        return a.imag == 0
    return xp.ones(a.shape, dtype=bool)


@register("elementwise")
def isreal(input):
    """Where the imaginary part is zero (every element of a real tensor), as bools."""
    _check_tensor(input, "isreal")
    return elementwise(isreal.op, _isreal_compute, (input,), rule=BOOL_RESULT)


@register("query")
def is_conj(input):
    """Whether the conjugate bit is set: always False in jtensor, whose ``conj()`` computes
    the conjugate instead of marking a view."""
    _check_tensor(input, "is_conj")
    return False


@register("query")
def is_neg(input):
    """Whether the negative bit is set: always False in jtensor, which has no lazily negated
    views."""
    _check_tensor(input, "is_neg")
    return False
