"""Specs of the ``nn.functional`` ops added for issue 15's breadth (activations, distances,
losses, pooling, resampling, normalization...): values, layouts, ``requires_grad`` and errors
compared with PyTorch; each case calls ``lib.nn.functional.<op>`` (or ``lib.<op>``)."""

from tests.harness.conformance import Case, OpSpec, T, arr
from tests.specs.spec_nn import TOL, F, inplace


def R(lib, *shape, seed=0, dtype="float32", grad=False, low=-3, high=3):
    return T(lib, arr(*shape, seed=seed, dtype=dtype, low=low, high=high), requires_grad=grad)


def mk(*shapes, grad=False, dtype="float32", low=-3, high=3):
    return lambda lib: tuple(
        R(lib, *s, seed=i, dtype=dtype, grad=grad, low=low, high=high) for i, s in enumerate(shapes)
    )


def ints(*shape, high=4):
    return lambda lib: (T(lib, arr(*shape, dtype="int64", low=0, high=high)),)


def seeded(fn):
    """A random op after seeding both libraries alike (the draws must be PyTorch's)."""

    def run(lib, *xs):
        lib.manual_seed(7)
        return fn(lib, *xs)

    return run


def _unary(name, *extra, kwargs=None, lo=-4, hi=4, inplace_kw=True, int_case=True, more=()):
    """Cases of an element-wise activation: float32 with grad, float64, an in-place call
    (``inplace=True``) and an integer input."""
    kw = kwargs or {}
    cases = [
        Case(
            lambda lib, x: getattr(F(lib), name)(x, *extra, **kw),
            mk((3, 5), grad=True, low=lo, high=hi),
            **TOL,
        ),
        Case(
            lambda lib, x: getattr(F(lib), name)(x.t(), *extra, **kw),
            mk((4, 3), dtype="float64", low=lo, high=hi),
            name="f64-transposed",
        ),
    ]
    if inplace_kw:
        cases.append(
            Case(
                inplace(lambda lib, x: getattr(F(lib), name)(x, *extra, inplace=True, **kw)),
                mk((3, 4), low=lo, high=hi),
                name="inplace",
                **TOL,
            )
        )
    if int_case:
        cases.append(
            Case(lambda lib, x: getattr(F(lib), name)(x, *extra, **kw), ints(3, 4), name="int")
        )
    return OpSpec(name, cases + list(more))


