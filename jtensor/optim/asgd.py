"""``optim.ASGD``: averaged stochastic gradient descent (a decaying step ``eta`` and the
running average ``ax`` of the iterates from step ``t0`` on), in PyTorch's exact order."""

from .._api import ops as J
from .optimizer import (
    _apply_weight_decay,
    _check_lr,
    _check_non_negative,
    _ElementwiseOptimizer,
    _get_scalar_dtype,
    _hyper,
    _new_step,
    _real_views,
    _scalar_value,
    _to_scalar,
)

__all__ = ["ASGD", "asgd"]


class ASGD(_ElementwiseOptimizer):
    """ASGD: ``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False)``.

    State per parameter: ``step``, ``eta``, ``mu`` (0-d tensors) and ``ax`` (the average).

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.8000, -1.6000])
    """

    _state_keys = ("ax", "mu", "eta", "step")
    _capturable_tensors = "params, mus, etas, and state_steps"
    _tensor_keys = ("eta", "mu")

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_lr(lr)
        _check_non_negative(("weight_decay value", weight_decay))
        super().__init__(
            params,
            {
                "lr": lr,
                "lambd": lambd,
                "alpha": alpha,
                "t0": t0,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        dtype = _get_scalar_dtype()
        return {
            "step": _new_step(),
            "eta": J.tensor(_scalar_value(group["lr"]), dtype=dtype),
            "mu": J.ones((), dtype=dtype),
            "ax": J.zeros_like(p),
        }

    def _update(self, params, grads, columns, group):
        asgd(
            params,
            grads,
            *columns,
            **_hyper(group, "lambd", "lr", "t0", "alpha", "weight_decay", "maximize"),
        )


def asgd(
    params,
    grads,
    axs,
    mus,
    etas,
    state_steps,
    *,
    lambd,
    lr,
    t0,
    alpha,
    weight_decay,
    maximize,
    **_ignored,
):
    """Functional ASGD: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)  # a tensor lr stays a tensor: PyTorch computes eta in its dtype
    params, grads, axs = _real_views(params, grads, axs)
    for i, param in enumerate(params):
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        step_t += 1
        grad = _apply_weight_decay(grads[i], param, weight_decay, maximize)
        eta_value = _scalar_value(eta)
        param.mul_(1 - lambd * eta_value)  # decay term
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _scalar_value(step_t)
        # through a tensor of the default dtype, as PyTorch (a float64 eta, loaded from a
        # state_dict, receives the float32-rounded value)
        eta.copy_(J.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(J.as_tensor(1 / max(1, step - t0)))
