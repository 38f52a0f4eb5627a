"""``optim.RMSprop`` (``alpha``, ``eps``, ``momentum``, ``centered``, weight decay,
``maximize``), in PyTorch's exact arithmetic order."""

import numpy as np

from .._blas import axpy as _axpy
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
    addc_into,
    decayed_grad,
    lerp_into,
    plain_step,
)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """RMSprop: ``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, capturable=False, foreach=None, maximize=False, differentiable=False)``.

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` (momentum > 0)
    and ``grad_avg`` (centered).

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.9000])
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check_non_negative(("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha))
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups({"momentum": 0, "centered": False, "foreach": None,
                               "maximize": False, "differentiable": False,
                               "capturable": False}, tensor_step=True)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        from .._ops.creation import zeros, zeros_like

        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, bufs, steps = [], [], [], [], [], []
            for p in _params_with_grad(group, params, grads,
                                       "RMSprop does not support sparse gradients"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = zeros((), dtype=_get_scalar_dtype())
                    state["square_avg"] = zeros_like(p)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(p)
                square_avgs.append(state["square_avg"])
                steps.append(state["step"])
                if group["momentum"] > 0:
                    bufs.append(state["momentum_buffer"])
                if group["centered"]:
                    grad_avgs.append(state["grad_avg"])
            rmsprop(params, grads, square_avgs, grad_avgs, bufs, steps, lr=group["lr"],
                    alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"])
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr,
            alpha, eps, weight_decay, momentum, centered, maximize, **_ignored):
    """Functional RMSprop: updates ``params`` and the state tensors in place."""
    lr = _scalar_value(lr)  # a tensor lr enters the update as its value
    params, grads, square_avgs, grad_avgs, momentum_buffer_list = _real_views(
        params, grads, square_avgs, grad_avgs, momentum_buffer_list)
    for i, param in enumerate(params):
        step = state_steps[i]
        grad = grads[i]
        if _rmsprop_arrays(param, grad, square_avgs[i], grad_avgs[i] if centered else None,
                           momentum_buffer_list[i] if momentum > 0 else None, step, lr, alpha,
                           eps, weight_decay, momentum, maximize):
            continue
        grad = _apply_weight_decay(grad, param, weight_decay, maximize)
        square_avg = square_avgs[i]
        step += 1
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


def _rmsprop_arrays(param, grad, square_avg, grad_avg, buf, step_t, lr, alpha, eps,
                    weight_decay, momentum, maximize):
    """One parameter's RMSprop update on the arrays, as ``adam._adam_arrays`` (issue 18):
    the numbers and version bumps of the ops the loop above calls. False, having done
    nothing, where ``plain_arrays`` refuses the tensors; the loop then calls the ops."""
    plain = plain_step(step_t, (lr, alpha), param, grad, square_avg, grad_avg, buf)
    if plain is None:
        return False
    (p, g, v, ga, b), _, number = plain
    with np.errstate(all="ignore"):   # (the ops drop floating-point warnings too)
        g = decayed_grad(g, p, weight_decay, maximize)
        scratch = np.empty_like(p)
        np.multiply(v, number(alpha), out=v)                      # square_avg.mul_(alpha)
        addc_into(v, number(1 - alpha), g, g, False, scratch)     # .addcmul_(grad, grad, ...)
        square_avg._version_counter.value += 2
        if ga is not None:
            lerp_into(ga, g, number(1 - alpha), scratch)          # grad_avg.lerp_(grad, ...)
            grad_avg._version_counter.value += 1
            avg = v.copy()                                        # square_avg.addcmul(
            addc_into(avg, number(-1), ga, ga, False, scratch)    #     grad_avg, grad_avg, -1)
            np.sqrt(avg, out=avg)                                 # .sqrt_()
        else:
            avg = np.sqrt(v, out=np.empty_like(v))   # (an array for a 0-d parameter too)
        np.add(avg, number(eps), out=avg)                         # avg.add_(eps)
        if b is not None:
            np.multiply(b, number(momentum), out=b)               # buf.mul_(momentum)
            addc_into(b, number(1), g, avg, True, scratch)        # .addcdiv_(grad, avg)
            buf._version_counter.value += 2
            if not _axpy(-lr, b, p):                              # param.add_(buf, alpha=-lr)
                np.multiply(b, number(-lr), out=scratch)
                np.add(p, scratch, out=p)
        else:
            addc_into(p, number(-lr), g, avg, True, scratch)      # param.addcdiv_(grad, avg, ...)
        param._version_counter.value += 1
    return True
