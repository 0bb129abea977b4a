"""numtorch.optim: optimizers (one fused Numba kernel per parameter update) and LR schedulers.

>>> import numtorch as torch
>>> p = torch.nn.Parameter(torch.ones(2))
>>> opt = torch.optim.Adam([p], lr=1e-3)
>>> p.grad = torch.ones(2); opt.step(); opt.zero_grad(); p.grad is None
True
"""

from __future__ import annotations

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from ._muon import Muon
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from ._stateless import swap_in_optimizer_params_and_state

__all__ = [
    "ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon", "NAdam", "Optimizer",
    "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils", "swap_in_optimizer_params_and_state",
]  # fmt: skip
