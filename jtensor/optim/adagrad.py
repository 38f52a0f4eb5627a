"""``optim.Adagrad`` (``lr_decay``, ``initial_accumulator_value``, weight decay,
``maximize``), in PyTorch's exact arithmetic order."""

from .optimizer import (
    Optimizer,
    _add_,
    _apply_weight_decay,
    _check_fused,
    _check_lr,
    _check_non_negative,
    _eval_closure,
    _get_scalar_dtype,
    _is_sparse,
    _make_sparse,
    _params_with_grad,
    _real_views,
    _scalar_value,
    _use_grad_for_differentiable,
)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Adagrad: ``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
    differentiable=False, fused=None)``.

    The state (``step`` and the running ``sum`` of squared gradients, starting at
    ``initial_accumulator_value``) is created for every parameter at construction. A sparse
    gradient (``nn.Embedding(sparse=True)``) updates only its rows (``weight_decay`` is then
    refused, as in PyTorch).

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        from .._ops.creation import full_like, tensor

        _check_lr(lr)
        _check_non_negative(("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps))
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups({"foreach": None, "maximize": False, "differentiable": False,
                               "fused": None}, tensor_step=True)

    def share_memory(self):
        """Move the state sums to shared memory (a no-op for the NumPy backend)."""
        for group in self.param_groups:
            for p in group["params"]:
                state_sum = self.state[p]["sum"]
                if hasattr(state_sum, "share_memory_"):
                    state_sum.share_memory_()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, sums, steps = [], [], [], []
            for p in _params_with_grad(group, params, grads):
                state = self.state[p]
                sums.append(state["sum"])
                steps.append(state["step"])
            adagrad(params, grads, sums, steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps,
            maximize, **_ignored):
    """Functional Adagrad: updates ``params`` and the state tensors in place."""
    lr = _scalar_value(lr)
    params, grads, state_sums = _real_views(params, grads, state_sums)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps, strict=True):
        step_t += 1
        step = _scalar_value(step_t)
        if weight_decay != 0 and _is_sparse(grad):
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        grad = _apply_weight_decay(grad, param, weight_decay, maximize)
        clr = lr / (1 + (step - 1) * lr_decay)
        if _is_sparse(grad):
            # The update is not linear in the gradient: sum duplicate indices first, then
            # touch only the rows present (state and parameter).
            grad = grad.coalesce()
            grad_indices = grad._indices()
            grad_values = grad._values()
            _add_(state_sum, _make_sparse(grad, grad_indices, grad_values.pow(2)))
            std_values = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
            _add_(param, _make_sparse(grad, grad_indices, grad_values / std_values),
                  alpha=-clr)
            continue
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
