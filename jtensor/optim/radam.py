"""``optim.RAdam``: rectified Adam (the variance of the adaptive rate is rectified once
``rho_t > 5``, plain momentum SGD before), with L2 or decoupled weight decay, in PyTorch's
exact arithmetic order."""

from .._api import ops as J
from .optimizer import (
    _check_adam_like,
    _ElementwiseOptimizer,
    _hyper,
    _new_step,
    _real_views,
    _scalar_value,
)

__all__ = ["RAdam", "radam"]

_ADAM_DEFAULTS = {
    "foreach": None,
    "maximize": False,
    "differentiable": False,
    "decoupled_weight_decay": False,
    "capturable": False,
}


def _decay_and_moments(
    param, grad, exp_avg, exp_avg_sq, *, lr, weight_decay, decoupled_weight_decay, beta1, beta2
):
    """The weight decay (decoupled: the parameter shrinks; else the L2 term joins the
    gradient) and the Adam moment updates RAdam and NAdam share; the gradient used."""
    if weight_decay != 0:
        if decoupled_weight_decay:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    return grad


class RAdam(_ElementwiseOptimizer):
    """RAdam: ``RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``.

    State per parameter: ``step``, ``exp_avg`` and ``exp_avg_sq``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.8000, -1.6000])
    """

    _state_keys = ("exp_avg", "exp_avg_sq", "step")
    _setstate_defaults = _ADAM_DEFAULTS

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_adam_like(lr, eps, betas, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "decoupled_weight_decay": decoupled_weight_decay,
                "differentiable": differentiable,
            },
        )

    def _init_state(self, p, group):
        return {"step": _new_step(), "exp_avg": J.zeros_like(p), "exp_avg_sq": J.zeros_like(p)}

    def _update(self, params, grads, columns, group):
        beta1, beta2 = group["betas"]
        radam(
            params,
            grads,
            *columns,
            beta1=beta1,
            beta2=beta2,
            **_hyper(
                group,
                "lr",
                "weight_decay",
                "eps",
                "maximize",
                "decoupled_weight_decay",
                "differentiable",
            ),
        )


def radam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    state_steps,
    *,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
    differentiable=False,
    **_ignored,
):
    """Functional RAdam: updates ``params`` and the state tensors in place."""
    lr = _scalar_value(lr)
    params, grads, exp_avgs, exp_avg_sqs = _real_views(params, grads, exp_avgs, exp_avg_sqs)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        grad = grads[i] if not maximize else -grads[i]
        step_t += 1
        step = _scalar_value(step_t)
        _decay_and_moments(
            param,
            grad,
            exp_avg,
            exp_avg_sq,
            lr=lr,
            weight_decay=weight_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            beta1=beta1,
            beta2=beta2,
        )
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        # the maximum and the current length of the approximated simple moving average
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            exp_avg_sq_sqrt = exp_avg_sq.sqrt()
            # out of place when differentiable: sqrt's backward needs its result
            if differentiable:
                exp_avg_sq_sqrt = exp_avg_sq_sqrt.add(eps)
            else:
                exp_avg_sq_sqrt = exp_avg_sq_sqrt.add_(eps)
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq_sqrt
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
