"""``jtensor.optim``: optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``,
``SparseAdam``) and ``lr_scheduler``, with PyTorch's names, defaults, state_dict format and
update arithmetic."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop",
           "SparseAdam", "lr_scheduler"]
