"""``optim.Adam`` (with ``amsgrad``, L2 or decoupled weight decay, ``maximize``), in
PyTorch's exact arithmetic order (the single-tensor CPU path)."""

import numpy as np

from .._api import ops as J
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    _apply_weight_decay,
    _check_fused,
    _check_lr,
    _check_non_negative,
    _eval_closure,
    _get_scalar_dtype,
    _params_with_grad,
    _real_views,
    _scalar_value,
    _to_scalar,
    _use_grad_for_differentiable,
    addc_into,
    decayed_grad,
    lerp_into,
    plain_step,
)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Adam: ``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, foreach=None, maximize=False, capturable=False, differentiable=False,
    fused=None, decoupled_weight_decay=False)``.

    Per parameter the state holds ``step`` (a scalar tensor), ``exp_avg``, ``exp_avg_sq``
    and, with ``amsgrad``, ``max_exp_avg_sq``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        _check_lr(lr)
        _check_non_negative(("epsilon value", eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check_non_negative(("weight_decay value", weight_decay))
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")  # noqa: TRY004 (PyTorch's type)
        for i in (0, 1):
            if isinstance(betas[i], Tensor) and betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups({"amsgrad": False, "maximize": False, "foreach": None,
                               "capturable": False, "differentiable": False,
                               "decoupled_weight_decay": False, "fused": None},
                              tensor_step=True)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                    state_steps):
        from .._ops.creation import tensor, zeros_like

        for p in _params_with_grad(group, params, grads,
                                   "Adam does not support sparse gradients, please consider "
                                   "SparseAdam instead"):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                             steps)
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad,
         beta1, beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay=False,
         **_ignored):
    """Functional Adam/AdamW: updates ``params`` and the state tensors in place."""
    lr = _scalar_value(lr)  # a tensor lr / betas enter the update as their values
    beta1 = _scalar_value(beta1)
    beta2 = _scalar_value(beta2)
    params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs = _real_views(
        params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs)
    for i, param in enumerate(params):
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        if _adam_arrays(param, grads[i], exp_avg, exp_avg_sq,
                        max_exp_avg_sqs[i] if amsgrad else None, step_t, beta1, beta2, lr,
                        weight_decay, eps, maximize, decoupled_weight_decay):
            continue
        step_t += 1
        if weight_decay != 0 and decoupled_weight_decay:
            param.mul_(1 - lr * weight_decay)
        grad = _apply_weight_decay(grads[i], param,
                                   0 if decoupled_weight_decay else weight_decay, maximize)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = _scalar_value(step_t)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            J.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def _adam_arrays(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_t, beta1, beta2, lr,
                 weight_decay, eps, maximize, decoupled):
    """One parameter's Adam update on the arrays (issue 18: the public ops' entries cost
    70 us a parameter): the numbers of the ops the loop above calls, bit for bit, with their
    version bumps. Each op's arithmetic is kept operand for operand (``lerp_into``,
    ``addc_into``), written into the state and one scratch array instead of new arrays.
    False, having done nothing, unless ``plain_arrays`` accepts the tensors and ``step_t``
    is a plain 0-d CPU tensor (``plain_step``); the loop then calls the ops."""
    plain = plain_step(step_t, (lr, beta1, beta2), param, grad, exp_avg, exp_avg_sq,
                       max_exp_avg_sq)
    if plain is None:
        return False
    (p, g, m, v, v_max), s, number = plain
    with np.errstate(all="ignore"):   # (the ops drop floating-point warnings too)
        if weight_decay != 0 and decoupled:
            np.multiply(p, number(1 - lr * weight_decay), out=p)  # param.mul_(1 - lr * wd)
            param._version_counter.value += 1
        g = decayed_grad(g, p, 0 if decoupled else weight_decay, maximize)
        scratch = np.empty_like(p)
        lerp_into(m, g, number(1 - beta1), scratch)               # exp_avg.lerp_(grad, 1 - b1)
        exp_avg._version_counter.value += 1
        np.multiply(v, number(beta2), out=v)                      # exp_avg_sq.mul_(b2)
        addc_into(v, number(1 - beta2), g, g, False, scratch)     # .addcmul_(grad, grad, ...)
        exp_avg_sq._version_counter.value += 2
        step = float(s)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if v_max is not None:
            np.maximum(v_max, v, out=v_max)                      # maximum(..., out=)
            max_exp_avg_sq._version_counter.value += 1
            v = v_max
        # denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        denom = np.sqrt(v, out=np.empty_like(v))   # (an array for a 0-d parameter too)
        np.divide(denom, number(bias_correction2_sqrt), out=denom)
        np.add(denom, number(eps), out=denom)
        addc_into(p, number(-step_size), m, denom, True, scratch)  # param.addcdiv_(...)
        param._version_counter.value += 1
    return True
