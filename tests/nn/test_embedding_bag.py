"""nn.EmbeddingBag against PyTorch: repr, initial weight (same draws), outputs and weight
gradients for each mode, offsets, 2-d input, per_sample_weights, padding_idx,
from_pretrained."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CASES = [
    ({}, [[1, 2, 4, 5], [4, 3, 2, 9]], None, None),
    ({"mode": "sum", "padding_idx": 2}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3], None),
    ({"mode": "max"}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 5], None),
    ({"mode": "sum", "include_last_offset": True}, [1, 2, 4, 5, 4, 3], [0, 2, 6], None),
    ({"mode": "sum"}, [1, 2, 4, 5], [0, 1], [0.5, 1.0, 2.0, -1.0]),
]


@pytest.mark.parametrize(
    "kwargs,indices,offsets,weights", CASES, ids=[str(i) for i in range(len(CASES))]
)
def test_embedding_bag_matches_pytorch(kwargs, indices, offsets, weights):
    runs = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        m = lib.nn.EmbeddingBag(10, 3, **kwargs)
        args = [lib.tensor(indices)]
        if offsets is not None:
            args.append(lib.tensor(offsets))
        psw = None if weights is None else lib.tensor(weights, requires_grad=True)
        out = m(*args, per_sample_weights=psw)
        (out * out).sum().backward()
        runs.append(
            (
                repr(m),
                out.detach(),
                m.weight.grad,
                out.grad_fn.name(),
                None if psw is None else psw.grad,
            )
        )
    (r1, o1, g1, n1, p1), (r2, o2, g2, n2, p2) = runs
    assert r1 == r2 and n1 == n2
    np.testing.assert_allclose(o1.cpu().numpy(), o2.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1.cpu().numpy(), g2.numpy(), rtol=1e-5, atol=1e-6)
    if p1 is not None:
        np.testing.assert_allclose(p1.cpu().numpy(), p2.numpy(), rtol=1e-5, atol=1e-6)


def test_from_pretrained_is_frozen():
    w = jtensor.arange(6.0).reshape(3, 2)
    bag = jtensor.nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not bag.weight.requires_grad
    out = bag(jtensor.tensor([[0, 2]]))
    assert out.tolist() == [[4.0, 6.0]]
