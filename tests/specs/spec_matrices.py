"""Specs of the structured matrices (``_ops/matrices.py``): diag, diag_embed, block_diag and
vander."""

from tests.harness.conformance import OpSpec
from .spec_grids import v3
from .spec_reductions import case, x234

SPECS = [
    OpSpec("diag", [
        case(lambda lib, x: lib.diag(x[0]), name="1d"),
        case(lambda lib, x: lib.diag(x[0], 2), name="1d-above"),
        case(lambda lib, x: x[:, 1].diag(-1), name="1d-below-strided"),
        case(lambda lib, x: lib.diag(x), name="2d-copy"),
        case(lambda lib, x: lib.diag(x, 1), name="2d-above"),
        case(lambda lib, x: lib.diag(x.t(), -2), name="2d-transposed"),
        case(lambda lib, x: lib.diag(x, 10), name="2d-out-of-range"),
        case(lambda lib, x: lib.diag(x.int()[0]), name="int"),
        case(lambda lib, x: lib.diag(x[0] > 0), name="bool"),
        case(lambda lib, x: lib.diag(x[0], out=lib.empty(0)), name="out"),
        case(lambda lib, x: lib.diag(x), make=x234, name="3d"),
        case(lambda lib, x: lib.diag(x[0, 0]), name="0d"),
    ]),
    OpSpec("diag_embed", [
        case(lambda lib, x: lib.diag_embed(x[0])),
        case(lambda lib, x: lib.diag_embed(x), make=x234, name="batched"),
        case(lambda lib, x: x.diag_embed(1, 0, 2), make=x234, name="offset-dims"),
        case(lambda lib, x: lib.diag_embed(x, -1, -1, 0), make=x234, name="negative"),
        case(lambda lib, x: lib.diag_embed(x.transpose(0, 2)), make=x234, name="noncontig"),
        case(lambda lib, x: lib.diag_embed(x.long()), name="int"),
        case(lambda lib, x: lib.diag_embed(x, 0, 1, 1), name="same-dims"),
        case(lambda lib, x: lib.diag_embed(x, 0, 0, 5), name="bad-dim"),
        case(lambda lib, x: lib.diag_embed(x[0, 0]), name="0d"),
        case(lambda lib, x: lib.diag_embed(x, -2, 2, 0), make=x234, name="negative-offset"),
        case(lambda lib, x: lib.diag_embed(x > 0, 1), name="bool"),
    ]),
    OpSpec("block_diag", [
        case(lambda lib, x: lib.block_diag(x, x[0], x[0, 0])),
        case(lambda lib, x: lib.block_diag(x.t(), x[:2, ::2]), name="noncontig"),
        case(lambda lib, x: lib.block_diag(x.int(), x.double()), name="promote"),
        case(lambda lib, x: lib.block_diag(x > 0, x.to(lib.int8)), name="bool-int8"),
        case(lambda lib, x: lib.block_diag(x[:0], x[:, :0]), name="empty-blocks"),
        case(lambda lib, x: lib.block_diag(x[0, :0]), name="empty-1d"),
        case(lambda lib: lib.block_diag(), None, "no-args"),
        case(lambda lib, x: lib.block_diag(x), make=x234, name="3d"),
    ]),
    OpSpec("vander", [
        case(lambda lib: lib.vander(lib.tensor([1, 2, 3])), None, "int"),
        case(lambda lib, x: lib.vander(x), make=v3, name="float"),
        case(lambda lib, x: lib.vander(x, 2, True), make=v3, name="increasing"),
        case(lambda lib, x: lib.vander(x[:, 1], N=4), name="strided"),
        case(lambda lib, x: lib.vander(x, N=0), make=v3, name="n0"),
        case(lambda lib, x: lib.vander(x[:0]), make=v3, name="empty"),
        case(lambda lib, x: lib.vander(x > 0), make=v3, name="bool"),
        case(lambda lib, x: lib.vander(x.to(lib.int8), 4), make=v3, name="int8"),
        case(lambda lib, x: lib.vander(x.double(), 5, increasing=True), make=v3,
             name="double"),
        case(lambda lib, x: lib.vander(x.half(), 3), make=v3, name="half", atol=1e-2,
             rtol=1e-2),
        case(lambda lib, x: lib.vander(x, N=-1), make=v3, name="negative-n"),
        case(lambda lib, x: lib.vander(x), name="2d"),
        case(lambda lib, x: lib.vander(x[0]), make=v3, name="0d"),
    ]),
]
