"""``torch.func``: composable function transforms (``vmap``, ``grad``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``) and ``functional_call``/``stack_module_state``.

``vmap`` is a level on the dispatcher's transform stack with a batching rule per op family
(``_rules``); ``grad``/``vjp``/``jacrev`` run jtensor's reverse-mode autograd on plain
tensors that carry the vmap levels' batch dims (``_autodiff``); ``jvp``/``jacfwd`` run
forward-mode AD (``jtensor.autograd.forward_ad``, ``_forward``).
"""

from ._autodiff import grad, grad_and_value, jacrev, vjp
from ._extras import functionalize, linearize, replace_all_batch_norm_modules_
from ._forward import hessian, jacfwd, jvp
from ._functional_call import functional_call, stack_module_state
from ._vmap import vmap

from ..autograd import _backward

_backward.vmap = vmap   # autograd.grad(..., is_grads_batched=True) runs under it

__all__ = [
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
