"""The legacy typed tensor constructors: ``torch.FloatTensor``, ``torch.LongTensor``, ...

PyTorch 2.13 still has them, and old tutorials use them everywhere::

    torch.FloatTensor([1, 2])        # float32 data          -> tensor([1., 2.])
    torch.LongTensor(2, 3)           # an uninitialised 2x3 int64 tensor
    torch.FloatTensor()              # tensor([])
    x.type(torch.DoubleTensor)       # a conversion, as x.double()
    isinstance(x, torch.FloatTensor) # True for a float32 CPU tensor

As in PyTorch, each is a class whose metaclass is ``torch.tensortype``: calling it builds a plain
``torch.Tensor`` (never an instance of the class itself), ``isinstance`` checks the dtype and the
device, and ``issubclass(torch.FloatTensor, torch.Tensor)`` is False.
"""

import numpy as np

from . import _dtypes
from ._device import device as _device_type
from ._errors import (TensorRuntimeError, TensorTypeError, invalid_combination,
                      signature_type_name)
from ._ops.creation import _alias_numpy, _copy_tensor, _new, _shape_args, tensor
from ._size import Size
from ._tensor import Tensor, strided

# PyTorch's names, in the order of dir(torch).
_TYPES = {
    "BFloat16Tensor": _dtypes.bfloat16,
    "BoolTensor": _dtypes.bool_,
    "ByteTensor": _dtypes.uint8,
    "CharTensor": _dtypes.int8,
    "DoubleTensor": _dtypes.float64,
    "FloatTensor": _dtypes.float32,
    "HalfTensor": _dtypes.float16,
    "IntTensor": _dtypes.int32,
    "LongTensor": _dtypes.int64,
    "ShortTensor": _dtypes.int16,
}

_SIGNATURES = (
    "(*, torch.device device = None)",
    "(torch.Storage storage)",
    "(Tensor other)",
    "(tuple of ints size, *, torch.device device = None)",
    "(object data, *, torch.device device = None)",
)


_type_name = signature_type_name


def _invalid_combination(args, kwargs):
    return invalid_combination("new", args, kwargs, _SIGNATURES)


def _is_int(a):
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


# The C++ scalar names PyTorch's TensorOptions message prints.
_CPP_NAMES = {d: _dtypes.CPP_NAMES[d.name] for d in _dtypes.ALL if d.name in _dtypes.CPP_NAMES}


def _options(dtype, device):
    return (
        f"TensorOptions(dtype={_CPP_NAMES.get(dtype, str(dtype))}, device={device}, "
        "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


class tensortype(type):
    """The metaclass of the typed constructors (``type(torch.FloatTensor)``)."""

    def __call__(cls, *args, **kwargs):
        device = kwargs.pop("device", None)
        if kwargs:
            raise _invalid_combination(args, kwargs)
        kind = cls._device_type
        if device is not None and _device_type(device).type != kind:
            raise TensorRuntimeError(
                f"legacy constructor expects device type: {kind} but device type: "
                f"{_device_type(device).type} was passed"
            )
        if kind == "cuda":
            from . import cuda

            if not cuda.is_available():
                raise TensorTypeError(
                    f"type {cls._torch_type_name} not available: there is no CUDA device "
                    "(jtensor.cuda.emulate() starts jtensor's emulated one)")
            if device is None:
                device = _device_type("cuda", cuda.current_device())
        dtype = cls.dtype
        if not args:
            return _new(Size((0,)), dtype, device)
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if first.dtype != dtype or first.device.type != kind:
                raise TensorTypeError(
                    f"expected {_options(dtype, kind)} (got "
                    f"{_options(first.dtype, first.device)})"
                )
            return first._alias()  # an alias (AliasBackward0), as PyTorch's FloatTensor(other)
        if len(args) == 1 and isinstance(first, Size):
            return _new(_shape_args(args, cls.__name__), dtype, device)
        if _is_int(first):
            bad = next((i for i, a in enumerate(args) if not _is_int(a)), None)
            if bad is not None:
                raise TensorTypeError(
                    f"new(): argument 'size' failed to unpack the object at pos {bad + 1} with "
                    f'error "type must be tuple of ints,but got {_type_name(args[bad])}"'
                )
            shape = tuple(int(a) for a in args)
            return _new(_shape_args(shape, cls.__name__), dtype, device)
        if len(args) > 1:
            raise _invalid_combination(args, {})
        if isinstance(first, str):
            raise TensorTypeError("new(): invalid data type 'str'")
        if isinstance(first, np.ndarray):
            return _copy_tensor(_alias_numpy(first), dtype, device)
        if not hasattr(first, "__len__") and not hasattr(first, "__iter__"):
            raise TensorTypeError(f"new(): data must be a sequence (got {_type_name(first)})")
        return tensor(first, dtype=dtype, device=device)

    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, Tensor)
            and obj.dtype == cls.dtype
            and obj.device.type == cls._device_type
            and obj.layout == strided
        )

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


tensortype.__module__ = "torch"


def _make(name, dtype, kind="cpu"):
    module = "torch" if kind == "cpu" else "torch.cuda"
    cls = tensortype(
        name,
        (),
        {
            "dtype": dtype,
            "layout": strided,
            "is_cuda": kind == "cuda",
            "is_sparse": False,
            "_device_type": kind,
            "_torch_type_name": f"{module}.{name}",  # what Tensor.type(cls) converts to
            "__module__": module,
            "__doc__": f"Legacy constructor of {dtype} {kind.upper()} tensors "
                       f"(``{module}.{name}``).",
        },
    )
    return cls


TYPES = {name: _make(name, dtype) for name, dtype in _TYPES.items()}
globals().update(TYPES)
# ``torch.cuda.FloatTensor`` and the others: installed on jtensor.cuda from here (the typed
# constructors live above the device layer).
CUDA_TYPES = {name: _make(name, dtype, "cuda") for name, dtype in _TYPES.items()}


def _install_cuda_types():
    from . import cuda

    for name, cls in CUDA_TYPES.items():
        setattr(cuda, name, cls)


_install_cuda_types()

__all__ = ["tensortype", *TYPES]
