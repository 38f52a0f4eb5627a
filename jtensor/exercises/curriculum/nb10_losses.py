"""Exercises of notebook 10_losses.ipynb (losses).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def _big_logits():
    return (torch.tensor([[2.0, 0.5, -1.0], [0.0, -200.0, 5.0], [1000.0, 0.0, 999.0]]),
            torch.tensor([0, 1, 2]))


def cross_entropy_by_hand(logits, target):
    log_p = logits.log_softmax(dim=1)
    return -log_p[torch.arange(len(target)), target].mean()


Exercise(
    "10-cross-entropy",
    "logits is (N, C), target (N,) int64 class indices. Write f(logits, target) returning the "
    "mean cross entropy without F.cross_entropy or F.nll_loss, finite for large logits.",
    cross_entropy_by_hand, inputs=_big_logits,
    rules=("type", "shape", "values"),
    hints=[
        Hint("log(softmax(x)) underflows: a probability below float32's range becomes 0 and "
             "its log -inf. Use logits.log_softmax(dim=1), which computes x - logsumexp(x).",
             wrong=lambda logits, target:
                 -logits.softmax(1).log()[torch.arange(len(target)), target].mean()),
        Hint("The classes are along dim 1 (one row per example): log_softmax over dim=0 "
             "normalises each class across the batch instead.",
             wrong=lambda logits, target:
                 -logits.log_softmax(0)[torch.arange(len(target)), target].mean()),
        Hint("The loss is the NEGATIVE log-probability of the true class: you forgot the minus.",
             wrong=lambda logits, target:
                 logits.log_softmax(1)[torch.arange(len(target)), target].mean()),
    ])


def _lse_input():
    return (torch.tensor([[1000.0, 1001.0, 1002.0], [0.0, -1.0, -2.0]]),)


def stable_logsumexp(x):
    m = x.max(dim=-1, keepdim=True).values
    return (x - m).exp().sum(dim=-1).log() + m.squeeze(-1)


Exercise(
    "10-logsumexp",
    "Write f(x) returning log(sum(exp(x))) over the last dimension, without torch.logsumexp, "
    "finite for large x.",
    stable_logsumexp, inputs=_lse_input,
    rules=("type", "shape", "values"),
    hints=[
        Hint("exp(1000.) is inf in float32. Subtract the row maximum m first, then add it back: "
             "m + log(sum(exp(x - m))).",
             wrong=lambda x: x.exp().sum(-1).log()),
        Hint("Shift by each row's own maximum (max over dim=-1, keepdim=True), not by the "
             "maximum of the whole tensor: a row far below it underflows to log(0) = -inf.",
             wrong=lambda x: (x - x.max()).exp().sum(-1).log() + x.max()),
    ])


def _bce_input():
    return (torch.tensor([-200.0, -2.0, 0.0, 3.0, 40.0]),
            torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0]))


def binary_loss(z, y):
    return torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none")


Exercise(
    "10-bce-logits",
    "z are logits, y targets in [0, 1]. Write f(z, y) returning the per-element binary cross "
    "entropy (same shape as z), stable for large |z|.",
    binary_loss, inputs=_bce_input,
    rules=("type", "shape", "values"),
    hints=[
        Hint("sigmoid followed by binary_cross_entropy saturates: sigmoid(-200.) is 0, the log "
             "is clamped at -100 and the gradient is 0. Use "
             "F.binary_cross_entropy_with_logits(z, y, reduction='none').",
             wrong=lambda z, y: torch.nn.functional.binary_cross_entropy(
                 torch.sigmoid(z), y, reduction="none")),
        Hint("The default reduction is 'mean': a single number. Pass reduction='none' for one "
             "loss per element.",
             wrong=lambda z, y: torch.nn.functional.binary_cross_entropy_with_logits(z, y)),
    ])


def quiz_10():
    import jtensor.nn.functional as F

    bce = F.binary_cross_entropy_with_logits(torch.tensor([0.0]), torch.tensor([1.0]))
    return ("int64", "logits", round(bce.item(), 4))


Exercise(
    "10-quiz",
    "Self-check. (1) The dtype F.cross_entropy wants for class-index targets: 'int32', "
    "'int64' or 'float32'? (2) Does F.cross_entropy take 'logits' or 'probabilities'? (3) "
    "F.binary_cross_entropy_with_logits(torch.tensor([0.]), torch.tensor([1.])).item(), "
    "rounded to 4 decimals. Answer a tuple of the three.",
    quiz_10,
    hints=[
        Hint("(1) Class indices are int64 (torch.long); float targets mean probabilities.",
             wrong=lambda: ("int32", "logits", 0.6931)),
        Hint("(2) cross_entropy applies log_softmax itself: give it raw scores.",
             wrong=lambda: ("int64", "probabilities", 0.6931)),
        Hint("(3) A logit of 0 is probability 0.5, and -log(0.5) = log 2.",
             wrong=lambda: ("int64", "logits", 0.0)),
    ])
