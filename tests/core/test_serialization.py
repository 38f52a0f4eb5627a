"""save/load: values, dtypes, layouts and storage sharing survive a round trip."""

import fractions
import io
import pickle

import numpy as np
import pytest

import jtensor

from tests.harness.conformance import torch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda


def round_trip(obj, lib=jtensor, **kwargs):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **kwargs)


def test_views_share_storage_again_after_loading():
    a = jtensor.arange(12.0)
    loaded = round_trip({"a": a, "b": a[2:].view(2, 5), "t": a.view(3, 4).t()})
    assert loaded["b"].untyped_storage().data_ptr() == loaded["a"].untyped_storage().data_ptr()
    assert loaded["t"].stride() == (1, 4)
    assert loaded["b"].storage_offset() == 2
    loaded["a"][2] = 100.0
    assert loaded["b"][0, 0].item() == 100.0  # one memory again, as before saving
    assert a[2].item() == 2.0  # and not the original's memory


@pytest.mark.skipif(torch is None, reason="needs the PyTorch oracle")
def test_layouts_and_sharing_match_pytorch():
    def scene(lib):
        a = lib.arange(24.0).view(2, 3, 4)
        return {"a": a, "view": a[:, 1], "perm": a.permute(2, 0, 1),
                "copy": a.clone(), "grad": lib.ones(2, requires_grad=True)}

    mine, theirs = round_trip(scene(jtensor)), round_trip(scene(torch), lib=torch)
    for key in theirs:
        assert mine[key].stride() == theirs[key].stride(), key
        assert mine[key].storage_offset() == theirs[key].storage_offset(), key
        assert mine[key].requires_grad == theirs[key].requires_grad, key
        assert mine[key].tolist() == theirs[key].tolist(), key
    for key in ("view", "perm", "copy"):
        same_mine = mine[key].untyped_storage().data_ptr() == mine["a"].untyped_storage().data_ptr()
        same_theirs = (theirs[key].untyped_storage().data_ptr()
                       == theirs["a"].untyped_storage().data_ptr())
        assert same_mine == same_theirs, key


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64", "complex64"])
def test_every_dtype(dtype, tmp_path):
    t = jtensor.arange(6).to(getattr(jtensor, dtype)).view(2, 3)
    path = tmp_path / "t.jt"
    jtensor.save([t, (t[1], 3.5, "label")], path)
    loaded = jtensor.load(path)
    assert loaded[0].dtype is t.dtype and loaded[0].tolist() == t.tolist()
    assert loaded[1][1:] == (3.5, "label")


def test_weights_only_refuses_arbitrary_objects():
    buffer = io.BytesIO()
    jtensor.save({"tensor": jtensor.ones(2), "obj": fractions.Fraction(1, 3)}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        jtensor.load(buffer)
    buffer.seek(0)
    assert jtensor.load(buffer, weights_only=False)["obj"] == fractions.Fraction(1, 3)


def test_not_a_jtensor_file():
    with pytest.raises(RuntimeError, match="jtensor.save"):
        jtensor.load(io.BytesIO(b"not a pickle"))


def test_loaded_memory_is_writable_and_independent():
    array = np.arange(4.0)
    t = jtensor.from_numpy(array)
    loaded = round_trip(t)
    loaded += 1
    assert array.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------------- sparse COO
def _sparse(lib, coalesce=False, requires_grad=False):
    s = lib.sparse_coo_tensor([[1, 0, 1], [2, 0, 2]], [1.0, 2.0, 3.0], (2, 3), device="cpu",
                              requires_grad=requires_grad)
    return s.coalesce() if coalesce else s


def _sparse_state(s):
    return (s.is_sparse, s._indices().tolist(), s._values().tolist(), tuple(s.shape),
            s.is_coalesced(), s.requires_grad, str(s.dtype), s.to_dense().tolist())


@pytest.mark.parametrize("coalesce", [False, True])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_sparse_round_trips(coalesce, requires_grad):
    s = _sparse(jtensor, coalesce, requires_grad)
    loaded = round_trip(s)
    # PyTorch restores everything but requires_grad (False after loading a sparse tensor)
    assert _sparse_state(loaded) == _sparse_state(s.detach())
    assert loaded.is_leaf and not loaded.requires_grad
    if not coalesce:  # the duplicates are kept, not summed or densified
        assert loaded.to_dense().tolist() == [[2.0, 0.0, 0.0], [0.0, 0.0, 4.0]]
        assert loaded._nnz() == 3
    if torch is not None:
        assert _sparse_state(loaded) == _sparse_state(round_trip(
            _sparse(torch, coalesce, requires_grad), torch))


def test_sparse_round_trips_inside_containers_and_hybrid():
    h = jtensor.sparse_coo_tensor([[1, 0]], jtensor.arange(4.0, dtype=jtensor.float64)
                                  .reshape(2, 2), (3, 2), device="cpu")
    empty = jtensor.sparse_coo_tensor(jtensor.zeros(2, 0, dtype=jtensor.long, device="cpu"),
                                      jtensor.zeros(0, device="cpu"), (2, 3))
    obj = {"list": [_sparse(jtensor), (h,)], "empty": empty, "dense": jtensor.ones(2)}
    loaded = round_trip(obj)
    assert _sparse_state(loaded["list"][0]) == _sparse_state(obj["list"][0])
    assert _sparse_state(loaded["list"][1][0]) == _sparse_state(h)
    assert loaded["list"][1][0].dense_dim() == 1
    assert _sparse_state(loaded["empty"]) == _sparse_state(empty)
    assert loaded["dense"].tolist() == [1.0, 1.0]
    # the restricted loader (weights_only=True, the default) accepts it; so does the other
    assert _sparse_state(round_trip(obj, weights_only=False)["list"][0]) == \
        _sparse_state(obj["list"][0])


def test_sgd_state_dict_with_sparse_momentum_round_trips():
    weight = jtensor.nn.Parameter(jtensor.zeros(4, 2, device="cpu"))
    opt = jtensor.optim.SGD([weight], lr=0.1, momentum=0.9)
    for rows in ([0, 2], [2, 3]):
        # (device= as well: under a default device, PyTorch puts the result there)
        weight.grad = jtensor.sparse_coo_tensor([rows], jtensor.ones(2, 2, device="cpu"),
                                                (4, 2), device="cpu")
        opt.step()
    state = opt.state_dict()
    buf = state["state"][0]["momentum_buffer"]
    assert buf.is_sparse
    loaded = round_trip(state)
    lbuf = loaded["state"][0]["momentum_buffer"]
    assert _sparse_state(lbuf) == _sparse_state(buf)
    fresh = jtensor.optim.SGD([weight], lr=0.1, momentum=0.9)
    fresh.load_state_dict(loaded)
    assert _sparse_state(fresh.state_dict()["state"][0]["momentum_buffer"]) == \
        _sparse_state(buf)


def test_saving_leaves_pythons_random_stream_alone(tmp_path):
    """``torch.save`` draws its archive's serialization id outside Python's ``random`` (as
    PyTorch, from C++): a program that seeds ``random`` for its data augmentation sees the
    same stream whether it checkpoints or not (found by the twentieth corpus)."""
    import random

    random.seed(0)
    expected = [random.random() for _ in range(3)]
    random.seed(0)
    jtensor.save({"w": jtensor.ones(2)}, io.BytesIO())
    jtensor.save(jtensor.zeros(3), tmp_path / "t.pt")
    assert [random.random() for _ in range(3)] == expected