SPECS = [
    # ------------------------------------------------------------------ activations
    _unary("selu", more=[Case(lambda lib, x: lib.selu(x), mk((2, 3)), name="torch.selu", **TOL)]),
    OpSpec("selu_", [Case(inplace(lambda lib, x: F(lib).selu_(x)), mk((3, 4)), **TOL)]),
    _unary("celu", 0.5),
    OpSpec(
        "celu_",
        [
            Case(inplace(lambda lib, x: F(lib).celu_(x, 2.0)), mk((3, 4)), **TOL),
            Case(lambda lib, x: F(lib).celu(x, 0.0), mk((3, 4)), name="alpha-0"),
        ],
    ),
    _unary("hardswish", lo=-5, hi=5),
    _unary("hardsigmoid", lo=-5, hi=5),
    _unary("mish"),
    _unary("softsign", inplace_kw=False),
    _unary("tanhshrink", inplace_kw=False),
    _unary(
        "softshrink",
        0.7,
        inplace_kw=False,
        more=[Case(lambda lib, x: F(lib).softshrink(x, -1.0), mk((3,)), name="negative")],
    ),
    _unary(
        "hardshrink",
        0.7,
        inplace_kw=False,
        more=[Case(lambda lib, x: lib.hardshrink(x, -1.0), mk((3,)), name="negative")],
    ),
    _unary("threshold", 0.5, -2.0),
    OpSpec(
        "threshold_", [Case(inplace(lambda lib, x: F(lib).threshold_(x, 0.1, 20.0)), mk((3, 4)))]
    ),
    OpSpec(
        "glu",
        [
            Case(lambda lib, x: F(lib).glu(x), mk((3, 6), grad=True), **TOL),
            Case(lambda lib, x: F(lib).glu(x, 0), mk((4, 3), dtype="float64"), name="dim0"),
            Case(lambda lib, x: F(lib).glu(x, 1), mk((4, 3)), name="odd"),
            Case(lambda lib, x: F(lib).glu(x, 2), mk((4, 2)), name="bad-dim"),
            Case(lambda lib: F(lib).glu(lib.tensor(2.0)), name="scalar"),
        ],
    ),
    OpSpec(
        "prelu",
        [
            Case(lambda lib, x, w: F(lib).prelu(x, w), mk((2, 3, 4), (3,), grad=True), **TOL),
            Case(lambda lib, x, w: F(lib).prelu(x, w), mk((2, 3), (1,)), name="shared", **TOL),
            Case(lambda lib, x, w: lib.prelu(x, w), mk((5,), (1,)), name="1d", **TOL),
            Case(lambda lib, x, w: F(lib).prelu(x, w), mk((2, 3, 4), (4,)), name="mismatch"),
            Case(lambda lib, x, w: F(lib).prelu(x, w), mk((5,), (5,)), name="1d-mismatch"),
        ],
    ),
    OpSpec(
        "rrelu",
        [
            Case(lambda lib, x: F(lib).rrelu(x), mk((3, 5), grad=True), name="eval", **TOL),
            Case(
                seeded(lambda lib, x: F(lib).rrelu(x, 0.1, 0.3, training=True)),
                mk((4, 5), grad=True),
                name="train",
                **TOL,
            ),
            Case(
                seeded(lambda lib, x: F(lib).rrelu(x, training=True)),
                mk((4, 5), dtype="float64"),
                name="train-f64",
            ),
            Case(
                seeded(inplace(lambda lib, x: F(lib).rrelu(x, training=True, inplace=True))),
                mk((4, 5)),
                name="train-inplace",
                **TOL,
            ),
            Case(lambda lib, x: F(lib).rrelu(x, 0.5, 0.1), mk((3,)), name="bounds"),
        ],
    ),
    OpSpec(
        "rrelu_",
        [Case(seeded(inplace(lambda lib, x: F(lib).rrelu_(x, training=True))), mk((3, 4)), **TOL)],
    ),
]


def signs(n, seed=5):
    return lambda lib: T(lib, (arr(n, seed=seed) > 0).astype("float32") * 2 - 1)


def _with_target(target, *shapes, grad=True, dtype="float32"):
    """Inputs of ``shapes`` followed by a target made by ``target(lib)``."""
    return lambda lib: mk(*shapes, grad=grad, dtype=dtype)(lib) + (target(lib),)


def _long(values):
    return lambda lib: lib.tensor(values)


def _reductions(name, call, make, extra=()):
    """A loss's cases: each reduction (values, requires_grad), plus ``extra`` cases."""
    return OpSpec(
        name,
        [
            Case(lambda lib, *xs, r=r: call(lib, *xs, reduction=r), make, name=r, **TOL)
            for r in ("mean", "sum", "none")
        ]
        + [Case(lambda lib, *xs: call(lib, *xs, reduction="avg"), make, name="bad-reduction")]
        + list(extra),
    )


