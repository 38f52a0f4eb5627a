"""``torch.backends.opt_einsum``: contraction-order optimisation for einsum (not used)."""

__all__ = ["enabled", "is_available", "strategy"]

enabled = False
strategy = None


def is_available():
    return False
