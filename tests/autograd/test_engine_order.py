"""The engine's order and the recorded fast paths, against PyTorch.

PyTorch gives every ``AccumulateGrad`` the largest sequence number (UINT64_MAX), so a
leaf's gradient is accumulated (and its hooks run) as soon as it is complete, before any
node still waiting; other nodes run latest-recorded first. Hooks make that order visible.
The operators' recorded path (``a + b`` with inputs requiring grad, issue 18) must build
the graph the op's entry builds.
"""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _hook_order(lib, program):
    a, b, c = (lib.ones(3, requires_grad=True) for _ in range(3))
    log = []
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: log.append(name))
    out = program(lib, a, b, c, log)
    out.sum().backward()
    return log


def _early_accumulator(lib, a, b, c, log):
    keep = a * 1  # a's accumulator exists before the nodes recorded next
    y = c * 2
    y.register_hook(lambda g: log.append("y"))
    out = a * b + y * 3
    out.keep = keep
    return out


def _branches(lib, a, b, c, log):
    y = a * 2
    y.register_hook(lambda g: log.append("y"))
    z = y * b
    z.register_hook(lambda g: log.append("z"))
    return z + a * c


def _shared_leaf(lib, a, b, c, log):
    h = (a * b).exp()
    h.register_hook(lambda g: log.append("h"))
    return h * c + b.sin() + (a + c).relu()


@pytest.mark.parametrize(
    "program", [_early_accumulator, _branches, _shared_leaf], ids=lambda p: p.__name__.strip("_")
)
def test_hooks_run_in_pytorch_order(program):
    assert _hook_order(jtensor, program) == _hook_order(torch, program)


def test_accumulator_sequence_number_is_pytorchs():
    for lib in (jtensor, torch):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        assert acc._sequence_nr() == 2**64 - 1
        assert isinstance(y.grad_fn._sequence_nr(), int)
        assert (y * 3).grad_fn._sequence_nr() > y.grad_fn._sequence_nr()


def _graph(t):
    """The graph under ``t`` as nested (name, children) tuples."""
    fn = t.grad_fn
    if fn is None:
        return None

    def walk(node):
        if node is None:
            return None
        name = node.name().rsplit("::", 1)[-1]
        return (name, tuple(walk(n) for n, _ in node.next_functions))

    return walk(fn)


OPERATOR_CASES = {
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b,
    "a + 2": lambda a, b: a + 2,
    "a * 2.5": lambda a, b: a * 2.5,
    "a - 1": lambda a, b: a - 1,
    "a / 4": lambda a, b: a / 4,
    "a ** 2": lambda a, b: a**2,
    "2 * a": lambda a, b: 2 * a,
    "a + b.detach()": lambda a, b: a + b.detach(),
    "a.detach() * b": lambda a, b: a.detach() * b,
    "broadcast": lambda a, b: a[:, None] * b[None, :],
    "view operand": lambda a, b: a[1:] + b[:-1],
}


@pytest.mark.parametrize("case", sorted(OPERATOR_CASES))
def test_operators_record_as_pytorch(case):
    fn = OPERATOR_CASES[case]
    results = {}
    for lib in (jtensor, torch):
        a = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.25, 0.75, -3.0], dtype=lib.float64, requires_grad=True)
        out = fn(a, b)
        graph = _graph(out)
        out.backward(lib.ones_like(out))
        grads = [None if t.grad is None else t.grad.tolist() for t in (a, b)]
        results[lib.__name__] = (graph, out.tolist(), grads, out.requires_grad)
    assert results["jtensor"] == results["torch"]


def test_operator_records_under_no_grad_nothing_and_inplace_checks_versions():
    a = jtensor.ones(3, requires_grad=True)
    b = jtensor.ones(3, requires_grad=True)
    with jtensor.no_grad():
        assert (a + b).grad_fn is None
    y = a * b  # saves both operands
    with jtensor.no_grad():
        b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("size", [7, 5000])
def test_relu_keeps_nan_and_negative_zero_bit_for_bit(dtype, size):
    # Large arrays take the bitwise path, small ones ``where``: both are PyTorch's relu.
    values = np.random.default_rng(3).standard_normal(size) * 4
    values[:6] = [-0.0, np.nan, -np.inf, np.inf, 0.0, -1e-30]
    ours = jtensor.relu(jtensor.tensor(values).to(getattr(jtensor, dtype))).numpy()
    theirs = torch.relu(torch.tensor(values).to(getattr(torch, dtype))).numpy()
    bits = {"float16": np.int16, "float32": np.int32, "float64": np.int64}[dtype]
    assert np.array_equal(ours.view(bits), theirs.view(bits))
    x = jtensor.tensor(values).to(getattr(jtensor, dtype)).requires_grad_()
    y = jtensor.relu(x)
    assert y.grad_fn.name() == "ReluBackward0"
    assert (y.shape, y.stride(), y.storage_offset()) == (x.shape, (1,), 0)
    assert not y._is_view()
