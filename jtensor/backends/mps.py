"""``torch.backends.mps``: Apple's Metal backend, which jtensor does not have."""

__all__ = ["is_available", "is_built", "is_macos13_or_newer", "is_macos_or_newer"]


def is_available():
    """Whether MPS can be used (never in jtensor)."""
    return False


def is_built():
    """Whether jtensor was built with MPS (no)."""
    return False


def is_macos_or_newer(major, minor):
    return False


def is_macos13_or_newer(minor=0):
    return False
