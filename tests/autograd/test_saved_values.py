"""A backward that records nothing reads a saved output's values without making the alias
that gives it its node back (``SavedTensor.values``, ``_fast.saved``): ReLU, sigmoid and
tanh. The checks of a normal unpack must still hold (an in-place write after saving, a
saved-tensor hook's result), and a recording backward (``create_graph``) still gets the
output with its history."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

ACTIVATIONS = ["relu", "sigmoid", "tanh"]


def _values(lib):
    return lib.tensor([-1.5, 0.25, 2.0, -0.5], dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_written_output_is_refused(name):
    messages = []
    for lib in (jtensor, torch):
        y = getattr(lib, name)(_values(lib))
        y.add_(1)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        messages.append(str(info.value).split(" instead.")[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_unpack_hook_result_is_used(name):
    grads = []
    for lib in (jtensor, torch):
        x = _values(lib)
        seen = []

        def unpack(t, seen=seen):
            seen.append(tuple(t.shape))
            return t * 0.5

        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = getattr(lib, name)(x)
        (y * lib.arange(4.0, dtype=lib.float64)).sum().backward()
        grads.append((x.grad.tolist(), seen))
    assert grads[0] == grads[1]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_recording_backward_differentiates_through_the_output(name):
    found = []
    for lib in (jtensor, torch):
        x = _values(lib)
        y = getattr(lib, name)(x)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        g.sum().backward()
        found.append((g.tolist(), x.grad.tolist(), g.grad_fn is not None))
    assert found[0][2] == found[1][2]  # (the gradient has a history of its own)
    for a, b in zip(found[0][:2], found[1][:2], strict=True):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)
