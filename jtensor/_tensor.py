"""``Tensor``: (storage, shape, stride, offset, dtype) plus autograd fields.

Ops are not defined here: each op module registers its functions, and the registry attaches
the method forms to this class (see ``_registry``). What lives here is the metadata model and
the Python protocols (len, iteration, bool, numbers, NumPy, DLPack).
"""

import copy
import warnings

import numpy as np

from ._dtypes import _BY_NUMPY

from . import _device as _device_layer
from . import _dispatch, _dtypes
from ._device import CPU, CPU_BACKEND as _CPU_BACKEND, backend_for
from ._errors import (TensorRuntimeError, TensorTypeError, TensorValueError, stacklevel,
                      wrap_dim, type_name)
from ._layout import (_contiguous_strides, contiguous_strides, is_channels_last, is_contiguous,
                      is_non_overlapping_and_dense)
from ._size import Size
from ._storage import Storage, TypedStorage, fix_size, warn_typed_storage_removal


# The classes whose instances are plain strided tensors, read through ``_array()`` like a
# Tensor's (nn.Parameter adds itself): the fast paths of issue 18 take these and leave any
# other class (sparse, batched under vmap, a user's subclass) to the general path.
DENSE_CLASSES = set()

# The dtypes whose NumPy products and sums are exactly the public ops' (half types are
# widened there, complex products split): the array fast paths take these only.
ARRAY_FLOATS = (_dtypes.float32, _dtypes.float64)


def plain_cpu_floats(*tensors):
    """Whether every one of ``tensors`` is a plain strided tensor (``DENSE_CLASSES``) on the
    CPU, of float32 or float64: what the array fast paths of issue 18 require."""
    for t in tensors:
        if t.__class__ not in DENSE_CLASSES or t._storage._backend is not _CPU_BACKEND \
                or t._dtype not in ARRAY_FLOATS:
            return False
    return True


def as_fresh(t):
    """``t``, an op's result; when it is a view of an intermediate only the op can see (a
    reshape of its work tensor), the same elements as a tensor of its own, no base and
    version 0: the fresh tensor PyTorch's kernel writes."""
    if t._base is None and not t._version_counter.value:
        return t
    return Tensor._make(t._storage, t._shape, t._stride, t._offset, t._dtype,
                        contiguous=t._contiguous)


def fresh_tensor(cls, array, shape, dtype, device, backend):
    """A tensor of class ``cls`` owning ``array``, a freshly computed C-contiguous array of
    ``shape`` and ``dtype`` on ``device`` (whose backend is ``backend``): the commonest
    construction of all (every op result), ``Storage`` and ``Tensor._make`` written out
    without their general cases (issue 18)."""
    storage = object.__new__(Storage)
    storage._bytes = None
    storage._source = array
    storage.device = device
    storage._generation = 0
    storage._backend = backend
    if backend.tracked:
        backend.adopt(storage)   # device memory: counted by its allocator, freed to it
    self = object.__new__(cls)
    self._storage = storage
    self._shape = shape
    self._stride = _contiguous_strides(shape)
    self._offset = 0
    self._dtype = dtype
    self._cached_array = array
    self._cached_generation = 0
    self._contiguous = True
    counter = self._version_counter = _new_object(_VersionCounter)   # (no ``__init__`` frame)
    counter.value = 0
    return self


_new_object = object.__new__


def valid_array(t):
    """``t``'s cached backend array while it is valid (for another tensor of exactly
    ``t``'s elements and layout to start with), else None."""
    array = t._cached_array
    if array is not None and t._cached_generation == t._storage._generation:
        return array
    return None


# ``Tensor._grad_dtype`` when never set: the gradient's dtype follows the tensor's.
_FOLLOWS_DTYPE = object()


class _VersionCounter:
    """Counts in-place writes; one counter is shared by a tensor, its views and ``detach()``."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class _AutogradViews:
    """Replaced by jtensor.autograd at import: regenerates stale view history."""

    @staticmethod
    def refresh_view(tensor):
        return None


_autograd_views = _AutogradViews()


class _Constant:
    """A named singleton that prints as ``torch.<name>`` and unpickles to itself (compare
    with ``is``)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name
        _CONSTANTS[(type(self).__name__, name)] = self

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_constant_named, (type(self).__name__, self.name))


