"""What the array-path tests of the normalization layers share (``test_layer_norm_fast``,
``test_group_norm_fast``): counting the switch's calls, and comparing tensors."""

import numpy as np

from jtensor.nn._functional import normalization

# The batch-norm tests' inputs: (N, C) to (N, C, D, H, W)
BATCH_NORM_SHAPES = {
    "features": (16, 8),
    "wide": (32, 64),
    "sequence": (4, 6, 7),
    "image": (8, 4, 5, 3),
    "volume": (2, 3, 2, 3, 4),
}


def count_array_paths(monkeypatch):
    """``{"forward": [taken, declined], "backward": [taken, declined]}``: the switch's calls
    (a path guarded off before the call counts in neither)."""
    seen = {"forward": [0, 0], "backward": [0, 0]}

    def counted(name, fn):
        def run(*args):
            result = fn(*args)
            seen[name][result is None] += 1
            return result

        return run

    monkeypatch.setattr(
        normalization, "_array_forward", counted("forward", normalization._array_forward)
    )
    monkeypatch.setattr(
        normalization, "_array_backward", counted("backward", normalization._array_backward)
    )
    return seen


def bits(t):
    """Everything a tensor shows: shape, strides, dtype and the bytes of its values."""
    if t is None:
        return None
    return (tuple(t.shape), t.stride(), str(t.dtype), t.detach().numpy().tobytes())


def close(mine, theirs, tol):
    """Same shape and strides, values within ``tol``; or both None (a gradient that does
    not reach a parameter)."""
    if mine is None or theirs is None:
        assert mine is None and theirs is None
        return
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    np.testing.assert_allclose(
        mine.detach().double().numpy(), theirs.detach().double().numpy(), rtol=tol, atol=tol
    )
