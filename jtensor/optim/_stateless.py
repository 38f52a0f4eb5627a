"""``optim.swap_in_optimizer_params_and_state``: run an optimizer for a while on other
parameters and another ``state_dict()``-shaped state, then restore it (PyTorch 2.13)."""

import contextlib
from collections import defaultdict

from .._tensor import Tensor
from .._errors import type_name

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _fail(message):
    raise RuntimeError(message)


def _check_state(state):
    """``state`` must map packed parameter ids to per-parameter dicts."""
    if not isinstance(state, dict):
        _fail(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed "
            f"parameter ids to per-param state dicts, got {type_name(state)}."
        )
    if any(isinstance(k, Tensor) for k in state):
        _fail(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        _fail(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _check_group(idx, group, swapin_group):
    """A saved group matches its live group: a dict, as many integer ids, the same keys."""
    if not isinstance(swapin_group, dict):
        _fail(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin_group.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        _fail(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] "
            "entries keyed by packed parameter ids."
        )
    if len(group["params"]) != len(ids):
        _fail(
            f"swapin_optim_state param group {idx} has a different number of params than "
            "the live optimizer param group."
        )
    swapin_only = [k for k in swapin_group if k not in group]
    live_only = [k for k in group if k not in swapin_group]
    if swapin_only or live_only:
        _fail(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly "
            f"match the live optimizer group keys for group {idx}. Keys only in swap-in: "
            f"{swapin_only}. Keys only in live: {live_only}."
        )
    return ids


def _prepare(optimizer, swapin_parameters, swapin_optim_state):
    """The checked state and, per group, ``(live group, saved group, its new tensors)``."""
    if not optimizer.state:
        _fail(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        _fail(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(swapin_optim_state.get("state"))
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        _fail(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of "
            f"param-group dicts, got {type_name(groups)}."
        )
    if len(optimizer.param_groups) != len(groups):
        _fail(
            "swapin_optim_state has a different number of parameter groups than the live optimizer."
        )
    flat = list(swapin_parameters.values())
    offset, seen, plan = 0, set(), []
    for idx, (group, swapin_group) in enumerate(zip(optimizer.param_groups, groups, strict=True)):
        ids = _check_group(idx, group, swapin_group)
        seen.update(ids)
        if offset + len(ids) > len(flat):
            _fail(
                f"{_NAME} requires the explicit parameter state to match "
                "optimizer.param_groups ordering."
            )
        plan.append((group, swapin_group, flat[offset : offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        _fail(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed "
            f"parameter ids from param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the ``with`` block, ``optimizer`` works on the tensors of
    ``swapin_parameters`` (a dict, in the order of the optimizer's parameters) with the
    hyperparameters and per-parameter state of ``swapin_optim_state`` (a ``state_dict()``);
    on exit its own parameters, groups and state come back. In-place changes of the
    swapped-in state tensors reach ``swapin_optim_state``; new entries do not."""
    state, plan = _prepare(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, saved, tensors in plan:
            live["params"] = tensors
            live.update((k, v) for k, v in saved.items() if k != "params")
            for tensor, param_id in zip(tensors, saved["params"], strict=True):
                swapped[tensor] = dict(state.get(param_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots, strict=True):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
