"""``torch.backends.mkl``: jtensor computes through NumPy, not through PyTorch's mkl kernels."""

__all__ = ["is_available"]


def is_available():
    return False
