"""numtorch.optim: optimizers (one fused Numba kernel per parameter update) and LR schedulers.

>>> import numtorch as torch
>>> p = torch.nn.Parameter(torch.ones(2))
>>> opt = torch.optim.Adam([p], lr=1e-3)
>>> p.grad = torch.ones(2); opt.step(); opt.zero_grad(); p.grad is None
True
"""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
