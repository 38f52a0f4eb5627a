"""What a seventeenth batch of teaching programs (PyTorch's intermediate tutorials, dataflowr,
STAT 453) showed, checked against PyTorch: a notebook that asks an integer tensor to require
grad prints the error, which must be PyTorch's sentence word for word."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "requires_grad_() on an int64 tensor": lambda L: L.from_numpy(np.array([2])).requires_grad_(),
    "requires_grad = True on an int64 tensor": lambda L: setattr(
        L.tensor([1, 2]), "requires_grad", True
    ),
    "a factory with requires_grad=True": lambda L: L.zeros(2, dtype=L.long, requires_grad=True),
    "tensor() with requires_grad=True": lambda L: L.tensor([1, 2], requires_grad=True),
    "a bool tensor": lambda L: L.tensor([True]).requires_grad_(),
    "a sparse tensor of int values": lambda L: L.sparse_coo_tensor(
        [[0]], [1], (2,), requires_grad=True
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_integer_tensors_refuse_requires_grad_in_pytorchs_words(name):
    messages = []
    for lib in (jtensor, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PyTorch's sparse invariant-check notice)
            with pytest.raises(RuntimeError) as info:
                CALLS[name](lib)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
