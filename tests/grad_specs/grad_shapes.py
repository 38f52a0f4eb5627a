from tests.harness.gradients import G


def _uc(lib, a):
    """unique_consecutive records UniqueConsecutiveBackward0 whose backward raises
    NotImplementedError in PyTorch; the spec checks that, then hands back a harmless output."""
    u = lib.unique_consecutive(a)
    if not (lib.is_grad_enabled() and a.requires_grad):
        return a * 1
    assert u.grad_fn is not None and u.grad_fn.name() == "UniqueConsecutiveBackward0"
    try:
        u.sum().backward()
    except NotImplementedError as e:
        assert "unique_consecutive" in str(e)
    else:
        raise AssertionError("unique_consecutive backward did not raise")
    return a * 1


def _ri_tensor(lib, a):
    return a.repeat_interleave(lib.tensor([1, 0, 2]), dim=1)


def _ri_tensor_flat(lib, a):
    return a.repeat_interleave(lib.tensor(2))


def _atleast_mixed(lib, a, b):
    # a is 0-d, b is 2-d (handed back unchanged, keeps being a leaf).
    return lib.atleast_2d([a.sum(), b])


GRADS = [
    # joining
    G("cat", lambda lib, a, b: lib.cat([a, b]), [(2, 3), (1, 3)]),
    G("cat", lambda lib, a, b: lib.cat((a, b), dim=-1), [(2, 3), (2, 2)]),
    G("cat", lambda lib, a, b: lib.cat([a, b, a], 1), [(2, 2), (2, 1)]),
    G("cat", lambda lib, a, b: lib.cat([a, b]), [(2, 3), (0,)]),
    G("concat", lambda lib, a, b: lib.concat([a, b], dim=1), [(2, 3), (2, 1)]),
    G("concatenate", lambda lib, a, b: lib.concatenate([a, b], axis=0), [(2, 3), (1, 3)]),
    G("concatenate", lambda lib, a, b: lib.concatenate([a, b], dim=1), [(2, 3), (2, 1)]),
    G("stack", lambda lib, a, b: lib.stack([a, b]), [(2, 3), (2, 3)]),
    G("stack", lambda lib, a, b: lib.stack([a, b], dim=-1), [(2, 3), (2, 3)]),
    G("stack", lambda lib, a, b: lib.stack((a, b, a), 1), [(2, 2), (2, 2)]),
    G("hstack", lambda lib, a, b: lib.hstack([a, b]), [(2, 3), (2, 1)]),
    G("hstack", lambda lib, a, b: lib.hstack([a, b]), [(3,), ()]),
    G("vstack", lambda lib, a, b: lib.vstack([a, b]), [(2, 3), (3,)]),
    G("dstack", lambda lib, a, b: lib.dstack([a, b]), [(2, 3), (2, 3)]),
    G("dstack", lambda lib, a, b: lib.dstack([a, b]), [(3,), (3,)]),
    G("column_stack", lambda lib, a, b: lib.column_stack([a, b]), [(3, 2), (3,)]),
    G("column_stack", lambda lib, a, b: lib.column_stack([a, b]), [(), ()]),
    # repeating
    G("repeat", lambda lib, a: a.repeat(2, 1), [(2, 3)]),
    G("repeat", lambda lib, a: a.repeat(2, 1, 2), [(2, 3)]),
    G("repeat", lambda lib, a: a.repeat((3, 2)), [(2,)]),
    G("tile", lambda lib, a: a.tile((2,)), [(2, 3)]),
    G("tile", lambda lib, a: lib.tile(a, (2, 1, 2)), [(3,)]),
    G("tile", lambda lib, a: a.tile((1, 1)), [(2, 3)]),
    G("repeat_interleave", lambda lib, a: a.repeat_interleave(2), [(2, 3)]),
    G("repeat_interleave", lambda lib, a: a.repeat_interleave(2, dim=0), [(2, 3)]),
    G("repeat_interleave", lambda lib, a: lib.repeat_interleave(a, 3, dim=-1), [(2, 2)]),
    G("repeat_interleave", _ri_tensor, [(2, 3)]),
    G("repeat_interleave", _ri_tensor_flat, [(2, 3)]),
    # rearranging
    G("flip", lambda lib, a: a.flip(0), [(2, 3)]),
    G("flip", lambda lib, a: lib.flip(a, (0, -1)), [(2, 3)]),
    G("fliplr", lambda lib, a: a.fliplr(), [(2, 3)]),
    G("flipud", lambda lib, a: lib.flipud(a), [(2, 3)]),
    G("roll", lambda lib, a: a.roll(1, 0), [(2, 3)]),
    G("roll", lambda lib, a: a.roll(-4), [(2, 3)]),
    G("roll", lambda lib, a: lib.roll(a, (1, 2), (0, 1)), [(2, 3)]),
    G("rot90", lambda lib, a: a.rot90(), [(2, 3)]),
    G("rot90", lambda lib, a: a.rot90(2, [1, 0]), [(2, 3)]),
    G("rot90", lambda lib, a: lib.rot90(a, -1, (0, 1)), [(2, 3)]),
    G("rot90", lambda lib, a: a.rot90(0), [(2, 3)]),
    G("tril", lambda lib, a: a.tril(), [(3, 3)]),
    G("tril", lambda lib, a: lib.tril(a, -1), [(3, 4)]),
    G("triu", lambda lib, a: a.triu(1), [(3, 3)]),
    G("triu", lambda lib, a: lib.triu(a), [(2, 2, 3)]),
    G("tril_", lambda lib, a: a.clone().tril_(), [(3, 3)], variants=False),
    G("tril_", lambda lib, a: (a * 1)[:, 1:].tril_(1), [(3, 3)], variants=False),
    G("triu_", lambda lib, a: a.clone().triu_(-1), [(3, 3)], variants=False),
    # diagonals
    G("diag", lambda lib, a: lib.diag(a), [(3,)]),
    G("diag", lambda lib, a: a.diag(1), [(3,)]),
    G("diag", lambda lib, a: lib.diag(a), [(3, 3)]),
    G("diag", lambda lib, a: a.diag(1), [(2, 4)]),
    G("diag", lambda lib, a: a.diag(-1), [(4, 2)]),
    G("diag_embed", lambda lib, a: lib.diag_embed(a), [(2, 3)]),
    G("diag_embed", lambda lib, a: a.diag_embed(1, 0, 2), [(2, 2)]),
    G("block_diag", lambda lib, a, b: lib.block_diag(a, b), [(2, 2), (3,)]),
    G("block_diag", lambda lib, a, b, c: lib.block_diag(a, b, c), [(2, 1), (), (1, 2)]),
    # views and aliases
    G("ravel", lambda lib, a: a.ravel(), [(2, 3)]),
    G("ravel", lambda lib, a: a.t().ravel(), [(2, 3)]),
    G("atleast_1d", lambda lib, a: lib.atleast_1d(a), [()]),
    G("atleast_1d", lambda lib, a, b: lib.atleast_1d(a, b), [(), ()]),
    G("atleast_2d", lambda lib, a: lib.atleast_2d(a), [(3,)]),
    G("atleast_2d", lambda lib, a: lib.atleast_2d(a), [()]),
    G("atleast_2d", _atleast_mixed, [(2,), (2, 2)]),
    G("atleast_3d", lambda lib, a: lib.atleast_3d(a), [(3,)]),
    G("atleast_3d", lambda lib, a: lib.atleast_3d(a), [(2, 3)]),
    G("atleast_3d", lambda lib, a, b: lib.atleast_3d([a, b]), [(2, 3), (2,)]),
    G("adjoint", lambda lib, a: a.adjoint(), [(2, 3)]),
    G("adjoint", lambda lib, a: lib.adjoint(a), [(2, 2, 3)]),
    G("resolve_conj", lambda lib, a: a.resolve_conj() * 2, [(2, 3)]),
    G("resolve_neg", lambda lib, a: lib.resolve_neg(a) * 2, [(2, 3)]),
    G("meshgrid", lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"), [(3,), (2,)]),
    G("meshgrid", lambda lib, a, b: lib.meshgrid([a, b], indexing="xy"), [(3,), (2,)]),
    G("meshgrid", lambda lib, a, b, c: lib.meshgrid(a, b, c, indexing="xy"),
      [(2,), (), (3,)]),
    G("meshgrid", lambda lib, a, b: lib.meshgrid(a, b, indexing="ij")[1], [(3,), (2,)]),
    # copies
    G("narrow_copy", lambda lib, a: a.narrow_copy(1, 1, 2), [(2, 3)]),
    G("narrow_copy", lambda lib, a: lib.narrow_copy(a, 0, -2, 1), [(3, 2)]),
    G("sum_to_size", lambda lib, a: a.sum_to_size(1, 3), [(2, 3)]),
    G("sum_to_size", lambda lib, a: a.sum_to_size((3,)), [(2, 3)]),
    G("sum_to_size", lambda lib, a: a.sum_to_size(2, 1), [(2, 2, 3)]),
    G("cartesian_prod", lambda lib, a, b: lib.cartesian_prod(a, b), [(3,), (2,)]),
    G("cartesian_prod", lambda lib, a, b, c: lib.cartesian_prod(a, b, c), [(2,), (1,), (3,)]),
    G("cartesian_prod", lambda lib, a: lib.cartesian_prod(a) * 1, [(3,)]),
    G("combinations", lambda lib, a: lib.combinations(a), [(4,)]),
    G("combinations", lambda lib, a: lib.combinations(a, 3, with_replacement=True), [(3,)]),
    G("combinations", lambda lib, a: lib.combinations(a, 1), [(3,)]),
    G("combinations", lambda lib, a: lib.combinations(a), [(1,)]),
    G("combinations", lambda lib, a: (lib.combinations(a, 0), a * 1), [(3,)]),
    # PyTorch 2.13's own vander backward raises ("modified by an inplace operation": its
    # cumprod_out into a slice of the result), so these compare with gradcheck only; the
    # node names (FlipBackward0, torch::autograd::CopySlices when increasing) are PyTorch's.
    G("vander", lambda lib, a: lib.vander(a), [(3,)], torch=False, name="FlipBackward0"),
    G("vander", lambda lib, a: lib.vander(a, N=4, increasing=True), [(3,)], torch=False,
      name="torch::autograd::CopySlices"),
    G("vander", lambda lib, a: lib.vander(a, 2), [(3,)], torch=False, name="FlipBackward0"),
    G("vander", lambda lib, a: (lib.vander(a, N=1), a * 1), [(3,)]),
    G("unique_consecutive", _uc, [(4,)], variants=False),
]
