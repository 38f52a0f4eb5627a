"""Gradient checkpointing: keep less for backward, recompute the rest when it is needed.

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` so that none of its intermediate
tensors are saved; backward runs ``fn`` again (with the same random state) to get them.
Memory drops from every intermediate of ``fn`` to its inputs; the price is a second forward.

- ``use_reentrant=True``: ``fn`` runs under ``no_grad`` inside a custom Function
  (``CheckpointFunctionBackward``), whose backward recomputes and backpropagates.
- ``use_reentrant=False`` (recommended by PyTorch): ``fn`` is recorded as usual, but each
  saved tensor is replaced by a placeholder (``saved_tensors_hooks``); the first unpack
  recomputes ``fn`` once and hands back the recomputed tensors.
"""

import warnings

from .. import random as _random
from .._dispatch import grad_mode
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd._backward import backward as _backward
from ..autograd.graph import saved_tensors_hooks


def _detach_like(args):
    out = []
    for a in args:
        if isinstance(a, Tensor):
            d = a.detach()
            d._requires_grad = a._requires_grad
            out.append(d)
        else:
            out.append(a)
    return out


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        ctx.arg_layout = [isinstance(a, Tensor) for a in args]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        saved = iter(ctx.saved_tensors)
        args = [next(saved) if is_t else other for is_t, other in zip(ctx.arg_layout,
                                                                       ctx.others, strict=True)]
        inputs = _detach_like(args)
        current = _random.get_rng_state() if ctx.rng_state is not None else None
        if ctx.rng_state is not None:
            _random.set_rng_state(ctx.rng_state)
        previous = grad_mode.enabled
        grad_mode.enabled = True
        try:
            outputs = ctx.run_function(*inputs)
        finally:
            grad_mode.enabled = previous
            if current is not None:
                _random.set_rng_state(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True)
                 if isinstance(o, Tensor) and o._requires_grad and g is not None]
        if pairs:
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(i.grad if isinstance(i, Tensor) else None
                                    for i in inputs)


def _warn_default():
    warnings.warn(
        "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
        "use_reentrant=False is recommended, but if you need to preserve the current default "
        "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
        "differences between the two variants.", UserWarning, stacklevel=3)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """Run ``function(*args)`` without keeping its intermediates for backward."""
    if use_reentrant is None:
        _warn_default()
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs)


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs):
    rng_state = _random.get_rng_state() if preserve_rng_state else None
    state = {"count": 0, "recomputed": None}

    def pack(tensor):
        index = state["count"]
        state["count"] += 1
        return index

    def unpack(index):
        if state["recomputed"] is None:
            recomputed = []

            def keep(tensor):
                recomputed.append(tensor)
                return len(recomputed) - 1

            current = _random.get_rng_state() if rng_state is not None else None
            if rng_state is not None:
                _random.set_rng_state(rng_state)
            previous = grad_mode.enabled
            grad_mode.enabled = True
            try:
                with saved_tensors_hooks(keep, lambda i: recomputed[i]):
                    function(*_detach_like(args), **kwargs)
            finally:
                grad_mode.enabled = previous
                if current is not None:
                    _random.set_rng_state(current)
            state["recomputed"] = recomputed
        return state["recomputed"][index]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequence of modules/functions in ``segments`` chunks."""
    if use_reentrant is None:
        _warn_default()
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = max(1, len(functions) // segments)
    end = 0
    for start in range(0, len(functions) - size, size):
        end = start + size
        chunk = functions[start:end]

        def run(x, chunk=chunk):
            for f in chunk:
                x = f(x)
            return x

        input = checkpoint(run, input, use_reentrant=use_reentrant, **kwargs)
    for f in functions[end:]:
        input = f(input)
    return input
