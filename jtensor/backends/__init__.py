"""``torch.backends``: the switches PyTorch programs read and set for their backends.

jtensor computes through NumPy, so these are answers and settable flags, not engines:
``mps.is_available()`` is False, ``cudnn.is_available()`` is False while ``cudnn.benchmark``,
``cudnn.deterministic``, ``cudnn.enabled`` and ``cudnn.allow_tf32`` are attributes a program can
set (and read back), as ``import torch.backends.cudnn as cudnn; cudnn.benchmark = True`` does.
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
