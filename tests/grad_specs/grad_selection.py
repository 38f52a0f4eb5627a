"""Gradient specs of the selection family (index/gather/scatter/masked ops, where, ordering,
the ``*_scatter`` ops). Index tensors are built inside the lambdas (``lib.tensor``)."""

import numpy as np

from tests.harness.gradients import G, NonDiff


def _f64(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64,
                      requires_grad=True)


def _with_zeros(shape_self, shape_src, zeros_self=(), zeros_src=()):
    """make(): self and src with exact zeros at the given flat positions (prod's cases)."""

    def make(lib, rng):
        a = rng.uniform(0.5, 1.5, size=shape_self) * rng.choice([-1, 1], size=shape_self)
        b = rng.uniform(0.5, 1.5, size=shape_src) * rng.choice([-1, 1], size=shape_src)
        a.reshape(-1)[list(zeros_self)] = 0.0
        b.reshape(-1)[list(zeros_src)] = 0.0
        return [_f64(lib, a), _f64(lib, b)]

    return make


def _mask(lib):
    return lib.tensor([[True, False, True], [False, False, True]])


def _idx(lib, values):
    return lib.tensor(values)


GRADS = [
    # ------------------------------------------------------------------ index_*
    G("index_select", lambda lib, a: a.index_select(1, _idx(lib, [2, 0, 2])), [(2, 3)]),
    G("index_select", lambda lib, a: lib.index_select(a, 0, _idx(lib, [1])), [(2, 3)]),
    G("index_add", lambda lib, a, s: a.index_add(0, _idx(lib, [2, 0, 2]), s, alpha=2),
      [(3, 2), (3, 2)]),
    G("index_add", lambda lib, a, s: lib.index_add(a, 1, _idx(lib, [1, 1]), s),
      [(2, 3), (2, 2)]),
    G("index_add_", lambda lib, a, s: a.clone().index_add_(0, _idx(lib, [2, 0, 2]), s),
      [(3, 2), (3, 2)], variants=False),
    G("index_copy", lambda lib, a, s: a.index_copy(0, _idx(lib, [2, 0]), s),
      [(3, 2), (2, 2)]),
    G("index_copy_", lambda lib, a, s: a.clone().index_copy_(1, _idx(lib, [1]), s),
      [(3, 2), (3, 1)], variants=False),
    G("index_fill", lambda lib, a: a.index_fill(1, _idx(lib, [0, 2]), 1.5), [(2, 3)]),
    G("index_fill", lambda lib, a, v: a.index_fill(1, _idx(lib, [0, 2, 0]), v),
      [(2, 3), ()]),
    G("index_fill_", lambda lib, a: a.clone().index_fill_(0, _idx(lib, [1]), -1.0),
      [(2, 3)], variants=False),
    G("index_fill_", lambda lib, a, v: a.clone().index_fill_(0, _idx(lib, [1]), v),
      [(2, 3), ()], variants=False),
    G("index_put", lambda lib, a, v: a.index_put((_idx(lib, [0, 2]),), v), [(3, 2), (2, 2)]),
    G("index_put", lambda lib, a, v: a.index_put((_idx(lib, [0, 2]),), v), [(3, 2), (2,)]),
    G("index_put", lambda lib, a, v: a.index_put(
        (_idx(lib, [0, 2, 0]), _idx(lib, [1, 1, 1])), v, accumulate=True), [(3, 2), (3,)]),
    G("index_put", lambda lib, a, v: a.index_put(
        (lib.tensor([[True, False], [False, True], [True, True]]),), v), [(3, 2), (4,)]),
    G("index_put_", lambda lib, a, v: a.clone().index_put_((_idx(lib, [1, 0]),), v),
      [(3, 2), (2, 2)], variants=False),
    G("index_put_", lambda lib, a, v: a.clone().index_put_(
        (_idx(lib, [1, 1]), _idx(lib, [0, 0])), v, True), [(3, 2), (2,)], variants=False),
    G("index_reduce", lambda lib, a, s: a.index_reduce(0, _idx(lib, [2, 0, 2]), s, "prod"),
      [(3, 2), (3, 2)]),
    G("index_reduce", lambda lib, a, s: a.index_reduce(0, _idx(lib, [2, 0, 2]), s, "prod"),
      make=_with_zeros((3, 2), (3, 2), zeros_self=(4,), zeros_src=(0, 3))),
    G("index_reduce", lambda lib, a, s: a.index_reduce(1, _idx(lib, [1, 1]), s, "prod",
                                                         include_self=False),
      make=_with_zeros((2, 3), (2, 2), zeros_src=(1,))),
    G("index_reduce", lambda lib, a, s: a.index_reduce(0, _idx(lib, [2, 0, 2]), s, "mean"),
      [(3, 2), (3, 2)]),
    G("index_reduce", lambda lib, a, s: a.index_reduce(0, _idx(lib, [2, 0, 2]), s, "mean",
                                                         include_self=False),
      [(3, 2), (3, 2)]),
    G("index_reduce", lambda lib, a, s: a.index_reduce(0, _idx(lib, [2, 0, 2]), s, "amax"),
      [(3, 2), (3, 2)]),
    G("index_reduce", lambda lib, a, s: a.index_reduce(1, _idx(lib, [0, 0]), s, "amin",
                                                         include_self=False),
      [(2, 3), (2, 2)]),
    G("index_reduce_", lambda lib, a, s: a.clone().index_reduce_(
        0, _idx(lib, [2, 0, 2]), s, "amax"), [(3, 2), (3, 2)], variants=False),
    G("index_reduce_", lambda lib, a, s: a.clone().index_reduce_(
        0, _idx(lib, [1, 1, 1]), s, "prod", include_self=False), [(3, 2), (3, 2)],
      variants=False),
    # ------------------------------------------------------------------ gather / scatter
    G("gather", lambda lib, a: a.gather(1, _idx(lib, [[0, 0], [2, 1]])), [(2, 3)]),
    G("gather", lambda lib, a: lib.gather(a, 0, _idx(lib, [[1, 0, 1]])), [(2, 3)]),
    G("scatter", lambda lib, a, s: a.scatter(1, _idx(lib, [[0, 2], [1, 0]]), s),
      [(2, 3), (2, 2)]),
    G("scatter", lambda lib, a: a.scatter(1, _idx(lib, [[0, 2], [1, 0]]), 1.5), [(2, 3)]),
    G("scatter", lambda lib, a: lib.scatter(a, 0, _idx(lib, [[1, 0, 1]]), value=-2.0),
      [(2, 3)]),
    G("scatter_", lambda lib, a, s: a.clone().scatter_(1, _idx(lib, [[0, 2], [1, 0]]), s),
      [(2, 3), (2, 2)], variants=False),
    G("scatter_", lambda lib, a: a.clone().scatter_(0, _idx(lib, [[1, 0, 1]]), 0.5),
      [(2, 3)], variants=False),
    G("scatter_add", lambda lib, a, s: a.scatter_add(1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s),
      [(2, 3), (2, 3)]),
    G("scatter_add", lambda lib, a, s: lib.scatter_add(a, 0, _idx(lib, [[1, 1]]), s),
      [(2, 3), (1, 2)]),
    G("scatter_add_", lambda lib, a, s: a.clone().scatter_add_(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s), [(2, 3), (2, 3)], variants=False),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "sum"), [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "sum", include_self=False), [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "prod"), [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "prod"),
      make=_with_zeros((2, 3), (2, 3), zeros_self=(0,), zeros_src=(3,))),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "prod", include_self=False),
      make=_with_zeros((2, 3), (2, 3), zeros_src=(1,))),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "mean"), [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "mean", include_self=False),
      [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "amax"), [(2, 3), (2, 3)]),
    G("scatter_reduce", lambda lib, a, s: a.scatter_reduce(
        0, _idx(lib, [[1, 1, 0]]), s, "amin", include_self=False), [(2, 3), (1, 3)]),
    G("scatter_reduce_", lambda lib, a, s: a.clone().scatter_reduce_(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "amin"), [(2, 3), (2, 3)], variants=False),
    G("scatter_reduce_", lambda lib, a, s: a.clone().scatter_reduce_(
        1, _idx(lib, [[0, 0, 2], [1, 1, 1]]), s, "mean", include_self=False),
      [(2, 3), (2, 3)], variants=False),
    G("take", lambda lib, a: a.take(_idx(lib, [[0, 5], [5, 2]])), [(2, 3)]),
    G("take", lambda lib, a: lib.take(a, _idx(lib, [-1, 0])), [(2, 3)]),
    G("take_along_dim", lambda lib, a: a.take_along_dim(_idx(lib, [[0, 2], [1, 1]]), 1),
      [(2, 3)]),
    # (no layout variants: without a dim PyTorch views the input as 1-d, which an expanded or
    # overlapping input refuses; tests/specs/spec_selection.py checks that error)
    G("take_along_dim", lambda lib, a: lib.take_along_dim(a, _idx(lib, [0, 5, 5])), [(2, 3)],
      variants=False),
    G("take_along_dim", lambda lib, a: lib.take_along_dim(a, _idx(lib, [[0, 2]]), dim=-1),
      [(2, 3)]),
    G("take_along_dim", lambda lib, a: lib.take_along_dim(a, _idx(lib, [[0, 2], [1, 1]]), 1),
      [(1, 3)]),
    G("put", lambda lib, a, s: a.put(_idx(lib, [0, 5]), s), [(2, 3), (2,)]),
    G("put", lambda lib, a, s: a.put(_idx(lib, [[0, 5], [0, 1]]), s, accumulate=True),
      [(2, 3), (2, 2)]),
    G("put_", lambda lib, a, s: a.clone().put_(_idx(lib, [4, -1]), s), [(2, 3), (2,)],
      variants=False),
    G("put_", lambda lib, a, s: a.clone().put_(_idx(lib, [4, 4]), s, True), [(2, 3), (2,)],
      variants=False),
    # ------------------------------------------------------------------ masks, where
    G("masked_select", lambda lib, a: a.masked_select(_mask(lib)), [(2, 3)]),
    G("masked_select", lambda lib, a: lib.masked_select(a, lib.tensor([True, False, True])),
      [(2, 3)]),
    G("masked_select", lambda lib, a: lib.masked_select(a, _mask(lib)), [(3,)]),
    G("masked_fill", lambda lib, a: a.masked_fill(_mask(lib), 0.5), [(2, 3)]),
    G("masked_fill", lambda lib, a, v: a.masked_fill(_mask(lib), v), [(2, 3), ()]),
    G("masked_fill", lambda lib, a: a.masked_fill(_mask(lib), -1.0), [(3,)]),
    G("masked_fill_", lambda lib, a: a.clone().masked_fill_(_mask(lib), 0.5), [(2, 3)],
      variants=False),
    G("masked_fill_", lambda lib, a, v: a.clone().masked_fill_(lib.tensor([False, True, True]),
                                                               v), [(2, 3), ()],
      variants=False),
    G("masked_scatter", lambda lib, a, s: a.masked_scatter(_mask(lib), s), [(2, 3), (2, 3)]),
    G("masked_scatter", lambda lib, a, s: a.masked_scatter(lib.tensor([True, False, True]), s),
      [(2, 3), (4,)]),
    G("masked_scatter_", lambda lib, a, s: a.clone().masked_scatter_(_mask(lib), s),
      [(2, 3), (3,)], variants=False),
    G("where", lambda lib, a, b: lib.where(_mask(lib), a, b), [(2, 3), (3,)]),
    G("where", lambda lib, a: lib.where(_mask(lib), a, 0.5), [(2, 3)]),
    G("where", lambda lib, a, b: a.where(lib.tensor([True, False, True]), b), [(2, 3), (2, 1)]),
    # ------------------------------------------------------------------ ordering
    G("sort", lambda lib, a: a.sort(1)[0], [(2, 3)]),
    G("sort", lambda lib, a: lib.sort(a, dim=0, descending=True).values, [(3, 2)]),
    G("sort", lambda lib, a: a.sort(dim=0, stable=True)[0], [(3, 2)]),
    G("msort", lambda lib, a: a.msort(), [(3, 2)]),
    G("msort", lambda lib, a: lib.msort(a), [(4,)]),
    G("topk", lambda lib, a: a.topk(2, dim=1)[0], [(2, 3)]),
    G("topk", lambda lib, a: lib.topk(a, 2, dim=0, largest=False).values, [(3, 2)]),
    G("kthvalue", lambda lib, a: a.kthvalue(2, 1)[0], [(2, 3)]),
    G("kthvalue", lambda lib, a: lib.kthvalue(a, 1, 0, keepdim=True).values, [(3, 2)]),
    # PyTorch has no derivative for unique (its backward raises); check that the op runs on
    # an input requiring grad and that its integer outputs feed a differentiable path.
    G("unique", lambda lib, a: a * a.unique(return_inverse=True)[1].to(lib.float64),
      [(2, 3)]),
    G("unique", lambda lib, a: a * a.unique(dim=0, return_counts=True)[1].sum().to(
        lib.float64), [(2, 3)]),
    NonDiff("argsort", "integer indices"),
    NonDiff("nonzero", "integer indices"),
    NonDiff("argwhere", "integer indices"),
    NonDiff("apply_", "a Python callback: PyTorch refuses tensors requiring grad"),
    NonDiff("map_", "a Python callback: PyTorch refuses tensors requiring grad"),
    # ------------------------------------------------------------------ *_scatter
    G("diagonal_scatter", lambda lib, a, s: a.diagonal_scatter(s, 1), [(3, 4), (3,)]),
    G("diagonal_scatter", lambda lib, a, s: lib.diagonal_scatter(a, s, -1, 1, 0),
      [(3, 4), (3,)]),
    G("select_scatter", lambda lib, a, s: a.select_scatter(s, 1, 2), [(2, 3), (2,)]),
    G("select_scatter", lambda lib, a, s: lib.select_scatter(a, s, 0, -1), [(2, 3), (3,)]),
    G("slice_scatter", lambda lib, a, s: a.slice_scatter(s, 1, 0, 3, 2), [(2, 4), (2, 2)]),
    G("slice_scatter", lambda lib, a, s: lib.slice_scatter(a, s, start=1), [(3, 2), (2, 2)]),
    G("slice_scatter", lambda lib, a, s: lib.slice_scatter(a, s, dim=-1, end=-1),
      [(2, 3), (2, 2)]),
]
