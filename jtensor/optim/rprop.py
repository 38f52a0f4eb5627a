"""``optim.Rprop``: resilient backpropagation (per-element step sizes grown by ``etaplus``
while the gradient keeps its sign, shrunk by ``etaminus`` when it flips), in PyTorch's exact
order."""

from .._api import ops as J
from .optimizer import _check_lr, _ElementwiseOptimizer, _new_step, _real_views, _scalar_value

__all__ = ["Rprop", "rprop"]


class Rprop(_ElementwiseOptimizer):
    """Rprop: ``Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False)``.

    State per parameter: ``step``, ``prev`` (the last gradient used) and ``step_size``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.9000, -1.9000])
    """

    _state_keys = ("prev", "step_size", "step")

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(
            params,
            {
                "lr": lr,
                "etas": etas,
                "step_sizes": step_sizes,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        lr = _scalar_value(group["lr"])
        return {
            "step": _new_step(),
            "prev": J.zeros_like(p),
            # A complex parameter is two independent reals: its imaginary part steps too.
            "step_size": J.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr),
        }

    def _update(self, params, grads, columns, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop(
            params,
            grads,
            *columns,
            step_size_min=step_size_min,
            step_size_max=step_size_max,
            etaminus=etaminus,
            etaplus=etaplus,
            maximize=group["maximize"],
            differentiable=group["differentiable"],
        )


def rprop(
    params,
    grads,
    prevs,
    step_sizes,
    state_steps,
    *,
    step_size_min,
    step_size_max,
    etaminus,
    etaplus,
    maximize,
    differentiable=False,
    **_ignored,
):
    """Functional Rprop: updates ``params`` and the state tensors in place."""
    params, grads, prevs, step_sizes = _real_views(params, grads, prevs, step_sizes)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        prev, step_size = prevs[i], step_sizes[i]
        state_steps[i] += 1
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        # after a sign change the gradient counts as zero: no move, and no change next step
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
