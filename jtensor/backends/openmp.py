"""``torch.backends.openmp``: jtensor computes through NumPy, not PyTorch's OpenMP kernels."""

__all__ = ["is_available"]


def is_available():
    return False
