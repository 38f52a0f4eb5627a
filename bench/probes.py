"""Bad-input probes: a few hundred wrong or extreme calls made against jtensor and PyTorch.

    .venv/bin/python bench/probes.py [--verbose] [--json PATH]

Each probe is one call (wrong dtypes, wrong shapes, dims out of range, negative and huge
sizes, NaN/inf arguments, wrong argument types, empty tensors, bad keyword arguments, and
tensors on two devices, through the emulated CUDA device when no GPU is there). It runs once
with ``jtensor`` and once with ``torch`` and is classified:

- **same type**: both raise the same builtin exception type (``RuntimeError``,
  ``IndexError``...; PyTorch's ``LinAlgError`` counts as its ``RuntimeError``), or both return;
- **same value**: both return, with equal values, dtype and shape;
- **leak**: jtensor raises an exception type that PyTorch does not raise for that call and
  that is not one of the builtins PyTorch uses (NumPy's errors, ``KeyError``,
  ``AttributeError``, ``AssertionError``, ``ZeroDivisionError``, ``OverflowError``... from
  inside jtensor). The goal is zero leaks; ``tests/core/test_probes.py`` fails on any.

PyTorch (CPU) cannot make CUDA tensors, so the device probes state PyTorch's documented
answer (``RuntimeError``: "Expected all tensors to be on the same device") instead of
running it.
"""

import argparse
import json
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import jtensor  # noqa: E402

# The builtin exception types PyTorch raises for bad input (its own subclasses, such as
# torch.linalg.LinAlgError or torch.OutOfMemoryError, count as the builtin they extend).
BUILTINS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)
HUGE = 2**40


def kind(exc):
    """The builtin PyTorch type an exception is, or None when it is none of them."""
    for base in BUILTINS:
        if isinstance(exc, base):
            return base.__name__
    return None


def _exact_ok(exc):
    """Raised as PyTorch raises: a builtin of BUILTINS itself or a subclass named as
    PyTorch's own (``LinAlgError``, ``OutOfMemoryError``, ``AcceleratorError``), never
    NumPy's ``AxisError``."""
    t = type(exc)
    if t in BUILTINS:
        return True
    return kind(exc) is not None and t.__name__ in (
        "LinAlgError",
        "_LinAlgError",
        "OutOfMemoryError",
        "AcceleratorError",
    )


