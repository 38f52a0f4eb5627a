"""``torch.functional`` (``import torch.functional as F``) against PyTorch's module."""

import numpy as np
import pytest

import jtensor
import jtensor.functional as F

torch = pytest.importorskip("torch")
import torch.functional as TF  # noqa: E402


def test_every_name_is_pytorchs_and_is_the_top_level_function():
    assert set(F.__all__) <= set(TF.__all__)
    for name in F.__all__:
        assert getattr(F, name) is getattr(jtensor, name), name
    assert sorted(dir(F)) == sorted(F.__all__)


def test_names_not_implemented_are_attribute_errors():
    for name in set(TF.__all__) - set(F.__all__):
        with pytest.raises(AttributeError, match="torch.functional"):
            getattr(F, name)
    with pytest.raises(AttributeError):
        F.not_a_function  # noqa: B018


def test_calls_through_the_module_match_pytorch():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for fn in (
        lambda lib, m: m.einsum("ij,kj->ik", lib.tensor(a), lib.tensor(a)),
        lambda lib, m: m.split(lib.tensor(a), [1, 2])[1],
        lambda lib, m: m.norm(lib.tensor(a), dim=1),
        lambda lib, m: m.tensordot(lib.tensor(a), lib.tensor(a.T), dims=1),
        lambda lib, m: m.meshgrid(lib.arange(2), lib.arange(3), indexing="ij")[0],
        lambda lib, m: m.block_diag(lib.ones(1, 2), lib.ones(2, 1)),
    ):
        mine, theirs = fn(jtensor, F), fn(torch, TF)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)
    assert tuple(F.broadcast_shapes((2, 1), (3,))) == tuple(TF.broadcast_shapes((2, 1), (3,)))
