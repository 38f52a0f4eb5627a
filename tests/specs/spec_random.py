"""Specs of the random ops: shapes, dtypes, layouts and errors vs PyTorch.

The harness does not seed the two libraries alike, so sampled outputs use
``check_values=False``; cases whose result is deterministic (p=0/1, std=0, one-hot
probabilities, a range of width one) compare values too. Distribution checks live in
tests/ops/test_random.py; the values themselves, seeded, are compared with PyTorch's bit for
bit in tests/ops/test_random_streams.py.
"""

from tests.harness.conformance import Case, OpSpec, T, arr


def x34(lib):
    return T(lib, arr(3, 4))


def xt(lib):
    return T(lib, arr(3, 4)).t()


def nhwc(lib):
    return T(lib, arr(2, 3, 4, 5)).permute(0, 2, 3, 1)


def probs(lib):
    return T(lib, arr(3, 4, low=0, high=1))


def r(run, make=None, name=""):
    return Case(run, make=make, name=name, check_values=False)


def d(run, make=None, name=""):
    return Case(run, make=make, name=name)


SPECS = [
    OpSpec("rand", [
        r(lambda lib: lib.rand(2, 3)),
        r(lambda lib: lib.rand((2, 3))),
        r(lambda lib: lib.rand([])),
        r(lambda lib: lib.rand(2, dtype=lib.float64, requires_grad=True)),
        r(lambda lib: lib.rand(2, dtype=lib.float16)),
        r(lambda lib: lib.rand(2, dtype=lib.complex64)),
        r(lambda lib: lib.rand(2, 3, dtype=lib.int64), name="int"),
        r(lambda lib: lib.rand(2, dtype=lib.bool), name="bool"),
        r(lambda lib: lib.rand(2, 3, generator=lib.Generator()), name="generator"),
        r(lambda lib: lib.rand(2, 3, out=lib.empty(3)), name="out"),
        r(lambda lib: lib.rand(-1), name="negative"),
    ]),
    OpSpec("randn", [
        r(lambda lib: lib.randn(2, 3)),
        r(lambda lib: lib.randn(4, dtype=lib.bfloat16)),
        r(lambda lib: lib.randn(2, dtype=lib.complex128)),
        r(lambda lib: lib.randn(2, dtype=lib.int32), name="int"),
        r(lambda lib: lib.randn(2, out=lib.empty(2, dtype=lib.float64)), name="out"),
        r(lambda lib: lib.randn(2, requires_grad=True), name="requires-grad"),
    ]),
    OpSpec("randint", [
        r(lambda lib: lib.randint(10, (3,))),
        r(lambda lib: lib.randint(3, 10, (2, 3))),
        r(lambda lib: lib.randint(3, 10, (3,), dtype=lib.float32), name="float"),
        r(lambda lib: lib.randint(low=2, high=5, size=(2,)), name="keywords"),
        r(lambda lib: lib.randint(high=3, size=(2,)), name="high-keyword"),
        r(lambda lib: lib.randint(2, 3, size=(2,)), name="size-keyword"),
        d(lambda lib: lib.randint(4, 5, (2, 2)), name="single-value"),
        r(lambda lib: lib.randint(0, 2, (3,), dtype=lib.bool), name="bool"),
        r(lambda lib: lib.randint(10, 3, (3,)), name="empty-range"),
        r(lambda lib: lib.randint(-5, (3,)), name="negative-high"),
        r(lambda lib: lib.randint(10, (3,), dtype=lib.bool), name="bool-bounds"),
        r(lambda lib: lib.randint(0, 300, (3,), dtype=lib.uint8), name="uint8-bounds"),
        r(lambda lib: lib.randint(10, 3), name="int-size"),
        r(lambda lib: lib.randint(3.5, (2,)), name="float-high"),
        r(lambda lib: lib.randint(5, (3,), requires_grad=True), name="int-requires-grad"),
        r(lambda lib: lib.randint(0, 2 ** 63 - 1, (3,)), name="huge-range"),
    ]),
    OpSpec("randperm", [
        r(lambda lib: lib.randperm(5)),
        r(lambda lib: lib.randperm(5, dtype=lib.float32)),
        r(lambda lib: lib.randperm(0)),
        d(lambda lib: lib.randperm(1), name="one"),
        d(lambda lib: lib.randperm(50).sort().values if hasattr(lib.Tensor, "sort")
          else lib.arange(50), name="is-a-permutation"),
        r(lambda lib: lib.randperm(-1), name="negative"),
        r(lambda lib: lib.randperm(300, dtype=lib.uint8), name="uint8-overflow"),
        r(lambda lib: lib.randperm(3, dtype=lib.bool), name="bool"),
        r(lambda lib: lib.randperm(5, requires_grad=True), name="int-requires-grad"),
        r(lambda lib: lib.randperm(4, out=lib.empty(2, dtype=lib.int64)), name="out"),
    ]),
    OpSpec("normal", [
        r(lambda lib: lib.normal(lib.zeros(3), lib.ones(3)), name="tensor-tensor"),
        r(lambda lib: lib.normal(lib.zeros(3), 1.0), name="tensor-float"),
        r(lambda lib: lib.normal(0.0, lib.ones(3)), name="float-tensor"),
        r(lambda lib: lib.normal(0.0, 1.0, (2, 3)), name="float-float-size"),
        r(lambda lib: lib.normal(0, 1, size=(2, 3), dtype=lib.float64), name="size-dtype"),
        r(lambda lib: lib.normal(lib.zeros(3, 1), lib.ones(1, 2)), name="broadcast"),
        r(lambda lib: lib.normal(lib.zeros(3), lib.ones(3, 3)), name="broadcast-std"),
        r(lambda lib: lib.normal(lib.zeros(3), lib.ones(2)), name="mismatch"),
        r(lambda lib: lib.normal(lib.zeros(3, dtype=lib.float64), lib.ones(3)),
          name="mean-dtype"),
        r(lambda lib: lib.normal(lib.zeros(3), lib.ones(3, dtype=lib.float64)),
          name="mean-dtype-wins"),
        r(lambda lib: lib.normal(lib.zeros(3, dtype=lib.float16), 1.0), name="half"),
        r(lambda lib, x: lib.normal(x, 1.0), make=xt, name="contiguous-output"),
        d(lambda lib, x: lib.normal(x, 0.0), make=x34, name="zero-std-is-mean"),
        d(lambda lib: lib.normal(2.0, 0.0, (3,)), name="zero-std-scalar"),
        r(lambda lib: lib.normal(lib.zeros(3), -lib.ones(3)), name="negative-std-tensor"),
        r(lambda lib: lib.normal(0.0, -1.0, (3,)), name="negative-std"),
        r(lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), 1.0), name="int-mean"),
        r(lambda lib: lib.normal(1.0, 2.0), name="no-size"),
        r(lambda lib: lib.normal(1.0, 2.0, (3,), generator=lib.Generator()), name="generator"),
    ]),
    OpSpec("bernoulli", [
        r(lambda lib, p: lib.bernoulli(p), make=probs),
        r(lambda lib, p: p.bernoulli(0.3), make=probs, name="p-number"),
        r(lambda lib, p: lib.bernoulli(p.t()), make=probs, name="contiguous-output"),
        r(lambda lib, x: lib.bernoulli(x), make=lambda lib: lib.ones(2, 3, 4, 5).permute(
            0, 2, 3, 1), name="permuted"),
        d(lambda lib: lib.bernoulli(lib.ones(3, 4)), name="p-one"),
        d(lambda lib: lib.bernoulli(lib.zeros(3, 4, dtype=lib.float64)), name="p-zero"),
        d(lambda lib: lib.bernoulli(lib.ones(3, dtype=lib.int64), 0.0), name="int-p-number"),
        r(lambda lib: lib.bernoulli(lib.full((3,), 1.5)), name="p-out-of-range"),
        r(lambda lib: lib.bernoulli(lib.ones(3, dtype=lib.int64)), name="int-probabilities"),
        r(lambda lib: lib.bernoulli(lib.ones(3), 1.5), name="p-number-out-of-range"),
        r(lambda lib: lib.bernoulli(lib.full((3,), 0.5, dtype=lib.float16)), name="half"),
    ]),
    OpSpec("multinomial", [
        r(lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 2)),
        r(lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 5, replacement=True),
          name="replacement"),
        r(lambda lib, p: p.multinomial(3), make=probs, name="2d"),
        d(lambda lib: lib.multinomial(lib.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]), 4, True),
          name="one-hot"),
        d(lambda lib: lib.multinomial(lib.tensor([0.0, 0.0, 2.0, 0.0]), 1), name="one-hot-1d"),
        r(lambda lib: lib.multinomial(lib.tensor([1.0, 0, 0]), 2), name="zeros-drawn-last"),
        r(lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 3), name="too-many"),
        r(lambda lib: lib.multinomial(lib.tensor([-0.2, 0.8]), 1), name="negative"),
        r(lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1), name="zero-sum"),
        r(lambda lib: lib.multinomial(lib.tensor([float("nan"), 0.0]), 1), name="nan"),
        r(lambda lib: lib.multinomial(lib.tensor([float("inf"), 0.0]), 1), name="inf"),
        r(lambda lib: lib.multinomial(lib.tensor([1, 2]), 1), name="int"),
        r(lambda lib: lib.multinomial(lib.tensor([1.0, 2]), 0), name="zero-samples"),
        r(lambda lib: lib.multinomial(lib.tensor(1.0), 1), name="0d"),
        r(lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1), name="3d"),
        r(lambda lib: lib.multinomial(lib.ones(0, 3), 1), name="no-rows"),
        r(lambda lib: lib.multinomial(lib.ones(3, dtype=lib.float64), 2), name="float64"),
    ]),
    OpSpec("poisson", [
        r(lambda lib: lib.poisson(lib.ones(3) * 4)),
        d(lambda lib: lib.poisson(lib.zeros(2, 3)), name="zero-rate"),
        r(lambda lib: lib.poisson(-lib.ones(3)), name="negative-rate"),
        r(lambda lib: lib.poisson(lib.ones(3, dtype=lib.int64)), name="int"),
    ]),
    OpSpec("rand_like", [
        r(lambda lib, x: lib.rand_like(x), make=xt),
        r(lambda lib, x: lib.rand_like(x), make=nhwc, name="nhwc"),
        r(lambda lib, x: lib.rand_like(x, dtype=lib.float64), make=x34),
        r(lambda lib, x: lib.rand_like(x, memory_format=lib.contiguous_format), make=nhwc,
          name="contiguous"),
        r(lambda lib: lib.rand_like(lib.ones(2, dtype=lib.int64)), name="int"),
        r(lambda lib, x: lib.rand_like(x, pin_memory=False), make=nhwc, name="pin_memory"),
    ]),
    OpSpec("randn_like", [
        r(lambda lib, x: lib.randn_like(x), make=xt),
        r(lambda lib, x: lib.randn_like(x, requires_grad=True), make=x34),
        r(lambda lib: lib.randn_like(lib.ones(2, dtype=lib.int64)), name="int"),
        r(lambda lib, x: lib.randn_like(x, pin_memory=False), make=xt, name="pin_memory"),
    ]),
    OpSpec("randint_like", [
        r(lambda lib, x: lib.randint_like(x, 10), make=x34),
        r(lambda lib, x: lib.randint_like(x, 3, 10), make=xt),
        d(lambda lib, x: lib.randint_like(x, 2, 3), make=nhwc, name="single-value"),
        r(lambda lib, x: lib.randint_like(x, 10, 3), make=x34, name="empty-range"),
        r(lambda lib: lib.randint_like(lib.ones(3, dtype=lib.int64), 5, dtype=lib.int32),
          name="dtype"),
        r(lambda lib, x: lib.randint_like(x, 10, pin_memory=False), make=xt, name="pin_memory"),
        # PyTorch's overloads (input, high) and (input, low, high), by keyword too.
        d(lambda lib, x: lib.randint_like(x, low=2, high=3), make=x34, name="low-high"),
        d(lambda lib, x: lib.randint_like(x, high=1), make=x34, name="high"),
        d(lambda lib, x: lib.randint_like(x, 4, high=5), make=x34, name="low-positional-high"),
        d(lambda lib, x: lib.randint_like(input=x, high=lib.tensor(1)), make=x34,
          name="high-tensor"),
        r(lambda lib, x: lib.randint_like(x, low=2), make=x34, name="low-only-error"),
        r(lambda lib, x: lib.randint_like(x, 5, low=1), make=x34, name="high-and-low-error"),
        r(lambda lib, x: lib.randint_like(x, 1, 5, high=6), make=x34, name="two-highs-error"),
        r(lambda lib, x: lib.randint_like(x, high=5.0), make=x34, name="float-high-error"),
        r(lambda lib, x: lib.randint_like(x), make=x34, name="no-bound-error"),
        r(lambda lib, x: lib.randint_like(x, low_or_high=5), make=x34, name="old-name-error"),
    ]),
    OpSpec("uniform_", [
        r(lambda lib, x: x.uniform_(), make=x34),
        r(lambda lib, x: x.uniform_(2, 5), make=xt, name="keeps-strides"),
        d(lambda lib, x: x.uniform_(2, 2), make=x34, name="degenerate"),
        r(lambda lib, x: x.uniform_(5, 2), make=x34, name="reversed"),
        r(lambda lib: lib.ones(3, dtype=lib.int64).uniform_(), name="int"),
        r(lambda lib: lib.zeros(3).uniform_(0, float("inf")), name="inf"),
        r(lambda lib: lib.zeros(3, dtype=lib.complex64).uniform_(), name="complex"),
        r(lambda lib: lib.ones(3)[None].expand(2, 3).uniform_(), name="expanded"),
        r(lambda lib: T(lib, arr(3), requires_grad=True).uniform_(), name="leaf-requires-grad"),
        r(lambda lib, x: x.uniform_(generator=lib.Generator()), make=x34, name="generator"),
        r(lambda lib, x: x.uniform_(**{"from": 1, "to": 3}), make=x34, name="from-to-keywords"),
    ]),
    OpSpec("normal_", [
        r(lambda lib, x: x.normal_(), make=x34),
        r(lambda lib, x: x.normal_(2.0, 0.5), make=xt),
        d(lambda lib, x: x.normal_(mean=2.0, std=0.0), make=x34, name="zero-std"),
        r(lambda lib, x: x.normal_(0, -1), make=x34, name="negative-std"),
        r(lambda lib: lib.ones(3, dtype=lib.int64).normal_(), name="int"),
        r(lambda lib: lib.zeros(3, dtype=lib.complex64).normal_(), name="complex"),
    ]),
    OpSpec("random_", [
        r(lambda lib, x: x.random_(), make=x34),
        r(lambda lib, x: x.random_(10), make=x34, name="to"),
        r(lambda lib, x: x.random_(2, 10), make=xt, name="from-to"),
        r(lambda lib: lib.ones(3, dtype=lib.int64).random_(), name="int64"),
        r(lambda lib: lib.ones(3, dtype=lib.bool).random_(), name="bool"),
        d(lambda lib: lib.ones(3, dtype=lib.int32).random_(7, 8), name="single-value"),
        r(lambda lib, x: x.random_(10, 2), make=x34, name="reversed"),
        r(lambda lib: lib.ones(3, dtype=lib.uint8).random_(-1, 5), name="from-out-of-bounds"),
        r(lambda lib: lib.ones(3, dtype=lib.uint8).random_(0, 300), name="to-out-of-bounds"),
        r(lambda lib: lib.zeros(3, dtype=lib.complex64).random_(), name="complex"),
        r(lambda lib: lib.ones(3).random_(5, None), name="from-only"),
    ]),
    OpSpec("exponential_", [
        r(lambda lib, x: x.exponential_(), make=x34),
        r(lambda lib, x: x.exponential_(3.0), make=xt),
        r(lambda lib, x: x.exponential_(-1), make=x34, name="negative"),
        r(lambda lib, x: x.exponential_(0), make=x34, name="zero"),
        r(lambda lib: lib.ones(3, dtype=lib.int64).exponential_(), name="int"),
    ]),
    OpSpec("geometric_", [
        r(lambda lib, x: x.geometric_(0.3), make=x34),
        r(lambda lib, x: x.geometric_(0.7), make=xt),
        r(lambda lib: lib.ones(3, dtype=lib.int64).geometric_(0.5), name="int"),
        r(lambda lib, x: x.geometric_(0), make=x34, name="p-zero"),
        r(lambda lib, x: x.geometric_(1.5), make=x34, name="p-above-one"),
        r(lambda lib: lib.ones(3, dtype=lib.bool).geometric_(0.5), name="bool"),
        r(lambda lib: lib.zeros(3, dtype=lib.complex64).geometric_(0.5), name="complex"),
    ]),
    OpSpec("log_normal_", [
        r(lambda lib, x: x.log_normal_(), make=x34),
        r(lambda lib, x: x.log_normal_(0.5, 0.25), make=xt),
        r(lambda lib, x: x.log_normal_(1, 0), make=x34, name="zero-std"),
        r(lambda lib: lib.ones(3, dtype=lib.int64).log_normal_(), name="int"),
    ]),
    OpSpec("cauchy_", [
        r(lambda lib, x: x.cauchy_(), make=x34),
        r(lambda lib, x: x.cauchy_(2.0, 0.5), make=xt),
        r(lambda lib: lib.ones(3, dtype=lib.int64).cauchy_(), name="int"),
    ]),
    OpSpec("bernoulli_", [
        r(lambda lib, x: x.bernoulli_(), make=x34),
        r(lambda lib, x: x.bernoulli_(0.3), make=xt),
        d(lambda lib, x: x.bernoulli_(1.0), make=x34, name="p-one"),
        d(lambda lib: lib.ones(3, dtype=lib.int64).bernoulli_(0.0), name="int-p-zero"),
        d(lambda lib, x: x.bernoulli_(lib.ones(4)), make=x34, name="p-tensor-broadcast"),
        r(lambda lib, x: x.bernoulli_(lib.full((3,), 0.3)), make=x34, name="p-tensor-mismatch"),
        r(lambda lib, x: x.bernoulli_(1.5), make=x34, name="p-out-of-range"),
        r(lambda lib: lib.zeros(3, dtype=lib.complex64).bernoulli_(), name="complex"),
    ]),
]