SPECS += [
    # --------------------------------------------------------------------- distances
    OpSpec(
        "pairwise_distance",
        [
            Case(
                lambda lib, a, b: F(lib).pairwise_distance(a, b),
                mk((4, 5), (4, 5), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, a, b: lib.pairwise_distance(a, b, 1.0, 1e-3, True),
                mk((4, 5), (5,)),
                name="p1-broadcast-keepdim",
                **TOL,
            ),
            Case(
                lambda lib, a, b: F(lib).pairwise_distance(a, b, float("inf")),
                mk((2, 3, 4), (2, 3, 4), dtype="float64"),
                name="inf",
            ),
            Case(
                lambda lib, a, b: F(lib).pairwise_distance(a, b, 0),
                mk((3, 4), (3, 4)),
                name="p0",
                **TOL,
            ),
        ],
    ),
    OpSpec(
        "cosine_similarity",
        [
            Case(
                lambda lib, a, b: F(lib).cosine_similarity(a, b),
                mk((4, 5), (4, 5), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, a, b: lib.cosine_similarity(a, b, dim=-1),
                mk((2, 3, 4), (3, 4)),
                name="broadcast",
                **TOL,
            ),
            Case(lambda lib, a: F(lib).cosine_similarity(a, a * 0, 0), mk((3,)), name="zero"),
            Case(
                lambda lib: F(lib).cosine_similarity(
                    lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64), 0
                ),
                name="int",
            ),
        ],
    ),
    OpSpec(
        "pdist",
        [
            Case(lambda lib, x: F(lib).pdist(x), mk((5, 3), grad=True), **TOL),
            Case(lambda lib, x: lib.pdist(x, 1), mk((4, 6), dtype="float64"), name="p1"),
            Case(lambda lib, x: lib.pdist(x, float("inf")), mk((4, 6)), name="inf", **TOL),
            Case(lambda lib, x: F(lib).pdist(x), mk((1, 3)), name="one-row"),
            Case(lambda lib, x: F(lib).pdist(x), mk((2, 3, 4)), name="3d"),
            Case(lambda lib, x: F(lib).pdist(x, -1), mk((3, 4)), name="negative-p"),
        ],
    ),
    # ------------------------------------------------------------------------ losses
    _reductions(
        "cosine_embedding_loss",
        lambda lib, a, b, t, **kw: F(lib).cosine_embedding_loss(a, b, t, 0.2, **kw),
        _with_target(signs(4), (4, 5), (4, 5)),
        extra=[
            Case(
                lambda lib, a, b: F(lib).cosine_embedding_loss(a, b, lib.tensor(1.0)),
                mk((5,), (5,), grad=True),
                name="0d-target",
                **TOL,
            ),
            Case(
                lambda lib, a, b: F(lib).cosine_embedding_loss(a, b, lib.ones(4)),
                mk((4,), (4,)),
                name="bad-dims",
            ),
        ],
    ),
    _reductions(
        "margin_ranking_loss",
        lambda lib, a, b, t, **kw: F(lib).margin_ranking_loss(a, b, t, 0.5, **kw),
        _with_target(signs(6), (6,), (6,)),
        extra=[
            Case(
                lambda lib, a, b: F(lib).margin_ranking_loss(a, b, lib.ones(3)),
                mk((3, 1), (3, 1)),
                name="dims",
            )
        ],
    ),
    _reductions(
        "hinge_embedding_loss",
        lambda lib, a, t, **kw: F(lib).hinge_embedding_loss(a, t, 1.5, **kw),
        _with_target(signs(6), (6,)),
    ),
    _reductions(
        "soft_margin_loss",
        lambda lib, a, t, **kw: F(lib).soft_margin_loss(a, t, **kw),
        _with_target(signs(6), (6,)),
        extra=[
            Case(
                lambda lib, a, t: F(lib).soft_margin_loss(a, t),
                mk((3,), (3,), grad=True),
                name="target-requires-grad",
            )
        ],
    ),
    _reductions(
        "triplet_margin_loss",
        lambda lib, a, p, n, **kw: F(lib).triplet_margin_loss(a, p, n, **kw),
        mk((4, 5), (4, 5), (4, 5), grad=True),
        extra=[
            Case(
                lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, 2.0, 1, swap=True),
                mk((4, 5), (4, 5), (4, 5)),
                name="swap-p1",
                **TOL,
            ),
            Case(
                lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n),
                mk((4, 5), (5,), (4, 5)),
                name="dims",
            ),
        ],
    ),
    _reductions(
        "triplet_margin_with_distance_loss",
        lambda lib, a, p, n, **kw: F(lib).triplet_margin_with_distance_loss(a, p, n, **kw),
        mk((4, 5), (4, 5), (4, 5), grad=True),
        extra=[
            Case(
                lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
                    a,
                    p,
                    n,
                    distance_function=lambda x, y: 1 - F(lib).cosine_similarity(x, y),
                    swap=True,
                ),
                mk((4, 5), (4, 5), (4, 5)),
                name="cosine-swap",
                **TOL,
            ),
            Case(
                lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(a, p, n, margin=0),
                mk((4, 5), (4, 5), (4, 5)),
                name="margin-0",
            ),
        ],
    ),
    _reductions(
        "multilabel_soft_margin_loss",
        lambda lib, a, t, **kw: F(lib).multilabel_soft_margin_loss(a, t, **kw),
        _with_target(lambda lib: T(lib, (arr(3, 4, seed=9) > 0).astype("float32")), (3, 4)),
        extra=[
            Case(
                lambda lib, a, t, w: F(lib).multilabel_soft_margin_loss(a, t, w),
                lambda lib: (
                    mk((3, 4), grad=True)(lib)
                    + (
                        T(lib, (arr(3, 4, seed=9) > 0).astype("float32")),
                        T(lib, arr(4, seed=3, low=0.1, high=2)),
                    )
                ),
                name="weight",
                **TOL,
            )
        ],
    ),
    _reductions(
        "poisson_nll_loss",
        lambda lib, a, t, **kw: F(lib).poisson_nll_loss(a, t, **kw),
        _with_target(lambda lib: T(lib, arr(3, 4, seed=4, low=0, high=5)), (3, 4)),
        extra=[
            Case(
                lambda lib, a, t: F(lib).poisson_nll_loss(a.abs(), t, False, True),
                _with_target(lambda lib: T(lib, arr(3, 4, seed=4, low=0, high=5)), (3, 4)),
                name="rate-full",
                **TOL,
            )
        ],
    ),
    _reductions(
        "gaussian_nll_loss",
        lambda lib, a, t, v, **kw: F(lib).gaussian_nll_loss(a, t, v, **kw),
        lambda lib: (
            mk((3, 4), (3, 4), grad=True)(lib)
            + (T(lib, arr(3, 4, seed=8, low=0, high=2), requires_grad=True),)
        ),
        extra=[
            Case(
                lambda lib, a, t, v: F(lib).gaussian_nll_loss(a, t, v, full=True),
                lambda lib: mk((3, 4), (3, 4))(lib) + (T(lib, arr(3, seed=8, low=0, high=2)),),
                name="homoscedastic",
                **TOL,
            ),
            Case(
                lambda lib, a, t: F(lib).gaussian_nll_loss(a, t, 0.5),
                mk((3, 4), (3, 4)),
                name="float-var",
                **TOL,
            ),
            Case(
                lambda lib, a, t: F(lib).gaussian_nll_loss(a, t, -0.5),
                mk((3, 4), (3, 4)),
                name="negative-var",
            ),
            Case(
                lambda lib, a, t: F(lib).gaussian_nll_loss(a, t, lib.ones(2)),
                mk((3, 4), (3, 4)),
                name="bad-var",
            ),
        ],
    ),
    _reductions(
        "multi_margin_loss",
        lambda lib, a, t, **kw: F(lib).multi_margin_loss(a, t, **kw),
        _with_target(_long([1, 0, 4, 2]), (4, 5)),
        extra=[
            Case(
                lambda lib, a, w: F(lib).multi_margin_loss(a, lib.tensor([1, 0, 4]), 2, 0.5, w),
                mk((3, 5), (5,), grad=True),
                name="weight-requires-grad",
            ),
            Case(
                lambda lib, a, w: F(lib).multi_margin_loss(
                    a.requires_grad_(), lib.tensor([1, 0, 4]), 2, 0.5, w
                ),
                mk((3, 5), (5,)),
                name="p2-weight",
                **TOL,
            ),
            Case(
                lambda lib, a: F(lib).multi_margin_loss(a, lib.tensor(2), reduction="none"),
                mk((5,), grad=True),
                name="1d",
                **TOL,
            ),
            Case(
                lambda lib, a: F(lib).multi_margin_loss(a, lib.tensor([5, 0])),
                mk((2, 5)),
                name="out-of-range",
            ),
            Case(
                lambda lib, a: F(lib).multi_margin_loss(a, lib.tensor([1, 0]), p=3),
                mk((2, 5)),
                name="p3",
            ),
            Case(
                lambda lib, a: F(lib).multi_margin_loss(a, lib.tensor([1, 0, 1])),
                mk((2, 5)),
                name="target-size",
            ),
        ],
    ),
    _reductions(
        "multilabel_margin_loss",
        lambda lib, a, t, **kw: F(lib).multilabel_margin_loss(a, t, **kw),
        _with_target(_long([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 0, 0]]), (3, 4)),
        extra=[
            Case(
                lambda lib, a: F(lib).multilabel_margin_loss(
                    a, lib.tensor([2, 0, -1, 3]), reduction="none"
                ),
                mk((4,), grad=True),
                name="1d",
                **TOL,
            ),
            Case(
                lambda lib, a: F(lib).multilabel_margin_loss(a, lib.tensor([[1, 2]])),
                mk((1, 4)),
                name="target-size",
            ),
        ],
    ),
]


