"""``torch.version``: the PyTorch version jtensor implements, and its build facts.

``__version__`` is the release of PyTorch whose API and numerics jtensor follows, with jtensor's
own version as the local label (``2.13.0+jtensor.0.1.0``), so version checks in PyTorch code
(``torch.__version__ >= "2.0"``, ``version.parse(torch.__version__)``) take the branch they
take on PyTorch 2.13. ``jtensor`` is jtensor's own version.
"""

from .torch_version import TorchVersion

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "jtensor", "rocm", "xpu"]

jtensor = "0.1.0"
torch = "2.13.0"
__version__ = TorchVersion(f"{torch}+jtensor.{jtensor}")
debug = False
cuda = None  # no CUDA toolkit is compiled in (the emulated device needs none)
git_version = "unknown"
hip = None
rocm = None
xpu = None
