"""Full backward hooks: ``hook(module, grad_input, grad_output)``.

The module's tensor inputs and outputs pass through identity Functions; the one on the
outputs records ``grad_output``, the one on the inputs calls the hooks with ``grad_input``
once every input's gradient is known (PyTorch's BackwardHook does the same).
"""

from ..._tensor import Tensor
from ...autograd.function import Function


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *tensors):
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors if len(tensors) != 1 else tensors[0]

    @staticmethod
    def backward(ctx, *grads):
        return ctx.on_backward(grads)


def _through(tensors, on_backward):
    """Pass ``tensors`` through an identity node whose backward calls ``on_backward``."""
    class _Identity(BackwardHookFunction):
        pass

    _Identity.__name__ = "BackwardHookFunction"

    @staticmethod
    def backward(ctx, *grads):
        result = on_backward(grads)
        return tuple(result) if result is not None else grads

    _Identity.backward = backward
    out = _Identity.apply(*tensors)
    return out if isinstance(out, tuple) else (out,)


def call_with_backward_hooks(module, args, kwargs):
    state = {"grad_output": None}
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]

    def on_input_grads(grads):
        grad_input = tuple(grads)
        for hook in list(module._backward_hooks.values()):
            result = hook(module, grad_input, state["grad_output"])
            if result is not None:
                grad_input = tuple(result)
        return grad_input

    if positions:
        wrapped = _through([args[i] for i in positions], on_input_grads)
        args = list(args)
        for i, w in zip(positions, wrapped, strict=True):
            args[i] = w
        args = tuple(args)
    output = module.forward(*args, **kwargs)
    outputs = output if isinstance(output, tuple) else (output,)
    out_positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o.requires_grad]
    if not out_positions:
        return output

    def on_output_grads(grads):
        state["grad_output"] = tuple(grads)
        if not positions:
            for hook in list(module._backward_hooks.values()):
                hook(module, (None,) * len(args), state["grad_output"])
        return None

    wrapped = _through([outputs[i] for i in out_positions], on_output_grads)
    outputs = list(outputs)
    for i, w in zip(out_positions, wrapped, strict=True):
        outputs[i] = w
    return tuple(outputs) if isinstance(output, tuple) else outputs[0]