def _interp(**kw):
    return lambda lib, x: F(lib).interpolate(x, **kw)


SPECS += [
    # ------------------------------------------------------------------- resampling
    OpSpec(
        "interpolate",
        [
            Case(_interp(scale_factor=2), mk((1, 2, 3, 4), grad=True), name="nearest2d"),
            Case(_interp(size=(5, 7)), mk((2, 1, 3, 4)), name="nearest2d-size"),
            Case(_interp(size=5, mode="nearest-exact"), mk((2, 3, 4)), name="nearest-exact1d"),
            Case(_interp(scale_factor=(1.5, 2, 0.5)), mk((1, 2, 2, 3, 4)), name="nearest3d"),
            Case(
                _interp(size=(5, 7), mode="bilinear"),
                mk((1, 2, 3, 4), grad=True),
                name="bilinear",
                **TOL,
            ),
            Case(
                _interp(scale_factor=0.6, mode="bilinear", align_corners=True),
                mk((1, 2, 5, 6), dtype="float64"),
                name="bilinear-corners-down",
            ),
            Case(
                _interp(scale_factor=1.7, mode="bicubic"), mk((1, 2, 3, 4)), name="bicubic", **TOL
            ),
            Case(
                _interp(size=(6, 2), mode="bicubic", align_corners=True),
                mk((1, 1, 3, 4), dtype="float64"),
                name="bicubic-corners",
            ),
            Case(_interp(scale_factor=2.5, mode="linear"), mk((2, 3, 4)), name="linear", **TOL),
            Case(
                _interp(scale_factor=1.5, mode="linear", recompute_scale_factor=True),
                mk((2, 3, 5)),
                name="linear-recompute",
                **TOL,
            ),
            Case(
                _interp(size=(3, 4, 2), mode="trilinear"),
                mk((1, 2, 2, 3, 4)),
                name="trilinear",
                **TOL,
            ),
            Case(
                _interp(scale_factor=0.5, mode="area"),
                mk((1, 2, 4, 6), grad=True),
                name="area",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).interpolate(
                    x.contiguous(memory_format=lib.channels_last), scale_factor=2, mode="bilinear"
                ),
                mk((1, 3, 2, 3)),
                name="channels-last",
                **TOL,
            ),
            Case(
                lambda lib: F(lib).interpolate(
                    lib.arange(12, dtype=lib.uint8).reshape(1, 1, 3, 4), scale_factor=2
                ),
                name="uint8",
            ),
            Case(
                lambda lib: F(lib).interpolate(lib.arange(6).reshape(1, 1, 6), scale_factor=2),
                name="long",
            ),
            Case(_interp(scale_factor=2, mode="bilinear"), mk((2, 3, 4)), name="bilinear-3d"),
            Case(_interp(scale_factor=2, mode="cubic"), mk((1, 2, 3, 4)), name="bad-mode"),
            Case(
                _interp(scale_factor=2, align_corners=True), mk((1, 2, 3, 4)), name="nearest-align"
            ),
            Case(_interp(size=4, scale_factor=2), mk((1, 2, 3)), name="both"),
            Case(_interp(), mk((1, 2, 3)), name="neither"),
            Case(_interp(size=(4, 4)), mk((1, 2, 3)), name="size-dims"),
            Case(
                _interp(size=(4, 4), recompute_scale_factor=True),
                mk((1, 2, 3, 3)),
                name="recompute-with-size",
            ),
        ],
    ),
]


