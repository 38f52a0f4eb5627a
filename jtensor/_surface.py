"""The top-level ``torch.<name>`` forms of nn operators (``torch.dropout``, ``torch.layer_norm``,
``torch.kl_div``, ``torch.convolution``...).

PyTorch exposes the ATen operators behind ``nn.functional`` at the top level with ATen's
signatures: every argument positional and required where ATen's is (``torch.dropout(input, p,
train)``), losses take ``reduction`` as ATen's integer enum (0 none, 1 mean, 2 sum; any other
value reduces nothing, as ATen's ``apply_loss_reduction``; omitted, it is 0: PyTorch's Python
binding reads ATen's ``at::Reduction::Mean`` default as 0, so ``torch.kl_div(a, b)`` is
unreduced although the stubs say 1), ``torch.embedding`` takes
``(weight, indices)`` with ``padding_idx=-1`` meaning none. These entries translate to the
``nn.functional`` forms (which hold the kernels, checks and autograd nodes, so the results
carry PyTorch's ``grad_fn`` names) and implement the dropout family directly as ATen's CPU
``_dropout_impl`` does (a Bernoulli noise tensor, multiplied in: ``MulBackward0``).
"""

from ._errors import TensorRuntimeError, TensorTypeError
from .nn import functional as F
from .nn._functional.dropout import _apply_noise
from .nn._functional.normalization_more import _alpha_dropout

__all__ = [
    "adaptive_max_pool1d",
    "alpha_dropout",
    "alpha_dropout_",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "constant_pad_nd",
    "convolution",
    "cosine_embedding_loss",
    "ctc_loss",
    "dropout",
    "dropout_",
    "embedding",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "group_norm",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "margin_ranking_loss",
    "max_pool1d_with_indices",
    "poisson_nll_loss",
    "rms_norm",
    "triplet_margin_loss",
]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(fname, value, position):
    """ATen's integer reduction as nn.functional's string (PyTorch's TypeError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TensorTypeError(
            f"{fname}(): argument 'reduction' (position {position}) must be "
            f"int, not {type(value).__name__}"
        )
    return _REDUCTIONS.get(value, "none")


# ------------------------------------------------------------------------ dropout family
def _dropout_impl(input, p, train, *, feature, alpha, inplace):
    # ATen's _dropout_impl: the checks raise RuntimeError here (F.dropout's Python check is a
    # ValueError); the noise and its application are nn.functional's, one piece of code.
    if not 0 <= p <= 1:
        raise TensorRuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise TensorRuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if alpha:
        return _alpha_dropout(input, p, train, inplace, feature=feature)
    # One draw per (sample, channel) for feature dropout, broadcast over the other dimensions.
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else None
    return _apply_noise(input, p, inplace, shape)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: zero elements with probability ``p`` and scale the
    rest by ``1/(1-p)`` when ``train``; ``input`` itself otherwise (or for ``p == 0``)."""
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=False)


def dropout_(input, p, train):
    """In-place ``torch.dropout``: writes ``input`` and returns it."""
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=True)


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: drop whole channels (dimension 1) of each sample, scaling the
    kept ones by ``1/(1-p)``; the form behind ``F.dropout1d/2d/3d``."""
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=False)


def feature_dropout_(input, p, train):
    """In-place ``torch.feature_dropout``."""
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=True)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout``: SELU-preserving dropout (dropped elements go to SELU's negative
    saturation, then an affine map restores mean and variance)."""
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=False)


def alpha_dropout_(input, p, train):
    """In-place ``torch.alpha_dropout``."""
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout``: alpha dropout of whole channels."""
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=False)


def feature_alpha_dropout_(input, p, train):
    """In-place ``torch.feature_alpha_dropout``."""
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=True)


# ------------------------------------------------------------------------ normalization
def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """``torch.batch_norm`` (ATen's argument order): ``F.batch_norm``; ``cudnn_enabled`` only
    picks a kernel in PyTorch."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """``torch.instance_norm`` (ATen's argument order): ``F.instance_norm``."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` only picks a kernel)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``: ``F.group_norm``."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``F.rms_norm``."""
    return F.rms_norm(input, normalized_shape, weight, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices)``: rows of ``weight``; a negative ``padding_idx``
    (ATen's -1 default) means no padding row."""
    return F.embedding(
        indices,
        weight,
        padding_idx if padding_idx >= 0 else None,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


# ------------------------------------------------------------------------ losses
def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div`` with ATen's integer ``reduction`` (1 is the mean over all elements,
    ``F.kl_div``'s deprecated 'mean', without its warning; omitted, unreduced as in
    PyTorch)."""
    mode = _reduction("kl_div", reduction, 3)
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    # Reduced here rather than by F.kl_div: its 'mean' warns, ATen's integer mean does not.
    return loss.mean() if mode == "mean" else loss.sum() if mode == "sum" else loss


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False
):
    """``torch.ctc_loss`` with ATen's integer ``reduction``: ``F.ctc_loss``."""
    return F.ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction("ctc_loss", reduction, 6),
        zero_infinity,
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss`` with ATen's integer ``reduction``."""
    return F.cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction("cosine_embedding_loss", reduction, 5)
    )


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss`` with ATen's integer ``reduction``."""
    return F.margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction("margin_ranking_loss", reduction, 5)
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss`` with ATen's integer ``reduction``."""
    return F.hinge_embedding_loss(
        input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction, 4)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0
):
    """``torch.triplet_margin_loss`` with ATen's integer ``reduction``."""
    return F.triplet_margin_loss(
        anchor,
        positive,
        negative,
        margin,
        p,
        eps,
        swap,
        reduction=_reduction("triplet_margin_loss", reduction, 8),
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss`` (every argument required, integer ``reduction``)."""
    return F.poisson_nll_loss(
        input,
        target,
        log_input=log_input,
        full=full,
        eps=eps,
        reduction=_reduction("poisson_nll_loss", reduction, 6),
    )


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits`` with ATen's integer ``reduction``."""
    return F.binary_cross_entropy_with_logits(
        input,
        target,
        weight,
        reduction=_reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight=pos_weight,
    )


# ------------------------------------------------------------------------ padding, conv, pools
def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad`` in constant mode (``ConstantPadNdBackward0``;
    negative pads crop)."""
    return F.pad(input, pad, mode="constant", value=value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the N-d (transposed) convolution ``weight.dim() - 2`` picks, as
    ``F.conv{1,2,3}d``/``F.conv_transpose{1,2,3}d`` (``ConvolutionBackward0``)."""
    nd = weight.dim() - 2
    if nd < 1:
        raise TensorRuntimeError("weight should have at least three dimensions")
    if nd > 3:
        raise TensorRuntimeError(
            f"convolution: weight should have 3, 4 or 5 dimensions (1-d, 2-d or 3-d "
            f"convolution), but got weight of size {list(weight.shape)}"
        )
    if transposed:
        conv = getattr(F, f"conv_transpose{nd}d")
        return conv(
            input,
            weight,
            bias,
            tuple(stride),
            tuple(padding),
            tuple(output_padding),
            groups,
            tuple(dilation),
        )
    conv = getattr(F, f"conv{nd}d")
    return conv(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)``, as
    ``F.adaptive_max_pool1d(..., return_indices=True)``."""
    return tuple(F.adaptive_max_pool1d(input, output_size, return_indices=True))


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d_with_indices``: ``(values, indices)``; an empty ``stride`` is the
    kernel size."""
    stride = stride if stride not in ((), [], None) else None
    return tuple(
        F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)
    )
