"""``torch.backends.mkldnn``: oneDNN, which jtensor does not use; ``enabled`` stays settable."""

__all__ = ["enabled", "is_available"]

enabled = True


def is_available():
    return False