def _running(lib, c=3):
    return lib.zeros(c), lib.ones(c)


SPECS += [
    # ----------------------------------------------------------- normalization etc.
    OpSpec(
        "instance_norm",
        [
            Case(lambda lib, x: F(lib).instance_norm(x), mk((2, 3, 5), grad=True), **TOL),
            Case(
                lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b, eps=1e-3),
                mk((2, 3, 4, 4), (3,), (3,), grad=True),
                name="affine",
                **TOL,
            ),
            Case(
                lambda lib, x: (
                    lambda rm, rv: (F(lib).instance_norm(x, rm, rv, momentum=0.3), rm, rv)
                )(*_running(lib)),
                mk((2, 3, 6), dtype="float64"),
                name="running-stats",
            ),
            Case(
                lambda lib, x: F(lib).instance_norm(x, *_running(lib), use_input_stats=False),
                mk((2, 3, 6)),
                name="eval",
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).instance_norm(x, use_input_stats=False),
                mk((2, 3, 6)),
                name="eval-without-stats",
            ),
            Case(lambda lib, x: F(lib).instance_norm(x), mk((2, 3, 1)), name="one-element"),
        ],
    ),
    OpSpec(
        "local_response_norm",
        [
            Case(lambda lib, x: F(lib).local_response_norm(x, 3), mk((2, 5, 4), grad=True), **TOL),
            Case(
                lambda lib, x: F(lib).local_response_norm(x, 2, 1e-2, 0.5, 2.0),
                mk((2, 6, 3, 4), dtype="float64"),
                name="4d",
            ),
            Case(
                lambda lib, x: F(lib).local_response_norm(x, 4),
                mk((1, 5, 2, 2, 3)),
                name="5d",
                **TOL,
            ),
            Case(lambda lib, x: F(lib).local_response_norm(x, 3), mk((2, 5)), name="2d"),
        ],
    ),
    OpSpec(
        "alpha_dropout",
        [
            Case(
                seeded(lambda lib, x: F(lib).alpha_dropout(x, 0.3, True)),
                mk((4, 5), grad=True),
                **TOL,
            ),
            Case(lambda lib, x: F(lib).alpha_dropout(x, 0.3), mk((4, 5)), name="eval"),
            Case(
                seeded(inplace(lambda lib, x: F(lib).alpha_dropout(x, 0.5, True, True))),
                mk((4, 5), dtype="float64"),
                name="inplace",
            ),
            Case(lambda lib, x: F(lib).alpha_dropout(x, 1.0, True), mk((2, 3)), name="p1"),
            Case(lambda lib, x: F(lib).alpha_dropout(x, 1.5, True), mk((2, 3)), name="bad-p"),
        ],
    ),
    OpSpec(
        "feature_alpha_dropout",
        [
            Case(
                seeded(lambda lib, x: F(lib).feature_alpha_dropout(x, 0.4, True)),
                mk((3, 4, 2, 2), grad=True),
                **TOL,
            ),
            Case(
                seeded(lambda lib, x: F(lib).feature_alpha_dropout(x, 0.4, True)),
                mk((3,)),
                name="1d",
            ),
        ],
    ),
    OpSpec(
        "channel_shuffle",
        [
            Case(lambda lib, x: F(lib).channel_shuffle(x, 2), mk((2, 6, 3), grad=True)),
            Case(lambda lib, x: lib.channel_shuffle(x, 3), mk((1, 6, 2, 2)), name="torch"),
            Case(lambda lib, x: F(lib).channel_shuffle(x, 4), mk((1, 6, 2)), name="indivisible"),
            Case(lambda lib, x: F(lib).channel_shuffle(x, 2), mk((6, 2)), name="2d"),
        ],
    ),
    OpSpec(
        "native_channel_shuffle",
        [
            Case(lambda lib, x: F(lib).native_channel_shuffle(x, 3), mk((2, 6, 3))),
        ],
    ),
]


