"""On a machine without CUDA, every spelling of CUDA autocast warns with PyTorch's words
(``torch.cuda.amp.autocast`` first with its deprecation), and runs disabled."""

import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")

SPELLINGS = {
    "torch.cuda.amp.autocast()": lambda L: L.cuda.amp.autocast(),
    "torch.autocast('cuda')": lambda L: L.autocast("cuda"),
    "torch.amp.autocast('cuda')": lambda L: L.amp.autocast("cuda"),
    "torch.autocast('cuda', dtype=bfloat16)": lambda L: L.autocast("cuda", dtype=L.bfloat16),
}


def _warnings(L, make):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with make(L):
            enabled = L.is_autocast_enabled("cuda")
    return enabled, [(w.category.__name__, str(w.message)) for w in seen]


@pytest.mark.skipif(torch.cuda.is_available(), reason="the warnings of a machine without CUDA")
@pytest.mark.parametrize("name", list(SPELLINGS))
def test_cuda_autocast_without_cuda_warns_as_pytorch(name, monkeypatch):
    monkeypatch.setattr(jtensor.cuda, "is_available", lambda: False)
    assert _warnings(jtensor, SPELLINGS[name]) == _warnings(torch, SPELLINGS[name])
