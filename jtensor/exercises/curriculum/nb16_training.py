"""Exercises of notebook 16_training.ipynb (training loop).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch
import jtensor.nn.functional as F

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


def _model_on_device_and_cpu_batch():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 3)).to("cuda")
    xb = torch.linspace(-1, 1, 10).reshape(5, 2)
    yb = torch.tensor([0, 1, 2, 1, 0])
    return (model, xb, yb)


def batch_loss(model, xb, yb):
    device = next(model.parameters()).device
    return F.cross_entropy(model(xb.to(device)), yb.to(device))


def _loss_on_the_cpu(model, xb, yb):
    return F.cross_entropy(model.cpu()(xb), yb)


Exercise(
    "16-debug-device",
    "Debug this: batch_loss(model, xb, yb) = F.cross_entropy(model(xb), yb), for a model on "
    "the device (cuda) and a batch (xb, yb) from the loader on the CPU, raises RuntimeError "
    "(Expected all tensors to be on the same device). Write the fixed function: the same "
    "loss, computed on the model's device, without moving the model.",
    batch_loss, inputs=_model_on_device_and_cpu_batch,
    rules=("type", "shape", "dtype", "values", "device"),
    hints=[
        Hint("The model's parameters are on the device and the batch is on the CPU: that is "
             "the error you are fixing. Move xb and yb with .to(device), where device is "
             "next(model.parameters()).device.",
             wrong=lambda model, xb, yb: F.cross_entropy(model(xb), yb)),
        Hint("model.cpu() gives the right value on the wrong device, and it moves the model "
             "itself (Module.to and .cpu() work in place): move the batch to the model's "
             "device instead.",
             wrong=_loss_on_the_cpu),
    ])


def quiz_16():
    model = torch.nn.Linear(2, 1)
    x = torch.ones(1, 2)
    model(x).sum().backward()
    first = model.bias.grad.clone()
    model(x).sum().backward()
    model.eval()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        soft = torch.ones(2, 3, dtype=torch.bfloat16).softmax(dim=1)
    return ("optimizer.step", "add" if model.bias.grad.item() == 2 * first.item() else "set",
            model.weight.requires_grad, str(soft.dtype).removeprefix("torch."))


Exercise(
    "16-quiz",
    "Self-check. (1) In a training step, which comes first: 'optimizer.step' or "
    "'scheduler.step'? (2) Does loss.backward() 'set' or 'add' into .grad? (3) After "
    "model.eval(), do the parameters still require grad? (a bool) (4) Under "
    "torch.autocast('cpu', dtype=torch.bfloat16), which dtype does softmax of a bfloat16 "
    "tensor return: 'bfloat16' or 'float32'? Answer a tuple of the four.",
    quiz_16,
    hints=[
        Hint("(1) The scheduler sets the rate for the NEXT step: step the optimizer first.",
             wrong=lambda: ("scheduler.step", "add", True, "bfloat16")),
        Hint("(2) Gradients accumulate: that is why every step starts with zero_grad().",
             wrong=lambda: ("optimizer.step", "set", True, "bfloat16")),
        Hint("(3) eval() changes layer behaviour (dropout, batch norm), not requires_grad.",
             wrong=lambda: ("optimizer.step", "add", False, "bfloat16")),
        Hint("(4) On CPU, softmax is on no autocast list: a bfloat16 input stays bfloat16. "
             "Only the losses and a few others go to float32 there (on CUDA, softmax does).",
             wrong=lambda: ("optimizer.step", "add", True, "float32")),
    ])
