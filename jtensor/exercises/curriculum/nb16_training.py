"""Exercises of notebook 16_training.ipynb (training loop).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def lrs_used():
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.8)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    used = []
    for _ in range(3):
        p.grad = torch.ones(1)
        used.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return tuple(used)


Exercise(
    "16-lr-order",
    "p = nn.Parameter(torch.zeros(1)); opt = torch.optim.SGD([p], lr=0.8); "
    "sched = StepLR(opt, step_size=1, gamma=0.5); three times: p.grad = torch.ones(1); "
    "opt.step(); sched.step(). Answer the tuple of the learning rates the three opt.step() "
    "calls used.",
    lrs_used,
    hints=[
        Hint("Here scheduler.step() comes after optimizer.step(), the right order: the first "
             "step uses the initial lr (0.8), and each scheduler step halves it for the next.",
             wrong=lambda: (0.4, 0.2, 0.1)),
        Hint("StepLR halves the lr at every scheduler.step() (step_size=1): it does not stay "
             "at 0.8.",
             wrong=lambda: (0.8, 0.8, 0.8)),
    ])


def _nested_model():
    torch.manual_seed(0)
    return (torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.ReLU(),
        torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh()),
        torch.nn.Linear(4, 2)),)


def _init_linear(m):
    if isinstance(m, torch.nn.Linear):
        torch.nn.init.constant_(m.weight, 0.01)
        torch.nn.init.zeros_(m.bias)


def init_all(model):
    model.apply(_init_linear)
    return [round(p.sum().item(), 4) for p in model.parameters()]


def _init_top_level_only(model):
    for m in model.children():
        if isinstance(m, torch.nn.Linear):
            torch.nn.init.constant_(m.weight, 0.01)
            torch.nn.init.zeros_(m.bias)
    return [round(p.sum().item(), 4) for p in model.parameters()]


def _init_weights_only(model):
    def fn(m):
        if isinstance(m, torch.nn.Linear):
            torch.nn.init.constant_(m.weight, 0.01)
    model.apply(fn)
    return [round(p.sum().item(), 4) for p in model.parameters()]


Exercise(
    "16-apply-init",
    "Write f(model) that uses model.apply to set every nn.Linear's weight to 0.01 and its bias "
    "to 0, at any depth, and returns [round(p.sum().item(), 4) for p in model.parameters()].",
    init_all, inputs=_nested_model,
    rules=("type", "values"),
    hints=[
        Hint("model.children() gives only the direct children: the Linear inside the nested "
             "Sequential was missed. model.apply(fn) visits every submodule, recursively.",
             wrong=_init_top_level_only),
        Hint("The biases keep their random values: set them too (torch.nn.init.zeros_(m.bias)).",
             wrong=_init_weights_only),
    ])


def quiz_16():
    model = torch.nn.Linear(2, 1)
    x = torch.ones(1, 2)
    model(x).sum().backward()
    first = model.bias.grad.clone()
    model(x).sum().backward()
    model.eval()
    return ("optimizer.step", "add" if model.bias.grad.item() == 2 * first.item() else "set",
            model.weight.requires_grad)


Exercise(
    "16-quiz",
    "Self-check. (1) In a training step, which comes first: 'optimizer.step' or "
    "'scheduler.step'? (2) Does loss.backward() 'set' or 'add' into .grad? (3) After "
    "model.eval(), do the parameters still require grad? (a bool) Answer a tuple of the three.",
    quiz_16,
    hints=[
        Hint("(1) The scheduler sets the rate for the NEXT step: step the optimizer first.",
             wrong=lambda: ("scheduler.step", "add", True)),
        Hint("(2) Gradients accumulate: that is why every step starts with zero_grad().",
             wrong=lambda: ("optimizer.step", "set", True)),
        Hint("(3) eval() changes layer behaviour (dropout, batch norm), not requires_grad.",
             wrong=lambda: ("optimizer.step", "add", False)),
    ])
