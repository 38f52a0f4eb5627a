"""``optim.Adamax``: Adam with the infinity norm (``exp_inf``), in PyTorch's exact arithmetic
order (the single-tensor CPU path)."""

from .._api import ops as J
from .optimizer import (
    _apply_weight_decay,
    _check_adam_like,
    _ElementwiseOptimizer,
    _hyper,
    _new_step,
    _real_views,
    _scalar_value,
    _to_scalar,
)

__all__ = ["Adamax", "adamax"]


class Adamax(_ElementwiseOptimizer):
    """Adamax: ``Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    foreach=None, *, maximize=False, differentiable=False, capturable=False)``.

    State per parameter: ``step`` (a 0-d tensor), ``exp_avg`` and ``exp_inf``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.9000])
    """

    _state_keys = ("exp_avg", "exp_inf", "step")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_adam_like(lr, eps, betas, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        return {"step": _new_step(), "exp_avg": J.zeros_like(p), "exp_inf": J.zeros_like(p)}

    def _update(self, params, grads, columns, group):
        beta1, beta2 = group["betas"]
        adamax(
            params,
            grads,
            *columns,
            beta1=beta1,
            beta2=beta2,
            **_hyper(group, "eps", "lr", "weight_decay", "maximize", "differentiable"),
        )


def adamax(
    params,
    grads,
    exp_avgs,
    exp_infs,
    state_steps,
    *,
    eps,
    beta1,
    beta2,
    lr,
    weight_decay,
    maximize,
    differentiable=False,
    **_ignored,
):
    """Functional Adamax: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)  # a tensor lr stays a tensor: PyTorch computes clr in its dtype
    params, grads, exp_avgs, exp_infs = _real_views(params, grads, exp_avgs, exp_infs)
    for i, param in enumerate(params):
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        step_t += 1
        grad = _apply_weight_decay(grads[i], param, weight_decay, maximize)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            J.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:  # maximum(out=) records no gradient: the same values through amax
            norm_buf = J.cat(
                [exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0
            )
            exp_inf.copy_(J.amax(norm_buf, 0, keepdim=False))
        clr = lr / (1 - beta1 ** _scalar_value(step_t))
        param.addcdiv_(exp_avg, exp_inf, value=-_scalar_value(clr))
