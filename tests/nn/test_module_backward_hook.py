"""``Module.register_backward_hook``, the deprecated kind (guided backprop's ReLU hooks): the
hook runs on the node that made the module's output, with that node's gradients, may
replace them, and warns as PyTorch does where they are not the module's."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _guided(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(
        lib.nn.Conv2d(2, 3, 3, padding=1), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(48, 2)
    )
    seen = []

    def positive_only(module, grad_in, grad_out):
        seen.append((type(module).__name__, [tuple(g.shape) for g in grad_in]))
        return (lib.clamp(grad_in[0], min=0.0),)

    handles = [m.register_backward_hook(positive_only) for m in model if isinstance(m, lib.nn.ReLU)]
    x = lib.from_numpy(np.linspace(-1, 1, 32, dtype=np.float32).reshape(1, 2, 4, 4))
    x.requires_grad = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model(x)[0, 1].backward()
    guided = x.grad.numpy().copy()
    for h in handles:
        h.remove()
    x.grad = None
    model(x)[0, 1].backward()
    return guided, x.grad.numpy(), seen, [str(w.message) for w in caught]


def test_guided_backprop_matches_torch():
    mine, theirs = _guided(jtensor), _guided(torch)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-5, atol=1e-7)
    assert not np.allclose(mine[0], mine[1])  # the hook changed the gradient
    assert mine[2:] == theirs[2:]  # what the hooks saw; no warning for a one-op module


def _warnings(lib, kind):
    lib.manual_seed(0)
    module = {
        "linear": lib.nn.Linear(3, 2),
        "relu": lib.nn.ReLU(),
        "two outputs": lib.nn.LSTM(3, 2),
    }[kind]
    module.register_backward_hook(lambda m, gi, go: None)
    x = lib.ones(4, 1, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module(x)
    return [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("kind", ["linear", "relu", "two outputs"])
def test_deprecation_warnings_match_torch(kind):
    assert _warnings(jtensor, kind) == _warnings(torch, kind)


@pytest.mark.parametrize("first", ["full", "deprecated"])
def test_one_module_takes_one_kind_of_backward_hook(first):
    messages = []
    for lib in (jtensor, torch):
        module = lib.nn.ReLU()
        hook = lambda m, gi, go: None  # noqa: E731
        register = [module.register_full_backward_hook, module.register_backward_hook]
        if first == "deprecated":
            register.reverse()
        register[0](hook)
        with pytest.raises(RuntimeError) as info:
            register[1](hook)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
