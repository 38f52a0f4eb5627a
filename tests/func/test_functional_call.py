"""``functional_call`` and ``stack_module_state`` against PyTorch: strict and tied weights,
tuples of dicts, the module left untouched, ensembles with ``vmap``; the deprecated
``nn.utils.stateless.functional_call``."""

import warnings

import numpy as np
import pytest

import jtensor
from tests.func._oracle import check_against_torch
from tests.harness.conformance import T, arr

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices


def linear(lib):
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(T(lib, arr(2, 3)))
        m.bias.copy_(T(lib, arr(2, seed=1)))
    return m, T(lib, arr(4, 3, seed=2))


def tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2)
            self.b = lib.nn.Linear(2, 2)
            self.b.weight = self.a.weight
            with lib.no_grad():
                for p in self.parameters():
                    p.fill_(0.5)

        def forward(self, x):
            return self.b(self.a(x))

    return Tied(), T(lib, arr(1, 2))


def fc(lib):
    return lib.func.functional_call


def W(lib):
    return T(lib, arr(2, 3, seed=3))


CASES = {
    "dict": (lambda lib, m, x: fc(lib)(m, {"weight": W(lib), "bias": W(lib)[:, 0]}, x), linear),
    "tuple_args": (lambda lib, m, x: fc(lib)(m, {"weight": W(lib)}, (x,)), linear),
    "kwargs": (lambda lib, m, x: fc(lib)(m, {"weight": W(lib)}, (), {"input": x}), linear),
    "partial_keeps_the_rest": (lambda lib, m, x: fc(lib)(m, {"weight": W(lib)}, x), linear),
    "module_untouched": (
        lambda lib, m, x: (
            fc(lib)(m, {"weight": W(lib)}, x),
            m.weight * 1,
            type(m.weight).__name__,
        ),
        linear,
    ),
    "strict_missing": (lambda lib, m, x: fc(lib)(m, {"weight": W(lib)}, x, strict=True), linear),
    "strict_unexpected": (
        lambda lib, m, x: fc(lib)(
            m, {"weight": W(lib), "bias": W(lib)[0, :2], "foo": x}, x, strict=True
        ),
        linear,
    ),
    "unexpected_not_strict": (
        lambda lib, m, x: fc(lib)(m, {"weight": W(lib), "foo": x}, x),
        linear,
    ),
    "tuple_of_dicts": (
        lambda lib, m, x: fc(lib)(m, ({"weight": W(lib)}, {"bias": W(lib)[:, 1]}), x),
        linear,
    ),
    "list_of_dicts": (lambda lib, m, x: fc(lib)(m, [{"weight": W(lib)}, {}], x), linear),
    "repeated_key": (
        lambda lib, m, x: fc(lib)(m, ({"weight": W(lib)}, {"weight": W(lib)}), x),
        linear,
    ),
    "not_a_dict": (lambda lib, m, x: fc(lib)(m, 3, x), linear),
    "tied_one_given": (lambda lib, m, x: fc(lib)(m, {"a.weight": lib.zeros(2, 2)}, x), tied),
    "tied_untied": (
        lambda lib, m, x: fc(lib)(m, {"a.weight": lib.zeros(2, 2)}, x, tie_weights=False),
        tied,
    ),
    "tied_conflict": (
        lambda lib, m, x: fc(lib)(m, {"a.weight": lib.zeros(2, 2), "b.weight": lib.ones(2, 2)}, x),
        tied,
    ),
    "tied_same_value": (
        lambda lib, m, x: fc(lib)(
            m, {"a.weight": x.new_zeros(2, 2) + 1, "b.weight": x.new_zeros(2, 2) + 1}, x
        ),
        tied,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_call_matches_pytorch(name):
    check_against_torch(torch, *CASES[name])


def test_tied_conflict_with_same_object_is_allowed():
    m, x = tied(jtensor)
    w = jtensor.zeros(2, 2)
    out = jtensor.func.functional_call(m, {"a.weight": w, "b.weight": w}, x)
    assert out.shape == (1, 2)


def _ensemble(lib):
    models = []
    for seed in range(3):
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(T(lib, arr(2, 3, seed=seed)))
            m.bias.copy_(T(lib, arr(2, seed=seed + 10)))
        models.append(m)
    return models


def test_stack_module_state_and_ensemble_vmap_match_pytorch():
    outs = {}
    for lib in (jtensor, torch):
        models = _ensemble(lib)
        params, buffers = lib.func.stack_module_state(models)
        assert sorted(params) == ["bias", "weight"] and buffers == {}
        assert params["weight"].shape == (3, 2, 3)
        assert params["weight"].requires_grad and params["weight"].is_leaf
        x = T(lib, arr(4, 3, seed=5))

        def run(p, b, x=x, base=models[0], lib=lib):
            return lib.func.functional_call(base, (p, b), (x,))

        outs[lib] = lib.func.vmap(run)(params, buffers)
    np.testing.assert_allclose(
        outs[jtensor].detach().cpu().numpy(), outs[torch].detach().numpy(), rtol=1e-5, atol=1e-6
    )


def test_stack_module_state_errors_and_buffers():
    for lib in (jtensor, torch):
        with pytest.raises(RuntimeError, match="at least one model"):
            lib.func.stack_module_state([])
        models = _ensemble(lib)
        models[1].eval()
        with pytest.raises(RuntimeError, match="training/eval mode"):
            lib.func.stack_module_state(models)
        with pytest.raises(RuntimeError, match="same class"):
            lib.func.stack_module_state([lib.nn.Linear(1, 1), lib.nn.Conv1d(1, 1, 1)])
        params, buffers = lib.func.stack_module_state([lib.nn.BatchNorm1d(3) for _ in range(2)])
        assert buffers["running_mean"].shape == (2, 3)
        assert not buffers["running_var"].requires_grad
        assert buffers["num_batches_tracked"].shape == (2,)


def test_stateless_functional_call_is_deprecated():
    m, x = linear(jtensor)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = jtensor.nn.utils.stateless.functional_call(m, {"weight": W(jtensor)}, (x,))
    assert any(
        issubclass(w.category, FutureWarning) and "torch.func.functional_call" in str(w.message)
        for w in seen
    )
    expected = x @ W(jtensor).t() + m.bias
    np.testing.assert_allclose(
        out.detach().cpu().numpy(), expected.detach().cpu().numpy(), rtol=1e-6
    )
