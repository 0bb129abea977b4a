"""numtorch.nn: modules, parameters, init and the functional interface.

>>> import numtorch as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(4, 2))
>>> [name for name, _ in net.named_parameters()]
['0.weight', '0.bias']
"""

from __future__ import annotations

from . import functional, init, utils  # noqa: F401, E402
from .modules import *  # noqa: F403 - every layer, plus Module and the containers
from .modules.container import (  # noqa: F401 - also when modules/__init__ does not list them
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)  # fmt: skip
from .modules.module import Module  # noqa: F401
from .parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)  # fmt: skip
