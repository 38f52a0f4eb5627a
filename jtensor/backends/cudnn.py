"""``torch.backends.cudnn``: never available in jtensor; its flags are plain, settable values."""

import contextlib

__all__ = [
    "allow_tf32",
    "benchmark",
    "benchmark_limit",
    "deterministic",
    "enabled",
    "flags",
    "is_acceptable",
    "is_available",
    "version",
]

enabled = True
benchmark = False
benchmark_limit = None  # as in PyTorch without cuDNN
deterministic = False
allow_tf32 = True


def is_available():
    """Whether cuDNN can be used (never: jtensor has no cuDNN)."""
    return False


def version():
    """cuDNN's version (None: there is none)."""
    return None


def is_acceptable(tensor):
    """Whether cuDNN would take ``tensor`` (never)."""
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Within the block the flags have these values; the old ones come back after it."""
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    g = globals()
    old = {name: g[name] for name in names}
    g.update(
        enabled=enabled,
        benchmark=benchmark,
        benchmark_limit=benchmark_limit,
        deterministic=deterministic,
        allow_tf32=allow_tf32,
    )
    try:
        yield
    finally:
        g.update(old)
