"""``optim.NAdam``: Adam with Nesterov momentum (Dozat's momentum schedule,
``momentum_decay``), L2 or decoupled weight decay, in PyTorch's exact arithmetic order."""

from .._api import ops as J
from .optimizer import (
    _check_adam_like,
    _check_non_negative,
    _ElementwiseOptimizer,
    _get_scalar_dtype,
    _hyper,
    _new_step,
    _real_views,
    _scalar_value,
    _to_scalar,
)
from .radam import _ADAM_DEFAULTS, _decay_and_moments

__all__ = ["NAdam", "nadam"]


class NAdam(_ElementwiseOptimizer):
    """NAdam: ``NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)``.

    State per parameter: ``step``, ``mu_product`` (0-d tensors), ``exp_avg``, ``exp_avg_sq``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.8944, -1.8944])
    """

    _state_keys = ("exp_avg", "exp_avg_sq", "mu_product", "step")
    _capturable_tensors = "params, mu_products and state_steps"
    _tensor_keys = ("mu_product",)
    _setstate_defaults = _ADAM_DEFAULTS

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_adam_like(lr, eps, betas, weight_decay)
        _check_non_negative(("momentum_decay value", momentum_decay))
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "momentum_decay": momentum_decay,
                "decoupled_weight_decay": decoupled_weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "differentiable": differentiable,
            },
        )

    def _init_state(self, p, group):
        return {
            "step": _new_step(),
            "mu_product": J.tensor(1.0, dtype=_get_scalar_dtype()),
            "exp_avg": J.zeros_like(p),
            "exp_avg_sq": J.zeros_like(p),
        }

    def _update(self, params, grads, columns, group):
        beta1, beta2 = group["betas"]
        nadam(
            params,
            grads,
            *columns,
            beta1=beta1,
            beta2=beta2,
            **_hyper(
                group,
                "lr",
                "weight_decay",
                "momentum_decay",
                "eps",
                "maximize",
                "decoupled_weight_decay",
                "differentiable",
            ),
        )


def nadam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    mu_products,
    state_steps,
    *,
    beta1,
    beta2,
    lr,
    weight_decay,
    momentum_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
    differentiable=False,
    **_ignored,
):
    """Functional NAdam: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)  # a tensor lr stays a tensor: PyTorch computes the values in its dtype
    params, grads, exp_avgs, exp_avg_sqs = _real_views(params, grads, exp_avgs, exp_avg_sqs)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        mu_product, step_t = mu_products[i], state_steps[i]
        step_t += 1
        step = _scalar_value(step_t)
        bias_correction2 = 1 - beta2**step
        # the momentum coefficients of this step and the next (Dozat's schedule)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        grad = _decay_and_moments(
            param,
            grads[i] if not maximize else -grads[i],
            exp_avg,
            exp_avg_sq,
            lr=lr,
            weight_decay=weight_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            beta1=beta1,
            beta2=beta2,
        )
        mu_product *= mu
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if differentiable:  # out of place, the coefficients as tensors (PyTorch's path)
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
            param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
            continue
        denom.add_(eps)
        mu_product_next = _scalar_value(mu_product) * mu_next
        param.addcdiv_(
            grad, denom, value=_scalar_value(-lr * (1.0 - mu) / (1.0 - _scalar_value(mu_product)))
        )
        param.addcdiv_(
            exp_avg, denom, value=_scalar_value((-lr * mu_next) / (1.0 - mu_product_next))
        )
