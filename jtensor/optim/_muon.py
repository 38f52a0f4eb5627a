"""``optim.Muon``: momentum whose update is orthogonalized by a quintic Newton-Schulz
iteration (in bfloat16, as PyTorch 2.13 runs it), for 2-D parameters."""

import math

from .._api import ops as J
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _eval_closure, _scalar_value, _to_scalar

__all__ = ["Muon", "muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """``ns_steps`` quintic Newton-Schulz iterations towards the orthogonal factor of the
    2-D ``grad`` (``U S' V^T`` with ``S'`` near 1), in bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho_grad = grad.bfloat16()
    tall = grad.size(0) > grad.size(1)
    if tall:
        ortho_grad = ortho_grad.T
    ortho_grad.div_(ortho_grad.norm().clamp(min=eps))  # spectral norm at most 1
    for _ in range(ns_steps):
        gram_matrix = ortho_grad @ ortho_grad.T
        gram_update = J.addmm(gram_matrix, gram_matrix, gram_matrix, beta=b, alpha=c)
        ortho_grad = J.addmm(ortho_grad, gram_update, ortho_grad, beta=a)
    return ortho_grad.T if tall else ortho_grad


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """The learning rate scaled for the matrix shape: Keller Jordan's ``sqrt(max(1, A/B))``
    (``"original"``, the default) or Moonshot's ``0.2 sqrt(max(A, B))``."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """Muon: ``Muon(params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
    ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None)``;
    2-D parameters only (use AdamW for biases and embeddings). State: ``momentum_buffer``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.ones(2, 2))
    >>> opt = torch.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> (w * torch.tensor([[1.0, 0.0], [0.0, 2.0]])).sum().backward(); opt.step()
    >>> w.detach().shape
    torch.Size([2, 2])
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps=EPS,
        ns_steps=DEFAULT_NS_STEPS,
        adjust_lr_fn=None,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a "
                        f"parameter with size: {p.size()}"
                    )

    @no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if p.grad.is_sparse:
                    raise RuntimeError("Muon does not support sparse gradients")
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = J.zeros_like(p.grad)
                bufs.append(state["momentum_buffer"])
            muon(
                params,
                grads,
                bufs,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                nesterov=group["nesterov"],
                ns_coefficients=group["ns_coefficients"],
                eps=group["eps"],
                ns_steps=group["ns_steps"],
                adjust_lr_fn=group["adjust_lr_fn"],
            )
        return loss


def muon(
    params,
    grads,
    muon_momentum_bufs,
    *,
    lr,
    weight_decay,
    momentum,
    nesterov,
    ns_coefficients,
    ns_steps,
    eps,
    adjust_lr_fn,
    foreach=None,
    **_ignored,
):
    """Functional Muon: updates ``params`` and the momentum buffers in place."""
    if foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    lr = _to_scalar(lr)  # a tensor lr stays a tensor: the adjusted lr rounds in its dtype
    for i, param in enumerate(params):
        grad = grads[i]
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf = muon_momentum_bufs[i]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=_scalar_value(-_adjust_lr(lr, adjust_lr_fn, param.shape)))
