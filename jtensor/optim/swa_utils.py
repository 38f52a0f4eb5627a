"""``optim.swa_utils``: stochastic weight averaging and EMA (``AveragedModel``, ``SWALR``,
``update_bn`` and the averaging functions), as PyTorch 2.13 has them on the CPU."""

import itertools
import math
from copy import deepcopy

from .._api import ops as J
from .._dtypes import int64 as long
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _is_inexact(t):
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """``ema_update(ema_params, current_params, num_averaged)``: each EMA parameter moves to
    ``decay * ema + (1 - decay) * current`` in place (a ``lerp_`` for floating tensors)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _is_inexact(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """``swa_update(averaged_params, current_params, num_averaged)``: the running mean of
    the parameters, updated in place."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_inexact(averaged_param_list[0]):
            weight = float(1 / (num_averaged + 1))
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
            return
        for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
            diff = p_model.sub(p_avg)
            if isinstance(num_averaged, Tensor):
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``ema_update(ema_param, current_param, num_averaged)``: the new EMA value."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``swa_update(averaged_param, current_param, num_averaged)``: the new running mean."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with ``use_buffers``) are the
    running average of ``model``'s, updated by ``update_parameters(model)``: the plain mean
    (SWA) by default, or ``avg_fn(averaged, current, n_averaged)`` per tensor, or
    ``multi_avg_fn(averaged_list, current_list, n_averaged)`` in place (EMA:
    ``get_ema_multi_avg_fn(decay)``). ``n_averaged`` is a long buffer.

    >>> import jtensor as torch
    >>> from jtensor.optim.swa_utils import AveragedModel
    >>> model = torch.nn.Linear(1, 1, bias=False)
    >>> swa = AveragedModel(model)
    >>> with torch.no_grad():
    ...     _ = model.weight.fill_(1.0)
    >>> swa.update_parameters(model)
    >>> with torch.no_grad():
    ...     _ = model.weight.fill_(3.0)
    >>> swa.update_parameters(model); swa.module.weight.detach(), swa.n_averaged
    (tensor([[2.]]), tensor(2))
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", J.tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged module's forward."""
        return self.module(*args, **kwargs)

    def _averaged(self, module):
        if self.use_buffers:
            return itertools.chain(module.parameters(), module.buffers())
        return module.parameters()

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies)."""
        self_params = list(self._averaged(self.module) if self.use_buffers else self.parameters())
        averaged, current = [], []
        for p_averaged, p_model in zip(self_params, self._averaged(model), strict=False):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
        if bool(self.n_averaged == 0):
            for p_averaged, p_model in zip(averaged, current, strict=False):
                p_averaged.copy_(p_model)
        if self.n_averaged > 0:
            self._fold(averaged, current)
        if not self.use_buffers:  # the buffers (batch-norm statistics) are copied
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _fold(self, averaged, current):
        if self.multi_avg_fn is not None:
            # PyTorch calls it per (device, dtype) group; one group on jtensor's CPU
            for key in dict.fromkeys((a.device, a.dtype) for a in averaged):
                pairs = [
                    (a, c)
                    for a, c in zip(averaged, current, strict=False)
                    if (a.device, a.dtype) == key
                ]
                self.multi_avg_fn(
                    [a for a, _ in pairs], [c for _, c in pairs], self.n_averaged.to(key[0])
                )
            return
        avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
        for p_averaged, p_model in zip(averaged, current, strict=False):
            n_averaged = self.n_averaged.to(p_averaged.device)
            p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the batch-norm running statistics of ``model`` by one pass over ``loader``
    (its batches, or their first element), as a cumulative average (``momentum=None``)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for bn_module, momentum in momenta.items():
        bn_module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to ``swa_lr`` over ``anneal_epochs`` (``"cos"`` or
    ``"linear"``), then holds it.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.zeros(1))
    >>> opt = torch.optim.SGD([w], lr=1.0)
    >>> sched = torch.optim.swa_utils.SWALR(opt, swa_lr=0.5, anneal_epochs=2,
    ...                                     anneal_strategy="linear")
    >>> [round(g["lr"], 4) for g in opt.param_groups]
    [1.0]
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.75]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The lrs of this step: the previous step's starting lr moved towards ``swa_lr``."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """The scheduler's attributes but the optimizer and the anneal function."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict):
        """Restore ``state_dict()``'s attributes (the anneal function follows the strategy)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
