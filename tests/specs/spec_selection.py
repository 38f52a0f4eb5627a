"""Specs of selection, scatter, joining, reordering, sorting and searching ops (values, dtypes,
layouts, errors and storage sharing compared with PyTorch)."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_softmax import case as auto  # make=None when the run takes only lib

DISTINCT = np.array([[3.0, 1, 2, 0], [5, 4, -1, 7], [2.5, 6, 9, 8]], dtype=np.float32)


def x34(lib):
    return T(lib, arr(3, 4))


def d34(lib):
    return T(lib, DISTINCT)


def dt(lib):  # transposed, non-contiguous, distinct values
    return T(lib, DISTINCT).t()


def x234(lib):
    return T(lib, arr(2, 3, 4))


def ix(lib, values, dtype=None):
    out = lib.tensor(values)
    return out if dtype is None else out.to(getattr(lib, dtype))


def scalar(lib, value):
    return lib.tensor([value])[0]


def case(run, make=x34, name="", **kw):
    return Case(run, make=make, name=name, **kw)


ROWMASK = [True, False, True, False]


def inplace(fn):
    """Run an in-place op and return the modified tensor with its version."""

    def run(lib, x):
        out = fn(lib, x)
        return out, x._version

    return run


SPECS = [
    OpSpec("masked_select", [
        case(lambda lib, x: lib.masked_select(x, ix(lib, ROWMASK))),
        case(lambda lib, x: x.t().masked_select(ix(lib, [True, False, True])), name="transposed"),
        case(lambda lib, x: x.masked_select(ix(lib, [1, 0, 1, 0], "uint8")), name="uint8-mask"),
        case(lambda lib, x: x.masked_select(ix(lib, [False] * 4)), name="empty"),
        case(lambda lib, x: lib.masked_select(x, ix(lib, ROWMASK), out=lib.zeros(0)), name="out"),
    ]),
    OpSpec("masked_fill", [
        case(lambda lib, x: x.masked_fill(ix(lib, ROWMASK), 0.5)),
        case(lambda lib, x: x.t().masked_fill(ix(lib, [True, False, True]), -1),
             name="transposed"),
        case(lambda lib, x: lib.masked_fill(x, ix(lib, ROWMASK), scalar(lib, 2.0)), name="0d"),
        case(lambda lib, x: x.masked_fill(ix(lib, ROWMASK), lib.ones(2)), name="1d-value"),
        case(lambda lib, x: x.masked_fill(ix(lib, [1, 0, 1, 0], "uint8"), 0.5), name="uint8"),
        case(lambda lib, x: x.to(lib.int8).masked_fill(ix(lib, ROWMASK), 300), name="overflow"),
        case(lambda lib, x: x[0].masked_fill(ix(lib, [[True], [False]]), 1.0), name="broadcast"),
    ]),
    OpSpec("masked_fill_", [
        case(inplace(lambda lib, x: x.masked_fill_(ix(lib, ROWMASK), 0.5))),
        case(inplace(lambda lib, x: x.masked_fill_(ix(lib, [[True]] * 2), 0.5)),
             name="cannot-broadcast-self"),
        case(inplace(lambda lib, x: x.to(lib.int32).masked_fill_(ix(lib, ROWMASK), 2.7)),
             name="int-truncates"),
    ]),
    OpSpec("masked_scatter", [
        case(lambda lib, x: x.masked_scatter(ix(lib, ROWMASK), lib.arange(12.0))),
        case(lambda lib, x: x.masked_scatter(ix(lib, ROWMASK), lib.arange(2.0)), name="short"),
        case(lambda lib, x: x.masked_scatter(ix(lib, ROWMASK), lib.arange(12)), name="dtype"),
    ]),
    OpSpec("masked_scatter_", [
        case(inplace(lambda lib, x: x.masked_scatter_(ix(lib, ROWMASK), lib.arange(12.0)))),
    ]),
    OpSpec("index_select", [
        case(lambda lib, x: x.index_select(1, ix(lib, [3, 0, 0]))),
        case(lambda lib, x: x.t().index_select(0, ix(lib, [3, 0])), name="transposed"),
        case(lambda lib, x: lib.index_select(x, -1, ix(lib, [1], "int32")), name="int32"),
        case(lambda lib, x: x.index_select(1, ix(lib, [4])), name="out-of-range"),
        case(lambda lib, x: x.index_select(1, ix(lib, [1.0])), name="float-index"),
        case(lambda lib, x: x.index_select(0, ix(lib, [], "int64")), name="empty"),
        case(lambda lib, x: lib.index_select(x, 0, ix(lib, [2]), out=lib.zeros(0)), name="out"),
        # A 0-d input takes exactly one index (0) and gives a 0-d result.
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [0, 0])), name="0d-two-indices"),
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [], "int64")),
             name="0d-no-index"),
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [0])), name="0d-one-index"),
        case(lambda lib, x: x[1, 2].index_select(-1, ix(lib, 0)), name="0d-0d-index"),
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [1])), name="0d-out-of-range"),
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [[0]])), name="0d-matrix-index"),
        case(lambda lib, x: x[1, 2].index_select(0, ix(lib, [0.0, 1.0])),
             name="0d-float-index-count-first"),
        # Negative indices are refused; the error type depends on the CPU kernel taken.
        case(lambda lib, x: x.index_select(0, ix(lib, [-1])), name="negative-dim0"),
        case(lambda lib, x: x.index_select(1, ix(lib, [-1])), name="negative-dim1"),
        case(lambda lib, x: x[0].index_select(0, ix(lib, [4])), name="1d-out-of-range"),
        case(lambda lib, x: x.index_select(0, ix(lib, [3])), name="dim0-out-of-range"),
    ]),
    OpSpec("gather", [
        case(lambda lib, x: x.gather(0, ix(lib, [[0, 1, 2, 0], [2, 0, 1, 1]]))),
        case(lambda lib, x: x.t().gather(1, ix(lib, [[0], [2], [1], [0]])), name="transposed"),
        case(lambda lib, x: lib.gather(x, -1, ix(lib, [[3, 3]])), name="negative-dim"),
        case(lambda lib, x: x.gather(0, ix(lib, [[5]])), name="out-of-bounds"),
        case(lambda lib, x: x.gather(0, ix(lib, [0])), name="dims-mismatch"),
        case(lambda lib, x: x.gather(0, ix(lib, [[0.0]])), name="float-index"),
    ]),
    OpSpec("scatter", [
        case(lambda lib, x: x.scatter(0, ix(lib, [[0, 1, 2, 0], [2, 0, 1, 1]]), -lib.ones(2, 4))),
        case(lambda lib, x: x.scatter(1, ix(lib, [[0], [1], [2]]), 9.5), name="value"),
        case(lambda lib, x: lib.scatter(x, 0, ix(lib, [[0, 1, 2, 0]]), lib.ones(1, 4),
                                        reduce="add"), name="reduce-add"),
        case(lambda lib, x: x.t().scatter(0, ix(lib, [[0, 1, 2]]), lib.ones(1, 3)),
             name="transposed"),
        case(lambda lib, x: x.scatter(0, ix(lib, [[3]]), 1.0), name="out-of-bounds"),
        case(lambda lib, x: x.scatter(0, ix(lib, [[0]]), lib.ones(1, 1, dtype=lib.float64)),
             name="dtype-mismatch"),
        case(lambda lib, x: lib.scatter(x, 0, ix(lib, [[0, 1, 2, 0]]), lib.ones(1, 4),
                                        out=lib.empty(0)), name="out"),
        case(lambda lib, x: lib.scatter(x, 1, ix(lib, [[0], [1], [2]]), value=9.5,
                                        out=lib.empty(4, 3).t()), name="out-value-transposed"),
        case(lambda lib, x: lib.scatter(x, 0, ix(lib, [[0, 1, 2, 0]]), lib.ones(1, 4),
                                        reduce="multiply", out=lib.empty(5)),
             name="out-reduce-resized"),
        case(lambda lib, x: lib.scatter(x.t(), 0, ix(lib, [[0, 1, 2]]), lib.ones(1, 3),
                                        out=lib.empty(0)), name="out-transposed-input"),
        case(lambda lib, x: lib.scatter(x, 0, ix(lib, [[0]]), 1.0,
                                        out=lib.empty(0, dtype=lib.float64)),
             name="out-dtype-error"),
        case(lambda lib, x: lib.scatter(x, 0, ix(lib, [[0, 1, 2, 0]]), lib.ones(1, 4), out=x),
             name="out-is-input"),
    ]),
    OpSpec("scatter_", [
        case(inplace(lambda lib, x: x.scatter_(0, ix(lib, [[0, 1, 2, 0]]), lib.ones(1, 4),
                                               reduce="multiply"))),
        case(inplace(lambda lib, x: x.scatter_(1, ix(lib, [[0, 3]]), 0.0)), name="value"),
    ]),
    OpSpec("scatter_add", [
        case(lambda lib, x: x.scatter_add(0, ix(lib, [[0, 0, 0, 0], [0, 0, 0, 0]]),
                                          lib.ones(2, 4))),
        case(lambda lib, x: lib.scatter_add(x.t(), 1, ix(lib, [[2], [2]]), lib.ones(2, 1)),
             name="transposed"),
        case(lambda lib, x: lib.scatter_add(x, 0, ix(lib, [[0, 0, 0, 0]]), lib.ones(1, 4),
                                            out=lib.empty(4, 3).t()), name="out-transposed"),
        case(lambda lib, x: lib.scatter_add(x, 0, ix(lib, [[0, 0, 0, 0]]), lib.ones(1, 4),
                                            out=lib.empty(0, dtype=lib.int32)),
             name="out-dtype-error"),
    ]),
    OpSpec("scatter_add_", [
        case(inplace(lambda lib, x: x.scatter_add_(1, ix(lib, [[1, 1, 1]]), lib.ones(1, 3)))),
    ]),
    OpSpec("scatter_reduce", [
        case(lambda lib, x: x.scatter_reduce(0, ix(lib, [[0, 0, 0, 0], [0, 1, 0, 1]]),
                                             lib.arange(8.0).view(2, 4), "mean")),
        case(lambda lib, x: x.scatter_reduce(0, ix(lib, [[0, 0, 0, 0], [0, 1, 0, 1]]),
                                             lib.arange(8.0).view(2, 4), "amax",
                                             include_self=False), name="amax-exclude"),
        case(lambda lib, x: x.scatter_reduce(0, ix(lib, [[0, 0, 0, 0], [0, 1, 0, 1]]),
                                             lib.arange(8.0).view(2, 4), "prod",
                                             include_self=False), name="prod-exclude"),
        case(lambda lib, x: lib.scatter_reduce(x.long(), 0, ix(lib, [[0, 0, 0, 0]]),
                                               lib.arange(4).view(1, 4), "mean"), name="int-mean"),
        case(lambda lib, x: x.scatter_reduce(0, ix(lib, [[0]]), x[:1, :1], "bogus"),
             name="bad-reduce"),
        case(lambda lib, x: lib.scatter_reduce(x, 0, ix(lib, [[0, 0, 0, 0], [0, 1, 0, 1]]),
                                               lib.arange(8.0).view(2, 4), "amin",
                                               out=lib.empty(0)), name="out"),
        case(lambda lib, x: lib.scatter_reduce(x, 0, ix(lib, [[0, 0, 0, 0], [0, 1, 0, 1]]),
                                               lib.arange(8.0).view(2, 4), "mean",
                                               include_self=False, out=lib.empty(4, 3).t()),
             name="out-transposed"),
        case(lambda lib, x: lib.scatter_reduce(x, 0, ix(lib, [[0]]), x[:1, :1], "sum",
                                               out=lib.empty(0, dtype=lib.float64)),
             name="out-dtype-error"),
    ]),
    OpSpec("scatter_reduce_", [
        case(inplace(lambda lib, x: x.scatter_reduce_(1, ix(lib, [[0, 0]]), lib.ones(1, 2),
                                                      "sum"))),
    ]),
    OpSpec("index_add", [
        case(lambda lib, x: x.index_add(0, ix(lib, [0, 0]), lib.ones(2, 4), alpha=2)),
        case(lambda lib, x: lib.index_add(x.t(), 1, ix(lib, [2, 0]), lib.ones(4, 2)),
             name="transposed"),
        case(lambda lib, x: x.index_add(0, ix(lib, [3]), lib.ones(1, 4)), name="out-of-range"),
        case(lambda lib, x: x.index_add(0, ix(lib, [0]), lib.ones(2, 4)), name="count"),
        # A 0-d self: one slice; the source must be 0-d too, with one index.
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [0]), lib.ones(2)),
             name="0d-source-count"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [0]), lib.ones(1)),
             name="0d-source-shape"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, 0), lib.ones(1, 1)),
             name="0d-source-matrix"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [0, 0]), lib.ones(2)),
             name="0d-two-indices"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [0, 0]), lib.tensor(1.0)),
             name="0d-two-indices-0d-source"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [0]), lib.tensor(2.0), alpha=3),
             name="0d"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, 0), lib.tensor(2.0)), name="0d-0d"),
        case(lambda lib, x: x[1, 2].index_add(0, ix(lib, [1]), lib.tensor(2.0)),
             name="0d-out-of-range"),
        case(lambda lib, x: x[0].index_add(0, ix(lib, 0), lib.tensor(2.0)),
             name="1d-0d-source"),
        case(lambda lib, x: x[0].index_add(0, ix(lib, 1), lib.ones(1)), name="1d-0d-index"),
        case(lambda lib, x: x[0].index_add(0, ix(lib, [-1]), lib.ones(1)), name="1d-negative"),
        case(lambda lib, x: x.index_add(1, ix(lib, [-1]), lib.ones(3, 1)), name="2d-negative"),
        case(lambda lib, x: x.index_add(1, ix(lib, [0]), lib.ones(4)), name="dim-past-source"),
        case(lambda lib, x: x.index_add(0, ix(lib, [[0]]), lib.ones(1, 4)), name="matrix-index"),
    ]),
    OpSpec("index_add_", [
        case(inplace(lambda lib, x: x.index_add_(1, ix(lib, [2, 0, 2]), lib.ones(3, 3)))),
        case(lambda lib, x: x[1, 2].index_add_(0, ix(lib, [0]), lib.ones(2)),
             name="0d-source-count"),
        case(lambda lib, x: x[1, 2].index_add_(0, ix(lib, [0]), lib.ones(1)),
             name="0d-source-shape"),
        case(inplace(lambda lib, x: x[1, 2].index_add_(0, ix(lib, 0), lib.tensor(2.0))),
             name="0d"),
    ]),
    OpSpec("index_copy", [
        case(lambda lib, x: x.index_copy(1, ix(lib, [3, 0]), lib.zeros(3, 2))),
        case(lambda lib, x: lib.index_copy(x, 1, ix(lib, [3, 0]), lib.zeros(3, 2),
                                           out=lib.empty(0)), name="out"),
        case(lambda lib, x: lib.index_copy(x, 1, ix(lib, [3, 0]), lib.zeros(3, 2),
                                           out=lib.empty(4, 3).t()), name="out-transposed"),
        case(lambda lib, x: lib.index_copy(x, 1, ix(lib, [3, 0]), lib.zeros(3, 2),
                                           out=lib.empty(2)), name="out-resized"),
        case(lambda lib, x: lib.index_copy(x, 1, ix(lib, [3, 0]), lib.zeros(3, 2),
                                           out=lib.empty(0, dtype=lib.float64)),
             name="out-dtype-error"),
        case(lambda lib, x: lib.index_copy(x, 0, ix(lib, [3]), lib.zeros(1, 4),
                                           out=lib.empty(0)), name="out-out-of-range"),
        case(lambda lib, x: lib.index_copy(x.t(), 0, ix(lib, [1]), lib.zeros(1, 3)),
             name="transposed"),
        case(lambda lib, x: x.index_copy(0, ix(lib, [3]), lib.zeros(1, 4)), name="out-of-range"),
        case(lambda lib, x: x.index_copy(0, ix(lib, [0]), lib.zeros(2, 4)), name="count"),
    ]),
    OpSpec("index_copy_", [
        case(inplace(lambda lib, x: x.index_copy_(0, ix(lib, [2]), lib.zeros(1, 4)))),
    ]),
    OpSpec("index_fill", [
        case(lambda lib, x: x.index_fill(1, ix(lib, [3, 0]), -1)),
        case(lambda lib, x: x.t().index_fill(1, ix(lib, [2]), scalar(lib, 5.0)),
             name="transposed-0d"),
        case(lambda lib, x: x.index_fill(1, ix(lib, [4]), 1.0), name="out-of-range"),
    ]),
    OpSpec("index_fill_", [
        case(inplace(lambda lib, x: x.index_fill_(0, ix(lib, [-1]), 2.0))),
    ]),
    OpSpec("index_put_", [
        case(inplace(lambda lib, x: x.index_put_((ix(lib, [0, 0]),), scalar(lib, 1.0),
                                                 accumulate=True)), name="accumulate-dups"),
        case(inplace(lambda lib, x: lib.index_put_(x, (ix(lib, [0, 2]), ix(lib, [1, 1])),
                                                   ix(lib, [5.0, 6.0])))),
        case(inplace(lambda lib, x: x.index_put_((ix(lib, [0]),), ix(lib, [5])), ),
             name="dtype-error"),
    ]),
    OpSpec("index_put", [
        case(lambda lib, x: x.t().index_put((ix(lib, [0, 0]), ix(lib, [1, 1])),
                                            ix(lib, [1.0, 2.0]), accumulate=True)),
        case(lambda lib, x: lib.index_put(x, (None, ix(lib, [1, 3])), ix(lib, [7.0, 8.0])),
             name="none-index"),
        case(lambda lib, x: x.index_put((ix(lib, [1, 3]),), ix(lib, [7.0])),
             name="out-of-bounds"),
    ]),
    OpSpec("where", [
        case(lambda lib, x: lib.where(ix(lib, ROWMASK), x, 0.0)),
        case(lambda lib, x: lib.where(ix(lib, ROWMASK), x.t().t(), ix(lib, [1, 2, 3, 4])),
             name="promote"),
        case(lambda lib, x: lib.where(ix(lib, [True, False, True]), x.t(), x.t() * 2),
             name="transposed"),
        case(lambda lib, x: lib.where(ix(lib, ROWMASK), 1, 2.5), name="scalars-float"),
        case(lambda lib, x: lib.where(ix(lib, ROWMASK), 1, 2), name="scalars-int"),
        case(lambda lib, x: lib.where(ix(lib, ROWMASK), x.half(), 2.0), name="half-scalar"),
        case(lambda lib, x: lib.where(ix(lib, [1.0, 0.0]), 1, 2), name="float-condition"),
        case(lambda lib, x: lib.where(x > 0), name="one-arg"),
        case(lambda lib, x: x.where(ix(lib, ROWMASK), scalar(lib, 9.0)), name="method"),
    ]),
    OpSpec("take", [
        case(lambda lib, x: x.take(ix(lib, [[0, 11], [-1, 3]]))),
        case(lambda lib, x: lib.take(x.t(), ix(lib, [0, 1, 2])), name="transposed"),
        case(lambda lib, x: x.take(ix(lib, [12])), name="out-of-range"),
    ]),
    OpSpec("take_along_dim", [
        case(lambda lib, x: lib.take_along_dim(x, ix(lib, [[0], [2], [1]]), 1)),
        case(lambda lib, x: lib.take_along_dim(x, ix(lib, [0, 5])), name="flat"),
        # without a dim, the input and the indices are viewed as 1-d: a transposed input and
        # transposed indices raise, as in PyTorch
        case(lambda lib, x: lib.take_along_dim(x.t(), ix(lib, [0, 5])), name="flat-transposed"),
        case(lambda lib, x: lib.take_along_dim(x, ix(lib, [[0, 5], [1, 2]]).t()),
             name="flat-transposed-indices"),
        case(lambda lib, x: x.take_along_dim(ix(lib, [[0, 1]]), 0), name="broadcast"),
        case(lambda lib, x: x.take_along_dim(x.argsort(1), 1), make=d34, name="with-argsort"),
    ]),
    OpSpec("nonzero", [
        case(lambda lib, x: (x > 0).nonzero()),
        case(lambda lib, x: lib.nonzero(x.t() > 0, as_tuple=True), name="as-tuple"),
        case(lambda lib, x: scalar(lib, 0.0).nonzero(), name="0d"),
        case(lambda lib, x: scalar(lib, 1.0).nonzero(as_tuple=True), name="0d-tuple"),
        case(lambda lib, x: (x > 100).nonzero(), name="empty"),
    ]),
    OpSpec("argwhere", [
        case(lambda lib, x: lib.argwhere(x > 0)),
        case(lambda lib, x: x.t().argwhere(), name="method"),
    ]),
    OpSpec("repeat", [
        case(lambda lib: lib.tensor([1, 2]).repeat(2), make=None, name="seed-tiles"),
        case(lambda lib, x: x.t().repeat(2, 1, 2), name="transposed-new-dim"),
        case(lambda lib, x: x.repeat((1, 0)), name="zero"),
        case(lambda lib, x: x.repeat(2), name="too-few"),
        case(lambda lib, x: x.repeat(-1, 1), name="negative"),
    ]),
    OpSpec("tile", [
        case(lambda lib, x: x.tile((2,))),
        case(lambda lib, x: lib.tile(x.t(), (2, 1, 1)), name="transposed"),
    ]),
    OpSpec("repeat_interleave", [
        case(lambda lib: lib.tensor([1, 2]).repeat_interleave(2), make=None,
             name="seed-repeats-elements"),
        case(lambda lib, x: x.repeat_interleave(ix(lib, [1, 0, 2]), dim=0), name="tensor"),
        case(lambda lib, x: x.t().repeat_interleave(2, dim=-1, output_size=6), name="dim"),
        case(lambda lib, x: x.repeat_interleave(ix(lib, [1, 0]), dim=0), name="size-mismatch"),
        case(lambda lib: lib.repeat_interleave(ix(lib, [2, 0, 1])), make=None,
             name="counts-only"),
        case(lambda lib, x: x.repeat_interleave(-1), name="negative"),
    ]),
    OpSpec("cat", [
        case(lambda lib, x: lib.cat([x, x.t().t()], 1)),
        case(lambda lib, x: lib.cat([x, x.to(lib.int32)]), name="promote"),
        case(lambda lib, x: lib.cat([lib.zeros(0, dtype=lib.float64), x.to(lib.int32)]),
             name="legacy-empty"),
        case(lambda lib, x: lib.cat([x.t(), x.t()], -1), name="transposed"),
        case(lambda lib, x: lib.cat([x, x[:, :2]]), name="size-mismatch"),
        case(lambda lib, x: lib.cat([x, x[0]]), name="ndim-mismatch"),
        case(lambda lib, x: lib.cat([]), name="empty-list"),
        case(lambda lib, x: lib.cat([x[0, 0]]), name="0d"),
        case(lambda lib, x: lib.cat([x, x], out=lib.zeros(0)), name="out"),
        case(lambda lib, x: lib.cat([x[:, None], x[:, None]], 0), make=lambda lib: T(
            lib, arr(2, 3, 4, 5)).permute(0, 2, 3, 1), name="channels-last-like"),
    ]),
    OpSpec("concat", [case(lambda lib, x: lib.concat([x, x]))]),
    OpSpec("concatenate", [
        case(lambda lib, x: lib.concatenate([x, x], axis=1)),
        case(lambda lib, x: lib.concatenate([x, x], dim=1), name="dim"),
        case(lambda lib, x: lib.concatenate(tensors=[x, x.t().t()], dim=-1, out=lib.empty(0)),
             name="dim-out"),
    ]),
    OpSpec("stack", [
        case(lambda lib, x: lib.stack([x, x], 1)),
        case(lambda lib, x: lib.stack([x.t(), x.t()], -1), name="transposed"),
        case(lambda lib, x: lib.stack([x, x.long()]), name="promote"),
        case(lambda lib, x: lib.stack([x, x[:2]]), name="mismatch"),
    ]),
    OpSpec("hstack", [
        case(lambda lib, x: lib.hstack([x, x])),
        case(lambda lib, x: lib.hstack([x[0], x[1]]), name="1d"),
    ]),
    OpSpec("vstack", [
        case(lambda lib, x: lib.vstack([x[0], x[1]])),
        case(lambda lib, x: lib.vstack([x, x[0]]), name="mixed"),
    ]),
    OpSpec("dstack", [
        case(lambda lib, x: lib.dstack([x[0], x[1]])),
        case(lambda lib, x: lib.dstack([x, x]), name="2d"),
    ]),
    OpSpec("column_stack", [
        case(lambda lib, x: lib.column_stack([x[0], x[1], x[:, :1].t().reshape(4, 1)])),
        case(lambda lib, x: lib.column_stack([x, x]), name="2d"),
    ]),
    OpSpec("flip", [
        case(lambda lib, x: x.flip(0)),
        case(lambda lib, x: lib.flip(x.t(), (0, 1)), name="transposed-keeps-layout"),
        case(lambda lib, x: x.flip(-1), name="negative-dim"),
        case(lambda lib, x: x.flip((0, 0)), name="duplicate"),
        # (PyTorch checks the dims in order: a repeat before an out-of-range dim raises first)
        case(lambda lib, x: x.flip(0, -2, 5), name="duplicate-before-out-of-range"),
        case(lambda lib, x: x.flip(5, 0, 0), name="out-of-range-before-duplicate"),
        case(lambda lib, x: x[:, ::2].flip(1), name="strided-input"),
    ]),
    OpSpec("fliplr", [
        case(lambda lib, x: lib.fliplr(x.t())),
        case(lambda lib, x: lib.fliplr(x[0]), name="1d"),
    ]),
    OpSpec("flipud", [case(lambda lib, x: lib.flipud(x))]),
    OpSpec("roll", [
        case(lambda lib, x: x.roll(1), name="flattened"),
        case(lambda lib, x: lib.roll(x.t(), (1, -1), (0, 1)), name="two-dims"),
        case(lambda lib, x: x.roll(2, -1)),
        case(lambda lib, x: x.roll((1, 2), 0), name="misaligned"),
    ]),
    OpSpec("rot90", [
        case(lambda lib, x: x.t().rot90()),
        case(lambda lib, x: lib.rot90(x.t(), 2), name="k2"),
        case(lambda lib, x: x.t().rot90(-1), name="k-1"),
        case(lambda lib, x: x.t().rot90(0), name="k0"),
        case(lambda lib, x: x.rot90(1, (0, 0)), name="same-dims"),
        case(lambda lib, x: x[0].rot90(), name="1d"),
    ]),
    OpSpec("tril", [
        case(lambda lib, x: x.tril()),
        case(lambda lib, x: lib.tril(x.t(), -1), name="transposed"),
        case(lambda lib, x: x[0].tril(), name="1d"),
        case(lambda lib, x: x.tril(1), make=x234, name="batched"),
    ]),
    OpSpec("triu", [
        case(lambda lib, x: x.triu(1)),
        case(lambda lib, x: lib.triu(x.t()), name="transposed"),
    ]),
    OpSpec("tril_", [case(inplace(lambda lib, x: x.tril_()))]),
    OpSpec("triu_", [case(inplace(lambda lib, x: x.triu_(-1)))]),
    OpSpec("sort", [
        case(lambda lib, x: x.sort(), make=d34),
        case(lambda lib, x: x.sort(0, descending=True), make=dt, name="transposed-descending"),
        case(lambda lib, x: lib.sort(x, 0), make=d34, name="dim0"),
        case(lambda lib: lib.tensor([2, 1, 2, 1, 0]).sort(stable=True), make=None,
             name="stable"),
        case(lambda lib: lib.tensor([2, 1, 2, 1, 0]).sort(stable=True, descending=True),
             make=None, name="stable-descending"),
        case(lambda lib, x: x.sort().values, make=d34, name="named-values"),
        case(lambda lib, x: x.sort().indices, make=d34, name="named-indices"),
        case(lambda lib: lib.tensor([1.0, float("nan"), -1.0]).sort(), make=None, name="nan"),
        # dim is an int (never a bool), descending a bool, stable keyword-only.
        case(lambda lib, x: x.sort(True), make=d34, name="bool-dim-error"),
        case(lambda lib, x: lib.sort(x, False), make=d34, name="bool-dim-function-error"),
        case(lambda lib, x: x.sort(dim=True), make=d34, name="bool-dim-keyword-error"),
        case(lambda lib, x: x.sort(True, 0), make=d34, name="stable-positional-error"),
        case(lambda lib, x: x.sort(0, True, True), make=d34, name="three-positional-error"),
        case(lambda lib, x: x.sort(0.0), make=d34, name="float-dim-error"),
        case(lambda lib, x: x.sort(0, 1), make=d34, name="int-descending-error"),
        case(lambda lib, x: x.sort(stable=1), make=d34, name="int-stable-error"),
        case(lambda lib, x: x.sort(0, True), make=d34, name="positional-descending"),
        case(lambda lib, x: x.sort(stable=None, dim=0), make=d34, name="stable-none"),
        case(lambda lib, x: x.sort(np.int64(0)), make=d34, name="numpy-int-dim"),
    ]),
    OpSpec("argsort", [
        case(lambda lib, x: x.argsort(dim=0), make=d34),
        case(lambda lib, x: lib.argsort(x, descending=True), make=dt, name="descending"),
        case(lambda lib, x: x.argsort(True), make=d34, name="bool-dim-error"),
        case(lambda lib, x: lib.argsort(x, 0, True, True), make=d34,
             name="three-positional-error"),
        case(lambda lib, x: x.argsort(0, True), make=d34, name="positional-descending"),
        case(lambda lib, x: x.argsort(stable=True, dim=0), make=d34, name="stable-keyword"),
        case(lambda lib, x: x.argsort(descending=1), make=d34, name="int-descending-error"),
        case(lambda lib, x: lib.argsort(x, stable=True, out=lib.empty(0, dtype=lib.long)),
             make=d34, name="out"),
        case(lambda lib, x: lib.argsort(x, stable=False, dim=0, descending=True,
                                        out=lib.empty(4, 3, dtype=lib.long).t()),
             make=d34, name="out-transposed"),
        case(lambda lib, x: lib.argsort(x, out=lib.empty(0, dtype=lib.long)), make=d34,
             name="out-without-stable-error"),
        case(lambda lib, x: lib.argsort(x, stable=True, out=lib.empty(0)), make=d34,
             name="out-dtype-error"),
    ]),
    OpSpec("msort", [case(lambda lib, x: lib.msort(x), make=d34)]),
    OpSpec("topk", [
        case(lambda lib, x: x.topk(2), make=d34),
        case(lambda lib, x: x.topk(1, 0, largest=False), make=dt, name="smallest"),
        case(lambda lib, x: lib.topk(x, 2).indices, make=d34, name="named"),
        case(lambda lib, x: x.topk(5), make=d34, name="k-too-big"),
    ]),
    OpSpec("kthvalue", [
        case(lambda lib, x: x.kthvalue(2), make=d34),
        case(lambda lib, x: x.kthvalue(1, 0, True), make=d34, name="keepdim"),
        case(lambda lib, x: lib.kthvalue(x, 2, 0).values, make=dt, name="transposed"),
        case(lambda lib, x: x.kthvalue(9), make=d34, name="k-out-of-range"),
    ]),
    OpSpec("unique", [
        case(lambda lib: lib.unique(lib.tensor([3, 1, 3, 2, 1]), return_inverse=True,
                                       return_counts=True), make=None),
        case(lambda lib: lib.unique(lib.tensor([[1, 2], [1, 2], [0, 5]]), dim=0,
                                       return_inverse=True, return_counts=True), make=None,
             name="dim"),
        case(lambda lib, x: x.t().unique(), make=d34, name="method"),
    ]),
]


# ---------------------------------------------------------------------- searchsorted, bucketize
NAN = float("nan")

BOUNDS = [1.0, 3.0, 5.0, 7.0, 9.0]
VALUES = [[3.0, 6.0, 9.0], [0.0, 10.0, 5.0]]


def sv(lib):
    return T(lib, np.array(BOUNDS, "float32")), T(lib, np.array(VALUES, "float32"))


SPECS += [
    OpSpec("searchsorted", [
        auto(lambda lib, s, v: lib.searchsorted(s, v), make=sv, name="left"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, right=True), make=sv, name="right"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, side="right"), make=sv, name="side"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, side="left"), make=sv, name="side_left"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, out_int32=True), make=sv, name="int32"),
        auto(lambda lib, s, v: lib.searchsorted(s, 5), make=sv, name="scalar"),
        auto(lambda lib, s, v: lib.searchsorted(s, 5.5, right=True), make=sv, name="scalar_right"),
        auto(lambda lib, s, v: lib.searchsorted(s, v.t()), make=sv, name="transposed_values"),
        auto(lambda lib, s, v: lib.searchsorted(s[::2], v), make=sv, name="strided_bounds"),
        auto(lambda lib, s, v: lib.searchsorted(s.long(), v), make=sv, name="mixed_dtypes"),
        auto(lambda lib, s, v: lib.searchsorted(s, v.long()), make=sv, name="int_values"),
        auto(lambda lib, s, v: lib.searchsorted(s.double(), v), make=sv, name="float64"),
        auto(lambda lib, s, v: lib.searchsorted(
            s, T(lib, np.array([NAN, 2.0, 1.0], "float32")), right=True), make=sv, name="nan"),
        auto(lambda lib, s, v: lib.searchsorted(T(lib, np.array([1.0, 2, 2, 2, 3])),
                                                T(lib, np.array([2.0])), right=True),
             make=sv, name="ties"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([[1.0, 3, 5], [2, 4, 6]])),
                                          T(lib, np.array([[3.0], [3.0]]))), name="batched"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2, 0]))), make=None,
             name="sorter"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2]))), make=None,
             name="sorter_size_error"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1, 2, 5]))), make=None,
             name="sorter_range_error"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([5.0, 1, 3])), T(lib, np.array([3.0, 4])),
                                          sorter=T(lib, np.array([1.0, 2, 0]))), make=None,
             name="sorter_dtype_error"),
        auto(lambda lib: lib.searchsorted(T(lib, np.array([[1.0, 3, 5], [2, 4, 6]])),
                                          T(lib, np.array([[3.0]]))), make=None,
             name="batch_mismatch_error"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, side="left", right=True), make=sv,
             name="opposite_error"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, side="foo"), make=sv, name="side_error"),
        auto(lambda lib, s, v: lib.searchsorted(s[0], v), make=sv, name="zero_dim_error"),
        auto(lambda lib, s, v: lib.searchsorted(s, v, out=lib.empty(0, dtype=lib.int64)),
             make=sv, name="out"),
    ]),
    OpSpec("bucketize", [
        auto(lambda lib, s, v: lib.bucketize(v, s), make=sv, name="left"),
        auto(lambda lib, s, v: lib.bucketize(v, s, right=True), make=sv, name="right"),
        auto(lambda lib, s, v: lib.bucketize(v, s, right=True, out_int32=True), make=sv,
             name="int32"),
        auto(lambda lib, s, v: lib.bucketize(4, s), make=sv, name="scalar"),
        auto(lambda lib, s, v: lib.bucketize(v.t(), s), make=sv, name="transposed"),
        auto(lambda lib, s, v: lib.bucketize(v.long(), s), make=sv, name="int_values"),
        auto(lambda lib, s, v: lib.bucketize(v, s[1::2]), make=sv, name="strided_bounds"),
        auto(lambda lib, s, v: lib.bucketize(v, s.reshape(1, 5)), make=sv, name="2d_error"),
        auto(lambda lib, s, v: lib.bucketize(v, s, out=lib.empty(6, dtype=lib.int64)), make=sv,
             name="out"),
    ]),
]


# ---------------------------------------------- *_scatter, put, index_reduce
def R(lib, *shape, dtype="float32", seed=0):
    return T(lib, arr(*shape, dtype=dtype, seed=seed))


def mk(*shapes, dtype="float32"):
    return lambda lib: tuple(R(lib, *s, dtype=dtype, seed=i) for i, s in enumerate(shapes))


def L(lib, values):
    return lib.tensor(values)


SPECS += [
    OpSpec("diagonal_scatter", [
        case(lambda lib, a, s: lib.diagonal_scatter(a, s), mk((3, 4), (3,)), "main"),
        case(lambda lib, a, s: lib.diagonal_scatter(a, s, 1), mk((3, 4), (3,)), "offset"),
        case(lambda lib, a, s: lib.diagonal_scatter(a, s, -2), mk((3, 4), (1,)), "negative"),
        case(lambda lib, a, s: lib.diagonal_scatter(a, s, 0, 0, 2), mk((2, 3, 4), (3, 2)),
             "dims"),
        case(lambda lib, a, s: lib.diagonal_scatter(a.t(), s), mk((4, 3), (3,)), "transposed"),
        case(lambda lib, a, s: a.diagonal_scatter(s.double()), mk((3, 4), (3,)), "cast-method"),
        case(lambda lib, a, s: lib.diagonal_scatter(a, s), mk((3, 4), (4,)), "size-error"),
        case(lambda lib, a, s: lib.diagonal_scatter(a, s, 0, 1, 1), mk((3, 4), (3,)),
             "same-dims-error"),
    ]),
    OpSpec("select_scatter", [
        case(lambda lib, a, s: lib.select_scatter(a, s, 0, 1), mk((3, 4), (4,)), "dim0"),
        case(lambda lib, a, s: lib.select_scatter(a, s, -1, -1), mk((2, 3, 4), (2, 3)),
             "negative"),
        case(lambda lib, a, s: lib.select_scatter(a.t(), s, 0, 1), mk((3, 4), (3,)),
             "transposed"),
        case(lambda lib, a, s: a.select_scatter(s.long(), 0, 0), mk((3, 4), (4,)),
             "cast-method"),
        case(lambda lib, a, s: lib.select_scatter(a, s, 0, 5), mk((3, 4), (4,)),
             "index-error"),
        case(lambda lib, a, s: lib.select_scatter(a, s, 0, 1), mk((3, 4), (3,)), "size-error"),
    ]),
    OpSpec("slice_scatter", [
        case(lambda lib, a, s: lib.slice_scatter(a, s), mk((3, 4), (3, 4)), "all"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 1, 0, 4, 2), mk((3, 4), (3, 2)), "step"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 1, -2), mk((3, 4), (3, 2)),
             "negative-start"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 0, 1, 100), mk((3, 4), (2, 4)),
             "clamped-end"),
        case(lambda lib, a, s: lib.slice_scatter(a.t(), s, 0, 1, 3), mk((3, 4), (2, 3)),
             "transposed"),
        case(lambda lib, a, s: a.slice_scatter(s.double(), 0, 0, 1), mk((3, 4), (1, 4)),
             "cast-method"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 1, 0, 4, 2), mk((3, 4), (3, 3)),
             "size-error"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 1, 0, 4, 0), mk((3, 4), (3, 0)),
             "step-error"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, 1, 0, 4, 2, out=lib.empty(0)),
             mk((3, 4), (3, 2)), "out"),
        case(lambda lib, a, s: lib.slice_scatter(a.t(), s, 0, 1, 3, out=lib.empty(0)),
             mk((3, 4), (2, 3)), "out-transposed-input"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, out=lib.empty(4, 3).t()),
             mk((3, 4), (3, 4)), "out-transposed"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, out=lib.empty(2, 2)),
             mk((3, 4), (3, 4)), "out-resized"),
        case(lambda lib, a, s: lib.slice_scatter(a, s, out=lib.empty(0, dtype=lib.float64)),
             mk((3, 4), (3, 4)), "out-dtype-error"),
    ]),
    OpSpec("put", [
        case(lambda lib, a: lib.put(a, L(lib, [0, 5, -1]), L(lib, [1.0, 2.0, 3.0])),
             mk((3, 4)), "function"),
        case(lambda lib, a: a.put(L(lib, [0, 0, 11]), L(lib, [1.0, 2.0, 3.0]),
                                  accumulate=True), mk((3, 4)), "accumulate"),
        case(lambda lib, a: a.t().put(L(lib, [1, 4]), L(lib, [1.0, 2.0])), mk((3, 4)),
             "transposed"),
        case(lambda lib, a: a.put(L(lib, [[1], [4]]), L(lib, [[1.0, 2.0]])), mk((3, 4)),
             "shapes-differ"),
        case(lambda lib, a: a.put(L(lib, [12]), L(lib, [1.0])), mk((3, 4)), "oob"),
        case(lambda lib, a: a.put(L(lib, [1, 2]), L(lib, [1.0])), mk((3, 4)), "numel-error"),
        case(lambda lib, a: a.put(L(lib, [1]).int(), L(lib, [1.0])), mk((3, 4)),
             "int32-index-error"),
        case(lambda lib, a: a.put(L(lib, [1]), L(lib, [1.0]).double()), mk((3, 4)),
             "dtype-error"),
    ]),
    OpSpec("put_", [
        case(lambda lib, a: a.put_(L(lib, [0, 5, -1]), L(lib, [1.0, 2.0, 3.0])), mk((3, 4)),
             "basic"),
        case(lambda lib, a: a.put_(L(lib, [2, 2]), L(lib, [1.0, 2.0]), True), mk((3, 4)),
             "accumulate"),
        case(lambda lib, a: (a.t().put_(L(lib, [1, 4]), L(lib, [7.0, 8.0])), a)[1], mk((3, 4)),
             "through-view"),
        case(lambda lib, a: a.put_(L(lib, [20]), L(lib, [1.0])), mk((3, 4)), "oob"),
        case(lambda lib, a: a.put_(L(lib, [1]), L(lib, [1.0]).double()), mk((3, 4)),
             "dtype-error"),
    ]),
    OpSpec("index_reduce", [
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 2, 0]), s, "prod"),
             mk((3, 4), (3, 4)), "prod", atol=1e-5),
        case(lambda lib, a, s: lib.index_reduce(a, 0, L(lib, [0, 2, 0]), s, "prod",
                                                out=lib.empty(0)),
             mk((3, 4), (3, 4)), "out", atol=1e-5),
        case(lambda lib, a, s: lib.index_reduce(a, 1, L(lib, [3, 3]), s, "amax",
                                                include_self=False, out=lib.empty(4, 3).t()),
             mk((3, 4), (3, 2)), "out-transposed"),
        case(lambda lib, a, s: lib.index_reduce(a, 0, L(lib, [0, 2, 0]), s, "mean",
                                                out=lib.empty(0, dtype=lib.float64)),
             mk((3, 4), (3, 4)), "out-dtype-error"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 2, 0]), s, "mean"),
             mk((3, 4), (3, 4)), "mean"),
        case(lambda lib, a, s: a.index_reduce(1, L(lib, [3, 3]), s, "amax"),
             mk((3, 4), (3, 2)), "amax-dim1"),
        case(lambda lib, a, s: a.index_reduce(1, L(lib, [0, 1]), s, "amin"),
             mk((3, 4), (3, 2)), "amin"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 2, 0]), s, "prod",
                                              include_self=False),
             mk((3, 4), (3, 4)), "prod-exclude-self", atol=1e-5),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 2, 0]), s, "mean",
                                              include_self=False),
             mk((3, 4), (3, 4)), "mean-exclude-self"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [1, 1]), s, "amax", include_self=False),
             mk((3, 4), (2, 4)), "amax-exclude-self"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [1, 1]), s, "amin", include_self=False),
             mk((3, 4), (2, 4)), "amin-exclude-self"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 0, 1]), s, "mean"),
             mk((2, 3), (3, 3), dtype="int64"), "int-mean"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0, 0, 1]), s, "amax",
                                              include_self=False),
             mk((2, 3), (3, 3), dtype="int64"), "int-amax-exclude-self"),
        case(lambda lib, a, s: lib.index_reduce(a.t(), 0, L(lib, [1]).int(), s, "prod"),
             mk((3, 4), (1, 3)), "function-transposed-int32-index"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0]), s, "sum"), mk((3, 4), (1, 4)),
             "bad-reduce"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [5]), s, "prod"), mk((3, 4), (1, 4)),
             "oob"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0]), s.double(), "prod"),
             mk((3, 4), (1, 4)), "dtype-error"),
        case(lambda lib, a, s: a.index_reduce(0, L(lib, [0]), s, "prod"), mk((3, 4), (2, 4)),
             "count-error"),
    ]),
    OpSpec("index_reduce_", [
        case(lambda lib, a, s: a.index_reduce_(0, L(lib, [0, 2, 0]), s, "amax"),
             mk((3, 4), (3, 4)), "amax"),
        case(lambda lib, a, s: a.index_reduce_(0, L(lib, [2, 2]), s, "mean",
                                               include_self=False),
             mk((3, 4), (2, 4)), "mean-exclude-self"),
        case(lambda lib, a, s: (a.t().index_reduce_(0, L(lib, [1]), s, "prod"), a)[1],
             mk((3, 4), (1, 3)), "through-view", atol=1e-5),
        case(lambda lib, a, s: a.index_reduce_(0, L(lib, [9]), s, "amin"), mk((3, 4), (1, 4)),
             "oob"),
        case(lambda lib, a, s: a.index_reduce_(0, L(lib, [0]), s, "max"), mk((3, 4), (1, 4)),
             "bad-reduce"),
    ]),
]


# ------------------------------------------------------------ unique_consecutive
def ints(lib):
    return T(lib, np.array([1, 1, 2, 2, 3, 1, 1, 2]))


def rows(lib):
    return T(lib, np.array([[1, 1, 2], [1, 1, 2], [3, 3, 4]]))


SPECS += [
    OpSpec("unique_consecutive", [
        case(lambda lib, x: lib.unique_consecutive(x), make=ints),
        case(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True),
             make=ints, name="all"),
        case(lambda lib, x: x.unique_consecutive(return_counts=True), make=ints,
             name="counts"),
        case(lambda lib, x: x.unique_consecutive(return_inverse=True), make=rows,
             name="2d-flat"),
        case(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, dim=0), make=rows,
             name="dim0"),
        case(lambda lib, x: lib.unique_consecutive(x, True, True, dim=1), make=rows,
             name="dim1"),
        case(lambda lib, x: lib.unique_consecutive(x.t(), True, True, dim=1), make=rows,
             name="dim1-transposed"),
        case(lambda lib, x: lib.unique_consecutive(x.t(), True, True, dim=-2), make=rows,
             name="dim-negative"),
        case(lambda lib, x: lib.unique_consecutive(x.t(), True, True), make=rows,
             name="flat-transposed"),
        case(lambda lib: lib.unique_consecutive(lib.tensor([1.0, float("nan"), float("nan"),
                                                            0.0, -0.0]), return_counts=True),
             None, "nan-zero"),
        case(lambda lib: lib.unique_consecutive(lib.tensor([True, True, False])), None,
             "bool"),
        case(lambda lib: lib.unique_consecutive(lib.tensor([1.0, 1.0, 2.0]).half(),
                                                return_counts=True, dim=0), None, "half"),
        case(lambda lib: lib.unique_consecutive(lib.tensor(5), True, True), None, "0d"),
        case(lambda lib: lib.unique_consecutive(lib.tensor([]), True, True), None, "empty"),
        case(lambda lib: lib.unique_consecutive(lib.ones(0, 3), True, True, dim=0), None,
             "empty-dim"),
        case(lambda lib: lib.unique_consecutive(lib.ones(0, 3), dim=1), None,
             "empty-other-dim"),
        case(lambda lib: lib.unique_consecutive(lib.zeros(0, 0), dim=0), None,
             "two-empty-dims"),
        case(lambda lib: lib.unique_consecutive(lib.tensor(5), dim=0), None, "0d-dim"),
        case(lambda lib, x: lib.unique_consecutive(x, dim=2), make=rows, name="bad-dim"),
        case(lambda lib: lib.unique_consecutive(lib.tensor([1 + 1j, 1 + 1j])), None,
             "complex"),
    ]),
]
