"""``jtensor.optim``: optimizers (``SGD``, ``Adam``, ``AdamW``, ``Adamax``, ``NAdam``,
``RAdam``, ``RMSprop``, ``Rprop``, ``Adagrad``, ``Adadelta``, ``ASGD``, ``LBFGS``,
``SparseAdam``, ``Adafactor``, ``Muon``), ``lr_scheduler`` and ``swa_utils``, with PyTorch's
names, defaults, state_dict format and update arithmetic.

As in PyTorch, the modules that define the optimizers (``jtensor.optim.sgd``, ...) can be
imported by name but are not attributes of the package: ``dir(jtensor.optim)`` lists what
``dir(torch.optim)`` does."""

from . import lr_scheduler, swa_utils
from ._adafactor import Adafactor
from ._muon import Muon
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from . import _functional  # noqa: E402,F401 (torch.optim._functional)

Adafactor.__module__ = "jtensor.optim"
Muon.__module__ = "jtensor.optim"
swap_in_optimizer_params_and_state.__module__ = "jtensor.optim"

# PyTorch removes its submodules' names from the package (``torch.optim.sgd`` is an
# AttributeError even after ``import torch.optim.sgd``); so does jtensor
del adadelta, adagrad, adam, adamw, sparse_adam, adamax, asgd, sgd, radam, rprop  # noqa: F821
del rmsprop, optimizer, nadam, lbfgs  # noqa: F821

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
    "swap_in_optimizer_params_and_state",
]
