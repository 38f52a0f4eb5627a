"""The deprecated ``size_average``/``reduce`` loss arguments: PyTorch's warning names the
``reduction`` they amount to, for the modules and the functions alike."""

import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")

LEGACY = [
    {"size_average": False},
    {"size_average": True},
    {"reduce": False},
    {"reduce": True},
    {"size_average": False, "reduce": False},
    {"size_average": True, "reduce": True},
]


def _warned(lib, kwargs):
    x = lib.tensor([[1.0, 2.0], [3.0, 5.0]])
    y = lib.zeros(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = lib.nn.MSELoss(**kwargs)
        value = lib.nn.functional.mse_loss(x, y, **kwargs)
    messages = [str(w.message) for w in caught if "deprecated" in str(w.message)]
    return module.reduction, value.tolist(), messages


@pytest.mark.parametrize("kwargs", LEGACY, ids=str)
def test_warning_names_the_reduction(kwargs):
    assert _warned(jtensor, kwargs) == _warned(torch, kwargs)
