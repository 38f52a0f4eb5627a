"""``jtensor.utils``: ``checkpoint`` (and, later, ``data``)."""

from . import data  # noqa: E402,F401 (torch.utils.data.DataLoader after import torch)
