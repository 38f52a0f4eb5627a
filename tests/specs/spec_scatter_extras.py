"""Specs of diagonal/select/slice_scatter, put/put_, index_reduce/index_reduce_, apply_, map_."""

import math

from ..harness import Case, OpSpec, T, arr


def R(lib, *shape, dtype="float32", seed=0):
    return T(lib, arr(*shape, dtype=dtype, seed=seed))


def mk(*shapes, dtype="float32"):
    return lambda lib: tuple(R(lib, *s, dtype=dtype, seed=i) for i, s in enumerate(shapes))


def case(run, make, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def no_grad(lib, f):
    with lib.no_grad():
        return f()


def L(lib, values):
    return lib.tensor(values)


SPECS = [
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
    OpSpec("apply_", [
        case(lambda lib, a: a.apply_(lambda v: v * 2 + 1), mk((3, 4)), "float"),
        case(lambda lib, a: a.apply_(lambda v: v * 2.7), mk((3, 4), dtype="int64"),
             "int-truncates"),
        case(lambda lib, a: a.apply_(lambda v: v > 0), mk((3, 4)), "bool-result"),
        case(lambda lib, a: (a.t().apply_(lambda v: -v), a)[1], mk((3, 4)), "through-view"),
        case(lambda lib, a: a.apply_(lambda v: math.floor(v)), mk((3, 4), dtype="float64"),
             "float64"),
        # A tensor that requires grad is refused, even under no_grad; detach() first.
        case(lambda lib, a: a.requires_grad_().apply_(lambda v: v), mk((3, 4)),
             "requires-grad-error"),
        case(lambda lib, a: no_grad(lib, lambda: a.requires_grad_().apply_(lambda v: v)),
             mk((3, 4)), "requires-grad-no-grad-error"),
        case(lambda lib, a: (a.requires_grad_() * 2).apply_(lambda v: v), mk((3, 4)),
             "non-leaf-requires-grad-error"),
        case(lambda lib, a: a.requires_grad_().detach().apply_(lambda v: v + 1), mk((3, 4)),
             "detached"),
    ]),
    OpSpec("map_", [
        case(lambda lib, a, b: a.map_(b, lambda x, y: x * y + 1), mk((3, 4), (3, 4)), "same"),
        case(lambda lib, a, b: a.map_(other=b, callable=lambda x, y: x * y), mk((3, 4), (4,)),
             "keywords"),
        case(lambda lib, a, b: a.map_(tensor=b, callable=lambda x, y: x * y), mk((3, 4), (4,)),
             "tensor-keyword-error"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: x - y), mk((3, 4), (4,)), "broadcast"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: max(x, y)), mk((3, 4), (3, 4),
                                                                     dtype="int64"), "int"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: x + y), mk((3, 4), (2, 4)),
             "broadcast-error"),
        case(lambda lib, a, b: a.map_(b.double(), lambda x, y: x + y), mk((3, 4), (4,)),
             "dtype-error"),
        # self or tensor requiring grad is refused, even under no_grad.
        case(lambda lib, a, b: a.requires_grad_().map_(b, lambda x, y: x + y),
             mk((3, 4), (4,)), "self-requires-grad-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_(), lambda x, y: x + y),
             mk((3, 4), (4,)), "tensor-requires-grad-error"),
        case(lambda lib, a, b: no_grad(lib, lambda: a.map_(b.requires_grad_(),
                                                           lambda x, y: x + y)),
             mk((3, 4), (4,)), "tensor-requires-grad-no-grad-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_().double(), lambda x, y: x + y),
             mk((3, 4), (4,)), "requires-grad-before-dtype-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_().detach(), lambda x, y: x * y),
             mk((3, 4), (4,)), "detached-tensor"),
    ]),
]
