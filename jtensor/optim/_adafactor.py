"""``optim.Adafactor``: factored second moments (row and column statistics of a matrix
gradient, a full variance for vectors), relative step sizes and update clipping, in
PyTorch 2.13's exact order (its single-tensor path)."""

from .._api import ops as J
from .._dtypes import finfo
from ..autograd.grad_mode import no_grad
from .optimizer import (
    Optimizer,
    _collect_state,
    _eval_closure,
    _new_step,
    _scalar_value,
    _to_scalar,
)

__all__ = ["Adafactor", "adafactor"]


def _adafactor_state(p, group):
    if p.grad.dim() > 1:
        row_shape, col_shape = list(p.grad.shape), list(p.grad.shape)
        row_shape[-1] = 1
        col_shape[-2] = 1
        return {
            "step": _new_step(),
            "row_var": p.grad.new_zeros(row_shape),
            "col_var": p.grad.new_zeros(col_shape),
        }
    return {"step": _new_step(), "variance": J.zeros_like(p.grad)}


class Adafactor(Optimizer):
    """Adafactor: ``Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)``.

    State per parameter: ``step`` and, for a matrix (or higher) gradient, ``row_var`` and
    ``col_var`` (its last dimension, resp. the one before, reduced to 1); else ``variance``.
    ``eps[0]`` of ``None`` means the parameter dtype's machine epsilon.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w.detach()
    tensor([ 0.8419, -1.8419])
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        from .._tensor import Tensor

        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        checks = (
            (0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
            (0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
            (eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}"),
            (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
            (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
            (0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}"),
        )
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups({"foreach": None}, tensor_step=True)

    @no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None and p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
            params, grads, (row_vars, col_vars, variances, steps) = _collect_adafactor(self, group)
            eps1, eps2 = group["eps"]
            adafactor(
                params,
                grads,
                row_vars,
                col_vars,
                variances,
                steps,
                d=group["d"],
                lr=group["lr"],
                beta2_decay=group["beta2_decay"],
                weight_decay=group["weight_decay"],
                eps1=eps1,
                eps2=eps2,
                maximize=group["maximize"],
            )
        return loss


def _collect_adafactor(optimizer, group):
    return _collect_state(
        optimizer, group, "Adafactor", _adafactor_state, ("row_var", "col_var", "variance", "step")
    )


def adafactor(
    params,
    grads,
    row_vars,
    col_vars,
    variances,
    state_steps,
    *,
    d,
    lr,
    beta2_decay,
    weight_decay,
    eps1,
    eps2,
    maximize,
    **_ignored,
):
    """Functional Adafactor: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)  # a tensor lr stays a tensor, as rho_t and alpha then
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        step_t = state_steps[i]
        if eps1 is None:  # PyTorch keeps the first parameter's epsilon for the rest
            eps1 = finfo(param.dtype).eps
        step_t += 1
        step_float = step_t.item()
        one_minus_beta2_t = step_float**beta2_decay
        rho_t = min(lr, 1 / (step_float**0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var, col_var = row_vars[i], col_vars[i]
            row_mean = J.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2_t)
            col_mean = J.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = variances[i]
            variance.lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=_scalar_value(-alpha / denom))
