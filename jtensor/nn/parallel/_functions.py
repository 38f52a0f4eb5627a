"""The autograd Functions of ``torch.nn.parallel`` (PyTorch's node names: ``BroadcastBackward``,
``ScatterBackward``, ``GatherBackward``): moves of tensors between CUDA devices whose
backward moves the gradients back (``Broadcast``'s adds the copies' gradients up, PyTorch's
``ReduceAddCoalesced``). Written with ``to()`` and ``cat``/``split`` on each device."""

import warnings

from ..._ops.joining import cat
from ...autograd.function import Function
from ._devices import _cuda, _get_device_index


def _target(index):
    """A device index as ``comm`` reads it: -1 is the CPU."""
    return "cpu" if index == -1 else _cuda(index)


def _refuse_cpu(name, tensors):
    if not all(t.device.type != "cpu" for t in tensors):
        raise AssertionError(f"{name} function not implemented for CPU tensors")


class Broadcast(Function):
    """``inputs`` (on one CUDA device) copied to each of ``target_gpus``: the outputs are
    device by device, ``len(inputs)`` each (on the inputs' own device, the inputs
    themselves); the gradients of one input's copies are summed on its device."""

    @staticmethod
    def forward(ctx, target_gpus, *inputs):
        _refuse_cpu("Broadcast", inputs)
        ctx.target_gpus = [_get_device_index(x, True) for x in target_gpus]
        if len(inputs) == 0:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_device = inputs[0].device
        outputs = [
            [t if t.device == _cuda(d) else t.to(_cuda(d)) for t in inputs] for d in ctx.target_gpus
        ]
        ctx.mark_non_differentiable(
            *(
                copies[k]
                for k, needs in enumerate(ctx.needs_input_grad[1:])
                if not needs
                for copies in outputs
            )
        )
        return tuple(t for copies in outputs for t in copies)

    @staticmethod
    def backward(ctx, *grad_outputs):
        n = ctx.num_inputs
        grads = []
        for k in range(n):  # PyTorch's ReduceAddCoalesced: one sum per input
            total = None
            for g in grad_outputs[k::n]:
                if g is not None:
                    g = g.to(ctx.input_device)
                    total = g if total is None else total + g
            grads.append(total)
        return (None, *grads)


class Scatter(Function):
    """``input`` cut along ``dim`` (``chunk_sizes``, or ``len(target_gpus)`` chunks), chunk
    i on device ``target_gpus[i]``; the gradients are gathered back on the input's device."""

    @staticmethod
    def forward(ctx, target_gpus, chunk_sizes, dim, input):
        devices = [_get_device_index(x, True) for x in target_gpus]
        ctx.dim = dim
        ctx.input_device = input.get_device() if input.device.type != "cpu" else -1
        chunks = (
            input.split(list(chunk_sizes), dim)
            if chunk_sizes is not None
            else input.chunk(len(devices), dim)
        )
        # A chunk that stays on its device is copied too: an output of a Function that
        # is a view of its input would carry a view's history.
        return tuple(
            c.clone() if c.device == _cuda(d) else c.to(_cuda(d))
            for c, d in zip(chunks, devices, strict=False)
        )

    @staticmethod
    def backward(ctx, *grad_output):
        return None, None, None, Gather.apply(ctx.input_device, ctx.dim, *grad_output)


class Gather(Function):
    """``inputs`` (on CUDA devices) joined along ``dim`` on ``target_device`` (an index, a
    device, ``"cpu"`` or -1); 0-d inputs gathered along dim 0 become a vector (with
    PyTorch's warning). The gradient is scattered back to the inputs' devices."""

    @staticmethod
    def forward(ctx, target_device, dim, *inputs):
        _refuse_cpu("Gather", inputs)
        if target_device == "cpu":
            target = "cpu"
        else:
            target = _target(_get_device_index(target_device, True))
        ctx.dim = dim
        ctx.input_gpus = tuple(i.get_device() for i in inputs)
        ctx.unsqueezed_scalar = all(t.dim() == 0 for t in inputs) and dim == 0
        if ctx.unsqueezed_scalar:
            inputs = tuple(t.view(1) for t in inputs)
            warnings.warn(
                "Was asked to gather along dimension 0, but all input tensors were scalars; "
                "will instead unsqueeze and return a vector.",
                stacklevel=2,
            )
        ctx.input_sizes = tuple(i.size(dim) for i in inputs)
        return cat([t.to(target) for t in inputs], dim)

    @staticmethod
    def backward(ctx, grad_output):
        grads = Scatter.apply(ctx.input_gpus, ctx.input_sizes, ctx.dim, grad_output)
        if ctx.unsqueezed_scalar:
            grads = tuple(g[0] for g in grads)
        return (None, None, *grads)
