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
