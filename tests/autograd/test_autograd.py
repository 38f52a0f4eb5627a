"""Autograd semantics: the scripts of ``autograd_scripts`` against PyTorch, and the engine's
own guarantees (iterative, no leaks, checkpoint memory, anomaly mode, thread-local modes)."""

import gc
import threading
import warnings

import numpy as np
import pytest

import jtensor
from tests.autograd import scripts as autograd_scripts

try:
    import torch
except ImportError:
    torch = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def _observe(value):
    if isinstance(value, (list, tuple)):
        return [_observe(v) for v in value]
    if isinstance(value, dict):
        return {k: _observe(v) for k, v in value.items()}
    if hasattr(value, "detach") and hasattr(value, "shape"):
        t = value.detach().cpu()
        values = np.asarray(t.cpu().numpy()).round(8)
        return ("tensor", tuple(t.shape), str(t.dtype),
                [str(v) if v != v else v for v in values.ravel().tolist()])
    return value


@pytest.mark.parametrize("script", sorted(autograd_scripts.SCRIPTS))
def test_script_runs_on_jtensor_and_repeats_itself(script):
    # Without the oracle: each script observes something, and the same thing twice (no
    # state leaks from one run into the next).
    observed = []
    for _ in range(2):
        jtensor.manual_seed(0)
        observed.append(_observe(autograd_scripts.SCRIPTS[script](jtensor)))
    assert observed[0], f"{script} observed nothing"
    assert observed[0] == observed[1]


@pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("script", sorted(autograd_scripts.SCRIPTS))
def test_script_matches_pytorch(script):
    fn = autograd_scripts.SCRIPTS[script]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _observe(fn(jtensor))
        theirs = _observe(fn(torch))
    assert ours == theirs


def test_deep_graph_without_recursion_error():
    a = jtensor.tensor([1.0], requires_grad=True)
    y = a
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert a.grad.item() == 1.0
    del y
    gc.collect()


def _graph_objects():
    from jtensor.autograd.graph import Node

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Node))


def test_training_loop_leaves_no_graph_behind():
    w = jtensor.randn(3, 3, dtype=jtensor.float64, requires_grad=True)
    x = jtensor.randn(4, 3, dtype=jtensor.float64)
    before = _graph_objects()
    for _ in range(1000):
        loss = ((x @ w).sigmoid() ** 2).mean()
        loss.backward()
        with jtensor.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
    del loss
    assert _graph_objects() - before <= 2


def test_saved_tensors_are_released_after_backward():
    a = jtensor.randn(1000, dtype=jtensor.float64, requires_grad=True)
    y = a.exp() * a
    node = y.grad_fn
    assert node._saved
    y.sum().backward()
    assert not node._saved


