"""Specs of the view ops (and ravel, atleast_*d, adjoint, resolve_conj/neg): metadata (shape,
stride, offset), sharing and errors vs PyTorch."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr


def x34(lib):
    return T(lib, arr(3, 4))


def broadcast_identity(lib, *tensors):
    """``broadcast_tensors``' results, and which of them are the inputs themselves."""
    out = lib.broadcast_tensors(*tensors)
    return out, tuple(o is t for o, t in zip(out, tensors, strict=True))


def broadcast_leaf_identity(lib, x):
    """A leaf requiring grad, already of the broadcast shape, comes back itself, still a leaf
    (the other output's ``requires_grad`` differs in jtensor: not compared here)."""
    x.requires_grad_()
    out = lib.broadcast_tensors(x, x[0].detach())
    return out[0], out[0] is x, out[0].grad_fn is None, x.is_leaf


def x234(lib):
    return T(lib, arr(2, 3, 4))


def case(run, make=x34, name="", **kw):
    return Case(run, make=make, name=name, **kw)


SPECS = [
    OpSpec("view", [
        case(lambda lib, x: x.view(4, 3)),
        case(lambda lib, x: x.view(-1)),
        case(lambda lib, x: x.view(2, -1, 2)),
        case(lambda lib, x: x[:, ::2].view(-1), name="strided-ok"),
        case(lambda lib, x: x.t().view(-1), name="transposed-fails"),
        case(lambda lib, x: x.view(2, -1, -1), name="two-inferred"),
        case(lambda lib, x: x.view(5, -1), name="bad-size"),
        case(lambda lib, x: x.view(lib.int16), name="dtype-smaller"),
        case(lambda lib, x: x.view(lib.float64), name="dtype-bigger"),
        case(lambda lib, x: x[:, :3].view(lib.float64), name="dtype-indivisible"),
        case(lambda lib, x: x.t().view(lib.int8), name="dtype-non-unit-stride"),
        case(lambda lib, x: x[1:, 1:].view(lib.int16), name="dtype-offset"),
        case(lambda lib, x: x.view(lib.int32), name="dtype-same-size"),
        case(lambda lib, x: x.view(1, 3, 1, 4, 1), name="unit-dims"),
        case(lambda lib, x: x.unsqueeze(1).view(3, 4), name="from-unit-dims"),
        case(lambda lib, x: x[0, 0].view(1, 1), name="0d"),
        case(lambda lib, x: x[:0].view(0, 2, 2), name="empty"),
        case(lambda lib, x: x[:0].view(-1, 0), name="empty-ambiguous"),
    ]),
    OpSpec("view_as", [case(lambda lib, x: x.view_as(lib.zeros(6, 2)))]),
    OpSpec("as_strided", [
        case(lambda lib, x: x.as_strided((3, 3), (1, 1)), name="overlapping-windows"),
        case(lambda lib, x: x.as_strided((2, 2), (4, 1), 5), name="offset"),
        case(lambda lib, x: x[1].as_strided((2,), (1,)), name="keeps-offset"),
        case(lambda lib, x: x.as_strided((4, 4), (4, 1)), name="out-of-bounds"),
        case(lambda lib, x: x.as_strided((2, 2), (-1, 1)), name="negative-stride"),
        case(lambda lib, x: lib.as_strided(x, (6,), (2,)), name="function"),
    ]),
    OpSpec("reshape", [
        case(lambda lib, x: x.reshape(12)),
        case(lambda lib, x: x.t().reshape(12), name="copies"),
        case(lambda lib, x: x[:, ::2].reshape(-1), name="strided-view"),
        case(lambda lib, x: lib.reshape(x, (2, 6))),
        case(lambda lib, x: x.reshape(5, 3), name="bad"),
        case(lambda lib, x: x.expand(2, 3, 4).reshape(6, 4), name="expanded-copies"),
        case(lambda lib, x: x[:, None].expand(3, 2, 4).reshape(3, 8), name="expanded-copy2"),
    ]),
    OpSpec("reshape_as", [case(lambda lib, x: x.reshape_as(lib.zeros(2, 6)))]),
    OpSpec("flatten", [
        case(lambda lib, x: x.flatten(), make=x234),
        case(lambda lib, x: x.flatten(1), make=x234),
        case(lambda lib, x: x.flatten(0, 1), make=x234),
        case(lambda lib, x: x.transpose(0, 2).flatten(), make=x234, name="copies"),
        case(lambda lib, x: x[::2].flatten(), name="strided-copies"),
        case(lambda lib, x: x[0].flatten(), name="1d-returns-self"),
        case(lambda lib, x: x[0, 0].flatten(), name="0d"),
        case(lambda lib, x: x.flatten(2, 1), make=x234, name="bad-order"),
        case(lambda lib, x: lib.flatten(x, 5), name="bad-dim"),
    ]),
    OpSpec("unflatten", [
        case(lambda lib, x: x.unflatten(1, (2, 2))),
        case(lambda lib, x: x.unflatten(-1, (2, -1))),
        case(lambda lib, x: x.unflatten(1, (3, 2)), name="bad"),
    ]),
    OpSpec("permute", [
        case(lambda lib, x: x.permute(2, 0, 1), make=x234),
        case(lambda lib, x: x.permute((1, -1, 0)), make=x234),
        case(lambda lib, x: lib.permute(x, (1, 0))),
        case(lambda lib, x: x.permute(0, 0), name="duplicate"),
        case(lambda lib, x: x.permute(0), name="wrong-length"),
    ]),
    OpSpec("transpose", [
        case(lambda lib, x: x.transpose(0, 1)),
        case(lambda lib, x: x.transpose(-1, 0), make=x234),
        case(lambda lib, x: x.swapaxes(0, 2), make=x234),
        case(lambda lib, x: x.swapdims(1, 2), make=x234),
        case(lambda lib, x: x[0, 0].transpose(0, -1), name="0d"),
        case(lambda lib, x: x.transpose(0, 2), name="bad-dim"),
        # PyTorch names swapaxes' dims axis0/axis1 (swapdims and transpose: dim0/dim1).
        case(lambda lib, x: lib.swapaxes(x, axis0=0, axis1=2), make=x234, name="swapaxes-names"),
        case(lambda lib, x: x.swapaxes(axis1=-1, axis0=1), make=x234,
             name="swapaxes-method-names"),
        case(lambda lib, x: lib.swapaxes(x, dim0=0, dim1=1), name="swapaxes-dim0-error"),
        case(lambda lib, x: lib.swapdims(x, dim0=0, dim1=1), name="swapdims-names"),
        case(lambda lib, x: x.swapaxes(0, 2), name="swapaxes-bad-dim"),
    ]),
    OpSpec("t", [
        case(lambda lib, x: x.t()),
        case(lambda lib, x: x[0].t(), name="1d"),
        case(lambda lib, x: x.t(), make=x234, name="3d"),
    ]),
    OpSpec("movedim", [
        case(lambda lib, x: x.movedim(0, -1), make=x234),
        case(lambda lib, x: x.movedim((0, 1), (2, 0)), make=x234),
        case(lambda lib, x: x.moveaxis(1, 0), make=x234),
        case(lambda lib, x: x.movedim((0, 0), (1, 2)), make=x234, name="repeated"),
    ]),
    OpSpec("unsqueeze", [
        case(lambda lib, x: x.unsqueeze(0)),
        case(lambda lib, x: x.unsqueeze(1)),
        case(lambda lib, x: x.unsqueeze(-1)),
        case(lambda lib, x: x.t().unsqueeze(1), name="transposed"),
        case(lambda lib, x: x[:, ::2].unsqueeze(2), name="strided"),
        case(lambda lib, x: x.unsqueeze(3), name="bad-dim"),
    ]),
    OpSpec("squeeze", [
        case(lambda lib, x: x.view(1, 3, 1, 4).squeeze()),
        case(lambda lib, x: x.view(1, 3, 1, 4).squeeze(2)),
        case(lambda lib, x: x.view(1, 3, 1, 4).squeeze(1), name="not-one"),
        case(lambda lib, x: x.view(1, 3, 1, 4).squeeze((0, 2))),
        case(lambda lib, x: x.squeeze(5), name="bad-dim"),
    ]),
    OpSpec("expand", [
        case(lambda lib, x: x[:, :1].expand(3, 5)),
        case(lambda lib, x: x.expand(2, 3, 4)),
        case(lambda lib, x: x.expand(2, -1, -1)),
        case(lambda lib, x: x[0].expand(3, 4), name="stride-0-rows"),
        case(lambda lib, x: x.expand(3, 5), name="mismatch"),
        case(lambda lib, x: x.expand(4), name="too-few"),
        case(lambda lib, x: x.expand(-1, 3, 4), name="negative-leading"),
        case(lambda lib, x: x.expand(2, 3, 4, implicit=True), name="implicit"),
        case(lambda lib, x: x.expand((2, 3, 4), implicit=False), name="implicit-tuple"),
        case(lambda lib, x: x.expand(2, 3, 4, implicit=1), name="implicit-int-error"),
    ]),
    OpSpec("broadcast_tensors", [
        case(lambda lib, x: lib.broadcast_tensors(x[:, :1], x[0])),
        case(lambda lib, x: lib.broadcast_tensors(x, lib.ones(2, 1, 1), x[0, 0]), name="three"),
        case(lambda lib, x: lib.broadcast_tensors([x, x[:1]]), name="list"),
        case(lambda lib, x: lib.broadcast_tensors(x), name="one"),
        case(lambda lib, x: lib.broadcast_tensors(x, x[:2]), name="mismatch"),
        case(lambda lib, x: lib.broadcast_tensors(x[0], 1.0), name="not-a-tensor"),
        case(lambda lib, x: lib.broadcast_tensors(lib.ones(3, 1).t(), lib.ones(4, 1)),
             name="transposed-unit"),
        # An input that already has the broadcast shape comes back itself (not a new view).
        case(lambda lib, x: broadcast_identity(lib, x, x[0]), name="full-shape-is-input"),
        case(lambda lib, x: broadcast_identity(lib, x), name="one-is-input"),
        case(lambda lib, x: broadcast_identity(lib, x.t(), x.t()), name="same-twice-is-input"),
        case(lambda lib, x: broadcast_identity(lib, x[:1].expand(3, 4), x[0]),
             name="expanded-full-shape-is-input"),
        case(lambda lib, x: broadcast_leaf_identity(lib, x),
             name="requires-grad-full-shape-is-input"),
    ]),
    OpSpec("expand_as", [case(lambda lib, x: x[:1].expand_as(x))]),
    OpSpec("broadcast_to", [
        case(lambda lib, x: lib.broadcast_to(x[:, :1], (2, 3, 4))),
        case(lambda lib, x: x.broadcast_to((3, 3)), name="bad"),
    ]),
    OpSpec("select", [
        case(lambda lib, x: x.select(0, 1)),
        case(lambda lib, x: x.select(1, -1)),
        case(lambda lib, x: x.select(0, 3), name="out-of-range"),
        case(lambda lib, x: x[0, 0].select(0, 0), name="0d"),
    ]),
    OpSpec("narrow", [
        case(lambda lib, x: x.narrow(1, 1, 2)),
        case(lambda lib, x: x.narrow(0, -2, 2)),
        case(lambda lib, x: x.narrow(0, 2, 2), name="too-long"),
    ]),
    OpSpec("diagonal", [
        case(lambda lib, x: x.diagonal()),
        case(lambda lib, x: x.diagonal(1)),
        case(lambda lib, x: x.diagonal(-1)),
        case(lambda lib, x: x.diagonal(5), name="past-the-end"),
        case(lambda lib, x: x.diagonal(0, 0, 2), make=x234),
        case(lambda lib, x: x.diagonal(1, -1, 1), make=x234),
        case(lambda lib, x: x.diagonal(0, 1, 1), name="same-dims"),
    ]),
    OpSpec("unfold", [
        case(lambda lib, x: x.unfold(1, 2, 1), name="overlapping"),
        case(lambda lib, x: x.unfold(0, 2, 2)),
        case(lambda lib, x: x.unfold(1, 5, 1), name="too-big"),
        case(lambda lib, x: x.unfold(1, 2, 0), name="zero-step"),
        case(lambda lib: lib.arange(10).unfold(0, 3, 3), make=None, name="1d"),
    ]),
    OpSpec("unbind", [
        case(lambda lib, x: x.unbind()),
        case(lambda lib, x: lib.unbind(x, 1)),
    ]),
    OpSpec("split", [
        case(lambda lib, x: x.split(2)),
        case(lambda lib, x: x.split([1, 3], 1)),
        case(lambda lib, x: lib.split(x, 4, dim=-1)),
        case(lambda lib, x: x.split([1, 1]), name="bad-sizes"),
        # PyTorch's two Python forms name the size differently.
        case(lambda lib, x: x.split(split_size=3, dim=1), name="method-split_size"),
        case(lambda lib, x: x.split(split_size=[1, 2]), name="method-split_size-list"),
        case(lambda lib, x: x.split(split_size_or_sections=2), name="method-long-name-error"),
        case(lambda lib, x: lib.split(x, split_size_or_sections=[2, 2], dim=1),
             name="function-keywords"),
        case(lambda lib, x: lib.split(tensor=x, split_size_or_sections=2), name="tensor-keyword"),
        case(lambda lib, x: lib.split(x, split_size=2), name="function-split_size-error"),
    ]),
    OpSpec("chunk", [
        case(lambda lib, x: x.chunk(2)),
        case(lambda lib: lib.arange(10).chunk(4), make=None, name="uneven"),
        case(lambda lib: lib.arange(10).chunk(6), make=None, name="fewer-chunks"),
        case(lambda lib, x: x.chunk(0), name="zero"),
    ]),
    OpSpec("tensor_split", [
        case(lambda lib, x: x.tensor_split(3, 1)),
        case(lambda lib, x: x.tensor_split([1, 3], 1)),
        case(lambda lib: lib.arange(7).tensor_split(3), make=None),
        case(lambda lib: lib.arange(7).tensor_split([5, 2]), make=None, name="unordered"),
        # An int64 tensor: 0-d is a number of sections, 1-d the indices.
        case(lambda lib: lib.tensor_split(lib.arange(7), lib.tensor(3)), make=None,
             name="0d-tensor-sections"),
        case(lambda lib, x: x.tensor_split(lib.tensor(2), 1), name="0d-tensor-sections-dim"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor([1, 4])), make=None,
             name="1d-tensor-indices"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor([-2, 4])), make=None,
             name="1d-tensor-negative"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor([], dtype=lib.int64)),
             make=None, name="1d-tensor-empty"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor(0)), make=None,
             name="0d-tensor-zero-error"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor(3.0)), make=None,
             name="float-tensor-error"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor(3, dtype=lib.int32)), make=None,
             name="int32-tensor-error"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor([[1, 4]])), make=None,
             name="2d-tensor-error"),
        case(lambda lib: lib.tensor(3).tensor_split(0), make=None, name="0d-input-error"),
        case(lambda lib: lib.arange(7).tensor_split(lib.tensor(3.0), 5), make=None,
             name="dtype-before-dim-error"),
        case(lambda lib: lib.arange(7).tensor_split(0, 5), make=None, name="dim-before-count"),
        case(lambda lib: lib.arange(7).tensor_split(True), make=None, name="bool-error"),
        case(lambda lib: lib.arange(7).tensor_split(np.int64(2)), make=None, name="numpy-int"),
        # By name, each of PyTorch's three overloads takes its own type.
        case(lambda lib, x: lib.tensor_split(x, sections=3, dim=1), name="sections"),
        case(lambda lib, x: x.tensor_split(sections=lib.tensor([2])), name="sections-tensor"),
        case(lambda lib, x: x.tensor_split(indices=[1, 3], dim=1), name="indices"),
        case(lambda lib, x: x.tensor_split(indices=(lib.tensor(1), np.int64(2))),
             name="indices-mixed-ints"),
        case(lambda lib, x: lib.tensor_split(x, tensor_indices_or_sections=lib.tensor([2]),
                                             dim=1), name="tensor"),
        case(lambda lib, x: x.tensor_split(indices=2), name="indices-int-error"),
        case(lambda lib, x: x.tensor_split(indices=lib.tensor([1])), name="indices-tensor-error"),
        case(lambda lib, x: x.tensor_split(indices=[1.0]), name="indices-float-error"),
        case(lambda lib, x: x.tensor_split(sections=[2]), name="sections-list-error"),
        case(lambda lib, x: x.tensor_split(sections=2.0), name="sections-float-error"),
        case(lambda lib, x: x.tensor_split(sections=True), name="sections-bool-error"),
        case(lambda lib, x: x.tensor_split(sections=0), name="sections-zero-error"),
        case(lambda lib, x: x.tensor_split(indices=[1], sections=2), name="two-error"),
        case(lambda lib, x: x.tensor_split(dim=1), name="none-error"),
        case(lambda lib, x: x.tensor_split(indices_or_sections=2), name="old-name-error"),
        case(lambda lib, x: x.tensor_split([1.5]), name="positional-float-error"),
    ]),
    OpSpec("detach", [case(lambda lib, x: x.detach())]),
    OpSpec("alias", [case(lambda lib, x: lib.ops.aten.alias(x) if hasattr(lib, "ops")
                          else x._alias())]),
    OpSpec("__getitem__", [
        case(lambda lib, x: x[1]),
        case(lambda lib, x: x[-1, 1:3]),
        case(lambda lib, x: x[:, ::2]),
        case(lambda lib, x: x[1:, 1::2]),
        case(lambda lib, x: x[None, :, None]),
        case(lambda lib, x: x[..., 1]),
        case(lambda lib, x: x[1, ..., None]),
        case(lambda lib, x: x[0, 2:, 1:7:2], make=x234, name="seed-example"),
        case(lambda lib, x: x[10:], name="empty-slice"),
        case(lambda lib, x: x[2:1], name="reversed-slice"),
        case(lambda lib, x: x[-10:2]),
        case(lambda lib, x: x[5], name="out-of-range"),
        case(lambda lib, x: x[1, 2, 3], name="too-many"),
        case(lambda lib, x: x[::0], name="zero-step"),
        case(lambda lib, x: x[::-1], name="negative-step"),
        case(lambda lib, x: x[0, 0][None], name="0d-none"),
        case(lambda lib, x: x[0, 0][...], name="0d-ellipsis"),
        case(lambda lib, x: x[..., ...], make=x234, name="two-ellipses"),
        case(lambda lib, x: x[..., 0, ...], make=x234, name="ellipsis-int-ellipsis"),
        case(lambda lib, x: x[None, ..., None, ...], make=x234, name="none-ellipses"),
        case(lambda lib, x: x[..., None], name="trailing-none"),
    ]),
    # In-place views: the tensor itself takes the new metadata (version bumped).
    OpSpec("t_", [
        case(lambda lib, x: x.t_()),
        case(lambda lib, x: (x, x.t_())[0], name="same-object"),
        case(lambda lib, x: x[0].t_(), name="1d"),
        case(lambda lib, x: x.t_(), make=x234, name="3d"),
        case(lambda lib, x: (lambda v: (v.t_(), x._version))(x[1:]), name="view-version"),
    ]),
    OpSpec("transpose_", [
        case(lambda lib, x: x.transpose_(0, 1)),
        case(lambda lib, x: x.swapaxes_(0, 2), make=x234),
        case(lambda lib, x: x.swapdims_(-1, 1), make=x234),
        case(lambda lib, x: x.transpose_(0, 2), name="bad-dim"),
        case(lambda lib, x: x.swapaxes_(axis0=0, axis1=2), make=x234, name="swapaxes-names"),
        case(lambda lib, x: x.swapaxes_(dim0=0, dim1=1), name="swapaxes-dim0-error"),
        case(lambda lib, x: x.swapdims_(dim0=0, dim1=1), name="swapdims-names"),
    ]),
    OpSpec("unsqueeze_", [
        case(lambda lib, x: x.unsqueeze_(1)),
        case(lambda lib, x: x.t().unsqueeze_(-1), name="transposed"),
        case(lambda lib, x: x.unsqueeze_(3), name="bad-dim"),
    ]),
    OpSpec("squeeze_", [
        case(lambda lib, x: x[:1].squeeze_()),
        case(lambda lib, x: x[:, :1].squeeze_(1), name="dim"),
        case(lambda lib, x: x[:1, :1].squeeze_((0, 1)), name="dims"),
        case(lambda lib, x: x.squeeze_(0), name="not-size-1"),
    ]),
    OpSpec("as_strided_", [
        case(lambda lib, x: x.as_strided_((2, 2), (1, 2), 1)),
        case(lambda lib, x: x.as_strided_((3, 3), (1, 1)), name="overlapping"),
        case(lambda lib, x: x.as_strided_((20,), (1,)), name="out-of-bounds"),
    ]),
]


