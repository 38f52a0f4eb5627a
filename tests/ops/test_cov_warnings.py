"""``cov`` (and ``corrcoef``, which calls it) warns as PyTorch does where the degrees of
freedom are not positive (the correction is not below the number of observations, or the
weights leave none), once per call, recorded or not, and pointing at the caller's line."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = {
    "one-observation": lambda lib: lib.cov(lib.tensor([[1.0], [2.0]])),
    "correction-too-large": lambda lib: lib.cov(lib.tensor([1.0, 2.0, 4.0]), correction=3),
    "aweights": lambda lib: lib.cov(
        lib.tensor([[1.0, 2.0]]), aweights=lib.tensor([1.0, 1.0]), correction=5
    ),
    "fweights": lambda lib: lib.cov(
        lib.tensor([[1.0, 2.0]]), fweights=lib.tensor([1, 1]), correction=2
    ),
    "corrcoef": lambda lib: lib.corrcoef(lib.tensor([3.0])),
    "enough-observations": lambda lib: lib.cov(lib.tensor([1.0, 2.0, 4.0])),
}


def _run(lib, name, grad):
    with warnings.catch_warnings(record=True) as caught:
        # (PyTorch's warnings, every call's; not NumPy's floating-point ones, which pytest's
        # own filters let through where jtensor's import-time filter drops them)
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", UserWarning)
        if grad:
            with lib.enable_grad():
                lib.set_default_dtype(lib.float64)
                try:
                    out = CALLS[name](_Grad(lib))
                finally:
                    lib.set_default_dtype(lib.float32)
        else:
            out = CALLS[name](lib)
    messages = [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]
    return messages, out.detach().tolist(), [w.filename for w in caught]


class _Grad:
    """``lib`` whose ``tensor`` makes float tensors that require grad (a recorded call)."""

    def __init__(self, lib):
        self._lib = lib

    def tensor(self, data):
        t = self._lib.tensor(data)
        return t.requires_grad_() if t.is_floating_point() else t

    def __getattr__(self, name):
        return getattr(self._lib, name)


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "recorded"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_cov_warns_as_pytorch(name, grad):
    ours, values, files = _run(jtensor, name, grad)
    theirs, expected, _ = _run(torch, name, grad)
    assert ours == theirs
    assert np.allclose(values, expected, equal_nan=True)
    assert all(f == __file__ for f in files), files  # (the caller's line)
