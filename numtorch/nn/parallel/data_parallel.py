"""DataParallel over the available accelerator devices (none, or one, in numtorch)."""

from __future__ import annotations

from itertools import chain

import numtorch

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _device_type() -> str | None:
    return "cuda" if numtorch.cuda.is_available() else None


def _device_ids(device_ids) -> list[int]:
    if device_ids is None:
        device_ids = list(range(numtorch.cuda.device_count()))
    ids = [numtorch.device(d).index or 0 if isinstance(d, (str, numtorch.device)) else int(d) for d in device_ids]
    if len(ids) > 1:
        raise NotImplementedError("numtorch's DataParallel runs on one device; pass device_ids=[0]")
    return ids


def _check_params(module, src) -> None:
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src:
            raise RuntimeError(
                f"module must have its parameters and buffers on device {src} (device_ids[0]) but found one of "
                f"them on device: {t.device}"
            )


class DataParallel(Module):
    """Run ``module`` over the batch on the listed devices; with none available, just call it."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        if _device_type() is None:
            self.module = module
            self.device_ids = []
            return
        self.dim, self.module = dim, module
        self.device_ids = _device_ids(device_ids)
        self.output_device = self.device_ids[0] if output_device is None else output_device
        self.src_device_obj = numtorch.device("cuda", self.device_ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        with numtorch.autograd.profiler.record_function("DataParallel.forward"):
            if not self.device_ids:
                return self.module(*inputs, **kwargs)
            _check_params(self.module, self.src_device_obj)
            inputs = tuple(x.to(self.src_device_obj) if isinstance(x, numtorch.Tensor) else x for x in inputs)
            return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """``module(*inputs)`` on the listed devices (the functional DataParallel)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if _device_type() is None:
        raise RuntimeError("device type could not be determined")
    ids = _device_ids(device_ids)
    if not ids:
        raise RuntimeError("no available devices were found")
    src = numtorch.device("cuda", ids[0])
    _check_params(module, src)
    inputs = tuple(x.to(src) if isinstance(x, numtorch.Tensor) else x for x in inputs)
    return module(*inputs, **(module_kwargs or {}))
