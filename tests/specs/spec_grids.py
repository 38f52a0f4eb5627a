"""Specs of the grids and index sets (``_ops/grids.py``): meshgrid, triu/tril_indices,
cartesian_prod and combinations."""

from tests.harness.conformance import OpSpec, T, arr
from .spec_reductions import case


def v3(lib):
    return T(lib, arr(3))


def two_vecs(lib):
    return T(lib, arr(3)), T(lib, arr(4, seed=1))


SPECS = [
    OpSpec("meshgrid", [
        case(lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"), two_vecs, "ij"),
        case(lambda lib, a, b: lib.meshgrid(a, b, indexing="xy"), two_vecs, "xy"),
        case(lambda lib, a, b: lib.meshgrid(a, b), two_vecs, "default"),
        case(lambda lib, a, b: lib.meshgrid([a, b, a], indexing="xy"), two_vecs, "list-3"),
        case(lambda lib, a, b: lib.meshgrid(a[::2], b, indexing="ij"), two_vecs, "strided"),
        case(lambda lib, a, b: lib.meshgrid(a, indexing="xy"), two_vecs, "single"),
        case(lambda lib, a, b: lib.meshgrid(a[0], b, indexing="ij"), two_vecs, "0d"),
        case(lambda lib, a, b: lib.meshgrid(a, b[:1], indexing="ij"), two_vecs, "size-1"),
        case(lambda lib, a, b: lib.meshgrid(a.int(), b.int(), indexing="xy"), two_vecs,
             "int"),
        case(lambda lib, a, b: lib.meshgrid(a, b.double(), indexing="ij"), two_vecs,
             "dtype-mismatch"),
        case(lambda lib, a, b: lib.meshgrid(a, b[None], indexing="ij"), two_vecs, "2d"),
        case(lambda lib, a, b: lib.meshgrid(a, b, indexing="foo"), two_vecs, "bad-indexing"),
        case(lambda lib: lib.meshgrid(indexing="ij"), None, "empty"),
        case(lambda lib, a, b: lib.meshgrid(a[1], b[::3], a, indexing="xy"), two_vecs,
             "xy-0d-strided"),
        case(lambda lib, a, b: lib.meshgrid(a, b[:0], indexing="ij"), two_vecs, "empty-input"),
    ]),
    OpSpec("triu_indices", [
        case(lambda lib: lib.triu_indices(3, 4, 1), None),
        case(lambda lib: lib.triu_indices(3, 3), None, "default"),
        case(lambda lib: lib.triu_indices(4, 3, -1, dtype=lib.int32), None, "int32"),
        case(lambda lib: lib.triu_indices(3, 3, -10), None, "all"),
        case(lambda lib: lib.triu_indices(5, 2, 1, device="cpu"), None, "device"),
        case(lambda lib: lib.triu_indices(0, 3), None, "empty"),
        case(lambda lib: lib.triu_indices(3, 3, dtype=lib.float32), None, "float"),
        case(lambda lib: lib.triu_indices(-1, 3), None, "negative-row"),
        case(lambda lib: lib.triu_indices(3, -1), None, "negative-col"),
        case(lambda lib: lib.triu_indices(3, 3, requires_grad=True), None, "requires-grad"),
    ]),
    OpSpec("tril_indices", [
        case(lambda lib: lib.tril_indices(3, 4, -1, dtype=lib.int32), None),
        case(lambda lib: lib.tril_indices(3, 3, 10), None, "all"),
        case(lambda lib: lib.tril_indices(4, 2), None, "tall"),
        case(lambda lib: lib.tril_indices(3, 0), None, "empty"),
        case(lambda lib: lib.tril_indices(3, 3, dtype=lib.int16), None, "int16"),
        case(lambda lib: lib.tril_indices(3, 3, dtype=lib.bool), None, "bool"),
        case(lambda lib: lib.tril_indices(-2, 3), None, "negative-row"),
    ]),
    OpSpec("cartesian_prod", [
        case(lambda lib, a, b: lib.cartesian_prod(a, b), two_vecs),
        case(lambda lib, a, b: lib.cartesian_prod(a, b[::2], a), two_vecs, "three-strided"),
        case(lambda lib, a, b: lib.cartesian_prod(a), two_vecs, "single-self"),
        case(lambda lib, a, b: lib.cartesian_prod(a.long(), b[:0].long()), two_vecs, "empty"),
        case(lambda lib, a, b: lib.cartesian_prod(a, b.int()), two_vecs, "dtype-mismatch"),
        case(lambda lib, a, b: lib.cartesian_prod(a, b[None]), two_vecs, "2d"),
        case(lambda lib, a, b: lib.cartesian_prod(a, b[0]), two_vecs, "0d"),
        case(lambda lib: lib.cartesian_prod(), None, "none"),
        case(lambda lib, a, b: lib.cartesian_prod([a.int(), b.int()]), two_vecs, "list-int"),
    ]),
    OpSpec("combinations", [
        case(lambda lib, x: lib.combinations(x), make=v3),
        case(lambda lib, x: lib.combinations(x, 3, with_replacement=True), make=v3,
             name="with-replacement"),
        case(lambda lib, x: lib.combinations(x[:, 1], 2), name="strided"),
        case(lambda lib, x: lib.combinations(x, 1), make=v3, name="r1"),
        case(lambda lib, x: lib.combinations(x, 0), make=v3, name="r0"),
        case(lambda lib, x: lib.combinations(x, 4), make=v3, name="r-too-big"),
        case(lambda lib, x: lib.combinations(x[:0], 2), make=v3, name="empty"),
        case(lambda lib, x: lib.combinations(x > 0), make=v3, name="bool"),
        case(lambda lib, x: lib.combinations(x.long(), r=2, with_replacement=True), make=v3,
             name="int"),
        case(lambda lib, x: lib.combinations(x, -1), make=v3, name="negative-r"),
        case(lambda lib, x: lib.combinations(x), name="2d"),
        case(lambda lib, x: lib.combinations(x[0]), make=v3, name="0d"),
    ]),
]
