"""``LinearCrossEntropyLoss`` and ``LinearCrossEntropyOptions``: a linear head and the cross
entropy of its logits in one module (PyTorch 2.13's API)."""

import math

from ..._errors import TensorRuntimeError
from .._functional.linear_cross_entropy import LinearCrossEntropyOptions, linear_cross_entropy
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """The cross entropy of ``self.linear(input)``'s logits against ``target``, as
    ``torch.nn.LinearCrossEntropyLoss``: ``self.linear`` is a ``Linear(in_features,
    num_classes * prod(out_features))`` (no bias unless ``bias=True``), reshaped to
    ``(num_classes, *out_features, in_features)`` for a K-dimensional loss; ``weight``,
    ``reduction``, ``ignore_index``, ``label_smoothing`` and ``options`` go to
    ``F.linear_cross_entropy``.

    >>> import jtensor as torch
    >>> loss = torch.nn.LinearCrossEntropyLoss(8, 5)
    >>> loss(torch.randn(4, 8), torch.tensor([0, 1, 2, 4])).shape
    torch.Size([])
    """

    def __init__(
        self,
        in_features,
        num_classes,
        *,
        out_features=(),
        bias=False,
        device=None,
        dtype=None,
        reduction="mean",
        weight=None,
        ignore_index=None,
        label_smoothing=0.0,
        options=None,
    ):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise TensorRuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise TensorRuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear holds 2-d weights: the K-dimensional shape is restored in forward
        self.linear = Linear(
            in_features,
            math.prod(out_features) * num_classes,
            bias=bias,
            device=device,
            dtype=dtype,
        )
        self.options = options

    def forward(self, input, target):
        """The loss of ``input`` ``(N, in_features)`` or ``(in_features,)``."""
        weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features)
        )
        bias = self.linear.bias
        if bias is not None:
            bias = bias.reshape((self.num_classes, *self.out_features))
        return linear_cross_entropy(
            input,
            weight,
            target,
            linear_bias=bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self):
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