_CONSTANTS = {}


def _constant_named(kind, name):
    return _CONSTANTS[(kind, name)]


class memory_format(_Constant):
    """``torch.contiguous_format``, ``torch.channels_last``, ... (compare with ``is``)."""

    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


class layout(_Constant):
    """``torch.strided`` (dense tensors) and ``torch.sparse_coo`` (compare with ``is``)."""

    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")


# What the Tensor class needs from the layers above it (the legacy constructor, ``repr``,
# ``torch.tensor`` for unpickling): each installs its function here when it is imported, so
# this module never imports them.
_hooks = {}


# Warnings PyTorch gives once per process (TORCH_WARN_ONCE): whether each was given.
_warned = {"float_requires_grad": False}


class Tensor:
    """A strided view of a storage. Construct with ``jtensor.tensor(...)`` and friends.

    >>> import jtensor as torch
    >>> x = torch.zeros(2, 3)
    >>> x.shape, x.stride(), x.storage_offset()
    (torch.Size([2, 3]), (3, 1), 0)
    """

    # Hot fields live in slots; rarely-set autograd fields default at class level and only
    # reach the instance __dict__ when assigned, which keeps creating a tensor cheap.
    __slots__ = ("_storage", "_shape", "_stride", "_offset", "_dtype", "_cached_array",
                 "_cached_generation", "_version_counter", "_contiguous", "__dict__",
                 "__weakref__")

    _base = None
    _requires_grad = False
    _grad = None
    _grad_dtype = _FOLLOWS_DTYPE   # (set by ``grad_dtype``: a dtype, or None for any)
    _grad_fn = None
    _retains_grad = False
    _output_nr = 0
    _hooks = None
    _is_inference = False
    _view_version = None   # views recorded by autograd: the version their grad_fn is valid for
    # How a view was made, for PyTorch's refusals of in-place writes that autograd cannot
    # follow (its CreationMeta): None (an ordinary view), "no_grad" (made with grad mode off)
    # or the node name of a multi-output view op ("SplitBackward0": split, chunk, unbind...).
    _creation_meta = None
    # A view made without recording (under no_grad) of a base that requires grad: it requires
    # grad too, but through its base only (no accumulator of its own), as PyTorch's views.
    _derived_grad = False
    _accumulator = None    # weak reference to a leaf's AccumulateGrad node
    _fw_grads = None       # forward AD: {level: tangent} (jtensor/autograd/forward/)

    # ------------------------------------------------------------------ construction
    def __new__(cls, *args, dtype=None, device=None, requires_grad=False):
        # The legacy constructor: Tensor(2, 3) is uninitialised, Tensor([1, 2]) copies data
        # (installed by the op layer: jtensor/_ops/creation.py).
        return _hooks["legacy_constructor"](cls, args, dtype, device)

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _make(cls, storage, shape, stride, offset, dtype, base=None, version=None,
              array=None, contiguous=None):
        """Internal constructor: no checks, no copies. ``shape`` and ``stride`` are tuples."""
        self = object.__new__(cls)
        self._storage = storage
        self._shape = shape
        self._stride = stride
        self._offset = offset
        self._dtype = dtype
        self._cached_array = array
        self._cached_generation = storage._generation if storage is not None else 0
        self._contiguous = contiguous
        if base is not None:
            self._base = base
        self._version_counter = version if version is not None else _VersionCounter()
        return self

    @classmethod
    def _from_array(cls, array, dtype=None, device=CPU):
        """Wrap a freshly computed backend array (no copy when it is dense)."""
        if dtype is None:
            dtype = _BY_NUMPY.get(array.dtype) or _dtypes.from_numpy_dtype(array.dtype)
        elif array.dtype != dtype.numpy:
            array = array.astype(dtype.numpy)
        shape = array.shape
        if not shape and isinstance(array, np.generic):
            # NumPy hands back scalars from 0-d computations; a tensor needs a real 0-d array
            # (writable in place, and what __array__ must return).
            array = np.asarray(array)
        if array.flags.c_contiguous:
            return fresh_tensor(cls, array, shape, dtype, device,
                                _CPU_BACKEND if device is CPU else backend_for(device))
        itemsize = dtype.itemsize
        stride = tuple(s // itemsize for s in array.strides)
        if array.flags.f_contiguous and array.ndim == 2:
            # A fresh product's transpose (``weight.grad`` of a linear layer): dense, its
            # storage is the C-contiguous array it transposes.
            storage = Storage(None, device, source=array.T,
                              backend=_CPU_BACKEND if device is CPU else backend_for(device))
            return cls._make(storage, shape, stride, 0, dtype, array=array, contiguous=False)
        if (min(stride, default=0) >= 0 and all(s % itemsize == 0 for s in array.strides)
                and is_non_overlapping_and_dense(shape, stride)):
            order = sorted(range(array.ndim), key=lambda d: -array.strides[d])
            data = array.transpose(order).reshape(-1).view(np.uint8)
        else:
            array = array.copy()
            data = array.reshape(-1).view(np.uint8)
            stride = contiguous_strides(shape)
        return cls._make(Storage(data, device), shape, stride, 0, dtype, array=array)

    # ------------------------------------------------------------------ raw data access
    def _array(self):
        """A backend array over exactly this tensor's elements (shares memory)."""
        array = self._cached_array
        storage = self._storage
        if array is None or self._cached_generation != storage._generation:
            itemsize = self._dtype.itemsize
            array = storage._backend.view(
                storage._data, self._shape, self._dtype.numpy, self._offset * itemsize,
                tuple(s * itemsize for s in self._stride))
            self._cached_array = array
            self._cached_generation = storage._generation
        return array

    def _array_nowait(self):
        """Like ``_array``, for a kernel being queued on an asynchronous device: the array is
        built over device memory without waiting for earlier kernels (they run first)."""
        storage = self._storage
        itemsize = self._dtype.itemsize
        return storage._backend.view_nowait(
            storage._data, self._shape, self._dtype.numpy, self._offset * itemsize,
            tuple(s * itemsize for s in self._stride))

    def _set_metadata(self, shape, stride, offset):
        """In-place metadata change (``as_strided_``, ``transpose_``...): drop the cache."""
        self._shape = tuple(shape)
        self._stride = tuple(stride)
        self._offset = offset
        self._cached_array = None
        self._contiguous = None

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        """The shape, or the size of one dimension."""
        if dim is None:
            return Size(self._shape)
        return self._shape[wrap_dim(dim, len(self._shape))]

    def stride(self, dim=None):
        """Strides in elements (not bytes), or the stride of one dimension."""
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._shape))]

    def storage_offset(self):
        """Index, in elements, of this tensor's first element inside its storage."""
        return self._offset

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self._dtype.itemsize

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._storage.device.type == "cpu"

    @property
    def is_meta(self):
        return self._storage.device.type == "meta"

    @property
    def is_sparse(self):
        return False

    @property
    def layout(self):
        return strided

    def get_device(self):
        dev = self._storage.device
        return -1 if dev.type == "cpu" else dev.index

    def is_floating_point(self):
        return self._dtype.category == _dtypes.FLOATING

    def is_complex(self):
        return self._dtype.category == _dtypes.COMPLEX

    def is_signed(self):
        return self._dtype.is_signed

    def is_contiguous(self, memory_format=contiguous_format):
        """Row-major dense (the default), or NHWC-dense for ``channels_last``."""
        if memory_format is contiguous_format:
            flag = self._contiguous
            if flag is None:
                flag = self._contiguous = is_contiguous(self._shape, self._stride)
            return flag
        if memory_format is channels_last:
            return len(self._shape) == 4 and is_channels_last(self._shape, self._stride)
        if memory_format is channels_last_3d:
            return len(self._shape) == 5 and is_channels_last(self._shape, self._stride)
        if memory_format is preserve_format:  # PyTorch answers the plain question
            return self.is_contiguous()
        raise TensorTypeError(
            f"is_contiguous(): memory_format must be a torch.memory_format, got "
            f"{memory_format!r}")

    def is_non_overlapping_and_dense(self):
        return is_non_overlapping_and_dense(self._shape, self._stride)

    def untyped_storage(self):
        """The storage this tensor looks into (shared by all its views)."""
        return self._storage

    def storage(self):
        """The storage as elements of this tensor's dtype (PyTorch's deprecated
        ``TypedStorage``: ``s[i]`` reads and writes one element; prefer
        ``untyped_storage()``, the bytes)."""
        warn_typed_storage_removal()
        return TypedStorage(self._storage, self._dtype)

    def data_ptr(self):
        """Address of this tensor's first element: the storage address plus the offset (0
        for a tensor of no elements, as PyTorch's null pointer)."""
        if 0 in self._shape:
            return 0
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    @property
    def _version(self):
        """How many in-place writes this tensor (or a view sharing its counter) has seen."""
        return self._version_counter.value

    def _is_view(self):
        return self._base is not None

    # ------------------------------------------------------------------ autograd fields
    @property
    def requires_grad(self):
        if self._requires_grad:
            if self._derived_grad and self._grad_fn is None:
                return self._base._requires_grad  # (the base may have stopped requiring it)
            return True
        # A floating view follows its base, as PyTorch's views do: one made under no_grad,
        # or before its base required grad, requires grad when the base does.
        base = self._base
        return base is not None and base._requires_grad and \
            self._dtype.category >= _dtypes.FLOATING

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._dtype.category < _dtypes.FLOATING:
            raise TensorRuntimeError(
                "only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(bool(value))

    def requires_grad_(self, requires_grad=True):
        """Mark a leaf as needing gradients; only floating and complex dtypes qualify."""
        if not isinstance(requires_grad, bool):
            raise TensorTypeError(
                f"requires_grad_(): argument 'requires_grad' must be bool, not "
                f"{type_name(requires_grad)}")
        if self._grad_fn is not None and not requires_grad:
            raise TensorRuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._dtype.category < _dtypes.FLOATING:
            # PyTorch's wording here (complex dtypes qualify too, as the setter says).
            raise TensorRuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = requires_grad
        if self._derived_grad:
            self._derived_grad = False  # the user's own flag from now on
        return self

    @property
    def grad_fn(self):
        """The graph node that made this tensor (None for leaves and tensors without history).

        A view whose base was since written in place gets a fresh node that reads the view's
        elements out of the base's new history (PyTorch's ``AsStridedBackward0``)."""
        if self._view_version is not None and \
                self._view_version != self._version_counter.value:
            if self._grad_fn is None and not self._base._requires_grad:
                # Nothing to rebuild yet; the version stays stale, as PyTorch's, so the
                # history is made (or refused) once the base requires grad.
                return None
            if self._creation_meta is not None:
                raise _dispatch.view_rebase_error(self, indirect=True)
            _autograd_views.refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        """Leaves: tensors not made by a recorded op (all tensors that do not require grad,
        and those that require it because the user said so)."""
        if self._view_version is not None:
            return self.grad_fn is None  # a view's history may need rebuilding (or refusing)
        return self._grad_fn is None

    @property
    def grad(self):
        """The gradient accumulated by ``backward()`` (leaves, and tensors that
        ``retain_grad()``); reading it on another non-leaf warns, as in PyTorch."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead.", UserWarning,
                stacklevel=stacklevel(2))
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TensorTypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}")
            if value._shape != self._shape:
                raise TensorRuntimeError(
                    f"attempting to assign a gradient of size '{list(value._shape)}' to a "
                    f"tensor of size '{list(self._shape)}'. Please ensure that the gradient and "
                    "the tensor are the same size")
            if value.device.type != self.device.type:
                raise TensorRuntimeError(
                    f"attempting to assign a gradient with device type '{value.device.type}' "
                    f"to a tensor with device type '{self.device.type}'. Please ensure that the "
                    "gradient and the tensor are on the same device")
            allowed = self._dtype if self._grad_dtype is _FOLLOWS_DTYPE else self._grad_dtype
            if allowed is not None and value._dtype is not allowed:
                name = _dtypes.CPP_NAMES.get(value._dtype.name, value._dtype.name)
                raise TensorRuntimeError(
                    f"attempting to assign a gradient with dtype '{name}' to a tensor with "
                    f"grad_dtype '{allowed._torch_name}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                    "Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
        self._grad = value

    @property
    def grad_dtype(self):
        """The dtype a leaf's ``.grad`` must have (its own dtype unless set; None allows any):
        ``backward`` casts the leaf's gradient to it, and assigning ``.grad`` checks it."""
        if not self.is_leaf:
            raise TensorRuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self._dtype if self._grad_dtype is _FOLLOWS_DTYPE else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if not self.is_leaf:
            raise TensorRuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtypes.dtype):
            raise TensorRuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type_name(value)}")
        grad = self._grad
        if value is not None and grad is not None and grad._dtype is not value:
            name = _dtypes.CPP_NAMES.get(grad._dtype.name, grad._dtype.name)
            raise TensorRuntimeError(
                f"Cannot set grad_dtype to '{value._torch_name}' because there is already a "
                f"gradient with dtype '{name}'. "
                "Please clear the gradient (.grad = None) before changing grad_dtype, or ensure "
                "the new grad_dtype matches the existing gradient's dtype.")
        self._grad_dtype = value

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def data(self):
        """The same storage without history and with its OWN version counter.

        NOTE: because the counter is not shared, in-place writes through ``.data`` are
        invisible to autograd's saved-tensor check: this is exactly why ``.data`` can
        silently corrupt gradients in PyTorch, and jtensor reproduces it.
        """
        if _dispatch.event_hook is not None:
            _dispatch.emit("data", tensor=self)  # for jtensor.trace's pitfalls
        out = Tensor._make(self._storage, self._shape, self._stride, self._offset,
                           self._dtype, array=self._cached_array)
        if self.__class__ is not Tensor and _dispatch.subclass_dispatch:
            # A subclass taking part in ``__torch_function__`` keeps its class (PyTorch's
            # default handler converts the getter's result).
            out.__class__ = _hooks["data_class"](self)
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TensorTypeError(f"data must be a Tensor, got {type_name(value)}")
        self._storage = value._storage
        self._dtype = value._dtype
        self._set_metadata(value._shape, value._stride, value._offset)

    # ------------------------------------------------------------------ Python protocols
    def __len__(self):
        if not self._shape:
            raise TensorTypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TensorTypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        """``reversed(t)``: ``t.flip(0)``, a new tensor (a 0-d tensor is itself), as
        PyTorch's."""
        return self if not self._shape else self.flip(0)

    def __bool__(self):
        if self.numel() != 1:
            raise TensorRuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(this tensor has {self.numel()} elements; use .any() or .all())")
        return bool(self.item())

    def _scalar_conversion(self, kind):
        if self._shape and self.numel() != 1:   # (a 0-d tensor has its one element)
            raise TensorValueError(
                f"only one element tensors can be converted to Python scalars (this tensor "
                f"has {self.numel()} elements)")
        value = self.item()
        if isinstance(value, complex) and kind is not complex:
            if kind is bool:
                return bool(value)
            if value.imag == 0:   # (PyTorch converts a complex number that is real)
                return kind(value.real)
            raise TensorRuntimeError(
                f"value cannot be converted to type {'double' if kind is float else 'int64_t'} "
                f"without overflow (complex value {value}; take .real or abs() first)")
        return kind(value)

    def __float__(self):
        if self._requires_grad and not _warned["float_requires_grad"] \
                and _dispatch.grad_mode.enabled:
            # PyTorch warns once per process (TORCH_WARN_ONCE), for float() only.
            _warned["float_requires_grad"] = True
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
        return self._scalar_conversion(float)

    def __int__(self):
        return self._scalar_conversion(int)

    def __complex__(self):
        return self._scalar_conversion(complex)

    def __index__(self):
        if self._dtype.category not in (_dtypes.INTEGRAL, _dtypes.BOOL) or self.numel() != 1:
            raise TensorTypeError(
                "only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def item(self):
        """The single element as a Python number (a synchronisation point on CUDA)."""
        if not self._shape and self.__class__ in DENSE_CLASSES \
                and self._storage._backend is _CPU_BACKEND and self._dtype is not _dtypes.bfloat16:
            # (a 0-d CPU tensor, the common case: ``loss.item()``)
            return self._array().item()
        if self.numel() != 1:
            raise TensorRuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        value = self._host_array("item").reshape(-1)[0]
        if self._dtype is _dtypes.bfloat16:
            return float(value)
        return value.item()

    def tolist(self):
        """Nested Python lists of Python numbers (a 0-d tensor gives a number)."""
        array = self._host_array("tolist")
        if self._dtype is _dtypes.bfloat16:
            array = array.astype(np.float32)
        return array.tolist()

    def _host_array(self, reason="cpu"):
        """The values on the host: for a device tensor a copy, after a sync (``reason``)."""
        backend = self._storage._backend
        # (On a deferred device ``to_host`` waits, and reports the sync with its reason.)
        array = self._array_nowait() if backend.deferred else self._array()
        return backend.to_host(array, reason)

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (writes show both ways)."""
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first.")
        # (As PyTorch: refused only while grad mode is on; under no_grad, and inside an
        # autograd.Function's forward, the array is handed out.)
        if self._requires_grad and not force and _dispatch.grad_mode.enabled:
            raise TensorRuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        fix_size(self._storage)   # (as PyTorch's: the array points into these bytes)
        return self._array()

    def __array__(self, dtype=None, copy=None):
        array = self.numpy(force=False)
        if dtype is not None:
            return array.astype(dtype, copy=bool(copy) if copy is not None else False)
        return array.copy() if copy else array

    __array_priority__ = 1000  # make ndarray <op> Tensor defer to Tensor's reflected op

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy ufuncs on a tensor (``np.exp(t)``) give back a tensor, as with PyTorch.

        NOTE: PyTorch turns a bool result into uint8 here (an old workaround it keeps), so
        ``np.greater(t, 1)`` is a uint8 tensor in both libraries.
        """
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)   # (order "K": the array's layout kept)
        # PyTorch's ``from_numpy``: NumPy's result as it is, strides included.
        return Tensor._from_array(array)

    def __dlpack__(self, stream=None, **kwargs):
        if self._requires_grad:
            raise TensorRuntimeError(
                "Can't export tensors that require gradient, use tensor.detach()")
        if stream is not None:
            kwargs["stream"] = stream
        return self._array().__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array().__dlpack_device__()

    def __reduce_ex__(self, protocol):
        args = (self.detach().cpu().numpy().copy(), self._dtype.name, str(self.device),
                self._requires_grad)
        if self.__class__ not in DENSE_CLASSES:
            # A subclass's tensor comes back of its class with its own attributes, as
            # PyTorch's ``_rebuild_from_type_v2`` (whether or not it takes part in
            # ``__torch_function__``; jtensor's own subclasses have their own reduce).
            return (_rebuild_subclass, (self.__class__, args, _user_state(self)))
        return (_rebuild_tensor, args)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = self.clone().detach().requires_grad_(self._requires_grad)
        if self.__class__ not in DENSE_CLASSES:
            result.__class__ = self.__class__
            result.__dict__.update(copy.deepcopy(_user_state(self), memo))
        memo[id(self)] = result
        return result

    def __repr__(self):
        return _hooks["repr"](self)

    def __format__(self, spec):
        # PyTorch's: a plain 0-d tensor formats its number (``f"{loss:.4f}"``); anything else
        # (more elements, a Parameter, the meta device) is ``object.__format__``, which takes
        # no format spec (``f"{t:.2f}"`` is a TypeError) and gives ``str(t)`` without one.
        if not self._shape and self.__class__ is Tensor and self._storage.device.type != "meta":
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __setstate__(self, state):  # pragma: no cover - pickling goes through __reduce_ex__
        raise TensorRuntimeError("Tensor state must be restored through __reduce_ex__")


    @property
    def mT(self):
        """The last two dims swapped (batched matrix transpose). A view."""
        ndim = len(self._shape)
        if ndim >= 2:
            return self.transpose(-2, -1)
        if ndim == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the "
                          "identity in these cases.", UserWarning, stacklevel=stacklevel(2))
            return self._alias()
        raise TensorRuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{self.dim()}-D tensor.")

    @property
    def H(self):
        if self.dim() > 2:
            raise TensorRuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
        flipped = self.transpose(0, 1) if self.dim() == 2 else self.T  # as PyTorch's adjoint
        return flipped.conj() if self.is_complex() else flipped

    @property
    def mH(self):
        return self.mT.conj() if self.is_complex() else self.mT

    def type(self, dtype=None):
        if dtype is None:
            prefix = "torch." if self.device.type == "cpu" else "torch.cuda."
            return f"{prefix}{self._dtype._torch_name}Tensor"
        if isinstance(dtype, str):  # 'torch.IntTensor', 'torch.cuda.FloatTensor'
            names = {f"{d._torch_name}Tensor": d for d in _dtypes.ALL}
            prefix, _, name = dtype.rpartition(".")
            if name not in names or prefix not in ("torch", "torch.cuda"):
                raise TensorValueError(f"invalid type: '{dtype}'")
            device = "cuda" if prefix == "torch.cuda" else "cpu"
            return self.to(device=device, dtype=names[name])
        if isinstance(dtype, _dtypes.dtype):
            return self.to(dtype)
        torch_name = getattr(dtype, "_torch_type_name", None)   # torch.FloatTensor
        if torch_name is not None:
            return self.type(torch_name)
        kind = dtype.__name__ if isinstance(dtype, type) else type(dtype).__name__
        module = getattr(dtype, "__module__", "builtins")
        raise TensorValueError(
            f"invalid type: '{kind if module == 'builtins' else f'{module}.{kind}'}' (pass a "
            "torch dtype such as torch.float32, or a type name such as 'torch.FloatTensor')")


