from tests.harness.gradients import G, NonDiff


def _seq_view_write(lib, a):
    # b = a*1; v = b.view(2,2); v[:,0] = 5: the base's history becomes CopySlices.
    b = a * 1
    v = b.view(2, 2)
    v[:, 0] = 5
    return b


def _seq_view_write_tensor(lib, a, c):
    b = a * 1
    v = b.view(2, 2)
    v[:, 0] = c
    return b, v


def _seq_view_inplace(lib, a):
    b = a * 1
    v = b[1:]
    v.mul_(2)
    return b


GRADS = [
    # reshapes
    G("view_as", lambda lib, a: a.view_as(lib.empty(3, 2)), [(2, 3)], variants=False),
    G("reshape", lambda lib, a: a.reshape(3, 2), [(2, 3)]),
    G("reshape", lambda lib, a: a.t().reshape(-1), [(2, 3)]),
    G("reshape", lambda lib, a: a.t().reshape(3, 2, 1), [(2, 3)]),
    G("reshape_as", lambda lib, a: a.reshape_as(lib.empty(6)), [(2, 3)]),
    G("flatten", lambda lib, a: a.flatten(), [(2, 3)]),
    G("flatten", lambda lib, a: a.flatten(1), [(2, 2, 3)], variants=False),
    G("flatten", lambda lib, a: a.transpose(0, 1).flatten(1), [(2, 2, 3)], variants=False),
    G("unflatten", lambda lib, a: a.unflatten(1, (3, 1)), [(2, 3)]),
    G("squeeze", lambda lib, a: a.squeeze(), [(2, 1, 3)], variants=False),
    G("squeeze", lambda lib, a: a.squeeze(1), [(2, 1, 3)], variants=False),
    G("squeeze", lambda lib, a: a.squeeze((1, 3)), [(2, 1, 3, 1)], variants=False),
    G("unsqueeze", lambda lib, a: a.unsqueeze(1), [(2, 3)]),
    G("unsqueeze", lambda lib, a: a.unsqueeze(-1), [(2, 3)]),
    # dim shuffles
    G("permute", lambda lib, a: a.permute(2, 0, 1), [(2, 3, 2)], variants=False),
    G("permute", lambda lib, a: a.permute((1, 0)), [(2, 3)]),
    G("transpose", lambda lib, a: a.transpose(0, 1), [(2, 3)]),
    G("transpose", lambda lib, a: lib.swapaxes(a, axis0=1, axis1=0), [(2, 3)]),
    G("t", lambda lib, a: a.t(), [(2, 3)]),
    G("t", lambda lib, a: a.t(), [(3,)]),
    G("movedim", lambda lib, a: a.movedim(0, 2), [(2, 3, 2)], variants=False),
    G("movedim", lambda lib, a: a.movedim((0, 1), (1, 0)), [(2, 3)]),
    G("alias", lambda lib, a: lib.ops.aten.alias(a) if lib.__name__ == "torch" else a._alias(),
      [(2, 3)]),
    # expands
    G("expand_as", lambda lib, a: a.expand_as(lib.empty(2, 2, 3)), [(2, 3)]),
    G("broadcast_to", lambda lib, a: a.broadcast_to((2, 3, 3)), [(3, 1)]),
    G("broadcast_tensors", lambda lib, a, b: lib.broadcast_tensors(a, b), [(2, 1), (3,)]),
    # sub-ranges
    G("select", lambda lib, a: a.select(1, 1), [(2, 3)]),
    G("select", lambda lib, a: a.select(0, -1), [(2, 3)]),
    G("narrow", lambda lib, a: a.narrow(1, 1, 2), [(2, 3)]),
    G("diagonal", lambda lib, a: a.diagonal(), [(3, 3)]),
    G("diagonal", lambda lib, a: a.diagonal(1), [(3, 4)]),
    G("diagonal", lambda lib, a: a.diagonal(-1, 0, 2), [(3, 2, 2)], variants=False),
    G("unfold", lambda lib, a: a.unfold(0, 3, 1), [(5,)]),
    G("unfold", lambda lib, a: a.unfold(1, 2, 2), [(2, 5)]),
    G("unbind", lambda lib, a: a.unbind(1), [(2, 3)]),
    G("unbind", lambda lib, a: a.unbind(0)[1], [(2, 3)]),
    G("split", lambda lib, a: a.split(2, 1), [(2, 5)]),
    G("split", lambda lib, a: a.split([1, 2], 0), [(3, 2)]),
    G("split", lambda lib, a: a.split(split_size=2, dim=1), [(2, 5)]),
    G("split", lambda lib, a: a.split(2, 1)[1], [(2, 5)]),
    G("chunk", lambda lib, a: a.chunk(2, 1), [(2, 3)]),
    G("tensor_split", lambda lib, a: a.tensor_split(3, 1), [(2, 4)]),
    G("tensor_split", lambda lib, a: a.tensor_split([1, 3], 0), [(4, 2)]),
    G("tensor_split", lambda lib, a: a.tensor_split(sections=3, dim=1), [(2, 4)]),
    G("tensor_split", lambda lib, a: lib.tensor_split(a, indices=[1, 3]), [(4, 2)]),
    G("tensor_split", lambda lib, a: a.tensor_split(tensor_indices_or_sections=lib.tensor([2]),
                                                    dim=1), [(2, 4)]),
    # indexing
    G("__getitem__", lambda lib, a: a[1], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[:, 1:], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[0:2], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[None, :, ::2], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[..., 0], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[...], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[1:, None], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[(0, 1)], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[lib.tensor([0, 0, 1])], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[:, lib.tensor([2, 0, 2])], [(2, 3)]),
    G("__getitem__", lambda lib, a: a[lib.tensor([[True, False, True], [False, True, True]])],
      [(2, 3)]),
    G("__getitem__", lambda lib, a: a[lib.tensor([1, 0]), 1:], [(2, 3)]),
    G("__setitem__", lambda lib, a: _setitem(a * 1, 0, 5.0), [(2, 3)], variants=False),
    G("__setitem__", lambda lib, a, v: _setitem(a * 1, (slice(None), 1), v), [(2, 3), (2,)],
      variants=False),
    G("__setitem__", lambda lib, a, v: _setitem(a * 1, (slice(None), slice(1, None)), v),
      [(2, 3), (1,)], variants=False),
    G("__setitem__", lambda lib, a, v: _setitem(a * 1, Ellipsis, v), [(2, 3), (3,)],
      variants=False),
    G("__setitem__", lambda lib, a: _setitem(a * 1, slice(None), 2.0), [(2, 3)],
      variants=False),
    G("__setitem__", lambda lib, a, v: _setitem(a * 1, lib.tensor([1, 0]), v), [(3, 2), (2, 2)],
      variants=False),
    G("__setitem__", lambda lib, a, v: _setitem(a * 1, a.detach() > 0, v), [(2, 3), ()],
      variants=False),
    G("__setitem__", lambda lib, v: _setitem(lib.zeros(2, 3, dtype=lib.float64), 1, v), [(3,)],
      variants=False),
    G("__setitem__", _seq_view_write, [(4,)], variants=False),
    G("__setitem__", _seq_view_write_tensor, [(4,), (2,)], variants=False),
    G("mul_", _seq_view_inplace, [(3,)], variants=False),
    # copies
    G("contiguous", lambda lib, a: a.t().contiguous(), [(2, 3)]),
    G("clone", lambda lib, a: a.clone(), [(2, 3)]),
    # A float32 output: its grad_output is float32 too, and a 1e-6 step on it is lost to
    # rounding (~6% at 1.0), so the second-order check steps by 1e-3 (the map is linear).
    G("to", lambda lib, a: a.to(lib.float32), [(2, 3)], low=-1e-3, high=1e-3,
      atol=1e-2, rtol=1e-2, eps=1e-3),
    G("to", lambda lib, a: a.to(lib.float64, copy=True), [(2, 3)]),
    G("to", lambda lib, a: a.to(lib.complex128).real, [(2, 3)], variants=False),
    G("copy_", lambda lib, a, b: (a * 1).copy_(b), [(2, 3), (3,)], variants=False),
    G("copy_", lambda lib, a, b: (a * 1).copy_(other=b), [(2, 3), (3,)], variants=False),
    G("copy_", lambda lib, b: lib.zeros(2, 3, dtype=lib.float64).copy_(b), [(2, 3)],
      variants=False),
    G("copy_", lambda lib, a, b: (a * 1)[0].copy_(b), [(2, 3), (3,)], variants=False),
    G("fill_", lambda lib, a: (a * 1).fill_(2.0), [(2, 3)], variants=False),
    G("fill_", lambda lib, a, v: (a * 1).fill_(v), [(2, 3), ()], variants=False),
    G("fill_", lambda lib, a: (a * 1)[:, 1].fill_(2.0), [(2, 3)], variants=False),
    G("zero_", lambda lib, a: (a * 1).zero_(), [(2, 3)], variants=False),
    G("zero_", lambda lib, a: _zero_part(a), [(2, 3)], variants=False),
    NonDiff("resize_", "PyTorch refuses to resize a tensor that requires grad"),
    NonDiff("resize_as_", "PyTorch refuses to resize a tensor that requires grad"),
]


def _setitem(x, key, value):
    x[key] = value
    return x


def _zero_part(a):
    b = a * 1
    b[1].zero_()
    return b


# set_ has no derivative in PyTorch either (its node is "NotImplemented" and backward
# raises); the case checks that a set_ with no grad input leaves the rest of the graph alone.
GRADS.append(G("set_", lambda lib, a: _set_then(lib, a), [(2, 3)], variants=False))


def _set_then(lib, a):
    x = lib.empty(0, dtype=lib.float64).set_(a.detach() * 1)
    assert not x.requires_grad
    return a * 1