def _pool_then(fn):
    """``fn(lib, pooled, indices)`` after a 2x2 max pool of the input."""
    return lambda lib, x: fn(lib, *F(lib).max_pool2d(x, 2, return_indices=True))


SPECS += [
    # --------------------------------------------------------------- pooling, patches
    OpSpec(
        "adaptive_max_pool2d",
        [
            Case(lambda lib, x: F(lib).adaptive_max_pool2d(x, (3, 2)), mk((2, 3, 7, 5), grad=True)),
            Case(
                lambda lib, x: F(lib).adaptive_max_pool2d(x, (None, 4), return_indices=True),
                mk((3, 6, 9), dtype="float64"),
                name="indices-none",
            ),
            Case(lambda lib, x: F(lib).adaptive_max_pool2d(x, 5), mk((1, 2, 3, 4)), name="up"),
            Case(lambda lib, x: F(lib).adaptive_max_pool2d(x, 2), mk((2, 3)), name="2d"),
        ],
    ),
    OpSpec(
        "adaptive_max_pool2d_with_indices",
        [Case(lambda lib, x: F(lib).adaptive_max_pool2d_with_indices(x, 3), mk((1, 2, 5, 5)))],
    ),
    OpSpec(
        "adaptive_max_pool1d",
        [
            Case(lambda lib, x: F(lib).adaptive_max_pool1d(x, 3), mk((2, 3, 7), grad=True)),
            Case(lambda lib, x: F(lib).adaptive_max_pool1d(x, 4, True), mk((3, 9)), name="indices"),
        ],
    ),
    OpSpec(
        "adaptive_max_pool1d_with_indices",
        [Case(lambda lib, x: F(lib).adaptive_max_pool1d_with_indices(x, 2), mk((1, 2, 5)))],
    ),
    OpSpec(
        "lp_pool2d",
        [
            Case(lambda lib, x: F(lib).lp_pool2d(x, 2, 2), mk((1, 2, 4, 6), grad=True), **TOL),
            Case(
                lambda lib, x: F(lib).lp_pool2d(x.abs(), 3.0, (2, 3), stride=1, ceil_mode=True),
                mk((1, 2, 5, 5), dtype="float64"),
                name="p3-ceil",
            ),
        ],
    ),
    OpSpec(
        "lp_pool1d",
        [Case(lambda lib, x: F(lib).lp_pool1d(x, 2, 3, stride=2), mk((2, 3, 8), grad=True), **TOL)],
    ),
    OpSpec(
        "max_unpool2d",
        [
            Case(
                _pool_then(lambda lib, p, i: F(lib).max_unpool2d(p, i, 2)),
                mk((1, 2, 4, 6), grad=True),
            ),
            Case(
                _pool_then(lambda lib, p, i: F(lib).max_unpool2d(p, i, 2, output_size=(5, 7))),
                mk((1, 2, 5, 7)),
                name="output-size",
            ),
            Case(
                _pool_then(lambda lib, p, i: F(lib).max_unpool2d(p, i, 2, output_size=(9, 9))),
                mk((1, 2, 5, 7)),
                name="bad-output-size",
            ),
            Case(
                _pool_then(lambda lib, p, i: F(lib).max_unpool2d(p, i.float(), 2)),
                mk((1, 2, 4, 4)),
                name="float-indices",
            ),
        ],
    ),
    OpSpec(
        "max_unpool1d",
        [
            Case(
                lambda lib, x: F(lib).max_unpool1d(
                    *F(lib).max_pool1d(x, 2, return_indices=True), 2
                ),
                mk((2, 3, 8), grad=True),
            )
        ],
    ),
    OpSpec(
        "im2col",
        [
            Case(
                lambda lib, x: F(lib).unfold(x, (2, 3), padding=1, stride=(2, 1)),
                mk((2, 3, 7, 5), grad=True),
            ),
            Case(
                lambda lib, x: F(lib).unfold(x, 2, dilation=2),
                mk((3, 6, 6), dtype="float64"),
                name="unbatched-dilation",
            ),
            Case(lambda lib, x: F(lib).unfold(x, 4), mk((1, 1, 3, 3)), name="too-large"),
            Case(lambda lib, x: F(lib).unfold(x, 2), mk((3, 3)), name="2d"),
        ],
    ),
    OpSpec(
        "col2im",
        [
            Case(
                lambda lib, x: F(lib).fold(x, (7, 5), (2, 3), padding=1, stride=(2, 1)),
                mk((2, 18, 20), grad=True),
                **TOL,
            ),
            Case(
                lambda lib, x: F(lib).fold(x, 4, 2),
                mk((8, 9), dtype="float64"),
                name="unbatched-overlap",
            ),
            Case(lambda lib, x: F(lib).fold(x, 4, 2), mk((1, 7, 9)), name="indivisible"),
            Case(lambda lib, x: F(lib).fold(x, 4, 2), mk((1, 8, 8)), name="block-count"),
        ],
    ),
]


