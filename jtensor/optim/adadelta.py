"""``optim.Adadelta`` (``rho``, ``eps``, weight decay, ``maximize``), in PyTorch's exact
arithmetic order (its single-tensor CPU path)."""

from .optimizer import (
    Optimizer,
    _apply_weight_decay,
    _check_lr,
    _check_non_negative,
    _eval_closure,
    _get_scalar_dtype,
    _params_with_grad,
    _real_views,
    _scalar_value,
    _use_grad_for_differentiable,
)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Adadelta: ``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)``.

    State per parameter: ``step``, ``square_avg`` and ``acc_delta``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Adadelta([w])
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9968, -1.9968])
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_non_negative(("epsilon value", eps), ("weight_decay value", weight_decay))
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(
            {"foreach": None, "maximize": False, "differentiable": False, "capturable": False},
            tensor_step=True,
        )

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        from .._ops.creation import zeros, zeros_like

        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, steps = [], [], [], [], []
            for p in _params_with_grad(
                group, params, grads, "Adadelta does not support sparse gradients"
            ):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = zeros((), dtype=_get_scalar_dtype())
                    state["square_avg"] = zeros_like(p)
                    state["acc_delta"] = zeros_like(p)
                square_avgs.append(state["square_avg"])
                acc_deltas.append(state["acc_delta"])
                steps.append(state["step"])
            adadelta(
                params,
                grads,
                square_avgs,
                acc_deltas,
                steps,
                lr=group["lr"],
                rho=group["rho"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
            )
        return loss


def adadelta(
    params,
    grads,
    square_avgs,
    acc_deltas,
    state_steps,
    *,
    lr,
    rho,
    eps,
    weight_decay,
    maximize,
    **_ignored,
):
    """Functional Adadelta: updates ``params`` and the state tensors in place."""
    lr = _scalar_value(lr)
    params, grads, square_avgs, acc_deltas = _real_views(params, grads, square_avgs,
                                                         acc_deltas)
    for i, param in enumerate(params):
        state_steps[i] += 1
        grad = _apply_weight_decay(grads[i], param, weight_decay, maximize)
        square_avg, acc_delta = square_avgs[i], acc_deltas[i]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)