def _rebuild_tensor(array, dtype_name, device_name, requires_grad):
    return _hooks["tensor"](array, dtype=_dtypes._dtype_by_name(dtype_name), device=device_name,
                  requires_grad=requires_grad)


def _user_state(t):
    """The attributes a user gave the tensor ``t`` (its ``__dict__`` without jtensor's own
    fields, which are all ``Tensor`` class attributes)."""
    return {k: v for k, v in t.__dict__.items() if not hasattr(Tensor, k)}


def _rebuild_subclass(cls, args, state):
    t = _rebuild_tensor(*args)
    t.__class__ = cls
    t.__dict__.update(state)
    return t


def is_tensor(obj):
    """Whether ``obj`` is a jtensor Tensor."""
    return isinstance(obj, Tensor)


def wrap_storage(storage, shape, dtype, device, stride=None):
    """A tensor over a whole new storage (contiguous unless ``stride`` is given)."""
    shape = tuple(shape)
    if stride is None:
        stride = contiguous_strides(shape)
    return Tensor._make(storage, shape, tuple(stride), 0, dtype)


def fill_uninitialized(t, start=0):
    """Deterministic mode's fill of memory an op leaves uninitialised (PyTorch's
    ``fill_uninitialized_memory``): NaN for floating dtypes (the real part of complex ones,
    the imaginary part 0), the largest value for integers, True for bool; from flat element
    ``start`` of ``t`` on (``resize_``'s new elements; ``t`` is then contiguous)."""
    dtype = t._dtype
    if dtype.category >= _dtypes.FLOATING:
        value = float("nan")
    elif dtype is _dtypes.bool_:
        value = True
    else:
        value = int(np.iinfo(dtype.numpy).max)
    array = t._array()
    if start:
        array.reshape(-1)[start:] = value
    else:
        array[...] = value


def new_empty_tensor(shape, dtype, device=CPU, stride=None, pinned=False):
    """Allocate uninitialised memory for ``shape`` (with ``stride``, contiguous by default);
    ``pinned``: page-locked host memory, for queued copies to and from CUDA devices."""
    shape = tuple(shape)
    if stride is None:
        stride = contiguous_strides(shape)
    extent = 0 if 0 in shape else 1 + sum((s - 1) * st for s, st in zip(shape, stride, strict=True))
    if pinned:
        storage = _device_layer.pinned_storage(extent * dtype.itemsize, device)
        return Tensor._make(storage, shape, tuple(stride), 0, dtype)
    backend = backend_for(device)
    storage = Storage(backend.allocate(extent * dtype.itemsize), device)
    return Tensor._make(storage, shape, tuple(stride), 0, dtype)


# PyTorch's classes print with their public path (``<class 'torch.Tensor'>``, not the module
# that defines them); pickle finds them there too, jtensor's package root exports them.
Tensor.__module__ = layout.__module__ = memory_format.__module__ = "jtensor"

DENSE_CLASSES.add(Tensor)
