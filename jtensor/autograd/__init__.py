"""``jtensor.autograd``: grad mode today; the graph and the engine build on it (issue 3)."""

from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]
