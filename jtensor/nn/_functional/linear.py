"""``linear`` and ``bilinear`` (``jtensor.nn.functional``)."""

from ..._errors import TensorRuntimeError
from ._op import nn_op

__all__ = ["bilinear", "linear"]


@nn_op()
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: ``input`` is ``(*, in_features)``, ``weight``
    ``(out_features, in_features)``, ``bias`` ``(out_features)``.

    As PyTorch: a 2-D input with a bias is one ``addmm`` (``AddmmBackward0``); a contiguous
    N-D input is viewed as 2-D around the ``addmm``; otherwise ``matmul`` (+ bias).

    >>> import jtensor as torch
    >>> torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 3)).shape
    torch.Size([2, 4])
    """
    ndim = input.dim()
    if bias is None:
        if ndim == 2 and weight.dim() == 2:
            return input.mm(weight.t())
        return input.matmul(weight.t())
    if ndim == 2:
        return bias.addmm(input, weight.t())
    if ndim >= 1 and input.is_contiguous():
        in_features = input.shape[-1]
        lead = tuple(input.shape)[:-1]
        out = linear(input.view(-1, in_features), weight, bias)
        return out.view(*lead, out.shape[-1])
    return input.matmul(weight.t()) + bias


@nn_op(function=True)  # also torch.bilinear
def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    ``input1`` is ``(*, in1)``, ``input2`` ``(*, in2)`` with the same leading dims,
    ``weight`` ``(out, in1, in2)``, ``bias`` ``(out)``.
    """
    if input1.dim() != input2.dim():
        raise TensorRuntimeError(f"bilinear(): input dimensions do not match: got "
                                 f"{input1.dim()} and {input2.dim()}")
    if input1.dim() == 0:
        raise TensorRuntimeError("bilinear(): inputs must have at least 1 dimension, got "
                                 "0-D tensors")
    lead1, lead2 = tuple(input1.shape)[:-1], tuple(input2.shape)[:-1]
    if lead1 != lead2:
        raise TensorRuntimeError(f"bilinear(): input batch dimensions do not match: got "
                                 f"{list(lead1)} and {list(lead2)}")
    if weight.dim() != 3:
        raise TensorRuntimeError(f"bilinear(): weight must be 3-dimensional "
                                 f"(out_features, in1_features, in2_features), got "
                                 f"{weight.dim()}-D")
    out_f, in1, in2 = tuple(weight.shape)
    if input1.shape[-1] != in1:
        raise TensorRuntimeError(f"bilinear(): input1 size does not match weight size: got "
                                 f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise TensorRuntimeError(f"bilinear(): input2 size does not match weight size: got "
                                 f"{input2.shape[-1]} but expected {in2}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_f):
        raise TensorRuntimeError(f"bilinear(): bias size does not match weight size: got "
                                 f"{list(bias.shape)} but expected [{out_f}]")
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (n, in1) @ (in1, out * in2) -> (n, out, in2), then contract with input2 over in2.
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2)).view(-1, out_f, in2)
    y = t.matmul(x2.unsqueeze(-1)).squeeze(-1).view(*lead1, out_f)
    # The bias is added last, as PyTorch's ``bilinear`` (its node: ``AddBackward0``).
    return y + bias if bias is not None else y
