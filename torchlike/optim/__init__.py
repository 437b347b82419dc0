"""torch.optim: optimizers (each step is one compiled program per param group) and learning-rate schedulers.

Not provided: Adafactor and Muon (torch's newer optimizers), and SparseAdam, which raises NotImplementedError.
"""
from . import lr_scheduler, optimizer  # noqa: F401
from .optimizer import Optimizer
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ['Adadelta', 'Adagrad', 'Adam', 'Adamax', 'AdamW', 'ASGD', 'LBFGS', 'lr_scheduler', 'NAdam', 'Optimizer',
           'RAdam', 'RMSprop', 'Rprop', 'SGD', 'SparseAdam']
