"""numtorch.nn: modules, parameters, init and the functional interface.

>>> import numtorch as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(4, 2))
>>> [name for name, _ in net.named_parameters()]
['0.weight', '0.bias']
"""

from __future__ import annotations

from . import functional, grad, init, utils  # noqa: F401, E402
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


def factory_kwargs(kwargs):
    """The ``device`` / ``dtype`` / ``memory_format`` entries of ``kwargs`` (and of its
    ``factory_kwargs`` entry), checked, for passing on to factory functions.

    >>> numtorch.nn.factory_kwargs({"dtype": numtorch.float64})
    {'dtype': torch.float64}
    """
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


from . import attention, common_types, parallel  # noqa: E402,F401
from .parallel import DataParallel  # noqa: E402,F401
