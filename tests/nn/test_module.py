"""``nn.Module`` and ``nn.Parameter``: registration, walks, modes, conversion, state_dict,
hooks and repr, against PyTorch where it is installed."""

import pytest

import jtensor
import jtensor.nn as jnn

try:
    import torch
    import torch.nn as tnn
except ImportError:
    torch = tnn = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def _build(nn, lib):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.ones(2, 3))
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x):
            return x @ self.w.t() + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = Block()
            self.shared = self.a  # the same module twice: listed once
            self.head = nn.Sequential(Block(), nn.ModuleList([Block()]))
            self.extra = nn.ModuleDict({"x": Block()})
            self.bias = nn.Parameter(lib.zeros(2))

        def forward(self, x):
            return self.a(x) + self.b(x) + self.bias

    return Net()


def _observe(nn, lib):
    net = _build(nn, lib)
    order = []
    net.apply(lambda m: order.append(type(m).__name__))
    out = {
        "params": [n for n, _ in net.named_parameters()],
        "buffers": [n for n, _ in net.named_buffers()],
        "modules": [n for n, _ in net.named_modules()],
        "children": [n for n, _ in net.named_children()],
        "state": list(net.state_dict()),
        "apply_order": order,
        "n_params": len(list(net.parameters())),
        "repr": repr(net),
    }
    net.eval()
    out["eval"] = [m.training for m in net.modules()]
    net.train()
    out["train"] = [m.training for m in net.modules()]
    net.double()
    out["double"] = [str(p.dtype) for p in net.parameters()]
    out["param_type"] = type(next(net.parameters())).__name__
    y = net(lib.ones(4, 3, dtype=lib.float64)).sum()
    y.backward()
    out["grads"] = [p.grad.tolist() if p.grad is not None else None for p in net.parameters()]
    net.zero_grad()
    out["zeroed"] = [p.grad is None for p in net.parameters()]
    return out


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_module_walks_modes_and_repr_match_pytorch():
    assert _observe(jnn, jtensor) == _observe(tnn, torch)


def _blank_line_reprs(nn):
    class Inner(nn.Module):
        def __init__(self, text):
            super().__init__()
            self.text = text

        def extra_repr(self):
            return self.text

    class Outer(nn.Module):
        def __init__(self, text):
            super().__init__()
            self.net = Inner(text)
            self.seq = nn.Sequential(Inner(text), nn.ReLU())

    return [repr(Outer(t)) for t in ("a\nb\n", "a\n\nb", "a\n   \nb", "one line")]


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_nested_repr_leaves_blank_lines_empty():
    # (an ``extra_repr`` ending in a newline, as MAML's learner writes it)
    assert _blank_line_reprs(jnn) == _blank_line_reprs(tnn)


def _errors(nn, lib):
    results = {}

    def record(key, fn):
        try:
            fn()
            results[key] = "ok"
        except Exception as e:  # noqa: BLE001 - the builtin type is what is compared
            results[key] = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(lib.ones(1))

    record("early", Early)
    m = nn.Module()
    m.w = nn.Parameter(lib.ones(2))
    record("tensor_as_param", lambda: setattr(m, "w", lib.ones(2)))
    record("dotted", lambda: m.register_parameter("a.b", None))
    record("plain_tensor", lambda: m.register_parameter("p", lib.ones(1)))
    record("missing_attr", lambda: m.nope)
    record("train_str", lambda: m.train("yes"))
    record("strict_load", lambda: m.load_state_dict({"x": lib.ones(1)}))
    record("shape_load", lambda: m.load_state_dict({"w": lib.ones(3)}))
    results["loose"] = repr(m.load_state_dict({"x": lib.ones(1), "w": lib.ones(2)}, strict=False))
    return results


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
def test_module_errors_match_pytorch():
    assert _errors(jnn, jtensor) == _errors(tnn, torch)


def test_parameter_is_a_leaf_sharing_memory():
    t = jtensor.zeros(3)
    p = jnn.Parameter(t)
    assert p.is_leaf and p.requires_grad and isinstance(p, jtensor.Tensor)
    t[0] = 5
    assert p[0].item() == 5.0
    assert type(p * 2) is jtensor.Tensor
    assert (
        repr(jnn.Parameter(jtensor.ones(2)))
        == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    )


def test_forward_hooks_and_full_backward_hook():
    lin = jnn.Module()
    lin.w = jnn.Parameter(jtensor.tensor([2.0, 3.0]))
    lin.forward = lambda x: x * lin.w
    seen = {}
    lin.register_forward_pre_hook(lambda m, args: (args[0] * 10,))
    h = lin.register_forward_hook(lambda m, args, out: out + 1)
    lin.register_full_backward_hook(
        lambda m, gi, go: seen.update(gi=[g.tolist() for g in gi], go=[g.tolist() for g in go])
    )
    x = jtensor.tensor([1.0, 1.0], requires_grad=True)
    y = lin(x)
    assert y.tolist() == [21.0, 31.0]
    y.sum().backward()
    assert seen == {"gi": [[2.0, 3.0]], "go": [[1.0, 1.0]]}
    assert x.grad.tolist() == [20.0, 30.0]
    h.remove()
    assert lin(jtensor.ones(2)).tolist() == [20.0, 30.0]


def test_to_keeps_parameter_identity():
    m = jnn.Module()
    m.w = jnn.Parameter(jtensor.ones(2))
    p = m.w
    m.to(jtensor.float64)
    assert m.w is p and p.dtype == jtensor.float64 and p.requires_grad


def _container_operators(lib):
    """``+``, ``+=``, ``*`` and ``pop`` of Sequential and ModuleList, with PyTorch's errors
    (normalizing-flow and model-surgery code builds its layer lists this way)."""
    nn = lib.nn
    seen = []
    flows = nn.ModuleList([nn.ReLU()])
    flows += [nn.Tanh()]  # any iterable of modules
    joined = flows + nn.ModuleList([nn.Sigmoid()])
    popped = joined.pop(0)
    seen += [len(flows), [type(m).__name__ for m in joined], type(popped).__name__]
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    both = seq + nn.Sequential(nn.Tanh())
    seq += nn.Sequential(nn.Sigmoid())
    twice = 2 * nn.Sequential(nn.ReLU(), nn.Tanh())
    thrice = nn.Sequential(nn.ReLU())
    thrice *= 3
    seen += [
        list(both._modules),
        both[0] is seq[0],
        list(seq._modules),
        list(twice._modules),
        twice[0] is twice[2],
        list(thrice._modules),
        seq.pop(-1).__class__.__name__,
        len(seq),
    ]
    for bad in (
        lambda: seq + [nn.ReLU()],
        lambda: seq * 0,
        lambda: seq * 1.5,
        lambda: nn.Sequential() + nn.ModuleList(),
    ):
        try:
            bad()
            seen.append("ok")
        except (TypeError, ValueError) as e:
            seen.append((type(e).__name__, str(e).replace(lib.__name__, "torch")))
    return seen


def test_container_operators_match_pytorch():
    torch = pytest.importorskip("torch")
    assert _container_operators(jtensor) == _container_operators(torch)
