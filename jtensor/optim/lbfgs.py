"""``optim.LBFGS``: limited-memory BFGS over all parameters as one flat vector, with PyTorch's
update order (two-loop recursion, first step scaled by ``1 / |g|_1``, the same stopping tests).

Both PyTorch's forms: the fixed step (``line_search_fn=None``, the default) and
``line_search_fn="strong_wolfe"``, PyTorch's bracketing/zoom line search with cubic
interpolation (minFunc's), run on the same mix of 0-d tensors and Python numbers as PyTorch's
so that float32 problems round alike.
"""

from .._errors import TensorRuntimeError
from .._ops.joining import cat
from .._tensor import Tensor, contiguous_format
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_lr, _to_scalar

__all__ = ["LBFGS"]


def _num(x):
    """A 0-d tensor coefficient as the Python number PyTorch's Scalar conversion gives."""
    return x.item() if isinstance(x, Tensor) else x


def _loss_value(loss):
    """The closure's loss as a float. PyTorch reads it under no_grad, where ``float()`` of a
    tensor that requires grad does not warn; the value is read detached here for the same
    quiet."""
    return float(loss.detach() if isinstance(loss, Tensor) else loss)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clipped to ``bounds`` (by default the interval itself); the middle of the bounds
    when the cubic has no real minimiser."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


class _Bracket:
    """The line search's interval: step sizes, losses, gradients and directional
    derivatives of its two ends (one end once the strong Wolfe conditions hold)."""

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd

    def set(self, pos, t, f, g, gtd):
        self.t[pos], self.f[pos], self.g[pos], self.gtd[pos] = t, f, g, gtd

    def ends(self):
        """``(low, high)``: the position of the lower loss first."""
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step size ``t`` along ``d`` satisfying the strong Wolfe conditions (sufficient
    decrease ``c1``, curvature ``c2``), found by bracketing then zooming with cubic
    interpolation, at most ``max_ls`` evaluations of ``obj_func(x, t, d) -> (loss, grad)``.
    Returns ``(loss, flat_grad, t, evaluations)`` at the chosen step."""
    d_norm = d.abs().max()
    g = g.clone(memory_format=contiguous_format)
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        # no sufficient decrease, or the slope turned: the minimum lies in [t_prev, t]
        # (the curvature condition is tested between the two, as PyTorch does)
        decrease_fails = f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev)
        if not decrease_fails and abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], None)
            done = True
            break
        if decrease_fails or gtd_new >= 0:
            bracket = _Bracket(
                [t_prev, t],
                [f_prev, f_new],
                [g_prev, g_new.clone(memory_format=contiguous_format)],
                [gtd_prev, gtd_new],
            )
            break
        # extrapolate: a cubic step between 1.01 t and 10 t
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev = tmp, f_new
        g_prev = g_new.clone(memory_format=contiguous_format)
        gtd_prev = gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], None)

    # zoom: shrink the bracket until a point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = bracket.ends()
    while not done and ls_iter < max_ls:
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket.t[0], bracket.f[0], bracket.gtd[0], bracket.t[1], bracket.f[1], bracket.gtd[1]
        )
        # a point too close to an end (or outside) moves to 10% of the interval inside,
        # at once when it is outside or the previous step made too little progress
        hi, lo = max(bracket.t), min(bracket.t)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket.f[low_pos]:
            bracket.set(high_pos, t, f_new, g_new.clone(memory_format=contiguous_format), gtd_new)
            low_pos, high_pos = bracket.ends()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket.t[high_pos] - bracket.t[low_pos]) >= 0:
                bracket.set(
                    high_pos,
                    bracket.t[low_pos],
                    bracket.f[low_pos],
                    bracket.g[low_pos],
                    bracket.gtd[low_pos],
                )
            bracket.set(low_pos, t, f_new, g_new.clone(memory_format=contiguous_format), gtd_new)
    return bracket.f[low_pos], bracket.g[low_pos], bracket.t[low_pos], ls_func_evals


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

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        with enable_grad():
            loss = _loss_value(closure())
        flat_grad = self._gather_flat_grad()
        for p, pdata in zip(self._params, x, strict=True):
            p.copy_(pdata)
        return loss, flat_grad

    @no_grad()
    def step(self, closure):
        """One LBFGS step of up to ``max_iter`` iterations; returns the first loss."""
        if closure is None:
            raise TensorRuntimeError("LBFGS requires a closure that re-evaluates the loss")
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])  # a tensor lr stays a 0-d tensor, as the step t then
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        line_search_fn = group["line_search_fn"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = _loss_value(orig_loss)
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
            opt_cond = False
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise TensorRuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone(memory_format=contiguous_format) for p in self._params]
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    lambda x, t, d: self._directional_evaluate(closure, x, t, d),
                    x_init,
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    max_ls=max_eval - current_evals,
                )
                self._add_grad(t, d)
                opt_cond = bool(flat_grad.abs().max() <= tolerance_grad)
            elif n_iter != max_iter:
                self._add_grad(t, d)
                with enable_grad():
                    loss = _loss_value(closure())
                flat_grad = self._gather_flat_grad()
                opt_cond = bool(flat_grad.abs().max() <= tolerance_grad)
                ls_func_evals = 1
            else:
                self._add_grad(t, d)
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
