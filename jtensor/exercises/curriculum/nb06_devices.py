"""Exercises of notebook 06_devices.ipynb (devices).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def sync_points():
    return {"item", "print", "cpu"}


Exercise(
    "06-sync-points",
    "Which of these make the host wait for the device? 'add' (c = a + b), 'item' "
    "(c.sum().item()), 'print' (print(c)), 'cpu' (c.cpu()), 'view' (c.view(-1)). Answer a "
    "set of names.",
    sync_points,
    hints=[
        Hint("Printing a CUDA tensor needs its values on the host, so it waits too.",
             wrong=lambda: {"item", "cpu"}),
        Hint("Launching c = a + b only queues a kernel: the host goes on at once.",
             wrong=lambda: {"add", "item", "print", "cpu"}),
    ])


def _cpu_and_cuda():
    return (torch.arange(3.0), torch.tensor([1.0, -2.0, 0.5], device="cuda"))


def add_on_device(x_cpu, y_cuda):
    return x_cpu.to(y_cuda.device)[:, None] * y_cuda[None, :]


Exercise(
    "06-add-across-devices",
    "Write f(x_cpu, y_cuda) returning the outer product of the two vectors (entry [i, j] is "
    "x_cpu[i] * y_cuda[j]), computed on y_cuda's device.",
    add_on_device, inputs=_cpu_and_cuda,
    rules=("type", "shape", "dtype", "values", "device"),
    hints=[
        Hint("Bringing the CUDA tensor back to the CPU gives the right values on the wrong "
             "device: move the CPU operand to y_cuda.device instead.",
             wrong=lambda x, y: x[:, None] * y.cpu()[None, :]),
        Hint("An element-wise product of two (3,) vectors is (3,): give x a trailing dim "
             "and y a leading one, x[:, None] * y[None, :], so they broadcast to (3, 3).",
             wrong=lambda x, y: x.to(y.device) * y),
    ])


def quiz_06():
    # Facts of PyTorch's CUDA semantics, which the notebook demonstrates or states (the
    # last: a device-side assertion leaves a real GPU's context unusable).
    return (False, True, False, False)


Exercise(
    "06-quiz",
    "Self-check. (1) Does t.to('cuda') move t itself (in place)? (2) Does .item() on a CUDA "
    "tensor make the host wait for the GPU? (3) Does non_blocking=True make a copy from "
    "ordinary (not pinned) CPU memory asynchronous? (4) On a real GPU, after a device-side "
    "assertion, do later CUDA calls in the same process work? Answer a tuple of four bools.",
    quiz_06,
    hints=[
        Hint("(1) .to(device) returns a new tensor; t stays where it was: t = t.to('cuda').",
             wrong=lambda: (True, True, False, False)),
        Hint("(2) .item() needs the value on the host, so it waits for the queued kernels.",
             wrong=lambda: (False, False, False, False)),
        Hint("(3) Only pinned (page-locked) memory can be copied asynchronously.",
             wrong=lambda: (False, True, True, False)),
        Hint("(4) The assertion is sticky: the CUDA context stays broken, and every later "
             "CUDA call fails until the process (the notebook's kernel) restarts.",
             wrong=lambda: (False, True, False, True)),
    ])
