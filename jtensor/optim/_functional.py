"""``torch.optim._functional``: each optimizer's update as a function of lists of tensors
(parameters, gradients, state), the form PyTorch's optimizers call and older code imports."""

from .adadelta import adadelta
from .adagrad import adagrad
from .adam import adam
from .adamax import adamax
from .adamw import adamw
from .asgd import asgd
from .nadam import nadam
from .radam import radam
from .rmsprop import rmsprop
from .rprop import rprop
from .sgd import sgd
from .sparse_adam import sparse_adam

__all__ = ["adadelta", "adagrad", "adam", "adamax", "adamw", "asgd", "nadam", "radam",
           "rmsprop", "rprop", "sgd", "sparse_adam"]