# ------------------------------------------------ ravel, atleast_*d, adjoint, resolve_conj/neg
SPECS += [
    OpSpec("ravel", [
        case(lambda lib, x: x.ravel(), make=x234),
        case(lambda lib, x: lib.ravel(x.transpose(0, 1)), make=x234, name="copies"),
        case(lambda lib, x: x[:, ::2].ravel(), name="strided-view"),
        case(lambda lib, x: x[::2].ravel(), name="strided-copy"),
        case(lambda lib, x: x[0, 0].ravel(), name="0d"),
        case(lambda lib, x: x.int().ravel(), name="int"),
    ]),
    OpSpec("atleast_1d", [
        case(lambda lib, x: lib.atleast_1d(x[0, 0]), name="0d"),
        case(lambda lib, x: lib.atleast_1d(x[0]), name="1d-self"),
        case(lambda lib, x: lib.atleast_1d(x.t()), name="2d"),
        case(lambda lib, x: lib.atleast_1d(x[0, 0], x), name="several"),
        case(lambda lib, x: lib.atleast_1d([x[0, 0], x[0]]), name="list"),
        case(lambda lib: lib.atleast_1d(1.0), None, "number"),
        case(lambda lib: lib.atleast_1d(), None, "none"),
    ]),
    OpSpec("atleast_2d", [
        case(lambda lib, x: lib.atleast_2d(x[0, 0]), name="0d"),
        case(lambda lib, x: lib.atleast_2d(x[0]), name="1d"),
        case(lambda lib, x: lib.atleast_2d(x[0, ::2]), name="1d-strided"),
        case(lambda lib, x: lib.atleast_2d(x[0, :0]), name="1d-empty"),
        case(lambda lib, x: lib.atleast_2d(x.t()), name="2d-self"),
        case(lambda lib, x: lib.atleast_2d((x[0], x.int())), name="tuple"),
        case(lambda lib: lib.atleast_2d(1.0), None, "number"),
    ]),
    OpSpec("atleast_3d", [
        case(lambda lib, x: lib.atleast_3d(x[0, 0]), name="0d"),
        case(lambda lib, x: lib.atleast_3d(x[0]), name="1d"),
        case(lambda lib, x: lib.atleast_3d(x[:, 1]), name="1d-strided"),
        case(lambda lib, x: lib.atleast_3d(x[0, :0]), name="1d-empty"),
        case(lambda lib, x: lib.atleast_3d(x.t()), name="2d-transposed"),
        case(lambda lib, x: lib.atleast_3d(x), make=x234, name="3d-self"),
        case(lambda lib, x: lib.atleast_3d(x, x[0], x[0, 0]), name="several"),
        case(lambda lib: lib.atleast_3d(1.0), None, "number"),
    ]),
    OpSpec("adjoint", [
        case(lambda lib, x: x.adjoint()),
        case(lambda lib, x: lib.adjoint(x), make=x234, name="batched"),
        case(lambda lib, x: x.t().adjoint(), name="transposed"),
        case(lambda lib, x: x.int().adjoint(), name="int"),
        case(lambda lib, x: x[0, 0].adjoint(), name="0d"),
        case(lambda lib, x: x[0].adjoint(), name="1d"),
    ]),
    OpSpec("resolve_conj", [
        case(lambda lib, x: x.resolve_conj()),
        case(lambda lib, x: lib.resolve_conj(x.t()), name="transposed"),
        case(lambda lib, x: x.int().resolve_conj(), name="int"),
    ]),
    OpSpec("resolve_neg", [
        case(lambda lib, x: x.resolve_neg()),
        case(lambda lib, x: lib.resolve_neg(x[:, ::2]), name="strided"),
        case(lambda lib, x: (x > 0).resolve_neg(), name="bool"),
    ]),
]
