"""The autograd methods of ``Tensor``: ``backward``, ``retain_grad``, hooks, ``detach_``."""

import weakref

from .._errors import TensorRuntimeError
from .._tensor import Tensor
from .engine import loss_backward
from .graph import _Handle


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (those in ``inputs`` only, when
    given). A non-scalar ``self`` needs ``gradient`` (same shape: the vector of the
    vector-Jacobian product). Saved tensors are freed unless ``retain_graph=True``."""
    if gradient is None and inputs is None and not create_graph:
        # ``loss.backward()``: what ``autograd.backward`` would pass on, without its layers.
        return loss_backward(self, retain_graph)
    from ._backward import backward as _backward

    _backward(self, None if gradient is None else [gradient], retain_graph, create_graph,
              inputs=inputs)


def retain_grad(self):
    """Make this non-leaf keep its ``.grad`` after ``backward()`` (leaves always do)."""
    if not self.requires_grad:  # (a view can require grad through its base)
        raise TensorRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    fn = self.grad_fn
    if fn._retain is None:
        fn._retain = {}
    fn._retain[self._output_nr] = weakref.ref(self)
    self._retains_grad = True


def register_hook(self, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new
    gradient of the same shape. Returns a handle with ``remove()``."""
    if not self._requires_grad:
        raise TensorRuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is None:
        if self._hooks is None:
            self._hooks = []
        return _Handle(self._hooks, hook)
    if fn._tensor_hooks is None:
        fn._tensor_hooks = {}
    return _Handle(fn._tensor_hooks.setdefault(self._output_nr, []), hook)


def register_post_accumulate_grad_hook(self, hook):
    """``hook(tensor)`` runs after a gradient was accumulated into this leaf's ``.grad``."""
    if self._grad_fn is not None:
        raise TensorRuntimeError(
            "post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.setdefault("_post_accumulate_hooks", [])
    return _Handle(hooks, hook)


def detach_(self):
    """Detach in place: this tensor becomes a leaf without history. Views cannot."""
    if self._base is not None:
        raise TensorRuntimeError(
            "Can't detach views in-place. Use detach() instead. (This tensor is a view of "
            "another tensor; detaching it in place would cut that tensor's history too.)")
    self._grad_fn = None
    self._requires_grad = False
    self._output_nr = 0
    self._view_version = None
    if self._fw_grads is not None:
        del self._fw_grads  # forward AD's tangents go too, as in PyTorch
    return self


def is_inference(self):
    """Whether this tensor was created in inference mode."""
    return self._is_inference


for _name, _fn in (("backward", backward), ("retain_grad", retain_grad),
                   ("register_hook", register_hook), ("detach_", detach_),
                   ("register_post_accumulate_grad_hook", register_post_accumulate_grad_hook),
                   ("is_inference", is_inference)):
    setattr(Tensor, _name, _fn)
