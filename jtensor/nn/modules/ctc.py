"""``CTCLoss``: the connectionist temporal classification loss as a module."""

from .. import functional as F  # (looked up per call: a patched F.<name> is seen)
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """``F.ctc_loss`` as a module, as ``torch.nn.CTCLoss``: ``blank`` label, ``reduction``
    and ``zero_infinity``; called with ``(log_probs, targets, input_lengths,
    target_lengths)``.

    >>> import jtensor as torch
    >>> loss = torch.nn.CTCLoss()
    >>> lp = torch.randn(8, 2, 5).log_softmax(2)
    >>> loss(lp, torch.tensor([[1, 2], [3, 3]]), [8, 6], [2, 2]).shape
    torch.Size([])
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
