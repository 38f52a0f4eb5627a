"""Exercises of notebook 07_autograd.ipynb (autograd).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def accumulated_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w ** 2).sum().backward()
    (3 * w).sum().backward()
    return w.grad.tolist()


Exercise(
    "07-accumulate",
    "w = torch.tensor([1., 2.], requires_grad=True); then (w ** 2).sum().backward() and "
    "(3 * w).sum().backward(), with no zero_grad between. What is w.grad? Answer a list of "
    "floats.",
    accumulated_grad,
    hints=[
        Hint("backward() adds into .grad instead of overwriting it: w.grad holds 2w from the "
             "first pass plus 3 from the second.",
             wrong=lambda: [3.0, 3.0]),
        Hint("That is the first pass alone (2w): the second backward adds its 3 to it.",
             wrong=lambda: [2.0, 4.0]),
    ])


def _scalar_leaf():
    return (torch.tensor(1.5, requires_grad=True),)


def second_derivative(x):
    (dy,) = torch.autograd.grad(x ** 3 + 2 * x, x, create_graph=True)
    (d2y,) = torch.autograd.grad(dy, x)
    return d2y


Exercise(
    "07-second-derivative",
    "x is a 0-dim tensor with requires_grad=True. Write f(x) returning the second derivative "
    "of x ** 3 + 2 * x at x, computed with autograd.",
    second_derivative, inputs=_scalar_leaf,
    rules=("type", "shape", "values"),
    hints=[
        Hint("That is the first derivative (3x^2 + 2). Take it with create_graph=True, so "
             "that it can be differentiated again, then call torch.autograd.grad on it.",
             wrong=lambda x: torch.autograd.grad(x ** 3 + 2 * x, x)[0]),
    ])


def _pair_leaf():
    return (torch.tensor([1.0, 2.0], requires_grad=True),)


def intermediate_grad(w):
    h = w * 3
    h.retain_grad()
    (h ** 2).sum().backward()
    return h.grad


def _grad_of_leaf(w):
    h = w * 3
    (h ** 2).sum().backward()
    return w.grad


Exercise(
    "07-retain-grad",
    "h = w * 3 and loss = (h ** 2).sum(). Write f(w) returning the gradient of loss with "
    "respect to h, from autograd (retain_grad, then backward).",
    intermediate_grad, inputs=_pair_leaf,
    rules=("type", "shape", "values"),
    hints=[
        Hint("w.grad is the gradient with respect to the leaf w (2h * 3); the question asks "
             "for h's own gradient (2h): call h.retain_grad() before backward and return "
             "h.grad.",
             wrong=_grad_of_leaf),
    ])


def quiz_07():
    x = torch.tensor(2.0, requires_grad=True)
    (x * x).backward()
    h = x * 3
    return (x.grad.item(), h.is_leaf, h.requires_grad)


Exercise(
    "07-quiz",
    "Self-check, x = torch.tensor(2.0, requires_grad=True). (1) After (x * x).backward(), "
    "x.grad.item() (a float). (2) For h = x * 3: h.is_leaf (a bool). (3) h.requires_grad (a "
    "bool). Answer a tuple of the three.",
    quiz_07,
    hints=[
        Hint("(1) d(x*x)/dx = 2x, at x = 2 that is 4.",
             wrong=lambda: (2.0, False, True)),
        Hint("(2) A tensor made by a recorded op is not a leaf: it has a grad_fn.",
             wrong=lambda: (4.0, True, True)),
        Hint("(3) A result requires grad when one of its inputs does (in grad mode).",
             wrong=lambda: (4.0, False, False)),
    ])


def _weights():
    return (torch.tensor([0.0, 1.0, -1.0], requires_grad=True),)


def two_losses_grad(w):
    h = w.exp()
    (h.sum() + (2 * h).sum()).backward()  # one backward through the shared graph
    return w.grad


def _backward_twice(w):
    h = w.exp()
    h.sum().backward()
    (2 * h).sum().backward()  # raises: the graph's saved values are freed
    return w.grad


Exercise(
    "07-debug-backward-twice",
    "Debug this: h = w.exp(); loss1 = h.sum(); loss2 = (2 * h).sum(); loss1.backward(); "
    "loss2.backward() raises RuntimeError (trying to backward through the graph a second "
    "time). Write f(w) that returns w.grad holding the gradient of loss1 + loss2.",
    two_losses_grad, inputs=_weights,
    hints=[
        Hint("The first backward freed the values exp saved: the second one cannot run. Add "
             "the losses and call backward once (or pass retain_graph=True the first time).",
             wrong=_backward_twice),
        Hint("That is the gradient of loss2 only: both losses must reach w.grad (gradients "
             "add up over backward calls).",
             wrong=lambda w: ((2 * w.exp()).sum().backward(), w.grad)[1]),
    ])