def _gen(lib):
    g = lib.Generator()
    g.manual_seed(3)
    return g


def _spec(name):
    return next(s for s in SPECS if s.name == name)


_spec("hardshrink").cases += [
    Case(
        lambda lib, x: (lambda o: (lib.hardshrink(x, 0.5, out=o), o))(lib.empty(0)),
        mk((3, 4)),
        name="out",
    ),
    Case(
        lambda lib, x: lib.hardshrink(x, out=lib.empty(0)),
        mk((3,), grad=True),
        name="out-requires-grad",
    ),
]
_spec("threshold").cases.append(
    Case(
        lambda lib, x: (lambda o: (lib.threshold(x, 0.1, 2.0, out=o), o))(lib.empty(2)),
        mk((3, 4)),
        name="out",
    )
)
_spec("rrelu").cases.append(
    Case(
        lambda lib, x: lib.rrelu(x, 0.1, 0.3, True, generator=_gen(lib)),
        mk((4, 5)),
        name="generator",
        **TOL,
    )
)

SPECS += [
    OpSpec(
        "gumbel_softmax",
        [
            Case(
                seeded(lambda lib, x: F(lib).gumbel_softmax(x, tau=0.5)),
                mk((3, 5), grad=True),
                **TOL,
            ),
            Case(
                seeded(lambda lib, x: F(lib).gumbel_softmax(x, hard=True, dim=0)),
                mk((4, 3), grad=True),
                name="hard",
                **TOL,
            ),
        ],
    ),
    OpSpec(
        "max_pool1d_with_indices",
        [
            Case(lambda lib, x: F(lib).max_pool1d_with_indices(x, 2), mk((2, 3, 8), grad=True)),
            Case(
                lambda lib, x: F(lib).max_pool1d_with_indices(x, 3, 2, 1, ceil_mode=True),
                mk((3, 7)),
                name="unbatched-ceil",
            ),
        ],
    ),
]


