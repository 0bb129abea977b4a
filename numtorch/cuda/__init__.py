"""numtorch.cuda as PyTorch's CPU-only build answers it.

Scripts probe CUDA before choosing a device (``"cuda" if torch.cuda.is_available() else "cpu"``)
and seed it unconditionally; those calls behave as in a CPU-only PyTorch. Calls that need a GPU
raise "Torch not compiled with CUDA enabled" with the way to get one (the ``cuda`` extra).

>>> numtorch.cuda.is_available(), numtorch.cuda.device_count()
(False, 0)
"""

from __future__ import annotations

from .._device import cuda_not_compiled
from . import amp  # noqa: F401

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
    "get_device_name", "get_device_capability", "get_device_properties", "synchronize", "empty_cache",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
    "set_rng_state", "get_rng_state_all", "set_rng_state_all", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
    "is_bf16_supported", "device", "device_of", "stream", "Stream", "Event", "amp", "ipc_collect",
]  # fmt: skip


def is_available() -> bool:
    """False: numtorch has no CUDA backend loaded."""
    return False


def device_count() -> int:
    """0 CUDA devices."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialised without a backend."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False without a GPU."""
    return False


def _unavailable(*args, **kwargs):
    raise cuda_not_compiled()


init = current_device = set_device = get_device_name = get_device_capability = _unavailable
get_device_properties = synchronize = ipc_collect = get_rng_state = set_rng_state = _unavailable
get_rng_state_all = set_rng_state_all = initial_seed = _unavailable


def _noop(*args, **kwargs) -> None:
    return None


# PyTorch queues these until CUDA initialises, which never happens here: harmless.
manual_seed = manual_seed_all = seed = seed_all = empty_cache = _noop


def memory_allocated(device=None) -> int:
    """0 bytes: nothing is allocated on a GPU."""
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def reset_peak_memory_stats(device=None) -> None:
    """Nothing to reset without a GPU."""


class _DeviceContext:
    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        if self.idx is not None and self.idx != -1:
            raise cuda_not_compiled()

    def __exit__(self, *exc):
        return False


class device(_DeviceContext):  # noqa: N801 - torch's name
    """Context manager selecting a CUDA device; ``None``/-1 is a no-op, as in PyTorch."""


class device_of(_DeviceContext):  # noqa: N801
    """Context manager selecting the device of a tensor; a no-op for CPU tensors."""

    def __init__(self, obj):
        super().__init__(-1 if not getattr(obj, "is_cuda", False) else 0)


class stream:  # noqa: N801
    """Context manager selecting a stream; ``None`` is a no-op."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            raise cuda_not_compiled()

    def __exit__(self, *exc):
        return False


class Stream:
    """A CUDA stream: needs a GPU."""

    def __new__(cls, *args, **kwargs):
        raise cuda_not_compiled()


class Event(Stream):
    """A CUDA event: needs a GPU."""
