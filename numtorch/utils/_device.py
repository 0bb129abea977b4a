"""The default device: a ``__torch_function__`` mode that gives factories without ``device=``
the chosen device, as PyTorch's ``torch.utils._device.DeviceContext`` (what
``set_default_device`` pushes)."""

from __future__ import annotations

import functools

from ..overrides import TorchFunctionMode

_NAMES = ("empty", "empty_permuted", "empty_strided", "ones", "zeros", "full", "arange", "range", "eye",
          "linspace", "logspace", "rand", "randn", "randint", "randperm", "tensor", "asarray", "as_tensor",
          "scalar_tensor", "tril_indices", "triu_indices", "bartlett_window", "blackman_window",
          "hamming_window", "hann_window", "kaiser_window")  # fmt: skip


@functools.lru_cache(1)
def _device_constructors() -> set:
    import numtorch

    fns = {getattr(numtorch, n) for n in _NAMES if hasattr(numtorch, n)}
    return fns | {numtorch.fft.fftfreq, numtorch.fft.rfftfreq}


class DeviceContext(TorchFunctionMode):
    """Fill in ``device=`` of the factories that take none."""

    def __init__(self, device):
        from .._device import device as _dev

        self.device = _dev(device)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _device_constructors() and kwargs.get("device") is None:
            kwargs["device"] = self.device
        return func(*args, **kwargs)
