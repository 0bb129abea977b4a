"""``skip_init``: build a module without running its parameter initialization, mirroring
``torch.nn.utils.init`` (constructed on the meta device, then given uninitialized storage)."""

from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with parameters and buffers left uninitialized.

    >>> numtorch.nn.utils.skip_init(numtorch.nn.Linear, 5, 1).weight.shape
    torch.Size([1, 5])
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
