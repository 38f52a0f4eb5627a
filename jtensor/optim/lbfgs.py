"""``optim.LBFGS``: limited-memory BFGS over all parameters as one flat vector, with PyTorch's
update order (two-loop recursion, first step scaled by ``1 / |g|_1``, the same stopping tests).

The fixed-step form (``line_search_fn=None``, the default) is implemented; ``"strong_wolfe"``
is refused with ``NotImplementedError`` for now.
"""

from ..autograd.grad_mode import enable_grad, no_grad
from .._errors import TensorNotImplementedError, TensorRuntimeError
from .._ops.joining import cat
from .._tensor import Tensor, contiguous_format
from .optimizer import Optimizer, _check_lr

__all__ = ["LBFGS"]


def _num(x):
    """A 0-d tensor coefficient as the Python number PyTorch's Scalar conversion gives."""
    return x.item() if isinstance(x, Tensor) else x


_STATE_KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


class LBFGS(Optimizer):
    """LBFGS: ``LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)``; ``step(closure)`` needs
    the closure (it re-evaluates the loss up to ``max_eval`` times per step).

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = torch.optim.LBFGS([w], max_iter=5)
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 3) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> float(opt.step(closure)), w.detach()
    (29.0, tensor([3.0000, 3.0000]))
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(p.new_zeros(p.numel()))
            elif p.grad.is_sparse:
                views.append(p.grad.to_dense().view(-1))
            else:
                views.append(p.grad.view(-1))
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset : offset + numel].view_as(p), alpha=_num(step_size))
            offset += numel

    @no_grad()
    def step(self, closure):
        """One LBFGS step of up to ``max_iter`` iterations; returns the first loss."""
        if closure is None:
            raise TensorRuntimeError("LBFGS requires a closure that re-evaluates the loss")
        group = self.param_groups[0]
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        if group["line_search_fn"] is not None:
            if group["line_search_fn"] != "strong_wolfe":
                raise TensorRuntimeError("only 'strong_wolfe' is supported")
            raise TensorNotImplementedError(
                "LBFGS(line_search_fn='strong_wolfe') is not implemented in jtensor yet"
            )

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss = (
            state.get(k) for k in _STATE_KEYS
        )
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep the curvature pair only when it is positive enough
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                al = state.setdefault("al", [None] * history_size)
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=_num(-al[i]))
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=_num(al[i] - be_i))
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone(memory_format=contiguous_format)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break
            ls_func_evals = 0
            self._add_grad(t, d)
            opt_cond = False
            if n_iter != max_iter:
                with enable_grad():
                    loss = float(closure())
                flat_grad = self._gather_flat_grad()
                opt_cond = bool(flat_grad.abs().max() <= tolerance_grad)
                ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
        state.update(
            zip(
                _STATE_KEYS,
                (d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss),
                strict=True,
            )
        )
        return orig_loss
