"""``torch.backends.cpu``: the CPU's vector capability as PyTorch names it."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """jtensor's kernels are NumPy's, so no PyTorch capability level applies: ``"DEFAULT"``."""
    return "DEFAULT"
