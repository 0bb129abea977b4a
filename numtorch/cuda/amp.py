"""``numtorch.cuda.amp``: the deprecated spellings of ``numtorch.amp`` for ``device_type="cuda"``."""

from __future__ import annotations

import functools

from ..amp import autocast as _autocast
from ..amp import custom_bwd as _custom_bwd
from ..amp import custom_fwd as _custom_fwd
from ..amp.grad_scaler import GradScaler as _GradScaler


class autocast(_autocast):  # noqa: N801
    """``numtorch.amp.autocast("cuda", ...)``: without CUDA it only warns when enabled, as PyTorch does."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        from .. import float16

        super().__init__("cuda", dtype=dtype or float16, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``numtorch.amp.GradScaler("cuda", ...)``; disabled (a pass-through) without CUDA, with PyTorch's warning."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):  # fmt: skip
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``numtorch.amp.custom_fwd(device_type="cuda")``."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``numtorch.amp.custom_bwd(device_type="cuda")``."""
    if bwd is None:
        return custom_bwd
    return _custom_bwd(bwd, device_type="cuda")
