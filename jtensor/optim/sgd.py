"""``optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov momentum,
weight decay and ``maximize``, in PyTorch's exact arithmetic order."""

from .optimizer import (
    Optimizer,
    _add,
    _add_,
    _apply_weight_decay,
    _eval_closure,
    _mul_,
    _params_with_grad,
    _scalar_value,
    _use_grad_for_differentiable,
)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum).

    ``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)``. The momentum buffer
    starts as a copy of the first gradient: ``buf = momentum * buf + (1 - dampening) * g``,
    and the step is ``-lr * buf`` (Nesterov: ``-lr * (g + momentum * buf)``). Sparse
    gradients (``nn.Embedding(sparse=True)``) are taken, with or without momentum (the
    buffer is then sparse); ``weight_decay`` with a sparse gradient raises, as in PyTorch.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
    >>> w.detach()
    tensor([0.4600, 0.9200])
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        from .._tensor import Tensor

        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups({"nesterov": False, "maximize": False, "foreach": None,
                               "differentiable": False, "fused": False})

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            momentum = group["momentum"]
            for p in _params_with_grad(group, params, grads):
                if momentum != 0:
                    bufs.append(self.state[p].get("momentum_buffer"))
            sgd(params, grads, bufs, weight_decay=group["weight_decay"], momentum=momentum,
                lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                maximize=group["maximize"])
            if momentum != 0:
                for p, buf in zip(params, bufs, strict=True):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def sgd(params, d_p_list, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
        nesterov, maximize, **_ignored):
    """Functional SGD: updates ``params`` in place (and fills ``momentum_buffer_list``)."""
    lr = _scalar_value(lr)  # a tensor lr enters the update as its value
    if momentum == 0 and weight_decay == 0 and not maximize:
        # Plain SGD (the commonest step of all): each parameter moves by ``-lr * grad``.
        for param, grad in zip(params, d_p_list, strict=True):
            _add_(param, grad, alpha=-lr)
        return
    for i, param in enumerate(params):
        grad = _apply_weight_decay(d_p_list[i], param, weight_decay, maximize)
        # _add/_add_ are add/add_ that also take sparse COO gradients and buffers
        # (nn.Embedding(sparse=True)) with PyTorch's sparse kernels.
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                _add_(_mul_(buf, momentum), grad, alpha=1 - dampening)
            grad = _add(grad, buf, alpha=momentum) if nesterov else buf
        _add_(param, grad, alpha=-lr)
