"""In-place view ops (``t_``, ``transpose_``, ``unsqueeze_``, ``squeeze_``, ``as_strided_``):
the gradient goes back through the inverse reshuffle of the metadata. PyTorch names their
nodes ``...Backward1`` (``squeeze_()`` is ``SqueezeBackward3``, ``squeeze_(dim)`` ``...4``)."""

from ..._api import ops as J
from ._core import derivative


@derivative("t_", name="TBackward1")
def t__backward(ctx, g):
    return g.t()


@derivative("transpose_", name="TransposeBackward1")
def transpose__backward(ctx, g):
    return g.transpose(ctx.dim0, ctx.dim1)


@derivative("unsqueeze_", name="UnsqueezeBackward1")
def unsqueeze__backward(ctx, g):
    return g.squeeze(ctx.dim)


@derivative("squeeze_",
            name=("dim", "SqueezeBackward3", "SqueezeBackward4"))
def squeeze__backward(ctx, g):
    return g.reshape(ctx.input_meta(0)[0])


@derivative("as_strided_", name="AsStridedBackward1")
def as_strided__backward(ctx, g):
    from ..graph import _base_from_view_grad

    shape, _, _, stride, offset = ctx.input_meta(0)
    out_offset = offset if ctx.storage_offset is None else ctx.storage_offset
    return _base_from_view_grad(g, (shape, stride, offset),
                                (tuple(ctx.size), tuple(ctx.stride), out_offset), J)
