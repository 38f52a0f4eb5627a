"""Specs of the surface ops added for dir() coverage (issue 15): the in-place forms
``addmm_``/``baddbmm_``/``cumsum_``/``cumprod_``, ``torch.fill`` and the ``*_copy`` ops (each
the view op's result as a fresh contiguous tensor): values, metadata and errors vs PyTorch."""

from tests.harness.conformance import Case, OpSpec, T, arr


def x34(lib):
    return T(lib, arr(3, 4))


def case(run, make=x34, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def mats(lib):
    return T(lib, arr(2, 4, seed=1)), T(lib, arr(2, 3, seed=2)), T(lib, arr(3, 4, seed=3))


def batches(lib):
    return (
        T(lib, arr(2, 2, 4, seed=1)),
        T(lib, arr(2, 2, 3, seed=2)),
        T(lib, arr(2, 3, 4, seed=3)),
    )


def _copy_specs():
    """(name, run) pairs of the *_copy ops on a (3, 4) input."""
    return [
        ("alias_copy", lambda lib, x: lib.alias_copy(x)),
        ("as_strided_copy", lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1)),
        ("detach_copy", lambda lib, x: lib.detach_copy(x)),
        ("diagonal_copy", lambda lib, x: lib.diagonal_copy(x, 1)),
        ("expand_copy", lambda lib, x: lib.expand_copy(x[:1], (2, 4))),
        ("permute_copy", lambda lib, x: lib.permute_copy(x, (1, 0))),
        ("select_copy", lambda lib, x: lib.select_copy(x, 1, 2)),
        ("split_copy", lambda lib, x: lib.split_copy(x, 2, 1)),
        ("split_with_sizes_copy", lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1)),
        ("squeeze_copy", lambda lib, x: lib.squeeze_copy(x[:1])),
        ("t_copy", lambda lib, x: lib.t_copy(x)),
        ("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, 1)),
        ("unbind_copy", lambda lib, x: lib.unbind_copy(x, 1)),
        ("unfold_copy", lambda lib, x: lib.unfold_copy(x, 1, 2, 1)),
        ("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, 1)),
        ("view_as_real_copy", lambda lib, x: lib.view_as_real_copy(x.to(lib.complex64))),
        ("view_as_complex_copy", lambda lib, x: lib.view_as_complex_copy(x[:, :2].contiguous())),
        ("view_copy", lambda lib, x: lib.view_copy(x, (4, 3))),
    ]


SPECS = [
    OpSpec(
        "addmm_",
        [
            case(lambda lib, c, a, b: c.addmm_(a, b), make=mats),
            case(lambda lib, c, a, b: c.addmm_(a, b, beta=0.5, alpha=2), make=mats, name="scaled"),
            case(lambda lib, c, a, b: c.addmm_(b, a), make=mats, name="bad-shapes"),
            case(lambda lib, c, a, b: c[:1].addmm_(a, b), make=mats, name="self-broadcast-refused"),
        ],
    ),
    OpSpec(
        "baddbmm_",
        [
            case(lambda lib, c, a, b: c.baddbmm_(a, b), make=batches),
            case(
                lambda lib, c, a, b: c.baddbmm_(a, b, beta=0, alpha=3), make=batches, name="beta0"
            ),
            case(lambda lib, c, a, b: c.baddbmm_(b, a), make=batches, name="bad-shapes"),
        ],
    ),
    OpSpec(
        "cumsum_",
        [
            case(lambda lib, x: x.cumsum_(1)),
            case(lambda lib, x: x.cumsum_(-2)),
            case(lambda lib, x: x.cumsum_(2), name="bad-dim"),
            case(lambda lib, x: x.t().cumsum_(0), name="strided"),
        ],
    ),
    OpSpec(
        "cumprod_",
        [
            case(lambda lib, x: x.cumprod_(0)),
            case(lambda lib, x: x.cumprod_(3), name="bad-dim"),
        ],
    ),
    OpSpec(
        "fill",
        [
            case(lambda lib, x: lib.fill(x, 2.5)),
            case(lambda lib, x: lib.fill(x, lib.tensor(7.0)), name="tensor-value"),
            case(lambda lib, x: lib.fill(x.t(), 1), name="strided"),
            case(lambda lib, x: lib.fill(x, lib.ones(2)), name="value-not-0d"),
        ],
    ),
] + [
    OpSpec(
        name,
        [
            case(run),
            case(lambda lib, x, run=run: run(lib, x.t().contiguous().t()), name="strided-input"),
        ],
    )
    for name, run in _copy_specs()
]
