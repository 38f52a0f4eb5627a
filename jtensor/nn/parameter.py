"""``nn.Parameter``: a tensor that a Module registers as a learnable parameter."""

from .._tensor import DENSE_CLASSES, Tensor
from .._torch_function import PLAIN_ARGUMENTS, _disabled_torch_function_impl
from .._errors import type_name
from .._ops.creation import check_requires_grad


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and is registered when assigned to a
    ``Module`` attribute. It shares memory with the tensor it was made from.

    >>> import jtensor as torch
    >>> torch.nn.Parameter(torch.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

    __slots__ = ()  # the same layout as Tensor, so a tensor's fields carry over as they are

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type_name(data)}")
        check_requires_grad(data._dtype, requires_grad)   # (PyTorch's _make_subclass words)
        self = Tensor._make(data._storage, data._shape, data._stride, data._offset,
                            data._dtype, version=data._version_counter,
                            array=data._cached_array)
        self.__class__ = cls
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self._requires_grad)
        memo[id(self)] = result
        return result


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """``nn.Buffer(tensor, persistent=True)``: marks a tensor to register as a buffer."""

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        from .._ops.creation import empty

        data = empty(0) if data is None else data
        self = Tensor._make(data._storage, data._shape, data._stride, data._offset,
                            data._dtype, version=data._version_counter)
        self.__class__ = cls
        self.persistent = persistent
        return self

    def __init__(self, data=None, *, persistent=True):
        pass


class _UninitializedMixin:
    """A parameter or buffer whose shape is not known yet (the lazy modules'): it holds no
    data until ``materialize`` gives it a shape, and then becomes a plain one."""

    __slots__ = ()
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Allocate ``shape`` (uninitialized values) and become ``cls_to_become``."""
        from .._ops.creation import empty

        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A ``Parameter`` of the lazy modules before their first forward."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._ops.creation import empty

        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer of the lazy modules before their first forward."""

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._ops.creation import empty

        data = empty(0, device=device, dtype=dtype)
        self = Tensor._make(data._storage, data._shape, data._stride, data._offset,
                            data._dtype)
        self.__class__ = cls
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


DENSE_CLASSES.update((Parameter, Buffer))
PLAIN_ARGUMENTS.update((Parameter, Buffer))
