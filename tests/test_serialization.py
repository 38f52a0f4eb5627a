"""save/load: values, dtypes, layouts and storage sharing survive a round trip."""

import fractions
import io
import pickle

import numpy as np
import pytest

import jtensor

from .harness import torch

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
