"""``numtorch.autocast`` / ``numtorch.amp.autocast``: the autocast state PyTorch code sets and reads.

# Note [Autocast state]
# numtorch records autocast's state per device type (enabled, dtype, cache, nesting) with
# PyTorch's validation and warnings; the ops on PyTorch's autocast lists read it through the
# autocast key (Note [Autocast key], numtorch/amp/_policy.py), one list table per device type.
# The default dtypes are PyTorch's: bfloat16 on the CPU, float16 on CUDA.
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtype as D
from .._device import device as _device
from . import _policy

_STATE: dict = {"cpu": {"enabled": False, "dtype": D.bfloat16, "cache": True},
                "cuda": {"enabled": False, "dtype": D.float16, "cache": True}}
_NESTING = [0]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used for ``device_type`` (cpu and cuda, as PyTorch)."""
    return device_type in _STATE


def _check_type(device_type: str) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    t = _device(device_type).type
    if t not in _STATE:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return t


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (the CUDA state when omitted, as PyTorch)."""
    return _STATE[_check_type(device_type or "cuda")]["enabled"]


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Switch autocast for a device type (``set_autocast_enabled(True)`` means CUDA, as PyTorch)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _STATE[_check_type(device_type)]["enabled"] = bool(enabled)
    _policy.sync(_STATE)


def get_autocast_dtype(device_type: str):
    """The dtype autocast targets for ``device_type``."""
    return _STATE[_check_type(device_type)]["dtype"]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the dtype autocast targets for ``device_type``."""
    _STATE[_check_type(device_type)]["dtype"] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast's weight-cast cache is on."""
    return _STATE["cpu"]["cache"]


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Switch autocast's cache of parameter casts."""
    for s in _STATE.values():
        s["cache"] = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop the casts of leaf tensors (parameters) autocast keeps for the region."""
    _policy.clear_cache()


def autocast_increment_nesting() -> int:
    _NESTING[0] += 1
    return _NESTING[0]


def autocast_decrement_nesting() -> int:
    _NESTING[0] -= 1
    return _NESTING[0]


class autocast:  # noqa: N801 - torch's name
    """Context manager and decorator for mixed precision regions: listed ops (matmul, conv, ...)
    run in ``dtype``, others (softmax, losses, ...) in float32 (Note [Autocast key]).

    >>> with numtorch.autocast("cpu", dtype=numtorch.float16):
    ...     numtorch.is_autocast_enabled("cpu")
    True
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        self.device = _check_type(device_type)
        self.fast_dtype = dtype if dtype is not None else _STATE[self.device]["dtype"]
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if not isinstance(enabled, bool):
            raise ValueError("Expected `enabled` parameter to be of type bool")
        if self.device == "cuda" and enabled and not _cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        if self.device == "cpu" and enabled and self.fast_dtype not in _policy.LOWER_DTYPES:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        s = _STATE[self.device]
        self.prev = (s["enabled"], s["dtype"], s["cache"])
        s["enabled"], s["dtype"], s["cache"] = self._enabled, self.fast_dtype, self._cache_enabled
        autocast_increment_nesting()
        _policy.sync(_STATE)
        return self

    def __exit__(self, *exc) -> bool:
        if autocast_decrement_nesting() == 0:
            _policy.clear_cache()
        s = _STATE[self.device]
        s["enabled"], s["dtype"], s["cache"] = self.prev
        _policy.sync(_STATE)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapped


def _cuda_available() -> bool:
    from .. import cuda

    return cuda.is_available()


def _cast(value, dtype):
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom ``autograd.Function``'s ``forward``: inside an autocast region with
    ``cast_inputs``, floating inputs are cast to it and forward runs with autocast off."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    dev = _check_type(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._fwd_used_autocast = _STATE[dev]["enabled"]
        ctx._dtype = _STATE[dev]["dtype"]
        if cast_inputs is None or not ctx._fwd_used_autocast:
            return fwd(*args, **kwargs)
        with autocast(device_type=dev, enabled=False):
            return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom ``autograd.Function``'s ``backward``: runs it under the autocast state forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    dev = _check_type(device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(dev, dtype=getattr(ctx, "_dtype", None), enabled=getattr(ctx, "_fwd_used_autocast", False)):
            return bwd(*args, **kwargs)

    return decorate_bwd