def run(fn, lib):
    """('ok', value) or ('raised', exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn(lib))
    except Exception as exc:  # noqa: BLE001 - the exception is the observation
        return ("raised", exc)


def _values(x):
    """A comparable form of a result (tensors as NumPy arrays, tuples element-wise)."""
    if isinstance(x, (tuple, list)):
        return [_values(v) for v in x]
    if hasattr(x, "detach") and hasattr(x, "dtype") and hasattr(x, "shape"):
        t = x.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        return ("tensor", str(t.dtype), tuple(t.shape), t.numpy())
    return x


def _same_value(a, b):
    a, b = _values(a), _values(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value_v(x, y) for x, y in zip(a, b, strict=True))
    return _same_value_v(a, b)


def _same_value_v(a, b):
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(_same_value_v(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, tuple) and a and a[0] == "tensor":
        if not (isinstance(b, tuple) and b and b[0] == "tensor"):
            return False
        if a[1] != b[1] or a[2] != b[2]:
            return False
        x, y = a[3], b[3]
        if x.dtype.kind in "fc":
            return bool(np.allclose(x, y, rtol=1e-5, atol=1e-7, equal_nan=True))
        return bool(np.array_equal(x, y))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values differ
        return False


# ---------------------------------------------------------------------------- the probes
def _t(L, *shape, dtype=None):
    """arange values in ``shape`` (float32 unless ``dtype``), the same in both libraries."""
    n = math.prod(shape)
    x = L.arange(n, dtype=L.float32).reshape(shape) - (n // 2)
    return x if dtype is None else x.to(getattr(L, dtype))


def probes():
    """[(name, fn(lib), expected)]: ``expected`` is None (ask torch) or PyTorch's answer."""
    P = []

    def add(name, fn, expected=None):
        P.append((name, fn, expected))

    # -- factories: sizes that are negative, huge, of the wrong type; bad dtypes, devices
    factories = {
        "zeros": lambda L, s, **k: L.zeros(s, **k),
        "ones": lambda L, s, **k: L.ones(s, **k),
        "empty": lambda L, s, **k: L.empty(s, **k),
        "full": lambda L, s, **k: L.full(s, 1.5, **k),
        "rand": lambda L, s, **k: L.rand(s, **k),
        "randn": lambda L, s, **k: L.randn(s, **k),
        "randint": lambda L, s, **k: L.randint(0, 5, s, **k),
        "eye": lambda L, s, **k: L.eye(*(s if isinstance(s, tuple) else (s,)), **k),
    }
    sizes = {
        "negative": (-1,),
        "negative-2d": (2, -3),
        "huge": (HUGE,),
        "overflow": (2**62, 4),
        "past-int64": (2**63,),
        "float": (2.5,),
        "str": ("3",),
        "none": (None,),
        "nested": ((2, (3,)),),
    }
    for fname, f in factories.items():
        for sname, s in sizes.items():
            if fname == "eye" and sname in ("overflow", "past-int64", "huge"):
                s = (2**21,) if sname == "huge" else s
            add(f"{fname}(size={sname})", lambda L, f=f, s=s: f(L, s))
        add(f"{fname}(dtype='float32')", lambda L, f=f: f(L, (2,), dtype="float32"))
        add(f"{fname}(dtype=int)", lambda L, f=f: f(L, (2,), dtype=3))
        add(f"{fname}(device='banana')", lambda L, f=f: f(L, (2,), device="banana"))
        add(f"{fname}(device='cpu:x')", lambda L, f=f: f(L, (2,), device="cpu:x"))
        add(f"{fname}(requires_grad='yes')", lambda L, f=f: f(L, (2,), requires_grad="yes"))
        add(f"{fname}(bogus=1)", lambda L, f=f: f(L, (2,), bogus=1))
        add(f"{fname}(empty)", lambda L, f=f: f(L, (0, 3)))
    add("zeros(int64, requires_grad)", lambda L: L.zeros(2, dtype=L.int64, requires_grad=True))
    add("randint(low>high)", lambda L: L.randint(5, 0, (3,)))
    add("randint(inf)", lambda L: L.randint(0, float("inf"), (3,)))
    add("randint(float bounds)", lambda L: L.randint(0.5, 3.5, (3,)))
    add("full(nan)", lambda L: L.full((2,), float("nan")))
    add("full(int dtype, 1.5)", lambda L: L.full((2,), 1.5, dtype=L.int64))
    add("full(int dtype, nan)", lambda L: L.full((2,), float("nan"), dtype=L.int64))
    add("full(bool, 2)", lambda L: L.full((2,), 2, dtype=L.bool))
    add("full(uint8, -1)", lambda L: L.full((2,), -1, dtype=L.uint8))
    add("full(uint8, 300)", lambda L: L.full((2,), 300, dtype=L.uint8))
    for a in [
        (0, float("inf")),
        (float("nan"), 3),
        (0, 5, 0),
        (5, 0, 1),
        (0, 5, -1),
        (0, 2**62),
        (0, 1, 1e-30),
        (0, "5"),
        (None,),
        (0, 5, float("nan")),
    ]:
        add(f"arange{a}", lambda L, a=a: L.arange(*a))
    for a in [
        (0, 1, -1),
        (0, 1, 2.5),
        (float("nan"), 1, 3),
        (0, float("inf"), 3),
        (0, 1, 2**40),
        (0, 1, "3"),
    ]:
        add(f"linspace{a}", lambda L, a=a: L.linspace(*a))
    add("logspace(steps=-2)", lambda L: L.logspace(0, 1, -2))
    add("eye(-1)", lambda L: L.eye(-1))
    add("eye(2, -3)", lambda L: L.eye(2, -3))
    add("tensor(str)", lambda L: L.tensor("abc"))
    add("tensor(ragged)", lambda L: L.tensor([[1, 2], [3]]))
    add("tensor(mixed str)", lambda L: L.tensor([1, "a"]))
    add("tensor(None)", lambda L: L.tensor(None))
    add("tensor(dict)", lambda L: L.tensor({1: 2}))
    add("tensor(object)", lambda L: L.tensor(object()))
    add("tensor(2**64)", lambda L: L.tensor(2**64))
    add("tensor(-2**63-1)", lambda L: L.tensor(-(2**63) - 1))
    add("tensor(300, uint8)", lambda L: L.tensor(300, dtype=L.uint8))
    add("tensor(nan, int64)", lambda L: L.tensor(float("nan"), dtype=L.int64))
    add("tensor(inf, int32)", lambda L: L.tensor(float("inf"), dtype=L.int32))
    add("tensor(1e40, float32)", lambda L: L.tensor(1e40, dtype=L.float32))
    add("tensor([], requires_grad int)", lambda L: L.tensor([1], requires_grad=True))
    add("as_tensor(str)", lambda L: L.as_tensor("x"))
    add("empty_strided(neg stride)", lambda L: L.empty_strided((2, 2), (-1, 1)))
    add("empty_strided(len mismatch)", lambda L: L.empty_strided((2, 2), (1,)))
    add("normal(std<0)", lambda L: L.normal(0.0, -1.0, (3,)))
    add("normal(std nan)", lambda L: L.normal(0.0, float("nan"), (3,)))
    add("normal(tensor std<0)", lambda L: L.normal(L.zeros(3), -L.ones(3)))
    add("bernoulli(p=2)", lambda L: L.bernoulli(L.full((3,), 2.0)))
    add("bernoulli(p=nan)", lambda L: L.bernoulli(L.full((3,), float("nan"))))
    add("multinomial(negative)", lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 1))
    add("multinomial(nan)", lambda L: L.multinomial(L.tensor([float("nan"), 2.0]), 1))
    add("multinomial(inf)", lambda L: L.multinomial(L.tensor([float("inf"), 2.0]), 1))
    add("multinomial(zeros)", lambda L: L.multinomial(L.zeros(3), 1))
    add("multinomial(n>k no repl)", lambda L: L.multinomial(L.ones(3), 5))
    add("multinomial(n=0)", lambda L: L.multinomial(L.ones(3), 0))
    add("multinomial(int)", lambda L: L.multinomial(L.ones(3, dtype=L.int64), 1))
    add("multinomial(3d)", lambda L: L.multinomial(L.ones(2, 2, 2), 1))
    add("randperm(-1)", lambda L: L.randperm(-1))
    add("randperm(huge)", lambda L: L.randperm(HUGE))
    add("manual_seed(str)", lambda L: L.manual_seed("x"))
    add("manual_seed(-1)", lambda L: L.manual_seed(-1) and None)
    add("manual_seed(2**64)", lambda L: L.manual_seed(2**64))

    # -- dims out of range on a 2x3 tensor (and a 0-d one)
    dim_ops = {
        "sum": lambda L, x, d: x.sum(d),
        "mean": lambda L, x, d: x.mean(d),
        "softmax": lambda L, x, d: x.softmax(d),
        "log_softmax": lambda L, x, d: x.log_softmax(d),
        "cumsum": lambda L, x, d: x.cumsum(d),
        "argmax": lambda L, x, d: x.argmax(d),
        "max": lambda L, x, d: x.max(d),
        "sort": lambda L, x, d: x.sort(d),
        "topk": lambda L, x, d: x.topk(1, d),
        "flip": lambda L, x, d: x.flip(d),
        "roll": lambda L, x, d: x.roll(1, d),
        "squeeze": lambda L, x, d: x.squeeze(d),
        "unsqueeze": lambda L, x, d: x.unsqueeze(d),
        "transpose": lambda L, x, d: x.transpose(0, d),
        "narrow": lambda L, x, d: x.narrow(d, 0, 1),
        "select": lambda L, x, d: x.select(d, 0),
        "chunk": lambda L, x, d: x.chunk(2, d),
        "split": lambda L, x, d: x.split(1, d),
        "unbind": lambda L, x, d: x.unbind(d),
        "norm": lambda L, x, d: x.norm(dim=d),
        "std": lambda L, x, d: x.std(d),
        "median": lambda L, x, d: x.median(d),
        "logsumexp": lambda L, x, d: x.logsumexp(d),
        "cat": lambda L, x, d: L.cat([x, x], d),
        "index_select": lambda L, x, d: x.index_select(d, L.zeros(1, dtype=L.long)),
        "gather": lambda L, x, d: x.gather(d, L.zeros(x.shape, dtype=L.long)),
        "diff": lambda L, x, d: x.diff(dim=d),
        "cummax": lambda L, x, d: x.cummax(d),
        "kthvalue": lambda L, x, d: x.kthvalue(1, d),
        "movedim": lambda L, x, d: x.movedim(d, 0),
    }
    for oname, op in dim_ops.items():
        for d in (2, -3, 5):
            add(f"{oname}(dim={d})", lambda L, op=op, d=d: op(L, _t(L, 2, 3), d))
        add(f"{oname}(dim='x')", lambda L, op=op: op(L, _t(L, 2, 3), "x"))
        add(f"{oname}(0-d, dim=1)", lambda L, op=op: op(L, _t(L), 1))
        add(f"{oname}(empty, dim=0)", lambda L, op=op: op(L, _t(L, 0, 3), 0))

    # -- shapes that do not fit
    add("matmul mismatch", lambda L: _t(L, 2, 3) @ _t(L, 2, 3))
    add("matmul 0-d", lambda L: _t(L) @ _t(L, 3))
    add("mm 3d", lambda L: L.mm(_t(L, 2, 2, 2), _t(L, 2, 2)))
    add("bmm 2d", lambda L: L.bmm(_t(L, 2, 2), _t(L, 2, 2)))
    add("bmm batch mismatch", lambda L: L.bmm(_t(L, 2, 2, 2), _t(L, 3, 2, 2)))
    add("mv mismatch", lambda L: L.mv(_t(L, 2, 3), _t(L, 2)))
    add("dot 2d", lambda L: L.dot(_t(L, 2, 2), _t(L, 2, 2)))
    add("dot mismatch", lambda L: L.dot(_t(L, 2), _t(L, 3)))
    add("outer 2d", lambda L: L.outer(_t(L, 2, 2), _t(L, 2)))
    add("add broadcast", lambda L: _t(L, 2, 3) + _t(L, 4))
    add("add_ broadcast into smaller", lambda L: _t(L, 3).add_(_t(L, 2, 3)))
    add("mul_ int by float", lambda L: _t(L, 3, dtype="int64").mul_(1.5))
    add("view bad", lambda L: _t(L, 2, 3).view(4, 2))
    add("view two -1", lambda L: _t(L, 2, 3).view(-1, -1))
    add("view -2", lambda L: _t(L, 2, 3).view(-2, 3))
    add("view non-contiguous", lambda L: _t(L, 2, 3).t().view(6))
    add("reshape bad", lambda L: _t(L, 2, 3).reshape(5))
    add("reshape empty -1", lambda L: _t(L, 0, 3).reshape(-1, 0))
    add("expand smaller", lambda L: _t(L, 2, 3).expand(3))
    add("expand mismatch", lambda L: _t(L, 2, 3).expand(4, 3))
    add("expand negative", lambda L: _t(L, 1).expand(-2))
    add("cat mismatch", lambda L: L.cat([_t(L, 2, 3), _t(L, 2, 4)]))
    add("cat empty list", lambda L: L.cat([]))
    add("cat 0-d", lambda L: L.cat([_t(L), _t(L)]))
    add("cat dtype mix", lambda L: L.cat([_t(L, 2), _t(L, 2, dtype="int64")]))
    add("stack mismatch", lambda L: L.stack([_t(L, 2), _t(L, 3)]))
    add("stack empty list", lambda L: L.stack([]))
    add("stack not a list", lambda L: L.stack(_t(L, 2)))
    add("permute short", lambda L: _t(L, 2, 3).permute(0))
    add("permute repeat", lambda L: _t(L, 2, 3).permute(0, 0))
    add("repeat fewer", lambda L: _t(L, 2, 3).repeat(2))
    add("repeat negative", lambda L: _t(L, 2).repeat(-1))
    add("narrow past end", lambda L: _t(L, 3).narrow(0, 2, 5))
    add("narrow negative length", lambda L: _t(L, 3).narrow(0, 0, -1))
    add("select out of range", lambda L: _t(L, 3).select(0, 3))
    add("unfold big size", lambda L: _t(L, 3).unfold(0, 5, 1))
    add("unfold zero step", lambda L: _t(L, 3).unfold(0, 2, 0))
    add("as_strided out of bounds", lambda L: _t(L, 3).as_strided((2, 2), (2, 2)))
    add("as_strided negative stride", lambda L: _t(L, 3).as_strided((2,), (-1,)))
    add("diagonal same dims", lambda L: _t(L, 2, 3).diagonal(0, 0, 0))
    add("split negative", lambda L: _t(L, 4).split(-1))
    add("split_with_sizes bad sum", lambda L: _t(L, 4).split([1, 2]))
    add("chunk 0", lambda L: _t(L, 4).chunk(0))
    add("where shape", lambda L: L.where(_t(L, 2) > 0, _t(L, 3), _t(L, 2)))
    add("masked_fill mask shape", lambda L: _t(L, 2, 3).masked_fill(L.ones(4, dtype=L.bool), 0))
    add("masked_fill float mask", lambda L: _t(L, 3).masked_fill(L.ones(3), 0))
    add("masked_fill 1-d value", lambda L: _t(L, 3).masked_fill(_t(L, 3) > 0, _t(L, 2)))
    add("index_select 2-d index", lambda L: _t(L, 3).index_select(0, L.zeros(2, 2).long()))
    add("gather shape", lambda L: _t(L, 2, 3).gather(1, L.zeros(3, 3).long()))
    add("scatter float index", lambda L: _t(L, 3).scatter(0, L.zeros(2), 1.0))
    add("scatter out of range", lambda L: _t(L, 3).scatter(0, L.tensor([5]), 1.0))
    add("index_add shape", lambda L: _t(L, 3).index_add(0, L.tensor([0]), _t(L, 2)))
    add("take out of range", lambda L: _t(L, 3).take(L.tensor([9])))
    add("put_ out of range", lambda L: _t(L, 3).put_(L.tensor([9]), L.tensor([1.0])))
    add("cross dim 2", lambda L: L.cross(_t(L, 2), _t(L, 2), dim=0))
    add("einsum bad", lambda L: L.einsum("ij,jk->ik", _t(L, 2, 3), _t(L, 2, 3)))
    add("einsum bad string", lambda L: L.einsum("ij->kl", _t(L, 2, 3)))
    add("tensordot dims", lambda L: L.tensordot(_t(L, 2, 3), _t(L, 2, 3), dims=3))
    add("conv2d 1-d input", lambda L: L.nn.functional.conv2d(_t(L, 3), _t(L, 1, 1, 1, 1)))
    add("conv2d channels", lambda L: L.nn.functional.conv2d(_t(L, 1, 2, 4, 4), _t(L, 1, 3, 2, 2)))
    add(
        "conv2d kernel too big",
        lambda L: L.nn.functional.conv2d(_t(L, 1, 1, 2, 2), _t(L, 1, 1, 3, 3)),
    )
    add(
        "conv2d stride 0",
        lambda L: L.nn.functional.conv2d(_t(L, 1, 1, 4, 4), _t(L, 1, 1, 2, 2), stride=0),
    )
    add(
        "conv2d padding -1",
        lambda L: L.nn.functional.conv2d(_t(L, 1, 1, 4, 4), _t(L, 1, 1, 2, 2), padding=-1),
    )
    add("linear mismatch", lambda L: L.nn.functional.linear(_t(L, 2, 3), _t(L, 4, 2)))
    add("max_pool2d kernel 0", lambda L: L.nn.functional.max_pool2d(_t(L, 1, 1, 4, 4), 0))
    add("max_pool2d too big", lambda L: L.nn.functional.max_pool2d(_t(L, 1, 1, 2, 2), 3))
    add(
        "avg_pool2d pad > half",
        lambda L: L.nn.functional.avg_pool2d(_t(L, 1, 1, 4, 4), 2, padding=2),
    )
    add("pad odd length", lambda L: L.nn.functional.pad(_t(L, 2, 3), (1,)))
    add(
        "pad reflect too big", lambda L: L.nn.functional.pad(_t(L, 1, 2, 3), (5, 5), mode="reflect")
    )
    add("pad bad mode", lambda L: L.nn.functional.pad(_t(L, 1, 2, 3), (1, 1), mode="zz"))
    add("interpolate no size", lambda L: L.nn.functional.interpolate(_t(L, 1, 1, 4)))
    add(
        "interpolate bad mode",
        lambda L: L.nn.functional.interpolate(_t(L, 1, 1, 4), size=2, mode="cubic"),
    )
    add(
        "batch_norm running shape",
        lambda L: L.nn.functional.batch_norm(_t(L, 2, 3), L.zeros(4), L.ones(4)),
    )
    add("layer_norm shape", lambda L: L.nn.functional.layer_norm(_t(L, 2, 3), (4,)))
    add("embedding float ids", lambda L: L.nn.functional.embedding(_t(L, 2), _t(L, 3, 2)))
    add("embedding out of range", lambda L: L.nn.functional.embedding(L.tensor([5]), _t(L, 3, 2)))
    add(
        "cross_entropy float target", lambda L: L.nn.functional.cross_entropy(_t(L, 2, 3), _t(L, 2))
    )
    add(
        "cross_entropy target range",
        lambda L: L.nn.functional.cross_entropy(_t(L, 2, 3), L.tensor([0, 7])),
    )
    add(
        "cross_entropy batch mismatch",
        lambda L: L.nn.functional.cross_entropy(_t(L, 2, 3), L.tensor([0, 1, 2])),
    )
    add(
        "nll_loss 1-d target 2-d",
        lambda L: L.nn.functional.nll_loss(_t(L, 2, 3), L.zeros(2, 2).long()),
    )
    add("mse_loss shapes", lambda L: L.nn.functional.mse_loss(_t(L, 2), _t(L, 3)))
    add(
        "bce out of range",
        lambda L: L.nn.functional.binary_cross_entropy(L.full((2,), 1.5), L.ones(2)),
    )
    add(
        "bce int target",
        lambda L: L.nn.functional.binary_cross_entropy(L.full((2,), 0.5), L.ones(2, dtype=L.int64)),
    )
    add("dropout p=2", lambda L: L.nn.functional.dropout(_t(L, 3), p=2.0))
    add("dropout p=-1", lambda L: L.nn.functional.dropout(_t(L, 3), p=-1.0))
    add("softmax no dim int", lambda L: L.softmax(_t(L, 3, dtype="int64"), 0))
    add("one_hot negative", lambda L: L.nn.functional.one_hot(L.tensor([-1])))
    add("one_hot float", lambda L: L.nn.functional.one_hot(_t(L, 2)))
    add("one_hot too small", lambda L: L.nn.functional.one_hot(L.tensor([3]), 2))
    add("Linear(-1)", lambda L: L.nn.Linear(-1, 2))
    add("Linear(str)", lambda L: L.nn.Linear("a", 2))
    add("Conv2d(groups)", lambda L: L.nn.Conv2d(3, 4, 2, groups=2))
    add("Embedding(-1)", lambda L: L.nn.Embedding(-1, 2))
    add("SGD(lr=-1)", lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=-1.0))
    add("SGD(empty)", lambda L: L.optim.SGD([], lr=0.1))
    add("Adam(betas)", lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], betas=(1.5, 0.9)))
    add("Adam(eps<0)", lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], eps=-1.0))

    # -- wrong dtypes
    add("matmul int x float", lambda L: _t(L, 2, 2, dtype="int64") @ _t(L, 2, 2))
    add("mm bool", lambda L: L.mm(_t(L, 2, 2, dtype="bool"), _t(L, 2, 2, dtype="bool")))
    add("bitwise_and float", lambda L: _t(L, 3) & _t(L, 3))
    add("bitwise_not float", lambda L: ~_t(L, 3))
    add("shift float", lambda L: _t(L, 3) << 1)
    add("neg bool", lambda L: -_t(L, 3, dtype="bool"))
    add("sub bool", lambda L: _t(L, 3, dtype="bool") - _t(L, 3, dtype="bool"))
    add("div_ int in place", lambda L: _t(L, 3, dtype="int64").div_(2))
    add("floor_divide by 0 int", lambda L: _t(L, 3, dtype="int64") // 0)
    add("remainder by 0 int", lambda L: _t(L, 3, dtype="int64") % 0)
    add("pow int negative", lambda L: _t(L, 3, dtype="int64") ** -1)
    add("pow 0 ** -1 int", lambda L: L.tensor(0) ** -1)
    add("sqrt int", lambda L: _t(L, 3, dtype="int64").sqrt())
    add("exp bool", lambda L: _t(L, 3, dtype="bool").exp())
    add("index float", lambda L: _t(L, 3)[_t(L, 1)])
    add("index int32", lambda L: _t(L, 3)[L.tensor([1], dtype=L.int32)])
    add("index str", lambda L: _t(L, 3)["a"])
    add("index float number", lambda L: _t(L, 3)[1.5])
    add("index out of range", lambda L: _t(L, 3)[3])
    add("index too many", lambda L: _t(L, 3)[0, 0])
    add("index list out of range", lambda L: _t(L, 3)[[0, 5]])
    add("index mask shape", lambda L: _t(L, 3)[L.ones(2, dtype=L.bool)])
    add("setitem shape", lambda L: _t(L, 3).__setitem__(slice(None), _t(L, 2)))
    add("setitem str", lambda L: _t(L, 3).__setitem__(0, "a"))
    add("setitem None", lambda L: _t(L, 3).__setitem__(0, None))
    add("setitem complex into float", lambda L: _t(L, 3).__setitem__(0, 1j))
    add("where non-bool", lambda L: L.where(_t(L, 3), _t(L, 3), _t(L, 3)))
    add("gather float index", lambda L: _t(L, 3).gather(0, _t(L, 3)))
    add("argmax bool", lambda L: _t(L, 3, dtype="bool").argmax())
    add("mean int", lambda L: _t(L, 3, dtype="int64").mean())
    add("std int", lambda L: _t(L, 3, dtype="int64").std())
    add("var correction 5", lambda L: _t(L, 3).var(correction=5))
    add("cumsum bool", lambda L: _t(L, 3, dtype="bool").cumsum(0))
    add("isin float int", lambda L: L.isin(_t(L, 3), _t(L, 3, dtype="int64")))
    add("clamp bool", lambda L: _t(L, 3, dtype="bool").clamp(0, 1))
    add("clamp no bounds", lambda L: _t(L, 3).clamp())
    add("clamp nan", lambda L: _t(L, 3).clamp(float("nan"), 1))
    add("clamp min>max", lambda L: _t(L, 3).clamp(2, 1))
    add("lerp int", lambda L: L.lerp(_t(L, 3, dtype="int64"), _t(L, 3, dtype="int64"), 0.5))
    add("linalg.inv int", lambda L: L.linalg.inv(_t(L, 2, 2, dtype="int64")))
    add("linalg.inv nonsquare", lambda L: L.linalg.inv(_t(L, 2, 3)))
    add("linalg.inv singular", lambda L: L.linalg.inv(L.zeros(2, 2)))
    add("linalg.det 1-d", lambda L: L.linalg.det(_t(L, 3)))
    add("linalg.solve mismatch", lambda L: L.linalg.solve(L.eye(2), _t(L, 3)))
    add("cholesky not pd", lambda L: L.linalg.cholesky(-L.eye(2)))
    add("cholesky nan", lambda L: L.linalg.cholesky(L.full((2, 2), float("nan"))))
    add("svd 1-d", lambda L: L.linalg.svd(_t(L, 3)))
    add("eigh nonsquare", lambda L: L.linalg.eigh(_t(L, 2, 3)))
    add("qr mode", lambda L: L.linalg.qr(_t(L, 2, 2), mode="bad"))
    add("norm ord str", lambda L: L.linalg.norm(_t(L, 2, 2), ord="x"))
    add("matrix_power neg singular", lambda L: L.linalg.matrix_power(L.zeros(2, 2), -1))
    add("to(dtype str)", lambda L: _t(L, 3).to("float32"))
    add("to(bogus)", lambda L: _t(L, 3).to(5))
    add("type(bogus)", lambda L: _t(L, 3).type("torch.BogusTensor"))
    add("int() of 3 elements", lambda L: int(_t(L, 3)))
    add("float() of empty", lambda L: float(_t(L, 0)))
    add("item() of 2", lambda L: _t(L, 2).item())
    add("bool() of 2", lambda L: bool(_t(L, 2)))
    add("len() of 0-d", lambda L: len(_t(L)))
    add("iter 0-d", lambda L: list(iter(_t(L))))
    add("numpy() requires grad", lambda L: L.zeros(2, requires_grad=True).numpy())
    add("backward non-scalar", lambda L: (L.ones(2, requires_grad=True) * 2).backward())
    add("backward no grad", lambda L: L.ones(2).sum().backward())
    add("backward twice", lambda L: _twice(L))
    add("grad of int", lambda L: L.autograd.grad(L.ones(1, requires_grad=True).sum(), [L.ones(1)]))
    add("requires_grad_ int", lambda L: L.ones(2, dtype=L.int64).requires_grad_())
    add(
        "requires_grad_ non-leaf False",
        lambda L: (L.ones(2, requires_grad=True) * 1).requires_grad_(False),
    )
    add("leaf in-place", lambda L: L.ones(2, requires_grad=True).add_(1))
    add("grad assign shape", lambda L: setattr(L.ones(2, requires_grad=True), "grad", L.ones(3)))
    add("grad assign type", lambda L: setattr(L.ones(2, requires_grad=True), "grad", 3))

    # -- NaN / inf arguments to ops
    nan, inf = float("nan"), float("inf")
    add("topk k>n", lambda L: _t(L, 3).topk(5))
    add("topk k<0", lambda L: _t(L, 3).topk(-1))
    add("kthvalue k=0", lambda L: _t(L, 3).kthvalue(0))
    add("kthvalue k>n", lambda L: _t(L, 3).kthvalue(4))
    add("quantile q=2", lambda L: _t(L, 3).quantile(2.0))
    add("quantile q=nan", lambda L: _t(L, 3).quantile(nan))
    add("quantile int", lambda L: _t(L, 3, dtype="int64").quantile(0.5))
    add("histc bins=0", lambda L: _t(L, 3).histc(bins=0))
    add("histc min>max", lambda L: _t(L, 3).histc(bins=3, min=2, max=1))
    add("histc inf range", lambda L: _t(L, 3).histc(bins=3, min=0, max=inf))
    add("histc nan data", lambda L: L.tensor([nan, 1.0]).histc(bins=3))
    add("bincount negative", lambda L: L.bincount(L.tensor([-1, 2])))
    add("bincount float", lambda L: L.bincount(_t(L, 3)))
    add("bincount 2-d", lambda L: L.bincount(L.zeros(2, 2).long()))
    add("round decimals nan", lambda L: _t(L, 3).round(decimals=nan))
    add("pow nan exponent", lambda L: _t(L, 3) ** nan)
    add("div by 0 float", lambda L: _t(L, 3) / 0)
    add("fmod 0", lambda L: L.fmod(_t(L, 3), 0.0))
    add("log negative", lambda L: _t(L, 3).log())
    add("mul inf * 0", lambda L: L.tensor([inf]) * 0)
    add("cumprod inf", lambda L: L.tensor([inf, 0.0]).cumprod(0))
    add("sort nan", lambda L: L.tensor([nan, 1.0, -inf]).sort())
    add("max nan", lambda L: L.tensor([nan, 1.0]).max())
    add("argmax nan", lambda L: L.tensor([1.0, nan]).argmax())
    add("unique nan", lambda L: L.tensor([nan, nan, 1.0]).unique())
    add("nanmean all nan", lambda L: L.tensor([nan, nan]).nanmean())
    add("nansum int", lambda L: L.tensor([1, 2]).nansum())
    add("linspace nan steps", lambda L: L.linspace(0, 1, nan))
    add("arange nan step", lambda L: L.arange(0, 1, nan))
    add("searchsorted unsorted dims", lambda L: L.searchsorted(_t(L, 2, 3), _t(L, 3, 3)))
    add("searchsorted side", lambda L: L.searchsorted(_t(L, 3), _t(L, 2), side="middle"))
    add("bucketize 2-d boundaries", lambda L: L.bucketize(_t(L, 3), _t(L, 2, 2)))
    add("float(nan) to int", lambda L: L.tensor([nan]).long())
    add(
        "interpolate scale nan",
        lambda L: L.nn.functional.interpolate(_t(L, 1, 1, 4), scale_factor=nan),
    )
    add(
        "interpolate scale inf",
        lambda L: L.nn.functional.interpolate(_t(L, 1, 1, 4), scale_factor=inf),
    )
    add("dropout p=nan", lambda L: L.nn.functional.dropout(_t(L, 3), p=nan))
    add("normal mean inf", lambda L: L.normal(inf, 1.0, (2,)))
    add("uniform_ from > to", lambda L: _t(L, 3).uniform_(2, 1))
    add("uniform_ inf", lambda L: _t(L, 3).uniform_(0, inf))
    add("exponential_ lambda<0", lambda L: _t(L, 3).exponential_(-1.0))
    add("geometric_ p=2", lambda L: _t(L, 3).geometric_(2.0))
    add("random_ from>to", lambda L: _t(L, 3).random_(5, 2))
    add(
        "clip_grad_norm nan",
        lambda L: L.nn.utils.clip_grad_norm_([L.zeros(2, requires_grad=True)], nan),
    )

    # -- empty tensors
    add("max empty", lambda L: _t(L, 0).max())
    add("min empty", lambda L: _t(L, 0).min())
    add("argmax empty", lambda L: _t(L, 0).argmax())
    add("max(dim) empty", lambda L: _t(L, 0, 3).max(0))
    add("amax empty", lambda L: _t(L, 0).amax())
    add("mean empty", lambda L: _t(L, 0).mean())
    add("std empty", lambda L: _t(L, 0).std())
    add("prod empty", lambda L: _t(L, 0).prod())
    add("median empty", lambda L: _t(L, 0).median())
    add("mode empty", lambda L: _t(L, 0).mode())
    add("kthvalue empty", lambda L: _t(L, 0).kthvalue(1))
    add("topk empty k=0", lambda L: _t(L, 0).topk(0))
    add("sort empty", lambda L: _t(L, 0).sort())
    add("item empty", lambda L: _t(L, 0).item())
    add("softmax empty", lambda L: _t(L, 0, 3).softmax(0))
    add("matmul empty", lambda L: _t(L, 0, 3) @ _t(L, 3, 0))
    add("linalg.det empty", lambda L: L.linalg.det(_t(L, 0, 0)))
    add("linalg.inv empty", lambda L: L.linalg.inv(_t(L, 0, 0)))
    add(
        "cross_entropy empty",
        lambda L: L.nn.functional.cross_entropy(_t(L, 0, 3), L.zeros(0).long()),
    )
    add("multinomial empty", lambda L: L.multinomial(_t(L, 0), 1))
    add("quantile empty", lambda L: _t(L, 0).quantile(0.5))
    add("histc empty", lambda L: _t(L, 0).histc())
    add("unique empty", lambda L: _t(L, 0).unique())
    add("cumsum empty", lambda L: _t(L, 0).cumsum(0))
    add("nonzero empty", lambda L: _t(L, 0).nonzero())
    add("view empty -1", lambda L: _t(L, 0).view(-1, 0))
    add("stack empties", lambda L: L.stack([_t(L, 0), _t(L, 0)]))
    add("cat with empty 1-d", lambda L: L.cat([_t(L, 2, 3), _t(L, 0)]))
    add("max_pool2d empty", lambda L: L.nn.functional.max_pool2d(_t(L, 1, 1, 0, 4), 2))
    add(
        "batch_norm one value",
        lambda L: L.nn.functional.batch_norm(_t(L, 1, 3), None, None, training=True),
    )

    # -- bad keyword arguments and wrong argument kinds
    add("sum(axis, dims)", lambda L: _t(L, 3).sum(axis=0, dims=0))
    add("sum(keepdim='x')", lambda L: _t(L, 3).sum(0, keepdim="x"))
    add("sum(dtype=str)", lambda L: _t(L, 3).sum(dtype="float"))
    add("add(alpha=str)", lambda L: _t(L, 3).add(1, alpha="a"))
    add("add(str)", lambda L: _t(L, 3) + "a")
    add("add(None)", lambda L: _t(L, 3) + None)
    add("add(list)", lambda L: _t(L, 3) + [1, 2, 3])
    add("add(bogus=)", lambda L: L.add(_t(L, 3), 1, bogus=2))
    add("add(out=wrong dtype)", lambda L: L.add(_t(L, 3), 1, out=L.zeros(3, dtype=L.int64)))
    add("add(out=non-tensor)", lambda L: L.add(_t(L, 3), 1, out=3))
    add("cat(dimm=)", lambda L: L.cat([_t(L, 2)], dimm=0))
    add("cat(tensors=tuple of int)", lambda L: L.cat((1, 2)))
    add("view(str)", lambda L: _t(L, 3).view("a"))
    add("reshape(float)", lambda L: _t(L, 4).reshape(2.0, 2))
    add("reshape(None)", lambda L: _t(L, 4).reshape(None))
    add("transpose(str)", lambda L: _t(L, 2, 2).transpose("a", 0))
    add("permute(None)", lambda L: _t(L, 2, 2).permute(None))
    add("zeros(size=, 2)", lambda L: L.zeros(2, size=(2,)))
    add("zeros(dtype=dtype, dtype=)", lambda L: L.zeros((2,), dtype=L.float32, layout=3))
    add("ones(memory_format bogus)", lambda L: L.ones(2, memory_format="x"))
    add("empty_like(bogus)", lambda L: L.empty_like(_t(L, 2), bogus=True))
    add("tensor(dtype=str)", lambda L: L.tensor([1], dtype="float32"))
    add("tensor(device=3.5)", lambda L: L.tensor([1], device=3.5))
    add("arange(dtype=bool)", lambda L: L.arange(3, dtype=L.bool))
    add("max(dim=None)", lambda L: _t(L, 3).max(dim=None))
    add("max(str)", lambda L: _t(L, 3).max("a"))
    add("clamp(min=str)", lambda L: _t(L, 3).clamp(min="a"))
    add("norm(p=str)", lambda L: _t(L, 3).norm(p="bad"))
    add("softmax(no dim)", lambda L: L.softmax(_t(L, 3)))
    add("Tensor(2.5)", lambda L: L.Tensor(2.5))
    add("Tensor(-1)", lambda L: L.Tensor(-1))
    add("Tensor('a')", lambda L: L.Tensor("a"))
    add("FloatTensor(bogus)", lambda L: L.FloatTensor([1], bogus=1))
    add("device(str)", lambda L: L.device("tpu"))
    add("device(-1)", lambda L: L.device("cpu", -1))
    add("dtype attr", lambda L: L.float128)
    add("nn.Module call missing", lambda L: L.nn.Linear(2, 2)())
    add("Module.to(bogus)", lambda L: L.nn.Linear(2, 2).to("bogus"))
    add("state_dict missing keys", lambda L: L.nn.Linear(2, 2).load_state_dict({}))
    add(
        "state_dict wrong shape",
        lambda L: L.nn.Linear(2, 2).load_state_dict({"weight": L.zeros(3, 3), "bias": L.zeros(2)}),
    )
    add("parameter int", lambda L: L.nn.Parameter(L.zeros(2, dtype=L.int64)))
    add("DataLoader batch 0", lambda L: L.utils.data.DataLoader([1, 2], batch_size=0))
    add("TensorDataset sizes", lambda L: L.utils.data.TensorDataset(L.zeros(2), L.zeros(3)))
    add("no_grad(1)", lambda L: L.no_grad(1))
    add("set_grad_enabled(str)", lambda L: L.set_grad_enabled("x"))
    add("broadcast_shapes bad", lambda L: L.broadcast_shapes((2,), (3,)))
    add("broadcast_shapes negative", lambda L: L.broadcast_shapes((-1,), (3,)))
    add("promote_types(str)", lambda L: L.promote_types("a", L.float32))
    add("result_type(str)", lambda L: L.result_type("a", 1))
    add("set_default_dtype(int)", lambda L: L.set_default_dtype(L.int64))
    add("finfo(int)", lambda L: L.finfo(L.int64))
    add("iinfo(float)", lambda L: L.iinfo(L.float32))
    return P


def _twice(L):
    a = L.ones(2, requires_grad=True)
    y = (a * a).sum()
    y.backward()
    y.backward()


def device_probes():
    """Calls mixing the CPU and the (emulated) CUDA device: PyTorch's RuntimeError."""
    D = []

    def add(name, fn):
        D.append((name, fn, "RuntimeError"))

    add("add cpu+cuda", lambda L: _t(L, 3) + _t(L, 3).cuda())
    add("matmul cpu@cuda", lambda L: _t(L, 2, 2) @ _t(L, 2, 2).cuda())
    add("cat cpu,cuda", lambda L: L.cat([_t(L, 2), _t(L, 2).cuda()]))
    add("index_select cuda index", lambda L: _t(L, 3).index_select(0, L.tensor([0]).cuda()))
    add("where cpu cond", lambda L: L.where(_t(L, 3).cuda() > 0, _t(L, 3).cuda(), _t(L, 3)))
    add("mul_ cuda by cpu 1-d", lambda L: _t(L, 3).cuda().mul_(_t(L, 3)))
    add("linear cpu weight", lambda L: L.nn.functional.linear(_t(L, 2, 3).cuda(), _t(L, 4, 3)))
    add("Linear module on cpu, input cuda", lambda L: L.nn.Linear(3, 2)(_t(L, 2, 3).cuda()))
    add("gather cpu index", lambda L: _t(L, 3).cuda().gather(0, L.zeros(3).long()))
    add("stack cpu,cuda", lambda L: L.stack([_t(L, 2), _t(L, 2).cuda()]))
    add(
        "setitem cuda into cpu by cpu mask",
        lambda L: _t(L, 3).__setitem__(_t(L, 3).cuda() > 0, 1.0),
    )
    add("cuda:5", lambda L: _t(L, 3).to("cuda:5"))
    return D


def classify(name, fn, expected, torch_mod):
    """One probe's record: outcomes on both sides, same type, same value, leak."""
    mine = run(fn, jtensor)
    if expected is None:
        theirs = run(fn, torch_mod)
        t_kind = kind(theirs[1]) if theirs[0] == "raised" else "ok"
        t_type = type(theirs[1]) if theirs[0] == "raised" else None
        t_desc = (
            f"{type(theirs[1]).__name__}: {str(theirs[1])[:80]}" if theirs[0] == "raised" else "ok"
        )
    else:
        theirs = ("raised", None)
        t_kind, t_type, t_desc = expected, None, f"{expected} (PyTorch's documented answer)"
    if mine[0] == "raised":
        exc = mine[1]
        j_kind = kind(exc)
        j_desc = f"{type(exc).__module__}.{type(exc).__name__}: {str(exc)[:80]}"
        leak = not _exact_ok(exc) and type(exc) is not t_type
    else:
        j_kind, j_desc, leak = "ok", "ok", False
    same_type = (j_kind == t_kind and j_kind is not None) or (
        mine[0] == "raised" and t_type is not None and type(mine[1]).__name__ == t_type.__name__
    )
    same_value = (
        mine[0] == "ok"
        and theirs[0] == "ok"
        and expected is None
        and _same_value(mine[1], theirs[1])
    )
    return {
        "name": name,
        "jtensor": j_desc,
        "torch": t_desc,
        "same_type": same_type,
        "same_value": same_value,
        "leak": leak,
    }


def main(argv=None):
    """Run every probe; print the figures (and, with --verbose, each difference)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--verbose", action="store_true", help="list every difference")
    parser.add_argument("--json", help="write the records and figures to this file")
    args = parser.parse_args(argv)
    import torch

    records = [classify(n, f, e, torch) for n, f, e in probes()]
    import jtensor.cuda

    if not jtensor.cuda.is_available():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jtensor.cuda.emulate()
    records += [classify(n, f, e, torch) for n, f, e in device_probes()]
    figures = {
        "total": len(records),
        "same_type": sum(r["same_type"] for r in records),
        "same_value": sum(r["same_value"] for r in records),
        "both_return": sum(r["jtensor"] == "ok" and r["torch"] == "ok" for r in records),
        "leaks": sum(r["leak"] for r in records),
    }
    for r in records:
        if r["leak"] or (args.verbose and not r["same_type"]):
            tag = "LEAK" if r["leak"] else "differs"
            print(f"{tag:8} {r['name']}: jtensor {r['jtensor']} | torch {r['torch']}")
        elif args.verbose and r["jtensor"] == "ok" and r["torch"] == "ok" and not r["same_value"]:
            print(f"value    {r['name']}: the values differ")
    print(
        f"probes: {figures['total']}  same type: {figures['same_type']}  "
        f"same value: {figures['same_value']} (of {figures['both_return']} that return)  "
        f"leaks: {figures['leaks']}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"figures": figures, "records": records}, f, indent=1)
    return figures


if __name__ == "__main__":
    main()