def _saved_bytes(t):
    from jtensor.autograd.graph import SavedTensor

    total, seen, stack = 0, set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for entry in (node._saved or {}).values():
            for e in entry if isinstance(entry, list) else [entry]:
                if isinstance(e, SavedTensor) and e.tensor is not None:
                    total += e.tensor.numel() * e.tensor.element_size()
        stack.extend(n for n, _ in node.next_functions)
    return total


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_saves_less_and_gives_the_same_gradients(reentrant):
    from jtensor.utils.checkpoint import checkpoint

    def block(x):
        for _ in range(5):
            x = (x * 1.5).tanh().exp()
        return x

    x1 = jtensor.randn(10_000, dtype=jtensor.float64, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_()
    plain = block(x1)
    ckpt = checkpoint(block, x2, use_reentrant=reentrant)
    assert _saved_bytes(ckpt) < _saved_bytes(plain) / 4
    plain.sum().backward()
    ckpt.sum().backward()
    np.testing.assert_allclose(x1.grad.cpu().numpy(), x2.grad.cpu().numpy())


def test_checkpoint_without_use_reentrant_warns():
    from jtensor.utils.checkpoint import checkpoint

    a = jtensor.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        out = checkpoint(lambda t: t.sin(), a)
    assert out.grad_fn.name() == "CheckpointFunctionBackward"


def test_anomaly_mode_names_the_forward_op():
    a = jtensor.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with jtensor.autograd.detect_anomaly():
            y = a.sqrt() * 0  # 0 * inf in backward gives NaN in SqrtBackward0
            with pytest.raises(RuntimeError, match="SqrtBackward0.*nan") as info:
                y.sum().backward()
    assert "sqrt" in str(info.value)


def test_grad_mode_is_thread_local():
    seen = []
    with jtensor.no_grad():
        t = threading.Thread(target=lambda: seen.append(jtensor.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_gradcheck_catches_a_wrong_formula():
    class Wrong(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2 * x * g

    x = jtensor.randn(3, dtype=jtensor.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        jtensor.autograd.gradcheck(Wrong.apply, (x,))
    assert not jtensor.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)


def test_function_wrong_number_of_grads():
    class Two(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    a = jtensor.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Two.apply(a, a).sum().backward()


def test_function_mark_dirty_and_needs_input_grad():
    class AddOneInPlace(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            ctx.flags = ctx.needs_input_grad
            x.add_(1)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None

    a = jtensor.ones(2, requires_grad=True)
    b = a * 1
    out = AddOneInPlace.apply(b, jtensor.zeros(2))
    assert out is b and b.grad_fn.name() == "AddOneInPlaceBackward"
    assert out.grad_fn.flags == (True, False)
    b.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_once_differentiable_blocks_double_backward():
    class Sq(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @jtensor.autograd.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = jtensor.tensor([3.0], requires_grad=True)
    g, = jtensor.autograd.grad(Sq.apply(x), x, create_graph=True)
    assert g.item() == 6.0 and not g.requires_grad


def test_node_hooks():
    a = jtensor.tensor([1.0, 2.0], requires_grad=True)
    y = a * 2
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_post_accumulate_grad_hook():
    a = jtensor.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    a.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (a * 3).sum().backward()
    assert seen[0].tolist() == [3.0, 3.0]


def test_grad_fn_repr_is_pythons_default_as_in_pytorch():
    a = jtensor.tensor([1.0], requires_grad=True)
    node = (a * 2).grad_fn
    assert repr(node) == f"<MulBackward0 object at {hex(id(node))}>"


def test_integer_tensors_cannot_require_grad_with_pytorchs_words_per_entry_point():
    torch = pytest.importorskip("torch")
    entries = [lambda lib: lib.tensor([1, 2]).requires_grad_(),
               lambda lib: setattr(lib.tensor([1, 2]), "requires_grad", True),
               lambda lib: lib.tensor([1, 2], requires_grad=True)]
    for entry in entries:
        messages = []
        for lib in (jtensor, torch):
            with pytest.raises(RuntimeError) as info:
                entry(lib)
            messages.append(str(info.value))
        assert messages[0].startswith(messages[1]), messages


def test_modified_saved_tensor_error_names_its_current_history_as_pytorch():
    torch = pytest.importorskip("torch")

    def scenarios(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        y = h * h
        h.add_(1)                       # a saved input, rewritten: named by its new history
        yield y
        h2 = x * 1
        y2 = h2.sigmoid()
        y2.mul_(2)                      # a saved output: named by the node that saved it
        yield y2
        h3 = x * 1
        y3 = h3 * h3
        h3.add_(1)
        h3.mul_(3)
        yield y3
        w = lib.ones(2)
        y4 = x * w
        w.add_(1)                       # no history at all: no "which is output" part
        yield y4

    def heads(lib):
        out = []
        for y in scenarios(lib):
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
            # (the type name says torch.cuda.FloatTensor under --device cuda)
            out.append(str(info.value).split(" is at version")[0].replace(".cuda.", "."))
        return out

    assert heads(jtensor) == heads(torch)


def test_backward_with_create_graph_warns_once_about_the_cycle(monkeypatch):
    from jtensor.autograd import _backward as functional

    monkeypatch.setattr(functional, "_warned_create_graph_cycle", False)
    x = jtensor.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x ** 3).backward(create_graph=True)
        (x ** 3).backward(create_graph=True)
        jtensor.autograd.grad(x ** 3, x, create_graph=True)
    cycle = [w for w in caught if "reference cycle" in str(w.message)]
    assert len(cycle) == 1 and cycle[0].category is UserWarning
    assert cycle[0].filename == __file__          # points at the user's line


def test_instantiating_a_function_warns_and_calling_the_instance_raises():
    class Cube(jtensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        c = Cube()
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        c(jtensor.ones(1))
    assert c.apply(jtensor.ones(1)).tolist() == [1.0]


def test_gradient_accumulation_with_create_graph_follows_pytorch():
    torch = pytest.importorskip("torch")

    def observe(lib):
        out = []
        x = lib.tensor(2.0, requires_grad=True)
        y = x ** 3
        y.backward(create_graph=True)            # first grad: a recorded copy
        first = x.grad
        out.append((first.item(), type(first.grad_fn).__name__, first.is_leaf))
        y.backward()                             # no graph: added in place, same object
        out.append((x.grad.item(), x.grad is first, type(x.grad.grad_fn).__name__))
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        (z ** 2).sum().backward(create_graph=True)
        (z ** 2).sum().backward(create_graph=True)   # with a graph: out of place
        out.append((z.grad.tolist(), type(z.grad.grad_fn).__name__))
        w = lib.ones(2, 3, requires_grad=True)
        (w.t() * w.t()).sum().backward(create_graph=True)
        out.append((w.grad.stride(), type(w.grad.grad_fn).__name__))
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert observe(jtensor) == observe(torch)
