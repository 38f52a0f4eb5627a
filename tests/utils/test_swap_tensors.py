"""torch.utils.swap_tensors: two tensor objects exchange everything they are, as in PyTorch."""

import weakref

import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def facts(t):
    return (
        type(t).__name__,
        t.tolist(),
        str(t.dtype),
        tuple(t.shape),
        t.stride(),
        t.storage_offset(),
        t.requires_grad,
        t._base is not None,
        {k: v for k, v in vars(t).items() if not k.startswith("_")},
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda L: (L.arange(2), L.arange(3.0, requires_grad=True)),
        lambda L: (L.nn.Parameter(L.ones(2)), L.zeros(3)),
        lambda L: (L.ones(4)[::2], L.zeros(2, 2).t()),
    ],
    ids=["plain", "parameter", "views"],
)
def test_swap_exchanges_class_attributes_and_data(make):
    def run(L):
        a, b = make(L)
        b.note = "from b"
        L.utils.swap_tensors(a, b)
        return facts(a), facts(b)

    assert run(jtensor) == run(torch)


def test_an_optimizer_keeps_its_parameter_object_and_sees_the_new_values():
    def run(L):
        L.manual_seed(0)
        layer = L.nn.Linear(2, 1, bias=False)
        opt = L.optim.SGD(layer.parameters(), lr=0.5)
        L.utils.swap_tensors(layer.weight, L.nn.Parameter(L.ones(1, 2)))
        layer(L.ones(3, 2)).sum().backward()
        opt.step()
        return opt.param_groups[0]["params"][0] is layer.weight, layer.weight.tolist()

    assert run(jtensor) == run(torch) == (True, [[-0.5, -0.5]])


def test_a_weakly_referenced_tensor_is_refused():
    for L in (jtensor, torch):
        a = L.ones(2)
        ref = weakref.ref(a)
        with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref"):
            L.utils.swap_tensors(a, L.zeros(1))
        assert ref() is a and a.tolist() == [1.0, 1.0]