def _bag(**kw):
    return lambda lib, w: F(lib).embedding_bag(
        lib.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w, lib.tensor([0, 4, 4]), **kw
    )


SPECS += [
    OpSpec(
        "embedding_bag",
        [
            Case(_bag(), mk((10, 3), grad=True), **TOL),
            Case(
                _bag(mode="sum", padding_idx=2), mk((10, 3), grad=True), name="sum-padding", **TOL
            ),
            Case(_bag(mode="max"), mk((10, 3), dtype="float64"), name="max"),
            Case(
                _bag(mode="sum", include_last_offset=True, per_sample_weights=None),
                mk((10, 3)),
                name="last-offset",
                **TOL,
            ),
            Case(
                lambda lib, w: F(lib).embedding_bag(lib.tensor([[1, 2], [3, 3]]), w, mode="sum"),
                mk((5, 2), grad=True),
                name="2d",
                **TOL,
            ),
            Case(
                lambda lib, w: F(lib).embedding_bag(lib.tensor([1, 2]), w),
                mk((5, 2)),
                name="no-offsets",
            ),
            Case(
                lambda lib, w: F(lib).embedding_bag(
                    lib.tensor([1, 2]),
                    w,
                    lib.tensor([0]),
                    mode="mean",
                    per_sample_weights=lib.ones(2),
                ),
                mk((5, 2)),
                name="weights-mean",
            ),
        ],
    ),
]
